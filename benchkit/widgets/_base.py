"""The explorer base shared by benchkit's widgets: assets, binary state, caching, busy state, export.

Every benchkit explorer is a :class:`BenchkitWidget`, an :class:`anywidget.AnyWidget` subclass
that follows these rules (DESIGN, "Explorers"). The DIF and Benchmark² explorers build on the same
pieces, so nothing below is re-implemented per explorer.

1. **State lives in Python traitlets.** Everything the front end draws is a synced trait
   (``.tag(sync=True)``). Small values (names, picks, a handful of numbers) are plain JSON;
   **arrays travel as binary buffers**: a ``traitlets.Bytes`` trait holding :func:`pack_arrays`
   output (several named, typed, little-endian arrays in one buffer). ipywidgets sends ``bytes`` /
   ``memoryview`` values as binary buffers of the comm message (no JSON list of floats); the front
   end reads them with ``unpackArrays(model.get(name))`` (``widgets/_dom.js``), which returns
   typed arrays (``Float32Array``, ``Int32Array``, ...). The front end sends user actions back by
   setting traits (``model.set(...); model.save_changes()``); Python observers recompute.
2. **Per-view caching.** :meth:`BenchkitWidget.cached` memoizes a view's computation under a key
   (e.g. ``("stats", model, group, variant)``) in a bounded LRU cache (:class:`ViewCache`), so going
   back to a view never recomputes it and a change recomputes only what it affects.
3. **Honest busy state.** Wrap each recomputation in ``with self.working("label"):``. It sets the
   synced ``busy`` / ``busy_label`` traits while Python works and bumps ``revision`` when the new
   state is in place. The front end calls ``busyGuard(model, root)`` once; it marks the drawn chart
   stale (class ``bk-stale`` on the root, label shown) and disables the controls marked
   ``data-queue`` from the moment the user acts until the next ``revision`` arrives, so clicks do
   not queue and no control shows a choice that the drawn view does not reflect without the view
   saying it is being replaced.
4. **One ES module per explorer** (plus optional CSS) in the repository's top-level ``widgets/``
   folder, plain ESM with inline SVG/DOM, **no CDN imports** and no bundler. A subclass names its
   files with ``_esm_file`` / ``_css_file``, read through :mod:`benchkit.widgets._assets`. The module
   is :func:`explorer_module`: the shared helpers of ``widgets/_dom.js`` (``s()``, ``h()``,
   ``SVG_NS``, ``unpackArrays``, ``busyGuard``, the label-layout helpers ``fitText``, ``thinLabels``,
   ``dodge`` and the colour ramp ``viridis`` / ``quantileBreaks``) followed by the explorer's file,
   which must not redefine them. The module follows the anywidget contract
   (``export default { render({ model, el }) }``) using only ``model.get/set/on/off/save_changes/send``.
5. **Compact static export** with :meth:`BenchkitWidget.to_html`: one self-contained HTML page that
   opens offline from ``file://``. The JSON state and every binary trait (and the extra data that
   :meth:`BenchkitWidget._static_state` returns; put big arrays there as :func:`pack_arrays` bytes)
   are **gzip-compressed and base64-embedded**; the page inflates them with the browser's
   ``DecompressionStream`` (no library, nothing from a CDN) and runs the same module against a small
   in-page model, with ``static_mode = True``. A module must then do locally what Python would do
   (pick among precomputed views) or disable the action and say so.
6. **Label layout.** Axis labels never overlap: ``thinLabels`` keeps every k-th label when they do
   not fit, ``fitText`` truncates a label to a pixel width (put the full text in a ``<title>``
   tooltip), ``dodge`` spreads annotations along one axis so they do not collide (leader lines are
   the caller's choice).
7. **Python accessors** for what the user did (selected items as DataFrames) and
   :attr:`BenchkitWidget.result`, the result the explorer was built from.
8. **One display, readable anywhere.** Displaying an explorer (the cell's result, or
   ``display(explorer)``) emits one output whose MIME bundle holds the live widget view
   (``application/vnd.jupyter.widget-view+json``), a PNG of the current view at 2x with alt text
   (output metadata ``image/png: {width, height, alt}``) and a caption as ``text/plain``
   (:mod:`benchkit.charts._display`). JupyterLab ranks the widget first, so a live kernel shows the
   interactive explorer once, never the image; a notebook stored by ``scripts/execute_notebooks.py``
   keeps the PNG and the caption (the widget view, which ipywidgets cannot draw without its
   kernel, is dropped), which JupyterLab -- trusted or not --, nbconvert and code hosts show. A
   subclass only says which chart stands for its WHOLE current view: :meth:`static_chart`
   returns a ``benchkit.charts`` Altair chart (aggregated for big data: no chart with hundreds of
   thousands of marks); the base draws it with vl-convert, caps its size
   (:attr:`BenchkitWidget.static_max_bytes`) and never lets a failure break the live display (a
   warning says why the image is missing). :meth:`static_image` gives the image of the view *now*
   (``display(explorer.static_image())`` after interacting keeps that view in the notebook too);
   ``BenchkitWidget.static_images = False`` turns the image off.

How to write an explorer::

    class MyExplorer(BenchkitWidget):
        _esm_file = "my_explorer.js"
        _css_file = "my_explorer.css"
        choice = traitlets.Unicode("").tag(sync=True)           # a control
        points = traitlets.Bytes(b"").tag(sync=True)            # pack_arrays(x=..., y=...)
        stats = traitlets.Dict().tag(sync=True)

        def __init__(self, result, **kw):
            self._result = result
            super().__init__(**kw)
            self._load()

        @traitlets.observe("choice")
        def _on_choice(self, change):
            self._load()

        def _load(self):
            with self.working(f"computing {self.choice}"):
                view = self.cached(("view", self.choice), lambda: compute_view(self._result, self.choice))
                self.points = pack_arrays(x=view.x, y=view.y)
                self.stats = to_jsonable(view.stats)

and ``widgets/my_explorer.js``::

    function render({ model, el }) {
      const root = h("div", { class: "bk-my" }); el.appendChild(root);
      const guard = busyGuard(model, root);
      const draw = () => {
        const P = unpackArrays(model.get("points"));          // {x: Float32Array, y: ...}
        root.replaceChildren(
          h("select", { "data-queue": "", onchange: (e) => {
            guard.pending(); model.set("choice", e.target.value); model.save_changes(); } }, ...),
          /* SVG built from P.x, P.y */);
      };
      model.on("change:revision", draw);
      draw();
    }
    export default { render };

:func:`to_jsonable` converts numpy scalars/arrays and pandas objects to plain JSON values
(non-finite floats become ``None``) for filling JSON traits.

Layout: this module holds :class:`BenchkitWidget` and :func:`explorer_module`; the wire format
(:func:`pack_arrays`, :func:`unpack_arrays`, :func:`to_jsonable`) is in :mod:`._wire`, the
per-view cache (:class:`ViewCache`) in :mod:`._view_cache` and the static HTML export
(:func:`static_html`, and for pages holding several explorers :data:`MOUNT_JS`,
:func:`explorer_blocks`, :func:`data_block`) in :mod:`._export`. All are re-exported here, the
one import path of an explorer.
"""
from __future__ import annotations

import base64
import contextlib
import warnings
from collections.abc import Callable
from collections.abc import Hashable
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from typing import ClassVar

import anywidget
import traitlets

from benchkit._validation import BenchkitValueError
from benchkit.widgets._assets import asset
from benchkit.widgets._assets import asset_path
from benchkit.widgets._export import MOUNT_JS
from benchkit.widgets._export import data_block
from benchkit.widgets._export import explorer_blocks
from benchkit.widgets._export import static_html
from benchkit.widgets._view_cache import ViewCache
from benchkit.widgets._wire import _json_ready
from benchkit.widgets._wire import pack_arrays
from benchkit.widgets._wire import to_jsonable
from benchkit.widgets._wire import unpack_arrays

__all__ = [
    "MOUNT_JS",
    "BenchkitWidget",
    "ViewCache",
    "data_block",
    "explorer_blocks",
    "explorer_module",
    "pack_arrays",
    "static_html",
    "to_jsonable",
    "unpack_arrays",
]

# Generic ipywidgets/anywidget traits that are not an explorer's state.
_BASE_TRAITS = frozenset(anywidget.AnyWidget.class_trait_names()) | {"_esm", "_css", "_anywidget_id"}


#: front-end file prepended to every explorer's module (shared helpers, see the module docstring)
DOM_PRELUDE = "_dom.js"


def explorer_module(esm_file: str) -> str:
    """An explorer's ES module: the shared prelude (``widgets/_dom.js``) then its own file."""
    return asset(DOM_PRELUDE) + "\n" + asset(esm_file)


class _Bundle:
    """A ready MIME bundle that IPython displays as is (``display(obj)``)."""

    def __init__(self, data: dict, metadata: dict) -> None:
        self.data, self.metadata = data, metadata

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict, dict]:
        return self.data, self.metadata


class BenchkitWidget(anywidget.AnyWidget):
    """Base class of benchkit's explorers (see the module docstring for the pattern).

    Subclasses set ``_esm_file`` (and optionally ``_css_file``) to file names in ``widgets/`` and
    declare their state as synced traitlets (``traitlets.Bytes`` holding :func:`pack_arrays` output
    for arrays). ``static_mode`` is False in a live kernel and True in pages written by
    :meth:`to_html`; ``busy`` / ``busy_label`` / ``revision`` are the busy-state protocol
    (:meth:`working`).
    """

    _esm_file: ClassVar[str] = ""
    _css_file: ClassVar[str | None] = None
    #: title of exported pages (subclasses may override)
    _html_title: ClassVar[str] = "benchkit explorer"
    #: entries of the per-view cache
    _cache_size: ClassVar[int] = 256

    static_mode = traitlets.Bool(False).tag(sync=True)
    busy = traitlets.Bool(False).tag(sync=True)
    busy_label = traitlets.Unicode("").tag(sync=True)
    revision = traitlets.Int(0).tag(sync=True)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # anywidget turns a Path in _esm/_css into FileContents (re-read on change with HMR)
        if cls.__dict__.get("_esm_file"):
            cls._esm = explorer_module(cls._esm_file)
        if cls.__dict__.get("_css_file"):
            cls._css = asset_path(cls._css_file)
        super().__init_subclass__(**kwargs)

    # ----------------------------------------------------------------- caching / busy state
    @property
    def view_cache(self) -> ViewCache:
        """The per-view :class:`ViewCache` (created on first use)."""
        cache = self.__dict__.get("_view_cache")
        if cache is None:
            cache = ViewCache(self._cache_size)
            self.__dict__["_view_cache"] = cache
        return cache

    def cached(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """``compute()`` memoized under ``key`` in :attr:`view_cache`."""
        return self.view_cache.get(key, compute)

    @contextlib.contextmanager
    def working(self, label: str = "computing") -> Iterator[None]:
        """Mark the explorer busy while the block runs, then publish the new state.

        Sets ``busy = True`` and ``busy_label`` (sent to the front end at once, before the work),
        and on exit -- also after an error -- ``busy = False`` and ``revision += 1``, so the front
        end knows the drawn state now matches the controls. Nested blocks publish once.
        """
        depth = self.__dict__.get("_busy_depth", 0)
        self.__dict__["_busy_depth"] = depth + 1
        if depth == 0:
            self.busy_label = str(label)
            self.busy = True
        try:
            yield
        finally:
            self.__dict__["_busy_depth"] = depth
            if depth == 0:
                self.busy = False
                self.busy_label = ""
                self.revision = self.revision + 1

    # ----------------------------------------------------------------- static rendering
    #: put a static image of the current view in the display bundle (issue 24)
    static_images: ClassVar[bool] = True
    #: largest static image kept in a notebook output (bytes of PNG); larger ones are dropped
    static_max_bytes: ClassVar[int] = 1_500_000

    def static_chart(self) -> Any:
        """The Altair chart that stands for the explorer's whole current view in a saved notebook.

        Subclasses return a ``benchkit.charts`` chart of what the explorer shows now (aggregated
        for big inputs); the base returns None (no image).
        """
        return None

    def static_svg(self) -> str | None:
        """The current view as SVG text (:meth:`static_chart` drawn by vl-convert), or None.

        Raises what the chart or vl-convert raise (ImportError without the ``jupyter`` extra).
        """
        chart = self.static_chart()
        if chart is None:
            return None
        from benchkit.charts import to_svg

        return to_svg(chart)

    def _static_image_bundle(self) -> tuple[dict, dict] | None:
        """``(data, metadata)`` of the PNG of the current view with alt text and caption, or None."""
        chart = self.static_chart()
        if chart is None:
            return None
        from benchkit.charts import _display
        from benchkit.charts import to_png

        png = to_png(chart)
        name = type(self).__name__
        alt = f"benchkit {name}, the view at display time. " + _display.describe(chart.to_dict())
        caption = f"{alt} (interactive with a running kernel)"
        return _display.image_bundle(png, alt, caption)

    def static_image(self) -> Any:
        """The PNG of the current view (display it to keep this view in a notebook).

        An object whose display is the PNG with its alt text and caption (no live view).
        """
        bundle = self._static_image_bundle()
        if bundle is None:
            raise BenchkitValueError(f"{type(self).__name__} has no static view (static_chart() is None)")
        return _Bundle(*bundle)

    def _static_bundle(self) -> tuple[dict, dict] | None:
        """:meth:`_static_image_bundle` for the display: None, with a warning, when it cannot be made."""
        try:
            bundle = self._static_image_bundle()
        except Exception as exc:  # a display must never fail because of its static copy
            warnings.warn(f"{type(self).__name__}: no static image stored with the live view "
                          f"({type(exc).__name__}: {exc}); the saved notebook will not show this "
                          "explorer without a kernel", RuntimeWarning, stacklevel=3)
            return None
        if bundle is not None:
            size = len(base64.b64decode(bundle[0]["image/png"]))
            if size > self.static_max_bytes:
                warnings.warn(f"{type(self).__name__}: the static image ({size / 1e6:.1f} MB) "
                              f"exceeds static_max_bytes={self.static_max_bytes}; not stored",
                              RuntimeWarning, stacklevel=3)
                return None
        return bundle

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict, dict] | None:
        """``(data, metadata)``: the live view, a PNG of the current view, a caption.

        See the module docstring, rule 8.
        """
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None:
            return None
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        data, metadata = dict(data), dict(metadata or {})
        data["text/plain"] = f"benchkit {type(self).__name__} (interactive; needs a running kernel)"
        if self.static_images:
            image = self._static_bundle()
            if image is not None:
                data.update(image[0])
                metadata.update(image[1])
        return data, metadata

    # ----------------------------------------------------------------- state
    @property
    def result(self):
        """The benchkit result this explorer was built from (its class docstring names the type).

        A subclass stores it as ``self._result`` in ``__init__``.
        """
        return self._result

    def state_names(self) -> list[str]:
        """Names of this explorer's synced state traits (not the generic widget traits)."""
        return sorted(n for n in self.trait_names(sync=lambda v: v) if n not in _BASE_TRAITS)

    def state(self) -> dict[str, Any]:
        """The explorer's current state: JSON values, ``bytes`` for binary traits."""
        out = {}
        for n in self.state_names():
            v = getattr(self, n)
            out[n] = bytes(v) if isinstance(v, (bytes, bytearray, memoryview)) else to_jsonable(v)
        return out

    def _static_state(self) -> dict[str, Any]:
        """Extra state for :meth:`to_html` (JSON values or ``bytes``).

        Override to embed what the page needs without a kernel (big arrays as :func:`pack_arrays`
        bytes).
        """
        return {}

    # ----------------------------------------------------------------- export
    def export_parts(self) -> tuple[str, str, dict[str, Any], dict[str, bytes]]:
        """What a static page needs: ``(module, css, JSON state, binary state)``, ``static_mode`` on.

        :meth:`to_html` writes them as one page; :mod:`benchkit.report` embeds several explorers
        in one report with the same :data:`MOUNT_JS`.

        Returns
        -------
        tuple of (str, str, dict, dict)
            The ES module's text, the CSS, the JSON-ready state (with :meth:`_static_state`,
            ``static_mode = True``, ``busy = False``) and the binary traits as ``bytes``.
        """
        state = self.state()
        for k, v in self._static_state().items():
            state[k] = bytes(v) if isinstance(v, (bytes, bytearray, memoryview)) else _json_ready(v)
        state["static_mode"] = True
        state["busy"] = False
        binary = {k: v for k, v in state.items() if isinstance(v, bytes)}
        plain = {k: v for k, v in state.items() if k not in binary}
        css = asset(self._css_file) if self._css_file else ""
        return explorer_module(self._esm_file), css, plain, binary

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
            The HTML. The page carries the explorer's ES module and CSS, the state and
            :meth:`_static_state` (gzip-compressed, base64; binary values stay binary) with
            ``static_mode = True``; it loads nothing from the network. Actions that need Python
            are disabled there.
        """
        esm, css, plain, binary = self.export_parts()
        page = static_html(esm, css, plain, title=title or self._html_title, binary=binary)
        if path is not None:
            Path(path).write_text(page, encoding="utf-8")
        return page

