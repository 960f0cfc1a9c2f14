"""Altair charts for paper 004 (Benchmark²: benchmark quality and selective benchmarks).

Pure functions ``result -> altair.Chart`` (Altair imported inside each function, as in
:mod:`benchkit.charts`): the static counterpart of :class:`benchkit.widgets.QualityDashboard`.

================================ ============================================================
:func:`selection_curve_chart`    Figure 2: tau / stability / DS of the selective benchmark
                                 against the selection ratio
:func:`kendall_heatmap_chart`    Tables 15-17: pairwise Kendall tau_b per domain
:func:`family_cad_chart`         Table 7: per-family CAD of one or more benchmarks, coloured by
                                 the paper's CAD band
================================ ============================================================

All numbers plotted come from :mod:`benchkit.quality` results; the charts only lay them out.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING
from typing import Any

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice

if TYPE_CHECKING:  # pragma: no cover
    import altair

__all__ = ["family_cad_chart", "kendall_heatmap_chart", "selection_curve_chart"]

_METRIC_TITLES = {"tau": "Kendall τ to full", "stability": "stability", "ds": "DS"}
_BAND_COLOURS = {"good": "#4caf50", "acceptable": "#e0a800", "significant issues": "#d9534f"}


def _altair():
    from benchkit.charts import _altair as get

    return get()


def _check_result(result: Any):
    from benchkit.quality import QualityResult

    if not isinstance(result, QualityResult):
        raise BenchkitTypeError("result must be a benchkit.quality.QualityResult (from "
                                f"benchkit.quality.assess); got {type(result).__name__}")
    return result


def selection_curve_chart(curve: Any, *, benchmarks: Sequence[str] | None = ("mean",),
                          metrics: Sequence[str] = ("tau", "stability", "ds"),
                          title: str | None = None) -> altair.Chart:
    """Figure 2: quality of the selective benchmark against the selection ratio.

    Parameters
    ----------
    curve : DataFrame or SelectionView
        :func:`benchkit.quality.steps.selection_sweep` output (or a
        :class:`benchkit.quality.explore.SelectionView`, whose ``curve`` is used).
    benchmarks : sequence of str or None
        Rows of ``curve["benchmark"]`` drawn (default ``("mean",)``: the average over
        benchmarks, as the paper's figure); None draws every benchmark.
    metrics : sequence of str
        Among ``"tau"``, ``"stability"``, ``"ds"`` (default all three).
    title : str, optional
        Chart title (default: Figure 2's).

    Returns
    -------
    altair.Chart
        One line per (benchmark, metric); data columns ``benchmark``, ``ratio``, ``metric``,
        ``value``. Colour is the metric; with several benchmarks, the stroke dash is the benchmark.

    References
    ----------
    Q. Qian et al., "Benchmark²: Systematic Evaluation of LLM Benchmarks", arXiv:2601.03986,
    Sec. 3.4 (stability), Sec. 5.4 (selective benchmark construction) and Figure 2.

    Examples
    --------
    >>> import benchkit
    >>> from benchkit.quality import assess
    >>> from benchkit.charts import quality as cq
    >>> rs = benchkit.simulate.load_sample("suite")  # 6 benchmarks x 100 items, 24 models
    >>> result = assess(rs, family_by="family", n_resamples=0, progress=False)
    >>> from benchkit.quality.steps import selection_sweep
    >>> curve = selection_sweep(result, ratios=(0.5, 1.0), n_rep=5, rng=0, progress=False)
    >>> chart = cq.selection_curve_chart(curve)
    >>> chart.data.round(3)
      benchmark  ratio             metric  value
    0      mean    0.5                 DS  0.576
    1      mean    1.0                 DS  0.344
    2      mean    0.5  Kendall τ to full  0.928
    3      mean    1.0  Kendall τ to full  1.000
    4      mean    0.5          stability  0.849
    5      mean    1.0          stability  0.843
    """
    alt = _altair()
    if hasattr(curve, "curve") and isinstance(curve.curve, pd.DataFrame):
        curve = curve.curve
    if not isinstance(curve, pd.DataFrame) or not {"benchmark", "ratio"} <= set(curve.columns):
        raise BenchkitTypeError("curve must be a selection_sweep DataFrame (benchmark, ratio, tau, "
                                f"stability, ds) or a SelectionView; got {type(curve).__name__}")
    metrics = list(metrics)
    for m in metrics:
        check_choice("metrics", m, list(_METRIC_TITLES))
    have = list(dict.fromkeys(curve["benchmark"]))
    if benchmarks is None:
        benchmarks = [b for b in have if b != "mean"]
    benchmarks = list(benchmarks)
    for b in benchmarks:
        check_choice("benchmarks", b, have)
    sub = curve[curve["benchmark"].isin(benchmarks)]
    data = sub.melt(id_vars=["benchmark", "ratio"], value_vars=metrics, var_name="metric",
                    value_name="value")
    data["metric"] = data["metric"].map(_METRIC_TITLES)
    data = data.sort_values(["benchmark", "metric", "ratio"], kind="stable").reset_index(drop=True)
    data["benchmark"] = data["benchmark"].astype(object)
    enc = {
        "x": alt.X("ratio:Q", title="selection ratio (share of items kept)",
                # ticks every 20%: at the default width 10% steps ran "90%100%" together
                axis=alt.Axis(format=".0%", values=[0, 0.2, 0.4, 0.6, 0.8, 1.0]),
                scale=alt.Scale(domain=[0, 1])),
        "y": alt.Y("value:Q", title="value"),
        "color": alt.Color("metric:N", title=None,
                        sort=[_METRIC_TITLES[m] for m in metrics]),
        "tooltip": ["benchmark:N", "metric:N", alt.Tooltip("ratio:Q", format=".0%"),
                 alt.Tooltip("value:Q", format=".3f")],
    }
    if len(benchmarks) > 1:
        enc["strokeDash"] = alt.StrokeDash("benchmark:N", title="benchmark")
        enc["detail"] = "benchmark:N"
    if title is None:
        title = "Selective benchmark quality vs selection ratio (Figure 2)"
    return alt.Chart(data, title=title).mark_line(point=True).encode(**enc).properties(
        width=360, height=240)


def _kendall_frame(result, domain: str) -> pd.DataFrame:
    k = result.kendall[domain]
    names = [str(n) for n in k.index]
    rows = [(names[i], names[j], float(k.iat[i, j]), i, j) for i in range(len(names))
            for j in range(len(names))]
    data = pd.DataFrame(rows, columns=["row", "column", "tau", "i", "j"])
    data["label"] = [("" if np.isnan(v) else f"{v:.2f}") for v in data["tau"]]
    data["domain"] = domain
    return data


def kendall_heatmap_chart(result: Any, *, domain: str | None = None,
                          title: str | None = None) -> altair.Chart:
    """Tables 15-17: pairwise Kendall tau_b of the model rankings of a domain's benchmarks.

    Parameters
    ----------
    result : QualityResult
        From :func:`benchkit.quality.assess`.
    domain : str, optional
        One domain; default every domain with two or more benchmarks, side by side.
    title : str, optional
        Chart title (default: the domain).

    Returns
    -------
    altair.Chart (or HConcatChart)
        Cells coloured by tau_b (viridis, shared scale from the smallest tau, rounded down to 0.1,
        to 1) with the value
        printed; data columns ``row``, ``column``, ``tau``, ``label``, ``domain``.

    References
    ----------
    Q. Qian et al., "Benchmark²: Systematic Evaluation of LLM Benchmarks", arXiv:2601.03986,
    App. F, Tables 15-17 (pairwise Kendall tau per domain).
    M. G. Kendall (1945), Biometrika 33(3), 239-251 (tau-b).

    Examples
    --------
    >>> import benchkit
    >>> from benchkit.quality import assess
    >>> from benchkit.charts import quality as cq
    >>> rs = benchkit.simulate.load_sample("suite")  # 6 benchmarks x 100 items, 24 models
    >>> result = assess(rs, family_by="family", n_resamples=0, progress=False)
    >>> chart = cq.kendall_heatmap_chart(result)
    >>> chart.data[["row", "column", "label"]].head(3)
        row     column label
    0  math       math  1.00
    1  math       code  0.78
    2  math  reasoning  0.89
    """
    alt = _altair()
    result = _check_result(result)
    domains = [d for d, k in result.kendall.items() if len(k) >= 2]
    if domain is not None:
        check_choice("domain", domain, list(result.kendall))
        domains = [domain]
    if not domains:
        raise BenchkitValueError("no domain has two or more benchmarks: nothing to compare")
    # colour scale from the smallest tau shown (rounded down to 0.1) to 1: structure among high
    # correlations stays visible
    lo = float(np.floor(10 * min(float(np.nanmin(result.kendall[d].to_numpy())) for d in domains)) / 10)
    lo = 0.0 if lo >= 1.0 else lo
    charts = []
    for d in domains:
        data = _kendall_frame(result, d)
        order = list(result.kendall[d].index.astype(str))
        size = max(14, min(36, 420 // len(order)))
        base = alt.Chart(data, title=title if (title and len(domains) == 1) else
                         f"Kendall τ_b, {d} (Tables 15-17)").encode(
            x=alt.X("column:N", sort=order, title=None, axis=alt.Axis(labelAngle=-50,
                                                                      labelLimit=120)),
            y=alt.Y("row:N", sort=order, title=None, axis=alt.Axis(labelLimit=140)))
        rect = base.mark_rect().encode(
            color=alt.Color("tau:Q", title="τ_b", scale=alt.Scale(scheme="viridis",
                                                                  domain=[lo, 1.0])),
            tooltip=["row:N", "column:N", alt.Tooltip("tau:Q", format=".3f")])
        layers = [rect]
        if size >= 24:
            layers.append(base.mark_text(fontSize=9).encode(
                text="label:N",
                color=alt.condition(f"datum.tau > {lo + 0.6 * (1 - lo)}", alt.value("#222"),
                                    alt.value("white"))))
        charts.append(alt.layer(*layers).properties(width=size * len(order),
                                                    height=size * len(order)))
    if len(charts) == 1:
        return charts[0]
    return alt.hconcat(*charts, title=title or "").resolve_scale(color="shared")


def family_cad_chart(result: Any, *, benchmarks: str | Sequence[str] | None = None,
                     title: str | None = None) -> altair.Chart:
    """Table 7: CAD score of each model family on each benchmark, as bars coloured by band.

    Parameters
    ----------
    result : QualityResult
        From :func:`benchkit.quality.assess`.
    benchmarks : str or sequence of str, optional
        Benchmarks drawn (default all), one row of bars each.
    title : str, optional
        Chart title (default: the benchmark and Table 7).

    Returns
    -------
    altair.Chart
        Data columns ``benchmark``, ``family``, ``members`` (strongest first), ``inversions``,
        ``comparisons``, ``rate``, ``score`` (= exp(-lam rate)), ``band`` (the paper's CAD band)
        for the families with two or more models on the benchmark (others are left out); dashed
        rules at the band bounds 0.4, 0.6. Several benchmarks: one facet row each, with its own
        families.

    References
    ----------
    Q. Qian et al., "Benchmark²: Systematic Evaluation of LLM Benchmarks", arXiv:2601.03986,
    Sec. 3.3 (CAD) and Sec. 5.5, Table 7 (CAD by model family).

    Examples
    --------
    >>> import benchkit
    >>> from benchkit.quality import assess
    >>> from benchkit.charts import quality as cq
    >>> rs = benchkit.simulate.load_sample("suite")  # 6 benchmarks x 100 items, 24 models
    >>> result = assess(rs, family_by="family", n_resamples=0, progress=False)
    >>> chart = cq.family_cad_chart(result, benchmarks="math")
    >>> chart.data[["family", "score", "band"]].round(3)
        family  score                band
    0    llama  0.344  significant issues
    1    gemma  0.619                good
    2  mistral  0.245  significant issues
    3     qwen  0.423          acceptable
    """
    from benchkit.quality.explore import family_view

    alt = _altair()
    result = _check_result(result)
    names = list(result.matrices)
    if benchmarks is None:
        benchmarks = names
    elif isinstance(benchmarks, str):
        benchmarks = [benchmarks]
    benchmarks = list(benchmarks)
    for b in benchmarks:
        check_choice("benchmarks", b, names)
    frames = []
    for b in benchmarks:
        fam, _ = family_view(result, b)
        fam = fam.rename(columns={fam.columns[0]: "family"})
        fam.insert(0, "benchmark", b)
        frames.append(fam)
    data = pd.concat(frames, ignore_index=True)
    data = data[data["score"].notna()].reset_index(drop=True)  # families with two+ models here
    if data.empty:
        raise BenchkitValueError(f"no family has two or more models on {benchmarks}")
    data["band"] = data["band"].astype(object)
    data["family"] = data["family"].astype(str).astype(object)
    data["benchmark"] = data["benchmark"].astype(object)
    # the layers carry no data of their own: the top-level (faceted) data feeds both, so each
    # facet shows its own benchmark's families; the band bounds are constant rules (alt.datum)
    bars = alt.Chart().mark_bar().encode(
        x=alt.X("score:Q", title="CAD score = exp(−λ · inversion rate)",
                scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("family:N", title=None, sort=None, axis=alt.Axis(labelLimit=160)),
        color=alt.Color("band:N", title="CAD band", scale=alt.Scale(
            domain=list(_BAND_COLOURS), range=list(_BAND_COLOURS.values()))),
        tooltip=["benchmark:N", "family:N", "members:N", "inversions:Q", "comparisons:Q",
                 alt.Tooltip("rate:Q", format=".4f"), alt.Tooltip("score:Q", format=".3f"),
                 "band:N"])
    rules = [alt.Chart().mark_rule(strokeDash=[3, 3], color="#888").encode(x=alt.datum(v))
             for v in (0.4, 0.6)]
    chart = alt.layer(bars, *rules, data=data).properties(width=300)
    if len(benchmarks) > 1:
        return chart.facet(row=alt.Row("benchmark:N", title=None, sort=benchmarks,
                                        header=alt.Header(labelAngle=0, labelAlign="left",
                                                          labelFontWeight="bold")),
                           title=title or "Per-family CAD (Table 7)").resolve_scale(
            y="independent")
    return chart.properties(title=title or f"Per-family CAD, {benchmarks[0]} (Table 7)")
