"""Altair charts for paper 003 (MCQ probability landscapes).

Pure functions ``result -> altair.Chart`` (Altair imported inside each function, as in
:mod:`benchkit.charts`): static counterparts of :class:`benchkit.widgets.LandscapeExplorer` for
reports.

================================ ============================================================
:func:`landscape_frame`          binned counts of ``(P_top1, H_norm)`` per group (the density data)
:func:`landscape_chart`          P_top1 x H_norm scatter, or a density heatmap for large N, faceted
:func:`mpd_heatmap`              a wide MPD (or accuracy / mean H_norm) table as an annotated heatmap
================================ ============================================================

All numbers plotted come from :mod:`benchkit.landscape` results; the charts only lay them out.
"""
from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any
from typing import Sequence

import numpy as np
import pandas as pd

from benchkit._random import generator
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_columns
from benchkit._validation import check_int
from benchkit.charts import _altair

if TYPE_CHECKING:  # pragma: no cover
    import altair

__all__ = ["landscape_frame", "landscape_chart", "mpd_heatmap"]

_XY = ("p_top1", "h_norm")


def _frame_of(points: Any, need: Sequence[str]) -> pd.DataFrame:
    from benchkit.landscape import LandscapePoints

    if isinstance(points, LandscapePoints):
        frame = points.to_frame()
    elif isinstance(points, pd.DataFrame):
        frame = points
    else:
        raise BenchkitTypeError(
            "points must be a benchkit.landscape.LandscapePoints or a DataFrame with columns "
            f"p_top1 and h_norm; got {type(points).__name__}"
        )
    check_columns("points", frame.columns, required=list(_XY) + [c for c in need if c])
    return frame


def _by_list(by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return []
    return [by] if isinstance(by, str) else list(by)


def landscape_frame(points: Any, *, by: str | Sequence[str] | None = None,
                    bins: int = 25) -> pd.DataFrame:
    """Counts of landscape points on a ``bins x bins`` grid of ``[0, 1]^2``, per group.

    Parameters
    ----------
    points : LandscapePoints or DataFrame
        With ``p_top1`` and ``h_norm`` (and the ``by`` columns).
    by : str or list of str, optional
        Group columns (e.g. ``"model"``, ``["benchmark", "variant"]``).
    bins : int
        Bins per axis; cell ``(i, j)`` is ``[i/bins, (i+1)/bins)`` in ``P_top1`` and likewise in
        ``H_norm``, the last bin closed (value 1 goes into it), as :func:`numpy.histogram2d`.

    Returns
    -------
    DataFrame
        Non-empty cells only: the ``by`` columns, ``p_lo, p_hi, h_lo, h_hi, count`` and ``share``
        (``count`` / points of the group).

    References
    ----------
    Song and Park, "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372,
    Sec. 3.1-3.2 (the point ``(P_top1, H_norm)``) and Figure 2
    (its density).

    Examples
    --------
    Four (item, model) option distributions, binned on a 4 x 4 grid per model:

    >>> import numpy as np
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import points
    >>> from benchkit.charts import landscape as cl
    >>> probs = np.array([[0.7, 0.1, 0.1, 0.1], [0.4, 0.4, 0.1, 0.1],
    ...                   [0.25, 0.25, 0.25, 0.25], [0.97, 0.01, 0.01, 0.01]])
    >>> pts = points(probs, meta=pd.DataFrame({"model": ["m1", "m1", "m2", "m2"]}))
    >>> cl.landscape_frame(pts, by="model", bins=4)
      model  p_lo  p_hi  h_lo  h_hi  count  share
    0    m1  0.25  0.50  0.75   1.0      1    0.5
    1    m1  0.50  0.75  0.75   1.0      1    0.5
    2    m2  0.25  0.50  0.75   1.0      1    0.5
    3    m2  0.75  1.00  0.75   1.0      1    0.5
    """
    bins = check_int("bins", bins, min=1)
    by_cols = _by_list(by)
    f = _frame_of(points, by_cols)
    x = f["p_top1"].to_numpy(dtype=np.float64)
    y = f["h_norm"].to_numpy(dtype=np.float64)
    if len(f) and (not np.isfinite(x).all() or not np.isfinite(y).all()
                   or x.min() < 0 or x.max() > 1 or y.min() < 0 or y.max() > 1):
        raise BenchkitValueError("p_top1 and h_norm must be finite values in [0, 1]")
    ix = np.minimum((x * bins).astype(np.int64), bins - 1)
    iy = np.minimum((y * bins).astype(np.int64), bins - 1)
    g = pd.DataFrame({c: f[c].to_numpy() for c in by_cols})
    g["ix"] = ix
    g["iy"] = iy
    keys = by_cols + ["ix", "iy"]
    out = g.groupby(keys, sort=True).size().rename("count").reset_index()
    tot = out.groupby(by_cols)["count"].transform("sum") if by_cols else out["count"].sum()
    out["share"] = out["count"] / tot
    out["p_lo"] = out["ix"] / bins
    out["p_hi"] = (out["ix"] + 1) / bins
    out["h_lo"] = out["iy"] / bins
    out["h_hi"] = (out["iy"] + 1) / bins
    return out[by_cols + ["p_lo", "p_hi", "h_lo", "h_hi", "count", "share"]]


#: viridis at 7 evenly spaced points (dark purple to yellow), the quantile classes' colours
_VIRIDIS7 = ["#440154", "#443983", "#31688e", "#21918c", "#35b779", "#90d743", "#fde725"]


def _quantile_classes(d: pd.DataFrame, k: int = 7) -> tuple[pd.DataFrame, list[str]]:
    """Non-empty cells of a :func:`landscape_frame` with ``class`` = quantile class of ``count``.

    Upper bounds are the ``q / k`` quantiles (q = 1..k, "inverted CDF") of the non-empty cells'
    counts, duplicates dropped (the explorer's ``quantileBreaks``); a cell belongs to the first
    class whose bound it does not exceed. Returns the cells and each class's "lo–hi" count label.
    """
    d = d[d["count"] > 0].copy()
    counts = np.sort(d["count"].to_numpy())
    if counts.size == 0:
        return d.assign(**{"class": np.zeros(0, int)}), []
    idx = np.minimum(counts.size - 1, np.ceil(np.arange(1, k + 1) / k * counts.size).astype(int) - 1)
    breaks = np.unique(counts[idx])
    d["class"] = np.searchsorted(breaks, d["count"].to_numpy(), side="left")
    lows = np.concatenate([[counts[0]], breaks[:-1] + 1])
    labels = [f"{int(lo):,}" if lo == hi else f"{int(lo):,}–{int(hi):,}" for lo, hi in zip(lows, breaks)]
    return d, labels


def landscape_chart(points: Any, *, facet: str | None = None, color: str | None = None,
                    density: bool | None = None, max_points: int = 4000, bins: int = 25,
                    columns: int = 4, width: int = 170, height: int = 150,
                    title: str | None = None, rng: Any = 0,
                    density_scale: str = "linear") -> "altair.Chart":
    """The probability landscape: ``P_top1`` (x) against ``H_norm`` (y), one panel per ``facet``.

    Parameters
    ----------
    points : LandscapePoints or DataFrame
        With ``p_top1`` and ``h_norm`` (and the ``facet`` / ``color`` columns), e.g.
        :func:`benchkit.landscape.steps.points`.
    facet : str, optional
        Column giving one panel per value (e.g. ``"benchmark"``, ``"model"``, ``"variant"``).
    color : str, optional
        Column coloring the scatter points (scatter only; e.g. ``"correct"``).
    density : bool, optional
        True: a heatmap of :func:`landscape_frame` shares (the paper's Figure 2 for thousands of
        points); False: a scatter; None (default): density when a panel has more than
        ``max_points`` points.
    max_points : int
        Scatter only: at most this many points per panel are drawn (a seeded uniform subsample, so
        the embedded data stay small); the title says when points were subsampled.
    bins : int
        Density grid per axis.
    columns : int
        Panels per row.
    width, height : int
        Size of each panel in pixels.
    title : str, optional
        Chart title (default none); a subsampled scatter appends how many points it shows.
    rng : None, int, SeedSequence or Generator
        Randomness of the scatter subsample (default 0, so a chart is reproducible; a Generator
        is consumed).
    density_scale : {"linear", "quantile"}
        Density only: colour the share linearly on viridis (default), or by 7 quantile classes of
        the non-empty cells' shares (the legend gives each class's range), which keeps structure
        visible when a few cells hold most points (160k-800k points; the explorer's reading).

    Notes
    -----
    Sec. 3.2 / Figure 2: each item (x model) is the point ``z = (P_top1, H_norm)``; ``P_top1`` lies
    in ``[1/k, 1]`` and ``H_norm`` in ``[0, 1]``. The axes span ``[0, 1]`` in every panel so panels
    compare directly.

    Returns
    -------
    altair.Chart
        A scatter (circles) or a density heatmap (rects of :func:`landscape_frame`), faceted by
        ``facet`` when given.

    References
    ----------
    Song and Park, "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372,
    Sec. 3.1-3.2 and Figure 2.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import points
    >>> from benchkit.charts import landscape as cl
    >>> probs = np.array([[0.7, 0.1, 0.1, 0.1], [0.4, 0.4, 0.1, 0.1],
    ...                   [0.25, 0.25, 0.25, 0.25], [0.97, 0.01, 0.01, 0.01]])
    >>> pts = points(probs, meta=pd.DataFrame({"model": ["m1", "m1", "m2", "m2"]}))
    >>> chart = cl.landscape_chart(pts, facet="model")
    >>> type(chart).__name__, chart.spec.mark.type
    ('FacetChart', 'circle')
    """
    alt = _altair()
    max_points = check_int("max_points", max_points, min=1)
    density_scale = check_choice("density_scale", density_scale, ("linear", "quantile"))
    columns = check_int("columns", columns, min=1)
    f = _frame_of(points, [facet, color])
    sizes = f.groupby(facet).size() if facet else pd.Series([len(f)])
    if density is None:
        density = bool(sizes.max() > max_points)
    scale = alt.Scale(domain=[0, 1])
    if density:
        d = landscape_frame(f, by=facet, bins=bins)
        if density_scale == "linear":
            color = alt.Color("share:Q", title="share", scale=alt.Scale(scheme="viridis"))
        else:
            d, labels = _quantile_classes(d)
            ramp = [_VIRIDIS7[i] for i in np.round(np.linspace(0, 6, len(labels))).astype(int)]
            color = alt.Color("class:O", title=["points per cell", f"({len(labels)} quantile classes)"],
                              scale=alt.Scale(domain=list(range(len(labels))), range=ramp),
                              legend=alt.Legend(labelExpr=f"{labels}[datum.value]", symbolType="square"))
        base = alt.Chart(d).mark_rect().encode(
            x=alt.X("p_lo:Q", title="P_top1", scale=scale),
            x2="p_hi:Q",
            y=alt.Y("h_lo:Q", title="H_norm", scale=scale),
            y2="h_hi:Q",
            color=color,
            tooltip=[*([facet] if facet else []), "p_lo:Q", "h_lo:Q", "count:Q",
                     alt.Tooltip("share:Q", format=".3f")],
        )
    else:
        parts = []
        gen = generator(rng)
        groups = f.groupby(facet, sort=True) if facet else [(None, f)]
        sub = False
        for _, g in groups:
            if len(g) > max_points:
                g = g.iloc[np.sort(gen.choice(len(g), size=max_points, replace=False))]
                sub = True
            parts.append(g)
        keep = [c for c in [*_XY, facet, color, "item", "model", "variant", "benchmark"]
                if c and c in f.columns]
        keep = list(dict.fromkeys(keep))
        d = pd.concat(parts, ignore_index=True)[keep]
        for c in d.columns:  # plain JSON-friendly values for Vega-Lite
            if d[c].dtype == bool:
                d[c] = d[c].astype(str)
        enc = dict(x=alt.X("p_top1:Q", title="P_top1", scale=scale),
                   y=alt.Y("h_norm:Q", title="H_norm", scale=scale),
                   tooltip=[c for c in keep])
        if color:
            enc["color"] = alt.Color(f"{color}:N", title=color)
        base = alt.Chart(d).mark_circle(size=10, opacity=0.45).encode(**enc)
        if sub:
            title = (title or "") + f" (up to {max_points} points per panel shown)"
    base = base.properties(width=width, height=height)
    if facet:
        chart = base.facet(facet=alt.Facet(f"{facet}:N", title=None), columns=columns)
    else:
        chart = base
    if title:
        chart = chart.properties(title=title.strip())
    return chart


def mpd_heatmap(table: pd.DataFrame, *, value: str = "MPD", fmt: str = ".3f",
                width: int | None = None, height: int | None = None,
                title: str | None = None) -> "altair.Chart":
    """A wide table (rows x columns, e.g. :func:`benchkit.landscape.steps.model_table`) as a heatmap.

    Each cell is colored by its value and labelled with it (``fmt``); NaN cells are left blank.
    Row and column order follow the table.

    Parameters
    ----------
    table : DataFrame
        Rows x columns of numbers (e.g. models x benchmarks of MPD).
    value : str, default "MPD"
        Name of the value (legend and tooltip).
    fmt : str, default ".3f"
        Format of the cell labels (d3-format).
    width, height : int, optional
        Size in pixels (default 60 per column and 20 per row).
    title : str, optional
        Chart title.

    Returns
    -------
    altair.Chart
        Rects coloured by the value with a text layer; data columns ``row``, ``column`` and
        ``value``'s name.

    References
    ----------
    Song and Park, "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372,
    Sec. 3.3 (Mean Pairwise Distance) and Table 7 (per-model MPD by
    benchmark).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.charts.landscape import mpd_heatmap
    >>> table = pd.DataFrame({"arc": [0.39, 0.35], "mmlu": [0.34, 0.35]},
    ...                      index=pd.Index(["m1", "m2"], name="model"))
    >>> chart = mpd_heatmap(table, title="MPD by model and benchmark")
    >>> chart.data
      row column   MPD
    0  m1    arc  0.39
    1  m1   mmlu  0.34
    2  m2    arc  0.35
    3  m2   mmlu  0.35
    """
    alt = _altair()
    if not isinstance(table, pd.DataFrame):
        raise BenchkitTypeError(f"table must be a DataFrame; got {type(table).__name__}")
    if table.shape[0] == 0 or table.shape[1] == 0:
        raise BenchkitValueError("table is empty")
    rows = [str(r) for r in table.index]
    cols = [str(c) for c in table.columns]
    long = pd.DataFrame({
        "row": np.repeat(rows, len(cols)),
        "column": np.tile(cols, len(rows)),
        value: table.to_numpy(dtype=np.float64).ravel(),
    }).dropna()
    rname = table.index.name or "row"
    cname = table.columns.name or "column"
    base = alt.Chart(long).encode(
        x=alt.X("column:N", sort=cols, title=cname),
        y=alt.Y("row:N", sort=rows, title=rname),
    )
    rect = base.mark_rect().encode(color=alt.Color(f"{value}:Q", scale=alt.Scale(scheme="blues")),
                                   tooltip=["row", "column", alt.Tooltip(f"{value}:Q", format=fmt)])
    text = base.mark_text(fontSize=10).encode(text=alt.Text(f"{value}:Q", format=fmt))
    chart = (rect + text).properties(width=width or 60 * len(cols), height=height or 20 * len(rows))
    if title:
        chart = chart.properties(title=title)
    return chart
