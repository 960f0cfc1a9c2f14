"""Penalized joint maximum likelihood (JML) of the 1PL, collapsed or with missing cells."""
from __future__ import annotations

import numpy as np
from scipy import special
from threadpoolctl import threadpool_limits

from benchkit.irt._common import IRTFit
from benchkit.irt._common import _group
from benchkit.irt._common import _pcg
from benchkit.irt._common import _scan
from benchkit.irt._common import _softplus
from benchkit.irt._common import _sp_p


# ----------------------------------------------------------------------------------------------
# 1PL JML
# ----------------------------------------------------------------------------------------------
def _sp_p_outer(t, b):
    """Softplus and expit of t_r - b_g (R x G) from the outer product e^t e^-b.

    One log1p per cell (exact; falls back to the elementwise form when the exponentials could
    overflow).
    """
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


def _fit_jml(arr, st, sub, sst, keep, b_full, se_full, *, prec_t, prec_b, collapse, tol,
             max_iter, items, models, opts):
    """The JML branch of :func:`benchkit.irt.fit_1pl` on the kept items ``sub`` (see there)."""
    n_items, n_models = arr.shape
    complete = sst.complete
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
