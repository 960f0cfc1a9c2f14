"""Tests of benchkit.irt against girth, direct scipy optimization and brute-force formulas."""
from __future__ import annotations

import ast
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from joblib import parallel_config
from scipy import optimize
from scipy import special

from benchkit import irt
from benchkit import measure
from benchkit._validation import BenchkitValueError


def simulate(n_items, n_models, seed, b_sd=1.0, missing=0.0):
    rng = np.random.default_rng(seed)
    b = rng.normal(0, b_sd, n_items)
    t = rng.normal(0, 1, n_models)
    Y = (rng.random((n_items, n_models)) < special.expit(t[None] - b[:, None])).astype(float)
    if missing:
        Y[rng.random(Y.shape) < missing] = np.nan
    return Y, b, t


@pytest.fixture(scope="module")
def sim():
    return simulate(120, 100, seed=3)


@pytest.fixture(scope="module")
def girth_fits(sim):
    girth = pytest.importorskip("girth")
    Y, b, t = sim
    data = Y.astype(int)  # girth: items x persons int array
    return girth.rasch_jml(data)["Difficulty"], girth.rasch_mml(data)["Difficulty"]


@pytest.mark.parametrize("method", ["mml", "jml"])
def test_1pl_correlates_with_girth(sim, girth_fits, method):
    Y, b, _ = sim
    fit = irt.fit_1pl(Y, method=method)
    assert fit.converged
    for ref in girth_fits:
        assert np.corrcoef(fit.difficulty, ref)[0, 1] >= 0.99


def test_mml_recovers_simulated_difficulties():
    Y, b, t = simulate(300, 400, seed=11)
    fit = irt.fit_1pl(Y, method="mml")
    rmse = np.sqrt(np.mean((fit.difficulty - b) ** 2))
    # sampling SE of b with 400 models is ~0.11-0.13; RMSE measured 0.116 at this seed
    assert rmse < 0.16
    assert abs(fit.ability_sd - 1.0) < 0.15
    # SEs match the spread of the errors
    assert 0.8 < np.sqrt(np.mean(((fit.difficulty - b) / fit.difficulty_se) ** 2)) < 1.25


def _sim_2pl(seed, n, m):
    """(Y, b): n items x m models from a 2PL, log a ~ N(0, 0.3), b and theta ~ N(0, 1)."""
    rng = np.random.default_rng(seed)
    a = np.exp(rng.normal(0, 0.3, n))
    b = rng.normal(0, 1, n)
    t = rng.normal(0, 1, m)
    Y = (rng.random((n, m)) < special.expit(a[:, None] * (t[None] - b[:, None]))).astype(float)
    return Y, b


def _direct_mml(Y, prec_b, grid_n=801):
    """Direct scipy fit of the 1PL marginal likelihood on a fixed dense grid of standardized
    nodes (no adaptive grid, no analytic gradient): parameters b (n) and log sigma, each model's
    likelihood integrated over N(0, sigma^2); penalty prec_b/2 sum (b_i - mean b)^2."""
    M = (~np.isnan(Y)).astype(float)
    Y0 = np.nan_to_num(Y)
    u = np.linspace(-9, 9, grid_n)
    lw = np.log(np.exp(-0.5 * u**2) * (u[1] - u[0]) / np.sqrt(2 * np.pi))

    def nll(p):
        b, ls = p[:-1], p[-1]
        eta = np.exp(ls) * u[None, :] - b[:, None]
        L = Y0.T @ eta - M.T @ np.logaddexp(0, eta) + lw[None, :]
        return -(special.logsumexp(L, axis=1).sum() - 0.5 * prec_b * (b - b.mean()) @ (b - b.mean()))

    p0 = np.zeros(Y.shape[0] + 1)
    res = optimize.minimize(nll, p0, method="BFGS", options={"gtol": 1e-9})
    return res.x, nll


def _num_hessian(f, x, h=1e-4):
    n = x.size
    H = np.empty((n, n))
    for i in range(n):
        for j in range(i, n):
            e_i, e_j = np.eye(n)[i] * h, np.eye(n)[j] * h
            H[i, j] = H[j, i] = (f(x + e_i + e_j) - f(x + e_i - e_j) - f(x - e_i + e_j)
                                 + f(x - e_i - e_j)) / (4 * h * h)
    return H


def test_mml_agrees_with_direct_scipy_fit_and_full_se():
    Y, _, _ = simulate(6, 80, seed=5)
    fit = irt.fit_1pl(Y, method="mml", item_prior_sd=3.0)
    x, nll = _direct_mml(Y, 1 / 9)
    np.testing.assert_allclose(fit.difficulty, x[:-1], atol=2e-4)
    assert abs(np.log(fit.ability_sd) - x[-1]) < 2e-4
    # full SEs (complete matrix) = sqrt diag of the inverse numerical Hessian of the direct objective
    p = np.concatenate([fit.difficulty, [np.log(fit.ability_sd)]])
    se = np.sqrt(np.diag(np.linalg.inv(_num_hessian(nll, p))))[:-1]
    np.testing.assert_allclose(fit.difficulty_se, se, rtol=2e-3)


def test_mml_missing_cells_agrees_with_direct_scipy_fit():
    Y, _, _ = simulate(6, 80, seed=6, missing=0.25)
    fit = irt.fit_1pl(Y, method="mml")
    assert not fit.collapsed
    x, _ = _direct_mml(Y, 1 / 9)
    np.testing.assert_allclose(fit.difficulty, x[:-1], atol=2e-4)


def _direct_jml(Y, prec_t, prec_b):
    M = ~np.isnan(Y)
    Y0 = np.nan_to_num(Y)
    n, m = Y.shape

    def f(p):
        b, t = p[:n], p[n:]
        eta = t[None, :] - b[:, None]
        ll = np.sum(M * (Y0 * eta - np.logaddexp(0, eta)))
        return -(ll - 0.5 * prec_t * t @ t - 0.5 * prec_b * b @ b)

    def g(p):
        b, t = p[:n], p[n:]
        R = M * (Y0 - special.expit(t[None, :] - b[:, None]))
        return -np.concatenate([-R.sum(1) - prec_b * b, R.sum(0) - prec_t * t])

    res = optimize.minimize(f, np.zeros(n + m), jac=g, method="L-BFGS-B",
                            options={"gtol": 1e-11, "ftol": 1e-15, "maxiter": 20000})
    return res.x[:n], res.x[n:]


@pytest.mark.parametrize("missing", [0.0, 0.2])
def test_jml_agrees_with_direct_scipy_fit(missing):
    Y, _, _ = simulate(15, 25, seed=8, missing=missing)
    fit = irt.fit_1pl(Y, method="jml", item_prior_sd=3.0, ability_prior_sd=3.0)
    b, t = _direct_jml(Y, 1 / 9, 1 / 9)
    shift = t.mean()  # benchkit reports the mean ability at 0
    np.testing.assert_allclose(fit.difficulty, b - shift, atol=1e-5)
    np.testing.assert_allclose(fit.ability, t - shift, atol=1e-5)
    # JML SEs: 1/sqrt(sum_j P(1-P) + prec) at the estimate
    P = special.expit(t[None] - b[:, None]) * ~np.isnan(Y)
    np.testing.assert_allclose(fit.difficulty_se, 1 / np.sqrt((P * (1 - P)).sum(1) + 1 / 9), rtol=1e-4)


@pytest.mark.parametrize("method", ["mml", "jml"])
def test_collapse_is_exact(sim, method):
    Y, _, _ = sim
    a = irt.fit_1pl(Y, method=method, collapse=True, tol=1e-10)
    b = irt.fit_1pl(Y, method=method, collapse=False, tol=1e-10)
    assert a.collapsed
    assert not b.collapsed
    np.testing.assert_allclose(a.difficulty, b.difficulty, atol=2e-6)
    np.testing.assert_allclose(a.ability, b.ability, atol=2e-6)


def test_extreme_items_and_no_prior():
    Y, _, _ = simulate(30, 40, seed=9)
    Y[0] = 1.0
    Y[1] = 0.0
    Y[2] = np.nan
    for method in ("mml", "jml"):
        fit = irt.fit_1pl(Y, method=method, item_prior_sd=None)
        assert fit.difficulty[0] == -np.inf
        assert fit.difficulty[1] == np.inf
        assert np.isnan(fit.difficulty[2])
        assert np.all(np.isfinite(fit.difficulty[3:]))
        pen = irt.fit_1pl(Y, method=method)
        assert np.isfinite(pen.difficulty[:2]).all()
        assert pen.difficulty[0] < pen.difficulty[1]


def test_2pl_recovers_and_agrees_with_girth():
    girth = pytest.importorskip("girth")
    Y, b = _sim_2pl(4, 40, 500)
    fit = irt.fit_2pl(Y)
    assert fit.converged
    ref = girth.twopl_mml(Y.astype(int))
    assert np.corrcoef(fit.difficulty, ref["Difficulty"])[0, 1] > 0.99
    assert np.corrcoef(fit.discrimination, ref["Discrimination"])[0, 1] > 0.95
    assert np.corrcoef(fit.difficulty, b)[0, 1] > 0.97


def test_fit_statistics_by_hand(sim):
    Y, _, _ = sim
    fit = irt.fit_1pl(Y, method="jml")
    st = irt.fit_statistics(Y, fit)
    P = special.expit(fit.ability[None] - fit.difficulty[:, None])
    for i in (0, 7):  # explicit loops: Wright & Masters' mean squares
        z2 = [(Y[i, j] - P[i, j]) ** 2 / (P[i, j] * (1 - P[i, j])) for j in range(Y.shape[1])]
        assert st.items["outfit"].iloc[i] == pytest.approx(np.mean(z2), rel=1e-12)
        num = sum((Y[i, j] - P[i, j]) ** 2 for j in range(Y.shape[1]))
        den = sum(P[i, j] * (1 - P[i, j]) for j in range(Y.shape[1]))
        assert st.items["infit"].iloc[i] == pytest.approx(num / den, rel=1e-12)
    # a reversed (miskeyed) item misfits
    Yb = Y.copy()
    Yb[5] = 1 - Yb[5]
    Yb[5, :50] = Y[5, :50]
    st2 = irt.fit_statistics(Yb, irt.fit_1pl(Yb, method="jml"))
    assert st2.items["outfit"].iloc[5] > 1.3
    assert 0.8 < st.items["infit"].median() < 1.2


def _brute_inversions(rows, key):
    """(inversions, pairs) of each row: ordered pairs of observed cells j, k with key[j] > key[k];
    an inversion fails j (the higher key) and passes k. Plain loops (the oracle)."""
    out = []
    for row in rows:
        inv = pairs = 0
        for j in range(row.size):
            for k in range(row.size):
                if key[j] > key[k] and not np.isnan(row[j]) and not np.isnan(row[k]):
                    pairs += 1
                    inv += row[j] == 0 and row[k] == 1
        out.append((inv, pairs))
    return out


def test_response_diagnostics_brute_force():
    Y, _, _ = simulate(12, 9, seed=12, missing=0.2)
    Y[:, 3] = Y[:, 4]  # ties in accuracy
    d = irt.response_diagnostics(Y)
    acc = np.nanmean(Y, 0)
    pval = np.nanmean(Y, 1)
    # items: pairs of models ordered by accuracy; models: pairs of items ordered by p-value
    for table, rows, key in ((d.items, Y, acc), (d.models, Y.T, pval)):
        expected = _brute_inversions(rows, key)
        assert list(zip(table["inversions"], table["pairs"])) == expected
    np.testing.assert_allclose(d.items["information"], pval * (1 - pval))
    assert d.inversion_rate == pytest.approx(d.items["inversions"].sum() / d.items["pairs"].sum())


def test_calibrate_items_reproduces_fixed_parameter_estimates(sim):
    Y, _, _ = sim
    jml = irt.fit_1pl(Y, method="jml")
    # JML with fixed abilities and no prior: the estimate solves sum_j P(theta_j - b) = s (brentq)
    cal = irt.calibrate_items(Y[:4], jml, item_prior_sd=None)
    for i in range(4):
        root = optimize.brentq(lambda b: special.expit(jml.ability - b).sum() - Y[i].sum(), -10, 10,
                               xtol=1e-13)
        assert cal.difficulty[i] == pytest.approx(root, abs=1e-8)
    # and it is close to the item's joint estimate (which carries the fit's small prior)
    np.testing.assert_allclose(cal.difficulty, jml.difficulty[:4], atol=0.06)
    # MML: the OEM objective maximized directly by scipy
    mml = irt.fit_1pl(Y, method="mml")
    rng = np.random.default_rng(1)
    y = (rng.random(Y.shape[1]) < 0.4).astype(float)
    y[:5] = np.nan
    cal = irt.calibrate_items(y, mml, item_prior_sd=None)
    m = ~np.isnan(y)

    def nll(b):
        P = special.expit(mml.nodes - b)
        return -np.sum(mml.posterior[m] * (y[m, None] * np.log(P) + (1 - y[m, None]) * np.log1p(-P)))

    ref = optimize.minimize_scalar(nll, bounds=(-8, 8), method="bounded", options={"xatol": 1e-10})
    assert cal.difficulty[0] == pytest.approx(ref.x, abs=1e-6)
    z_new = measure.steps.normalize_difficulty(cal.difficulty, reference=mml.difficulty, clip=True)
    assert 0 <= z_new[0] <= 1
    with pytest.raises(BenchkitValueError, match="Y_new has 3 columns but the fit has 100 models"):
        irt.calibrate_items(np.zeros((1, 3)), mml)


def test_leave_one_model_out():
    Y, _, _ = simulate(40, 12, seed=13)
    loo = measure.steps.leave_one_model_out(Y, method="jml")
    ref = irt.fit_1pl(np.delete(Y, 4, axis=1), method="jml").difficulty
    np.testing.assert_allclose(loo.difficulties[4], ref)
    # the refits run through benchkit._parallel: the same result with two workers (threading
    # backend: no process start-up in a unit test)
    with parallel_config(backend="threading"):
        two = measure.steps.leave_one_model_out(Y, method="jml", n_jobs=2)
    np.testing.assert_array_equal(two.difficulties, loo.difficulties)
    assert loo.models.shape[0] == 12
    assert (loo.models["pearson"] > 0.9).all()
    assert set(loo.models.columns) >= {"DDM", "Max Gap", "Top-5 Sum", "max_abs_dz"}
    assert loo.items["sd_z"].notna().any()


def test_input_errors():
    with pytest.raises(BenchkitValueError, match=r"0/1 responses.*found 0.5 at item 0, model 1"):
        irt.fit_1pl(np.array([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(BenchkitValueError, match="at least 1 item and 2 models"):
        irt.fit_1pl(np.ones((3, 1)))
    with pytest.raises(BenchkitValueError, match="method='cml' is not allowed"):
        irt.fit_1pl(np.eye(3), method="cml")
    with pytest.raises(BenchkitValueError, match="item_prior_sd=0.0 is out of range"):
        irt.fit_1pl(np.eye(3), item_prior_sd=0.0)
    with pytest.raises(BenchkitValueError, match="no item has both correct and wrong"):
        irt.fit_1pl(np.ones((3, 4)), item_prior_sd=None)


def test_dataframe_labels_and_frames(sim):
    Y, _, _ = sim
    df = pd.DataFrame(Y, index=[f"i{k}" for k in range(Y.shape[0])],
                      columns=[f"m{k}" for k in range(Y.shape[1])])
    fit = irt.fit_1pl(df, method="jml")
    assert fit.to_frame().index[0] == "i0"
    assert fit.models_frame().index[-1] == "m99"
    assert list(fit.to_frame().columns) == ["difficulty", "difficulty_se", "discrimination",
                                            "discrimination_se"]


def test_scan_kernel_matches_numpy_twin():
    import naive
    from benchkit._kernels.irt import scan_binary

    rng = np.random.default_rng(21)
    Y = (rng.random((37, 23)) < 0.4).astype(float)
    Y[rng.random(Y.shape) < 0.2] = np.nan
    rs, ro, cs, co, n_bad = scan_binary(Y)
    # numpy twin (tests/naive.py): nansum / count of non-NaN along each axis
    for got, want in zip(scan_binary(Y), naive.scan_binary(Y)):
        np.testing.assert_array_equal(got, want)
    assert n_bad == 0
    Y[4, 7], Y[9, 2] = 2.0, -1.0
    assert scan_binary(Y)[-1] == 2
    with pytest.raises(BenchkitValueError, match="found 2.0 at item 4, model 7"):
        irt.fit_1pl(Y)
    # Fortran-ordered input (DataFrame.to_numpy) is scanned through its transpose
    Y[4, 7], Y[9, 2] = 1.0, 0.0
    F = np.asfortranarray(Y)
    a = irt.fit_1pl(F, method="jml")
    b = irt.fit_1pl(np.ascontiguousarray(Y), method="jml")
    np.testing.assert_array_equal(a.difficulty, b.difficulty)


def _quad_marginal_loglik(Y, b, sigma, a=1.0, half_width=1.5):
    """Independent oracle: sum_j log int prod_i P^y (1-P)^(1-y) N(theta; 0, sigma^2) dtheta with
    P = expit(a_i (theta - b_i)), by scipy.integrate.quad (adaptive Gauss-Kronrod) on
    mode +- half_width around each model's own mode (scipy optimizer)."""
    from scipy import integrate
    from scipy import stats

    total = 0.0
    for y in Y.T:
        def g(th, y=y):
            eta = a * (th - b)
            return float(np.sum(y * eta - np.logaddexp(0, eta)) + stats.norm.logpdf(th, 0, sigma))

        mode = optimize.minimize_scalar(lambda th: -g(th), bounds=(-8, 8), method="bounded",
                                        options={"xatol": 1e-10}).x
        gm = g(mode)
        val, _ = integrate.quad(lambda th: np.exp(g(th) - gm), mode - half_width, mode + half_width,
                                points=[mode], epsabs=0, epsrel=1e-11, limit=200)
        total += gm + np.log(val)
    return total


def test_mml_many_items_per_model_matches_quad_oracle():
    # 2,500 items per model: posteriors of SD ~0.05, far below any fixed Gauss-Hermite spacing
    Y, b, t = simulate(2500, 16, seed=31)
    fit = irt.fit_1pl(Y, method="mml", item_prior_sd=None)
    assert fit.converged
    fin = np.isfinite(fit.difficulty)  # items all-correct / all-wrong: +-inf, likelihood 1
    Yf, bf = Y[fin], fit.difficulty[fin]
    ll = _quad_marginal_loglik(Yf, bf, fit.ability_sd)
    assert fit.loglik == pytest.approx(ll, rel=1e-10, abs=1e-7)
    # sigma is the MLE of the exact (quad) marginal likelihood: its score vanishes there
    h = 1e-4
    d = (_quad_marginal_loglik(Yf, bf, fit.ability_sd * np.exp(h))
         - _quad_marginal_loglik(Yf, bf, fit.ability_sd * np.exp(-h))) / (2 * h)
    assert abs(d) < 1e-3


def test_mml_recovers_ability_sd_at_14000_item_scale():
    # the shape of the benchmark (many items per model), at a size that runs in a second:
    # fixed 41-node Gauss-Hermite gave an ability SD of 0.41 here instead of ~1
    Y, b, t = simulate(6000, 200, seed=32, b_sd=1.5)
    fit = irt.fit_1pl(Y, method="mml")
    assert fit.converged
    assert fit.collapsed
    assert abs(fit.ability_sd - t.std()) < 0.02
    shift = np.mean(t)  # MML's location: mean ability 0 under the N(0, sigma^2) prior
    rmse = np.sqrt(np.mean((fit.difficulty - (b - shift)) ** 2))
    # sampling SE of b with 200 models is ~0.17-0.25 (measured RMSE 0.19 at this seed)
    assert rmse < 0.23
    # the abilities' posteriors are resolved: EAPs track the truth to ~their posterior SD
    assert np.sqrt(np.mean((fit.ability - (t - shift)) ** 2)) < 3 * np.mean(fit.ability_se)


def test_mml_quadrature_converged():
    # the estimates do not depend on the grid density (trapezoid error ~exp(-2 pi^2 d^2))
    Y, _, _ = simulate(400, 60, seed=33)
    a = irt.fit_1pl(Y, method="mml", nodes_per_sd=1.0, tol=1e-10)
    c = irt.fit_1pl(Y, method="mml", nodes_per_sd=4.0, tol=1e-10)
    np.testing.assert_allclose(a.difficulty, c.difficulty, atol=1e-7)
    assert a.ability_sd == pytest.approx(c.ability_sd, abs=1e-7)
    assert a.loglik == pytest.approx(c.loglik, rel=1e-10)


def test_general_path_windows_agree_with_collapse():
    # several 48-model blocks with their own windows (general path) vs the exact collapse
    Y, _, _ = simulate(1500, 150, seed=34)
    a = irt.fit_1pl(Y, method="mml", collapse=True, tol=1e-10)
    c = irt.fit_1pl(Y, method="mml", collapse=False, tol=1e-9)
    assert not c.collapsed
    np.testing.assert_allclose(c.difficulty, a.difficulty, atol=2e-6)
    assert c.ability_sd == pytest.approx(a.ability_sd, abs=2e-6)
    assert c.loglik == pytest.approx(a.loglik, rel=1e-10)
    np.testing.assert_allclose(c.ability, a.ability, atol=2e-6)


def test_mml_missing_many_items_vs_girth():
    girth = pytest.importorskip("girth")
    Y, b, _ = simulate(800, 80, seed=35, missing=0.1)
    fit = irt.fit_1pl(Y, method="mml")
    assert fit.converged
    assert not fit.collapsed
    ref = girth.rasch_mml(np.where(np.isnan(Y), -99999, Y).astype(int))["Difficulty"]
    assert np.corrcoef(fit.difficulty, ref)[0, 1] >= 0.99
    assert np.corrcoef(fit.difficulty, b)[0, 1] >= 0.95


def test_2pl_many_items_matches_quad_oracle():
    Y, _ = _sim_2pl(36, 600, 16)
    fit = irt.fit_2pl(Y)
    assert fit.converged

    def quad_ll(a_, b_):  # theta ~ N(0, 1)
        return _quad_marginal_loglik(Y, b_, 1.0, a=a_, half_width=2.0)

    a_hat, b_hat = fit.discrimination, fit.difficulty
    assert fit.loglik == pytest.approx(quad_ll(a_hat, b_hat), rel=1e-10)
    # the penalized quad likelihood is stationary along "scale every a" (log a prior N(0, 1))
    la, h = np.log(a_hat), 1e-4
    up = quad_ll(np.exp(la + h), b_hat) - 0.5 * (la + h) @ (la + h)
    dn = quad_ll(np.exp(la - h), b_hat) - 0.5 * (la - h) @ (la - h)
    assert abs((up - dn) / (2 * h)) < 1e-2


def test_irt_layer_imports_no_method_package():
    # the shared IRT layer sits below the methods (DESIGN, layer 2): importing it, in a fresh
    # interpreter, loads no method package (leave_one_model_out lives in benchkit.measure)
    code = ("import sys, benchkit.irt\n"
            "print(sorted({m.split('.')[1] for m in sys.modules if m.startswith('benchkit.')}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    loaded = set(ast.literal_eval(out.stdout))
    assert loaded.isdisjoint({"measure", "boundary", "landscape", "dif", "quality", "charts", "widgets"})
    assert "irt" in loaded
    assert not hasattr(irt, "leave_one_model_out")
