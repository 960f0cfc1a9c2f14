"""The runner records a missing option letter per (model, item, variant) and refuses H_norm for it
unless asked (paper 003 Sec. 4.3: probabilities come from the letter tokens' log-probabilities;
a letter absent from the server's top list has no probability).

Oracle: H_norm and P_top1 written out by hand from the log-probabilities (softmax, then the
normalized entropy of the non-top options, Sec. 3.2) with scipy.special.softmax / numpy.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.special import softmax

import benchkit.landscape as land
from benchkit.landscape.steps import CallableBackend
from benchkit.landscape.steps import points_from_records
from benchkit.landscape.steps import read_results
from benchkit.landscape.steps import run_prompts


def _prompts(n=4):
    rows = [{"item": f"q{i}", "benchmark": "toy", "source": "s", "text": f"Q{i}?",
             "options": ["a", "b", "c", "d"], "answer_key": "A"} for i in range(n)]
    return land.steps.render(land.steps.perturb(pd.DataFrame(rows), variants=["baseline"]))


def _fn(p):
    # item q1 misses letter D among the "returned" top log-probabilities
    if p.item == "q1":
        return {"A": -0.2, "B": -2.0, "C": -3.0}
    return [-0.2, -2.0, -3.0, -4.0]


def _h_norm(lp):
    """Sec. 3.2 by hand: drop the top option, renormalize the rest, entropy / log(k - 1)."""
    p = softmax(np.asarray(lp, dtype=float))
    rest = np.delete(p, np.argmax(p))
    rest = rest / rest.sum()
    nz = rest[rest > 0]
    return float(-(nz * np.log(nz)).sum() / math.log(len(p) - 1)), float(p.max())


@pytest.fixture
def run():
    return run_prompts(_prompts(), CallableBackend(_fn, model="m", batched=False), progress=False)


def test_records_flag_missing_letters(run, tmp_path):
    assert run.records["letter_missing"].tolist() == [False, True, False, False]
    assert run.records["n_missing"].tolist() == [0, 1, 0, 0]
    miss = run.missing_letters
    assert miss[["item", "n_missing"]].values.tolist() == [["q1", 1]]
    res = run_prompts(_prompts(), CallableBackend(_fn, model="m", batched=False),
                      path=tmp_path / "r.jsonl", progress=False)
    assert read_results(res.path)["letter_missing"].tolist() == [False, True, False, False]


def test_points_refuse_h_norm_unless_asked(run):
    with pytest.raises(ValueError, match=r"1 of 4 records lack at least one option letter.*"
                                         r"item='q1'.*missing_letters='nan'"):
        run.points()
    pts = run.points(missing_letters="nan")
    h, top = _h_norm([-0.2, -2.0, -3.0, -4.0])
    np.testing.assert_allclose(pts.h_norm[[0, 2, 3]], h, rtol=1e-12)
    top_missing = softmax([-0.2, -2.0, -3.0]).max()  # P_top1 kept: D had no probability
    np.testing.assert_allclose(pts.p_top1, [top, top_missing, top, top], rtol=1e-12)
    assert math.isnan(pts.h_norm[1])
    assert pts.to_frame()["letter_missing"].tolist() == [False, True, False, False]
    allowed = run.points(missing_letters="allow")
    # D at probability 0: residual over B, C only, still divided by log(3)
    p = softmax([-0.2, -2.0, -3.0])
    rest = p[1:] / p[1:].sum()
    assert allowed.h_norm[1] == pytest.approx(-(rest * np.log(rest)).sum() / math.log(3),
                                              rel=1e-12)
    assert allowed.correct.tolist() == [True, True, True, True]


def test_to_response_set_refuses_unless_asked(run):
    with pytest.raises(ValueError, match="missing_letters='drop'"):
        run.to_response_set()
    rs = run.to_response_set(missing_letters="drop")
    assert sorted(rs.item_ids) == ["q0", "q2", "q3"]
    assert run.to_response_set(missing_letters="allow").n_items == 4
    with pytest.raises(ValueError, match="missing_letters='x' is not allowed"):
        run.to_response_set(missing_letters="x")


def test_points_from_records_without_missing_and_errors(run):
    ok = run.records[~run.records["letter_missing"]]
    pts = points_from_records(ok)
    assert len(pts) == 3
    with pytest.raises(TypeError, match="records must be a DataFrame"):
        points_from_records([1, 2])
    with pytest.raises(ValueError, match="missing_letters='zero' is not allowed"):
        points_from_records(ok, missing_letters="zero")
