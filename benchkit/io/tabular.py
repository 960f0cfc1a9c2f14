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
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from benchkit._budget import check_memory
from benchkit._budget import format_bytes
from benchkit._validation import BenchkitError
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_columns
from benchkit._validation import describe
from benchkit.io._arrow_counts import _aggregate_batches
from benchkit.io._files import check_no_nul
from benchkit.io._files import sniff
from benchkit.io._paths import path_kind
from benchkit.response_set import ResponseSet

__all__ = ["read_csv", "read_parquet", "read_duckdb"]

_AGG_COLUMNS = ("model", "item", "correct", "sample")
_PANDAS_INDEX = re.compile(r"__index_level_\d+__")
CSV_FRAME_FACTOR = 10
"""Estimated memory of a CSV file read into pandas, per byte of the file."""


_LAYOUT_COLUMNS = {"long": {"model", "item", "correct", "sample", "answer", "option_probs", "option_logprobs",
                            "principal", "variant"},
                   "counts": {"model", "item", "n_correct", "n_samples"}}


def _pandas_index(path, columns: list[str]) -> tuple[list[str], bool]:
    """The columns holding a pandas index that ``DataFrame.to_parquet`` stored, and if a RangeIndex.

    The second value is True when pandas recorded a RangeIndex (not stored as a column).

    Read from the ``pandas`` metadata of the file's schema (the first file of a glob): its
    ``index_columns`` lists stored index columns by name (``__index_level_0__`` for an unnamed
    index, the index's name otherwise) and a RangeIndex as a ``{"kind": "range"}`` record.
    Without that metadata (a file pandas did not write, a DuckDB table), columns named
    ``__index_level_N__`` are taken for a stored index.
    """
    import glob

    import pyarrow.parquet as pq

    meta = None
    text = str(path) if path is not None else ""
    first = (sorted(glob.glob(text)) or [None])[0] if any(ch in text for ch in "*?[") else text
    if first and os.path.isfile(first):
        try:
            meta = pq.read_schema(first).pandas_metadata
        except Exception:  # not readable here: the readers below report it
            meta = None
    if not meta or not isinstance(meta.get("index_columns"), list):
        return [c for c in columns if _PANDAS_INDEX.fullmatch(c)], False
    stored = [c for c in meta["index_columns"] if isinstance(c, str) and c in columns]
    ranged = any(isinstance(c, dict) and c.get("kind") == "range" for c in meta["index_columns"])
    return stored, ranged and not stored


def _wide_index(columns: list[str], stored: list[str], ranged: bool, index_col) -> str:
    """The column of item ids of a wide table (see :func:`read_parquet`, Notes)."""
    if index_col is not None:
        return index_col
    if len(stored) == 1:
        return stored[0]
    if len(stored) > 1:
        raise BenchkitValueError(
            f"the Parquet file stores a pandas MultiIndex ({stored}) as its index; a wide table needs one "
            "column of item ids: write it with df.reset_index() and pass index_col=..., or give "
            "index_col=... naming the item-id column"
        )
    if ranged and (not columns or columns[0] != "item"):
        raise BenchkitValueError(
            "the Parquet file was written by pandas with a default RangeIndex, so its item ids are not the "
            f"index, and its first column {columns[0] if columns else None!r} is not called 'item': pass "
            "index_col=... naming the item-id column, or write the file with df.set_index(<item ids>)"
            ".to_parquet(...)"
        )
    return columns[0]


def _quote(column: str) -> str:
    """A DuckDB identifier for ``column`` (double quotes inside are doubled)."""
    return '"' + str(column).replace('"', '""') + '"'


def _not_parquet(path, exc: Exception) -> BenchkitValueError:
    return BenchkitValueError(
        f"path={str(path)!r} could not be read as Parquet ({type(exc).__name__}: "
        f"{str(exc).splitlines()[0] if str(exc) else ''}); is it a Parquet file? CSV files are read "
        "with benchkit.io.read_csv"
    )


def _path(name: str, path: Any) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise BenchkitTypeError(f"{name} must be a path (str or os.PathLike), got {type(path).__name__}")
    p = Path(path)
    if path_kind(p, name) != "file":
        raise BenchkitValueError(f"{name}={str(p)!r} does not exist or is not a file")
    return p


def _check_options(layout: str, options: dict, reader: str | None = None) -> None:
    """Unknown constructor options are a BenchkitTypeError (not Python's bare TypeError)."""
    import inspect

    ctor = {"long": ResponseSet.from_long, "counts": ResponseSet.from_counts,
            "wide": ResponseSet.from_wide}[layout]
    allowed = [p for p in inspect.signature(ctor).parameters if p not in ("responses", "counts", "matrix")]
    if reader is not None:
        allowed = [a for a in allowed if a != "items"]  # the reader builds the items table
        meta = options.get("meta")
        if meta is not None and not isinstance(meta, Mapping):
            raise BenchkitTypeError(f"meta must be a dict (a mapping) or None, got {describe(meta)}")
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        where = f"layout={layout!r}" if reader is None else \
            f"{reader} (its own keywords, then ResponseSet.from_long's)"
        raise BenchkitTypeError(f"unexpected option(s) {unknown} for {where}; allowed: {allowed}")


def _from_frame(frame: pd.DataFrame, layout: str, index_col: str | None, options: dict) -> ResponseSet:
    _check_options(layout, options)
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
    r"""Read a CSV file into a ResponseSet.

    Ids (``model``, ``item``, ``variant`` and a wide table's index column) are read as strings
    ("001" stays "001", a model called "NA" is not missing).

    Parameters
    ----------
    path : str or path
        The CSV file.
    layout : {"long", "counts", "wide"}
        The table's shape: ``"long"`` one row per (model, item[, sample]) response with columns
        ``model, item, correct`` (:meth:`ResponseSet.from_long`); ``"counts"`` one row per cell
        with ``model, item, n_correct, n_samples`` (:meth:`ResponseSet.from_counts`); ``"wide"``
        items as rows and models as columns (:meth:`ResponseSet.from_wide`).
    index_col : str, optional
        For ``layout="wide"``: the column with item ids (default: the first column).
    read_options : dict, optional
        Passed to :func:`pandas.read_csv` (e.g. ``{"sep": ";"}``).
    **options
        Passed to the ResponseSet constructor (``models=``, ``items=``, ``T=``, ...).

    Returns
    -------
    ResponseSet
        Validated once, with errors naming the file, column and bad value.

    References
    ----------
    Y. Shafranovich (2005), "Common Format and MIME Type for Comma-Separated Values (CSV) Files",
    RFC 4180. The pandas documentation of ``pandas.read_csv``.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from benchkit import io
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (tmp / "responses.csv").write_text(
    ...     "model,item,correct\nm1,q1,1\nm1,q2,0\nm2,q1,1\nm2,q2,1\n")
    >>> rs = io.read_csv(tmp / "responses.csv")
    >>> rs
    ResponseSet: 2 items x 2 models, 4 responses, T=1, 0.0% cells missing
    >>> rs.accuracy().tolist()
    [0.5, 1.0]

    A wide table (items as rows, models as columns):

    >>> _ = (tmp / "wide.csv").write_text("item,m1,m2\nq1,1,1\nq2,0,1\n")
    >>> io.read_csv(tmp / "wide.csv", layout="wide").binary().tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    p = _path("path", path)
    layout = check_choice("layout", layout, ("long", "counts", "wide"))
    if read_options is not None and not isinstance(read_options, dict):
        raise BenchkitTypeError(f"read_options must be a dict, got {type(read_options).__name__}")
    kwargs = dict(read_options or {})
    _check_csv_file(p, kwargs)
    # ids stay strings: pandas would parse "001" as 1 (and merge "01" with "001")
    header = _read_csv(p, {**kwargs, "nrows": 0})
    id_cols = [c for c in ("model", "item", "variant") if c in header.columns]
    if layout == "wide":
        first = header.columns[0] if len(header.columns) else None
        id_cols = [index_col if index_col is not None else first]
        id_cols = [c for c in id_cols if c in header.columns]
    if id_cols and "na_values" not in kwargs and "keep_default_na" not in kwargs:
        # ids "NA", "null", "nan", "None" are names (a model called "NA"), not missing values
        from pandas._libs.parsers import STR_NA_VALUES

        kwargs["keep_default_na"] = False
        kwargs["na_values"] = {c: ([""] if c in id_cols else sorted(STR_NA_VALUES)) for c in header.columns}
    user_dtype = kwargs.get("dtype")
    if user_dtype is None or isinstance(user_dtype, dict):
        kwargs["dtype"] = {**{c: str for c in id_cols}, **(user_dtype or {})}
    if len(header.columns):
        raw = _read_csv(p, {**kwargs, "header": None, "dtype": str, "nrows": 1})
        names = [str(v) for v in raw.iloc[0].tolist()] if len(raw) else []
        dups = sorted({n for n in names if names.count(n) > 1})
        if dups and kwargs.get("header", "infer") in ("infer", 0):
            raise BenchkitValueError(
                f"path={str(p)!r} has duplicate column name(s) {dups} in its header; every column "
                "(model, for layout='wide') needs its own name"
            )
    frame = _read_csv(p, kwargs)
    if len(frame.columns) == 0 or len(frame) == 0:
        raise BenchkitValueError(f"path={str(p)!r} holds no data rows (an empty CSV file)")
    if len(frame.columns) == 1 and "sep" not in kwargs:
        only = str(frame.columns[0])
        sep = next((c for c in (";", "\t", "|") if c in only), None)
        if sep is not None:
            raise BenchkitValueError(
                f"path={str(p)!r} reads as one column {only!r}: its fields look separated by {sep!r}, "
                f"not commas; pass read_options={{'sep': {sep!r}}}"
            )
    return _from_frame(frame, layout, index_col, options)


def _check_csv_file(p: Path, kwargs: dict) -> None:
    """Before pandas reads ``p``: UTF-16, NUL bytes anywhere (streamed) and the memory estimate.

    A pandas frame of CSV text takes about :data:`CSV_FRAME_FACTOR` times the file's size (string
    ids are Python objects); above the memory budget the file is refused before reading.
    """
    if "encoding" not in kwargs:
        if sniff(p, 4, "a CSV file").startswith((b"\xff\xfe", b"\xfe\xff")):
            raise BenchkitValueError(
                f"path={str(p)!r} is UTF-16 text; benchkit reads UTF-8 CSV: re-save it as UTF-8 or "
                "pass read_options={'encoding': 'utf-16'}"
            )
        check_no_nul(p, "a CSV file")
    size = p.stat().st_size
    check_memory(f"reading the CSV file {str(p)!r} ({format_bytes(size)}) into a table",
                 size * CSV_FRAME_FACTOR,
                 hint="read a long file this large with read_parquet / read_duckdb(aggregate=True), which "
                      "stream it")


def _read_csv(p: Path, kwargs: dict) -> pd.DataFrame:
    """pandas.read_csv with its parse errors turned into benchkit errors naming the file."""
    try:
        return pd.read_csv(p, **kwargs)
    except UnicodeDecodeError as exc:
        raise BenchkitValueError(
            f"path={str(p)!r} is not UTF-8 text ({exc.reason} at byte {exc.start}); benchkit reads "
            "UTF-8 CSV: re-save it as UTF-8 or pass read_options={'encoding': ...}"
        ) from None
    except pd.errors.EmptyDataError:
        raise BenchkitValueError(
            f"path={str(p)!r} is empty: a CSV needs a header row and data rows"
        ) from None
    except pd.errors.ParserError as exc:
        raise BenchkitValueError(
            f"path={str(p)!r} is not a well-formed CSV file: {str(exc).strip()}; every row needs as "
            "many fields as the header"
        ) from None
    except (ValueError, TypeError) as exc:
        raise BenchkitValueError(f"path={str(p)!r} could not be read as CSV: {exc}") from None


def _check_aggregate(aggregate) -> None:
    not_bool_int = isinstance(aggregate, int) and not isinstance(aggregate, bool)
    if aggregate not in (True, False, "auto") or not_bool_int:
        raise BenchkitValueError(f"aggregate={aggregate!r} is not allowed; choose True, False or 'auto'")


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
                 index_col: str | None = None, connection=None, engine: str = "auto",
                 **options) -> ResponseSet:
    """Read a Parquet file (or a glob of files) into a ResponseSet through DuckDB.

    Parameters
    ----------
    path : str or path
        A file, or a glob pattern DuckDB understands (``"results/*.parquet"``).
    layout : {"long", "counts", "wide"}
        The table's shape: ``"long"`` one row per (model, item[, sample]) response with columns
        ``model, item, correct`` (:meth:`ResponseSet.from_long`); ``"counts"`` one row per cell
        with ``model, item, n_correct, n_samples`` (:meth:`ResponseSet.from_counts`); ``"wide"``
        items as rows and models as columns (:meth:`ResponseSet.from_wide`).
    aggregate : bool or "auto"
        For ``layout="long"``: reduce 0/1 responses to counts inside DuckDB (see module notes).
        ``"auto"`` aggregates when the file has only ``model, item, correct`` (one sample per
        cell, so nothing is lost). With a ``sample`` column aggregation drops the principal
        sample, so :meth:`ResponseSet.binary` then needs ``T == 1``.
    index_col : str, optional
        For ``layout="wide"``: the column with item ids (default: the first column).
    connection : duckdb connection, optional
        The DuckDB connection to read with (default: a new in-memory one).
    engine : {"auto", "duckdb", "pyarrow"}
        Who reads the file when aggregating. "duckdb" handles globs, remote paths and hive
        partitions; "pyarrow" streams one local file's row groups keeping Parquet's dictionary
        encoding (no string hashing). "auto" uses pyarrow for one local file when aggregating and
        DuckDB otherwise. Measured on 70M rows (14,000 x 5,000, 2 cores): pyarrow 10.5 s and
        2.5 GiB peak, DuckDB 18.4 s and 2.7 GiB, pandas ``read_parquet`` + ``pivot_table`` 83 s
        and 9.5 GiB.
    **options
        Passed to the ResponseSet constructor.

    Returns
    -------
    ResponseSet
        Validated once, with errors naming the file, column and bad value.

    Notes
    -----
    A pandas index that ``DataFrame.to_parquet`` stored (found from the file's pandas metadata, or
    columns named ``__index_level_N__``): for ``layout="wide"`` it holds the item ids (unless
    ``index_col`` names another column; a MultiIndex is refused); for the long and counts
    layouts an index is kept only when it is one of the layout's columns (``df.set_index(
    ["model", "item"])``), and otherwise dropped as row labels. A wide file pandas wrote with a
    default RangeIndex must have its item ids in a first column called ``item`` or name them with
    ``index_col``. When aggregating, models and items keep the order of their first
    appearance (DuckDB preserves insertion order) unless ``models=`` / ``items=`` give it. The
    rows stream from DuckDB as Arrow batches and are reduced to counts with one ``bincount``:
    a 70M-row file needs about 1.2 GB beyond the two count matrices.

    References
    ----------
    The Apache Parquet file format, https://parquet.apache.org/docs/. The DuckDB documentation,
    "Reading and writing Parquet files", https://duckdb.org/docs/data/parquet/overview.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import pandas as pd
    >>> from benchkit import io
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "responses.parquet"
    >>> pd.DataFrame({"model": ["m1", "m1", "m2", "m2"], "item": ["q1", "q2", "q1", "q2"],
    ...               "correct": [1, 0, 1, 1]}).to_parquet(path)
    >>> rs = io.read_parquet(path)  # aggregated to counts: only model, item, correct
    >>> rs.counts().K.tolist()
    [[1, 1], [0, 1]]
    """
    layout = check_choice("layout", layout, ("long", "counts", "wide"))
    if not isinstance(path, (str, os.PathLike)):
        raise BenchkitTypeError(f"path must be a path (str or os.PathLike), got {type(path).__name__}")
    if not any(ch in str(path) for ch in "*?[") :
        _path("path", path)
    _check_aggregate(aggregate)
    engine = check_choice("engine", engine, ("auto", "duckdb", "pyarrow"))
    if engine == "auto":
        is_glob = any(ch in str(path) for ch in "*?[")
        engine = "pyarrow" if (layout == "long" and aggregate is not False and not is_glob) else "duckdb"
        if engine == "pyarrow" and aggregate == "auto":
            import pyarrow.parquet as pq

            try:
                names = pq.read_schema(path).names
            except Exception as exc:
                raise _not_parquet(path, exc) from None
            stored, _ = _pandas_index(path, names)
            names = [c for c in names if c not in stored or c in _LAYOUT_COLUMNS["long"]]
            if not set(names) <= {"model", "item", "correct"}:
                engine = "duckdb"
    try:
        if engine == "pyarrow":
            return _read_parquet_pyarrow(_path("path", path), layout, aggregate, options)
        con = _connect(connection)
        rel = con.read_parquet(str(path))
        return _read_relation(con, rel, layout, aggregate, index_col, options, path)
    except BenchkitError:
        raise
    except Exception as exc:  # a damaged file fails in pyarrow / DuckDB while its pages are read
        raise _not_parquet(path, exc) from None


def _read_parquet_pyarrow(path: Path, layout, aggregate, options) -> ResponseSet:
    import pyarrow.parquet as pq

    if layout != "long" or aggregate is False:
        raise BenchkitValueError("engine='pyarrow' reads layout='long' with aggregation; use engine='duckdb'")
    try:
        pf = pq.ParquetFile(path, read_dictionary=["model", "item"])
    except Exception as exc:
        raise _not_parquet(path, exc) from None
    names = pf.schema_arrow.names
    stored, _ = _pandas_index(path, names)
    columns = [c for c in names if c not in stored or c in _LAYOUT_COLUMNS["long"]]
    check_columns("responses", columns, required=("model", "item", "correct"))
    extra = [c for c in columns if c not in _AGG_COLUMNS]
    if extra:
        raise BenchkitValueError(
            f"aggregating keeps only model, item, correct and sample, but the file also has {extra}; "
            "use engine='duckdb', aggregate=False to keep them"
        )
    wanted = ["model", "item", "correct"] + (["sample"] if "sample" in columns else [])
    # one row group at a time: batches that straddle row groups make pyarrow keep concatenated
    # buffers (measured: Arrow's pool grew to 140 MB over a 70M-row file, 12 MB this way)
    batches = (b for g in range(pf.metadata.num_row_groups)
               for b in pf.iter_batches(batch_size=1 << 20, row_groups=[g], columns=wanted))
    return _aggregate_batches(batches, wanted, options, rows=pf.metadata.num_rows)


def read_duckdb(query_or_table: str, *, connection=None, layout: str = "long",
                aggregate: bool | str = "auto", index_col: str | None = None,
                **options) -> ResponseSet:
    """Read a DuckDB table or SQL query into a ResponseSet.

    ``query_or_table`` is a table/view name in ``connection`` or a ``SELECT`` statement. Roster
    order is first appearance in the query's output unless ``models=`` / ``items=`` give it.
    Other options as in :func:`read_parquet`.

    Parameters
    ----------
    query_or_table : str
        A table or view name, or a query starting with ``SELECT``, ``WITH``, ``FROM`` or ``(``.
    connection : duckdb connection, optional
        Where the table lives (default: a new in-memory connection, for queries over files such
        as ``"SELECT * FROM 'runs/*.parquet'"``).
    layout : {"long", "counts", "wide"}
        The table's shape: ``"long"`` one row per (model, item[, sample]) response with columns
        ``model, item, correct`` (:meth:`ResponseSet.from_long`); ``"counts"`` one row per cell
        with ``model, item, n_correct, n_samples`` (:meth:`ResponseSet.from_counts`); ``"wide"``
        items as rows and models as columns (:meth:`ResponseSet.from_wide`).
    aggregate : bool or "auto"
        For ``layout="long"``: reduce 0/1 responses to counts inside DuckDB, as in
        :func:`read_parquet`.
    index_col : str, optional
        For ``layout="wide"``: the column with item ids (default: the first column).
    **options
        Passed to the ResponseSet constructor.

    Returns
    -------
    ResponseSet
        Validated once, with errors naming the file, column and bad value.

    References
    ----------
    The DuckDB documentation, "Python API", https://duckdb.org/docs/api/python/overview.

    Examples
    --------
    >>> import duckdb
    >>> from benchkit import io
    >>> con = duckdb.connect()
    >>> _ = con.execute("CREATE TABLE runs AS SELECT * FROM (VALUES ('m1', 'q1', 1), "
    ...                 "('m1', 'q2', 0), ('m2', 'q1', 1), ('m2', 'q2', 1)) t(model, item, correct)")
    >>> io.read_duckdb("runs", connection=con).accuracy().tolist()
    [0.5, 1.0]
    >>> io.read_duckdb("SELECT * FROM runs WHERE model = 'm2'", connection=con).n_models
    1
    """
    layout = check_choice("layout", layout, ("long", "counts", "wide"))
    _check_aggregate(aggregate)
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


def _read_relation(con, rel, layout, aggregate, index_col, options, path=None) -> ResponseSet:
    stored, ranged = _pandas_index(path, list(rel.columns))
    if layout == "wide":
        if aggregate is True:
            raise BenchkitValueError("aggregate=True applies to layout='long' only")
        columns = list(rel.columns)
        col = _wide_index([c for c in columns if c not in stored], stored, ranged, index_col)
        frame = rel.select(*[_quote(c) for c in columns if c not in stored or c == col]).df()
        return _from_frame(frame[[col] + [c for c in frame.columns if c != col]] if col in frame.columns
                           else frame, layout, col, options)
    # a stored pandas index is data only when it is one of the layout's columns
    columns = [c for c in rel.columns if c not in stored or c in _LAYOUT_COLUMNS[layout]]
    if layout != "long":
        if aggregate is True:
            raise BenchkitValueError("aggregate=True applies to layout='long' only")
        frame = rel.select(*[_quote(c) for c in columns]).df()
        return _from_frame(frame, layout, index_col, options)
    if aggregate == "auto":
        aggregate = set(columns) <= {"model", "item", "correct"}
    if not aggregate:
        frame = rel.select(*[_quote(c) for c in columns]).df()
        return ResponseSet.from_long(frame, **options)
    extra = [c for c in columns if c not in _AGG_COLUMNS]
    if extra:
        raise BenchkitValueError(
            f"aggregate=True keeps only model, item, correct and sample, but the table also has "
            f"{extra}; pass aggregate=False to keep them"
        )
    return _aggregate(con, rel, columns, options)


def _aggregate(con, rel, columns, options, batch_rows: int = 1 << 20) -> ResponseSet:
    """Stream (model, item, correct[, sample]) from DuckDB as Arrow batches into counts."""
    check_columns("responses", columns, required=("model", "item", "correct"))
    wanted = ["model", "item", "correct"] + (["sample"] if "sample" in columns else [])
    batches = rel.select(*[_quote(c) for c in wanted]).to_arrow_reader(batch_rows)
    return _aggregate_batches(batches, wanted, options)
