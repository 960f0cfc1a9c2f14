"""Paper 003: Fig. 2's per-item averaging and the three readings of MPD in one table.

Oracle: scipy.spatial.distance.pdist (mean of all pairwise Euclidean distances) on points built
by hand with pandas groupby; a hand-worked 2-item, 2-model case.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import pdist

from benchkit.landscape.steps import average_over_models
from benchkit.landscape.steps import mpd_readings


def _frame(seed=0, items=40, models=("m1", "m2", "m3"), benchmarks=("arc", "mmlu")):
    rng = np.random.default_rng(seed)
    rows = []
    for b in benchmarks:
        for i in range(items):
            for m in models:
                rows.append((b, f"{b}{i}", m, rng.uniform(0.25, 1), rng.uniform(0, 1)))
    return pd.DataFrame(rows, columns=["benchmark", "item", "model", "p_top1", "h_norm"])


def test_hand_worked_two_items_two_models():
    # item a: (1, 0) and (0, 0) -> mean (0.5, 0); item b: (1, 1) and (1, 0) -> mean (1, 0.5)
    f = pd.DataFrame({"item": ["a", "a", "b", "b"], "model": ["x", "y", "x", "y"],
                      "p_top1": [1.0, 0.0, 1.0, 1.0], "h_norm": [0.0, 0.0, 1.0, 0.0]})
    avg = average_over_models(f, by=None)
    np.testing.assert_allclose(avg[["p_top1", "h_norm"]].to_numpy(), [[0.5, 0.0], [1.0, 0.5]])
    assert avg["n_models"].tolist() == [2, 2]
    t = mpd_readings(f, by=None).to_frame().iloc[0]
    # pooled: 4 points (1,0),(0,0),(1,1),(1,0): distances 1, 1, 0, sqrt2, 1, 1 -> (4 + sqrt2)/6
    assert t["pooled"] == pytest.approx((4 + np.sqrt(2)) / 6, abs=1e-14)
    assert t["item_averaged"] == pytest.approx(np.hypot(0.5, 0.5), abs=1e-14)
    # per model: x has (1,0),(1,1): 1; y has (0,0),(1,0): 1 -> mean 1
    assert t["mean_per_model"] == pytest.approx(1.0, abs=1e-14)
    assert (t["points"], t["items"], t["models"]) == (4, 2, 2)


def test_three_readings_equal_pdist():
    f = _frame()
    r = mpd_readings(f)
    tab = r.to_frame()
    assert list(tab.columns) == ["pooled", "item_averaged", "mean_per_model", "points", "items",
                                 "models"]
    for b, g in f.groupby("benchmark"):
        xy = g[["p_top1", "h_norm"]].to_numpy()
        assert tab.loc[b, "pooled"] == pytest.approx(pdist(xy).mean(), rel=1e-12)
        av = g.groupby("item")[["p_top1", "h_norm"]].mean().to_numpy()
        assert tab.loc[b, "item_averaged"] == pytest.approx(pdist(av).mean(), rel=1e-12)
        per = [pdist(gm[["p_top1", "h_norm"]].to_numpy()).mean() for _, gm in g.groupby("model")]
        assert tab.loc[b, "mean_per_model"] == pytest.approx(np.mean(per), rel=1e-12)
        np.testing.assert_allclose(r.per_model.loc[b].to_numpy(), per, rtol=1e-12)
        assert tab.loc[b, "points"] == 120
    # averaging over models shrinks independent noise: the averaged cloud is tighter
    assert (tab["item_averaged"] < tab["pooled"]).all()


def test_average_over_models_partial_items_and_errors():
    f = _frame(items=3).iloc[:-1]  # the last item lost one model
    avg = average_over_models(f)
    assert avg["n_models"].tolist() == [3, 3, 3, 3, 3, 2]
    with pytest.raises(ValueError, match="missing required column"):
        mpd_readings(f.drop(columns="model"))
    with pytest.raises(TypeError, match="expected a DataFrame"):
        average_over_models(np.zeros((3, 2)))
