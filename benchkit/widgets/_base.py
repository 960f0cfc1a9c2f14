"""The explorer pattern shared by benchkit's widgets: front-end assets, state, static HTML export.

Every benchkit explorer is a :class:`BenchkitWidget`, an :class:`anywidget.AnyWidget` subclass
that follows five rules (DESIGN, "Explorers"):

1. **State lives in Python traitlets.** Everything the front end draws is a synced trait
   (``.tag(sync=True)``) holding plain JSON values (floats, ints, str, lists, dicts). The numbers
   come from benchkit results computed in Python; the front end only lays them out, and sends
   user actions back by setting traits (``model.set(...); model.save_changes()``), which Python
   observers (``@traitlets.observe``) turn into recomputed traits.
2. **One ES module per explorer** (plus optional CSS) in the repository's top-level ``widgets/``
   folder, plain ESM with inline SVG/DOM, **no CDN imports** and no bundler. A subclass names its
   files with the class attributes ``_esm_file`` / ``_css_file``, read through
   :mod:`benchkit.widgets._assets` (editable checkouts read ``widgets/`` directly). The module is
   :func:`explorer_module`: the shared DOM helpers of ``widgets/_dom.js`` (``s()``, ``h()``,
   ``SVG_NS``) followed by the explorer's file, which must not redefine them. CSS is passed as a
   path, so anywidget's hot reload works for it with ``ANYWIDGET_HMR=1``.
3. **The module follows the anywidget contract**: ``export default { render({ model, el }) }``
   (``initialize`` optional), using only ``model.get``, ``model.set``, ``model.on``,
   ``model.off``, ``model.save_changes`` and ``model.send``. That is what makes the static export
   below possible: the exported page runs the same module against a small in-page model.
4. **Static export** with :meth:`BenchkitWidget.to_html`: a self-contained HTML page with the
   module and CSS inlined and the current state embedded as JSON, which opens offline from
   ``file://``. There is no kernel there, so the state carries ``static_mode = True``; a module
   must then do locally what Python would do (e.g. pick among precomputed views that
   :meth:`BenchkitWidget._static_state` embeds) or disable the action and say so. Selections
   that must survive export are handled in the front end from data already in the state.
5. **Python accessors** for what the user did (selected items as DataFrames, the last recomputed
   result object), so a notebook can continue from an interaction.

A new explorer therefore looks like::

    class MyExplorer(BenchkitWidget):
        _esm_file = "my_explorer.js"
        _css_file = "my_explorer.css"
        values = traitlets.List(traitlets.Float()).tag(sync=True)
        selected = traitlets.Int(-1).tag(sync=True)

        def __init__(self, result, **kw):
            super().__init__(values=[float(v) for v in result.values], **kw)

        @traitlets.observe("selected")
        def _on_selected(self, change): ...

and ``widgets/my_explorer.js``::

    function render({ model, el }) {
      const draw = () => { el.replaceChildren(/* SVG built from model.get("values") */); };
      model.on("change:values", draw);
      draw();
    }
    export default { render };

:func:`to_jsonable` converts numpy scalars/arrays and pandas objects to plain JSON values
(non-finite floats become ``None``) for filling traits.
"""
from __future__ import annotations

import html
import json
import math
from pathlib import Path
from typing import Any, ClassVar

import anywidget
import numpy as np
import pandas as pd
import traitlets

from benchkit._validation import BenchkitTypeError
from benchkit.widgets._assets import asset, asset_path

__all__ = ["BenchkitWidget", "to_jsonable", "static_html"]

# Generic ipywidgets/anywidget traits that are not an explorer's state.
_BASE_TRAITS = frozenset(anywidget.AnyWidget.class_trait_names()) | {"_esm", "_css", "_anywidget_id"}


def to_jsonable(value: Any) -> Any:
    """``value`` as plain JSON types: numpy/pandas -> Python, non-finite floats -> None.

    Dicts keep their keys (converted to str), tuples/arrays/Series become lists, DataFrames become
    lists of row dicts.
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else None
    if isinstance(value, pd.DataFrame):
        return [to_jsonable(r) for r in value.to_dict(orient="records")]
    if isinstance(value, (pd.Series, pd.Index)):
        return [to_jsonable(v) for v in value.tolist()]
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if value is pd.NA:
        return None
    raise BenchkitTypeError(f"cannot put a {type(value).__name__} into widget state (JSON)")


def _script_json(obj: Any) -> str:
    """JSON for an inline <script>: '</' cannot close the script, U+2028/9 are escaped."""
    text = json.dumps(obj, allow_nan=False, separators=(",", ":"))
    return text.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


# The in-page stand-in for anywidget's model in exported HTML: same methods, no kernel.
_SHIM = r"""
const state = JSON.parse(document.getElementById("benchkit-state").textContent);
const esm = JSON.parse(document.getElementById("benchkit-esm").textContent);
const listeners = new Map();
const model = {
  get: (name) => state[name],
  set: (name, value) => {
    const old = state[name];
    state[name] = value;
    for (const cb of listeners.get("change:" + name) || []) cb({ name, old, new: value });
  },
  on: (event, cb) => {
    if (!listeners.has(event)) listeners.set(event, []);
    listeners.get(event).push(cb);
  },
  off: (event, cb) => {
    if (!event) { listeners.clear(); return; }
    if (!cb) { listeners.delete(event); return; }
    listeners.set(event, (listeners.get(event) || []).filter((f) => f !== cb));
  },
  save_changes: () => {},
  send: () => {},
};
const url = URL.createObjectURL(new Blob([esm], { type: "text/javascript" }));
const mod = await import(url);
let widget = mod.default;
if (typeof widget === "function") widget = await widget();
if (widget.initialize) await widget.initialize({ model });
const el = document.getElementById("benchkit-root");
await widget.render({ model, el });
el.dataset.ready = "true";
"""


def static_html(esm: str, css: str, state: dict, *, title: str = "benchkit explorer",
                root_class: str = "") -> str:
    """A self-contained HTML page running anywidget module ``esm`` on ``state`` (no kernel).

    The module text and the state are embedded as JSON (``<script type="application/json">``),
    the module is imported from a Blob URL, and a minimal model object (get/set/on/off/
    save_changes/send) stands in for anywidget's. Nothing is loaded from the network, so the page
    works offline and from ``file://``. ``#benchkit-root`` gets ``data-ready="true"`` after
    ``render`` has run (tests wait for it).
    """
    css = css.replace("</", "<\\/")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html.escape(title)}</title>\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<style>\nbody {{ font-family: system-ui, sans-serif; margin: 1.5rem; }}\n"
        f"{css}\n</style>\n</head>\n<body>\n"
        f"<div id=\"benchkit-root\" class=\"{html.escape(root_class)}\"></div>\n"
        f"<script type=\"application/json\" id=\"benchkit-state\">{_script_json(state)}</script>\n"
        f"<script type=\"application/json\" id=\"benchkit-esm\">{_script_json(esm)}</script>\n"
        f"<script type=\"module\">{_SHIM}</script>\n</body>\n</html>\n"
    )


#: front-end file prepended to every explorer's module (shared DOM helpers s(), h(), SVG_NS)
DOM_PRELUDE = "_dom.js"


def explorer_module(esm_file: str) -> str:
    """An explorer's ES module: the shared DOM prelude (``widgets/_dom.js``) then its own file."""
    return asset(DOM_PRELUDE) + "\n" + asset(esm_file)


class BenchkitWidget(anywidget.AnyWidget):
    """Base class of benchkit's explorers (see the module docstring for the pattern).

    Subclasses set ``_esm_file`` (and optionally ``_css_file``) to file names in ``widgets/`` and
    declare their state as synced traitlets. ``static_mode`` is False in a live kernel and True
    in pages written by :meth:`to_html`.
    """

    _esm_file: ClassVar[str] = ""
    _css_file: ClassVar[str | None] = None
    #: title of exported pages (subclasses may override)
    _html_title: ClassVar[str] = "benchkit explorer"

    static_mode = traitlets.Bool(False).tag(sync=True)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # anywidget turns a Path in _esm/_css into FileContents (re-read on change with HMR)
        if cls.__dict__.get("_esm_file"):
            cls._esm = explorer_module(cls._esm_file)
        if cls.__dict__.get("_css_file"):
            cls._css = asset_path(cls._css_file)
        super().__init_subclass__(**kwargs)

    # ----------------------------------------------------------------- state
    def state_names(self) -> list[str]:
        """Names of this explorer's synced state traits (not the generic widget traits)."""
        return sorted(n for n in self.trait_names(sync=lambda v: v) if n not in _BASE_TRAITS)

    def state(self) -> dict[str, Any]:
        """The explorer's current state as plain JSON values (what the front end sees)."""
        return {n: to_jsonable(getattr(self, n)) for n in self.state_names()}

    def _static_state(self) -> dict[str, Any]:
        """State for :meth:`to_html`; override to embed what the page needs without a kernel."""
        return {}

    # ----------------------------------------------------------------- export
    def to_html(self, path: str | Path | None = None, *, title: str | None = None) -> str:
        """A self-contained, offline HTML page of this explorer in its current state.

        Parameters
        ----------
        path : str or Path, optional
            Also write the page there (UTF-8).
        title : str, optional
            Page title (default the explorer's name).

        Returns
        -------
        str
            The HTML. The page inlines the explorer's ES module and CSS and embeds the state
            (plus :meth:`_static_state`) as JSON with ``static_mode = True``; it loads nothing from
            the network. Actions that need Python are disabled there.
        """
        state = self.state()
        state.update(to_jsonable(self._static_state()))
        state["static_mode"] = True
        css = asset(self._css_file) if self._css_file else ""
        page = static_html(explorer_module(self._esm_file), css, state, title=title or self._html_title)
        if path is not None:
            Path(path).write_text(page, encoding="utf-8")
        return page
