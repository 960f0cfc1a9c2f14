"""Every module of benchkit._kernels has slow twins in tests/naive.py, and each kernel equals them.

Kernels whose twin comparison lives with their method's tests: ``lr_statistic_counts`` and the PAVA
batch dispatch (tests/test_kernels_pava.py), the exact-calibration kernels
(tests/test_kernels_lrt_exact.py). The others are compared here on inputs small enough for the
twins.
"""
from __future__ import annotations

import importlib
import pkgutil
from fractions import Fraction

import numpy as np
import pytest

import benchkit._kernels
import naive
from benchkit._kernels import irt as kirt
from benchkit._kernels import lrt
from benchkit._kernels import mpd as kmpd
from benchkit._kernels import pava
from benchkit._kernels.boundary_codegen import NMAX


def test_every_kernel_module_has_twins():
    modules = {f"benchkit._kernels.{m.name}" for m in pkgutil.iter_modules(benchkit._kernels.__path__)}
    covered = set(naive.TWINS) | set(naive.NOT_KERNELS)
    assert modules - covered == set(), "kernel modules without twins in tests/naive.py"
    assert covered - modules == set(), "tests/naive.py names modules that no longer exist"
    for name, kernels in naive.TWINS.items():
        mod = importlib.import_module(name)
        for kernel, twin in kernels.items():
            names = [kernel.format(n=n) for n in range(2, NMAX + 1)] if "{n}" in kernel else [kernel]
            for k in names:
                assert callable(getattr(mod, k, None)), f"{name}.{k} is gone: update naive.TWINS"
            assert callable(twin)


@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_pava_serial_kernels_equal_exact_twin(n):
    rng = np.random.default_rng(n)
    k = rng.integers(0, 6, (60, n))
    num, den, blocks = (np.empty((60, n), np.int64) for _ in range(3))
    pava.pava_counts_serial(k, num, den, blocks, 0, 60)
    fit = np.empty((60, n))
    fblocks = np.empty((60, n), np.int64)
    pava.pava_float_serial(k / 5.0, fit, fblocks, -np.inf, np.inf, 0, 60)
    for r in range(60):
        tn, td, tl = naive.pava_counts(k[r])
        np.testing.assert_array_equal(num[r], tn)
        np.testing.assert_array_equal(den[r], td)
        np.testing.assert_array_equal(blocks[r], tl)
        tf, _ = naive.pava_exact([Fraction(int(x), 5) for x in k[r]])
        np.testing.assert_allclose(fit[r], [float(x) for x in tf], rtol=0, atol=1e-12)


@pytest.mark.parametrize("n", [2, 3, 6, 8])
def test_minmax_fit_equals_min_max_formula(n):
    rng = np.random.default_rng(40 + n)
    lcm = pava.lcm_upto(n)
    lcm_div = np.array([0] + [lcm // L for L in range(1, n + 1)], dtype=np.int64)
    P, R, F = np.empty(n + 1, np.int64), np.empty(n, np.int64), np.empty(n, np.int64)
    for krow in rng.integers(0, 11, (80, n)):
        pava.minmax_counts_lcm(krow, n, lcm_div, P, R, F)
        np.testing.assert_array_equal(F, naive.minmax_fit_units(krow, lcm))
        # ... which is the PAVA fit in units of 1/lcm
        fit, _ = naive.pava_exact([int(x) for x in krow])
        assert [Fraction(int(f), lcm) for f in F] == fit


def test_envelope_counts_equals_twin():
    rng = np.random.default_rng(5)
    per_vector = [np.sort(rng.integers(0, 12, 40)) for _ in range(4)]
    atoms, env_t, arg_t = naive.envelope_counts(per_vector)
    keys, counts = [], []
    for row in per_vector:
        u, c = np.unique(row, return_counts=True)
        keys.append(u)
        counts.append(c)
    offsets = np.r_[0, np.cumsum([len(u) for u in keys])].astype(np.int64)
    env = np.empty(atoms.size, np.int64)
    arg = np.empty(atoms.size, np.int64)
    lrt.envelope_counts(atoms.astype(np.int64), np.concatenate(keys).astype(np.int64),
                        np.concatenate(counts).astype(np.int64), offsets, env, arg)
    np.testing.assert_array_equal(env, env_t)
    np.testing.assert_array_equal(arg, arg_t)


def test_scan_binary_equals_twin():
    rng = np.random.default_rng(21)
    Y = (rng.random((37, 23)) < 0.4).astype(float)
    Y[rng.random(Y.shape) < 0.2] = np.nan
    Y[4, 7], Y[9, 2], Y[0, 0] = 2.0, -1.0, np.inf
    for got, want in zip(kirt.scan_binary(Y), naive.scan_binary(Y)):
        np.testing.assert_array_equal(got, want)
    assert naive.scan_binary(Y)[-1] == 3


@pytest.mark.slow  # compiles the pair-sum kernels (~10 s cold on 2 cores)
@pytest.mark.parametrize(("n", "block"), [(2, 1), (23, 5), (64, 16), (70, 64)])
def test_pair_sum_kernels_equal_twin(n, block):
    rng = np.random.default_rng(n + block)
    pts = np.ascontiguousarray(rng.random((2, n)))
    pts[:, :3] = 0.5  # duplicate points: d = 0 exactly
    bi, bj = kmpd.tile_tasks(n, block)
    want = naive.pair_sums(pts, bi, bj, block)
    np.testing.assert_allclose(kmpd.pair_sums_2d(pts[0].copy(), pts[1].copy(), bi, bj, block), want,
                               rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(kmpd.pair_sums_2d_serial(pts[0].copy(), pts[1].copy(), bi, bj, block),
                               want, rtol=1e-13, atol=1e-13)
    pts3 = np.ascontiguousarray(rng.normal(size=(3, n)))
    np.testing.assert_allclose(kmpd.pair_sums_nd(pts3, bi, bj, block), naive.pair_sums(pts3, bi, bj, block),
                               rtol=1e-13, atol=1e-13)
    w = rng.integers(0, 4, size=(3, n)).astype(float)
    np.testing.assert_allclose(kmpd.weighted_pair_sums(pts3, w, bi, bj, block),
                               naive.weighted_pair_sums(pts3, w, bi, bj, block), rtol=1e-13, atol=1e-13)
