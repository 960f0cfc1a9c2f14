"""Altair charts of benchkit results: pure functions ``result -> altair.Chart``.

These charts need no widget and no running kernel: they can be saved (``chart.save("x.html")``,
``.png``/``.svg`` through vl-convert), embedded in static reports, or shown in JupyterLab.
Altair is imported inside each function, so ``import benchkit.charts`` works without it; calling a
chart function without Altair raises an ImportError that names the ``benchkit[jupyter]`` extra.

Generic charts of a ResponseSet live here; one module per method holds that method's charts:
:mod:`benchkit.charts.boundary` (paper 000), :mod:`benchkit.charts.dif` (001),
:mod:`benchkit.charts.measure` (002), :mod:`benchkit.charts.landscape` (003),
:mod:`benchkit.charts.quality` (004), :mod:`benchkit.charts.labels` (answer-key checks) and
:mod:`benchkit.charts.paired` (model comparisons). They load on first access (``charts.measure``) or with
``from benchkit.charts import measure as charts_measure``, and share the one lazy Altair loader
below.
Showing charts in JupyterLab offline
------------------------------------
Altair 6 emits Vega-Lite 6 specs. JupyterLab 4.6's built-in Vega renderer only knows the
``application/vnd.vegalite.v3/v4/v5+json`` mimetypes, and Altair's default ``"html"`` renderer loads
vega, vega-lite and vega-embed from a CDN. :func:`enable_offline_rendering` switches Altair to its
``"jupyter"`` renderer with ``offline=True``: every chart is shown as an ``alt.JupyterChart``
anywidget whose JavaScript is a self-contained bundle produced by vl-convert (no network), the same
mechanism benchkit's explorers use. The committed notebook then stores only a small widget reference
per chart; ``enable_offline_rendering(static=True)`` stores each chart as an SVG instead, for
notebooks shared as reports (a standalone page: ``chart.save(..., inline=True)``).
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
           "to_svg"]

_METHOD_MODULES = ("boundary", "dif", "labels", "landscape", "measure", "paired", "quality")

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
    """Show Altair charts in JupyterLab with no network access.

    Parameters
    ----------
    static : bool, default False
        False: Altair's ``"jupyter"`` renderer with ``offline=True`` (charts become interactive
        ``alt.JupyterChart`` anywidgets bundled by vl-convert). They need a live kernel: a saved
        notebook stores only a widget reference, which JupyterLab, nbconvert and GitHub show as a
        line of text. True: Altair's ``"svg"`` renderer. vl-convert draws each chart as an SVG
        stored in the output itself, so a saved notebook shows its charts anywhere, without a
        kernel (no tooltips or selections). Use it for notebooks shared as reports.

    Notes
    -----
    See the module docstring for why the default renderers do not work offline in JupyterLab 4.6
    with Altair 6. A saved output that holds both a widget reference and an SVG does not help:
    JupyterLab renders the widget mimetype, falls back to its text/plain line when the widget
    state is missing, and never shows the SVG (checked in headless JupyterLab 4.6).
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
    if static:
        alt.renderers.enable("svg")
    else:
        alt.renderers.enable("jupyter", offline=True)



def to_svg(chart: Any) -> str:
    """The chart drawn as an SVG document by vl-convert (offline; no browser, no CDN).

    Parameters
    ----------
    chart : altair.Chart or any Altair top-level chart

    Returns
    -------
    str
        The SVG text.
    """
    _altair()
    try:
        import vl_convert
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    if not hasattr(chart, "to_dict"):
        raise BenchkitTypeError(f"chart must be an Altair chart, got {type(chart).__name__}")
    return vl_convert.vegalite_to_svg(chart.to_dict())


def show(chart: Any) -> None:
    """Display a chart for a notebook that is also a report: the chart, then its static SVG.

    With :func:`enable_offline_rendering` (``static=False``) the first output is the interactive
    chart, which needs a live kernel; the second is the same chart as an SVG image stored in the
    notebook, so the saved notebook shows it on a code host or nbviewer without a kernel. With
    ``static=True`` the chart is already an SVG and is shown once.

    Parameters
    ----------
    chart : altair.Chart
    """
    alt = _altair()
    from IPython.display import SVG
    from IPython.display import display

    display(chart)
    if alt.renderers.active != "svg":
        display(SVG(to_svg(chart)))


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

    Returns
    -------
    pandas.DataFrame
        Columns ``bin_start``, ``bin_end``, ``n_items``.
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
    bins : int
        Number of equal-width bins on [0, 1] (default 20, i.e. 0.05 wide).
    title : str, optional
        Chart title; default ``"Item difficulty (p-values)"`` plus the set's name.

    Returns
    -------
    altair.Chart
        A bar per bin; the data are :func:`difficulty_bins` (``bin_start``, ``bin_end``,
        ``n_items``), binned in Python so the chart shows exactly these counts.
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
