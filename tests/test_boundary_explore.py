"""The trajectory explorer's view model (benchkit.boundary.explore): compute layer, no Jupyter.

Oracles: benchkit.boundary.steps.profiles called directly, scipy.optimize.isotonic_regression for the fit,
Eq. 4 crossings by brute force (first position where the linear interpolant of the fit reaches
c~1 + alpha*Delta), Eq. 6 written out, pandas filtering / stable sorting of ``to_frame()``,
numpy.histogram for the bins and collections.Counter over the raw long-form answers.
"""
from __future__ import annotations

import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from scipy import optimize

from benchkit.boundary.explore import HIST_VARS
from benchkit.boundary.explore import TrajectoryView
from benchkit.boundary.explore import trajectory_view
from benchkit.boundary.steps import profiles
from naive import crossing
from naive import trajectory_filter


def test_module_imports_without_jupyter():
    code = ("import sys; sys.modules.update({m: None for m in ('traitlets', 'anywidget', 'ipywidgets', "
            "'altair')}); import benchkit.boundary.explore")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_trajectory_view_fit_crossings_and_high_side(prof, ladder):
    v = trajectory_view(prof, responses=ladder)
    assert isinstance(v, TrajectoryView)
    assert v.models == [str(m) for m in ladder.model_ids]
    df = prof.to_frame()
    for i in [int(np.flatnonzero(df["flagged"])[0]), int(np.flatnonzero(df["flat"])[0]),
              int(np.flatnonzero(~df["flat"] & ~df["flagged"])[3])]:
        t = v.trajectory(i)
        np.testing.assert_array_equal(t["counts"], prof.counts[i])
        iso = optimize.isotonic_regression(prof.c[i], increasing=True).x  # oracle (App. A)
        np.testing.assert_allclose(t["fit"], iso, atol=1e-12)
        if prof.flat[i]:
            assert t["q25"] is t["q50"] is t["q75"] is t["levels"] is None
            assert not any(t["high"])
            continue
        for key, alpha in (("q25", 0.25), ("q50", 0.5), ("q75", 0.75)):
            assert t[key] == pytest.approx(crossing(iso, alpha), abs=1e-12)  # Eq. 4
        H = np.arange(6) / 5 >= crossing(iso, 0.75) - 1e-12  # Eq. 6
        assert t["high"] == H.tolist()
        e_hi = np.mean(np.asarray(t["e"])[H])
        assert t["v"] == pytest.approx((iso[-1] - iso[0]) * t["gamma"] * (1 - e_hi), abs=1e-12)


@pytest.mark.parametrize(("brush", "flag", "delta", "by", "desc"), [
    ({"x": [0.2, 0.5]}, "all", "all", "o", False),
    ({"w": [0.1, 0.4], "v": [0.3, 1.0]}, "all", "all", "v", True),
    ({"v": [0.0, 0.05]}, "unflagged", "flat", "w", True),
    ({}, "flagged", "all", "D", True),
])
def test_mask_and_order_equal_pandas(prof, frame, brush, flag, delta, by, desc):
    v = trajectory_view(prof)
    keep = trajectory_filter(frame, brush, flag, delta)
    mask = v.mask(brush, flag_filter=flag, delta_filter=delta)
    np.testing.assert_array_equal(mask, keep.to_numpy())
    ref = frame.reset_index()[keep.to_numpy()][by].sort_values(ascending=not desc, kind="stable",
                                                               na_position="last")
    assert v.order(np.flatnonzero(mask), sort_by=by, descending=desc).tolist() == ref.index.tolist()
    hs = v.hist_selected(mask, np.linspace(0, 1, 21))
    for var in HIST_VARS:
        pop = ~frame["flat"].to_numpy() if var in ("x", "w") else np.ones(len(frame), bool)
        want = np.histogram(frame[var].to_numpy()[mask & pop], bins=np.linspace(0, 1, 21))[0]
        assert hs[var] == want.tolist()
    with pytest.raises(ValueError, match="flag_filter"):
        v.mask({}, flag_filter="some")


def test_histograms_hand_worked_bins():
    tiny = profiles(np.array([[0, 0, 10], [0, 5, 10], [10, 10, 10]]), 10, calibration="exact")
    th = trajectory_view(tiny).histograms(np.linspace(0, 1, 5))
    # item 0: fit (0, 0, 1) -> x = .75, w = .25; item 1: x = .5, w = .5; item 2 flat (excluded)
    assert th["x"]["counts"] == [0, 0, 1, 1]
    assert th["x"]["n"] == 2
    assert th["w"]["counts"] == [0, 1, 1, 0]
    assert th["o"]["counts"] == [0, 0, 0, 3]  # monotone: D = 0 -> o = 1, in the closed last bin


def test_answer_states_on_demand_and_compact_equal_counter(ladder):
    from benchkit.boundary import profile

    res = profile(ladder, axis="size")
    v = trajectory_view(res, n_answers=3)
    long = ladder.to_long()
    compact = v.compact_answers()
    assert len(compact) == 300
    for i in (0, 11, 123):
        item = v.items[i]
        sub = long[long["item"] == item]
        for j, cell in enumerate(v.item_answers(item)):
            cnt = Counter(sub.loc[sub["model"] == cell["model"], "answer"].tolist())  # oracle
            top = sorted(cnt.items(), key=lambda kv: (-kv[1], kv[0]))
            assert [(s["answer"], s["count"]) for s in cell["states"]] == top[:3]
            assert cell["other"] == sum(c for _, c in top[3:])
            assert compact[i][j] == [*([s["answer"], s["count"], s["correct"]] for s in cell["states"]),
                                     cell["other"]]


def test_long_form_answers_and_bad_inputs(prof, ladder):
    v = trajectory_view(prof, answers=ladder.to_long(), models=list(ladder.model_ids), n_answers=2)
    c = v.compact_answers()
    assert len(c) == 300
    assert all(len(cell) == 6 for cell in c)
    with pytest.raises(ValueError, match=r"models must have 6 labels"):
        trajectory_view(prof, models=["a"])
    with pytest.raises(TypeError, match=r"result must be a benchkit.boundary.steps.profiles"):
        trajectory_view({"x": 1})
    with pytest.raises(ValueError, match="n_answers"):
        trajectory_view(prof, n_answers=0)


def test_columns_are_the_profile_arrays(prof):
    cols = trajectory_view(prof).columns()
    np.testing.assert_array_equal(cols["counts"], prof.counts)
    np.testing.assert_allclose(cols["fit"], prof.fit, atol=1e-7)
    np.testing.assert_array_equal(cols["flat"].astype(bool), prof.flat)
    assert cols["fit"].dtype == np.float32
    assert cols["high_start"].dtype == np.int32
