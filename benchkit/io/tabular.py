"""Tabular readers: CSV, Parquet and DuckDB tables or queries -> :class:`benchkit.ResponseSet`.

Three layouts are understood (``layout=``):

* ``"long"``: one row per (model, item[, variant], sample) with ``correct`` and the optional
  columns of :meth:`ResponseSet.from_long`;
* ``"counts"``: one row per (model, item) with ``n_correct`` and ``n_samples``;
* ``"wide"``: items x models, the first column (or ``index_col``) holding item ids.

DuckDB is the embedded engine. With ``aggregate=True`` a long table of 0/1 responses is reduced
to correct counts per (model, item) inside DuckDB, so a file of tens of millions of rows becomes a
count matrix without its rows ever reaching pandas; the checks of :meth:`ResponseSet.from_long`
(missing values, values outside {0, 1}, duplicate rows, unequal budgets) run as SQL first.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError, BenchkitValueError, check_choice, check_columns, check_int
from benchkit.model_names import FAMILY_RULES
from benchkit.response_set import ResponseSet, _check_roster, _metadata_table

__all__ = ["read_csv", "read_parquet", "read_duckdb"]

_AGG_COLUMNS = ("model", "item", "correct", "sample")
_PANDAS_INDEX = re.compile(r"__index_level_\d+__")
_AGG_OPTIONS = {"T", "sample_budget", "drop_incomplete", "parse_names", "name_rules", "name", "meta"}


def _path(name: str, path: Any) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise BenchkitTypeError(f"{name} must be a path (str or os.PathLike), got {type(path).__name__}")
    p = Path(path)
    if not p.is_file():
        raise BenchkitValueError(f"{name}={str(p)!r} does not exist or is not a file")
    return p


def _from_frame(frame: pd.DataFrame, layout: str, index_col: str | None, options: dict) -> ResponseSet:
    if layout == "long":
        return ResponseSet.from_long(frame, **options)
    if layout == "counts":
        return ResponseSet.from_counts(frame, **options)
    col = index_col or frame.columns[0]
    if col not in frame.columns:
        raise BenchkitValueError(f"index_col={col!r} is not a column; columns: {list(frame.columns)[:8]}")
    return ResponseSet.from_wide(frame.set_index(col), **options)


def read_csv(path, *, layout: str = "long", index_col: str | None = None,
             read_options: dict | None = None, **options) -> ResponseSet:
    """Read a CSV file into a ResponseSet.

    Parameters
    ----------
    path : str or path
    layout : {"long", "counts", "wide"}
    index_col : str, optional
        For ``layout="wide"``: the column with item ids (default: the first column).
    read_options : dict, optional
        Passed to :func:`pandas.read_csv` (e.g. ``{"sep": ";"}``).
    **options
        Passed to the ResponseSet constructor (``models=``, ``items=``, ``T=``, ...).
    """
    p = _path("path", path)
    layout = check_choice("layout", layout, ("long", "counts", "wide"))
    frame = pd.read_csv(p, **(read_options or {}))
    return _from_frame(frame, layout, index_col, options)


def _connect(connection):
    import duckdb

    if connection is None:
        return duckdb.connect()
    if not isinstance(connection, duckdb.DuckDBPyConnection):
        raise BenchkitTypeError(
            f"connection must be a duckdb connection, got {type(connection).__name__}"
        )
    return connection


def read_parquet(path, *, layout: str = "long", aggregate: bool | str = "auto",
                 index_col: str | None = None, connection=None, **options) -> ResponseSet:
    """Read a Parquet file (or a glob of files) into a ResponseSet through DuckDB.

    Parameters
    ----------
    path : str or path
        A file, or a glob pattern DuckDB understands (``"results/*.parquet"``).
    layout : {"long", "counts", "wide"}
    aggregate : bool or "auto"
        For ``layout="long"``: reduce 0/1 responses to counts inside DuckDB (see module notes).
        ``"auto"`` aggregates when the file has only ``model, item, correct`` (one sample per
        cell, so nothing is lost). With a ``sample`` column aggregation drops the principal
        sample, so :meth:`ResponseSet.binary` then needs ``T == 1``.
    connection : duckdb connection, optional
    **options
        Passed to the ResponseSet constructor.

    Notes
    -----
    Columns named ``__index_level_N__`` (a pandas index that ``DataFrame.to_parquet`` stored) are
    not data and are ignored. When aggregating, models and items keep the order of their first appearance in the file
    (DuckDB's ``file_row_number``), unless ``models=`` / ``items=`` tables give the order.
    """
    layout = check_choice("layout", layout, ("long", "counts", "wide"))
    if not isinstance(path, (str, os.PathLike)):
        raise BenchkitTypeError(f"path must be a path (str or os.PathLike), got {type(path).__name__}")
    if not any(ch in str(path) for ch in "*?[") :
        _path("path", path)
    con = _connect(connection)
    rel = con.read_parquet(str(path), file_row_number=True)
    return _read_relation(con, rel, layout, aggregate, index_col, options)


def read_duckdb(query_or_table: str, *, connection=None, layout: str = "long",
                aggregate: bool | str = "auto", index_col: str | None = None,
                **options) -> ResponseSet:
    """Read a DuckDB table or SQL query into a ResponseSet.

    ``query_or_table`` is a table/view name in ``connection`` or a ``SELECT`` statement. When
    aggregating, models and items are in sorted order unless ``models=`` / ``items=`` give it.
    Other options as in :func:`read_parquet`.
    """
    layout = check_choice("layout", layout, ("long", "counts", "wide"))
    if not isinstance(query_or_table, str) or not query_or_table.strip():
        raise BenchkitTypeError("query_or_table must be a non-empty string (a table name or a SELECT)")
    con = _connect(connection)
    text = query_or_table.strip()
    try:
        if text.lower().startswith(("select", "with", "from", "(")):
            rel = con.sql(text)
        else:
            rel = con.table(text)
    except Exception as exc:
        raise BenchkitValueError(f"query_or_table={text[:80]!r} could not be read by DuckDB: {exc}") from exc
    return _read_relation(con, rel, layout, aggregate, index_col, options)


def _read_relation(con, rel, layout, aggregate, index_col, options) -> ResponseSet:
    # DuckDB's row-number column and pandas' stored index (``__index_level_0__``) are not data
    columns = [c for c in rel.columns if c != "file_row_number" and not _PANDAS_INDEX.fullmatch(c)]
    has_rownum = "file_row_number" in rel.columns
    if aggregate not in (True, False, "auto"):
        raise BenchkitValueError(f"aggregate={aggregate!r} is not allowed; choose True, False or 'auto'")
    if layout != "long":
        if aggregate is True:
            raise BenchkitValueError("aggregate=True applies to layout='long' only")
        frame = rel.select(*[f'"{c}"' for c in columns]).df()
        return _from_frame(frame, layout, index_col, options)
    if aggregate == "auto":
        aggregate = set(columns) <= {"model", "item", "correct"}
    if not aggregate:
        frame = rel.select(*[f'"{c}"' for c in columns]).df()
        return ResponseSet.from_long(frame, **options)
    extra = [c for c in columns if c not in _AGG_COLUMNS]
    if extra:
        raise BenchkitValueError(
            f"aggregate=True keeps only model, item, correct and sample, but the table also has "
            f"{extra}; pass aggregate=False to keep them"
        )
    return _aggregate(con, rel, columns, has_rownum, options)


def _aggregate(con, rel, columns, has_rownum, options) -> ResponseSet:

    check_columns("responses", columns, required=("model", "item", "correct"))
    name = f"__bk_src_{id(rel)}"
    rel.create_view(name, replace=True)
    try:
        nulls = con.execute(
            f"SELECT count(*) FILTER (WHERE model IS NULL), count(*) FILTER (WHERE item IS NULL), "
            f"count(*) FILTER (WHERE correct IS NULL), count(*) FROM {name}"
        ).fetchone()
        for col, n_null in zip(("model", "item", "correct"), nulls[:3]):
            if n_null:
                raise BenchkitValueError(
                    f"responses column {col!r} has {n_null} missing value(s); every row needs a "
                    f"{col}"
                )
        if nulls[3] == 0:
            raise BenchkitValueError("responses is empty: it needs at least one row")
        bad = con.execute(
            f"SELECT model, item, correct FROM {name} WHERE correct NOT IN (0, 1) LIMIT 1"
        ).fetchone()
        if bad is not None:
            raise BenchkitValueError(
                f"aggregate=True needs 0/1 correctness; model {bad[0]!r}, item {bad[1]!r} has "
                f"{bad[2]!r} (pass aggregate=False to keep fractional scores)"
            )
        order = "min(file_row_number)" if has_rownum else "NULL"
        def roster(col):
            q = (f"SELECT CAST({col} AS VARCHAR) AS id, {order} AS r FROM {name} GROUP BY {col} "
                 f"ORDER BY r, id")
            return pd.Index(con.execute(q).df()["id"].astype(object), dtype=object)
        m_seen, i_seen = roster("model"), roster("item")
        model_meta = _metadata_table("models", options.pop("models", None), "model")
        item_meta = _metadata_table("items", options.pop("items", None), "item")
        m_order = _check_roster("models", "model", model_meta, m_seen) if model_meta is not None else m_seen
        i_order = _check_roster("items", "item", item_meta, i_seen) if item_meta is not None else i_seen
        con.register(f"{name}_m", pd.DataFrame({"id": m_order.astype(str), "code": np.arange(len(m_order))}))
        con.register(f"{name}_i", pd.DataFrame({"id": i_order.astype(str), "code": np.arange(len(i_order))}))
        has_sample = "sample" in columns
        distinct = ", count(DISTINCT s.sample) AS nd" if has_sample else ""
        q = (f"SELECT m.code AS mc, i.code AS ic, CAST(sum(CAST(s.correct AS INTEGER)) AS BIGINT) AS k, "
             f"count(*) AS n{distinct} FROM {name} s "
             f"JOIN {name}_m m ON CAST(s.model AS VARCHAR) = m.id "
             f"JOIN {name}_i i ON CAST(s.item AS VARCHAR) = i.id GROUP BY m.code, i.code")
        res = con.execute(q).fetchnumpy()
    finally:
        con.execute(f"DROP VIEW IF EXISTS {name}")
        for suffix in ("_m", "_i"):
            try:
                con.unregister(f"{name}{suffix}")
            except Exception:
                pass
    mc = np.asarray(res["mc"], dtype=np.int64)
    ic = np.asarray(res["ic"], dtype=np.int64)
    k = np.asarray(res["k"], dtype=np.int64)
    n = np.asarray(res["n"], dtype=np.int64)
    if has_sample:
        nd = np.asarray(res["nd"], dtype=np.int64)
        dup = nd < n
    else:
        dup = n > 1
    if dup.any():
        r = int(np.nonzero(dup)[0][0])
        raise BenchkitValueError(
            f"responses has duplicate rows for (model, item, sample): model {m_order[mc[r]]!r}, item "
            f"{i_order[ic[r]]!r} has {n[r]} rows"
            + ("" if has_sample else "; add a 'sample' column for repeated samples")
        )
    unknown = set(options) - _AGG_OPTIONS
    if unknown:
        raise BenchkitTypeError(
            f"unexpected option(s) {sorted(unknown)} for an aggregated read; allowed: "
            f"{sorted(_AGG_OPTIONS | {'models', 'items'})}"
        )
    T = options.get("T")
    if T is not None:
        T = check_int("T", T, min=1)
    return ResponseSet._from_code_counts(
        mc, ic, k, n, m_order, i_order, model_meta, item_meta, T,
        check_choice("sample_budget", options.get("sample_budget", "common"), ("common", "per_model")),
        options.get("drop_incomplete", False), options.get("parse_names", True),
        options.get("name_rules", FAMILY_RULES), options.get("name"), options.get("meta"),
    )
