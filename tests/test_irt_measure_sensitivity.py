"""benchkit.measure.analyze_sensitivity: the metrics under the analysis choices paper 002 leaves open."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import special

from benchkit import ResponseSet
from benchkit import measure
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError

# Items x models, symmetric under (item i -> 4 - i, model j -> 3 - j, 0 <-> 1): A all-correct,
# E easy, M middle, H hard, W all-wrong. The penalized JML objective is strictly concave with
# symmetric priors, so its optimum is symmetric: b_M = 0, b_H = -b_E, b_W = -b_A, mean ability 0.
_Y = np.array([
    [1, 1, 1, 1],  # A
    [0, 1, 1, 1],  # E
    [0, 0, 1, 1],  # M
    [0, 0, 0, 1],  # H
    [0, 0, 0, 0],  # W
], dtype=float)


@pytest.fixture(scope="module")
def rs():
    frame = pd.DataFrame(_Y, index=["A", "E", "M", "H", "W"], columns=["m0", "m1", "m2", "m3"])
    return ResponseSet.from_wide(frame, name="sym")


@pytest.fixture(scope="module")
def sens(rs):
    return measure.analyze_sensitivity(rs, extreme=("keep", "drop", "drop_correct"),
                               item_prior_sd=(1.0, 3.0, 10.0), normalize=("minmax", "logistic"))


def _row(t, **kw):
    m = np.ones(len(t), bool)
    for k, v in kw.items():
        m &= (t[k] == v).to_numpy()
    assert m.sum() == 1
    return t[m].iloc[0]


def test_sensitivity_hand_worked_drop(sens):
    t = sens.to_frame()
    assert len(t) == 3 * 3 * 2
    for sd in (1.0, 3.0, 10.0):
        r = _row(t, extreme="drop", item_prior_sd=sd, normalize="minmax")
        # by symmetry z = {0, 1/2, 1}; uniform reference (i - 1/2)/3 = 1/6, 1/2, 5/6:
        # DDM = (1/6 + 0 + 1/6) / 3 = 1/9; gaps with the ends 0, 1/2, 1/2, 0
        assert r["n_items"] == 3
        assert r["n_removed"] == 2
        assert r["ddm"] == pytest.approx(1 / 9, abs=1e-6)
        assert r["max_gap"] == pytest.approx(0.5, abs=1e-6)
        assert r["top_sum"] == pytest.approx(1.0, abs=1e-6)
        # logistic: z = expit(-c), 1/2, expit(c) with c = b_H; DDM = 2 |expit(c) - 5/6| / 3,
        # gaps e, 1/2 - e, 1/2 - e, e with e = expit(-c)
        rl = _row(t, extreme="drop", item_prior_sd=sd, normalize="logistic")
        fit = measure.fit_difficulties(_drop_rs(), item_prior_sd=sd)
        b = dict(zip(fit.items, fit.difficulty))
        assert b["M"] == pytest.approx(0.0, abs=1e-6)
        assert b["E"] == pytest.approx(-b["H"], abs=1e-6)
        c = b["H"]
        e = special.expit(-c)
        assert rl["ddm"] == pytest.approx(2 * abs(special.expit(c) - 5 / 6) / 3, abs=1e-9)
        assert rl["max_gap"] == pytest.approx(max(e, 0.5 - e), abs=1e-9)
        assert rl["top_sum"] == pytest.approx(1.0, abs=1e-9)


def _drop_rs():
    frame = pd.DataFrame(_Y[1:4], index=["E", "M", "H"], columns=["m0", "m1", "m2", "m3"])
    return ResponseSet.from_wide(frame, name="sym")


def test_sensitivity_hand_worked_keep(rs, sens):
    t = sens.to_frame()
    xs = []
    for sd in (1.0, 3.0, 10.0):
        r = _row(t, extreme="keep", item_prior_sd=sd, normalize="minmax")
        fit = measure.fit_difficulties(rs, item_prior_sd=sd)
        b = dict(zip(fit.items, fit.difficulty))
        # symmetric: z = 0, x, 1/2, 1 - x, 1 with x = (b_E - b_A) / (b_W - b_A);
        # reference 0.1, 0.3, 0.5, 0.7, 0.9: DDM = (0.2 + 2 |x - 0.3|) / 5, Max Gap
        # max(x, 1/2 - x), top-5 sum = 1 (the four gaps x, 1/2 - x, 1/2 - x, x and two 0)
        x = (b["E"] - b["A"]) / (b["W"] - b["A"])
        assert b["W"] == pytest.approx(-b["A"], abs=1e-6)
        assert r["n_items"] == 5
        assert r["n_removed"] == 0
        assert r["ddm"] == pytest.approx((0.2 + 2 * abs(x - 0.3)) / 5, abs=1e-9)
        assert r["max_gap"] == pytest.approx(max(x, 0.5 - x), abs=1e-9)
        assert r["top_sum"] == pytest.approx(1.0, abs=1e-9)
        xs.append(x)
    # a wider item prior pushes the extreme items out and compresses the others to the middle
    assert xs[0] < xs[1] < xs[2] < 0.5


def test_sensitivity_matches_measure_benchmarks(rs, sens):
    # oracle: the pipeline itself at each setting (one fit per setting, no reuse)
    t = sens.to_frame()
    for ext, sd in [("keep", 3.0), ("drop", 10.0)]:
        res = measure.measure_benchmarks(rs, extreme=ext, item_prior_sd=sd)
        r = _row(t, extreme=ext, item_prior_sd=sd, normalize="minmax")
        row = res.to_frame().iloc[0]
        assert r["ddm"] == pytest.approx(row["DDM"], abs=1e-12)
        assert r["max_gap"] == pytest.approx(row["Max Gap"], abs=1e-12)
        assert r["top_sum"] == pytest.approx(row["Top-5 Sum"], abs=1e-12)
    # drop_correct: A removed before the fit
    r = _row(t, extreme="drop_correct", item_prior_sd=3.0, normalize="minmax")
    assert r["n_removed"] == 1
    assert r["n_items"] == 4
    sub = rs.select(items=["E", "M", "H", "W"])
    ref = measure.measure_benchmarks(sub, item_prior_sd=3.0)["sym"]
    assert r["ddm"] == pytest.approx(ref.ddm, abs=1e-12)


def test_sensitivity_views(sens):
    t = sens.to_frame()
    assert t["is_default"].sum() == 1
    d = _row(t, is_default=True)
    assert (d["extreme"], d["item_prior_sd"], d["normalize"]) == ("keep", 3.0, "minmax")
    rg = sens.ranges_frame()
    assert list(rg["metric"]) == ["ddm", "max_gap", "top_sum"]
    ddm = rg.set_index("metric").loc["ddm"]
    assert ddm["min"] == t["ddm"].min()
    assert ddm["max"] == t["ddm"].max()
    assert ddm["default"] == d["ddm"]
    by = sens.by_choice("extreme")
    assert list(by["extreme"]) == ["keep", "drop", "drop_correct"]
    assert by["ddm"].iloc[0] == d["ddm"]
    assert list(sens.by_choice("item_prior_sd")["item_prior_sd"]) == [1.0, 3.0, 10.0]


@pytest.mark.parametrize(("kw", "err", "msg"), [
    (dict(extreme="some"), BenchkitValueError, "extreme"),
    (dict(extreme=()), BenchkitValueError, "extreme"),
    (dict(item_prior_sd=0.0), BenchkitValueError, "item_prior_sd"),
    (dict(item_prior_sd=(3.0, 3.0)), BenchkitValueError, "repeated"),
    (dict(normalize="rank"), BenchkitValueError, "normalize"),
    (dict(method="bayes"), BenchkitValueError, "method"),
])
def test_sensitivity_errors(rs, kw, err, msg):
    with pytest.raises(err, match=msg):
        measure.analyze_sensitivity(rs, **kw)


def test_sensitivity_needs_response_sets():
    with pytest.raises(BenchkitTypeError, match="ResponseSet"):
        measure.analyze_sensitivity({"x": np.array([0.1, 0.2])})
    with pytest.raises(BenchkitValueError, match="choice"):
        measure.Sensitivity(pd.DataFrame(), {}, 5).by_choice("prior")
