"""What a :class:`~benchkit.ResponseSet` returns besides itself: its drop report and dense views.

:class:`DropReport` / :class:`DropEntry` count what construction dropped on request (and the
findings it kept); :class:`CountMatrix` and :class:`AnswerCounts` are the results of
:meth:`~benchkit.ResponseSet.counts` and :meth:`~benchkit.ResponseSet.answer_counts`. All are
public through :mod:`benchkit.response_set`.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from benchkit._results import result

__all__ = ["DropEntry", "DropReport", "CountMatrix", "AnswerCounts"]


@result
class DropEntry:
    """One reason rows were dropped: how many rows and cells, and a few examples.

    An entry of :attr:`DropReport.entries` (``ResponseSet.report``).

    Parameters
    ----------
    reason, n_rows, n_cells, examples
        The fields below, filled by the constructor that dropped the rows.

    Attributes
    ----------
    reason : str
        Why the rows were dropped (e.g. "incomplete cell (fewer samples than the budget)").
    n_rows : int
        Input rows dropped for this reason.
    n_cells : int
        (model, item) cells that became missing because of it.
    examples : tuple of str
        A few of the dropped cells, as "'model' on 'item': detail".

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit import ResponseSet
    >>> rs = ResponseSet.from_long(pd.DataFrame({
    ...     "model": ["m1", "m1", "m2"], "item": ["q1", "q1", "q1"], "sample": [0, 1, 0],
    ...     "correct": [1, 0, 1]}), drop_incomplete=True)
    >>> entry = rs.report.entries[0]
    >>> entry.n_rows, entry.n_cells, entry.examples
    (1, 1, ("'m2' on 'q1': 1 samples",))
    """

    reason: str
    n_rows: int
    n_cells: int
    examples: tuple[str, ...] = ()


@result
class DropReport:
    """Everything construction dropped on request, and the rows it kept but found inconsistent.

    ``ResponseSet.report``: nothing is dropped silently, so every row an explicit option removed
    is counted here, per reason. It is falsy when nothing was dropped; ``str(report)`` reads as
    one line per reason, and :attr:`n_rows` / :attr:`n_cells` give the totals.

    Parameters
    ----------
    entries, findings : tuple of DropEntry
        As the attributes below (filled by the ResponseSet constructors).

    Attributes
    ----------
    entries : tuple of DropEntry
        What ``drop_incomplete=True`` and the like dropped: one entry per reason, in the order
        the checks ran; empty when nothing was dropped.
    findings : tuple of DropEntry
        Rows kept whose answer, answer key and ``correct`` contradict each other, one entry per
        kind (``strict=True`` refuses them instead); empty when all agree.

    Examples
    --------
    A cell with fewer samples than the budget of 2 becomes missing and is counted:

    >>> import pandas as pd
    >>> from benchkit import ResponseSet
    >>> rs = ResponseSet.from_long(pd.DataFrame({
    ...     "model": ["m1", "m1", "m2"], "item": ["q1", "q1", "q1"], "sample": [0, 1, 0],
    ...     "correct": [1, 0, 1]}), drop_incomplete=True)
    >>> print(rs.report)
    dropped 1 rows (1 cells): incomplete cell (fewer samples than the budget) (e.g. 'm2' on 'q1': 1 samples)
    >>> bool(rs.report), rs.report.n_rows
    (True, 1)
    """

    entries: tuple[DropEntry, ...] = ()
    findings: tuple[DropEntry, ...] = ()

    @property
    def n_rows(self) -> int:
        """Rows dropped in total."""
        return sum(e.n_rows for e in self.entries)

    @property
    def n_cells(self) -> int:
        """(model, item) cells dropped in total."""
        return sum(e.n_cells for e in self.entries)

    def __bool__(self) -> bool:
        return bool(self.entries) or bool(self.findings)

    def to_frame(self) -> pd.DataFrame:
        """One row per reason: action ("dropped" or "kept"), reason, n_rows, n_cells, example cells."""
        return pd.DataFrame(
            [(action, e.reason, e.n_rows, e.n_cells, "; ".join(e.examples))
             for action, group in (("dropped", self.entries), ("kept", self.findings)) for e in group],
            columns=["action", "reason", "n_rows", "n_cells", "examples"],
        )

    def __str__(self) -> str:
        if not self:
            return "nothing dropped"
        return "\n".join(
            [f"dropped {e.n_rows:,} rows ({e.n_cells:,} cells): {e.reason}"
             + (f" (e.g. {', '.join(e.examples)})" if e.examples else "") for e in self.entries]
            + [f"kept {e.n_rows:,} rows ({e.n_cells:,} cells) where {e.reason}"
               + (f" (e.g. {', '.join(e.examples)})" if e.examples else "") for e in self.findings]
        )


@result
class CountMatrix:
    """Correct counts ``K`` and observed sample counts ``N``, items x models (int64).

    What :meth:`ResponseSet.counts` returns: the k-of-T view of repeated samples that the
    count-based methods (BSDProbe's trajectories, the binomial 1PL) read. A missing cell has
    ``N == 0`` (and ``K == 0``). ``T`` is the common sample budget, or a per-model int64 array
    when budgets differ (``sample_budget="per_model"``); a complete cell has ``N == T``.

    Parameters
    ----------
    K, N, T, items, models
        The fields below, filled by :meth:`ResponseSet.counts`.

    Attributes
    ----------
    K : ndarray of int64 (items, models)
        Correct samples per cell.
    N : ndarray of int64 (items, models)
        Observed samples per cell (0 = missing cell); ``K / N`` is the cell's correctness rate.
    T : int or ndarray of int64 (models,)
        The sample budget: one int, or one per model.
    items : Index
        Item ids, the rows.
    models : Index
        Model ids, the columns (roster order).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit import ResponseSet
    >>> rs = ResponseSet.from_long(pd.DataFrame({
    ...     "model": ["m1", "m1", "m2", "m2"], "item": ["q1", "q2", "q1", "q2"],
    ...     "correct": [1, 0, 1, 1]}))
    >>> cm = rs.counts()
    >>> cm.K.tolist(), cm.N.tolist(), cm.T
    ([[1, 1], [0, 1]], [[1, 1], [1, 1]], 1)
    >>> cm.to_frame().head(2)
      item model  n_correct  n_samples
    0   q1    m1          1          1
    1   q1    m2          1          1
    """

    K: np.ndarray
    N: np.ndarray
    T: int | np.ndarray
    items: pd.Index
    models: pd.Index

    @property
    def missing(self) -> np.ndarray:
        """Boolean mask (items x models) of unobserved cells (``N == 0``)."""
        return self.N == 0

    @property
    def complete_items(self) -> np.ndarray:
        """Boolean mask of items observed for every model."""
        return ~self.missing.any(axis=1)

    def to_frame(self) -> pd.DataFrame:
        """Long table: one row per observed (item, model) cell with n_correct and n_samples."""
        ii, jj = np.nonzero(self.N)
        return pd.DataFrame(
            {
                "item": self.items[ii],
                "model": self.models[jj],
                "n_correct": self.K[ii, jj],
                "n_samples": self.N[ii, jj],
            }
        )


@result
class AnswerCounts:
    """Answer-state counts: ``counts[i, j, s]`` samples of model j on item i in state s.

    States are numbered per item: ``states[i]`` lists item i's state labels (those seen for any
    model), padded to ``counts.shape[2]`` with zero counts. ``state_correct[i, s]`` is the mean
    correctness of the samples in that state (NaN for padding), so a state is "the correct
    answer" when it is 1.

    What :meth:`ResponseSet.answer_counts` returns; BSDProbe's normalized entropy (Eq. 2) is
    computed over these states.

    Parameters
    ----------
    counts, states, state_correct, items, models
        The fields below, filled by :meth:`ResponseSet.answer_counts`.

    Attributes
    ----------
    counts : ndarray of int64 (items, models, states)
        Samples of model j on item i that gave answer state s.
    states : tuple of tuple
        Per item, its state labels in order of first appearance.
    state_correct : ndarray of float64 (items, states)
        Mean correctness of the samples in each state: 1 for the correct answer, 0 for a wrong
        one, NaN for padding.
    items : Index
        Item ids, the first axis.
    models : Index
        Model ids, the second axis.

    Examples
    --------
    Two models, two samples each on one item; model m1 answered A (correct) and B:

    >>> import pandas as pd
    >>> from benchkit import ResponseSet
    >>> rs = ResponseSet.from_long(pd.DataFrame({
    ...     "model": ["m1", "m1", "m2", "m2"], "item": ["q1"] * 4, "sample": [0, 1, 0, 1],
    ...     "correct": [1, 0, 1, 1], "answer": ["A", "B", "A", "A"]}))
    >>> ac = rs.answer_counts()
    >>> ac.states, ac.counts[0].tolist(), ac.state_correct.tolist()
    ((('A', 'B'),), [[1, 1], [2, 0]], [[1.0, 0.0]])
    """

    counts: np.ndarray
    states: tuple[tuple[Any, ...], ...]
    state_correct: np.ndarray
    items: pd.Index
    models: pd.Index

    @property
    def n_states(self) -> np.ndarray:
        """M_q: number of distinct states seen across all models, per item."""
        return np.array([len(s) for s in self.states], dtype=np.int64)

    def to_frame(self) -> pd.DataFrame:
        """Long table: one row per observed (item, model, answer state) with its count."""
        rows = []
        for i, labels in enumerate(self.states):
            for s, label in enumerate(labels):
                for j in np.nonzero(self.counts[i, :, s])[0]:
                    rows.append((self.items[i], self.models[j], label, int(self.counts[i, j, s]),
                                 float(self.state_correct[i, s])))
        return pd.DataFrame(rows, columns=["item", "model", "answer", "count", "correct"])
