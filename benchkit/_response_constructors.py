"""The constructors of :class:`benchkit.ResponseSet`: long rows, counts and a wide matrix.

The bodies of :meth:`ResponseSet.from_long`, :meth:`ResponseSet.from_counts` and
:meth:`ResponseSet.from_wide` (and of the count paths ``_from_code_counts`` /
``_from_dense_counts`` the readers use); each method delegates here with its own signature and
docstring, passing its class as ``cls``. They check every row once (correctness, samples,
duplicates, the budget, answers, option probabilities, the principal sample) with the helpers of
:mod:`benchkit._response_ingest` and :mod:`benchkit._response_checks`, and build the long table
and the dense counts.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchkit._response_checks import answer_key_findings
from benchkit._response_checks import check_dense_size
from benchkit._response_checks import item_columns_per_row
from benchkit._response_ingest import _as_frame
from benchkit._response_ingest import _budget
from benchkit._response_ingest import _check_answer_keys
from benchkit._response_ingest import _factorize
from benchkit._response_ingest import _ids
from benchkit._response_ingest import _incomplete_entry
from benchkit._response_ingest import _int_column
from benchkit._response_ingest import _item_table
from benchkit._response_ingest import _model_table
from benchkit._response_ingest import _options
from benchkit._response_ingest import _roster_codes
from benchkit._response_ingest import _stack_probs
from benchkit._response_ingest import _start_frame
from benchkit._response_views import DropEntry
from benchkit._response_views import DropReport
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_bool
from benchkit._validation import check_columns
from benchkit._validation import check_int
from benchkit._validation import describe

#: The answer state for "no answer could be extracted" (an invalid answer, counted as incorrect).
NO_ANSWER = "<no answer>"

_LONG_REQUIRED = ("model", "item", "correct")
_LONG_OPTIONAL = ("sample", "answer", "option_probs", "option_logprobs", "principal", "variant")
_COUNT_REQUIRED = ("model", "item", "n_correct", "n_samples")


def _from_long(cls, responses, *, models, items, T, sample_budget, drop_incomplete, parse_names, name_rules,
               name, meta, strict):
    """Build a ``cls`` from long-form responses (:meth:`ResponseSet.from_long` documents the options)."""
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


def _from_counts(cls, counts, *, models, items, T, sample_budget, drop_incomplete, parse_names, name_rules,
                 name, meta):
    """Build a ``cls`` from (model, item) counts: :meth:`ResponseSet.from_counts`."""
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


def _from_code_counts(cls, m_codes, i_codes, k, n, m_order, i_order, model_meta, item_meta, opts):
    """Build a ``cls`` from per-row roster codes and counts (one row per cell)."""
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


def _from_dense_counts(cls, K, N, m_order, i_order, model_meta, item_meta, opts):
    """Build a ``cls`` from dense integer K and N (items x models, modified in place when dropping)."""
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


def _from_wide(cls, matrix, *, models, items, T, parse_names, name_rules, name, meta):
    """Build a ``cls`` from a wide items x models table: :meth:`ResponseSet.from_wide`."""
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
