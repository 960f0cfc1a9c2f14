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

    Where along the axis do the benchmark's items become solvable, how sharp are the transitions,
    how well supported are they, how many items show no transition at all, and how many are
    flagged for order-focused review (the rate of Table 1).

    Parameters
    ----------
    benchmark, axis, n_items, n_positive, n_flat, n_flagged, alpha_o, x_mean, x_median, w_mean
        The fields below (see Attributes); built by
        :func:`~benchkit.boundary.steps.summarize_profiles`.
    w_median, x_vmean, w_vmean, v_mean, v_median, v_mean_positive, bins, hist
        See Attributes.

    Attributes
    ----------
    benchmark : str or None
        The benchmark's name.
    axis : str or None
        The model axis' name.
    n_items : int
        Items profiled.
    n_positive : int
        Items with positive fitted gain (Delta > 0): those with an observed transition.
    n_flat : int
        Items with a flat fit (Delta = 0); ``flat_share`` = n_flat / n_items.
    n_flagged : int
        Items with o <= alpha_o; ``anomaly_rate`` = n_flagged / n_items is the order-anomaly rate
        of Table 1.
    alpha_o : float
        The screening level of the flags.
    x_mean : float
        Mean boundary position of the Delta > 0 items, in [0, 1] (low: transitions early on the
        axis, i.e. an easy benchmark for these models); NaN without such items.
    x_median : float
        Median boundary position of the Delta > 0 items.
    w_mean : float
        Mean boundary width of the Delta > 0 items, in [0, 1] (low: concentrated transitions).
    w_median : float
        Median boundary width of the Delta > 0 items.
    x_vmean : float
        Mean boundary position weighted by validity v (transitions with stronger response
        support count more); NaN when the total weight is 0.
    w_vmean : float
        Mean boundary width weighted by validity v; NaN when the total weight is 0.
    v_mean : float
        Mean validity over all items (flat items have v = 0).
    v_median : float
        Median validity over all items.
    v_mean_positive : float
        Mean validity over the Delta > 0 items (Sec. 4.2 quotes 0.439 for PopQA and 0.699 for
        TriviaQA on Qwen3).
    bins : ndarray
        Histogram bin edges over [0, 1].
    hist : dict
        Normalized histograms on ``bins`` (shares summing to 1): "x", "w" (Delta > 0 items), "x_v",
        "w_v" (the same weighted by v; None when the total weight is 0, as Sec. 3.3 reports
        weighted distributions only when it is positive) and "v" (all items).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.3 (benchmark-level diagnosis), Sec. 4.2, Table 1, Figures 3-5.

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> res = boundary.profile(simulate.load_sample("ladder"))
    >>> s = res.summary()
    >>> s.n_items, s.n_positive, s.n_flat, s.n_flagged
    (300, 285, 15, 16)
    >>> round(s.x_median, 3), round(s.anomaly_rate, 3)
    (0.526, 0.053)
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
        Profiles of one benchmark along one axis (:func:`benchkit.boundary.profile` or
        :func:`profiles`).
    bins : int, default 10
        Histogram bins on [0, 1] for x, w and v.
    benchmark : str, optional
        Label of the benchmark (default: the ResponseSet's name).
    axis : str, optional
        Label of the axis (default: the axis' name).

    Returns
    -------
    BenchmarkSummary
        Counts, the order-anomaly rate, moments and histograms of x, w and v.

    Notes
    -----
    x and w summaries use only Delta > 0 items: App. B's assigned positions of flat items are
    "excluded from summaries of observed correctness transitions". v-weighted means and
    histograms are normalized by the total v of those items and are NaN / None when it is 0.
    The order-anomaly rate uses all items (Table 1). ``v_mean_positive`` is the mean v over
    Delta > 0 items (Sec. 4.2 quotes 0.439 for PopQA, 0.699 for TriviaQA on Qwen3).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.3, Sec. 4.2, Table 1.

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> from benchkit.boundary.steps import summarize_profiles
    >>> res = boundary.profile(simulate.load_sample("ladder"))
    >>> s = summarize_profiles(res, bins=5)
    >>> s.bins.tolist(), round(s.flat_share, 3)
    ([0.0, 0.2, 0.4, 0.6, 0.8, 1.0], 0.05)
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
    """Profiles and summaries for several (benchmark, axis) conditions (Sec. 4.2).

    The benchmark-level picture of the paper's Sec. 4.2: one :class:`BenchmarkSummary` per
    benchmark and model axis, laid out as Table 1 (order-anomaly rates) and Figures 3-5
    (distributions of x, w and v).

    Parameters
    ----------
    results, summaries
        The fields below (see Attributes); built by :func:`benchkit.boundary.diagnose` or
        :func:`~benchkit.boundary.steps.tabulate_profiles`.

    Attributes
    ----------
    results : dict
        ``{(benchmark, axis): ResponseProfiles or ProfileResult}``, the item-level profiles of
        each condition.
    summaries : tuple of BenchmarkSummary
        One summary per condition, in the order of ``results``.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.3, Sec. 4.2, Table 1, Figures 3-5.

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> d = boundary.diagnose(simulate.load_sample("ladder"))
    >>> d.table1().round(2)           # order-anomaly rate (%) per benchmark x axis
               accuracy
    benchmark
    sim            5.33
    """

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
    """:class:`Diagnosis` from profiles of several (benchmark, axis) conditions.

    Parameters
    ----------
    results : dict
        ``{(benchmark, axis): ResponseProfiles or ProfileResult}``; the keys label the rows and
        columns of Table 1.
    bins : int, default 10
        Histogram bins on [0, 1] (:func:`summarize_profiles`).

    Returns
    -------
    Diagnosis
        The profiles and one :class:`BenchmarkSummary` per condition.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.3, Sec. 4.2, Table 1.

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> from benchkit.boundary.steps import tabulate_profiles
    >>> res = boundary.profile(simulate.load_sample("ladder"))
    >>> tabulate_profiles({("ladder", "qwen-like"): res}).table1().round(2)
               qwen-like
    benchmark
    ladder          5.33
    """
    if not isinstance(results, dict):
        raise BenchkitTypeError(f"results must be a dict keyed by (benchmark, axis); got {describe(results)}")
    summaries = []
    for key, res in results.items():
        if not (isinstance(key, tuple) and len(key) == 2):
            raise BenchkitValueError(f"results keys must be (benchmark, axis) pairs; got {describe(key)}")
        summaries.append(summarize_profiles(res, bins=bins, benchmark=key[0], axis=key[1]))
    return Diagnosis(results=dict(results), summaries=tuple(summaries))
