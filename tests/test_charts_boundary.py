"""Tests for benchkit.charts.boundary: chart data against independent computations."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchkit.boundary.steps import exact_calibration
from benchkit.boundary.steps import get_calibration
from benchkit.boundary.steps import profiles
from benchkit.charts import boundary as cb

pytest.importorskip("altair")


@pytest.fixture(scope="module")
def prof():
    rng = np.random.default_rng(7)
    K = rng.integers(0, 11, size=(80, 4))
    K[0] = [0, 3, 7, 10]     # clean increasing item (hand-worked below)
    K[1] = [5, 5, 5, 5]      # flat: Delta = 0
    return profiles(K, 10, items=[f"q{i}" for i in range(80)])


def _spec_datasets(chart):
    spec = chart.to_dict()
    return spec, spec.get("datasets", {})


def test_trajectory_frame_hand_worked(prof):
    # K = (0, 3, 7, 10) of T = 10 is monotone: fit = c = (0, .3, .7, 1), s = (0, 1/3, 2/3, 1).
    # Delta = 1; targets .25, .5, .75: linear interpolation by hand
    #   .25 in [0, .3] on [0, 1/3]: s = (.25/.3)/3;  .5 in [.3, .7]: s = 1/3 + (.2/.4)/3
    #   .75 in [.7, 1]: s = 2/3 + (.05/.3)/3.  H = {s_i >= Q_.75} = {s_4 = 1}.
    fr = cb.trajectory_frames(prof, "q0", models=["a", "b", "c", "d"])
    pts = fr["points"]
    np.testing.assert_allclose(pts["position"], [0, 1 / 3, 2 / 3, 1])
    np.testing.assert_allclose(pts["c"], [0, 0.3, 0.7, 1.0])
    np.testing.assert_allclose(pts["fit"], [0, 0.3, 0.7, 1.0])
    assert list(pts["model"]) == ["a", "b", "c", "d"]
    q = fr["crossings"].set_index("alpha")["Q"]
    np.testing.assert_allclose(q[0.25], (0.25 / 0.3) / 3, atol=1e-12)
    np.testing.assert_allclose(q[0.5], 1 / 3 + 0.5 / 3, atol=1e-12)
    np.testing.assert_allclose(q[0.75], 2 / 3 + (0.05 / 0.3) / 3, atol=1e-12)
    assert fr["high"].iloc[0].tolist() == [1.0, 1.0]
    assert fr["numbers"].index[0] == "q0"


def test_trajectory_frame_flat_and_rows(prof):
    fr = cb.trajectory_frames(prof, 1)
    assert fr["crossings"].empty
    assert fr["high"].empty
    np.testing.assert_allclose(fr["points"]["fit"], 0.5)
    # row index and label agree; the fit equals scipy's isotonic regression (independent PAVA)
    from scipy.optimize import isotonic_regression

    for r in (2, 17, 55):
        a = cb.trajectory_frames(prof, r)["points"]
        b = cb.trajectory_frames(prof, f"q{r}")["points"]
        pd.testing.assert_frame_equal(a, b)
        np.testing.assert_allclose(a["fit"], isotonic_regression(prof.counts[r] / 10).x, atol=1e-12)


def test_trajectory_errors(prof):
    with pytest.raises(ValueError, match="out of range"):
        cb.trajectory_frames(prof, 500)
    with pytest.raises(ValueError, match="not among"):
        cb.trajectory_frames(prof, "nope")
    with pytest.raises(ValueError, match="must name the 4"):
        cb.trajectory_frames(prof, 0, models=["a"])
    with pytest.raises(TypeError, match="ProfileResult"):
        cb.trajectory_frames(np.zeros(3), 0)


def test_trajectory_chart_spec(prof):
    chart = cb.trajectory_chart(prof, ["q0", 5], models=list("abcd"))
    spec, data = _spec_datasets(chart)
    assert len(spec["hconcat"]) == 2
    # the first panel's title carries the item's numbers, on a second line (narrow panels)
    assert spec["hconcat"][0]["title"][0] == "q0:"
    assert spec["hconcat"][0]["title"][1].startswith("x=0.50")
    # the long data of the q0 panel holds c, fit and entropy for each model
    vals = [v for d in data.values() for v in d if v.get("series") == "isotonic fit"]
    assert sorted(round(v["value"], 6) for v in vals[:4]) == [0, 0.3, 0.7, 1.0]


def test_distribution_frame_independent(prof):
    df = cb.distribution_frame({"A": prof}, bins=5)
    pos = ~prof.flat
    for var, sel in (("x", pos), ("w", pos), ("v", np.ones_like(pos))):
        vals = getattr(prof, var)[sel]
        # independent binning: floor(5 v), the right edge 1.0 into the last bin
        idx = np.minimum(np.floor(vals * 5).astype(int), 4)
        expected = np.bincount(idx, minlength=5)
        got = df[(df.variable == var) & (df.weighting == "items")]
        np.testing.assert_array_equal(got["count"].to_numpy(), expected)
        np.testing.assert_allclose(got["share"].sum(), 1.0)
        assert (got["n_items"] == sel.sum()).all()
        if var != "v":
            wexp = np.bincount(idx, weights=prof.v[sel], minlength=5)
            gw = df[(df.variable == var) & (df.weighting == "v-weighted")]
            np.testing.assert_allclose(gw["count"].to_numpy(), wexp, atol=1e-12)
            np.testing.assert_allclose(gw["share"].to_numpy(), wexp / wexp.sum(), atol=1e-12)
    assert not ((df.variable == "v") & (df.weighting == "v-weighted")).any()


def test_distribution_no_weight():
    # every item flat except one with v = 0 (gamma > 0 but entropy 1 on the high side is not
    # reachable here, so use an all-flat set): no v-weighted rows, x/w shares NaN-free but empty
    K = np.array([[3, 3, 3], [0, 0, 0], [10, 10, 10]])
    p = profiles(K, 10)
    df = cb.distribution_frame(p, bins=4)
    assert (df[df.variable.isin(["x", "w"])]["count"] == 0).all()
    assert df[df.variable.isin(["x", "w"])]["share"].isna().all()
    assert "v-weighted" not in set(df.weighting)
    np.testing.assert_array_equal(df[df.variable == "v"]["count"], [3, 0, 0, 0])
    with pytest.raises(ValueError, match="bins"):
        cb.distribution_frame(p, bins=0)


def test_distribution_chart_spec(prof):
    chart = cb.distribution_chart({"A": prof, "B": prof}, bins=4)
    spec = chart.to_dict()
    assert spec["facet"]["row"]["field"] == "condition"
    data = next(iter(spec["datasets"].values()))
    assert {d["condition"] for d in data} == {"A", "B"}
    assert len(data) == len(cb.distribution_frame({"A": prof, "B": prof}, bins=4))


def test_calibration_frame_vs_lookup():
    mc, ex = get_calibration(3, 10), exact_calibration(3, 10)
    df = cb.calibration_frame({"mc": mc, "exact": ex})
    for lab, tb in (("mc", mc), ("exact", ex)):
        sub = df[df.table == lab]
        # the step values are the table's own lookups at the atoms
        np.testing.assert_allclose(sub["o"].to_numpy(), tb.score(sub["D"].to_numpy()), rtol=1e-12)
        assert sub["o"].iloc[0] == 1.0
        assert sub["D"].iloc[0] == 0.0
    # Monte Carlo scores never fall below the add-one minimum 1/(B+1) (Eq. 19)
    assert df[df.table == "mc"]["o"].min() >= 1 / (mc.n_resamples + 1) - 1e-15
    spec = cb.calibration_chart({"mc": mc, "exact": ex}).to_dict()
    assert spec["layer"][0]["encoding"]["y"]["scale"]["type"] == "log"
    with pytest.raises(TypeError, match="CalibrationTable"):
        cb.calibration_frame({"x": 1})


def test_rate_chart():
    fr = pd.DataFrame({"k": ["a", "b"], "rate": [0.04, 0.01], "n": [400, 100]})
    spec = cb.rate_chart(fr, category="k").to_dict()
    data = [d for v in spec["datasets"].values() for d in v if "lo" in d]
    se = np.sqrt(0.04 * 0.96 / 400)
    np.testing.assert_allclose(data[0]["hi"], 0.04 + 2 * se)
    # the dashed reference line sits at `reference` (default 0.05) and is absent with None
    levels = [d["level"] for v in spec["datasets"].values() for d in v if "level" in d]
    assert levels == [0.05]
    spec = cb.rate_chart(fr, category="k", reference=0.1).to_dict()
    assert [d["level"] for v in spec["datasets"].values() for d in v if "level" in d] == [0.1]
    spec = cb.rate_chart(fr, category="k", reference=None).to_dict()
    assert not [d for v in spec["datasets"].values() for d in v if "level" in d]
    with pytest.raises(ValueError, match="no column"):
        cb.rate_chart(fr, category="missing")


def test_trajectory_frame_names_models_from_the_profile():
    # profiles(models=...) stores the axis names; charts use them without models= by hand
    K = np.array([[0, 2, 5, 9], [1, 1, 2, 2]])
    p = profiles(K, 10, models=["tiny", "small", "base", "large"])
    assert cb.trajectory_frames(p, 0)["points"]["model"].tolist() == ["tiny", "small", "base", "large"]
    assert cb.trajectory_frames(p, 0, models=list("abcd"))["points"]["model"].tolist() == list("abcd")
