"""Altair charts for paper 001 (family-DIF audit): Figures 1-3.

Pure functions ``result -> altair.Chart`` (Altair imported inside each function, as in
:mod:`benchkit.charts`); the static counterpart of :class:`benchkit.widgets.DIFExplorer`.

================================ ============================================================
:func:`excess_curve_chart`       Figure 1 as the paper draws it: excess reversal over the
                                 matched-random median (pp) vs threshold, every benchmark in one
                                 panel, with the matched-random 95% band around zero
:func:`reversal_curve_chart`     Figure 1's ingredients: reversal rate vs near-tie threshold,
                                 low-DIF scoring against the matched-random median and band
:func:`dimension_selection_chart` App. C.3: held-out loss against K per owner half, with the
                                 one-standard-error rule and the selected K
:func:`robustness_forest_chart`  Figure 2: excess reversal (pp) of every population variant
:func:`content_audit_chart`      Figure 3: paired prevalence differences per content axis and
                                 annotator, with the frozen effect-size lines
================================ ============================================================

All numbers plotted come from :mod:`benchkit.dif` results through the view models of
:mod:`benchkit.dif.explore`; the charts only lay them out.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING
from typing import Any

import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit.charts import _altair

if TYPE_CHECKING:  # pragma: no cover
    import altair

__all__ = ["content_audit_chart", "dimension_selection_chart", "excess_curve_chart",
           "reversal_curve_chart", "robustness_forest_chart"]


def _audits(result: Any) -> dict[str, Any]:
    from benchkit.dif import RankingAudit

    if isinstance(result, RankingAudit):
        return {"": result}
    if isinstance(result, Mapping) and result and all(isinstance(v, RankingAudit) for v in result.values()):
        return {str(k): v for k, v in result.items()}
    raise BenchkitTypeError("expected a benchkit.dif.RankingAudit or a mapping name -> RankingAudit; got "
                            f"{type(result).__name__}")


def reversal_curve_chart(result: Any, *, width: int = 260, height: int = 200,
                         title: str | None = None) -> "altair.Chart":
    """Figure 1: the near-tie reversal rate against the threshold (one panel per benchmark).

    Parameters
    ----------
    result : RankingAudit or mapping of str to RankingAudit
        One audit, or several (one facet column each, in the mapping's order).

    Returns
    -------
    altair.Chart
        The low-DIF (anchor) scoring's pooled reversal rate (line, markers filled when the
        matched-random p <= .05), the matched-random median (dashed) and its 95% range (band),
        from :func:`benchkit.dif.explore.reversal_curve_view`. The x axis is ordinal (the
        paper's thresholds 0.25-5 pp evenly spaced).
    """
    from benchkit.dif.explore import reversal_curve_view

    alt = _altair()
    frames = []
    for name, a in _audits(result).items():
        v = reversal_curve_view(a)
        v.insert(0, "benchmark", name)
        frames.append(v)
    data = pd.concat(frames, ignore_index=True)
    data["threshold"] = data["threshold_pp"].map(lambda t: f"{t:g}")
    data["significance"] = data["filled"].map({True: "p ≤ .05", False: "p > .05"})
    for c in ("low_dif_rate", "random_median", "random_low", "random_high"):
        data[c + "_pct"] = 100 * data[c]
    order = [f"{t:g}" for t in sorted(data["threshold_pp"].unique())]
    x = alt.X("threshold:O", sort=order, title="near-tie threshold ε (pp)", axis=alt.Axis(labelAngle=0))
    base = alt.Chart(data)
    band = base.mark_area(opacity=0.3, color="#999").encode(
        x=x, y=alt.Y("random_low_pct:Q", title="reversal rate (%)"), y2="random_high_pct:Q")
    median = base.mark_line(strokeDash=[5, 3], color="#444").encode(x=x, y="random_median_pct:Q")
    line = base.mark_line(color="#b2182b").encode(x=x, y="low_dif_rate_pct:Q")
    tips = [alt.Tooltip("threshold_pp:Q", title="ε (pp)"), alt.Tooltip("low_dif_rate_pct:Q", format=".1f"),
            alt.Tooltip("random_median_pct:Q", format=".1f"), alt.Tooltip("excess_pp:Q", format=".2f"),
            alt.Tooltip("p_value:Q", format=".3f"), alt.Tooltip("eligible:Q", title="pairs")]
    points = base.mark_point(size=60, color="#b2182b", strokeWidth=1.8).encode(
        x=x, y="low_dif_rate_pct:Q",
        fill=alt.Fill("significance:N", scale=alt.Scale(domain=["p ≤ .05", "p > .05"],
                                                         range=["#b2182b", "white"]),
                      legend=alt.Legend(title="matched-random")),
        tooltip=tips)
    layer = alt.layer(band, median, line, points).properties(width=width, height=height)
    if len(frames) > 1:
        layer = layer.facet(column=alt.Column("benchmark:N", title=None, sort=list(_audits(result))))
    return layer.properties(title=title or "Reversal rate vs threshold (Figure 1): low-DIF scoring vs "
                            "matched random (dashed: median; band: 95% range)")


def excess_curve_chart(result: Any, *, width: int = 420, height: int = 260,
                       title: str | None = None) -> "altair.Chart":
    """Figure 1 as the paper draws it: excess reversal (pp) against the near-tie threshold.

    Parameters
    ----------
    result : AuditResult or mapping of str to AuditResult
        One audit, or several (one line each, in one panel).

    Returns
    -------
    altair.Chart
        Per benchmark: the excess ``100 (T_DIF - median_r T_r)`` (Eq. 10) at every threshold
        (line; marker filled when the matched-random p <= .05), the matched-random 95% range
        around its median (band, ``random_low - median`` to ``random_high - median``), a rule at
        zero and a vertical rule at the primary threshold (1 pp). From
        :func:`benchkit.dif.explore.reversal_curve_view`.
    """
    from benchkit.dif.explore import reversal_curve_view

    alt = _altair()
    audits = _audits(result)
    frames = []
    for name, a in audits.items():
        v = reversal_curve_view(a)
        v.insert(0, "benchmark", name or "benchmark")
        frames.append(v)
    data = pd.concat(frames, ignore_index=True)
    data["band_low_pp"] = 100 * (data["random_low"] - data["random_median"])
    data["band_high_pp"] = 100 * (data["random_high"] - data["random_median"])
    data["significance"] = data["filled"].map({True: "p ≤ .05", False: "p > .05"})
    primary = float(data.loc[data["primary"], "threshold_pp"].iloc[0]) if data["primary"].any() else 1.0
    names = list(dict.fromkeys(data["benchmark"]))
    x = alt.X("threshold_pp:Q", title="maximum full-score gap (pp)", scale=alt.Scale(type="log"),
              axis=alt.Axis(values=sorted(data["threshold_pp"].unique().tolist()), format="g"))
    colour = alt.Color("benchmark:N", sort=names, title=None)
    base = alt.Chart(data)
    band = base.mark_area(opacity=0.12).encode(x=x, y="band_low_pp:Q", y2="band_high_pp:Q", color=colour)
    line = base.mark_line().encode(x=x, y=alt.Y("excess_pp:Q", title="excess reversal over matched "
                                                                     "random (pp)"), color=colour)
    tips = ["benchmark:N", alt.Tooltip("threshold_pp:Q", title="gap (pp)"),
            alt.Tooltip("excess_pp:Q", format=".2f"), alt.Tooltip("p_value:Q", format=".3f"),
            alt.Tooltip("eligible:Q", title="pairs")]
    points = base.mark_point(size=55, strokeWidth=1.6).encode(
        x=x, y="excess_pp:Q", color=colour,
        fill=alt.condition("datum.significance == 'p ≤ .05'", alt.Fill("benchmark:N", sort=names,
                                                                       legend=None),
                           alt.value("white")),
        tooltip=tips)
    zero = base.mark_rule(color="#888").encode(y=alt.datum(0))
    vline = base.mark_rule(strokeDash=[4, 3], color="#444").encode(x=alt.datum(primary))
    return alt.layer(band, zero, vline, line, points).properties(
        width=width, height=height,
        title=title or ("Excess near-tie reversal vs threshold (Figure 1): filled p ≤ .05; band: "
                        "matched-random 95% range; dashed: the primary 1 pp"))


def dimension_selection_chart(result: Any, *, width: int = 220, height: int = 180,
                              title: str | None = None) -> "altair.Chart":
    r"""App. C.3: held-out Bernoulli loss against K per owner half, with the one-SE rule.

    Parameters
    ----------
    result : AuditResult or mapping of str to AuditResult
        Audits that selected K (``K=None``); one facet column per benchmark.

    Returns
    -------
    altair.Chart
        Mean validation loss (Eq. 21) with +-1 SE bars (Eq. 22) against K (log2 axis), one line
        per half; the dashed rule is the best K's loss plus its SE and the large marker the
        selected :math:`K^\star` (Eq. 23), from :func:`benchkit.dif.explore.dimension_selection_view`.
    """
    from benchkit.dif.explore import dimension_selection_view

    alt = _altair()
    frames = []
    for name, a in _audits(result).items():
        v = dimension_selection_view(a)
        v.insert(0, "benchmark", name or "benchmark")
        frames.append(v)
    data = pd.concat(frames, ignore_index=True)
    if data.empty:
        raise BenchkitTypeError("the audit(s) froze K (K=...): there is no dimension selection to draw")
    data["half"] = data["half"].map(lambda h: f"half {h}")
    data["low"] = data["mean_loss"] - data["se"]
    data["high"] = data["mean_loss"] + data["se"]
    x = alt.X("K:Q", scale=alt.Scale(type="log", base=2), title="K (spectral MIRT dimension)",
              axis=alt.Axis(values=sorted(data["K"].unique().tolist())))
    colour = alt.Color("half:N", title=None, scale=alt.Scale(range=["#2166ac", "#b2182b"]))
    base = alt.Chart(data)
    line = base.mark_line(point=True).encode(
        x=x, y=alt.Y("mean_loss:Q", title="held-out log loss", scale=alt.Scale(zero=False)),
        color=colour, tooltip=["half:N", "K:Q", alt.Tooltip("mean_loss:Q", format=".4f"),
                               alt.Tooltip("se:Q", format=".4f"), "selected:N", "best:N"])
    bars = base.mark_rule().encode(x=x, y="low:Q", y2="high:Q", color=colour)
    rule = base.mark_rule(strokeDash=[4, 3]).encode(y="mean(threshold):Q", color=colour,
                                                    detail="half:N")
    star = base.transform_filter("datum.selected").mark_point(size=160, shape="diamond",
                                                              filled=True).encode(
        x=x, y="mean_loss:Q", color=colour)
    layer = alt.layer(bars, line, rule, star).properties(width=width, height=height)
    if data["benchmark"].nunique() > 1:
        layer = layer.facet(column=alt.Column("benchmark:N", title=None,
                                              sort=list(dict.fromkeys(data["benchmark"]))))
        layer = layer.resolve_scale(y="independent")
    return layer.properties(title=title or ("Dimension selection (App. C.3): held-out loss ± 1 SE; "
                                            "dashed: best + 1 SE; diamond: selected K"))


def robustness_forest_chart(tables: Any, *, width: int = 320, title: str | None = None) -> "altair.Chart":
    """Figure 2: excess reversal over matched random (pp) for every population variant.

    Parameters
    ----------
    tables : DataFrame or mapping of str to DataFrame
        Table 6 column(s) from :func:`benchkit.dif.analyze_robustness` (rows with an error are dropped,
        as :func:`benchkit.dif.explore.robustness_forest_view` does).

    Returns
    -------
    altair.Chart
        One row per variant (baseline first, in bold via its label), the excess as a point
        (filled when p <= .05), a zero rule; facets by benchmark when several are given.
    """
    from benchkit.dif.explore import robustness_forest_view

    alt = _altair()
    if isinstance(tables, pd.DataFrame):
        tables = {"": tables}
    if not isinstance(tables, Mapping) or not all(isinstance(t, pd.DataFrame) for t in tables.values()):
        raise BenchkitTypeError("tables must be a DataFrame from benchkit.dif.analyze_robustness or a "
                                f"mapping name -> DataFrame; got {type(tables).__name__}")
    data = pd.concat([robustness_forest_view(t, benchmark=str(k)) for k, t in tables.items()],
                     ignore_index=True)
    data["significance"] = data["filled"].map({True: "p ≤ .05", False: "p > .05"})
    variants = list(dict.fromkeys(data["variant"]))
    y = alt.Y("variant:N", sort=variants, title=None)
    base = alt.Chart(data)
    zero = base.mark_rule(strokeDash=[3, 2], color="#888").encode(x=alt.datum(0))  # same data: facets
    points = base.mark_point(size=70, color="#b2182b", strokeWidth=1.8).encode(
        x=alt.X("excess_pp:Q", title="excess reversal over matched random (pp)"), y=y,
        fill=alt.Fill("significance:N", scale=alt.Scale(domain=["p ≤ .05", "p > .05"],
                                                         range=["#b2182b", "white"]),
                      legend=alt.Legend(title="matched-random")),
        tooltip=["benchmark:N", "variant:N", alt.Tooltip("excess_pp:Q", format=".2f"),
                 alt.Tooltip("p_value:Q", format=".3f"), "close_n:Q"])
    layer = alt.layer(zero, points).properties(width=width, height=18 * len(variants))
    if len(tables) > 1:
        layer = layer.facet(column=alt.Column("benchmark:N", title=None, sort=list(map(str, tables))))
    return layer.properties(title=title or "Population robustness (Figure 2)")


def content_audit_chart(audit: Any, *, min_difference: float = 0.08, width: int = 320,
                        title: str | None = None) -> "altair.Chart":
    """Figure 3: paired prevalence differences (high-DIF minus matched control) per binary axis.

    Parameters
    ----------
    audit : benchkit.dif.steps.ContentAudit
        From :func:`benchkit.dif.steps.analyze_annotations`.
    min_difference : float
        The frozen effect-size requirement (8 pp), drawn as dashed lines at +-100 x this.

    Returns
    -------
    altair.Chart
        One row per binary axis, one point per annotator (``d`` of Eq. 60, in pp), filled when
        the BH q <= .05.
    """
    from benchkit.dif._audit_content import ContentAudit

    alt = _altair()
    if not isinstance(audit, ContentAudit):
        raise BenchkitTypeError(f"audit must be a benchkit.dif ContentAudit (analyze_annotations); got "
                                f"{type(audit).__name__}")
    data = audit.binary.copy()
    data["d_pp"] = 100 * data["d"]
    data["significance"] = (data["q"] <= 0.05).map({True: "q ≤ .05", False: "q > .05"})
    lines = alt.Chart(pd.DataFrame({"x": [-100 * min_difference, 100 * min_difference]})).mark_rule(
        strokeDash=[4, 3], color="#888").encode(x="x:Q")
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="#ccc").encode(x="x:Q")
    colours = alt.Scale(range=["#2166ac", "#b2182b"])
    points = alt.Chart(data).mark_point(size=70, strokeWidth=1.8).encode(
        x=alt.X("d_pp:Q", title="paired prevalence difference, high-DIF − control (pp)"),
        y=alt.Y("axis:N", title=None, sort=list(dict.fromkeys(data["axis"]))),
        yOffset=alt.YOffset("annotator:N"),
        color=alt.Color("annotator:N", scale=colours),
        fill=alt.condition("datum.significance == 'q ≤ .05'",
                           alt.Fill("annotator:N", scale=colours, legend=None), alt.value("white")),
        tooltip=["axis:N", "annotator:N", alt.Tooltip("d_pp:Q", format=".1f"),
                 alt.Tooltip("p:Q", format=".3f"), alt.Tooltip("q:Q", format=".3f")])
    n = data["axis"].nunique()
    return alt.layer(zero, lines, points).properties(
        width=width, height=24 * n,
        title=title or (f"Content audit (Figure 3): dashed lines at ±{100 * min_difference:g} pp; "
                        "filled: BH q ≤ .05"))
