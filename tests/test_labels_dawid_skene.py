"""benchkit.labels.steps.dawid_skene against a loop transcription of Dawid and Skene (1979).

Oracle: the paper's EM written item by item and model by model (Eq. 2.3: the M-step's error rates
and class priors; Eq. 2.5: the E-step's posterior), started from the same majority vote, with the
same Dirichlet pseudo-votes. Plus recovery of planted confusion matrices and invariances.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from benchkit.labels.steps import dawid_skene


def _naive_em(V, valid, a0, strength, n_iter):
    n, M, K = V.shape
    T = np.zeros((n, K))
    for i in range(n):  # majority vote start
        tot = [sum(V[i, m, c] for m in range(M)) + (1e-9 if valid[i, c] else 0.0) for c in range(K)]
        tot = [t if valid[i, c] else 0.0 for c, t in enumerate(tot)]
        T[i] = np.array(tot) / sum(tot)
    for _ in range(n_iter):
        pi = np.zeros((M, K, K))
        for m in range(M):
            for c in range(K):
                row = [(strength * a0 if v == c else strength * (1 - a0) / (K - 1))
                       + sum(T[i, c] * V[i, m, v] for i in range(n)) for v in range(K)]
                pi[m, c] = np.array(row) / sum(row)
        prior = T.mean(axis=0)
        for i in range(n):
            logs = []
            for c in range(K):
                if not valid[i, c]:
                    logs.append(-math.inf)
                    continue
                s = math.log(prior[c])
                for m in range(M):
                    for v in range(K):
                        if V[i, m, v] > 0:
                            s += V[i, m, v] * math.log(pi[m, c, v])
                logs.append(s)
            top = max(logs)
            w = [math.exp(x - top) for x in logs]
            T[i] = np.array(w) / sum(w)
    return T, pi, prior


def _votes(rng, n, M, K, acc, soft=False, missing=0.0):
    truth = rng.integers(0, K, n)
    V = np.zeros((n, M, K))
    for m in range(M):
        right = rng.random(n) < acc[m]
        other = (truth + rng.integers(1, K, n)) % K
        choice = np.where(right, truth, other)
        V[np.arange(n), m, choice] = 1.0
    if soft:
        V = 0.7 * V + 0.3 * rng.dirichlet(np.ones(K), size=(n, M))
    if missing:
        V[rng.random((n, M)) < missing] = 0.0
    return truth, V


@pytest.mark.parametrize("soft", [False, True])
def test_em_matches_the_loop_transcription(soft):
    rng = np.random.default_rng(1)
    _, V = _votes(rng, 40, 5, 3, [0.9, 0.8, 0.7, 0.6, 0.5], soft=soft, missing=0.1)
    valid = np.ones((40, 3), dtype=bool)
    valid[:5, 2] = False
    V[:5, :, 2] = 0.0
    rows = V.sum(axis=2, keepdims=True)
    V = np.where(rows > 0, V / np.where(rows > 0, rows, 1.0), 0.0)
    fit = dawid_skene(V, valid=valid, prior_accuracy=0.6, prior_strength=2.5, max_iter=7, tol=0.0)
    T, pi, prior = _naive_em(V, valid, 0.6, 2.5, 7)
    assert fit.n_iter == 7
    assert not fit.converged
    np.testing.assert_allclose(fit.posterior, T, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fit.confusion, pi, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fit.prior, prior, rtol=0, atol=1e-12)
    assert np.all(fit.posterior[:5, 2] == 0)
    assert np.all(np.isneginf(fit.log_likelihood[:5, 2]))


def test_recovers_planted_accuracies_and_beats_majority_vote():
    rng = np.random.default_rng(7)
    acc = np.array([0.95, 0.9, 0.85, 0.45, 0.4, 0.35, 0.3])
    truth, V = _votes(rng, 3000, acc.size, 4, acc)
    fit = dawid_skene(V)
    assert fit.converged
    np.testing.assert_allclose(fit.ability, acc, atol=0.03)
    ds_acc = np.mean(fit.posterior.argmax(axis=1) == truth)
    mv_acc = np.mean(V.sum(axis=1).argmax(axis=1) == truth)
    assert ds_acc > mv_acc + 0.03  # weighting by reliability beats the unweighted vote here


def test_invariant_to_model_order_and_option_labels():
    rng = np.random.default_rng(3)
    _, V = _votes(rng, 200, 6, 4, [0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
    base = dawid_skene(V)
    mp = rng.permutation(6)
    np.testing.assert_allclose(dawid_skene(V[:, mp]).posterior, base.posterior, atol=1e-10)
    op = rng.permutation(4)
    np.testing.assert_allclose(dawid_skene(V[:, :, op]).posterior, base.posterior[:, op], atol=1e-10)


@pytest.mark.parametrize(("votes", "kw", "exc", "msg"), [
    (np.zeros((3, 2)), {}, ValueError, "3 dimension"),
    (np.full((2, 2, 3), 0.5), {}, ValueError, "sums to 1.5"),
    (-np.eye(3)[None, [0, 1]], {}, ValueError, ">= 0"),
    (np.eye(3)[None, [0, 2]], {"valid": np.array([[True, True, False]])}, ValueError, "does not have"),
    (np.eye(3)[None, [0, 1]], {"valid": np.array([[1, 1, 0]])}, ValueError, "boolean array"),
    (np.eye(3)[None, [0, 1]], {"prior_accuracy": 1.0}, ValueError, "prior_accuracy"),
    (np.eye(3)[None, [0, 1]], {"prior_strength": 0}, ValueError, "prior_strength"),
    (np.eye(3)[None, [0, 1]], {"max_iter": 1.5}, TypeError, "max_iter"),
])
def test_errors(votes, kw, exc, msg):
    with pytest.raises(exc, match=msg):
        dawid_skene(votes, **kw)
