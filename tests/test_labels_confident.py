"""Confident learning (Northcutt, Jiang and Chuang 2021) against a loop transcription.

Oracle: Eq. 2 (thresholds: mean self-confidence per given label) and the confident joint's
counting rule written per example, as cleanlab's documentation spells it out
(``count.compute_confident_joint``: a class is confident when p >= t - 1e-6; with several, the
argmax; the diagonal clipped to >= 1), and Eq. 3's calibration (rows to the label counts, total to n).
"""
from __future__ import annotations

import numpy as np
import pytest

from benchkit.labels.steps import confident_joint
from benchkit.labels.steps import confident_thresholds


def _naive(P, y, K):
    t = np.array([np.mean([P[i, k] for i in range(len(y)) if y[i] == k]) if (y == k).any() else np.inf
                  for k in range(K)])
    cj = np.zeros((K, K), dtype=int)
    conf = []
    for i, row in enumerate(P):
        bins = row >= t - 1e-6
        if bins.sum() == 0:
            conf.append(-1)
            continue
        j = int(np.argmax(bins)) if bins.sum() == 1 else int(np.argmax(row))
        conf.append(j)
        cj[y[i], j] += 1
    for k in range(K):
        cj[k, k] = max(cj[k, k], 1)
    return t, np.array(conf), cj


def test_matches_the_loop_transcription():
    rng = np.random.default_rng(0)
    for _ in range(20):
        n, K = int(rng.integers(20, 80)), int(rng.integers(2, 6))
        y = rng.integers(0, K, n)
        P = rng.dirichlet(np.ones(K) * 0.5, n)
        P[np.arange(n), y] += 0.5
        P /= P.sum(axis=1, keepdims=True)
        t, conf, cj = _naive(P, y, K)
        res = confident_joint(P, y)
        np.testing.assert_allclose(res.thresholds, np.maximum(t, 2e-6))
        assert res.confident.tolist() == conf.tolist()
        assert res.counts.tolist() == cj.tolist()
        assert res.off_diagonal.tolist() == ((conf >= 0) & (conf != y)).tolist()
        label_counts = np.bincount(y, minlength=K)
        np.testing.assert_allclose(res.calibrated.sum(axis=1) * n / res.calibrated.sum(), label_counts * 1.0)
        assert abs(res.calibrated.sum() - n) < 1e-9


def test_hand_case():
    # thresholds: class 0 keyed on rows 0, 2 -> (0.9 + 0.2) / 2 = 0.55; class 1 keyed on row 1 -> 0.9
    P = [[0.9, 0.1], [0.1, 0.9], [0.2, 0.8]]
    res = confident_joint(P, [0, 1, 0])
    assert res.thresholds.tolist() == pytest.approx([0.55, 0.9])
    # row 2: p1 = 0.8 < 0.9 and p0 = 0.2 < 0.55 -> no confident class
    assert res.confident.tolist() == [0, 1, -1]
    assert res.off_diagonal.tolist() == [False, False, False]
    assert confident_thresholds(P, [0, 1, 0]).tolist() == pytest.approx([0.55, 0.9])


def test_unlabelled_class_and_invalid_classes_are_never_confident():
    P = np.array([[0.2, 0.0, 0.8], [0.9, 0.0, 0.1], [0.6, 0.0, 0.4]])
    res = confident_joint(P, [0, 0, 0], valid=np.array([[1, 0, 1], [1, 0, 1], [1, 0, 0]], bool))
    assert np.isinf(res.thresholds[1:]).tolist() == [True, True]
    assert res.confident.tolist() == [-1, 0, 0]


@pytest.mark.parametrize(("P", "y", "kw", "msg"), [
    ([[0.5, 0.5]], [2], {}, "class indices"),
    ([[0.5, 0.5]], [0, 1], {}, "shape"),
    ([[0.5, 0.5]], [1], {"valid": [[True, False]]}, "not a valid class"),
    ([[0.5, 0.5]], [1], {"valid": [[True, True, True]]}, "shape of probs"),
])
def test_errors(P, y, kw, msg):
    with pytest.raises(ValueError, match=msg):
        confident_joint(P, y, **kw)
