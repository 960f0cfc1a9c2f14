"""Tests of benchkit.charts.landscape: binned landscape counts against numpy.histogram2d and the
chart specs' data against the points they were given."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchkit.charts import landscape as cl
from benchkit.landscape.steps import model_table
from benchkit.landscape.steps import points


def _pts(n=600, seed=3):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, 4)) * 2
    meta = pd.DataFrame({"model": np.where(np.arange(n) % 3 == 0, "m1", "m2"),
                         "benchmark": np.where(np.arange(n) % 2 == 0, "arc", "mmlu"),
                         "item": [f"i{j // 3}" for j in range(n)]})
    return points(logits, kind="logits", meta=meta, answer=rng.integers(0, 4, size=n))


def test_landscape_frame_matches_histogram2d():
    pts = _pts()
    f = pts.to_frame()
    for bins in (1, 7, 25):
        d = cl.landscape_frame(pts, by="model", bins=bins)
        for m, g in f.groupby("model"):
            # oracle: numpy.histogram2d on [0, 1]^2 (last bin closed)
            H, _, _ = np.histogram2d(g["p_top1"], g["h_norm"], bins=bins, range=[[0, 1], [0, 1]])
            got = np.zeros((bins, bins))
            dm = d[d["model"] == m]
            got[np.rint(dm["p_lo"] * bins).astype(int), np.rint(dm["h_lo"] * bins).astype(int)] = \
                dm["count"]
            np.testing.assert_array_equal(got, H)
            assert dm["share"].sum() == pytest.approx(1.0)
    # value exactly 1 goes into the last bin, as in histogram2d
    edge = pd.DataFrame({"p_top1": [1.0, 0.5], "h_norm": [0.0, 1.0]})
    d = cl.landscape_frame(edge, bins=4)
    assert d[["p_lo", "h_lo"]].values.tolist() == [[0.5, 0.75], [0.75, 0.0]]


def test_landscape_chart_scatter_and_density():
    pts = _pts()
    ch = cl.landscape_chart(pts, facet="benchmark", color="correct")
    spec = ch.to_dict()
    assert spec["facet"]["field"] == "benchmark"
    assert spec["spec"]["mark"]["type"] == "circle"
    vals = next(iter(spec["datasets"].values()))
    assert len(vals) == len(pts)  # all 600 points, below max_points
    assert sorted({round(v["p_top1"], 12) for v in vals}) == \
        sorted({round(v, 12) for v in pts.p_top1})
    sub = cl.landscape_chart(pts, max_points=100, density=False, facet="model").to_dict()
    vals = next(iter(sub["datasets"].values()))
    assert len(vals) == 200
    assert "up to 100 points" in sub["title"]
    # the subsample is drawn from rng (default 0): same rng, same points; another rng, others
    same = cl.landscape_chart(pts, max_points=100, density=False, facet="model", rng=0).to_dict()
    other = cl.landscape_chart(pts, max_points=100, density=False, facet="model", rng=1).to_dict()
    assert next(iter(same["datasets"].values())) == vals
    assert next(iter(other["datasets"].values())) != vals
    dens = cl.landscape_chart(pts, max_points=100).to_dict()  # auto: 600 > 100 -> density
    assert dens["mark"]["type"] == "rect"
    vals = next(iter(dens["datasets"].values()))
    assert sum(v["count"] for v in vals) == 600


def test_mpd_heatmap_cells_are_the_table():
    pts = _pts()
    t = model_table(pts)
    spec = cl.mpd_heatmap(t, title="Table 7").to_dict()
    vals = next(iter(spec["datasets"].values()))
    got = {(v["row"], v["column"]): v["MPD"] for v in vals}
    for m in t.index:
        for b in t.columns:
            assert got[(m, b)] == pytest.approx(t.loc[m, b], abs=1e-15)
    assert spec["title"] == "Table 7"


def test_errors():
    with pytest.raises(TypeError, match="LandscapePoints or a DataFrame"):
        cl.landscape_chart(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="h_norm"):
        cl.landscape_frame(pd.DataFrame({"p_top1": [0.5]}))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        cl.landscape_frame(pd.DataFrame({"p_top1": [1.5], "h_norm": [0.1]}))
    with pytest.raises(ValueError, match="bins"):
        cl.landscape_frame(_pts(), bins=0)
    with pytest.raises(ValueError, match="empty"):
        cl.mpd_heatmap(pd.DataFrame())
