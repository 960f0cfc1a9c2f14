"""Altair charts for paper 002 (the benchmark as an empirical measure over difficulty).

Pure functions ``result -> altair.Chart`` (Altair imported inside each function, as in
:mod:`benchkit.charts`): the static counterpart of :class:`benchkit.widgets.ECDFGapExplorer` and
the detection-boundary figure.

================================ ============================================================
:func:`ecdf_chart`               ECDF vs the same-size uniform reference, DDM area, top-k gaps
:func:`detection_power_chart`    Theorem 2.3: power vs width w for several k, with G(B)
:func:`measure_table_chart`      Table 1 metrics of many benchmarks with the highlight thresholds
================================ ============================================================

All numbers plotted come from :mod:`benchkit.measure` results; the charts only lay them out.
"""
from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import check_int
from benchkit.charts import _altair

if TYPE_CHECKING:  # pragma: no cover
    import altair

__all__ = ["ecdf_frames", "ecdf_chart", "detection_power_chart", "measure_table_chart"]


def _summary_of(result: Any):
    """A MeasureSummary from a BenchmarkMeasure, a MeasureSummary or an array of z."""
    from benchkit import measure

    if isinstance(result, measure.steps.MeasureSummary):
        return result
    if hasattr(result, "summary") and isinstance(result.summary, measure.steps.MeasureSummary):
        return result.summary
    if isinstance(result, (np.ndarray, list, tuple, pd.Series)):
        return measure.steps.summarize(np.asarray(result, dtype=float))
    raise BenchkitTypeError(
        "expected a BenchmarkMeasure, a benchkit.measure.steps.MeasureSummary or an array of normalized "
        f"difficulties; got {type(result).__name__}"
    )


def ecdf_frames(result: Any) -> dict[str, pd.DataFrame]:
    r"""The data behind :func:`ecdf_chart`: step points of both ECDFs, the DDM area and the gaps.

    Parameters
    ----------
    result : BenchmarkMeasure, benchkit.measure.steps.MeasureSummary or array of z in [0, 1]
        One benchmark's normalized difficulties (an array is summarized with the defaults).

    Returns
    -------
    dict with DataFrames ``"steps"`` (``x, y, curve, step``: "benchmark" / "uniform reference";
    the ECDF is ``y`` from ``x`` up to the next row's ``x``), ``"area"`` (``x, lo, hi``: the two
    ECDFs on the merged breakpoints, constant to the next ``x``, so
    :math:`\sum (hi - lo)\,\Delta x` is DDM) and ``"gaps"`` (the top-k gaps, ``to_frame()`` of
    :class:`benchkit.measure.steps.TopGaps`).

    References
    ----------
    Y. Sun, N. Yu, J. Gong, J. Shen and H. Zhang, "Your Benchmark Is an Empirical Measure Over
    Difficulty", arXiv:2610.29927 (the benchmark measure, DDM as the 1-Wasserstein
    distance to the uniform target, Max Gap; Table 1).

    Examples
    --------
    Ten items at the uniform reference's own positions (i - 0.5)/10: DDM is 0, every inner gap
    0.1.

    >>> import numpy as np
    >>> from benchkit.charts.measure import ecdf_frames
    >>> frames = ecdf_frames(np.linspace(0.05, 0.95, 10))
    >>> area = frames["area"]
    >>> float(((area["hi"] - area["lo"]) * np.diff(np.r_[area["x"], 1.0])).sum())
    0.0
    >>> frames["gaps"][["rank", "left", "right", "width"]].head(2).round(2)
       rank  left  right  width
    0     1  0.55   0.65    0.1
    1     2  0.15   0.25    0.1
    """
    s = _summary_of(result)
    zs = np.sort(s.z)
    n = zs.size
    ref = (np.arange(n) + 0.5) / n

    frames = []
    for v, label in ((zs, "benchmark"), (ref, "uniform reference")):
        # right-continuous step function: value (i+1)/n from v_(i) on (interpolate "step-after")
        xs = np.concatenate([[0.0], v, [1.0]])
        ys = np.concatenate([[0.0], np.arange(1, n + 1) / n, [1.0]])
        frames.append(pd.DataFrame({"x": xs, "y": ys, "curve": label, "step": np.arange(xs.size)}))
    # area: both ECDFs on the merged knots, constant on [knot_j, knot_j+1)
    knots = np.unique(np.concatenate([[0.0], zs, ref, [1.0]]))
    fb = np.searchsorted(zs, knots, side="right") / n
    fr = np.searchsorted(ref, knots, side="right") / n
    area = pd.DataFrame({"x": knots, "lo": np.minimum(fb, fr), "hi": np.maximum(fb, fr)})
    return {"steps": pd.concat(frames, ignore_index=True), "area": area,
            "gaps": s.top_gaps.to_frame()}


def _ecdf_on_grid(s, knots: int) -> dict[str, pd.DataFrame]:
    """:func:`ecdf_frames`'s steps and area on an evenly spaced grid of ``knots + 1`` x values.

    Both ECDFs are evaluated there exactly (right-continuous), for benchmarks too large to draw
    every atom.
    """
    zs = np.sort(s.z)
    n = zs.size
    ref = (np.arange(n) + 0.5) / n
    grid = np.linspace(0.0, 1.0, knots + 1)
    fb = np.searchsorted(zs, grid, side="right") / n
    fr = np.searchsorted(ref, grid, side="right") / n
    steps = pd.concat([pd.DataFrame({"x": grid, "y": fb, "curve": "benchmark", "step": np.arange(grid.size)}),
                       pd.DataFrame({"x": grid, "y": fr, "curve": "uniform reference",
                                     "step": np.arange(grid.size)})], ignore_index=True)
    area = pd.DataFrame({"x": grid, "lo": np.minimum(fb, fr), "hi": np.maximum(fb, fr)})
    return {"steps": steps, "area": area, "gaps": s.top_gaps.to_frame()}


def ecdf_chart(result: Any, *, title: str | None = None, width: int = 400,
               height: int = 320, max_knots: int = 2000) -> "altair.LayerChart":
    r"""ECDF of normalized difficulties vs the same-size uniform reference (paper 002's explorer).

    Parameters
    ----------
    result : BenchmarkMeasure, benchkit.measure.steps.MeasureSummary or array of z in [0, 1]
        One benchmark's normalized difficulties (an array is summarized with the defaults).
    title : str, optional
        Default: the benchmark name with its DDM, Max Gap and Top-k Sum.
    width, height : int
        Size of the chart in pixels.
    max_knots : int
        Benchmarks with more items than this are drawn from both ECDFs evaluated exactly at
        ``max_knots + 1`` evenly spaced x values (step-after), so the chart's data stay small
        (Altair embeds at most 5,000 rows); the horizontal error is at most ``1 / max_knots``
        (under a pixel at the default sizes). The title's numbers are always the exact ones.

    Notes
    -----
    The shaded area between the two step functions is :math:`\int |F_B - F_U| = W_1`, the DDM
    against the uniform reference at (i - 0.5)/n; the bands are the top-k gaps labelled
    "#rank width" (Table 1's Max Gap is #1), alternating two hues from left to right so adjacent
    gaps stay distinguishable.

    Returns
    -------
    altair.LayerChart
        The DDM area, the top-k gap bands with their labels and the two ECDF step lines
        (:func:`ecdf_frames`).

    References
    ----------
    Y. Sun, N. Yu, J. Gong, J. Shen and H. Zhang, "Your Benchmark Is an Empirical Measure Over
    Difficulty", arXiv:2610.29927 (the interactive difficulty distribution explorer and Table 1).

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.charts.measure import ecdf_chart
    >>> chart = ecdf_chart(np.linspace(0.05, 0.95, 10))
    >>> chart.title.text
    ['benchmark: DDM 0.000, Max Gap 0.100,', 'Top-5 Sum 0.500 (n = 10)']
    """
    alt = _altair()
    max_knots = check_int("max_knots", max_knots, min=10)
    s = _summary_of(result)
    f = ecdf_frames(s) if s.n_items <= max_knots else _ecdf_on_grid(s, max_knots)
    name = getattr(result, "name", s.name)
    if title is None:
        # two lines, no wider than the plot: two ECDFs side by side fit a notebook
        title = [f"{name}: DDM {s.ddm:.3f}, Max Gap {s.max_gap:.3f},",
                 f"Top-{len(s.top_gaps)} Sum {s.top_sum:.3f} (n = {s.n_items})"]
    xs = alt.Scale(domain=[0, 1])
    # adjacent gaps share an edge: in left-to-right order the bands alternate two hues (as in the
    # explorer, widgets/ecdf_gap.js) with a white edge, and their labels alternate two rows, so
    # neighbouring gaps never merge into one band with stacked labels
    gaps = f["gaps"].sort_values("left", kind="stable").reset_index(drop=True)
    gaps = gaps.assign(label=lambda d: [f"#{r} {w:.3f}" for r, w in zip(d["rank"], d["width"])],
                       hue=lambda d: np.where(np.arange(len(d)) % 2 == 0, "#5e60ce", "#2a9d8f"),
                       row=lambda d: np.where(np.arange(len(d)) % 2 == 0, -6, -18))
    bands = alt.Chart(gaps).mark_rect(opacity=0.22, stroke="white", strokeWidth=1).encode(
        x=alt.X("left:Q", scale=xs), x2="right:Q", color=alt.Color("hue:N", scale=None),
        tooltip=["rank:O", alt.Tooltip("left:Q", format=".3f"), alt.Tooltip("right:Q", format=".3f"),
                 alt.Tooltip("width:Q", format=".3f")])
    labels = alt.Chart(gaps).mark_text(fontSize=10, fontWeight="bold").encode(
        x="midpoint:Q", y=alt.Y("row:Q", scale=None, axis=None), text="label:N",
        color=alt.Color("hue:N", scale=None))
    area = alt.Chart(f["area"]).mark_area(color="#ff7f0e", opacity=0.25, interpolate="step-after").encode(
        x=alt.X("x:Q", scale=xs, title="normalized difficulty z"), y="lo:Q", y2="hi:Q")
    lines = alt.Chart(f["steps"]).mark_line(strokeWidth=1.4, interpolate="step-after").encode(
        x=alt.X("x:Q", scale=xs),
        y=alt.Y("y:Q", scale=alt.Scale(domain=[0, 1]), title="cumulative fraction of items"),
        order="step:Q",
        color=alt.Color("curve:N", scale=alt.Scale(domain=["benchmark", "uniform reference"],
                                                   range=["#d2590b", "#555555"]), title=None),
        strokeDash=alt.StrokeDash("curve:N", scale=alt.Scale(
            domain=["benchmark", "uniform reference"], range=[[1, 0], [4, 3]]), legend=None))
    return alt.layer(bands, area, lines, labels).properties(
        width=width, height=height, title=alt.TitleParams(title, offset=26))


def detection_power_chart(power: Any, *, title: str | None = None, width: int = 360,
                          height: int = 280) -> "altair.LayerChart":
    r"""Theorem 2.3's detection boundary: power vs width w, one line per k, rule at w = G(B).

    Parameters
    ----------
    power : benchkit.measure.DetectionPower
        From :func:`benchkit.measure.steps.detection_power` (or ``BenchmarkMeasure.detection_power``).
    title : str, optional
        Default: the test, a and alpha, and G(B).
    width, height : int
        Size of the chart in pixels.

    Returns
    -------
    altair.LayerChart
        One line (with points) per k over the widths of ``power.table``, a rule at w = G(B) and
        a dashed rule at power = alpha.

    Notes
    -----
    Part 1 of the theorem: for :math:`w \le G(B)` the power is alpha for every k (the flat part
    left of the rule); part 2: for :math:`w > G(B)` it tends to 1 as k grows.

    References
    ----------
    Y. Sun, N. Yu, J. Gong, J. Shen and H. Zhang, "Your Benchmark Is an Empirical Measure Over
    Difficulty", arXiv:2610.29927, Theorem 2.3 (maximum gap as the minimax detection boundary).

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.measure.steps import detection_power
    >>> from benchkit.charts.measure import detection_power_chart
    >>> power = detection_power(np.linspace(0.05, 0.95, 10), [0.05, 0.2], n_samples=(1, 10),
    ...                         n_resamples=200, rng=0)
    >>> chart = detection_power_chart(power)
    >>> chart.layer[0].mark.type, sorted(chart.layer[0].data["k"].unique().tolist())
    ('line', [1, 10])
    """
    from benchkit import measure

    alt = _altair()
    if not isinstance(power, measure.DetectionPower):
        raise BenchkitTypeError(f"power must be a DetectionPower, got {type(power).__name__}")
    df = power.to_frame()
    if title is None:
        title = (f"Detection power ({power.test} test, a = {power.a}, alpha = {power.alpha}); "
                 f"G(B) = {power.max_gap:.3f}")
    lines = alt.Chart(df).mark_line(point=True).encode(
        x=alt.X("w:Q", title="width w of the improved interval"),
        y=alt.Y("power:Q", scale=alt.Scale(domain=[0, 1]), title="worst-case power"),
        color=alt.Color("k:O", title="k samples"),
        tooltip=["w:Q", "k:O", "covered:Q", alt.Tooltip("power:Q", format=".3f")])
    rule = alt.Chart(pd.DataFrame({"G": [power.max_gap]})).mark_rule(color="#b4001e",
                                                                     strokeDash=[4, 3]).encode(x="G:Q")
    alpha = alt.Chart(pd.DataFrame({"alpha": [power.alpha]})).mark_rule(color="#888").encode(y="alpha:Q")
    return alt.layer(lines, rule, alpha).properties(width=width, height=height, title=title)


def measure_table_chart(table: Any, *, width: int = 150, height: int | None = None) -> "altair.HConcatChart":
    """Table 1 as dot plots: DDM, Max Gap and Top-k Sum per benchmark, thresholds as rules.

    Parameters
    ----------
    table : benchkit.measure.steps.MeasureTable or BenchmarkMeasures
        Table 1 of several benchmarks (:func:`benchkit.measure.steps.tabulate_measures` or
        :func:`benchkit.measure.measure_benchmarks`).
    width : int, default 160
        Width of each of the three panels in pixels.
    height : int, optional
        Height in pixels (default 16 per benchmark, at least 120).

    Returns
    -------
    altair.HConcatChart
        Three dot plots (DDM, Max Gap, Top-k Sum), points at or above the table's highlight
        threshold in red, the threshold as a dashed rule.

    References
    ----------
    Y. Sun, N. Yu, J. Gong, J. Shen and H. Zhang, "Your Benchmark Is an Empirical Measure Over
    Difficulty", arXiv:2610.29927, Table 1 (thresholds DDM >= 0.10, Max Gap >= 0.10, Top-5 Sum
    >= 0.30).

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.measure.steps import tabulate_measures
    >>> from benchkit.charts.measure import measure_table_chart
    >>> z = np.linspace(0.05, 0.95, 10)
    >>> chart = measure_table_chart(tabulate_measures({"A": z, "B": z ** 2}))
    >>> len(chart.hconcat), chart.hconcat[0].layer[0].data["high"].tolist()
    (3, [False, True])
    """
    from benchkit import measure

    alt = _altair()
    mt = getattr(table, "table", table)
    if not isinstance(mt, measure.steps.MeasureTable):
        raise BenchkitTypeError(
            f"table must be a MeasureTable or BenchmarkMeasures, got {type(table).__name__}")
    df = mt.to_frame()
    top = f"Top-{mt.k} Sum"
    height = height or max(120, 16 * len(df))
    order = df["Benchmark"].tolist()
    panels = []
    for col, t in zip(["DDM", "Max Gap", top], mt.thresholds):
        sub = df[["Benchmark", col]].rename(columns={col: "value"}).assign(
            high=lambda d, t=t: d["value"] >= t)
        dots = alt.Chart(sub).mark_point(filled=True, size=50).encode(
            x=alt.X("value:Q", title=col), y=alt.Y("Benchmark:N", sort=order, title=None),
            color=alt.Color("high:N", scale=alt.Scale(domain=[False, True],
                                                      range=["#4c78a8", "#b4001e"]),
                            legend=None),
            tooltip=["Benchmark:N", alt.Tooltip("value:Q", format=".3f")])
        rule = alt.Chart(pd.DataFrame({"t": [t]})).mark_rule(strokeDash=[4, 3], color="#b4001e").encode(
            x="t:Q")
        panels.append(alt.layer(dots, rule).properties(width=width, height=height))
    return alt.hconcat(*panels)
