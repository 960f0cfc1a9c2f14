"""benchkit.charts.dif: Figures 1-3 of paper 001 as Altair charts. Oracles: the view models of
benchkit.dif.explore and the ContentAudit tables the charts lay out; each chart also renders to SVG
through vl-convert (a spec error would raise)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_dif_replication import BINARY_AXES
from test_dif_replication import _annotations

from benchkit import charts
from benchkit.dif import analyze_robustness
from benchkit.dif.explore import reversal_curve_view
from benchkit.dif.explore import robustness_forest_view
from benchkit.dif.steps import analyze_annotations
from benchkit.dif.steps import content_sample

vlc = pytest.importorskip("vl_convert")


@pytest.fixture(scope="module")
def rs(dif_sim_rs):
    return dif_sim_rs[1]


@pytest.fixture(scope="module")
def selected(dif_selected):
    return dif_selected  # tests/conftest.py: dif_result with K selected in each half (grid 1-8)


@pytest.fixture(scope="module")
def result(dif_result):
    return dif_result  # tests/conftest.py: audit_rankings(rs, min_family_size=10, K=(4, 4), rng=3), reduced


def _data(chart, column: str) -> pd.DataFrame:
    """The chart's dataset holding ``column`` (layers also carry small rule datasets)."""
    spec = chart.to_dict()
    (values,) = [v for v in spec["datasets"].values() if v and column in v[0]]
    return pd.DataFrame(values)


def test_figure1_plots_the_reversal_curve_view(result):
    ch = charts.dif.reversal_curve_chart({"one": result, "two": result})
    d = _data(ch, "low_dif_rate_pct")
    ref = reversal_curve_view(result)
    assert d["benchmark"].tolist() == ["one"] * 6 + ["two"] * 6
    np.testing.assert_allclose(d["low_dif_rate_pct"][:6], 100 * ref["low_dif_rate"], rtol=1e-12)
    np.testing.assert_allclose(d["random_high_pct"][:6], 100 * ref["random_high"], rtol=1e-12)
    assert (d["significance"][:6] == np.where(ref["p_value"] <= 0.05, "p ≤ .05", "p > .05")).all()
    assert vlc.vegalite_to_svg(ch.to_json()).startswith("<svg")
    # many benchmarks wrap, three panels to a row by default (five in a row were unreadably wide)
    five = charts.dif.reversal_curve_chart({str(k): result for k in range(5)}).to_dict()
    assert five["columns"] == 3
    assert five["facet"]["field"] == "benchmark"
    assert charts.dif.reversal_curve_chart({"a": result, "b": result}, columns=1).to_dict()["columns"] == 1
    with pytest.raises(ValueError, match="columns"):
        charts.dif.reversal_curve_chart({"a": result, "b": result}, columns=0)
    with pytest.raises(TypeError, match=r"expected a benchkit.dif.RankingAudit.*got DataFrame"):
        charts.dif.reversal_curve_chart(result.to_frame())


def test_figure2_plots_the_forest_rows(rs, result):
    table = analyze_robustness(rs, result, perturbations={"owner cap 3": {"owner_cap": 3}}, n_controls=20,
                               rng=1, progress=False)
    ch = charts.dif.robustness_forest_chart({"sim": table, "again": table})  # faceted
    d = _data(ch, "variant")
    ref = robustness_forest_view(table, benchmark="sim")
    assert d["variant"].tolist() == ref["variant"].tolist() * 2
    np.testing.assert_allclose(d["excess_pp"][:2], ref["excess_pp"], rtol=1e-12)
    assert vlc.vegalite_to_svg(ch.to_json()).startswith("<svg")
    assert ch.to_dict()["columns"] == 2  # two panels to a row
    with pytest.raises(TypeError, match=r"tables must be a DataFrame"):
        charts.dif.robustness_forest_chart([table])


def test_figure3_plots_paired_differences():
    rng = np.random.default_rng(3)
    n = 400
    cells = rng.integers(0, 8, n)
    hD = rng.random(n) < 0.3
    hV = hD & (rng.random(n) < 0.9)
    _sheet, key = content_sample(hD, hV, cells, [f"i{i}" for i in range(n)], benchmark="b", n_pairs=50, rng=0)
    ann = _annotations(key, "negation", 0.35, 0.0, rng)
    res = analyze_annotations(key, ann, ann, min_benchmarks=1)
    ch = charts.dif.content_audit_chart(res)
    d = _data(ch, "d_pp")
    assert set(d["axis"]) == set(BINARY_AXES)
    np.testing.assert_allclose(d["d_pp"], 100 * res.binary["d"], rtol=1e-12)
    assert vlc.vegalite_to_svg(ch.to_json()).startswith("<svg")
    with pytest.raises(TypeError, match=r"audit must be a benchkit.dif ContentAudit"):
        charts.dif.content_audit_chart(res.binary)


def test_figure1_as_the_paper_draws_it_plots_the_excess(result):
    ch = charts.dif.excess_curve_chart({"one": result, "two": result})
    d = _data(ch, "excess_pp")
    ref = reversal_curve_view(result)
    assert d["benchmark"].tolist() == ["one"] * 6 + ["two"] * 6
    np.testing.assert_allclose(d["excess_pp"][:6], ref["excess_pp"], rtol=1e-12)
    np.testing.assert_allclose(d["band_high_pp"][:6], 100 * (ref["random_high"] - ref["random_median"]),
                               rtol=1e-12, atol=1e-12)
    assert (d["significance"][:6] == np.where(ref["p_value"] <= 0.05, "p ≤ .05", "p > .05")).all()
    assert vlc.vegalite_to_svg(ch.to_json()).startswith("<svg")


def test_dimension_selection_chart_plots_the_loss_curves(result, selected):
    ch = charts.dif.dimension_selection_chart({"sim": selected, "again": selected})
    d = _data(ch, "mean_loss")
    from benchkit.dif.explore import dimension_selection_view

    ref = dimension_selection_view(selected)
    np.testing.assert_allclose(d["mean_loss"][:len(ref)], ref["mean_loss"], rtol=1e-12)
    np.testing.assert_allclose(d["high"][:len(ref)], ref["mean_loss"] + ref["se"], rtol=1e-12)
    assert vlc.vegalite_to_svg(ch.to_json()).startswith("<svg")
    assert ch.to_dict()["columns"] == 3  # panels wrap, three to a row (five were 1,522 px wide)
    with pytest.raises(TypeError, match="froze K"):
        charts.dif.dimension_selection_chart(result)
    with pytest.raises(ValueError, match="columns"):
        charts.dif.dimension_selection_chart(selected, columns=0)
