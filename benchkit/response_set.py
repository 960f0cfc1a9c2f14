"""``ResponseSet``: item-level evaluation data in long form, and its dense views.

One row per (model, item[, variant], sample) with the correctness of that sample; optional answer
states, MCQ option probabilities, a principal-sample flag and a variant (perturbation or prompt).
Model metadata (family, owner, size, order) and item metadata (benchmark, source, answer key,
text, options, labels) travel with it. Validation happens once, at construction; every row that an
explicit option drops is counted in :attr:`ResponseSet.report`.

Dense views (each says what it does with missing cells):

* :meth:`ResponseSet.counts` -- correct counts ``K`` and observed samples ``N`` (items x models);
  missing cells have ``N == 0`` and ``K == 0``.
* :meth:`ResponseSet.binary` -- correctness of the principal sample; NaN where missing.
* :meth:`ResponseSet.scores` -- mean correctness over samples; NaN where missing.
* :meth:`ResponseSet.answer_counts` -- answer-state counts per item, model and state.
* :meth:`ResponseSet.option_probs` -- option probabilities of the principal sample; NaN where
  missing.
"""
from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import Iterable
from typing import Mapping
from typing import Sequence

import numpy as np
import pandas as pd

from benchkit._response_checks import answer_key_findings
from benchkit._response_checks import check_dense_size
from benchkit._response_checks import item_columns_per_row
from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_bool
from benchkit._validation import check_choice
from benchkit._validation import check_columns
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.model_names import FAMILY_RULES
from benchkit.model_names import parse_model_names

__all__ = [
    "ResponseSet",
    "CountMatrix",
    "AnswerCounts",
    "DropReport",
    "DropEntry",
    "NO_ANSWER",
]

#: The answer state for "no answer could be extracted" (an invalid answer, counted as incorrect).
NO_ANSWER = "<no answer>"

_LONG_REQUIRED = ("model", "item", "correct")
_LONG_OPTIONAL = ("sample", "answer", "option_probs", "option_logprobs", "principal", "variant")
_COUNT_REQUIRED = ("model", "item", "n_correct", "n_samples")
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_PROB_TOL = 1e-6


# --------------------------------------------------------------------------------------------
# reports and views
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def _as_frame(name: str, value: Any) -> pd.DataFrame:
    if not isinstance(value, pd.DataFrame):
        raise BenchkitTypeError(f"{name} must be a pandas DataFrame, got {type(value).__name__}")
    return value


def _ids(name: str, column: str, values: pd.Series) -> pd.Series:
    """Identifiers as strings; ints are converted with str(); nulls and other types are errors."""
    if values.isna().any():
        row = values.index[values.isna().to_numpy()][0]
        raise BenchkitValueError(f"{name} column {column!r} has a missing value at row {row!r}")
    if pd.api.types.is_integer_dtype(values.dtype):
        return values.astype(str)
    if not (pd.api.types.is_string_dtype(values.dtype) or values.dtype == object
            or isinstance(values.dtype, pd.CategoricalDtype)):
        raise BenchkitTypeError(
            f"{name} column {column!r} must hold strings (or integers), got dtype {values.dtype}"
        )
    out = values.astype(str)
    if values.dtype == object:
        bad = values.map(lambda v: not isinstance(v, (str, int, np.integer)))
        if bad.any():
            row = values.index[bad.to_numpy()][0]
            raise BenchkitTypeError(
                f"{name} column {column!r} must hold strings (or integers); row {row!r} has "
                f"{describe(values.loc[row])}"
            )
    empty = out.str.len() == 0
    if empty.any():
        row = values.index[empty.to_numpy()][0]
        raise BenchkitValueError(f"{name} column {column!r} has an empty string at row {row!r}")
    if values.dtype == object:
        # the integer 1 and the string "1" would become one id after str()
        pairs = pd.DataFrame({"raw": values.map(lambda v: (type(v) is str, v)), "id": out})
        pairs = pairs.drop_duplicates("raw")
        clash = pairs["id"].duplicated(keep=False)
        if clash.any():
            raw = [v for _, v in pairs.loc[clash, "raw"]][:2]
            raise BenchkitValueError(
                f"{name} column {column!r} holds {raw[0]!r} and {raw[1]!r}, which are the same id "
                f"{str(raw[0])!r} as text; use one type for ids (all strings or all integers)"
            )
    return out


def _factorize(values: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes of ``values`` and their distinct values in first-appearance order."""
    codes, uniques = pd.factorize(values, sort=False)
    return codes.astype(np.int64), pd.Index(uniques, dtype=object)


def _recode(codes: np.ndarray, seen: pd.Index, order: pd.Index) -> np.ndarray:
    """Codes into ``seen`` -> codes into ``order`` (a permutation of ``seen``)."""
    if order is seen:
        return codes
    return order.get_indexer(seen).astype(np.int64)[codes]


def _metadata_table(name: str, table: pd.DataFrame | None, key: str) -> pd.DataFrame | None:
    if table is None:
        return None
    table = _as_frame(name, table)
    if key not in table.columns and table.index.name == key:
        table = table.reset_index()
    check_columns(name, table.columns, required=(key,))
    table = table.copy()
    table[key] = _ids(name, key, table[key])
    dup = table[key].duplicated()
    if dup.any():
        raise BenchkitValueError(
            f"{name} lists {key} {table[key][dup].iloc[0]!r} more than once; each {key} needs one row"
        )
    return table.set_index(key)


def _check_roster(name: str, key: str, table: pd.DataFrame, seen: pd.Index) -> pd.Index:
    """Roster order from the metadata table; every id must be in both."""
    absent = seen.difference(table.index)
    if len(absent):
        raise BenchkitValueError(
            f"responses has {key}(s) not listed in {name}: {', '.join(map(repr, absent[:5]))}"
            f"{' ...' if len(absent) > 5 else ''} ({len(absent)} in all); add them to {name} or "
            f"leave {name}=None"
        )
    unused = table.index.difference(seen)
    if len(unused):
        raise BenchkitValueError(
            f"{name} lists {len(unused)} {key}(s) with no responses, e.g. {unused[0]!r}; "
            f"select the rows of {name} that have responses"
        )
    return pd.Index(table.index, dtype=object, name=key)


def _rosters(models, items, m_seen: pd.Index, i_seen: pd.Index):
    """Validate the metadata tables and fix the roster order of models and items.

    Returns (model_meta, item_meta, model order, item order); without a table the order is the
    ids' first appearance (``m_seen`` / ``i_seen``).
    """
    model_meta = _metadata_table("models", models, "model")
    item_meta = _metadata_table("items", items, "item")
    m_order = m_seen if model_meta is None else _check_roster("models", "model", model_meta, m_seen)
    i_order = i_seen if item_meta is None else _check_roster("items", "item", item_meta, i_seen)
    return model_meta, item_meta, m_order, i_order


@dataclass(frozen=True)
class _Options:
    """The constructors' options once checked (see :meth:`ResponseSet.from_long`)."""

    T: int | None
    sample_budget: str
    drop_incomplete: bool
    parse_names: bool
    name_rules: Any
    name: str | None
    meta: Mapping[str, Any] | None


def _options(*, T=None, sample_budget="common", drop_incomplete=False, parse_names=True,
             name_rules=FAMILY_RULES, name=None, meta=None) -> _Options:
    """Check the constructors' options.

    Flags must be booleans (the string ``"no"`` is truthy), ``name`` a string, ``meta`` a mapping,
    ``T`` a positive integer or None, ``sample_budget`` "common" or "per_model".
    """
    for flag, value in (("drop_incomplete", drop_incomplete), ("parse_names", parse_names)):
        if not isinstance(value, (bool, np.bool_)):
            raise BenchkitTypeError(f"{flag} must be True or False, got {describe(value)}")
    if name is not None and not isinstance(name, str):
        raise BenchkitTypeError(f"name must be a string or None, got {describe(name)}")
    if meta is not None and not isinstance(meta, Mapping):
        raise BenchkitTypeError(f"meta must be a dict (a mapping) or None, got {describe(meta)}")
    return _Options(T=None if T is None else check_int("T", T, min=1),
                    sample_budget=check_choice("sample_budget", sample_budget, ("common", "per_model")),
                    drop_incomplete=bool(drop_incomplete), parse_names=bool(parse_names),
                    name_rules=name_rules, name=name, meta=meta)


def _model_table(models: pd.DataFrame | None, roster: pd.Index, opts: _Options) -> pd.DataFrame:
    frame = pd.DataFrame(index=pd.Index(roster, name="model"))
    if models is not None:
        frame = models.reindex(roster)
        frame.index.name = "model"
    if opts.parse_names:
        parsed = parse_model_names(roster, rules=opts.name_rules)
        for col in ("family", "owner", "size", "series", "variant"):
            if col not in frame.columns:
                frame[col] = parsed[col].to_numpy()
            else:
                frame[col] = frame[col].where(frame[col].notna(), parsed[col].to_numpy())
    if "size" in frame.columns:
        size = pd.to_numeric(frame["size"], errors="coerce")
        bad = size.isna() & frame["size"].notna()
        if bad.any():
            m = frame.index[bad.to_numpy()][0]
            raise BenchkitValueError(
                f"models column 'size' must be a number (parameters in billions) or missing; model "
                f"{m!r} has {describe(frame['size'].loc[m])}"
            )
        bad = size.notna() & ~(np.isfinite(size.astype(float)) & (size.astype(float) >= 0))
        if bad.any():
            m = frame.index[bad.to_numpy()][0]
            raise BenchkitValueError(
                f"models column 'size' must be a finite number >= 0 (parameters in billions) or "
                f"missing; model {m!r} has {describe(frame['size'].loc[m])}"
            )
        frame["size"] = size.astype(float)
    return frame


def _item_table(items: pd.DataFrame | None, roster: pd.Index) -> pd.DataFrame:
    if items is None:
        return pd.DataFrame(index=pd.Index(roster, name="item"))
    frame = items.reindex(roster)
    frame.index.name = "item"
    return frame


def _check_answer_keys(items: pd.DataFrame, k: int | None) -> None:
    if "answer_key" not in items.columns:
        return
    keys = items["answer_key"]
    n_opts = None
    if "options" in items.columns:
        n_opts = items["options"].map(lambda o: len(o) if isinstance(o, (list, tuple, np.ndarray)) else -1)
        bad_opts = n_opts < 0
        if bad_opts.any():
            it = items.index[bad_opts.to_numpy()][0]
            raise BenchkitTypeError(
                f"items column 'options' must hold a list of option texts per item; item {it!r} has "
                f"{describe(items['options'].loc[it])}"
            )
    for it, key in keys.items():
        if key is None or (isinstance(key, float) and np.isnan(key)):
            continue
        limit = int(n_opts.loc[it]) if n_opts is not None else k
        if not isinstance(key, str) or len(key) != 1 or key.upper() not in _LETTERS:
            allowed = f"a letter A-{_LETTERS[limit - 1]}" if limit else "a capital letter"
            raise BenchkitValueError(
                f"items column 'answer_key' for item {it!r} is {describe(key)}; it must be {allowed}"
            )
        if limit is not None and _LETTERS.index(key.upper()) >= limit:
            raise BenchkitValueError(
                f"item {it!r} has answer_key {key!r}, which is not among its {limit} options "
                f"(A-{_LETTERS[limit - 1]})"
            )


def _stack_probs(column: str, values: pd.Series, is_log: bool, where) -> np.ndarray:
    try:
        lengths = values.map(len)
    except TypeError:
        bad = values.map(lambda v: not hasattr(v, "__len__"))
        row = values.index[bad.to_numpy()][0]
        raise BenchkitTypeError(
            f"responses column {column!r} must hold a sequence of option values per row; "
            f"row {row!r} ({where(row)}) has {describe(values.loc[row])}"
        ) from None
    k = int(lengths.iloc[0])
    if (lengths != k).any():
        row = values.index[(lengths != k).to_numpy()][0]
        raise BenchkitValueError(
            f"responses column {column!r} must have the same number of options in every row; row "
            f"{row!r} ({where(row)}) has {int(lengths.loc[row])}, the first row has {k}"
        )
    if k < 2:
        raise BenchkitValueError(f"responses column {column!r} needs at least 2 options, got {k}")
    stacked = np.stack([np.asarray(v) for v in values.to_numpy()])
    if not (np.issubdtype(stacked.dtype, np.number) and not np.issubdtype(stacked.dtype, np.complexfloating)):
        kinds = {type(x).__name__ for x in stacked.ravel()[:1000]}
        numeric = all(isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)
                      for x in stacked.ravel())
        if not numeric:
            bad = values.map(lambda v: not all(isinstance(x, (int, float, np.integer, np.floating))
                                               and not isinstance(x, bool) for x in v))
            row = values.index[bad.to_numpy()][0]
            raise BenchkitTypeError(
                f"responses column {column!r} must hold numbers; row {row!r} ({where(row)}) has "
                f"{describe(values.loc[row])} (element types: {sorted(kinds)})"
            )
    if stacked.ndim != 2:
        raise BenchkitValueError(
            f"responses column {column!r} must hold a flat sequence of k numbers per row; row "
            f"{values.index[0]!r} ({where(values.index[0])}) has shape {np.shape(values.iloc[0])}"
        )
    arr = np.asarray(stacked, dtype=np.float64)
    if is_log:
        if np.isnan(arr).any():
            row = values.index[np.isnan(arr).any(axis=1)][0]
            raise BenchkitValueError(
                f"responses column {column!r} has NaN at row {row!r} ({where(row)})"
            )
        if (arr > 1e-9).any():
            row = values.index[(arr > 1e-9).any(axis=1)][0]
            raise BenchkitValueError(
                f"responses column {column!r} must hold log-probabilities (<= 0); row {row!r} "
                f"({where(row)}) has {arr[values.index.get_loc(row)].max():.4g}. Raw logits? "
                "Convert them with benchkit.landscape or pass probabilities as 'option_probs'"
            )
        dead = ~np.isfinite(arr.max(axis=1))
        if dead.any():
            row = values.index[dead][0]
            raise BenchkitValueError(
                f"responses column {column!r} is -inf for every option at row {row!r} "
                f"({where(row)}): the probabilities cannot be normalized; every row needs at "
                "least one finite log-probability"
            )
        arr = arr - arr.max(axis=1, keepdims=True)
        arr = np.exp(arr)
        arr /= arr.sum(axis=1, keepdims=True)
        return arr
    if not np.isfinite(arr).all():
        row = values.index[~np.isfinite(arr).all(axis=1)][0]
        raise BenchkitValueError(
            f"responses column {column!r} has a non-finite value at row {row!r} ({where(row)})"
        )
    if (arr < 0).any() or (arr > 1 + _PROB_TOL).any():
        row = values.index[((arr < 0) | (arr > 1 + _PROB_TOL)).any(axis=1)][0]
        hint = (" Log-probabilities? Pass them as 'option_logprobs'" if (arr < 0).any() else "")
        raise BenchkitValueError(
            f"responses column {column!r} must hold probabilities in [0, 1]; row {row!r} "
            f"({where(row)}) has {arr[values.index.get_loc(row)].round(6).tolist()}.{hint}"
        )
    sums = arr.sum(axis=1)
    off = np.abs(sums - 1) > _PROB_TOL
    if off.any():
        row = values.index[off][0]
        raise BenchkitValueError(
            f"responses column {column!r} must sum to 1 over the options (tolerance {_PROB_TOL:g}); "
            f"row {row!r} ({where(row)}) sums to {sums[off][0]:.6g}. Renormalize over the offered "
            "options first, or pass log-probabilities as 'option_logprobs' (softmaxed over the "
            "options)"
        )
    return arr


def _rows_any(A: np.ndarray, test, block: int = 1024) -> bool:
    """``test(A).any()`` evaluated on blocks of rows.

    No boolean temporary of A's size (70 MB each for a 14,000 x 5,000 count matrix).
    """
    return any(bool(test(A[i:i + block]).any()) for i in range(0, A.shape[0], block))


def _budget(N: np.ndarray, models: pd.Index, items: pd.Index,
            opts: _Options) -> tuple[int | np.ndarray, np.ndarray | None]:
    """Decide the sample budget from dense sample counts ``N`` (rows x models) and ``opts``.

    Row r belongs to item ``items[r % len(items)]`` (variants are stacked as row blocks). Returns
    (T, mask of observed cells with fewer samples than the budget, or None when there is none).
    Missing cells (N == 0) are not incomplete: they are missing.
    """
    T, sample_budget, drop_incomplete = opts.T, opts.sample_budget, opts.drop_incomplete
    n_items = len(items)
    if sample_budget == "common":
        T_val = int(N.max()) if T is None else T
        target = T_val
    else:
        if T is not None:
            raise BenchkitValueError(
                "T cannot be given with sample_budget='per_model'; the per-model budget is the "
                "largest number of samples each model has for an item"
            )
        T_val = N.max(axis=0).astype(np.int64)
        target = T_val[None, :]
    if _rows_any(N, lambda block: block > target):
        r, j = (int(v[0]) for v in np.nonzero(N > target))
        tj = T_val if np.ndim(T_val) == 0 else int(T_val[j])
        raise BenchkitValueError(
            f"model {models[j]!r} has {int(N[r, j])} samples for item {items[r % n_items]!r}, more "
            f"than the sample budget T={tj}; pass a larger T or check for repeated rows"
        )
    if not _rows_any(N, lambda block: (block > 0) & (block < target)):
        return T_val, None
    short = (N > 0) & (N < target)
    if not drop_incomplete:
        r, j = (int(v[0]) for v in np.nonzero(short))
        tj = T_val if np.ndim(T_val) == 0 else int(T_val[j])
        n_short = int(short.sum())
        if sample_budget == "common":
            lead = "sample budget differs across models: " if T is None else ""
            raise BenchkitValueError(
                f"{lead}{models[j]!r} has {int(N[r, j])} samples for item {items[r % n_items]!r}, "
                f"others have {tj}; pass T=..., drop_incomplete=True (drops such cells, {n_short} "
                "in all) or sample_budget='per_model'"
            )
        raise BenchkitValueError(
            f"{models[j]!r} has {int(N[r, j])} samples for item {items[r % n_items]!r} but {tj} for "
            f"others; pass drop_incomplete=True (drops such cells, {n_short} in all)"
        )
    if short.sum() == (N > 0).sum():
        r, j = (int(v[0]) for v in np.nonzero(short))
        tj = T_val if np.ndim(T_val) == 0 else int(T_val[j])
        raise BenchkitValueError(
            f"drop_incomplete=True would drop every cell: no (model, item) has the budget of "
            f"{tj} samples (e.g. {models[j]!r} has {int(N[r, j])} for item {items[r % n_items]!r}); "
            "pass a T no larger than the samples you have"
        )
    return T_val, short


def _incomplete_entry(N: np.ndarray, short: np.ndarray, models: pd.Index, items: pd.Index) -> DropEntry:
    rows, cols = np.nonzero(short)
    ex = tuple(f"{models[j]!r} on {items[r % len(items)]!r}: {int(N[r, j])} samples"
               for r, j in zip(rows[:3], cols[:3]))
    return DropEntry("incomplete cell (fewer samples than the budget)", int(N[short].sum()),
                     int(len(rows)), ex)


def _where_fn(frame: pd.DataFrame):
    def where(row):
        return f"model {frame.at[row, 'model']!r}, item {frame.at[row, 'item']!r}"
    return where


def _start_frame(arg: str, value, required, allowed):
    """The frame checks :meth:`ResponseSet.from_long` and :meth:`ResponseSet.from_counts` share.

    Returns ``(frame, where, model_ids, item_ids)`` for the frame passed as argument ``arg``.
    """
    value = _as_frame(arg, value)
    if len(value) == 0:
        raise BenchkitValueError(f"{arg} is empty: it needs at least one row")
    check_columns(arg, value.columns, required=required, allowed=allowed)
    if "option_probs" in value.columns and "option_logprobs" in value.columns:
        raise BenchkitValueError(
            f"{arg} has both 'option_probs' and 'option_logprobs'; give one of them"
        )
    frame = value.reset_index(drop=True)
    model_ids = _ids(arg, "model", frame["model"])
    item_ids = _ids(arg, "item", frame["item"])
    return frame, _where_fn(frame), model_ids, item_ids


def _int_column(arg: str, v: pd.Series, where, needs: str, *, whole_float_hint: bool = False):
    """Column ``v`` of ``arg`` as int64.

    Refuses non-integer dtypes, missing values and values above 2**63 - 1; ``needs`` says what
    every row needs, ``whole_float_hint`` adds the hint to convert whole-number floats deliberately.
    """
    col = v.name
    if not pd.api.types.is_integer_dtype(v.dtype) or v.dtype == bool:
        is_float = pd.api.types.is_float_dtype(v.dtype)
        if whole_float_hint and is_float and np.all(np.isfinite(v)) and np.all(v == np.round(v)):
            raise BenchkitTypeError(
                f"{arg} column {col!r} must have an integer dtype, got {v.dtype} (whole "
                f"numbers: convert with .astype(int) deliberately)"
            )
        raise BenchkitTypeError(f"{arg} column {col!r} must hold integers, got dtype {v.dtype}")
    if v.isna().any():
        row = int(np.nonzero(v.isna().to_numpy())[0][0])
        raise BenchkitValueError(
            f"{arg} column {col!r} has a missing value at row {row} ({where(row)}); every "
            f"row needs {needs}"
        )
    if v.max() > np.iinfo(np.int64).max:
        row = int(np.argmax(v.to_numpy()))
        raise BenchkitValueError(
            f"{arg} column {col!r} must be at most 2**63 - 1; row {row} ({where(row)}) has "
            f"{v.iloc[row]}"
        )
    return v.to_numpy(dtype=np.int64)


def _roster_codes(model_ids, item_ids, models, items):
    """Model and item codes in roster order, with the metadata tables and the rosters."""
    m_codes, m_seen = _factorize(model_ids)
    i_codes, i_seen = _factorize(item_ids)
    model_meta, item_meta, m_order, i_order = _rosters(models, items, m_seen, i_seen)
    return (_recode(m_codes, m_seen, m_order), _recode(i_codes, i_seen, i_order), model_meta,
            item_meta, m_order, i_order)


# --------------------------------------------------------------------------------------------
# the container
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ResponseSet:
    """Item-level evaluation data: long-form responses plus model and item metadata.

    Build one with :meth:`from_long`, :meth:`from_counts` or :meth:`from_wide` (or a reader in
    :mod:`benchkit.io` / :func:`benchkit.datasets.fetch`); the constructor itself is internal.

    Attributes
    ----------
    models : DataFrame
        Indexed by model id in roster order: ``family``, ``owner``, ``size`` (parameters),
        ``series``, ``variant`` (parsed from names unless given) and any columns passed in.
    items : DataFrame
        Indexed by item id: ``benchmark``, ``source``, ``answer_key``, ``text``, ``options`` and
        labels, as passed in.
    name, meta : str, dict
        A label and provenance (source URL, commit, notes such as join rates).
    report : DropReport
        What construction dropped on request, with counts.

    Parameters
    ----------
    models, items : DataFrame
        Model and item metadata, as the attributes above.
    _K, _S, _N, _T, _long, _P
        Internal: the dense count arrays, the budget, the long table and the option
        probabilities, filled by the constructors (never passed by hand).
    name, meta, report
        As the attributes above.

    See Also
    --------
    benchkit.io.read_csv, benchkit.io.read_parquet, benchkit.datasets.fetch

    Examples
    --------
    One row per (model, item) response; the dense views are items x models:

    >>> import pandas as pd
    >>> from benchkit import ResponseSet
    >>> rs = ResponseSet.from_long(pd.DataFrame({
    ...     "model": ["m1", "m1", "m2", "m2"], "item": ["q1", "q2", "q1", "q2"],
    ...     "correct": [1, 0, 1, 1]}))
    >>> rs
    ResponseSet: 2 items x 2 models, 4 responses, T=1, 0.0% cells missing
    >>> rs.accuracy().tolist()
    [0.5, 1.0]
    >>> rs.binary().tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    >>> rs.models[["family", "variant"]].shape
    (2, 2)
    """

    models: pd.DataFrame
    items: pd.DataFrame
    _K: np.ndarray
    _S: np.ndarray | None  # sum of fractional scores; None when K holds them
    _N: np.ndarray
    _T: int | np.ndarray
    _long: pd.DataFrame | None
    _P: np.ndarray | None
    name: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    report: DropReport = field(default_factory=DropReport)

    # ---------------------------------------------------------------- constructors

    @classmethod
    def from_long(
        cls,
        responses: pd.DataFrame,
        *,
        models: pd.DataFrame | None = None,
        items: pd.DataFrame | None = None,
        T: int | None = None,
        sample_budget: str = "common",
        drop_incomplete: bool = False,
        parse_names: bool = True,
        name_rules=FAMILY_RULES,
        name: str | None = None,
        meta: Mapping[str, Any] | None = None,
        strict: bool = False,
    ) -> "ResponseSet":
        """Build from long-form responses, one row per (model, item[, variant], sample).

        Parameters
        ----------
        responses : DataFrame
            Required columns ``model``, ``item`` (strings; integers are converted with ``str``)
            and ``correct`` (0/1, bool, or a score in [0, 1]). Optional: ``sample`` (int >= 0;
            without it each cell must appear once and gets sample 0), ``answer`` (the reduced
            answer state; use :data:`NO_ANSWER` for "no answer extracted"), ``option_probs`` or
            ``option_logprobs`` (a sequence of k floats per row; log-probabilities are softmaxed
            over the k options), ``principal`` (bool, exactly one per cell; default the lowest
            sample), ``variant`` (perturbation or prompt name). Other columns are rejected: put
            item and model metadata in ``items`` / ``models``.
        models, items : DataFrame, optional
            Metadata keyed by a ``model`` / ``item`` column (or index). Each must list exactly
            the ids in ``responses``; its row order is the roster order.
        T : int, optional
            The sample budget. Default: the largest number of samples of any cell.
        sample_budget : {"common", "per_model"}
            "per_model" lets each model have its own budget (the most samples it has on an item).
        drop_incomplete : bool
            Cells with fewer samples than the budget are an error unless this is True, in which
            case they become missing cells and are counted in :attr:`report`.
        parse_names : bool
            Fill ``family``, ``owner``, ``size``, ``series``, ``variant`` of models from their
            names (:func:`benchkit.model_names.parse_model_name`) where ``models`` does not
            give them.
        name_rules : tuple
            The family rules used for parsing (see :data:`benchkit.model_names.FAMILY_RULES`).
        name, meta : optional
            A label and a provenance dict kept with the data.
        strict : bool
            Rows whose ``answer`` is an option letter, on an item with an ``answer_key``, must
            agree with ``correct`` (0/1): the answer is the key exactly when correct is 1. Rows
            that contradict that are kept and counted in :attr:`report` (``findings``) unless
            True, which refuses them.

        Notes
        -----
        The dense views take about 48 bytes per (variant, item, model) cell, however few rows
        there are; a set above the memory budget (:func:`benchkit.resource_budget`) is refused
        before anything is allocated, with the estimate in the message.
        """
        strict = check_bool("strict", strict)
        opts = _options(T=T, sample_budget=sample_budget, drop_incomplete=drop_incomplete,
                        parse_names=parse_names, name_rules=name_rules, name=name, meta=meta)
        frame, where, model_ids, item_ids = _start_frame(
            "responses", responses, _LONG_REQUIRED, _LONG_REQUIRED + _LONG_OPTIONAL)

        correct = frame["correct"]
        if correct.dtype == bool:
            correct = correct.astype(np.float64)
        if pd.api.types.is_complex_dtype(correct.dtype):
            row = int(np.argmax(np.imag(correct.to_numpy()) != 0))
            raise BenchkitTypeError(
                f"responses column 'correct' holds complex numbers (dtype {correct.dtype}, e.g. row {row}: "
                f"{correct.iloc[row]!r}); correct must be real: 0/1, bool or a score in [0, 1]"
            )
        if not pd.api.types.is_numeric_dtype(correct.dtype):
            raise BenchkitTypeError(
                f"responses column 'correct' must be numeric (0/1, bool or a score in [0, 1]); "
                f"got dtype {correct.dtype}"
            )
        corr = correct.to_numpy(dtype=np.float64)
        if np.isnan(corr).any():
            row = int(np.nonzero(np.isnan(corr))[0][0])
            raise BenchkitValueError(
                f"responses column 'correct' has NaN at row {row} ({where(row)}); every response "
                "needs a correctness (score an unanswered sample as 0 and give answer=NO_ANSWER)"
            )
        bad = (corr < 0) | (corr > 1)
        if bad.any():
            row = int(np.nonzero(bad)[0][0])
            raise BenchkitValueError(
                f"responses column 'correct' must be 0/1 or a score in [0, 1]; row {row} "
                f"({where(row)}) has {float(corr[row])!r}"
            )

        if "sample" in frame.columns:
            sample = _int_column("responses", frame["sample"], where,
                                 "a sample number (an integer >= 0)")
            if (sample < 0).any():
                row = int(np.nonzero(sample < 0)[0][0])
                raise BenchkitValueError(
                    f"responses column 'sample' must be >= 0; row {row} ({where(row)}) has "
                    f"{sample[row]}"
                )
        else:
            sample = np.zeros(len(frame), dtype=np.int64)

        if "variant" in frame.columns:
            variant = _ids("responses", "variant", frame["variant"])
            v_codes, v_index = _factorize(variant)
        else:
            v_codes, v_index = np.zeros(len(frame), dtype=np.int64), pd.Index(["default"])

        m_codes, i_codes, model_meta, item_meta, m_order, i_order = _roster_codes(
            model_ids, item_ids, models, items)
        n_models, n_items, n_var = len(m_order), len(i_order), len(v_index)
        check_dense_size(n_items, n_models, len(frame), n_variants=n_var)

        # duplicate (model, item, variant, sample)
        cell = (v_codes * n_items + i_codes) * n_models + m_codes
        # sample ranks, not values, in the key: sample numbers up to 2**63 - 1 must not overflow
        s_rank = np.unique(sample, return_inverse=True)[1].reshape(-1).astype(np.int64)
        s_span = int(s_rank.max()) + 1
        key = cell * s_span + s_rank
        order = np.argsort(key, kind="stable")
        sk = key[order]
        dup = np.nonzero(sk[1:] == sk[:-1])[0]
        if len(dup):
            row = int(order[dup[0] + 1])
            first = int(order[dup[0]])
            vtxt = f", variant {v_index[v_codes[row]]!r}" if n_var > 1 else ""
            raise BenchkitValueError(
                f"responses has duplicate rows for (model, item{', variant' if n_var > 1 else ''}, "
                f"sample): rows {first} and {row} are both model {m_order[m_codes[row]]!r}, item "
                f"{i_order[i_codes[row]]!r}{vtxt}, sample {sample[row]}"
                + ("" if "sample" in frame.columns else "; add a 'sample' column for repeated samples")
            )

        # per-cell sample counts and the budget
        n_cells_total = n_var * n_items * n_models
        n_per_cell_full = np.bincount(cell, minlength=n_cells_total)
        N2 = n_per_cell_full.reshape(n_var * n_items, n_models)
        T_val, short = _budget(N2, m_order, i_order, opts)
        entries: list[DropEntry] = []
        keep_rows = np.ones(len(frame), dtype=bool)
        if short is not None:
            entries.append(_incomplete_entry(N2, short, m_order, i_order))
            keep_rows = ~short.ravel()[cell]

        # answers
        answer = None
        if "answer" in frame.columns:
            answer = frame["answer"]
            if answer.dtype == object:
                bad = answer.map(lambda v: not (v is None or isinstance(v, (str, int, float, np.integer,
                                                                          np.floating, bool, np.bool_))))
                if bad.any():
                    row = int(np.nonzero(bad.to_numpy())[0][0])
                    raise BenchkitTypeError(
                        f"responses column 'answer' must hold one answer state (a string or a number) "
                        f"per row; row {row} ({where(row)}) has {describe(answer.iloc[row])}"
                    )
            if answer.isna().any():
                row = int(np.nonzero(answer.isna().to_numpy())[0][0])
                raise BenchkitValueError(
                    f"responses column 'answer' has a missing value at row {row} ({where(row)}); "
                    f"use benchkit.NO_ANSWER ({NO_ANSWER!r}) for 'no answer extracted'"
                )

        # option probabilities
        P = None
        for column in ("option_probs", "option_logprobs"):
            if column in frame.columns:
                P = _stack_probs(column, frame[column], column == "option_logprobs", where)

        # principal sample
        if "principal" in frame.columns:
            principal = frame["principal"]
            if principal.dtype != bool:
                raise BenchkitTypeError(
                    f"responses column 'principal' must be bool, got dtype {principal.dtype}"
                )
            principal = principal.to_numpy()
            n_princ = np.bincount(cell[keep_rows], weights=principal[keep_rows].astype(float),
                                  minlength=n_cells_total)
            bad_cells = np.nonzero((n_per_cell_full > 0) & (n_princ != 1))[0]
            bad_cells = bad_cells[np.isin(bad_cells, cell[keep_rows])]
            if len(bad_cells):
                c = int(bad_cells[0])
                raise BenchkitValueError(
                    f"responses column 'principal' must mark exactly one sample per cell; model "
                    f"{m_order[c % n_models]!r}, item {i_order[(c // n_models) % n_items]!r} has "
                    f"{int(n_princ[c])}"
                )
        else:
            # the lowest sample of each cell
            principal = np.zeros(len(frame), dtype=bool)
            ks = key[order]
            cells_sorted = cell[order]
            first_of_cell = np.ones(len(order), dtype=bool)
            first_of_cell[1:] = cells_sorted[1:] != cells_sorted[:-1]
            principal[order[first_of_cell]] = True
            del ks

        # metadata
        models_frame = _model_table(model_meta, m_order, opts)
        items_frame = _item_table(item_meta, i_order)
        _check_answer_keys(items_frame, None if P is None else P.shape[1])
        findings = []
        if answer is not None and "answer_key" in items_frame.columns:
            keys, n_opts = item_columns_per_row(items_frame, i_codes)
            for reason, rows in answer_key_findings(answer.to_numpy(dtype=object), corr, keys, n_opts, where,
                                                    strict=strict):
                ex = tuple(f"{where(int(r))}: answer {answer.iloc[int(r)]!r}, key {keys[int(r)]!r}"
                           for r in rows[:3])
                findings.append(DropEntry(reason, int(len(rows)), int(len(np.unique(cell[rows]))), ex))

        # long table of kept rows, with codes
        kr = keep_rows
        long = pd.DataFrame(
            {
                "model": pd.Categorical.from_codes(m_codes[kr], categories=m_order),
                "item": pd.Categorical.from_codes(i_codes[kr], categories=i_order),
                "sample": sample[kr],
                "correct": corr[kr],
                "principal": principal[kr],
            }
        )
        if n_var > 1 or "variant" in frame.columns:
            long["variant"] = pd.Categorical.from_codes(v_codes[kr], categories=v_index)
        if answer is not None:
            long["answer"] = answer.to_numpy()[kr]
        if P is not None:
            P = P[kr]
        return cls._build(models_frame, items_frame, long, P, T_val, opts.name, opts.meta,
                          DropReport(tuple(entries), tuple(findings)))

    @classmethod
    def _build(cls, models_frame, items_frame, long, P, T_val, name, meta, report):
        n_items, n_models = len(items_frame), len(models_frame)
        K = S = N = None
        variants = long["variant"].cat.categories if "variant" in long.columns else [None]
        if len(variants) == 1:
            mi = long["model"].cat.codes.to_numpy().astype(np.int64)
            ii = long["item"].cat.codes.to_numpy().astype(np.int64)
            flat = ii * n_models + mi
            N = np.bincount(flat, minlength=n_items * n_models).reshape(n_items, n_models)
            S = np.bincount(flat, weights=long["correct"].to_numpy(),
                            minlength=n_items * n_models).reshape(n_items, n_models)
            is_binary = bool(np.all((long["correct"].to_numpy() == 0) | (long["correct"].to_numpy() == 1)))
            K = np.rint(S).astype(np.int64) if is_binary else None
            if is_binary:
                S = None
        return cls(models=models_frame, items=items_frame, _K=K, _S=S, _N=N, _T=T_val,
                   _long=long, _P=P, name=name, meta=dict(meta or {}), report=report)

    @classmethod
    def from_counts(
        cls,
        counts: pd.DataFrame,
        *,
        models: pd.DataFrame | None = None,
        items: pd.DataFrame | None = None,
        T: int | None = None,
        sample_budget: str = "common",
        drop_incomplete: bool = False,
        parse_names: bool = True,
        name_rules=FAMILY_RULES,
        name: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> "ResponseSet":
        """Build from aggregated counts: one row per (model, item) with n_correct of n_samples.

        For sources that publish only the number of correct samples (e.g. eval-arena's
        ``pass1 * n``). There is no per-sample information, so :meth:`binary` (which needs a
        principal sample) is only available when the budget is 1, and there are no answer
        states. Options are as in :meth:`from_long`.
        """
        opts = _options(T=T, sample_budget=sample_budget, drop_incomplete=drop_incomplete,
                        parse_names=parse_names, name_rules=name_rules, name=name, meta=meta)
        frame, where, model_ids, item_ids = _start_frame("counts", counts, _COUNT_REQUIRED,
                                                         _COUNT_REQUIRED)
        k, n = (_int_column("counts", frame[col], where, "whole-number counts", whole_float_hint=True)
                for col in ("n_correct", "n_samples"))
        if (n < 1).any():
            row = int(np.nonzero(n < 1)[0][0])
            raise BenchkitValueError(
                f"counts column 'n_samples' must be >= 1; row {row} ({where(row)}) has {n[row]}")
        if ((k < 0) | (k > n)).any():
            row = int(np.nonzero((k < 0) | (k > n))[0][0])
            raise BenchkitValueError(
                f"counts column 'n_correct' must be between 0 and n_samples; row {row} "
                f"({where(row)}) has n_correct={k[row]}, n_samples={n[row]}"
            )
        m_codes, i_codes, model_meta, item_meta, m_order, i_order = _roster_codes(
            model_ids, item_ids, models, items)
        return cls._from_code_counts(m_codes, i_codes, k, n, m_order, i_order, model_meta, item_meta,
                                     opts)

    @classmethod
    def _from_code_counts(cls, m_codes, i_codes, k, n, m_order, i_order, model_meta, item_meta, opts):
        n_models, n_items = len(m_order), len(i_order)
        check_dense_size(n_items, n_models, len(k))
        flat = i_codes * n_models + m_codes
        seen = np.bincount(flat, minlength=n_items * n_models)
        if (seen > 1).any():
            c = int(np.nonzero(seen > 1)[0][0])
            raise BenchkitValueError(
                f"counts has more than one row for model {m_order[c % n_models]!r}, item "
                f"{i_order[c // n_models]!r}; give one row per (model, item)"
            )
        del seen
        K = np.zeros(n_items * n_models, dtype=np.int64)
        N = np.zeros(n_items * n_models, dtype=np.int64)
        K[flat] = k
        N[flat] = n
        return cls._from_dense_counts(K.reshape(n_items, n_models), N.reshape(n_items, n_models),
                                      m_order, i_order, model_meta, item_meta, opts)

    @classmethod
    def _from_dense_counts(cls, K, N, m_order, i_order, model_meta, item_meta, opts: _Options):
        """Build from dense integer K and N (items x models, modified in place when dropping).

        Any integer dtype is kept as given (the aggregating readers pass uint8 counts, 70 MB per
        array at 14,000 x 5,000); :meth:`counts` returns int64 copies.
        """
        T_val, short = _budget(N, m_order, i_order, opts)
        entries = []
        if short is not None:
            entries.append(_incomplete_entry(N, short, m_order, i_order))
            K[short] = 0
            N[short] = 0
        models_frame = _model_table(model_meta, m_order, opts)
        items_frame = _item_table(item_meta, i_order)
        _check_answer_keys(items_frame, None)
        return cls(models=models_frame, items=items_frame, _K=K, _S=None, _N=N,
                   _T=T_val, _long=None, _P=None, name=opts.name, meta=dict(opts.meta or {}),
                   report=DropReport(tuple(entries)))

    @classmethod
    def from_wide(
        cls,
        matrix: pd.DataFrame,
        *,
        models: pd.DataFrame | None = None,
        items: pd.DataFrame | None = None,
        T: int = 1,
        parse_names: bool = True,
        name_rules=FAMILY_RULES,
        name: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> "ResponseSet":
        """Build from a wide items x models table (index = item ids, columns = model ids).

        With ``T=1`` values are the correctness of one sample (0/1, or a score in [0, 1]); with
        ``T > 1`` they are correct counts 0..T of T samples. NaN marks a missing cell (kept
        missing, not dropped).
        """
        T = check_int("T", T, min=1)
        _options(T=T, parse_names=parse_names, name_rules=name_rules, name=name, meta=meta)
        matrix = _as_frame("matrix", matrix)
        if matrix.size == 0:
            raise BenchkitValueError("matrix is empty: it needs at least one item and one model")
        check_columns("matrix", [str(c) for c in matrix.columns])
        if matrix.index.has_duplicates:
            raise BenchkitValueError(
                f"matrix index has duplicate item {matrix.index[matrix.index.duplicated()][0]!r}"
            )
        for col in matrix.columns:
            if pd.api.types.is_complex_dtype(matrix[col].dtype):
                raise BenchkitTypeError(
                    f"matrix column {col!r} holds complex numbers (dtype {matrix[col].dtype}); values must "
                    "be real: 0/1, a score in [0, 1] or a count"
                )
            if not pd.api.types.is_numeric_dtype(matrix[col].dtype):
                raise BenchkitTypeError(
                    f"matrix column {col!r} must be numeric, got dtype {matrix[col].dtype}"
                )
        long = matrix.rename_axis(index="item", columns="model").stack(future_stack=True)
        long = long.rename("value").reset_index()
        long = long[long["value"].notna()]
        if len(long) == 0:
            raise BenchkitValueError("matrix has no observed (non-NaN) cell")
        if T == 1:
            return cls.from_long(
                long.rename(columns={"value": "correct"}), models=models, items=items, T=1,
                parse_names=parse_names, name_rules=name_rules, name=name, meta=meta,
            )
        v = long["value"].to_numpy()
        if np.any(v != np.round(v)) or np.any((v < 0) | (v > T)):
            r = int(np.nonzero((v != np.round(v)) | (v < 0) | (v > T))[0][0])
            raise BenchkitValueError(
                f"matrix values must be correct counts 0..T={T} when T > 1; model "
                f"{long['model'].iloc[r]!r}, item {long['item'].iloc[r]!r} has {v[r]!r}"
            )
        frame = pd.DataFrame({"model": long["model"], "item": long["item"],
                              "n_correct": v.astype(np.int64),
                              "n_samples": np.full(len(long), T, dtype=np.int64)})
        return cls.from_counts(frame, models=models, items=items, T=T, parse_names=parse_names,
                               name_rules=name_rules, name=name, meta=meta)

    # ---------------------------------------------------------------- basic properties

    @property
    def model_ids(self) -> pd.Index:
        """The model identifiers, in roster order."""
        return self.models.index

    @property
    def item_ids(self) -> pd.Index:
        """The item identifiers, in item order."""
        return self.items.index

    @property
    def n_models(self) -> int:
        """Number of models."""
        return len(self.models)

    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.items)

    @property
    def budget(self) -> pd.Series:
        """The sample budget of each model (a Series indexed by model)."""
        T = np.broadcast_to(np.asarray(self._T, dtype=np.int64), (self.n_models,))
        return pd.Series(T, index=self.model_ids, name="T")

    @property
    def T(self) -> int:
        """The common sample budget (an error when budgets differ: see :attr:`budget`)."""
        if np.ndim(self._T):
            raise BenchkitValueError(
                "this ResponseSet has per-model sample budgets "
                f"({', '.join(f'{m}: {t}' for m, t in list(self.budget.items())[:4])}, ...); use "
                ".budget"
            )
        return int(self._T)

    @property
    def variants(self) -> tuple[str, ...]:
        """The prompt/perturbation variants present (empty when there is no ``variant`` column)."""
        if self._long is None or "variant" not in self._long.columns:
            return ()
        return tuple(self._long["variant"].cat.categories)

    @property
    def has_answers(self) -> bool:
        """True when the responses carry answer states."""
        return self._long is not None and "answer" in self._long.columns

    @property
    def has_option_probs(self) -> bool:
        """True when option probabilities (MCQ) are present."""
        return self._P is not None

    @property
    def has_samples(self) -> bool:
        """False for a set built from aggregated counts (no per-sample rows)."""
        return self._long is not None

    @property
    def is_binary(self) -> bool:
        """True when every response is 0/1 (so correct counts are integers)."""
        self._require_single_variant("is_binary")
        return self._K is not None

    @property
    def n_responses(self) -> int:
        """Number of individual responses (samples) held."""
        return int(len(self._long)) if self._long is not None else int(self._N.sum())

    def __repr__(self) -> str:
        parts = [f"ResponseSet{' ' + repr(self.name) if self.name else ''}: "
                 f"{self.n_items:,} items x {self.n_models:,} models, {self.n_responses:,} responses"]
        if np.ndim(self._T):
            parts.append(f"T per model ({int(np.min(self._T))}-{int(np.max(self._T))})")
        else:
            parts.append(f"T={int(self._T)}")
        if self._N is not None:
            miss = float((self._N == 0).mean())
            parts.append(f"{miss:.1%} cells missing")
        extras = [n for n, ok in (("answers", self.has_answers), ("option probs", self.has_option_probs))
                  if ok]
        if extras:
            parts.append("with " + " and ".join(extras))
        if self.variants:
            parts.append(f"{len(self.variants)} variants")
        if not self.has_samples:
            parts.append("from counts")
        text = ", ".join(parts)
        if self.report:
            text += f"\n{self.report}"
        return text

    def _repr_html_(self) -> str:  # plain HTML: no Jupyter import
        import html

        body = html.escape(repr(self)).replace("\n", "<br>")
        cols = ", ".join(html.escape(str(c)) for c in self.items.columns) or "none"
        mcols = ", ".join(html.escape(str(c)) for c in self.models.columns) or "none"
        return (f"<div><b>{body}</b><br><small>item columns: {cols}<br>model columns: {mcols}"
                "</small></div>")

    # ---------------------------------------------------------------- dense views

    def _require_single_variant(self, what: str) -> None:
        if self._N is None:
            raise BenchkitValueError(
                f"{what} needs a single variant, but this ResponseSet holds {len(self.variants)} "
                f"({', '.join(map(repr, self.variants[:5]))}); pick one with .select(variant=...)"
            )

    def counts(self) -> CountMatrix:
        """Correct counts ``K`` and observed samples ``N`` (items x models, int64).

        Missing cells have ``N == 0``. Needs 0/1 correctness (use :meth:`scores` for fractional
        scores) and a single variant.
        """
        self._require_single_variant("counts()")
        if self._K is None:
            raise BenchkitValueError(
                "counts() needs 0/1 correctness, but 'correct' holds fractional scores; use "
                ".scores() for mean scores"
            )
        T = self._T if not np.ndim(self._T) else np.asarray(self._T).copy()
        return CountMatrix(K=self._K.astype(np.int64), N=self._N.astype(np.int64), T=T,
                           items=self.item_ids, models=self.model_ids)

    def scores(self) -> np.ndarray:
        """Mean correctness over samples, items x models (float64); NaN for missing cells."""
        self._require_single_variant("scores()")
        total = self._K if self._S is None else self._S
        with np.errstate(invalid="ignore", divide="ignore"):
            out = total / self._N
        out[self._N == 0] = np.nan
        return out

    def binary(self) -> np.ndarray:
        """Correctness of the principal sample, items x models (float64); NaN for missing cells.

        For a set built from counts, only available when every budget is 1.
        """
        self._require_single_variant("binary()")
        if self._long is None:
            if np.any(np.asarray(self._T) != 1):
                raise BenchkitValueError(
                    "binary() needs the principal sample, but this ResponseSet was built from "
                    "counts with more than one sample per cell; use counts() or scores()"
                )
            return self.scores()
        return self._principal_matrix(self._long["correct"].to_numpy())

    def _principal_matrix(self, values: np.ndarray, k: int | None = None) -> np.ndarray:
        long = self._long
        sel = long["principal"].to_numpy()
        ii = long["item"].cat.codes.to_numpy()[sel]
        mi = long["model"].cat.codes.to_numpy()[sel]
        shape = (self.n_items, self.n_models) if k is None else (self.n_items, self.n_models, k)
        out = np.full(shape, np.nan)
        out[ii, mi] = values[sel]
        return out

    def option_probs(self) -> np.ndarray:
        """Option probabilities of the principal sample, (items, models, k) float64; NaN missing."""
        self._require_single_variant("option_probs()")
        if self._P is None:
            raise BenchkitValueError(
                "this ResponseSet has no option probabilities; build it with an 'option_probs' or "
                "'option_logprobs' column"
            )
        k = self._P.shape[1]
        check_dense_size(self.n_items, self.n_models, len(self._P), per_cell=8.0 * k,
                         what=f"the option probabilities ({k} options)")
        return self._principal_matrix(self._P, k)

    def answer_counts(self) -> AnswerCounts:
        """Answer-state counts per item, model and state (see :class:`AnswerCounts`)."""
        self._require_single_variant("answer_counts()")
        if not self.has_answers:
            raise BenchkitValueError(
                "this ResponseSet has no answer states; build it with an 'answer' column"
            )
        long = self._long
        ii = long["item"].cat.codes.to_numpy().astype(np.int64)
        mi = long["model"].cat.codes.to_numpy().astype(np.int64)
        pair = pd.DataFrame({"i": ii, "a": long["answer"].to_numpy()})
        s_codes = pair.groupby("i", sort=False)["a"].transform(lambda s: pd.factorize(s)[0]).to_numpy()
        s_codes = s_codes.astype(np.int64)
        S = int(s_codes.max()) + 1
        check_dense_size(self.n_items, self.n_models, len(long), per_cell=8.0 * S + 16,
                         what=f"the answer-state counts ({S:,} states per item at most)")
        counts = np.zeros((self.n_items, self.n_models, S), dtype=np.int64)
        np.add.at(counts, (ii, mi, s_codes), 1)
        flat = ii * S + s_codes
        tot = np.bincount(flat, minlength=self.n_items * S)
        corr = np.bincount(flat, weights=long["correct"].to_numpy(), minlength=self.n_items * S)
        with np.errstate(invalid="ignore", divide="ignore"):
            state_correct = (corr / tot).reshape(self.n_items, S)
        state_correct[tot.reshape(self.n_items, S) == 0] = np.nan
        labels: list[list[Any]] = [[] for _ in range(self.n_items)]
        firsts = pd.DataFrame({"i": ii, "s": s_codes, "a": long["answer"].to_numpy()})
        firsts = firsts.drop_duplicates(["i", "s"]).sort_values(["i", "s"])
        for i, a in zip(firsts["i"].to_numpy(), firsts["a"].to_numpy()):
            labels[i].append(a)
        return AnswerCounts(counts=counts, states=tuple(tuple(x) for x in labels),
                            state_correct=state_correct, items=self.item_ids, models=self.model_ids)

    def accuracy(self) -> pd.Series:
        """Mean correctness per model over its observed cells (each item weighted once)."""
        self._require_single_variant("accuracy()")
        s = self.scores()
        with np.errstate(invalid="ignore"):
            acc = np.nanmean(s, axis=0) if s.size else np.array([])
        return pd.Series(acc, index=self.model_ids, name="accuracy")

    def item_stats(self) -> pd.DataFrame:
        """Per item: models observed and p-value (mean correctness over models)."""
        self._require_single_variant("item_stats()")
        s = self.scores()
        observed = (self._N > 0).sum(axis=1)
        with np.errstate(invalid="ignore"):
            p = np.nanmean(np.where(observed[:, None] > 0, s, 0.0), axis=1)
        p = np.where(observed > 0, p, np.nan)
        return pd.DataFrame({"n_models": observed, "p_value": p}, index=self.item_ids)

    # ---------------------------------------------------------------- subsetting and export

    def select(
        self,
        *,
        models: Iterable[str] | None = None,
        items: Iterable[str] | None = None,
        benchmark: str | Sequence[str] | None = None,
        variant: str | None = None,
    ) -> "ResponseSet":
        """A new ResponseSet restricted to some models, items, benchmark(s) and/or one variant.

        ``models`` / ``items`` keep the order given; every id must exist.
        """
        m_index = self.model_ids
        i_index = self.item_ids
        if models is not None:
            m_index = self._pick("models", models, self.model_ids)
        if items is not None:
            i_index = self._pick("items", items, self.item_ids)
        if benchmark is not None:
            if "benchmark" not in self.items.columns:
                raise BenchkitValueError("benchmark= needs an items column 'benchmark'; this set has none")
            if not isinstance(benchmark, (str, list, tuple, set, frozenset, pd.Index, np.ndarray)):
                raise BenchkitTypeError(
                    f"benchmark must be a name or a list of names, got {describe(benchmark)}")
            wanted = [benchmark] if isinstance(benchmark, str) else list(benchmark)
            known = pd.unique(self.items["benchmark"].dropna())
            for b in wanted:
                check_choice("benchmark", b, list(known))
            mask = self.items.loc[i_index, "benchmark"].isin(wanted).to_numpy()
            i_index = i_index[mask]
        if variant is not None:
            check_choice("variant", variant, list(self.variants))
        if len(i_index) == 0 or len(m_index) == 0:
            raise BenchkitValueError("the selection is empty: no items or no models left")
        if self._long is None:
            ii = self.item_ids.get_indexer(i_index)
            mi = self.model_ids.get_indexer(m_index)
            K = self._K[np.ix_(ii, mi)]
            N = self._N[np.ix_(ii, mi)]
            T = self._T if not np.ndim(self._T) else np.asarray(self._T)[mi]
            return ResponseSet(models=self.models.loc[m_index], items=self.items.loc[i_index],
                               _K=K, _S=None, _N=N, _T=T, _long=None, _P=None,
                               name=self.name, meta=dict(self.meta), report=self.report)
        long = self._long
        keep = long["model"].isin(m_index).to_numpy() & long["item"].isin(i_index).to_numpy()
        if variant is not None:
            keep &= (long["variant"] == variant).to_numpy()
        sub = long[keep].copy()
        sub["model"] = sub["model"].cat.set_categories(m_index)
        sub["item"] = sub["item"].cat.set_categories(i_index)
        if variant is not None:
            sub = sub.drop(columns="variant")
        P = None if self._P is None else self._P[keep]
        T = self._T
        if np.ndim(T):
            T = np.asarray(T)[self.model_ids.get_indexer(m_index)]
        return ResponseSet._build(self.models.loc[m_index], self.items.loc[i_index],
                                  sub.reset_index(drop=True), P, T, self.name, self.meta, self.report)

    @staticmethod
    def _pick(name: str, wanted: Iterable[str], index: pd.Index) -> pd.Index:
        if isinstance(wanted, str):  # one id, not its characters
            wanted = [wanted]
        if isinstance(wanted, (bytes, Mapping)) or not isinstance(wanted, Iterable):
            raise BenchkitTypeError(
                f"{name} must be an id or a list of ids, got {describe(wanted)}")
        wanted = pd.Index([str(w) for w in wanted], dtype=object)
        if wanted.has_duplicates:
            raise BenchkitValueError(f"{name} lists {wanted[wanted.duplicated()][0]!r} more than once")
        missing = wanted.difference(index)
        if len(missing):
            raise BenchkitValueError(
                f"{name} has unknown id(s) {', '.join(map(repr, missing[:5]))}; known: "
                f"{', '.join(map(repr, index[:5]))}{' ...' if len(index) > 5 else ''}"
            )
        return pd.Index(wanted, name=index.name)

    def to_long(self) -> pd.DataFrame:
        """The responses as a long DataFrame (string ids).

        For a set built from counts this is the aggregated form: model, item, n_correct,
        n_samples (one row per observed cell).
        """
        if self._long is None:
            cm = CountMatrix(self._K.astype(np.int64, copy=False), self._N.astype(np.int64, copy=False),
                             self._T, self.item_ids, self.model_ids)
            return cm.to_frame()[["model", "item", "n_correct", "n_samples"]]
        out = self._long.copy()
        out["model"] = out["model"].astype(str)
        out["item"] = out["item"].astype(str)
        if "variant" in out.columns:
            out["variant"] = out["variant"].astype(str)
        if self._P is not None:
            out["option_probs"] = list(self._P)
        cols = ["model", "item"] + (["variant"] if "variant" in out.columns else []) + ["sample", "correct"]
        cols += [c for c in ("answer", "option_probs", "principal") if c in out.columns]
        return out[cols]


def check_response_set(name: str, value: Any) -> Any:
    """``value`` must be a :class:`benchkit.ResponseSet` (a DataFrame is pointed to ``from_long``)."""
    if isinstance(value, ResponseSet):
        return value
    shown, hint = describe(value), ""
    if type(value).__name__ == "DataFrame":
        shown = f"a DataFrame ({value.shape[0]} rows x {value.shape[1]} columns)"
        hint = "; build one with ResponseSet.from_long(frame) (or from_counts / from_wide)"
    raise BenchkitTypeError(f"{name} must be a benchkit.ResponseSet, got {shown}{hint}")
