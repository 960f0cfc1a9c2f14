"""The paper's Bayesian 1PL (Figure 2, step 3) by NUTS with its post-fit checks (optional extra)."""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd

from benchkit._random import seed_sequence
from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit.irt._common import IRTFit
from benchkit.irt._common import _labels
from benchkit.irt._common import _matrix_stats

_EXTRA_HINT = (
    "the Bayesian 1PL needs the optional extra 'bayes' (PyMC, nutpie and ArviZ): "
    "pip install 'benchkit[bayes]'"
)


def _import_bayes():
    try:
        import arviz as az
        import nutpie
        import pymc as pm
    except ImportError as exc:
        raise ImportError(f"{_EXTRA_HINT} ({exc})") from exc
    return pm, nutpie, az


@result
class BayesFit:
    r"""Posterior summary of the Bayesian 1PL, with the paper's post-fit checks.

    Returned by :func:`fit_1pl_bayes`. Read :attr:`converged` (every check in ``diagnostics``
    passes) before the estimates; ``to_frame()`` puts posterior and posterior-mode difficulties
    side by side.

    Parameters
    ----------
    difficulty, difficulty_sd, ability, ability_posterior_sd, sigma
        The posterior summaries, as the attributes below.
    r_hat_max, ess_bulk_min, n_divergent, elpd_loo, p_loo, pareto_k_max, pareto_k_bad
        The post-fit checks, as the attributes below.
    diagnostics, summary, posterior_mode, inference_data, items, models, options, rng_entropy
        Tables, draws, labels and options, as the attributes below. All fields are filled by
        :func:`fit_1pl_bayes`.

    Attributes
    ----------
    difficulty : ndarray (n_items,)
        Posterior means of :math:`b_i` in logits (NaN for items without any observed response).
    difficulty_sd : ndarray (n_items,)
        Posterior SDs of :math:`b_i`.
    ability : ndarray (n_models,)
        Posterior means of :math:`\theta_j`.
    ability_posterior_sd : ndarray (n_models,)
        Posterior SDs of :math:`\theta_j`.
    sigma : float
        Posterior mean of the ability SD :math:`\sigma`.
    r_hat_max : float
        Largest rank-normalized split R-hat over all difficulties, abilities, :math:`\sigma` and
        :math:`\mu_b` (``arviz.summary``); below 1.01 the chains agree.
    ess_bulk_min : float
        Smallest bulk effective sample size over the same parameters; at least 100 per chain is
        the check.
    n_divergent : int
        Divergent transitions after tuning (``sample_stats.diverging``); any divergence means the
        sampler missed part of the posterior.
    elpd_loo : float
        PSIS leave-one-out (``arviz.loo``) expected log predictive density over the observed
        cells (NaN when ``loo=False``).
    p_loo : float
        The LOO effective number of parameters (NaN when ``loo=False``).
    pareto_k_max : float
        Largest Pareto k of the PSIS-LOO cells; above 0.7 the LOO estimate is unreliable (NaN when
        ``loo=False``).
    pareto_k_bad : int
        Number of cells with k > 0.7 (-1 when ``loo=False``).
    diagnostics : DataFrame
        One row per check: ``check, value, threshold, ok``.
    summary : DataFrame
        ``arviz.summary`` of every parameter.
    posterior_mode : IRTFit
        :func:`benchkit.irt.fit_1pl` (posterior mode / MML) on the same matrix and prior SD.
    inference_data : arviz.InferenceData
        The draws (posterior, sample_stats, log_likelihood when ``loo=True``).
    items : Index
        Item labels.
    models : Index
        Model labels.
    options : dict
        The call's options, with ``seed``, the integer the sampler was seeded with.
    rng_entropy : int
        Entropy of the root seed of the call: ``rng=rng_entropy`` gives the same sampler seed, so
        the same draws.

    Examples
    --------
    Not run as a doctest: the first call compiles the model with numba (~40 s on 2 cores), beyond
    the doctest budget; ``tests/test_irt_bayes.py`` runs it (marked slow).

    >>> from benchkit.simulate import binary_matrix
    >>> from benchkit.irt import fit_1pl_bayes
    >>> Y = binary_matrix(40, 30, rng=1, discrimination_sd=0.0).matrix
    >>> fit = fit_1pl_bayes(Y, draws=500, tune=500, rng=0, progress=False)  # doctest: +SKIP
    >>> fit.converged, fit.diagnostics["check"].tolist()  # doctest: +SKIP
    (True, ['r_hat_max', 'ess_bulk_min', 'divergent_transitions', 'pareto_k_max'])
    """

    difficulty: np.ndarray
    difficulty_sd: np.ndarray
    ability: np.ndarray
    ability_posterior_sd: np.ndarray
    sigma: float
    r_hat_max: float
    ess_bulk_min: float
    n_divergent: int
    elpd_loo: float
    p_loo: float
    pareto_k_max: float
    pareto_k_bad: int
    diagnostics: pd.DataFrame
    summary: pd.DataFrame
    posterior_mode: IRTFit
    inference_data: Any
    items: pd.Index
    models: pd.Index
    options: dict = field(default_factory=dict)
    rng_entropy: Any = None

    @property
    def converged(self) -> bool:
        """Whether every check in :attr:`diagnostics` passes."""
        return bool(self.diagnostics["ok"].all())

    def mode_correlation(self) -> float:
        """Pearson correlation of the posterior-mean and posterior-mode difficulties (finite items)."""
        a, b = self.difficulty, self.posterior_mode.difficulty
        ok = np.isfinite(a) & np.isfinite(b)
        return float(np.corrcoef(a[ok], b[ok])[0, 1])

    def to_frame(self) -> pd.DataFrame:
        """Item table: posterior and posterior-mode difficulties side by side.

        Posterior ``difficulty, difficulty_sd, r_hat, ess_bulk`` beside the posterior-mode
        ``difficulty_mode, difficulty_mode_se``.
        """
        s = self.summary
        rows = [f"b[{i}]" for i in range(self.difficulty.size)]
        r_hat = s["r_hat"].reindex(rows).to_numpy(dtype=float)
        ess = s["ess_bulk"].reindex(rows).to_numpy(dtype=float)
        return pd.DataFrame({
            "difficulty": self.difficulty, "difficulty_sd": self.difficulty_sd,
            "r_hat": r_hat, "ess_bulk": ess,
            "difficulty_mode": self.posterior_mode.difficulty,
            "difficulty_mode_se": self.posterior_mode.difficulty_se,
        }, index=self.items)


def fit_1pl_bayes(
    Y: Any,
    *,
    prior_sd: float = 3.0,
    sigma_prior_sd: float = 2.5,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float = 0.8,
    loo: bool = True,
    rng: Any = None,
    progress: bool = True,
    items: Sequence[Any] | None = None,
    models: Sequence[Any] | None = None,
) -> BayesFit:
    r"""Bayesian 1PL :math:`P(Y_{ij}=1) = \sigma(\theta_j - b_i)` by NUTS, with post-fit checks.

    Parameters
    ----------
    Y : array_like (n_items, n_models), DataFrame or ResponseSet
        0/1 responses, NaN for missing cells (only observed cells enter the likelihood).
    prior_sd : float
        SD :math:`\tau` of the difficulty prior :math:`b_i \sim N(\mu_b, \tau^2)` (default 3, the
        ``item_prior_sd`` of :func:`fit_1pl`). It keeps all-correct / all-wrong items finite.
    sigma_prior_sd : float
        Scale of the half-normal prior on the ability SD :math:`\sigma` (default 2.5).
    draws, tune, chains : int
        Posterior draws kept per chain, tuning draws per chain, number of chains.
    target_accept : float
        NUTS target acceptance rate (default 0.8); raise it (e.g. 0.95) when divergences appear.
    loo : bool
        Compute PSIS leave-one-out over the observed cells (default True; it stores one
        log-likelihood value per cell and draw).
    rng : None, int, SeedSequence or Generator
        Seed of the sampler (one integer is drawn from it; :mod:`benchkit._random`). The result
        records its entropy (``rng_entropy``).
    progress : bool
        Show nutpie's progress bar.
    items, models : sequence, optional
        Labels.

    Returns
    -------
    BayesFit
        Posterior means and SDs, the checks in ``diagnostics`` (read ``converged`` first) and the
        posterior-mode fit beside them.

    Notes
    -----
    Paper 002, Figure 2 step 3: fit the 1PL and check R-hat, minimum bulk ESS, divergent
    transitions and leave-one-out stability. The paper names no priors; the reading chosen here
    matches the posterior mode of :func:`fit_1pl` (``method="mml"``), so that the two fits
    differ only by mean versus mode:
    :math:`\theta_j = \sigma z_j`, :math:`z_j \sim N(0, 1)` (non-centred, which avoids the
    funnel when models answer few items), :math:`\sigma \sim \text{HalfNormal}(2.5)`,
    :math:`b_i \sim N(\mu_b, \tau^2)` with a flat prior on :math:`\mu_b` (the location is set by
    the ability mean 0, as in MML). Sampler: PyMC's model compiled by nutpie (NUTS).

    Checks (``diagnostics``), with the usual thresholds: max R-hat < 1.01, min bulk ESS >= 100
    per chain (Vehtari et al. 2021), no divergent transitions, and no observed cell with Pareto
    k > 0.7 in PSIS-LOO (Vehtari, Gelman and Gabry 2017).

    The first call compiles the model (numba, ~30-40 s on 2 cores); sampling a 40 x 30 matrix
    then takes about a second.

    References
    ----------
    Y. Sun, N. Yu, J. Gong, J. Shen and H. Zhang, "Your Benchmark Is an Empirical Measure Over
    Difficulty", arXiv:2610.29927, Figure 2 step 3. M. D. Hoffman and A. Gelman (2014), "The
    No-U-Turn sampler", JMLR 15, 1593-1623. A. Vehtari, A. Gelman, D. Simpson, B. Carpenter and
    P.-C. Buerkner (2021), "Rank-normalization, folding, and localization: an improved R-hat",
    Bayesian Analysis 16(2), 667-718. A. Vehtari, A. Gelman and J. Gabry (2017), "Practical
    Bayesian model evaluation using leave-one-out cross-validation and WAIC", Statistics and
    Computing 27(5), 1413-1432.

    Examples
    --------
    Not run as a doctest: the first call compiles the model with numba (~40 s on 2 cores), beyond
    the doctest budget; ``tests/test_irt_bayes.py`` runs it (marked slow).

    >>> from benchkit.simulate import binary_matrix
    >>> from benchkit.irt import fit_1pl_bayes
    >>> Y = binary_matrix(40, 30, rng=1, discrimination_sd=0.0).matrix
    >>> fit = fit_1pl_bayes(Y, draws=500, tune=500, rng=0, progress=False)  # doctest: +SKIP
    >>> fit.diagnostics[["check", "threshold", "ok"]]  # doctest: +SKIP
                       check threshold    ok
    0              r_hat_max    < 1.01  True
    1           ess_bulk_min    >= 400  True
    2  divergent_transitions      == 0  True
    3           pareto_k_max    <= 0.7  True
    >>> again = fit_1pl_bayes(Y, draws=500, tune=500, rng=fit.rng_entropy,
    ...                       progress=False)  # doctest: +SKIP
    """
    arr, st = _matrix_stats(Y)
    items, models = _labels(Y, arr.shape[0], arr.shape[1], items, models)
    prior_sd = check_float("prior_sd", prior_sd, min=0.0, min_inclusive=False)
    sigma_prior_sd = check_float("sigma_prior_sd", sigma_prior_sd, min=0.0, min_inclusive=False)
    draws = check_int("draws", draws, min=10)
    tune = check_int("tune", tune, min=10)
    chains = check_int("chains", chains, min=2)
    target_accept = check_float("target_accept", target_accept, min=0.5, max=1.0,
                                max_inclusive=False)
    if not isinstance(loo, bool):
        raise BenchkitValueError(f"loo must be True or False; got {loo!r}")
    root = seed_sequence(rng)
    seed = int(root.generate_state(1)[0])
    pm, nutpie, az = _import_bayes()
    from benchkit.irt._marginal import fit_1pl

    n_items, n_models = arr.shape
    keep = st.row_obs > 0
    sub = arr[keep]
    ii, jj = np.nonzero(~np.isnan(sub))
    y = sub[ii, jj].astype(np.int64)
    n_sub = sub.shape[0]
    with pm.Model() as model:
        sigma = pm.HalfNormal("sigma", sigma=sigma_prior_sd)
        mu_b = pm.Flat("mu_b")
        z = pm.Normal("z", 0.0, 1.0, shape=n_models)
        theta = pm.Deterministic("theta", sigma * z)
        b = pm.Normal("b", mu=mu_b, sigma=prior_sd, shape=n_sub)
        pm.Bernoulli("y", logit_p=theta[jj] - b[ii], observed=y)
    compiled = nutpie.compile_pymc_model(model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # ArviZ 0.2x announces its 1.0 refactor
        idata = nutpie.sample(compiled, draws=draws, tune=tune, chains=chains, seed=seed,
                              target_accept=target_accept, progress_bar=progress)
        post = idata.posterior
        bd = post["b"].to_numpy().reshape(-1, n_sub)
        td = post["theta"].to_numpy().reshape(-1, n_models)
        summary = az.summary(idata, var_names=["b", "theta", "sigma", "mu_b"], kind="all",
                             round_to="none")
        n_div = int(idata.sample_stats["diverging"].to_numpy().sum())
        elpd = p_loo = k_max = np.nan
        k_bad = -1
        if loo:
            # pointwise log p(y_ij | theta_j, b_i) = y eta - softplus(eta), per chain and draw
            eta = (post["theta"].to_numpy()[..., jj] - post["b"].to_numpy()[..., ii])
            ll = y * eta - np.logaddexp(0.0, eta)
            idata.add_groups(log_likelihood={"y": ll}, dims={"y": ["cell"]})
            res = az.loo(idata, pointwise=True)
            k = np.asarray(res.pareto_k)
            elpd, p_loo = float(res.elpd_loo), float(res.p_loo)
            k_max, k_bad = float(k.max()), int((k > 0.7).sum())
    r_hat_max = float(summary["r_hat"].max())
    ess_min = float(summary["ess_bulk"].min())
    rows = [
        ("r_hat_max", r_hat_max, "< 1.01", r_hat_max < 1.01),
        ("ess_bulk_min", ess_min, f">= {100 * chains}", ess_min >= 100 * chains),
        ("divergent_transitions", float(n_div), "== 0", n_div == 0),
    ]
    if loo:
        rows.append(("pareto_k_max", k_max, "<= 0.7", k_max <= 0.7))
    diag = pd.DataFrame(rows, columns=["check", "value", "threshold", "ok"])
    mode = fit_1pl(arr, item_prior_sd=prior_sd, items=items, models=models)
    diff = np.full(n_items, np.nan)
    diff_sd = np.full(n_items, np.nan)
    diff[keep], diff_sd[keep] = bd.mean(0), bd.std(0, ddof=1)
    summary = summary.rename(index=lambda s: _relabel(s, np.flatnonzero(keep)))
    opts = dict(prior_sd=prior_sd, sigma_prior_sd=sigma_prior_sd, draws=draws, tune=tune,
                chains=chains, target_accept=target_accept, seed=seed)
    return BayesFit(diff, diff_sd, td.mean(0), td.std(0, ddof=1),
                    float(post["sigma"].to_numpy().mean()), r_hat_max, ess_min, n_div, elpd,
                    p_loo, k_max, k_bad, diag, summary, mode, idata, items, models, opts,
                    rng_entropy=root.entropy)


def _relabel(name: str, kept: np.ndarray) -> str:
    """'b[3]' of the fitted (non-empty) items -> 'b[<row in Y>]'."""
    if name.startswith("b[") and name.endswith("]"):
        return f"b[{int(kept[int(name[2:-1])])}]"
    return name
