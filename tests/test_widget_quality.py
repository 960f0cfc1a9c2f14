"""benchkit.widgets.QualityDashboard: synced traits against benchkit.quality's own results.

Oracles: the Table 1 cells against ``result.table`` and :func:`benchkit.quality.steps.band`; the
Kendall heatmap against scipy.stats.kendalltau of the benchmarks' mean scores; the subset at a
ratio against :func:`benchkit.quality.steps.select_items` (first ``max(1, round(r n))`` of the order)
and :func:`benchkit.quality.steps.subset_metrics`; the export against the live traits.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from benchkit import ResponseSet
from benchkit._validation import BenchkitValueError
from benchkit.quality import assess
from benchkit.quality.steps import band
from benchkit.quality.steps import select_items
from jupyter_harness import assert_exported

MODELS = ["Qwen2.5-72B-Instruct", "Qwen2.5-32B-Instruct", "Qwen2.5-7B-Instruct",
          "gemma-2-27b-it", "gemma-2-9b-it", "gemma-2-2b-it", "phi-2"]


def _bench(seed, n_items, name):
    rng = np.random.default_rng(seed)
    ability = np.linspace(1.5, -1.0, len(MODELS)) + rng.normal(0, 0.3, len(MODELS))
    diff = rng.normal(0, 1, n_items)
    p = 1 / (1 + np.exp(-(ability[None, :] - diff[:, None])))
    Y = (rng.random(p.shape) < p).astype(float)
    frame = pd.DataFrame(Y, index=[f"{name}-{i}" for i in range(n_items)], columns=MODELS)
    items = pd.DataFrame({"text": [f"<i>question {i} of {name}</i>" for i in range(n_items)]},
                         index=frame.index).rename_axis("item").reset_index()
    return ResponseSet.from_wide(frame, items=items, name=name)


@pytest.fixture(scope="module")
def result():
    sets = {"A": _bench(1, 60, "A"), "B": _bench(2, 45, "B"), "C": _bench(3, 50, "C")}
    return assess(sets, domains={"A": "math", "B": "math", "C": "code"}, n_resamples=50, rng=0,
                  progress=False)


@pytest.fixture(scope="module")
def dash(result):
    from benchkit.widgets import QualityDashboard

    return QualityDashboard(result, n_rep=20)


def test_table_cells_and_bands_match_result(dash, result):
    t = result.table
    assert [r["benchmark"] for r in dash.table] == list(t.index)
    assert dash.result is result
    for r in dash.table:
        b = r["benchmark"]
        for m in ("cbrc", "ds", "cad", "raw_cad", "bqs"):
            v = t.at[b, m]
            assert (r[m] is None and np.isnan(v)) or r[m] == pytest.approx(v, abs=1e-15)
        assert r["cad_band"] == band("cad", t.at[b, "cad"])
        assert r["raw_cad_band"] == band("raw_cad", t.at[b, "raw_cad"])
        assert r["bqs_band"] is None
        assert r["cad_low"] == pytest.approx(t.at[b, "cad_low"], abs=1e-15)


def test_kendall_heatmap_matches_scipy(dash, result):
    k = dash.kendall["math"]
    assert k["names"] == ["A", "B"]
    means = result.scores.loc[["A", "B"]].to_numpy()
    # scipy oracle: tau_b of the two benchmarks' mean scores over the shared models
    want = kendalltau(means[0], means[1]).statistic
    assert k["tau"][0][1] == pytest.approx(want, abs=1e-12)
    assert k["tau"][0][0] == pytest.approx(1.0)
    assert "code" in dash.kendall


def test_families_and_inverted_items_of_selected_benchmark(dash, result):
    dash.benchmark = "B"
    fam = {r["family"]: r for r in dash.families}
    ft = result.families_frame().loc["B"]
    for name, r in fam.items():
        assert r["score"] == pytest.approx(ft[name], abs=1e-15)
        assert r["band"] == band("cad", ft[name])
    inv = result.inverted_items("B")
    assert [r["item"] for r in dash.inverted] == inv["item"].tolist()
    assert dash.inverted[0]["text"].startswith("<i>question")  # text travels as text
    assert dash.revision > 0
    assert dash.busy is False


@pytest.mark.parametrize("ratio", [0.35, 0.37, 0.1, 1.0])
def test_subset_at_ratio_is_python_selection(dash, result, ratio):
    dash.benchmark = "A"
    dash.ratio = ratio
    Y = result.matrices["A"]
    fams = result.families["A"].indices(list(Y.columns))
    idx = select_items(Y.to_numpy(), fams, ratio=ratio, method="cad+ds")
    want = list(Y.index[idx])
    assert dash.subset["items"] == want
    assert len(want) == max(1, round(ratio * 60))
    assert dash.subset["n_items"] == len(want)
    assert dash.subset_items["item"].tolist() == want
    assert dash.subset["text"][0] == f"<i>question {want[0].split('-')[1]} of A</i>"
    # reproducible: the same ratio shows the same numbers on a fresh dashboard
    from benchkit.widgets import QualityDashboard

    other = QualityDashboard(result, n_rep=20, benchmark="A", ratio=ratio)
    assert other.subset == dash.subset


def test_grid_ratio_readout_is_the_curve_point(dash):
    dash.benchmark = "C"
    dash.ratio = 0.5
    pt = next(c for c in dash.curve if abs(c["ratio"] - 0.5) < 1e-9)
    for k in ("tau", "stability", "ds", "n_items"):
        assert dash.subset[k] == pytest.approx(pt[k], abs=1e-15)


def test_bad_inputs_are_rejected(result):
    from benchkit.widgets import QualityDashboard

    with pytest.raises(BenchkitValueError, match="QualityResult"):
        QualityDashboard(result.table)
    with pytest.raises(BenchkitValueError, match="benchmark"):
        QualityDashboard(result, benchmark="nope", n_rep=20)
    with pytest.raises(ValueError, match="method"):
        QualityDashboard(result, method="random", n_rep=20)
    with pytest.raises(BenchkitValueError, match="Generator"):
        QualityDashboard(result, rng=np.random.default_rng(0), n_rep=20)
    d = QualityDashboard(result, n_rep=20)
    with pytest.raises(ValueError, match="ratio"):
        d.ratio = 0.0
    with pytest.raises(BenchkitValueError, match="benchmark"):
        d.benchmark = "Z"


def test_export_embeds_every_benchmark_and_grid_subsets(dash, result):
    page, st, _ = assert_exported(dash)
    assert "http://" not in page.replace("http://www.w3.org", "")
    assert set(st["bundle"]) == set(result.table.index)
    for b in result.table.index:
        v = st["bundle"][b]
        sub = v["subsets"][f"{0.35:.4f}"]
        Y = result.matrices[b]
        fams = result.families[b].indices(list(Y.columns))
        idx = select_items(Y.to_numpy(), fams, ratio=0.35, method="cad+ds")
        assert v["order"][:sub["n_items"]] == list(Y.index[idx])
    assert len(page) < 5_000_000


def test_precomputed_selection_is_reused(result, dash):
    from benchkit.quality.explore import selection_view
    from benchkit.widgets import QualityDashboard

    sv = selection_view(result, ratios=(0.25, 0.5), n_rep=20, rng=1)
    d = QualityDashboard(result, selection=sv, benchmark="B", ratio=0.25)
    assert d.selection is sv
    assert d.ratio_grid == [0.25, 0.5]
    pt = sv.curve[(sv.curve["benchmark"] == "B") & (sv.curve["ratio"] == 0.25)].iloc[0]
    assert d.subset["items"] == list(pt["items"]) == sv.subset("B", 0.25)
    assert d.subset["stability"] == pytest.approx(pt["stability"], abs=1e-15)
    with pytest.raises(BenchkitValueError, match="method"):
        QualityDashboard(result, selection=sv, method="cad")
    with pytest.raises(BenchkitValueError, match="SelectionView"):
        QualityDashboard(result, selection=sv.curve)


def test_static_image_is_the_selected_benchmarks_curve_and_domain_heatmap(dash):
    # the image stored beside the live widget (issue 13 item 1) follows the selected benchmark
    assert dash._repr_mimebundle_()[0]["image/png"]  # stored as a PNG of the chart checked below
    svg = dash.static_svg()
    # the whole view: Table 1 with every benchmark's values and bands, the selected one marked,
    # and the selected benchmark's per-family CAD
    assert "Benchmark quality (Table 1 layout)" in svg
    for r in dash.table:
        mark = " (selected)" if r["benchmark"] == dash.benchmark else ""
        assert f">{r['benchmark']}{mark}</text>" in svg
        if r["ds"] is not None:  # every benchmark has a DS (a lone one in its domain has no CBRC)
            assert f">{r['ds']:.3f} ({r['ds_band']})</text>" in svg
    if dash.families:
        assert f"Per-family CAD, {dash.benchmark}" in svg
    assert f"{dash.benchmark}: selection ratio curve" in svg
    old = dash.benchmark
    dash.benchmark = "C"
    try:
        svg = dash.static_svg()
        assert "C: selection ratio curve" in svg
    finally:
        dash.benchmark = old
