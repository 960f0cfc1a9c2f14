"""Correctness and normalized-entropy trajectories along an ordered model axis (BSDProbe Sec. 3.1).

From the answer states of T repeated responses per (model, item), Eq. 1 gives the empirical
state distribution p_{i,q}, Eq. 2 its entropy normalized by log M_q (M_q = number of states seen
across all probe models of the axis for item q) and Eq. 3 the correctness mass c_{i,q}.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_int
from benchkit.stats import normalized_entropy
from benchkit.stats import xlogx

__all__ = ["Trajectories", "state_trajectories", "binary_state_counts", "answer_entropy"]


@result
class Trajectories:
    """Trajectories C_q and E_q of items along an ordered model axis (Sec. 3.1).

    For each item and each probe model, the T repeated responses are reduced to answer states;
    their distribution gives the correctness mass c (Eq. 3: how often the model is right) and the
    normalized entropy e (Eq. 2: how dispersed its answers are). Read along the axis, c shows
    where the item becomes solvable and e whether the models answer it consistently.

    Parameters
    ----------
    state_counts, state_correct, T, counts, c, entropy, n_states, entropy_source, items, models
        The fields below (see Attributes); built by :func:`~benchkit.boundary.steps.trajectories`
        or :func:`~benchkit.boundary.steps.state_trajectories`.
    state_labels
        See Attributes.

    Attributes
    ----------
    state_counts : ndarray (items, n, S) int64
        Responses of model i (axis order, weakest first) on item q in state s. States are numbered
        per item; unused slots have zero counts.
    state_correct : ndarray (items, S) bool
        Whether state s of item q is judged correct (the set Omega*_q of Eq. 3).
    T : int
        Responses per (model, item), the common budget.
    counts : ndarray (items, n) int64
        Correct responses k_{i,q} (sum of the correct states' counts), in [0, T].
    c : ndarray (items, n)
        Correctness mass c_{i,q} = k_{i,q} / T (Eq. 3), in [0, 1]: the share of model i's responses
        to item q that are correct.
    entropy : ndarray (items, n)
        Normalized entropy e_{i,q} (Eq. 2), in [0, 1]: 0 when the model always gives the same
        answer, 1 when its answers spread evenly over all M_q states; 0 where M_q = 1.
    n_states : ndarray (items,) int64
        M_q: distinct states seen across the n models of the axis (the normalizer of Eq. 2).
    entropy_source : {"answers", "binary"}
        "answers": e is computed on the answer states; "binary": only correctness was available
        and e is computed on the two states {correct, incorrect} (M_q <= 2).
    items : pandas.Index
        Item ids, one per row.
    models : pandas.Index
        The axis' model ids (weakest first), one per column.
    state_labels : tuple of tuples, optional
        Label of each state per item (e.g. the answer string), when known.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.1, Eq. (1)-(3).

    Examples
    --------
    >>> from benchkit import simulate
    >>> from benchkit.boundary.steps import trajectories
    >>> rs = simulate.repeated_sampling(n_items=20, T=10, rng=0).responses
    >>> tr = trajectories(rs)
    >>> tr.c.shape, tr.T, tr.entropy_source
    ((20, 6), 10, 'answers')
    >>> tr.to_frame().columns.tolist()
    ['item', 'model', 'position', 'k', 'c', 'e', 'n_states']
    """

    state_counts: np.ndarray
    state_correct: np.ndarray
    T: int
    counts: np.ndarray
    c: np.ndarray
    entropy: np.ndarray
    n_states: np.ndarray
    entropy_source: str
    items: pd.Index
    models: pd.Index
    state_labels: tuple | None = None

    @property
    def n(self) -> int:
        return int(self.counts.shape[1])

    @property
    def n_items(self) -> int:
        return int(self.counts.shape[0])

    def distribution(self, item) -> pd.DataFrame:
        """p_{i,q}(omega) (Eq. 1) of one item: rows = states seen on the axis, columns = models."""
        q = self.items.get_loc(item) if not isinstance(item, (int, np.integer)) else int(item)
        S = int(self.n_states[q])
        used = np.flatnonzero(self.state_counts[q].sum(axis=0) > 0)[:S]
        if self.state_labels is not None:
            labels = [self.state_labels[q][s] for s in used]
        elif self.entropy_source == "binary":
            labels = ["correct" if self.state_correct[q, s] else "incorrect" for s in used]
        else:
            labels = [f"state {s}" for s in used]
        p = self.state_counts[q][:, used].T / float(self.T)
        df = pd.DataFrame(p, index=pd.Index(labels, name="state"), columns=self.models)
        df.insert(0, "correct", self.state_correct[q, used])
        return df

    def select_models(self, positions) -> "Trajectories":
        """Trajectories on a sub-axis (model positions kept in the given order); M_q recomputed."""
        pos = np.asarray(positions, dtype=np.int64)
        return state_trajectories(
            self.state_counts[:, pos, :], self.state_correct, self.T, items=self.items,
            models=self.models[pos], state_labels=self.state_labels,
            entropy_source=self.entropy_source,
        )

    def to_frame(self) -> pd.DataFrame:
        """Long table: one row per (item, model) with position s_i, k, c and e."""
        m, n = self.counts.shape
        s = np.arange(n) / (n - 1) if n > 1 else np.zeros(1)
        return pd.DataFrame(
            {
                "item": np.repeat(np.asarray(self.items, dtype=object), n),
                "model": np.tile(np.asarray(self.models, dtype=object), m),
                "position": np.tile(s, m),
                "k": self.counts.ravel(),
                "c": self.c.ravel(),
                "e": self.entropy.ravel(),
                "n_states": np.repeat(self.n_states, n),
            }
        )


def answer_entropy(state_counts, *, T: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Normalized answer-state entropies e_{i,q} (Eq. 2) and M_q from state counts.

    Parameters
    ----------
    state_counts : array (items, n, S) of int
        Responses of each axis model in each answer state.
    T : int, optional
        The common number of responses per cell, when every cell sums to it: the x log x terms
        are then tabulated on k/T (the fast path, same numbers). Default: each cell is
        normalized by its own total (cells with no response have entropy 0).

    Returns
    -------
    e : ndarray (items, n)
        Normalized entropies in [0, 1] (0 = one answer every time, 1 = uniform over the M_q states).
    M : ndarray (items,) int64
        The states seen across the n models of each item.

    Notes
    -----
    Eq. 2: e_{i,q} = H(p_{i,q}) / log M_q, 0 when M_q = 1 (DESIGN.md reading), with
    :func:`benchkit.stats.xlogx` / :func:`benchkit.stats.normalized_entropy`.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.1, Eq. (2).

    Examples
    --------
    One item, two models, three states seen: the first model always answers state 0, the second
    splits its 4 responses 2/1/1.

    >>> import numpy as np
    >>> from benchkit.boundary.steps import answer_entropy
    >>> e, M = answer_entropy(np.array([[[4, 0, 0], [2, 1, 1]]]), T=4)
    >>> M.tolist(), e.round(4).tolist()
    ([3], [[0.0, 0.9464]])
    """
    sc = np.asarray(state_counts)
    M = (sc.sum(axis=1) > 0).sum(axis=1).astype(np.int64)
    if T is not None:
        if T + 1 <= sc.size:  # a lookup table of x log x on k / T, when it is smaller than the counts
            H = 0.0 - xlogx(np.arange(T + 1) / float(T))[sc].sum(axis=2)
        else:  # the same values computed on the counts themselves (T up to 2**63 needs no table)
            H = 0.0 - xlogx(sc / float(T)).sum(axis=2)
        with np.errstate(divide="ignore", invalid="ignore"):
            e = H / np.log(np.maximum(M, 2))[:, None]
        e[M <= 1] = 0.0
        return np.clip(e, 0.0, 1.0), M
    tot = sc.sum(axis=2, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(tot > 0, sc / np.maximum(tot, 1), 0.0)
    return normalized_entropy(p, n_states=M[:, None], axis=2), M


def state_trajectories(state_counts, state_correct, T, *, items=None, models=None,
                       state_labels=None, entropy_source: str = "answers") -> Trajectories:
    """Trajectories from answer-state counts (array level, Eq. 1-3).

    Parameters
    ----------
    state_counts : array (items, n, S) of int
        Responses of each axis model (weakest first) in each answer state; each (item, model)
        cell must sum to T.
    state_correct : array (items, S) of bool
        Whether each state is judged correct.
    T : int
        Responses per (model, item).
    items, models : sequence, optional
        Labels; default 0..items-1 and 0..n-1.
    state_labels : tuple of tuples, optional
        Label of each state per item.
    entropy_source : {"answers", "binary"}, default "answers"
        Recorded on the result: whether the states are answer states or just {incorrect, correct}
        (:func:`binary_state_counts`).

    Returns
    -------
    Trajectories
        Counts k, correctness mass c (Eq. 3), normalized entropy e (Eq. 2) and M_q per item.

    Notes
    -----
    M_q counts the states with at least one response among the n models given (DESIGN.md reading
    of Sec. 3.1: states seen across all probe models), so a sub-axis recomputes M_q. When
    M_q = 1 the entropy is 0 (log M_q = 0 would make Eq. 2 undefined). c_{i,q} = k_{i,q}/T is the
    summed mass of the correct states (Eq. 3).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.1, Eq. (1)-(3).

    Examples
    --------
    One item, three models, T = 4 responses, states (A correct, B, C):

    >>> import numpy as np
    >>> from benchkit.boundary.steps import state_trajectories
    >>> sc = np.array([[[0, 4, 0], [2, 1, 1], [4, 0, 0]]])
    >>> tr = state_trajectories(sc, [[True, False, False]], 4)
    >>> tr.counts.tolist(), tr.c.tolist()
    ([[0, 2, 4]], [[0.0, 0.5, 1.0]])
    >>> tr.entropy.round(3).tolist(), tr.n_states.tolist()
    ([[0.0, 0.946, 0.0]], [3])
    """
    T = check_int("T", T, min=1)
    sc = check_array("state_counts", state_counts, ndim=3, dtype="int")
    m, n, S = sc.shape
    if sc.size and sc.min() < 0:
        raise BenchkitValueError("state_counts must be non-negative")
    tot = sc.sum(axis=2)
    if tot.size and np.any(tot != T):
        q, i = np.argwhere(tot != T)[0]
        raise BenchkitValueError(
            f"every (item, model) cell of state_counts must hold T={T} responses; item {q}, model "
            f"{i} has {tot[q, i]}"
        )
    ok = np.asarray(state_correct)
    if ok.shape != (m, S):
        raise BenchkitValueError(f"state_correct must have shape ({m}, {S}); got {ok.shape}")
    ok = ok.astype(bool)
    k = (sc * ok[:, None, :]).sum(axis=2).astype(np.int64)
    e, M = answer_entropy(sc, T=T)
    items = pd.Index(range(m) if items is None else list(items), name="item")
    models = pd.Index(range(n) if models is None else list(models), name="model")
    return Trajectories(state_counts=sc, state_correct=ok, T=T, counts=k, c=k / float(T),
                        entropy=e, n_states=M, entropy_source=entropy_source, items=items,
                        models=models, state_labels=state_labels)


def binary_state_counts(counts, T) -> tuple[np.ndarray, np.ndarray]:
    """State counts for correctness-only data: two states per item, (incorrect, correct).

    When the data hold only correctness (no answer strings), BSDProbe's entropy is computed on
    these two states; the result is ``entropy_source="binary"``.

    Parameters
    ----------
    counts : array (items, n) of int
        Correct responses k_{i,q} in [0, T].
    T : int
        Responses per (model, item).

    Returns
    -------
    state_counts : ndarray (items, n, 2)
        ``[T - k, k]`` per cell.
    state_correct : ndarray (items, 2) bool
        ``[False, True]`` per item.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.1, Eq. (1)-(3).

    Examples
    --------
    >>> from benchkit.boundary.steps import binary_state_counts
    >>> sc, ok = binary_state_counts([[1, 3]], 4)
    >>> sc.tolist(), ok.tolist()
    ([[[3, 1], [1, 3]]], [[False, True]])
    """
    k = check_array("counts", counts, ndim=2, dtype="int")
    sc = np.stack([T - k, k], axis=2)
    ok = np.zeros((k.shape[0], 2), dtype=bool)
    ok[:, 1] = True
    return sc, ok
