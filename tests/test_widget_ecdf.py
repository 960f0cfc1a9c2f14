"""ECDF gap explorer (issue 3 item 5): the widget's Python side, the static export and the charts
(the ResponseSet pipeline's tests are in tests/test_measure_responses.py). Oracles: benchkit.measure
called directly and the exact DDM integral."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from test_measure_responses import _simulate  # the compute tests' data
from test_measure_responses import _wide  # the compute tests' data
from test_measure_responses import two_benchmarks  # the compute tests' data

from benchkit import measure
from benchkit.measure import measure_benchmarks
from benchkit.widgets import ECDFGapExplorer
from benchkit.widgets._assets import asset
from benchkit.widgets._base import BenchkitWidget
from benchkit.widgets._base import static_html
from benchkit.widgets._base import to_jsonable
from jupyter_harness import assert_exported
from jupyter_harness import exported_state

# ------------------------------------------------------------------------------------ data
result = pytest.fixture(two_benchmarks, scope="module", name="result")


# ------------------------------------------------------------------------ the widget
def test_explorer_initial_state_comes_from_measure(result):
    w = ECDFGapExplorer(result)
    bm = result["alpha"]
    assert w.result is result
    assert w.benchmark == "alpha"
    assert w.benchmarks == ["alpha", "beta"]
    assert w.z_values.tolist() == sorted(bm.z.tolist())
    assert w.metrics["ddm"] == pytest.approx(measure.steps.ddm(bm.z), abs=1e-15)
    tg = measure.steps.top_gaps(bm.z, k=5)
    assert [g["width"] for g in w.gaps] == pytest.approx(tg.widths.tolist(), abs=1e-15)
    assert [g["rank"] for g in w.gaps] == [1, 2, 3, 4, 5]
    assert [r["name"] for r in w.table] == ["alpha", "beta"]
    assert w.thresholds == [0.1, 0.1, 0.3]
    assert w.selected_gap == -1
    assert w.selected_items.empty
    assert w.after == {}


def test_explorer_picking_a_benchmark_reloads_its_measure(result):
    w = ECDFGapExplorer(result, benchmark="alpha")
    w.selected_gap = 1
    w.added = [0.5]
    w.benchmark = "beta"
    bm = result["beta"]
    assert w.z_values.tolist() == sorted(bm.z.tolist())
    assert w.metrics["max_gap"] == pytest.approx(measure.steps.max_gap(bm.z).width, abs=1e-15)
    assert w.metrics["n_items"] == 30
    assert w.selected_gap == -1
    assert w.added == []
    assert w.after == {}
    with pytest.raises(ValueError, match=r"benchmark='gamma' is not in the result; choose one of"):
        w.benchmark = "gamma"


def test_explorer_clicked_gap_lists_gap_targets_neighbours(result):
    w = ECDFGapExplorer(result, n_neighbors=3)
    w.selected_gap = 2  # the third-widest gap
    ref = measure.steps.gap_targets(result["alpha"].z, k=5, n_neighbors=3,
                                    items=list(result["alpha"].items)).references(3)
    got = w.selected_items
    assert got["item"].tolist() == ref["item"].tolist()
    assert got["side"].tolist() == ref["side"].tolist()
    np.testing.assert_allclose(got["z"], ref["z"], atol=1e-15)
    np.testing.assert_allclose(got["distance"], ref["distance"], atol=1e-15)
    idx = [int(i.split("/")[1]) for i in got["item"]]
    assert got["text"].tolist() == [f"question {i} of alpha" for i in idx]
    with pytest.raises(ValueError, match=r"selected_gap=5 must be -1 \(none\) or 0..4"):
        w.selected_gap = 5


def test_explorer_what_if_recomputes_with_measure_what_if(result):
    w = ECDFGapExplorer(result)
    z = result["alpha"].z
    mids = [g["midpoint"] for g in w.gaps[:2]]
    w.added = [mids[0]]  # as the front end does: set the trait
    w.add_items(mids[1])
    ref = measure.steps.what_if(z, mids, k=5)
    assert w.after["ddm"] == pytest.approx(ref.after.ddm, abs=1e-15)
    assert w.after["max_gap"] == pytest.approx(ref.after.max_gap, abs=1e-15)
    assert w.after["top_sum"] == pytest.approx(ref.after.top_sum, abs=1e-15)
    assert w.after["n_items"] == z.size + 2
    assert [g["width"] for g in w.after["gaps"]] == pytest.approx(ref.after.top_gaps.widths.tolist())
    # filling the widest gap at its midpoint halves it (hand-worked)
    assert w.after["max_gap"] < w.metrics["max_gap"]
    pd.testing.assert_frame_equal(w.what_if_result.to_frame(), ref.to_frame())
    with pytest.raises(ValueError, match=r"added items need normalized difficulties in \[0, 1\]; got 1.5"):
        w.added = [0.2, 1.5]
    assert len(w.added) == 2
    w.clear_added()
    assert w.after == {}
    assert w.what_if_result is None


def test_explorer_accepts_raw_input_and_validates_options(result):
    K, _ = _simulate(15, 6, 1, seed=9)
    w = ECDFGapExplorer({"raw": _wide(K, 1, prefix="raw")})
    assert w.benchmark == "raw"
    assert len(w.z_values) == 15
    with pytest.raises(ValueError, match="n_neighbors"):
        ECDFGapExplorer(result, n_neighbors=0)
    with pytest.raises(ValueError, match=r"benchmark='x' is not in the result"):
        ECDFGapExplorer(result, benchmark="x")


def test_explorer_text_is_cut_in_the_state_only():
    K, _ = _simulate(10, 5, 1, seed=10)
    rs = _wide(K, 1, prefix="t")
    long_text = {f"t/{i}": "x" * 500 for i in range(10)}
    res = measure_benchmarks(rs, texts=long_text)
    w = ECDFGapExplorer(res, text_chars=50)
    w.selected_gap = 0
    assert all(len(t) == 50 and t.endswith("…") for t in w.selected_items["text"])
    assert len(res["t"].text[0]) == 500


# -------------------------------------------------------------------- base and export
def test_assets_are_plain_esm_without_network_imports():
    js = asset("ecdf_gap.js")
    assert "export default" in js
    assert not re.search(r"^\s*import\s", js, flags=re.M), "the explorer must not import modules"
    assert "http://" not in js.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in js
    assert ".bk-gap" in asset("ecdf_gap.css")


def test_state_names_and_to_jsonable():
    assert to_jsonable({"a": np.float64(np.nan), "b": np.arange(2), 3: (np.int8(1), True)}) == \
        {"a": None, "b": [0, 1], "3": [1, True]}
    with pytest.raises(TypeError, match="cannot put a object into widget state"):
        to_jsonable(object())
    K, _ = _simulate(10, 5, 1, seed=11)
    w = ECDFGapExplorer({"s": _wide(K, 1, prefix="s")})
    assert isinstance(w, BenchkitWidget)
    assert "layout" not in w.state_names()
    assert "_esm" not in w.state_names()
    assert set(w.state_names()) >= {"z", "gaps", "gap_items", "added", "after", "static_mode"}


def test_to_html_embeds_module_state_and_every_benchmark(result, tmp_path):
    w = ECDFGapExplorer(result)
    w.selected_gap = 0
    page, state, _ = assert_exported(w, tmp_path / "ecdf.html", "ecdf_gap.js")
    assert state["selected_gap"] == 0
    assert state["z"]["z"].tolist() == w.z_values.tolist()
    assert set(state["bundle"]) == {"alpha", "beta"}
    b = state["bundle"]["beta"]
    z = state["bundle_z"]["z"][b["offset"]:b["offset"] + b["n"]]
    np.testing.assert_allclose(z, sorted(result["beta"].z.tolist()), atol=1e-7)  # float32 in the page
    assert ".bk-gap" in page  # CSS inlined


def test_static_html_escapes_script_end_tags():
    page = static_html("export default {render(){}}; // </script>", "", {"t": "</script><b>"})
    # state and module are base64 (no "<" at all); only the shim and the JSON name list are scripts
    assert page.count("</script>") == 4
    assert exported_state(page)[0] == {"t": "</script><b>"}


# ---------------------------------------------------------------------------- charts
def test_ecdf_frames_area_integrates_to_ddm_and_steps_are_the_ecdfs():
    from benchkit.charts.measure import ecdf_frames

    z = np.random.default_rng(12).beta(2, 5, 64)
    z[:3] = z[3]  # ties
    f = ecdf_frames(z)
    a = f["area"]
    # oracle: DDM from benchkit.measure (itself checked against scipy.stats.wasserstein_distance)
    area = np.sum((a["hi"] - a["lo"]).to_numpy()[:-1] * np.diff(a["x"].to_numpy()))
    assert area == pytest.approx(measure.steps.ddm(z), abs=1e-12)
    st = f["steps"][f["steps"]["curve"] == "benchmark"]
    np.testing.assert_allclose(st["x"].to_numpy()[1:-1], np.sort(z))
    np.testing.assert_allclose(st["y"].to_numpy()[1:-1], np.arange(1, 65) / 64)
    pd.testing.assert_frame_equal(f["gaps"], measure.steps.top_gaps(z).to_frame())


def test_charts_build_valid_specs(result):
    from benchkit.charts.measure import detection_power_chart
    from benchkit.charts.measure import ecdf_chart
    from benchkit.charts.measure import measure_table_chart

    spec = ecdf_chart(result["alpha"]).to_dict()
    assert spec["title"]["text"][0].startswith("alpha: DDM ")
    assert len(spec["layer"]) == 4
    dp = result["alpha"].detection_power([0.05, 0.2, 0.5], n_samples=(1, 10))
    spec = detection_power_chart(dp).to_dict()
    assert f"G(B) = {dp.max_gap:.3f}" in spec["title"]
    assert len(measure_table_chart(result).to_dict()["hconcat"]) == 3
    with pytest.raises(TypeError, match="power must be a DetectionPower"):
        detection_power_chart(result)
    with pytest.raises(TypeError, match="expected a BenchmarkMeasure"):
        ecdf_chart({"a": 1})


def test_static_image_is_the_selected_benchmarks_ecdf(result):
    # the image stored beside the live widget (issue 13 item 1) follows the picked benchmark
    w = ECDFGapExplorer(result)
    data, _ = w._repr_mimebundle_()
    first = w.static_svg()
    for name in ("alpha", "beta"):
        w.benchmark = name
        s = result[name].summary
        svg = w.static_svg()
        assert f"{name}: DDM {s.ddm:.3f}, Max Gap {s.max_gap:.3f}" in svg
    assert "alpha: DDM" in first
    assert data["image/png"]  # the stored image is the PNG of that view
    # the whole view: Table 1 of every benchmark, the items of a picked gap, a what-if
    assert "Table 1: every benchmark" in first
    assert "Items beside gap" not in first
    w.selected_gap = 0
    w.added = [0.5]
    svg = w.static_svg()
    g = w.gaps[0]
    assert f"Items beside gap #{g['rank']} [{g['left']:.3f}, {g['right']:.3f}]" in svg
    for row in w.gap_items[0]:
        assert f">{row['item']}</text>" in svg
    assert f"What if 1 items were added at z = 0.50: DDM {w.after['ddm']:.3f}" in svg


def test_ecdf_chart_of_a_large_benchmark_uses_the_exact_ecdf_on_a_grid():
    # above max_knots items the chart draws both ECDFs at evenly spaced x (Altair embeds <= 5,000
    # rows; the 14,015-item MMLU explorer's static image failed before); oracle: mean(z <= x)
    from benchkit.charts.measure import ecdf_chart

    z = np.random.default_rng(5).beta(2, 5, 6_000)
    spec = ecdf_chart(z, max_knots=500).to_dict()
    datasets = spec["datasets"]
    assert max(len(v) for v in datasets.values()) <= 1002
    steps = next(pd.DataFrame(v) for v in datasets.values() if "curve" in v[0])
    bench = steps[steps["curve"] == "benchmark"]
    assert len(bench) == 501
    oracle = np.array([np.mean(z <= x) for x in bench["x"]])
    np.testing.assert_allclose(bench["y"].to_numpy(), oracle, atol=1e-15)
    ref = steps[steps["curve"] == "uniform reference"]
    atoms = (np.arange(6_000) + 0.5) / 6_000
    np.testing.assert_allclose(ref["y"].to_numpy(), [np.mean(atoms <= x) for x in ref["x"]], atol=1e-15)
    with pytest.raises(ValueError, match="max_knots"):
        ecdf_chart(z, max_knots=1)
