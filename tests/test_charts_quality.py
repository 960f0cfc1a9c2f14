"""benchkit.charts.quality: the chart data are the numbers of benchkit.quality results (checked
against the result's own tables and scipy), and each chart renders through vl-convert."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from benchkit import ResponseSet
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit.charts.quality import family_cad_chart  # Altair is imported inside each chart function
from benchkit.charts.quality import kendall_heatmap_chart  # Altair is imported inside each chart function
from benchkit.charts.quality import selection_curve_chart  # Altair is imported inside each chart function
from benchkit.quality import assess
from benchkit.quality.steps import band
from benchkit.quality.steps import selection_sweep

alt = pytest.importorskip("altair")
vlc = pytest.importorskip("vl_convert")

MODELS = ["Qwen2.5-72B-Instruct", "Qwen2.5-32B-Instruct", "Qwen2.5-7B-Instruct",
          "gemma-2-27b-it", "gemma-2-9b-it", "gemma-2-2b-it"]


def _bench(seed, n_items, name):
    rng = np.random.default_rng(seed)
    ability = np.linspace(1.5, -1.0, len(MODELS)) + rng.normal(0, 0.4, len(MODELS))
    p = 1 / (1 + np.exp(-(ability[None, :] - rng.normal(0, 1, n_items)[:, None])))
    Y = (rng.random(p.shape) < p).astype(float)
    return ResponseSet.from_wide(pd.DataFrame(Y, index=[f"{name}-{i}" for i in range(n_items)],
                                              columns=MODELS), name=name)


@pytest.fixture(scope="module")
def result():
    sets = {"A": _bench(1, 50, "A"), "B": _bench(2, 40, "B"), "C": _bench(3, 45, "C")}
    return assess(sets, domains={"A": "x", "B": "x", "C": "x"}, n_resamples=0, progress=False)


def _values(chart) -> list[dict]:
    spec = chart.to_dict()
    return [r for vals in spec["datasets"].values() for r in vals]


def _renders(chart):
    svg = vlc.vegalite_to_svg(chart.to_dict())
    assert svg.startswith("<svg")
    assert "<text" in svg


def test_kendall_heatmap_values_are_scipy_tau(result):
    ch = kendall_heatmap_chart(result)
    vals = [r for r in _values(ch) if "tau" in r]
    assert len(vals) == 9
    means = result.scores.loc[["A", "B", "C"]]
    for r in vals:
        # scipy oracle on the two benchmarks' mean scores over the shared models
        want = kendalltau(means.loc[r["row"]], means.loc[r["column"]]).statistic
        assert r["tau"] == pytest.approx(want, abs=1e-12)
        assert r["label"] == f"{want:.2f}"
    _renders(ch)


def test_family_cad_chart_matches_table7(result):
    ch = family_cad_chart(result)
    vals = [r for r in _values(ch) if "family" in r]
    t7 = result.families_frame()
    assert {(r["benchmark"], r["family"]) for r in vals} == {
        (b, f) for b in t7.index for f in t7.columns if not np.isnan(t7.at[b, f])}
    # faceted by benchmark: the layers have no data of their own, so each facet is filtered
    spec = ch.to_dict()
    assert spec["facet"]["row"]["field"] == "benchmark"
    assert all("data" not in layer for layer in spec["spec"]["layer"])
    for r in vals:
        s = t7.at[r["benchmark"], r["family"]]
        assert r["score"] == pytest.approx(s, abs=1e-15)
        assert r["band"] == band("cad", s)
        assert r["score"] == pytest.approx(np.exp(-12.0 * r["rate"]), abs=1e-12)  # Eq. 6
    _renders(ch)
    _renders(family_cad_chart(result, benchmarks="B"))


def test_selection_curve_is_the_sweep(result):
    curve = selection_sweep(result, ratios=(0.2, 0.5, 1.0), n_rep=10, rng=0, progress=False)
    ch = selection_curve_chart(curve)
    vals = _values(ch)
    mean = curve[curve["benchmark"] == "mean"].set_index("ratio")
    assert len(vals) == 9
    key = {"Kendall τ to full": "tau", "stability": "stability", "DS": "ds"}
    for r in vals:
        assert r["value"] == pytest.approx(mean.at[r["ratio"], key[r["metric"]]], abs=1e-15)
    # at ratio 1 the subset is the benchmark: tau to the full ranking is 1
    assert mean.at[1.0, "tau"] == pytest.approx(1.0)
    _renders(ch)
    many = selection_curve_chart(curve, benchmarks=None, metrics=("tau",))
    assert {r["benchmark"] for r in _values(many)} == {"A", "B", "C"}
    _renders(many)


def test_chart_errors(result):
    with pytest.raises(BenchkitTypeError, match="QualityResult"):
        kendall_heatmap_chart(result.table)
    with pytest.raises(BenchkitTypeError, match="selection_sweep"):
        selection_curve_chart([1, 2])
    with pytest.raises(ValueError, match="benchmarks"):
        family_cad_chart(result, benchmarks="nope")
    with pytest.raises(ValueError, match="domain"):
        kendall_heatmap_chart(result, domain="nope")
    single = assess({"A": _bench(1, 50, "A")}, domains={"A": "x"}, n_resamples=0,
                    progress=False)
    with pytest.raises(BenchkitValueError, match="two or more"):
        kendall_heatmap_chart(single)
