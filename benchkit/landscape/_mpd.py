"""Landscape cohesion: mean pairwise distance (MPD) and its uncertainty.

Paper 003, Sec. 3.3 (MPD). The paper's MPD tables (Sec. 5, App. A, D, E, G) and the three
readings of MPD are in :mod:`benchkit.landscape._mpd_tables`.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any
from typing import Hashable
from typing import Sequence

import numpy as np
import pandas as pd

from benchkit._kernels import mpd as _k
from benchkit._parallel import blocked_map
from benchkit._parallel import check_n_jobs
from benchkit._random import seed_sequence
from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_columns
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit.landscape._points import LandscapePoints
from benchkit.stats import percentile_interval

__all__ = ["MPDResult", "GroupedMPDResult", "mpd", "pairwise_distance_sum"]

_SERIAL_BELOW = 2048  # points; below this one thread beats waking the pool (~8 ms)
#: Planar point sets from this size on are summed from float32 coordinates (float64 below): the
#: rounding of the coordinates to float32 leaves a relative error of about 6e-8 / sqrt(N), below
#: 1e-9 from here on (measured 4e-10 at this size, 3e-11 at 100,000 points).
FLOAT32_FROM = 16_384
_BOOT_CHUNK = 64  # bootstrap replicates per weight chunk (each chunk has its own spawned seed)
_SAMPLE_CHUNK = 1 << 20  # sampled pairs per chunk (each chunk has its own spawned seed)


@result
class MPDResult:
    """Mean pairwise Euclidean distance of one point set (paper 003, Sec. 3.3).

    MPD summarizes how spread out a benchmark's probability landscape is: low when the items sit
    in a narrow region of the ``(P_top1, H_norm)`` square, high when confidence and residual
    option competition vary a lot. The paper reads it as a descriptive summary of dispersion, not
    as a measure of benchmark quality.

    Parameters
    ----------
    mpd, n_points, n_pairs, method, se, ci_low, ci_high, confidence_level, n_resamples
        The fields described under Attributes (built by :func:`mpd`).
    n_sampled, boot, rng_entropy
        The fields described under Attributes.

    Attributes
    ----------
    mpd : float
        Exact MPD (``method="exact"``) or the unbiased sampled-pairs estimate; in the same units
        as the coordinates (at most ``sqrt(2)`` in the unit square). NaN below 2 points.
    n_points : int
        N, the number of points (pooled (item, model) points in the paper: N = 3,000).
    n_pairs : int
        ``n_points * (n_points - 1) / 2``, the number of unordered pairs of distinct points.
    method : str
        ``"exact"`` or ``"sampled"``.
    se : float
        Standard error: of the sampled estimate (``method="sampled"``), else the bootstrap standard
        deviation when a CI was requested, else NaN.
    ci_low : float
        Lower end of the interval at ``confidence_level`` (bootstrap percentile for exact, normal
        for sampled); NaN when not requested.
    ci_high : float
        Upper end of that interval.
    confidence_level : float
        Of the interval; NaN when no interval was requested.
    n_resamples : int
        Bootstrap replicates (0 when none).
    n_sampled : int
        Sampled pairs (0 for exact).
    boot : ndarray or None
        The bootstrap replicates of MPD.
    rng_entropy : int or None
        Entropy of the root seed of ``rng`` (:mod:`benchkit._random`): ``mpd(..., rng=rng_entropy)``
        repeats the run exactly. In a :class:`GroupedMPDResult` every group records the root of
        the whole call (each group draws from its own child of it): repeat the grouped call.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.3 (MPD),
    Table 1 (pooled values); B. Efron and R. J. Tibshirani (1993), An Introduction to the
    Bootstrap, Chapman & Hall (the percentile interval).

    Examples
    --------
    >>> from benchkit.landscape.steps import mpd
    >>> res = mpd([[0.0, 0.0], [0.6, 0.8], [0.0, 0.8]])   # distances 1.0, 0.8, 0.6
    >>> round(res.mpd, 3), res.n_pairs, res.method
    (0.8, 3, 'exact')
    """

    mpd: float
    n_points: int
    n_pairs: int
    method: str
    se: float = float("nan")
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    confidence_level: float = float("nan")
    n_resamples: int = 0
    n_sampled: int = 0
    boot: np.ndarray | None = None
    rng_entropy: Any = None

    def to_frame(self) -> pd.DataFrame:
        """One-row table of the fields (without the replicates)."""
        return pd.DataFrame([{
            "mpd": self.mpd, "n_points": self.n_points, "n_pairs": self.n_pairs,
            "method": self.method, "se": self.se, "ci_low": self.ci_low, "ci_high": self.ci_high,
            "confidence_level": self.confidence_level, "n_resamples": self.n_resamples,
            "n_sampled": self.n_sampled,
        }])


@result
class GroupedMPDResult:
    """MPD per group (e.g. per model, per benchmark, per model x benchmark).

    What :func:`mpd` returns with ``by``: one :class:`MPDResult` per group, indexed by the group
    key (``res["mmlu"]`` or ``res[("m1", "mmlu")]``); :meth:`to_frame` lays them out one row per
    group (Table 1 per benchmark, Table 7 per model x benchmark).

    Parameters
    ----------
    by, groups, rng_entropy
        The fields described under Attributes (built by :func:`mpd`).

    Attributes
    ----------
    by : tuple of str
        Grouping columns.
    groups : dict
        Group key (a tuple, one entry per ``by`` column) -> :class:`MPDResult`, in sorted key
        order.
    rng_entropy : int or None
        Entropy of the root seed of ``rng``: ``mpd(..., by=..., rng=rng_entropy)`` repeats the
        call exactly (each group draws from its own child of the root, in group order).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.3,
    Table 1 (per benchmark), App. A Table 7 (per model and benchmark).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import mpd
    >>> frame = pd.DataFrame({"benchmark": ["arc", "arc", "mmlu", "mmlu", "mmlu"],
    ...                       "p_top1": [0.9, 0.9, 0.4, 1.0, 0.4],
    ...                       "h_norm": [0.2, 0.5, 0.6, 0.6, 0.0]})
    >>> res = mpd(frame, by="benchmark")
    >>> round(res["arc"].mpd, 3), round(res["mmlu"].mpd, 3)
    (0.3, 0.6)
    >>> res.to_frame()[["benchmark", "mpd", "n_points"]].round(3)
      benchmark  mpd  n_points
    0       arc  0.3         2
    1      mmlu  0.6         3
    """

    by: tuple[str, ...]
    groups: dict[tuple, MPDResult]
    rng_entropy: Any = None

    def __getitem__(self, key: Hashable) -> MPDResult:
        if not isinstance(key, tuple):
            key = (key,)
        return self.groups[key]

    def to_frame(self) -> pd.DataFrame:
        """One row per group: the ``by`` columns then the :class:`MPDResult` fields."""
        rows = []
        for key, res in self.groups.items():
            row = dict(zip(self.by, key))
            row.update(res.to_frame().iloc[0].to_dict())
            rows.append(row)
        cols = list(self.by) + list(MPDResult(0.0, 0, 0, "exact").to_frame().columns)
        return pd.DataFrame(rows, columns=cols)


# ----------------------------------------------------------------------------- inputs
def _as_frame_and_coords(points: Any, columns: Sequence[str]) -> tuple[pd.DataFrame | None, np.ndarray]:
    if isinstance(points, LandscapePoints):
        frame = points.to_frame()
        return frame, np.ascontiguousarray(points.xy)
    if isinstance(points, pd.DataFrame):
        check_columns("points", points.columns, required=list(columns))
        coords = points[list(columns)].to_numpy(dtype=np.float64, na_value=np.nan)
        return points.reset_index(drop=True), _check_coords(coords)
    try:
        arr = np.asarray(points, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise BenchkitTypeError(
            "points must be a LandscapePoints, a DataFrame with columns "
            f"{list(columns)}, or an (N, dim) numeric array; got {type(points).__name__}"
        ) from exc
    if arr.ndim == 1:
        raise BenchkitValueError(
            f"points must be an (N, dim) array; got a 1-D array of shape {arr.shape} "
            "(use points.reshape(-1, 1) for scalars)"
        )
    if arr.ndim != 2:
        raise BenchkitValueError(f"points must be an (N, dim) array; got shape {arr.shape}")
    return None, _check_coords(arr)


def _check_coords(arr: np.ndarray) -> np.ndarray:
    if arr.ndim != 2 or arr.shape[1] < 1:
        raise BenchkitValueError(f"points must be an (N, dim) array with dim >= 1; got {arr.shape}")
    if arr.size and not np.all(np.isfinite(arr)):
        i, j = map(int, np.argwhere(~np.isfinite(arr))[0])
        raise BenchkitValueError(f"points[{i}, {j}]={float(arr[i, j])!r} must be finite")
    return np.ascontiguousarray(arr, dtype=np.float64)


# ----------------------------------------------------------------------------- kernels
def _planar_coordinates(P: np.ndarray, *, float32: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(x, y)`` as the 2-D kernel takes them.

    float64 below :data:`FLOAT32_FROM` points (or with ``float32=False``), else float32 after
    centring on the mean (float32 keeps 24 bits of each coordinate relative to the centre, so the
    rounding is relative to the spread of the points, not to their offset).
    """
    if not (P.shape[0] >= FLOAT32_FROM if float32 is None else float32):
        return np.ascontiguousarray(P[:, 0]), np.ascontiguousarray(P[:, 1])
    c = P.mean(axis=0)
    return (np.ascontiguousarray(P[:, 0] - c[0], dtype=np.float32),
            np.ascontiguousarray(P[:, 1] - c[1], dtype=np.float32))


def pairwise_distance_sum(coords: Any, *, block: int = 512) -> float:
    """Exact sum of Euclidean distances over all unordered pairs of rows of ``coords`` (N, dim).

    The numerator of MPD (Sec. 3.3): divided by ``N (N - 1) / 2`` it is the mean pairwise
    distance. Exact at any N (3,000 pooled points are 4.5 million pairs; a million points take
    minutes, not memory).

    Parameters
    ----------
    coords : array_like (N, dim)
        Finite coordinates, one point per row (``(P_top1, H_norm)`` for the landscape; any
        dimension).
    block : int, default 512
        Tile size of the kernel (speed only; the sum does not depend on it beyond rounding).

    Returns
    -------
    float
        ``sum_{i<j} ||x_i - x_j||_2``; 0.0 for fewer than 2 points.

    Notes
    -----
    The numba kernel (``benchkit._kernels.mpd``) tiles the pairs into ``block x block`` tiles,
    runs the tiles in parallel and adds the per-tile partial sums in tile order with
    :func:`math.fsum`, so the result does not depend on the number of threads. In the plane, from
    16,384 points on (``FLOAT32_FROM``), the distances are computed from float32 coordinates (centred on
    their mean) and summed in float64: ~2.7x faster than float64 coordinates, relative error below
    1e-9 (measured 3e-11 to 4e-10 on landscape points, tested against float64); below that size
    the coordinates stay float64 (~1e-15 relative).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.3.

    Examples
    --------
    >>> from benchkit.landscape.steps import pairwise_distance_sum
    >>> pairwise_distance_sum([[0, 0], [3, 4], [0, 4]])   # 5 + 4 + 3
    12.0
    """
    block = check_int("block", block, min=1)
    P = _check_coords(np.asarray(coords, dtype=np.float64))
    n, dim = P.shape
    if n < 2:
        return 0.0
    if dim == 2:
        x, y = _planar_coordinates(P)
        starts, _ = _k.tile_starts([n], block)
        bi, bj = _k.tile_tasks(starts.size - 1, 1)
        fn = _k.pair_sums_tiles_serial if n < _SERIAL_BELOW else _k.pair_sums_tiles
        parts = fn(x, y, starts, bi, bj)
    else:
        bi, bj = _k.tile_tasks(n, block)
        parts = _k.pair_sums_nd(np.ascontiguousarray(P.T), bi, bj, block)
    return math.fsum(parts.tolist())


def _boot_block(seed: np.random.SeedSequence, r0: int, r1: int, pts: np.ndarray,
                units: np.ndarray, n_units: int, block: int) -> np.ndarray:
    """Bootstrap replicates r0..r1-1 (one seeded block of ``_BOOT_CHUNK``)."""
    bi, bj = _k.tile_tasks(pts.shape[1], block)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_units, size=(r1 - r0, n_units))
    counts = np.stack([np.bincount(d, minlength=n_units) for d in draws]).astype(np.float64)
    w = np.ascontiguousarray(counts[:, units])
    sums = _k.weighted_pair_sums(pts, w, bi, bj, block)
    num = np.array([math.fsum(sums[:, r].tolist()) for r in range(r1 - r0)])
    W = w.sum(axis=1)
    den = 0.5 * (W * W - (w * w).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _bootstrap(P: np.ndarray, units: np.ndarray, n_resamples: int, root: np.random.SeedSequence,
               block: int, n_jobs: Any) -> np.ndarray:
    n_units = int(units.max()) + 1
    pts = np.ascontiguousarray(P.T)
    parts = blocked_map(_boot_block, n_resamples, rng=root, block_size=_BOOT_CHUNK,
                        args=(pts, units, n_units, block), n_jobs=n_jobs)
    return np.concatenate(parts) if parts else np.empty(0)


def _sample_block(seed: np.random.SeedSequence, c0: int, c1: int, P: np.ndarray
                  ) -> tuple[int, float, float]:
    """Distances of sampled pairs c0..c1-1: (count, mean, sum of squared deviations)."""
    n = P.shape[0]
    m = c1 - c0
    rng = np.random.default_rng(seed)
    i = rng.integers(0, n, size=m)
    j = (i + 1 + rng.integers(0, n - 1, size=m)) % n  # uniform over j != i
    d = np.sqrt(((P[i] - P[j]) ** 2).sum(axis=1))
    cm = float(d.mean())
    return m, cm, float(((d - cm) ** 2).sum())


def _sampled(P: np.ndarray, n_pairs: int, root: np.random.SeedSequence, n_jobs: Any
             ) -> tuple[float, float]:
    parts = blocked_map(_sample_block, n_pairs, rng=root, block_size=_SAMPLE_CHUNK, args=(P,),
                        n_jobs=n_jobs)
    cnt = 0
    mean = 0.0
    m2 = 0.0
    for m, cm, cv in parts:
        tot = cnt + m  # Chan et al. parallel combination of means and M2
        delta = cm - mean
        mean += delta * m / tot
        m2 += cv + delta * delta * cnt * m / tot
        cnt = tot
    var = m2 / (cnt - 1) if cnt > 1 else float("nan")
    return mean, math.sqrt(var / cnt)


def _mpd_one(P: np.ndarray, units: np.ndarray | None, *, method: str, n_pairs: int,
             confidence_level: float | None, n_resamples: int, root: np.random.SeedSequence,
             block: int, n_jobs: Any) -> MPDResult:
    n = P.shape[0]
    total = n * (n - 1) // 2
    if n < 2:
        return MPDResult(float("nan"), n, 0, method)
    if method == "sampled":
        est, se = _sampled(P, n_pairs, root, n_jobs)
        lo = hi = float("nan")
        level = float("nan")
        if confidence_level is not None:
            from scipy.stats import norm

            z = float(norm.ppf(0.5 + confidence_level / 2))
            lo, hi, level = est - z * se, est + z * se, confidence_level
        return MPDResult(est, n, total, "sampled", se, lo, hi, level, 0, n_pairs)
    value = pairwise_distance_sum(P, block=block) / total
    if confidence_level is None:
        return MPDResult(value, n, total, "exact")
    u = np.arange(n) if units is None else units
    boot = _bootstrap(P, u, n_resamples, root, block, n_jobs)
    good = boot[np.isfinite(boot)]
    lo, hi = percentile_interval(good, confidence_level=confidence_level)
    return MPDResult(value, n, total, "exact", float(np.std(good, ddof=1)) if good.size > 1 else
                     float("nan"), float(lo), float(hi), confidence_level, n_resamples, 0, boot)


def mpd(
    points: Any,
    *,
    by: str | Sequence[str] | None = None,
    columns: Sequence[str] = ("p_top1", "h_norm"),
    method: str = "exact",
    n_pairs: int = 1_000_000,
    confidence_level: float | None = None,
    n_resamples: int = 2000,
    cluster: str | Sequence[Any] | None = None,
    rng: Any = None,
    n_jobs: int | None = None,
    block: int = 512,
) -> MPDResult | GroupedMPDResult:
    """Mean pairwise Euclidean distance of landscape points, pooled or per group.

    The paper's benchmark-level summary of a probability landscape (Sec. 3.3): the average
    distance between two of its points. Pooled over the (item, model) points of a benchmark it is
    Table 1's MPD; per model, Table 7's. Optional: a bootstrap interval (our addition; the paper
    lists uncertainty of MPD as future work) and a sampled-pairs estimate for very large N.

    Parameters
    ----------
    points : LandscapePoints, DataFrame or array (N, dim)
        The points ``z_i = (P_top1, H_norm)``: a :func:`~benchkit.landscape.steps.points` result, a table
        with ``columns`` (plus grouping columns), or a plain coordinate array (any dimension).
    by : str or list of str, optional
        Grouping columns (e.g. ``"model"``, ``"benchmark"``, ``["model", "benchmark"]``); None pools
        all points (the paper's pooled item x model MPD).
    columns : pair of str
        Coordinate columns when ``points`` is a table.
    method : {"exact", "sampled"}
        ``"exact"`` sums all ``N(N-1)/2`` distances (numba kernel, any N). ``"sampled"`` averages
        ``n_pairs`` distances of pairs drawn uniformly with replacement from the distinct pairs: an
        unbiased estimate with standard error ``sd / sqrt(n_pairs)`` (for very large N).
    n_pairs : int, default 1,000,000
        Number of sampled pairs for ``method="sampled"``.
    confidence_level : float, optional
        Of an interval (e.g. 0.95). For ``"exact"`` a percentile bootstrap interval
        (:func:`benchkit.stats.percentile_interval`) over ``n_resamples`` resamples of the points,
        or of the ``cluster`` units; for ``"sampled"`` a normal interval from the standard error.
        None (default): no interval.
    n_resamples : int, default 2000
        Bootstrap replicates.
    cluster : str or array (N,), optional
        Resampling unit of the bootstrap: a column name (e.g. ``"item"``, so that all models' points
        of an item are resampled together) or one label per point. Default: each point.
    rng : None, int, SeedSequence or Generator
        Randomness of the bootstrap / sampling (:mod:`benchkit._random`; a Generator is consumed).
        Each group gets its own child of the root (in group order) and each fixed block of
        replicates (64 bootstrap replicates, 2^20 sampled pairs) its own child of that, so results
        do not depend on ``n_jobs``, the joblib backend or the number of threads.
    n_jobs : int, optional
        joblib workers over the blocks (:func:`benchkit._parallel.blocked_map`; None:
        ``joblib.parallel_config``'s default, serial outside a context).
    block : int, default 512
        Tile size of the exact kernel (:func:`pairwise_distance_sum`).

    Returns
    -------
    MPDResult or GroupedMPDResult
        One :class:`MPDResult` (``.mpd``, its interval and standard error when asked for), or a
        :class:`GroupedMPDResult` with one per group when ``by`` is given. Either records
        ``rng_entropy``: ``rng=result.rng_entropy`` repeats the run.

    Notes
    -----
    Sec. 3.3: ``MPD = 2 / (N (N - 1)) * sum_{i<j} ||z_i - z_j||_2``, the mean over unordered pairs
    of distinct points (DESIGN.md). Pooling item x model points includes within- and cross-model
    pairs, so it differs from the mean of per-model MPDs (Sec. 3.3). The paper lists uncertainty of
    MPD as future work; the bootstrap here is our addition. A replicate with multiplicities
    ``w_p`` (of its cluster) is ``sum_{p<q} w_p w_q d_pq / sum_{p<q} w_p w_q``: pairs of two copies
    of the same point are not pairs of distinct points and are excluded, which keeps the replicate
    mean close to MPD (including them would shrink it by about ``1/N``). Cost of the bootstrap:
    ``O(N^2 n_resamples)`` multiply-adds (distances are computed once per tile and reused for all
    replicates of a chunk).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.3 (MPD),
    Sec. 5.1 and Table 1 (pooled MPD per benchmark), App. A Table 7 (per model), Limitations
    (uncertainty of MPD as future work). B. Efron and R. J. Tibshirani (1993), An Introduction to
    the Bootstrap, Chapman & Hall (percentile interval, cluster resampling).

    Examples
    --------
    Pooled MPD of eight (item, model) points of two benchmarks, then per benchmark:

    >>> import pandas as pd
    >>> frame = pd.DataFrame({
    ...     "benchmark": ["arc"] * 4 + ["mmlu"] * 4,
    ...     "model": ["m1", "m1", "m2", "m2"] * 2,
    ...     "item": ["a1", "a2", "a1", "a2", "b1", "b2", "b1", "b2"],
    ...     "p_top1": [0.9, 0.8, 0.95, 0.7, 0.5, 0.9, 0.4, 0.6],
    ...     "h_norm": [0.5, 0.6, 0.4, 0.3, 0.9, 0.2, 0.8, 0.5]})
    >>> from benchkit.landscape.steps import mpd
    >>> round(mpd(frame).mpd, 3)
    0.398
    >>> mpd(frame, by="benchmark").to_frame()[["benchmark", "mpd", "n_points"]].round(3)
      benchmark    mpd  n_points
    0       arc  0.229         4
    1      mmlu  0.488         4

    A bootstrap interval resampling whole items (both models' points of an item together):

    >>> res = mpd(frame, confidence_level=0.95, cluster="item", n_resamples=200, rng=0)
    >>> bool(res.ci_low <= res.mpd <= res.ci_high), res.n_resamples
    (True, 200)
    >>> mpd(frame, confidence_level=0.95, cluster="item", n_resamples=200,
    ...     rng=res.rng_entropy).ci_low == res.ci_low
    True
    """
    method = check_choice("method", method, ("exact", "sampled"))
    n_pairs = check_int("n_pairs", n_pairs, min=2)
    n_resamples = check_int("n_resamples", n_resamples, min=2)
    block = check_int("block", block, min=1)
    n_jobs = check_n_jobs(n_jobs)
    if confidence_level is not None:
        confidence_level = check_float("confidence_level", confidence_level, min=0.0, max=1.0,
                                       min_inclusive=False, max_inclusive=False)
    if isinstance(columns, str) or len(columns) < 1:
        raise BenchkitValueError(f"columns must be a sequence of column names; got {columns!r}")
    frame, P = _as_frame_and_coords(points, columns)
    root = seed_sequence(rng)
    units = None
    if cluster is not None:
        if isinstance(cluster, str):
            if frame is None:
                raise BenchkitValueError(
                    f"cluster={cluster!r} names a column, but points is an array; pass one label "
                    "per point instead"
                )
            check_columns("points", frame.columns, required=[cluster])
            labels = frame[cluster].to_numpy()
        else:
            labels = np.asarray(cluster)
            if labels.shape != (P.shape[0],):
                raise BenchkitValueError(
                    f"cluster must have one label per point ({P.shape[0]}); got shape {labels.shape}"
                )
        units = pd.factorize(labels)[0].astype(np.int64)
        if (units < 0).any():
            raise BenchkitValueError("cluster labels must not be missing")
    opts = dict(method=method, n_pairs=n_pairs, confidence_level=confidence_level,
                n_resamples=n_resamples, block=block, n_jobs=n_jobs)
    if by is None:
        return dataclasses.replace(_mpd_one(P, units, root=root, **opts), rng_entropy=root.entropy)
    by_cols = (by,) if isinstance(by, str) else tuple(by)
    if frame is None:
        raise BenchkitValueError(f"by={by!r} needs a table (DataFrame or LandscapePoints with meta)")
    check_columns("points", frame.columns, required=list(by_cols))
    grouped = frame.groupby(list(by_cols), sort=True, dropna=False).indices
    keys = list(grouped)
    seqs = root.spawn(len(keys))
    out: dict[tuple, MPDResult] = {}
    for key, seq in zip(keys, seqs):
        idx = np.sort(np.asarray(grouped[key]))
        k = key if isinstance(key, tuple) else (key,)
        u = None if units is None else pd.factorize(units[idx])[0].astype(np.int64)
        out[k] = dataclasses.replace(_mpd_one(np.ascontiguousarray(P[idx]), u, root=seq, **opts),
                                     rng_entropy=root.entropy)
    return GroupedMPDResult(by_cols, out, rng_entropy=root.entropy)


