"""The Bayesian 1PL (paper 002, Figure 2 step 3) and its post-fit checks.

Needs the optional extra ``benchkit[bayes]`` (PyMC, nutpie, ArviZ); without it the sampling tests
skip and the error test checks the install hint. The extra is kept out of ``dev`` (see
pyproject.toml): its first call compiles the model with numba (~30-40 s cold on 2 cores).
"""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from benchkit import irt
from benchkit._validation import BenchkitValueError
from benchkit.simulate import binary_matrix

pytestmark = pytest.mark.slow  # PyMC/nutpie compile the model (~25 s)

HAVE_BAYES = all(importlib.util.find_spec(m) is not None for m in ("pymc", "nutpie", "arviz"))
needs_bayes = pytest.mark.skipif(
    not HAVE_BAYES, reason="optional extra benchkit[bayes] (pymc, nutpie, arviz) not installed"
)


@pytest.fixture(scope="module")
def fitted():
    Y = binary_matrix(30, 40, rng=3, dtype=np.float64, discrimination_sd=0.0).matrix.copy()
    Y[0, :] = 1.0  # an all-correct item: finite under the prior, as in fit_1pl
    Y[2, 5] = np.nan  # a missing cell
    return Y, irt.fit_1pl_bayes(Y, draws=1000, tune=500, chains=4, rng=11, progress=False)


@needs_bayes
def test_bayes_converges_and_agrees_with_posterior_mode(fitted):
    Y, fit = fitted
    # the criteria: R-hat < 1.01 on a simulated 1PL, difficulties correlate > 0.99
    # with the posterior-mode fit (fit_1pl, MML with the same item prior SD)
    assert fit.r_hat_max < 1.01
    assert fit.mode_correlation() > 0.99
    assert fit.n_divergent == 0
    assert fit.ess_bulk_min > 400
    ok = fit.diagnostics.set_index("check")["ok"]
    assert list(ok.index) == ["r_hat_max", "ess_bulk_min", "divergent_transitions",
                              "pareto_k_max"]
    assert bool(ok["r_hat_max"])
    assert bool(ok["divergent_transitions"])
    # the all-correct item stays finite and is the easiest
    assert np.isfinite(fit.difficulty).all()
    assert np.argmin(fit.difficulty) == 0
    frame = fit.to_frame()
    assert list(frame.columns) == ["difficulty", "difficulty_sd", "r_hat", "ess_bulk",
                                   "difficulty_mode", "difficulty_mode_se"]
    np.testing.assert_allclose(frame["difficulty_mode"], irt.fit_1pl(Y).difficulty)
    # posterior SDs are of the order of the posterior-mode SEs (Laplace approximation)
    ratio = fit.difficulty_sd / fit.posterior_mode.difficulty_se
    assert 0.7 < np.median(ratio) < 1.5


@needs_bayes
def test_bayes_loo_matches_arviz_on_the_stored_loglik(fitted):
    import arviz as az

    Y, fit = fitted
    ll = fit.inference_data.log_likelihood["y"].to_numpy()
    # oracle: the pointwise Bernoulli log likelihood recomputed from the draws
    post = fit.inference_data.posterior
    ii, jj = np.nonzero(~np.isnan(Y))
    eta = post["theta"].to_numpy()[..., jj] - post["b"].to_numpy()[..., ii]
    p = 1.0 / (1.0 + np.exp(-eta))
    y = Y[ii, jj]
    np.testing.assert_allclose(ll, np.log(np.where(y == 1, p, 1 - p)), rtol=1e-9, atol=1e-12)
    assert ll.shape[-1] == int((~np.isnan(Y)).sum())
    res = az.loo(fit.inference_data)
    assert np.isclose(res.elpd_loo, fit.elpd_loo)
    # LOO is at most the in-sample log predictive density
    lpd = float(np.sum(np.log(np.mean(np.exp(ll.reshape(-1, ll.shape[-1])), axis=0))))
    assert fit.elpd_loo < lpd


@needs_bayes
def test_bayes_reproducible_with_rng():
    Y = binary_matrix(12, 15, rng=5, dtype=np.float64, discrimination_sd=0.0).matrix
    a = irt.fit_1pl_bayes(Y, draws=50, tune=50, chains=2, rng=3, progress=False, loo=False)
    b = irt.fit_1pl_bayes(Y, draws=50, tune=50, chains=2, rng=3, progress=False, loo=False)
    np.testing.assert_array_equal(a.difficulty, b.difficulty)
    # rule 5: the root's entropy is recorded, and the int rng seeds the sampler as before the
    # change (SeedSequence(3).generate_state(1)[0], the seed of commit d7d702c)
    assert a.rng_entropy == 3
    assert a.options["seed"] == 1576890651
    g = irt.fit_1pl_bayes(Y, draws=50, tune=50, chains=2, rng=np.random.default_rng(8),
                          progress=False, loo=False)
    assert isinstance(g.rng_entropy, int)
    again = irt.fit_1pl_bayes(Y, draws=50, tune=50, chains=2, rng=g.rng_entropy, progress=False,
                              loo=False)
    np.testing.assert_array_equal(again.difficulty, g.difficulty)
    assert np.isnan(a.elpd_loo)
    assert a.pareto_k_bad == -1
    assert "pareto_k_max" not in set(a.diagnostics["check"])


@pytest.mark.parametrize(("kw", "msg"), [
    (dict(prior_sd=0.0), "prior_sd"),
    (dict(draws=5), "draws"),
    (dict(chains=1), "chains"),
    (dict(target_accept=1.0), "target_accept"),
    (dict(loo="yes"), "loo"),
])
def test_bayes_errors(kw, msg):
    Y = binary_matrix(5, 6, rng=1, dtype=np.float64).matrix
    with pytest.raises(BenchkitValueError, match=msg):
        irt.fit_1pl_bayes(Y, **kw)


def test_bayes_missing_extra_names_it(monkeypatch):
    import builtins

    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name in ("pymc", "nutpie", "arviz"):
            raise ImportError(f"No module named {name!r}")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    Y = binary_matrix(5, 6, rng=1, dtype=np.float64).matrix
    with pytest.raises(ImportError, match=r"benchkit\[bayes\]"):
        irt.fit_1pl_bayes(Y, progress=False)
