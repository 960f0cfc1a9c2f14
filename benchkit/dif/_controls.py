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
    (anchors of the cell) and the weight n_c / k_c of a drawn item, and the 0/1 block as uint8.
    """
    cells = np.asarray(ft.cells, dtype=np.int64)
    uc, inv = np.unique(cells, return_inverse=True)
    items = np.argsort(inv, kind="stable").astype(np.int64)
    ptr = np.searchsorted(inv[items], np.arange(uc.size + 1)).astype(np.int64)
    n_c = np.bincount(inv, minlength=uc.size)
    k_c = np.bincount(inv, weights=ft.weights > 0, minlength=uc.size).astype(np.int64)
    w_c = n_c / np.maximum(k_c, 1)
    return cells.astype(np.float64), ptr, items, k_c, w_c, np.ascontiguousarray(ft.Y, dtype=np.uint8)


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

    Attributes
    ----------
    thresholds : tuple
    observed : ndarray (thresholds,)
        :math:`T_{DIF}`.
    replicates : ndarray (R, thresholds)
        :math:`T_r` (pooled over folds, Eq. 35).
    flips, eligible : ndarray (R, thresholds, folds)
    median, excess_pp, p_value : ndarray (thresholds,)
        Median :math:`T_r`, :math:`\Delta_{pp}` (Eq. 10), Phipson-Smyth p (Eq. 11).
    interval : tuple of ndarray
        2.5th and 97.5th percentiles of :math:`T_r`.
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

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"threshold_pp": np.asarray(self.thresholds) * 100,
                             "low_dif_rate": self.observed, "random_median": self.median,
                             "random_low": self.interval[0], "random_high": self.interval[1],
                             "excess_pp": self.excess_pp, "p_value": self.p_value})


def matched_random(folds: list[FoldTargets], pairs: list[PairSet], observed: np.ndarray, *,
                   n_resamples: int = 1000, thresholds=THRESHOLDS, rng: Any = None,
                   n_jobs: Any = None, progress: bool = False) -> MatchedRandomResult:
    """Blueprint-matched random subtests and the excess reversal rate (App. C.6, Eq. 10-11).

    Notes
    -----
    Replicate r samples, in every fold, ``k_c`` items per cell uniformly without replacement
    (Eq. 34: the ``k_c`` smallest of one uniform key per item, selected per cell in linear time
    by :func:`benchkit._kernels.dif.matched_scores`) with weights ``n_c / k_c``; the same index is
    pooled over the folds (Eq. 35). The near-tie pairs are frozen from the full scores.
    ``p = (1 + #{T_r >= T_DIF}) / (R + 1)``; replicates with no eligible pair (NaN) count as not
    exceeding; with no eligible observed pair the median, excess and p are NaN.
    """
    n_jobs = check_n_jobs(n_jobs)
    R = check_int("n_resamples", n_resamples, min=1)
    designs = [_cell_design(ft) for ft in folds]
    out = blocked_map(_controls_block, R, rng=rng, block_size=_BLOCK,
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
                               interval=(lo, hi))


# ------------------------------------------------------------------ composition bootstrap
def bootstrap_units(source, *, min_sources: int = 5, n_clusters: int = 100) -> np.ndarray:
    """Bootstrap unit per item (App. C.7).

    The native source when there are at least ``min_sources`` sources, else ``n_clusters``
    contiguous near-equal clusters of item order.
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
    """

    thresholds: tuple
    observed: np.ndarray
    replicates: np.ndarray
    interval: tuple
    n_units: int

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"threshold_pp": np.asarray(self.thresholds) * 100,
                             "observed": self.observed, "low": self.interval[0],
                             "high": self.interval[1]})


def composition_bootstrap(folds: list[FoldTargets], pairs: list[PairSet], units: np.ndarray,
                          observed: np.ndarray, *, n_resamples: int = 2000,
                          confidence_level: float = 0.95, thresholds=THRESHOLDS, rng: Any = None,
                          n_jobs: Any = None, progress: bool = False) -> BootstrapResult:
    """Source-block composition bootstrap of the pooled reversal rate (App. C.7, Eq. 36-37).

    Notes
    -----
    Unit multiplicities ~ Multinomial(B; 1/B). Recomposed full and anchor scores are Eq. 37; a
    pair reverses when their recomposed differences have opposite signs (ties under either rule
    leave the denominator), with the near-tie pair set frozen from the observed full scores.
    """
    n_jobs = check_n_jobs(n_jobs)
    R = check_int("n_resamples", n_resamples, min=1)
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
    out = blocked_map(_boot_block, R, rng=rng, block_size=100,
                      args=(stats, pairs, tuple(thresholds), B), n_jobs=n_jobs,
                      progress=progress, desc="composition bootstrap")
    F = np.concatenate([o[0] for o in out])
    E = np.concatenate([o[1] for o in out])
    T = pooled_rates(F, E)
    lo, hi = percentile_interval(T, confidence_level=confidence_level, axis=0)
    return BootstrapResult(thresholds=tuple(thresholds), observed=np.asarray(observed),
                           replicates=T, interval=(lo, hi), n_units=B)


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
    """Owner bootstrap of family mean shifts (App. D.1, Eq. 42-43; Table 7).

    ``table``: per family and statistic (``score_shift_pp``, ``percentile_shift``): mean, low,
    high, n_models, n_owners. ``replicates`` (n_resamples, statistics, families).
    """

    table: pd.DataFrame
    replicates: np.ndarray
    families: tuple

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()


def owner_bootstrap(values, family, owner, *, names=("score_shift_pp",), n_resamples: int = 2000,
                    confidence_level: float = 0.95, rng: Any = None, n_jobs: Any = None,
                    progress: bool = False) -> OwnerBootstrapResult:
    """Resample owners with replacement and average per family (App. D.1, Eq. 43).

    Parameters
    ----------
    values : array_like (records,) or (records, statistics)
        Per-representative shifts, e.g. 100 * (anchor - full) score and percentile-rank shifts.
    family, owner : array_like (records,)
    names : sequence of str
        Names of the statistics (columns of ``values``).
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
    out = blocked_map(_owner_block, R, rng=rng, block_size=100,
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
                                families=tuple(fams.tolist()))
