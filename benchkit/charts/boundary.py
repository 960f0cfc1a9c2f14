"""Altair charts for paper 000 (BSDProbe capability-boundary profiles).

Pure functions ``result -> altair.Chart`` (Altair imported inside each function, as in
:mod:`benchkit.charts`), the static counterparts of the paper's figures and of
:class:`benchkit.widgets.TrajectoryExplorer`. Each chart has a ``*_frame`` function returning the
exact data it plots, so the numbers can be checked (and reused) without Altair.

===================================== ======================================================
:func:`trajectory_frames` / `_chart`  C and E trajectories of items with the isotonic fit,
                                      the Q_0.25 / Q_0.5 / Q_0.75 crossings (Eq. 4) and the
                                      high-side region H (Eq. 6)
:func:`distribution_frame` / `_chart` benchmark-level distributions (Sec. 3.3, Figures 3-5):
                                      x and w over Delta > 0 items (counts and v-weighted),
                                      v over all items
:func:`calibration_frame` / `_chart`  the calibration tail function o = Q_{n,T}(D) (Eq. 17/19)
                                      of one or more tables (e.g. exact vs Monte Carlo)
:func:`rate_chart`                    rates with binomial error bars against a level (e.g.
                                      false-flag rates of o <= alpha_o vs alpha_o)
===================================== ======================================================

All numbers plotted come from :mod:`benchkit.boundary` results; the charts only lay them out.
"""
from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import TYPE_CHECKING
from typing import Any

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.charts import _altair

if TYPE_CHECKING:  # pragma: no cover
    import altair

__all__ = [
    "trajectory_frames",
    "trajectory_chart",
    "distribution_frame",
    "distribution_chart",
    "calibration_frame",
    "calibration_chart",
    "rate_chart",
]

_VARS = ("x", "w", "v")


def _profile(result: Any):
    """The array-level ProfileResult inside ``result`` (itself, or a wrapper's attribute)."""
    from benchkit.boundary import ProfileResult

    if isinstance(result, ProfileResult):
        return result
    for attr in ("profiles", "profile", "result"):
        inner = getattr(result, attr, None)
        if isinstance(inner, ProfileResult):
            return inner
    raise BenchkitTypeError(
        f"expected a benchkit.boundary.ProfileResult (from benchkit.boundary.steps.profiles); got "
        f"{describe(result)}"
    )


def _profiles_map(profiles: Any) -> dict[str, Any]:
    if isinstance(profiles, Mapping):
        out = {str(k): _profile(v) for k, v in profiles.items()}
    else:
        out = {"profiles": _profile(profiles)}
    if not out:
        raise BenchkitValueError("profiles must hold at least one ProfileResult")
    return out


def _row(p, item) -> int:
    m = p.x.size
    if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
        if not -m <= int(item) < m:
            raise BenchkitValueError(f"item index {item} is out of range for {m} items")
        return int(item) % m
    if p.items is None:
        raise BenchkitValueError(
            f"item={describe(item)} is a label but the profiles carry no item labels; pass a row "
            "index or build the profiles with items=..."
        )
    hits = np.flatnonzero(np.asarray(p.items) == item)
    if hits.size == 0:
        raise BenchkitValueError(f"item {item!r} is not among the profiled items")
    return int(hits[0])


# ----------------------------------------------------------------------------------------------
# trajectories
# ----------------------------------------------------------------------------------------------
def trajectory_frames(profile: Any, item: Any, *, models: Sequence[str] | None = None
                     ) -> dict[str, pd.DataFrame]:
    """The data behind one item's panel of :func:`trajectory_chart`.

    Parameters
    ----------
    profile : ProfileResult
        From :func:`benchkit.boundary.steps.profiles` (or a ResponseSet-level result holding one).
    item : int or label
        Row index, or an item label of ``profile.items``.
    models : sequence of str, optional
        Names of the axis models (weakest first); default the profile's own ``models`` (set by
        :func:`benchkit.boundary.steps.profiles` and the ResponseSet entry points), else
        ``"m1", "m2", ...``.

    Returns
    -------
    dict with DataFrames ``"points"`` (``model, position, k, c, fit, entropy``; position is
    s_i = (i-1)/(n-1)), ``"crossings"`` (``alpha, Q``: Q_0.25, Q_0.5, Q_0.75; empty when
    Delta = 0) and ``"high"`` (``start, end``: the high-side region from Q_0.75 to the last
    model; empty when Delta = 0) and a one-row ``"numbers"`` (the item's row of ``to_frame()``).

    References
    ----------
    H. Hu et al., "Are Benchmarks Reliable? Toward Structural Diagnosis via Item-Level Capability
    Boundaries" (BSDProbe), arXiv:2609.33196, Sec. 3.1, Eq. (2)-(3) (the trajectories E and C),
    Sec. 3.2, Eq. (4) (the crossings) and App. A (the isotonic fit).

    Examples
    --------
    Item q0 rises 0, 3, 7, 10 correct of 10 along the axis: half the gain is reached at s = 0.5.

    >>> import numpy as np
    >>> from benchkit.boundary.steps import profiles
    >>> from benchkit.charts import boundary as cb
    >>> K = np.array([[0, 3, 7, 10], [5, 5, 5, 5], [1, 4, 2, 9]])  # correct of T=10, 4 models
    >>> prof = profiles(K, 10, items=["q0", "q1", "q2"])
    >>> frames = cb.trajectory_frames(prof, "q0")
    >>> frames["points"][["model", "k", "c", "fit"]]
      model   k    c  fit
    0    m1   0  0.0  0.0
    1    m2   3  0.3  0.3
    2    m3   7  0.7  0.7
    3    m4  10  1.0  1.0
    >>> frames["crossings"].round(3)
       alpha      Q
    0   0.25  0.278
    1   0.50  0.500
    2   0.75  0.722
    """
    p = _profile(profile)
    r = _row(p, item)
    n = p.n
    if models is None:
        models = getattr(p, "models", None)
    if models is None:
        names = [f"m{i + 1}" for i in range(n)]
    else:
        names = [str(m) for m in models]
        if len(names) != n:
            raise BenchkitValueError(f"models must name the {n} axis models; got {len(names)}")
    s = np.arange(n) / (n - 1)
    points = pd.DataFrame({
        "model": names, "position": s, "k": p.counts[r].astype(np.int64), "c": p.c[r],
        "fit": p.fit[r], "entropy": p.entropy[r],
    })
    if p.flat[r]:
        cross = pd.DataFrame({"alpha": pd.Series([], dtype=float), "Q": pd.Series([], dtype=float)})
        high = pd.DataFrame({"start": pd.Series([], dtype=float), "end": pd.Series([], dtype=float)})
    else:
        cross = pd.DataFrame({"alpha": [0.25, 0.5, 0.75],
                              "Q": [p.q25[r], p.q50[r], p.q75[r]]})
        # H = {i : s_i >= Q_0.75} (Eq. 6): the region from the first such position to the end
        high = pd.DataFrame({"start": [s[int(p.high_start[r])]], "end": [1.0]})
    numbers = p.to_frame().iloc[[r]]
    return {"points": points, "crossings": cross, "high": high, "numbers": numbers}


def trajectory_chart(profile: Any, items: Any, *, models: Sequence[str] | None = None,
                     width: int = 220, height: int = 160, columns: int = 3) -> "altair.Chart":
    """C and E trajectories of one or several items (the explorer's item panel, static).

    Each panel shows the correctness trajectory C (points and solid line), the isotonic fit
    (thick line), the normalized entropy trajectory E (dashed), the crossings Q_0.25, Q_0.5 and
    Q_0.75 of the fit (vertical rules; Eq. 4) and the high-side region H (shaded; Eq. 6). The
    title gives x, w, v, o and the flag.

    Parameters
    ----------
    profile : ProfileResult
        From :func:`benchkit.boundary.steps.profiles` (or a ResponseSet-level result holding one).
    items : int, label or sequence of them
        The items drawn, one panel each (row indices or labels of ``profile.items``).
    models : sequence of str, optional
        Axis model names (weakest first); default the profile's own, as
        :func:`trajectory_frames`.
    width, height : int
        Size of each panel in pixels.
    columns : int, default 3
        Panels per row.

    Returns
    -------
    altair.Chart
        One layered panel per item (a single panel, or panels concatenated ``columns`` per row);
        the data are :func:`trajectory_frames`.

    References
    ----------
    H. Hu et al., "Are Benchmarks Reliable? Toward Structural Diagnosis via Item-Level Capability
    Boundaries" (BSDProbe), arXiv:2609.33196, Sec. 3.1-3.2, Eq. (2)-(6) and App. A.

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.boundary.steps import profiles
    >>> from benchkit.charts import boundary as cb
    >>> K = np.array([[0, 3, 7, 10], [5, 5, 5, 5], [1, 4, 2, 9]])  # correct of T=10, 4 models
    >>> prof = profiles(K, 10, items=["q0", "q1", "q2"])
    >>> chart = cb.trajectory_chart(prof, ["q0", "q2"])
    >>> type(chart).__name__, len(chart.hconcat)
    ('HConcatChart', 2)
    """
    alt = _altair()
    p = _profile(profile)
    if isinstance(items, (str, int, np.integer)) or not isinstance(items, Sequence):
        items = [items]
    panels = []
    for it in items:
        fr = trajectory_frames(p, it, models=models)
        num = fr["numbers"].iloc[0]
        label = fr["numbers"].index[0]
        # two lines, so the title is no wider than the panel (three panels fit a notebook)
        title = [f"{label}:", f"x={num['x']:.2f} w={num['w']:.2f} v={num['v']:.2f} "
                 f"o={num['o']:.3g}{' FLAG' if num['flagged'] else ''}"]
        long = fr["points"].melt(id_vars=["model", "position", "k"], value_vars=["c", "fit", "entropy"],
                                 var_name="series", value_name="value")
        long["series"] = long["series"].map({"c": "C (correctness)", "fit": "isotonic fit",
                                             "entropy": "E (entropy)"})
        xenc = alt.X("position:Q", scale=alt.Scale(domain=[0, 1]), title="axis position s")
        color = alt.Color("series:N", scale=alt.Scale(
            domain=["C (correctness)", "isotonic fit", "E (entropy)"],
            range=["#1f77b4", "#d62728", "#7f7f7f"]))
        base = alt.Chart(long).encode(
            x=xenc, y=alt.Y("value:Q", scale=alt.Scale(domain=[0, 1]), title=None),
            color=color, strokeDash=alt.condition(
                alt.datum.series == "E (entropy)", alt.value([4, 3]), alt.value([1, 0])),
            tooltip=["model", "series", alt.Tooltip("value:Q", format=".3f"), "k"])
        layers = [base.mark_line(), base.mark_point(filled=True, size=30)]
        if len(fr["high"]):
            layers.insert(0, alt.Chart(fr["high"]).mark_rect(opacity=0.12, color="#2ca02c")
                          .encode(x="start:Q", x2="end:Q"))
        if len(fr["crossings"]):
            layers.append(alt.Chart(fr["crossings"]).mark_rule(strokeDash=[2, 2], color="black")
                          .encode(x="Q:Q", tooltip=["alpha", alt.Tooltip("Q:Q", format=".3f")]))
        panels.append(alt.layer(*layers).properties(width=width, height=height, title=title))
    rows = [alt.hconcat(*panels[i:i + columns]) for i in range(0, len(panels), columns)]
    return rows[0] if len(rows) == 1 else alt.vconcat(*rows)


# ----------------------------------------------------------------------------------------------
# benchmark-level distributions (Sec. 3.3, Figures 3-5)
# ----------------------------------------------------------------------------------------------
def distribution_frame(profiles: Any, *, bins: int = 10) -> pd.DataFrame:
    """Binned benchmark-level distributions of x, w (Delta > 0 items) and v (all items).

    Parameters
    ----------
    profiles : ProfileResult or mapping label -> ProfileResult
        One entry per benchmark-axis condition (a row of the paper's Figures 3-5).
    bins : int, default 10
        Equal-width bins of [0, 1] (the last bin closed, as :func:`numpy.histogram`).

    Returns
    -------
    DataFrame
        Columns ``condition, variable, weighting, bin, bin_start, bin_end, count, share,
        n_items``: ``weighting`` is ``"items"`` (share = count / items in the summary) or
        ``"v-weighted"`` (x and w only: share = sum of v in the bin / total v; ``count`` is then
        the v mass). As in Sec. 3.3, x and w use Delta > 0 items only (App. B's assigned positions
        are excluded), v uses all items, and the v-weighted rows are present only when the total
        weight is positive.

    References
    ----------
    H. Hu et al., "Are Benchmarks Reliable? Toward Structural Diagnosis via Item-Level Capability
    Boundaries" (BSDProbe), arXiv:2609.33196, Sec. 3.3 (benchmark-level distributions; Figures 3-5).

    Examples
    --------
    Two of the three items have a gain (Delta > 0), so x and w count two items, v all three:

    >>> import numpy as np
    >>> from benchkit.boundary.steps import profiles
    >>> from benchkit.charts import boundary as cb
    >>> K = np.array([[0, 3, 7, 10], [5, 5, 5, 5], [1, 4, 2, 9]])  # correct of T=10, 4 models
    >>> prof = profiles(K, 10, items=["q0", "q1", "q2"])
    >>> frame = cb.distribution_frame(prof, bins=4)
    >>> frame[frame["weighting"] == "items"].groupby("variable", sort=False)["count"].sum()
    variable
    x    2.0
    w    2.0
    v    3.0
    Name: count, dtype: float64
    """
    bins = check_int("bins", bins, min=1)
    edges = np.linspace(0.0, 1.0, bins + 1)
    rows = []
    for cond, p in _profiles_map(profiles).items():
        pos = ~p.flat
        for var in _VARS:
            vals = getattr(p, var)
            sel = pos if var in ("x", "w") else np.ones_like(pos)
            data = np.clip(vals[sel], 0.0, 1.0)
            variants = [("items", None)]
            if var in ("x", "w") and p.v[sel].sum() > 0:
                variants.append(("v-weighted", p.v[sel]))
            for weighting, wts in variants:
                cnt, _ = np.histogram(data, bins=edges, weights=wts)
                tot = cnt.sum()
                share = cnt / tot if tot > 0 else np.full(bins, np.nan)
                rows.append(pd.DataFrame({
                    "condition": cond, "variable": var, "weighting": weighting,
                    "bin": np.arange(bins), "bin_start": edges[:-1], "bin_end": edges[1:],
                    "count": cnt, "share": share, "n_items": int(sel.sum()),
                }))
    return pd.concat(rows, ignore_index=True)


def distribution_chart(profiles: Any, *, bins: int = 10, width: int = 170,
                       height: int = 70) -> "altair.Chart":
    """Counterpart of the paper's Figures 3-5: one row per condition, columns x, w and v.

    Bars: share of items per bin (x and w over Delta > 0 items, v over all items); black ticks:
    the v-weighted share (x and w), shown only when the total weight is positive.

    Parameters
    ----------
    profiles : ProfileResult or mapping label -> ProfileResult
        One entry per benchmark-axis condition (one row of panels each).
    bins : int, default 10
        Equal-width bins of [0, 1].
    width, height : int
        Size of each panel in pixels.

    Returns
    -------
    altair.Chart
        Faceted bars (rows: conditions; columns: x, w, v) of :func:`distribution_frame`.

    References
    ----------
    H. Hu et al., "Are Benchmarks Reliable? Toward Structural Diagnosis via Item-Level Capability
    Boundaries" (BSDProbe), arXiv:2609.33196, Sec. 3.3, Figures 3-5.

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.boundary.steps import profiles
    >>> from benchkit.charts import boundary as cb
    >>> K = np.array([[0, 3, 7, 10], [5, 5, 5, 5], [1, 4, 2, 9]])  # correct of T=10, 4 models
    >>> prof = profiles(K, 10, items=["q0", "q1", "q2"])
    >>> chart = cb.distribution_chart({"Qwen3 axis": prof}, bins=4)
    >>> type(chart).__name__
    'FacetChart'
    """
    alt = _altair()
    df = distribution_frame(profiles, bins=bins)
    df["mid"] = (df["bin_start"] + df["bin_end"]) / 2
    titles = {"x": "x = Q0.5 (Delta>0)", "w": "w = Q0.75-Q0.25 (Delta>0)", "v": "v (all items)"}
    df["panel"] = df["variable"].map(titles)
    bars = alt.Chart().mark_bar(opacity=0.75).encode(
        x=alt.X("bin_start:Q", bin="binned", scale=alt.Scale(domain=[0, 1]), title=None),
        x2="bin_end:Q", y=alt.Y("share:Q", title="share"),
        tooltip=["condition", "variable", "bin_start", "bin_end", "count",
                 alt.Tooltip("share:Q", format=".3f")],
    ).transform_filter(alt.datum.weighting == "items")
    ticks = alt.Chart().mark_tick(color="black", thickness=2, size=12).encode(
        x="mid:Q", y="share:Q",
        tooltip=["condition", "variable", alt.Tooltip("share:Q", format=".3f", title="v-weighted")],
    ).transform_filter(alt.datum.weighting == "v-weighted")
    return alt.layer(bars, ticks, data=df).properties(width=width, height=height).facet(
        row=alt.Row("condition:N", title=None, header=alt.Header(labelAngle=0, labelAlign="left")),
        column=alt.Column("panel:N", title=None, sort=[titles[v] for v in _VARS]),
    ).resolve_scale(y="independent")


# ----------------------------------------------------------------------------------------------
# calibration (App. D.3)
# ----------------------------------------------------------------------------------------------
def calibration_frame(tables: Any) -> pd.DataFrame:
    """The tail functions o = Q_{n,T}(D) of calibration tables, as step data.

    Parameters
    ----------
    tables : CalibrationTable or mapping label -> CalibrationTable
        Calibration tables of the order-consistency statistic (e.g.
        :func:`benchkit.boundary.steps.get_calibration`, or ``profile.calibration``).

    Returns
    -------
    DataFrame ``table, D, o, method, n, T``: one row per atom of each table (``to_frame()``),
    o being the score of any statistic in [D, next atom).

    References
    ----------
    H. Hu et al., "Are Benchmarks Reliable? Toward Structural Diagnosis via Item-Level Capability
    Boundaries" (BSDProbe), arXiv:2609.33196, App. D.2-D.3, Eq. (17) and (19) (the calibrated tail function).

    Examples
    --------
    The Monte Carlo table a profile was scored with (n = 4 models, T = 10):

    >>> import numpy as np
    >>> from benchkit.boundary.steps import profiles
    >>> from benchkit.charts import boundary as cb
    >>> K = np.array([[0, 3, 7, 10], [5, 5, 5, 5], [1, 4, 2, 9]])  # correct of T=10, 4 models
    >>> prof = profiles(K, 10, items=["q0", "q1", "q2"])
    >>> frame = cb.calibration_frame(prof.calibration)
    >>> frame.head(3).round(4)
                      table       D       o       method  n   T
    0  monte-carlo n=4 T=10  0.0000  1.0000  monte-carlo  4  10
    1  monte-carlo n=4 T=10  0.2024  0.8963  monte-carlo  4  10
    2  monte-carlo n=4 T=10  0.2203  0.8776  monte-carlo  4  10
    """
    from benchkit.boundary.steps import CalibrationTable

    if isinstance(tables, CalibrationTable):
        tables = {f"{tables.method} n={tables.n} T={tables.T}": tables}
    if not isinstance(tables, Mapping) or not tables:
        raise BenchkitTypeError(f"tables must be a CalibrationTable or a non-empty mapping of them; "
                                f"got {describe(tables)}")
    frames = []
    for lab, tb in tables.items():
        if not isinstance(tb, CalibrationTable):
            raise BenchkitTypeError(f"tables[{lab!r}] must be a CalibrationTable; got {describe(tb)}")
        f = tb.to_frame()[["D", "o"]].copy()
        f.insert(0, "table", str(lab))
        f["method"], f["n"], f["T"] = tb.method, tb.n, tb.T
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def calibration_chart(tables: Any, *, alpha_o: float | None = 0.05, log: bool = True,
                      width: int = 360, height: int = 220) -> "altair.Chart":
    """Step plot of o = Q_{n,T}(D) per table (log o axis by default) with the level alpha_o.

    Parameters
    ----------
    tables : CalibrationTable or mapping label -> CalibrationTable
        As in :func:`calibration_frame` (one line per table).
    alpha_o : float or None, default 0.05
        The screening level drawn as a dashed rule (the paper's 0.05); None draws none.
    log : bool, default True
        Log scale for o.
    width, height : int
        Size of the chart in pixels.

    Returns
    -------
    altair.Chart
        Step lines of :func:`calibration_frame` (atoms with o > 0), with the rule at ``alpha_o``.

    References
    ----------
    H. Hu et al., "Are Benchmarks Reliable? Toward Structural Diagnosis via Item-Level Capability
    Boundaries" (BSDProbe), arXiv:2609.33196, App. D.2-D.3, Eq. (17) and (19).

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.boundary.steps import profiles
    >>> from benchkit.charts import boundary as cb
    >>> K = np.array([[0, 3, 7, 10], [5, 5, 5, 5], [1, 4, 2, 9]])  # correct of T=10, 4 models
    >>> prof = profiles(K, 10, items=["q0", "q1", "q2"])
    >>> chart = cb.calibration_chart({"n=4, T=10": prof.calibration})
    >>> chart.layer[0].mark.interpolate, len(chart.layer)
    ('step-after', 2)
    """
    alt = _altair()
    df = calibration_frame(tables)
    df = df[df["o"] > 0]
    y = alt.Y("o:Q", scale=alt.Scale(type="log") if log else alt.Undefined,
              title="order-consistency score o")
    chart = alt.Chart(df).mark_line(interpolate="step-after").encode(
        x=alt.X("D:Q", title="likelihood-ratio statistic D"), y=y, color=alt.Color("table:N"),
        strokeDash="table:N",
        tooltip=["table", alt.Tooltip("D:Q", format=".4f"), alt.Tooltip("o:Q", format=".3g")],
    )
    if alpha_o is not None:
        rule = alt.Chart(pd.DataFrame({"alpha": [float(alpha_o)]})).mark_rule(
            color="gray", strokeDash=[3, 3]).encode(y="alpha:Q")
        chart = chart + rule
    return chart.properties(width=width, height=height)


# ----------------------------------------------------------------------------------------------
# rates against a level (simulation checks)
# ----------------------------------------------------------------------------------------------
def rate_chart(frame: pd.DataFrame, *, category: str, rate_column: str = "rate",
               n_column: str = "n", reference: float | None = 0.05, color: str | None = None,
               width: int = 360, height: int = 200) -> "altair.Chart":
    """Bar chart of rates with +-2 binomial standard errors and a horizontal reference line.

    ``frame`` has one row per bar: column ``category`` (label), column ``rate_column`` (the rate,
    in [0, 1]) and column ``n_column`` (the number of trials behind it, for
    se = sqrt(rate (1 - rate) / n)). ``reference`` (default 0.05,
    e.g. a test's nominal level) is drawn as a dashed red line; None draws none.

    Parameters
    ----------
    frame : DataFrame
        One row per bar.
    category : str
        Column with the bar labels.
    rate_column : str, default "rate"
        Column with the rates in [0, 1].
    n_column : str, default "n"
        Column with the number of trials behind each rate.
    reference : float or None, default 0.05
        Level of the dashed reference line; None draws none.
    color : str, optional
        Column colouring the bars (default: one colour).
    width, height : int
        Size of the chart in pixels.

    Returns
    -------
    altair.Chart
        Bars, error rules from ``lo = max(0, rate - 2 se)`` to ``hi = rate + 2 se`` and the
        reference line.

    References
    ----------
    H. Hu et al., "Are Benchmarks Reliable? Toward Structural Diagnosis via Item-Level Capability
    Boundaries" (BSDProbe), arXiv:2609.33196, App. D.2 (the false-flag rate of the screen at alpha_o, checked
    by simulation in benchkit's notebook).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.charts.boundary import rate_chart
    >>> frame = pd.DataFrame({"k": ["a", "b"], "rate": [0.04, 0.01], "n": [400, 100]})
    >>> chart = rate_chart(frame, category="k")
    >>> chart.data.round(4)
       k  rate    n      lo      hi
    0  a  0.04  400  0.0204  0.0596
    1  b  0.01  100  0.0000  0.0299
    """
    alt = _altair()
    for col in (category, rate_column, n_column) + ((color,) if color else ()):
        if col not in frame.columns:
            raise BenchkitValueError(f"frame has no column {col!r}; columns: {list(frame.columns)}")
    df = frame.copy()
    r = df[rate_column].to_numpy(float)
    se = np.sqrt(r * (1 - r) / df[n_column].to_numpy(float))
    df["lo"], df["hi"] = np.clip(r - 2 * se, 0, 1), np.clip(r + 2 * se, 0, 1)
    enc = {"x": alt.X(f"{category}:N", sort=None, title=None), "y": alt.Y(f"{rate_column}:Q")}
    if color:
        enc["color"] = alt.Color(f"{color}:N")
        enc["xOffset"] = alt.XOffset(f"{color}:N")
    bars = alt.Chart(df).mark_bar().encode(**enc, tooltip=list(frame.columns))
    err_enc = {"x": enc["x"], "y": "lo:Q", "y2": "hi:Q"}
    if color:
        err_enc["xOffset"] = enc["xOffset"]
    chart = bars + alt.Chart(df).mark_rule(color="black").encode(**err_enc)
    if reference is not None:
        chart = chart + alt.Chart(pd.DataFrame({"level": [float(reference)]})).mark_rule(
            color="red", strokeDash=[4, 3]).encode(y="level:Q")
    return chart.properties(width=width, height=height)
