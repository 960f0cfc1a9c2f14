"""Tests of benchkit.landscape.steps.points (paper 003, Sec. 3.1-3.2)."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy.special import softmax
from scipy.stats import entropy

from benchkit.landscape import LandscapePoints
from benchkit.landscape.steps import points


def _oracle(p):
    """Independent per-row oracle: scipy entropy of the renormalized non-top options / log(k-1)."""
    p = np.asarray(p, float) / np.sum(p)
    k = p.size
    top = int(np.argmax(p))
    rest = np.delete(p, top)
    if k == 2 or rest.sum() == 0:
        return p[top], 0.0, top
    return p[top], entropy(rest / rest.sum()) / math.log(k - 1), top


def test_hand_worked_case():
    # P = (0.7, 0.2, 0.1, 0.0): residual (2/3, 1/3, 0), H = -(2/3 ln 2/3 + 1/3 ln 1/3) = 0.636514,
    # H_norm = 0.636514 / ln 3 = 0.579380 (hand computation).
    r = points([[0.7, 0.2, 0.1, 0.0]])
    assert r.p_top1[0] == pytest.approx(0.7, abs=1e-15)
    h = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3)) / math.log(3)
    assert r.h_norm[0] == pytest.approx(h, abs=1e-15)
    assert r.h_norm[0] == pytest.approx(0.579380, abs=1e-6)
    assert r.pred[0] == 0


def test_random_probs_against_scipy_entropy():
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.full(5, 0.7), size=400)
    P[::7, 3] = 0.0  # zeros in the residual
    r = points(P)
    for i in range(P.shape[0]):
        pt, h, top = _oracle(P[i])
        assert r.p_top1[i] == pytest.approx(pt, abs=1e-14)
        assert r.h_norm[i] == pytest.approx(h, abs=1e-12)
        assert r.pred[i] == top


def test_logits_and_logprobs_match_softmax():
    rng = np.random.default_rng(1)
    L = rng.normal(scale=3, size=(300, 4))
    r = points(L, kind="logits")
    S = softmax(L, axis=1)  # scipy oracle of the paper's "Softmax" (Sec. 4.3)
    np.testing.assert_allclose(r.probs, S, rtol=0, atol=1e-14)
    ref = points(S)
    np.testing.assert_allclose(r.h_norm, ref.h_norm, atol=1e-12)
    np.testing.assert_allclose(r.p_top1, ref.p_top1, atol=1e-14)
    lp = np.log(S) + 0.3  # unnormalized log-probabilities renormalize to the same thing
    r2 = points(lp, kind="logprobs")
    np.testing.assert_allclose(r2.h_norm, r.h_norm, atol=1e-12)


def test_residual_from_logits_is_accurate_when_top_rounds_to_one():
    # P_top1 = 1 - 3e-22 rounds to 1; the residual is still exactly uniform -> H_norm = 1.
    r = points([[60.0, 0.0, 0.0, 0.0], [60.0, 0.0, 0.0, -np.inf]], kind="logits")
    assert r.p_top1[0] == 1.0
    assert r.h_norm[0] == pytest.approx(1.0, abs=1e-15)
    # residual (1/2, 1/2, 0): H = ln 2, H_norm = ln 2 / ln 3
    assert r.h_norm[1] == pytest.approx(math.log(2) / math.log(3), abs=1e-15)


def test_fixed_readings_k2_zero_residual_uniform():
    r = points([[0.6, 0.4, np.nan, np.nan], [1.0, 0.0, 0.0, 0.0], [0.25] * 4, [0.5, 0.5, 0.0, 0.0]],
               offered=[2, 4, 4, 4])
    assert r.h_norm[0] == 0.0  # k = 2
    assert r.h_norm[1] == 0.0  # residual mass 0
    assert r.h_norm[2] == pytest.approx(1.0, abs=1e-15)  # uniform
    assert r.p_top1[2] == 0.25
    assert r.pred[2] == 0
    assert r.h_norm[3] == 0.0  # residual all on one option (B), others 0


def test_offered_options_outside_restricted_set():
    rng = np.random.default_rng(2)
    L = rng.normal(size=(50, 6))  # logits over A-F; items have 4 options
    r = points(L, kind="logits", offered=4)
    S4 = softmax(L[:, :4], axis=1)
    np.testing.assert_allclose(r.probs[:, :4], S4, atol=1e-14)
    assert np.all(r.probs[:, 4:] == 0)
    assert np.all(r.n_options == 4)
    full = softmax(L, axis=1)
    np.testing.assert_allclose(r.outside_mass, full[:, 4:].sum(axis=1), atol=1e-14)
    # per-row counts: row i offers 4 or 5 options; NaN allowed outside
    counts = np.where(np.arange(50) % 2 == 0, 4, 5)
    L2 = L.copy()
    L2[counts == 4, 4:] = np.nan
    r2 = points(L2, kind="logits", offered=counts)
    for i in range(50):
        pt, h, top = _oracle(softmax(L[i, :counts[i]]))
        assert r2.h_norm[i] == pytest.approx(h, abs=1e-12)
        assert r2.p_top1[i] == pytest.approx(pt, abs=1e-14)
    # probabilities with an E column outside: renormalized over A-D, E reported as outside mass
    r3 = points([[0.4, 0.2, 0.1, 0.1, 0.2]], offered=np.array([1, 1, 1, 1, 0], bool))
    assert r3.p_top1[0] == pytest.approx(0.5)
    assert r3.outside_mass[0] == pytest.approx(0.2)


def test_answer_correct_and_frame():
    meta = pd.DataFrame({"model": ["m1", "m1", "m2"], "item": ["q1", "q2", "q1"]})
    r = points([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3], [0.2, 0.2, 0.6]], answer=["B", "c", "C"], meta=meta)
    assert r.correct.tolist() == [True, False, True]
    assert r.accuracy == pytest.approx(2 / 3)
    f = r.to_frame()
    assert list(f.columns[:2]) == ["model", "item"]
    assert f["pred"].tolist() == ["B", "A", "C"]
    assert f["answer"].tolist() == ["B", "C", "C"]
    assert {"p_top1", "h_norm", "correct", "p_A", "p_C", "outside_mass"} <= set(f.columns)
    np.testing.assert_array_equal(r.xy, np.column_stack([r.p_top1, r.h_norm]))
    r2 = points([[0.1, 0.6, 0.3]], answer=[1])
    assert r2.correct[0]
    assert isinstance(r2, LandscapePoints)


def test_unnormalized_probs_are_renormalized_or_rejected():
    r = points([[2.0, 1.0, 1.0]])
    assert r.p_top1[0] == 0.5
    assert r.h_norm[0] == pytest.approx(1.0)
    with pytest.raises(ValueError, match=r"row 0 sums to 4.0 over the offered options"):
        points([[2.0, 1.0, 1.0]], renormalize=False)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(probs=[[0.5, -0.1, 0.6]]), r"probs\[0, 1\]=-0.1 must be a finite probability >= 0"),
        (dict(probs=[[0.5, np.nan, 0.5]]), r"probs\[0, 1\] is NaN but option B is offered"),
        (dict(probs=[[0.0, 0.0, 0.0]]), r"row 0 has zero probability on every offered option"),
        (dict(probs=[0.5, 0.5]), r"probs must have 2 dimension"),
        (dict(probs=[[1.0]]), r"at least 2 option columns"),
        (dict(probs=[[0.5, 0.5]], kind="logit"), r"kind='logit' is not allowed"),
        (dict(probs=[[0.5, 0.5, 0]], offered=1), r"offered=1 must be between 2"),
        (dict(probs=[[0.5, 0.5, 0]], answer=["D"]), r"answer\[0\]='D' is not an option label"),
        (dict(probs=[[0.5, 0.5, 0]], answer=[2], offered=2),
         r"answer\[0\]=C is not among the offered options of row 0"),
        (dict(probs=[[0.0, np.inf]], kind="logits"), r"is \+inf"),
        (dict(probs=[[0.5, 0.5]], meta=pd.DataFrame({"a": [1, 2]})), r"meta has 2 rows but probs has N=1"),
    ],
)
def test_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        points(**kwargs)
