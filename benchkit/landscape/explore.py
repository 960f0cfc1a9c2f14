"""Data behind the probability-landscape explorer: points with item metadata, views, brushing.

Paper 003, Sec. 3.1-3.3 (Fig. 2: H_norm versus P_top1 per benchmark; MPD and mean H_norm per
benchmark / model / perturbation, Tables 1-4). :func:`landscape_data` turns a
:class:`benchkit.ResponseSet` with option probabilities (or :class:`LandscapePoints` with ``model``
and ``item`` metadata) into a :class:`LandscapeData`: one row per (model, item, variant) point plus an
item table (text, options, key, expert label). Its methods compute what the explorer
(:class:`benchkit.widgets.LandscapeExplorer`) shows -- the points of a view, the view's MPD and mean
H_norm (:func:`benchkit.landscape.mpd`), a 2-D histogram for dense views, the before/after moves
between two variants and the items inside a brushed rectangle -- so everything the widget shows is
available, and testable, without Jupyter.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from benchkit._validation import (
    BenchkitTypeError,
    BenchkitValueError,
    check_columns,
    check_float,
    check_int,
    describe,
)
from benchkit.landscape._mpd import mpd
from benchkit.landscape._points import LandscapePoints

__all__ = ["LandscapeData", "ViewStats", "Moves", "landscape_data", "ALL", "NO_VARIANT",
           "LABEL_COLUMNS"]

#: Picker value meaning "pool every model / group".
ALL = "(all)"
#: Variant name used when the data have no variants.
NO_VARIANT = "(none)"
#: Item columns taken as the expert label by ``label="auto"`` (first present wins).
LABEL_COLUMNS = ("error_type", "expert_label", "label", "taxonomy")
_TEXT_COLUMNS = ("text", "question")


@dataclass(frozen=True)
class ViewStats:
    """Summary of one view's points (Sec. 3.3, Tables 1-4).

    Attributes
    ----------
    n_points : int
    mpd : float
        Exact mean pairwise distance of the pooled view points (:func:`benchkit.landscape.mpd`);
        NaN below 2 points.
    mean_h_norm, mean_p_top1 : float
    accuracy : float
        Mean correctness (NaN when correctness is unknown).
    """

    n_points: int
    mpd: float
    mean_h_norm: float
    mean_p_top1: float
    accuracy: float

    def to_frame(self) -> pd.DataFrame:
        """One-row table of the fields."""
        return pd.DataFrame([self.__dict__])


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class LandscapeData:
    """Landscape points with their metadata, ready for the explorer.

    Attributes
    ----------
    frame : DataFrame
        One row per point (row id = position): ``model, item, variant, group`` (the column chosen as
        ``group``, e.g. the benchmark), ``p_top1, h_norm, pred`` (option label), ``answer`` (key
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
        The points as computed by :func:`benchkit.landscape.points`.
    """

    frame: pd.DataFrame
    items: pd.DataFrame
    option_labels: tuple[str, ...]
    group_column: str
    label_column: str | None
    name: str | None
    points: LandscapePoints = field(repr=False)

    # ------------------------------------------------------------------ pickers
    @property
    def models(self) -> list[str]:
        """Models in the data, in order of appearance."""
        return list(pd.unique(self.frame["model"]))

    @property
    def groups(self) -> list[str]:
        """Groups in the data, in order of appearance."""
        return list(pd.unique(self.frame["group"]))

    @property
    def variants(self) -> list[str]:
        """Variants in the data, in order of appearance."""
        return list(pd.unique(self.frame["variant"]))

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

    def view_rows(self, *, model: str = ALL, group: str = ALL, variant: str | None = None) -> np.ndarray:
        """Row ids (ascending) of the points of a view; ``ALL`` pools models / groups.

        ``variant`` defaults to the first variant (a view always shows one variant).
        """
        variant = self.variants[0] if variant is None else variant
        self._check("model", model, self.models, True)
        self._check("group", group, self.groups, True)
        self._check("variant", variant, self.variants, False)
        f = self.frame
        keep = (f["variant"] == variant).to_numpy(dtype=bool, copy=True)
        if model != ALL:
            keep &= (f["model"] == model).to_numpy(dtype=bool)
        if group != ALL:
            keep &= (f["group"] == group).to_numpy(dtype=bool)
        return np.flatnonzero(keep)

    def stats(self, rows: Any) -> ViewStats:
        """MPD (exact, :func:`benchkit.landscape.mpd`), mean H_norm / P_top1 and accuracy of ``rows``."""
        rows = np.asarray(rows, dtype=np.int64)
        sub = self.frame.iloc[rows]
        n = len(sub)
        if n == 0:
            nan = float("nan")
            return ViewStats(0, nan, nan, nan, nan)
        xy = sub[["p_top1", "h_norm"]].to_numpy(dtype=np.float64)
        m = mpd(xy).mpd if n >= 2 else float("nan")
        corr = sub["correct"]
        acc = float(corr.astype(float).mean()) if corr.notna().all() else float("nan")
        return ViewStats(n, float(m), float(xy[:, 1].mean()), float(xy[:, 0].mean()), acc)

    def density(self, rows: Any, *, bins: int = 40) -> dict:
        """2-D histogram of ``rows`` over [0, 1] x [0, 1] (x = P_top1, y = H_norm).

        Returns ``{"bins": bins, "counts": [[...]] (x bin major, counts[i][j] for x bin i, y bin j),
        "max": largest count}``; bins are half-open ``[a, b)`` except the last, which includes 1
        (``numpy.histogram2d``).
        """
        bins = check_int("bins", bins, min=2, max=400)
        rows = np.asarray(rows, dtype=np.int64)
        sub = self.frame.iloc[rows]
        H, _, _ = np.histogram2d(sub["p_top1"].to_numpy(dtype=float), sub["h_norm"].to_numpy(dtype=float),
                                 bins=bins, range=[[0.0, 1.0], [0.0, 1.0]])
        H = H.astype(np.int64)
        return {"bins": bins, "counts": H.tolist(), "max": int(H.max()) if H.size else 0}

    def moves(self, before: Any, after: Any) -> Moves:
        """Moves of the points in row set ``before`` to their (model, item) partners in ``after``."""
        f = self.frame
        b = f.iloc[np.asarray(before, dtype=np.int64)][["model", "item", "p_top1", "h_norm"]]
        a = f.iloc[np.asarray(after, dtype=np.int64)][["model", "item", "p_top1", "h_norm"]]
        b = b.rename_axis("row_before").reset_index()
        a = a.rename_axis("row_after").reset_index()
        j = b.merge(a, on=["model", "item"], how="inner", suffixes=("_b", "_a"), sort=False)
        out = pd.DataFrame({
            "row_before": j["row_before"].to_numpy(np.int64), "row_after": j["row_after"].to_numpy(np.int64),
            "model": j["model"].to_numpy(), "item": j["item"].to_numpy(),
            "x0": j["p_top1_b"].to_numpy(float), "y0": j["h_norm_b"].to_numpy(float),
            "x1": j["p_top1_a"].to_numpy(float), "y1": j["h_norm_a"].to_numpy(float),
        })
        out["distance"] = np.hypot(out["x1"] - out["x0"], out["y1"] - out["y0"])
        return Moves(out.sort_values("row_before", kind="stable").reset_index(drop=True))

    def brush(self, rows: Any, box: Sequence[float]) -> np.ndarray:
        """Row ids among ``rows`` whose point lies in ``box = (x0, x1, y0, y1)`` (inclusive)."""
        x0, x1, y0, y1 = _check_box(box)
        rows = np.asarray(rows, dtype=np.int64)
        x = self.frame["p_top1"].to_numpy(float)[rows]
        y = self.frame["h_norm"].to_numpy(float)[rows]
        return rows[(x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)]

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


def landscape_data(source: Any, *, items: pd.DataFrame | None = None, group: str = "benchmark",
                   label: str | None = "auto", variant: str | Sequence[str] | None = None,
                   name: str | None = None) -> LandscapeData:
    """Landscape points plus item metadata for :class:`benchkit.widgets.LandscapeExplorer`.

    Parameters
    ----------
    source : ResponseSet or LandscapePoints
        A ResponseSet with option probabilities (every principal response becomes a point, via
        :func:`benchkit.landscape.points_from_responses`), or points whose ``meta`` has ``model``
        and ``item`` (optionally ``variant`` and the ``group`` column).
    items : DataFrame, optional
        Item metadata (column ``item`` or an item-id index): ``text``, ``options``,
        ``answer_key``, expert labels (e.g. ``error_type`` of MMLU-Redux). Overrides / adds to the
        ResponseSet's item table.
    group : str
        Item (or point-meta) column of the second picker: ``"benchmark"`` (default) or e.g.
        ``"source"`` for subjects. Points without it get the data's name.
    label : str, "auto" or None
        Item column shown as the expert label; ``"auto"`` takes the first of
        :data:`LABEL_COLUMNS` present.
    variant : str or list of str, optional
        Keep only these variants (ResponseSet input).
    name : str, optional
        Default ``source.name`` for a ResponseSet.

    Returns
    -------
    LandscapeData

    Notes
    -----
    Coordinates are those of :func:`benchkit.landscape.points` (Sec. 3.1-3.2: ``P_top1`` and
    ``H_norm`` over the offered options). Correctness is the responses' ``correct`` column
    (ResponseSet input), so variants that move the key (positional bias) stay right.
    """
    from benchkit.landscape.responses import points_from_responses
    from benchkit.response_set import ResponseSet

    if items is not None and not isinstance(items, pd.DataFrame):
        raise BenchkitTypeError(f"items must be a pandas DataFrame; got {type(items).__name__}")
    if not isinstance(group, str) or not group:
        raise BenchkitValueError(f"group must be a column name; got {describe(group)}")
    base_items = None
    if isinstance(source, ResponseSet):
        cols = tuple(dict.fromkeys([group, "benchmark", "source"]))
        pts = points_from_responses(source, variant=variant, item_columns=cols)
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
    tab, label_col = _item_table(base_items, items, item_ids, label)
    labels = np.asarray(pts.labels, dtype=object)
    if group in meta.columns:
        grp = meta[group].astype(object).to_numpy()
    elif items is not None and group in (items.columns if "item" in items.columns else items.columns):
        src = items.set_index("item") if "item" in items.columns else items
        src = src.copy()
        src.index = src.index.astype(str)
        grp = src[group].reindex(item_ids).to_numpy(dtype=object)
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
    return LandscapeData(frame=frame, items=tab, option_labels=tuple(pts.labels),
                         group_column=group, label_column=label_col, name=name, points=pts)
