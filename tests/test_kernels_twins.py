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

import numba
import numpy as np
import pytest

import benchkit._kernels
import naive
from benchkit._kernels import dif as kdif
from benchkit._kernels import irt as kirt
from benchkit._kernels import lrt
from benchkit._kernels import mpd as kmpd
from benchkit._kernels import pava
from benchkit._kernels import vecmath
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
    starts, _ = kmpd.tile_starts([n // 3, n - n // 3], block)
    ti, tj = kmpd.tile_tasks(starts.size - 1, 1)
    want = naive.pair_sums_tiles(pts[0], pts[1], starts, ti, tj)
    for fn in (kmpd.pair_sums_tiles, kmpd.pair_sums_tiles_serial):
        np.testing.assert_allclose(fn(pts[0].copy(), pts[1].copy(), starts, ti, tj), want,
                                   rtol=1e-13, atol=1e-13)
    p32 = pts.astype(np.float32)  # float32 coordinates: float32 distances, float64 sums
    np.testing.assert_allclose(kmpd.pair_sums_tiles(p32[0].copy(), p32[1].copy(), starts, ti, tj),
                               naive.pair_sums_tiles(p32[0], p32[1], starts, ti, tj), rtol=1e-6, atol=1e-6)
    pts3 = np.ascontiguousarray(rng.normal(size=(3, n)))
    np.testing.assert_allclose(kmpd.pair_sums_nd(pts3, bi, bj, block), naive.pair_sums(pts3, bi, bj, block),
                               rtol=1e-13, atol=1e-13)
    w = rng.integers(0, 4, size=(3, n)).astype(float)
    np.testing.assert_allclose(kmpd.weighted_pair_sums(pts3, w, bi, bj, block),
                               naive.weighted_pair_sums(pts3, w, bi, bj, block), rtol=1e-13, atol=1e-13)


@numba.njit(error_model="numpy")
def _vexp_loop(x):
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = vecmath.exp(x[i])
    return out


def test_vectorizable_exp_within_one_ulp_of_numpy():
    rng = np.random.default_rng(8)
    x = np.concatenate([rng.uniform(-708, 708, 200_000), rng.uniform(-40, 40, 200_000),
                        np.linspace(-0.35, 0.35, 1001), [0.0, -0.0, 1.0, 708.0, -708.0]])
    got, want = _vexp_loop(x), np.exp(x)
    # 1 ulp: |got - want| <= 2.3e-16 |want| (the claim in benchkit/_kernels/vecmath.py)
    assert np.max(np.abs(got - want) / want) <= 2.3e-16
    assert _vexp_loop(np.array([0.0]))[0] == 1.0
    # clamped to [-708, 708]: finite and positive where numpy over/underflows; NaN propagates
    edge = _vexp_loop(np.array([-1000.0, 1000.0, -np.inf, np.inf, np.nan]))
    np.testing.assert_array_equal(edge[:4], _vexp_loop(np.array([-708.0, 708.0, -708.0, 708.0])))
    assert np.isnan(edge[4])


@numba.njit
def _popcount_loop(x):
    out = np.empty(x.size, dtype=np.int64)
    for i in range(x.size):
        out[i] = vecmath.popcount(x[i])
    return out


def test_popcount_equals_int_bit_count():
    rng = np.random.default_rng(9)
    x = np.concatenate([rng.integers(0, 2**63, 5000, dtype=np.uint64) * np.uint64(2) + np.uint64(1),
                        np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64)])
    assert _popcount_loop(x).tolist() == [naive.TWINS["benchkit._kernels.vecmath"]["popcount"](int(v))
                                          for v in x]
    assert _popcount_loop(np.array([2**64 - 1], dtype=np.uint64))[0] == 64


def _dif_problem(seed, n_items=25, M=70, F=3):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, F, M)
    order = np.argsort(codes, kind="stable")
    starts = np.searchsorted(codes[order], np.arange(F + 1)).astype(np.int64)
    L, theta = rng.normal(size=(n_items, 4)), rng.normal(size=(M, 4))
    s = rng.uniform(0.3, 0.5, n_items)
    eta = L @ theta.T / 3 + rng.normal(0, 0.8, (n_items, F))[:, codes] + rng.normal(0, 1, (n_items, 1))
    Y = (rng.random((n_items, M)) < 1 / (1 + np.exp(-eta))).astype(np.uint8)
    Y[0] = 1  # an item everyone solves: the clipped marginal of Eq. 25
    return Y, order, starts, L, theta, s


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_residual_dif_kernels_equal_per_item_twin(seed):
    Y, order, starts, L, theta, s = _dif_problem(seed)
    opts = (1.0, np.int64(5), np.int64(30), 1e-8, 2.0)
    offsets = naive.factor_offsets(L, theta, s, 6.0)
    none = np.empty((0, 0))
    thetaT = np.ascontiguousarray(theta[order].T)
    want = naive.residual_dif_items(Y, order, starts, offsets, none, none, np.empty(0), 0.0, *opts)
    dense = kdif.residual_dif(Y, order, starts, np.ascontiguousarray(offsets), none, none, np.empty(0),
                              0.0, *opts)
    fact = kdif.residual_dif(Y, order, starts, none, L, thetaT, s, 6.0, *opts)
    np.testing.assert_allclose(naive.residual_dif_items(Y, order, starts, none, L, thetaT, s, 6.0, *opts)[1],
                               want[1], rtol=0, atol=1e-15)
    for got in (dense, fact):
        # the kernels sum family by family in vector lanes: rounding-level differences only ...
        np.testing.assert_allclose(got[0][1:], want[0][1:], rtol=0, atol=1e-12)
        np.testing.assert_allclose(got[1][1:], want[1][1:], rtol=0, atol=1e-12)
        # ... except for an item everyone solves: b runs off towards +inf (the 1e-9 of Eq. 29
        # stops it near 30) and sum(y - p) cancels to a few digits in any summation order
        np.testing.assert_allclose(got[0][0], want[0][0], rtol=1e-9)
        np.testing.assert_allclose(got[1][0], want[1][0], rtol=0, atol=1e-9)
        np.testing.assert_array_equal(got[2], want[2])  # cycles
        np.testing.assert_array_equal(got[3], want[3])  # Newton passes


@pytest.mark.parametrize(("m", "n", "T"), [(200, 6, 20), (150, 3, 1), (120, 9, 5)])
def test_profile_rows_kernel_equals_former_numpy_code(m, n, T):
    from benchkit.boundary._profiles import _binary_entropy_table

    rng = np.random.default_rng(m + n)
    k = rng.binomial(T, np.sort(rng.random((m, n)), axis=1))
    k[::7] = rng.integers(0, T + 1, (len(k[::7]), n))  # non-monotone rows
    k[::11] = k[::11, :1]  # Delta = 0 rows
    k[5], k[6] = 0, T  # one state seen on the whole axis: entropy 0
    num, den, _ = pava.pava_counts_batch(k)
    etab = _binary_entropy_table(T)
    want = naive.profile_rows(k, num, den, T, etab)
    for parallel in (False, True):
        got = pava.profile_rows(k, num, den, T, etab, parallel=parallel)
        assert got.keys() == want.keys()
        for name in want:  # the same integer tests and float expressions: the same bits
            np.testing.assert_array_equal(got[name], want[name], err_msg=name)
    assert pava.profile_rows(k, num, den, T, np.empty(0))["e"].size == 0


@pytest.mark.parametrize("ytype", [np.int8, np.float64, np.bool_])
def test_scatter_binary_equals_twin(ytype):
    from benchkit._kernels.counts import scatter_binary

    rng = np.random.default_rng(3)
    n = 5000
    item_idx = rng.integers(0, 5, n).astype(np.int32)
    model_idx = rng.integers(0, 3, n).astype(np.int32)
    item_lut, model_lut = rng.permutation(5).astype(np.int64), rng.permutation(3).astype(np.int64)
    y = (rng.random(n) < 0.6).astype(ytype)
    for stop_at in (None, 3000):
        yy = y.copy()
        if stop_at is not None and ytype != np.bool_:
            yy[stop_at] = 2  # counting stops at the first value that is not 0/1
        got = [np.zeros((5, 3), np.uint8) for _ in range(2)]
        want = [np.zeros((5, 3), np.uint8) for _ in range(2)]
        r1 = scatter_binary(*got, item_idx, model_idx, item_lut, model_lut, yy)
        r2 = naive.scatter_binary(*want, item_idx, model_idx, item_lut, model_lut, yy)
        assert tuple(r1) == r2
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
        if stop_at is None:
            assert got[0].min() == 255  # 5,000 rows in 15 cells: saturated, not wrapped
