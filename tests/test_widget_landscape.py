"""Probability-landscape explorer (issue 4 item 6): the widget's Python side and its static export,
on real data (landscape_view's own tests are in tests/test_landscape_explore.py).

Data: benchkit.datasets.fetch("conformal-llm") (LLaMA-13B option probabilities, 10 prompt variants,
two subjects here) and fetch("mmlu-redux", part="helm-labelled") (14 HELM models' chosen letters on
expert-labelled MMLU items; their per-item vote shares over A-D serve as a probability vector with
real text, options and error labels). Oracles: the raw ConformalLLM arrays with P_top1 / H_norm
written out with scipy.stats.entropy (Sec. 3.2), scipy.spatial.distance.pdist for MPD (Sec. 3.3),
numpy.histogram2d for the density bins, and direct numpy filters for brushes and moves.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import pdist
from test_landscape_explore import SUBJECTS  # the compute tests' data
from test_landscape_explore import _oracle  # the compute tests' data
from test_landscape_explore import conformal_arrays  # the compute tests' data
from test_landscape_explore import conformal_rs  # the compute tests' data

from benchkit import ResponseSet
from benchkit._validation import BenchkitValueError
from benchkit.datasets import fetch
from benchkit.landscape.explore import ALL
from benchkit.landscape.explore import landscape_view
from benchkit.landscape.steps import mpd
from benchkit.landscape.steps import points
from benchkit.widgets import LandscapeExplorer
from jupyter_harness import assert_exported

rs = pytest.fixture(conformal_rs, scope="module", name="rs")
raw = pytest.fixture(conformal_arrays, scope="module", name="raw")


@pytest.fixture(scope="module")
def votes():
    """MMLU-Redux: vote shares of the 14 HELM models over A-D for two subjects, with the items'
    text, options and expert error_type (real labels)."""
    full = fetch("mmlu-redux", part="helm-labelled")
    items = full.items[full.items["subject"].isin(["anatomy", "virology"])]
    long = full.to_long()
    long = long[long["item"].isin(items.index)]
    share = (pd.crosstab(long["item"], long["answer"]).reindex(columns=list("ABCD"), fill_value=0)
             .reindex(items.index, fill_value=0))
    share = share[share.sum(axis=1) > 0]
    probs = share.div(share.sum(axis=1), axis=0)
    key = items["answer_key"].reindex(probs.index)
    resp = pd.DataFrame({"model": "helm-14-vote", "item": probs.index,
                         "correct": (probs.idxmax(axis=1) == key).astype(float).to_numpy(),
                         "option_probs": list(probs.to_numpy())})
    meta = items.reindex(probs.index).reset_index()
    rs = ResponseSet.from_long(resp, items=meta, name="mmlu-redux votes")
    return rs, probs, items


# ----------------------------------------------------------------------------- widget
def test_view_traits_mpd_and_mean_hnorm_equal_direct_computation(rs, raw):
    w = LandscapeExplorer(rs, by="source")
    assert w.models == ["llama-13b"]
    assert w.groups == [ALL, *SUBJECTS]
    rev = w.revision
    w.group = "business_ethics"
    w.variant = "prompt_4"
    assert w.revision == rev + 2
    assert w.busy is False
    assert w.shown == {"model": "llama-13b", "group": "business_ethics", "variant": "prompt_4", "compare": ""}
    scores, _ = raw["business_ethics"]
    direct = np.array([_oracle(p)[:2] for p in scores[4]])
    # MPD shown == benchkit.landscape.steps.mpd on points computed directly, == pdist mean (oracle)
    ref = mpd(points(scores[4]))
    assert w.stats["mpd"] == pytest.approx(ref.mpd, abs=1e-12)
    assert w.stats["mpd_method"] == "exact"
    assert w.stats["mpd"] == pytest.approx(pdist(direct).mean(), abs=1e-12)
    assert w.stats["mean_h_norm"] == pytest.approx(direct[:, 1].mean(), abs=1e-12)
    P = w.view_points()  # binary state: float32 coordinates
    assert w.stats["n_points"] == scores.shape[1] == len(P["x"])
    assert w.mode == "points"
    assert isinstance(w.points, bytes)
    assert P["x"].dtype == np.float32
    np.testing.assert_allclose(np.sort(P["x"]), np.sort(direct[:, 0]), atol=1e-6)
    # pooled groups: MPD of all pooled points of the variant
    w.group = ALL
    pooled = np.vstack([[_oracle(p)[:2] for p in raw[s][0][4]] for s in SUBJECTS])
    assert w.stats["mpd"] == pytest.approx(pdist(pooled).mean(), abs=1e-12)
    with pytest.raises(BenchkitValueError, match="variant='prompt_99' is not in the data"):
        w.variant = "prompt_99"


def test_cached_variants_show_exact_mpd_on_every_view(rs):
    # issue 25: a variant up to PAIR_CACHE_LIMIT points has its cell-pair sums cached, so every
    # view gets the exact MPD at once, even above exact_limit (oracle: pdist of the view's points)
    w = LandscapeExplorer(rs, by="source", exact_limit=100)
    for group in (ALL, "anatomy"):
        w.group = group
        rows = w.view_rows
        assert len(rows) > 100
        assert w.stats["mpd_method"] == "exact"
        exact = pdist(w.result.frame.loc[rows, ["p_top1", "h_norm"]].to_numpy()).mean()
        assert w.stats["mpd"] == pytest.approx(exact, abs=1e-12)


def test_large_views_show_sampled_mpd_then_exact_on_request(rs, monkeypatch):
    monkeypatch.setattr("benchkit.landscape.explore.PAIR_CACHE_LIMIT", 0)  # too large to cache
    w = LandscapeExplorer(rs, by="source", exact_limit=100)
    rows = w.view_rows
    assert len(rows) > 100
    assert w.stats["mpd_method"] == "sampled"
    assert w.stats["mpd_se"] > 0
    exact = pdist(w.result.frame.loc[rows, ["p_top1", "h_norm"]].to_numpy()).mean()
    assert abs(w.stats["mpd"] - exact) < 5 * w.stats["mpd_se"]
    busy_seen = []
    w.observe(lambda ch: busy_seen.append(ch["new"]), names="busy")
    w.compute_exact()
    assert busy_seen == [True, False]  # busy while the exact path runs
    assert w.stats["mpd_method"] == "exact"
    assert w.stats["mpd"] == pytest.approx(exact, abs=1e-12)
    # cached per view: switching away and back keeps the exact value without recomputing
    misses = w.view_cache.misses
    w.group = "anatomy"
    w.group = ALL
    assert w.stats["mpd_method"] == "exact"
    assert w.view_cache.misses == misses + 2


def test_brush_lists_items_with_values_vs_points(rs, raw):
    w = LandscapeExplorer(rs, by="source", variant="prompt_2", page_size=5)
    w.group = "anatomy"
    box = [0.45, 0.9, 0.5, 0.95]
    w.brush = box
    scores, targets = raw["anatomy"]
    pts = points(scores[2], answer=targets)
    inside = np.flatnonzero((pts.p_top1 >= box[0]) & (pts.p_top1 <= box[1])
                            & (pts.h_norm >= box[2]) & (pts.h_norm <= box[3]))
    assert len(inside) > 5  # the list is paged, the count is not
    assert w.n_selected == len(inside)
    assert len(w.selected) == 5
    assert [r["item"] for r in w.selected] == [f"anatomy/{i}" for i in inside[:5]]  # one model: row order
    # the stored image lists the same items below the plot, with the view's stats line
    svg = w.static_svg()
    assert f"{len(inside):,} points with P_top1 in [0.45, 0.90] and H_norm in [0.50, 0.95] (first 5" in svg
    for r in w.selected:
        assert f">{r['item']}</text>" in svg
    assert f"mean H_norm {w.stats['mean_h_norm']:.3f}" in svg
    for r, i in zip(w.selected, inside[:5]):
        assert r["p_top1"] == pytest.approx(pts.p_top1[i], abs=1e-12)
        assert r["h_norm"] == pytest.approx(pts.h_norm[i], abs=1e-12)
        np.testing.assert_allclose(r["probs"], pts.probs[i], atol=1e-12)
        assert r["pred"] == "ABCD"[pts.pred[i]]
        assert r["answer"] == "ABCD"[targets[i]]
        assert r["correct"] == bool(pts.correct[i])
        assert r["variant"] == "prompt_2"
    assert w.selected_items["item"].tolist() == [f"anatomy/{i}" for i in inside]
    w.page = 1
    assert [r["item"] for r in w.selected] == [f"anatomy/{i}" for i in inside[5:10]]
    w.list_by, w.list_descending = "h_norm", True
    assert w.page == 0
    top = inside[np.argsort(-pts.h_norm[inside], kind="stable")][:5]
    assert [r["item"] for r in w.selected] == [f"anatomy/{i}" for i in top]
    # the Python API and an empty brush
    assert len(w.select_box(0.0, 0.2, 0.0, 1.0)) == 0  # P_top1 >= 1/4 always
    w.clear_brush()
    assert w.n_selected == 0
    assert w.selected == []
    with pytest.raises(BenchkitValueError, match=r"brush=.* must be \[\] or \[x0, x1, y0, y1\]"):
        w.brush = [0.5, 0.4, 0.0, 1.0]


def test_before_after_arrows_flow_and_compare_stats(rs, raw):
    w = LandscapeExplorer(rs, by="source", variant="prompt_0", compare="prompt_9", max_arrows=300)
    w.group = "anatomy"
    s0, s9 = raw["anatomy"][0][0], raw["anatomy"][0][9]
    p0, p9 = points(s0), points(s9)
    assert w.moves_info == {"n_pairs": s0.shape[0], "n_arrows": s0.shape[0], "flow_bins": 10}
    assert w.compare_stats["mpd"] == pytest.approx(pdist(p9.xy).mean(), abs=1e-12)
    assert w.compare_stats["mean_h_norm"] == pytest.approx(p9.h_norm.mean(), abs=1e-12)
    from benchkit.widgets._base import unpack_arrays
    A = unpack_arrays(w.arrows)
    np.testing.assert_allclose(A["x0"], p0.p_top1, atol=1e-6)
    np.testing.assert_allclose(A["y1"], p9.h_norm, atol=1e-6)
    F = unpack_arrays(w.flow)
    assert F["n"].sum() == s0.shape[0]
    # many moves: flow field only, no individual arrows
    w.max_arrows = 10
    w.group = ALL
    assert w.arrows == b""
    assert w.moves_info["n_arrows"] == 0
    assert len(unpack_arrays(w.flow)["n"]) > 1
    w.group = "anatomy"
    # brushed rows carry the compare variant's coordinates
    i = 7
    w.brush = [p0.p_top1[i] - 1e-9, p0.p_top1[i] + 1e-9, p0.h_norm[i] - 1e-9, p0.h_norm[i] + 1e-9]
    r = [r for r in w.selected if r["item"] == f"anatomy/{i}"][0]
    assert r["p_top1_after"] == pytest.approx(p9.p_top1[i], abs=1e-12)
    assert r["h_norm_after"] == pytest.approx(p9.h_norm[i], abs=1e-12)
    w.compare = ""
    assert w.arrows == b""
    assert w.compare_stats == {}
    assert w.moves is None


def test_density_mode_bins_equal_histogram2d(rs):
    from benchkit.widgets._base import unpack_arrays
    w = LandscapeExplorer(rs, by="source", density_threshold=100, bins=20)
    assert w.mode == "density"
    assert w.points == b""
    pts = points(np.stack(rs.select(variant="prompt_0").to_long()["option_probs"].to_numpy()))
    ref, _, _ = np.histogram2d(pts.p_top1, pts.h_norm, bins=20, range=[[0, 1], [0, 1]])
    counts = unpack_arrays(w.density)["counts"]
    assert np.array_equal(counts, ref.astype(int))
    assert counts.sum() == w.stats["n_points"] == len(pts)
    # brushing still works on dense views (computed in Python)
    w.brush = [0.5, 1.0, 0.0, 1.0]
    assert w.n_selected == int(np.sum(pts.p_top1 >= 0.5))


def test_expert_labels_text_and_options_listed(votes):
    rs, probs, items = votes
    w = LandscapeExplorer(rs, page_size=1000)
    assert w.label_name == "error_type"
    assert w.groups == ["mmlu-redux"]
    w.brush = [0.0, 1.0, 0.0, 1.0]
    assert w.n_selected == len(probs)
    sel = w.selected_items.set_index("item")
    flagged = items.index[(items["error_type"] != "ok") & items.index.isin(probs.index)]
    assert len(flagged) > 0
    for it in [probs.index[0], flagged[0]]:
        row = sel.loc[it]
        assert row["label"] == items.at[it, "error_type"]
        assert row["text"] == items.at[it, "text"]
        assert row["options"] == [str(o) for o in items.at[it, "options"]]
        pt, hn, top = _oracle(probs.loc[it].to_numpy())
        assert row["p_top1"] == pytest.approx(pt, abs=1e-12)
        assert row["h_norm"] == pytest.approx(hn, abs=1e-12)
    listed = {r["item"]: r for r in w.selected}
    assert listed[probs.index[0]]["label"] == items.at[probs.index[0], "error_type"]


def test_to_html_embeds_compressed_bundle_with_python_stats(rs):
    w = LandscapeExplorer(rs, by="source", compare="prompt_1", exact_limit=200)
    page, state, esm = assert_exported(w)
    assert "import(\"http" not in esm
    B = state["bundle"]
    d = landscape_view(rs, by="source")
    key = B["sep"].join(["llama-13b", "anatomy", "prompt_3"])
    ref = d.stats(d.view_rows(group_value="anatomy", variant="prompt_3"))
    assert B["views"][key]["mpd"] == pytest.approx(ref.mpd, abs=1e-15)
    assert B["views"][key]["mpd_method"] == "exact"
    # 262 points > exact_limit, but the variant's cell-pair sums are cached: exact too
    big = B["sep"].join(["llama-13b", ALL, "prompt_3"])
    assert B["views"][big]["mpd_method"] == "exact"
    ref = d.stats(d.view_rows(variant="prompt_3"))
    assert B["views"][big]["mpd"] == pytest.approx(ref.mpd, abs=1e-12)
    cols = state["bundle_rows"]
    assert len(cols["x"]) == len(d)
    assert cols["x"].dtype == np.uint16
    np.testing.assert_allclose(cols["x"] / B["quant"], d.frame["p_top1"], atol=1 / 65535)
    assert len(B["views"]) == len(w.models) * len(w.groups) * len(w.variants)
    assert "DecompressionStream" in page


def test_static_image_is_the_current_view_aggregated_when_dense(rs, monkeypatch):
    # the image stored beside the live widget (issue 13 item 1): the view's title with its point
    # count and MPD as shown live; dense views are drawn as the binned density, not one mark a point
    monkeypatch.setattr("benchkit.landscape.explore.PAIR_CACHE_LIMIT", 0)  # sampled until requested
    w = LandscapeExplorer(rs, by="source", exact_limit=100, density_threshold=100, bins=20)
    data, _ = w._repr_mimebundle_()
    assert data["image/png"]  # stored as a PNG; its content checked through the same chart's SVG
    svg = w.static_svg()
    n = len(w.view_rows)
    exact = pdist(w.result.frame.loc[w.view_rows, ["p_top1", "h_norm"]].to_numpy()).mean()
    assert f"{n:,} points" in svg
    assert "(sampled)" in svg
    assert svg.count("<path") < 20 * 20 + 200  # at most one cell a bin (+ axes), not n points
    w.compute_exact()
    svg = w.static_svg()
    assert f"MPD {exact:.3f}" in svg
    assert "(sampled)" not in svg
    # a comparison variant: one panel per variant
    w.compare = w.variants[1]
    svg = w.static_svg()
    assert f"{w.variants[0]} → {w.variants[1]}" in svg
    sparse = LandscapeExplorer(rs, by="source", model=w.models[0], variant=w.variants[0])
    assert sparse.mode == "points"
    assert sparse.static_svg().count('class="mark-symbol') >= 1


def test_static_density_quantile_classes_match_numpy_quantiles():
    # the static image's colour classes (charts.landscape._quantile_classes, the reading of the
    # explorer's quantileBreaks): upper bounds are numpy's inverted-CDF q/7 quantiles of the
    # non-empty cells' counts; each cell is in the first class whose bound it does not exceed
    from benchkit.charts.landscape import _quantile_classes

    counts = np.random.default_rng(2).geometric(0.01, 300)
    counts[:40] = 0
    d = pd.DataFrame({"count": counts})
    out, labels = _quantile_classes(d)
    nz = counts[counts > 0]
    bounds = np.unique(np.quantile(nz, np.arange(1, 8) / 7, method="inverted_cdf"))
    assert len(out) == nz.size
    assert len(labels) == bounds.size
    for c, cls in zip(out["count"], out["class"]):
        assert c <= bounds[cls]
        assert cls == 0 or c > bounds[cls - 1]
    assert labels[-1] == f"{bounds[-2] + 1:,}–{nz.max():,}"


def test_static_image_with_a_comparison_counts_both_variants_points(rs):
    # notebook 04: two variants of 2,886 points each drew 5,772 scatter rows, over Altair's 5,000-row
    # limit, and the image was lost. The density threshold applies to the points of all panels.
    w = LandscapeExplorer(rs, by="source", model=LandscapeExplorer(rs).models[0])
    w.compare = w.variants[1]
    n_view, n_compare = len(w.view_rows), len(w._compare_rows)
    assert min(n_view, n_compare) > 0
    w2 = LandscapeExplorer(rs, by="source", model=w.model, compare=w.compare,
                           density_threshold=max(n_view, n_compare))
    svg = w2.static_svg()
    # drawn as the binned density (the total exceeds the threshold): no point marks, only legend symbols
    assert 'aria-roledescription="symbol mark container"' not in svg
    assert 'class="mark-rect' in svg
