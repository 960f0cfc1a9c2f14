"""The fast MML paths real data hits (missing cells, 2PL): EM on the adaptive grid.

Oracles: (1) a slow, obviously-correct marginal likelihood (a fixed 2,001-node trapezoid grid on
[-8, 8], every model x node x item term computed densely) maximized by scipy.optimize on small
inputs; (2) the current L-BFGS path (``optimizer="lbfgs"``) on a mid-size input, and the
gradient of its objective (``_Marginal.fun``) at the EM estimate; (3) numpy twins of every numba
kernel in ``benchkit._kernels.irt_em``.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize
from scipy import special

import naive
from benchkit import irt
from benchkit._kernels import irt_em as K
from benchkit._validation import BenchkitValueError
from benchkit.irt._common import _matrix_stats
from benchkit.irt._marginal import _Marginal
from benchkit.irt._quadrature import _post_moments
from benchkit.simulate import binary_matrix

_GRID = np.linspace(-8.0, 8.0, 2001)


def _matrix(n, m, seed, missing=0.1, two_pl=False):
    Y = binary_matrix(n, m, rng=seed, dtype=np.float64,
                      **({} if two_pl else {"discrimination_sd": 0.0})).matrix.copy()
    if missing:
        Y[np.random.default_rng(seed + 1).random(Y.shape) < missing] = np.nan
    return np.ascontiguousarray(Y)


def _naive_objective(p, Y, two_pl, prec_b, prec_a):
    """Penalized negative marginal log likelihood and gradient by the dense trapezoid rule on
    _GRID (naive.marginal_nll_dense)."""
    return naive.marginal_nll_dense(p, Y, two_pl, prec_b, prec_a, grid=_GRID)


def _naive_fit(Y, two_pl, prec_b=1 / 9, prec_a=1.0):
    n = Y.shape[0]
    p_i = np.clip(np.nanmean(Y, axis=1), 0.02, 0.98)
    b0 = np.log((1 - p_i) / p_i)  # start: logits of the proportions wrong
    p0 = np.concatenate([b0, np.zeros(n if two_pl else 1)])
    res = optimize.minimize(_naive_objective, p0, args=(Y, two_pl, prec_b, prec_a), jac=True,
                            method="BFGS", options={"gtol": 1e-9, "maxiter": 5000})
    assert np.max(np.abs(res.jac)) < 1e-6
    return res.x


def test_em_1pl_missing_matches_naive_oracle():
    Y = _matrix(200, 15, seed=4)
    fit = irt.fit_1pl(Y)
    assert fit.options["optimizer"] == "em"
    x = _naive_fit(Y, two_pl=False)
    np.testing.assert_allclose(fit.difficulty, x[:-1], atol=1e-6)
    assert fit.ability_sd == pytest.approx(np.exp(x[-1]), abs=1e-6)


def test_em_2pl_matches_naive_oracle():
    # with missing cells (the complete case is the same code with M = 1; it is checked against
    # the current objective below)
    Y = _matrix(20, 60, seed=6, missing=0.1, two_pl=True)
    fit = irt.fit_2pl(Y)
    assert fit.options["optimizer"] == "em"
    x = _naive_fit(Y, two_pl=True)
    np.testing.assert_allclose(fit.difficulty, x[:20], atol=1e-6)
    np.testing.assert_allclose(fit.discrimination, np.exp(x[20:]), atol=1e-6)


def test_em_1pl_missing_matches_current_path_midsize():
    Y = _matrix(1400, 60, seed=2026)
    em = irt.fit_1pl(Y)
    old = irt.fit_1pl(Y, optimizer="lbfgs")
    assert em.options["optimizer"] == "em"
    assert old.options["optimizer"] == "lbfgs"
    np.testing.assert_allclose(em.difficulty, old.difficulty, atol=1e-6)
    np.testing.assert_allclose(em.difficulty_se, old.difficulty_se, rtol=1e-6)
    np.testing.assert_allclose(em.ability, old.ability, atol=1e-6)
    np.testing.assert_allclose(em.ability_se, old.ability_se, rtol=1e-6)
    assert em.ability_sd == pytest.approx(old.ability_sd, abs=1e-6)
    assert em.loglik == pytest.approx(old.loglik, abs=1e-5)
    np.testing.assert_allclose(em.posterior.sum(1), 1.0)


@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_em_2pl_is_the_current_objectives_optimum(missing):
    # the current L-BFGS path stops where its objective is flat to rounding (max |gradient|
    # ~1e-5 here), so the EM estimate is checked against that objective itself: its gradient
    # vanishes there and its value is not above the L-BFGS one
    Y = _matrix(400, 40, seed=5, missing=missing, two_pl=True)
    em = irt.fit_2pl(Y)
    old = irt.fit_2pl(Y, optimizer="lbfgs")
    assert em.options["optimizer"] == "em"
    _, st = _matrix_stats(Y)
    M = None if missing == 0 else (~np.isnan(Y)).astype(float)
    mg = _Marginal(np.nan_to_num(Y), M, st.row_sum, st.col_sum, True, 1 / 9, 1.0, 0.0)
    mu, sd = _post_moments(em.posterior, em.nodes)
    mg.setup(mu, np.maximum(sd, 1e-6), 1.5)
    f_em, g_em = mg.fun(np.concatenate([em.difficulty, np.log(em.discrimination)]))
    f_old, _ = mg.fun(np.concatenate([old.difficulty, np.log(old.discrimination)]))
    assert np.max(np.abs(g_em)) < 1e-6
    assert f_em <= f_old + 1e-9
    np.testing.assert_allclose(em.difficulty, old.difficulty, atol=5e-5)
    np.testing.assert_allclose(em.discrimination, old.discrimination, atol=5e-5)
    np.testing.assert_allclose(em.difficulty_se, old.difficulty_se, rtol=1e-4)


def _old_objective(Y, fit):
    """The L-BFGS path's objective (_Marginal, analytic gradient) on the grid placed from the
    posteriors of ``fit``."""
    _, st = _matrix_stats(Y)
    M = (~np.isnan(Y)).astype(float) if np.isnan(Y).any() else None
    mg = _Marginal(np.nan_to_num(Y), M, st.row_sum, st.col_sum, True, 1 / 9, 1.0, 0.0)
    mu, sd = _post_moments(fit.posterior, fit.nodes)
    mg.setup(mu, np.maximum(sd, 1e-6), 1.5)
    return mg


@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_em_2pl_equals_the_old_objective_solved_tightly(missing):
    # issue 13: "2PL estimates unchanged to 1e-6". The old path (L-BFGS) stops where its
    # objective is flat to rounding (max |gradient| ~1e-5), 1e-6..1e-5 from its optimum. Here
    # its objective is solved to max |gradient| < 1e-9 by Newton's method on the gradient alone
    # (naive.newton_on_gradient, Hessian by central differences), starting from its own
    # estimate; the EM estimate agrees with that optimum to 1e-6.
    n = 120
    Y = _matrix(n, 40, seed=5, missing=missing, two_pl=True)
    em = irt.fit_2pl(Y)
    old = irt.fit_2pl(Y, optimizer="lbfgs")
    assert em.options["optimizer"] == "em"
    mg = _old_objective(Y, old)
    x_old = np.concatenate([old.difficulty, np.log(old.discrimination)])
    x, gmax, _ = naive.newton_on_gradient(lambda p: mg.fun(p)[1], x_old, tol=1e-9)
    assert gmax < 1e-9
    np.testing.assert_allclose(em.difficulty, x[:n], rtol=0, atol=1e-6)
    np.testing.assert_allclose(em.discrimination, np.exp(x[n:]), rtol=0, atol=1e-6)


@pytest.mark.slow  # a tightly solved dense quadrature oracle
def test_em_2pl_equals_dense_quadrature_optimum_solved_tightly():
    # the slow obviously-correct twin: every model x node x item term on a fixed trapezoid
    # grid (naive.marginal_nll_dense, 801 nodes on [-8, 8]), solved by Newton to max |gradient|
    # < 1e-9 from the L-BFGS estimate; the EM estimate (adaptive grid) agrees to 1e-6
    n = 50
    Y = _matrix(n, 40, seed=8, missing=0.1, two_pl=True)
    em = irt.fit_2pl(Y)
    old = irt.fit_2pl(Y, optimizer="lbfgs")
    grid = np.linspace(-8.0, 8.0, 801)
    x0 = np.concatenate([old.difficulty, np.log(old.discrimination)])
    x, gmax, _ = naive.newton_on_gradient(
        lambda p: naive.marginal_nll_dense(p, Y, True, 1 / 9, 1.0, grid=grid)[1], x0, tol=1e-9)
    assert gmax < 1e-9
    np.testing.assert_allclose(em.difficulty, x[:n], rtol=0, atol=1e-6)
    np.testing.assert_allclose(em.discrimination, np.exp(x[n:]), rtol=0, atol=1e-6)


def test_newton_on_gradient_solves_a_quadratic():
    # oracle for the helper: a quadratic 1/2 x'Ax - c'x has its optimum at A^-1 c (numpy solve)
    rng = np.random.default_rng(0)
    Q = rng.normal(size=(6, 6))
    A = Q @ Q.T + 6 * np.eye(6)
    c = rng.normal(size=6)
    x, gmax, it = naive.newton_on_gradient(lambda v: A @ v - c, np.zeros(6), tol=1e-12)
    np.testing.assert_allclose(x, np.linalg.solve(A, c), atol=1e-10)
    x2, _, _ = naive.newton_cg_on_gradient(lambda v: A @ v - c, np.zeros(6), tol=1e-11)
    np.testing.assert_allclose(x2, np.linalg.solve(A, c), atol=1e-10)


def test_em_falls_back_and_records_it():
    # 15 items per model: EM converges too slowly, L-BFGS takes over
    Y = _matrix(15, 30, seed=5)
    fit = irt.fit_1pl(Y)
    ref = irt.fit_1pl(Y, optimizer="lbfgs")
    assert fit.options["optimizer"] == "lbfgs"
    np.testing.assert_array_equal(fit.difficulty, ref.difficulty)


def test_optimizer_errors():
    Y = _matrix(10, 5, seed=1)
    with pytest.raises(BenchkitValueError, match="optimizer"):
        irt.fit_1pl(Y, optimizer="newton")
    with pytest.raises(BenchkitValueError, match="optimizer"):
        irt.fit_2pl(Y, optimizer="bfgs")


# ----------------------------------------------------------------------------------------------
# kernels against numpy twins
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def parts():
    rng = np.random.default_rng(0)
    n, m, Kn = 50, 12, 40
    b = rng.normal(0, 1.5, n)
    th = np.linspace(-3, 3, Kn)
    Y = (rng.random((n, m)) < 0.5).astype(float)
    Y[rng.random((n, m)) < 0.2] = np.nan
    k0 = rng.integers(0, 20, m).astype(np.int64)
    k1 = (k0 + rng.integers(5, 20, m)).astype(np.int64)
    W = np.zeros((m, Kn))
    for j in range(m):
        w = rng.random(k1[j] - k0[j])
        W[j, k0[j]:k1[j]] = w / w.sum()
    return dict(b=b, th=th, Y=Y, k0=k0, k1=k1, W=W, eb=np.exp(-b), et=np.exp(th))


def test_missing_csr(parts):
    Y = parts["Y"]
    for got, want in zip(K.missing_csr(Y), naive.missing_csr(Y)):
        np.testing.assert_array_equal(got, want)
    # the twin itself against np.nonzero (hand-checkable): row-major NaN columns
    _, cols = np.nonzero(np.isnan(Y))
    np.testing.assert_array_equal(naive.missing_csr(Y)[1], cols)


def test_colsum_softplus(parts):
    sp = np.logaddexp(0.0, parts["th"][None, :] - parts["b"][:, None])
    for chunk in (1, 7, 64):
        got = K.colsum_softplus(parts["eb"], parts["et"], chunk)
        np.testing.assert_allclose(got, naive.colsum_softplus(parts["eb"], parts["et"]), rtol=1e-13)
        np.testing.assert_allclose(got, sp.sum(0), rtol=1e-13)


def test_colsum_softplus_2pl_and_item_sums(parts):
    rng = np.random.default_rng(1)
    a = np.exp(rng.normal(0, 0.3, parts["b"].size))
    b, th = parts["b"], parts["th"]
    h = th[1] - th[0]
    C = K.colsum_softplus_2pl(a, b, th[0], h, th.size, 16)
    np.testing.assert_allclose(C, naive.colsum_softplus_2pl(a, b, th[0], h, th.size), rtol=1e-12)
    N = rng.random(th.size)
    out = K.item_sums_2pl(a, b, th[0], h, th.size, N)
    np.testing.assert_allclose(out, naive.item_sums_2pl(a, b, th[0], h, th.size, N), rtol=1e-11,
                               atol=1e-13)


def test_nodes_kernels(parts):
    rng = np.random.default_rng(2)
    Y, eb = parts["Y"], parts["eb"]
    m = Y.shape[1]
    tau = rng.normal(0, 1, (m, 6))
    wq = rng.random((m, 6))
    pi, ii, pj, ij = K.missing_csr(Y)
    S = K.missing_softplus_nodes(eb, np.exp(tau), pj, ij, 5)
    np.testing.assert_allclose(S, naive.missing_softplus_nodes(eb, np.exp(tau), pj, ij), rtol=1e-13,
                               atol=1e-14)
    g, h = K.missing_moments_nodes(eb, np.exp(tau), wq, pi, ii)
    g2, h2 = naive.missing_moments_nodes(eb, np.exp(tau), wq, pi, ii)
    np.testing.assert_allclose(g, g2, rtol=1e-12)
    np.testing.assert_allclose(h, h2, rtol=1e-12)


def test_var_p_and_se_moments(parts):
    Y, eb, W, k0, k1 = (parts[k] for k in ("Y", "eb", "W", "k0", "k1"))
    rng = np.random.default_rng(3)
    mu, v = rng.normal(0, 1, Y.shape[1]), rng.random(Y.shape[1])
    np.testing.assert_allclose(K.var_p_observed(eb, np.exp(mu), v, Y),
                               naive.var_p_observed(eb, np.exp(mu), v, Y), rtol=1e-12)
    EP2, S2 = K.se_moments(eb, parts["et"], W, k0, k1, Y)
    EP2n, S2n = naive.se_moments(eb, parts["et"], W, k0, k1, Y)
    np.testing.assert_allclose(S2, S2n, rtol=1e-12)
    np.testing.assert_allclose(EP2, EP2n, rtol=1e-12)


def test_bary_eval2_matches_chebyshev_interpolation():
    from benchkit.irt._em import _cheb

    f = special.expit
    nodes, w = _cheb(-3.0, 2.0, 40)
    x = np.r_[np.linspace(-3, 2, 101), nodes[5]]
    F, G = K.bary_eval2(x, nodes, w, f(nodes), np.sin(nodes))
    Fn, Gn = naive.bary_eval2(x, nodes, w, f(nodes), np.sin(nodes))
    np.testing.assert_allclose(F, Fn, atol=1e-13)
    np.testing.assert_allclose(G, Gn, atol=1e-13)
    # oracle: numpy's Chebyshev interpolant through the same points, and the functions
    cheb = np.polynomial.chebyshev.Chebyshev.fit(nodes, f(nodes), 39, domain=[-3, 2])
    np.testing.assert_allclose(F, cheb(x), atol=1e-12)
    np.testing.assert_allclose(F, f(x), atol=1e-12)
    np.testing.assert_allclose(G, np.sin(x), atol=1e-12)
    assert F[-1] == f(nodes)[5]
