"""Data behind the probability-landscape explorer: points with item metadata, views, brushing.

Paper 003, Sec. 3.1-3.3 (Fig. 2: H_norm versus P_top1 per benchmark; MPD and mean H_norm per
benchmark / model / perturbation, Tables 1-4). :func:`landscape_view` turns a
:class:`benchkit.ResponseSet` with option probabilities (or :class:`LandscapePoints` with ``model``
and ``item`` metadata) into a :class:`LandscapeView`: one row per (model, item, variant) point plus an
item table (text, options, key, expert label). Its methods compute what the explorer
(:class:`benchkit.widgets.LandscapeExplorer`) shows -- the points of a view, the view's MPD and mean
H_norm (:func:`benchkit.landscape.steps.mpd`), a 2-D histogram for dense views, the before/after moves
between two variants and the items inside a brushed rectangle -- so everything the widget shows is
available, and testable, without Jupyter. The results of those methods, :class:`ViewStats` and
:class:`Moves`, are defined in ``_view_results.py``.
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
from benchkit.landscape._view_results import Moves
from benchkit.landscape._view_results import ViewStats

__all__ = ["LandscapeView", "ViewStats", "Moves", "landscape_view", "ALL", "NO_VARIANT",
           "LABEL_COLUMNS", "EXACT_LIMIT", "PAIR_CACHE_LIMIT", "BRUSH_ORDERS"]

#: Picker value meaning "pool every model / group".
ALL = "(all)"
#: Variant name used when the data have no variants.
NO_VARIANT = "(none)"
#: Item columns taken as the expert label by ``label="auto"`` (first present wins).
LABEL_COLUMNS = ("error_type", "expert_label", "label", "taxonomy")
_TEXT_COLUMNS = ("text", "question")
#: Views with at most this many points get the exact MPD by default (about 0.1 s at 50,000 points);
#: larger views get the sampled-pairs estimate with its standard error (Sec. 3.3; exact on request),
#: unless their variant's cell-pair sums are cached (:data:`PAIR_CACHE_LIMIT`).
EXACT_LIMIT = 50_000
#: A variant with at most this many points has the distance sums of every pair of its (model, group)
#: cells computed once, on its first view (one pass over all its pairs: ~1.6 s at 60,000 points in
#: small cells on 2 cores, less when cells of 16,384+ points use float32);
#: :meth:`LandscapeView.view_stats` then gives every view of it -- a union of cells -- its exact
#: MPD in O(cells^2) additions.
PAIR_CACHE_LIMIT = 60_000
#: Orders of a brushed list besides a column name: "stratified" (round-robin over models).
BRUSH_ORDERS = ("stratified",)
_SAMPLED_PAIRS = 200_000


def _mpd_sampled(xy: np.ndarray, n_pairs: int, rng: Any):
    """:func:`benchkit.landscape.steps.mpd` with ``method="sampled"`` (estimate and standard error)."""
    return mpd(xy, method="sampled", n_pairs=n_pairs, rng=rng)


@result
class LandscapeView:
    """Landscape points with their metadata, ready for the explorer.

    The view model of :class:`benchkit.widgets.LandscapeExplorer`: everything it shows (the
    points of a model / group / variant, their MPD and means, densities, moves between variants,
    the items in a brushed box) is a method here, computed without Jupyter.

    Parameters
    ----------
    frame, items, option_labels, group_column, label_column, name, points
        The fields described under Attributes (built by :func:`landscape_view`).

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
        The option letters (``A, B, ...``), in column order of the ``p_<label>`` columns.
    group_column : str
        Item column the group picker uses (default ``"benchmark"``).
    label_column : str or None
        Item column shown as the expert label.
    name : str or None
        The data's name (the ResponseSet's), shown by the explorer.
    points : LandscapePoints
        The points as computed by :func:`benchkit.landscape.steps.points`.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.1-3.3, Fig. 2, Tables
    1-4.

    Examples
    --------
    >>> from benchkit.simulate import load_sample
    >>> from benchkit.landscape.explore import landscape_view
    >>> view = landscape_view(load_sample("mcq"))
    >>> len(view), view.models[:2], view.groups, view.option_labels
    (2400, ['sim-mcq-1', 'sim-mcq-2'], ['sim'], ('A', 'B', 'C', 'D'))
    >>> round(view.stats(view.view_rows(model="sim-mcq-1")).mpd, 3)
    0.282
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
        if method == "auto":
            method = "exact" if n <= EXACT_LIMIT else "sampled"
        m, se = float("nan"), float("nan")
        if n >= 2 and method == "exact":
            m, se = mpd(self._xy(rows)).mpd, 0.0
        elif n >= 2:
            r = _mpd_sampled(self._xy(rows), check_int("n_pairs", n_pairs, min=2), rng)
            m, se = r.mpd, r.se
        return self._summary(rows, m, se, method)

    def _xy(self, rows: np.ndarray) -> np.ndarray:
        c = self.codes
        return np.column_stack([c["x"][rows], c["y"][rows]])

    def _summary(self, rows: np.ndarray, m: float, se: float, method: str) -> ViewStats:
        n = len(rows)
        nan = float("nan")
        if n == 0:
            return ViewStats(0, nan, nan, nan, nan, "exact", nan)
        c = self.codes
        corr = c["c"][rows]
        acc = float((corr == 1).mean()) if (corr >= 0).all() else nan
        return ViewStats(n, float(m), float(c["y"][rows].mean()), float(c["x"][rows].mean()), acc,
                         method, float(se))

    @cached_property
    def _pair_sums(self) -> dict:
        return {}

    def cell_pair_sums(self, variant: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distance sums between the (model, group) cells of one variant, computed once.

        Returns ``(cells, counts, S)``: ``cells`` (C, 2) model and group codes (indices into
        :attr:`models` / :attr:`groups`) of the non-empty cells, ``counts`` (C,) their points and
        ``S`` (C, C) with ``S[a, b]`` (``a <= b``) the sum of the distances between the points of
        cells a and b (pairs ``i < j`` when ``a == b``); ``S`` is upper triangular.

        One pass of the tiled kernel over all pairs of the variant, with tiles that never
        straddle two cells; each cell pair's tile partials are added with :func:`math.fsum`. A
        pair of cells of at least ``FLOAT32_FROM`` (16,384) points each is summed from float32
        coordinates (relative error below 1e-9, as :func:`benchkit.landscape.steps.pairwise_distance_sum`),
        every other cell pair from float64 coordinates (~1e-15).
        """
        import math

        from benchkit._kernels import mpd as kmpd
        from benchkit.landscape._mpd import _SERIAL_BELOW
        from benchkit.landscape._mpd import FLOAT32_FROM
        from benchkit.landscape._mpd import _planar_coordinates

        lv = self._levels
        self._check("variant", variant, lv["variant"], False)
        if variant in self._pair_sums:
            return self._pair_sums[variant]
        c = self.codes
        rows = np.flatnonzero(c["v"] == lv["variant"].index(variant))
        G = max(len(lv["group"]), 1)
        cell = c["m"][rows].astype(np.int64) * G + c["g"][rows]
        order = np.argsort(cell, kind="stable")
        rows, cell = rows[order], cell[order]
        ucell, counts = np.unique(cell, return_counts=True)
        C = ucell.size
        S = np.zeros((C, C))
        if rows.size >= 2:
            starts, seg = kmpd.tile_starts(counts, 512)
            bi, bj = kmpd.tile_tasks(starts.size - 1, 1)
            xy = self._xy(rows)
            # float32 coordinates only for pairs of two cells of >= FLOAT32_FROM points (relative
            # error of each such cell-pair sum <= 1e-9); float64 for every other cell pair
            big = counts[seg] >= FLOAT32_FROM
            parts = np.empty(bi.size)
            for use32 in (False, True):
                t = np.flatnonzero((big[bi] & big[bj]) == use32)
                if t.size:
                    x, y = _planar_coordinates(xy, float32=use32)
                    fn = kmpd.pair_sums_tiles if rows.size >= _SERIAL_BELOW else kmpd.pair_sums_tiles_serial
                    parts[t] = fn(x, y, starts, bi[t], bj[t])
            key = seg[bi] * C + seg[bj]  # tiles are in cell order: seg[bi] <= seg[bj]
            o = np.argsort(key, kind="stable")
            key, parts = key[o], parts[o]
            cuts = np.flatnonzero(np.r_[True, key[1:] != key[:-1], True])
            for lo, hi in zip(cuts[:-1], cuts[1:]):
                S.flat[key[lo]] = math.fsum(parts[lo:hi].tolist())
        out = (np.column_stack([ucell // G, ucell % G]), counts, S)
        self._pair_sums[variant] = out
        return out

    def pair_cacheable(self, variant: str) -> bool:
        """Whether ``variant`` has at most :data:`PAIR_CACHE_LIMIT` points (:meth:`view_stats`)."""
        lv = self._levels
        self._check("variant", variant, lv["variant"], False)
        return int(np.count_nonzero(self.codes["v"] == lv["variant"].index(variant))) <= PAIR_CACHE_LIMIT

    def view_stats(self, *, model: str = ALL, group_value: str = ALL, variant: str | None = None,
                   method: str = "auto", n_pairs: int = _SAMPLED_PAIRS, rng: Any = 0) -> ViewStats:
        """:meth:`stats` of a view, with the exact MPD from the cached cell-pair sums.

        When the variant has at most :data:`PAIR_CACHE_LIMIT` points, ``"auto"`` and ``"exact"``
        take the view's MPD from :meth:`cell_pair_sums`: the view is a union of (model, group)
        cells, so its pair-distance sum is the ``math.fsum`` of the cached sums of its cell pairs
        (O(cells^2) additions; equal to the pairwise mean of the view's points to 1e-9 relative).
        Otherwise as :meth:`stats`.
        """
        method = check_choice("method", method, ("exact", "sampled", "auto"))
        lv = self._levels
        variant = lv["variant"][0] if variant is None else variant
        rows = self.view_rows(model=model, group_value=group_value, variant=variant)
        if method == "sampled" or not self.pair_cacheable(variant):
            return self.stats(rows, method=method, n_pairs=n_pairs, rng=rng)
        import math

        cells, counts, S = self.cell_pair_sums(variant)
        keep = np.ones(len(counts), dtype=bool)
        if model != ALL:
            keep &= cells[:, 0] == lv["model"].index(model)
        if group_value != ALL:
            keep &= cells[:, 1] == lv["group"].index(group_value)
        n = int(counts[keep].sum())
        m = math.fsum(S[np.ix_(keep, keep)].ravel().tolist()) / (n * (n - 1) // 2) if n >= 2 else \
            float("nan")
        return self._summary(rows, m, 0.0 if n >= 2 else float("nan"), "exact")

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
        ``frame`` (one row per point), ``items`` (text, options, key, label per item) and the
        methods the explorer calls.

    Notes
    -----
    Coordinates are those of :func:`benchkit.landscape.steps.points` (Sec. 3.1-3.2: ``P_top1`` and
    ``H_norm`` over the offered options). Correctness is the responses' ``correct`` column
    (ResponseSet input), so variants that move the key (positional bias) stay right.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.1-3.3, Fig. 2.

    Examples
    --------
    From points whose metadata names the model, the item and the benchmark (the group picker):

    >>> import pandas as pd
    >>> from benchkit.landscape.steps import points
    >>> from benchkit.landscape.explore import landscape_view
    >>> meta = pd.DataFrame({"model": ["m1", "m1", "m2", "m2"], "item": ["q1", "q2"] * 2,
    ...                      "benchmark": ["arc", "mmlu"] * 2})
    >>> view = landscape_view(points([[0.6, 0.2, 0.2], [0.5, 0.4, 0.1], [0.9, 0.05, 0.05],
    ...                               [0.3, 0.3, 0.4]], meta=meta, answer=[0, 1, 0, 2]))
    >>> view.models, view.groups, view.variants
    (['m1', 'm2'], ['arc', 'mmlu'], ['(none)'])
    >>> view.frame[["model", "item", "group", "pred", "correct"]]
      model item group pred  correct
    0    m1   q1   arc    A     True
    1    m1   q2  mmlu    A    False
    2    m2   q1   arc    A     True
    3    m2   q2  mmlu    C     True
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
