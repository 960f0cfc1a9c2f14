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
    """

    models: np.ndarray
    owner: np.ndarray
    family: np.ndarray
    Y: np.ndarray
    weights: np.ndarray
    cells: np.ndarray

    @property
    def full(self) -> np.ndarray:
        """Full-benchmark accuracy :math:`A_m` (Eq. 8)."""
        return np.rint(self.Y.sum(0)).astype(np.int64) / self.Y.shape[0]

    def weighted(self, *, w: np.ndarray | None = None) -> np.ndarray:
        r"""Weighted score :math:`\tilde A_m = \sum_i w_i Y_{im} / \sum_i w_i` (Eq. 8)."""
        w = self.weights if w is None else w
        return (w @ self.Y) / w.sum()


@result
class PairSet:
    """Different-owner, different-family pairs with ``0 < |A_m - A_n| <= max threshold``.

    Frozen from the observed full scores (App. C.7, D.1). ``sign`` is ``sign(A_i - A_j)``.
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
    alt = np.asarray(alt, dtype=float)
    d = alt[..., pairs.i] - alt[..., pairs.j]
    ok = np.abs(d) > TIE_TOL
    if full is None:
        sgn = pairs.sign
    else:
        df = full[..., pairs.i] - full[..., pairs.j]
        sgn = np.sign(df)
        ok &= np.abs(df) > TIE_TOL
    flip = ok & (sgn * d < 0)
    thr = np.asarray(thresholds, dtype=float)
    within = pairs.gap[None, :] <= thr[:, None] * (1 + 1e-12)  # (T, P)
    flips = np.einsum("...p,tp->...t", flip.astype(np.float64), within.astype(np.float64))
    elig = np.einsum("...p,tp->...t", ok.astype(np.float64), within.astype(np.float64))
    return np.rint(flips).astype(np.int64), np.rint(elig).astype(np.int64)


def pooled_rates(flips: np.ndarray, eligible: np.ndarray) -> np.ndarray:
    """Pooled reversal rate over folds (last axis = folds; Eq. 35, 40); NaN with no eligible pair."""
    f = flips.sum(-1)
    e = eligible.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(e > 0, f / np.maximum(e, 1), np.nan)


@result
class RankingResult:
    r"""Observed ranking statistics of the low-DIF anchor scoring (Table 1, Table 4's first number).

    Attributes
    ----------
    thresholds : tuple of float
    flips, eligible : ndarray (thresholds, 2 folds)
    rate : ndarray (thresholds,)
        Pooled strict reversal rate :math:`\hat T_\epsilon` (Eq. 40).
    tau_b : ndarray (2,)
        Fold Kendall tau_b between full and anchor scores; ``mean_tau_b`` their mean.
    all_pair_flips, all_pair_eligible : int
        All different-owner cross-family pairs (any gap).
    scores : DataFrame
        One row per evaluated representative: fold, full, anchor, shift.
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
        return float(np.mean(self.tau_b))

    @property
    def all_pair_rate(self) -> float:
        return self.all_pair_flips / self.all_pair_eligible if self.all_pair_eligible else np.nan

    def to_frame(self) -> pd.DataFrame:
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
