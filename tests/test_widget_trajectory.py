"""Trajectory explorer (issue 5 item 9): the widget's Python side and its static export.

Oracles: benchkit.boundary.steps.profiles called directly (the widget must only relay its numbers),
scipy.optimize.isotonic_regression for the fit, an independent implementation of Eq. 4 (first
position where the linear interpolant of the fit reaches c~1 + alpha*Delta) and Eq. 6 (H and v),
pandas filtering/sorting of ``to_frame()`` for the list, numpy.histogram for the bins and
collections.Counter over the raw long-form answers for the sample answers.
"""
from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

from benchkit import ResponseSet
from benchkit.boundary.steps import profiles
from benchkit.widgets import TrajectoryExplorer
from benchkit.widgets._assets import asset
from benchkit.widgets._base import BenchkitWidget
from jupyter_harness import assert_exported
from naive import crossing
from naive import trajectory_filter


# ------------------------------------------------------------------- selected item
def test_selecting_an_item_syncs_its_trajectory_fit_crossings_and_numbers(prof, ladder):
    w = TrajectoryExplorer(prof, responses=ladder)
    assert w.models == [str(m) for m in ladder.model_ids]  # counts match -> roster order used
    df = prof.to_frame()
    picks = [int(np.flatnonzero(df["flagged"])[0]), int(np.flatnonzero(df["flat"])[0]),
             int(np.flatnonzero(~df["flat"] & ~df["flagged"])[3]), 0]
    for i in picks:
        w.selected = i  # what the front end does when a row is clicked
        t = w.trajectory
        assert t["index"] == i
        assert t["item"] == str(ladder.item_ids[i]) == w.item
        np.testing.assert_array_equal(t["counts"], prof.counts[i])
        np.testing.assert_allclose(t["c"], prof.counts[i] / 10, atol=1e-15)
        np.testing.assert_allclose(t["e"], prof.entropy[i], atol=1e-15)
        np.testing.assert_allclose(t["fit"], prof.fit[i], atol=1e-15)
        # oracle: scipy's isotonic regression of C (equal weights, App. A)
        iso = optimize.isotonic_regression(prof.c[i], increasing=True).x
        np.testing.assert_allclose(t["fit"], iso, atol=1e-12)
        for key in ("x", "w", "v", "o", "D", "gamma", "delta", "a"):
            assert t[key] == pytest.approx(float(getattr(prof, key)[i]), abs=1e-15), key
        assert t["flagged"] == bool(prof.flagged[i])
        assert t["flat"] == bool(prof.flat[i])
        if prof.flat[i]:
            assert t["q25"] is t["q50"] is t["q75"] is t["levels"] is None
            assert t["w"] == 1.0
            assert not any(t["high"])
            assert t["v"] == 0.0
            continue
        for key, alpha in (("q25", 0.25), ("q50", 0.5), ("q75", 0.75)):
            assert t[key] == pytest.approx(crossing(iso, alpha), abs=1e-12)
            assert t[key] == pytest.approx(float(getattr(prof, key)[i]), abs=1e-15)
            assert t["levels"][str(alpha)] == pytest.approx(iso[0] + alpha * (iso[-1] - iso[0]), abs=1e-12)
        assert t["x"] == pytest.approx(t["q50"])
        assert t["w"] == pytest.approx(t["q75"] - t["q25"])
        # Eq. 6: H = {i : s_i >= Q_0.75}, v = Delta * gamma * (1 - mean_H e)
        s = np.arange(6) / 5
        H = s >= crossing(iso, 0.75) - 1e-12
        assert t["high"] == H.tolist()
        e_hi = np.mean(np.asarray(t["e"])[H])
        assert t["e_hi"] == pytest.approx(e_hi, abs=1e-12)
        assert t["v"] == pytest.approx((iso[-1] - iso[0]) * t["gamma"] * (1 - e_hi), abs=1e-12)
    w.select(str(ladder.item_ids[7]))
    assert w.selected == 7
    assert w.trajectory["item"] == str(ladder.item_ids[7])
    w.selected = -1
    assert w.trajectory == {}
    assert w.item is None
    with pytest.raises(ValueError, match=r"selected=300 must be -1 \(none\) or a row index 0..299"):
        w.selected = 300
    with pytest.raises(ValueError, match=r"selected='nope' is not an item id"):
        w.select("nope")


def test_initial_list_is_sorted_by_o_and_shows_the_first_item(prof, frame):
    w = TrajectoryExplorer(prof)
    ref = frame.reset_index().sort_values("o", kind="stable", na_position="last")
    assert w.listed == ref.index.tolist()
    assert w.selected == w.listed[0]
    assert w.trajectory["index"] == w.listed[0]
    assert w.models == [f"model {j}" for j in range(1, 7)]  # nothing said which models
    row = w.rows[5]
    for key in ("x", "w", "v", "o", "D", "gamma", "delta"):
        assert row[key] == pytest.approx(float(frame[key].iloc[5]), abs=1e-15)
    assert row["flagged"] == bool(frame["flagged"].iloc[5])
    assert row["item"] == frame.index[5]
    sm = w.summary
    assert sm["n_items"] == 300
    assert sm["n_flat"] == int(frame["flat"].sum())
    assert sm["n_flagged"] == int(frame["flagged"].sum())
    assert sm["mean_x"] == pytest.approx(frame.loc[~frame["flat"], "x"].mean(), abs=1e-15)


# ------------------------------------------------------------------- filtering and sorting
def _pandas_filter(df, brush, flag="all", delta="all"):
    return df[trajectory_filter(df, brush, flag, delta)]


@pytest.mark.parametrize(("brush", "flag", "delta", "sort_by", "desc"), [
    ({"x": [0.2, 0.5]}, "all", "all", "o", False),
    ({"w": [0.1, 0.4], "v": [0.3, 1.0]}, "all", "all", "v", True),
    ({"o": [0.0, 0.2]}, "all", "all", "x", False),
    ({"v": [0.0, 0.05]}, "unflagged", "flat", "w", True),
    ({}, "flagged", "all", "D", True),
    ({"x": [0.6, 0.6]}, "all", "positive", "index", True),  # a degenerate brush is allowed
])
def test_brush_and_filters_select_exactly_the_pandas_rows(prof, frame, brush, flag, delta, sort_by, desc):
    w = TrajectoryExplorer(prof, items=frame.index)
    with w.hold_trait_notifications():
        w.brush = brush
        w.flag_filter = flag
        w.delta_filter = delta
        w.sort_by = sort_by
        w.sort_descending = desc
    ref = _pandas_filter(frame, brush, flag, delta).reset_index()
    ref["index"] = [frame.index.get_loc(i) for i in ref["item"]]
    if sort_by == "index":
        expected = ref["index"].tolist()[::-1] if desc else ref["index"].tolist()
    else:
        ref = ref.set_index("index")
        expected = ref[sort_by].sort_values(ascending=not desc, kind="stable",
                                            na_position="last").index.tolist()
    assert w.listed == expected
    assert w.filtered.index.tolist() == [frame.index[i] for i in expected]
    # linked histograms: counts of the listed items on the same bins
    sel = np.zeros(len(frame), bool)
    sel[expected] = True
    for var in ("x", "w", "v", "o"):
        pop = ~frame["flat"].to_numpy() if var in ("x", "w") else np.ones(len(frame), bool)
        ref_counts, _ = np.histogram(frame[var].to_numpy()[sel & pop], bins=np.linspace(0, 1, 21))
        assert w.hist_selected[var] == ref_counts.tolist()


def test_a_brush_from_the_front_end_and_clearing(prof, frame):
    w = TrajectoryExplorer(prof, items=frame.index)
    w.brush = {"x": (0.25, 0.45)}  # as sent by a drag (a JSON list; tuples accepted)
    assert w.brush == {"x": [0.25, 0.45]}
    n_brushed = len(_pandas_filter(frame, {"x": [0.25, 0.45]}))
    assert 0 < len(w.listed) == n_brushed < 300
    w.set_brush("o", hi=0.5)
    assert w.brush == {"x": [0.25, 0.45], "o": [0.0, 0.5]}
    assert len(w.listed) == len(_pandas_filter(frame, w.brush))
    w.set_brush("x")
    assert set(w.brush) == {"o"}
    w.flag_filter = "flagged"
    w.clear_filters()
    assert w.brush == {}
    assert w.flag_filter == "all"
    assert len(w.listed) == 300
    for bad, match in [({"q": [0, 1]}, r"brush variable 'q' is not one of \['x', 'w', 'v', 'o'\]"),
                       ({"x": [0.5, 0.1]}, r"brush\['x'\] must be finite \[lo, hi\] with lo <= hi"),
                       ({"x": [0.1]}, r"brush\['x'\] must be \[lo, hi\]")]:
        with pytest.raises(ValueError, match=match):
            w.brush = bad
    with pytest.raises(ValueError, match="flag_filter"):
        w.flag_filter = "some"
    with pytest.raises(ValueError, match="sort_by"):
        w.sort_by = "colour"


def test_histograms_are_numpy_bins_over_the_paper_populations(prof, frame):
    w = TrajectoryExplorer(prof, bins=10)
    edges = np.linspace(0, 1, 11)
    pos = ~frame["flat"]
    for var in ("x", "w"):
        h = w.histograms[var]
        assert h["counts"] == np.histogram(frame.loc[pos, var], bins=edges)[0].tolist()
        assert h["n"] == int(pos.sum())
        assert h["population"] == "Δ > 0 items"
        # v-weighted distribution (Sec. 3.3), normalized
        wc = np.histogram(frame.loc[pos, var], bins=edges, weights=frame.loc[pos, "v"])[0]
        np.testing.assert_allclose(h["weighted"], wc / frame.loc[pos, "v"].sum(), atol=1e-15)
    for var in ("v", "o"):
        assert w.histograms[var]["counts"] == np.histogram(frame[var], bins=edges)[0].tolist()
        assert w.histograms[var]["n"] == 300
    # hand-worked bin rule: half-open bins, the last one closed
    tiny = profiles(np.array([[0, 0, 10], [0, 5, 10], [10, 10, 10]]), 10, calibration="exact")
    th = TrajectoryExplorer(tiny, bins=4).histograms
    # item 0: fit (0, 0, 1) on s = (0, .5, 1) -> Q.25 = .625, Q.5 = .75, Q.75 = .875, w = .25;
    # item 1: fit (0, .5, 1) -> x = .5, w = .5; item 2 is flat (excluded from x and w)
    assert th["x"]["counts"] == [0, 0, 1, 1]
    assert th["x"]["n"] == 2
    assert th["w"]["counts"] == [0, 1, 1, 0]
    # monotone trajectories: D = 0 -> o = 1, which falls in the closed last bin
    assert th["o"]["counts"] == [0, 0, 0, 3]


# ------------------------------------------------------------------- inputs and metadata
def _answer_oracle(long, item, models):
    """Per model: Counter of answer states of ``item`` in the raw long table."""
    sub = long[long["item"] == item]
    return {m: Counter(sub.loc[sub["model"] == m, "answer"].tolist()) for m in models}


def test_response_level_result_gives_axis_models_answers_and_entropy_source(ladder):
    from benchkit.boundary.responses import profile

    res = profile(ladder, axis="size")
    w = TrajectoryExplorer(res, n_answers=3)
    assert w.models == list(res.axis.models)
    assert w.entropy_source == "answers"
    assert w.summary["entropy_source"] == "answers"
    long = ladder.to_long()
    for i in (0, 11, 123):
        w.selected = i
        t = w.trajectory
        np.testing.assert_allclose(t["fit"], res.profile.fit[i], atol=1e-15)
        np.testing.assert_allclose(t["e"], res.trajectories.entropy[i], atol=1e-15)
        ref = _answer_oracle(long, t["item"], w.models)
        key = dict(zip(ladder.item_ids.astype(str), ladder.items["answer_key"]))[t["item"]]
        for cell in t["answers"]:
            cnt = ref[cell["model"]]
            top = sorted(cnt.items(), key=lambda kv: (-kv[1], kv[0]))
            assert [(s["answer"], s["count"]) for s in cell["states"]] == top[:3]
            assert cell["other"] == sum(c for _, c in top[3:])
            assert cell["total"] == 10
            assert all(s["correct"] == float(s["answer"] == key) for s in cell["states"])
    # the same numbers from the array-level result plus the ResponseSet
    w2 = TrajectoryExplorer(res.profile, responses=ladder, models=list(res.axis.models), n_answers=3)
    w2.selected = 123
    assert w2.trajectory["answers"] == w.trajectory["answers"]
    # a ResponseSet is profiled with profile' defaults
    w3 = TrajectoryExplorer(ladder)
    assert len(w3.rows) == 300
    assert w3.entropy_source == "answers"


def test_text_from_responses_and_mapping_is_cut_and_plain(prof, ladder):
    items = pd.DataFrame({"item": ladder.item_ids.astype(str),
                          "text": [f"<b>question {i}</b> " + "x" * (i % 50) * 20 for i in range(300)]})
    long = ladder.to_long()
    rs = ResponseSet.from_long(long, items=items, T=10, parse_names=False)
    w = TrajectoryExplorer(prof, responses=rs, text_chars=80)
    w.selected = 49
    assert w.trajectory["text"] == (items["text"][49][:79] + "…")
    w.selected = 0
    assert w.trajectory["text"] == "<b>question 0</b> "
    assert w.previews[1].startswith("<b>question 1</b>")
    m = TrajectoryExplorer(prof, text={str(ladder.item_ids[2]): "two"})
    m.selected = 2
    assert m.trajectory["text"] == "two"
    assert m.previews[3] is None


def test_given_entropy_recomputes_the_profiles(prof, ladder):
    rng = np.random.default_rng(5)
    E = rng.uniform(0, 1, prof.counts.shape)
    w = TrajectoryExplorer(prof, entropy=E)
    ref = profiles(prof.counts, prof.T, entropy=E, items=prof.items)  # oracle: direct call
    np.testing.assert_allclose(w.result.v, ref.v, atol=1e-15)
    i = int(np.flatnonzero(~ref.flat)[0])
    w.selected = i
    np.testing.assert_allclose(w.trajectory["e"], E[i], atol=1e-15)
    assert w.trajectory["v"] == pytest.approx(ref.v[i], abs=1e-15)
    assert w.entropy_source == "given"
    assert not np.allclose(ref.v, prof.v)  # the entropy really changed v


def test_models_are_not_taken_from_responses_whose_counts_differ(prof, ladder):
    reversed_rs = ladder.select(models=list(ladder.model_ids[::-1]))
    K = reversed_rs.counts().K
    assert not np.array_equal(K, prof.counts)
    with pytest.raises(ValueError, match=r"responses' count matrix .* does not reproduce result.counts"):
        TrajectoryExplorer(prof, responses=reversed_rs)
    # with the axis order given, the answers are matched by model id
    w = TrajectoryExplorer(prof, responses=reversed_rs, models=list(ladder.model_ids))
    ref = _answer_oracle(ladder.to_long(), w.item, w.models)
    assert {c["model"]: c["total"] for c in w.trajectory["answers"]} == \
        {m: sum(ref[m].values()) for m in w.models}


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(models=["a", "b"]), r"models must have 6 labels \(one per model\); got 2"),
    (dict(items=["a"]), r"items must have 300 labels \(one per item\); got 1"),
    (dict(bins=0), "bins"),
    (dict(sort_by="size"), "sort_by"),
    (dict(answers=pd.DataFrame({"item": ["q"]})), r"answers is missing columns \['model', 'answer'\]"),
    (dict(answers=pd.DataFrame({"item": ["q"], "model": ["m"], "answer": ["A"]})),
     "answers has no rows for the result's items and models"),
    (dict(text=pd.DataFrame({"body": ["a"]})), "text DataFrame needs a 'text' column"),
    (dict(responses="rs"), "responses must be a benchkit.ResponseSet"),
])
def test_bad_options_raise_clear_errors(prof, kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        TrajectoryExplorer(prof, **kwargs)


def test_bad_result_type():
    with pytest.raises(TypeError, match=r"result must be a benchkit.boundary.steps.profiles\(...\) result"):
        TrajectoryExplorer({"x": 1})


# ------------------------------------------------------------------- export and assets
def test_to_html_embeds_every_item_as_binary_columns(prof, ladder, tmp_path):
    w = TrajectoryExplorer(prof, responses=ladder)
    w.brush = {"v": [0.2, 1.0]}
    w.selected = 17
    page, state, _ = assert_exported(w, tmp_path / "traj.html", "trajectory.js")
    assert state["selected"] == 17
    assert state["visible"]["idx"].tolist() == w.listed
    assert state["brush"] == {"v": [0.2, 1.0]}
    assert state["trajectory"] == w.trajectory
    C = state["bundle_cols"]
    assert C["fit"].shape == (300, 6)
    assert C["fit"].dtype == np.float32
    np.testing.assert_allclose(C["fit"][250], prof.fit[250], atol=1e-7)
    np.testing.assert_array_equal(C["counts"], prof.counts)
    np.testing.assert_allclose(C["q75"], prof.q75, atol=1e-6)  # NaN (flat items) stays NaN
    # compact answers: per model [[answer, count, correct], ..., other] == the live view's answers
    w.selected = 250
    for cell, live in zip(state["bundle"]["answers"][250], w.trajectory["answers"]):
        want = [[s["answer"], s["count"], s["correct"]] for s in live["states"]]
        assert [[a, c, k] for a, c, k in cell[:-1]] == want
        assert cell[-1] == live["other"]


def test_assets_are_plain_esm_without_network_imports():
    js = asset("trajectory.js")
    assert "export default" in js
    assert not re.search(r"^\s*import\s", js, flags=re.M)
    assert "http://" not in js.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in js
    assert ".bk-c-line" in asset("trajectory.css")
    w = TrajectoryExplorer(profiles(np.array([[0, 1, 2], [2, 1, 0]]), 2, calibration="exact"))
    assert isinstance(w, BenchkitWidget)
    assert set(w.state_names()) >= {"table", "visible", "brush", "selected", "trajectory", "histograms"}
    assert isinstance(w.visible, bytes)
    assert isinstance(w.table, bytes)


# ------------------------------------------------------------------- real data
def test_cruxeval_output_deepseek_coder_size_ladder():
    from benchkit import datasets

    try:
        rs = datasets.fetch("eval-arena", benchmark="cruxeval_output")
    except (FileNotFoundError, OSError) as exc:  # pragma: no cover - only without the mirror
        pytest.skip(f"eval-arena data unavailable: {exc}")
    ladder = ["deepseek-base-1.3b", "deepseek-base-6.7b", "deepseek-base-33b"]
    sub = rs.select(models=ladder)
    cm = sub.counts()
    assert set(sub.budget.tolist()) == {10}
    p = profiles(cm.K, 10, items=sub.item_ids)
    w = TrajectoryExplorer(p, responses=sub)
    assert w.models == ladder
    assert len(w.rows) == 800
    assert w.summary["n_models"] == 3
    w.brush = {"x": [0.0, 0.5]}
    df = p.to_frame()
    assert len(w.listed) == int((df["x"].between(0, 0.5) & ~df["flat"]).sum())
    i = w.listed[0]
    w.selected = i
    np.testing.assert_array_equal(w.trajectory["counts"], cm.K[i])
    assert w.trajectory["item"].startswith("CRUXEval-output/")
    assert w.trajectory["answers"] is None  # counts only: no answer states


def test_static_image_is_the_selected_items_trajectory(prof, frame):
    # the image stored beside the live widget (issue 13 item 1) follows the selected item
    w = TrajectoryExplorer(prof)
    for i in (w.listed[0], w.listed[7]):
        w.selected = i
        assert w._repr_mimebundle_()[0]["image/png"]  # stored as a PNG of the chart checked below
        svg = w.static_svg()
        assert f"{frame.index[i]}:" in svg  # the title's first line, the numbers on the second
        assert f"x={frame['x'].iloc[i]:.2f} w={frame['w'].iloc[i]:.2f}" in svg
        assert "(Delta&gt;0)" in svg  # the benchmark-level histograms are there too (XML-escaped)
        # and the item list as shown: the first listed items in order, the selected one marked
        assert f"Items listed, sorted by {w.sort_by} (first 15 of {len(w.listed)})" in svg
        for k in w.listed[:15]:
            mark = "→ " if k == i else ""
            assert f">{mark}{frame.index[k]}</text>" in svg
