"""Landscape cohesion: mean pairwise distance (MPD), its uncertainty, and the paper's MPD tables.

Paper 003, Sec. 3.3 (MPD), Sec. 5 (Tables 1-4), App. A (Tables 7-8), App. D (Tables 11-12),
App. E (Table 13), App. G (Table 15).
"""
from __future__ import annotations

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
_BOOT_CHUNK = 64  # bootstrap replicates per weight chunk (each chunk has its own spawned seed)
_SAMPLE_CHUNK = 1 << 20  # sampled pairs per chunk (each chunk has its own spawned seed)


@result
class MPDResult:
    """Mean pairwise Euclidean distance of one point set.

    Attributes
    ----------
    mpd : float
        Exact MPD (``method="exact"``) or the unbiased sampled-pairs estimate.
    n_points : int
    n_pairs : int
        ``n_points * (n_points - 1) / 2``, the number of unordered pairs of distinct points.
    method : str
        ``"exact"`` or ``"sampled"``.
    se : float
        Standard error: of the sampled estimate (``method="sampled"``), else the bootstrap standard
        deviation when a CI was requested, else NaN.
    ci_low, ci_high : float
        Confidence interval at ``confidence_level`` (bootstrap percentile for exact, normal for
        sampled); NaN when not requested.
    confidence_level : float
        NaN when no interval was requested.
    n_resamples : int
        Bootstrap replicates (0 when none).
    n_sampled : int
        Sampled pairs (0 for exact).
    boot : ndarray or None
        The bootstrap replicates of MPD.
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

    Attributes
    ----------
    by : tuple of str
        Grouping columns.
    groups : dict
        Group key (a tuple, one entry per ``by`` column) -> :class:`MPDResult`.
    """

    by: tuple[str, ...]
    groups: dict[tuple, MPDResult]

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
def pairwise_distance_sum(coords: Any, *, block: int = 512) -> float:
    """Exact sum of Euclidean distances over all unordered pairs of rows of ``coords`` (N, dim).

    The numba kernel (:mod:`benchkit._kernels.mpd`) tiles the pairs into ``block x block`` tiles,
    runs the tiles in parallel and adds the per-tile partial sums in tile order with
    :func:`math.fsum`, so the result does not depend on the number of threads.
    """
    block = check_int("block", block, min=1)
    P = _check_coords(np.asarray(coords, dtype=np.float64))
    n, dim = P.shape
    if n < 2:
        return 0.0
    bi, bj = _k.tile_tasks(n, block)
    if dim == 2:
        x = np.ascontiguousarray(P[:, 0])
        y = np.ascontiguousarray(P[:, 1])
        fn = _k.pair_sums_2d_serial if n < _SERIAL_BELOW else _k.pair_sums_2d
        parts = fn(x, y, bi, bj, block)
    else:
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
    n_pairs : int
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
    block : int
        Tile size of the kernel.

    Returns
    -------
    MPDResult, or GroupedMPDResult when ``by`` is given.

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
        return _mpd_one(P, units, root=root, **opts)
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
        out[k] = _mpd_one(np.ascontiguousarray(P[idx]), u, root=seq, **opts)
    return GroupedMPDResult(by_cols, out)


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

    ``frame`` holds one row per (item, model) point with ``benchmark, p_top1, h_norm``; the
    pooled MPD includes within- and cross-model pairs (Sec. 3.3). Columns: ``items`` (rows),
    ``mean_h_norm``, ``mpd``.
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

    ``stat`` is ``"mpd"`` (Tables 2, 4: pooled MPD of each benchmark x variant), ``"accuracy"``
    (Table 3, in percent; needs ``correct``) or ``"mean_h_norm"``. Columns: the baseline, then for
    each other variant its value and ``"<variant> delta"`` (value - baseline), in ``variants`` order.
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

    ``orient="model"``: models x benchmarks (Table 7); ``orient="benchmark"``: benchmarks x the
    models of one family (Tables 11-12).
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
    """Table 8: per model, the benchmarks ordered by decreasing per-model MPD (ties: name order)."""
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

    Points, accuracy (%), mean H_norm, mean P_top1 and MPD; ``accuracy`` is NaN when ``frame`` has
    no ``correct`` column.
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
    """

    table: pd.DataFrame
    per_model: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
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

    Notes
    -----
    Sec. 3.3 defines MPD = 2 / (N (N - 1)) sum_{i<j} ||z_i - z_j|| and states that the pooled
    value over item x model points "differs from the mean of the independently computed per-model
    MPDs in Appendix A"; Fig. 2 plots the per-item average over models. The three are different
    statistics: averaging shrinks the cloud (item_averaged <= pooled typically), and pooling adds
    the cross-model pairs. All three use exact pair sums.
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
