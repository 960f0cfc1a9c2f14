"""Marginal maximum likelihood (MML) of the 1PL and 2PL on adaptive quadrature grids."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import optimize
from threadpoolctl import threadpool_limits

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit.irt._collapsed import _fit_mml_collapsed
from benchkit.irt._common import IRTFit
from benchkit.irt._common import _extremes
from benchkit.irt._common import _group
from benchkit.irt._common import _item_estimates
from benchkit.irt._common import _kept_rows
from benchkit.irt._common import _labels
from benchkit.irt._common import _matrix_stats
from benchkit.irt._common import _prior
from benchkit.irt._common import _sp_p
from benchkit.irt._em import fit_1pl_em
from benchkit.irt._em import fit_2pl_em
from benchkit.irt._joint import _fit_jml
from benchkit.irt._joint import _jml_collapsed
from benchkit.irt._joint import _jml_general
from benchkit.irt._quadrature import _PAD
from benchkit.irt._quadrature import _grid
from benchkit.irt._quadrature import _grid_ok
from benchkit.irt._quadrature import _log_prior
from benchkit.irt._quadrature import _post_moments

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
        """Softplus and expit of a_i (theta_k - b_i) on n x len(th) cells."""
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
        """Evaluate the posteriors block by block.

        Returns a dict with ll, W (m x K, original
        model order), N (K), EP = sum_j M_ij E_j[P_i], EPt = sum_j M_ij E_j[P_i theta] (2PL), and
        with ``extra`` EP2 = sum_j M_ij E_j[P_i^2], S2 = sum_j M_ij E_j[P_i]^2 (for SEs) and
        EPQd2 = sum_j M_ij E_j[P_i(1-P_i)(theta-b_i)^2] (2PL preconditioner).
        """
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
                        = a_i^2 sum_j M_ij (E_j[P_i] - 2 E_j[P_i^2] + E_j[P_i]^2).
        """
        q = self.parts(p, extra=True)
        info = q["a"] ** 2 * (q["EP"] - 2.0 * q["EP2"] + q["S2"]) + self.prec_b * (1 - 1 / self.n)
        return 1.0 / np.sqrt(info), q["W"]

    def diag_scale(self, p):
        """Sqrt of the diagonal information, the L-BFGS preconditioner (variables x = p * scale)."""
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
    """1PL posterior modes and curvature SDs of each model.

    Vectorized 1-D Newton on the matrix; e^(t - b) from the outer product e^t e^-b, no exp per
    cell.
    """
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
    """Newton steps along the common shift of all difficulties.

    The diagonal preconditioner
    ignores the strong coupling of the b's (moving them together is resisted only by the ability
    prior), the one direction in which L-BFGS stops early. The curvature along the shift is
    analytic: shifting every b by c is shifting the ability prior's mean by c, so
    -d2 l / dc2 = sum_j (1/sigma^2 - Var_j(theta)/sigma^4) (the centred penalty is unaffected).
    """
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
    """Preconditioned L-BFGS on the windowed adaptive grid.

    Start values from a few penalized JML iterations; the grid and windows are rebuilt from the
    fitted posteriors (and the fit continued) until they are resolved.
    """
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
# public fits
# ----------------------------------------------------------------------------------------------
def fit_1pl(
    Y: Any,
    *,
    method: str = "mml",
    item_prior_sd: float | None = 3.0,
    ability_prior_sd: float | None = 3.0,
    ability_sd: float | None = None,
    nodes_per_sd: float = 1.5,
    collapse: bool = True,
    optimizer: str = "em",
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
    optimizer : {"em", "lbfgs"}
        MML general (missing-data) path only: ``"em"`` (default) Bock-Aitkin EM with one Newton
        step per item and iteration, which falls back to ``"lbfgs"`` (preconditioned L-BFGS on
        the marginal likelihood) when it has not converged in 100 iterations (``options``
        records the one used). Both maximize the
        same function; EM needs a handful of iterations when models answer many items.
    tol, max_iter : float, int
        Convergence tolerance (gradient norm for MML, largest step for JML) and iteration cap.
    items, models : sequence, optional
        Labels (default: from a DataFrame / ResponseSet, else positions).

    Returns
    -------
    IRTFit
        ``difficulty`` per item (higher = harder, in logits) and ``ability`` per model, with
        standard errors; ``to_frame()`` is the item table.

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

    References
    ----------
    Y. Sun, N. Yu, J. Gong, J. Shen and H. Zhang, "Your Benchmark Is an Empirical Measure Over
    Difficulty", arXiv:2610.29927, Figure 2 step 3. G. Rasch (1960), Probabilistic
    Models for Some Intelligence and Attainment Tests, Danish Institute for Educational Research.
    R. D. Bock and M. Aitkin (1981), "Marginal maximum likelihood estimation of item parameters:
    application of an EM algorithm", Psychometrika 46(4), 443-459.

    Examples
    --------
    A simulated 1PL benchmark; the fitted difficulties follow the generating ones (the simulator's
    easiness is minus the difficulty):

    >>> import numpy as np
    >>> from benchkit.simulate import binary_matrix
    >>> from benchkit.irt import fit_1pl
    >>> sim = binary_matrix(30, 20, rng=0, discrimination_sd=0.0)
    >>> fit = fit_1pl(sim.matrix)
    >>> fit.converged, round(float(np.corrcoef(fit.difficulty, -sim.truth.items["easiness"])[0, 1]), 2)
    (True, 0.92)
    >>> fit.to_frame().round(2).head(3)
          difficulty  difficulty_se  discrimination  discrimination_se
    item
    0          -1.15           0.53             1.0                0.0
    1           1.10           0.53             1.0                0.0
    2           2.69           0.86             1.0                0.0
    """
    arr, st = _matrix_stats(Y)
    items, models = _labels(Y, arr.shape[0], arr.shape[1], items, models)
    check_choice("method", method, ("mml", "jml"))
    check_choice("optimizer", optimizer, ("em", "lbfgs"))
    prec_b = _prior("item_prior_sd", item_prior_sd)
    prec_t = _prior("ability_prior_sd", ability_prior_sd)
    if ability_sd is not None:
        ability_sd = check_float("ability_sd", ability_sd, min=0.0, min_inclusive=False)
    nodes_per_sd = check_float("nodes_per_sd", nodes_per_sd, min=0.5, max=20.0)
    tol = check_float("tol", tol, min=0.0, min_inclusive=False)
    max_iter = check_int("max_iter", max_iter, min=1)
    opts = dict(method=method, item_prior_sd=item_prior_sd, ability_prior_sd=ability_prior_sd,
                ability_sd=ability_sd, nodes_per_sd=nodes_per_sd, optimizer=optimizer)
    n_items, n_models = arr.shape
    empty, extreme, keep = _extremes(st, prec_b)
    if keep.sum() < 1:
        raise BenchkitValueError(
            "no item has both correct and wrong responses; the 1PL cannot be fitted without an "
            "item prior (pass item_prior_sd=...)"
        )
    observed = arr[~np.isnan(arr)] if np.issubdtype(arr.dtype, np.floating) else arr.ravel()
    if method == "mml" and observed.size and observed.min() == observed.max():
        raise BenchkitValueError(
            f"every observed response is {observed.flat[0]:g}: no item or model varies, so the "
            "marginal-likelihood difficulties are not identified (they run off to infinity); fit a "
            "matrix with both correct and wrong responses, or use method='jml' (held by its priors)"
        )
    sub, sst = _kept_rows(arr, st, keep)
    complete = sst.complete
    b_full, se_full = _item_estimates(st, extreme)

    if method == "jml":
        return _fit_jml(arr, st, sub, sst, keep, b_full, se_full, prec_t=prec_t,
                        prec_b=prec_b, collapse=collapse, tol=tol, max_iter=max_iter,
                        items=items, models=models, opts=opts)

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
        em = None
        if optimizer == "em":
            with threadpool_limits(1, "blas"):  # block products; the kernels use numba threads
                em = fit_1pl_em(sub, sst, prec_b=prec_b, ability_sd=ability_sd,
                                density=nodes_per_sd)
        if em is not None:
            b, se, ls, W_models, th, loglik, nit = em
            conv = True
        else:
            opts["optimizer"] = "lbfgs"
            # many small per-block products: one BLAS thread (threads only add wake-ups and,
            # on a shared machine, oversubscription)
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
    optimizer: str = "em",
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
    nodes_per_sd, optimizer, tol, max_iter, items, models
        As in :func:`fit_1pl` (``optimizer="em"``: a 2 x 2 Newton step per item and iteration;
        falls back to L-BFGS when not converged in 200 iterations).

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

    References
    ----------
    A. Birnbaum (1968), "Some latent trait models and their use in inferring an examinee's
    ability", in F. M. Lord and M. R. Novick, Statistical Theories of Mental Test Scores,
    Addison-Wesley. R. D. Bock and M. Aitkin (1981), Psychometrika 46(4), 443-459.
    Y. Sun, N. Yu, J. Gong, J. Shen and H. Zhang, "Your Benchmark Is an Empirical Measure Over
    Difficulty", arXiv:2610.29927 (the 1PL that the 2PL extends).

    Examples
    --------
    >>> from benchkit.simulate import binary_matrix
    >>> from benchkit import irt
    >>> Y = binary_matrix(30, 20, rng=0, discrimination_sd=0.0).matrix  # 30 items x 20 models
    >>> fit = irt.fit_2pl(Y)
    >>> fit.model, fit.converged, fit.discrimination.shape
    ('2pl', True, (30,))
    """
    arr, st = _matrix_stats(Y)
    items, models = _labels(Y, arr.shape[0], arr.shape[1], items, models)
    prec_b = _prior("item_prior_sd", item_prior_sd)
    prec_a = _prior("discrimination_prior_sd", discrimination_prior_sd)
    check_choice("optimizer", optimizer, ("em", "lbfgs"))
    nodes_per_sd = check_float("nodes_per_sd", nodes_per_sd, min=0.5, max=20.0)
    tol = check_float("tol", tol, min=0.0, min_inclusive=False)
    max_iter = check_int("max_iter", max_iter, min=1)
    n_items, n_models = arr.shape
    empty, extreme, keep = _extremes(st, prec_b)
    if keep.sum() < 1:
        raise BenchkitValueError("no item has both correct and wrong responses")
    sub, sst = _kept_rows(arr, st, keep)
    em = None
    if optimizer == "em":
        with threadpool_limits(1, "blas"):
            em = fit_2pl_em(sub, sst, prec_b=prec_b, prec_a=prec_a, density=nodes_per_sd)
    if em is not None:
        b, la, se, W, th, loglik, nit = em
        conv = True
    else:
        with threadpool_limits(1, "blas"):  # many small per-block products (see fit_1pl)
            mg, p, nit, conv = _fit_general_mml(sub, sst, prec_b=prec_b, prec_a=prec_a,
                                                two_pl=True, ability_sd=None,
                                                density=nodes_per_sd, tol=tol,
                                                max_iter=max_iter)
            b, la, _ = mg.unpack(p)
            se, W = mg.b_se_diag(p)
            loglik = mg.parts(p)["ll"]
        th = mg.theta
    b_full, se_full = _item_estimates(st, extreme)
    a_full = np.full(n_items, np.nan)
    b_full[keep], se_full[keep], a_full[keep] = b, se, np.exp(la)
    eap, psd = _post_moments(W, th)
    opts = dict(method="mml", item_prior_sd=item_prior_sd,
                discrimination_prior_sd=discrimination_prior_sd, nodes_per_sd=nodes_per_sd,
                optimizer="em" if em is not None else "lbfgs")
    return IRTFit(b_full, se_full, a_full, np.full(n_items, np.nan), eap, psd, 1.0, "2pl", "mml",
                  loglik, int(nit), bool(conv), False, items, models, opts,
                  nodes=th, posterior=W)
