"""Benchmark-level BSDProbe diagnosis (Sec. 3.3, 4.2; Table 1 and Figures 3-5).

For each benchmark and model axis: distributions of boundary position x and width w over the
items with positive fitted gain (Delta > 0), plain and weighted by validity v; the distribution
of v over all items; the share of flat fits (Delta = 0); and the order-anomaly rate (share of
all items with o <= alpha_o).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.boundary._profiles import ProfileResult

__all__ = ["BenchmarkSummary", "summarize_profiles", "Diagnosis", "tabulate_profiles"]


@result
class BenchmarkSummary:
    """Benchmark-level summary of one (benchmark, axis) condition (Sec. 3.3).

    ``hist`` holds normalized histograms on ``bins`` (edges over [0, 1]): keys "x", "w" (Delta > 0
    items, shares summing to 1), "x_v", "w_v" (the same weighted by v; None when the total weight
    is 0, as Sec. 3.3 reports weighted distributions only when it is positive) and "v" (all items).
    """

    benchmark: str | None
    axis: str | None
    n_items: int
    n_positive: int
    n_flat: int
    n_flagged: int
    alpha_o: float
    x_mean: float
    x_median: float
    w_mean: float
    w_median: float
    x_vmean: float
    w_vmean: float
    v_mean: float
    v_median: float
    v_mean_positive: float
    bins: np.ndarray
    hist: dict

    @property
    def flat_share(self) -> float:
        return self.n_flat / self.n_items if self.n_items else np.nan

    @property
    def anomaly_rate(self) -> float:
        return self.n_flagged / self.n_items if self.n_items else np.nan

    def to_frame(self) -> pd.DataFrame:
        """One row: counts, shares and the moments of x, w and v."""
        row = {k: getattr(self, k) for k in (
            "benchmark", "axis", "n_items", "n_positive", "n_flat", "n_flagged", "alpha_o")}
        row.update(flat_share=self.flat_share, anomaly_rate=self.anomaly_rate)
        row.update({k: getattr(self, k) for k in (
            "x_mean", "x_median", "w_mean", "w_median", "x_vmean", "w_vmean", "v_mean",
            "v_median", "v_mean_positive")})
        return pd.DataFrame([row])

    def distribution_frame(self) -> pd.DataFrame:
        """Long table of the histograms: quantity, weighting, bin_lo, bin_hi, share."""
        rows = []
        for key, h in self.hist.items():
            if h is None:
                continue
            q, _, wt = key.partition("_")
            for lo, hi, s in zip(self.bins[:-1], self.bins[1:], h):
                rows.append((self.benchmark, self.axis, q, "v" if wt else "count", lo, hi, s))
        return pd.DataFrame(rows, columns=["benchmark", "axis", "quantity", "weighting", "bin_lo",
                                           "bin_hi", "share"])


def _hist(values, bins, weights=None):
    if values.size == 0:
        return None
    h, _ = np.histogram(np.clip(values, 0.0, 1.0), bins=bins, weights=weights)
    tot = h.sum()
    return None if tot <= 0 else h / tot


def _profile_of(result):
    # a ResponseProfiles (benchkit.boundary.responses) is recognised by its profile and axis, so
    # this module does not import the ResponseSet layer (no import cycle)
    if isinstance(result, ProfileResult):
        return result, None, None
    if isinstance(getattr(result, "profile", None), ProfileResult) and hasattr(result, "axis"):
        return result.profile, result.name, result.axis.name
    raise BenchkitTypeError(
        f"result must be a ResponseProfiles or ProfileResult; got {describe(result)}"
    )


def summarize_profiles(result, *, bins: int = 10, benchmark: str | None = None,
              axis: str | None = None) -> BenchmarkSummary:
    """Benchmark-level summary of item profiles (Sec. 3.3).

    Parameters
    ----------
    result : ResponseProfiles or ProfileResult
    bins : int, default 10
        Histogram bins on [0, 1] for x, w and v.
    benchmark, axis : str, optional
        Labels (default: the ResponseSet name and the axis name).

    Returns
    -------
    BenchmarkSummary

    Notes
    -----
    x and w summaries use only Delta > 0 items: App. B's assigned positions of flat items are
    "excluded from summaries of observed correctness transitions". v-weighted means and
    histograms are normalized by the total v of those items and are NaN / None when it is 0.
    The order-anomaly rate uses all items (Table 1). ``v_mean_positive`` is the mean v over
    Delta > 0 items (Sec. 4.2 quotes 0.439 for PopQA, 0.699 for TriviaQA on Qwen3).
    """
    p, name, axname = _profile_of(result)
    bins = check_int("bins", bins, min=1)
    edges = np.linspace(0.0, 1.0, bins + 1)
    pos = ~p.flat
    x, w, v = p.x[pos], p.w[pos], p.v[pos]
    vt = v.sum()

    def wmean(a):
        return float(np.sum(a * v) / vt) if vt > 0 else np.nan

    def stat(f, a):
        return float(f(a)) if a.size else np.nan

    hist = {"x": _hist(x, edges), "w": _hist(w, edges), "x_v": _hist(x, edges, v),
            "w_v": _hist(w, edges, v), "v": _hist(p.v, edges)}
    return BenchmarkSummary(
        benchmark=benchmark if benchmark is not None else name,
        axis=axis if axis is not None else axname,
        n_items=int(p.flat.size), n_positive=int(pos.sum()), n_flat=int(p.flat.sum()),
        n_flagged=int(p.flagged.sum()), alpha_o=float(p.alpha_o),
        x_mean=stat(np.mean, x), x_median=stat(np.median, x), w_mean=stat(np.mean, w),
        w_median=stat(np.median, w), x_vmean=wmean(x), w_vmean=wmean(w),
        v_mean=stat(np.mean, p.v), v_median=stat(np.median, p.v), v_mean_positive=stat(np.mean, v),
        bins=edges, hist=hist,
    )


@result
class Diagnosis:
    """Profiles and summaries for several (benchmark, axis) conditions (Sec. 4.2)."""

    results: dict
    summaries: tuple

    def to_frame(self) -> pd.DataFrame:
        """One row per (benchmark, axis) with every summary column."""
        if not self.summaries:
            return pd.DataFrame()
        return pd.concat([s.to_frame() for s in self.summaries], ignore_index=True)

    def table1(self, *, value: str = "anomaly_rate", percent: bool = True) -> pd.DataFrame:
        """Table 1 layout: benchmarks x axes of one summary column (default order-anomaly rate, %)."""
        df = self.to_frame()
        if value not in df.columns:
            raise BenchkitValueError(
                f"value={value!r} is not a summary column; choose one of {describe(list(df.columns))}"
            )
        bench = list(dict.fromkeys(df["benchmark"]))
        axes = list(dict.fromkeys(df["axis"]))
        t = df.pivot(index="benchmark", columns="axis", values=value).loc[bench, axes]
        if percent and value in ("anomaly_rate", "flat_share"):
            t = 100.0 * t
        t.columns.name = None
        return t

    def distribution_frame(self) -> pd.DataFrame:
        """Histograms of all conditions (Figures 3-5 layout)."""
        return pd.concat([s.distribution_frame() for s in self.summaries], ignore_index=True)


def tabulate_profiles(results, *, bins: int = 10) -> Diagnosis:
    """:class:`Diagnosis` from ``{(benchmark, axis): ResponseProfiles or ProfileResult}``."""
    if not isinstance(results, dict):
        raise BenchkitTypeError(f"results must be a dict keyed by (benchmark, axis); got {describe(results)}")
    summaries = []
    for key, res in results.items():
        if not (isinstance(key, tuple) and len(key) == 2):
            raise BenchkitValueError(f"results keys must be (benchmark, axis) pairs; got {describe(key)}")
        summaries.append(summarize_profiles(res, bins=bins, benchmark=key[0], axis=key[1]))
    return Diagnosis(results=dict(results), summaries=tuple(summaries))
