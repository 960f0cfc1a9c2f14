"""Altair charts for paper 001 (family-DIF audit): Figures 1-3.

Pure functions ``result -> altair.Chart`` (Altair imported inside each function, as in
:mod:`benchkit.charts`); the static counterpart of :class:`benchkit.widgets.DIFExplorer`.

================================== ============================================================
:func:`excess_curve_chart`         Figure 1 as the paper draws it: excess reversal over the
                                   matched-random median (pp) vs threshold, every benchmark in one
                                   panel, with the matched-random 95% band around zero
:func:`reversal_curve_chart`       Figure 1's ingredients: reversal rate vs near-tie threshold,
                                   low-DIF scoring against the matched-random median and band
:func:`dimension_selection_chart`  App. C.3: held-out loss against K per owner half, with the
                                   one-standard-error rule and the selected K
:func:`robustness_forest_chart`    Figure 2: excess reversal (pp) of every population variant
:func:`content_audit_chart`        Figure 3: paired prevalence differences per content axis and
                                   annotator, with the frozen effect-size lines
================================== ============================================================

All numbers plotted come from :mod:`benchkit.dif` results through the view models of
:mod:`benchkit.dif.explore`; the charts only lay them out.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING
from typing import Any

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import check_int
from benchkit.charts import _altair
from benchkit.charts import _no_frame
from benchkit.charts import _text_table

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


def reversal_curve_chart(result: Any, *, width: int = 240, height: int = 200, columns: int = 3,
                         title: Any = None) -> "altair.Chart":
    """Figure 1: the near-tie reversal rate against the threshold (one panel per benchmark).

    Parameters
    ----------
    result : RankingAudit or mapping of str to RankingAudit
        One audit, or several (one panel each, in the mapping's order, ``columns`` to a row:
        five benchmarks side by side were too wide to read in a notebook).
    width, height : int
        Size of each panel in pixels.
    columns : int, default 3
        Panels per row when several audits are drawn.
    title : str or list of str, optional
        Default: the figure's name (Figure 1) and its legend, on two lines.

    Returns
    -------
    altair.Chart
        The low-DIF (anchor) scoring's pooled reversal rate (line, markers filled when the
        matched-random p <= .05), the matched-random median (dashed) and its 95% range (band),
        from :func:`benchkit.dif.explore.reversal_curve_view`. The x axis is ordinal (the
        paper's thresholds 0.25-5 pp evenly spaced).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.4 (the ranking estimand and the matched control) and
    Figure 1.

    Examples
    --------
    Not run as a doctest: the audit takes a few seconds (more on a cold numba cache), beyond the
    doctest budget. The output shown was produced by this code.

    >>> import pandas as pd
    >>> from benchkit import ResponseSet
    >>> from benchkit.dif import audit_rankings
    >>> from benchkit.dif.steps import simulate_family_dif
    >>> s = simulate_family_dif(n_items=200, n_models=300, n_owners=60, n_sources=4, rng=21)
    >>> wide = pd.DataFrame(s.Y, index=[f"q{i}" for i in range(200)], columns=list(s.model_ids))
    >>> rs = ResponseSet.from_wide(wide, items=pd.DataFrame({"item": wide.index, "source": s.source}))
    >>> audit = audit_rankings(rs, min_family_size=5, K=(2, 2), rng=3, n_controls=20,
    ...                        n_bootstrap=20, n_owner_bootstrap=20, n_permutations=10,
    ...                        sensitivity_fractions=(0.3,), progress=False)  # doctest: +SKIP
    >>> from benchkit.charts.dif import reversal_curve_chart
    >>> chart = reversal_curve_chart(audit)  # doctest: +SKIP
    >>> chart.data[["threshold", "low_dif_rate_pct", "random_median_pct"]].round(1).head(3)  # doctest: +SKIP
      threshold  low_dif_rate_pct  random_median_pct
    0      0.25               NaN                NaN
    1       0.5              46.2               43.9
    2         1              40.7               45.3
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
        layer = layer.facet(facet=alt.Facet("benchmark:N", title=None, sort=list(_audits(result))),
                            columns=check_int("columns", columns, min=1))
    return layer.properties(title=title or ["Reversal rate vs threshold (Figure 1): low-DIF scoring vs "
                                            "matched random", "dashed: median; band: 95% range"])


def excess_curve_chart(result: Any, *, width: int = 420, height: int = 260,
                       title: str | None = None) -> "altair.Chart":
    """Figure 1 as the paper draws it: excess reversal (pp) against the near-tie threshold.

    Parameters
    ----------
    result : AuditResult or mapping of str to AuditResult
        One audit, or several (one line each, in one panel).
    width, height : int
        Size of the panel in pixels.
    title : str, optional
        Default: the figure's name (Figure 1) and its legend.

    Returns
    -------
    altair.Chart
        Per benchmark: the excess ``100 (T_DIF - median_r T_r)`` (Eq. 10) at every threshold
        (line; marker filled when the matched-random p <= .05), the matched-random 95% range
        around its median (band, ``random_low - median`` to ``random_high - median``), a rule at
        zero and a vertical rule at the primary threshold (1 pp). From
        :func:`benchkit.dif.explore.reversal_curve_view`.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 5.2, Eq. (10) and Figure 1.

    Examples
    --------
    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5, grid=(1, 2, 4),
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> from benchkit.charts.dif import excess_curve_chart
    >>> chart = excess_curve_chart(audit)
    >>> chart.data[["threshold_pp", "excess_pp", "band_low_pp", "band_high_pp"]].round(2).iloc[2:4]
       threshold_pp  excess_pp  band_low_pp  band_high_pp
    2           1.0       0.00       -21.43         21.43
    3           2.0       3.03       -15.15         21.21
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


def dimension_selection_chart(result: Any, *, width: int = 220, height: int = 180, columns: int = 3,
                              title: str | None = None) -> "altair.Chart":
    r"""App. C.3: held-out Bernoulli loss against K per owner half, with the one-SE rule.

    Parameters
    ----------
    result : AuditResult or mapping of str to AuditResult
        Audits that selected K (``K=None``); one facet column per benchmark.
    width, height : int
        Size of each panel in pixels.
    columns : int, default 3
        Panels per row when several audits are drawn (five side by side were too wide to read).
    title : str, optional
        Default: the figure's name (App. C.3) and its legend.

    Returns
    -------
    altair.Chart
        Mean validation loss (Eq. 21) with +-1 SE bars (Eq. 22) against K (log2 axis), one line
        per half; the dashed rule is the best K's loss plus its SE and the large marker the
        selected :math:`K^\star` (Eq. 23), from :func:`benchkit.dif.explore.dimension_selection_view`.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", App. C.3, Eq. (21)-(23).

    Examples
    --------
    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5, grid=(1, 2, 4),
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> from benchkit.charts.dif import dimension_selection_chart
    >>> chart = dimension_selection_chart(audit)
    >>> chart.data[["half", "K", "selected"]].head(3)
         half  K  selected
    0  half 0  1      True
    1  half 0  2     False
    2  half 0  4     False
    """
    from benchkit.dif.explore import dimension_selection_view

    columns = check_int("columns", columns, min=1)
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
        layer = layer.facet(facet=alt.Facet("benchmark:N", title=None,
                                            sort=list(dict.fromkeys(data["benchmark"]))),
                            columns=columns)
        layer = layer.resolve_scale(y="independent")
    return layer.properties(title=title or ("Dimension selection (App. C.3): held-out loss ± 1 SE; "
                                            "dashed: best + 1 SE; diamond: selected K"))


def robustness_forest_chart(tables: Any, *, width: int = 320, columns: int = 2,
                            title: str | None = None) -> "altair.Chart":
    """Figure 2: excess reversal over matched random (pp) for every population variant.

    Parameters
    ----------
    tables : DataFrame or mapping of str to DataFrame
        Table 6 column(s) from :func:`benchkit.dif.analyze_robustness` (rows with an error are dropped,
        as :func:`benchkit.dif.explore.robustness_forest_view` does); several give one panel
        each, ``columns`` to a row.
    width : int, default 320
        Width of each panel in pixels (the height grows with the variants).
    columns : int, default 2
        Panels per row when several tables are drawn.
    title : str, optional
        Chart title (default: Figure 2's).

    Returns
    -------
    altair.Chart
        One row per variant (baseline first, in bold via its label), the excess as a point
        (filled when p <= .05), a zero rule; facets by benchmark when several are given.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 4.1, Sec. 5.3 (population robustness) and Figure 2.

    Examples
    --------
    Not run as a doctest: the audit takes a few seconds (more on a cold numba cache), beyond the
    doctest budget. The output shown was produced by this code.

    >>> import pandas as pd
    >>> from benchkit import ResponseSet
    >>> from benchkit.dif import audit_rankings
    >>> from benchkit.dif.steps import simulate_family_dif
    >>> s = simulate_family_dif(n_items=200, n_models=300, n_owners=60, n_sources=4, rng=21)
    >>> wide = pd.DataFrame(s.Y, index=[f"q{i}" for i in range(200)], columns=list(s.model_ids))
    >>> rs = ResponseSet.from_wide(wide, items=pd.DataFrame({"item": wide.index, "source": s.source}))
    >>> audit = audit_rankings(rs, min_family_size=5, K=(2, 2), rng=3, n_controls=20,
    ...                        n_bootstrap=20, n_owner_bootstrap=20, n_permutations=10,
    ...                        sensitivity_fractions=(0.3,), progress=False)  # doctest: +SKIP
    >>> from benchkit.dif import analyze_robustness
    >>> from benchkit.charts.dif import robustness_forest_chart
    >>> table = analyze_robustness(rs, audit, perturbations={"owner cap 3": {"owner_cap": 3}},
    ...                            n_controls=20, rng=1, progress=False)  # doctest: +SKIP
    >>> chart = robustness_forest_chart(table)  # doctest: +SKIP
    >>> chart.data[["variant", "excess_pp"]].round(2)  # doctest: +SKIP
              variant  excess_pp
    0  baseline cap 5      -4.56
    1     owner cap 3     -11.05
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
        layer = layer.facet(facet=alt.Facet("benchmark:N", title=None, sort=list(map(str, tables))),
                            columns=check_int("columns", columns, min=1))
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
    width : int, default 320
        Width of the chart in pixels (the height grows with the axes).
    title : str, optional
        Chart title (default: Figure 3's).

    Returns
    -------
    altair.Chart
        One row per binary axis, one point per annotator (``d`` of Eq. 60, in pp), filled when
        the BH q <= .05.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 4.3, App. D.4, Eq. (60) and Figure 3.

    Examples
    --------
    Random annotations of 50 matched pairs (no planted effect):

    >>> import numpy as np
    >>> import pandas as pd
    >>> from benchkit.dif import BINARY_AXES, ORDINAL_AXES
    >>> from benchkit.dif.steps import analyze_annotations, content_sample
    >>> from benchkit.charts.dif import content_audit_chart
    >>> g = np.random.default_rng(3)
    >>> high = g.random(400) < 0.3
    >>> _, key = content_sample(high, high, g.integers(0, 8, 400), [f"i{i}" for i in range(400)],
    ...                         benchmark="b", n_pairs=50, rng=0)
    >>> ann = pd.DataFrame({"blinded_id": key["blinded_id"],
    ...                     **{a: g.integers(0, 2, len(key)) for a in BINARY_AXES},
    ...                     **{a: g.integers(0, 4, len(key)) for a in ORDINAL_AXES}})
    >>> chart = content_audit_chart(analyze_annotations(key, ann, ann, min_benchmarks=1))
    >>> chart.layer[2].data[["axis", "annotator", "d_pp", "significance"]].head(3)
                    axis annotator  d_pp significance
    0       quantitative         A  -4.0      q > .05
    1        formal_rule         A   6.0      q > .05
    2  factual_knowledge         A  14.0      q > .05
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


def _heatmap_window(alt, audit: Any, half: int, rows: Any, first_row: int) -> "altair.Chart":
    """The explorer's heatmap window: items ``rows`` x families, their D, anchors marked."""
    fa = audit.anchors[half]
    ids = [str(i) for i in audit.item_ids]
    fams = [str(f) for f in fa.families]
    anchor = fa.selected[-1]
    # the explorer's colour scale: the 99th percentile of |delta| over both halves
    scale = float(np.quantile(np.abs(np.concatenate([a.delta.ravel() for a in audit.anchors])), 0.99)) or 1.0
    label = [("● " if anchor[i] else "") + ids[i] for i in rows]
    heat = pd.DataFrame([{"item": label[k], "family": f, "delta": float(fa.delta[i, j])}
                         for k, i in enumerate(rows) for j, f in enumerate(fams)])
    height = 12 * max(len(rows), 1)
    cells = alt.Chart(heat).mark_rect().encode(
        x=alt.X("family:N", sort=fams, title=None,
                axis=alt.Axis(orient="top", labelAngle=-35, labelLimit=90)),
        y=alt.Y("item:N", sort=label, title=None, axis=alt.Axis(labelLimit=150)),
        color=alt.Color("delta:Q", title="δ (logit)", scale=alt.Scale(
            scheme="redblue", reverse=True, domain=[-scale, scale], clamp=True)),
    ).properties(width=min(360, 24 * len(fams)), height=height)
    dcol = pd.DataFrame({"item": label, "D": [f"{fa.D[i]:.2f}" for i in rows]})
    dtext = alt.Chart(dcol).mark_text(align="left", fontSize=10).encode(
        y=alt.Y("item:N", sort=label, axis=None), text="D:N").properties(
        width=34, height=height, view=_no_frame(alt), title=alt.TitleParams("D", anchor="start", fontSize=11))
    return alt.hconcat(cells, dtext, spacing=2).properties(title=alt.TitleParams(
        f"Item × family effects, ordered by D_i: rows {first_row + 1}–{first_row + len(rows)} of "
        f"{len(ids)}, half {half} (● anchor)", anchor="start"))


def _signature(alt, audit: Any, item: str, *, picked: bool) -> "altair.Chart":
    """One item's family effects in both halves (the explorer's signature panel)."""
    from benchkit.dif.explore import signature_view

    fams = [str(f) for f in audit.families]
    sig = signature_view(audit, item)
    sig["half"] = sig["half"].map({0: "half 0", 1: "half 1"})
    what = item if picked else f"{item} (top D; none selected)"
    return alt.Chart(sig).mark_point(size=60, strokeWidth=1.6, filled=True).encode(
        x=alt.X("delta:Q", title="family effect δ (logit)"), y=alt.Y("family:N", sort=fams, title=None),
        color=alt.Color("half:N", title=None, scale=alt.Scale(range=["#b2182b", "#2166ac"])),
    ).properties(width=260, height=22 * len(fams),
                 title=alt.TitleParams(["Item signature (both halves)", what], anchor="start"))


def _pair_table(alt, pairs: pd.DataFrame, epsilon: float, max_pairs: int) -> "altair.Chart":
    """The first ``max_pairs`` near-tie pairs (reversals first), as the explorer lists them."""
    def pct(a, b):
        return [f"{100 * x:.2f} / {100 * y:.2f}" for x, y in zip(pairs.loc[shown, a], pairs.loc[shown, b])]

    n_rev = int(pairs["reversed"].sum()) if len(pairs) else 0
    shown = pairs.sort_values("reversed", ascending=False, kind="stable").head(max_pairs).index
    sub = pairs.loc[shown]
    table = pd.DataFrame({
        "fold": sub["fold"].astype(str), "model a": sub["model_a"], "model b": sub["model_b"],
        "full a / b (%)": pct("full_a", "full_b"), "anchor a / b (%)": pct("anchor_a", "anchor_b"),
        "gap (pp)": [f"{g:.2f}" for g in sub["gap_pp"]],
        "under anchors": ["flips" if r else ("tie (excluded)" if t else "kept")
                          for r, t in zip(sub["reversed"], sub["anchor_tie"])]})
    widths = {"fold": 34, "model a": 190, "model b": 190, "full a / b (%)": 110, "anchor a / b (%)": 120,
              "gap (pp)": 60, "under anchors": 100}
    return _text_table(alt, table, widths, title=(
        f"Near-tie pairs within {epsilon:g} pp: {len(pairs)} pairs, {n_rev} flip under anchor scoring"
        + (f" (first {len(sub)} shown, reversals first)" if len(pairs) > len(sub) else "")))


def explorer_panels(audit: Any, *, half: int, rows: Any, first_row: int, selected: str,
                    selected_given: bool, robustness: Any, pairs: pd.DataFrame, epsilon: float,
                    max_pairs: int = 15) -> list:
    """The :class:`benchkit.widgets.DIFExplorer` view as chart rows (its stored image).

    Row 1: the heatmap window (``rows``, item indices in D order starting at rank ``first_row``)
    beside the signature of ``selected``; row 2: Figure 1 beside Figure 2 (when ``robustness``
    tables are given); row 3: the first ``max_pairs`` near-tie pairs at ``epsilon`` (pp).
    """
    alt = _altair()
    row1 = alt.hconcat(_heatmap_window(alt, audit, half, rows, first_row),
                       _signature(alt, audit, selected, picked=selected_given),
                       spacing=30).resolve_scale(color="independent")
    # row widths add up to under 960 px with the legends (the notebook's image budget)
    fig1 = reversal_curve_chart(audit, width=270, height=180,
                                title=["Reversal rate vs threshold (Figure 1)",
                                       "dashed: matched-random median; band: its 95% range"])
    fig2 = (robustness_forest_chart(robustness, width=220) if robustness else
            alt.Chart(pd.DataFrame({"t": ["No robustness table given"]})).mark_text(align="left").encode(
                text="t:N", x=alt.value(0)).properties(width=260, height=20, view=_no_frame(alt),
                                                        title="Population robustness (Figure 2)"))
    row2 = alt.hconcat(fig1, fig2, spacing=30).resolve_scale(fill="independent")
    return [row1, row2, _pair_table(alt, pairs, epsilon, max_pairs)]
