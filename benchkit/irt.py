r"""Item response theory for benchmark matrices: 1PL / 2PL fits, diagnostics, online calibration.

Input everywhere is an items x models matrix ``Y`` of 0/1 responses (float, NaN = missing cell),
e.g. ``ResponseSet.binary()``. The model of paper 002 (Figure 2, step 3) is the 1PL

.. math:: P(Y_{ij} = 1) = \sigma(\theta_j - b_i),

with item difficulty :math:`b_i` (higher = harder) and model ability :math:`\theta_j`.

============================= ==================================================================
:func:`fit_1pl`               marginal ML with adaptive quadrature (``method="mml"``) or
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
from scipy import linalg, optimize, special
from threadpoolctl import threadpool_limits

from benchkit._validation import (
    BenchkitValueError,
    check_array,
    check_choice,
    check_float,
    check_int,
    describe,
)

__all__ = [
    "fit_1pl_counts",
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
@dataclass(frozen=True)
class _Stats:
    """One-pass summaries of a 0/1 matrix with NaN for missing cells."""

    row_sum: np.ndarray
    row_obs: np.ndarray
    col_sum: np.ndarray
    col_obs: np.ndarray

    @property
    def complete(self) -> bool:
        return bool(np.all(self.row_obs == self.col_obs.size))


def _scan(arr: np.ndarray, name: str) -> _Stats:
    from benchkit._kernels.irt import scan_binary

    if arr.flags.c_contiguous:
        rs, ro, cs, co, n_bad = scan_binary(arr)
    elif arr.flags.f_contiguous:  # e.g. DataFrame.to_numpy(): scan the transpose, no copy
        cs, co, rs, ro, n_bad = scan_binary(arr.T)
    else:
        rs, ro, cs, co, n_bad = scan_binary(np.ascontiguousarray(arr))
    if n_bad > 0:
        bad = ~np.isnan(arr) & (arr != 0.0) & (arr != 1.0)
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise BenchkitValueError(
            f"{name} must hold 0/1 responses (NaN for missing); found {describe(arr[i, j])} at "
            f"item {i}, model {j}"
        )
    return _Stats(rs, ro, cs, co)


def _matrix_stats(Y: Any, name: str = "Y") -> tuple[np.ndarray, _Stats]:
    if hasattr(Y, "binary") and callable(Y.binary):  # a ResponseSet
        Y = Y.binary()
    if isinstance(Y, pd.DataFrame):
        Y = Y.to_numpy(dtype=float, na_value=np.nan)
    arr = check_array(name, Y, ndim=2, dtype="float", finite=False)
    if arr.shape[0] < 1 or arr.shape[1] < 2:
        raise BenchkitValueError(
            f"{name} must be an items x models matrix with at least 1 item and 2 models; got "
            f"shape {arr.shape}"
        )
    return arr, _scan(arr, name)


def _matrix(Y: Any, name: str = "Y") -> np.ndarray:
    return _matrix_stats(Y, name)[0]


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


def _sp_p(eta):
    """softplus(eta) and expit(eta) with one exp and one log1p per cell."""
    e = np.exp(-np.abs(eta))
    sp = np.maximum(eta, 0.0) + np.log1p(e)
    P = np.where(eta >= 0, 1.0, e) / (1.0 + e)
    return sp, P


# ----------------------------------------------------------------------------------------------
# result
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class IRTFit:
    r"""A fitted 1PL or 2PL model.

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
    nodes, posterior : ndarray or None
        MML: the quadrature grid :math:`\theta_k` (K,) and each model's posterior weights over it
        (n_models, K), rows summing to 1 (used by :func:`calibrate_items`).
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
# adaptive quadrature grid
# ----------------------------------------------------------------------------------------------
_PAD = 8.0  # the grid reaches this many posterior SDs beyond every posterior mode
_MAX_H = 0.5  # largest spacing: the logistic's poles (distance pi from the real axis) stay harmless
_EDGE = 1e-12  # largest posterior weight allowed on a grid (or window) edge
_MAX_NODES = 20_000
_LOG_SQRT_2PI = 0.5 * np.log(2 * np.pi)


def _grid(mu: np.ndarray, sd: np.ndarray, density: float, pad: float = _PAD) -> np.ndarray:
    """Equally spaced nodes: spacing min(sd)/density (<= _MAX_H), covering mode +- pad sd."""
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
    """Whether the posteriors ``W`` computed on ``theta`` are resolved: (every posterior SD is at
    least 0.8 * density node spacings, no posterior puts more than _EDGE on a grid / window
    edge)."""
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
    """log of N(theta; 0, e^{2 ls}) times the grid spacing (trapezoid weights)."""
    h = theta[1] - theta[0]
    return np.log(h) - _LOG_SQRT_2PI - ls - 0.5 * theta**2 * np.exp(-2.0 * ls)


# ----------------------------------------------------------------------------------------------
# 1PL MML, complete matrix, collapsed by sufficient statistics
# ----------------------------------------------------------------------------------------------
class _Collapsed:
    """Marginal likelihood of a complete 0/1 matrix on item groups x raw-score groups.

    Items with equal totals s_g (n_g of them) share b_g, models with equal raw score r (c_r of
    them) share one posterior. On the nodes theta_k (spacing h):
    L_rk = r theta_k - sum_g n_g softplus(theta_k - b_g) + log(h N(theta_k; 0, sigma^2)),
    loglik = sum_r c_r logsumexp_k L_rk - sum_g n_g s_g b_g (exactly the full-matrix marginal
    log likelihood, with the integral over theta done by the trapezoid rule on the nodes).
    Penalty: prec/2 sum_i (b_i - mean b)^2. Parameters p = (b_g..., log sigma) or (b_g...) when
    sigma is fixed.
    """

    def __init__(self, s, n_g, r, c_r, prec, ls_fixed):
        self.s, self.n_g, self.r, self.c_r, self.prec = s, n_g, r, c_r, prec
        self.n = float(n_g.sum())
        self.ls_fixed = ls_fixed
        self.theta = None
        self._last = None  # (key, parts) of the last evaluation: Newton asks for it repeatedly

    def unpack(self, p):
        return (p, self.ls_fixed) if self.ls_fixed is not None else (p[:-1], p[-1])

    def parts(self, p):
        key = p.tobytes()  # reset (_last = None) whenever theta changes
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        out = self._parts(p)
        self._last = (key, out)
        return out

    def _parts(self, p):
        b, ls = self.unpack(p)
        th = self.theta
        if np.max(np.abs(b)) + np.max(np.abs(th)) < 600.0:
            # e^(theta - b) as an outer product: one log1p per cell instead of exp + log1p
            E = np.exp(-b)[:, None] * np.exp(th)[None, :]
            sp = np.log1p(E)
            P = E / (1.0 + E)
        else:
            sp, P = _sp_p(th[None, :] - b[:, None])
        L = self.r[:, None] * th[None, :] - (self.n_g @ sp)[None, :] + _log_prior(th, ls)[None, :]
        mx = L.max(axis=1)
        W = np.exp(L - mx[:, None])
        tot = W.sum(axis=1)
        W /= tot[:, None]
        lse = mx + np.log(tot)
        ll = float(self.c_r @ lse - self.n_g @ (self.s * b))
        return b, ls, P, W, ll

    def _dev(self, b):
        return b - (self.n_g @ b) / self.n

    def fun(self, p):
        b, ls, P, W, ll = self.parts(p)
        N = self.c_r @ W
        dev = self._dev(b)
        gb = self.n_g * (P @ N - self.s - self.prec * dev)
        f = -(ll - 0.5 * self.prec * (self.n_g @ dev**2))
        if self.ls_fixed is not None:
            return f, -gb
        v = self.theta**2 * np.exp(-2.0 * ls) - 1.0
        return f, -np.concatenate([gb, [N @ v]])

    def info_parts(self, p, dense=True):
        b, ls, P, W, ll = self.parts(p)
        N = self.c_r @ W
        C = None
        if dense:
            Wc = W * np.sqrt(self.c_r)[:, None]
            C = -(Wc.T @ Wc)  # sum_r c_r Cov_r over the nodes
            C[np.diag_indices_from(C)] += N
        v = self.theta**2 * np.exp(-2.0 * ls) - 1.0
        return b, ls, P, W, N, C, v

    def hess(self, p):
        """Observed information in group parameters (b_g shared by n_g items) [+ log sigma]."""
        b, ls, P, W, N, C, v = self.info_parts(p)
        n_g = self.n_g
        U = n_g[:, None] * P
        UC = U @ C
        J = UC @ (-U.T)
        J -= (self.prec / self.n) * np.outer(n_g, n_g)
        J[np.diag_indices_from(J)] += n_g * ((P * (1.0 - P)) @ N + self.prec)
        if self.ls_fixed is not None:
            return J
        out = np.empty((J.shape[0] + 1, J.shape[0] + 1))
        out[:-1, :-1] = J
        out[:-1, -1] = out[-1, :-1] = -(UC @ v)
        out[-1, -1] = 2.0 * N @ (v + 1.0) - v @ C @ v
        return out

    def hvp(self, p):
        """(J v, diag preconditioner) for the observed information J of :meth:`hess`, without
        forming J: J = diag(n d) - Ng [U C U^T] Ng - prec/n n n^T (+ log-sigma border), applied
        as products with the G x K and R x K arrays (O((G + R) K) per product)."""
        b, ls, P, W, N, C, v = self.info_parts(p, dense=False)
        n_g = self.n_g
        Wc = W * np.sqrt(self.c_r)[:, None]
        d = n_g * ((P * (1.0 - P)) @ N + self.prec)
        G = P.shape[0]
        free = self.ls_fixed is None
        jss = 2.0 * N @ (v + 1.0) if free else 0.0

        def Cx(x):  # C x, C = diag(N) - Wc^T Wc
            return N * x - Wc.T @ (Wc @ x)

        def matvec(x):
            xb = x[:G]
            y = P.T @ (n_g * xb)  # U^T x (U = n_g P)
            out_b = d * xb - n_g * (P @ Cx(y)) - (self.prec / self.n) * n_g * (n_g @ xb)
            if not free:
                return out_b
            xs = x[G]
            Cv = Cx(v)
            out_b = out_b - n_g * (P @ Cv) * xs
            out_s = -(Cv @ y) + (jss - v @ Cv) * xs
            return np.concatenate([out_b, [out_s]])

        diag = np.concatenate([d, [max(jss, 1e-12)]]) if free else d
        return matvec, diag

    def item_se(self, p):
        """Item-level SEs: sqrt diag of the inverse observed information over all items [+ log
        sigma]. At item level the information is A = D - E V E^T (D diagonal with d_g for each
        item of group g, E the item-to-group indicator, V the group-constant low-rank part), so
        A^-1 = D^-1 + E Z E^T with Z = J^-1 - diag(1 / (n_g d_g)), J the group-level
        information of :meth:`hess` (substitute into A A^-1 = I); the log-sigma border carries
        over unchanged. Hence se_i^2 = 1/d_g - 1/(n_g d_g) + (J^-1)_gg: one G x G inverse."""
        b, ls, P, W, N, C, v = self.info_parts(p)
        n_g = self.n_g
        d = (P * (1.0 - P)) @ N + self.prec
        L = np.linalg.cholesky(self.hess(p))
        Linv, _ = linalg.lapack.dtrtri(L, lower=1)
        Jinv_diag = np.einsum("kg,kg->g", Linv, Linv)  # diag(L^-T L^-1)
        G = n_g.size
        return np.sqrt(1.0 / d - 1.0 / (n_g * d) + Jinv_diag[:G])


def _pcg(matvec, diag, rhs, rtol, max_iter):
    """Preconditioned conjugate gradients for J x = rhs (J symmetric positive definite);
    returns (x, ok) with ok False on non-positive curvature or no convergence."""
    x = np.zeros_like(rhs)
    r = rhs.copy()
    z = r / diag
    q = z.copy()
    rz = r @ z
    target = rtol * np.sqrt(rhs @ rhs)
    for _ in range(max_iter):
        Jq = matvec(q)
        qJq = q @ Jq
        if qJq <= 0:
            return x, False
        alpha = rz / qJq
        x += alpha * q
        r -= alpha * Jq
        if np.sqrt(r @ r) <= target:
            return x, True
        z = r / diag
        rz_new = r @ z
        q = z + (rz_new / rz) * q
        rz = rz_new
    return x, False


def _newton_cg(ob, p, tol, max_iter):
    """Newton's method with the steps solved by preconditioned CG on Hessian-vector products
    (:meth:`_Collapsed.hvp`); falls back to the dense damped Newton step when CG fails."""
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


def _modes_collapsed(r, n_g, b, sigma, t0, iters=100):
    """Posterior modes and curvature SDs of each raw-score group (vectorized 1-D Newton)."""
    t = t0.astype(float).copy()
    pr = 1.0 / sigma**2
    for _ in range(iters):
        P = special.expit(t[:, None] - b[None, :])
        g = r - P @ n_g - pr * t
        hh = (P * (1 - P)) @ n_g + pr
        step = np.clip(g / hh, -2.0, 2.0)
        t += step
        if np.max(np.abs(step)) < 1e-8:
            break
    P = special.expit(t[:, None] - b[None, :])
    return t, 1.0 / np.sqrt((P * (1 - P)) @ n_g + pr)


def _fit_mml_collapsed(s, n_g, r, c_r, prec, ability_sd, density, tol, max_iter, b0, t0):
    """Adaptive-grid Newton fit; the grid is rebuilt until the posteriors are resolved on it."""
    ls_fixed = None if ability_sd is None else float(np.log(ability_sd))
    ob = _Collapsed(s, n_g, r, c_r, prec, ls_fixed)
    # JML start values: shift to mean ability 0 (the MML location), scale from their spread
    shift = float(c_r @ t0 / c_r.sum())
    t0, b0 = t0 - shift, b0 - shift
    sigma0 = ability_sd if ability_sd is not None else max(float(np.sqrt(c_r @ t0**2 / c_r.sum())), 0.05)
    mu, sd = _modes_collapsed(r, n_g, b0, sigma0, t0)
    p = b0.copy() if ls_fixed is not None else np.concatenate([b0, [np.log(sigma0)]])
    total = 0
    pad = _PAD
    for _round in range(8):
        ob.theta, ob._last = _grid(mu, sd, density, pad), None
        p, f, g, it, conv = _newton_cg(ob, p, tol, max_iter)
        total += it
        W = ob.parts(p)[3]
        spacing_ok, edge_ok = _grid_ok(ob.theta, W, density)
        if spacing_ok and edge_ok:
            break
        pad = pad if edge_ok else 1.5 * pad  # heavier tails than the Laplace SDs suggest
        mu, sd = _post_moments(W, ob.theta)
    else:  # pragma: no cover - eight rebuilds are never needed in practice
        conv = False
    return ob, p, total, conv


# ----------------------------------------------------------------------------------------------
# general marginal likelihood (missing cells, 2PL)
# ----------------------------------------------------------------------------------------------
_BLOCK = 48  # models per block: each block integrates over the union of its models' windows


class _Marginal:
    r"""Marginal log likelihood of a (possibly incomplete) matrix on an adaptive grid.

    Parameters p: b (n), log a (n, 2PL only), log sigma (1PL with free sigma). With
    eta_ik = a_i (theta_k - b_i), the log integrand of model j at node k is
    L_jk = (Y0^T a)_j theta_k - sum_i M_ij softplus(eta_ik) + log(h N(theta_k; 0, sigma^2))
    (the term -sum_i y_ij a_i b_i does not involve theta and is added outside). Models are
    sorted by their posterior mode and cut into blocks of ``_BLOCK``; a block's posteriors are
    computed only over the nodes within ``pad`` posterior SDs of its models' modes (its window):
    per block, the logistic terms on n x window cells and two matrix products of
    n x block x window, instead of n x m x K for the whole grid. Penalties:
    prec_b/2 sum (b_i - mean b)^2 and prec_a/2 sum (log a_i)^2.
    """

    def __init__(self, Y0, M, s, r, two_pl, prec_b, prec_a, ls_fixed):
        self.Y0, self.M = Y0, M  # M None: complete
        self.s, self.r = s, r
        self.n, self.m = Y0.shape
        self.two_pl, self.prec_b, self.prec_a, self.ls_fixed = two_pl, prec_b, prec_a, ls_fixed
        self._last = None

    def setup(self, mu, sd, density, pad=_PAD):
        self.theta = _grid(mu, sd, density, pad)
        self._last = None
        th = self.theta
        order = np.argsort(mu, kind="stable")
        self.order = order
        if self.M is not None:
            self.Ms = np.ascontiguousarray(self.M[:, order])
        mu_s, sd_s = mu[order], sd[order]
        blocks = []
        for j0 in range(0, self.m, _BLOCK):
            j1 = min(j0 + _BLOCK, self.m)
            lo = float(np.min(mu_s[j0:j1] - pad * sd_s[j0:j1]))
            hi = float(np.max(mu_s[j0:j1] + pad * sd_s[j0:j1]))
            k0 = max(int(np.searchsorted(th, lo, side="right")) - 1, 0)
            k1 = min(int(np.searchsorted(th, hi, side="left")) + 1, th.size)
            blocks.append((j0, j1, k0, k1))
        self.blocks = blocks

    def unpack(self, p):
        n = self.n
        b = p[:n]
        la = p[n:2 * n] if self.two_pl else None
        ls = self.ls_fixed if self.ls_fixed is not None else p[-1]
        return b, la, ls

    def _logistic(self, b, a, th):
        """softplus and expit of a_i (theta_k - b_i) on n x len(th) cells."""
        if a is None and np.max(np.abs(b)) + np.max(np.abs(th)) < 600.0:
            E = np.exp(-b)[:, None] * np.exp(th)[None, :]  # outer product: no exp per cell
        else:
            eta = th[None, :] - b[:, None]
            if a is not None:
                eta *= a[:, None]
            if np.max(np.abs(eta)) >= 600.0:
                return _sp_p(eta)
            E = np.exp(eta)
        return np.log1p(E), E / (1.0 + E)

    def parts(self, p, extra=False):
        """Evaluate the posteriors block by block. Returns a dict with ll, W (m x K, original
        model order), N (K), EP = sum_j M_ij E_j[P_i], EPt = sum_j M_ij E_j[P_i theta] (2PL), and
        with ``extra`` EP2 = sum_j M_ij E_j[P_i^2], S2 = sum_j M_ij E_j[P_i]^2 (for SEs) and
        EPQd2 = sum_j M_ij E_j[P_i(1-P_i)(theta-b_i)^2] (2PL preconditioner)."""
        if not extra and self._last is not None and self._last[0] == p.tobytes():
            return self._last[1]
        b, la, ls = self.unpack(p)
        th = self.theta
        a = None if la is None else np.exp(la)
        ya = self.r if a is None else self.Y0.T @ a
        logw = _log_prior(th, ls)
        K, n = th.size, self.n
        W = np.zeros((self.m, K))
        lse = np.empty(self.m)
        EP, EP2 = np.zeros(n), np.zeros(n)
        EPt = np.zeros(n) if a is not None else None
        if extra:
            S2, EPQd2 = np.zeros(n), np.zeros(n)
        # the logistic terms once on the union of the windows (blocks overlap), sliced per block
        lo = min(blk[2] for blk in self.blocks)
        hi = max(blk[3] for blk in self.blocks)
        sp_all, P_all = self._logistic(b, a, th[lo:hi])
        for j0, j1, k0, k1 in self.blocks:
            rows = self.order[j0:j1]
            tw = th[k0:k1]
            sp, P = sp_all[:, k0 - lo:k1 - lo], P_all[:, k0 - lo:k1 - lo]
            if self.M is None:
                L = ya[rows, None] * tw[None, :] - sp.sum(0)[None, :] + logw[None, k0:k1]
            else:
                Mb = self.Ms[:, j0:j1]
                L = ya[rows, None] * tw[None, :] - Mb.T @ sp + logw[None, k0:k1]
            mx = L.max(axis=1)
            Wb = np.exp(L - mx[:, None])
            tot = Wb.sum(axis=1)
            Wb /= tot[:, None]
            lse[rows] = mx + np.log(tot)
            W[rows, k0:k1] = Wb
            if self.M is None:
                Nb = Wb.sum(0)
                BP = P * Nb[None, :]
            else:
                BP = (Mb @ Wb) * P  # sum_j M_ij W_jk P_ik
            EP += BP.sum(1)
            EP2 += np.einsum("ik,ik->i", BP, P)
            if a is not None:
                EPt += BP @ tw
            if extra:
                A = P @ Wb.T  # E_j[P_i] for the block's models
                S2 += (A * A).sum(1) if self.M is None else np.einsum("ij,ij->i", Mb, A * A)
                if a is not None:
                    d2 = (tw[None, :] - b[:, None]) ** 2
                    EPQd2 += np.einsum("ik,ik->i", BP * (1.0 - P), d2)
        ab = b if a is None else a * b
        out = dict(b=b, la=la, ls=ls, a=np.ones(n) if a is None else a, W=W, N=W.sum(0),
                   EP=EP, EP2=EP2, EPt=EPt, ll=float(lse.sum() - self.s @ ab))
        if extra:
            out.update(S2=S2, EPQd2=EPQd2)
        else:
            self._last = (p.tobytes(), out)
        return out

    def fun(self, p):
        q = self.parts(p)
        b, la, a, th = q["b"], q["la"], q["a"], self.theta
        dev = b - b.mean()
        f = -q["ll"] + 0.5 * self.prec_b * dev @ dev
        grads = [a * (q["EP"] - self.s) - self.prec_b * dev]
        if la is not None:
            f += 0.5 * self.prec_a * la @ la
            eap = q["W"] @ th
            grads.append(a * (self.Y0 @ eap - self.s * b - q["EPt"] + b * q["EP"])
                         - self.prec_a * la)
        if self.ls_fixed is None:
            v = th**2 * np.exp(-2.0 * q["ls"]) - 1.0
            grads.append([q["N"] @ v])
        return f, -np.concatenate(grads)

    def b_se_diag(self, p):
        """Conditional SEs of b: 1 / sqrt(-d2 l / d b_i^2 + prior), other parameters fixed.

        -d2 l / d b_i^2 = a_i^2 sum_j M_ij (E_j[P_i(1-P_i)] - Var_j[P_i])
                        = a_i^2 sum_j M_ij (E_j[P_i] - 2 E_j[P_i^2] + E_j[P_i]^2)."""
        q = self.parts(p, extra=True)
        info = q["a"] ** 2 * (q["EP"] - 2.0 * q["EP2"] + q["S2"]) + self.prec_b * (1 - 1 / self.n)
        return 1.0 / np.sqrt(info), q["W"]

    def diag_scale(self, p):
        """sqrt of the diagonal information, the L-BFGS preconditioner (variables x = p * scale)."""
        q = self.parts(p, extra=self.two_pl)
        a = q["a"]
        EPQ = q["EP"] - q["EP2"]
        sc = [np.sqrt(a**2 * EPQ + self.prec_b + 1e-8)]
        if q["la"] is not None:
            sc.append(np.sqrt(a**2 * q["EPQd2"] + self.prec_a + 1e-8))
        if self.ls_fixed is None:
            sc.append([np.sqrt(2.0 * self.m)])
        return np.concatenate(sc)

    def window_edge(self, W):
        """Largest posterior weight on the first or last node of a block's window."""
        edge = 0.0
        for j0, j1, k0, k1 in self.blocks:
            rows = self.order[j0:j1]
            edge = max(edge, float(W[rows, k0].max()), float(W[rows, k1 - 1].max()))
        return edge


def _modes_general(Y0, M, b, sigma, t0, iters=50):
    """1PL posterior modes and curvature SDs of each model (vectorized 1-D Newton on the
    matrix; e^(t - b) from the outer product e^t e^-b, no exp per cell)."""
    t = t0.astype(float).copy()
    pr = 1.0 / sigma**2
    r = Y0.sum(0)
    eb = np.exp(-np.clip(b, -300, 300))
    for _ in range(iters):
        E = eb[:, None] * np.exp(np.clip(t, -300, 300))[None, :]
        E /= 1.0 + E  # P
        if M is not None:
            E *= M
        g = r - E.sum(0) - pr * t
        hh = (E * (1.0 - E)).sum(0) + pr  # masked cells have P = 0
        step = np.clip(g / hh, -2.0, 2.0)
        t += step
        if np.max(np.abs(step)) < 1e-3:
            break
    return t, 1.0 / np.sqrt(hh)


def _shift_polish(mg, p, iters=3):
    """Newton steps along the common shift of all difficulties. The diagonal preconditioner
    ignores the strong coupling of the b's (moving them together is resisted only by the ability
    prior), the one direction in which L-BFGS stops early. The curvature along the shift is
    analytic: shifting every b by c is shifting the ability prior's mean by c, so
    -d2 l / dc2 = sum_j (1/sigma^2 - Var_j(theta)/sigma^4) (the centred penalty is unaffected)."""
    f, g = mg.fun(p)
    for _ in range(iters):
        q = mg.parts(p)
        s2 = np.exp(2.0 * q["ls"])
        var = _post_moments(q["W"], mg.theta)[1] ** 2
        huu = float(np.sum(1.0 / s2 - var / s2**2))
        if not huu > 0:
            break
        step = -float(g[:mg.n].sum()) / huu
        p_new = p.copy()
        p_new[:mg.n] += step
        f_new, g_new = mg.fun(p_new)
        if f_new > f + 1e-13 * abs(f):
            break
        p, f, g = p_new, f_new, g_new
        if abs(step) < 1e-8:
            break
    return p


def _fit_general_mml(Y, st, *, prec_b, prec_a, two_pl, ability_sd, density, tol, max_iter):
    """Preconditioned L-BFGS on the windowed adaptive grid; start values from a few penalized
    JML iterations; the grid and windows are rebuilt from the fitted posteriors (and the fit
    continued) until they are resolved."""
    complete = st.complete
    M = None if complete else (~np.isnan(Y)).astype(np.float64)
    Y0 = np.nan_to_num(Y, nan=0.0)
    ls_fixed = 0.0 if two_pl else (None if ability_sd is None else float(np.log(ability_sd)))
    mg = _Marginal(Y0, M, st.row_sum, st.col_sum, two_pl, prec_b, prec_a, ls_fixed)
    n = Y.shape[0]
    t0, b0, _, _ = _jml_general(Y, 1.0 / 9.0, prec_b, 1e-2, 6)
    shift = float(np.mean(t0))
    t0, b0 = t0 - shift, b0 - shift
    sigma0 = float(np.exp(ls_fixed)) if ls_fixed is not None else max(float(np.std(t0)), 0.05)
    mu, sd = _modes_general(Y0, M, b0, sigma0, t0)
    p = b0.copy()
    if two_pl:
        p = np.concatenate([p, np.zeros(n)])
    if ls_fixed is None:
        p = np.concatenate([p, [np.log(sigma0)]])
    nit = 0
    conv = False
    pad = _PAD
    scale = None
    for _round in range(8):
        mg.setup(mu, sd, density, pad)
        if scale is None:  # the diagonal information barely moves between rounds
            scale = mg.diag_scale(p)

        def fun(x, mg=mg, scale=scale):
            f, g = mg.fun(x / scale)
            return f, g / scale

        res = optimize.minimize(fun, p * scale, jac=True, method="L-BFGS-B",
                                options={"maxiter": max_iter, "gtol": tol, "ftol": 1e-15,
                                         "maxcor": 20})
        p = res.x / scale
        nit += int(res.nit)
        conv = bool(res.success) or np.max(np.abs(res.jac)) < 10 * tol
        p = _shift_polish(mg, p)
        W = mg.parts(p)["W"]
        spacing_ok, edge_ok = _grid_ok(mg.theta, W, density, edge=mg.window_edge(W))
        if spacing_ok and edge_ok:
            break
        pad = pad if edge_ok else 1.5 * pad
        mu, sd = _post_moments(W, mg.theta)
        sd = np.maximum(sd, 1e-6)
    else:  # pragma: no cover
        conv = False
    return mg, p, nit, conv


# ----------------------------------------------------------------------------------------------
# 1PL JML
# ----------------------------------------------------------------------------------------------
def _sp_p_outer(t, b):
    """softplus and expit of t_r - b_g (R x G) from the outer product e^t e^-b: one log1p per
    cell (exact; falls back to the elementwise form when the exponentials could overflow)."""
    if np.max(np.abs(t)) + np.max(np.abs(b)) < 600.0:
        E = np.exp(t)[:, None] * np.exp(-b)[None, :]
        return np.log1p(E), E / (1.0 + E)
    return _sp_p(t[:, None] - b[None, :])


def _jml_collapsed(s, n_g, r, c_r, prec_t, prec_b, tol, max_iter):
    """Penalized JML on item groups (equal totals) x model groups (equal raw scores), full Newton.

    Objective: sum_r c_r r t_r - sum_g n_g s_g b_g - sum_{r,g} c_r n_g softplus(t_r - b_g)
               - prec_t/2 sum_r c_r t_r^2 - prec_b/2 sum_g n_g b_g^2.
    The Newton system is reduced to the Schur complement of its diagonal ability block,
    S = diag(db) - W^T diag(1/dt) W, and solved by preconditioned CG on products with W
    (O(R G) each), so an iteration costs a few passes over the R x G grid.
    """
    R, G = r.size, s.size
    n_items, n_models = n_g.sum(), c_r.sum()
    t = special.logit(np.clip(r / n_items, 0.02, 0.98))
    b = special.logit(np.clip(1 - s / n_models, 0.02, 0.98))
    t, b = t - t.mean(), b - t.mean()

    def obj(t, b):
        sp, P = _sp_p_outer(t, b)
        f = (c_r @ (r * t) - n_g @ (s * b) - c_r @ sp @ n_g
             - 0.5 * prec_t * c_r @ t**2 - 0.5 * prec_b * n_g @ b**2)
        return f, P

    f, P = obj(t, b)
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        W = P * (1 - P) * c_r[:, None] * n_g[None, :]
        gt = c_r * r - (P * c_r[:, None]) @ n_g - prec_t * c_r * t
        gb = -n_g * s + c_r @ (P * n_g[None, :]) - prec_b * n_g * b
        dt_ = W.sum(1) + prec_t * c_r  # negative Hessian = [[diag dt, -W], [-W^T, diag db]]
        db_ = W.sum(0) + prec_b * n_g
        step = None
        if prec_t > 0 or prec_b > 0:
            rhs = gb + W.T @ (gt / dt_)

            def matvec(x, W=W, dt_=dt_, db_=db_):
                return db_ * x - W.T @ ((W @ x) / dt_)

            pre = np.maximum(db_ - (W**2).T @ (1.0 / dt_), 1e-12 * db_)
            sb, ok = _pcg(matvec, pre, rhs, 1e-12, 10 * G)
            if ok:
                step = np.concatenate([(gt + W @ sb) / dt_, sb])
        if step is None:  # no penalty (singular along the common shift) or CG failure
            H = np.empty((R + G, R + G))
            H[:R, :R] = np.diag(dt_)
            H[R:, R:] = np.diag(db_)
            H[:R, R:] = -W
            H[R:, :R] = -W.T
            step = np.linalg.lstsq(H, np.concatenate([gt, gb]), rcond=None)[0]
        lam = 1.0
        while True:
            t_new, b_new = t + lam * step[:R], b + lam * step[R:]
            f_new, P_new = obj(t_new, b_new)
            if f_new >= f - 1e-12 * abs(f) or lam < 1e-8:
                break
            lam *= 0.5
        t, b, f, P = t_new, b_new, f_new, P_new
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

    def probs(t, b):  # expit(t_j - b_i) * M_ij, from e^t e^-b (no exp per cell)
        if np.max(np.abs(t)) + np.max(np.abs(b)) < 600.0:
            E = np.exp(-b)[:, None] * np.exp(t)[None, :]
            E /= 1.0 + E
        else:
            E = special.expit(t[None, :] - b[:, None])
        E *= Mf
        return E

    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        P = probs(t, b)
        gt = r - P.sum(0) - prec_t * t
        ht = (P * (1 - P)).sum(0) + prec_t  # masked cells have P = 0
        dt = gt / np.maximum(ht, 1e-12)
        dt = np.clip(dt, -2.0, 2.0)
        t = t + dt
        P = probs(t, b)
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


def _group(s_i, r_j):
    """Sufficient statistics of a complete 0/1 matrix grouped: distinct item totals and raw
    scores with their inverse maps and multiplicities (totals are integers: bincount, no sort)."""
    si = s_i.astype(np.int64)
    rj = r_j.astype(np.int64)
    cs = np.bincount(si)
    s = np.flatnonzero(cs)
    inv_i = (np.cumsum(cs > 0) - 1)[si]
    cr = np.bincount(rj)
    r = np.flatnonzero(cr)
    inv_j = (np.cumsum(cr > 0) - 1)[rj]
    return (s.astype(float), inv_i, cs[s].astype(float), r.astype(float), inv_j,
            cr[r].astype(float))


# ----------------------------------------------------------------------------------------------
# public fits
# ----------------------------------------------------------------------------------------------
def _extremes(st: _Stats, prec_b: float):
    n_items = st.row_sum.size
    empty = st.row_obs == 0
    if prec_b == 0:
        extreme = ~empty & ((st.row_sum == 0) | (st.row_sum == st.row_obs))
    else:
        extreme = np.zeros(n_items, bool)
    return empty, extreme, ~empty & ~extreme


def fit_1pl(
    Y: Any,
    *,
    method: str = "mml",
    item_prior_sd: float | None = 3.0,
    ability_prior_sd: float | None = 3.0,
    ability_sd: float | None = None,
    nodes_per_sd: float = 1.5,
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
        integrated by adaptive quadrature (see Notes). ``"jml"``: penalized joint maximum
        likelihood (abilities and difficulties together).
    item_prior_sd : float or None
        SD :math:`\tau` of a Gaussian penalty on the difficulties (default 3; both methods). It
        keeps items answered correctly (or wrongly) by every model finite; set None for pure
        maximum likelihood, where such items get :math:`\mp\infty`. JML penalizes
        :math:`b_i^2/2\tau^2`; MML penalizes deviations from the mean difficulty,
        :math:`(b_i - \bar b)^2/2\tau^2` (the mode of a hierarchical prior
        :math:`b_i \sim N(\mu_b, \tau^2)` with free :math:`\mu_b`), so that the location stays
        the one the ability distribution :math:`N(0, \sigma^2)` fixes: a penalty at 0 summed
        over thousands of items would otherwise pull every difficulty and ability toward 0
        (by 0.37 logits on a 14,000 x 600 simulation).
    ability_prior_sd : float or None
        JML only: SD of the Gaussian penalty on abilities (default 3), which keeps models with all
        or no items correct finite. None: no penalty (such models get :math:`\pm\infty`; their
        responses carry no information on b and are dropped from the fit).
    ability_sd : float or None
        MML only: fix the ability SD :math:`\sigma` (e.g. 1, as ``girth.rasch_mml`` does); None
        (default) estimates it.
    nodes_per_sd : float
        MML only: quadrature nodes per posterior SD of the most precisely measured model (default
        1.5; the trapezoid error is then ~1e-19 relative).
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

    *Adaptive quadrature.* A model that answers n items has a posterior of SD about
    :math:`1/\sqrt{\sum_i P_i(1-P_i)}` (0.02 logits for 14,000 items), far narrower than the
    spacing of any fixed Gauss-Hermite rule, which then biases the ability SD and the likelihood.
    benchkit integrates on nodes placed from the posteriors themselves: equally spaced with
    spacing :math:`h = \min_j s_j / \text{nodes\_per\_sd}` (at most 0.5), reaching 8 posterior
    SDs :math:`s_j` beyond every posterior mode :math:`\mu_j` (modes and curvatures by Newton at
    the start values), with the trapezoid rule, whose error for smooth integrands decays like
    :math:`e^{-2\pi^2 s^2/h^2}` (adaptive Gauss-Hermite in the sense of centring and scaling the
    rule on the posteriors; one shared grid, so the logistic terms are computed once per node
    and item). After convergence the grid is checked on the fitted posteriors (SD at least 0.8
    nodes_per_sd spacings, no mass above 1e-14 on an edge) and rebuilt and refitted if needed,
    so MML is accurate at any number of items per model. With missing cells each block of 48
    models (sorted by ability) integrates only over the nodes within 8 SDs of its models.

    *Collapse.* For a complete matrix the model raw scores :math:`r_j` and item totals :math:`s_i`
    are sufficient. In JML every item with the same total has the same estimate and every model
    with the same raw score the same ability, so the fit runs on at most
    :math:`(n_{models}+1)\times(n_{items}+1)` groups with weights — exactly. In MML each model's
    posterior depends on its responses only through :math:`r_j` (the term
    :math:`-\sum_i y_{ij} b_i` does not involve :math:`\theta`), and the score equation of
    :math:`b_i` is :math:`s_i = \sum_j E_j[P_i(\theta)] - b_i/\tau^2`, so items with equal totals
    again share one estimate: the marginal likelihood is evaluated on (item groups) x (nodes)
    and (raw-score groups) x (nodes), exactly, and maximized by Newton's method with the
    analytic Hessian from the collapsed JML solution. With missing cells, MML uses
    preconditioned L-BFGS on the exact marginal likelihood and JML alternating Newton steps.
    (Conditional ML via elementary symmetric functions is the other exact route for complete
    matrices; it needs :math:`O(n_{items}^2)` work per iteration, which is why it is not used.)

    *Standard errors.* MML on complete matrices: square roots of the diagonal of the inverse
    observed information over all item difficulties and :math:`\log\sigma` (computed at item
    level through the Woodbury identity, since the information is diagonal minus rank K).
    MML with missing cells: the conditional SE :math:`1/\sqrt{-\partial^2 \ell/\partial b_i^2}`,
    other parameters held fixed (slightly smaller than the full SE; the difference vanishes as
    items grow). JML: the usual :math:`1/\sqrt{\sum_j P_{ij}(1-P_{ij}) + \tau^{-2}}` for items
    and models. Abilities from MML are EAP means with posterior SDs.
    """
    arr, st = _matrix_stats(Y)
    items, models = _labels(Y, arr.shape[0], arr.shape[1], items, models)
    check_choice("method", method, ("mml", "jml"))
    prec_b = _prior("item_prior_sd", item_prior_sd)
    prec_t = _prior("ability_prior_sd", ability_prior_sd)
    if ability_sd is not None:
        ability_sd = check_float("ability_sd", ability_sd, min=0.0, min_inclusive=False)
    nodes_per_sd = check_float("nodes_per_sd", nodes_per_sd, min=0.5, max=20.0)
    tol = check_float("tol", tol, min=0.0, min_inclusive=False)
    max_iter = check_int("max_iter", max_iter, min=1)
    opts = dict(method=method, item_prior_sd=item_prior_sd, ability_prior_sd=ability_prior_sd,
                ability_sd=ability_sd, nodes_per_sd=nodes_per_sd)
    n_items, n_models = arr.shape
    empty, extreme, keep = _extremes(st, prec_b)
    if keep.sum() < 1:
        raise BenchkitValueError(
            "no item has both correct and wrong responses; the 1PL cannot be fitted without an "
            "item prior (pass item_prior_sd=...)"
        )
    if keep.all():
        sub, sst = arr, st
    else:
        sub = arr[keep]
        sst = _scan(sub, "Y")
    complete = sst.complete
    s_i = st.row_sum
    b_full = np.full(n_items, np.nan)
    se_full = np.full(n_items, np.nan)
    b_full[extreme & (s_i == st.row_obs)] = -np.inf
    b_full[extreme & (s_i == 0)] = np.inf
    se_full[extreme] = np.inf

    if method == "jml":
        mkeep = np.ones(n_models, bool)
        if prec_t == 0:
            mkeep = (sst.col_sum > 0) & (sst.col_sum < sst.col_obs)
        if mkeep.all():
            sub_m, mst = sub, sst
        else:
            sub_m = sub[:, mkeep]
            mst = _scan(sub_m, "Y")
        if complete and collapse:
            s, inv_i, n_g, r, inv_j, c_r = _group(mst.row_sum, mst.col_sum)
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
        else:
            t, b, it, conv = _jml_general(sub_m, prec_t, prec_b, tol, max_iter)
            shift = t.mean()
            t, b = t - shift, b - shift
            Msub = ~np.isnan(sub_m)
            P = special.expit(t[None, :] - b[:, None]) * Msub
            info_b = (P * (1 - P)).sum(1) + prec_b
            info_t = (P * (1 - P)).sum(0) + prec_t
            Y0 = np.nan_to_num(sub_m)
            with np.errstate(divide="ignore"):
                ll = float(np.sum(Msub * (Y0 * np.log(np.where(Msub, P, 1.0))
                                          + (1 - Y0) * np.log(np.where(Msub, 1 - P, 1.0)))))
        shift = t.mean()
        t, b = t - shift, b - shift
        b_full[keep] = b
        se_full[keep] = 1.0 / np.sqrt(info_b)
        ability = np.full(n_models, np.nan)
        ability_se = np.full(n_models, np.nan)
        ability[mkeep] = t
        ability_se[mkeep] = 1.0 / np.sqrt(info_t)
        if not mkeep.all():
            ability[~mkeep] = np.where(st.col_sum[~mkeep] > 0, np.inf, -np.inf)
            ability_se[~mkeep] = np.inf
        return IRTFit(b_full, se_full, np.ones(n_items), np.zeros(n_items), ability, ability_se,
                      float(np.std(t, ddof=1)) if t.size > 1 else float("nan"), "1pl", "jml", ll,
                      int(it), bool(conv), bool(complete and collapse), items, models, opts)

    # MML
    if complete and collapse:
        s, inv_i, n_g, r, inv_j, c_r = _group(sst.row_sum, sst.col_sum)
        with threadpool_limits(1, "blas"):  # small dense algebra: threads only add wake-ups
            t0, b0, _, _ = _jml_collapsed(s, n_g, r, c_r, 1.0 / 9.0, prec_b, 1e-2, 100)
            ob, p, nit, conv = _fit_mml_collapsed(s, n_g, r, c_r, prec_b, ability_sd,
                                                  nodes_per_sd, tol, max_iter, b0, t0)
            se_g = ob.item_se(p)
            b_g, ls, _, W, loglik = ob.parts(p)
        b, se = b_g[inv_i], se_g[inv_i]
        W_models = W[inv_j]
        th = ob.theta
    else:
        # many small per-block products: one BLAS thread (threads only add wake-ups and, on a
        # shared machine, oversubscription)
        with threadpool_limits(1, "blas"):
            mg, p, nit, conv = _fit_general_mml(sub, sst, prec_b=prec_b, prec_a=0.0,
                                                two_pl=False, ability_sd=ability_sd,
                                                density=nodes_per_sd, tol=tol,
                                                max_iter=max_iter * 10)
            b, _, ls = mg.unpack(p)
            se, W_models = mg.b_se_diag(p)
            loglik = mg.parts(p)["ll"]
        th = mg.theta
    b_full[keep] = b
    se_full[keep] = se
    sigma = float(np.exp(ls))
    eap, psd = _post_moments(W_models, th)
    return IRTFit(b_full, se_full, np.ones(n_items), np.zeros(n_items), eap, psd, sigma, "1pl",
                  "mml", float(loglik), int(nit), bool(conv), bool(complete and collapse), items,
                  models, opts, nodes=th, posterior=W_models)


def fit_2pl(
    Y: Any,
    *,
    item_prior_sd: float | None = 3.0,
    discrimination_prior_sd: float | None = 1.0,
    nodes_per_sd: float = 1.5,
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
        Gaussian penalty SD on :math:`b_i - \bar b` (default 3, centred as in :func:`fit_1pl`'s
        MML; None = none, extreme items then +-inf).
    discrimination_prior_sd : float or None
        Gaussian penalty SD on :math:`\log a_i` (default 1), which prevents the Heywood cases
        (:math:`a_i \to \infty`) that small model samples produce.
    nodes_per_sd, tol, max_iter, items, models
        As in :func:`fit_1pl`.

    Returns
    -------
    IRTFit
        With ``discrimination``; SEs of b are conditional (other parameters fixed), SEs of a are
        not computed (NaN).

    Notes
    -----
    The 2PL is the issue's option beyond the paper's 1PL. Abilities are :math:`N(0, 1)` (the
    scale is set by the discriminations); preconditioned L-BFGS on the exact marginal likelihood
    with the analytic gradient, on the adaptive quadrature grid of :func:`fit_1pl`.
    """
    arr, st = _matrix_stats(Y)
    items, models = _labels(Y, arr.shape[0], arr.shape[1], items, models)
    prec_b = _prior("item_prior_sd", item_prior_sd)
    prec_a = _prior("discrimination_prior_sd", discrimination_prior_sd)
    nodes_per_sd = check_float("nodes_per_sd", nodes_per_sd, min=0.5, max=20.0)
    tol = check_float("tol", tol, min=0.0, min_inclusive=False)
    max_iter = check_int("max_iter", max_iter, min=1)
    n_items, n_models = arr.shape
    empty, extreme, keep = _extremes(st, prec_b)
    if keep.sum() < 1:
        raise BenchkitValueError("no item has both correct and wrong responses")
    if keep.all():
        sub, sst = arr, st
    else:
        sub = arr[keep]
        sst = _scan(sub, "Y")
    s_i = st.row_sum
    with threadpool_limits(1, "blas"):  # many small per-block products (see fit_1pl)
        mg, p, nit, conv = _fit_general_mml(sub, sst, prec_b=prec_b, prec_a=prec_a, two_pl=True,
                                            ability_sd=None, density=nodes_per_sd, tol=tol,
                                            max_iter=max_iter)
        b, la, _ = mg.unpack(p)
        se, W = mg.b_se_diag(p)
        loglik = mg.parts(p)["ll"]
    th = mg.theta
    b_full = np.full(n_items, np.nan)
    se_full = np.full(n_items, np.nan)
    a_full = np.full(n_items, np.nan)
    b_full[extreme & (s_i == st.row_obs)] = -np.inf
    b_full[extreme & (s_i == 0)] = np.inf
    se_full[extreme] = np.inf
    b_full[keep], se_full[keep], a_full[keep] = b, se, np.exp(la)
    eap, psd = _post_moments(W, th)
    opts = dict(method="mml", item_prior_sd=item_prior_sd,
                discrimination_prior_sd=discrimination_prior_sd, nodes_per_sd=nodes_per_sd)
    return IRTFit(b_full, se_full, a_full, np.full(n_items, np.nan), eap, psd, 1.0, "2pl", "mml",
                  loglik, int(nit), bool(conv), False, items, models, opts,
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
        Penalty on the new difficulties; ``"fit"`` (default) uses the fit's own (for an MML fit
        centred, like the fit's, at the mean difficulty of the existing items).
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
    # MML penalizes deviations from the mean difficulty (see fit_1pl); JML's penalty is at 0
    fin = np.isfinite(fit.difficulty)
    center = float(np.mean(fit.difficulty[fin])) if fit.method == "mml" and fin.any() else 0.0
    Rq = Y0 @ W  # expected correct at each node
    Nq = Mf @ W  # expected observations at each node
    n_new = arr.shape[0]
    s = Y0.sum(1)
    n = Mf.sum(1)
    b = special.logit(np.clip(1 - s / np.maximum(n, 1), 0.02, 0.98)) + float(np.sum(W @ nodes) / max(W.sum(), 1))
    conv = False
    for _ in range(max_iter):
        P = special.expit(nodes[None, :] - b[:, None])
        g = (Nq * P).sum(1) - Rq.sum(1) - prec * (b - center)  # d loglik / db
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


# ----------------------------------------------------------------------------------------------
# binomial 1PL (k of T samples correct)
# ----------------------------------------------------------------------------------------------
def _prec(name: str, sd: Any) -> float:
    if sd is None:
        return 0.0
    sd = check_float(name, sd, min=0.0, min_inclusive=False)
    return 1.0 / sd**2


def _binomial_objective(t, b, K, N, prec_t, prec_b):
    eta = t[None, :] - b[:, None]
    return float(np.sum(K * eta - N * _softplus(eta)) - 0.5 * prec_t * t @ t - 0.5 * prec_b * b @ b)


def fit_1pl_counts(
    K: Any,
    N: Any,
    *,
    item_prior_sd: float | None = 3.0,
    ability_prior_sd: float | None = 3.0,
    tol: float = 1e-8,
    max_iter: int = 200,
    items: Sequence[Any] | None = None,
    models: Sequence[Any] | None = None,
):
    r"""Binomial 1PL by penalized joint maximum likelihood, for repeated samples per cell.

    :math:`K_{ij} \sim \mathrm{Bin}(N_{ij}, \sigma(\theta_j - b_i))`: model ``j`` answered item
    ``i`` correctly in :math:`K_{ij}` of :math:`N_{ij}` independent samples (``N = 0`` = missing).

    Parameters
    ----------
    K, N : array_like (n_items, n_models), integer-valued
        Correct counts and samples, ``0 <= K <= N`` (e.g. ``rs.counts().K`` / ``.N``).
    item_prior_sd, ability_prior_sd : float or None
        SDs of the Gaussian penalties on :math:`b` and :math:`\theta` (default 3 and 3, the
        defaults of :func:`benchkit.irt.fit_1pl` with ``method="jml"``). None: no penalty; items
        (models) with all or no samples correct then get :math:`\mp\infty` (:math:`\pm\infty`)
        and are left out of the fit.
    tol, max_iter : float, int
        Stop when the largest Newton step is below ``tol``; at most ``max_iter`` steps.
    items, models : sequence, optional
        Labels (default positions).

    Returns
    -------
    benchkit.irt.IRTFit
        ``model="1pl"``, ``method="jml"``, ``options["likelihood"] = "binomial"``; difficulty
        SEs are :math:`1/\sqrt{\sum_j N_{ij}P_{ij}(1-P_{ij}) + \tau^{-2}}` as in ``fit_1pl``.
        Items with no observed sample have NaN difficulty.

    Notes
    -----
    Paper 002, Figure 2 step 1 collects "empirical success rates ... with k rollouts per item" and
    step 3 fits :math:`P(Y_{ij}=1)=\sigma(\theta_j-b_i)`; with every rollout a Bernoulli draw of
    that model, the likelihood of a cell is binomial. With ``N`` all 0/1 this is exactly
    ``benchkit.irt.fit_1pl(Y, method="jml")`` (same objective, same identification: abilities
    shifted to mean 0 after the fit). Newton's method on all parameters at once, with the
    difficulty block eliminated by its Schur complement (the Hessian is diagonal in the
    difficulties), so each step costs O(n_items x n_models + n_models^3); the penalized objective
    is strictly concave, and a step-halving line search keeps every step ascending.
    """

    K = check_array("K", K, ndim=2, dtype="float")
    N = check_array("N", N, ndim=2, dtype="float", shape=K.shape)
    if np.any(N < 0) or np.any(K < 0) or np.any(K > N):
        i, j = (int(v) for v in np.argwhere((N < 0) | (K < 0) | (K > N))[0])
        raise BenchkitValueError(
            f"counts must satisfy 0 <= K <= N; found K={describe(K[i, j])}, N={describe(N[i, j])} at "
            f"item {i}, model {j}"
        )
    if np.any(K != np.round(K)) or np.any(N != np.round(N)):
        raise BenchkitValueError("K and N must hold whole numbers of samples")
    prec_b = _prec("item_prior_sd", item_prior_sd)
    prec_t = _prec("ability_prior_sd", ability_prior_sd)
    tol = check_float("tol", tol, min=0.0, min_inclusive=False)
    max_iter = check_int("max_iter", max_iter, min=1)
    n_items, n_models = K.shape
    items = pd.Index([str(i) for i in range(n_items)] if items is None else list(items))
    models = pd.Index([str(j) for j in range(n_models)] if models is None else list(models))
    if len(items) != n_items or len(models) != n_models:
        raise BenchkitValueError(
            f"items/models labels ({len(items)}, {len(models)}) do not match K's shape {K.shape}"
        )
    s_i, n_i = K.sum(1), N.sum(1)
    r_j, n_j = K.sum(0), N.sum(0)
    empty_i = n_i == 0
    ext_i = ~empty_i & ((s_i == 0) | (s_i == n_i)) if prec_b == 0 else np.zeros(n_items, bool)
    keep_i = ~empty_i & ~ext_i
    ext_j = (n_j > 0) & ((r_j == 0) | (r_j == n_j)) if prec_t == 0 else np.zeros(n_models, bool)
    keep_j = (n_j > 0) & ~ext_j
    if keep_i.sum() < 1 or keep_j.sum() < 1:
        raise BenchkitValueError(
            "nothing to fit: no item (or no model) has both correct and wrong samples; pass "
            "item_prior_sd / ability_prior_sd to keep such items finite"
        )
    Ks, Ns = K[np.ix_(keep_i, keep_j)], N[np.ix_(keep_i, keep_j)]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = special.logit(np.clip(Ks.sum(0) / np.maximum(Ns.sum(0), 1), 0.02, 0.98))
        b = special.logit(np.clip(1 - Ks.sum(1) / np.maximum(Ns.sum(1), 1), 0.02, 0.98))
    f = _binomial_objective(t, b, Ks, Ns, prec_t, prec_b)
    converged, it = False, 0
    for it in range(1, max_iter + 1):
        P = special.expit(t[None, :] - b[:, None])
        R = Ks - Ns * P
        V = Ns * P * (1 - P)
        gt = R.sum(0) - prec_t * t
        gb = -R.sum(1) - prec_b * b
        ht = V.sum(0) + prec_t
        hb = np.maximum(V.sum(1) + prec_b, 1e-300)
        # negative Hessian [[diag ht, -V^T], [-V, diag hb]]; eliminate the difficulty block
        Vh = V / hb[:, None]
        S = np.diag(ht) - V.T @ Vh
        rhs = gt + Vh.T @ gb
        try:
            dt = np.linalg.solve(S, rhs)
        except np.linalg.LinAlgError:  # no penalty at all: the common shift is free
            dt = np.linalg.lstsq(S, rhs, rcond=None)[0]
        db = (gb + V @ dt) / hb
        lam = 1.0
        while True:
            t_new, b_new = t + lam * dt, b + lam * db
            f_new = _binomial_objective(t_new, b_new, Ks, Ns, prec_t, prec_b)
            if f_new >= f - 1e-12 * abs(f) or lam < 1e-8:
                break
            lam *= 0.5
        step = lam * max(np.max(np.abs(dt)), np.max(np.abs(db)))
        t, b, f = t_new, b_new, f_new
        if step < tol:
            converged = True
            break
    P = special.expit(t[None, :] - b[:, None])
    V = Ns * P * (1 - P)
    info_b, info_t = V.sum(1) + prec_b, V.sum(0) + prec_t
    eta = t[None, :] - b[:, None]
    ll = float(np.sum(Ks * eta - Ns * _softplus(eta)))  # without the binomial coefficients
    shift = t.mean()
    t, b = t - shift, b - shift
    b_full = np.full(n_items, np.nan)
    se_full = np.full(n_items, np.nan)
    b_full[keep_i] = b
    se_full[keep_i] = 1.0 / np.sqrt(info_b)
    b_full[ext_i & (s_i == n_i)] = -np.inf
    b_full[ext_i & (s_i == 0)] = np.inf
    se_full[ext_i] = np.inf
    ability = np.full(n_models, np.nan)
    ability_se = np.full(n_models, np.nan)
    ability[keep_j] = t
    ability_se[keep_j] = 1.0 / np.sqrt(info_t)
    ability[ext_j] = np.where(r_j[ext_j] > 0, np.inf, -np.inf)
    ability_se[ext_j] = np.inf
    opts = dict(method="jml", likelihood="binomial", item_prior_sd=item_prior_sd,
                ability_prior_sd=ability_prior_sd)
    return IRTFit(b_full, se_full, np.ones(n_items), np.zeros(n_items), ability, ability_se,
                  float(np.std(t, ddof=1)) if t.size > 1 else float("nan"), "1pl", "jml", ll,
                  int(it), bool(converged), False, items, models, opts)
