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
"""
from __future__ import annotations

import base64
import contextlib
import gzip
import html
import json
import math
import struct
import warnings
from collections import OrderedDict
from collections.abc import Callable
from collections.abc import Hashable
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from typing import ClassVar

import anywidget
import numpy as np
import pandas as pd
import traitlets

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_int
from benchkit.widgets._assets import asset
from benchkit.widgets._assets import asset_path

__all__ = [
    "BenchkitWidget",
    "ViewCache",
    "explorer_module",
    "pack_arrays",
    "static_html",
    "to_jsonable",
    "unpack_arrays",
]

# Generic ipywidgets/anywidget traits that are not an explorer's state.
_BASE_TRAITS = frozenset(anywidget.AnyWidget.class_trait_names()) | {"_esm", "_css", "_anywidget_id"}

#: dtypes allowed in :func:`pack_arrays` (numpy kind -> name understood by ``unpackArrays``)
_PACK_DTYPES = {"u1": "u1", "i1": "i1", "u2": "u2", "i2": "i2", "u4": "u4", "i4": "i4", "f4": "f4",
                "f8": "f8"}
_MAGIC = b"BKA1"


def pack_arrays(**arrays: Any) -> bytes:
    """Named numeric arrays in one little-endian binary buffer (the explorers' binary state).

    Layout: ``b"BKA1"``, a uint32 header length ``L``, ``L`` bytes of UTF-8 JSON
    ``{name: [dtype, shape, offset]}`` (offset from the start of the data block), padding to a
    multiple of 8, then each array's bytes (C order), each starting at a multiple of 8. dtypes:
    ``u1 i1 u2 i2 u4 i4 f4 f8`` (bool is stored as ``u1``; int64 must be cast by the caller, which
    knows the range). Read it back with :func:`unpack_arrays` (Python) or ``unpackArrays`` (JS).
    """
    header: dict[str, list] = {}
    chunks: list[bytes] = []
    offset = 0
    for name, value in arrays.items():
        a = np.asarray(value)
        if a.dtype == np.bool_:
            a = a.astype(np.uint8)
        code = a.dtype.newbyteorder("<").str[1:] if a.dtype.byteorder in "<>=|" else a.dtype.str[1:]
        if code not in _PACK_DTYPES:
            raise BenchkitTypeError(
                f"array {name!r} has dtype {a.dtype}; pack_arrays stores {sorted(_PACK_DTYPES)} "
                "(cast int64 to int32 / float64 to float32 where the range allows)")
        buf = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes()
        header[name] = [code, list(a.shape), offset]
        pad = (-len(buf)) % 8
        chunks.append(buf + b"\0" * pad)
        offset += len(buf) + pad
    head = json.dumps(header, separators=(",", ":")).encode()
    pre = _MAGIC + struct.pack("<I", len(head)) + head
    pre += b"\0" * ((-len(pre)) % 8)
    return pre + b"".join(chunks)


def unpack_arrays(buf: bytes | memoryview | None) -> dict[str, np.ndarray]:
    """The arrays of a :func:`pack_arrays` buffer (empty dict for ``b""`` / None)."""
    if buf is None or len(buf) == 0:
        return {}
    buf = bytes(buf)
    if buf[:4] != _MAGIC:
        raise BenchkitValueError("not a pack_arrays buffer (missing the BKA1 header)")
    (n,) = struct.unpack("<I", buf[4:8])
    header = json.loads(buf[8:8 + n].decode())
    base = 8 + n + ((-(8 + n)) % 8)
    out = {}
    for name, (code, shape, off) in header.items():
        dt = np.dtype("<" + code) if code not in ("u1", "i1") else np.dtype(code)
        count = int(np.prod(shape)) if shape else 1
        out[name] = np.frombuffer(buf, dtype=dt, count=count, offset=base + off).reshape(shape)
    return out


class ViewCache:
    """A bounded least-recently-used cache of per-view results (see :meth:`BenchkitWidget.cached`).

    Parameters
    ----------
    maxsize : int
        Most entries kept (the least recently used goes first).
    """

    def __init__(self, maxsize: int = 256) -> None:
        self.maxsize = check_int("maxsize", maxsize, min=1)
        self._d: OrderedDict[Hashable, Any] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __contains__(self, key: Hashable) -> bool:
        return key in self._d

    def __len__(self) -> int:
        return len(self._d)

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The cached value of ``key``, computing (and storing) it with ``compute()`` if absent."""
        if key in self._d:
            self.hits += 1
            self._d.move_to_end(key)
            return self._d[key]
        self.misses += 1
        value = compute()
        self._d[key] = value
        while len(self._d) > self.maxsize:
            self._d.popitem(last=False)
        return value

    def peek(self, key: Hashable, default: Any = None) -> Any:
        """The cached value of ``key`` or ``default`` (never computes)."""
        return self._d.get(key, default)

    def put(self, key: Hashable, value: Any) -> None:
        self._d[key] = value
        self._d.move_to_end(key)
        while len(self._d) > self.maxsize:
            self._d.popitem(last=False)

    def clear(self) -> None:
        self._d.clear()


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


def _json_ready(value: Any) -> Any:
    """``value`` unchanged when it is already plain JSON, else :func:`to_jsonable` of it.

    Plain JSON is checked by the C encoder: fast for big nested lists.
    """
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return to_jsonable(value)
    return value


def _script_json(obj: Any) -> str:
    """JSON for an inline <script>: '</' cannot close the script, U+2028/9 are escaped."""
    text = json.dumps(obj, allow_nan=False, separators=(",", ":"))
    return text.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _gz64(data: bytes) -> str:
    """Gzip (level 6, fixed mtime so exports are reproducible) then base64."""
    return base64.b64encode(gzip.compress(data, compresslevel=6, mtime=0)).decode("ascii")


# The in-page stand-in for anywidget's model in exported HTML: same methods, no kernel. The state
# (JSON) and the binary traits are gzip+base64; DecompressionStream inflates them (offline).
_SHIM = r"""
const inflate = async (b64) => {
  const raw = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const stream = new Blob([raw]).stream().pipeThrough(new DecompressionStream("gzip"));
  return await new Response(stream).arrayBuffer();
};
const text = (id) => document.getElementById(id).textContent;
const state = JSON.parse(new TextDecoder().decode(await inflate(text("benchkit-state"))));
const binNames = JSON.parse(text("benchkit-binary-names"));
for (const [name, id] of binNames) state[name] = new DataView(await inflate(text(id)));
const esm = new TextDecoder().decode(await inflate(text("benchkit-esm")));
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
                root_class: str = "", binary: dict[str, bytes] | None = None) -> str:
    """A self-contained HTML page running anywidget module ``esm`` on ``state`` (no kernel).

    ``state`` (JSON values), the module text and each ``binary`` value (``bytes``; the page's model
    returns it as a ``DataView``, as anywidget does for binary traits) are gzip-compressed and
    base64-embedded in ``<script type="application/octet-stream">`` elements; the page inflates them
    with the browser's ``DecompressionStream``, imports the module from a Blob URL and runs it
    against a minimal model object (get/set/on/off/save_changes/send). Nothing is loaded from the
    network, so the page works offline and from ``file://``. ``#benchkit-root`` gets
    ``data-ready="true"`` after ``render`` has run (tests wait for it).
    """
    binary = binary or {}
    css = css.replace("</", "<\\/")
    names = [[name, f"benchkit-bin-{i}"] for i, name in enumerate(binary)]
    blobs = "".join(
        f"<script type=\"application/octet-stream\" id=\"{bid}\">{_gz64(bytes(binary[name]))}</script>\n"
        for name, bid in names)
    state_bytes = json.dumps(state, allow_nan=False, separators=(",", ":")).encode()
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html.escape(title)}</title>\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<style>\nbody {{ font-family: system-ui, sans-serif; margin: 1.5rem; }}\n"
        f"{css}\n</style>\n</head>\n<body>\n"
        f"<div id=\"benchkit-root\" class=\"{html.escape(root_class)}\"></div>\n"
        f"<script type=\"application/octet-stream\" id=\"benchkit-state\">{_gz64(state_bytes)}</script>\n"
        f"<script type=\"application/json\" id=\"benchkit-binary-names\">{_script_json(names)}</script>\n"
        f"{blobs}"
        f"<script type=\"application/octet-stream\" id=\"benchkit-esm\">{_gz64(esm.encode())}</script>\n"
        f"<script type=\"module\">{_SHIM}</script>\n</body>\n</html>\n"
    )


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
        state = self.state()
        for k, v in self._static_state().items():
            state[k] = bytes(v) if isinstance(v, (bytes, bytearray, memoryview)) else _json_ready(v)
        state["static_mode"] = True
        state["busy"] = False
        binary = {k: v for k, v in state.items() if isinstance(v, bytes)}
        plain = {k: v for k, v in state.items() if k not in binary}
        css = asset(self._css_file) if self._css_file else ""
        page = static_html(explorer_module(self._esm_file), css, plain, title=title or self._html_title,
                           binary=binary)
        if path is not None:
            Path(path).write_text(page, encoding="utf-8")
        return page

