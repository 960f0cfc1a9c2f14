"""Cross-half signature replication (paper 001, Sec. 4.2, App. D.3, Eq. 47-53).

Do the family-DIF signatures found in one owner half reappear in the other?
:func:`replicate_signatures` compares the two halves' within-cell centered signatures (median
Spearman rho, top-set overlap, advantaged-family agreement) against within-cell permutations
(:class:`Replication`); :func:`within_cell_center` (Eq. 49) and :func:`top_fraction_sets`
(Eq. 51) are its steps.
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
from benchkit.dif._anchors import FoldAnchors
from benchkit.dif._anchors import easiness_cells

__all__ = ["Replication", "replicate_signatures", "top_fraction_sets", "within_cell_center"]


def within_cell_center(delta: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """Remove the mean effect of every family within every common cell (Eq. 49)."""
    _, inv = np.unique(cells, return_inverse=True)
    cnt = np.bincount(inv).astype(float)
    out = np.empty_like(delta, dtype=float)
    for f in range(delta.shape[1]):
        out[:, f] = delta[:, f] - (np.bincount(inv, weights=delta[:, f]) / cnt)[inv]
    return out


def top_fraction_sets(D: np.ndarray, cells: np.ndarray, fraction: float = 0.2) -> np.ndarray:
    """Within every cell, the ``max(1, round(fraction n_c))`` largest-``D`` items.

    Ties: smaller index first.
    """
    order = np.lexsort((np.arange(D.size), -D, cells))
    cs = cells[order]
    starts = np.r_[0, np.flatnonzero(np.diff(cs)) + 1]
    n_c = np.diff(np.r_[starts, cs.size])
    k_c = np.maximum(1, np.floor(fraction * n_c + 0.5)).astype(np.int64)
    rank = np.arange(cs.size) - np.repeat(starts, n_c)
    out = np.zeros(D.size, dtype=bool)
    out[order] = rank < np.repeat(k_c, n_c)
    return out


def _spearman_cols(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    ra = rankdata(a, axis=0)
    rb = rankdata(b, axis=0)
    ra -= ra.mean(0)
    rb -= rb.mean(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (ra * rb).sum(0) / np.sqrt((ra ** 2).sum(0) * (rb ** 2).sum(0))


def _centered_ranks(a: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    r = rankdata(a, axis=0)
    return r - r.mean(0)


def _spearman_centered(ra: np.ndarray, rb: np.ndarray) -> np.ndarray:
    """Column-wise Pearson correlation of centered average ranks (Spearman's rho).

    Centered average ranks are multiples of 1/2, so every sum here is exact in float64 and the
    value does not depend on the order of the rows: the ranks of a row permutation are the
    permuted ranks, which lets the permutation null reuse one ranking (App. D.3, Eq. 53).
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        return (ra * rb).sum(0) / np.sqrt((ra ** 2).sum(0) * (rb ** 2).sum(0))


def _rep_stats(dD, dV, HD, HV, amD, amV, ranked=False):
    """(median rho, O, A); ``ranked=True`` when dD, dV already hold centered ranks."""
    rho = np.nanmedian(_spearman_centered(dD, dV) if ranked else _spearman_cols(dD, dV))
    both = HD & HV
    overlap = both.sum() / HD.sum() if HD.sum() else np.nan
    A = np.mean(amD[both] == amV[both]) if both.any() else np.nan
    return np.array([rho, overlap, A])


def _perm_block(seed, start, stop, rD, rV, HD, HV, amD, amV, cells):
    """Permutation replicates of (median rho, O, A).

    ``rD``, ``rV`` are the centered ranks of the within-cell-centered effects: ranking commutes
    with the permutation (see :func:`_spearman_centered`).
    """
    g = np.random.default_rng(seed)
    groups = [np.flatnonzero(cells == c) for c in np.unique(cells)]
    out = np.empty((stop - start, 3))
    for r in range(stop - start):
        perm = np.arange(cells.size)
        for idx in groups:
            perm[idx] = g.permutation(idx)
        out[r] = _rep_stats(rD, rV[perm], HD, HV[perm], amD, amV[perm], ranked=True)
    return out


@result
class Replication:
    """Owner-disjoint replication of residual item-family signatures (Table 2, App. D.3).

    Do the item x family effects estimated in one owner half recur in the other? Correlations
    above 0, top-20% overlap above 20 % and small permutation p-values mean the signatures
    replicate (which alone does not imply a ranking effect).

    Parameters
    ----------
    families, rho, median_rho, overlap, agreement, p_values, null, cells, high_D, high_V
        The fields described under Attributes (built by :func:`replicate_signatures`).
    argmax_D, argmax_V, rng_entropy
        The fields described under Attributes.

    Attributes
    ----------
    families : tuple of str
        The families estimated in both halves, sorted (the entries of ``rho``).
    rho : ndarray (families,)
        Family-wise Spearman correlations of within-cell-centered effects (Eq. 50).
    median_rho : float
        Median of ``rho``: the benchmark-level replication statistic (Table 2's median rho;
        0 under independence).
    overlap : float
        Top-20% overlap precision O (Eq. 51): share of the discovery half's within-cell top items
        also in the validation half's (0.2 under independence).
    agreement : float
        Advantaged-family agreement A (Eq. 52) among the items in both top sets (no fixed chance
        level; see ``p_values``).
    p_values : ndarray (3,)
        One-sided within-cell permutation p-values (Eq. 53) of (median rho, O, A).
    null : ndarray (n_resamples, 3)
        The permutation replicates of (median rho, O, A).
    cells : ndarray (items,)
        Common source x easiness cells from the averaged intercepts (Eq. 47-48).
    high_D : ndarray of bool (items,)
        Within-cell top-fraction (20 %) set of the discovery half (half 0).
    high_V : ndarray of bool (items,)
        The same for the validation half (half 1).
    argmax_D : ndarray of int (items,)
        Index (into ``families``) of the most advantaged family per item in the discovery half.
    argmax_V : ndarray of int (items,)
        The same in the validation half.
    rng_entropy : int or None
        Entropy of the root seed of ``rng``: passing ``rng=rng_entropy`` repeats the permutations
        when ``rng`` was None, an int or a Generator (inside :func:`run_audit` the seed is a child
        of the audit's root: repeat the audit).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 4.2, Sec. 5.4, Table 2; App. D.3, Eq. 47-53.

    Examples
    --------
    Signatures of an audit's two owner halves on simulated data with planted item effects:

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> audit.replication.to_frame().round(3)
              statistic  value  p_value
    0        median_rho  0.178     0.01
    1       top_overlap  0.542     0.01
    2  family_agreement  0.846     0.05
    """

    families: tuple
    rho: np.ndarray
    median_rho: float
    overlap: float
    agreement: float
    p_values: np.ndarray
    null: np.ndarray
    cells: np.ndarray
    high_D: np.ndarray
    high_V: np.ndarray
    argmax_D: np.ndarray
    argmax_V: np.ndarray
    rng_entropy: Any = None

    def to_frame(self) -> pd.DataFrame:
        """Table 2's row: (median rho, top overlap, family agreement) with their p-values."""
        return pd.DataFrame({"statistic": ["median_rho", "top_overlap", "family_agreement"],
                             "value": [self.median_rho, self.overlap, self.agreement],
                             "p_value": self.p_values})


def _common_families(disc: FoldAnchors, val: FoldAnchors):
    """Families present in both halves (sorted) and their column indices in each half.

    The owner halves can hold different family sets (a family whose owners all fell into one half);
    cross-half comparisons use the families both halves estimated.
    """
    fams = tuple(sorted(set(disc.families) & set(val.families)))
    if len(fams) < 2:
        raise BenchkitValueError(
            f"cross-half replication needs at least 2 families estimated in both halves; discovery "
            f"has {list(disc.families)}, validation has {list(val.families)}")
    iD = np.array([list(disc.families).index(f) for f in fams])
    iV = np.array([list(val.families).index(f) for f in fams])
    return fams, iD, iV


def replicate_signatures(disc: FoldAnchors, val: FoldAnchors, source, *, top: float = 0.2,
                         n_strata: int = 4, n_resamples: int = 500, rng: Any = None,
                         n_jobs: Any = None, progress: bool = False) -> Replication:
    """Cross-half replication statistics and their within-cell permutation p-values (App. D.3).

    Parameters
    ----------
    disc : FoldAnchors
        The discovery half's anchors (their final signatures ``b``, ``delta``, ``D``).
    val : FoldAnchors
        The validation half's anchors.
    source : array_like (items,)
        Native source of every item (the common cells).
    top : float, default 0.2
        Within-cell top fraction of the high-DIF sets (Eq. 51).
    n_strata : int, default 4
        Easiness quartiles of the common cells (Eq. 48).
    n_resamples : int, default 500
        Within-cell permutations (App. D.3).
    rng : None, int, SeedSequence or Generator
        Seeds the permutations (blocks of 50, one child seed each).
    n_jobs : int, optional
        Workers over the blocks; results are identical for any value.
    progress : bool, default False
        Show a progress bar over the permutations.

    Returns
    -------
    Replication
        The three statistics, their permutation null and p-values, the cells, top sets and
        advantaged families.

    Notes
    -----
    Uses each half's stored final signatures (the step-4 refit). DIF magnitude for the top sets is
    each half's :math:`D_i`; top sets hold ``max(1, round(top * n_c))`` items per common cell. The
    permutation moves the complete validation signature (effects, magnitude, advantaged family)
    among items of the same common cell.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 4.2, Table 2; App. D.3, Eq. 47-53. C. Spearman (1904), "The proof and
    measurement of association between two things", American Journal of Psychology 15(1), 72-101.

    Examples
    --------
    Cross-half replication on simulated data with planted item x family effects:

    >>> from benchkit.dif.steps import build_population, cross_fit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> pop = build_population(sim.model_ids, sim.Y.mean(0), min_family_size=5)
    >>> cf = cross_fit(sim.Y, pop, sim.source, K=(2, 2), rng=0)
    >>> from benchkit.dif.steps import replicate_signatures
    >>> rep = replicate_signatures(cf.anchors[0], cf.anchors[1], sim.source, n_resamples=99, rng=0)
    >>> round(float(rep.median_rho), 3), round(float(rep.overlap), 3), rep.p_values.round(2).tolist()
    (0.174, 0.542, [0.01, 0.01, 0.09])
    """
    n_jobs = check_n_jobs(n_jobs)
    R = check_int("n_resamples", n_resamples, min=1)
    root = seed_sequence(rng)
    fams, iD, iV = _common_families(disc, val)
    cells = easiness_cells((disc.b + val.b) / 2, source, n_strata=n_strata)  # Eq. 47-48
    dD = within_cell_center(disc.delta[:, iD], cells)
    dV = within_cell_center(val.delta[:, iV], cells)
    HD = top_fraction_sets(disc.D, cells, top)
    HV = top_fraction_sets(val.D, cells, top)
    amD, amV = disc.delta[:, iD].argmax(1), val.delta[:, iV].argmax(1)
    obs = _rep_stats(dD, dV, HD, HV, amD, amV)
    out = blocked_map(_perm_block, R, rng=root, block_size=50,
                      args=(_centered_ranks(dD), _centered_ranks(dV), HD, HV, amD, amV, cells),
                      n_jobs=n_jobs, progress=progress,
                      desc="signature permutations")
    null = np.concatenate(out)
    p = (1 + np.sum(null >= obs[None, :], axis=0)) / (R + 1)
    return Replication(families=fams, rho=_spearman_cols(dD, dV), median_rho=obs[0],
                       overlap=obs[1], agreement=obs[2], p_values=p, null=null, cells=cells,
                       high_D=HD, high_V=HV, argmax_D=amD, argmax_V=amV, rng_entropy=root.entropy)
