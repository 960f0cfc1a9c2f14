"""The adaptive quadrature grid of the MML fits and the Newton-CG optimizer they share.

Used by :mod:`benchkit.irt._collapsed` (complete 1PL matrices), :mod:`benchkit.irt._marginal`
(missing cells, 2PL) and :mod:`benchkit.irt._em` (the EM paths).
"""
from __future__ import annotations

import numpy as np
from scipy import linalg

from benchkit._validation import BenchkitValueError
from benchkit.irt._common import _pcg

# ----------------------------------------------------------------------------------------------
# adaptive quadrature grid
# ----------------------------------------------------------------------------------------------
_PAD = 8.0  # the grid reaches this many posterior SDs beyond every posterior mode
_MAX_H = 0.5  # largest spacing: the logistic's poles (distance pi from the real axis) stay harmless
_EDGE = 1e-12  # largest posterior weight allowed on a grid (or window) edge
_MAX_NODES = 20_000
_MIN_SD = 1e-3  # smallest posterior SD a grid resolves (logits)
_LOG_SQRT_2PI = 0.5 * np.log(2 * np.pi)


def _grid(mu: np.ndarray, sd: np.ndarray, density: float, pad: float = _PAD) -> np.ndarray:
    """Equally spaced nodes: spacing min(sd)/density (<= _MAX_H), covering mode +- pad sd.

    Posterior SDs are floored at ``_MIN_SD``: when the MML ability SD collapses towards 0 (models
    of indistinguishable ability) the posteriors become point masses and a zero SD would give a
    zero spacing (issue 12).
    """
    sd = np.maximum(np.asarray(sd, dtype=np.float64), _MIN_SD)
    if not (np.isfinite(mu).all() and np.isfinite(sd).all()):
        raise BenchkitValueError(
            "the marginal-likelihood fit diverged (non-finite ability posteriors): the response "
            "matrix is too small or perfectly separated (e.g. every model right on different items) "
            "for method='mml'; use method='jml' (penalized), or add items and models"
        )
    h = min(float(np.min(sd)) / density, _MAX_H)
    lo = float(np.min(mu - pad * sd))
    hi = float(np.max(mu + pad * sd))
    k = int(np.ceil((hi - lo) / h)) + 1
    if k > _MAX_NODES:
        raise BenchkitValueError(
            f"the adaptive quadrature grid would need {k} nodes (posterior SDs down to "
            f"{float(np.min(sd)):.3g} over a range of {hi - lo:.3g} logits); use method='jml'"
        )
    return lo + h * np.arange(k)


def _grid_ok(theta: np.ndarray, W: np.ndarray, density: float,
             edge: float | None = None) -> tuple[bool, bool]:
    """Whether the posteriors ``W`` computed on ``theta`` are resolved.

    Returns (every posterior SD is at least 0.8 * density node spacings, no posterior puts more
    than _EDGE on a grid / window edge).
    """
    h = theta[1] - theta[0]
    sd = _post_moments(W, theta)[1]
    if edge is None:
        edge = max(float(W[:, 0].max()), float(W[:, -1].max()))
    return bool(sd.min() >= 0.8 * density * h), bool(edge < _EDGE)


def _post_moments(W: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    m = W @ theta
    sd = np.sqrt(np.maximum(W @ theta**2 - m**2, 0.0))
    return m, sd


def _log_prior(theta: np.ndarray, ls: float) -> np.ndarray:
    """Log of N(theta; 0, e^{2 ls}) times the grid spacing (trapezoid weights)."""
    h = theta[1] - theta[0]
    return np.log(h) - _LOG_SQRT_2PI - ls - 0.5 * theta**2 * np.exp(-2.0 * ls)




def _newton_cg(ob, p, tol, max_iter):
    """Newton's method with the steps solved by preconditioned CG on Hessian-vector products.

    The products are :meth:`_Collapsed.hvp`; falls back to the dense damped Newton step when CG
    fails.
    """
    f, g = ob.fun(p)
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        matvec, diag = ob.hvp(p)
        gn = float(np.sqrt(g @ g))
        step, ok = _pcg(matvec, diag, -g, min(1e-3, max(gn, 1e-12)) * 1e-2, 500)
        if not ok:
            H = ob.hess(p)
            mu = 0.0
            scale = max(1.0, float(np.abs(np.diag(H)).max()))
            while True:
                try:
                    c = np.linalg.cholesky(H + mu * np.eye(H.shape[0]))
                    break
                except np.linalg.LinAlgError:
                    mu = max(4 * mu, 1e-8 * scale)
            step = -linalg.cho_solve((c, True), g)
        lam = 1.0
        while True:
            p_new = p + lam * step
            f_new, g_new = ob.fun(p_new)
            # Armijo, with slack for rounding (near the optimum f changes by ~1e-16 |f|)
            if f_new <= f + 1e-4 * lam * (g @ step) + 1e-13 * abs(f) or lam < 1e-10:
                break
            lam *= 0.5
        p, f, g = p_new, f_new, g_new
        if np.max(np.abs(g)) < tol or (lam == 1.0 and np.max(np.abs(step)) < 1e-9):
            converged = True
            break
        if lam < 1e-10 or np.max(np.abs(lam * step)) < 1e-13:
            break
    return p, f, g, it, converged
