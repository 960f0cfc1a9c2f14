"""Altair charts of benchkit results: pure functions ``result -> altair.Chart``.

These charts need no widget and no running kernel: they can be saved (``chart.save("x.html")``,
``.png``/``.svg`` through vl-convert), embedded in static reports, or shown in JupyterLab.
Altair is imported inside each function, so ``import benchkit.charts`` works without it; calling a
chart function without Altair raises an ImportError that names the ``benchkit[jupyter]`` extra.

Generic charts of a ResponseSet live here; one module per method holds that method's charts:
:mod:`benchkit.charts.boundary` (paper 000), :mod:`benchkit.charts.dif` (001),
:mod:`benchkit.charts.measure` (002), :mod:`benchkit.charts.landscape` (003),
:mod:`benchkit.charts.quality` (004), :mod:`benchkit.charts.labels` (answer-key checks),
:mod:`benchkit.charts.paired` (model comparisons) and :mod:`benchkit.charts.auditing` (the
cross-method audit). They load on first access (``charts.measure``) or with
``from benchkit.charts import measure as charts_measure``, and share the one lazy Altair loader
below.

Showing charts in JupyterLab offline
------------------------------------
Altair 6 emits Vega-Lite 6 specs. JupyterLab 4.6's built-in Vega renderer only knows the
``application/vnd.vegalite.v3/v4/v5+json`` mimetypes, and Altair's default ``"html"`` renderer loads
vega, vega-lite and vega-embed from a CDN. :func:`enable_offline_rendering` switches Altair to
benchkit's ``"benchkit"`` renderer: every chart becomes ONE output holding the interactive chart
(an ``alt.JupyterChart`` anywidget whose JavaScript is a self-contained bundle produced by
vl-convert, no network), a PNG of it at 2x with alt text, and a caption as ``text/plain``
(:mod:`benchkit.charts._display` explains why). A live kernel shows the interactive chart once; a
notebook stored by ``scripts/execute_notebooks.py`` keeps the PNG, which JupyterLab (trusted or
not, with or without a kernel), nbconvert and code hosts show. ``enable_offline_rendering(static=True)``
stores the PNG and caption only.
"""
from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import check_int

if TYPE_CHECKING:  # pragma: no cover
    import altair

    from benchkit.response_set import ResponseSet

__all__ = ["accuracy_chart", "difficulty_bins", "difficulty_histogram", "enable_offline_rendering", "show",
           "to_png", "to_svg"]

_METHOD_MODULES = ("auditing", "boundary", "dif", "labels", "landscape", "measure", "paired", "quality")

_INSTALL_HINT = (
    "benchkit.charts needs Altair (and vl-convert-python for offline rendering); "
    "install them with: pip install 'benchkit[jupyter]'"
)


def _altair():
    """The one lazy Altair import of every chart module, with the install hint on failure."""
    try:
        import altair as alt
    except ImportError as exc:  # pragma: no cover - exercised by monkeypatching in the tests
        raise ImportError(_INSTALL_HINT) from exc
    return alt


def __getattr__(name: str):  # the per-method chart modules load on first use
    if name in _METHOD_MODULES:
        import importlib

        return importlib.import_module(f"benchkit.charts.{name}")
    raise AttributeError(f"module 'benchkit.charts' has no attribute {name!r}")


def _check_response_set(rs: Any) -> "ResponseSet":
    from benchkit.response_set import ResponseSet

    if not isinstance(rs, ResponseSet):
        raise BenchkitTypeError(f"rs must be a benchkit.ResponseSet, got {type(rs).__name__}")
    return rs


def enable_offline_rendering(*, static: bool = False) -> None:
    """Show Altair charts in JupyterLab with no network access, each as one readable output.

    Parameters
    ----------
    static : bool, default False
        False: Altair's renderer becomes ``"benchkit"``. Each chart is one output whose bundle holds
        the interactive ``alt.JupyterChart`` (bundled offline by vl-convert), a PNG at 2x with alt
        text and a caption: a running kernel shows the interactive chart, a stored notebook the
        PNG. True: ``"benchkit-static"``, the PNG and the caption only (no widget at all).

    Returns
    -------
    None
        Altair's active renderer is switched for the session (``alt.renderers.active``).

    Notes
    -----
    See the module docstring for why Altair's own renderers do not work offline in JupyterLab 4.6
    with Altair 6, and :mod:`benchkit.charts._display` for the bundle. JupyterLab shows an SVG
    only in a trusted notebook and a widget view only while its kernel runs ("Error displaying
    widget: model not found" otherwise, checked in headless JupyterLab 4.6), hence the PNG.

    References
    ----------
    The Altair documentation, "Displaying Altair Charts" (renderers, ``"jupyter"`` with
    ``offline=True``), https://altair-viz.github.io/user_guide/display_frontends.html; the
    vl-convert project, https://github.com/vega/vl-convert.

    Examples
    --------
    >>> import altair as alt
    >>> from benchkit.charts import enable_offline_rendering
    >>> before = alt.renderers.active
    >>> enable_offline_rendering(static=True)
    >>> alt.renderers.active
    'benchkit-static'
    >>> _ = alt.renderers.enable(before)  # back to the previous renderer
    """
    if not isinstance(static, bool):
        raise BenchkitTypeError(f"static must be True or False, got {static!r}")
    alt = _altair()
    try:
        import vl_convert  # noqa: F401
        if not static:
            import anywidget  # noqa: F401
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    from benchkit.charts import _display

    alt.renderers.register("benchkit", _display.live_renderer)
    alt.renderers.register("benchkit-static", _display.static_renderer)
    alt.renderers.enable("benchkit-static" if static else "benchkit")


def _check_chart(chart: Any) -> dict:
    """The Vega-Lite dict of an Altair chart (vl-convert installed), else a clear error."""
    _altair()
    try:
        import vl_convert  # noqa: F401
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    if not hasattr(chart, "to_dict"):
        raise BenchkitTypeError(f"chart must be an Altair chart, got {type(chart).__name__}")
    return _xml_safe(chart.to_dict())


def _xml_safe(spec: Any) -> Any:
    r"""``spec`` with every string's control and format characters shown as escapes (``\x1b``).

    vl-convert writes text into XML, where an ESC or BEL is not allowed: it aborts the whole Python
    process (a Rust panic that cannot unwind) on a model name holding a terminal escape. Every
    string of the spec (data values, titles, labels) goes through
    :func:`benchkit._terminal.escape`, the command line's escaping, so a figure shows such a name
    as the terminal does.
    """
    from benchkit._terminal import escape

    if isinstance(spec, str):
        return escape(spec, keep_newlines=True)
    if isinstance(spec, dict):
        return {_xml_safe(k): _xml_safe(v) for k, v in spec.items()}
    if isinstance(spec, list):
        return [_xml_safe(v) for v in spec]
    return spec


def to_svg(chart: Any) -> str:
    """The chart drawn as an SVG document by vl-convert (offline; no browser, no CDN).

    Parameters
    ----------
    chart : altair.Chart or any Altair top-level chart
        The chart to draw (any benchkit chart function's result).

    Returns
    -------
    str
        The SVG text.

    References
    ----------
    The vl-convert project (Vega-Lite to SVG/PNG without a browser), https://github.com/vega/vl-convert.

    Examples
    --------
    >>> import benchkit
    >>> from benchkit import charts
    >>> rs = benchkit.simulate.load_sample("mcq")  # 300 items x 8 models
    >>> svg = charts.to_svg(charts.accuracy_chart(rs))
    >>> svg.startswith("<svg")
    True
    """
    import vl_convert

    return vl_convert.vegalite_to_svg(_check_chart(chart))


def to_png(chart: Any) -> bytes:
    """The chart drawn as a PNG at 2x by vl-convert, as stored in notebooks (offline).

    Parameters
    ----------
    chart : altair.Chart or any Altair top-level chart
        The chart to draw.

    Returns
    -------
    bytes
        The PNG image: twice the chart's size in CSS pixels, with 12 px of room around it.

    References
    ----------
    The vl-convert project (Vega-Lite to SVG/PNG without a browser),
    https://github.com/vega/vl-convert.

    Examples
    --------
    >>> import benchkit
    >>> from benchkit import charts
    >>> rs = benchkit.simulate.load_sample("mcq")  # 300 items x 8 models
    >>> charts.to_png(charts.accuracy_chart(rs))[1:4]
    b'PNG'
    """
    from benchkit.charts import _display

    return _display.to_png(_check_chart(chart))


def show(chart: Any, *, alt: str | None = None) -> None:
    """Display a chart as one output: the interactive chart, its PNG with alt text, a caption.

    The same output as displaying the chart after :func:`enable_offline_rendering` (which
    ``show`` does not need), with your own ``alt`` text if given. A running kernel shows the
    interactive chart once; a notebook stored by ``scripts/execute_notebooks.py`` shows the PNG.
    After ``enable_offline_rendering(static=True)`` only the PNG and the caption are shown.

    Parameters
    ----------
    chart : altair.Chart
        The chart to display.
    alt : str, optional
        Alt text and caption of the image; default a description generated from the spec
        (title, kind of chart, what each axis and legend shows).

    Returns
    -------
    None
        The chart is displayed as one output (live view, PNG with alt text, caption).

    References
    ----------
    The Jupyter display protocol (``IPython.display.display``),
    https://ipython.readthedocs.io/en/stable/api/generated/IPython.display.html.

    Examples
    --------
    In a notebook cell (outside one, ``display`` prints the whole bundle, PNG included):

    >>> import benchkit
    >>> from benchkit import charts
    >>> rs = benchkit.simulate.load_sample("mcq")  # 300 items x 8 models
    >>> charts.show(charts.accuracy_chart(rs), alt="Accuracy of 8 models.")  # doctest: +SKIP
    """
    if alt is not None and not isinstance(alt, str):
        raise BenchkitTypeError(f"alt must be a string, got {type(alt).__name__}")
    spec = _check_chart(chart)
    from IPython.display import display

    from benchkit.charts import _display

    live = _altair().renderers.active != "benchkit-static"
    data, metadata = _display.chart_bundle(spec, live=live, alt=alt)
    display(data, metadata=metadata, raw=True)


def _no_frame(alt) -> Any:
    """A view with no frame (text panels of the explorers' static images)."""
    return alt.ViewBackground(stroke=None)


def _text_table(alt, frame: pd.DataFrame, widths: dict[str, int], *, title: Any) -> "altair.Chart":
    """``frame``'s columns as a text table: one narrow chart per column, its header as the title.

    ``widths`` maps each column shown to its width (px); longer text ends in an ellipsis. The
    static images of the explorers show their tables with it.
    """
    n = len(frame)
    columns = []
    for col, w in widths.items():
        data = pd.DataFrame({"row": range(n), "text": frame[col].astype(str).to_numpy()})
        columns.append(alt.Chart(data).mark_text(align="left", baseline="middle", limit=w - 6, fontSize=11)
                       .encode(x=alt.value(0), y=alt.Y("row:O", axis=None), text="text:N")
                       .properties(width=w, height=16 * max(n, 1), view=_no_frame(alt),
                                   title=alt.TitleParams(col, anchor="start", fontSize=11)))
    return alt.hconcat(*columns, spacing=4).properties(title=alt.TitleParams(title, anchor="start"))


def accuracy_chart(rs: "ResponseSet", *, title: str | None = None) -> "altair.Chart":
    """Bar chart of accuracy per model, sorted from most to least accurate.

    Parameters
    ----------
    rs : ResponseSet
        Accuracy is :meth:`ResponseSet.accuracy` (mean correctness over each model's observed
        items, samples averaged within an item).
    title : str, optional
        Chart title; default ``"Accuracy per model"`` plus the set's name.

    Returns
    -------
    altair.Chart
        Data columns ``model``, ``accuracy``, ``family``, ``rank`` (1 = most accurate; ties keep
        roster order).

    References
    ----------
    J. VanderPlas et al. (2018), "Altair: Interactive Statistical Visualizations for Python",
    Journal of Open Source Software 3(32), 1057. A. Satyanarayan, D. Moritz, K. Wongsuphasawat and
    J. Heer (2017), "Vega-Lite: A Grammar of Interactive Graphics", IEEE Transactions on
    Visualization and Computer Graphics 23(1), 341-350.

    Examples
    --------
    >>> import benchkit
    >>> from benchkit import charts
    >>> rs = benchkit.simulate.load_sample("mcq")  # 300 items x 8 models
    >>> chart = charts.accuracy_chart(rs)
    >>> chart.mark
    'bar'
    >>> chart.data.head(3).round(3)
           model  accuracy   family  rank
    0  sim-mcq-7     0.827  unknown     1
    1  sim-mcq-8     0.823  unknown     2
    2  sim-mcq-6     0.710  unknown     3
    """
    alt = _altair()
    rs = _check_response_set(rs)
    acc = rs.accuracy()
    data = pd.DataFrame({"model": acc.index.astype(str), "accuracy": acc.to_numpy(dtype=float)})
    family = rs.models["family"] if "family" in rs.models.columns else None
    data["family"] = (family.reindex(acc.index).astype("string").fillna("unknown").to_numpy()
                      if family is not None else "unknown")
    data = data.sort_values("accuracy", ascending=False, kind="stable", na_position="last")
    data["rank"] = np.arange(1, len(data) + 1)
    data = data.reset_index(drop=True)
    data["model"] = data["model"].astype(object)
    data["family"] = data["family"].astype(object)
    return _bar_chart(
        alt, data, title, "Accuracy per model", rs,
        x=alt.X("accuracy:Q", title="accuracy", scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("model:N", sort=list(data["model"]), title=None),
        color=alt.Color("family:N", title="family"),
        tooltip=["model:N", "family:N", alt.Tooltip("accuracy:Q", format=".3f"), "rank:Q"],
    )


def _bar_chart(alt, data: pd.DataFrame, title: str | None, default_title: str, rs: "ResponseSet",
               **encoding) -> "altair.Chart":
    """A bar chart of ``data``; the default title names the set (``"<default> (<rs.name>)"``)."""
    if title is None:
        title = default_title + (f" ({rs.name})" if rs.name else "")
    return alt.Chart(data, title=title).mark_bar().encode(**encoding)


def difficulty_bins(rs: "ResponseSet", *, bins: int = 20) -> pd.DataFrame:
    """The table :func:`difficulty_histogram` draws: item p-values in ``bins`` equal bins on [0, 1].

    The p-value of an item is its proportion correct: the mean over the models that answered it of
    each model's correctness (samples averaged within a model), i.e.
    ``rs.item_stats()["p_value"]``. Bins are ``[k/bins, (k+1)/bins)`` with the last one closed, as in
    :func:`numpy.histogram`, except that a p-value on an edge is never pushed into the lower bin by
    floating-point rounding. Items observed for no model have no p-value and are left out.

    Parameters
    ----------
    rs : ResponseSet
        The responses; a single variant.
    bins : int, default 20
        Number of equal-width bins on [0, 1] (1 to 1,000).

    Returns
    -------
    pandas.DataFrame
        Columns ``bin_start``, ``bin_end``, ``n_items``: one row per bin, empty bins included.

    References
    ----------
    F. M. Lord and M. R. Novick (1968), Statistical Theories of Mental Test Scores,
    Addison-Wesley (the item p-value, classical test theory's difficulty index).

    Examples
    --------
    >>> import benchkit
    >>> from benchkit import charts
    >>> rs = benchkit.simulate.load_sample("mcq")  # 300 items x 8 models
    >>> charts.difficulty_bins(rs, bins=4)
       bin_start  bin_end  n_items
    0       0.00     0.25       45
    1       0.25     0.50       37
    2       0.50     0.75       63
    3       0.75     1.00      155
    """
    rs = _check_response_set(rs)
    bins = check_int("bins", bins, min=1, max=1000)
    p = rs.item_stats()["p_value"].to_numpy(dtype=float)
    p = p[~np.isnan(p)]
    # Bin index floor(p * bins), with p * bins rounded to 9 decimals first so that a p-value lying
    # on an edge (e.g. 3/10 with 10 bins, where 0.3 * 10 = 3.0000000000000004 in floating point and
    # numpy.histogram's linspace edge is 0.30000000000000004) lands in the bin starting there.
    index = np.clip(np.floor(np.round(p * bins, 9)).astype(np.int64), 0, bins - 1)
    counts = np.bincount(index, minlength=bins).astype(np.int64)
    k = np.arange(bins)
    return pd.DataFrame({"bin_start": k / bins, "bin_end": (k + 1) / bins, "n_items": counts})


def difficulty_histogram(rs: "ResponseSet", *, bins: int = 20, title: str | None = None) -> "altair.Chart":
    """Histogram of item p-values (proportion of models answering each item correctly).

    Parameters
    ----------
    rs : ResponseSet
        The responses; a single variant.
    bins : int
        Number of equal-width bins on [0, 1] (default 20, i.e. 0.05 wide).
    title : str, optional
        Chart title; default ``"Item difficulty (p-values)"`` plus the set's name.

    Returns
    -------
    altair.Chart
        A bar per bin; the data are :func:`difficulty_bins` (``bin_start``, ``bin_end``,
        ``n_items``), binned in Python so the chart shows exactly these counts.

    References
    ----------
    F. M. Lord and M. R. Novick (1968), Statistical Theories of Mental Test Scores,
    Addison-Wesley (the item p-value).
    J. VanderPlas et al. (2018), "Altair: Interactive Statistical Visualizations for Python",
    Journal of Open Source Software 3(32), 1057. A. Satyanarayan, D. Moritz, K. Wongsuphasawat and
    J. Heer (2017), "Vega-Lite: A Grammar of Interactive Graphics", IEEE Transactions on
    Visualization and Computer Graphics 23(1), 341-350.

    Examples
    --------
    >>> import benchkit
    >>> from benchkit import charts
    >>> rs = benchkit.simulate.load_sample("mcq")  # 300 items x 8 models
    >>> chart = charts.difficulty_histogram(rs, bins=4)
    >>> chart.mark, chart.data["n_items"].tolist()
    ('bar', [45, 37, 63, 155])
    """
    alt = _altair()
    data = difficulty_bins(rs, bins=bins)
    return _bar_chart(
        alt, data, title, "Item difficulty (p-values)", rs,
        x=alt.X("bin_start:Q", bin="binned", title="p-value (proportion of models correct)",
                scale=alt.Scale(domain=[0, 1])),
        x2="bin_end:Q",
        y=alt.Y("n_items:Q", title="items"),
        tooltip=[alt.Tooltip("bin_start:Q", format=".2f"), alt.Tooltip("bin_end:Q", format=".2f"),
                 "n_items:Q"],
    )
