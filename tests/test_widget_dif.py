"""DIFExplorer (issue 10 item 9): the widget's Python side and its static export.

Oracles: the audit's own arrays (benchkit.dif.RankingAudit.anchors), the view models of
benchkit.dif.explore, the ranking counts of RankingResult (Eq. 9/40), and the strict-reversal
definition of Eq. 9 re-applied by hand to the listed scores.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from benchkit.dif import analyze_robustness
from benchkit.dif.explore import heatmap_view
from benchkit.dif.explore import near_tie_view
from benchkit.dif.explore import reversal_curve_view
from benchkit.dif.explore import robustness_forest_view
from benchkit.dif.explore import signature_view
from benchkit.widgets import DIFExplorer
from benchkit.widgets._base import unpack_arrays
from jupyter_harness import assert_exported


def test_initial_state_comes_from_the_audit(dif_result):
    w = DIFExplorer(dif_result)
    assert w.families == list(dif_result.families)
    assert w.result is dif_result
    assert w.items == [str(i) for i in dif_result.item_ids]
    A = unpack_arrays(w.heat)
    for h, fa in enumerate(dif_result.anchors):
        np.testing.assert_array_equal(A[f"delta{h}"], fa.delta.astype(np.float32))
        np.testing.assert_array_equal(A[f"D{h}"], fa.D.astype(np.float32))
        np.testing.assert_array_equal(A[f"anchor{h}"], fa.selected[-1].astype(np.uint8))
        hv = heatmap_view(dif_result, half=h)  # the view model's D ordering and anchor marks
        assert [w.items[i] for i in A[f"order{h}"]] == hv["item"].tolist()
        assert A[f"anchor{h}"][A[f"order{h}"]].astype(bool).tolist() == hv["anchor"].tolist()
    assert pd.DataFrame(w.curve)["low_dif_rate"].tolist() == pytest.approx(
        reversal_curve_view(dif_result)["low_dif_rate"].tolist(), abs=0)
    assert w.thresholds == pytest.approx([25e-2, 0.5, 1, 2, 3, 5])
    assert w.epsilon == 1.0
    assert w.summary["close_n"] == int(dif_result.ranking.eligible[2].sum())
    assert w.forest == []
    assert w.selected == ""
    assert w.selected_signature.empty


def test_pair_table_lists_exactly_the_strict_reversals(dif_result):
    w = DIFExplorer(dif_result)
    for eps in w.thresholds:
        rev0 = w.revision
        w.epsilon = eps
        t = pd.DataFrame(w.pairs)
        if eps != 1.0:
            assert w.revision == rev0 + 1  # one recomputation published
        ref = near_tie_view(dif_result, epsilon=eps / 100)
        assert t[["model_a", "model_b"]].values.tolist() == ref[["model_a", "model_b"]].values.tolist()
        # Eq. 9 by hand: the anchor order strictly disagrees with the full order; anchor ties excluded
        d = t["anchor_a"] - t["anchor_b"]
        flip = (np.sign(t["full_a"] - t["full_b"]) * d < 0) & (d.abs() > 1e-12)
        assert t["reversed"].tolist() == flip.tolist()
        # the ranking's pooled counts (Eq. 40): flips and eligible (non-tied) pairs per threshold
        j = w.thresholds.index(eps)
        assert int(t["reversed"].sum()) == int(dif_result.ranking.flips[j].sum())
        assert int((~t["anchor_tie"]).sum()) == int(dif_result.ranking.eligible[j].sum())
    w.reversals_only = True
    assert w.pair_table["reversed"].all()
    assert len(w.pair_table) == int(dif_result.ranking.flips[-1].sum())


def test_selecting_an_item_gives_its_signature(dif_result):
    w = DIFExplorer(dif_result, texts={"q7": "What is 2 + 2?"})
    w.selected = "q7"
    sig = w.selected_signature
    pd.testing.assert_frame_equal(sig, signature_view(dif_result, "q7"))
    i = 7
    assert sig[sig["half"] == 1]["delta"].tolist() == dif_result.anchors[1].delta[i].tolist()
    assert w.texts[i] == "What is 2 + 2?"
    assert w.texts[0] == ""
    with pytest.raises(ValueError, match=r"selected='nope' is not an item of this audit"):
        w.selected = "nope"
    with pytest.raises(ValueError, match=r"half=2 is not allowed; choose 0 or 1"):
        w.half = 2
    with pytest.raises(ValueError, match=r"epsilon=0.7 pp is not an audited threshold"):
        w.epsilon = 0.7


def test_errors_name_the_argument(dif_result):
    with pytest.raises(TypeError, match=r"audit must be a benchkit.dif.RankingAudit.*got DataFrame"):
        DIFExplorer(dif_result.to_frame())
    with pytest.raises(TypeError, match=r"texts must be a mapping or Series item -> text; got list"):
        DIFExplorer(dif_result, texts=["a"])
    with pytest.raises(TypeError, match=r"robustness must be a DataFrame.*got list"):
        DIFExplorer(dif_result, robustness={"x": [1]})


def test_forest_rows_come_from_robustness(dif_sim_rs, dif_result):
    _s, rs = dif_sim_rs
    table = analyze_robustness(rs, dif_result, perturbations={"owner cap 3": {"owner_cap": 3}}, n_controls=20,
                               rng=1, progress=False)
    w = DIFExplorer(dif_result, robustness={"sim": table})
    ref = robustness_forest_view(table, benchmark="sim")
    f = pd.DataFrame(w.forest)
    assert f["variant"].tolist() == ref["variant"].tolist()
    assert f["excess_pp"].tolist() == pytest.approx(ref["excess_pp"].tolist(), abs=0)
    assert f["primary"].tolist() == [True, False]
    assert f["filled"].tolist() == (ref["p_value"] <= 0.05).tolist()
    # the stored image draws the forest too (in place of "No robustness table given"), and its
    # widest row still fits a notebook
    svg = w.static_svg()
    assert "No robustness table given" not in svg
    assert ">owner cap 3</text>" in svg
    data, meta = w._repr_mimebundle_()
    assert meta["image/png"]["width"] <= 960


def test_to_html_embeds_every_threshold_and_the_arrays(dif_result, tmp_path):
    w = DIFExplorer(dif_result, texts={"q3": "</script><b>x</b>"})
    page, state, esm = assert_exported(w, tmp_path / "dif.html")
    assert "export default" in esm
    assert "function unpackArrays" in esm
    assert state["pairs"] == []  # embedded once, as binary columns of the largest threshold
    B, M = state["pair_bin"], state["pair_models"]
    for eps in w.thresholds:  # the page's filter (gap <= eps) gives near_tie_view(eps)'s rows
        ref = near_tie_view(dif_result, epsilon=eps / 100)
        keep = B["gap_pp"] <= eps * (1 + 1e-9)
        got = list(zip(np.asarray(M)[B["a"][keep]], np.asarray(M)[B["b"][keep]], B["reversed"][keep] == 1))
        assert got == list(zip(ref["model_a"], ref["model_b"], ref["reversed"]))
        np.testing.assert_array_equal(B["anchor_a"][keep], ref["anchor_a"].to_numpy())
    np.testing.assert_array_equal(state["heat"]["D1"], dif_result.anchors[1].D.astype(np.float32))
    assert state["texts"][3] == "</script><b>x</b>"
    assert "</script><b>" not in page  # the text travels compressed, never as markup


@pytest.mark.slow  # draws the explorer's whole view four times (PNG and SVG): ~6 s on 2 cores
def test_static_image_is_the_whole_view(dif_result):
    # the image stored with the live widget (issue 24 item 4) holds the explorer's whole view: the
    # summary, the heatmap window, the selected item's signature, Figures 1-2 and the pair table
    w = DIFExplorer(dif_result)
    data, meta = w._repr_mimebundle_()
    assert data["image/png"]
    assert meta["image/png"]["alt"].startswith("benchkit DIFExplorer")
    svg = w.static_svg()
    assert f"close pairs {w.summary['close_n']:.0f}" in svg
    order = heatmap_view(dif_result, half=0)["item"].tolist()
    assert f"rows 1–60 of {len(order)}, half 0" in svg
    for item in order[:60]:  # every row of the window, each marked when it is an anchor
        assert re.search(rf">(● )?{re.escape(item)}</text>", svg), item
    assert f"{order[0]} (top D; none selected)" in svg
    for t in reversal_curve_view(dif_result)["threshold_pp"]:
        assert f">{t:g}</text>" in svg  # every threshold of the curve is an axis label
    assert "No robustness table given" in svg
    pairs = w.pair_table
    assert f"Near-tie pairs within 1 pp: {len(pairs)} pairs, {int(pairs['reversed'].sum())} flip" in svg
    first = pairs.sort_values("reversed", ascending=False, kind="stable").iloc[0]
    assert f">{first['model_a']}</text>" in svg
    # the view follows the explorer: another item, the other half, another threshold
    w.selected, w.half, w.epsilon = order[5], 1, 0.5
    svg = w.static_svg()
    assert f"{order[5]}</text>" in svg
    assert "(top D; none selected)" not in svg
    assert "half 1 (● anchor)" in svg
    assert "Near-tie pairs within 0.5 pp" in svg
