"""Owner-disjoint two-fold cross-fit (paper 001, Sec. 3.3).

Per half, K selection (App. C.3) and anchor purification (App. C.5); frozen weights applied to
the opposite half's representatives.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from benchkit._parallel import check_n_jobs
from benchkit._parallel import thread_map
from benchkit._random import seed_sequence
from benchkit._random import spawn
from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit.dif._anchors import purify
from benchkit.dif._population import Population
from benchkit.dif._ranking import FoldTargets
from benchkit.irt._spectral import K_GRID
from benchkit.irt._spectral import _one_blas_thread
from benchkit.irt._spectral import select_dimension
from benchkit.irt._spectral import standardize

__all__ = ["CrossFit", "cross_fit"]


@result
class CrossFit:
    """Both directions of the cross-fit.

    ``selection[h]`` / ``anchors[h]`` are learnt on owner half ``h``; ``folds[h]`` applies
    ``anchors[h]``'s frozen weights to the representatives of half ``1 - h``. Every evaluated model
    is thus scored by anchors chosen without its owner's responses (Sec. 3.3).

    Parameters
    ----------
    K, selection, anchors, folds, alpha, rng_entropy
        The fields described under Attributes (built by :func:`cross_fit`).

    Attributes
    ----------
    K : tuple of int
        The spectral MIRT dimension used in each half (selected, or frozen by the caller).
    selection : tuple of DimensionSelection or None
        Per half, the nested held-out loss curve and the one-SE choice (App. C.3); None where
        ``K`` was frozen.
    anchors : tuple of FoldAnchors
        Per half, the purified anchors and frozen weights (App. C.5).
    folds : tuple of FoldTargets
        ``folds[h]``: the representatives of half ``1 - h`` with ``anchors[h]``'s weights.
    alpha : float
        The anchor fraction used (the paper's alpha, ``anchor_fraction``).
    rng_entropy : int or None
        Entropy of the root seed of ``rng``: ``cross_fit(..., rng=rng_entropy)`` repeats the call
        when ``rng`` was None, an int or a Generator (inside :func:`run_audit` the seed is a child
        of the audit's root: repeat the audit).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.3 (two-fold owner-disjoint cross-fitting); App. C.3, C.5.
    V. Chernozhukov et al. (2018), "Double/debiased machine learning for treatment and structural
    parameters", The Econometrics Journal 21(1), C1-C68 (cross-fitting).

    Examples
    --------
    With the paper's sensitivity fraction alpha = 0.3 (a third of the items as anchors):

    >>> from benchkit.dif.steps import build_population, cross_fit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> pop = build_population(sim.model_ids, sim.Y.mean(0), min_family_size=5)
    >>> cf = cross_fit(sim.Y, pop, sim.source, K=(2, 2), anchor_fraction=0.3, rng=0)
    >>> cf.K, cf.alpha, [f.models.size for f in cf.folds], [int(a.selected[-1].sum()) for a in cf.anchors]
    ((2, 2), 0.3, [22, 21], [32, 32])
    """

    K: tuple
    selection: tuple
    anchors: tuple
    folds: tuple
    alpha: float
    rng_entropy: Any = None


def _codes(values) -> np.ndarray:
    return pd.factorize(np.asarray(values, dtype=object))[0].astype(np.int64)


def _fit_half(h, Yh, fam_h, own_h, source, K_h, grid, validation_fraction, calibration_fraction,
              ridge_theta, n_iter, anchor_fraction, rounds, ridge, sel_seed, purify_seed, on_half_done):
    """K selection (unless ``K_h`` is given) and anchor purification in owner half ``h``.

    Runs on one BLAS thread: OpenBLAS splits its sums by thread count (results differ by ~1e-13
    between 1 and 2 threads), so pinning it keeps the result the same however the halves run.
    """
    with _one_blas_thread():
        if K_h is None:
            sel = select_dimension(Yh, owners=own_h, sources=source, grid=grid,
                                   validation_fraction=validation_fraction,
                                   calibration_fraction=calibration_fraction,
                                   ridge_theta=ridge_theta, n_iter=n_iter, rng=sel_seed)
            K_h = sel.K_star
        else:
            sel = None
        st = standardize(Yh)
        anchors = purify(Yh, fam_h, source, K=K_h, anchor_fraction=anchor_fraction, rounds=rounds,
                         ridge=ridge, n_iter=n_iter, standardized=st, rng=purify_seed)
        if on_half_done is not None:
            on_half_done(h, Yh, fam_h, K_h, st)
        return sel, K_h, anchors


def cross_fit(Y: np.ndarray, population: Population, source, *, K: Sequence[int] | None = None,
              anchor_fraction: float = 0.5, grid: Sequence[int] = K_GRID, rounds: int = 3,
              ridge: float = 1.0, n_iter: int = 5, validation_fraction: float = 0.25,
              calibration_fraction: float = 0.5, ridge_theta: float = 1.0, rng: Any = None,
              n_jobs: Any = None, progress=None, on_half_done=None) -> CrossFit:
    """Run both cross-fitting directions on a population.

    ``K=None`` selects K in each half (App. C.3); a pair ``(K_0, K_1)`` freezes it (App. D.2).
    The two halves are a fixed pair of deterministic tasks: they run concurrently on benchkit's
    internal threads whatever ``n_jobs`` is (:func:`benchkit._parallel.thread_map`, each on one
    BLAS thread), and the result is the same as running them one after the other.
    ``progress`` is an optional tqdm bar advanced once per half.

    In each direction one owner half selects the spectral dimension, purifies the low-DIF anchors
    and freezes their weights; the weights then score the representatives of the other half.

    Parameters
    ----------
    Y : ndarray (items, models)
        Complete 0/1 responses of the whole roster.
    population : Population
        From :func:`build_population`: families, halves and representatives.
    source : array_like (items,)
        Native source of every item (the cells and the K-selection split).
    K : pair of int, optional
        Freeze the dimension per half; default None selects it over ``grid``.
    anchor_fraction : float, default 0.5
        The paper's alpha (share of each cell kept as anchors).
    grid : sequence of int, default (1, 2, 4, ..., 256)
        Candidate dimensions (rank-infeasible ones are omitted; App. C.3).
    rounds : int, default 3
        Purification rounds.
    ridge : float, default 1.0
        Ridge penalty of the residual family effects (lambda of Eq. 3).
    n_iter : int, default 5
        Power iterations of the randomized SVD.
    validation_fraction : float, default 0.25
        Share of the half's owners held out to select K.
    calibration_fraction : float, default 0.5
        Share of items (within source) used to estimate held-out coordinates (Eq. 19).
    ridge_theta : float, default 1.0
        Ridge of the held-out coordinates (lambda_theta of Eq. 19).
    rng : None, int, SeedSequence or Generator
        Seeds the K-selection splits and the randomized SVDs (four children of one root).
    n_jobs : int, optional
        Validated for the calling convention of the audit's steps; the two halves always run on
        internal threads (results are identical for any value).
    progress : tqdm bar, optional
        Advanced once per half.
    on_half_done : callable, optional
        Called from the half's thread as soon as half ``h`` is purified, as
        ``on_half_done(h, Y_h, family_h, K_h, standardized)`` (the half's responses and family
        labels, its K and ``benchkit.irt.standardize(Y_h)``);
        :func:`benchkit.dif.steps.run_audit` starts the half's anchor-fraction refits from it
        while the other half is still being fitted.

    Returns
    -------
    CrossFit
        ``K``, ``selection``, ``anchors`` and ``folds`` per direction, and ``rng_entropy``.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.2-3.3; App. C.2-C.5 (Eq. 12-33), Table C.8.

    Examples
    --------
    Both directions on a simulated population, K frozen at 2:

    >>> from benchkit.dif.steps import build_population, cross_fit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> pop = build_population(sim.model_ids, sim.Y.mean(0), min_family_size=5)
    >>> cf = cross_fit(sim.Y, pop, sim.source, K=(2, 2), rng=0)
    >>> [int(a.selected[-1].sum()) for a in cf.anchors]        # anchors per half (of 120 items)
    [64, 64]
    """
    n_jobs = check_n_jobs(n_jobs)
    t = population.table
    fam_all = t["family"].to_numpy(dtype=object)
    own_all = t["owner"].to_numpy(dtype=object)
    own_codes = _codes(own_all)
    fam_lookup = {f: k for k, f in enumerate(population.families)}
    root = seed_sequence(rng)
    seeds = spawn(root, 4)
    tasks = []
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
        tasks.append((h, np.ascontiguousarray(Y[:, cols]), fam_h, own_all[cols], source,
                      None if K is None else int(K[h]), grid, validation_fraction,
                      calibration_fraction, ridge_theta, n_iter, anchor_fraction, rounds, ridge,
                      seeds[2 * h], seeds[2 * h + 1], on_half_done))
    with _one_blas_thread():  # threads share the BLAS setting: pin it around the whole map
        halves = thread_map(_fit_half, tasks)
    if progress is not None:
        progress.update(2)
    sels = tuple(r[0] for r in halves)
    Ks = tuple(r[1] for r in halves)
    anchors = tuple(r[2] for r in halves)
    folds = []
    for h in (0, 1):
        reps = population.representatives(h=1 - h)
        folds.append(FoldTargets(models=reps, owner=own_codes[reps],
                                 family=np.array([fam_lookup[f] for f in fam_all[reps]],
                                                 dtype=np.int64),
                                 Y=np.ascontiguousarray(Y[:, reps], dtype=np.float64),
                                 weights=anchors[h].weights,
                                 cells=anchors[h].cells))
    return CrossFit(K=Ks, selection=sels, anchors=anchors, folds=tuple(folds), alpha=anchor_fraction,
                    rng_entropy=root.entropy)
