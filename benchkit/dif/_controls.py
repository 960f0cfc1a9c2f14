"""Matched-random controls, composition bootstrap and owner bootstrap.

Paper 001, Sec. 3.4, App. C.6-C.7, D.1.

Every resampling runs through :func:`benchkit._parallel.blocked_map`: fixed-size blocks, one seed
per block, results in block order, hence identical for any ``n_jobs`` and backend (Dask included).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from benchkit._parallel import blocked_map
from benchkit._parallel import check_n_jobs
from benchkit._random import seed_sequence
from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_int
from benchkit.dif._ranking import THRESHOLDS
from benchkit.dif._ranking import FoldTargets
from benchkit.dif._ranking import PairSet
from benchkit.dif._ranking import pooled_rates
from benchkit.dif._ranking import reversal_counts
from benchkit.stats import percentile_interval

__all__ = [
    "BootstrapResult",
    "MatchedRandomResult",
    "OwnerBootstrapResult",
    "bootstrap_units",
    "composition_bootstrap",
    "matched_random",
    "owner_bootstrap",
]

_BLOCK = 25


# ------------------------------------------------------------------ matched-random controls
def _cell_design(ft: FoldTargets) -> tuple:
    """The fixed inputs of :func:`benchkit._kernels.dif.matched_scores` for one fold.

    Cells as float64 (the draw sorts ``cells + keys``), each cell's items in index order, k_c
    (anchors of the cell) and the weight n_c / k_c of a drawn item, and the 0/1 block bit-packed
    cell by cell (:func:`benchkit._kernels.dif.pack_cells`).
    """
    cells = np.asarray(ft.cells, dtype=np.int64)
    uc, inv = np.unique(cells, return_inverse=True)
    items = np.argsort(inv, kind="stable").astype(np.int64)
    ptr = np.searchsorted(inv[items], np.arange(uc.size + 1)).astype(np.int64)
    n_c = np.bincount(inv, minlength=uc.size)
    k_c = np.bincount(inv, weights=ft.weights > 0, minlength=uc.size).astype(np.int64)
    w_c = n_c / np.maximum(k_c, 1)
    from benchkit._kernels.dif import pack_cells

    bits, woff = pack_cells(np.ascontiguousarray(ft.Y, dtype=np.uint8), ptr, items)
    return cells.astype(np.float64), ptr, items, k_c, w_c, bits, woff


def _controls_block(seed, start, stop, designs, pairs, thresholds):
    from benchkit._kernels.dif import matched_scores

    g = np.random.default_rng(seed)
    n = stop - start
    F = np.zeros((n, len(thresholds), len(designs)), dtype=np.int64)
    E = np.zeros_like(F)
    for h, (design, ps) in enumerate(zip(designs, pairs)):  # the same replicate index in both folds
        keys = g.random((n, design[0].size))  # Eq. 34: a uniform random order within every cell
        alt = matched_scores(keys, *design)
        F[:, :, h], E[:, :, h] = reversal_counts(ps, alt, thresholds)
    return F, E


@result
class MatchedRandomResult:
    r"""R blueprint-matched random subtests (App. C.6, Eq. 10-11).

    The control that separates targeted composition sensitivity from ordinary short-subtest
    variation: random subtests of the same length and source x easiness blueprint as the low-DIF
    anchor. A positive excess with a small p means low-DIF scoring reverses near ties more often
    than equally short random subtests do.

    Parameters
    ----------
    thresholds, observed, replicates, flips, eligible, median, excess_pp, p_value, interval
        The fields described under Attributes (built by :func:`matched_random`).
    rng_entropy
        The field described under Attributes.

    Attributes
    ----------
    thresholds : tuple
        Full-score gap thresholds (proportions).
    observed : ndarray (thresholds,)
        :math:`T_{DIF}`, the pooled reversal rate of the low-DIF anchor scoring.
    replicates : ndarray (R, thresholds)
        :math:`T_r` (pooled over folds, Eq. 35).
    flips : ndarray (R, thresholds, folds)
        Reversals of every replicate, per fold.
    eligible : ndarray (R, thresholds, folds)
        Eligible pairs of every replicate, per fold.
    median : ndarray (thresholds,)
        Median of :math:`T_r` (Table 1's "Random").
    excess_pp : ndarray (thresholds,)
        :math:`\Delta_{pp} = 100 (T_{DIF} - \mathrm{median}_r T_r)` (Eq. 10), in percentage
        points.
    p_value : ndarray (thresholds,)
        One-sided Phipson-Smyth randomization p (Eq. 11), at least 1 / (R + 1).
    interval : tuple of ndarray
        2.5th and 97.5th percentiles of :math:`T_r`.
    rng_entropy : int or None
        Entropy of the root seed of ``rng``: ``matched_random(..., rng=rng_entropy)`` draws the same subtests
        after ``rng=None``, an int or a Generator. Inside :func:`run_audit` the seed is a child of
        the audit's root (repeat the audit instead).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Table 1 (Random, Excess, p_rand), Eq. 10-11.

    Examples
    --------
    The matched-random controls of an audit on simulated data (no planted ranking effect):

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> audit.controls.to_frame()[["threshold_pp", "low_dif_rate", "random_median", "p_value"]].iloc[2:4]
       threshold_pp  low_dif_rate  random_median  p_value
    2           1.0      0.428571       0.428571     0.62
    3           2.0      0.393939       0.393939     0.58
    """

    thresholds: tuple
    observed: np.ndarray
    replicates: np.ndarray
    flips: np.ndarray
    eligible: np.ndarray
    median: np.ndarray
    excess_pp: np.ndarray
    p_value: np.ndarray
    interval: tuple
    rng_entropy: Any = None

    def to_frame(self) -> pd.DataFrame:
        """Per threshold: observed rate, random median and band, excess (pp) and p."""
        return pd.DataFrame({"threshold_pp": np.asarray(self.thresholds) * 100,
                             "low_dif_rate": self.observed, "random_median": self.median,
                             "random_low": self.interval[0], "random_high": self.interval[1],
                             "excess_pp": self.excess_pp, "p_value": self.p_value})


def matched_random(folds: list[FoldTargets], pairs: list[PairSet], observed: np.ndarray, *,
                   n_resamples: int = 1000, thresholds=THRESHOLDS, rng: Any = None,
                   n_jobs: Any = None, progress: bool = False) -> MatchedRandomResult:
    """Blueprint-matched random subtests and the excess reversal rate (App. C.6, Eq. 10-11).

    Parameters
    ----------
    folds : list of FoldTargets
        The held-out representatives and frozen anchor weights of each fold (their ``cells`` are
        the blueprint).
    pairs : list of PairSet
        The frozen near-tie pairs of each fold (:func:`pair_set`).
    observed : array_like (thresholds,)
        :math:`T_{DIF}` per threshold (:attr:`RankingResult.rate`).
    n_resamples : int, default 1000
        R, the number of random subtests (Table C.8; 200 in the population perturbations).
    thresholds : sequence of float, default :data:`THRESHOLDS`
        Full-score gap thresholds (proportions).
    rng : None, int, SeedSequence or Generator
        Seeds the subtests: fixed blocks of 25 replicates, each from its own child seed.
    n_jobs : int, optional
        Workers over the blocks; results are identical for any value.
    progress : bool, default False
        Show a progress bar over the R subtests.

    Returns
    -------
    MatchedRandomResult
        Replicate rates, their median and band, the excess and the p-value per threshold.

    Notes
    -----
    Replicate r samples, in every fold, ``k_c`` items per cell uniformly without replacement
    (Eq. 34: the ``k_c`` smallest of one uniform key per item, selected per cell in linear time
    by :func:`benchkit._kernels.dif.matched_scores`) with weights ``n_c / k_c``; the same index is
    pooled over the folds (Eq. 35). The near-tie pairs are frozen from the full scores.
    ``p = (1 + #{T_r >= T_DIF}) / (R + 1)``; replicates with no eligible pair (NaN) count as not
    exceeding; with no eligible observed pair the median, excess and p are NaN.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.4, Eq. 10-11; App. C.6, Eq. 34-35. B. Phipson and G. K. Smyth (2010),
    "Permutation p-values should never be zero", Statistical Applications in Genetics and
    Molecular Biology 9(1), Article 39.

    Examples
    --------
    One fold, one eligible near-tie pair, reversed under the anchor scoring (observed rate 1):

    >>> import numpy as np
    >>> from benchkit.dif.steps import FoldTargets, matched_random, pair_set
    >>> Y = np.array([[1, 1, 1, 0], [1, 1, 0, 1], [1, 0, 1, 1], [0, 1, 1, 0], [1, 0, 0, 0]])
    >>> fold = FoldTargets(models=np.arange(4), owner=np.arange(4), family=np.array([0, 1, 0, 1]),
    ...                    Y=Y.astype(float), weights=np.array([0.0, 2.0, 0.0, 2.0, 1.0]),
    ...                    cells=np.array([0, 0, 1, 1, 2]))
    >>> pairs = pair_set(fold, max_gap=0.2)    # (0, 1) reverses under the anchors; (2, 3) ties
    >>> res = matched_random([fold], [pairs], [1.0], thresholds=(0.2,), n_resamples=99, rng=0)
    >>> res.replicates[:6, 0].tolist()          # random subtests reverse it sometimes
    [1.0, 1.0, 0.5, 0.0, 0.5, 0.5]
    >>> again = matched_random([fold], [pairs], [1.0], thresholds=(0.2,), n_resamples=99,
    ...                        rng=res.rng_entropy)
    >>> bool((again.replicates == res.replicates).all())
    True
    """
    n_jobs = check_n_jobs(n_jobs)
    R = check_int("n_resamples", n_resamples, min=1)
    root = seed_sequence(rng)
    designs = [_cell_design(ft) for ft in folds]
    out = blocked_map(_controls_block, R, rng=root, block_size=_BLOCK,
                      args=(designs, pairs, tuple(thresholds)), n_jobs=n_jobs, progress=progress,
                      desc="matched-random controls", prefer="threads")
    F = np.concatenate([o[0] for o in out])
    E = np.concatenate([o[1] for o in out])
    T = pooled_rates(F, E)
    obs = np.asarray(observed, dtype=float)
    import warnings

    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns: no eligible pair
        med = np.nanmedian(T, axis=0)
        p = (1 + np.sum(T >= obs[None, :], axis=0)) / (R + 1)
    p = np.where(np.isnan(obs), np.nan, p)  # no eligible observed pair: no test
    lo, hi = percentile_interval(T, confidence_level=0.95, axis=0)
    return MatchedRandomResult(thresholds=tuple(thresholds), observed=obs, replicates=T, flips=F,
                               eligible=E, median=med, excess_pp=100 * (obs - med), p_value=p,
                               interval=(lo, hi), rng_entropy=root.entropy)


# ------------------------------------------------------------------ composition bootstrap
def bootstrap_units(source, *, min_sources: int = 5, n_clusters: int = 100) -> np.ndarray:
    """Bootstrap unit per item (App. C.7).

    The native source when there are at least ``min_sources`` sources, else ``n_clusters``
    contiguous near-equal clusters of item order.

    Parameters
    ----------
    source : array_like (items,)
        Native source of every item.
    min_sources : int, default 5
        Sources needed to resample whole sources.
    n_clusters : int, default 100
        Contiguous clusters of a benchmark with fewer sources (the paper's single-source
        benchmarks).

    Returns
    -------
    ndarray of int64 (items,)
        The unit code of every item.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.4; App. C.7 (bootstrap units).

    Examples
    --------
    >>> from benchkit.dif.steps import bootstrap_units
    >>> bootstrap_units(["law"] * 10, n_clusters=4).tolist()     # one source: clusters
    [0, 0, 0, 1, 1, 1, 2, 2, 3, 3]
    """
    src = pd.factorize(np.asarray(source, dtype=object))[0]
    if np.unique(src).size >= min_sources:
        return src.astype(np.int64)
    n_items = src.size
    units = np.empty(n_items, dtype=np.int64)
    for u, part in enumerate(np.array_split(np.arange(n_items), min(n_clusters, n_items))):
        units[part] = u
    return units


def _boot_block(seed, start, stop, unit_stats, pairs, thresholds, B):
    g = np.random.default_rng(seed)
    n = stop - start
    N = g.multinomial(B, np.full(B, 1.0 / B), size=n).astype(np.float64)  # Eq. 36
    F = np.zeros((n, len(thresholds), len(pairs)), dtype=np.int64)
    E = np.zeros_like(F)
    for h, ((S, nb, St, nbt), ps) in enumerate(zip(unit_stats, pairs)):
        A = (N @ S) / (N @ nb)[:, None]  # Eq. 37
        At = (N @ St) / (N @ nbt)[:, None]
        F[:, :, h], E[:, :, h] = reversal_counts(ps, At, thresholds, full=A)
    return F, E


@result
class BootstrapResult:
    """Composition bootstrap of the pooled reversal rate (App. C.7).

    ``replicates`` (n_resamples, thresholds); ``interval`` the 2.5th-97.5th percentile range of the
    recomposed statistic (not a confidence interval around the fixed-benchmark estimate).

    How much the reversal rate would move if the benchmark were recomposed from its sources (or
    item clusters) with replacement, with the near-tie pairs frozen.

    Parameters
    ----------
    thresholds, observed, replicates, interval, n_units, rng_entropy
        The fields described under Attributes (built by :func:`composition_bootstrap`).

    Attributes
    ----------
    thresholds : tuple
        Full-score gap thresholds (proportions).
    observed : ndarray (thresholds,)
        The observed pooled reversal rate.
    replicates : ndarray (n_resamples, thresholds)
        The recomposed pooled rates (NaN where a replicate has no eligible pair).
    interval : tuple of ndarray
        Percentile range of the replicates at ``confidence_level`` (2.5th-97.5th by default).
    n_units : int
        Bootstrap units B (sources, or clusters).
    rng_entropy : int or None
        Entropy of the root seed of ``rng``: ``composition_bootstrap(..., rng=rng_entropy)`` draws the same
        recompositions
        after ``rng=None``, an int or a Generator. Inside :func:`run_audit` the seed is a child of
        the audit's root (repeat the audit instead).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.4; App. C.7, Eq. 36-37. B. Efron and R. J. Tibshirani (1993), An Introduction
    to the Bootstrap, Chapman & Hall/CRC.

    Examples
    --------
    How far the pooled reversal rate moves when the simulated benchmark is recomposed (it has
    fewer than five sources, so 100 contiguous item clusters are resampled):

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> audit.bootstrap.n_units, audit.bootstrap.to_frame().iloc[2:4].round(3)
    (100,    threshold_pp  observed    low   high
    2           1.0     0.429  0.077  0.563
    3           2.0     0.394  0.131  0.484)
    """

    thresholds: tuple
    observed: np.ndarray
    replicates: np.ndarray
    interval: tuple
    n_units: int
    rng_entropy: Any = None

    def to_frame(self) -> pd.DataFrame:
        """Per threshold: the observed rate and the bootstrap range (``low``, ``high``)."""
        return pd.DataFrame({"threshold_pp": np.asarray(self.thresholds) * 100,
                             "observed": self.observed, "low": self.interval[0],
                             "high": self.interval[1]})


def composition_bootstrap(folds: list[FoldTargets], pairs: list[PairSet], units: np.ndarray,
                          observed: np.ndarray, *, n_resamples: int = 2000,
                          confidence_level: float = 0.95, thresholds=THRESHOLDS, rng: Any = None,
                          n_jobs: Any = None, progress: bool = False) -> BootstrapResult:
    """Source-block composition bootstrap of the pooled reversal rate (App. C.7, Eq. 36-37).

    Parameters
    ----------
    folds : list of FoldTargets
        The held-out representatives and frozen weights of each fold.
    pairs : list of PairSet
        The frozen near-tie pairs of each fold.
    units : array_like of int (items,)
        Bootstrap unit of every item (:func:`bootstrap_units`).
    observed : array_like (thresholds,)
        The observed pooled rate per threshold (carried into the result).
    n_resamples : int, default 2000
        Bootstrap replicates (Table C.8).
    confidence_level : float, default 0.95
        Of the percentile range.
    thresholds : sequence of float, default :data:`THRESHOLDS`
        Full-score gap thresholds (proportions).
    rng : None, int, SeedSequence or Generator
        Seeds the multinomial unit counts (blocks of 100 replicates, one child seed each).
    n_jobs : int, optional
        Workers over the blocks; results are identical for any value.
    progress : bool, default False
        Show a progress bar over the bootstrap replicates.

    Returns
    -------
    BootstrapResult
        The replicate rates and their percentile range per threshold.

    Notes
    -----
    Unit multiplicities ~ Multinomial(B; 1/B). Recomposed full and anchor scores are Eq. 37; a
    pair reverses when their recomposed differences have opposite signs (ties under either rule
    leave the denominator), with the near-tie pair set frozen from the observed full scores.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.4 ("2,000 source-block bootstrap resamples"); App. C.7, Eq. 36-37.
    B. Efron and R. J. Tibshirani (1993), An Introduction to the Bootstrap, Chapman & Hall/CRC.

    Examples
    --------
    Recompose an audit's simulated benchmark from its 100 contiguous item clusters:

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> from benchkit.dif.steps import bootstrap_units, composition_bootstrap, pair_set
    >>> pairs = [pair_set(fold, max_gap=0.05) for fold in audit.folds]
    >>> res = composition_bootstrap(list(audit.folds), pairs, bootstrap_units(audit.source),
    ...                             audit.ranking.rate, n_resamples=99, rng=1)
    >>> res.to_frame().iloc[2:4].round(3)
       threshold_pp  observed    low   high
    2           1.0     0.429  0.071  0.571
    3           2.0     0.394  0.110  0.467
    """
    n_jobs = check_n_jobs(n_jobs)
    R = check_int("n_resamples", n_resamples, min=1)
    root = seed_sequence(rng)
    units = np.asarray(units, dtype=np.int64)
    B = int(units.max()) + 1
    stats = []
    for ft in folds:
        onehot = np.zeros((B, units.size))
        onehot[units, np.arange(units.size)] = 1.0
        Yf = ft.Y.astype(np.float64)
        S = onehot @ Yf
        nb = onehot.sum(1)
        St = (onehot * ft.weights[None, :]) @ Yf
        nbt = onehot @ ft.weights
        stats.append((S, nb, St, nbt))
    out = blocked_map(_boot_block, R, rng=root, block_size=100,
                      args=(stats, pairs, tuple(thresholds), B), n_jobs=n_jobs,
                      progress=progress, desc="composition bootstrap")
    F = np.concatenate([o[0] for o in out])
    E = np.concatenate([o[1] for o in out])
    T = pooled_rates(F, E)
    lo, hi = percentile_interval(T, confidence_level=confidence_level, axis=0)
    return BootstrapResult(thresholds=tuple(thresholds), observed=np.asarray(observed),
                           replicates=T, interval=(lo, hi), n_units=B, rng_entropy=root.entropy)


# ------------------------------------------------------------------ owner bootstrap
def _owner_block(seed, start, stop, owner_codes, fam_codes, values, n_fam):
    g = np.random.default_rng(seed)
    n_own = int(owner_codes.max()) + 1
    out = np.full((stop - start, values.shape[1], n_fam), np.nan)
    for r in range(stop - start):
        mult = np.bincount(g.integers(0, n_own, n_own), minlength=n_own).astype(float)
        wm = mult[owner_codes]  # every record of a sampled owner, with its multiplicity
        cnt = np.bincount(fam_codes, weights=wm, minlength=n_fam)
        for k in range(values.shape[1]):
            s = np.bincount(fam_codes, weights=wm * values[:, k], minlength=n_fam)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[r, k] = np.where(cnt > 0, s / cnt, np.nan)
    return out


@result
class OwnerBootstrapResult:
    r"""Owner bootstrap of family mean shifts (App. D.1, Eq. 42-43; Table 7).

    ``table``: per family and statistic (``score_shift_pp``, ``percentile_shift``): mean, low,
    high, n_models, n_owners. ``replicates`` (n_resamples, statistics, families).

    Whether a family gains or loses on average when scored by the low-DIF anchors, with intervals
    that resample owners (an owner's checkpoints move together). The paper finds no family with a
    consistent advantage across benchmarks.

    Parameters
    ----------
    table, replicates, families, rng_entropy
        The fields described under Attributes (built by :func:`owner_bootstrap`).

    Attributes
    ----------
    table : DataFrame
        One row per (family, statistic): ``mean`` (the observed family mean), ``low`` and
        ``high`` (empirical interval over the replicates), ``n_models`` and ``n_owners``.
    replicates : ndarray (n_resamples, statistics, families)
        The bootstrap family means :math:`\hat\mu_f^{(b)}` (Eq. 43); NaN where a replicate drew no
        owner of the family.
    families : tuple
        Family labels, sorted (the last axis of ``replicates``).
    rng_entropy : int or None
        Entropy of the root seed of ``rng``: ``owner_bootstrap(..., rng=rng_entropy)`` draws the same owner
        draws
        after ``rng=None``, an int or a Generator. Inside :func:`run_audit` the seed is a child of
        the audit's root (repeat the audit instead).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 5.3; App. D.1, Eq. 42-43 ("Owner bootstrap"), App. B.4.

    Examples
    --------
    The family score shifts of an audit, with owner-bootstrap intervals:

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> audit.owner_shifts.to_frame()[["family", "statistic", "mean", "low", "high"]].round(2).head(2)
      family       statistic  mean   low  high
    0  gemma  score_shift_pp  0.13 -1.93  3.06
    1  llama  score_shift_pp -0.78 -2.92  1.70
    """

    table: pd.DataFrame
    replicates: np.ndarray
    families: tuple
    rng_entropy: Any = None

    def to_frame(self) -> pd.DataFrame:
        """The per-family table (:attr:`table`), a copy."""
        return self.table.copy()


def owner_bootstrap(values, family, owner, *, names=("score_shift_pp",), n_resamples: int = 2000,
                    confidence_level: float = 0.95, rng: Any = None, n_jobs: Any = None,
                    progress: bool = False) -> OwnerBootstrapResult:
    """Resample owners with replacement and average per family (App. D.1, Eq. 43).

    Parameters
    ----------
    values : array_like (records,) or (records, statistics)
        Per-representative shifts, e.g. 100 * (anchor - full) score and percentile-rank shifts.
    family : array_like (records,)
        Family label of every record.
    owner : array_like (records,)
        Owner of every record (the resampling unit).
    names : sequence of str
        Names of the statistics (columns of ``values``).
    n_resamples : int, default 2000
        Bootstrap replicates (App. D.1).
    confidence_level : float, default 0.95
        Of the empirical interval.
    rng : None, int, SeedSequence or Generator
        Seeds the owner draws (blocks of 100 replicates, one child seed each).
    n_jobs : int, optional
        Workers over the blocks; results are identical for any value.
    progress : bool, default False
        Show a progress bar over the owner resamples.

    Returns
    -------
    OwnerBootstrapResult
        Per family and statistic: the mean and its owner-bootstrap interval.

    Notes
    -----
    Each replicate draws as many owners as there are, with replacement, and includes every record
    of a drawn owner (with its multiplicity); the family mean is then Eq. 43.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", App. D.1, Eq. 42-43. B. Efron and R. J. Tibshirani (1993), An Introduction to the
    Bootstrap, Chapman & Hall/CRC (resampling clusters).

    Examples
    --------
    >>> from benchkit.dif.steps import owner_bootstrap
    >>> shifts = [1.0, -0.5, 2.0, 0.5, -1.0, 0.0]             # anchor minus full score, pp
    >>> family = ["llama", "llama", "qwen", "qwen", "qwen", "llama"]
    >>> owner = ["o1", "o2", "o3", "o3", "o4", "o5"]          # o3 uploaded two qwen models
    >>> res = owner_bootstrap(shifts, family, owner, n_resamples=200, rng=0)
    >>> res.to_frame()[["family", "mean", "low", "high"]].round(2)
      family  mean  low  high
    0  llama  0.17 -0.5  1.00
    1   qwen  0.50 -1.0  1.25
    """
    n_jobs = check_n_jobs(n_jobs)
    v = np.asarray(values, dtype=float)
    v = v[:, None] if v.ndim == 1 else v
    if len(names) != v.shape[1]:
        raise BenchkitValueError(f"names has {len(names)} entries for {v.shape[1]} statistics")
    fam_codes, fams = pd.factorize(np.asarray(family, dtype=object), sort=True)
    own_codes, _owns = pd.factorize(np.asarray(owner, dtype=object), sort=True)
    if fam_codes.size != v.shape[0] or own_codes.size != v.shape[0]:
        raise BenchkitValueError("values, family and owner must have the same length")
    R = check_int("n_resamples", n_resamples, min=1)
    root = seed_sequence(rng)
    out = blocked_map(_owner_block, R, rng=root, block_size=100,
                      args=(own_codes, fam_codes, v, len(fams)), n_jobs=n_jobs,
                      progress=progress, desc="owner bootstrap")
    rep = np.concatenate(out)
    lo, hi = percentile_interval(rep, confidence_level=confidence_level, axis=0)
    rows = []
    for k, nm in enumerate(names):
        for f, fam in enumerate(fams):
            m = fam_codes == f
            rows.append({"family": fam, "statistic": nm, "mean": float(v[m, k].mean()),
                         "low": float(lo[k, f]), "high": float(hi[k, f]),
                         "n_models": int(m.sum()), "n_owners": int(np.unique(own_codes[m]).size)})
    return OwnerBootstrapResult(table=pd.DataFrame(rows), replicates=rep,
                                families=tuple(fams.tolist()), rng_entropy=root.entropy)
