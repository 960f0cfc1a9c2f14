"""BSDProbe's profile-guided subset selection (Sec. 4.4, App. J).

:func:`select_bsdprobe`: order screening (drop items with o <= alpha_o), then boundary-position
stratification with sampling weights (1 - w) v. The paper does not state the number of strata:
the default is n - 1 equal-width strata of x (one per adjacent pair of selection-axis models),
with equal allocation over strata. The experiment that compares it with the baselines is
``_utility`` (:func:`benchkit.boundary.steps.subset_utility`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from benchkit._random import generator
from benchkit._random import seed_sequence
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_choice
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.boundary._profiles import ProfileResult
from benchkit.subsets import Subset

__all__ = ["select_bsdprobe"]


def _allocate(size: int, caps: np.ndarray, mass: np.ndarray, allocation: str) -> np.ndarray:
    """Items per stratum: equal (or proportional to ``mass``) shares, capped, excess refilled."""
    S = caps.size
    alloc = np.zeros(S, dtype=np.int64)
    remaining = min(size, int(caps.sum()))
    open_ = caps > 0
    while remaining > 0 and open_.any():
        idx = np.flatnonzero(open_)
        if allocation == "equal":
            share = np.ones(idx.size)
        else:
            share = mass[idx]
            if share.sum() <= 0:
                share = np.ones(idx.size)
        raw = remaining * share / share.sum()
        base = np.floor(raw).astype(np.int64)
        # largest remainders (ties: larger mass, then lower stratum) get the leftover units
        left = remaining - int(base.sum())
        order = np.lexsort((idx, -mass[idx], -(raw - base)))
        base[order[:left]] += 1
        room = caps[idx] - alloc[idx]
        give = np.minimum(base, room)
        alloc[idx] += give
        remaining -= int(give.sum())
        open_ = caps > alloc
    return alloc


def select_bsdprobe(profile: ProfileResult, size: int, *, rng: Any = None, pool=None,
                    screen: bool = True, n_strata: int | None = None,
                    allocation: str = "equal") -> Subset:
    """Profile-guided subset (Sec. 4.4): order screening, then x-stratified weighted sampling.

    Parameters
    ----------
    profile : ProfileResult
        Profiles on the selection axis (:func:`benchkit.boundary.steps.profiles`), one row per item.
    size : int
        Subset size.
    rng : None, int, SeedSequence or Generator
        :mod:`benchkit._random` (a Generator is consumed); the root's entropy is kept as
        ``Subset.rng_entropy``.
    pool : array_like of bool or int, optional
        Candidate pool (mask or row indices); default all rows. ``Subset.indices`` are rows of the
        profile, not positions in the pool.
    screen : bool, default True
        Order screening: drop items with o <= alpha_o (``profile.flagged``) from the pool.
    n_strata : int, optional
        Equal-width strata of the boundary position x on [0, 1]; default n - 1, one per interval
        between adjacent selection-axis models.
    allocation : {"equal", "proportional"}
        Items per stratum: equal shares (default), or proportional to the stratum's total weight.

    Returns
    -------
    Subset
        Rows of the profile, stratum by stratum. Uniform estimator weights 1/size; ``groups``
        the stratum of each item; ``info["allocation"]`` items per stratum,
        ``info["n_screened"]`` items dropped by the screen, ``info["n_filled"]`` items drawn
        with zero weight (see Notes).

    Notes
    -----
    Within stratum s, ``alloc_s`` items are drawn without replacement with probabilities
    proportional to :math:`(1 - w_q) v_q` (successive sampling, ``Generator.choice``). Only items
    with positive weight can be stratum-sampled, so Delta = 0 items (v = 0, their x is App. B's
    assigned position) are never chosen this way. A stratum with fewer positive-weight items than
    its share gives the excess to the other strata. If the screened pool has fewer positive-weight
    items than ``size``, all of them are taken and the rest is drawn uniformly from the screened
    zero-weight items (``n_filled``); fewer screened items than ``size`` is an error.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 4.4 ("boundary-position stratification with sampling weights
       (1 - w_q) v_q after order screening").

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> from benchkit.boundary.steps import select_bsdprobe
    >>> res = boundary.profile(simulate.load_sample("ladder"))
    >>> sub = select_bsdprobe(res.profile, 12, rng=3)
    >>> sub.info["n_screened"], sub.info["allocation"].tolist()   # 16 flagged items dropped
    (16, [2, 2, 3, 3, 2])
    >>> select_bsdprobe(res.profile, 12, rng=sub.rng_entropy).indices.tolist() == sub.indices.tolist()
    True
    """
    if not isinstance(profile, ProfileResult):
        raise BenchkitTypeError(f"profile must be a ProfileResult; got {describe(profile)}")
    m = profile.x.size
    size = check_int("size", size, min=1)
    root = seed_sequence(rng)
    rng = generator(root)
    check_choice("allocation", allocation, ("equal", "proportional"))
    n_strata = profile.n - 1 if n_strata is None else check_int("n_strata", n_strata, min=1)
    cand = _pool_mask(pool, m)
    n_cand = int(cand.sum())
    flagged = profile.flagged & cand if screen else np.zeros(m, bool)
    elig = cand & ~flagged
    n_elig = int(elig.sum())
    if n_elig < size:
        raise BenchkitValueError(
            f"size={size} exceeds the {n_elig} items left after order screening "
            f"({int(flagged.sum())} of {n_cand} candidates flagged with o <= "
            f"{profile.alpha_o})"
        )
    wt = np.nan_to_num((1.0 - profile.w) * profile.v, nan=0.0)
    wt = np.where(elig, np.maximum(wt, 0.0), 0.0)
    x = np.nan_to_num(profile.x, nan=0.0)
    stratum = np.minimum((np.clip(x, 0.0, 1.0) * n_strata).astype(np.int64), n_strata - 1)
    pos = wt > 0
    caps = np.bincount(stratum[pos], minlength=n_strata)
    mass = np.bincount(stratum[pos], weights=wt[pos], minlength=n_strata)
    alloc = _allocate(size, caps, mass, allocation)
    chosen, groups = [], []
    for s in range(n_strata):
        if alloc[s] == 0:
            continue
        idx = np.flatnonzero(pos & (stratum == s))
        p = wt[idx] / wt[idx].sum()
        pick = rng.choice(idx, size=int(alloc[s]), replace=False, p=p)
        chosen.append(pick)
        groups.append(np.full(pick.size, s))
    n_filled = size - int(alloc.sum())
    if n_filled > 0:
        zero = np.flatnonzero(elig & ~pos)
        pick = rng.choice(zero, size=n_filled, replace=False)
        chosen.append(pick)
        groups.append(np.full(pick.size, -1))
    idx = np.concatenate(chosen).astype(np.int64)
    return Subset(idx, np.full(size, 1.0 / size), "bsdprobe", n_cand,
                  np.concatenate(groups).astype(np.int64),
                  {"allocation": alloc, "n_screened": int(flagged.sum()), "n_filled": n_filled,
                   "n_strata": n_strata, "strata_capacity": caps}, rng_entropy=root.entropy)


def _pool_mask(pool, m: int) -> np.ndarray:
    if pool is None:
        return np.ones(m, bool)
    arr = np.asarray(pool)
    if arr.dtype == bool:
        if arr.shape != (m,):
            raise BenchkitValueError(f"pool mask must have one entry per item ({m}); got {arr.shape}")
        return arr.copy()
    idx = check_array("pool", arr, ndim=1, dtype="int")
    if idx.size and (idx.min() < 0 or idx.max() >= m):
        raise BenchkitValueError(f"pool indices must lie in [0, {m}); got {idx.min()}..{idx.max()}")
    mask = np.zeros(m, bool)
    mask[idx] = True
    return mask
