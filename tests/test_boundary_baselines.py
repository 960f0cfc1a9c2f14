"""The Bayesian (Xiao et al. 2025) and PSN-IRT (Zhou et al. 2026) subset baselines (readings in
benchkit.boundary._baselines) on small hand-worked and simulated cases.

Oracles: hand-worked posterior means (1 + s)/3 for the Bayesian weights; the 2PL Fisher
information a^2 P (1 - P) written out with scipy.special.expit for PSN-IRT; sampling
probabilities checked by counting many draws against the proportional law (first draw).
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from benchkit.boundary._baselines import bayesian_item_weights
from benchkit.boundary._baselines import psn_irt_item_information
from benchkit.boundary._baselines import select_bayesian
from benchkit.boundary._baselines import select_psn_irt
from benchkit.boundary._baselines import select_weighted
from benchkit.boundary.steps import subset_utility
from benchkit.boundary.steps import utility_table
from benchkit.irt import fit_2pl


def test_bayesian_weights_hand_worked():
    # three models, accuracies 1/4, 2/4, 3/4 -> order (0, 1, 2); posterior means (1 + s)/3
    Y = np.array([[0, 1, 1], [0, 0, 1], [1, 0, 1], [0, 0, 0]], dtype=float)
    w = bayesian_item_weights(Y)
    # item 0: p = (1/3, 2/3, 2/3): mean diff = (1/3 + 0)/2 = 1/6; item 1: (0 + 1/3)/2 = 1/6;
    # item 2: (2/3, 1/3, 2/3): (-1/3 + 1/3)/2 = 0; item 3: 0
    np.testing.assert_allclose(w, [1 / 6, 1 / 6, 0, 0], atol=1e-15)
    # column order does not matter (models are sorted by accuracy first, ties in column order)
    np.testing.assert_allclose(bayesian_item_weights(Y[:, [2, 0, 1]]), w, atol=1e-15)
    with pytest.raises(ValueError, match="at least 2 models"):
        bayesian_item_weights(Y[:, :1])
    with pytest.raises(ValueError, match=r"lie in \[0, 1\]"):
        bayesian_item_weights(Y * 2)


def test_psn_irt_information_equals_2pl_formula():
    rng = np.random.default_rng(0)
    th = rng.normal(size=8)
    b = rng.normal(size=60)
    Y = (rng.random((60, 8)) < expit(1.3 * (th[None, :] - b[:, None]))).astype(float)
    fit = fit_2pl(Y)
    info = psn_irt_item_information(fit)
    P = expit(fit.discrimination[:, None] * (fit.ability[None, :] - fit.difficulty[:, None]))
    want = (fit.discrimination[:, None] ** 2 * P * (1 - P)).sum(1)
    ok = np.isfinite(fit.difficulty)
    np.testing.assert_allclose(info[ok], want[ok], rtol=1e-12)
    assert (info[~ok] == 0).all()
    sub = select_psn_irt(Y, 10, rng=1)
    assert sub.method == "psn_irt"
    assert sub.indices.size == 10
    assert np.array_equal(select_psn_irt(None, 10, fit=fit, rng=1).indices, sub.indices)


def test_weighted_sampling_law_and_reproducibility():
    w = np.array([0.0, 1.0, 3.0, 6.0])
    first = np.array([select_weighted(w, 2, floor=0.0, rng=s).indices[0] for s in range(4000)])
    freq = np.bincount(first, minlength=4) / first.size
    # first draw ~ w / sum(w): sd <= 0.008 at 4000 draws
    np.testing.assert_allclose(freq, w / w.sum(), atol=0.03)
    a = select_bayesian(np.eye(5)[:, :3], 2, rng=7)
    b = select_bayesian(np.eye(5)[:, :3], 2, rng=7)
    assert np.array_equal(a.indices, b.indices)
    assert np.allclose(a.weights, 0.5)
    assert select_weighted(np.zeros(3), 3, rng=0).indices.size == 3  # all-zero: uniform
    with pytest.raises(ValueError, match="larger than the candidate pool"):
        select_weighted(w, 5)
    with pytest.raises(ValueError, match="non-negative"):
        select_weighted(-w, 1)


def test_baselines_in_subset_utility_table():
    rng = np.random.default_rng(5)
    th = np.sort(rng.normal(size=6))
    b = rng.normal(size=300)
    R = (rng.random((300, 6)) < expit(th[None, :] - b[:, None])).astype(float)
    r1 = subset_utility(R, sizes=(30,), n_repeats=4, rng=2)
    r2 = subset_utility(R, sizes=(30,), n_repeats=4, rng=2, n_jobs=2)
    assert r1.methods == ("Random", "TinyBenchmarks", "Anchor Points", "Bayesian", "PSN-IRT")
    assert np.array_equal(r1.scores, r2.scores, equal_nan=True)
    tab = utility_table([r1])
    assert {"Bayesian", "PSN-IRT"} <= set(tab.columns.get_level_values("method"))
    # the discriminative baselines should select items that separate the models more than
    # random draws do (larger NDR on this monotone 1PL simulation)
    nd = np.nanmean(r1.ndr[:, 0], axis=1)
    assert nd[3] > nd[0]
    assert nd[4] > nd[0]
