"""Robustness and replication (paper 001, Sec. 4.1-4.2, App. D.2-D.3).

Population perturbations with K frozen (Eq. 44-46), cross-half signature replication with
within-cell permutations (Eq. 47-53), source-level family effects (Eq. 54-55) and the exact source
decomposition of family score shifts (Eq. 56-57).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from benchkit._parallel import blocked_map
from benchkit._parallel import check_n_jobs
from benchkit._random import seed_sequence
from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.dif._anchors import FoldAnchors
from benchkit.dif._anchors import easiness_cells

__all__ = [
    "PERTURBATIONS",
    "FoldSwapCheck",
    "Replication",
    "SourceSupport",
    "fold_swap_signs",
    "replicate_signatures",
    "robustness_pass",
    "source_decomposition",
    "source_effects",
    "source_support",
    "top_fraction_sets",
    "within_cell_center",
]


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


# ------------------------------------------------------------------ signature replication
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


# ------------------------------------------------------------------ source attribution
def source_effects(disc: FoldAnchors, val: FoldAnchors, source, *, min_items: int = 20,
                   n_select: int = 2) -> pd.DataFrame:
    """Source-level family effects and their held-out sign replication (Eq. 54-55).

    For each family, the ``n_select`` most positive and most negative discovery source effects
    (sources with at least ``min_items`` items) are checked for the same sign in validation.

    Parameters
    ----------
    disc : FoldAnchors
        The discovery half's anchors (final signatures).
    val : FoldAnchors
        The validation half's anchors.
    source : array_like (items,)
        Native source of every item.
    min_items : int, default 20
        Sources with fewer items are not eligible (App. D.3).
    n_select : int, default 2
        Most positive and most negative discovery effects selected per family.

    Returns
    -------
    DataFrame
        One row per selected (family, source): ``selected_as`` (positive / negative),
        ``gamma_discovery``, ``gamma_validation`` (Eq. 55) and ``replicated`` (same nonzero sign);
        the input of :func:`source_support`.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 4.2, Sec. 5.4 (58 of 60 signs replicate); App. D.3, Eq. 54-55.

    Examples
    --------
    One most negative and one most positive source per family, checked in the other half:

    >>> from benchkit.dif.steps import build_population, cross_fit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> pop = build_population(sim.model_ids, sim.Y.mean(0), min_family_size=5)
    >>> cf = cross_fit(sim.Y, pop, sim.source, K=(2, 2), rng=0)
    >>> from benchkit.dif.steps import source_effects
    >>> eff = source_effects(cf.anchors[0], cf.anchors[1], sim.source, n_select=1)
    >>> eff[["family", "source", "selected_as", "replicated"]].head(4)
        family    source selected_as  replicated
    0    gemma  source00    negative        True
    1    gemma  source01    positive        True
    2    llama  source02    negative        True
    3    llama  source03    positive        True
    """
    src = np.asarray(source, dtype=object)
    labels, inv = np.unique(src.astype(str), return_inverse=True)
    n_s = np.bincount(inv)
    rows = []
    gam = []
    for fa in (disc, val):
        ds = fa.delta - fa.delta.mean(0, keepdims=True)  # Eq. 54
        gam.append(np.stack([np.bincount(inv, weights=ds[:, f]) / n_s
                             for f in range(ds.shape[1])], 1))  # Eq. 55
    ok = n_s >= min_items
    fams, iD, iV = _common_families(disc, val)
    for fam, fd, fv in zip(fams, iD, iV):
        gd, gv = gam[0][:, fd], gam[1][:, fv]
        cand = np.flatnonzero(ok)
        order = cand[np.argsort(gd[cand], kind="stable")]
        picks = [(s, "negative") for s in order[:n_select]] + \
                [(s, "positive") for s in order[::-1][:n_select]]
        for s, kind in picks:
            rows.append({"family": fam, "source": labels[s], "selected_as": kind,
                         "gamma_discovery": gd[s], "gamma_validation": gv[s],
                         "replicated": bool(np.sign(gd[s]) == np.sign(gv[s]) and gv[s] != 0)})
    return pd.DataFrame(rows)


def source_decomposition(Y_target: np.ndarray, family_target: np.ndarray, weights: np.ndarray,
                         source, families: tuple) -> pd.DataFrame:
    """Exact source contributions to family score shifts (Eq. 56-57) for one direction.

    ``Y_target`` (items, target models), ``family_target`` labels of the target models,
    ``weights`` the frozen anchor weights learnt on the other half (they sum to I). Returns one
    row per (family, source) with ``contribution_pp``; per family the contributions sum to
    ``100 (mean anchor score - mean full score)`` (checked in the tests).

    Which sources move a family's score when the anchors replace the full benchmark.

    Parameters
    ----------
    Y_target : ndarray (items, target models)
        0/1 responses of the target half's representatives.
    family_target : array_like (target models,)
        Their family labels.
    weights : ndarray (items,)
        The anchor weights learnt on the other half (summing to the number of items).
    source : array_like (items,)
        Native source of every item.
    families : tuple of str
        The families to decompose (those absent from the targets are skipped).

    Returns
    -------
    DataFrame
        One row per (family, source): ``contribution_pp`` (Eq. 56).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 5.4; App. D.3, Eq. 56-57.

    Examples
    --------
    Half 0's anchors scoring half 1's models; per family the contributions add up (Eq. 57):

    >>> from benchkit.dif.steps import build_population, cross_fit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> pop = build_population(sim.model_ids, sim.Y.mean(0), min_family_size=5)
    >>> cf = cross_fit(sim.Y, pop, sim.source, K=(2, 2), rng=0)
    >>> from benchkit.dif.steps import source_decomposition
    >>> fold = cf.folds[0]
    >>> family = pop.table["family"].to_numpy(object)[fold.models]
    >>> dec = source_decomposition(fold.Y, family, fold.weights, sim.source, pop.families)
    >>> dec.groupby("family")["contribution_pp"].sum().round(3).head(2)       # Eq. 57
    family
    gemma    1.510
    llama    1.083
    Name: contribution_pp, dtype: float64
    """
    src = np.asarray(source, dtype=object).astype(str)
    labels, inv = np.unique(src, return_inverse=True)
    n_items = Y_target.shape[0]
    fam = np.asarray(family_target, dtype=object)
    rows = []
    for f in families:
        m = fam == f
        if not m.any():
            continue
        per_item = (weights - 1.0) * Y_target[:, m].sum(1)  # sum over models of (w_i - 1) Y_im
        C = 100.0 * np.bincount(inv, weights=per_item, minlength=labels.size) / (n_items * m.sum())
        for s, lab in enumerate(labels):
            rows.append({"family": f, "source": lab, "contribution_pp": C[s]})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ D.3 support rules
def _selected_frame(effects, name: str) -> pd.DataFrame:
    """One frame with a ``benchmark`` column from a frame or a mapping of frames."""
    from collections.abc import Mapping

    if isinstance(effects, pd.DataFrame):
        if "benchmark" in effects.columns:
            return effects.copy()
        return effects.assign(benchmark="benchmark")
    if not isinstance(effects, Mapping):
        raise BenchkitTypeError(f"{name} must be a DataFrame or a mapping benchmark -> DataFrame; "
                                f"got {describe(effects)}")
    if len(effects) == 0:
        raise BenchkitValueError(f"{name} must hold at least one benchmark; got an empty mapping")
    parts = []
    for b, f in effects.items():
        if not isinstance(f, pd.DataFrame):
            raise BenchkitTypeError(f"{name}[{b!r}] must be a DataFrame; got {describe(f)}")
        parts.append(f.assign(benchmark=b))
    return pd.concat(parts, ignore_index=True)


@result
class SourceSupport:
    """Pooled support of source-level family effects (App. D.3, after Eq. 55).

    Whether the discovery-selected extreme source effects keep their signs in the validation half
    often enough, pooled over the source-rich benchmarks (the paper: 58 of 60 checks).

    Parameters
    ----------
    per_benchmark, n_selected, n_replicated, rate, p_value, n_benchmarks_meeting, supported
        The fields described under Attributes (built by :func:`source_support`).
    settings
        The field described under Attributes.

    Attributes
    ----------
    per_benchmark : DataFrame
        Per benchmark: ``n_selected``, ``n_replicated``, ``rate`` and its one-sided exact binomial
        ``p_value`` (H0: sign replication with probability 1/2), ``meets_benchmark_rate``.
    n_selected : int
        Selected source effects, pooled over benchmarks.
    n_replicated : int
        Of those, the ones whose sign replicated.
    rate : float
        Pooled sign-replication rate ``n_replicated / n_selected``.
    p_value : float
        Its one-sided exact binomial p (H0: each sign replicates with probability 1/2).
    n_benchmarks_meeting : int
        Benchmarks with a rate of at least ``min_benchmark_rate``.
    supported : bool
        ``rate >= min_rate`` and ``p_value <= alpha`` and ``n_benchmarks_meeting >=
        min_benchmarks``.
    settings : dict
        The thresholds used (``min_rate``, ``alpha``, ``min_benchmark_rate``,
        ``min_benchmarks``).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 5.4; App. D.3 ("Source-level family effects").

    Examples
    --------
    Benchmark B keeps too few signs, so only one benchmark meets its rate:

    >>> import pandas as pd
    >>> from benchkit.dif.steps import source_support
    >>> eff = {"A": pd.DataFrame({"replicated": [True] * 18 + [False] * 2}),
    ...        "B": pd.DataFrame({"replicated": [True] * 9 + [False] * 11})}
    >>> res = source_support(eff)
    >>> res.rate, res.n_benchmarks_meeting, res.supported
    (0.675, 1, False)
    """

    per_benchmark: pd.DataFrame
    n_selected: int
    n_replicated: int
    rate: float
    p_value: float
    n_benchmarks_meeting: int
    supported: bool
    settings: dict

    def to_frame(self) -> pd.DataFrame:
        """The per-benchmark rows followed by a ``pooled`` row (with ``supported``)."""
        pooled = pd.DataFrame([{"benchmark": "pooled", "n_selected": self.n_selected,
                                "n_replicated": self.n_replicated, "rate": self.rate,
                                "p_value": self.p_value, "meets_benchmark_rate": None,
                                "supported": self.supported}])
        per = self.per_benchmark.astype({"meets_benchmark_rate": object}).assign(supported=None)
        return pd.concat([per, pooled.astype({"supported": object})], ignore_index=True)


def source_support(effects, *, min_rate: float = 0.70, alpha: float = 0.05,
                   min_benchmark_rate: float = 0.65, min_benchmarks: int = 2) -> SourceSupport:
    r"""The pooled binomial support rule for source-level family effects (App. D.3).

    Parameters
    ----------
    effects : DataFrame or mapping of str to DataFrame
        :func:`source_effects` tables (one per source-rich benchmark: the paper uses MMLU-Pro, BBH
        and MMLU), each with a boolean ``replicated`` column: the discovery-selected extreme source
        effects and whether each kept its sign in the validation half. A single frame is one
        benchmark unless it has a ``benchmark`` column.
    min_rate : float
        Pooled sign-replication rate required (0.70).
    alpha : float
        Level of the pooled one-sided exact binomial test (0.05).
    min_benchmark_rate, min_benchmarks : float, int
        At least ``min_benchmarks`` (2) benchmarks must replicate at least ``min_benchmark_rate``
        (0.65) of their selected effects.

    Returns
    -------
    SourceSupport

    Notes
    -----
    Paper 001, App. D.3 ("Source-level family effects", Eq. 54-55): "Pooled support requires at
    least 70% sign replication with a one-sided exact binomial :math:`p \le 0.05`, together with
    at least 65% replication in at least two of the three source-rich benchmarks." Reading: the
    binomial null is a sign replicated with probability 1/2 (:func:`scipy.stats.binomtest`,
    ``alternative="greater"``), the selected effects counted as independent trials; a
    validation effect of exactly zero counts as not replicated (as :func:`source_effects` does).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 5.4; App. D.3 ("Source-level family effects", Eq. 54-55).

    Examples
    --------
    Two benchmarks keep 18 and 14 of their 20 selected signs:

    >>> import pandas as pd
    >>> from benchkit.dif.steps import source_support
    >>> eff = {"A": pd.DataFrame({"replicated": [True] * 18 + [False] * 2}),
    ...        "B": pd.DataFrame({"replicated": [True] * 14 + [False] * 6})}
    >>> s = source_support(eff)
    >>> s.rate, s.n_benchmarks_meeting, s.supported
    (0.8, 2, True)
    """
    from scipy.stats import binomtest

    from benchkit._validation import check_probability

    min_rate = check_probability("min_rate", min_rate)
    alpha = check_probability("alpha", alpha)
    min_benchmark_rate = check_probability("min_benchmark_rate", min_benchmark_rate)
    min_benchmarks = check_int("min_benchmarks", min_benchmarks, min=1)
    tab = _selected_frame(effects, "effects")
    if "replicated" not in tab.columns:
        raise BenchkitValueError("effects must have a boolean 'replicated' column (see "
                                 f"source_effects); got columns {list(tab.columns)}")
    rep = tab["replicated"]
    if not rep.isin([True, False]).all():
        raise BenchkitValueError("effects['replicated'] must hold booleans; got values "
                                 f"{sorted(set(map(repr, rep.unique())))[:5]}")
    rep = rep.astype(bool)
    rows = []
    for b, r in rep.groupby(tab["benchmark"], sort=False):
        n, k = int(r.size), int(r.sum())
        rows.append({"benchmark": b, "n_selected": n, "n_replicated": k, "rate": k / n,
                     "p_value": float(binomtest(k, n, 0.5, alternative="greater").pvalue),
                     "meets_benchmark_rate": bool(k / n >= min_benchmark_rate)})
    per = pd.DataFrame(rows)
    n, k = int(rep.size), int(rep.sum())
    if n == 0:
        raise BenchkitValueError("effects hold no selected source effect")
    rate = k / n
    p = float(binomtest(k, n, 0.5, alternative="greater").pvalue)
    meeting = int(per["meets_benchmark_rate"].sum())
    return SourceSupport(per_benchmark=per, n_selected=n, n_replicated=k, rate=rate, p_value=p,
                         n_benchmarks_meeting=meeting,
                         supported=bool(rate >= min_rate and p <= alpha and meeting >= min_benchmarks),
                         settings={"min_rate": min_rate, "alpha": alpha,
                                   "min_benchmark_rate": min_benchmark_rate,
                                   "min_benchmarks": min_benchmarks})


@result
class FoldSwapCheck:
    """Sign stability of the largest exact source contributions across folds (App. D.3, Eq. 56-57).

    Whether the sources that move a family's score most in one cross-fitting direction move it
    the same way in the other (the paper: 43 of 60 checks).

    Parameters
    ----------
    table, directions
        The fields described under Attributes (built by :func:`fold_swap_signs`).

    Attributes
    ----------
    table : DataFrame
        One row per selected (family, source): ``selected_as`` (positive / negative),
        ``contribution_pp`` in the discovery-to-validation direction, ``swapped_pp`` in the
        swapped direction, ``same_sign``.
    n_checked : int
        Selected contributions (a property).
    n_same : int
        Of those, the ones keeping their sign (a property).
    rate : float
        Share of selected contributions keeping their sign after the swap (NaN when none).
    directions : tuple of str
        ``(forward, swapped)`` direction labels.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 5.4; App. D.3 ("Exact source contribution to score shifts").

    Examples
    --------
    The check on an audit's exact source decomposition (both cross-fitting directions):

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> from benchkit.dif.steps import fold_swap_signs
    >>> check = fold_swap_signs(audit.decomposition)
    >>> check.n_checked, check.n_same, check.rate
    (16, 8, 0.5)
    """

    table: pd.DataFrame
    directions: tuple

    @property
    def n_checked(self) -> int:
        """Selected contributions checked."""
        return len(self.table)

    @property
    def n_same(self) -> int:
        """Selected contributions that keep their sign after the swap."""
        return int(self.table["same_sign"].sum())

    @property
    def rate(self) -> float:
        """``n_same / n_checked`` (NaN when nothing was selected)."""
        return self.n_same / self.n_checked if self.n_checked else float("nan")

    def to_frame(self) -> pd.DataFrame:
        """The per-contribution table (:attr:`table`), a copy."""
        return self.table.copy()

    def families_frame(self) -> pd.DataFrame:
        """Per family: contributions checked and kept."""
        g = self.table.groupby("family", sort=True)["same_sign"]
        return pd.DataFrame({"n_checked": g.size(), "n_same": g.sum().astype(int)}).reset_index()


def fold_swap_signs(decomposition: pd.DataFrame, *, n_select: int = 2,
                    forward: str = "0->1", swapped: str = "1->0") -> FoldSwapCheck:
    r"""The fold-swap sign check of exact source contributions (App. D.3, Eq. 56-57).

    Parameters
    ----------
    decomposition : DataFrame
        :attr:`RankingAudit.decomposition`: columns ``direction``, ``family``, ``source``,
        ``contribution_pp`` (Eq. 56) for both cross-fitting directions.
    n_select : int
        Per family, the ``n_select`` (2) largest positive and the ``n_select`` largest negative
        contributions in the ``forward`` direction are selected.
    forward, swapped : str
        Direction labels: discovery-to-validation, and the same after swapping the folds.

    Returns
    -------
    FoldSwapCheck
        The selected contributions with their swapped values and whether each keeps its sign.

    Notes
    -----
    Paper 001, App. D.3 ("Exact source contribution to score shifts"): "For each family, the two
    largest positive and two largest negative contributions in the discovery-to-validation
    direction are selected, and their signs are checked after swapping the two folds." Readings:
    "positive" and "negative" are strict (a family with fewer than ``n_select`` positive
    contributions contributes what it has); ties in size are broken by source label; a swapped
    contribution of exactly zero, or a source or family missing in the swapped direction, does
    not keep its sign.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 5.4 (43 of 60 signs kept); App. D.3, Eq. 56-57.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.dif.steps import fold_swap_signs
    >>> decomposition = pd.DataFrame({
    ...     "direction": ["0->1"] * 4 + ["1->0"] * 4, "family": "llama",
    ...     "source": ["law", "math", "bio", "art"] * 2,
    ...     "contribution_pp": [1.2, 0.4, -0.8, -0.1, 0.9, -0.2, -0.5, 0.3]})
    >>> check = fold_swap_signs(decomposition)
    >>> check.to_frame()[["source", "selected_as", "contribution_pp", "swapped_pp", "same_sign"]]
      source selected_as  contribution_pp  swapped_pp  same_sign
    0    law    positive              1.2         0.9       True
    1   math    positive              0.4        -0.2      False
    2    bio    negative             -0.8        -0.5       True
    3    art    negative             -0.1         0.3      False
    """
    n_select = check_int("n_select", n_select, min=1)
    if not isinstance(decomposition, pd.DataFrame):
        raise BenchkitTypeError(f"decomposition must be a DataFrame; got {describe(decomposition)}")
    need = {"direction", "family", "source", "contribution_pp"}
    if not need <= set(decomposition.columns):
        raise BenchkitValueError(f"decomposition must have columns {sorted(need)}; got "
                                 f"{list(decomposition.columns)}")
    dirs = set(decomposition["direction"].unique())
    for nm, d in (("forward", forward), ("swapped", swapped)):
        if d not in dirs:
            raise BenchkitValueError(f"{nm}={d!r} is not a direction of the decomposition "
                                     f"({sorted(dirs)})")
    fw = decomposition[decomposition["direction"] == forward]
    sw = decomposition[decomposition["direction"] == swapped].set_index(["family", "source"])[
        "contribution_pp"]
    rows = []
    for fam, d in fw.groupby("family", sort=True):
        d = d.sort_values("source", kind="stable")
        c = d["contribution_pp"].to_numpy(float)
        src = d["source"].to_numpy()
        pos = np.flatnonzero(c > 0)
        neg = np.flatnonzero(c < 0)
        pos = pos[np.argsort(-c[pos], kind="stable")][:n_select]
        neg = neg[np.argsort(c[neg], kind="stable")][:n_select]
        for kind, idx in (("positive", pos), ("negative", neg)):
            for i in idx:
                other = sw.get((fam, src[i]), np.nan)
                rows.append({"family": fam, "source": src[i], "selected_as": kind,
                             "contribution_pp": c[i], "swapped_pp": other,
                             "same_sign": bool(np.sign(other) == np.sign(c[i]))})
    tab = pd.DataFrame(rows, columns=["family", "source", "selected_as", "contribution_pp",
                                      "swapped_pp", "same_sign"])
    return FoldSwapCheck(table=tab, directions=(forward, swapped))
