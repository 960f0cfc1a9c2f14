"""Landscape cohesion: mean pairwise distance (MPD), its uncertainty, and the paper's MPD tables.

Paper 003, Sec. 3.3 (MPD), Sec. 5 (Tables 1-4), App. A (Tables 7-8), App. D (Tables 11-12),
App. E (Table 13), App. G (Table 15).
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

__all__ = [
    "MPDResult",
    "GroupedMPDResult",
    "mpd",
    "pairwise_distance_sum",
    "benchmark_table",
    "variant_table",
    "model_table",
    "rank_table",
    "summary_table",
    "score_spread_table",
    "average_over_models",
    "MPDReadings",
    "mpd_readings",
]

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


# ----------------------------------------------------------------------------- tables
def _check_frame(frame: Any, required: Sequence[str]) -> pd.DataFrame:
    if isinstance(frame, LandscapePoints):
        frame = frame.to_frame()
    if not isinstance(frame, pd.DataFrame):
        raise BenchkitTypeError(
            f"expected a DataFrame (e.g. LandscapePoints.to_frame()); got {type(frame).__name__}"
        )
    check_columns("frame", frame.columns, required=list(required))
    return frame


def _mpd_by(frame: pd.DataFrame, by: list[str], block: int) -> pd.Series:
    res = mpd(frame, by=by, block=block)
    t = res.to_frame().set_index(by)["mpd"]
    return t


def benchmark_table(frame: Any, *, by: str = "benchmark", block: int = 512) -> pd.DataFrame:
    """Table 1 (and Table 15): per benchmark, mean H_norm and pooled MPD over all its points.

    The paper's benchmark-level comparison: mean ``H_norm`` says how much residual option
    competition the models see, MPD how heterogeneous the landscape is (Sec. 5.1-5.2).

    Parameters
    ----------
    frame : LandscapePoints or DataFrame
        One row per (item, model) point with the ``by`` column, ``p_top1`` and ``h_norm`` (e.g.
        ``map_points(rs).to_frame()``).
    by : str, default "benchmark"
        The split: one row of the table per value of this column.
    block : int, default 512
        Tile size of the exact MPD kernel (:func:`pairwise_distance_sum`).

    Returns
    -------
    DataFrame
        Indexed by ``by``: ``points`` (N, the pooled (item, model) points), ``mean_h_norm`` and
        ``mpd`` (pooled over all points of the group, within- and cross-model pairs, Sec. 3.3).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.3, Sec. 5.1, Table 1;
    App. G, Table 15 (GPQA).

    Examples
    --------
    The 2,400 (item, model) points of the MCQ sample, its items split into two "benchmarks":

    >>> import benchkit
    >>> frame = benchkit.landscape.map_points(benchkit.simulate.load_sample("mcq")).to_frame()
    >>> frame["benchmark"] = frame["item"].map(lambda i: "first" if i < "q0150" else "second")
    >>> from benchkit.landscape.steps import benchmark_table
    >>> benchmark_table(frame).round(3)
               points  mean_h_norm    mpd
    benchmark
    first        1200        0.553  0.431
    second       1200        0.558  0.429
    """
    f = _check_frame(frame, [by, "p_top1", "h_norm"])
    out = pd.DataFrame({
        "points": f.groupby(by, sort=True).size(),
        "mean_h_norm": f.groupby(by, sort=True)["h_norm"].mean(),
    })
    out["mpd"] = _mpd_by(f, [by], block)
    out.index.name = by
    return out


def variant_table(
    frame: Any,
    *,
    variants: Sequence[str] | None = None,
    baseline_variant: str = "baseline",
    stat: str = "mpd",
    variant_column: str = "variant",
    benchmark_column: str = "benchmark",
    block: int = 512,
) -> pd.DataFrame:
    """Tables 2, 3 and 4: a statistic per benchmark and variant, with the change from baseline.

    How a perturbation moves the landscape (MPD, Tables 2 and 4) or the accuracy (Table 3): masking
    and No-Answer should lower accuracy, noise injection raise it towards 100 %, score bias change
    little (Sec. 5.3-5.4).

    Parameters
    ----------
    frame : LandscapePoints or DataFrame
        One row per (item, model, variant) point with the variant and benchmark columns,
        ``p_top1``, ``h_norm`` and, for ``stat="accuracy"``, ``correct``.
    variants : sequence of str, optional
        The variants to show, in column order (default: the baseline, then the others in order of
        appearance). The baseline is always included.
    baseline_variant : str, default "baseline"
        The reference variant of the deltas.
    stat : {"mpd", "accuracy", "mean_h_norm"}
        ``"mpd"`` (Tables 2, 4: pooled MPD of each benchmark x variant), ``"accuracy"`` (Table 3,
        in percent) or ``"mean_h_norm"``.
    variant_column, benchmark_column : str
        The columns holding the variant and the benchmark (default ``"variant"``,
        ``"benchmark"``).
    block : int, default 512
        Tile size of the exact MPD kernel (:func:`pairwise_distance_sum`).

    Returns
    -------
    DataFrame
        Indexed by benchmark: the baseline, then for each other variant its value and
        ``"<variant> delta"`` (value - baseline), in ``variants`` order.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.4 (perturbations),
    Sec. 5.3-5.4, Tables 2, 3 and 4.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import variant_table
    >>> frame = pd.DataFrame({
    ...     "benchmark": ["arc"] * 4 + ["mmlu"] * 4,
    ...     "variant": ["baseline", "baseline", "noise", "noise"] * 2,
    ...     "p_top1": [0.9, 0.6, 1.0, 0.98, 0.5, 0.7, 0.9, 0.99],
    ...     "h_norm": [0.5, 0.8, 0.2, 0.1, 0.9, 0.6, 0.3, 0.2],
    ...     "correct": [True, False, True, True, False, True, True, True]})
    >>> variant_table(frame).round(3)
               baseline  noise  noise delta
    benchmark
    arc           0.424  0.102       -0.322
    mmlu          0.361  0.135       -0.226
    >>> variant_table(frame, stat="accuracy")
               baseline  noise  noise delta
    benchmark
    arc            50.0  100.0         50.0
    mmlu           50.0  100.0         50.0
    """
    check_choice("stat", stat, ("mpd", "accuracy", "mean_h_norm"))
    need = [variant_column, benchmark_column, "p_top1", "h_norm"]
    need += ["correct"] if stat == "accuracy" else []
    f = _check_frame(frame, need)
    present = list(pd.unique(f[variant_column]))
    if variants is None:
        variants = [baseline_variant] + [v for v in present if v != baseline_variant]
    variants = list(variants)
    if baseline_variant not in variants:
        variants = [baseline_variant] + variants
    missing = [v for v in variants if v not in present]
    if missing:
        raise BenchkitValueError(
            f"variant(s) {missing} not found in column {variant_column!r}; present: {present}"
        )
    f = f[f[variant_column].isin(variants)]
    if stat == "mpd":
        val = _mpd_by(f, [benchmark_column, variant_column], block)
    elif stat == "accuracy":
        val = f.groupby([benchmark_column, variant_column])["correct"].mean() * 100.0
    else:
        val = f.groupby([benchmark_column, variant_column])["h_norm"].mean()
    wide = val.unstack(variant_column)
    out = pd.DataFrame(index=wide.index)
    out[baseline_variant] = wide[baseline_variant]
    for v in variants:
        if v == baseline_variant:
            continue
        out[v] = wide[v]
        out[f"{v} delta"] = wide[v] - wide[baseline_variant]
    return out


def model_table(
    frame: Any,
    *,
    models: Sequence[str] | None = None,
    benchmarks: Sequence[str] | None = None,
    model_column: str = "model",
    benchmark_column: str = "benchmark",
    orient: str = "model",
    block: int = 512,
) -> pd.DataFrame:
    """MPD of each model's own points per benchmark (Tables 7, 11-12).

    Whether the benchmark ordering of MPD holds model by model (App. A), and how MPD moves with
    model size within a family (App. D: larger models tend to give lower MPD).

    Parameters
    ----------
    frame : LandscapePoints or DataFrame
        One row per (item, model) point with the model and benchmark columns, ``p_top1`` and
        ``h_norm``.
    models, benchmarks : sequence of str, optional
        Keep these models / benchmarks, in this order (default: all, sorted).
    model_column, benchmark_column : str
        The columns holding the model and the benchmark (default ``"model"``, ``"benchmark"``).
    orient : {"model", "benchmark"}
        ``"model"``: models x benchmarks (Table 7); ``"benchmark"``: benchmarks x models (Tables
        11-12, the models of one family).
    block : int, default 512
        Tile size of the exact MPD kernel (:func:`pairwise_distance_sum`).

    Returns
    -------
    DataFrame
        Per-model MPD (each model's own points only), models x benchmarks or its transpose.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. A, Table 7; App. D,
    Tables 11-12.

    Examples
    --------
    Each model's own MPD on each half of the MCQ sample's items:

    >>> import benchkit
    >>> frame = benchkit.landscape.map_points(benchkit.simulate.load_sample("mcq")).to_frame()
    >>> frame["benchmark"] = frame["item"].map(lambda i: "first" if i < "q0150" else "second")
    >>> from benchkit.landscape.steps import model_table
    >>> model_table(frame).round(3).head(3)
    benchmark  first  second
    model
    sim-mcq-1  0.280   0.284
    sim-mcq-2  0.343   0.320
    sim-mcq-3  0.412   0.399
    """
    check_choice("orient", orient, ("model", "benchmark"))
    f = _check_frame(frame, [model_column, benchmark_column, "p_top1", "h_norm"])
    if models is not None:
        f = f[f[model_column].isin(list(models))]
    if benchmarks is not None:
        f = f[f[benchmark_column].isin(list(benchmarks))]
    wide = _mpd_by(f, [model_column, benchmark_column], block).unstack(benchmark_column)
    if models is not None:
        wide = wide.reindex([m for m in models if m in wide.index])
    if benchmarks is not None:
        wide = wide[[b for b in benchmarks if b in wide.columns]]
    return wide if orient == "model" else wide.T


def rank_table(frame: Any, *, model_column: str = "model", benchmark_column: str = "benchmark",
               models: Sequence[str] | None = None, block: int = 512) -> pd.DataFrame:
    """Table 8: per model, the benchmarks ordered by decreasing per-model MPD (ties: name order).

    Parameters
    ----------
    frame : LandscapePoints or DataFrame
        One row per (item, model) point with the model and benchmark columns, ``p_top1`` and
        ``h_norm``.
    model_column, benchmark_column : str
        The columns holding the model and the benchmark (default ``"model"``, ``"benchmark"``).
    models : sequence of str, optional
        Keep these models, in this order (default: all, sorted).
    block : int, default 512
        Tile size of the exact MPD kernel (:func:`pairwise_distance_sum`).

    Returns
    -------
    DataFrame
        One row per model, columns ``1st, 2nd, ...``: the benchmark names from the most to the
        least dispersed landscape (None where a model lacks a benchmark).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. A, Table 8.

    Examples
    --------
    The halves of the MCQ sample ranked model by model (most dispersed first):

    >>> import benchkit
    >>> frame = benchkit.landscape.map_points(benchkit.simulate.load_sample("mcq")).to_frame()
    >>> frame["benchmark"] = frame["item"].map(lambda i: "first" if i < "q0150" else "second")
    >>> from benchkit.landscape.steps import rank_table
    >>> rank_table(frame).head(3)
                  1st     2nd
    model
    sim-mcq-1  second   first
    sim-mcq-2   first  second
    sim-mcq-3   first  second
    """
    wide = model_table(frame, model_column=model_column, benchmark_column=benchmark_column, models=models,
                       block=block)
    ords = {1: "1st", 2: "2nd", 3: "3rd"}
    rows = {}
    for m, r in wide.iterrows():
        r = r.dropna()
        order = sorted(r.index, key=lambda b: (-r[b], str(b)))
        rows[m] = order
    width = max((len(v) for v in rows.values()), default=0)
    cols = [ords.get(i, f"{i}th") for i in range(1, width + 1)]
    return pd.DataFrame([v + [None] * (width - len(v)) for v in rows.values()],
                        index=pd.Index(list(rows), name=model_column), columns=cols)


def summary_table(frame: Any, *, by: str | Sequence[str] = ("model", "variant"),
                  block: int = 512) -> pd.DataFrame:
    """Table 13 layout (and a general summary) per group.

    Parameters
    ----------
    frame : LandscapePoints or DataFrame
        One row per point with the ``by`` columns, ``p_top1``, ``h_norm`` and optionally
        ``correct``.
    by : str or sequence of str, default ("model", "variant")
        The split: one row per combination (Table 13: model x 4- or 5-choice format).
    block : int, default 512
        Tile size of the exact MPD kernel (:func:`pairwise_distance_sum`).

    Returns
    -------
    DataFrame
        Indexed by ``by``: ``n`` (points), ``accuracy`` (%; NaN when ``frame`` has no
        ``correct`` column), ``mean_h_norm``, ``mean_p_top1`` and ``mpd``.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. E, Table 13.

    Examples
    --------
    Per model of the MCQ sample (the weakest models are the least confident):

    >>> import benchkit
    >>> frame = benchkit.landscape.map_points(benchkit.simulate.load_sample("mcq")).to_frame()
    >>> frame["benchmark"] = frame["item"].map(lambda i: "first" if i < "q0150" else "second")
    >>> from benchkit.landscape.steps import summary_table
    >>> summary_table(frame, by="model").round(3).head(3)
                 n  accuracy  mean_h_norm  mean_p_top1    mpd
    model
    sim-mcq-1  300     4.667        0.733        0.552  0.282
    sim-mcq-2  300    29.333        0.691        0.625  0.331
    sim-mcq-3  300    66.000        0.538        0.765  0.405
    """
    by_cols = [by] if isinstance(by, str) else list(by)
    f = _check_frame(frame, by_cols + ["p_top1", "h_norm"])
    g = f.groupby(by_cols, sort=True)
    out = pd.DataFrame({"n": g.size()})
    out["accuracy"] = (g["correct"].mean() * 100.0) if "correct" in f.columns else np.nan
    out["mean_h_norm"] = g["h_norm"].mean()
    out["mean_p_top1"] = g["p_top1"].mean()
    out["mpd"] = _mpd_by(f, by_cols, block)
    return out


def score_spread_table(
    frame: Any,
    *,
    variants: Sequence[str] = ("score_bias_1/10", "score_bias", "score_bias_100/100"),
    variant_column: str = "variant",
    model_column: str = "model",
    benchmark_column: str = "benchmark",
) -> pd.DataFrame:
    """Table 9 evidence (App. B): accuracy (%) under each score value, per model x benchmark.

    Columns: one per entry of ``variants`` (default: the score-bias builder's names for 1/10,
    10/10 and 100/100), ``complete`` (all values present) and ``spread_pp`` = max - min accuracy
    in percentage points over the values present. The paper's summary rows are
    ``t.complete.sum()`` (complete comparisons), ``t.loc[t.complete, "spread_pp"].max()``
    (maximum spread) and its typical value.

    Parameters
    ----------
    frame : LandscapePoints or DataFrame
        One row per (item, model, variant) response with the variant, model and benchmark columns
        and ``correct``.
    variants : sequence of str
        The score-value variants compared (default the names :func:`score_bias` gives to
        ``value="1/10"``, ``"10/10"`` and ``"100/100"``).
    variant_column, model_column, benchmark_column : str
        The columns holding the variant, the model and the benchmark.

    Returns
    -------
    DataFrame
        Indexed by (model, benchmark): accuracy (%) per variant, ``complete`` and ``spread_pp``.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. B, Table 9 (20 complete
    comparisons, maximum spread 1.10 pp).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import score_spread_table
    >>> frame = pd.DataFrame({
    ...     "model": "m1", "benchmark": "mmlu",
    ...     "variant": ["score_bias_1/10", "score_bias_1/10", "score_bias", "score_bias",
    ...                 "score_bias_100/100", "score_bias_100/100"],
    ...     "correct": [True, False, True, True, True, False]})
    >>> t = score_spread_table(frame)
    >>> t[["score_bias", "complete", "spread_pp"]]
                     score_bias  complete  spread_pp
    model benchmark
    m1    mmlu            100.0      True       50.0
    """
    f = _check_frame(frame, [variant_column, model_column, benchmark_column, "correct"])
    variants = list(variants)
    f = f[f[variant_column].isin(variants)]
    if len(f) == 0:
        raise BenchkitValueError(
            f"frame has no rows with variant in {variants}; pass variants= with your names"
        )
    acc = f.groupby([model_column, benchmark_column, variant_column])["correct"].mean() * 100.0
    acc = acc.unstack(variant_column)
    acc = acc.reindex(columns=variants)
    out = acc.copy()
    out["complete"] = acc.notna().all(axis=1)
    out["spread_pp"] = acc.max(axis=1) - acc.min(axis=1)
    out.columns.name = None
    return out


def _as_list(by) -> list[str]:
    if by is None:
        return []
    return [by] if isinstance(by, str) else list(by)


def average_over_models(frame: Any, *, by: str | Sequence[str] | None = "benchmark",
                        item_column: str = "item", model_column: str = "model",
                        columns: Sequence[str] = ("p_top1", "h_norm")) -> pd.DataFrame:
    """Figure 2's landscape: each item's coordinates averaged over the models.

    Parameters
    ----------
    frame : LandscapePoints or DataFrame
        One row per (item, model) point with ``item``, ``model``, the ``columns`` and ``by``.
    by : str or list of str, optional
        Columns kept as groups (default ``"benchmark"``; None: items are identified by ``item``
        alone).
    item_column, model_column : str
        The columns holding the item and the model (default ``"item"``, ``"model"``).
    columns : pair of str
        The coordinates averaged (default P_top1 and H_norm).

    Returns
    -------
    DataFrame
        One row per (by..., item): the mean of each coordinate over the models that answered the
        item, and ``n_models`` (how many did). Paper 003 Fig. 2: "coordinates averaged across
        three models".

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Fig. 2 (Sec. 4.1).

    Examples
    --------
    Fig. 2's points for the MCQ sample: one per item, averaged over its eight models:

    >>> import benchkit
    >>> frame = benchkit.landscape.map_points(benchkit.simulate.load_sample("mcq")).to_frame()
    >>> frame["benchmark"] = frame["item"].map(lambda i: "first" if i < "q0150" else "second")
    >>> from benchkit.landscape.steps import average_over_models
    >>> average_over_models(frame).round(3).head(3)
      benchmark   item  p_top1  h_norm  n_models
    0     first  q0000   0.894   0.802         8
    1     first  q0001   0.625   0.787         8
    2     first  q0002   0.832   0.705         8
    """
    keys = _as_list(by) + [item_column]
    f = _check_frame(frame, keys + [model_column] + list(columns))
    g = f.groupby(keys, sort=True, observed=True)
    out = g[list(columns)].mean()
    out["n_models"] = g[model_column].nunique()
    return out.reset_index()


@result
class MPDReadings:
    """The three readings of MPD (paper 003 Sec. 3.3, Table 1, Fig. 2 and App. A) per group.

    The paper uses MPD in three ways that give different numbers: pooled over all (item, model)
    points (Table 1), over the per-item points averaged across models (Fig. 2), and as the mean of
    each model's own MPD (App. A). Built by :func:`mpd_readings`.

    Parameters
    ----------
    table, per_model
        The fields described under Attributes.

    Attributes
    ----------
    table : DataFrame
        Indexed by the group (``by``), columns:

        * ``pooled`` -- MPD over all (item, model) points, within- and cross-model pairs (Sec. 3.3,
          Table 1: N = 3,000 for 1,000 items x 3 models);
        * ``item_averaged`` -- MPD over the per-item points averaged across models (the landscape
          of Fig. 2);
        * ``mean_per_model`` -- the mean over models of each model's own MPD (App. A, Table 7);
        * ``points``, ``items``, ``models`` -- N of the pooled reading, number of items, models.
    per_model : DataFrame
        Each model's own MPD (groups x models), the terms of ``mean_per_model``.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372: pooled MPD, Sec. 3.3
    and Table 1; item-averaged landscape, Fig. 2; per-model MPD, App. A and Table 7.

    Examples
    --------
    Averaging over models shrinks the cloud; pooling adds the cross-model pairs:

    >>> import benchkit
    >>> frame = benchkit.landscape.map_points(benchkit.simulate.load_sample("mcq")).to_frame()
    >>> frame["benchmark"] = frame["item"].map(lambda i: "first" if i < "q0150" else "second")
    >>> from benchkit.landscape.steps import mpd_readings
    >>> mpd_readings(frame).table[["pooled", "item_averaged", "mean_per_model"]].round(3)
               pooled  item_averaged  mean_per_model
    benchmark
    first       0.431          0.258           0.381
    second      0.429          0.247           0.383
    """

    table: pd.DataFrame
    per_model: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """The readings table (:attr:`table`), a copy."""
        return self.table.copy()


def mpd_readings(frame: Any, *, by: str | Sequence[str] | None = "benchmark",
                 item_column: str = "item", model_column: str = "model",
                 columns: Sequence[str] = ("p_top1", "h_norm"), block: int = 512) -> MPDReadings:
    """All three readings of MPD side by side (pooled, per-item averaged, mean of per-model MPDs).

    Parameters
    ----------
    frame : LandscapePoints or DataFrame
        One row per (item, model) point with ``item``, ``model``, the ``columns`` and ``by``.
    by : str or list of str, optional
        Group columns (default ``"benchmark"``); None: one group.
    item_column, model_column, columns, block
        The item and model columns, the coordinate columns and the exact kernel's block size
        (:func:`mpd`).

    Returns
    -------
    MPDReadings
        ``table`` (per group: ``pooled``, ``item_averaged``, ``mean_per_model``, counts) and
        ``per_model`` (each model's own MPD).

    Notes
    -----
    Sec. 3.3 defines MPD = 2 / (N (N - 1)) sum_{i<j} ||z_i - z_j|| and states that the pooled
    value over item x model points "differs from the mean of the independently computed per-model
    MPDs in Appendix A"; Fig. 2 plots the per-item average over models. The three are different
    statistics: averaging shrinks the cloud (item_averaged <= pooled typically), and pooling adds
    the cross-model pairs. All three use exact pair sums.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.3, Table 1, Fig. 2,
    App. A (Table 7).

    Examples
    --------
    The three readings of the MCQ sample's two halves, and the per-model terms:

    >>> import benchkit
    >>> frame = benchkit.landscape.map_points(benchkit.simulate.load_sample("mcq")).to_frame()
    >>> frame["benchmark"] = frame["item"].map(lambda i: "first" if i < "q0150" else "second")
    >>> from benchkit.landscape.steps import mpd_readings
    >>> r = mpd_readings(frame)
    >>> r.table[["points", "items", "models"]]
               points  items  models
    benchmark
    first        1200    150       8
    second       1200    150       8
    >>> r.per_model.iloc[:, :3].round(3)
    model      sim-mcq-1  sim-mcq-2  sim-mcq-3
    benchmark
    first          0.280      0.343      0.412
    second         0.284      0.320      0.399
    """
    groups = _as_list(by)
    f = _check_frame(frame, groups + [item_column, model_column] + list(columns))
    cols = list(columns)
    key = groups if groups else None
    pooled = mpd(f, by=key, columns=cols, block=block)
    avg = average_over_models(f, by=by, item_column=item_column, model_column=model_column,
                              columns=cols)
    averaged = mpd(avg, by=key, columns=cols, block=block)
    per = mpd(f, by=groups + [model_column], columns=cols, block=block).to_frame()
    if groups:
        pooled_s = pooled.to_frame().set_index(groups)["mpd"]
        avg_s = averaged.to_frame().set_index(groups)["mpd"]
        per_model = per.set_index(groups + [model_column])["mpd"].unstack(model_column)
        gb = f.groupby(groups, sort=True, observed=True)
        table = pd.DataFrame({
            "pooled": pooled_s,
            "item_averaged": avg_s,
            "mean_per_model": per_model.mean(axis=1),
            "points": gb.size(),
            "items": gb[item_column].nunique(),
            "models": gb[model_column].nunique(),
        })
    else:
        per_model = per.set_index(model_column)["mpd"].to_frame().T
        per_model.index = pd.Index(["all"], name="group")
        table = pd.DataFrame({
            "pooled": [pooled.mpd], "item_averaged": [averaged.mpd],
            "mean_per_model": [float(per_model.iloc[0].mean())], "points": [len(f)],
            "items": [f[item_column].nunique()], "models": [f[model_column].nunique()],
        }, index=pd.Index(["all"], name="group"))
    return MPDReadings(table=table, per_model=per_model)
