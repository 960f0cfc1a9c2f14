"""Cross-fitted residual low-DIF anchors (paper 001, Sec. 3.3, App. C.5)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from benchkit._random import seed_sequence
from benchkit._random import spawn
from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit.stats import jaccard

__all__ = [
    "FoldAnchors",
    "anchor_weights",
    "easiness_cells",
    "purify",
    "select_anchors",
]


def easiness_cells(b, source, *, n_strata: int = 4) -> np.ndarray:
    """Source x easiness-stratum cell of every item (App. C.5 step e).

    Within each native source, items are ordered by ``b`` (ties by original index) and cut into
    ``n_strata`` near-equal strata (``numpy.array_split``: the first strata get the extra item).
    Returns int64 cell codes ``source_code * n_strata + stratum``; source codes follow first
    appearance.

    The blueprint cells keep the anchor's source and coarse easiness composition equal to the
    benchmark's (Eq. 7).

    Parameters
    ----------
    b : array_like (items,)
        Fitted item easiness (:attr:`ResidualDIF.b`).
    source : array_like (items,)
        Native source (subject) of every item.
    n_strata : int, default 4
        Easiness strata within each source (Table C.8).

    Returns
    -------
    ndarray of int64 (items,)
        The cell code of every item.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.3, App. C.5 step (e), Table C.8.

    Examples
    --------
    >>> import numpy as np
    >>> b = np.array([0.3, -1.2, 0.8, 2.0, -0.5, 1.1, 0.0, -2.0])   # item easiness
    >>> source = np.array(["math"] * 4 + ["law"] * 4)
    >>> from benchkit.dif.steps import easiness_cells
    >>> easiness_cells(b, source, n_strata=2).tolist()    # harder half, easier half per source
    [0, 0, 1, 1, 2, 3, 3, 2]
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

    Parameters
    ----------
    D : array_like (items,)
        Residual DIF magnitude :math:`D_i` (Eq. 5).
    cells : array_like of int (items,)
        Source x easiness cell of every item (:func:`easiness_cells`).
    anchor_fraction : float, default 0.5
        The paper's alpha: the share of each cell kept (0.5 primary; 0.3 and 0.7 sensitivity).

    Returns
    -------
    ndarray of bool (items,)
        True for the low-DIF anchors.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.3, App. C.5 step (f).

    Examples
    --------
    >>> from benchkit.dif.steps import select_anchors
    >>> D = [0.1, 0.9, 0.4, 0.2, 0.3, 0.05, 0.7, 0.6]
    >>> select_anchors(D, [0, 0, 1, 1, 2, 3, 3, 2]).tolist()     # the lower D of every pair
    [True, False, False, True, True, True, False, False]
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
    """Cell-restoring weights ``w_i = n_c / k_c`` for selected items, 0 otherwise (Eq. 6).

    Every cell keeps its original total mass (Eq. 7), so the anchor score changes the residual-DIF
    composition without changing the benchmark's source and easiness blueprint.

    Parameters
    ----------
    selected : array_like of bool (items,)
        The anchors (:func:`select_anchors`).
    cells : array_like of int (items,)
        Source x easiness cell of every item.

    Returns
    -------
    ndarray (items,)
        The weights; they sum to the number of items.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.3, Eq. 6-8.

    Examples
    --------
    >>> from benchkit.dif.steps import anchor_weights
    >>> anchor_weights([True, False, False, True, True, True], [0, 0, 1, 1, 2, 2]).tolist()
    [2.0, 0.0, 0.0, 2.0, 1.0, 1.0]
    """
    selected = np.asarray(selected, dtype=bool)
    cells = np.asarray(cells, dtype=np.int64)
    _, inv = np.unique(cells, return_inverse=True)
    n_c = np.bincount(inv)
    k_c = np.bincount(inv, weights=selected)
    w = np.zeros(selected.size)
    w[selected] = n_c[inv[selected]] / k_c[inv[selected]]
    return w


@result
class FoldAnchors:
    r"""Anchors learnt in one owner half (App. C.5).

    The low-DIF anchor set and its frozen cell-restoring weights, which score the models of the
    other owner half, with every round of the three-round purification and the final item
    signatures.

    Parameters
    ----------
    K, selected, cells, weights, jaccard, b, delta, D, round_D, families, rng_entropy
        The fields described under Attributes (built by :func:`benchkit.dif.steps.purify`).

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
    b : ndarray (items,)
        Final item easiness: refit on :math:`\mathcal S^{(3)}` (step 4).
    delta : ndarray (items, families)
        Final residual family effects (same refit), columns in :attr:`families` order.
    D : ndarray (items,)
        Final :math:`D_i` (Eq. 5) of the refit.
    round_D : ndarray (rounds, items)
        :math:`D_i^{(t)}` of every round.
    families : tuple
        Sorted family labels of the half (the columns of ``delta``).
    rng_entropy : int or None
        Entropy of the root seed of ``rng``: ``purify(..., rng=rng_entropy)`` repeats the call
        when ``rng`` was None, an int or a Generator. Inside :func:`cross_fit` the seed is a child
        SeedSequence (with a spawn key) of the cross-fit's root: repeat that call instead.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.3, Eq. 6-7; App. C.5 (purification algorithm).

    Examples
    --------
    The anchors an audit learnt on owner half 0:

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> fa = audit.anchors[0]
    >>> fa.K, fa.selected.sum(axis=1).tolist(), fa.jaccard.round(3).tolist()
    (2, [64, 64, 64], [0.684, 0.882])
    >>> float(fa.weights.sum())        # the cells keep their mass: weights sum to the items
    120.0
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
    rng_entropy: Any = None

    def to_frame(self) -> pd.DataFrame:
        """One row per item: ``b``, ``D``, ``cell``, ``anchor``, ``weight``, ``delta_<family>``."""
        out = pd.DataFrame({"b": self.b, "D": self.D, "cell": self.cells,
                            "anchor": self.selected[-1], "weight": self.weights})
        for j, f in enumerate(self.families):
            out[f"delta_{f}"] = self.delta[:, j]
        return out


def purify(Y, family, source, *, K: int, anchor_fraction: float = 0.5, rounds: int = 3,
           n_strata: int = 4, ridge: float = 1.0, n_iter: int = 5, refit: bool = True,
           standardized: tuple | None = None, rng: Any = None) -> FoldAnchors:
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
    rounds : int, default 3
        Purification rounds (always run in full; App. C.5).
    n_strata : int, default 4
        Easiness strata per source (:func:`easiness_cells`).
    ridge : float
        Ridge penalty lambda of the residual fit (:func:`benchkit.dif.steps.fit_residual_dif`).
    n_iter : int, default 5
        Power iterations of the randomized SVD (Table C.8).
    refit : bool
        Step 4's final refit on :math:`\mathcal S^{(3)}` (the stored signatures).
    standardized : tuple, optional
        ``benchkit.irt.standardize(Y)``'s ``(X, p_hat, s)`` when the caller already has it (the
        anchor-fraction refits of an audit reuse their half's); computed here otherwise.
    rng : None, int, SeedSequence or Generator
        Seeds the randomized SVDs (one child per round).

    Returns
    -------
    FoldAnchors
        The anchors of every round, the frozen weights, the final signatures and ``rng_entropy``.

    Notes
    -----
    Each round learns directions from the current anchor rows, projects all items, refits
    :math:`b, \delta` on all items, rebuilds the cells from :math:`b^{(t)}` and keeps the
    smallest-D fraction of every cell. Always three rounds; Jaccard overlaps are recorded only.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.3; App. C.2 (spectral offsets, Eq. 12-17), App. C.5 (purification),
    Table C.8. G. L. Candell and F. Drasgow (1988), "An iterative procedure for linking metrics and
    assessing item bias in item response theory", Applied Psychological Measurement 12(3),
    253-260.

    Examples
    --------
    On simulated data with planted family effects, the anchors avoid the planted DIF items:

    >>> import numpy as np
    >>> from benchkit.dif.steps import purify, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> keep = np.array([f is not None for f in sim.family])     # models of an audited family
    >>> fa = purify(sim.Y[:, keep], sim.family[keep], sim.source, K=2, rng=0)
    >>> int((sim.dif_items & fa.selected[-1]).sum()), int(sim.dif_items.sum())
    (0, 14)
    >>> fa2 = purify(sim.Y[:, keep], sim.family[keep], sim.source, K=2, rng=fa.rng_entropy)
    >>> bool((fa2.weights == fa.weights).all())
    True
    """
    rounds = check_int("rounds", rounds, min=1)
    return _finish(_purify_rounds(Y, family, source, K=K, anchor_fraction=anchor_fraction,
                                  rounds=rounds, n_strata=n_strata, ridge=ridge, n_iter=n_iter,
                                  refit=refit, standardized=standardized, rng=rng))


def _purify_rounds(Y, family, source, *, K, anchor_fraction, rounds, n_strata, ridge, n_iter,
                   refit, standardized, rng):
    """:func:`purify`'s work one round at a time.

    A generator that pauses after every round but the last and returns the :class:`FoldAnchors`
    (step 4's refit joins the last round). The audit's anchor-fraction refits interleave their
    rounds on two threads (:mod:`benchkit.dif._sensitivity`); each round is computed exactly as in
    :func:`purify`.
    """
    from benchkit.dif._residual import fit_residual_spectral
    from benchkit.irt._spectral import fit_spectral
    from benchkit.irt._spectral import standardize

    n_items = Y.shape[0]
    root = seed_sequence(rng)
    seeds = spawn(root, rounds + 1)
    S = np.ones(n_items, dtype=bool)
    sel, rD = [], []
    # Eq. 12-13 use every item of the half: one standardization for all rounds
    st = standardize(Y) if standardized is None else standardized
    for t in range(rounds):
        if t:
            yield
        sp = fit_spectral(Y, K, rows=np.flatnonzero(S), n_iter=n_iter, standardized=st,
                          rng=seeds[t])
        fit = fit_residual_spectral(Y, family, sp, ridge=ridge)
        cells = easiness_cells(fit.b, source, n_strata=n_strata)
        S = select_anchors(fit.D, cells, anchor_fraction=anchor_fraction)
        sel.append(S)
        rD.append(fit.D)
    w = anchor_weights(S, cells)
    if refit:
        sp = fit_spectral(Y, K, rows=np.flatnonzero(S), n_iter=n_iter, standardized=st,
                          rng=seeds[rounds])
        fit = fit_residual_spectral(Y, family, sp, ridge=ridge)
    jac = np.array([jaccard(sel[t - 1], sel[t]) for t in range(1, rounds)])
    return FoldAnchors(K=int(sp.K), selected=np.array(sel), cells=cells, weights=w, jaccard=jac,
                       b=fit.b, delta=fit.delta, D=fit.D, round_D=np.array(rD),
                       families=fit.families, rng_entropy=root.entropy)


def _finish(steps):
    """Run a generator such as :func:`_purify_rounds` to its end and return its value."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value
