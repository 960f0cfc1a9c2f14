"""Bad inputs of issue 12: each is refused with a benchkit error or handled correctly.

Every test here failed on the code before issue 12 (c09903a); docs/bad-inputs.md names them.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import optimize, special

from benchkit.irt import fit_1pl


# -------------------------------------------------------------------------------- case 7: IRT grid
def _collapsed_oracle(Y: np.ndarray, prec: float) -> np.ndarray:
    """Item difficulties when every ability is 0 (the MML limit sigma -> 0), by scipy.

    Penalized log likelihood sum_ij [y_ij (-b_i) - softplus(-b_i)] - prec/2 sum_i (b_i - mean b)^2,
    maximized with scipy.optimize.minimize (an independent optimizer).
    """
    s = Y.sum(axis=1)
    m = Y.shape[1]

    def nll(b):
        return float(np.sum(s * b + m * np.logaddexp(0.0, -b)) + prec / 2 * np.sum((b - b.mean()) ** 2))

    def grad(b):
        return s - m * special.expit(-b) + prec * (b - b.mean())

    res = optimize.minimize(nll, np.zeros(Y.shape[0]), jac=grad, method="BFGS", options={"gtol": 1e-10})
    return res.x


def test_fit_1pl_fits_when_ability_spread_collapses():
    # issue 12 case 7: before, 20 of these 60 matrices raised ZeroDivisionError in _grid
    n_collapsed = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        Y = (rng.random((40, 8)) < 0.5).astype(int)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            fit = fit_1pl(Y)
        assert np.isfinite(fit.difficulty).all()
        assert np.isfinite(fit.ability).all()
        if fit.ability_sd < 1e-2:
            n_collapsed += 1
            # sigma -> 0: every ability is the mean 0 and difficulties are the penalized
            # item-wise fit with theta = 0 (oracle: scipy BFGS)
            np.testing.assert_allclose(fit.ability, 0.0, atol=1e-2)
            np.testing.assert_allclose(fit.difficulty, _collapsed_oracle(Y, 1 / 9), atol=1e-2)
    assert n_collapsed >= 15  # the cases that crashed before are exercised
