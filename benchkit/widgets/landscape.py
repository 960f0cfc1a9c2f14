"""Probability-landscape explorer: P_top1 x H_norm per model, group and variant (paper 003).

:class:`LandscapeExplorer` shows one view at a time -- a model (or all models pooled), a group
(benchmark, or e.g. subject; or all pooled) and a variant (prompt / perturbation):

- the points ``(P_top1, H_norm)`` as a scatter (Fig. 2 of the paper), or, when the view has more
  than ``density_threshold`` points, a 2-D histogram drawn as SVG rectangles (counts computed in
  Python with :meth:`benchkit.landscape.explore.LandscapeData.density`);
- the view's MPD (exact, :func:`benchkit.landscape.mpd`) and mean H_norm, P_top1 and accuracy;
- a before/after view: pick a second variant and every (model, item) point gets an arrow from
  its position under the first variant to its position under the second (the ``max_arrows``
  longest moves when there are more), with both variants' MPD and mean H_norm;
- a rectangle brush: drag over the plot and the items inside are listed with their text,
  options, option probabilities, key, prediction and expert label (Python computes the list with
  :meth:`~benchkit.landscape.explore.LandscapeData.brush`).

Input is a :class:`benchkit.landscape.explore.LandscapeData` (from
:func:`benchkit.landscape.explore.landscape_data`) or anything that function accepts (a
ResponseSet with option probabilities, LandscapePoints with model/item meta). ``to_html()`` writes a
static page with every point embedded and every view's MPD / mean H_norm precomputed in Python;
pickers, the before/after arrows and the brush work there without a kernel.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import traitlets

from benchkit._validation import BenchkitValueError, check_int, describe
from benchkit.landscape.explore import ALL, LandscapeData, landscape_data
from benchkit.widgets._base import BenchkitWidget, to_jsonable

__all__ = ["LandscapeExplorer"]

_SEP = "\u0001"  # view-key separator in the static bundle


def _stats_dict(st) -> dict:
    return to_jsonable({"n_points": st.n_points, "mpd": st.mpd, "mean_h_norm": st.mean_h_norm,
                        "mean_p_top1": st.mean_p_top1, "accuracy": st.accuracy})


class LandscapeExplorer(BenchkitWidget):
    """Interactive P_top1 x H_norm landscape with MPD, before/after arrows and a brush.

    Parameters
    ----------
    result : LandscapeData, ResponseSet or LandscapePoints
        Anything else than :class:`~benchkit.landscape.explore.LandscapeData` is passed to
        :func:`~benchkit.landscape.explore.landscape_data` with ``items``, ``group``, ``label``.
    items, group, label :
        Passed to :func:`~benchkit.landscape.explore.landscape_data` (ignored for LandscapeData).
    model, variant, compare : str, optional
        Initial view: model (default ``"(all)"`` when several models, else the only one), variant
        (default the first), comparison variant (default none).
    density_threshold : int
        Views with more points than this are drawn as a 2-D histogram (default 4000).
    bins : int
        Histogram bins per axis (default 40).
    max_arrows : int
        Most arrows drawn in the before/after view (the longest moves; default 400).
    max_list : int
        Most brushed rows listed (default 200; ``n_selected`` counts all).
    text_chars : int
        Item text is cut to this many characters in the widget state (default 400).

    Synced state (traitlets)
    ------------------------
    ``models``, ``groups`` (picker values, ``"(all)"`` first), ``variants``, ``option_labels``,
    ``group_name``, ``label_name``, ``title``; the view ``model``, ``group``, ``variant``,
    ``compare`` (``""`` = none); ``mode`` (``"points"`` or ``"density"``), ``xy`` (``[x, y, row, correct]``
    per point, correct 1/0/-1 unknown; scatter mode), ``density`` (``{bins, counts, max}``, density mode), ``stats`` and
    ``compare_stats`` (``{n_points, mpd, mean_h_norm, mean_p_top1, accuracy}``), ``compare_xy``,
    ``arrows`` (``[x0, y0, x1, y1, row]``), ``arrows_info`` (``{n_pairs, n_shown}``); the brush
    ``brush`` (``[x0, x1, y0, y1]`` in data units, ``[]`` none), ``selected`` (listed rows),
    ``n_selected``; ``static_mode``.

    Python accessors: :attr:`data` (the LandscapeData), :attr:`view_rows`, :attr:`view_stats`,
    :attr:`selected_items` (the brushed rows as a DataFrame), :attr:`moves`,
    :meth:`select_box`, :meth:`clear_brush`.
    """

    _esm_file = "landscape.js"
    _css_file = "landscape.css"
    _html_title = "benchkit probability-landscape explorer"

    title = traitlets.Unicode("").tag(sync=True)
    models = traitlets.List(traitlets.Unicode()).tag(sync=True)
    groups = traitlets.List(traitlets.Unicode()).tag(sync=True)
    variants = traitlets.List(traitlets.Unicode()).tag(sync=True)
    option_labels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    group_name = traitlets.Unicode("benchmark").tag(sync=True)
    label_name = traitlets.Unicode("").tag(sync=True)
    max_list = traitlets.Int(200).tag(sync=True)
    max_arrows = traitlets.Int(400).tag(sync=True)

    model = traitlets.Unicode(ALL).tag(sync=True)
    group = traitlets.Unicode(ALL).tag(sync=True)
    variant = traitlets.Unicode("").tag(sync=True)
    compare = traitlets.Unicode("").tag(sync=True)

    mode = traitlets.Unicode("points").tag(sync=True)
    xy = traitlets.List(traitlets.List()).tag(sync=True)
    density = traitlets.Dict().tag(sync=True)
    stats = traitlets.Dict().tag(sync=True)
    compare_stats = traitlets.Dict().tag(sync=True)
    compare_xy = traitlets.List(traitlets.List()).tag(sync=True)
    arrows = traitlets.List(traitlets.List()).tag(sync=True)
    arrows_info = traitlets.Dict().tag(sync=True)

    brush = traitlets.List(traitlets.Float()).tag(sync=True)
    selected = traitlets.List(traitlets.Dict()).tag(sync=True)
    n_selected = traitlets.Int(0).tag(sync=True)

    def __init__(self, result: Any, *, items: pd.DataFrame | None = None, group: str = "benchmark",
                 label: str | None = "auto", model: str | None = None, variant: str | None = None,
                 compare: str | None = None, density_threshold: int = 4000, bins: int = 40,
                 max_arrows: int = 400, max_list: int = 200, text_chars: int = 400,
                 **kwargs: Any) -> None:
        if not isinstance(result, LandscapeData):
            result = landscape_data(result, items=items, group=group, label=label)
        self._data = result
        self._threshold = check_int("density_threshold", density_threshold, min=1)
        self._bins = check_int("bins", bins, min=2, max=400)
        self._text_chars = check_int("text_chars", text_chars, min=1)
        max_arrows = check_int("max_arrows", max_arrows, min=0)
        max_list = check_int("max_list", max_list, min=1)
        self._ready = False
        self._rows = np.empty(0, dtype=np.int64)
        self._compare_rows = np.empty(0, dtype=np.int64)
        self._selected_rows = np.empty(0, dtype=np.int64)
        self._moves = None
        models = result.models
        title = result.name or "landscape"
        super().__init__(
            title=title, models=[ALL, *models] if len(models) > 1 else list(models),
            groups=[ALL, *result.groups] if len(result.groups) > 1 else list(result.groups),
            variants=result.variants, option_labels=list(result.option_labels),
            group_name=result.group_column, label_name=result.label_column or "",
            max_list=max_list, max_arrows=max_arrows, **kwargs)
        with self.hold_trait_notifications():
            self.model = model if model is not None else self.models[0]
            self.group = self.groups[0]
            self.variant = variant if variant is not None else self.variants[0]
            self.compare = compare or ""
        self._ready = True
        self._load()

    # ----------------------------------------------------------------- properties
    @property
    def data(self) -> LandscapeData:
        """The :class:`~benchkit.landscape.explore.LandscapeData` shown."""
        return self._data

    @property
    def view_rows(self) -> np.ndarray:
        """Row ids (into ``data.frame``) of the current view's points."""
        return self._rows.copy()

    @property
    def view_stats(self):
        """:class:`~benchkit.landscape.explore.ViewStats` of the current view."""
        return self._data.stats(self._rows)

    @property
    def moves(self):
        """:class:`~benchkit.landscape.explore.Moves` to the comparison variant (None without one)."""
        return self._moves

    @property
    def selected_items(self) -> pd.DataFrame:
        """All brushed rows (not only the ``max_list`` listed) with values, text, options, label."""
        return self._data.details(self._selected_rows)

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

    @traitlets.observe("brush")
    def _on_brush(self, change):
        if self._ready:
            self._select()

    # ----------------------------------------------------------------- computation
    def _view_rows(self, variant: str) -> np.ndarray:
        return self._data.view_rows(model=self.model, group=self.group, variant=variant)

    def _load(self) -> None:
        d = self._data
        rows = self._view_rows(self.variant)
        self._rows = rows
        dense = len(rows) > self._threshold
        x = d.frame["p_top1"].to_numpy(float)
        y = d.frame["h_norm"].to_numpy(float)
        corr = d.frame["correct"]
        c = np.where(corr.isna().to_numpy(), -1, corr.fillna(False).astype(bool).to_numpy().astype(int))
        pts = lambda rr: [[float(x[r]), float(y[r]), int(r), int(c[r])] for r in rr]  # noqa: E731
        with self.hold_sync():
            self.mode = "density" if dense else "points"
            self.xy = [] if dense else pts(rows)
            self.density = d.density(rows, bins=self._bins) if dense else {}
            self.stats = _stats_dict(d.stats(rows))
            if self.compare:
                crow = self._view_rows(self.compare)
                self._compare_rows = crow
                self._moves = d.moves(rows, crow)
                shown = self._moves.largest(self.max_arrows)
                self.compare_stats = _stats_dict(d.stats(crow))
                self.compare_xy = [] if len(crow) > self._threshold else pts(crow)
                self.arrows = [[float(a), float(b), float(c), float(e), int(r)] for a, b, c, e, r in
                               shown[["x0", "y0", "x1", "y1", "row_before"]].itertuples(index=False)]
                self.arrows_info = {"n_pairs": len(self._moves), "n_shown": len(shown)}
            else:
                self._compare_rows = np.empty(0, dtype=np.int64)
                self._moves = None
                self.compare_stats = {}
                self.compare_xy = []
                self.arrows = []
                self.arrows_info = {}
            self._select()

    def _cut(self, text):
        if text is None:
            return None
        text = str(text)
        return text if len(text) <= self._text_chars else text[: self._text_chars - 1] + "…"

    def _select(self) -> None:
        d = self._data
        if not self.brush:
            self._selected_rows = np.empty(0, dtype=np.int64)
            self.selected = []
            self.n_selected = 0
            return
        sel = d.brush(self._rows, self.brush)
        self._selected_rows = sel
        det = d.details(sel[: self.max_list])
        after = {}
        if self._moves is not None and len(det):
            mv = self._moves.frame.set_index("row_before")
            f = d.frame
            for r in det["row"]:
                if r in mv.index:
                    ra = int(mv.at[r, "row_after"])
                    after[int(r)] = {"p_top1_after": float(f.at[ra, "p_top1"]),
                                     "h_norm_after": float(f.at[ra, "h_norm"]),
                                     "pred_after": str(f.at[ra, "pred"])}
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
        self.n_selected = int(len(sel))
        self.selected = to_jsonable(rows)

    # ----------------------------------------------------------------- Python API
    def select_box(self, x0: float, x1: float, y0: float, y1: float) -> pd.DataFrame:
        """Brush the rectangle ``[x0, x1] x [y0, y1]`` (P_top1, H_norm); returns :attr:`selected_items`."""
        self.brush = [float(x0), float(x1), float(y0), float(y1)]
        return self.selected_items

    def clear_brush(self) -> None:
        """Remove the brush."""
        self.brush = []

    def _static_state(self) -> dict:
        """Every point (columnar) and every view's stats / density, for the page without a kernel."""
        d = self._data
        f = d.frame
        models = d.models
        groups = d.groups
        variants = d.variants
        items = list(pd.unique(f["item"]))
        mi = {m: i for i, m in enumerate(models)}
        gi = {g: i for i, g in enumerate(groups)}
        vi = {v: i for i, v in enumerate(variants)}
        ii = {it: i for i, it in enumerate(items)}
        li = {lab: i for i, lab in enumerate(d.option_labels)}
        corr = f["correct"]
        probs = f[[f"p_{lab}" for lab in d.option_labels]].to_numpy(float)
        rows = {
            "m": [mi[v] for v in f["model"]], "g": [gi[v] for v in f["group"]],
            "v": [vi[v] for v in f["variant"]], "i": [ii[v] for v in f["item"]],
            "x": f["p_top1"].to_numpy(float), "y": f["h_norm"].to_numpy(float),
            "pred": [li[v] for v in f["pred"]],
            "c": [None if c is pd.NA else bool(c) for c in corr],
            "p": probs,
        }
        it = d.items.reindex(items)
        item_info = {"id": items, "text": [self._cut(t) for t in it["text"]],
                     "options": list(it["options"]), "answer": list(it["answer"]),
                     "label": list(it["label"])}
        views = {}
        dens = {}
        for m in self.models:
            for g in self.groups:
                for v in variants:
                    r = d.view_rows(model=m, group=g, variant=v)
                    key = _SEP.join((m, g, v))
                    views[key] = _stats_dict(d.stats(r))
                    if len(r) > self._threshold:
                        dens[key] = d.density(r, bins=self._bins)
        return {"bundle": {"models": models, "groups": groups, "variants": variants,
                           "rows": rows, "items": item_info, "views": views, "density": dens,
                           "threshold": self._threshold, "sep": _SEP}}
