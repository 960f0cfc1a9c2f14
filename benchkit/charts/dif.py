"""Altair charts for paper 001 (family-DIF audit): Figures 1-3.

Pure functions ``result -> altair.Chart`` (Altair imported inside each function, as in
:mod:`benchkit.charts`); the static counterpart of :class:`benchkit.widgets.DIFExplorer`.

================================ ============================================================
:func:`reversal_curve_chart`     Figure 1: reversal rate vs near-tie threshold, low-DIF scoring
                                 against the matched-random median and 95% band
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

__all__ = ["content_audit_chart", "reversal_curve_chart", "robustness_forest_chart"]


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
    width, height : int
        Size of each panel in pixels.
    title : str, optional
        Chart title (default: Figure 1's).

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
        layer = layer.facet(column=alt.Column("benchmark:N", title=None, sort=list(_audits(result))))
    return layer.properties(title=title or "Reversal rate vs threshold (Figure 1): low-DIF scoring vs "
                            "matched random (dashed: median; band: 95% range)")


def robustness_forest_chart(tables: Any, *, width: int = 320, title: str | None = None) -> "altair.Chart":
    """Figure 2: excess reversal over matched random (pp) for every population variant.

    Parameters
    ----------
    tables : DataFrame or mapping of str to DataFrame
        Table 6 column(s) from :func:`benchkit.dif.analyze_robustness` (rows with an error are dropped,
        as :func:`benchkit.dif.explore.robustness_forest_view` does).
    width : int, default 320
        Width of each panel in pixels (the height grows with the variants).
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
