"""Owner-disjoint two-fold cross-fit (paper 001, Sec. 3.3).

Per half, K selection (App. C.3) and anchor purification (App. C.5); frozen weights applied to
the opposite half's representatives.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from benchkit._random import spawn
from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit.dif._anchors import FoldAnchors
from benchkit.dif._anchors import purify
from benchkit.dif._population import Population
from benchkit.dif._ranking import FoldTargets
from benchkit.irt._spectral import K_GRID
from benchkit.irt._spectral import DimensionSelection
from benchkit.irt._spectral import select_dimension

__all__ = ["CrossFit", "cross_fit"]


@result
class CrossFit:
    """Both directions of the cross-fit.

    ``selection[h]`` / ``anchors[h]`` are learnt on owner half ``h``; ``folds[h]`` applies
    ``anchors[h]``'s frozen weights to the representatives of half ``1 - h``.
    """

    K: tuple
    selection: tuple
    anchors: tuple
    folds: tuple
    alpha: float


def _codes(values) -> np.ndarray:
    return pd.factorize(np.asarray(values, dtype=object))[0].astype(np.int64)


def cross_fit(Y: np.ndarray, population: Population, source, *, K: Sequence[int] | None = None,
              anchor_fraction: float = 0.5, grid: Sequence[int] = K_GRID, rounds: int = 3,
              ridge: float = 1.0, n_iter: int = 5, validation_fraction: float = 0.25,
              calibration_fraction: float = 0.5, ridge_theta: float = 1.0, rng: Any = None,
              progress=None) -> CrossFit:
    """Run both cross-fitting directions on a population.

    ``K=None`` selects K in each half (App. C.3); a pair ``(K_0, K_1)`` freezes it (App. D.2).
    ``progress`` is an optional tqdm bar advanced once per half.
    """
    t = population.table
    fam_all = t["family"].to_numpy(dtype=object)
    own_all = t["owner"].to_numpy(dtype=object)
    own_codes = _codes(own_all)
    fam_lookup = {f: k for k, f in enumerate(population.families)}
    seeds = spawn(rng, 4)
    sels: list[DimensionSelection | None] = []
    anchors: list[FoldAnchors] = []
    Ks = []
    for h in (0, 1):
        cols = population.half_models(h)
        if cols.size < 2:
            raise BenchkitValueError(f"owner half {h} has {cols.size} retained checkpoints; the "
                                     "cross-fit needs at least 2 per half")
        fam_h = fam_all[cols]
        if np.unique(fam_h.astype(str)).size < 2:
            raise BenchkitValueError(f"owner half {h} holds a single family "
                                     f"({np.unique(fam_h.astype(str))}); residual family DIF "
                                     "needs at least two families per half")
        Yh = np.ascontiguousarray(Y[:, cols])
        if K is None:
            sel = select_dimension(Yh, owners=own_all[cols], sources=source, grid=grid,
                                   validation_fraction=validation_fraction,
                                   calibration_fraction=calibration_fraction,
                                   ridge_theta=ridge_theta, n_iter=n_iter, rng=seeds[2 * h])
            k_h = sel.K_star
        else:
            sel, k_h = None, int(K[h])
        sels.append(sel)
        Ks.append(k_h)
        anchors.append(purify(Yh, fam_h, source, K=k_h, anchor_fraction=anchor_fraction, rounds=rounds,
                              ridge=ridge, n_iter=n_iter, rng=seeds[2 * h + 1]))
        if progress is not None:
            progress.update(1)
    folds = []
    for h in (0, 1):
        reps = population.representatives(h=1 - h)
        folds.append(FoldTargets(models=reps, owner=own_codes[reps],
                                 family=np.array([fam_lookup[f] for f in fam_all[reps]],
                                                 dtype=np.int64),
                                 Y=np.ascontiguousarray(Y[:, reps], dtype=np.float64),
                                 weights=anchors[h].weights,
                                 cells=anchors[h].cells))
    return CrossFit(K=tuple(Ks), selection=tuple(sels), anchors=tuple(anchors),
                    folds=tuple(folds), alpha=anchor_fraction)
