r"""Item response theory for benchmark matrices: 1PL / 2PL fits, diagnostics, online calibration.

Input everywhere is an items x models matrix ``Y`` of 0/1 responses (float, NaN = missing cell),
e.g. ``ResponseSet.binary()``. The model of paper 002 (Figure 2, step 3) is the 1PL

.. math:: P(Y_{ij} = 1) = \sigma(\theta_j - b_i),

with item difficulty :math:`b_i` (higher = harder) and model ability :math:`\theta_j`.

============================= ==================================================================
:func:`fit_1pl`               marginal ML over Gauss-Hermite quadrature (``method="mml"``) or
                              penalized joint ML (``method="jml"``); complete matrices are
                              collapsed exactly by their sufficient statistics
:func:`fit_2pl`               2PL :math:`\sigma(a_i(\theta_j - b_i))` by marginal ML
:func:`fit_statistics`        infit / outfit mean squares of items and models
:func:`leave_one_model_out`   stability of difficulties and of the measure metrics
:func:`response_diagnostics`  model and item information, inversion (Guttman-error) rates
:func:`calibrate_items`       online calibration of new items against a fixed fit
============================= ==================================================================

Bayesian fits: the paper fits the 1PL by MCMC and checks R-hat, bulk ESS and divergences. benchkit
gives the frequentist fits; for a Bayesian 1PL use an existing sampler, e.g. PyMC
(``pm.Bernoulli("y", logit_p=theta[j] - b[i], observed=y)`` on the observed cells with
``theta ~ Normal(0, sigma)``) or Stan (``bernoulli_logit``) and check convergence with ArviZ
(``az.summary`` gives ``r_hat`` and ``ess_bulk``; ``az.loo`` the leave-one-out stability). The
difficulties' posterior means can be passed to :mod:`benchkit.measure` like any array.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize, special
from threadpoolctl import threadpool_limits

from benchkit._validation import (
    BenchkitValueError,
    BenchkitWarning,
    check_array,
    check_choice,
    check_float,
    check_int,
    describe,
)

__all__ = [
    "IRTFit",
    "fit_1pl",
    "fit_2pl",
    "FitStatistics",
    "fit_statistics",
    "LOOStability",
    "leave_one_model_out",
    "ResponseDiagnostics",
    "response_diagnostics",
    "Calibration",
    "calibrate_items",
]


# ----------------------------------------------------------------------------------------------
# input
# ----------------------------------------------------------------------------------------------
def _matrix(Y: Any, name: str = "Y") -> np.ndarray:
    if hasattr(Y, "binary") and callable(Y.binary):  # a ResponseSet
        Y = Y.binary()
    if isinstance(Y, pd.DataFrame):
        Y = Y.to_numpy(dtype=float, na_value=np.nan)
    arr = check_array(name, Y, ndim=2, dtype="float", finite=False)
    obs = ~np.isnan(arr)
    bad = obs & (arr != 0.0) & (arr != 1.0)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise BenchkitValueError(
            f"{name} must hold 0/1 responses (NaN for missing); found {describe(arr[i, j])} at "
            f"item {i}, model {j}"
        )
    if arr.shape[0] < 1 or arr.shape[1] < 2:
        raise BenchkitValueError(
            f"{name} must be an items x models matrix with at least 1 item and 2 models; got "
            f"shape {arr.shape}"
        )
    return arr


def _labels(Y: Any, n_items: int, n_models: int, items, models):
    if items is None and hasattr(Y, "item_ids"):
        items = Y.item_ids
    if models is None and hasattr(Y, "model_ids"):
        models = Y.model_ids
    if items is None and isinstance(Y, pd.DataFrame):
        items = Y.index
    if models is None and isinstance(Y, pd.DataFrame):
        models = Y.columns
    items = pd.Index(range(n_items) if items is None else list(items), name="item")
    models = pd.Index(range(n_models) if models is None else list(models), name="model")
    if len(items) != n_items:
        raise BenchkitValueError(f"items has {len(items)} ids but Y has {n_items} rows")
    if len(models) != n_models:
        raise BenchkitValueError(f"models has {len(models)} ids but Y has {n_models} columns")
    return items, models


def _prior(name: str, value: Any) -> float:
    """1/sd^2 of a Gaussian penalty, 0 for None (no penalty)."""
    if value is None:
        return 0.0
    sd = check_float(name, value, min=0.0, min_inclusive=False)
    return 1.0 / sd**2


def _softplus(x):
    return np.logaddexp(0.0, x)


# ----------------------------------------------------------------------------------------------
# result
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class IRTFit:
    """A fitted 1PL or 2PL model.

    Attributes
    ----------
    difficulty, difficulty_se : ndarray (n_items,)
        :math:`b_i` and standard errors. Items without any observed response are NaN; without an
        item prior, items answered all-correct / all-wrong are -inf / +inf (SE inf).
    discrimination, discrimination_se : ndarray (n_items,)
        :math:`a_i` (all 1 and SE 0 for the 1PL).
    ability, ability_se : ndarray (n_models,)
        JML: the joint estimates and their SEs; MML: posterior means (EAP) and posterior SDs.
    ability_sd : float
        MML: the (estimated or fixed) SD of the ability distribution; JML: SD of the estimates.
    model, method : str
        ``"1pl"`` / ``"2pl"`` and ``"mml"`` / ``"jml"``.
    loglik : float
        Log likelihood at the estimate (marginal for MML, joint for JML; without the penalty).
    n_iter, converged : int, bool
    collapsed : bool
        Whether the fit used the complete-matrix sufficient-statistic collapse.
    items, models : pandas.Index
    """

    difficulty: np.ndarray
    difficulty_se: np.ndarray
    discrimination: np.ndarray
    discrimination_se: np.ndarray
    ability: np.ndarray
    ability_se: np.ndarray
    ability_sd: float
    model: str
    method: str
    loglik: float
    n_iter: int
    converged: bool
    collapsed: bool
    items: pd.Index = field(repr=False)
    models: pd.Index = field(repr=False)
    options: dict = field(repr=False, default_factory=dict)
    nodes: np.ndarray | None = field(repr=False, default=None)
    posterior: np.ndarray | None = field(repr=False, default=None)

    @property
    def n_items(self) -> int:
        return int(self.difficulty.size)

    @property
    def n_models(self) -> int:
        return int(self.ability.size)

    def to_frame(self) -> pd.DataFrame:
        """Item table: ``difficulty, difficulty_se, discrimination, discrimination_se``."""
        return pd.DataFrame({
            "difficulty": self.difficulty, "difficulty_se": self.difficulty_se,
            "discrimination": self.discrimination, "discrimination_se": self.discrimination_se,
        }, index=self.items)

    def abilities(self) -> pd.DataFrame:
        """Model table: ``ability, ability_se``."""
        return pd.DataFrame({"ability": self.ability, "ability_se": self.ability_se},
                            index=self.models)

    def probabilities(self) -> np.ndarray:
        """Fitted :math:`P(Y_{ij}=1)` (items x models) at the ability estimates."""
        eta = self.discrimination[:, None] * (self.ability[None, :] - self.difficulty[:, None])
        return special.expit(eta)


# ----------------------------------------------------------------------------------------------
# 1PL MML, complete matrix, collapsed by sufficient statistics
# ----------------------------------------------------------------------------------------------
def _gh(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Probabilists' Gauss-Hermite nodes and log-weights for N(0, 1)."""
    x, w = np.polynomial.hermite_e.hermegauss(n)
    w = w / w.sum()
    return x, np.log(w)


def _mml1_collapsed_parts(b, log_sigma, s, n_g, r, c_r, x, logw, prec):
    """Objective pieces of the collapsed 1PL marginal likelihood."""
    sigma = np.exp(log_sigma)
    th = sigma * x  # (Q,)
    eta = th[None, :] - b[:, None]  # (G, Q)
    P = special.expit(eta)
    S = n_g @ _softplus(eta)  # (Q,)
    L = r[:, None] * th[None, :] - S[None, :] + logw[None, :]  # (R, Q)
    lse = special.logsumexp(L, axis=1)
    W = np.exp(L - lse[:, None])
    loglik = float(c_r @ lse - n_g @ (s * b))
    return sigma, th, P, W, lse, loglik


def _mml1_collapsed(s, n_g, r, c_r, n_quad, prec, ability_sd, tol, max_iter):
    """Newton (trust-region) fit on item groups (equal totals) and raw-score groups.

    s: item-group totals (G,), n_g: items per group, r: distinct raw scores, c_r: models per score.
    Returns b_g, log_sigma, result info, and the pieces needed for standard errors.
    """
    x, logw = _gh(n_quad)
    fix_sigma = ability_sd is not None
    n_models = c_r.sum()

    def unpack(p):
        return (p[:-1], p[-1]) if not fix_sigma else (p, np.log(ability_sd))

    def fun(p):
        b, ls = unpack(p)
        sigma, th, P, W, lse, ll = _mml1_collapsed_parts(b, ls, s, n_g, r, c_r, x, logw, prec)
        N = c_r @ W  # (Q,)
        gb = n_g * (P @ N - s - prec * b)
        f = -(ll - 0.5 * prec * (n_g @ b**2))
        if fix_sigma:
            return f, -gb
        T = n_g @ P
        u = th[None, :] * (r[:, None] - T[None, :])
        gs = float(np.sum(c_r[:, None] * W * u))
        return f, -np.concatenate([gb, [gs]])

    def hess(p):
        b, ls = unpack(p)
        return _mml1_collapsed_info(b, ls, s, n_g, r, c_r, x, logw, prec, fix_sigma, group=True)

    p = np.clip(special.logit(np.clip(1.0 - s / n_models, 1e-3, 1 - 1e-3)), -8, 8)
    if not fix_sigma:
        p = np.concatenate([p, [0.0]])
    f, g = fun(p)
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        H = hess(p)
        mu = 0.0
        while True:  # damped Newton: H + mu I must be positive definite
            try:
                c = np.linalg.cholesky(H + mu * np.eye(H.shape[0]))
                break
            except np.linalg.LinAlgError:
                mu = max(2 * mu, 1e-6 * max(1.0, np.abs(np.diag(H)).max()))
        step = -np.linalg.solve(c.T, np.linalg.solve(c, g))
        lam = 1.0
        while True:
            p_new = p + lam * step
            f_new, g_new = fun(p_new)
            if f_new <= f + 1e-4 * lam * (g @ step) or lam < 1e-10:
                break
            lam *= 0.5
        p, f, g = p_new, f_new, g_new
        # converged: gradient below tol, or a full Newton step below 1e-9 logits (gradients of
        # large matrices are sums over many cells and stall at rounding level ~1e-16 |f|)
        if np.max(np.abs(g)) < tol or (lam == 1.0 and np.max(np.abs(step)) < 1e-9):
            converged = True
            break
        if lam < 1e-10 or np.max(np.abs(lam * step)) < 1e-12:
            break
    res = optimize.OptimizeResult(x=p, fun=f, jac=g, nit=it, success=converged)
    b, ls = unpack(res.x)
    return b, float(ls), res, x, logw


def _mml1_collapsed_info(b, ls, s, n_g, r, c_r, x, logw, prec, fix_sigma, group):
    """Observed information (negative Hessian of the penalized marginal log likelihood).

    ``group=True``: in group parameters (b_g shared by n_g items) [+ log sigma], for Newton.
    """
    sigma, th, P, W, lse, ll = _mml1_collapsed_parts(b, ls, s, n_g, r, c_r, x, logw, prec)
    N = c_r @ W
    PQ = P * (1.0 - P)
    C = np.diag(N) - (W * c_r[:, None]).T @ W  # (Q, Q)
    U = n_g[:, None] * P  # group gradient rows
    J = np.diag(n_g * (PQ @ N + prec)) - U @ C @ U.T
    if fix_sigma:
        return J
    T = n_g @ P
    u = th[None, :] * (r[:, None] - T[None, :])  # (R, Q)
    Eu = np.sum(W * u, axis=1)
    # cross: -(d2 l / db_g dlogsigma)
    cw = (W * c_r[:, None])
    cov_bu = U @ (cw * u).sum(0) - (U @ W.T) @ (c_r * Eu)
    h = -(n_g * ((PQ * th[None, :]) @ N) + cov_bu)
    e2 = np.sum(cw * (u - (th**2)[None, :] * (n_g @ PQ)[None, :]))
    varu = np.sum(c_r * (np.sum(W * u**2, axis=1) - Eu**2))
    jss = -(e2 + varu)
    out = np.empty((J.shape[0] + 1, J.shape[0] + 1))
    out[:-1, :-1] = J
    out[:-1, -1] = out[-1, :-1] = h
    out[-1, -1] = jss
    return out


def _mml1_item_se(b, ls, s, n_g, r, c_r, x, logw, prec, fix_sigma):
    """Item-level SEs (diagonal of the inverse observed information), via Woodbury.

    At item level the information is A = D - U C U^T (D diagonal, U = P with one row per item,
    C = sum_r c_r (diag W_r - W_r W_r^T) of rank <= Q), bordered by the log-sigma row.
    Items in one group share rows, so all sums run over groups weighted by n_g.
    """
    sigma, th, P, W, lse, ll = _mml1_collapsed_parts(b, ls, s, n_g, r, c_r, x, logw, prec)
    N = c_r @ W
    PQ = P * (1.0 - P)
    cw = W * c_r[:, None]
    C = np.diag(N) - cw.T @ W
    d = PQ @ N + prec  # per item (group row)
    Q = x.size
    UtDU = (P * (n_g / d)[:, None]).T @ P  # sum over items u u^T / d
    K = C @ np.linalg.solve(np.eye(Q) - UtDU @ C, np.eye(Q))
    Ainv_diag = 1.0 / d + np.einsum("gq,qk,gk->g", P, K, P) / d**2
    if fix_sigma:
        return np.sqrt(Ainv_diag)
    T = n_g @ P
    u = th[None, :] * (r[:, None] - T[None, :])
    Eu = np.sum(W * u, axis=1)
    cov_bu = P @ (cw * u).sum(0) - (P @ W.T) @ (c_r * Eu)
    h = -((PQ * th[None, :]) @ N + cov_bu)  # per item
    e2 = np.sum(cw * (u - (th**2)[None, :] * (n_g @ PQ)[None, :]))
    varu = np.sum(c_r * (np.sum(W * u**2, axis=1) - Eu**2))
    jss = -(e2 + varu)
    # A^{-1} h = D^{-1} h + D^{-1} U K U^T D^{-1} h ; U^T D^{-1} h sums over items
    Uth = P.T @ (n_g * h / d)
    Ainv_h = h / d + (P @ (K @ Uth)) / d
    schur = jss - float(n_g @ (h * Ainv_h))
    return np.sqrt(Ainv_diag + Ainv_h**2 / schur)


# ----------------------------------------------------------------------------------------------
# general marginal likelihood (missing cells, 2PL)
# ----------------------------------------------------------------------------------------------
class _Marginal:
    """Marginal log likelihood of a (possibly incomplete) matrix over Gauss-Hermite quadrature.

    Parameters: b (n), log a (n, 2PL only), log sigma (1PL with free sigma). Per model j and node
    q, L_jq = sum_i Y0_ij eta_iq - M_ij softplus(eta_iq) + log w_q with eta = a (sigma x_q - b):
    two matrix products. The gradient needs two more: E = Y0 W - P * (M W).
    """

    def __init__(self, Y, n_quad, prec_b, prec_a, two_pl, ability_sd):
        self.M = (~np.isnan(Y)).astype(np.float64)
        self.Y0 = np.nan_to_num(Y, nan=0.0)
        self.complete = bool(self.M.all())
        self.x, self.logw = _gh(n_quad)
        self.prec_b, self.prec_a = prec_b, prec_a
        self.two_pl = two_pl
        self.fix_sigma = two_pl or ability_sd is not None
        self.log_sigma = 0.0 if two_pl else (np.log(ability_sd) if ability_sd is not None else None)
        self.n = Y.shape[0]

    def unpack(self, p):
        n = self.n
        b = p[:n]
        la = p[n:2 * n] if self.two_pl else np.zeros(n)
        ls = self.log_sigma if self.fix_sigma else p[-1]
        return b, la, ls

    def parts(self, p):
        b, la, ls = self.unpack(p)
        a = np.exp(la)
        th = np.exp(ls) * self.x
        eta = a[:, None] * (th[None, :] - b[:, None])
        sp = _softplus(eta)
        if self.complete:
            L = self.Y0.T @ eta - sp.sum(0)[None, :]
        else:
            L = self.Y0.T @ eta - self.M.T @ sp
        L += self.logw[None, :]
        lse = special.logsumexp(L, axis=1)
        W = np.exp(L - lse[:, None])
        return b, la, a, th, eta, W, lse

    def fun(self, p):
        b, la, a, th, eta, W, lse = self.parts(p)
        P = special.expit(eta)
        MW = np.broadcast_to(W.sum(0), P.shape) if self.complete else self.M @ W
        E = self.Y0 @ W - P * MW  # d loglik / d eta
        ll = float(lse.sum())
        f = -(ll - 0.5 * self.prec_b * b @ b - 0.5 * self.prec_a * la @ la)
        gb = -a * E.sum(1) - self.prec_b * b
        grads = [gb]
        if self.two_pl:
            grads.append(a * np.sum(E * (th[None, :] - b[:, None]), axis=1) - self.prec_a * la)
        if not self.fix_sigma:
            grads.append([float(np.sum(E * (a[:, None] * th[None, :])))])
        return f, -np.concatenate(grads)

    def loglik(self, p):
        return float(self.parts(p)[-1].sum())

    def b_se_diag(self, p):
        """Conditional SEs of b: 1 / sqrt(-d2 l / d b_i^2 + prior), other parameters fixed."""
        b, la, a, th, eta, W, lse = self.parts(p)
        P = special.expit(eta)
        MW = np.broadcast_to(W.sum(0), P.shape) if self.complete else self.M @ W
        e_pq = np.sum(MW * P * (1 - P), axis=1)
        e_p2 = np.sum(MW * P**2, axis=1)
        A = P @ W.T  # (n, models): E_j[P_i]
        s2 = np.sum(self.M * A**2, axis=1)
        info = a**2 * (e_pq - (e_p2 - s2)) + self.prec_b
        return 1.0 / np.sqrt(info), W, th


def _fit_general_mml(Y, *, n_quad, prec_b, prec_a, two_pl, ability_sd, tol, max_iter, p0):
    mg = _Marginal(Y, n_quad, prec_b, prec_a, two_pl, ability_sd)
    # small products run faster on one BLAS thread (no wake-ups, no oversubscription)
    with threadpool_limits(1 if Y.size < 2_000_000 else None, "blas"):
        res = optimize.minimize(mg.fun, p0, jac=True, method="L-BFGS-B",
                                options={"maxiter": max_iter, "gtol": tol, "ftol": 1e-15,
                                         "maxcor": 30})
    return mg, res


# ----------------------------------------------------------------------------------------------
# 1PL JML
# ----------------------------------------------------------------------------------------------
def _jml_collapsed(s, n_g, r, c_r, prec_t, prec_b, tol, max_iter):
    """Penalized JML on item groups (equal totals) x model groups (equal raw scores), full Newton.

    Objective: sum_r c_r r t_r - sum_g n_g s_g b_g - sum_{r,g} c_r n_g softplus(t_r - b_g)
               - prec_t/2 sum_r c_r t_r^2 - prec_b/2 sum_g n_g b_g^2.
    """
    R, G = r.size, s.size
    n_items, n_models = n_g.sum(), c_r.sum()
    t = special.logit(np.clip(r / n_items, 0.02, 0.98))
    b = special.logit(np.clip(1 - s / n_models, 0.02, 0.98))

    def obj(t, b):
        eta = t[:, None] - b[None, :]
        return (c_r @ (r * t) - n_g @ (s * b) - c_r @ _softplus(eta) @ n_g
                - 0.5 * prec_t * c_r @ t**2 - 0.5 * prec_b * n_g @ b**2)

    f = obj(t, b)
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        P = special.expit(t[:, None] - b[None, :])
        W = P * (1 - P) * c_r[:, None] * n_g[None, :]
        gt = c_r * r - (P * c_r[:, None]) @ n_g - prec_t * c_r * t
        gb = -n_g * s + c_r @ (P * n_g[None, :]) - prec_b * n_g * b
        g = np.concatenate([gt, gb])
        # negative Hessian
        H = np.empty((R + G, R + G))
        H[:R, :R] = np.diag(W.sum(1) + prec_t * c_r)
        H[R:, R:] = np.diag(W.sum(0) + prec_b * n_g)
        H[:R, R:] = -W
        H[R:, :R] = -W.T
        try:
            step = np.linalg.solve(H, g)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(H, g, rcond=None)[0]
        lam = 1.0
        while True:
            t_new, b_new = t + lam * step[:R], b + lam * step[R:]
            f_new = obj(t_new, b_new)
            if f_new >= f - 1e-12 * abs(f) or lam < 1e-8:
                break
            lam *= 0.5
        t, b, f = t_new, b_new, f_new
        if np.max(np.abs(lam * step)) < tol:
            converged = True
            break
    return t, b, it, converged


def _jml_general(Y, prec_t, prec_b, tol, max_iter):
    """Penalized JML with missing cells: alternating Newton steps for all abilities / difficulties."""
    M = ~np.isnan(Y)
    Y0 = np.nan_to_num(Y, nan=0.0)
    Mf = M.astype(np.float64)
    n_obs_i = Mf.sum(1)
    n_obs_j = Mf.sum(0)
    r = Y0.sum(0)
    s = Y0.sum(1)
    t = special.logit(np.clip(r / np.maximum(n_obs_j, 1), 0.02, 0.98))
    b = special.logit(np.clip(1 - s / np.maximum(n_obs_i, 1), 0.02, 0.98))
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        P = special.expit(t[None, :] - b[:, None]) * Mf
        gt = r - P.sum(0) - prec_t * t
        ht = (P * (1 - P)).sum(0) + prec_t  # masked cells have P = 0
        dt = gt / np.maximum(ht, 1e-12)
        dt = np.clip(dt, -2.0, 2.0)
        t = t + dt
        P = special.expit(t[None, :] - b[:, None]) * Mf
        gb = P.sum(1) - s - prec_b * b
        hb = (P * (1 - P)).sum(1) + prec_b
        db = np.clip(gb / np.maximum(hb, 1e-12), -2.0, 2.0)
        b = b + db
        # the likelihood is invariant to a common shift of t and b: take the penalty-optimal one
        if prec_t + prec_b > 0:
            c = -(prec_t * t.sum() + prec_b * b.sum()) / (prec_t * t.size + prec_b * b.size)
            t, b = t + c, b + c
        else:
            c = 0.0
        if max(np.max(np.abs(dt)), np.max(np.abs(db)), abs(c)) < tol:
            converged = True
            break
    return t, b, it, converged


def _collapse(Y):
    """Sufficient statistics of a complete 0/1 matrix: item totals and model raw scores, grouped."""
    s_i = Y.sum(1)
    r_j = Y.sum(0)
    s, inv_i, n_g = np.unique(s_i, return_inverse=True, return_counts=True)
    r, inv_j, c_r = np.unique(r_j, return_inverse=True, return_counts=True)
    return s.astype(float), inv_i, n_g.astype(float), r.astype(float), inv_j, c_r.astype(float)


# ----------------------------------------------------------------------------------------------
# public fits
# ----------------------------------------------------------------------------------------------
def fit_1pl(
    Y: Any,
    *,
    method: str = "mml",
    item_prior_sd: float | None = 3.0,
    ability_prior_sd: float | None = 3.0,
    ability_sd: float | None = None,
    n_quadrature: int = 41,
    collapse: bool = True,
    tol: float = 1e-8,
    max_iter: int = 500,
    items: Sequence[Any] | None = None,
    models: Sequence[Any] | None = None,
) -> IRTFit:
    r"""Fit the 1PL model :math:`P(Y_{ij}=1) = \sigma(\theta_j - b_i)` to an items x models matrix.

    Parameters
    ----------
    Y : array_like (n_items, n_models), DataFrame or ResponseSet
        0/1 responses, NaN for missing cells. A ResponseSet is read through ``rs.binary()``.
    method : {"mml", "jml"}
        ``"mml"`` (default): marginal maximum likelihood with :math:`\theta \sim N(0, \sigma^2)`
        integrated by ``n_quadrature``-point Gauss-Hermite quadrature. ``"jml"``: penalized joint
        maximum likelihood (abilities and difficulties together), fast for large matrices.
    item_prior_sd : float or None
        SD of a Gaussian penalty :math:`N(0, \tau^2)` on the difficulties (default 3; both methods).
        It keeps items answered correctly (or wrongly) by every model finite; set None for pure
        maximum likelihood, where such items get :math:`\mp\infty`.
    ability_prior_sd : float or None
        JML only: SD of the Gaussian penalty on abilities (default 3), which keeps models with all
        or no items correct finite. None: no penalty (such models get :math:`\pm\infty`; their
        responses carry no information on b and are dropped from the fit).
    ability_sd : float or None
        MML only: fix the ability SD :math:`\sigma` (e.g. 1, as ``girth.rasch_mml`` does); None
        (default) estimates it.
    n_quadrature : int
        Quadrature nodes (default 41).
    collapse : bool
        For complete matrices use the sufficient-statistic collapse (default True); False forces
        the general (missing-data) algorithm, which gives the same estimates more slowly.
    tol, max_iter : float, int
        Convergence tolerance (gradient norm for MML, largest step for JML) and iteration cap.
    items, models : sequence, optional
        Labels (default: from a DataFrame / ResponseSet, else positions).

    Returns
    -------
    IRTFit

    Notes
    -----
    Paper 002, Figure 2 step 3 (the 1PL). Identification: MML fixes the ability mean at 0; JML
    results are shifted so that the mean ability is 0 (the penalized optimum is shift-dependent
    only through the penalty).

    *Collapse.* For a complete matrix the model raw scores :math:`r_j` and item totals :math:`s_i`
    are sufficient. In JML every item with the same total has the same estimate and every model
    with the same raw score the same ability, so the fit runs on at most
    :math:`(n_{models}+1)\times(n_{items}+1)` groups with weights — exactly. In MML each model's
    posterior over the nodes depends on its responses only through :math:`r_j` (the term
    :math:`-\sum_i y_{ij} b_i` does not involve :math:`\theta`), and the score equation of
    :math:`b_i` is :math:`s_i = \sum_j E_j[P_i(\theta)] - b_i/\tau^2`, so items with equal totals
    again share one estimate: the marginal likelihood is evaluated on groups, exactly, and
    maximized by a trust-region Newton method with the analytic Hessian. With missing cells,
    MML uses L-BFGS on the exact marginal likelihood (four matrix products per evaluation) and
    JML alternating Newton steps over the full matrix.

    *Limitation.* MML uses fixed (non-adaptive) Gauss-Hermite nodes. When each model answers
    thousands of items its posterior is far narrower than the node spacing and the quadrature
    degrades (a BenchkitWarning is raised above 20 x ``n_quadrature`` items per model); JML is then
    the estimator of choice (its bias shrinks with the number of items per model).

    *Standard errors.* MML on complete matrices: square roots of the diagonal of the inverse
    observed information over all item difficulties and :math:`\log\sigma` (computed at item
    level through the Woodbury identity, since the information is diagonal minus rank
    ``n_quadrature``). MML with missing cells: the conditional SE
    :math:`1/\sqrt{-\partial^2 \ell/\partial b_i^2}`, other parameters held fixed (slightly
    smaller than the full SE; the difference vanishes as items grow). JML: the usual
    :math:`1/\sqrt{\sum_j P_{ij}(1-P_{ij}) + \tau^{-2}}` for items and models. Abilities from MML
    are EAP means with posterior SDs.
    """
    arr = _matrix(Y)
    items, models = _labels(Y, arr.shape[0], arr.shape[1], items, models)
    check_choice("method", method, ("mml", "jml"))
    prec_b = _prior("item_prior_sd", item_prior_sd)
    prec_t = _prior("ability_prior_sd", ability_prior_sd)
    if ability_sd is not None:
        ability_sd = check_float("ability_sd", ability_sd, min=0.0, min_inclusive=False)
    n_quadrature = check_int("n_quadrature", n_quadrature, min=5, max=201)
    tol = check_float("tol", tol, min=0.0, min_inclusive=False)
    max_iter = check_int("max_iter", max_iter, min=1)
    opts = dict(method=method, item_prior_sd=item_prior_sd, ability_prior_sd=ability_prior_sd,
                ability_sd=ability_sd, n_quadrature=n_quadrature)
    n_items, n_models = arr.shape
    M = ~np.isnan(arr)
    n_obs = M.sum(1)
    s_i = np.nansum(arr, axis=1)
    empty = n_obs == 0
    extreme = ~empty & ((s_i == 0) | (s_i == n_obs)) if prec_b == 0 else np.zeros(n_items, bool)
    keep = ~empty & ~extreme
    if keep.sum() < 1:
        raise BenchkitValueError(
            "no item has both correct and wrong responses; the 1PL cannot be fitted without an "
            "item prior (pass item_prior_sd=...)"
        )
    sub = arr[keep]
    complete = bool(M[keep].all())
    b_full = np.full(n_items, np.nan)
    se_full = np.full(n_items, np.nan)
    b_full[extreme & (s_i == n_obs)] = -np.inf
    b_full[extreme & (s_i == 0)] = np.inf
    se_full[extreme] = np.inf

    if method == "jml":
        mkeep = np.ones(n_models, bool)
        if prec_t == 0:
            r_obs = np.nansum(sub, axis=0)
            n_j = (~np.isnan(sub)).sum(0)
            mkeep = (r_obs > 0) & (r_obs < n_j)
        sub_m = sub[:, mkeep]
        if complete and collapse:
            s, inv_i, n_g, r, inv_j, c_r = _collapse(sub_m)
            with threadpool_limits(1, "blas"):  # small dense algebra: threads only add wake-ups
                t_g, b_g, it, conv = _jml_collapsed(s, n_g, r, c_r, prec_t, prec_b, tol, max_iter)
            # standard errors and log likelihood on the groups too (no pass over the full matrix)
            eta = t_g[:, None] - b_g[None, :]
            Pg = special.expit(eta)
            Vg = Pg * (1 - Pg)
            info_b = ((c_r @ Vg) + prec_b)[inv_i]
            info_t = ((Vg @ n_g) + prec_t)[inv_j]
            ll = float(c_r @ (r * t_g) - n_g @ (s * b_g) - c_r @ _softplus(eta) @ n_g)
            t, b = t_g[inv_j], b_g[inv_i]
            shift = t.mean()
            t = t - shift
            b = b - shift
        else:
            t, b, it, conv = _jml_general(sub_m, prec_t, prec_b, tol, max_iter)
            shift = t.mean()
            t = t - shift
            b = b - shift
            Msub = ~np.isnan(sub_m)
            P = special.expit(t[None, :] - b[:, None]) * Msub
            info_b = (P * (1 - P)).sum(1) + prec_b
            info_t = (P * (1 - P)).sum(0) + prec_t
            Y0 = np.nan_to_num(sub_m)
            with np.errstate(divide="ignore"):
                ll = float(np.sum(Msub * (Y0 * np.log(np.where(Msub, P, 1.0))
                                          + (1 - Y0) * np.log(np.where(Msub, 1 - P, 1.0)))))
        b_full[keep] = b
        se_full[keep] = 1.0 / np.sqrt(info_b)
        ability = np.full(n_models, np.nan)
        ability_se = np.full(n_models, np.nan)
        ability[mkeep] = t
        ability_se[mkeep] = 1.0 / np.sqrt(info_t)
        if not mkeep.all():
            r_all = np.nansum(arr, axis=0)
            ability[~mkeep] = np.where(r_all[~mkeep] > 0, np.inf, -np.inf)
            ability_se[~mkeep] = np.inf
        return IRTFit(b_full, se_full, np.ones(n_items), np.zeros(n_items), ability, ability_se,
                      float(np.std(t, ddof=1)) if t.size > 1 else float("nan"), "1pl", "jml", ll,
                      int(it), bool(conv), bool(complete and collapse), items, models, opts)

    # MML
    n_per_model = int((~np.isnan(sub)).sum(0).max())
    if n_per_model > 20 * n_quadrature:
        import warnings

        warnings.warn(
            f"MML with {n_quadrature} fixed Gauss-Hermite nodes is inaccurate when a model answers "
            f"{n_per_model} items (its posterior is much narrower than the node spacing; the "
            "ability SD and the marginal likelihood are biased, difficulties less so); use "
            "method='jml', which is consistent when every model answers many items",
            BenchkitWarning, stacklevel=2)
    if complete and collapse:
        s, inv_i, n_g, r, inv_j, c_r = _collapse(sub)
        with threadpool_limits(1, "blas"):  # small dense algebra: threads only add wake-ups
            b_g, ls, res, x, logw = _mml1_collapsed(s, n_g, r, c_r, n_quadrature, prec_b,
                                                    ability_sd, tol, max_iter)
            se_g = _mml1_item_se(b_g, ls, s, n_g, r, c_r, x, logw, prec_b, ability_sd is not None)
        sigma, th, P, W, lse, ll = _mml1_collapsed_parts(b_g, ls, s, n_g, r, c_r, x, logw, prec_b)
        b, se = b_g[inv_i], se_g[inv_i]
        W_models = W[inv_j]
        conv, nit = bool(res.success), int(res.nit)
        # loglik without the constant: full marginal log likelihood
        loglik = ll
        # models dropped? none in MML (all models kept)
    else:
        n_m = (~np.isnan(sub)).sum(1)
        p0 = np.clip(special.logit(np.clip(1 - np.nansum(sub, 1) / n_m, 1e-3, 1 - 1e-3)), -8, 8)
        if ability_sd is None:
            p0 = np.concatenate([p0, [0.0]])
        mg, res = _fit_general_mml(sub, n_quad=n_quadrature, prec_b=prec_b, prec_a=0.0,
                                   two_pl=False, ability_sd=ability_sd, tol=tol,
                                   max_iter=max_iter * 10, p0=p0)
        b, _, ls = mg.unpack(res.x)
        se, W_models, th = mg.b_se_diag(res.x)
        sigma = float(np.exp(ls))
        loglik = mg.loglik(res.x)
        conv, nit = bool(res.success), int(res.nit)
    b_full[keep] = b
    se_full[keep] = se
    sigma = float(np.exp(ls))
    th = sigma * _gh(n_quadrature)[0]
    eap = W_models @ th
    psd = np.sqrt(np.maximum(W_models @ th**2 - eap**2, 0.0))
    return IRTFit(b_full, se_full, np.ones(n_items), np.zeros(n_items), eap, psd, sigma, "1pl",
                  "mml", float(loglik), nit, conv, bool(complete and collapse), items, models,
                  opts, nodes=th, posterior=W_models)


def fit_2pl(
    Y: Any,
    *,
    item_prior_sd: float | None = 3.0,
    discrimination_prior_sd: float | None = 1.0,
    n_quadrature: int = 41,
    tol: float = 1e-7,
    max_iter: int = 5000,
    items: Sequence[Any] | None = None,
    models: Sequence[Any] | None = None,
) -> IRTFit:
    r"""Fit the 2PL model :math:`P(Y_{ij}=1) = \sigma(a_i(\theta_j - b_i))` by marginal ML.

    Parameters
    ----------
    Y : array_like (n_items, n_models), DataFrame or ResponseSet
        0/1 responses, NaN for missing cells.
    item_prior_sd : float or None
        Gaussian penalty SD on :math:`b_i` (default 3; None = none, extreme items then +-inf).
    discrimination_prior_sd : float or None
        Gaussian penalty SD on :math:`\log a_i` (default 1), which prevents the Heywood cases
        (:math:`a_i \to \infty`) that small model samples produce.
    n_quadrature, tol, max_iter, items, models
        As in :func:`fit_1pl`.

    Returns
    -------
    IRTFit
        With ``discrimination``; SEs of b are conditional (other parameters fixed), SEs of a are
        not computed (NaN).

    Notes
    -----
    The 2PL is the issue's option beyond the paper's 1PL. Abilities are :math:`N(0, 1)` (the
    scale is set by the discriminations); L-BFGS on the exact marginal likelihood with the
    analytic gradient.
    """
    arr = _matrix(Y)
    items, models = _labels(Y, arr.shape[0], arr.shape[1], items, models)
    prec_b = _prior("item_prior_sd", item_prior_sd)
    prec_a = _prior("discrimination_prior_sd", discrimination_prior_sd)
    n_quadrature = check_int("n_quadrature", n_quadrature, min=5, max=201)
    tol = check_float("tol", tol, min=0.0, min_inclusive=False)
    max_iter = check_int("max_iter", max_iter, min=1)
    n_items, n_models = arr.shape
    M = ~np.isnan(arr)
    n_obs = M.sum(1)
    s_i = np.nansum(arr, axis=1)
    empty = n_obs == 0
    extreme = ~empty & ((s_i == 0) | (s_i == n_obs)) if prec_b == 0 else np.zeros(n_items, bool)
    keep = ~empty & ~extreme
    if keep.sum() < 1:
        raise BenchkitValueError("no item has both correct and wrong responses")
    sub = arr[keep]
    n_m = (~np.isnan(sub)).sum(1)
    b0 = np.clip(special.logit(np.clip(1 - np.nansum(sub, 1) / n_m, 1e-3, 1 - 1e-3)), -8, 8)
    p0 = np.concatenate([b0, np.zeros(sub.shape[0])])
    mg, res = _fit_general_mml(sub, n_quad=n_quadrature, prec_b=prec_b, prec_a=prec_a,
                               two_pl=True, ability_sd=None, tol=tol, max_iter=max_iter, p0=p0)
    b, la, _ = mg.unpack(res.x)
    se, W, th = mg.b_se_diag(res.x)
    b_full = np.full(n_items, np.nan)
    se_full = np.full(n_items, np.nan)
    a_full = np.full(n_items, np.nan)
    b_full[extreme & (s_i == n_obs)] = -np.inf
    b_full[extreme & (s_i == 0)] = np.inf
    se_full[extreme] = np.inf
    b_full[keep], se_full[keep], a_full[keep] = b, se, np.exp(la)
    eap = W @ th
    psd = np.sqrt(np.maximum(W @ th**2 - eap**2, 0.0))
    opts = dict(method="mml", item_prior_sd=item_prior_sd,
                discrimination_prior_sd=discrimination_prior_sd, n_quadrature=n_quadrature)
    return IRTFit(b_full, se_full, a_full, np.full(n_items, np.nan), eap, psd, 1.0, "2pl", "mml",
                  mg.loglik(res.x), int(res.nit), bool(res.success), False, items, models, opts,
                  nodes=th, posterior=W)


# ----------------------------------------------------------------------------------------------
# post-fit diagnostics
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FitStatistics:
    """Infit and outfit mean squares of items and models (Rasch fit statistics)."""

    items: pd.DataFrame
    models: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        return self.items.copy()


def fit_statistics(Y: Any, fit: IRTFit) -> FitStatistics:
    r"""Item and model infit / outfit mean squares of a fitted model.

    Parameters
    ----------
    Y : array_like (n_items, n_models)
        The responses the model was fitted to (NaN missing).
    fit : IRTFit
        From :func:`fit_1pl` or :func:`fit_2pl`; its ``ability`` (JML estimates or MML EAP) is used.

    Returns
    -------
    FitStatistics
        ``items`` / ``models`` frames with ``outfit`` (mean of squared standardized residuals
        :math:`z^2 = (y - P)^2 / (P(1-P))`), ``infit`` (information-weighted:
        :math:`\sum (y-P)^2 / \sum P(1-P)`) and ``n_obs``. Expected value 1; above ~1.3
        indicates noise (e.g. miskeyed items), below ~0.7 overly deterministic responses.

    Notes
    -----
    The paper's post-fit checks (Figure 2 step 3) are Bayesian (R-hat, ESS, divergences, LOO);
    these are their frequentist counterparts for a point fit (Wright & Masters 1982). Cells whose
    fitted probability is 0 or 1 (infinite parameters) are left out.
    """
    arr = _matrix(Y)
    if arr.shape != (fit.n_items, fit.n_models):
        raise BenchkitValueError(
            f"Y has shape {arr.shape} but the fit has {fit.n_items} items x {fit.n_models} models"
        )
    with np.errstate(invalid="ignore"):
        P = fit.probabilities()
    V = P * (1 - P)
    ok = ~np.isnan(arr) & np.isfinite(P) & (V > 0)
    R2 = np.where(ok, (np.nan_to_num(arr) - np.nan_to_num(P)) ** 2, 0.0)
    Vz = np.where(ok, V, 1.0)
    Z2 = np.where(ok, R2 / Vz, 0.0)
    Vok = np.where(ok, V, 0.0)

    def frame(axis, index):
        n = ok.sum(axis)
        with np.errstate(invalid="ignore", divide="ignore"):
            outfit = np.where(n > 0, Z2.sum(axis) / n, np.nan)
            infit = np.where(n > 0, R2.sum(axis) / Vok.sum(axis), np.nan)
        return pd.DataFrame({"infit": infit, "outfit": outfit, "n_obs": n}, index=index)

    return FitStatistics(items=frame(1, fit.items), models=frame(0, fit.models))


@dataclass(frozen=True)
class LOOStability:
    """Leave-one-model-out stability of difficulties and of the measure metrics."""

    full: IRTFit = field(repr=False)
    difficulties: np.ndarray = field(repr=False)  # (n_models, n_items), row j = fit without model j
    models: pd.DataFrame
    items: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        return self.models.copy()


def _loo_one(arr, j, fit_kwargs):
    sub = np.delete(arr, j, axis=1)
    return fit_1pl(sub, **fit_kwargs).difficulty


def leave_one_model_out(
    Y: Any,
    *,
    method: str = "jml",
    normalize: str = "minmax",
    n_jobs: int | None = None,
    **fit_kwargs: Any,
) -> LOOStability:
    r"""Refit the 1PL leaving out each model in turn; report how difficulties and metrics move.

    Parameters
    ----------
    Y : array_like (n_items, n_models)
    method : {"jml", "mml"}
        Estimator for all refits (default "jml", the fast one).
    normalize : {"minmax", "logistic"}
        Map used for the normalized difficulties and metrics.
    n_jobs : int or None
        joblib workers for the refits (results do not depend on it).
    **fit_kwargs
        Passed to :func:`fit_1pl`.

    Returns
    -------
    LOOStability
        ``models``: per left-out model, Pearson and Spearman correlation of its refit's
        difficulties with the full fit's, max |change| of normalized difficulty, and DDM, Max Gap,
        Top-5 Sum of the refit; ``items``: per item, SD and max |change| of the normalized
        difficulty across refits.

    Notes
    -----
    The paper checks "leave-one-out stability" after its Bayesian fit (Figure 2 step 3). Reading:
    leave one *model* (response-matrix column) out and refit, so that a difficulty axis that hinges
    on a single model shows up; the metrics are recomputed on each refit, since the normalized
    difficulties (not the logits) are what the paper reports. Only items with finite difficulties
    in every fit enter the correlations.
    """
    from joblib import Parallel, delayed

    from benchkit import measure

    arr = _matrix(Y)
    check_choice("method", method, ("mml", "jml"))
    check_choice("normalize", normalize, ("minmax", "logistic"))
    items, models = _labels(Y, arr.shape[0], arr.shape[1], fit_kwargs.pop("items", None),
                            fit_kwargs.pop("models", None))
    if arr.shape[1] < 3:
        raise BenchkitValueError("leave_one_model_out needs at least 3 models")
    fit_kwargs = dict(fit_kwargs, method=method)
    full = fit_1pl(arr, items=items, models=models, **fit_kwargs)
    out = Parallel(n_jobs=n_jobs)(delayed(_loo_one)(arr, j, fit_kwargs) for j in range(arr.shape[1]))
    B = np.vstack(out)
    fin = np.isfinite(full.difficulty) & np.all(np.isfinite(B), axis=0)
    if fin.sum() < 2:
        raise BenchkitValueError("fewer than 2 items have finite difficulties in every refit")
    z_full = measure.normalize_difficulty(full.difficulty[fin], method=normalize)
    rows = []
    Z = np.empty((B.shape[0], int(fin.sum())))
    from scipy import stats

    for j in range(B.shape[0]):
        z = measure.normalize_difficulty(B[j, fin], method=normalize)
        Z[j] = z
        tg = measure.top_gaps(z, k=5)
        rows.append({
            "pearson": float(np.corrcoef(B[j, fin], full.difficulty[fin])[0, 1]),
            "spearman": float(stats.spearmanr(B[j, fin], full.difficulty[fin])[0]),
            "max_abs_dz": float(np.max(np.abs(z - z_full))),
            "DDM": measure.ddm(z), "Max Gap": tg.gaps[0].width, "Top-5 Sum": tg.total,
        })
    mframe = pd.DataFrame(rows, index=models)
    sd = np.full(arr.shape[0], np.nan)
    mx = np.full(arr.shape[0], np.nan)
    sd[fin] = Z.std(axis=0, ddof=0)
    mx[fin] = np.max(np.abs(Z - z_full[None, :]), axis=0)
    iframe = pd.DataFrame({"z": np.where(fin, 0.0, np.nan), "sd_z": sd, "max_abs_dz": mx},
                          index=items)
    iframe.loc[fin, "z"] = z_full
    return LOOStability(full=full, difficulties=B, models=mframe, items=iframe)


# ----------------------------------------------------------------------------------------------
# response-matrix diagnostics
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ResponseDiagnostics:
    """Pre-fit diagnostics of a response matrix (paper Figure 2, step 2)."""

    items: pd.DataFrame
    models: pd.DataFrame
    inversion_rate: float

    def to_frame(self) -> pd.DataFrame:
        return self.items.copy()


def _inversions(Y: np.ndarray, strength: np.ndarray):
    """Per row of Y: (#pairs stronger-fails & weaker-succeeds, #comparable pairs).

    Columns are compared by ``strength`` (ties are not comparable); only observed cells count.
    Columns are grouped by equal strength; with S_g / O_g successes / observations of group g
    (ascending strength), inversions = sum_g F_g * sum_{h<g} S_h and pairs = sum_g O_g sum_{h<g} O_h.
    """
    order = np.argsort(strength, kind="mergesort")
    st = strength[order]
    starts = np.flatnonzero(np.concatenate([[True], st[1:] != st[:-1]]))
    Ys = Y[:, order]
    obs = ~np.isnan(Ys)
    succ = np.nan_to_num(Ys)
    S = np.add.reduceat(succ, starts, axis=1)
    O = np.add.reduceat(obs.astype(float), starts, axis=1)
    F = O - S
    cS = np.cumsum(S, axis=1) - S
    cO = np.cumsum(O, axis=1) - O
    return (F * cS).sum(1), (O * cO).sum(1)


def response_diagnostics(Y: Any, *, items: Sequence[Any] | None = None,
                         models: Sequence[Any] | None = None) -> ResponseDiagnostics:
    r"""Model and item information and inversion rates of an items x models 0/1 matrix.

    Parameters
    ----------
    Y : array_like (n_items, n_models), DataFrame or ResponseSet
        0/1 responses, NaN missing.
    items, models : sequence, optional
        Labels.

    Returns
    -------
    ResponseDiagnostics
        ``items``: ``n_obs``, ``p_correct``, ``information`` :math:`p(1-p)` (the Bernoulli variance:
        0 for items every model solves or fails, which carry no information on abilities),
        ``inversion_rate`` (among pairs of models of different accuracy that both answered the
        item, the fraction where the more accurate model fails and the less accurate succeeds),
        ``inversions`` and ``pairs``. ``models``: the same with roles swapped (accuracy; pairs of
        items of different p-value, where the model fails the easier and solves the harder).
        ``inversion_rate``: pooled over all items.

    Notes
    -----
    Paper 002, Figure 2 step 2 ("diagnose the response matrix with model and item information and
    inversion rates"); the paper does not define them further. Readings: information is the
    empirical Bernoulli variance at the observed proportion (the Fisher information an item
    contributes under a logistic model is P(1-P)); inversions are Guttman errors, ordering models
    by accuracy and items by proportion correct, ties excluded. An inversion rate near 0.5 means
    the item does not order models (or is miskeyed when above 0.5).
    """
    arr = _matrix(Y)
    items, models = _labels(Y, arr.shape[0], arr.shape[1], items, models)
    obs = ~np.isnan(arr)
    n_i = obs.sum(1)
    n_j = obs.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_i = np.nansum(arr, 1) / n_i
        p_j = np.nansum(arr, 0) / n_j
    inv_i, pairs_i = _inversions(arr, np.nan_to_num(p_j, nan=-1.0))
    # models: an inversion is failing an easier item (higher p) and solving a harder one.
    inv_j, pairs_j = _inversions(arr.T, np.nan_to_num(p_i, nan=-1.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        it = pd.DataFrame({"n_obs": n_i, "p_correct": p_i, "information": p_i * (1 - p_i),
                           "inversion_rate": np.where(pairs_i > 0, inv_i / pairs_i, np.nan),
                           "inversions": inv_i.astype(np.int64), "pairs": pairs_i.astype(np.int64)},
                          index=items)
        md = pd.DataFrame({"n_obs": n_j, "accuracy": p_j, "information": p_j * (1 - p_j),
                           "inversion_rate": np.where(pairs_j > 0, inv_j / pairs_j, np.nan),
                           "inversions": inv_j.astype(np.int64), "pairs": pairs_j.astype(np.int64)},
                          index=models)
    tot = pairs_i.sum()
    return ResponseDiagnostics(items=it, models=md,
                               inversion_rate=float(inv_i.sum() / tot) if tot > 0 else float("nan"))


# ----------------------------------------------------------------------------------------------
# online calibration
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Calibration:
    """Difficulties of new items calibrated against a fixed fit."""

    difficulty: np.ndarray
    difficulty_se: np.ndarray
    items: pd.Index
    method: str
    converged: bool

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"difficulty": self.difficulty, "difficulty_se": self.difficulty_se},
                            index=self.items)


def calibrate_items(
    Y_new: Any,
    fit: IRTFit,
    *,
    item_prior_sd: float | None = "fit",
    tol: float = 1e-10,
    max_iter: int = 100,
    items: Sequence[Any] | None = None,
) -> Calibration:
    r"""Online calibration: difficulties of new items with all existing parameters held fixed.

    Parameters
    ----------
    Y_new : array_like (n_new, n_models)
        0/1 responses of the same models (same column order as the fit), NaN missing.
    fit : IRTFit
        A 1PL fit from :func:`fit_1pl`.
    item_prior_sd : float, None or "fit"
        Penalty on the new difficulties; ``"fit"`` (default) uses the fit's own.
    tol, max_iter : float, int
        Newton convergence tolerance and iteration cap.
    items : sequence, optional
        Labels of the new items.

    Returns
    -------
    Calibration
        Difficulties on the fit's logit scale; place them on the benchmark's normalized axis with
        ``measure.normalize_difficulty(b_new, reference=fit.difficulty)``.

    Notes
    -----
    Paper 002, Figure 4 step 2(c) ("online calibration to obtain an item difficulty"). For an MML
    fit, each model's ability is integrated over its posterior given the existing items (the
    one-EM-cycle "OEM" fixed-parameter calibration of Wainer & Mislevy): the new item maximizes
    :math:`\sum_j \sum_q W_{jq}\,[y_j \log P_q + (1-y_j)\log(1-P_q)]`. For a JML fit the point
    abilities are used. New items do not update the abilities or each other.
    """
    if not isinstance(fit, IRTFit):
        raise BenchkitValueError(f"fit must be an IRTFit from fit_1pl; got {describe(fit)}")
    if fit.model != "1pl":
        raise BenchkitValueError("calibrate_items supports 1PL fits only (fit.model == '1pl')")
    arr = check_array("Y_new", Y_new, ndim=(1, 2), dtype="float", finite=False)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.shape[1] != fit.n_models:
        raise BenchkitValueError(
            f"Y_new has {arr.shape[1]} columns but the fit has {fit.n_models} models"
        )
    obs = ~np.isnan(arr)
    if np.any(obs & (arr != 0) & (arr != 1)):
        raise BenchkitValueError("Y_new must hold 0/1 responses (NaN for missing)")
    if item_prior_sd == "fit":
        item_prior_sd = fit.options.get("item_prior_sd")
    prec = _prior("item_prior_sd", item_prior_sd)
    tol = check_float("tol", tol, min=0.0, min_inclusive=False)
    max_iter = check_int("max_iter", max_iter, min=1)
    Y0 = np.nan_to_num(arr)
    Mf = obs.astype(float)
    if fit.method == "mml":
        W, nodes = fit.posterior, fit.nodes
    else:
        if not np.all(np.isfinite(fit.ability)):
            raise BenchkitValueError("the fit has infinite abilities; refit with ability_prior_sd")
        W, nodes = np.eye(fit.n_models), fit.ability
    Rq = Y0 @ W  # expected correct at each node
    Nq = Mf @ W  # expected observations at each node
    n_new = arr.shape[0]
    s = Y0.sum(1)
    n = Mf.sum(1)
    b = special.logit(np.clip(1 - s / np.maximum(n, 1), 0.02, 0.98)) + float(np.sum(W @ nodes) / max(W.sum(), 1))
    conv = False
    for _ in range(max_iter):
        P = special.expit(nodes[None, :] - b[:, None])
        g = (Nq * P).sum(1) - Rq.sum(1) - prec * b  # d loglik / db
        h = (Nq * P * (1 - P)).sum(1) + prec
        step = np.clip(g / np.maximum(h, 1e-300), -2, 2)
        b = b + step
        if np.max(np.abs(step)) < tol:
            conv = True
            break
    P = special.expit(nodes[None, :] - b[:, None])
    se = 1.0 / np.sqrt((Nq * P * (1 - P)).sum(1) + prec)
    if prec == 0:
        b = np.where(s == n, -np.inf, np.where(s == 0, np.inf, b))
        se = np.where((s == n) | (s == 0), np.inf, se)
    b = np.where(n == 0, np.nan, b)
    labels = pd.Index(range(n_new) if items is None else list(items), name="item")
    if len(labels) != n_new:
        raise BenchkitValueError(f"items has {len(labels)} ids but Y_new has {n_new} rows")
    return Calibration(b, se, labels, fit.method, conv)
