"""Probability-landscape explorer (issue 4 item 6): the widget's Python side and its static export,
on real data (landscape_data's own tests are in tests/test_landscape_explore.py).

Data: benchkit.datasets.fetch("conformal-llm") (LLaMA-13B option probabilities, 10 prompt variants,
two subjects here) and fetch("mmlu-redux", part="helm-labelled") (14 HELM models' chosen letters on
expert-labelled MMLU items; their per-item vote shares over A-D serve as a probability vector with
real text, options and error labels). Oracles: the raw ConformalLLM arrays with P_top1 / H_norm
written out with scipy.stats.entropy (Sec. 3.2), scipy.spatial.distance.pdist for MPD (Sec. 3.3),
numpy.histogram2d for the density bins, and direct numpy filters for brushes and moves.
"""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import pdist
from test_landscape_explore import (  # the compute tests' data
    SUBJECTS,
    _oracle,
    conformal_arrays,
    conformal_rs,
)

from benchkit import ResponseSet
from benchkit._validation import BenchkitValueError
from benchkit.datasets import fetch
from benchkit.landscape import mpd, points
from benchkit.landscape.explore import ALL, landscape_data
from benchkit.widgets import LandscapeExplorer

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
    w = LandscapeExplorer(rs, group="source")
    assert w.models == ["llama-13b"]
    assert w.groups == [ALL, *SUBJECTS]
    w.group = "business_ethics"
    w.variant = "prompt_4"
    scores, _ = raw["business_ethics"]
    direct = np.array([_oracle(p)[:2] for p in scores[4]])
    # MPD shown == benchkit.landscape.mpd on points computed directly, == pdist mean (oracle)
    ref = mpd(points(scores[4]))
    assert w.stats["mpd"] == pytest.approx(ref.mpd, abs=1e-12)
    assert w.stats["mpd"] == pytest.approx(pdist(direct).mean(), abs=1e-12)
    assert w.stats["mean_h_norm"] == pytest.approx(direct[:, 1].mean(), abs=1e-12)
    assert w.stats["n_points"] == scores.shape[1] == len(w.xy)
    assert w.mode == "points"
    xs = sorted(p[0] for p in w.xy)
    np.testing.assert_allclose(xs, np.sort(direct[:, 0]), atol=1e-12)
    # pooled groups: MPD of all pooled points of the variant
    w.group = ALL
    pooled = np.vstack([[_oracle(p)[:2] for p in raw[s][0][4]] for s in SUBJECTS])
    assert w.stats["mpd"] == pytest.approx(pdist(pooled).mean(), abs=1e-12)
    with pytest.raises(BenchkitValueError, match="variant='prompt_99' is not in the data"):
        w.variant = "prompt_99"


def test_brush_lists_items_with_values_vs_points(rs, raw):
    w = LandscapeExplorer(rs, group="source", variant="prompt_2", max_list=5)
    w.group = "anatomy"
    box = [0.45, 0.9, 0.5, 0.95]
    w.brush = box
    scores, targets = raw["anatomy"]
    pts = points(scores[2], answer=targets)
    inside = np.flatnonzero((pts.p_top1 >= box[0]) & (pts.p_top1 <= box[1])
                            & (pts.h_norm >= box[2]) & (pts.h_norm <= box[3]))
    assert len(inside) > 5  # the list is capped, the count is not
    assert w.n_selected == len(inside)
    assert len(w.selected) == 5
    assert [r["item"] for r in w.selected] == [f"anatomy/{i}" for i in inside[:5]]
    for r, i in zip(w.selected, inside[:5]):
        assert r["p_top1"] == pytest.approx(pts.p_top1[i], abs=1e-12)
        assert r["h_norm"] == pytest.approx(pts.h_norm[i], abs=1e-12)
        np.testing.assert_allclose(r["probs"], pts.probs[i], atol=1e-12)
        assert r["pred"] == "ABCD"[pts.pred[i]]
        assert r["answer"] == "ABCD"[targets[i]]
        assert r["correct"] == bool(pts.correct[i])
        assert r["variant"] == "prompt_2"
    assert w.selected_items["item"].tolist() == [f"anatomy/{i}" for i in inside]
    # the Python API and an empty brush
    assert len(w.select_box(0.0, 0.2, 0.0, 1.0)) == 0  # P_top1 >= 1/4 always
    w.clear_brush()
    assert w.n_selected == 0
    assert w.selected == []
    with pytest.raises(BenchkitValueError, match=r"brush=.* must be \[\] or \[x0, x1, y0, y1\]"):
        w.brush = [0.5, 0.4, 0.0, 1.0]


def test_before_after_arrows_and_compare_stats(rs, raw):
    w = LandscapeExplorer(rs, group="source", variant="prompt_0", compare="prompt_9", max_arrows=30)
    w.group = "anatomy"
    s0, s9 = raw["anatomy"][0][0], raw["anatomy"][0][9]
    p0, p9 = points(s0), points(s9)
    assert w.arrows_info == {"n_pairs": s0.shape[0], "n_shown": 30}
    assert w.compare_stats["mpd"] == pytest.approx(pdist(p9.xy).mean(), abs=1e-12)
    assert w.compare_stats["mean_h_norm"] == pytest.approx(p9.h_norm.mean(), abs=1e-12)
    dist = np.hypot(p9.p_top1 - p0.p_top1, p9.h_norm - p0.h_norm)
    top = np.sort(np.argsort(-dist, kind="stable")[:30])
    base = w.view_rows[0]  # anatomy rows are contiguous in the variant
    assert [a[4] - base for a in w.arrows] == top.tolist()
    for a, i in zip(w.arrows, top):
        np.testing.assert_allclose(a[:4], [p0.p_top1[i], p0.h_norm[i], p9.p_top1[i], p9.h_norm[i]],
                                   atol=1e-12)
    # brushed rows carry the compare variant's coordinates
    i = int(top[0])
    w.brush = [p0.p_top1[i] - 1e-9, p0.p_top1[i] + 1e-9, p0.h_norm[i] - 1e-9, p0.h_norm[i] + 1e-9]
    r = [r for r in w.selected if r["item"] == f"anatomy/{i}"][0]
    assert r["p_top1_after"] == pytest.approx(p9.p_top1[i], abs=1e-12)
    assert r["h_norm_after"] == pytest.approx(p9.h_norm[i], abs=1e-12)
    w.compare = ""
    assert w.arrows == []
    assert w.compare_stats == {}
    assert w.moves is None


def test_density_mode_bins_equal_histogram2d(rs):
    w = LandscapeExplorer(rs, group="source", density_threshold=100, bins=20)
    assert w.mode == "density"
    assert w.xy == []
    pts = points(np.stack(rs.select(variant="prompt_0").to_long()["option_probs"].to_numpy()))
    ref, _, _ = np.histogram2d(pts.p_top1, pts.h_norm, bins=20, range=[[0, 1], [0, 1]])
    assert np.array_equal(np.asarray(w.density["counts"]), ref.astype(int))
    assert sum(map(sum, w.density["counts"])) == w.stats["n_points"] == len(pts)
    # brushing still works on dense views (computed in Python)
    w.brush = [0.5, 1.0, 0.0, 1.0]
    assert w.n_selected == int(np.sum(pts.p_top1 >= 0.5))


def test_expert_labels_text_and_options_listed(votes):
    rs, probs, items = votes
    w = LandscapeExplorer(rs)
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


def test_to_html_embeds_bundle_with_python_stats(rs):
    w = LandscapeExplorer(rs, group="source", compare="prompt_1")
    page = w.to_html()
    state = json.loads(re.search(r'<script type="application/json" id="benchkit-state">(.*?)</script>',
                                 page, re.S).group(1).replace("<\\/", "</"))
    assert state["static_mode"] is True
    assert "http" not in state.get("_esm", "")
    B = state["bundle"]
    key = B["sep"].join(["llama-13b", "anatomy", "prompt_3"])
    d = landscape_data(rs, group="source")
    ref = d.stats(d.view_rows(group="anatomy", variant="prompt_3"))
    assert B["views"][key]["mpd"] == pytest.approx(ref.mpd, abs=1e-15)
    assert len(B["rows"]["x"]) == len(d)
    assert len(B["views"]) == len(w.models) * len(w.groups) * len(w.variants)
    assert "<script src" not in page
    assert "import(url)" in page
