"""Robustness to the population rules (paper 001, Sec. 4.1, App. D.2, Eq. 44-46).

The nine frozen population perturbations (:data:`PERTURBATIONS`), one variant of the primary audit
with K frozen (:func:`run_variant`), Table 6's column for one benchmark (:func:`robustness_table`)
and the frozen pass rule over benchmarks (:func:`robustness_pass`).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from benchkit._parallel import check_n_jobs
from benchkit._random import spawn
from benchkit._validation import BenchkitValueError
from benchkit.dif._controls import matched_random
from benchkit.dif._crossfit import cross_fit
from benchkit.dif._pipeline import PRIMARY
from benchkit.dif._pipeline import RankingAudit
from benchkit.dif._pipeline import _check_families
from benchkit.dif._population import build_population
from benchkit.dif._ranking import observed_ranking
from benchkit.dif._ranking import pair_set
from benchkit.irt._spectral import _binary

__all__ = ["PERTURBATIONS", "robustness_pass", "robustness_table", "run_variant"]


def _perturbations(families=("gemma", "llama", "mistral", "phi", "qwen")) -> dict:
    out = {"owner cap 1": {"owner_cap": 1}, "owner cap 3": {"owner_cap": 3},
           "score-blind checkpoint": {"representative": "lexicographic"},
           "conservative lineage filter": {"lineage_filter": True}}
    for f in families:
        out[f"omit {f}"] = {"omit": (f,)}
    for v in out.values():
        v["min_family_size"] = 15  # App. D.2: at least 15 models per family in these populations
    return out


#: The nine frozen population perturbations of App. D.2: ``build_population`` keyword overrides.
PERTURBATIONS: dict[str, dict] = _perturbations()


def robustness_pass(table: pd.DataFrame, *, min_direction: int = 3, min_significant: int = 3,
                    alpha: float = 0.05) -> pd.DataFrame:
    """The frozen robustness rule (Eq. 44-46) per variant.

    ``table`` has one row per (variant, benchmark) with ``excess_pp`` and ``p_value``. Returns
    ``G_dir``, ``G_sig`` and ``passes`` per variant.

    A population perturbation passes when at least three of the five benchmarks keep a positive
    excess reversal rate and at least three keep a matched-random p <= .05.

    Parameters
    ----------
    table : DataFrame
        One row per (variant, benchmark): ``variant``, ``excess_pp``, ``p_value`` (e.g. the
        :func:`benchkit.dif.analyze_robustness` tables of several benchmarks, concatenated).
    min_direction : int, default 3
        Benchmarks with a positive excess needed (Eq. 46).
    min_significant : int, default 3
        Benchmarks with ``p_value <= alpha`` needed (Eq. 46).
    alpha : float, default 0.05
        Significance level of Eq. 45.

    Returns
    -------
    DataFrame
        One row per variant: ``G_dir`` (Eq. 44), ``G_sig`` (Eq. 45), ``n_benchmarks`` and
        ``passes`` (Eq. 46).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 4.1, Sec. 5.3; App. D.2, Eq. 44-46.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.dif.steps import robustness_pass
    >>> table = pd.DataFrame({"variant": ["omit phi"] * 5 + ["owner cap 1"] * 5,
    ...                       "excess_pp": [5, 3, 1, -1, 2, 4, -2, -1, 3, 1],
    ...                       "p_value": [.01, .02, .2, .6, .04, .001, .5, .7, .01, .3]})
    >>> robustness_pass(table)
           variant  G_dir  G_sig  n_benchmarks  passes
    0     omit phi      4      3             5    True
    1  owner cap 1      3      2             5   False
    """
    g = table.assign(pos=table["excess_pp"] > 0, sig=table["p_value"] <= alpha)
    out = g.groupby("variant", sort=False).agg(G_dir=("pos", "sum"), G_sig=("sig", "sum"),
                                                n_benchmarks=("pos", "size"))
    out["passes"] = (out["G_dir"] >= min_direction) & (out["G_sig"] >= min_significant)
    return out.reset_index()


#: The primary audit's settings a population variant inherits (App. D.2: "all remaining
#: parameters are held at their primary values"); a perturbation overrides some of the first six.
_POPULATION_SETTINGS = ("families", "owner_cap", "min_family_size", "representative", "owners",
                        "lineage_filter", "omit", "lineage_terms")


def run_variant(Y, model_ids, source, K, *, overrides: Mapping[str, Any], base: Mapping[str, Any],
                n_controls: int = 200, epsilon: float = PRIMARY, rng: Any = None,
                n_jobs: Any = None) -> dict:
    """One population perturbation (App. D.2).

    Rebuild the population with ``base`` (the primary audit's settings) updated by
    ``overrides``, refit both cross-fitting directions with ``K`` (a per-half pair) frozen and
    every other primary setting (``anchor_fraction``, the population seed) unchanged,
    and draw ``n_controls`` matched-random controls at ``epsilon``; returns Table 6's cell and the
    counts as a dict (see :func:`robustness_table`, which calls this once per variant).

    ``overrides`` may name only population settings (``families``, ``owner_cap``,
    ``min_family_size``, ``representative``, ``owners``, ``lineage_filter``, ``omit``,
    ``lineage_terms``): a variant changes what its perturbation names and nothing else.

    Parameters
    ----------
    Y : array_like (items, models)
        The complete 0/1 matrix of the primary audit.
    model_ids : sequence of str
        One id per column.
    source : array_like (items,)
        Native source of every item.
    K : pair of int
        The primary audit's dimension per half (frozen; App. D.2).
    overrides : mapping of str to object
        :func:`build_population` keyword arguments of the perturbation (e.g. ``{"omit":
        ("phi",)}``; :data:`PERTURBATIONS` holds the paper's nine).
    base : mapping of str to object
        The primary audit's :attr:`RankingAudit.settings`.
    n_controls : int, default 200
        Matched-random controls of the variant (App. D.2).
    epsilon : float, default 0.01
        The near-tie band.
    rng : None, int, SeedSequence or Generator
        Seeds the variant's cross-fit and controls.
    n_jobs : int, optional
        Workers of the controls; results are identical for any value.

    Returns
    -------
    dict
        ``families``, ``models``, ``representatives``, ``K``, ``close_n``, ``low_dif_pct``,
        ``random_pct``, ``excess_pp`` and ``p_value`` of the variant.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 4.1; App. D.2 (population perturbations, K frozen).

    Examples
    --------
    The leave-one-family-out variant "omit phi" of an audit:

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> from benchkit.dif.steps import run_variant
    >>> row = run_variant(sim.Y, audit.model_ids, audit.source, audit.K, overrides={"omit": ("phi",)},
    ...                   base=audit.settings, n_controls=49, rng=0)
    >>> row["families"], row["models"], row["close_n"]
    ('gemma/llama/mistral/qwen', 119, 6)
    """
    n_jobs = check_n_jobs(n_jobs)
    unknown = sorted(set(overrides) - set(_POPULATION_SETTINGS))
    if unknown:
        raise BenchkitValueError(f"overrides {unknown} are not population settings; a perturbation "
                                 f"may change {list(_POPULATION_SETTINGS)}")
    Yb = np.ascontiguousarray(_binary("Y", Y))
    ids = np.asarray([str(m) for m in model_ids], dtype=object)
    kw = {k: base[k] for k in _POPULATION_SETTINGS if k in base}
    if "population_rng_entropy" in base:  # the primary's population seed, even if it was None
        kw["rng"] = np.random.SeedSequence(base["population_rng_entropy"],
                                           spawn_key=base.get("population_rng_spawn_key", ()))
    else:
        kw["rng"] = base.get("population_rng", 0)
    kw.update(overrides)
    pop = build_population(ids, Yb.mean(0), **kw)
    _check_families(pop)
    s1, s2 = spawn(rng, 2)
    cf = cross_fit(Yb, pop, source, K=K, anchor_fraction=base.get("anchor_fraction", 0.5), rng=s1,
                   n_jobs=n_jobs)
    folds = list(cf.folds)
    pairs = [pair_set(f, max_gap=epsilon) for f in folds]
    r = observed_ranking(folds, pairs, ids, (epsilon,))
    mr = matched_random(folds, pairs, r.rate, n_resamples=n_controls, thresholds=(epsilon,),
                        rng=s2, n_jobs=n_jobs)
    return {"families": "/".join(pop.families), "models": int(pop.retained.size),
            "representatives": int(pop.representatives().size), "K": "/".join(map(str, cf.K)),
            "close_n": int(r.eligible.sum()), "low_dif_pct": 100 * r.rate[0],
            "random_pct": 100 * mr.median[0], "excess_pp": float(mr.excess_pp[0]),
            "p_value": float(mr.p_value[0])}


def robustness_table(Y, primary: RankingAudit, *, perturbations: Mapping[str, Mapping] = PERTURBATIONS,
                     n_controls: int = 200, rng: Any = None, n_jobs: Any = None,
                     progress: bool = True) -> pd.DataFrame:
    """Table 6's column for one benchmark: the baseline row and every perturbation (App. D.2).

    Parameters
    ----------
    Y : array_like (items, models)
        The complete 0/1 matrix the primary audit ran on.
    primary : RankingAudit
        The primary analysis (:func:`run_audit`); its settings, population rules and per-half K
        are reused.
    perturbations : mapping of str to mapping
        Variant name -> :func:`build_population` overrides (default the nine frozen variants,
        :data:`PERTURBATIONS`).
    n_controls : int
        Matched-random controls per variant (200; the baseline row keeps the primary's 1,000).
    rng : seed
        One child seed per variant (:func:`benchkit._random.spawn`), so a row does not depend on
        the other variants.
    n_jobs : int, optional
        Workers of the two cross-fit halves and the matched-random controls; results are
        identical for any value.
    progress : bool, default True
        A progress bar over the variants.

    Returns
    -------
    DataFrame
        One row per specification: families, models, representatives, K, close_n, low-DIF and
        random rates, excess_pp, p_value; a variant whose population leaves fewer than two
        families has an ``error`` instead.

    Notes
    -----
    Paper 001, Sec. 4.1 and App. D.2 (Eq. 44-46): every variant rebuilds the population, keeps
    the owner-disjoint cross-fit and refits the spectral directions, residual DIF, anchors and
    controls; only K is frozen from the primary analysis (no K selection is rerun). Combine the
    tables of several benchmarks with :func:`robustness_pass` for the frozen pass rule.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 4.1, Sec. 5.3 (Figure 2); App. D.2, Eq. 44-46.

    Examples
    --------
    Table 6's column for one perturbation of a simulated benchmark:

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> from benchkit.dif.steps import robustness_table
    >>> table = robustness_table(sim.Y, audit, perturbations={"omit phi": {"omit": ("phi",),
    ...                                                                  "min_family_size": 5}},
    ...                          n_controls=49, rng=0, progress=False)
    >>> table[["variant", "families", "close_n", "excess_pp"]].round(3)
              variant                      families  close_n  excess_pp
    0  baseline cap 5  gemma/llama/mistral/phi/qwen       14        0.0
    1        omit phi      gemma/llama/mistral/qwen        6      -50.0
    """
    base = primary.settings
    j = list(primary.ranking.thresholds).index(base["epsilon"])
    rows = [{"variant": f"baseline cap {base['owner_cap']}", "families": "/".join(primary.families),
             "models": int(primary.population.retained.size),
             "representatives": int(primary.population.representatives().size),
             "K": "/".join(map(str, primary.K)), "close_n": int(primary.ranking.eligible[j].sum()),
             "low_dif_pct": 100 * primary.ranking.rate[j],
             "random_pct": 100 * primary.controls.median[j],
             "excess_pp": float(primary.controls.excess_pp[j]),
             "p_value": float(primary.controls.p_value[j])}]
    n_jobs = check_n_jobs(n_jobs)  # before the loop, which records a variant's value errors as rows
    seeds = spawn(rng, len(perturbations))
    names = list(perturbations)
    it = names
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(names, desc="population perturbations", leave=False)
    for k, name in enumerate(it):
        try:
            row = run_variant(Y, primary.model_ids, primary.source, primary.K,
                              overrides=perturbations[name], base=base, n_controls=n_controls,
                              epsilon=base["epsilon"], rng=seeds[k], n_jobs=n_jobs)
        except BenchkitValueError as exc:  # e.g. a family falls below the minimum size
            row = {"error": str(exc)}
        rows.append({"variant": name, **row})
    return pd.DataFrame(rows)
