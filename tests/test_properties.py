"""Property-based tests (hypothesis, profile "ci" in conftest.py): ResponseSet round trips,
fuzzed tabular readers and fuzzed tool logs (Inspect .eval, lm-eval samples) (issue 12).

A fuzzed file must give either a benchkit error or a ResponseSet that agrees with an independent
reading of the same bytes (Python's ``csv`` module / ``pyarrow.parquet.read_table`` and a plain
dict count) -- never a raw exception and never a silently different result. Truncations at a row
boundary must agree with the clean file on the rows kept.
"""
from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from benchkit import ResponseSet
from benchkit._validation import BenchkitError
from benchkit.io import read_csv
from benchkit.io import read_parquet

_IDS = st.text(alphabet="ab01_-", min_size=1, max_size=4)


@st.composite
def long_frames(draw):
    """A valid long table: distinct models x items, T samples each, some cells absent."""
    models = draw(st.lists(_IDS, min_size=1, max_size=4, unique=True))
    items = draw(st.lists(_IDS, min_size=1, max_size=6, unique=True))
    T = draw(st.integers(1, 3))
    present = draw(st.lists(st.booleans(), min_size=len(models) * len(items),
                            max_size=len(models) * len(items)))
    if not any(present):
        present[0] = True
    rows = []
    for k, (m, i) in enumerate((m, i) for m in models for i in items):
        if present[k]:
            for s in range(T):
                rows.append((m, i, s, draw(st.sampled_from([0, 1]))))
    return pd.DataFrame(rows, columns=["model", "item", "sample", "correct"])


def _cells(rs: ResponseSet) -> dict:
    """{(model, item): (k, n)} over observed cells: order-free."""
    c = rs.counts()
    out = {}
    for a, item in enumerate(rs.item_ids):
        for b, model in enumerate(rs.model_ids):
            if c.N[a, b]:
                out[(model, item)] = (int(c.K[a, b]), int(c.N[a, b]))
    return out


@given(long_frames())
def test_from_long_to_long_round_trip(frame):
    rs = ResponseSet.from_long(frame)
    back = ResponseSet.from_long(rs.to_long()[["model", "item", "sample", "correct"]])
    assert list(back.model_ids) == list(rs.model_ids)
    assert list(back.item_ids) == list(rs.item_ids)
    np.testing.assert_array_equal(back.counts().K, rs.counts().K)
    np.testing.assert_array_equal(back.counts().N, rs.counts().N)
    pd.testing.assert_frame_equal(back.to_long().reset_index(drop=True), rs.to_long().reset_index(drop=True))


@given(long_frames(), st.randoms(use_true_random=False))
def test_any_row_order_gives_the_same_counts(frame, random):
    order = list(range(len(frame)))
    random.shuffle(order)
    a = ResponseSet.from_long(frame)
    b = ResponseSet.from_long(frame.iloc[order])
    assert _cells(a) == _cells(b)
    # oracle: a plain dict count of the rows
    expected = {}
    for m, i, _, y in frame.itertuples(index=False):
        k, n = expected.get((m, i), (0, 0))
        expected[(m, i)] = (k + y, n + 1)
    assert _cells(a) == expected


# ------------------------------------------------------------------------------- fuzzed readers
def _clean_csv() -> bytes:
    rows = ["model,item,correct"]
    for m in ("m1", "m2", "m3"):
        for i in ("001", "01", "i2", "i3"):
            rows.append(f"{m},{i},{(len(m) + len(i) + int(m[-1])) % 2}")
    return ("\n".join(rows) + "\n").encode()


def _oracle_csv(data: bytes) -> dict | None:
    """{(model, item): correct} from Python's csv module, ids as strings; None if not a clean table."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    rows = [r for r in csv.reader(io.StringIO(text, newline="")) if r]
    if not rows or rows[0] != ["model", "item", "correct"]:
        return None
    out = {}
    for r in rows[1:]:
        if len(r) != 3:
            return None
        try:
            y = float(r[2])
        except ValueError:
            return None
        if not math.isfinite(y) or y not in (0.0, 1.0) or (r[0], r[1]) in out:
            return None
        out[(r[0], r[1])] = y
    return out


def _result_cells(rs: ResponseSet) -> dict:
    """{(model, item): correct} of a one-sample-per-cell set (from its counts, so aggregated sets too)."""
    cells = _cells(rs)
    assert all(n == 1 for _, n in cells.values())
    return {key: float(k) for key, (k, _) in cells.items()}


def _check_csv(tmp_path, data: bytes, clean: dict | None = None):
    path = tmp_path / "fuzz.csv"
    path.write_bytes(data)
    try:
        rs = read_csv(path)
    except BenchkitError:
        return None
    got = _result_cells(rs)
    oracle = _oracle_csv(data)
    assert oracle is not None, f"read_csv accepted a file the csv oracle rejects: {data!r}"
    assert got == oracle
    if clean is not None:  # a truncation: the rows kept agree with the clean file
        assert all(clean[key] == value for key, value in got.items())
    assert not rs.report  # nothing was skipped
    return rs


_SETTINGS = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@_SETTINGS
@given(st.integers(0, len(_clean_csv())))
def test_fuzzed_csv_truncation(tmp_path, cut):
    data = _clean_csv()
    _check_csv(tmp_path, data[:cut], clean=_oracle_csv(data))


@_SETTINGS
@given(st.lists(st.tuples(st.integers(0, len(_clean_csv()) - 1), st.integers(0, 255)),
                min_size=1, max_size=3))
def test_fuzzed_csv_byte_flips(tmp_path, flips):
    data = bytearray(_clean_csv())
    for pos, byte in flips:
        data[pos] = byte
    _check_csv(tmp_path, bytes(data))


def _damaged(path: Path, clean: bytes, cut: float, flips) -> Path:
    """Write damaged ``clean`` bytes to ``path`` and return it.

    Cut to a fraction ``cut`` (kept whole from 0.999), then bytes flipped at the fractional
    positions of ``flips``.
    """
    data = bytearray(clean)
    data = data[: max(1, int(round(cut * len(data))))] if cut < 0.999 else data
    for where, byte in flips:
        data[min(len(data) - 1, int(where * len(data)))] = byte
    path.write_bytes(bytes(data))
    return path


def _clean_parquet(tmp_path) -> bytes:
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"model": np.repeat(["m1", "m2", "m3"], 20),
                          "item": np.tile([f"i{k:03d}" for k in range(20)], 3),
                          "correct": rng.integers(0, 2, 60)})
    path = tmp_path / "clean.parquet"
    frame.to_parquet(path, index=False)
    return path.read_bytes()


def _oracle_parquet(path) -> dict | None:
    import pyarrow.parquet as pq

    try:
        cols = pq.read_table(path, columns=["model", "item", "correct"]).to_pydict()
        return {(m, i): float(y) for m, i, y in zip(cols["model"], cols["item"], cols["correct"])}
    except Exception:  # pyarrow cannot read these bytes (the test then needs the clean result)
        return None


@pytest.mark.parametrize("engine", ["pyarrow", "duckdb"])
@_SETTINGS
@given(cut=st.floats(0.0, 1.0), flips=st.lists(st.tuples(st.floats(0.0, 1.0), st.integers(0, 255)),
                                                max_size=3))
def test_fuzzed_parquet(tmp_path, engine, cut, flips):
    clean = _clean_parquet(tmp_path)
    (tmp_path / "c.parquet").write_bytes(clean)
    clean_cells = _oracle_parquet(tmp_path / "c.parquet")
    path = _damaged(tmp_path / "fuzz.parquet", clean, cut, flips)
    try:
        rs = read_parquet(path, engine=engine)
    except BenchkitError:
        return
    oracle = _oracle_parquet(path)
    # what pyarrow reads from the same bytes; where pyarrow fails but DuckDB reads, the damage
    # must have been immaterial: the clean file's cells
    assert _result_cells(rs) == (oracle if oracle is not None else clean_cells)
    assert not rs.report


# ------------------------------------------------------------------ fuzzed tool logs (issue 12)
# The real-format logs written by inspect_ai 0.3.285 and lm-eval 0.4.13 (tests/tool_fixtures/).
# A damaged log gives a benchkit error, or a result equal to an independent reading of the same
# bytes (the json module for lm-eval's JSON Lines; the clean archive for .eval, whose members are
# CRC-checked, so damage either is detected or touched bytes benchkit does not read).
_FIX = Path(__file__).parent / "tool_fixtures"


def _eval_cells(rs: ResponseSet) -> dict:
    long = rs.to_long()
    return {(r.model, r.item, r.sample): (r.correct, r.answer) for r in long.itertuples(index=False)}


_EVAL_CLEAN = (_FIX / "inspect" / "mc.eval").read_bytes()


@_SETTINGS
@given(cut=st.floats(0.0, 1.0), flips=st.lists(st.tuples(st.floats(0.0, 1.0), st.integers(0, 255)),
                                                max_size=3))
def test_fuzzed_inspect_eval_archive(tmp_path, cut, flips):
    from benchkit.io import read_inspect

    clean = _eval_cells(read_inspect(_FIX / "inspect" / "mc.eval", scorer="choice"))
    path = _damaged(tmp_path / "fuzz.eval", _EVAL_CLEAN, cut, flips)
    try:
        rs = read_inspect(path, scorer="choice")
    except BenchkitError:
        return
    assert _eval_cells(rs) == clean


def _lm_oracle(data: bytes, model: str) -> dict | None:
    """{(model, item): acc} from the json module, or None when some line is not a record."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    out = {}
    for line in text.split("\n"):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            return None
        if not isinstance(rec, dict) or "acc" not in rec:
            return None
        out[(model, f"bk_mc/{rec.get('doc_id')}")] = rec["acc"]
    return out


_LM_PATH = next((_FIX / "lm_eval" / "run_a").rglob("samples_bk_mc_*.jsonl"))
_LM_CLEAN = _LM_PATH.read_bytes()


@_SETTINGS
@given(cut=st.integers(0, len(_LM_CLEAN)),
       flips=st.lists(st.tuples(st.integers(0, len(_LM_CLEAN) - 1), st.integers(0, 255)), max_size=3))
def test_fuzzed_lm_eval_samples(tmp_path, cut, flips):
    from benchkit.io import read_lm_eval

    data = bytearray(_LM_CLEAN[:cut])
    for pos, byte in flips:
        if pos < len(data):
            data[pos] = byte
    path = tmp_path / _LM_PATH.name
    path.write_bytes(bytes(data))
    try:
        rs = read_lm_eval(path, model="m")
    except BenchkitError:
        return
    oracle = _lm_oracle(bytes(data), "m")
    assert oracle is not None, f"read_lm_eval accepted bytes the json module rejects: {bytes(data)!r}"
    long = rs.to_long()
    got = {(r.model, r.item): r.correct for r in long.itertuples(index=False)}
    assert got == {k: float(v) for k, v in oracle.items()}
    if not flips:  # a truncation: the documents kept agree with the clean file
        clean = _lm_oracle(_LM_CLEAN, "m")
        assert all(clean[k] == v for k, v in got.items())


# ----------------------------------------------------------- the record schemas of every tool reader
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
_CLEAN: dict = {}


@pytest.mark.slow
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=150)
@given(data=st.data())
def test_fuzzed_tool_records(tmp_path, data):
    """Any JSON value in any field of any record of any tool format (issue 23): a benchkit error
    naming the file, or the clean read's responses (ids may change with them); never a raw error."""
    import tempfile

    import tool_mutations as tm

    fmt = data.draw(st.sampled_from(tm.FORMATS), label="format")
    if fmt.name not in _CLEAN:  # the clean read and record, once per format
        with tempfile.TemporaryDirectory() as d:
            root, target = fmt.build(Path(d))
            _CLEAN[fmt.name] = (tm.responses(fmt.read(root)), tm.load_record(fmt, target))
    clean, record = _CLEAN[fmt.name]
    path = data.draw(st.sampled_from(tm.field_paths(record)), label="field")
    value = data.draw(_JSON | st.just(tm.DELETE), label="value")
    root, target = fmt.build(Path(tempfile.mkdtemp(dir=tmp_path)))
    tm.save_record(fmt, target, tm.set_path(record, path, value))
    kind, detail = tm.outcome(fmt, root, target, clean)
    assert kind in tm.allowed(fmt, path), (fmt.name, path, value, detail)
