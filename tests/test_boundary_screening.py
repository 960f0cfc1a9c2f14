"""Multiple-testing control for order screening (issue 13): BH q-values, d_alpha (Eq. 18), the
smallest attainable o, model names on ProfileResult, and the blocked exact enumeration.

Oracles: statsmodels' ``multipletests(method="fdr_bh")``; every attainable statistic listed by
enumeration (``naive.enumerate_keys``, the itertools twin); a hand-worked supremum for n = 3, T = 1;
brute-force tails over ``itertools.product`` (as in test_kernels_lrt_exact.py); the shipped Monte
Carlo tables (B = 200,000) within 4 binomial standard errors.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom
from statsmodels.stats.multitest import multipletests

import naive
from benchkit._kernels import lrt
from benchkit._kernels.boundary_threads import limit_threads
from benchkit.boundary.steps import exact_calibration
from benchkit.boundary.steps import get_calibration
from benchkit.boundary.steps import min_attainable_o
from benchkit.boundary.steps import profiles
from benchkit.boundary.steps import reference_family


def _counts(seed, m=400, n=6, T=20):
    rng = np.random.default_rng(seed)
    th = np.sort(rng.random((m, n)), axis=1)
    th[: m // 4] = th[: m // 4, ::-1]  # a quarter reversed: some small o
    return rng.binomial(T, th)


def test_q_values_equal_statsmodels_bh():
    prof = profiles(_counts(1), 20)
    want = multipletests(prof.o, method="fdr_bh")[1]  # oracle: statsmodels
    np.testing.assert_allclose(prof.q, want, rtol=1e-12)
    np.testing.assert_allclose(prof.to_frame()["q"].to_numpy(), want, rtol=1e-12)
    assert (prof.q >= prof.o - 1e-15).all()


def test_q_by_group_is_bh_within_each_group():
    k = _counts(2)
    groups = np.where(np.arange(k.shape[0]) % 3 == 0, "a", "b")
    prof = profiles(k, 20, by=groups)
    got = prof.q_by_group()
    for g in ("a", "b"):
        sel = groups == g
        np.testing.assert_allclose(got[sel], multipletests(prof.o[sel], method="fdr_bh")[1],
                                   rtol=1e-12)
    assert not np.allclose(got, prof.q)


@pytest.mark.parametrize(("n", "T"), [(3, 5), (4, 3)])
@pytest.mark.parametrize("alpha", [0.05, 0.2, 0.5])
def test_critical_value_is_the_rejection_boundary(n, T, alpha):
    # oracle: every attainable statistic (itertools enumeration of all count vectors)
    tab = exact_calibration(n, T)
    keys = np.unique(naive.enumerate_keys(n, T))
    o = tab.score_keys(keys)
    d = tab.critical_value(alpha=alpha)
    dkey = int(np.rint(d * 1e10))
    np.testing.assert_array_equal(o <= alpha, keys >= dkey)  # o <= alpha  <=>  D >= d_alpha
    attain = keys[keys >= dkey]
    assert attain.size
    assert tab.score_keys(attain[:1])[0] <= alpha  # Q(d_alpha) <= alpha
    below = keys[keys < dkey]
    assert below.size
    assert tab.score_keys(below[-1:])[0] > alpha  # smallest such statistic


def test_critical_value_empty_rejection_set_and_zero():
    tab = exact_calibration(3, 1)
    assert tab.critical_value(alpha=0.05) == math.inf
    assert tab.critical_value(alpha=1.0) == 0.0
    with pytest.raises(ValueError, match="alpha"):
        tab.critical_value(alpha=1.5)


def test_min_attainable_o_hand_worked_n3_T1():
    # n = 3, T = 1: the largest D (= 2 log 3 + 4 log 1.5) is attained only by (1,0,0) and (1,1,0),
    # whose probability theta_1 (1 - theta_3) is at most 1/4 over theta_1 <= theta_2 <= theta_3
    # (at theta = (1/2, 1/2, 1/2), a flat vector of the exact family).
    assert min_attainable_o(3, 1) == pytest.approx(0.25, abs=1e-12)
    keys = naive.enumerate_keys(3, 1)
    assert keys.max() == int(np.rint((2 * math.log(3) + 4 * math.log(1.5)) * 1e10))


def test_min_attainable_o_monte_carlo_and_profile_accessors():
    tab = get_calibration(6, 20)
    # the largest simulated statistic was seen once: o = (1 + 1) / (B + 1) (Eq. 19)
    assert tab.tail[-1] == 1
    assert min_attainable_o(6, 20) == pytest.approx(2.0 / (tab.n_resamples + 1), rel=1e-12)
    prof = profiles(_counts(3), 20, calibration=tab)
    assert prof.min_attainable_o == tab.min_attainable_o
    assert prof.critical_value == tab.critical_value(alpha=0.05)
    d = prof.critical_value
    np.testing.assert_array_equal(prof.flagged, np.rint(prof.D * 1e10) >= np.rint(d * 1e10))
    with pytest.raises(ValueError, match="method='x' is not allowed"):
        min_attainable_o(6, 20, method="x")


def test_profile_result_carries_model_names():
    k = _counts(4, m=20)
    names = ["m-a", "m-b", "m-c", "m-d", "m-e", "m-f"]
    assert profiles(k, 20, models=names).models == tuple(names)
    assert profiles(k, 20).models is None
    with pytest.raises(ValueError, match="models must name the 6 axis models"):
        profiles(k, 20, models=names[:5])
    with pytest.raises(TypeError, match="models must be a sequence"):
        profiles(k, 20, models="abcdef")


# -- blocked exact enumeration ---------------------------------------------------------------
@pytest.mark.parametrize(("n", "T", "block"), [(2, 4, 1), (3, 3, 2), (4, 2, 5)])
def test_blocked_exact_tails_equal_brute_force(n, T, block):
    rng = np.random.default_rng(n * 10 + T)
    theta = np.vstack([np.linspace(0.1, 0.9, n), np.full(n, 0.5), np.r_[np.zeros(n - 1), 1.0],
                       np.sort(rng.random((4, n)), axis=1), rng.random((2, n))])
    atoms_b, tails = naive.brute_tails(n, T, theta)
    keys = lrt.enumerate_keys(n, T)
    atoms, inv = lrt.group_index(keys, chunk=7)
    np.testing.assert_array_equal(atoms, atoms_b)
    pmf = binom.pmf(np.arange(T + 1)[None, None, :], T, theta[:, :, None])
    tail = np.empty(atoms.size)
    arg = np.empty(atoms.size, np.int64)
    lrt.exact_tail_max_blocked(inv, atoms.size, pmf, n, T, tail, arg, block=block)
    want = np.array([max(tails[d]) for d in atoms_b])
    np.testing.assert_allclose(tail, want, rtol=1e-12, atol=1e-14)
    for g, d in enumerate(atoms_b):  # argmax: the smallest index attaining the max (ties to 1e-12)
        best = np.flatnonzero(np.isclose(tails[d], want[g], rtol=1e-12, atol=1e-14))
        assert arg[g] in best


def test_group_index_equals_numpy_unique():
    keys = lrt.enumerate_keys(4, 6)
    atoms, inv = lrt.group_index(keys, chunk=1000)
    a2, i2 = np.unique(keys, return_inverse=True)
    np.testing.assert_array_equal(atoms, a2)
    np.testing.assert_array_equal(inv, i2.ravel())


def test_exact_table_does_not_depend_on_threads_or_block():
    a = exact_calibration(4, 6, block=3)
    with limit_threads(1):
        b = exact_calibration(4, 6, block=64)
    np.testing.assert_array_equal(a.atoms, b.atoms)
    np.testing.assert_allclose(a.tail, b.tail, rtol=0, atol=1e-15)
    with limit_threads(1):
        c = exact_calibration(4, 6, block=3)
    np.testing.assert_array_equal(a.tail, c.tail)  # same blocks: bit-identical for any threads
    np.testing.assert_array_equal(a.argmax, c.argmax)


@pytest.mark.parametrize(("n", "T"), [(4, 10), (5, 10)])
def test_exact_equals_shipped_monte_carlo_within_4_se(n, T):
    # oracle: the shipped Monte Carlo table (B = 200,000, seed 42, same family); the exact tail
    # at every Monte Carlo atom lies within 4 binomial standard errors of count / B. The standard
    # error uses max(p, 1/B): a Monte Carlo atom is a statistic seen at least once, so its count is
    # >= 1 by construction (the full n = 6, T = 20 run in benchmarks/ shows why: all 6,711 other
    # atoms have z < 2.8, the largest atom, count 1 at p = 1.4e-7, has z = 5.9 without the floor).
    mc = get_calibration(n, T)
    ex = exact_calibration(n, T, reference=reference_family(n), flat_levels=0)
    z = _z_scores(ex, mc)
    assert z.max() <= 4.0, (z.max(), mc.atoms[z.argmax()])
    assert np.median(z) < 1.5


def _z_scores(ex, mc):
    p = ex.score_keys(mc.atoms)
    B = mc.n_resamples
    se = np.sqrt(np.maximum(p, 1.0 / B) * np.maximum(1 - p, 1.0 / B) / B)
    return np.abs(mc.tail / B - p) / se


def test_exact_table_refuses_above_max_vectors():
    with pytest.raises(ValueError, match="more than max_vectors=1,000"):
        exact_calibration(4, 6, max_vectors=1000)
    with pytest.raises(ValueError, match="block"):
        exact_calibration(3, 2, block=0)
