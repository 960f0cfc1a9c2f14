"""Cross-fitted residual low-DIF anchors (paper 001, Sec. 3.3, App. C.5)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from benchkit._random import spawn
from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_float
from benchkit._validation import check_int

__all__ = [
    "FoldAnchors",
    "anchor_weights",
    "easiness_cells",
    "jaccard",
    "purify",
    "select_anchors",
]


def easiness_cells(b, source, *, n_strata: int = 4) -> np.ndarray:
    """Source x easiness-stratum cell of every item (App. C.5 step e).

    Within each native source, items are ordered by ``b`` (ties by original index) and cut into
    ``n_strata`` near-equal strata (``numpy.array_split``: the first strata get the extra item).
    Returns int64 cell codes ``source_code * n_strata + stratum``; source codes follow first
    appearance.
    """
    b = np.asarray(b, dtype=float)
    src = pd.factorize(np.asarray(source, dtype=object))[0]
    if src.shape != b.shape:
        raise BenchkitValueError(f"source must have one entry per item ({b.size}); got {src.shape}")
    n_strata = check_int("n_strata", n_strata, min=1)
    cells = np.empty(b.size, dtype=np.int64)
    for s in np.unique(src):
        idx = np.flatnonzero(src == s)
        order = idx[np.lexsort((idx, b[idx]))]
        for k, part in enumerate(np.array_split(order, n_strata)):
            cells[part] = s * n_strata + k
    return cells


def _k(n_c: np.ndarray, alpha: float) -> np.ndarray:
    return np.maximum(1, np.floor(alpha * n_c + 0.5)).astype(np.int64)


def select_anchors(D, cells, *, anchor_fraction: float = 0.5) -> np.ndarray:
    """Boolean mask of the ``k_c = max(1, round(alpha n_c))`` smallest-``D`` items of every cell.

    ``anchor_fraction`` is the paper's alpha (App. C.5).

    Ties in ``D`` are resolved by original item index; ``round`` is half-up (App. C.5 step f).
    """
    D = np.asarray(D, dtype=float)
    cells = np.asarray(cells, dtype=np.int64)
    alpha = check_float("anchor_fraction", anchor_fraction, min=0.0, max=1.0, min_inclusive=False)
    order = np.lexsort((np.arange(D.size), D, cells))  # by cell, then D, then index
    cs = cells[order]
    starts = np.r_[0, np.flatnonzero(np.diff(cs)) + 1]
    n_c = np.diff(np.r_[starts, cs.size])
    k_c = _k(n_c, alpha)
    rank = np.arange(cs.size) - np.repeat(starts, n_c)
    sel = np.zeros(D.size, dtype=bool)
    sel[order] = rank < np.repeat(k_c, n_c)
    return sel


def anchor_weights(selected, cells) -> np.ndarray:
    """Cell-restoring weights ``w_i = n_c / k_c`` for selected items, 0 otherwise (Eq. 6)."""
    selected = np.asarray(selected, dtype=bool)
    cells = np.asarray(cells, dtype=np.int64)
    _, inv = np.unique(cells, return_inverse=True)
    n_c = np.bincount(inv)
    k_c = np.bincount(inv, weights=selected)
    w = np.zeros(selected.size)
    w[selected] = n_c[inv[selected]] / k_c[inv[selected]]
    return w


def jaccard(a, b) -> float:
    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    if a.shape != b.shape:
        raise BenchkitValueError(f"jaccard needs two boolean masks of one shape; got {a.shape} and {b.shape}")
    u = np.sum(a | b)
    return float(np.sum(a & b) / u) if u else 1.0


@result
class FoldAnchors:
    r"""Anchors learnt in one owner half (App. C.5).

    Attributes
    ----------
    K : int
        Spectral dimension used.
    selected : ndarray of bool (rounds, items)
        :math:`\mathcal S^{(t)}` for every round.
    cells : ndarray of int (items,)
        Source x easiness cells of the final round.
    weights : ndarray (items,)
        Frozen weights of round three (Eq. 6).
    jaccard : ndarray (rounds - 1,)
        Overlap of successive anchor sets.
    b, delta, D : ndarrays
        Final item signatures: refit on :math:`\mathcal S^{(3)}` (step 4).
    round_D : ndarray (rounds, items)
        :math:`D_i^{(t)}` of every round.
    families : tuple
    """

    K: int
    selected: np.ndarray
    cells: np.ndarray
    weights: np.ndarray
    jaccard: np.ndarray
    b: np.ndarray
    delta: np.ndarray
    D: np.ndarray
    round_D: np.ndarray
    families: tuple

    def to_frame(self) -> pd.DataFrame:
        out = pd.DataFrame({"b": self.b, "D": self.D, "cell": self.cells,
                            "anchor": self.selected[-1], "weight": self.weights})
        for j, f in enumerate(self.families):
            out[f"delta_{f}"] = self.delta[:, j]
        return out


def purify(Y, family, source, *, K: int, anchor_fraction: float = 0.5, rounds: int = 3,
           n_strata: int = 4, ridge: float = 1.0, n_iter: int = 5, refit: bool = True,
           rng: Any = None) -> FoldAnchors:
    r"""Three-round anchor purification in one owner half (App. C.5).

    Parameters
    ----------
    Y : ndarray (items, models)
        0/1 responses of the half's (capped) checkpoints.
    family : ndarray (models,)
        Family labels.
    source : ndarray (items,)
        Native source per item.
    K : int
        Spectral dimension (selected in this half, App. C.3).
    anchor_fraction : float
        The paper's alpha: the retained fraction per cell (0.5; 0.3 and 0.7 are sensitivity
        analyses).
    ridge : float
        Ridge penalty lambda of the residual fit (:func:`benchkit.dif.steps.fit_residual_dif`).
    refit : bool
        Step 4's final refit on :math:`\mathcal S^{(3)}` (the stored signatures).
    rng : seed
        Seeds the randomized SVDs (one child per round).

    Notes
    -----
    Each round learns directions from the current anchor rows, projects all items, refits
    :math:`b, \delta` on all items, rebuilds the cells from :math:`b^{(t)}` and keeps the
    smallest-D fraction of every cell. Always three rounds; Jaccard overlaps are recorded only.
    """
    from benchkit.dif._residual import fit_residual_dif
    from benchkit.irt._spectral import fit_spectral
    from benchkit.irt._spectral import standardize

    rounds = check_int("rounds", rounds, min=1)
    n_items = Y.shape[0]
    seeds = spawn(rng, rounds + 1)
    S = np.ones(n_items, dtype=bool)
    sel, rD = [], []
    st = standardize(Y)  # Eq. 12-13 use every item of the half: one standardization for all rounds
    for t in range(rounds):
        sp = fit_spectral(Y, K, rows=np.flatnonzero(S), n_iter=n_iter, standardized=st,
                          rng=seeds[t])
        fit = fit_residual_dif(Y, family, sp.offsets(), ridge=ridge)
        cells = easiness_cells(fit.b, source, n_strata=n_strata)
        S = select_anchors(fit.D, cells, anchor_fraction=anchor_fraction)
        sel.append(S)
        rD.append(fit.D)
    w = anchor_weights(S, cells)
    if refit:
        sp = fit_spectral(Y, K, rows=np.flatnonzero(S), n_iter=n_iter, standardized=st,
                          rng=seeds[rounds])
        fit = fit_residual_dif(Y, family, sp.offsets(), ridge=ridge)
    jac = np.array([jaccard(sel[t - 1], sel[t]) for t in range(1, rounds)])
    return FoldAnchors(K=int(sp.K), selected=np.array(sel), cells=cells, weights=w, jaccard=jac,
                       b=fit.b, delta=fit.delta, D=fit.D, round_D=np.array(rD),
                       families=fit.families)
