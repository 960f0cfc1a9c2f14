"""The exact calibration kernels (BSDProbe Eq. 17/19 by enumeration) against brute force.

Oracle: for small n and T, every one of the (T+1)^n count vectors is listed with
``itertools.product``; its D is computed by the exact-rational twin (``naive.lr_statistic``), its
probability under each reference vector theta is the product of ``scipy.stats.binom.pmf``, and the
upper tails P_theta(D >= d) are plain sums over the vectors with D >= d. The kernels must agree
to 1e-12 (float64 summation order is the only difference).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

import naive
from benchkit._kernels import lrt

CASES = [(2, 1), (2, 4), (3, 2), (3, 5), (4, 3)]


def _reference(n, seed):
    """Monotone, flat, boundary (0 and 1) and random reference vectors theta (rows)."""
    rng = np.random.default_rng(seed)
    return np.vstack([
        np.linspace(0.1, 0.9, n),
        np.full(n, 0.5),
        np.r_[np.zeros(n - 1), 1.0],
        np.full(n, 1.0),
        np.sort(rng.random((3, n)), axis=1),
        rng.random((2, n)),  # not monotone: the kernels do not care
    ])


def _kernel_inputs(n, T, theta):
    keys = lrt.enumerate_keys(n, T)
    atoms, inv = np.unique(keys, return_inverse=True)
    ks = np.arange(T + 1)
    pmf = binom.pmf(ks[None, None, :], T, theta[:, :, None])  # as boundary.calibration builds it
    return atoms, inv.astype(np.int64).ravel(), pmf


@pytest.mark.parametrize(("n", "T"), CASES)
def test_enumerated_keys_equal_brute_force(n, T):
    np.testing.assert_array_equal(lrt.enumerate_keys(n, T), naive.enumerate_keys(n, T))
    np.testing.assert_array_equal(lrt.enumerate_keys(n, T, unrolled=False), naive.enumerate_keys(n, T))


@pytest.mark.parametrize(("n", "T"), CASES)
def test_exact_mass_equals_brute_force(n, T):
    theta = _reference(n, seed=10 * n + T)
    atoms, inv, pmf = _kernel_inputs(n, T, theta)
    mass = np.zeros((theta.shape[0], atoms.size))
    for a in range(theta.shape[0]):
        lrt.exact_mass(inv, pmf, a, n, T, mass)
    ref = naive.exact_mass(inv, atoms.size, theta, n, T)
    np.testing.assert_allclose(mass, ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(mass.sum(axis=1), 1.0, rtol=0, atol=1e-12)  # a distribution per theta
    assert np.all(mass >= 0)


@pytest.mark.parametrize(("n", "T"), CASES)
def test_tail_envelope_and_exact_tail_max_equal_brute_force(n, T):
    theta = _reference(n, seed=n + 100 * T)
    atoms, inv, pmf = _kernel_inputs(n, T, theta)
    b_atoms, b_tails = naive.brute_tails(n, T, theta)
    np.testing.assert_array_equal(atoms, b_atoms)
    brute = np.array([b_tails[d] for d in b_atoms])  # (atoms, theta)
    sup = brute.max(axis=1)

    tail = np.empty(atoms.size)
    arg = np.empty(atoms.size, dtype=np.int64)
    lrt.exact_tail_max(inv, atoms.size, pmf, n, T, tail, arg)
    np.testing.assert_allclose(tail, sup, rtol=0, atol=1e-12)
    # the argmax attains the sup (ties between thetas can go either way within rounding)
    np.testing.assert_allclose(brute[np.arange(atoms.size), arg], sup, rtol=0, atol=1e-12)
    assert tail[0] == pytest.approx(1.0, abs=1e-12)  # D >= 0 always
    assert np.all(np.diff(tail) <= 1e-12)  # upper tails decrease with the atom

    # tail_envelope alone, on the brute-force masses
    mass = naive.exact_mass(inv, atoms.size, theta, n, T)
    t2 = np.empty(atoms.size)
    a2 = np.empty(atoms.size, dtype=np.int64)
    lrt.tail_envelope(mass, t2, a2)
    tw, aw = naive.tail_envelope(mass)
    np.testing.assert_allclose(t2, tw, rtol=0, atol=1e-12)
    np.testing.assert_allclose(brute[np.arange(atoms.size), a2], tw, rtol=0, atol=1e-12)


def test_hand_worked_n2_T1():
    # n = 2, T = 1: only (1, 0) is out of order; c = (1, 0), c~ = (1/2, 1/2), so
    # D = 2 * 1 * (KL(Bern(1)||Bern(1/2)) + KL(Bern(0)||Bern(1/2))) = 4 log 2, every other D = 0.
    # P_theta(D >= 4 log 2) = theta_1 (1 - theta_2): 0.25 at (1/2, 1/2), 0.72 at (0.9, 0.2).
    theta = np.array([[0.5, 0.5], [0.9, 0.2], [0.2, 0.9]])
    atoms, inv, pmf = _kernel_inputs(2, 1, theta)
    np.testing.assert_array_equal(atoms, [0, int(np.rint(4 * math.log(2) * 1e10))])
    tail = np.empty(2)
    arg = np.empty(2, dtype=np.int64)
    lrt.exact_tail_max(inv, 2, pmf, 2, 1, tail, arg)
    assert tail[1] == pytest.approx(0.72, abs=1e-15)
    assert arg[1] == 1
    assert tail[0] == pytest.approx(1.0, abs=1e-15)
