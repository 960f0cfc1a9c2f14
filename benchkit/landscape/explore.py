"""Data behind the probability-landscape explorer: points with item metadata, views, brushing.

Paper 003, Sec. 3.1-3.3 (Fig. 2: H_norm versus P_top1 per benchmark; MPD and mean H_norm per
benchmark / model / perturbation, Tables 1-4). :func:`landscape_view` turns a
:class:`benchkit.ResponseSet` with option probabilities (or :class:`LandscapePoints` with ``model``
and ``item`` metadata) into a :class:`LandscapeView`: one row per (model, item, variant) point plus an
item table (text, options, key, expert label). Its methods compute what the explorer
(:class:`benchkit.widgets.LandscapeExplorer`) shows -- the points of a view, the view's MPD and mean
H_norm (:func:`benchkit.landscape.steps.mpd`), a 2-D histogram for dense views, the before/after moves
between two variants and the items inside a brushed rectangle -- so everything the widget shows is
available, and testable, without Jupyter.
"""
from __future__ import annotations

from functools import cached_property
from typing import Any
from typing import Sequence

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_columns
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.landscape._mpd import mpd
from benchkit.landscape._points import LandscapePoints

__all__ = ["LandscapeView", "ViewStats", "Moves", "landscape_view", "ALL", "NO_VARIANT",
           "LABEL_COLUMNS", "EXACT_LIMIT", "BRUSH_ORDERS"]

#: Picker value meaning "pool every model / group".
ALL = "(all)"
#: Variant name used when the data have no variants.
NO_VARIANT = "(none)"
#: Item columns taken as the expert label by ``label="auto"`` (first present wins).
LABEL_COLUMNS = ("error_type", "expert_label", "label", "taxonomy")
_TEXT_COLUMNS = ("text", "question")
#: Views with at most this many points get the exact MPD by default (about 0.1 s at 50,000 points);
#: larger views get the sampled-pairs estimate with its standard error (Sec. 3.3; exact on request).
EXACT_LIMIT = 50_000
#: Orders of a brushed list besides a column name: "stratified" (round-robin over models).
BRUSH_ORDERS = ("stratified",)
_SAMPLED_PAIRS = 200_000


def _mpd_sampled(xy: np.ndarray, n_pairs: int, rng: Any):
    """:func:`benchkit.landscape.steps.mpd` with ``method="sampled"`` (estimate and standard error)."""
    return mpd(xy, method="sampled", n_pairs=n_pairs, rng=rng)


@result
class ViewStats:
    """Summary of one view's points (Sec. 3.3, Tables 1-4).

    Attributes
    ----------
    n_points : int
    mpd : float
        Mean pairwise distance of the pooled view points (:func:`benchkit.landscape.steps.mpd`): exact,
        or the sampled-pairs estimate (see ``mpd_method``); NaN below 2 points.
    mean_h_norm, mean_p_top1 : float
    accuracy : float
        Mean correctness (NaN when correctness is unknown).
    mpd_method : str
        ``"exact"`` or ``"sampled"``.
    mpd_se : float
        Standard error of a sampled estimate (0 for exact; NaN below 2 points).
    """

    n_points: int
    mpd: float
    mean_h_norm: float
    mean_p_top1: float
    accuracy: float
    mpd_method: str = "exact"
    mpd_se: float = 0.0

    def to_frame(self) -> pd.DataFrame:
        """One-row table of the fields."""
        return pd.DataFrame([self.__dict__])


@result
class Moves:
    """Per-point moves from one variant to another (the before/after view).

    Attributes
    ----------
    frame : DataFrame
        One row per (model, item) present in both variants: ``row_before, row_after, model, item,
        x0, y0, x1, y1, distance`` (Euclidean length of the move in the landscape), in the order of
        the before variant's rows.
    """

    frame: pd.DataFrame

    def __len__(self) -> int:
        return len(self.frame)

    def largest(self, n: int) -> pd.DataFrame:
        """The ``n`` longest moves (ties keep row order), in row order."""
        n = check_int("n", n, min=0)
        if len(self.frame) <= n:
            return self.frame
        order = np.argsort(-self.frame["distance"].to_numpy(), kind="stable")[:n]
        return self.frame.iloc[np.sort(order)]

    def to_frame(self) -> pd.DataFrame:
        """The view-model table (a copy)."""
        return self.frame.copy()


@result
class LandscapeView:
    """Landscape points with their metadata, ready for the explorer.

    Attributes
    ----------
    frame : DataFrame
        One row per point (row id = position): ``model, item, variant, group`` (the column chosen as
        ``by``, e.g. the benchmark), ``p_top1, h_norm, pred`` (option label), ``answer`` (key
        label or None), ``correct`` (bool, or NA when unknown) and ``p_<label>`` per option.
    items : DataFrame
        Indexed by item id: ``text`` (or None), ``options`` (list of str or None), ``answer`` (key),
        ``label`` (expert label or None).
    option_labels : tuple of str
    group_column : str
        Item column the group picker uses (default ``"benchmark"``).
    label_column : str or None
        Item column shown as the expert label.
    name : str or None
    points : LandscapePoints
        The points as computed by :func:`benchkit.landscape.steps.points`.
    """

    frame: pd.DataFrame
    items: pd.DataFrame
    option_labels: tuple[str, ...]
    group_column: str
    label_column: str | None
    name: str | None
    points: LandscapePoints

    # ------------------------------------------------------------------ pickers
    @property
    def models(self) -> list[str]:
        """Model names in order of first appearance."""
        return list(self._levels["model"])

    @property
    def groups(self) -> list[str]:
        """Group names in order of first appearance."""
        return list(self._levels["group"])

    @property
    def variants(self) -> list[str]:
        """Variant names in order of first appearance."""
        return list(self._levels["variant"])

    @cached_property
    def _levels(self) -> dict[str, list[str]]:
        # computed once: pd.unique over 800k object values costs tens of ms per call
        return {c: list(pd.unique(self.frame[c])) for c in ("model", "group", "variant")}

    def __len__(self) -> int:
        return len(self.frame)

    def to_frame(self) -> pd.DataFrame:
        """The points joined with the item table (``text, options, label``)."""
        it = self.items[["text", "options", "label"]]
        return self.frame.join(it, on="item")

    # ------------------------------------------------------------------ views
    def _check(self, what: str, value: str, allowed: list[str], allow_all: bool) -> None:
        ok = list(allowed) + ([ALL] if allow_all else [])
        if value not in ok:
            raise BenchkitValueError(f"{what}={describe(value)} is not in the data; choose one of {ok}")

    @cached_property
    def codes(self) -> dict[str, np.ndarray]:
        """Integer codes per point (computed once).

        ``m, g, v, i`` index ``models, groups, variants`` and the item table; ``x`` (P_top1), ``y``
        (H_norm) float64; ``c`` correctness 1/0/-1 unknown.
        """
        f = self.frame

        def code(col, cats):
            return pd.Categorical(f[col], categories=cats).codes.astype(np.int32)

        corr = f["correct"]
        c = np.where(corr.isna().to_numpy(), -1, corr.fillna(False).to_numpy(dtype=bool).astype(np.int8))
        return {"m": code("model", self.models), "g": code("group", self.groups),
                "v": code("variant", self.variants), "i": code("item", list(self.items.index)),
                "x": f["p_top1"].to_numpy(np.float64), "y": f["h_norm"].to_numpy(np.float64),
                "c": c.astype(np.int8)}

    def view_rows(self, *, model: str = ALL, group_value: str = ALL,
                  variant: str | None = None) -> np.ndarray:
        """Row ids (ascending) of the points of a view; ``ALL`` pools models / groups.

        ``group_value`` is a value of the ``by`` column (:attr:`group_column`).

        ``variant`` defaults to the first variant (a view always shows one variant).
        """
        lv = self._levels
        variant = lv["variant"][0] if variant is None else variant
        self._check("model", model, lv["model"], True)
        self._check("group_value", group_value, lv["group"], True)
        self._check("variant", variant, lv["variant"], False)
        c = self.codes
        keep = c["v"] == lv["variant"].index(variant)
        if model != ALL:
            keep &= c["m"] == lv["model"].index(model)
        if group_value != ALL:
            keep &= c["g"] == lv["group"].index(group_value)
        return np.flatnonzero(keep)

    def stats(self, rows: Any, *, method: str = "exact", n_pairs: int = _SAMPLED_PAIRS,
              rng: Any = 0) -> ViewStats:
        """MPD, mean H_norm / P_top1 and accuracy of ``rows``.

        ``method="exact"`` sums every pair (:func:`benchkit.landscape.steps.mpd`); ``"sampled"`` averages
        ``n_pairs`` random pairs (its ``method="sampled"``, unbiased, with a standard error), for
        views too large for an instant exact value; ``"auto"`` is exact up to :data:`EXACT_LIMIT`
        points and sampled above. ``rng`` seeds the sampling (fixed by default, so a view's
        estimate is reproducible).
        """
        method = check_choice("method", method, ("exact", "sampled", "auto"))
        rows = np.asarray(rows, dtype=np.int64)
        n = len(rows)
        nan = float("nan")
        if n == 0:
            return ViewStats(0, nan, nan, nan, nan, "exact", nan)
        c = self.codes
        xy = np.column_stack([c["x"][rows], c["y"][rows]])
        if method == "auto":
            method = "exact" if n <= EXACT_LIMIT else "sampled"
        if n < 2:
            m, se = nan, nan
        elif method == "exact":
            m, se = mpd(xy).mpd, 0.0
        else:
            r = _mpd_sampled(xy, check_int("n_pairs", n_pairs, min=2), rng)
            m, se = r.mpd, r.se
        corr = c["c"][rows]
        acc = float((corr == 1).mean()) if (corr >= 0).all() else nan
        return ViewStats(n, float(m), float(xy[:, 1].mean()), float(xy[:, 0].mean()), acc, method,
                         float(se))

    def density_counts(self, rows: Any, *, bins: int = 40) -> np.ndarray:
        """2-D histogram of ``rows`` over [0, 1] x [0, 1]: ``counts[i, j]`` for x bin i, y bin j.

        Same bins as ``numpy.histogram2d(x, y, bins, range=[[0, 1], [0, 1]])``: half-open
        ``[a, b)`` except the last, which includes 1; values outside [0, 1] are dropped.
        """
        bins = check_int("bins", bins, min=2, max=400)
        rows = np.asarray(rows, dtype=np.int64)
        c = self.codes
        x, y = c["x"][rows], c["y"][rows]
        ok = (x >= 0) & (x <= 1) & (y >= 0) & (y <= 1)
        ix = np.minimum((x[ok] * bins).astype(np.int64), bins - 1)
        iy = np.minimum((y[ok] * bins).astype(np.int64), bins - 1)
        return np.bincount(ix * bins + iy, minlength=bins * bins).reshape(bins, bins)

    def density(self, rows: Any, *, bins: int = 40) -> dict:
        """:meth:`density_counts` as ``{"bins", "counts" (nested lists), "max"}``."""
        H = self.density_counts(rows, bins=bins)
        return {"bins": int(H.shape[0]), "counts": H.tolist(), "max": int(H.max()) if H.size else 0}

    def moves(self, before: Any, after: Any) -> Moves:
        """Moves of the points in row set ``before`` to their (model, item) partners in ``after``.

        A (model, item) pair present more than once in ``after`` takes its first row.
        """
        c = self.codes
        before = np.asarray(before, dtype=np.int64)
        after = np.asarray(after, dtype=np.int64)
        n_items = max(len(self.items), 1)
        kb = c["m"][before].astype(np.int64) * n_items + c["i"][before]
        ka = c["m"][after].astype(np.int64) * n_items + c["i"][after]
        order = np.argsort(ka, kind="stable")
        ks = ka[order]
        pos = np.searchsorted(ks, kb)
        pos_c = np.minimum(pos, max(len(ks) - 1, 0))
        hit = (pos < len(ks)) & (ks[pos_c] == kb) if len(ks) else np.zeros(len(kb), bool)
        rb = before[hit]
        ra = after[order[pos_c[hit]]]
        # names through the integer codes (indexing an Arrow string column per call is slow)
        out = pd.DataFrame({
            "row_before": rb, "row_after": ra,
            "model": np.asarray(self.models, dtype=object)[c["m"][rb]],
            "item": np.asarray(self.items.index, dtype=object)[c["i"][rb]],
            "x0": c["x"][rb], "y0": c["y"][rb], "x1": c["x"][ra], "y1": c["y"][ra],
        })
        out["distance"] = np.hypot(out["x1"] - out["x0"], out["y1"] - out["y0"])
        return Moves(out.sort_values("row_before", kind="stable").reset_index(drop=True))

    def brush(self, rows: Any, box: Sequence[float]) -> np.ndarray:
        """Row ids among ``rows`` whose point lies in ``box = (x0, x1, y0, y1)`` (inclusive)."""
        x0, x1, y0, y1 = _check_box(box)
        rows = np.asarray(rows, dtype=np.int64)
        x = self.codes["x"][rows]
        y = self.codes["y"][rows]
        return rows[(x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)]

    def order_rows(self, rows: Any, *, sort_by: str = "stratified", descending: bool = False
                   ) -> np.ndarray:
        """``rows`` in listing order for the brushed list.

        ``sort_by="stratified"`` (default) interleaves models: the first row of each model (in model
        order), then the second of each, ..., so any first page shows every model present instead
        of the first model's rows. Otherwise ``sort_by`` is a column of :meth:`details`
        (``model, item, variant, group, p_top1, h_norm, pred, answer, correct, label``) sorted
        stably (ties keep row order), missing values last; ``descending`` reverses the order of
        values.
        """
        rows = np.asarray(rows, dtype=np.int64)
        if sort_by == "stratified":
            m = self.codes["m"][rows]
            o = np.argsort(m, kind="stable")
            rank = np.empty(len(rows), np.int64)
            sm = m[o]
            starts = np.r_[0, np.flatnonzero(np.diff(sm)) + 1] if len(sm) else np.array([], np.int64)
            within = np.arange(len(sm)) - np.repeat(starts, np.diff(np.r_[starts, len(sm)]))
            rank[o] = within
            out = rows[np.lexsort((m, rank))]
            return out[::-1] if descending else out
        cols = ("model", "item", "variant", "group", "p_top1", "h_norm", "pred", "answer", "correct",
                "label")
        check_choice("sort_by", sort_by, BRUSH_ORDERS + cols)
        if sort_by == "label":
            vals = self.items["label"].reindex(self.frame["item"].to_numpy()[rows]).to_numpy()
        elif sort_by in ("p_top1", "h_norm"):
            vals = self.codes["x" if sort_by == "p_top1" else "y"][rows]
        elif sort_by == "correct":
            vals = self.codes["c"][rows].astype(float)
            vals[vals < 0] = np.nan
        else:
            vals = self.frame[sort_by].to_numpy()[rows]
        s = pd.Series(vals, index=rows)
        s = s.sort_values(ascending=not descending, kind="stable", na_position="last")
        return s.index.to_numpy(np.int64)

    def flow(self, moves: Moves, *, bins: int = 10) -> pd.DataFrame:
        """Binned mean displacement of ``moves`` (a flow field of the before/after view).

        The before positions are binned on a ``bins x bins`` grid over [0, 1]^2 (as
        :meth:`density_counts`); per non-empty cell: ``ix, iy, n`` (moves starting there), ``x, y``
        (mean start), ``dx, dy`` (mean displacement) and ``mean_distance`` (mean move length).
        """
        bins = check_int("bins", bins, min=1, max=200)
        f = moves.frame
        x0, y0 = f["x0"].to_numpy(float), f["y0"].to_numpy(float)
        ix = np.clip((x0 * bins).astype(np.int64), 0, bins - 1)
        iy = np.clip((y0 * bins).astype(np.int64), 0, bins - 1)
        key = ix * bins + iy
        n = np.bincount(key, minlength=bins * bins)
        nz = np.flatnonzero(n)

        def mean(v):
            return (np.bincount(key, weights=v, minlength=bins * bins)[nz] / n[nz])

        return pd.DataFrame({
            "ix": nz // bins, "iy": nz % bins, "n": n[nz], "x": mean(x0), "y": mean(y0),
            "dx": mean(f["x1"].to_numpy(float) - x0), "dy": mean(f["y1"].to_numpy(float) - y0),
            "mean_distance": mean(f["distance"].to_numpy(float)),
        })

    def details(self, rows: Any) -> pd.DataFrame:
        """The listed rows: point values, option probabilities, item text, options and label."""
        rows = np.asarray(rows, dtype=np.int64)
        sub = self.frame.iloc[rows]
        it = self.items.reindex(sub["item"])
        prob_cols = [f"p_{lab}" for lab in self.option_labels]
        return pd.DataFrame({
            "row": rows, "model": sub["model"].to_numpy(), "item": sub["item"].to_numpy(),
            "variant": sub["variant"].to_numpy(), "group": sub["group"].to_numpy(),
            "p_top1": sub["p_top1"].to_numpy(float), "h_norm": sub["h_norm"].to_numpy(float),
            "pred": sub["pred"].to_numpy(), "answer": sub["answer"].to_numpy(),
            "correct": sub["correct"].to_numpy(),
            "probs": list(sub[prob_cols].to_numpy(float)),
            "text": it["text"].to_numpy(), "options": it["options"].to_numpy(),
            "label": it["label"].to_numpy(),
        })


def _check_box(box: Any) -> tuple[float, float, float, float]:
    if isinstance(box, (str, bytes)) or not hasattr(box, "__len__") or len(box) != 4:
        raise BenchkitValueError(f"box must be (x0, x1, y0, y1); got {describe(box)}")
    vals = [check_float(n, v) for n, v in zip(("x0", "x1", "y0", "y1"), box)]
    x0, x1, y0, y1 = vals
    if x0 > x1 or y0 > y1:
        raise BenchkitValueError(f"box={tuple(vals)} must have x0 <= x1 and y0 <= y1")
    return x0, x1, y0, y1


def _item_table(base: pd.DataFrame | None, extra: pd.DataFrame | None, ids: Sequence[str],
                label: str | None) -> tuple[pd.DataFrame, str | None]:
    tab = pd.DataFrame(index=pd.Index(pd.unique(np.asarray(ids, dtype=object)), name="item"))
    for src in (base, extra):
        if src is None:
            continue
        s = src
        if "item" in s.columns:
            s = s.set_index("item")
        s = s.copy()
        s.index = s.index.astype(str)
        if s.index.has_duplicates:
            raise BenchkitValueError("items has duplicated item ids")
        for c in s.columns:
            tab[c] = s[c].reindex(tab.index).to_numpy()
    if label == "auto":
        label = next((c for c in LABEL_COLUMNS if c in tab.columns), None)
    elif label is not None:
        check_columns("items", tab.columns, required=[label])
    text_col = next((c for c in _TEXT_COLUMNS if c in tab.columns), None)

    def _opts(v):
        if v is None or (isinstance(v, float) and np.isnan(v)):
            return None
        return [str(o) for o in list(v)]

    out = pd.DataFrame(index=tab.index)
    out["text"] = (tab[text_col].astype(object).where(tab[text_col].notna(), None)
                   if text_col else None)
    out["options"] = [_opts(v) for v in tab["options"]] if "options" in tab.columns else None
    out["answer"] = (tab["answer_key"].astype(object).where(tab["answer_key"].notna(), None)
                     if "answer_key" in tab.columns else None)
    out["label"] = (tab[label].astype(object).where(tab[label].notna(), None).map(
        lambda v: None if v is None else str(v)) if label else None)
    out = out.astype(object).where(out.notna(), None)
    return out, label


def landscape_view(source: Any, *, items: pd.DataFrame | None = None, by: str = "benchmark",
                   label_column: str | None = "auto", variant: str | Sequence[str] | None = None,
                   name: str | None = None) -> LandscapeView:
    """Landscape points plus item metadata for :class:`benchkit.widgets.LandscapeExplorer`.

    Parameters
    ----------
    source : ResponseSet or LandscapePoints
        A ResponseSet with option probabilities (every principal response becomes a point, via
        :func:`benchkit.landscape.map_points`), or points whose ``meta`` has ``model``
        and ``item`` (optionally ``variant`` and the ``by`` column).
    items : DataFrame, optional
        Item metadata (column ``item`` or an item-id index): ``text``, ``options``,
        ``answer_key``, expert labels (e.g. ``error_type`` of MMLU-Redux). Overrides / adds to the
        ResponseSet's item table.
    by : str
        The split: the item (or point-meta) column of the second picker: ``"benchmark"`` (default) or e.g.
        ``"source"`` for subjects. Points without it get the data's name.
    label_column : str, "auto" or None
        Item column shown as the expert label; ``"auto"`` takes the first of
        :data:`LABEL_COLUMNS` present.
    variant : str or list of str, optional
        Keep only these variants (ResponseSet input).
    name : str, optional
        Default ``source.name`` for a ResponseSet.

    Returns
    -------
    LandscapeView

    Notes
    -----
    Coordinates are those of :func:`benchkit.landscape.steps.points` (Sec. 3.1-3.2: ``P_top1`` and
    ``H_norm`` over the offered options). Correctness is the responses' ``correct`` column
    (ResponseSet input), so variants that move the key (positional bias) stay right.
    """
    from benchkit.landscape.responses import map_points
    from benchkit.response_set import ResponseSet

    if items is not None and not isinstance(items, pd.DataFrame):
        raise BenchkitTypeError(f"items must be a pandas DataFrame; got {type(items).__name__}")
    if not isinstance(by, str) or not by:
        raise BenchkitValueError(f"by must be a column name; got {describe(by)}")
    base_items = None
    if isinstance(source, ResponseSet):
        cols = tuple(dict.fromkeys([by, "benchmark", "source"]))
        pts = map_points(source, variant=variant, item_columns=cols)
        base_items = source.items.reset_index()
        base_items["item"] = base_items["item"].astype(str)
        name = source.name if name is None else name
    elif isinstance(source, LandscapePoints):
        if variant is not None:
            raise BenchkitValueError("variant= applies to ResponseSet input; select points first")
        pts = source
        if pts.meta is None:
            raise BenchkitValueError("points need meta with columns 'model' and 'item'")
        check_columns("points.meta", pts.meta.columns, required=["model", "item"])
    else:
        raise BenchkitTypeError(
            f"source must be a benchkit.ResponseSet with option probabilities or LandscapePoints; "
            f"got {type(source).__name__}"
        )
    meta = pts.meta.reset_index(drop=True)
    n = len(pts)
    if n == 0:
        raise BenchkitValueError("source has no landscape points")
    item_ids = meta["item"].astype(str).to_numpy(dtype=object)
    tab, label_col = _item_table(base_items, items, item_ids, label_column)
    labels = np.asarray(pts.labels, dtype=object)
    if by in meta.columns:
        grp = meta[by].astype(object).to_numpy()
    elif items is not None and by in (items.columns if "item" in items.columns else items.columns):
        src = items.set_index("item") if "item" in items.columns else items
        src = src.copy()
        src.index = src.index.astype(str)
        grp = src[by].reindex(item_ids).to_numpy(dtype=object)
    else:
        grp = np.full(n, None, dtype=object)
    fallback = name or "all"
    grp = np.array([fallback if (g is None or (isinstance(g, float) and np.isnan(g))) else str(g)
                    for g in grp], dtype=object)
    if pts.correct is not None:
        correct = pd.array(pts.correct, dtype="boolean")
    elif "correct" in meta.columns:
        correct = pd.array(meta["correct"].astype(bool).to_numpy(), dtype="boolean")
    else:
        correct = pd.array([pd.NA] * n, dtype="boolean")
    if pts.answer is not None:
        answer = labels[pts.answer]
    else:
        answer = tab["answer"].reindex(item_ids).to_numpy(dtype=object)
    frame = pd.DataFrame({
        "model": meta["model"].astype(str).to_numpy(dtype=object),
        "item": item_ids,
        "variant": (meta["variant"].astype(str).to_numpy(dtype=object) if "variant" in meta.columns
                    else np.full(n, NO_VARIANT, dtype=object)),
        "group": grp,
        "p_top1": pts.p_top1, "h_norm": pts.h_norm,
        "pred": labels[pts.pred], "answer": answer, "correct": correct,
    })
    for j, lab in enumerate(pts.labels):
        frame[f"p_{lab}"] = pts.probs[:, j]
    return LandscapeView(frame=frame, items=tab, option_labels=tuple(pts.labels),
                         group_column=by, label_column=label_col, name=name, points=pts)
