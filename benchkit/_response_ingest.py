"""How a :class:`~benchkit.ResponseSet` is built from its input: the ingestion helpers.

The constructors :meth:`~benchkit.ResponseSet.from_long`, :meth:`~benchkit.ResponseSet.from_counts`
and :meth:`~benchkit.ResponseSet.from_wide` (and :mod:`benchkit.io.tabular`) call these once, at
construction:

* identifiers, rosters and metadata tables -- ``_ids``, ``_factorize``, ``_rosters``,
  ``_roster_codes``, ``_model_table``, ``_item_table``;
* the constructors' options -- ``_options`` / ``_Options``;
* column checks -- ``_start_frame``, ``_int_column``, ``_stack_probs`` (option probabilities and
  log-probabilities), ``_check_answer_keys``;
* the sample budget -- ``_budget`` and the report entry of the cells it drops,
  ``_incomplete_entry``.

Every check raises :class:`~benchkit._validation.BenchkitValueError` /
:class:`~benchkit._validation.BenchkitTypeError` naming the argument, the row and what is allowed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from typing import Mapping

import numpy as np
import pandas as pd

from benchkit._response_views import DropEntry
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_columns
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.model_names import FAMILY_RULES
from benchkit.model_names import parse_model_names

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_PROB_TOL = 1e-6


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
