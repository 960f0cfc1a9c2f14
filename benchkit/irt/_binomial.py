"""The binomial 1PL on k-of-T counts (repeated samples per cell), by penalized JML."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.irt._common import IRTFit
from benchkit.irt._common import _prior
from benchkit.irt._common import _softplus


# ----------------------------------------------------------------------------------------------
# binomial 1PL (k of T samples correct)
# ----------------------------------------------------------------------------------------------
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

    References
    ----------
    Y. Sun, N. Yu, J. Gong, J. Shen and H. Zhang, "Your Benchmark Is an Empirical Measure Over
    Difficulty", arXiv:2610.29927, Figure 2 steps 1 and 3. G. Rasch (1960), Probabilistic
    Models for Some Intelligence and Attainment Tests, Danish Institute for Educational Research.

    Examples
    --------
    Three models, two items, four samples per cell; the item solved more often is easier:

    >>> import numpy as np
    >>> from benchkit.irt import fit_1pl_counts
    >>> K = np.array([[4, 3, 2], [2, 1, 0]])
    >>> fit = fit_1pl_counts(K, np.full((2, 3), 4))
    >>> bool(fit.difficulty[0] < fit.difficulty[1]), fit.options["likelihood"]
    (True, 'binomial')
    >>> fit.ability[[0, 2]].round(2).tolist()  # the middle model sits at 0
    [1.42, -1.42]
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
    prec_b = _prior("item_prior_sd", item_prior_sd)
    prec_t = _prior("ability_prior_sd", ability_prior_sd)
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
