"""The primary family-DIF audit on arrays (paper 001, Sec. 3-4).

:func:`run_audit` -> :class:`RankingAudit`, and :func:`compare_family_shifts` (Table 7) between
two audits. The population variants (App. D.2) are in :mod:`benchkit.dif._robustness`.
"""
from __future__ import annotations

import time
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd

from benchkit._parallel import check_n_jobs
from benchkit._random import seed_sequence
from benchkit._random import spawn
from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_float
from benchkit.dif._controls import BootstrapResult
from benchkit.dif._controls import MatchedRandomResult
from benchkit.dif._controls import OwnerBootstrapResult
from benchkit.dif._controls import bootstrap_units
from benchkit.dif._controls import composition_bootstrap
from benchkit.dif._controls import matched_random
from benchkit.dif._controls import owner_bootstrap
from benchkit.dif._crossfit import cross_fit
from benchkit.dif._population import PAPER_FAMILIES
from benchkit.dif._population import Population
from benchkit.dif._population import build_population
from benchkit.dif._ranking import THRESHOLDS
from benchkit.dif._ranking import FoldTargets
from benchkit.dif._ranking import RankingResult
from benchkit.dif._ranking import observed_ranking
from benchkit.dif._ranking import pair_set
from benchkit.dif._replication import Replication
from benchkit.dif._replication import replicate_signatures
from benchkit.dif._sensitivity import AlphaRefits
from benchkit.dif._sources import source_decomposition
from benchkit.dif._sources import source_effects
from benchkit.irt._spectral import K_GRID
from benchkit.irt._spectral import _binary

__all__ = ["RankingAudit", "compare_family_shifts", "run_audit"]

PRIMARY = 0.01


@result
class RankingAudit:
    """Everything the primary family-DIF audit computes (paper 001, Tables 1-2, 4-7 inputs).

    The question it answers: do near-tied cross-family model pairs keep their order when the
    benchmark is rescored with items that show little residual family dependence? ``to_frame()``
    is Table 1's row: the pooled reversal rate of pairs within one point under low-DIF scoring,
    the rate under matched random subtests, their difference (excess, in points) and its p-value.
    A positive excess with a small p means the near-tie ordering depends on benchmark composition.

    Parameters
    ----------
    population, K, selection, anchors, folds, ranking, controls, bootstrap, owner_shifts
        The fields described under Attributes (built by :func:`benchkit.dif.audit_rankings`).
    alpha_sensitivity, replication, source_effects, decomposition, item_ids, model_ids, source
        The fields described under Attributes.
    timings, settings, peak_memory, rng_entropy
        The fields described under Attributes.

    Attributes
    ----------
    population : Population
        Families, owners, halves, representatives and every exclusion (App. C.1).
    K : tuple of int
        Selected dimension per owner half (``K[h]`` learnt on half ``h``).
    selection : tuple of DimensionSelection
        Whole held-out loss curves (App. C.3).
    anchors : tuple of FoldAnchors
        Per half: anchors of every round, Jaccard overlaps, frozen weights, final signatures.
    folds : tuple of FoldTargets
        ``folds[h]``: half ``h``'s weights applied to half ``1 - h``'s representatives.
    ranking : RankingResult
        Observed reversal counts and rates at every threshold, fold tau_b, all-pair rate.
    controls : MatchedRandomResult
        R matched-random subtests: median, excess (Eq. 10), p (Eq. 11) per threshold.
    bootstrap : BootstrapResult
        Composition bootstrap range per threshold (App. C.7).
    owner_shifts : OwnerBootstrapResult
        Owner bootstrap of family mean score and percentile-rank shifts (D.1). Reading: a
        model's percentile rank is ``100 (rank - 0.5) / n`` (average ranks for ties) among the
        representatives of its target fold, under anchor minus under full scoring.
    alpha_sensitivity : DataFrame
        Table 5: mean fold tau_b and the pooled 1-pp reversal rate for each anchor fraction.
    replication : Replication
        Table 2: cross-half signature replication with permutation p-values.
    source_effects : DataFrame
        Source-level family effects and their held-out sign replication (Eq. 54-55;
        :func:`benchkit.dif.steps.source_effects`).
    decomposition : DataFrame
        Exact source contributions to the family score shifts (Eq. 56-57), both directions.
    item_ids : ndarray (items,)
        Item ids, in the row order of the responses.
    model_ids : ndarray (models,)
        Model ids, in the column order (``population.table`` follows it).
    source : ndarray (items,)
        The native source of every item (``"all"`` when none was given).
    timings : dict
        Seconds per stage. Each half's anchor-fraction refits start as soon as the cross-fit has
        purified that half and run on internal threads beside the rest of the cross-fit and the
        ranking, controls and bootstraps: their stage's time is what remains of them.
    peak_memory : dict
        Peak traced bytes per stage, filled only when :mod:`tracemalloc` is tracing (the
        benchmark does so; numpy reports its buffers to tracemalloc).
    settings : dict
        The options used (population rules, anchor fraction, epsilon, thresholds, resample
        counts, grid, ``population_rng``, ``owners``) and the population seed actually used,
        ``population_rng_entropy`` / ``population_rng_spawn_key`` (the root
        :class:`numpy.random.SeedSequence` of ``population_rng``); :func:`run_variant` reuses them,
        so every population variant is built with the primary's seed, even after
        ``population_rng=None``.
    rng_entropy : int or None
        Entropy of the root seed of ``rng`` (every random stage draws from a child of it):
        ``audit_rankings(rs, ..., rng=rng_entropy)`` repeats the audit exactly, also after
        ``rng=None``. The randomized SVDs of the spectral model make the anchors depend on the
        seed (notebook 02 shows how much the verdict moves across seeds).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3-5, Tables 1-2 and 4-7; App. C-D.

    Examples
    --------
    A quick audit of a simulated leaderboard (fewer replicates than the paper's defaults):

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> audit.to_frame()[["K", "tau_b", "close_n", "low_dif_pct", "random_pct", "excess_pp",
    ...                   "p_rand"]].round(3)
         K  tau_b  close_n  low_dif_pct  random_pct  excess_pp  p_rand
    0  2/2  0.767       14       42.857      42.857        0.0    0.62
    >>> audit.thresholds_frame()[["threshold_pp", "eligible", "low_dif_rate", "p_value"]].iloc[2:4]
       threshold_pp  eligible  low_dif_rate  p_value
    2           1.0        14      0.428571     0.62
    3           2.0        33      0.393939     0.58
    """

    population: Population
    K: tuple
    selection: tuple
    anchors: tuple
    folds: tuple
    ranking: RankingResult
    controls: MatchedRandomResult
    bootstrap: BootstrapResult
    owner_shifts: OwnerBootstrapResult
    alpha_sensitivity: pd.DataFrame
    replication: Replication
    source_effects: pd.DataFrame
    decomposition: pd.DataFrame
    item_ids: np.ndarray
    model_ids: np.ndarray
    source: np.ndarray
    timings: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    peak_memory: dict = field(default_factory=dict)
    rng_entropy: Any = None

    @property
    def families(self) -> tuple:
        """The retained family labels, sorted (:attr:`Population.families`)."""
        return self.population.families

    def to_frame(self) -> pd.DataFrame:
        """Table 1's row: K per fold, mean tau_b, close n, low-DIF and random rates, excess, p."""
        j = list(self.ranking.thresholds).index(self.settings.get("epsilon", PRIMARY))
        return pd.DataFrame([{
            "K": "/".join(map(str, self.K)), "tau_b": self.ranking.mean_tau_b,
            "close_n": int(self.ranking.eligible[j].sum()),
            "low_dif_pct": 100 * self.ranking.rate[j],
            "random_pct": 100 * self.controls.median[j],
            "excess_pp": self.controls.excess_pp[j], "p_rand": self.controls.p_value[j],
            "all_pair_reversal_pct": 100 * self.ranking.all_pair_rate,
        }])

    def thresholds_frame(self) -> pd.DataFrame:
        """Table 4 / Figure 1: observed and matched-random reversal rates per threshold.

        Every threshold with observed, random median and band, excess, p, and the
        composition-bootstrap range.
        """
        out = self.controls.to_frame()
        out["eligible"] = self.ranking.eligible.sum(1)
        out["bootstrap_low"] = self.bootstrap.interval[0]
        out["bootstrap_high"] = self.bootstrap.interval[1]
        return out

    def items_frame(self) -> pd.DataFrame:
        """Per item and half: easiness, family effects, D_i, anchor flag and weight, cell."""
        rows = []
        for h, fa in enumerate(self.anchors):
            f = fa.to_frame()
            f.insert(0, "half", h)
            f.insert(0, "source", self.source)
            f.insert(0, "item", self.item_ids)
            rows.append(f)
        return pd.concat(rows, ignore_index=True)

    def scores_frame(self) -> pd.DataFrame:
        """Per evaluated representative: fold, family, owner, full and anchor scores, shift."""
        t = self.population.table.set_index("model")
        s = self.ranking.scores.copy()
        s["family"] = t.loc[s["model"], "family"].to_numpy()
        s["owner"] = t.loc[s["model"], "owner"].to_numpy()
        return s

    def content_sample(self, *, texts=None, benchmark: str | None = None, n_pairs: int = 50,
                       rng: Any = None):
        """The blinded matched stable-high-DIF / control sample of App. D.4.

        Drawn from this audit's replication sets (see :func:`benchkit.dif.steps.content_sample`); returns
        ``(sheet, key)``.
        """
        from benchkit.dif._audit_content import content_sample

        rep = self.replication
        fams = np.asarray(self.families, dtype=object)
        return content_sample(rep.high_D, rep.high_V, rep.cells, self.item_ids, texts=texts,
                              benchmark=benchmark, advantaged_D=fams[rep.argmax_D],
                              advantaged_V=fams[rep.argmax_V], n_pairs=n_pairs, rng=rng)

    def pairs_frame(self, *, epsilon: float | None = None) -> pd.DataFrame:
        """The frozen near-tie pairs with both scores of each model and whether they flip."""
        eps = self.settings.get("epsilon", PRIMARY) if epsilon is None else epsilon
        rows = []
        for h, ft in enumerate(self.folds):
            ps = pair_set(ft, max_gap=eps)
            full, anc = ft.full, ft.weighted()
            ids = self.model_ids[ft.models]
            d = anc[ps.i] - anc[ps.j]
            rows.append(pd.DataFrame({
                "fold": h, "model_a": ids[ps.i], "model_b": ids[ps.j],
                "full_a": full[ps.i], "full_b": full[ps.j], "anchor_a": anc[ps.i],
                "anchor_b": anc[ps.j], "gap_pp": 100 * ps.gap,
                "anchor_tie": np.abs(d) <= 1e-12, "reversed": (ps.sign * d < 0) & (np.abs(d) > 1e-12)}))
        return pd.concat(rows, ignore_index=True)


def _check_families(pop: Population) -> None:
    if len(pop.families) < 2:
        raise BenchkitValueError(
            f"the population rules leave {len(pop.families)} families "
            f"({list(pop.families)}); the audit needs at least 2. Counts: "
            f"{pop.table['status'].value_counts().to_dict()}; lower min_family_size or pass "
            "other families")


def _percentile_ranks(x: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return 100 * (rankdata(x) - 0.5) / x.size


def _bar(progress: bool, total: int):
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="family-DIF audit", leave=False)


def run_audit(Y, model_ids, *, source=None, item_ids=None, owners=None,
              families: Mapping[str, str] = PAPER_FAMILIES, owner_cap: int = 5,
              min_family_size: int = 20, representative: str = "median", K=None,
              grid: Sequence[int] = K_GRID, anchor_fraction: float = 0.5,
              sensitivity_fractions: Sequence[float] = (0.3, 0.7), epsilon: float = PRIMARY,
              thresholds: Sequence[float] = THRESHOLDS, n_controls: int = 1000,
              n_bootstrap: int = 2000, n_owner_bootstrap: int = 2000,
              n_permutations: int = 500, confidence_level: float = 0.95,
              population_rng: Any = 0, rng: Any = None, n_jobs: Any = None,
              progress: bool = True) -> RankingAudit:
    """The primary audit on a complete (items x models) 0/1 array; see :func:`benchkit.dif.audit_rankings`.

    Parameters
    ----------
    Y : array_like (items, models)
        Complete 0/1 responses.
    model_ids : sequence of str
        One id per column (``"owner/name"``: families and owners are read from it).
    source : array_like (items,), optional
        Native source of every item (default: one source, ``"all"``).
    item_ids : array_like (items,), optional
        Item ids (default ``"0"``, ``"1"``, ...).
    owners : sequence of str, optional
        Owner per model (default: the uploader component of the id).
    families : mapping of str to str, default :data:`PAPER_FAMILIES`
        Frozen family patterns (App. C.1).
    owner_cap : int, default 5
        Checkpoints kept per owner-family pair.
    min_family_size : int, default 20
        Minimum capped family size.
    representative : {"median", "lexicographic"}
        Ranking representative per owner-family pair.
    K : pair of int, optional
        Freeze the dimension per half instead of selecting it over ``grid``.
    grid : sequence of int, default (1, 2, 4, ..., 256)
        Candidate spectral dimensions (App. C.3).
    anchor_fraction : float, default 0.5
        The paper's alpha.
    sensitivity_fractions : sequence of float, default (0.3, 0.7)
        Anchor fractions of the sensitivity table (Table 5).
    epsilon : float, default 0.01
        Primary near-tie band (one percentage point); one of ``thresholds``.
    thresholds : sequence of float, default :data:`THRESHOLDS`
        Cumulative gap thresholds (Eq. 41).
    n_controls : int, default 1000
        Matched-random subtests R.
    n_bootstrap : int, default 2000
        Composition-bootstrap replicates.
    n_owner_bootstrap : int, default 2000
        Owner-bootstrap replicates.
    n_permutations : int, default 500
        Within-cell permutations of the replication test.
    confidence_level : float, default 0.95
        Of the bootstrap ranges.
    population_rng : None, int, SeedSequence or Generator, default 0
        The frozen population-selection seed (owner cap).
    rng : None, int, SeedSequence or Generator
        Everything else; resolved once into a root whose children seed each stage.
    n_jobs : int, optional
        Workers of the resampling stages; results are identical for any value. The two owner
        halves of the cross-fit and the anchor-fraction refits are fixed deterministic tasks: they
        run on benchkit's internal threads whatever ``n_jobs`` is (as the numba kernels use every
        core); each half's refits start when its cross-fit ends and overlap the other half and the
        resampling stages, which keep the remaining cores (one of two).
    progress : bool, default True
        A progress bar per stage.

    Returns
    -------
    RankingAudit
        Every stage's result; ``to_frame()`` is Table 1's row.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3 (Eq. 1-11), Sec. 4; App. C.1-C.8, App. D.1 and D.3.

    Examples
    --------
    The audit on a simulated 0/1 matrix; ``rng=audit.rng_entropy`` repeats it exactly:

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> audit.K, audit.families
    ((2, 2), ('gemma', 'llama', 'mistral', 'phi', 'qwen'))
    >>> again = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5, K=(2, 2),
    ...                   sensitivity_fractions=(), n_controls=99, n_bootstrap=99,
    ...                   n_owner_bootstrap=99, n_permutations=99, rng=audit.rng_entropy,
    ...                   progress=False)
    >>> again.to_frame().equals(audit.to_frame())
    True
    """
    import numba

    n_jobs = check_n_jobs(n_jobs)
    Yb = np.ascontiguousarray(_binary("Y", Y))
    n_items, M = Yb.shape
    ids = np.asarray([str(m) for m in model_ids], dtype=object)
    if ids.size != M:
        raise BenchkitValueError(f"model_ids must have one id per column of Y ({M}); got {ids.size}")
    src = np.full(n_items, "all", dtype=object) if source is None else np.asarray(source, dtype=object)
    if src.shape != (n_items,):
        raise BenchkitValueError(f"source must have one entry per item ({n_items}); got {src.shape}")
    thresholds = tuple(float(t) for t in thresholds)
    if epsilon not in thresholds:
        raise BenchkitValueError(f"epsilon={epsilon} must be one of thresholds={thresholds}")
    check_float("anchor_fraction", anchor_fraction, min=0.0, max=1.0, min_inclusive=False)
    items = np.arange(n_items).astype(str).astype(object) if item_ids is None else np.asarray(item_ids,
                                                                                       dtype=object)
    root = seed_sequence(rng)  # recorded: rng=None draws fresh entropy, which a rerun then needs
    pop_root = seed_sequence(population_rng, "population_rng")
    seeds = root.spawn(8)
    bar = _bar(progress, 9)
    timings: dict[str, float] = {}
    peaks: dict[str, int] = {}
    import tracemalloc

    def stage(name):
        if tracemalloc.is_tracing():
            tracemalloc.reset_peak()
        timings[name] = time.perf_counter()
        if bar is not None:
            bar.set_description(f"family-DIF audit: {name}")

    def done(name):
        timings[name] = time.perf_counter() - timings[name]
        if tracemalloc.is_tracing():
            peaks[name] = tracemalloc.get_traced_memory()[1]
        if bar is not None:
            bar.update(1)

    refits = main_threads = None
    try:
        stage("population")
        acc = Yb.mean(0)
        pop = build_population(ids, acc, owners=owners, families=families, owner_cap=owner_cap,
                               min_family_size=min_family_size, representative=representative,
                               rng=pop_root)
        _check_families(pop)
        done("population")
        stage("cross-fit (K selection, 3 purification rounds, both folds)")
        refits = AlphaRefits(src, sensitivity_fractions, spawn(seeds[4], 2 * len(sensitivity_fractions)))
        cf = cross_fit(Yb, pop, src, K=K, anchor_fraction=anchor_fraction, grid=grid, rng=seeds[0],
                       n_jobs=n_jobs, on_half_done=refits.half_done)
        done("cross-fit (K selection, 3 purification rounds, both folds)")
        fam_all = pop.table["family"].to_numpy(object)
        main_threads = numba.get_num_threads()
        numba.set_num_threads(refits.main_threads)  # the refit workers hold the other cores
        stage("ranking")
        folds = list(cf.folds)
        pairs = [pair_set(f, max_gap=max(thresholds)) for f in folds]
        ranking = observed_ranking(folds, pairs, ids, thresholds)
        done("ranking")
        stage("matched-random controls")
        controls = matched_random(folds, pairs, ranking.rate, n_resamples=n_controls,
                                  thresholds=thresholds, rng=seeds[1], n_jobs=n_jobs,
                                  progress=progress)
        done("matched-random controls")
        stage("composition bootstrap")
        boot = composition_bootstrap(folds, pairs, bootstrap_units(src), ranking.rate,
                                     n_resamples=n_bootstrap, confidence_level=confidence_level,
                                     thresholds=thresholds, rng=seeds[2], n_jobs=n_jobs,
                                     progress=progress)
        done("composition bootstrap")
        stage("owner bootstrap")
        sc = ranking.scores
        t = pop.table.set_index("model")
        pct = np.concatenate([_percentile_ranks(ft.weighted()) - _percentile_ranks(ft.full)
                              for ft in folds])
        owner_shifts = owner_bootstrap(
            np.column_stack([100 * sc["shift"].to_numpy(), pct]),
            t.loc[sc["model"], "family"].to_numpy(), t.loc[sc["model"], "owner"].to_numpy(),
            names=("score_shift_pp", "percentile_shift"), n_resamples=n_owner_bootstrap,
            confidence_level=confidence_level, rng=seeds[3], n_jobs=n_jobs, progress=progress)
        done("owner bootstrap")
        stage("signature replication")
        rep = replicate_signatures(cf.anchors[0], cf.anchors[1], src, n_resamples=n_permutations,
                                   rng=seeds[5], n_jobs=n_jobs, progress=progress)
        done("signature replication")
        stage("anchor-fraction sensitivity")
        sens = [{"alpha": anchor_fraction, "mean_tau_b": ranking.mean_tau_b,
                 "rate": ranking.rate[thresholds.index(epsilon)]}]
        numba.set_num_threads(main_threads)
        alpha_fits = refits.result()  # queued by the cross-fit (the stage's time is what remains)
        for k, a in enumerate(sensitivity_fractions):
            sub = [FoldTargets(models=f0.models, owner=f0.owner, family=f0.family, Y=f0.Y,
                               weights=fa.weights, cells=fa.cells)
                   for f0, fa in zip(folds, alpha_fits[2 * k:2 * k + 2])]
            r = observed_ranking(sub, pairs, ids, thresholds)
            sens.append({"alpha": a, "mean_tau_b": r.mean_tau_b,
                         "rate": r.rate[thresholds.index(epsilon)]})
        sens_df = pd.DataFrame(sens).sort_values("alpha").reset_index(drop=True)
        done("anchor-fraction sensitivity")
        stage("source attribution")
        eff = source_effects(cf.anchors[0], cf.anchors[1], src)
        dec = []
        for h, ft in enumerate(folds):
            d = source_decomposition(ft.Y, fam_all[ft.models], ft.weights, src, pop.families)
            d.insert(0, "direction", f"{h}->{1 - h}")
            dec.append(d)
        dec = pd.concat(dec, ignore_index=True)
        done("source attribution")
    finally:
        if main_threads is not None:
            numba.set_num_threads(main_threads)
        if refits is not None:
            refits.close()
        if bar is not None:
            bar.close()
    settings = {"families": dict(families), "owner_cap": owner_cap, "min_family_size": min_family_size,
                    "representative": representative, "anchor_fraction": anchor_fraction, "epsilon": epsilon,
                    "thresholds": thresholds, "n_controls": n_controls, "n_bootstrap": n_bootstrap,
                    "n_owner_bootstrap": n_owner_bootstrap, "n_permutations": n_permutations,
                    "grid": tuple(grid), "population_rng": population_rng, "owners": owners,
                    "population_rng_entropy": pop_root.entropy,
                    "population_rng_spawn_key": tuple(pop_root.spawn_key)}
    return RankingAudit(population=pop, K=cf.K, selection=cf.selection, anchors=cf.anchors,
                       folds=cf.folds, ranking=ranking, controls=controls, bootstrap=boot,
                       owner_shifts=owner_shifts, alpha_sensitivity=sens_df, replication=rep,
                       source_effects=eff, decomposition=dec, item_ids=items, model_ids=ids,
                       source=src, timings=timings, settings=settings, peak_memory=peaks,
                       rng_entropy=root.entropy)




def compare_family_shifts(left: RankingAudit, right: RankingAudit, *, n_resamples: int = 2000,
                          confidence_level: float = 0.95, rng: Any = None, n_jobs: Any = None
                          ) -> pd.DataFrame:
    """Exact-common-model comparison of family shifts between two benchmarks (Table 7, D.1).

    Models evaluated (as representatives) in both audits are matched by id; per family the mean
    anchor-minus-full shift on each benchmark (pp), their difference (right - left) and its
    owner-bootstrap interval (owners resampled with replacement, Eq. 43 applied to the per-model
    differences).

    Does a family's shift change direction between benchmarks when the same models are compared?
    (The paper: every family changes direction at least once.)

    Parameters
    ----------
    left, right : RankingAudit
        Audits of two benchmarks (models matched by id; a model must be a representative of the
        same family in both).
    n_resamples : int, default 2000
        Owner-bootstrap replicates.
    confidence_level : float, default 0.95
        Of the intervals.
    rng : None, int, SeedSequence or Generator
        Seeds the owner bootstrap.
    n_jobs : int, optional
        Workers of the bootstrap; results are identical for any value.

    Returns
    -------
    DataFrame
        One row per family: ``left_shift_pp``, ``right_shift_pp``, ``difference_pp``, ``low``,
        ``high``, ``n_models`` and ``n_owners``.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 5.3; App. B.4 (exact-common-model directional checks), App. D.1 (Eq. 42-43).

    Examples
    --------
    The same models on a second, noisier copy of the benchmark:

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> import numpy as np
    >>> from benchkit.dif.steps import compare_family_shifts
    >>> noisy = (sim.Y ^ (np.random.default_rng(1).random(sim.Y.shape) < 0.1)).astype(np.uint8)
    >>> other = run_audit(noisy, sim.model_ids, source=sim.source, min_family_size=5, K=(2, 2),
    ...                   sensitivity_fractions=(), n_controls=99, n_bootstrap=99,
    ...                   n_owner_bootstrap=99, n_permutations=99, rng=0, progress=False)
    >>> shifts = compare_family_shifts(audit, other, n_resamples=200, rng=0)
    >>> shifts[["family", "left_shift_pp", "right_shift_pp", "n_models"]].round(2).head(2)
      family  left_shift_pp  right_shift_pp  n_models
    0  gemma          -0.25            0.00         5
    1  llama          -0.48            1.52         7
    """
    n_jobs = check_n_jobs(n_jobs)
    from benchkit.dif._controls import owner_bootstrap

    a = left.scores_frame().set_index("model")
    b = right.scores_frame().set_index("model")
    common = a.index.intersection(b.index)
    if common.size == 0:
        raise BenchkitValueError("the two audits share no evaluated model")
    a, b = a.loc[common], b.loc[common]
    keep = a["family"].to_numpy() == b["family"].to_numpy()
    a, b = a[keep], b[keep]
    diff = 100 * (b["shift"].to_numpy() - a["shift"].to_numpy())
    boot = owner_bootstrap(diff, a["family"].to_numpy(), a["owner"].to_numpy(),
                           names=("difference_pp",), n_resamples=n_resamples,
                           confidence_level=confidence_level, rng=rng, n_jobs=n_jobs)
    t = boot.table.set_index("family")
    out = pd.DataFrame({
        "left_shift_pp": 100 * a.groupby("family")["shift"].mean(),
        "right_shift_pp": 100 * b.groupby("family")["shift"].mean()})
    out["difference_pp"] = t["mean"]
    out["low"], out["high"] = t["low"], t["high"]
    out["n_models"], out["n_owners"] = t["n_models"], t["n_owners"]
    return out.reset_index()
