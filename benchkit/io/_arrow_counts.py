"""Long 0/1 responses streamed as Arrow record batches into count matrices.

The aggregating path of :func:`benchkit.io.read_parquet` and :func:`benchkit.io.read_duckdb`
(``aggregate=True``): each batch of ``(model, item, correct[, sample])`` rows is checked (types,
values, duplicates, budgets, as :meth:`ResponseSet.from_long` does) and added to dense uint8
counts, so the rows never reach pandas. ``_aggregate_batches`` is the entry point.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchkit._response_checks import check_dense_size
from benchkit._response_ingest import _options
from benchkit._response_ingest import _rosters
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit.response_set import ResponseSet

# the reader options an aggregated read accepts (besides models= and items=)
_AGG_OPTIONS = {"T", "sample_budget", "drop_incomplete", "parse_names", "name_rules", "name", "meta"}


class _IdCodes:
    """Codes of one id column (model or item) in order of first appearance.

    Arrow hands each batch's ids as a dictionary array (Parquet keeps one dictionary page per
    row group; other sources are dictionary-encoded per batch). The lookup table from dictionary
    index to code is built from the dictionary's labels and kept while the next batches carry
    the same dictionary, so no per-row Python work happens.
    """

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self._dictionary = None
        self._lut = np.empty(0, dtype=np.int64)

    def lookup(self, column) -> tuple[np.ndarray, np.ndarray]:
        """``(dictionary indices, lookup table)`` of ``column``: code of row r = lut[indices[r]]."""
        import pyarrow as pa

        if not pa.types.is_dictionary(column.type):
            column = column.dictionary_encode()
        d = column.dictionary
        if self._dictionary is None or not (d is self._dictionary or d.equals(self._dictionary)):
            labels = d.to_pylist()
            self._lut = np.fromiter((self.index.setdefault(str(v), len(self.index)) for v in labels),
                                    dtype=np.int64, count=len(labels))
            self._dictionary = d
        return column.indices.to_numpy(zero_copy_only=False), self._lut

    def codes(self, column) -> np.ndarray:
        """The code of every row of ``column``."""
        idx, lut = self.lookup(column)
        return lut[idx]

    def seen(self) -> pd.Index:
        return pd.Index(list(self.index), dtype=object)


class _CountGrid:
    """Dense uint8 counts (items x models) that grow as new ids appear.

    An axis grows to ``ceil(rows / other axis)`` when the number of rows is known and that is
    enough (exact for a complete matrix: one allocation, no copy), else by doubling.
    """

    def __init__(self, rows: int | None = None) -> None:
        self.rows = rows
        self.N = np.zeros((0, 0), dtype=np.uint8)
        self.K = np.zeros((0, 0), dtype=np.uint8)

    def _grow(self, need: int, cap: int, other: int) -> int:
        if need <= cap:
            return cap
        if self.rows and other:
            est = -(-self.rows // other)
            if need <= est:
                return est
        return max(need, 2 * cap)

    def fit(self, n_items: int, n_models: int) -> None:
        ci, cm = self.N.shape
        shape = (self._grow(n_items, ci, n_models), self._grow(n_models, cm, n_items))
        if shape == (ci, cm):
            return
        for name in ("N", "K"):
            grown = np.zeros(shape, dtype=np.uint8)
            grown[:ci, :cm] = getattr(self, name)
            setattr(self, name, grown)

    def take(self, n_items: int, n_models: int, rows, cols) -> tuple[np.ndarray, np.ndarray]:
        """(K, N) of the ids seen, rows and columns reordered (copies only when needed)."""
        out = []
        for a in (self.K, self.N):
            a = a[:n_items, :n_models]
            if not isinstance(rows, slice):
                a = a[rows]
            if not isinstance(cols, slice):
                a = a[:, cols]
            out.append(np.ascontiguousarray(a))
        self.N = self.K = None
        return out[0], out[1]


def _check_batch_types(batch, wanted) -> None:
    """The Arrow types the aggregating path accepts, as :meth:`ResponseSet.from_long` does."""
    import pyarrow as pa

    for pos, col in enumerate(wanted):
        typ = batch.schema.field(pos).type
        base = typ.value_type if pa.types.is_dictionary(typ) else typ
        is_text = pa.types.is_string(base) or pa.types.is_large_string(base)
        if col in ("model", "item"):
            ok, allowed = is_text or pa.types.is_integer(base), "strings (or integers)"
        elif col == "sample":
            ok, allowed = pa.types.is_integer(base), "integers"
        else:
            ok = pa.types.is_integer(base) or pa.types.is_floating(base) or pa.types.is_boolean(base)
            allowed = "0/1 or bool"
        if not ok:
            raise BenchkitTypeError(f"responses column {col!r} must hold {allowed}, got type {typ}")
    if "sample" in wanted:
        column = batch.column(wanted.index("sample"))
        if pa.types.is_unsigned_integer(column.type) and len(column) and column.null_count < len(column):
            import pyarrow.compute as pc

            top = pc.max(column).as_py()
            if top > np.iinfo(np.int64).max:
                raise BenchkitValueError(f"responses column 'sample' must be at most 2**63 - 1; found {top}")


def _aggregate_batches(batches, wanted, options, rows: int | None = None) -> ResponseSet:
    """Reduce Arrow record batches of (model, item, correct[, sample]) to a count ResponseSet.

    Each batch's ids are dictionary-encoded by Arrow (or arrive so from Parquet) and mapped to
    codes through a lookup table built once per dictionary (:class:`_IdCodes`); roster order is
    first appearance. Without a ``sample`` column every batch is scatter-added straight into
    dense uint8 count arrays by a numba kernel that also checks the 0/1 values and repeated cells
    (:func:`benchkit._kernels.counts.scatter_binary`): no array of the length of the file is
    built, so 70M rows (14,000 x 5,000) need about 0.3 GB beyond Arrow's batch buffers. With a
    ``sample`` column the rows' codes are kept and sorted to find repeated (cell, sample) pairs.
    ``rows``, the number of rows when the source knows it, sizes the count arrays at once.
    """
    options = {k: v for k, v in options.items() if k != "strict"}  # counts hold no answers to check
    unknown = set(options) - _AGG_OPTIONS - {"models", "items"}
    if unknown:
        raise BenchkitTypeError(
            f"unexpected option(s) {sorted(unknown)} for an aggregated read; allowed: "
            f"{sorted(_AGG_OPTIONS | {'models', 'items'})}"
        )
    if "sample" in wanted:
        return _aggregate_sample_batches(batches, wanted, options)
    from benchkit._kernels.counts import scatter_binary

    models, items, grid = _IdCodes(), _IdCodes(), _CountGrid(rows)
    n_rows = 0
    dup = False
    for batch in batches:
        _check_batch(batch, wanted, n_rows)
        mi, mlut = models.lookup(batch.column(0))
        ii, ilut = items.lookup(batch.column(1))
        grid.fit(len(items.index), len(models.index))
        y = batch.column(2).to_numpy(zero_copy_only=False)
        bad, d = scatter_binary(grid.N, grid.K, ii, mi, ilut, mlut, y)
        dup |= d
        if bad >= 0:
            _bad_correct(list(models.index)[mlut[mi[bad]]], list(items.index)[ilut[ii[bad]]], y[bad])
        n_rows += batch.num_rows
    m_seen, i_seen, (model_meta, item_meta, m_order, i_order) = _seen_rosters(n_rows, models, items,
                                                                              options)
    # codes in first-appearance order -> roster order (a permutation: rosters list exactly the ids)
    rows = np.argsort(i_order.get_indexer(i_seen)) if item_meta is not None else slice(None)
    cols = np.argsort(m_order.get_indexer(m_seen)) if model_meta is not None else slice(None)
    K, N = grid.take(len(i_seen), len(m_seen), rows, cols)
    if dup:
        i, j = (int(v[0]) for v in np.nonzero(N > 1))
        n = "255 or more" if N[i, j] == 255 else str(int(N[i, j]))
        raise BenchkitValueError(
            f"responses has duplicate rows for (model, item, sample): model {m_order[j]!r}, item "
            f"{i_order[i]!r} has {n} rows; add a 'sample' column for repeated samples"
        )
    opts = _options(**{k: v for k, v in options.items() if k not in ("models", "items")})
    return ResponseSet._from_dense_counts(K, N, m_order, i_order, model_meta, item_meta, opts)


def _seen_rosters(n_rows: int, models: _IdCodes, items: _IdCodes, options) -> tuple:
    """``(m_seen, i_seen, _rosters(...))`` once every batch is read; an empty input is an error."""
    if n_rows == 0:
        raise BenchkitValueError("responses is empty: it needs at least one row")
    m_seen, i_seen = models.seen(), items.seen()
    return m_seen, i_seen, _rosters(options.get("models"), options.get("items"), m_seen, i_seen)


def _check_batch(batch, wanted, n_rows: int) -> None:
    """Column types and missing values of one batch (rows counted from ``n_rows``)."""
    _check_batch_types(batch, wanted)
    for pos, col in enumerate(wanted):
        nulls = batch.column(pos).null_count
        if nulls:
            raise BenchkitValueError(
                f"responses column {col!r} has {nulls} missing value(s) (in rows "
                f"{n_rows:,}-{n_rows + batch.num_rows - 1:,}); every row needs a {col}"
            )


def _bad_correct(model, item, value) -> None:
    raise BenchkitValueError(
        f"aggregate=True needs 0/1 correctness; model {model!r}, item {item!r} has "
        f"{value.item()!r} (pass aggregate=False to keep fractional scores)"
    )


def _aggregate_sample_batches(batches, wanted, options) -> ResponseSet:
    """:func:`_aggregate_batches` with a ``sample`` column: codes kept, one ``bincount``."""
    models, items = _IdCodes(), _IdCodes()
    mcs, ics, ys, ss = [], [], [], []
    n_rows = 0
    for batch in batches:
        _check_batch(batch, wanted, n_rows)
        mc = models.codes(batch.column(0))
        ic = items.codes(batch.column(1))
        y = batch.column(2).to_numpy(zero_copy_only=False)
        bad = (y != 0) & (y != 1)
        if bad.any():
            r = int(np.nonzero(bad)[0][0])
            _bad_correct(list(models.index)[mc[r]], list(items.index)[ic[r]], y[r])
        mcs.append(mc)
        ics.append(ic)
        ys.append(y.astype(np.int8))
        ss.append(batch.column(3).to_numpy(zero_copy_only=False).astype(np.int64))
        n_rows += batch.num_rows
    m_seen, i_seen, (model_meta, item_meta, m_order, i_order) = _seen_rosters(n_rows, models, items,
                                                                              options)
    # codes in first-appearance order -> codes in roster order; dense counts batch by batch
    m_map = m_order.get_indexer(m_seen).astype(np.int64)
    i_map = i_order.get_indexer(i_seen).astype(np.int64)
    n_models, n_cells = len(m_order), len(i_order) * len(m_order)
    check_dense_size(len(i_order), n_models, n_rows)
    cell = np.empty(n_rows, dtype=np.int64)
    pos = 0
    for mc, ic in zip(mcs, ics):
        np.add(i_map[ic] * n_models, m_map[mc], out=cell[pos:pos + len(mc)])
        pos += len(mc)
    del mcs, ics
    y = np.concatenate(ys)
    del ys
    N = np.bincount(cell, minlength=n_cells)
    K = np.bincount(cell[y == 1], minlength=n_cells)
    del y
    sample = np.concatenate(ss)
    del ss
    if (sample < 0).any():
        raise BenchkitValueError(
            f"responses column 'sample' must be >= 0; found {int(sample.min())}"
        )
    span = int(sample.max()) + 1
    if span > (2**62) // max(n_cells, 1):
        # sample numbers so large that cell * span would overflow int64: use their ranks
        sample = np.unique(sample, return_inverse=True)[1].reshape(-1).astype(np.int64)
        span = int(sample.max()) + 1
    cell *= span
    cell += sample
    del sample
    cell.sort()
    dup_at = np.nonzero(cell[1:] == cell[:-1])[0]
    if len(dup_at):
        c, smp = divmod(int(cell[dup_at[0]]), span)
        raise BenchkitValueError(
            f"responses has duplicate rows for (model, item, sample): model "
            f"{m_order[c % n_models]!r}, item {i_order[c // n_models]!r} repeats sample {smp}"
        )
    del cell
    shape = (len(i_order), n_models)
    opts = _options(**{k: v for k, v in options.items() if k not in ("models", "items")})
    return ResponseSet._from_dense_counts(K.reshape(shape), N.reshape(shape), m_order, i_order,
                                          model_meta, item_meta, opts)
