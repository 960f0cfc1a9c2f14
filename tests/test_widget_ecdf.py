"""ECDF gap explorer (issue 3 item 5): the ResponseSet pipeline, the widget's Python side, the
static export and the charts. Oracles: benchkit.irt.fit_1pl (itself checked against girth), a
direct scipy optimization of the binomial objective, benchkit.measure called directly, and the
exact DDM integral."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, special

from benchkit import ResponseSet, measure
from benchkit.irt import fit_1pl
from benchkit.measure_pipeline import (BenchmarkMeasures, combine, fit_1pl_counts,
                                       fit_difficulties, measure_benchmarks)
from benchkit.widgets import ECDFGapExplorer
from benchkit.widgets._base import explorer_module
from benchkit.widgets._assets import asset
from benchkit.widgets._base import BenchkitWidget, static_html, to_jsonable
from jupyter_harness import exported_state


# ------------------------------------------------------------------------------------ data
def _simulate(n_items, n_models, T, seed, missing=0.0):
    rng = np.random.default_rng(seed)
    b = rng.normal(0, 1.5, n_items)
    t = rng.normal(0, 1, n_models)
    P = special.expit(t[None, :] - b[:, None])
    N = np.full((n_items, n_models), T)
    if missing:
        N[rng.random(N.shape) < missing] = 0
    K = rng.binomial(N, P)
    return K, N


def _wide(K, T, *, prefix, texts=True, sources=None):
    items = [f"{prefix}/{i}" for i in range(K.shape[0])]
    frame = pd.DataFrame(K, index=items, columns=[f"model-{j}" for j in range(K.shape[1])])
    meta = pd.DataFrame({"item": items})
    if texts:
        meta["text"] = [f"question {i} of {prefix}" for i in range(K.shape[0])]
    if sources is not None:
        meta["source"] = sources
    return ResponseSet.from_wide(frame, T=T, items=meta, name=prefix)


@pytest.fixture(scope="module")
def result() -> BenchmarkMeasures:
    K1, _ = _simulate(40, 12, 1, seed=1)
    K2, _ = _simulate(30, 9, 5, seed=2)
    return measure_benchmarks({"alpha": _wide(K1, 1, prefix="alpha"),
                               "beta": _wide(K2, 5, prefix="beta", texts=False)})


# ---------------------------------------------------------------------- binomial 1PL fit
def test_fit_1pl_counts_equals_fit_1pl_jml_for_one_sample():
    # Oracle: benchkit.irt.fit_1pl(method="jml") (cross-checked against girth in test_irt.py);
    # with N = 1 the binomial objective is the Bernoulli one, so the optima coincide.
    K, N = _simulate(50, 15, 1, seed=3, missing=0.1)
    Y = np.where(N == 1, K, np.nan).astype(float)
    ours = fit_1pl_counts(K, N)
    ref = fit_1pl(Y, method="jml")
    np.testing.assert_allclose(ours.difficulty, ref.difficulty, atol=1e-7)
    np.testing.assert_allclose(ours.ability, ref.ability, atol=1e-7)
    np.testing.assert_allclose(ours.difficulty_se, ref.difficulty_se, rtol=1e-6)
    assert ours.converged and ours.options["likelihood"] == "binomial"


def test_fit_1pl_counts_matches_direct_scipy_optimum_with_samples_and_missing_cells():
    # Oracle: L-BFGS-B on the penalized binomial log likelihood with its analytic gradient
    # (sum K*eta - N*log(1+e^eta) - |t|^2/18 - |b|^2/18), then the mean-ability-0 shift.
    K, N = _simulate(35, 10, 8, seed=4, missing=0.15)
    N[2] = 3
    K[2] = np.minimum(K[2], 3)
    ni, nm = K.shape

    def neg(p):
        t, b = p[:nm], p[nm:]
        eta = t[None, :] - b[:, None]
        R = K - N * special.expit(eta)
        f = np.sum(K * eta - N * np.logaddexp(0, eta)) - t @ t / 18 - b @ b / 18
        return -f, -np.concatenate([R.sum(0) - t / 9, -R.sum(1) - b / 9])

    opt = optimize.minimize(neg, np.zeros(nm + ni), jac=True, method="L-BFGS-B",
                            options=dict(gtol=1e-12, ftol=1e-15, maxiter=10_000))
    t, b = opt.x[:nm], opt.x[nm:]
    fit = fit_1pl_counts(K, N)
    np.testing.assert_allclose(fit.difficulty, b - t.mean(), atol=1e-5)
    np.testing.assert_allclose(fit.ability, t - t.mean(), atol=1e-5)


def test_fit_1pl_counts_without_priors_gives_infinite_extremes_and_nan_for_empty_items():
    K, N = _simulate(20, 8, 4, seed=5)
    K[0] = N[0]  # all correct
    K[1] = 0  # all wrong
    N[2] = 0
    K[2] = 0  # never observed
    fit = fit_1pl_counts(K, N, item_prior_sd=None)
    assert fit.difficulty[0] == -np.inf and fit.difficulty[1] == np.inf
    assert np.isnan(fit.difficulty[2])
    assert np.all(np.isfinite(fit.difficulty[3:]))


@pytest.mark.parametrize("K, N, match", [
    (np.array([[3.0]]), np.array([[2.0]]), r"0 <= K <= N; found K=3.0, N=2.0 at item 0, model 0"),
    (np.array([[0.5]]), np.array([[1.0]]), "whole numbers"),
])
def test_fit_1pl_counts_rejects_bad_counts(K, N, match):
    with pytest.raises(ValueError, match=match):
        fit_1pl_counts(K, N)


def test_fit_difficulties_dispatch_and_mml_needs_one_sample():
    K, _ = _simulate(25, 8, 1, seed=6)
    rs = _wide(K, 1, prefix="x")
    a = fit_difficulties(rs, method="mml")
    b = fit_1pl(rs.binary(), method="mml")
    np.testing.assert_allclose(a.difficulty, b.difficulty, atol=1e-10)
    K5, _ = _simulate(25, 8, 5, seed=6)
    with pytest.raises(ValueError, match=r"method='mml' needs one sample per cell; .* use method='jml'"):
        fit_difficulties(_wide(K5, 5, prefix="y"), method="mml")


# ------------------------------------------------------------------ measure_benchmarks
def test_measure_benchmarks_table_matches_measure_directly(result):
    df = result.to_frame()
    assert df["Benchmark"].tolist() == ["alpha", "beta"]
    for bm in result:
        # oracle: benchkit.measure on the min-max normalized difficulties of the same fit
        z = measure.normalize_difficulty(bm.fit.difficulty)
        row = df[df["Benchmark"] == bm.name].iloc[0]
        assert row["DDM"] == pytest.approx(measure.ddm(z), abs=1e-12)
        assert row["Max Gap"] == pytest.approx(measure.max_gap(z).width, abs=1e-12)
        assert row["Top-5 Sum"] == pytest.approx(measure.top_gaps(z, k=5).total, abs=1e-12)
        assert row["#"] == z.size
    assert df["models"].tolist() == [12, 9]
    # the binary set uses fit_1pl, the T=5 set the binomial fit
    assert result["alpha"].fit.options.get("likelihood") is None
    assert result["beta"].fit.options["likelihood"] == "binomial"
    assert result["alpha"].to_frame()["text"].iloc[3] == "question 3 of alpha"
    assert result["beta"].text is None


def test_measure_benchmarks_by_source_texts_and_extreme_drop():
    K, _ = _simulate(60, 10, 1, seed=7)
    K[0] = 1  # every model correct
    src = ["s1"] * 30 + ["s2"] * 29 + ["s3"]
    rs = _wide(K, 1, prefix="p", texts=False, sources=src)
    res = measure_benchmarks(rs, by="source", texts={"p/5": "five"}, min_items=2)
    assert res.names == ["p/s1", "p/s2"]  # s3 has 1 item < min_items
    sub = fit_1pl(rs.binary()[30:59], method="jml")  # each part is fitted on its own
    np.testing.assert_allclose(res["p/s2"].difficulty, sub.difficulty, atol=1e-12)
    assert res["p/s1"].to_frame().loc["p/5", "text"] == "five"
    dropped = measure_benchmarks(rs, by="source", extreme="drop")
    rows = K[:30].sum(1)
    expected = [f"p/{i}" for i in np.flatnonzero((rows == 0) | (rows == 10))]
    assert "p/0" in expected
    assert sorted(dropped["p/s1"].dropped) == sorted(expected)
    assert dropped["p/s1"].n_items == 30 - len(expected)


@pytest.mark.parametrize("call, match", [
    (lambda rs: measure_benchmarks([1, 2]), "data must be a ResponseSet or a non-empty mapping"),
    (lambda rs: measure_benchmarks(rs, by="nope"), r"by='nope' is not an items column"),
    (lambda rs: measure_benchmarks(rs, method="bayes"), "method"),
    (lambda rs: measure_benchmarks(rs, extreme="clip"), "extreme"),
    (lambda rs: measure_benchmarks(rs, by="source", min_items=13), "no benchmark has at least"),
    # "e" split by source is named "e/s", which collides with the second entry
    (lambda rs: measure_benchmarks({"e": rs, "e/s": np.arange(3.0)}, by="source"),
     r"benchmark names must be unique; repeated: \['e/s'\]"),
])
def test_measure_benchmarks_errors(call, match):
    K, _ = _simulate(12, 5, 1, seed=8)
    rs = _wide(K, 1, prefix="e", sources=["s"] * 12)
    with pytest.raises((ValueError, TypeError), match=match):
        call(rs)


def test_combine_concatenates_and_recomputes_table(result):
    other = measure_benchmarks({"toy": np.array([0.0, 1.0, 3.0, 10.0])})
    both = combine(result, other)
    assert both.names == ["alpha", "beta", "toy"]
    pd.testing.assert_frame_equal(both.to_frame().iloc[:2], result.to_frame())
    with pytest.raises(ValueError, match=r"repeated: \['toy'\]"):
        combine(both, other)
    with pytest.raises(ValueError, match="differ in k/target"):
        combine(result, measure_benchmarks({"t": np.arange(4.0)}, k=3))
    with pytest.raises(TypeError, match="one or more BenchmarkMeasures"):
        combine()


def test_measure_benchmarks_accepts_difficulty_arrays():
    b = np.array([0.0, 1.0, 3.0, 10.0])
    res = measure_benchmarks({"toy": b})
    np.testing.assert_allclose(res["toy"].z, [0.0, 0.1, 0.3, 1.0])
    # hand-worked: sorted z vs (i-0.5)/4 = .125,.375,.625,.875 -> mean |.| = (.125+.275+.325+.125)/4
    assert res["toy"].ddm == pytest.approx(0.2125, abs=1e-12)
    assert res["toy"].max_gap == pytest.approx(0.7, abs=1e-12)


# ------------------------------------------------------------------------ the widget
def test_explorer_initial_state_comes_from_measure(result):
    w = ECDFGapExplorer(result)
    bm = result["alpha"]
    assert w.benchmark == "alpha" and w.benchmarks == ["alpha", "beta"]
    assert w.z_values.tolist() == sorted(bm.z.tolist())
    assert w.metrics["ddm"] == pytest.approx(measure.ddm(bm.z), abs=1e-15)
    tg = measure.top_gaps(bm.z, k=5)
    assert [g["width"] for g in w.gaps] == pytest.approx(tg.widths.tolist(), abs=1e-15)
    assert [g["rank"] for g in w.gaps] == [1, 2, 3, 4, 5]
    assert [r["name"] for r in w.table] == ["alpha", "beta"]
    assert w.thresholds == [0.1, 0.1, 0.3]
    assert w.selected_gap == -1 and w.selected_items.empty and w.after == {}


def test_explorer_picking_a_benchmark_reloads_its_measure(result):
    w = ECDFGapExplorer(result, benchmark="alpha")
    w.selected_gap = 1
    w.added = [0.5]
    w.benchmark = "beta"
    bm = result["beta"]
    assert w.z_values.tolist() == sorted(bm.z.tolist())
    assert w.metrics["max_gap"] == pytest.approx(measure.max_gap(bm.z).width, abs=1e-15)
    assert w.metrics["n_items"] == 30
    assert w.selected_gap == -1 and w.added == [] and w.after == {}
    with pytest.raises(ValueError, match=r"benchmark='gamma' is not in the result; choose one of"):
        w.benchmark = "gamma"


def test_explorer_clicked_gap_lists_gap_targets_neighbours(result):
    w = ECDFGapExplorer(result, n_neighbors=3)
    w.selected_gap = 2  # the third-widest gap
    ref = measure.gap_targets(result["alpha"].z, k=5, n_neighbors=3,
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
    ref = measure.what_if(z, mids, k=5)
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
    assert w.after == {} and w.what_if_result is None


def test_explorer_accepts_raw_input_and_validates_options(result):
    K, _ = _simulate(15, 6, 1, seed=9)
    w = ECDFGapExplorer({"raw": _wide(K, 1, prefix="raw")})
    assert w.benchmark == "raw" and len(w.z_values) == 15
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
    assert "http://" not in js.replace("http://www.w3.org/2000/svg", "") and "https://" not in js
    assert ".bk-gap" in asset("ecdf_gap.css")


def test_state_names_and_to_jsonable():
    assert to_jsonable({"a": np.float64(np.nan), "b": np.arange(2), 3: (np.int8(1), True)}) == \
        {"a": None, "b": [0, 1], "3": [1, True]}
    with pytest.raises(TypeError, match="cannot put a object into widget state"):
        to_jsonable(object())
    K, _ = _simulate(10, 5, 1, seed=11)
    w = ECDFGapExplorer({"s": _wide(K, 1, prefix="s")})
    assert isinstance(w, BenchkitWidget)
    assert "layout" not in w.state_names() and "_esm" not in w.state_names()
    assert set(w.state_names()) >= {"z", "gaps", "gap_items", "added", "after", "static_mode"}


def test_to_html_embeds_module_state_and_every_benchmark(result, tmp_path):
    w = ECDFGapExplorer(result)
    w.selected_gap = 0
    path = tmp_path / "ecdf.html"
    page = w.to_html(path)
    assert path.read_text(encoding="utf-8") == page
    state, esm = exported_state(page)
    assert esm == explorer_module("ecdf_gap.js")
    assert state["static_mode"] is True and w.static_mode is False
    assert state["selected_gap"] == 0 and state["z"]["z"].tolist() == w.z_values.tolist()
    assert set(state["bundle"]) == {"alpha", "beta"}
    b = state["bundle"]["beta"]
    z = state["bundle_z"]["z"][b["offset"]:b["offset"] + b["n"]]
    np.testing.assert_allclose(z, sorted(result["beta"].z.tolist()), atol=1e-7)  # float32 in the page
    assert "<script src=" not in page and "https://" not in page
    assert ".bk-gap" in page  # CSS inlined


def test_static_html_escapes_script_end_tags():
    page = static_html("export default {render(){}}; // </script>", "", {"t": "</script><b>"})
    # state and module are base64 (no "<" at all); only the shim and the JSON name list are scripts
    assert page.count("</script>") == 4 and exported_state(page)[0] == {"t": "</script><b>"}


# ---------------------------------------------------------------------------- charts
def test_ecdf_frames_area_integrates_to_ddm_and_steps_are_the_ecdfs():
    from benchkit.charts_measure import ecdf_frames

    z = np.random.default_rng(12).beta(2, 5, 64)
    z[:3] = z[3]  # ties
    f = ecdf_frames(z)
    a = f["area"]
    # oracle: DDM from benchkit.measure (itself checked against scipy.stats.wasserstein_distance)
    area = np.sum((a["hi"] - a["lo"]).to_numpy()[:-1] * np.diff(a["x"].to_numpy()))
    assert area == pytest.approx(measure.ddm(z), abs=1e-12)
    st = f["steps"][f["steps"]["curve"] == "benchmark"]
    np.testing.assert_allclose(st["x"].to_numpy()[1:-1], np.sort(z))
    np.testing.assert_allclose(st["y"].to_numpy()[1:-1], np.arange(1, 65) / 64)
    pd.testing.assert_frame_equal(f["gaps"], measure.top_gaps(z).to_frame())


def test_charts_build_valid_specs(result):
    from benchkit.charts_measure import detection_power_chart, ecdf_chart, measure_table_chart

    spec = ecdf_chart(result["alpha"]).to_dict()
    assert spec["title"].startswith("alpha: DDM ")
    assert len(spec["layer"]) == 4
    dp = result["alpha"].detection_power([0.05, 0.2, 0.5], k=(1, 10))
    spec = detection_power_chart(dp).to_dict()
    assert f"G(B) = {dp.max_gap:.3f}" in spec["title"]
    assert len(measure_table_chart(result).to_dict()["hconcat"]) == 3
    with pytest.raises(TypeError, match="power must be a DetectionPower"):
        detection_power_chart(result)
    with pytest.raises(TypeError, match="expected a BenchmarkMeasure"):
        ecdf_chart({"a": 1})
