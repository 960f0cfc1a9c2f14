"""1PL marginal maximum likelihood on a complete 0/1 matrix, collapsed by sufficient statistics."""
from __future__ import annotations

import numpy as np
from scipy import linalg
from scipy import special

from benchkit.irt._common import _sp_p
from benchkit.irt._quadrature import _PAD
from benchkit.irt._quadrature import _grid
from benchkit.irt._quadrature import _grid_ok
from benchkit.irt._quadrature import _log_prior
from benchkit.irt._quadrature import _newton_cg
from benchkit.irt._quadrature import _post_moments


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
        """(J v, diag preconditioner) for the observed information J of :meth:`hess`.

        J is never formed: J = diag(n d) - Ng [U C U^T] Ng - prec/n n n^T (+ log-sigma border),
        applied as products with the G x K and R x K arrays (O((G + R) K) per product).
        """
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
        """Item-level SEs: sqrt diag of the inverse observed information.

        Over all items [+ log sigma]. At item level the information is A = D - E V E^T (D
        diagonal with d_g for each item of group g, E the item-to-group indicator, V the
        group-constant low-rank part), so
        A^-1 = D^-1 + E Z E^T with Z = J^-1 - diag(1 / (n_g d_g)), J the group-level
        information of :meth:`hess` (substitute into A A^-1 = I); the log-sigma border carries
        over unchanged. Hence se_i^2 = 1/d_g - 1/(n_g d_g) + (J^-1)_gg: one G x G inverse.
        """
        b, ls, P, W, N, C, v = self.info_parts(p)
        n_g = self.n_g
        d = (P * (1.0 - P)) @ N + self.prec
        L = np.linalg.cholesky(self.hess(p))
        Linv, _ = linalg.lapack.dtrtri(L, lower=1)
        Jinv_diag = np.einsum("kg,kg->g", Linv, Linv)  # diag(L^-T L^-1)
        G = n_g.size
        return np.sqrt(1.0 / d - 1.0 / (n_g * d) + Jinv_diag[:G])


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
