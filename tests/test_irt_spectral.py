"""Spectral MIRT working model (paper 001, App. C.2-C.3)."""
import numpy as np
import pytest

from benchkit._validation import BenchkitValueError
from benchkit.dif.steps import simulate_family_dif
from benchkit.irt._spectral import fit_spectral
from benchkit.irt._spectral import randomized_svd
from benchkit.irt._spectral import select_dimension
from benchkit.irt._spectral import standardize


def test_standardize_hand_case():
    # Eq. 12-13 by hand: row (1,1,0): p = 2.5/4 = 0.625, s = sqrt(.625*.375)
    X, p, _s = standardize(np.array([[1, 1, 0]], dtype=np.uint8))
    assert p[0] == 0.625
    np.testing.assert_allclose(X[0], (np.array([1, 1, 0]) - 0.625) / np.sqrt(0.625 * 0.375))


def test_randomized_svd_matches_numpy():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(400, 10)) @ rng.normal(size=(10, 300)) + 1e-6 * rng.normal(size=(400, 300))
    U, S, Vt = randomized_svd(A, 10, rng=1)
    S0 = np.linalg.svd(A, compute_uv=False)[:10]  # oracle: numpy's exact SVD
    np.testing.assert_allclose(S, S0, rtol=1e-8)
    np.testing.assert_allclose(np.abs(np.sum(U * (A @ Vt.T / S), 0)), 1, atol=1e-8)


def test_offsets_truncate_and_clip():
    s = simulate_family_dif(n_items=600, n_models=300, n_owners=50, rng=1)
    fit = fit_spectral(s.Y, 16, rng=0)
    X, _p, sd = standardize(s.Y)
    # Eq. 16-17 by hand for K=4 from the same directions
    o4 = np.clip((X @ fit.theta[:, :4]) @ fit.theta[:, :4].T / sd[:, None], -6, 6)
    np.testing.assert_allclose(fit.offsets(K=4), o4, atol=1e-10)
    assert np.abs(fit.offsets()).max() <= 6
    # directions learnt from rows S, loadings for every item by projection
    fit_s = fit_spectral(s.Y, 4, rows=np.arange(0, 600, 2), rng=0)
    np.testing.assert_allclose(fit_s.loadings, X @ fit_s.theta, atol=1e-10)


def test_select_dimension_finds_planted_rank_and_truncates_grid():
    s = simulate_family_dif(n_items=1200, n_models=500, n_owners=80, n_dims=4, rng=3)
    sel = select_dimension(s.Y, owners=s.owners, sources=s.source, rng=0)
    assert sel.grid[-1] <= 256
    assert sel.K_best in (2, 4, 8)  # four planted dimensions
    assert sel.K_star <= sel.K_best
    j = sel.grid.index(sel.K_star)
    jb = sel.grid.index(sel.K_best)
    # Eq. 23: the one-SE rule
    assert sel.mean_loss[j] <= sel.mean_loss[jb] + sel.se[jb]
    assert all(sel.mean_loss[k] > sel.mean_loss[jb] + sel.se[jb] for k in range(j))
    # rank-infeasible K are omitted: 60 training models cannot support K=64
    small = select_dimension(s.Y[:, :80], owners=s.owners[:80], rng=0)
    assert max(small.grid) <= 64
    assert max(small.grid) < 80
    again = select_dimension(s.Y, owners=s.owners, sources=s.source, rng=0)
    np.testing.assert_array_equal(again.mean_loss, sel.mean_loss)
    assert sel.to_frame().selected.sum() == 1


def test_select_dimension_errors():
    Y = np.zeros((10, 6), dtype=np.uint8)
    with pytest.raises(BenchkitValueError, match="owners"):
        select_dimension(Y, owners=["a"] * 5)
    with pytest.raises(BenchkitValueError, match="at least 2 owners"):
        select_dimension(Y, owners=["a"] * 6)
    with pytest.raises(BenchkitValueError, match="0/1"):
        standardize(np.full((2, 2), 0.5))


def _spectral_matrix():
    from benchkit.simulate import binary_matrix

    return binary_matrix(80, 40, rng=2).matrix


def test_fit_spectral_records_rng_entropy():
    Y = _spectral_matrix()
    fit = fit_spectral(Y, 2, n_iter=2, oversample=3, rng=7)
    assert fit.rng_entropy == 7
    # an int rng draws as before the change: the same test matrix as randomized_svd(rng=7), whose
    # seeding did not change, and the singular values printed by the code of commit d7d702c
    X, _p, _s = standardize(Y)
    np.testing.assert_array_equal(fit.singular_values,
                                  randomized_svd(X, 2, n_iter=2, oversample=3, rng=7)[1])
    np.testing.assert_allclose(fit.singular_values, [24.4700465, 13.15839202], atol=1e-7)
    first = fit_spectral(Y, 2, n_iter=2, oversample=3, rng=np.random.default_rng(5))
    assert isinstance(first.rng_entropy, int)
    again = fit_spectral(Y, 2, n_iter=2, oversample=3, rng=first.rng_entropy)
    np.testing.assert_array_equal(again.theta, first.theta)


def test_select_dimension_records_rng_entropy():
    Y = _spectral_matrix()
    owners = [f"o{j % 8}" for j in range(40)]
    sel = select_dimension(Y, owners=owners, grid=(1, 2, 4), rng=7)
    assert sel.rng_entropy == 7
    # the int-seeded splits printed by the code of commit d7d702c, before rng_entropy
    assert sel.validation_models.tolist() == [5, 6, 13, 14, 21, 22, 29, 30, 37, 38]
    assert sel.calibration_items.tolist()[:10] == [0, 1, 2, 4, 6, 7, 10, 12, 16, 17]
    assert sel.K_star == 1
    first = select_dimension(Y, owners=owners, grid=(1, 2, 4), rng=np.random.default_rng(5))
    again = select_dimension(Y, owners=owners, grid=(1, 2, 4), rng=first.rng_entropy)
    np.testing.assert_array_equal(again.calibration_items, first.calibration_items)
    np.testing.assert_array_equal(again.mean_loss, first.mean_loss)
