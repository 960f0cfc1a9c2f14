"""Readers: CSV, Parquet (DuckDB aggregation and pandas paths), DuckDB tables and queries.

Oracle: the same frame through ResponseSet.from_long (itself checked against pandas pivots in
test_response_set.py); the aggregated path must give identical counts and roster order.
"""
from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest

from benchkit import BenchkitTypeError
from benchkit import BenchkitValueError
from benchkit import ResponseSet
from benchkit.io import read_csv
from benchkit.io import read_duckdb
from benchkit.io import read_parquet


@pytest.fixture
def frame():
    rng = np.random.default_rng(7)
    models = [f"model-{j}" for j in range(5)][::-1]  # not sorted: roster order must be kept
    items = [f"item-{i}" for i in range(40)]
    return pd.DataFrame({
        "model": np.repeat(models, len(items)),
        "item": np.tile(items, len(models)),
        "correct": rng.integers(0, 2, len(models) * len(items)),
    })


@pytest.mark.parametrize("engine", ["auto", "duckdb", "pyarrow"])
def test_parquet_aggregated_equals_from_long(tmp_path, frame, engine):
    path = tmp_path / "long.parquet"
    frame.to_parquet(path)
    agg = read_parquet(path, engine=engine)  # only model, item, correct -> aggregated
    assert not agg.has_samples
    ref = ResponseSet.from_long(frame)
    np.testing.assert_array_equal(agg.counts().K, ref.counts().K)
    np.testing.assert_array_equal(agg.counts().N, ref.counts().N)
    assert list(agg.model_ids) == list(ref.model_ids)
    assert list(agg.item_ids) == list(ref.item_ids)
    np.testing.assert_array_equal(agg.binary(), ref.binary())
    full = read_parquet(path, aggregate=False)
    assert full.has_samples
    assert np.array_equal(full.counts().K, ref.counts().K)


@pytest.mark.parametrize("engine", ["duckdb", "pyarrow"])
def test_parquet_with_samples_aggregated(tmp_path, frame, engine):
    df = pd.concat([frame.assign(sample=0), frame.assign(sample=1, correct=1)])
    path = tmp_path / "s.parquet"
    df.to_parquet(path)
    pd.concat([df, df.iloc[[3]]]).to_parquet(tmp_path / "d.parquet")
    with pytest.raises(BenchkitValueError, match="model 'model-4', item 'item-3' repeats sample 0"):
        read_parquet(tmp_path / "d.parquet", aggregate=True, engine=engine)
    rs = read_parquet(path, aggregate=True, engine=engine)
    assert rs.T == 2
    np.testing.assert_array_equal(rs.counts().K, ResponseSet.from_long(df).counts().K)


@pytest.mark.parametrize("engine", ["duckdb", "pyarrow"])
def test_parquet_errors(tmp_path, frame, engine):
    bad = frame.copy()
    bad.loc[3, "correct"] = 2
    bad.to_parquet(tmp_path / "bad.parquet")
    msg = r"aggregate=True needs 0/1 correctness; model 'model-4', item 'item-3' has 2"
    with pytest.raises(BenchkitValueError, match=msg):
        read_parquet(tmp_path / "bad.parquet", engine=engine)
    dup = pd.concat([frame, frame.iloc[[5]]])
    dup.to_parquet(tmp_path / "dup.parquet")
    with pytest.raises(BenchkitValueError, match=r"duplicate rows .* item 'item-5' has 2 rows"):
        read_parquet(tmp_path / "dup.parquet", engine=engine)
    nulls = frame.astype({"model": object})
    nulls.loc[0, "model"] = None
    nulls.to_parquet(tmp_path / "null.parquet")
    with pytest.raises(BenchkitValueError, match=r"column 'model' has 1 missing value"):
        read_parquet(tmp_path / "null.parquet", engine=engine)
    with pytest.raises(BenchkitValueError, match="does not exist"):
        read_parquet(tmp_path / "nope.parquet")
    with pytest.raises(BenchkitTypeError, match=r"unexpected option\(s\) \['bogus'\]"):
        read_parquet(_write(tmp_path, frame), bogus=1, engine=engine)
    with pytest.raises(BenchkitValueError, match="engine='arrow' is not allowed"):
        read_parquet(_write(tmp_path, frame), engine="arrow")
    with pytest.raises(BenchkitValueError, match="aggregate='yes' is not allowed"):
        read_parquet(_write(tmp_path, frame), aggregate="yes")


def _write(tmp_path, frame):
    p = tmp_path / "ok.parquet"
    frame.to_parquet(p)
    return p


def test_parquet_unequal_budget_message(tmp_path, frame):
    df = pd.concat([frame.assign(sample=0), frame.assign(sample=1)]).iloc[:-1]
    df.to_parquet(tmp_path / "u.parquet")
    with pytest.raises(BenchkitValueError, match="sample budget differs across models"):
        read_parquet(tmp_path / "u.parquet", aggregate=True)
    rs = read_parquet(tmp_path / "u.parquet", aggregate=True, drop_incomplete=True)
    assert rs.report.n_cells == 1


def test_csv_long_wide_counts(tmp_path, frame):
    frame.to_csv(tmp_path / "long.csv", index=False)
    rs = read_csv(tmp_path / "long.csv")
    ref = ResponseSet.from_long(frame)
    np.testing.assert_array_equal(rs.counts().K, ref.counts().K)
    wide = frame.pivot(index="item", columns="model", values="correct").reset_index()
    wide.to_csv(tmp_path / "wide.csv", index=False)
    rw = read_csv(tmp_path / "wide.csv", layout="wide")
    assert rw.counts().K.sum() == ref.counts().K.sum()
    counts = frame.rename(columns={"correct": "n_correct"}).assign(n_samples=1)
    counts.to_csv(tmp_path / "counts.csv", index=False)
    rc = read_csv(tmp_path / "counts.csv", layout="counts")
    np.testing.assert_array_equal(rc.counts().K, ref.counts().K)
    with pytest.raises(BenchkitValueError, match="layout='tall' is not allowed"):
        read_csv(tmp_path / "long.csv", layout="tall")


def test_duckdb_table_and_query(frame):
    con = duckdb.connect()
    con.register("responses", frame)
    rs = read_duckdb("responses", connection=con, aggregate=True)
    assert sorted(rs.model_ids) == sorted(frame["model"].unique())
    q = read_duckdb("SELECT * FROM responses WHERE model <> 'model-0'", connection=con)
    assert q.n_models == 4
    with pytest.raises(BenchkitValueError, match="could not be read by DuckDB"):
        read_duckdb("no_such_table", connection=con)
    with pytest.raises(BenchkitTypeError, match="connection must be a duckdb connection"):
        read_duckdb("responses", connection="x")


@pytest.mark.parametrize("engine", ["pyarrow", "duckdb"])
def test_streamed_counts_over_row_groups_and_rosters(tmp_path, engine):
    # issue 25: batches scatter-added into uint8 counts, one lookup table per dictionary page.
    # Oracle: the same rows through ResponseSet.from_long. Row groups of 4 models (items shuffled
    # within each), models listed twice with different dictionaries, missing cells, explicit
    # rosters in another order.
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(3)
    items = [f"q{i}" for i in range(37)]
    frames = []
    for g in range(6):
        ms = [f"m{(4 * g + k) % 18}" for k in range(4)]  # m0..m17, then m0.. again with new items
        f = pd.DataFrame({"model": np.repeat(ms, len(items)), "item": np.tile(rng.permutation(items), 4),
                          "correct": rng.integers(0, 2, 4 * len(items)).astype(np.int8)})
        if g >= 4:
            f = f[f["item"].isin(items[:5])].assign(item=lambda d: d["item"] + "x")  # new items
        frames.append(f.sample(frac=0.9, random_state=g))  # missing cells
    path = tmp_path / "rg.parquet"
    schema = pa.schema([("model", pa.string()), ("item", pa.string()), ("correct", pa.int8())])
    with pq.ParquetWriter(path, schema) as w:
        for f in frames:
            w.write_table(pa.Table.from_pandas(f, schema=schema, preserve_index=False))
    df = pd.concat(frames, ignore_index=True)
    ref = ResponseSet.from_long(df)
    got = read_parquet(path, engine=engine)
    assert list(got.model_ids) == list(ref.model_ids)
    assert list(got.item_ids) == list(ref.item_ids)
    assert got._K.dtype == np.uint8  # 1 byte a cell while reading
    np.testing.assert_array_equal(got.counts().K, ref.counts().K)
    np.testing.assert_array_equal(got.counts().N, ref.counts().N)
    assert got.counts().K.dtype == np.int64
    models = pd.DataFrame(index=pd.Index(sorted(ref.model_ids)[::-1], name="model"))
    it = pd.DataFrame(index=pd.Index(sorted(ref.item_ids), name="item"))
    ro = read_parquet(path, engine=engine, models=models, items=it)
    rr = ResponseSet.from_long(df, models=models, items=it)
    assert list(ro.model_ids) == list(rr.model_ids)
    np.testing.assert_array_equal(ro.counts().K, rr.counts().K)
    np.testing.assert_array_equal(ro.counts().N, rr.counts().N)
