"""Robustness and replication (paper 001, Sec. 4.1-4.2, App. D.2-D.3).

Population perturbations with K frozen (Eq. 44-46), cross-half signature replication with
within-cell permutations (Eq. 47-53), source-level family effects (Eq. 54-55) and the exact source
decomposition of family score shifts (Eq. 56-57).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from benchkit._parallel import blocked_map, check_n_jobs
from benchkit._validation import BenchkitValueError, check_int
from benchkit.dif._anchors import FoldAnchors, easiness_cells

__all__ = [
    "PERTURBATIONS",
    "Replication",
    "replicate_signatures",
    "robustness_pass",
    "source_decomposition",
    "source_effects",
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


def _rep_stats(dD, dV, HD, HV, amD, amV):
    rho = np.nanmedian(_spearman_cols(dD, dV))
    both = HD & HV
    overlap = both.sum() / HD.sum() if HD.sum() else np.nan
    A = np.mean(amD[both] == amV[both]) if both.any() else np.nan
    return np.array([rho, overlap, A])


def _perm_block(seed, start, stop, dD, dV, HD, HV, amD, amV, cells):
    g = np.random.default_rng(seed)
    groups = [np.flatnonzero(cells == c) for c in np.unique(cells)]
    out = np.empty((stop - start, 3))
    for r in range(stop - start):
        perm = np.arange(cells.size)
        for idx in groups:
            perm[idx] = g.permutation(idx)
        out[r] = _rep_stats(dD, dV[perm], HD, HV[perm], amD, amV[perm])
    return out


@dataclass(frozen=True)
class Replication:
    """Owner-disjoint replication of residual item-family signatures (Table 2, App. D.3).

    Attributes
    ----------
    rho : ndarray (families,)
        Family-wise Spearman correlations of within-cell-centered effects (Eq. 50).
    median_rho, overlap, agreement : float
        Median rho, top-20% overlap precision O (Eq. 51), advantaged-family agreement A (Eq. 52).
    p_values : ndarray (3,)
        One-sided within-cell permutation p-values (Eq. 53) of (median rho, O, A).
    null : ndarray (n_resamples, 3)
    cells : ndarray (items,)
        Common source x easiness cells from the averaged intercepts (Eq. 47-48).
    high_D, high_V : ndarray of bool
        Within-cell top-fraction sets of each half.
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

    def to_frame(self) -> pd.DataFrame:
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

    Notes
    -----
    Uses each half's stored final signatures (the step-4 refit). DIF magnitude for the top sets is
    each half's :math:`D_i`; top sets hold ``max(1, round(top * n_c))`` items per common cell. The
    permutation moves the complete validation signature (effects, magnitude, advantaged family)
    among items of the same common cell.
    """
    n_jobs = check_n_jobs(n_jobs)
    R = check_int("n_resamples", n_resamples, min=1)
    fams, iD, iV = _common_families(disc, val)
    cells = easiness_cells((disc.b + val.b) / 2, source, n_strata=n_strata)  # Eq. 47-48
    dD = within_cell_center(disc.delta[:, iD], cells)
    dV = within_cell_center(val.delta[:, iV], cells)
    HD = top_fraction_sets(disc.D, cells, top)
    HV = top_fraction_sets(val.D, cells, top)
    amD, amV = disc.delta[:, iD].argmax(1), val.delta[:, iV].argmax(1)
    obs = _rep_stats(dD, dV, HD, HV, amD, amV)
    out = blocked_map(_perm_block, R, rng=rng, block_size=50,
                      args=(dD, dV, HD, HV, amD, amV, cells), n_jobs=n_jobs, progress=progress,
                      desc="signature permutations")
    null = np.concatenate(out)
    p = (1 + np.sum(null >= obs[None, :], axis=0)) / (R + 1)
    return Replication(families=fams, rho=_spearman_cols(dD, dV), median_rho=obs[0],
                       overlap=obs[1], agreement=obs[2], p_values=p, null=null, cells=cells,
                       high_D=HD, high_V=HV, argmax_D=amD, argmax_V=amV)


# ------------------------------------------------------------------ source attribution
def source_effects(disc: FoldAnchors, val: FoldAnchors, source, *, min_items: int = 20,
                   n_select: int = 2) -> pd.DataFrame:
    """Source-level family effects and their held-out sign replication (Eq. 54-55).

    For each family, the ``n_select`` most positive and most negative discovery source effects
    (sources with at least ``min_items`` items) are checked for the same sign in validation.
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
