"""ResponseSet-level empirical-measure pipeline (paper 002): the binomial 1PL fit, fit_difficulties,
measure_benchmarks and combine. Moved out of tests/test_widget_ecdf.py so they run without the
Jupyter extra. Oracles: benchkit.irt.fit_1pl (itself checked against girth), a direct scipy
optimization of the binomial objective, benchkit.measure called directly, hand-worked cases."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from scipy import special

from benchkit import ResponseSet
from benchkit import measure
from benchkit.irt import fit_1pl
from benchkit.irt import fit_1pl_counts
from benchkit.measure import BenchmarkMeasures
from benchkit.measure import fit_difficulties
from benchkit.measure import measure_benchmarks
from benchkit.measure.steps import combine


# ------------------------------------------------------------------------------------ data
def _simulate(n_items, n_models, T, seed, missing=0.0):
    rng = np.random.default_rng(seed)
    b = rng.normal(0, 1.5, n_items)
    t = rng.normal(0, 1, n_models)
    P = special.expit(t[None, :] - b[:, None])
    N = np.full((n_items, n_models), T)
    if missing:
        N[rng.random(N.shape) < missing] = 0
    K = rng.binomial(N, P)
    return K, N


def _wide(K, T, *, prefix, texts=True, sources=None):
    items = [f"{prefix}/{i}" for i in range(K.shape[0])]
    frame = pd.DataFrame(K, index=items, columns=[f"model-{j}" for j in range(K.shape[1])])
    meta = pd.DataFrame({"item": items})
    if texts:
        meta["text"] = [f"question {i} of {prefix}" for i in range(K.shape[0])]
    if sources is not None:
        meta["source"] = sources
    return ResponseSet.from_wide(frame, T=T, items=meta, name=prefix)


def two_benchmarks() -> BenchmarkMeasures:
    """measure_benchmarks on two simulated sets: 'alpha' binary with texts, 'beta' with T = 5."""
    K1, _ = _simulate(40, 12, 1, seed=1)
    K2, _ = _simulate(30, 9, 5, seed=2)
    return measure_benchmarks({"alpha": _wide(K1, 1, prefix="alpha"),
                               "beta": _wide(K2, 5, prefix="beta", texts=False)})


result = pytest.fixture(two_benchmarks, scope="module", name="result")


# ---------------------------------------------------------------------- binomial 1PL fit
def test_fit_1pl_counts_equals_fit_1pl_jml_for_one_sample():
    # Oracle: benchkit.irt.fit_1pl(method="jml") (cross-checked against girth in test_irt.py);
    # with N = 1 the binomial objective is the Bernoulli one, so the optima coincide.
    K, N = _simulate(50, 15, 1, seed=3, missing=0.1)
    Y = np.where(N == 1, K, np.nan).astype(float)
    ours = fit_1pl_counts(K, N)
    ref = fit_1pl(Y, method="jml")
    np.testing.assert_allclose(ours.difficulty, ref.difficulty, atol=1e-7)
    np.testing.assert_allclose(ours.ability, ref.ability, atol=1e-7)
    np.testing.assert_allclose(ours.difficulty_se, ref.difficulty_se, rtol=1e-6)
    assert ours.converged
    assert ours.options["likelihood"] == "binomial"


def test_fit_1pl_counts_matches_direct_scipy_optimum_with_samples_and_missing_cells():
    # Oracle: L-BFGS-B on the penalized binomial log likelihood with its analytic gradient
    # (sum K*eta - N*log(1+e^eta) - |t|^2/18 - |b|^2/18), then the mean-ability-0 shift.
    K, N = _simulate(35, 10, 8, seed=4, missing=0.15)
    N[2] = 3
    K[2] = np.minimum(K[2], 3)
    ni, nm = K.shape

    def neg(p):
        t, b = p[:nm], p[nm:]
        eta = t[None, :] - b[:, None]
        R = K - N * special.expit(eta)
        f = np.sum(K * eta - N * np.logaddexp(0, eta)) - t @ t / 18 - b @ b / 18
        return -f, -np.concatenate([R.sum(0) - t / 9, -R.sum(1) - b / 9])

    opt = optimize.minimize(neg, np.zeros(nm + ni), jac=True, method="L-BFGS-B",
                            options=dict(gtol=1e-12, ftol=1e-15, maxiter=10_000))
    t, b = opt.x[:nm], opt.x[nm:]
    fit = fit_1pl_counts(K, N)
    np.testing.assert_allclose(fit.difficulty, b - t.mean(), atol=1e-5)
    np.testing.assert_allclose(fit.ability, t - t.mean(), atol=1e-5)


def test_fit_1pl_counts_without_priors_gives_infinite_extremes_and_nan_for_empty_items():
    K, N = _simulate(20, 8, 4, seed=5)
    K[0] = N[0]  # all correct
    K[1] = 0  # all wrong
    N[2] = 0
    K[2] = 0  # never observed
    fit = fit_1pl_counts(K, N, item_prior_sd=None)
    assert fit.difficulty[0] == -np.inf
    assert fit.difficulty[1] == np.inf
    assert np.isnan(fit.difficulty[2])
    assert np.all(np.isfinite(fit.difficulty[3:]))


@pytest.mark.parametrize(("K", "N", "match"), [
    (np.array([[3.0]]), np.array([[2.0]]), r"0 <= K <= N; found K=3.0, N=2.0 at item 0, model 0"),
    (np.array([[0.5]]), np.array([[1.0]]), "whole numbers"),
])
def test_fit_1pl_counts_rejects_bad_counts(K, N, match):
    with pytest.raises(ValueError, match=match):
        fit_1pl_counts(K, N)


def test_fit_difficulties_dispatch_and_mml_needs_one_sample():
    K, _ = _simulate(25, 8, 1, seed=6)
    rs = _wide(K, 1, prefix="x")
    a = fit_difficulties(rs, method="mml")
    b = fit_1pl(rs.binary(), method="mml")
    np.testing.assert_allclose(a.difficulty, b.difficulty, atol=1e-10)
    K5, _ = _simulate(25, 8, 5, seed=6)
    with pytest.raises(ValueError, match=r"method='mml' needs one sample per cell; .* use method='jml'"):
        fit_difficulties(_wide(K5, 5, prefix="y"), method="mml")


# ------------------------------------------------------------------ measure_benchmarks
def test_measure_benchmarks_table_matches_measure_directly(result):
    df = result.to_frame()
    assert df["Benchmark"].tolist() == ["alpha", "beta"]
    for bm in result:
        # oracle: benchkit.measure on the min-max normalized difficulties of the same fit
        z = measure.steps.normalize_difficulty(bm.fit.difficulty)
        row = df[df["Benchmark"] == bm.name].iloc[0]
        assert row["DDM"] == pytest.approx(measure.steps.ddm(z), abs=1e-12)
        assert row["Max Gap"] == pytest.approx(measure.steps.max_gap(z).width, abs=1e-12)
        assert row["Top-5 Sum"] == pytest.approx(measure.steps.top_gaps(z, k=5).total, abs=1e-12)
        assert row["#"] == z.size
    assert df["models"].tolist() == [12, 9]
    # the binary set uses fit_1pl, the T=5 set the binomial fit
    assert result["alpha"].fit.options.get("likelihood") is None
    assert result["beta"].fit.options["likelihood"] == "binomial"
    assert result["alpha"].to_frame()["text"].iloc[3] == "question 3 of alpha"
    assert result["beta"].text is None


def test_measure_benchmarks_by_source_texts_and_extreme_drop():
    K, _ = _simulate(60, 10, 1, seed=7)
    K[0] = 1  # every model correct
    src = ["s1"] * 30 + ["s2"] * 29 + ["s3"]
    rs = _wide(K, 1, prefix="p", texts=False, sources=src)
    res = measure_benchmarks(rs, by="source", texts={"p/5": "five"}, min_items=2)
    assert res.names == ["p/s1", "p/s2"]  # s3 has 1 item < min_items
    sub = fit_1pl(rs.binary()[30:59], method="jml")  # each part is fitted on its own
    np.testing.assert_allclose(res["p/s2"].difficulty, sub.difficulty, atol=1e-12)
    assert res["p/s1"].to_frame().loc["p/5", "text"] == "five"
    dropped = measure_benchmarks(rs, by="source", extreme="drop")
    rows = K[:30].sum(1)
    expected = [f"p/{i}" for i in np.flatnonzero((rows == 0) | (rows == 10))]
    assert "p/0" in expected
    assert sorted(dropped["p/s1"].dropped) == sorted(expected)
    assert dropped["p/s1"].n_items == 30 - len(expected)


@pytest.mark.parametrize(("call", "match"), [
    (lambda rs: measure_benchmarks([1, 2]), "data must be a ResponseSet or a non-empty mapping"),
    (lambda rs: measure_benchmarks(rs, by="nope"), r"by='nope' is not an items column"),
    (lambda rs: measure_benchmarks(rs, method="bayes"), "method"),
    (lambda rs: measure_benchmarks(rs, extreme="clip"), "extreme"),
    (lambda rs: measure_benchmarks(rs, by="source", min_items=13), "no benchmark has at least"),
    # "e" split by source is named "e/s", which collides with the second entry
    (lambda rs: measure_benchmarks({"e": rs, "e/s": np.arange(3.0)}, by="source"),
     r"benchmark names must be unique; repeated: \['e/s'\]"),
])
def test_measure_benchmarks_errors(call, match):
    K, _ = _simulate(12, 5, 1, seed=8)
    rs = _wide(K, 1, prefix="e", sources=["s"] * 12)
    with pytest.raises((ValueError, TypeError), match=match):
        call(rs)


def test_combine_concatenates_and_recomputes_table(result):
    other = measure_benchmarks({"toy": np.array([0.0, 1.0, 3.0, 10.0])})
    both = combine(result, other)
    assert both.names == ["alpha", "beta", "toy"]
    pd.testing.assert_frame_equal(both.to_frame().iloc[:2], result.to_frame())
    with pytest.raises(ValueError, match=r"repeated: \['toy'\]"):
        combine(both, other)
    with pytest.raises(ValueError, match="differ in k/target"):
        combine(result, measure_benchmarks({"t": np.arange(4.0)}, k=3))
    with pytest.raises(TypeError, match="one or more BenchmarkMeasures"):
        combine()


def test_measure_benchmarks_accepts_difficulty_arrays():
    b = np.array([0.0, 1.0, 3.0, 10.0])
    res = measure_benchmarks({"toy": b})
    np.testing.assert_allclose(res["toy"].z, [0.0, 0.1, 0.3, 1.0])
    # hand-worked: sorted z vs (i-0.5)/4 = .125,.375,.625,.875 -> mean |.| = (.125+.275+.325+.125)/4
    assert res["toy"].ddm == pytest.approx(0.2125, abs=1e-12)
    assert res["toy"].max_gap == pytest.approx(0.7, abs=1e-12)
