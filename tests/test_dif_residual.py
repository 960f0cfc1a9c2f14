"""Residual DIF fit (paper 001, Eq. 3-5, App. C.4) against scipy.optimize and the numpy twin."""
import numpy as np
import pytest
from scipy.optimize import minimize

import naive
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit.dif._residual import fit_residual_spectral
from benchkit.dif.steps import family_codes
from benchkit.dif.steps import fit_residual_dif
from benchkit.dif.steps import simulate_family_dif
from benchkit.irt._spectral import fit_spectral


def _small(seed=0, n_items=30, M=90):
    rng = np.random.default_rng(seed)
    fam = np.array(["qwen", "gemma", "llama"])[rng.integers(0, 3, M)]
    offsets = rng.normal(0, 1, (n_items, M))
    true_d = rng.normal(0, 0.8, (n_items, 3))
    codes = np.unique(fam, return_inverse=True)[1]
    eta = offsets + rng.normal(0, 1, n_items)[:, None] + true_d[:, codes]
    Y = (rng.random((n_items, M)) < 1 / (1 + np.exp(-eta))).astype(np.uint8)
    return Y, fam, offsets


def _scipy_fit(y, fam_codes, o, F, lam):
    """Independent oracle: minimise Eq. 3 for one item with BFGS on (b, delta_1..F)."""
    def f(x):
        xi = o + x[0] + x[1:][fam_codes]
        p = 1 / (1 + np.exp(-xi))
        val = np.sum(np.logaddexp(0, xi) - y * xi) + lam / 2 * np.sum(x[1:] ** 2)
        r = p - y
        grad = np.concatenate([[r.sum()], np.bincount(fam_codes, r, F) + lam * x[1:]])
        return val, grad
    res = minimize(f, np.zeros(F + 1), jac=True, method="BFGS", options={"gtol": 1e-11})
    return res.x


def test_matches_scipy_penalized_logistic():
    Y, fam, offsets = _small()
    codes, labels = family_codes(fam)
    assert labels == ("gemma", "llama", "qwen")  # columns in sorted label order
    fit = fit_residual_dif(Y, fam, offsets, ridge=1.0, n_cycles=200)
    for i in range(Y.shape[0]):
        x = _scipy_fit(Y[i].astype(float), codes, offsets[i], 3, 1.0)
        # the unconstrained penalized optimum is centered (Notes), so no constraint is needed
        assert abs(x[1:].sum()) < 1e-6
        np.testing.assert_allclose(fit.b[i], x[0], atol=1e-6)
        np.testing.assert_allclose(fit.delta[i], x[1:], atol=1e-6)
    # the paper's 5 cycles are close to the optimum on this problem
    fit5 = fit_residual_dif(Y, fam, offsets)
    np.testing.assert_allclose(fit5.delta, fit.delta, atol=1e-3)


def test_centering_and_D():
    Y, fam, offsets = _small(1)
    fit = fit_residual_dif(Y, fam, offsets)
    np.testing.assert_allclose(fit.delta.sum(1), 0, atol=1e-12)  # Eq. 4
    np.testing.assert_array_equal(fit.D, fit.delta.max(1) - fit.delta.min(1))  # Eq. 5
    assert fit.to_frame().shape == (Y.shape[0], 3 + 2)


def test_kernel_matches_numpy_twin():
    Y, fam, offsets = _small(2, n_items=40, M=120)
    codes, _ = family_codes(fam)
    fit = fit_residual_dif(Y, fam, offsets)
    b, d, _ = naive.residual_dif(Y, codes, offsets, 3, 1.0, 5, 30, 1e-8, 2.0)
    np.testing.assert_allclose(fit.b, b, atol=1e-8)
    np.testing.assert_allclose(fit.delta, d, atol=1e-8)


def test_zero_offset_and_float_input():
    Y, fam, _ = _small(3)
    a = fit_residual_dif(Y.astype(float), fam, np.zeros(Y.shape))
    b = fit_residual_dif(Y, fam, np.zeros(Y.shape))
    np.testing.assert_array_equal(a.delta, b.delta)


def test_recovers_planted_effects():
    s = simulate_family_dif(n_items=1500, n_models=1200, n_owners=150, rng=11)
    keep = np.array([f is not None for f in s.family])
    Y, fam = s.Y[:, keep], s.family[keep]
    offsets = fit_spectral(Y, 8, rng=0).offsets()
    fit = fit_residual_dif(Y, fam, offsets)
    assert fit.families == s.families
    r = np.corrcoef(fit.delta[s.dif_items].ravel(), s.delta[s.dif_items].ravel())[0, 1]
    top = np.argsort(-fit.D)[: s.dif_items.sum()]
    recall = s.dif_items[top].mean()
    assert r > 0.75
    assert recall > 0.6  # chance level is dif_fraction = 0.1


def test_errors():
    Y, fam, offsets = _small()
    with pytest.raises(BenchkitValueError, match="one label per model"):
        fit_residual_dif(Y, fam[:-1], offsets)
    with pytest.raises(BenchkitValueError, match="at least 2 distinct"):
        fit_residual_dif(Y, np.array(["a"] * Y.shape[1]), offsets)
    with pytest.raises(BenchkitValueError, match="offset must have shape"):
        fit_residual_dif(Y, fam, offsets[:, :-1])
    with pytest.raises(BenchkitValueError, match="0/1"):
        fit_residual_dif(Y * 2.0, fam, offsets)
    with pytest.raises(BenchkitValueError, match="ridge"):
        fit_residual_dif(Y, fam, offsets, ridge=0.0)
    with pytest.raises(BenchkitTypeError, match="n_cycles"):
        fit_residual_dif(Y, fam, offsets, n_cycles=2.5)


def test_spectral_factors_equal_dense_offsets():
    s = simulate_family_dif(n_items=300, n_models=200, n_owners=40, rng=3)
    keep = np.array([f is not None for f in s.family])
    Y, fam = s.Y[:, keep], s.family[keep]
    sp = fit_spectral(Y, 4, rng=0)
    dense = fit_residual_dif(Y, fam, sp.offsets())
    fact = fit_residual_spectral(Y, fam, sp)
    # offsets rebuilt per item from (loadings, theta, s) differ from the BLAS product by rounding
    np.testing.assert_allclose(fact.b, dense.b, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fact.delta, dense.delta, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(fact.cycles, dense.cycles)
    assert fact.families == dense.families
    with pytest.raises(BenchkitValueError, match="spectral fit is for 300 items x"):
        fit_residual_spectral(Y[:, :-1], fam[:-1], sp)
    with pytest.raises(BenchkitValueError, match="one label per model"):
        fit_residual_spectral(Y, fam[:-1], sp)
