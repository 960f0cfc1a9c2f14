"""Ranking estimand of the family-DIF audit (paper 001, Sec. 3.4, Eq. 8-9, App. D.1 Eq. 38-41).

Scores of the target half's representatives under full and anchor scoring, the frozen near-tie
pair sets, strict reversals with ties excluded, pooling across the two folds, mean fold Kendall
tau_b and the all-pair reversal rate.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit.stats import kendall_tau_b

__all__ = [
    "THRESHOLDS",
    "FoldTargets",
    "PairSet",
    "RankingResult",
    "pair_set",
    "pooled_rates",
    "reversal_counts",
]

#: Cumulative full-score gap thresholds of App. D.1 (Eq. 41), as proportions; 0.01 is primary.
THRESHOLDS: tuple[float, ...] = (0.0025, 0.005, 0.01, 0.02, 0.03, 0.05)

#: Two anchor scores closer than this are a tie (weighted sums of 0/1 with rational weights).
TIE_TOL = 1e-12


@result
class FoldTargets:
    """The held-out representatives of one fold and the frozen weights from the other half.

    ``models`` are roster positions; ``Y`` the (items, targets) 0/1 block (float64 in the audit, so
    the controls' matrix products do not convert it for every block); ``weights`` and
    ``cells`` come from the anchors learnt on the opposite half.

    Parameters
    ----------
    models, owner, family, Y, weights, cells
        The fields described under Attributes (built by :func:`cross_fit`).

    Attributes
    ----------
    models : ndarray of int (targets,)
        Roster positions of the representatives scored in this fold.
    owner : ndarray of int (targets,)
        Owner code of each target (pairs need different owners).
    family : ndarray of int (targets,)
        Family code of each target (pairs need different families).
    Y : ndarray (items, targets)
        Their 0/1 responses.
    weights : ndarray (items,)
        The frozen anchor weights :math:`w_i` (Eq. 6) learnt on the other half.
    cells : ndarray of int (items,)
        The other half's source x easiness cells (the blueprint of the matched controls).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.3, Eq. 6-8 (weights, full and anchor scores).

    Examples
    --------
    The first fold of an audit: half 1's representatives scored with half 0's anchor weights:

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> fold = audit.folds[0]
    >>> fold.models.size, float(fold.weights.sum())       # 22 targets; weights sum to the items
    (22, 120.0)
    >>> fold.full[:3].round(3).tolist(), fold.weighted()[:3].round(3).tolist()   # Eq. 8
    ([0.508, 0.617, 0.575], [0.548, 0.631, 0.517])
    """

    models: np.ndarray
    owner: np.ndarray
    family: np.ndarray
    Y: np.ndarray
    weights: np.ndarray
    cells: np.ndarray

    @property
    def full(self) -> np.ndarray:
        """Full-benchmark accuracy :math:`A_m` (Eq. 8), exact from the integer success counts."""
        return np.rint(self.Y.sum(0)).astype(np.int64) / self.Y.shape[0]

    def weighted(self, *, w: np.ndarray | None = None) -> np.ndarray:
        r"""Weighted score :math:`\tilde A_m = \sum_i w_i Y_{im} / \sum_i w_i` (Eq. 8).

        Parameters
        ----------
        w : ndarray (items,), optional
            Other weights (a matched-random draw); default :attr:`weights`.

        Returns
        -------
        ndarray (targets,)
            The weighted score of every target.
        """
        w = self.weights if w is None else w
        return (w @ self.Y) / w.sum()


@result
class PairSet:
    """Different-owner, different-family pairs with ``0 < |A_m - A_n| <= max threshold``.

    Frozen from the observed full scores (App. C.7, D.1). ``sign`` is ``sign(A_i - A_j)``.

    The near-tied comparisons whose order the audit tests: the same pairs are used for the
    anchor scoring, every matched-random control and every bootstrap replicate.

    Parameters
    ----------
    i, j, gap, sign
        The fields described under Attributes (built by :func:`pair_set`).

    Attributes
    ----------
    i : ndarray of int (pairs,)
        First model of each pair (position in the fold's targets).
    j : ndarray of int (pairs,)
        Second model (``i < j``).
    gap : ndarray (pairs,)
        Full-score gap :math:`|A_i - A_j|` (a proportion: 0.01 is one percentage point).
    sign : ndarray of int8 (pairs,)
        ``sign(A_i - A_j)``, +1 or -1 (ties are not pairs).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.4; App. D.1, Eq. 38.

    Examples
    --------
    Three models of three owners; models 0 and 1 share a family, so two pairs remain:

    >>> import numpy as np
    >>> from benchkit.dif.steps import FoldTargets, pair_set
    >>> fold = FoldTargets(models=np.arange(3), owner=np.arange(3), family=np.array([0, 0, 1]),
    ...                    Y=np.array([[1.0, 1, 0], [1, 0, 1], [1, 1, 0]]), weights=np.ones(3),
    ...                    cells=np.zeros(3, int))
    >>> pair_set(fold)
    PairSet(i=[0, 1], j=[2, 2], gap=[0.6666666666666666, 0.3333333333333333], sign=[1, 1])
    """

    i: np.ndarray
    j: np.ndarray
    gap: np.ndarray
    sign: np.ndarray


def pair_set(targets: FoldTargets, *, max_gap: float | None = None) -> PairSet:
    """Eligible pairs of a fold under the full score (Eq. 38 without the anchor-tie condition).

    ``max_gap=None`` keeps every non-tied cross pair (the all-pair reversal rate). Gaps are
    computed from integer success counts, so the full-score tie test is exact; a gap equal to a
    threshold up to 1e-12 counts as within it.

    Parameters
    ----------
    targets : FoldTargets
        The fold's representatives and their responses.
    max_gap : float, optional
        Largest full-score gap kept (a proportion; the audit uses the largest threshold, 0.05);
        None keeps every gap.

    Returns
    -------
    PairSet
        The eligible pairs with their gaps and full-score signs.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.4 (primary comparison set, Eq. 9); App. D.1, Eq. 38 and 41.

    Examples
    --------
    Four models of two families and four owners; models 1 and 2 tie on the full score, models 0
    and 2 share a family, so three pairs remain, two of them within 0.2:

    >>> import numpy as np
    >>> from benchkit.dif.steps import FoldTargets, pair_set
    >>> Y = np.array([[1, 1, 1, 0], [1, 1, 0, 1], [1, 0, 1, 1], [0, 1, 1, 0], [1, 0, 0, 0]])
    >>> fold = FoldTargets(models=np.arange(4), owner=np.arange(4), family=np.array([0, 1, 0, 1]),
    ...                    Y=Y.astype(float), weights=np.array([0.0, 2.0, 0.0, 2.0, 1.0]),
    ...                    cells=np.array([0, 0, 1, 1, 2]))
    >>> ps = pair_set(fold)
    >>> ps.i.tolist(), ps.j.tolist(), ps.gap.round(2).tolist()
    ([0, 0, 2], [1, 3, 3], [0.2, 0.4, 0.2])
    """
    S = np.rint(targets.Y.sum(0)).astype(np.int64)  # exact success counts
    n_items = targets.Y.shape[0]
    i, j = np.triu_indices(S.size, 1)
    keep = (targets.owner[i] != targets.owner[j]) & (targets.family[i] != targets.family[j])
    keep &= S[i] != S[j]
    if max_gap is not None:
        keep &= np.abs(S[i] - S[j]) <= max_gap * n_items * (1 + 1e-12)
    i, j = i[keep], j[keep]
    d = (S[i] - S[j]).astype(np.int64)
    return PairSet(i=i, j=j, gap=np.abs(d) / n_items, sign=np.sign(d).astype(np.int8))


def reversal_counts(pairs: PairSet, alt: np.ndarray, thresholds=THRESHOLDS,
                    full: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Strict reversals and eligible counts per threshold (Eq. 38-39).

    ``alt`` is (..., targets) alternative scores; ``full`` optionally replaces the frozen full-score
    signs (composition bootstrap: recomposed full scores). Pairs tied under either rule leave the
    denominator. Returns ``(flips, eligible)`` of shape (..., len(thresholds)).
    """
    from benchkit._kernels.dif import reversal_counts as kernel

    alt = np.asarray(alt, dtype=float)
    lead, M = alt.shape[:-1], alt.shape[-1]
    a2 = np.ascontiguousarray(alt.reshape(-1, M))
    if full is None:
        f2 = np.empty((0, 0))
    else:
        f2 = np.ascontiguousarray(np.broadcast_to(np.asarray(full, dtype=float), alt.shape).reshape(-1, M))
    thr = np.asarray(thresholds, dtype=float)
    # a pair lies within threshold t when gap <= thr_t (1 + 1e-12): with the thresholds sorted,
    # from the first one at or above its gap on; count each pair in that band, then add up bands
    order = np.argsort(thr, kind="stable")
    band = np.searchsorted(thr[order] * (1 + 1e-12), pairs.gap, side="left").astype(np.int64)
    fb, eb = kernel(a2, np.asarray(pairs.i, dtype=np.int64), np.asarray(pairs.j, dtype=np.int64),
                    np.asarray(pairs.sign, dtype=np.float64), f2, full is not None, band,
                    thr.size + 1, TIE_TOL)
    flips = np.empty((a2.shape[0], thr.size), dtype=np.int64)
    elig = np.empty_like(flips)
    flips[:, order] = np.cumsum(fb[:, :-1], axis=1)
    elig[:, order] = np.cumsum(eb[:, :-1], axis=1)
    return flips.reshape(lead + (thr.size,)), elig.reshape(lead + (thr.size,))


def pooled_rates(flips: np.ndarray, eligible: np.ndarray) -> np.ndarray:
    """Pooled reversal rate over folds (last axis = folds; Eq. 35, 40); NaN with no eligible pair."""
    f = flips.sum(-1)
    e = eligible.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(e > 0, f / np.maximum(e, 1), np.nan)


@result
class RankingResult:
    r"""Observed ranking statistics of the low-DIF anchor scoring (Table 1, Table 4's first number).

    How often near-tied cross-family pairs change order when the held-out models are scored by
    the low-DIF anchors instead of the full benchmark, and how similar the two rankings are
    overall (Kendall tau_b).

    Parameters
    ----------
    thresholds, flips, eligible, rate, tau_b, all_pair_flips, all_pair_eligible, scores
        The fields described under Attributes.

    Attributes
    ----------
    thresholds : tuple of float
        Full-score gap thresholds (proportions; 0.01 is the primary one-point band, Eq. 41).
    flips : ndarray of int (thresholds, 2 folds)
        Strict reversals (Eq. 39) among the pairs within each threshold, per fold.
    eligible : ndarray of int (thresholds, 2 folds)
        Eligible pairs (Eq. 38: not tied under either rule), per fold.
    rate : ndarray (thresholds,)
        Pooled strict reversal rate :math:`\hat T_\epsilon` (Eq. 40).
    tau_b : ndarray (2,)
        Fold Kendall tau_b between full and anchor scores; ``mean_tau_b`` their mean.
    all_pair_flips : int
        Reversals among all different-owner cross-family pairs (any gap).
    all_pair_eligible : int
        Those pairs not tied under either rule (the all-pair reversal rate's denominator).
    scores : DataFrame
        One row per evaluated representative: fold, full, anchor, shift.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.4, Eq. 9; Sec. 5.1, Table 1; App. D.1, Eq. 38-41. M. G. Kendall (1945),
    "The treatment of ties in ranking problems", Biometrika 33(3), 239-251.

    Examples
    --------
    The observed reversals of an audit's anchor scoring:

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> audit.ranking.to_frame().iloc[2:4].round(3)
       threshold_pp  eligible  flips   rate
    2           1.0        14      6  0.429
    3           2.0        33     13  0.394
    >>> round(audit.ranking.mean_tau_b, 3)
    0.767
    """

    thresholds: tuple
    flips: np.ndarray
    eligible: np.ndarray
    rate: np.ndarray
    tau_b: np.ndarray
    all_pair_flips: int
    all_pair_eligible: int
    scores: pd.DataFrame

    @property
    def mean_tau_b(self) -> float:
        """Mean of the two fold Kendall tau_b (Table 1's tau_b)."""
        return float(np.mean(self.tau_b))

    @property
    def all_pair_rate(self) -> float:
        """Reversal rate over all different-owner cross-family pairs (NaN without any)."""
        return self.all_pair_flips / self.all_pair_eligible if self.all_pair_eligible else np.nan

    def to_frame(self) -> pd.DataFrame:
        """Per threshold (in percentage points): pooled eligible pairs, flips and rate."""
        return pd.DataFrame({"threshold_pp": np.asarray(self.thresholds) * 100,
                             "eligible": self.eligible.sum(1), "flips": self.flips.sum(1),
                             "rate": self.rate})


def observed_ranking(folds: list[FoldTargets], pairs: list[PairSet], model_ids,
                     thresholds=THRESHOLDS) -> RankingResult:
    """Observed statistics of the anchor scoring for both folds."""
    F, E, tau, ap_f, ap_e, rows = [], [], [], 0, 0, []
    for h, (ft, ps) in enumerate(zip(folds, pairs)):
        full, anc = ft.full, ft.weighted()
        f, e = reversal_counts(ps, anc, thresholds)
        F.append(f)
        E.append(e)
        tau.append(kendall_tau_b(full, anc) if full.size > 1 else np.nan)
        allp = pair_set(ft, max_gap=None)
        af, ae = reversal_counts(allp, anc, (np.inf,))
        ap_f += int(af[0])
        ap_e += int(ae[0])
        rows.append(pd.DataFrame({"model": np.asarray(model_ids, dtype=object)[ft.models],
                                  "fold": h, "full": full, "anchor": anc, "shift": anc - full}))
    flips, elig = np.stack(F, -1), np.stack(E, -1)
    return RankingResult(thresholds=tuple(thresholds), flips=flips, eligible=elig,
                         rate=pooled_rates(flips, elig), tau_b=np.asarray(tau, dtype=float),
                         all_pair_flips=ap_f, all_pair_eligible=ap_e,
                         scores=pd.concat(rows, ignore_index=True))
