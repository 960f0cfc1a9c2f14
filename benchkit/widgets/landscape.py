"""Probability-landscape explorer: P_top1 x H_norm per model, group and variant (paper 003).

:class:`LandscapeExplorer` shows one view at a time -- a model (or all models pooled), a group
(benchmark, or e.g. subject; or all pooled) and a variant (prompt / perturbation):

- the points ``(P_top1, H_norm)`` as a scatter (Fig. 2 of the paper), or, when the view has more
  than ``density_threshold`` points, a 2-D histogram (counts computed in Python with
  :meth:`benchkit.landscape.explore.LandscapeView.density_counts`) coloured by **quantile class** of
  the bin counts on the perceptually uniform viridis ramp, with a legend giving each shade's count
  range, so structure stays visible at 160k-800k points;
- the view's MPD and mean H_norm, P_top1 and accuracy. Every view of a variant with at most
  :data:`~benchkit.landscape.explore.PAIR_CACHE_LIMIT` points gets its exact MPD on every view
  change: the variant's (model, group) cell-pair distance sums are computed once, on its first
  view, and a view adds those of its cells
  (:meth:`~benchkit.landscape.explore.LandscapeView.view_stats`). In larger variants, views up to
  :data:`~benchkit.landscape.explore.EXACT_LIMIT` points get the exact MPD at once; larger views
  show the **sampled-pairs estimate with its standard error** at once
  (:func:`benchkit.landscape.steps.mpd` with ``method="sampled"``) and the exact value on request (the
  "exact MPD" button, :meth:`LandscapeExplorer.compute_exact`), marked busy while it runs. Every
  view's numbers are cached, so going back to a view recomputes nothing;
- a before/after view: pick a second variant and the movement of every (model, item) point is
  summarized as a **flow field** (the mean displacement of the points starting in each cell of a
  grid, :meth:`~benchkit.landscape.explore.LandscapeView.flow`); individual arrows only when there
  are at most ``max_arrows`` moves;
- a rectangle brush: drag over the plot and the items inside are listed with their text, options,
  option probabilities, key, prediction and expert label, **stratified across models** by default
  (round-robin, :meth:`~benchkit.landscape.explore.LandscapeView.order_rows`), sortable by any column
  (click a header), paged, with option columns that are empty for every listed row hidden.

Arrays travel as binary buffers (:func:`benchkit.widgets._base.pack_arrays`). ``to_html()`` writes
a compact static page (gzip-compressed binary columns, inflated in the page): every point with
P_top1 / H_norm / option probabilities quantized to 16 bits (resolution 1.5e-5), and every view's
statistics computed in Python -- exact MPD for views of cached variants, for views up to
``EXPORT_EXACT_LIMIT`` points and for views whose exact value was computed live, the sampled
estimate with its standard error above (the page says which, per view). Pickers, the flow field and
the brush work there without a kernel.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np
import pandas as pd
import traitlets

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.landscape.explore import ALL
from benchkit.landscape.explore import EXACT_LIMIT
from benchkit.landscape.explore import LandscapeView
from benchkit.landscape.explore import landscape_view
from benchkit.widgets._base import BenchkitWidget
from benchkit.widgets._base import pack_arrays
from benchkit.widgets._base import to_jsonable
from benchkit.widgets._base import unpack_arrays

__all__ = ["LIST_COLUMNS", "LandscapeExplorer"]

_SEP = "\u0001"  # view-key separator in the static bundle
#: Columns the brushed list can be sorted by (besides "stratified", the default).
LIST_COLUMNS = ("model", "item", "p_top1", "h_norm", "pred", "answer", "correct", "label")
_Q = 65535.0  # 16-bit quantization of values in [0, 1] in exported pages
#: Exported pages carry the exact MPD of views up to this many points (cheap); larger views the
#: sampled estimate with its standard error (or the exact value if it was computed live).
EXPORT_EXACT_LIMIT = 5_000


def _stats_dict(st) -> dict:
    return to_jsonable({"n_points": st.n_points, "mpd": st.mpd, "mpd_se": st.mpd_se,
                        "mpd_method": st.mpd_method, "mean_h_norm": st.mean_h_norm,
                        "mean_p_top1": st.mean_p_top1, "accuracy": st.accuracy})


def _small_int(a: np.ndarray) -> np.ndarray:
    """``a`` (non-negative codes) in the narrowest unsigned dtype."""
    a = np.asarray(a)
    hi = int(a.max()) if a.size else 0
    return a.astype(np.uint8 if hi < 256 else np.uint16 if hi < 65536 else np.uint32)


class LandscapeExplorer(BenchkitWidget):
    """Interactive P_top1 x H_norm landscape with MPD, before/after flow and a brush.

    Parameters
    ----------
    result : LandscapeView, ResponseSet or LandscapePoints
        Anything else than :class:`~benchkit.landscape.explore.LandscapeView` is passed to
        :func:`~benchkit.landscape.explore.landscape_view` with ``items``, ``by``, ``label_column``.
    items, by, label_column :
        Passed to :func:`~benchkit.landscape.explore.landscape_view` (ignored for LandscapeView).
    model, variant, compare : str, optional
        Initial view: model (default ``"(all)"`` when several models, else the only one), variant
        (default the first), comparison variant (default none).
    density_threshold : int
        Views with more points than this are drawn as a 2-D histogram (default 4000).
    bins : int
        Histogram bins per axis (default 40).
    max_arrows : int
        Individual before/after arrows are drawn when a comparison has at most this many moves
        (default 300); above, the flow field alone.
    flow_bins : int
        Grid cells per axis of the flow field (default 10).
    page_size : int
        Brushed rows listed per page (default 25; ``n_selected`` counts all).
    text_chars : int
        Item text is cut to this many characters in the widget state (default 400).
    exact_limit : int
        Views up to this many points get the exact MPD at once (default
        :data:`~benchkit.landscape.explore.EXACT_LIMIT`); larger ones the sampled estimate.
    **kwargs
        Further widget options, passed on to :class:`anywidget.AnyWidget` (e.g. ``layout=``).

    Notes
    -----
    Synced state (traitlets):
    ``models``, ``groups`` (picker values, ``"(all)"`` first), ``variants``, ``option_labels``,
    ``group_name``, ``label_name``, ``title``; the view ``model``, ``group``, ``variant``,
    ``compare`` (``""`` = none) and ``shown`` (the view the drawn state belongs to); ``mode``
    (``"points"`` / ``"density"``); binary (``pack_arrays``): ``points`` (``x, y`` float32, ``row``
    int32, ``c`` int8 correct 1/0/-1 unknown; scatter mode), ``density`` (``counts`` uint32, bins x
    bins, x bin major), ``compare_points``, ``arrows`` (``x0, y0, x1, y1`` float32, ``row`` int32),
    ``flow`` (``x, y, dx, dy, mean_distance`` float32, ``n`` int32); ``stats`` and ``compare_stats``
    (``{n_points, mpd, mpd_se, mpd_method, mean_h_norm, mean_p_top1, accuracy}``), ``moves_info``
    (``{n_pairs, n_arrows, flow_bins}``); the brush ``brush`` (``[x0, x1, y0, y1]``, ``[]`` none),
    ``list_by`` (``"stratified"`` or a :data:`LIST_COLUMNS` name), ``list_descending``, ``page``,
    ``page_size``, ``selected`` (the page's rows), ``n_selected``; ``busy``, ``busy_label``,
    ``revision``, ``static_mode``.

    Python accessors: :attr:`result` (the LandscapeView), :attr:`view_rows`, :attr:`view_stats`,
    :attr:`selected_items` (all brushed rows, in list order, as a DataFrame), :attr:`moves`,
    :attr:`flow_field`, :meth:`select_box`, :meth:`clear_brush`, :meth:`compute_exact`.

    Examples
    --------
    Constructing the explorer computes its state in Python; showing it (the last expression of a
    notebook cell) needs a JupyterLab front end, so the examples read its traits instead.

    >>> import benchkit
    >>> from benchkit.widgets import LandscapeExplorer
    >>> explorer = LandscapeExplorer(benchkit.simulate.load_sample("mcq"))  # 300 items x 8 models
    >>> explorer.models[:2], explorer.mode, round(explorer.stats["mpd"], 3)
    (['(all)', 'sim-mcq-1'], 'points', 0.43)
    """

    _esm_file = "landscape.js"
    _css_file = "landscape.css"
    _html_title = "benchkit probability-landscape explorer"
    #: test hook: seconds the exact-MPD path sleeps before computing (browser tests of the busy state)
    _exact_delay: float = 0.0

    title = traitlets.Unicode("").tag(sync=True)
    models = traitlets.List(traitlets.Unicode()).tag(sync=True)
    groups = traitlets.List(traitlets.Unicode()).tag(sync=True)
    variants = traitlets.List(traitlets.Unicode()).tag(sync=True)
    option_labels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    group_name = traitlets.Unicode("benchmark").tag(sync=True)
    label_name = traitlets.Unicode("").tag(sync=True)
    max_arrows = traitlets.Int(300).tag(sync=True)
    exact_limit = traitlets.Int(EXACT_LIMIT).tag(sync=True)

    model = traitlets.Unicode(ALL).tag(sync=True)
    group = traitlets.Unicode(ALL).tag(sync=True)
    variant = traitlets.Unicode("").tag(sync=True)
    compare = traitlets.Unicode("").tag(sync=True)
    shown = traitlets.Dict().tag(sync=True)

    mode = traitlets.Unicode("points").tag(sync=True)
    points = traitlets.Bytes(b"").tag(sync=True)
    density = traitlets.Bytes(b"").tag(sync=True)
    compare_points = traitlets.Bytes(b"").tag(sync=True)
    arrows = traitlets.Bytes(b"").tag(sync=True)
    flow = traitlets.Bytes(b"").tag(sync=True)
    stats = traitlets.Dict().tag(sync=True)
    compare_stats = traitlets.Dict().tag(sync=True)
    moves_info = traitlets.Dict().tag(sync=True)

    brush = traitlets.List(traitlets.Float()).tag(sync=True)
    list_by = traitlets.Unicode("stratified").tag(sync=True)
    list_descending = traitlets.Bool(False).tag(sync=True)
    page = traitlets.Int(0).tag(sync=True)
    page_size = traitlets.Int(25).tag(sync=True)
    selected = traitlets.List(traitlets.Dict()).tag(sync=True)
    n_selected = traitlets.Int(0).tag(sync=True)

    def __init__(self, result: Any, *, items: pd.DataFrame | None = None, by: str = "benchmark",
                 label_column: str | None = "auto", model: str | None = None,
                 variant: str | None = None,
                 compare: str | None = None, density_threshold: int = 4000, bins: int = 40,
                 max_arrows: int = 300, flow_bins: int = 10, page_size: int = 25,
                 text_chars: int = 400, exact_limit: int = EXACT_LIMIT, **kwargs: Any) -> None:
        if not isinstance(result, LandscapeView):
            result = landscape_view(result, items=items, by=by, label_column=label_column)
        self._result = result
        self._threshold = check_int("density_threshold", density_threshold, min=1)
        self._bins = check_int("bins", bins, min=2, max=400)
        self._flow_bins = check_int("flow_bins", flow_bins, min=1, max=100)
        self._text_chars = check_int("text_chars", text_chars, min=1)
        max_arrows = check_int("max_arrows", max_arrows, min=0)
        page_size = check_int("page_size", page_size, min=1, max=1000)
        exact_limit = check_int("exact_limit", exact_limit, min=0)
        self._ready = False
        self._rows = np.empty(0, dtype=np.int64)
        self._compare_rows = np.empty(0, dtype=np.int64)
        self._selected_rows = np.empty(0, dtype=np.int64)
        self._moves = None
        self._flow = None
        models = result.models
        super().__init__(
            title=result.name or "landscape", models=[ALL, *models] if len(models) > 1 else list(models),
            groups=[ALL, *result.groups] if len(result.groups) > 1 else list(result.groups),
            variants=result.variants, option_labels=list(result.option_labels),
            group_name=result.group_column, label_name=result.label_column or "",
            max_arrows=max_arrows, page_size=page_size, exact_limit=exact_limit, **kwargs)
        with self.hold_trait_notifications():
            self.model = model if model is not None else self.models[0]
            self.group = self.groups[0]
            self.variant = variant if variant is not None else self.variants[0]
            self.compare = compare or ""
        self._ready = True
        self.on_msg(self._on_msg)
        # load the exact-MPD kernel (numba) now, so the first view change does not pay for it
        result.stats(np.arange(min(3, len(result)), dtype=np.int64))
        self._load()

    # ----------------------------------------------------------------- properties
    @property
    def view_rows(self) -> np.ndarray:
        """Row ids (into ``data.frame``) of the current view's points."""
        return self._rows.copy()

    @property
    def view_stats(self):
        """:class:`~benchkit.landscape.explore.ViewStats` of the current view.

        As shown: exact or sampled, see its ``mpd_method``.
        """
        return self._view_stats(self.variant)

    @property
    def moves(self):
        """:class:`~benchkit.landscape.explore.Moves` to the comparison variant (None without one)."""
        return self._moves

    @property
    def flow_field(self) -> pd.DataFrame | None:
        """The before/after flow field (:meth:`LandscapeView.flow`; None without a comparison)."""
        return None if self._flow is None else self._flow.copy()

    @property
    def selected_items(self) -> pd.DataFrame:
        """All brushed rows (every page, in list order) with values, text, options, label."""
        return self._result.details(self._selected_rows)

    # ----------------------------------------------------------------- validation
    def _one_of(self, what: str, value: str, allowed: list[str]) -> str:
        if value not in allowed:
            raise BenchkitValueError(f"{what}={describe(value)} is not in the data; choose one of {allowed}")
        return value

    @traitlets.validate("model")
    def _v_model(self, proposal):
        return self._one_of("model", proposal["value"], self.models)

    @traitlets.validate("group")
    def _v_group(self, proposal):
        return self._one_of("group", proposal["value"], self.groups)

    @traitlets.validate("variant")
    def _v_variant(self, proposal):
        return self._one_of("variant", proposal["value"], self.variants)

    @traitlets.validate("compare")
    def _v_compare(self, proposal):
        v = proposal["value"]
        return v if v == "" else self._one_of("compare", v, self.variants)

    @traitlets.validate("list_by")
    def _v_list_by(self, proposal):
        return check_choice("list_by", proposal["value"], ("stratified", *LIST_COLUMNS))

    @traitlets.validate("page")
    def _v_page(self, proposal):
        return max(0, int(proposal["value"]))

    @traitlets.validate("brush")
    def _v_brush(self, proposal):
        box = [float(v) for v in proposal["value"]]
        if box and (len(box) != 4 or not all(np.isfinite(box)) or box[0] > box[1] or box[2] > box[3]):
            raise BenchkitValueError(
                f"brush={box} must be [] or [x0, x1, y0, y1] with x0 <= x1 and y0 <= y1 (finite)")
        return box

    # ----------------------------------------------------------------- observers
    @traitlets.observe("model", "group", "variant", "compare")
    def _on_view(self, change):
        if self._ready:
            self._load()

    @traitlets.observe("brush", "list_by", "list_descending")
    def _on_brush(self, change):
        if self._ready:
            with self.working("listing the brushed items"):
                self.page = 0
                self._select()

    @traitlets.observe("page")
    def _on_page(self, change):
        if self._ready:
            with self.working("listing the brushed items"):
                self._fill_page()

    def _on_msg(self, widget, content, buffers) -> None:
        if isinstance(content, dict) and content.get("action") == "exact":
            self.compute_exact()

    # ----------------------------------------------------------------- computation (cached)
    def _key(self, variant: str) -> tuple:
        return (self.model, self.group, variant)

    def _rows_of(self, variant: str) -> np.ndarray:
        return self.cached(("rows", *self._key(variant)),
                           lambda: self._result.view_rows(model=self.model, group_value=self.group,
                                                          variant=variant))

    def _view_stats(self, variant: str):
        """The best stats known for a view: cached exact if computed, else auto (exact or sampled)."""
        key = self._key(variant)
        exact = self.view_cache.peek(("exact", *key))
        if exact is not None:
            return exact
        rows = self._rows_of(variant)
        d = self._result
        method = "exact" if len(rows) <= self.exact_limit or d.pair_cacheable(variant) else "sampled"
        return self.cached(("stats", method, *key), lambda: d.view_stats(
            model=self.model, group_value=self.group, variant=variant, method=method))

    def _pts(self, rows: np.ndarray) -> bytes:
        c = self._result.codes
        return pack_arrays(x=c["x"][rows].astype(np.float32), y=c["y"][rows].astype(np.float32),
                           row=rows.astype(np.int32), c=c["c"][rows])

    def _load(self) -> None:
        d = self._result
        with self.working(f"loading {self.model} · {self.group} · {self.variant}"):
            rows = self._rows_of(self.variant)
            self._rows = rows
            dense = len(rows) > self._threshold
            key = self._key(self.variant)
            self.mode = "density" if dense else "points"
            self.points = b"" if dense else self._pts(rows)
            self.density = (self.cached(("density", *key), lambda: pack_arrays(
                counts=d.density_counts(rows, bins=self._bins).astype(np.uint32))) if dense else b"")
            self.stats = _stats_dict(self._view_stats(self.variant))
            if self.compare:
                crow = self._rows_of(self.compare)
                self._compare_rows = crow
                mkey = ("moves", *key, self.compare)
                self._moves, self._flow = self.cached(mkey, lambda: self._moves_flow(rows, crow))
                mv = self._moves.frame
                self.compare_stats = _stats_dict(self._view_stats(self.compare))
                self.compare_points = b"" if len(crow) > self._threshold else self._pts(crow)
                few = len(mv) <= self.max_arrows
                self.arrows = (pack_arrays(**{k: mv[k].to_numpy(np.float32)
                                              for k in ("x0", "y0", "x1", "y1")},
                                           row=mv["row_before"].to_numpy(np.int32)) if few else b"")
                fl = self._flow
                self.flow = pack_arrays(**{k: fl[k].to_numpy(np.float32) for k in ("x", "y", "dx", "dy",
                                                                                   "mean_distance")},
                                        n=fl["n"].to_numpy(np.int32))
                self.moves_info = {"n_pairs": len(mv), "n_arrows": len(mv) if few else 0,
                                   "flow_bins": self._flow_bins}
            else:
                self._compare_rows = np.empty(0, dtype=np.int64)
                self._moves = self._flow = None
                self.compare_stats = {}
                self.compare_points = b""
                self.arrows = b""
                self.flow = b""
                self.moves_info = {}
            self.page = 0
            self._select()
            self.shown = {"model": self.model, "group": self.group, "variant": self.variant,
                          "compare": self.compare}

    def _moves_flow(self, rows, crow):
        mv = self._result.moves(rows, crow)
        return mv, self._result.flow(mv, bins=self._flow_bins)

    def compute_exact(self) -> None:
        """Compute the exact MPD of the current view (and of the comparison view).

        Caches it and shows it (the front end's "exact MPD" button). Marks the explorer busy meanwhile.
        """
        with self.working("computing the exact MPD"):
            if self._exact_delay:
                time.sleep(self._exact_delay)
            for variant in [self.variant] + ([self.compare] if self.compare else []):
                key = self._key(variant)
                rows = self._rows_of(variant)
                self.cached(("exact", *key), lambda rows=rows: self._result.stats(rows, method="exact"))
            self.stats = _stats_dict(self._view_stats(self.variant))
            if self.compare:
                self.compare_stats = _stats_dict(self._view_stats(self.compare))

    def _cut(self, text):
        if text is None:
            return None
        text = str(text)
        return text if len(text) <= self._text_chars else text[: self._text_chars - 1] + "…"

    def _select(self) -> None:
        d = self._result
        if not self.brush:
            self._selected_rows = np.empty(0, dtype=np.int64)
            self.selected = []
            self.n_selected = 0
            return
        sel = d.brush(self._rows, self.brush)
        self._selected_rows = d.order_rows(sel, sort_by=self.list_by, descending=self.list_descending)
        self.n_selected = len(sel)
        self._fill_page()

    def _fill_page(self) -> None:
        d = self._result
        n = len(self._selected_rows)
        last = max(0, (n - 1) // self.page_size)
        if self.page > last:
            self.page = last
            return
        part = self._selected_rows[self.page * self.page_size:(self.page + 1) * self.page_size]
        det = d.details(part)
        after = {}
        if self._moves is not None and len(det):
            mv = self._moves.frame.set_index("row_before")
            c = d.codes
            preds = d.frame["pred"].to_numpy()
            for r in det["row"]:
                if r in mv.index:
                    ra = int(mv.at[r, "row_after"])
                    after[int(r)] = {"p_top1_after": float(c["x"][ra]), "h_norm_after": float(c["y"][ra]),
                                     "pred_after": str(preds[ra])}
        rows = []
        for rec in det.to_dict(orient="records"):
            c = rec["correct"]
            out = {"row": int(rec["row"]), "model": rec["model"], "item": rec["item"],
                   "variant": rec["variant"], "group": rec["group"], "p_top1": rec["p_top1"],
                   "h_norm": rec["h_norm"], "pred": rec["pred"], "answer": rec["answer"],
                   "correct": None if c is pd.NA or c is None else bool(c),
                   "probs": [float(p) for p in rec["probs"]], "text": self._cut(rec["text"]),
                   "options": rec["options"], "label": rec["label"]}
            out.update(after.get(int(rec["row"]), {}))
            rows.append(out)
        self.selected = to_jsonable(rows)

    # ----------------------------------------------------------------- Python API
    def view_points(self) -> dict[str, np.ndarray]:
        """The arrays of the ``points`` trait (scatter mode; empty dict in density mode)."""
        return unpack_arrays(self.points)

    def select_box(self, x0: float, x1: float, y0: float, y1: float) -> pd.DataFrame:
        """Brush the rectangle ``[x0, x1] x [y0, y1]`` (P_top1, H_norm); returns :attr:`selected_items`."""
        self.brush = [float(x0), float(x1), float(y0), float(y1)]
        return self.selected_items

    def clear_brush(self) -> None:
        """Remove the brush."""
        self.brush = []

    def _static_state(self) -> dict:
        """Every point (binary columns, 16-bit values) and every view's stats / density."""
        d = self._result
        c = d.codes
        f = d.frame
        labels = list(d.option_labels)
        probs = f[[f"p_{lab}" for lab in labels]].to_numpy(float)
        def q(v):
            return np.round(np.clip(np.nan_to_num(v, nan=0.0), 0, 1) * _Q).astype(np.uint16)
        pred = pd.Categorical(f["pred"], categories=labels).codes.astype(np.int16)
        pred = np.where(pred < 0, 255, pred).astype(np.uint8)
        pnan = np.isnan(probs)
        cols = {"m": _small_int(c["m"]), "g": _small_int(c["g"]), "v": _small_int(c["v"]),
                "i": _small_int(c["i"]), "x": q(c["x"]), "y": q(c["y"]), "pred": pred, "c": c["c"],
                "p": q(probs)}
        if pnan.any():
            cols["pnan"] = pnan.astype(np.uint8)
        # views: every model x group x variant. Exact MPD where cheap (<= EXPORT_EXACT_LIMIT points,
        # a few ms each) or already computed live; the sampled estimate with its SE otherwise
        limit = min(self.exact_limit, EXPORT_EXACT_LIMIT)
        views, dens_keys, dens = {}, [], []
        for vi, v in enumerate(d.variants):
            for m in self.models:
                for g in self.groups:
                    rows = d.view_rows(model=m, group_value=g, variant=v)
                    if len(rows) == 0:
                        continue
                    method = "exact" if len(rows) <= limit or d.pair_cacheable(v) else "sampled"
                    ex = self.view_cache.peek(("exact", m, g, v))
                    st = ex if ex is not None else self.view_cache.get(
                        ("stats", method, m, g, v),
                        lambda m=m, g=g, v=v, method=method: d.view_stats(
                            model=m, group_value=g, variant=v, method=method))
                    key = _SEP.join((m, g, v))
                    views[key] = _stats_dict(st)
                    if len(rows) > self._threshold:
                        dens_keys.append(key)
                        dens.append(d.density_counts(rows, bins=self._bins))
        items = list(d.items.index)
        it = d.items
        item_info = {"id": items, "answer": list(it["answer"]), "label": list(it["label"])}
        if it["text"].notna().any():
            item_info["text"] = [self._cut(t) for t in it["text"]]
        if it["options"].notna().any():
            item_info["options"] = list(it["options"])
        dens_arr = (np.stack(dens).astype(np.uint32) if dens
                    else np.zeros((0, self._bins, self._bins), np.uint32))
        return {
            "bundle_rows": pack_arrays(**cols),
            "bundle_density": pack_arrays(counts=dens_arr),
            "bundle": {"models": d.models, "groups": d.groups, "variants": d.variants, "items": item_info,
                       "views": views, "density_keys": dens_keys, "threshold": self._threshold,
                       "bins": self._bins, "flow_bins": self._flow_bins, "sep": _SEP, "quant": _Q,
                       "exact_limit": limit},
        }

    # ----------------------------------------------------------------- static rendering
    def static_chart(self):
        """The current view as :func:`benchkit.charts.landscape.landscape_chart`.

        A scatter up to ``density_threshold`` points, else the binned density (``bins`` per axis,
        so the image stays small at 800k points; coloured by quantile class on viridis, as
        live); with a comparison variant, one panel per
        variant. Its title gives the view and its MPD (exact or sampled +- SE, as shown live), the
        subtitle the explorer's stats line; after a brush, the first listed items (one page) follow
        below the plot. The image stored with the live explorer in a saved notebook.
        """
        from benchkit.charts.landscape import landscape_chart

        rows = self._rows
        variants = [self.variant]
        if self.compare:
            rows = np.concatenate([rows, self._compare_rows])
            variants.append(self.compare)
        f = self._result.frame.iloc[rows][["p_top1", "h_norm", "variant"]]
        st = self._view_stats(self.variant)
        mpd = (f"MPD {st.mpd:.3f}" if st.mpd_method == "exact"
               else f"MPD ≈ {st.mpd:.4f} ± {st.mpd_se:.4f} (sampled)")
        title = (f"{self.title}: model {self.model} · {self.group_name} {self.group} · "
                 f"{' → '.join(variants)} — {len(self._rows):,} points, {mpd}")
        # Every panel's points go into one chart (Altair refuses more than 5,000 rows), so the
        # threshold applies to their total, not to each variant's.
        dense = len(f) > self._threshold
        sv = self.stats
        line2 = " · ".join(f"{label} {sv[k]:.3f}" for k, label in (
            ("mean_h_norm", "mean H_norm"), ("mean_p_top1", "mean P_top1"), ("accuracy", "accuracy"))
            if isinstance(sv.get(k), (int, float)))
        chart = landscape_chart(f, facet="variant" if self.compare else None, density=dense,
                                max_points=self._threshold, bins=self._bins, columns=2,
                                width=260, height=220, title=title, density_scale="quantile")
        import altair as alt

        if line2:  # the explorer's stats line under the title
            chart = chart.properties(title=alt.TitleParams(text=chart.title, subtitle=line2))
        if not self.brush or not self.selected:
            return chart
        # the brushed items listed below the plot, as the explorer lists them
        from benchkit.charts import _text_table

        b = self.brush
        rows = pd.DataFrame(self.selected).head(self.page_size)
        table = pd.DataFrame({
            "model": rows["model"].astype(str), "item": rows["item"].astype(str),
            "P_top1": rows["p_top1"].map("{:.3f}".format), "H_norm": rows["h_norm"].map("{:.3f}".format),
            "pred / key": [f"{p} / {a}" for p, a in zip(rows["pred"], rows["answer"])],
            "text": rows["text"].fillna("").astype(str)})
        widths = {"model": 130, "item": 130, "P_top1": 55, "H_norm": 55, "pred / key": 70, "text": 300}
        listed = _text_table(alt, table, widths, title=(
            f"{self.n_selected:,} points with P_top1 in [{b[0]:.2f}, {b[1]:.2f}] and H_norm in "
            f"[{b[2]:.2f}, {b[3]:.2f}] (first {len(rows)} listed)"))
        return alt.vconcat(chart, listed).resolve_scale(color="independent")
