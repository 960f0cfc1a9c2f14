r"""EM (Bock-Aitkin) for the marginal likelihood of the 1PL / 2PL on the adaptive grid.

The general (missing-cell, 2PL) path of :mod:`benchkit.irt._marginal` maximizes the same penalized
marginal likelihood with L-BFGS; this module reaches the same optimum in far fewer passes over the
data. Each iteration is one E-step (every model's posterior over the grid nodes at the current
item parameters) and one Newton step of the M-step per item (the EM-gradient algorithm of Lange
1995): items are independent given the posteriors, so the step is a scalar (1PL) or a 2 x 2 (2PL)
solve. The EM fixed point is the stationary point of the penalized marginal likelihood (the
gradient of the EM objective equals the gradient of the marginal likelihood at the current
parameters, Dempster, Laird and Rubin 1977), so the estimates are those of the L-BFGS path. EM
converges linearly at the rate of the fraction of missing information, which is the posterior
variance of the abilities relative to their prior variance: ~1e-3 on benchmark matrices (hundreds
to thousands of items per model), so a handful of iterations suffice. When the rate is poor (few
items per model) the caller falls back to L-BFGS.

1PL: the E-step writes sum_i M_ij softplus(theta_k - b_i) as the sum over all items minus the sum
over model j's missing items, evaluated on a few Chebyshev nodes of j's posterior window (+-pad
posterior SDs) and interpolated; the M-step's sum over all models, G(b) = sum_k N_k P(theta_k - b),
is interpolated in b from Chebyshev nodes, minus each item's missing models as Q-node quadrature
rules (numba kernels in :mod:`benchkit._kernels.irt_em`). So a 14,000 x 600 matrix with 10%
missing cells costs ~O(missing cells x Q) per iteration instead of O(cells x nodes). 2PL: complete
matrices through grid recurrences in numba, missing cells through numpy products.
"""
from __future__ import annotations

import numpy as np
from scipy import special

from benchkit.irt._quadrature import _PAD
from benchkit.irt._quadrature import _grid
from benchkit.irt._quadrature import _log_prior

_EDGE = 1e-12
_TRACE = False


def _windows(theta, mu, sd, pad):
    k0 = np.maximum(np.searchsorted(theta, mu - pad * sd, side="right") - 1, 0).astype(np.int64)
    k1 = np.minimum(np.searchsorted(theta, mu + pad * sd, side="left") + 1,
                    theta.size).astype(np.int64)
    return k0, k1


_EXACT_SE_WORK = 5e7  # exact SE sums up to this many cell x node products


def _cheb(lo, hi, Q):
    """Chebyshev points of the first kind on [lo, hi] and their barycentric weights.

    Broadcast over leading axes.
    """
    t = np.cos((2 * np.arange(Q) + 1) * np.pi / (2 * Q))
    lo = np.asarray(lo, float)[..., None]
    hi = np.asarray(hi, float)[..., None]
    nodes = 0.5 * (lo + hi) + 0.5 * (hi - lo) * t
    w = (-1.0) ** np.arange(Q) * np.sin((2 * np.arange(Q) + 1) * np.pi / (2 * Q))
    return nodes, w


def _bary(x, nodes, w):
    """Lagrange basis of ``nodes`` (..., Q) evaluated at ``x`` (..., P): (..., P, Q)."""
    d = x[..., :, None] - nodes[..., None, :]
    exact = d == 0.0
    d = np.where(exact, 1.0, d)
    t = w / d
    L = t / t.sum(-1, keepdims=True)
    hit = exact.any(-1)
    if hit.any():
        L = np.where(hit[..., None], exact.astype(float), L)
    return L


def _aitken(d, prev, b, ls):
    """Vector Aitken extrapolation of a linearly converging iteration; returns (b, ls, history).

    When the last two changes are aligned (cosine > 0.99) with ratio rho in (0, 0.8), the remaining
    changes sum to d rho / (1 - rho); add them.
    """
    if prev is None:
        return b, ls, d
    nd, npv = float(d @ d), float(prev @ prev)
    if nd == 0.0 or npv == 0.0:
        return b, ls, d
    cos = float(d @ prev) / np.sqrt(nd * npv)
    rho = float(d @ prev) / npv
    if cos > 0.99 and 0.0 < rho < 0.8:
        f = rho / (1.0 - rho)
        return b + f * d[:-1], (ls + f * d[-1]) if ls is not None else ls, None
    return b, ls, d


def _chunk(eb, et):
    big = float(np.log1p(eb.max() * et.max()))
    return int(np.clip(650.0 / max(big, 1e-300), 1, 64))


def _start(obs_i, obs_j, s, r):
    """PROX-style start values (Cohen 1979).

    Logits of the proportions correct, widened for the spread of the other side, centred on mean
    ability 0.
    """
    p_i = np.clip(s / np.maximum(obs_i, 1), 0.02, 0.98)
    q_j = np.clip(r / np.maximum(obs_j, 1), 0.02, 0.98)
    lb = np.log((1 - p_i) / p_i)
    lt = np.log(q_j / (1 - q_j))
    vb, vt = float(np.var(lb)), float(np.var(lt))
    b = np.sqrt(1 + vt / 2.89) * (lb - lb.mean())
    t = np.sqrt(1 + vb / 2.89) * (lt - lt.mean())
    b = b + (lb.mean() - lt.mean()) * np.sqrt(1 + vt / 2.89)
    return b, t


class _EM1PL:
    def __init__(self, Y, st, prec_b, ability_sd, density):
        n, m = Y.shape
        from benchkit._kernels.irt_em import missing_csr

        self.Y = Y
        # per item: its missing models; per model: its missing items
        self.ptr_i, self.idx_i, self.ptr_j, self.idx_j = missing_csr(np.ascontiguousarray(Y))
        self.s, self.r = st.row_sum, st.col_sum
        self.n, self.m = n, m
        self.prec_b = prec_b
        self.ls_fixed = None if ability_sd is None else float(np.log(ability_sd))
        self.density = density

    def estep(self, b, ls, mu, sd, pad):
        from benchkit._kernels.irt_em import colsum_softplus
        from benchkit._kernels.irt_em import missing_softplus_nodes

        th = _grid(mu, sd, self.density, pad)
        k0, k1 = _windows(th, mu, sd, pad)
        K = th.size
        et = np.exp(th)
        eb = np.exp(-b)
        ch = _chunk(eb, et)
        lo, hi = int(k0.min()), int(k1.max())
        C = np.zeros(K)
        C[lo:hi] = colsum_softplus(eb, et[lo:hi], ch)
        # each model's missing-item sum on Q Chebyshev nodes of its window, interpolated to the
        # window's grid nodes (the sum is analytic within pi of the real axis, so the
        # interpolation error decays geometrically in Q)
        Kw = int((k1 - k0).max())
        ks = k0[:, None] + np.arange(Kw)[None, :]
        valid = ks < k1[:, None]
        ks = np.minimum(ks, K - 1)
        # enough nodes for ~1e-16: the error decays like rho^-Q with rho the Bernstein
        # ellipse parameter of the widest window (poles at distance pi)
        half = 0.5 * float(np.max(th[k1 - 1] - th[k0]))
        rho = np.pi / half + np.sqrt(1.0 + (np.pi / half) ** 2)
        Q = int(min(max(np.ceil(16.0 * np.log(10.0) / np.log(rho)) + 1, 6), 64))
        tau, bw = _cheb(th[k0], th[k1 - 1], Q)
        Lm = _bary(th[ks], tau, bw)  # m x Kw x Q
        etau = np.exp(tau)
        Stau = missing_softplus_nodes(eb, etau, self.ptr_j, self.idx_j, ch)
        Sw = np.einsum("jkq,jq->jk", Lm, Stau)
        Lw = (self.r[:, None] * th[ks] - C[ks] + Sw + _log_prior(th, ls)[ks])
        Lw = np.where(valid, Lw, -np.inf)
        L = np.full((self.m, K), -np.inf)
        rows = np.broadcast_to(np.arange(self.m)[:, None], ks.shape)
        L[rows[valid], ks[valid]] = Lw[valid]
        mx = L.max(axis=1)
        W = np.exp(L - mx[:, None])
        tot = W.sum(axis=1)
        W /= tot[:, None]
        lse = mx + np.log(tot)
        m1 = W @ th
        sd_new = np.sqrt(np.maximum(W @ th**2 - m1**2, 0.0))
        edge = max(float(W[np.arange(self.m), k0].max()), float(W[np.arange(self.m), k1 - 1].max()))
        Ww = np.where(valid, W[rows, ks], 0.0)
        wq = np.einsum("jk,jkq->jq", Ww, Lm)  # each posterior as a Q-node quadrature rule
        return dict(th=th, et=et, eb=eb, k0=k0, k1=k1, W=W, lse=lse, mu=m1,
                    sd=np.maximum(sd_new, 1e-6), edge=edge, lo=lo, hi=hi, etau=etau, wq=wq)

    def moments(self, e, b):
        """g_i = sum_j M_ij E_j[P_i], h_i = sum_j M_ij E_j[P_i (1 - P_i)] at the E-step's posteriors.

        Over all models, G(b) = sum_k N_k P(theta_k - b) is a smooth function of b (analytic within pi
        of the real axis), evaluated at Chebyshev nodes in b and interpolated at every b_i; minus, for
        each item, its missing models' posteriors as Q-node quadrature rules.
        """
        from benchkit._kernels.irt_em import bary_eval2
        from benchkit._kernels.irt_em import missing_moments_nodes

        th, lo, hi = e["th"], e["lo"], e["hi"]
        N = e["W"].sum(0)[lo:hi]
        blo, bhi = float(b.min()) - 1e-3, float(b.max()) + 1e-3
        half = 0.5 * (bhi - blo)
        rho = np.pi / half + np.sqrt(1.0 + (np.pi / half) ** 2)
        # Chebyshev interpolation error ~rho^-Q relative: Q for 1e-16
        Qb = int(min(max(np.ceil(16.0 * np.log(10.0) / np.log(rho)) + 6, 16), 600))
        nodes, w = _cheb(blo, bhi, Qb)
        Pn = special.expit(th[None, lo:hi] - nodes[:, None])
        Gn = Pn @ N
        Hn = (Pn * (1.0 - Pn)) @ N
        g, h = bary_eval2(b, nodes, w, Gn, Hn)
        gm, hm = missing_moments_nodes(e["eb"], e["etau"], e["wq"], self.ptr_i, self.idx_i)
        return g - gm, h - hm

    def fit(self, b, ls, mu, sd, tol, max_iter):
        # Far from the optimum the posteriors need not be resolved to 1e-19: the first
        # iterations run on a grid 3x coarser (trapezoid error ~1e-2) with wide windows; the
        # full grid takes over once the steps are below 1e-3, so the fixed point is the one of
        # the full grid.
        full = self.density
        self.density = min(full, 0.5)
        pad = _PAD
        n = self.n
        nit = 0
        converged = False
        e = None
        prev = None
        for nit in range(1, max_iter + 1):
            e = self.estep(b, ls, mu, sd, pad)
            mu = e["mu"]
            if self.density == full:  # a coarse grid does not resolve the posterior SDs
                sd = e["sd"]
            if e["edge"] >= _EDGE:  # a window cut a posterior: widen and redo the E-step
                pad *= 1.5
                continue
            g, h = self.moments(e, b)
            dev = b - b.mean()
            grad = g - self.s - self.prec_b * dev
            step = np.clip(grad / (h + self.prec_b * (1 - 1 / n)), -1.0, 1.0)
            # EM barely moves the common shift of the difficulties (fixed only by the ability
            # prior's mean: its missing-information fraction is ~1): a Newton step along it on
            # the marginal likelihood, whose curvature is analytic (shifting every b by c is
            # shifting the prior mean by -c): -sum_j E_j[theta]/s2 / sum_j (1/s2 - Var_j/s2^2)
            s2 = np.exp(2.0 * ls)
            huu = float(np.sum(1.0 / s2 - e["sd"] ** 2 / s2**2))
            c = -float(np.sum(e["mu"])) / s2 / huu if huu > 0 else 0.0
            # the item steps are taken with the posteriors fixed, so their mean is not a move
            # along the shift: the shift is the Newton step's alone
            b = b + (step - step.mean()) + c
            mu = mu + c
            dls = 0.0
            if self.ls_fixed is None:
                # Newton on log sigma with the marginal likelihood's derivatives:
                # d/dls = sum_j (E_j[v] - 1), -d2/dls2 = sum_j (2 E_j[v] - Var_j[v]), v = th^2/s2
                W, th = e["W"], e["th"]
                v = th**2 / s2
                Ev = W @ v
                Vv = np.maximum(W @ v**2 - Ev**2, 0.0)
                hss = float(np.sum(2.0 * Ev - Vv))
                gss = float(np.sum(Ev - 1.0))
                if hss > 0:
                    dls = float(np.clip(gss / hss, -0.5, 0.5))
                else:  # the EM update
                    dls = 0.5 * float(np.log(np.mean(W @ th**2))) - ls
                ls = ls + dls
            big = max(float(np.max(np.abs(step))), abs(dls), abs(c))
            if self.density == full:
                d = np.concatenate([step - step.mean() + c, [dls]])
                b, ls, prev = _aitken(d, prev, b, ls)
            if _TRACE:
                print(nit, self.density, e["th"].size, float(np.mean(e["k1"] - e["k0"])),
                      float(np.max(np.abs(step))), dls, c)
            if self.density < full:
                if big < 1e-3:
                    self.density, pad = full, _PAD
                continue
            pad = _PAD
            if big < tol:
                converged = True
                break
        self.density = full
        # final E-step at the estimate (posteriors, likelihood and SEs)
        for _ in range(8):
            e = self.estep(b, ls, mu, sd, pad)
            if e["edge"] < _EDGE:
                break
            mu, sd, pad = e["mu"], e["sd"], pad * 1.5
        return b, ls, e, nit, converged

    def se(self, b, e):
        """Conditional SEs (as ``_Marginal.b_se_diag``).

        Information sum_j M_ij (E_j[P_i (1 - P_i)] - Var_j[P_i]) + prec (1 - 1/n), with the posterior
        variance of P_i by the delta method, (P Q)(mu_j - b_i)^2 Var_j(theta), when the exact sums
        would exceed _EXACT_SE_WORK products: that term is ~1e-4 of the information when models answer
        thousands of items and its relative error is O(Var_j(theta)); measured against the exact sums:
        1.7e-8 relative at 14,000 x 600.
        """
        from benchkit._kernels.irt_em import se_moments
        from benchkit._kernels.irt_em import var_p_observed

        k0, k1 = e["k0"], e["k1"]
        if self.n * float(np.sum(k1 - k0)) <= _EXACT_SE_WORK:
            # small problems: the exact sums over every observed cell and window node
            EP, _ = self.moments(e, b)
            EP2, S2 = se_moments(e["eb"], e["et"], e["W"], k0, k1, self.Y)
            info = EP - 2.0 * EP2 + S2 + self.prec_b * (1 - 1 / self.n)
            return 1.0 / np.sqrt(info)
        _, h = self.moments(e, b)
        v = e["sd"] ** 2
        var = var_p_observed(np.exp(-b), np.exp(e["mu"]), v, self.Y)
        info = h - var + self.prec_b * (1 - 1 / self.n)
        return 1.0 / np.sqrt(info)


def fit_1pl_em(Y, st, *, prec_b, ability_sd, density, tol=1e-9, max_iter=100):
    """EM fit of the 1PL (any missing pattern).

    Returns None when it does not converge within ``max_iter`` iterations (few items per model) or
    the logits are out of the kernels' range; the caller then uses L-BFGS. Else (b, se, log sigma,
    W (m x K), theta, loglik, n_iter).
    """
    em = _EM1PL(Y, st, prec_b, ability_sd, density)
    b, t = _start(st.row_obs, st.col_obs, st.row_sum, st.col_sum)
    ls = em.ls_fixed if em.ls_fixed is not None else float(np.log(max(np.std(t), 0.05)))
    # curvature SDs of the posteriors at the start values (obs_j P(1-P) with P near 0.5)
    P = np.clip(st.col_sum / np.maximum(st.col_obs, 1), 0.02, 0.98)
    sd = 1.0 / np.sqrt(st.col_obs * P * (1 - P) + np.exp(-2 * ls))
    if np.max(np.abs(b)) + np.max(np.abs(t)) + 20 > 300:
        return None
    with np.errstate(all="ignore"):
        try:
            b, ls, e, nit, conv = em.fit(b, ls, t, sd, tol, max_iter)
        except (ValueError, FloatingPointError, np.linalg.LinAlgError):
            return None
        if (not conv or not np.all(np.isfinite(b)) or not np.isfinite(ls)
                or np.max(np.abs(b)) + np.max(np.abs(e["th"])) > 300):
            return None
        se = em.se(b, e)
        if not np.all(np.isfinite(se)):
            return None
    loglik = float(e["lse"].sum() - em.s @ b)
    return b, se, ls, e["W"], e["th"], loglik, nit


# ----------------------------------------------------------------------------------------------
# 2PL
# ----------------------------------------------------------------------------------------------
def _sp_P(eta):
    ex = np.exp(-np.abs(eta))
    sp = np.maximum(eta, 0.0) + np.log1p(ex)
    P = np.where(eta >= 0, 1.0, ex) / (1.0 + ex)
    return sp, P


def fit_2pl_em(Y, st, *, prec_b, prec_a, density, tol=1e-9, max_iter=200):
    """EM fit of the 2PL (abilities N(0, 1)).

    None when not converged. Else (b, log a, se_b, W, theta, loglik, n_iter).
    """
    n = Y.shape[0]
    miss = np.isnan(Y)
    complete = not miss.any()
    Y0 = np.where(miss, 0.0, Y)
    M = None if complete else (~miss).astype(np.float64)
    s = st.row_sum
    b, t = _start(st.row_obs, st.col_obs, st.row_sum, st.col_sum)
    # with sigma = 1 fixed the PROX scale is absorbed by the discriminations
    sc = max(float(np.std(t)), 0.3)
    b, t = b / sc, t / sc
    la = np.full(n, np.log(sc))
    P0 = np.clip(st.col_sum / np.maximum(st.col_obs, 1), 0.02, 0.98)
    sd = 1.0 / np.sqrt(st.col_obs * P0 * (1 - P0) * sc**2 + 1.0)
    mu = t
    pad = 4.0 * _PAD
    ls = 0.0

    def estep(b, a, mu, sd, pad):
        th = _grid(mu, sd, density, pad)
        ya = Y0.T @ a
        fast = M is None and float(np.max(np.abs(a) * (np.abs(b) + np.max(np.abs(th))))) < 300
        if fast:
            from benchkit._kernels.irt_em import colsum_softplus_2pl

            big = float(np.max(a * (np.max(th) - b)))
            chunk = int(np.clip(650.0 / max(big, 1.0), 1, 64))
            C = colsum_softplus_2pl(a, b, float(th[0]), float(th[1] - th[0]), th.size, chunk)
            L = ya[:, None] * th[None, :] - C[None, :]
            P = None
        else:
            eta = a[:, None] * (th[None, :] - b[:, None])
            sp, P = _sp_P(eta)
            L = ya[:, None] * th[None, :] - (sp.sum(0)[None, :] if M is None else M.T @ sp)
        L += _log_prior(th, ls)[None, :]
        mx = L.max(axis=1)
        W = np.exp(L - mx[:, None])
        tot = W.sum(axis=1)
        W /= tot[:, None]
        m1 = W @ th
        sdn = np.sqrt(np.maximum(W @ th**2 - m1**2, 0.0))
        edge = max(float(W[:, 0].max()), float(W[:, -1].max()))
        return dict(th=th, P=P, W=W, lse=mx + np.log(tot), mu=m1, sd=np.maximum(sdn, 1e-6),
                    edge=edge, fast=fast)

    def sums(e, a, b):
        """EP, sum N P u, sum N PQ, sum N PQ u, sum N PQ u^2, EP2 per item."""
        th, W = e["th"], e["W"]
        if e["fast"]:
            from benchkit._kernels.irt_em import item_sums_2pl

            out = item_sums_2pl(a, b, float(th[0]), float(th[1] - th[0]), th.size, W.sum(0))
            return tuple(out[:, c] for c in range(6))
        P = e["P"]
        Nik = W.sum(0)[None, :] if M is None else M @ W
        u = th[None, :] - b[:, None]
        NP = Nik * P
        w = NP * (1.0 - P)
        return (NP.sum(1), np.einsum("ik,ik->i", NP, u), w.sum(1), np.einsum("ik,ik->i", w, u),
                np.einsum("ik,ik->i", w, u * u), np.einsum("ik,ik->i", NP, P))

    with np.errstate(all="ignore"):
        try:
            return _loop_2pl(estep, sums, Y0, M, s, b, la, mu, sd, pad, n, prec_b, prec_a, tol,
                             max_iter, ls)
        except (ValueError, FloatingPointError, np.linalg.LinAlgError):
            return None


def _loop_2pl(estep, sums, Y0, M, s, b, la, mu, sd, pad, n, prec_b, prec_a, tol, max_iter, ls):
    a = np.exp(la)
    nit = 0
    converged = False
    e = None
    for nit in range(1, max_iter + 1):
        e = estep(b, a, mu, sd, pad)
        mu, sd = e["mu"], e["sd"]
        if e["edge"] >= _EDGE:
            pad *= 1.5
            continue
        pad = _PAD
        th, W = e["th"], e["W"]
        EP, EPu, Sw, Swu, Swu2, _ = sums(e, a, b)
        T = Y0 @ (W @ th)  # sum_j y_ij E_j[theta]
        dev = b - b.mean()
        Tu = T - b * s  # sum_k R_ik u_ik
        g_b = a * (EP - s) - prec_b * dev
        g0_l = a * (Tu - EPu)
        g_l = g0_l - prec_a * la
        Hbb = -(a * a * Sw) - prec_b * (1 - 1 / n)
        Hll = g0_l - a * a * Swu2 - prec_a
        Hbl = a * (EP - s) + a * a * Swu
        det = Hbb * Hll - Hbl * Hbl
        bad = ~((Hll < 0) & (det > 0))
        Hll = np.where(bad, -(a * a * Swu2) - prec_a, Hll)  # Fisher scoring where not concave
        Hbl = np.where(bad, a * a * Swu, Hbl)
        det = Hbb * Hll - Hbl * Hbl
        db = -(Hll * g_b - Hbl * g_l) / det
        dl = -(-Hbl * g_b + Hbb * g_l) / det
        db = np.clip(db, -1.0, 1.0)
        dl = np.clip(dl, -0.5, 0.5)
        b = b + db
        la = la + dl
        # the two directions EM barely moves (see _EM1PL.fit): a common shift of b (prior
        # mean of theta) and the scale b -> e^k b, a -> e^-k a (prior SD e^-k); Newton steps on
        # the penalized marginal likelihood with analytic curvatures
        v = W @ th**2
        vv = np.maximum(W @ th**4 - v**2, 0.0)
        huu = float(np.sum(1.0 - e["sd"] ** 2))
        c = -float(np.sum(e["mu"])) / huu if huu > 0 else 0.0
        b = b + c
        mu = mu + c
        dev = b - b.mean()
        gk = -float(np.sum(v - 1.0)) - prec_b * float(dev @ dev) + prec_a * float(la.sum())
        hk = float(np.sum(2.0 * v - vv)) + 2.0 * prec_b * float(dev @ dev) + prec_a * n
        kap = float(np.clip(gk / hk, -0.5, 0.5)) if hk > 0 else 0.0
        b = b * np.exp(kap)
        la = la - kap
        mu, sd = mu * np.exp(kap), sd * np.exp(kap)
        a = np.exp(la)
        big = max(float(np.max(np.abs(db))), float(np.max(np.abs(dl))), abs(c), abs(kap))
        if _TRACE:
            print(nit, th.size, float(np.max(np.abs(db))), float(np.max(np.abs(dl))), c, kap)
        if big < tol:
            converged = True
            break
    if not converged:
        return None
    for _ in range(8):
        e = estep(b, a, mu, sd, pad)
        if e["edge"] < _EDGE:
            break
        mu, sd, pad = e["mu"], e["sd"], pad * 1.5
    th, W = e["th"], e["W"]
    EP, _, _, _, _, EP2 = sums(e, a, b)
    P = e["P"] if e["P"] is not None else _sp_P(a[:, None] * (th[None, :] - b[:, None]))[1]
    A = P @ W.T  # E_j[P_i]
    S2 = (A * A).sum(1) if M is None else np.einsum("ij,ij->i", M, A * A)
    info = a**2 * (EP - 2.0 * EP2 + S2) + prec_b * (1 - 1 / n)
    loglik = float(e["lse"].sum() - s @ (a * b))
    se = 1.0 / np.sqrt(info)
    if not (np.all(np.isfinite(b)) and np.all(np.isfinite(la)) and np.all(np.isfinite(se))):
        return None
    return b, la, se, W, th, loglik, nit
