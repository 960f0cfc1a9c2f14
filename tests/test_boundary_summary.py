"""Benchmark-level diagnosis (Sec. 3.3, Table 1) against numpy computations of the definitions."""
import numpy as np
import pandas as pd
import pytest

import benchkit.boundary as bb
from benchkit import ResponseSet


@pytest.fixture(scope="module")
def table():
    return bb.steps.get_calibration(4, 10)  # shipped: lookup only


def test_summary_matches_numpy(table):
    rng = np.random.default_rng(5)
    theta = np.sort(rng.random((400, 4)), axis=1)
    theta[::4] = rng.random((100, 4))
    k = rng.binomial(10, theta)
    k[:20] = 0  # flat items
    p = bb.steps.profiles(k, 10, calibration=table)
    s = bb.steps.summarize_profiles(p, bins=5, benchmark="b", axis="a")
    pos = ~p.flat
    assert s.n_items == 400
    assert s.n_positive == pos.sum()
    assert s.n_flat == p.flat.sum()
    assert s.flat_share == pytest.approx(p.flat.mean())
    assert s.anomaly_rate == pytest.approx(p.flagged.mean())  # all items, Table 1
    assert s.x_mean == pytest.approx(p.x[pos].mean())
    assert s.w_median == pytest.approx(np.median(p.w[pos]))
    assert s.x_vmean == pytest.approx(np.average(p.x[pos], weights=p.v[pos]))
    assert s.w_vmean == pytest.approx(np.average(p.w[pos], weights=p.v[pos]))
    assert s.v_mean == pytest.approx(p.v.mean())
    assert s.v_mean_positive == pytest.approx(p.v[pos].mean())
    h, _ = np.histogram(p.x[pos], bins=np.linspace(0, 1, 6))
    np.testing.assert_allclose(s.hist["x"], h / h.sum())
    hv, _ = np.histogram(p.w[pos], bins=np.linspace(0, 1, 6), weights=p.v[pos])
    np.testing.assert_allclose(s.hist["w_v"], hv / hv.sum())
    d = s.distribution_frame()
    assert set(d["quantity"]) == {"x", "w", "v"}
    assert set(d["weighting"]) == {"count", "v"}
    np.testing.assert_allclose(d.groupby(["quantity", "weighting"])["share"].sum(), 1.0)
    assert s.to_frame().shape[0] == 1


def test_zero_weight_gives_no_weighted_distribution(table):
    # gamma > 0 always, so zero total v needs every positive item to have e_hi = 1
    k = np.array([[0, 0, 5, 10], [0, 5, 5, 10], [3, 3, 3, 3]])
    p = bb.steps.profiles(k, 10, entropy=np.ones((3, 4)), calibration=table)
    s = bb.steps.summarize_profiles(p)
    assert s.hist["x_v"] is None
    assert np.isnan(s.x_vmean)
    assert s.hist["x"] is not None


def test_diagnose_table1_layout():
    rng = np.random.default_rng(1)
    rows = []
    for b, shift in (("easy", 1.5), ("hard", -1.5)):
        for q in range(60):
            d = rng.normal()
            for j, m in enumerate(["s1", "s2", "s3", "s4"]):
                pr = 1 / (1 + np.exp(-(j - 1.5 + shift - d)))
                rows.append((m, f"{b}{q}", int(rng.binomial(10, pr)), 10, b))
    fr = pd.DataFrame(rows, columns=["model", "item", "n_correct", "n_samples", "benchmark"])
    items = fr[["item", "benchmark"]].drop_duplicates()
    rs = ResponseSet.from_counts(fr.drop(columns="benchmark"), items=items, parse_names=False)
    dg = bb.diagnose(rs, axes={"acc": None, "rev": ["s4", "s3", "s2", "s1"]})
    t1 = dg.table1()
    assert list(t1.index) == ["easy", "hard"]
    assert list(t1.columns) == ["acc", "rev"]
    # oracle: each cell is 100 x the flagged share of profile on that benchmark
    sub = rs.select(benchmark="hard")
    direct = bb.profile(sub, axis=["s4", "s3", "s2", "s1"])
    assert t1.loc["hard", "rev"] == pytest.approx(100 * direct.profile.flagged.mean())
    assert t1.loc["easy", "rev"] > t1.loc["easy", "acc"]  # the reversed axis is anomalous
    full = dg.to_frame()
    assert len(full) == 4
    assert {"x_mean", "w_mean", "v_mean", "flat_share"} <= set(full.columns)
    assert len(dg.distribution_frame()) > 0
    with pytest.raises(ValueError, match="value='nope' is not a summary column"):
        dg.table1(value="nope")
    with pytest.raises(TypeError, match="axes must be a dict"):
        bb.diagnose(rs, axes=["s1", "s2"])
