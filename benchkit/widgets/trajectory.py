"""Trajectory explorer: BSDProbe item profiles, trajectories and benchmark histograms (paper 000).

:class:`TrajectoryExplorer` shows a :func:`benchkit.boundary.steps.profiles` result:

- an **item list** with x, w, v, o, the flag and Delta, sortable by any of them (click a column
  header) and filterable by the flag, by Delta > 0 / Delta = 0 and by brushed ranges of the
  histograms;
- for the **chosen item** its correctness trajectory C and entropy trajectory E along the model
  axis, the isotonic fit, the Q_0.25 / Q_0.5 / Q_0.75 crossings of the fit (Eq. 4), the high-side
  region H = {i : s_i >= Q_0.75} (Eq. 6), its numbers (Delta, x, w, gamma, mean high-side entropy,
  v, D, o, flag, counts k/T) and, where the data carry them, the question text and the sample
  answers per model (answer states with their counts);
- **benchmark-level histograms** of x and w (Delta > 0 items, with the v-weighted distribution,
  Sec. 3.3), v and o (all items); dragging across a histogram brushes a range and filters the
  list, and the histograms show the filtered items' counts on top of the totals.

Every number comes from the profile result (computed in Python); the view model (item table,
histograms, one item's trajectory, filtering and sorting) is
:class:`benchkit.boundary.explore.TrajectoryView`, which imports nothing from Jupyter. The item
table and the listed indices travel as binary buffers. The front end is
``widgets/trajectory.js``; model labels on the trajectory's axis are thinned / truncated so they
never overlap (full names in tooltips), and the Q0.25 / x / Q0.75 annotations are spread so they
do not collide. ``to_html()`` writes a compact static page (every item's numbers as compressed
binary columns, float32): choosing items, sorting, the flag/Delta filters and brushing all work
there without a kernel.
"""
from __future__ import annotations

from typing import Any
from typing import ClassVar

import numpy as np
import pandas as pd
import traitlets

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.boundary.explore import DELTA_FILTERS
from benchkit.boundary.explore import FLAG_FILTERS
from benchkit.boundary.explore import HIST_VARS
from benchkit.boundary.explore import SORT_KEYS
from benchkit.boundary.explore import TrajectoryView
from benchkit.boundary.explore import trajectory_view
from benchkit.widgets._base import BenchkitWidget
from benchkit.widgets._base import pack_arrays
from benchkit.widgets._base import unpack_arrays

__all__ = ["HIST_VARS", "SORT_KEYS", "TrajectoryExplorer"]

_TABLE_COLS = ("x", "w", "v", "o", "D", "gamma", "delta")


class TrajectoryExplorer(BenchkitWidget):
    """Interactive explorer of BSDProbe item profiles, trajectories and histograms.

    Parameters
    ----------
    result : ProfileResult
        :func:`benchkit.boundary.steps.profiles` output (or a ResponseSet-level result wrapping one,
        whose axis model names are then used), or a :class:`benchkit.boundary.explore.TrajectoryView`.
    items, models, text, entropy, answers, responses :
        Passed to :func:`benchkit.boundary.explore.trajectory_view` (see there).
    selected : int or str, optional
        Item shown first (row index or item id; default the first row of the sorted list).
    bins : int, default 20
        Histogram bins on [0, 1] for x, w, v and o.
    sort_by : str, default "o"
        Initial sort column (one of :data:`SORT_KEYS`); ascending, so flagged items come first.
    text_chars : int, default 600
        Text is cut to this many characters in the widget state.
    n_answers : int, default 6
        Answer states listed per model (most frequent first; the rest are summed as "other").
    **kwargs
        Further widget options, passed on to :class:`anywidget.AnyWidget` (e.g. ``layout=``).

    Notes
    -----
    Synced state (traitlets):
    ``table`` (binary: ``x, w, v, o, D, gamma, delta`` float32 and ``flat, flagged`` uint8 per
    item), ``item_ids``, ``previews`` (text previews or empty), ``models``, ``T``, ``alpha_o``,
    ``entropy_source``, ``summary``, ``histograms`` (per variable: edges, counts, v-weighted
    shares for x and w, population), ``brush`` (variable -> [lo, hi]), ``flag_filter``,
    ``delta_filter``, ``sort_by``, ``sort_descending``, ``visible`` (binary: ``idx`` int32, the
    filtered, sorted row indices), ``hist_selected``, ``selected`` (row index, -1 none),
    ``trajectory`` (everything drawn for the selected item), ``busy``, ``revision``,
    ``static_mode``.

    Filter rule (also applied by the front end of exported pages): an item is listed when, for
    every brushed variable ``var`` with range [lo, hi], ``lo <= value <= hi`` holds, and for x and
    w also Delta > 0 (their histograms count Delta > 0 items, Sec. 3.3); plus the flag filter
    (``o <= alpha_o``) and the Delta filter. Sorting is stable (ties keep row order), missing
    values last. Histogram bins follow :func:`numpy.histogram` on ``linspace(0, 1, bins + 1)``.

    The high-side region drawn is H = {i : s_i >= Q_0.75} (Eq. 6), i.e. the models from
    ``result.high_start`` on; Delta = 0 items have no crossings and no high-side region, and their
    x (App. B position) is drawn as an assigned position.

    Examples
    --------
    Constructing the explorer computes its state in Python; showing it (the last expression of a
    notebook cell) needs a JupyterLab front end, so the examples read its traits instead.

    >>> import numpy as np
    >>> from benchkit.boundary.steps import profiles
    >>> from benchkit.widgets import TrajectoryExplorer
    >>> K = np.array([[0, 3, 7, 10], [5, 5, 5, 5], [1, 4, 2, 9]])  # correct of T=10, 4 models
    >>> explorer = TrajectoryExplorer(profiles(K, 10, items=["q0", "q1", "q2"]))
    >>> explorer.item_ids, explorer.sort_by, explorer.summary["n_flat"]
    (['q0', 'q1', 'q2'], 'o', 1)
    """

    _esm_file = "trajectory.js"
    _css_file = "trajectory.css"
    _html_title = "benchkit trajectory explorer"

    table = traitlets.Bytes(b"").tag(sync=True)
    item_ids = traitlets.List(traitlets.Unicode()).tag(sync=True)
    previews = traitlets.List().tag(sync=True)
    models = traitlets.List(traitlets.Unicode()).tag(sync=True)
    T = traitlets.Int(1).tag(sync=True)
    alpha_o = traitlets.Float(0.05).tag(sync=True)
    entropy_source = traitlets.Unicode("").tag(sync=True)
    summary = traitlets.Dict().tag(sync=True)
    histograms = traitlets.Dict().tag(sync=True)
    brush = traitlets.Dict().tag(sync=True)
    flag_filter = traitlets.Unicode("all").tag(sync=True)
    delta_filter = traitlets.Unicode("all").tag(sync=True)
    sort_by = traitlets.Unicode("o").tag(sync=True)
    sort_descending = traitlets.Bool(False).tag(sync=True)
    visible = traitlets.Bytes(b"").tag(sync=True)
    #: listed items shown in the stored image
    static_rows: ClassVar[int] = 15
    hist_selected = traitlets.Dict().tag(sync=True)
    selected = traitlets.Int(-1).tag(sync=True)
    trajectory = traitlets.Dict().tag(sync=True)

    def __init__(self, result: Any, *, items: Any = None, models: Any = None, text: Any = None,
                 entropy: Any = None, answers: pd.DataFrame | None = None, responses: Any = None,
                 selected: int | str | None = None, bins: int = 20, sort_by: str = "o",
                 text_chars: int = 600, n_answers: int = 6, **kwargs: Any) -> None:
        bins = check_int("bins", bins, min=1, max=1000)
        self._text_chars = check_int("text_chars", text_chars, min=1)
        sort_by = check_choice("sort_by", sort_by, SORT_KEYS)
        if isinstance(result, TrajectoryView):
            view = result
        else:
            view = trajectory_view(result, items=items, models=models, text=text, entropy=entropy,
                                   answers=answers, responses=responses, n_answers=n_answers)
        self._view = view
        self._source = result
        self._edges = np.linspace(0.0, 1.0, bins + 1)
        df = view.frame
        table = pack_arrays(**{k: df[k].to_numpy(np.float32) for k in _TABLE_COLS},
                            flat=df["flat"].to_numpy(bool), flagged=df["flagged"].to_numpy(bool))
        prof = view.profile
        super().__init__(
            table=table, item_ids=list(view.items), previews=view.previews() or [],
            models=list(view.models), T=int(prof.T), alpha_o=float(prof.alpha_o),
            entropy_source=view.entropy_source, summary=view.summary(),
            histograms=view.histograms(self._edges), sort_by=sort_by, **kwargs,
        )
        self._ready = True
        self._refresh()
        m = len(view.items)
        if selected is None:
            vis = self.listed
            first = vis[0] if vis else (0 if m else -1)
            self.selected = first
        else:
            self.selected = self._index_of(selected)
        if self.selected == -1:  # observers run only on change
            self.trajectory = {}

    _ready = False

    def _index_of(self, key) -> int:
        items = self._view.items
        if isinstance(key, str):
            try:
                return items.index(key)
            except ValueError:
                raise BenchkitValueError(f"selected={describe(key)} is not an item id of the result "
                                         f"(e.g. {items[:3]})") from None
        return int(key)

    def _refresh(self) -> None:
        v = self._view
        with self.working("filtering the list"):
            keep = v.mask(self.brush, flag_filter=self.flag_filter, delta_filter=self.delta_filter)
            order = v.order(np.flatnonzero(keep), sort_by=self.sort_by, descending=self.sort_descending)
            self.visible = pack_arrays(idx=order.astype(np.int32))
            self.hist_selected = v.hist_selected(keep, self._edges)

    # ----------------------------------------------------------------- validation / observers
    @traitlets.validate("brush")
    def _valid_brush(self, proposal):
        out = {}
        for var, rng in dict(proposal["value"]).items():
            if var not in HIST_VARS:
                raise BenchkitValueError(f"brush variable {describe(var)} is not one of {list(HIST_VARS)}")
            try:
                lo, hi = (float(v) for v in rng)
            except (TypeError, ValueError):
                raise BenchkitValueError(f"brush[{var!r}] must be [lo, hi]; got {describe(rng)}") from None
            if not (np.isfinite(lo) and np.isfinite(hi) and lo <= hi):
                raise BenchkitValueError(f"brush[{var!r}] must be finite [lo, hi] with lo <= hi; got "
                                         f"{describe(rng)}")
            out[var] = [lo, hi]
        return out

    @traitlets.validate("flag_filter")
    def _valid_flag(self, proposal):
        return check_choice("flag_filter", proposal["value"], FLAG_FILTERS)

    @traitlets.validate("delta_filter")
    def _valid_delta(self, proposal):
        return check_choice("delta_filter", proposal["value"], DELTA_FILTERS)

    @traitlets.validate("sort_by")
    def _valid_sort(self, proposal):
        return check_choice("sort_by", proposal["value"], SORT_KEYS)

    @traitlets.validate("selected")
    def _valid_selected(self, proposal):
        v = int(proposal["value"])
        m = len(self._view.items)
        if v != -1 and not 0 <= v < m:
            raise BenchkitValueError(f"selected={v} must be -1 (none) or a row index 0..{m - 1}")
        return v

    @traitlets.observe("brush", "flag_filter", "delta_filter", "sort_by", "sort_descending")
    def _on_filter(self, change):
        if self._ready:
            self._refresh()

    @traitlets.observe("selected")
    def _on_selected(self, change):
        i = change["new"]
        with self.working("loading the item"):
            self.trajectory = {} if i < 0 else self.cached(
                ("trajectory", i), lambda: self._view.trajectory(i, text_chars=self._text_chars))

    # ----------------------------------------------------------------- Python API
    @property
    def view(self) -> TrajectoryView:
        """The :class:`~benchkit.boundary.explore.TrajectoryView` shown."""
        return self._view

    @property
    def result(self):
        """The :class:`benchkit.boundary.ProfileResult` shown (recomputed if ``entropy`` was given)."""
        return self._view.profile

    @property
    def frame(self) -> pd.DataFrame:
        """``result.to_frame()`` indexed by the item ids shown."""
        return self._view.to_frame()

    @property
    def listed(self) -> list[int]:
        """Row indices of the listed items (filtered and sorted as in the widget)."""
        return unpack_arrays(self.visible).get("idx", np.empty(0, np.int32)).tolist()

    @property
    def rows(self) -> list[dict]:
        """The item table as row dicts (``index, item, x, w, v, o, D, gamma, delta, flat, flagged``)."""
        df = self._view.frame
        out = pd.DataFrame({"index": np.arange(len(df)), "item": self._view.items,
                            **{k: df[k].to_numpy() for k in (*_TABLE_COLS, "flat", "flagged")}})
        from benchkit.widgets._base import to_jsonable

        return to_jsonable(out)

    @property
    def item(self) -> str | None:
        """Id of the selected item (None when none is selected)."""
        return None if self.selected < 0 else self._view.items[self.selected]

    def select(self, item: int | str) -> None:
        """Choose the item shown (row index or item id)."""
        self.selected = self._index_of(item)

    @property
    def filtered(self) -> pd.DataFrame:
        """The listed items (filtered and sorted as in the widget) as rows of :attr:`frame`."""
        return self._view.frame.iloc[self.listed].copy()

    def set_brush(self, var: str, *, lo: float | None = None, hi: float | None = None) -> None:
        """Brush ``var`` (one of x, w, v, o) to [lo, hi]; without lo/hi, clear its brush."""
        var = check_choice("var", var, HIST_VARS)
        b = dict(self.brush)
        if lo is None and hi is None:
            b.pop(var, None)
        else:
            b[var] = [0.0 if lo is None else lo, 1.0 if hi is None else hi]
        self.brush = b

    def clear_filters(self) -> None:
        """Remove every brush and reset the flag and Delta filters."""
        with self.hold_trait_notifications():
            self.brush = {}
            self.flag_filter = "all"
            self.delta_filter = "all"

    def _static_state(self) -> dict:
        """Every item's numbers as binary columns, plus text and compact sample answers."""
        v = self._view
        text = None
        if v.text is not None:
            c = self._text_chars
            text = [None if t is None else (t if len(t) <= c else t[: c - 1] + "…") for t in v.text]
        answers = v.compact_answers()
        return {"bundle_cols": pack_arrays(**v.columns()),
                "bundle": {"text": text, "answers": answers}}

    # ----------------------------------------------------------------- static rendering
    def static_chart(self):
        """The explorer's whole view as one chart: the image stored with the live explorer.

        :func:`benchkit.charts.boundary.distribution_chart` of the profiles (the benchmark-level
        histograms), the selected item's :func:`~benchkit.charts.boundary.trajectory_chart`, and the
        first :attr:`static_rows` listed items (filtered and sorted as shown) with x, w, v, o, the
        flag and Delta.
        """
        import altair as alt

        from benchkit.charts import _text_table
        from benchkit.charts.boundary import distribution_chart
        from benchkit.charts.boundary import trajectory_chart

        prof = self._view.profile
        parts = [distribution_chart(prof, bins=len(self._edges) - 1, width=120, height=90)]
        if self.selected >= 0:
            parts.append(trajectory_chart(prof, [int(self.selected)], models=self._view.models, width=360,
                                          height=220))
        listed = self.listed
        f = self.filtered.head(self.static_rows)
        table = pd.DataFrame({
            "item": [("→ " if i == self.selected else "") + self._view.items[i]
                     for i in listed[:self.static_rows]],
            **{k: [f"{v:.3g}" if k == "o" else f"{v:.2f}" for v in f[k]] for k in ("x", "w", "v", "o")},
            "flag": ["FLAG" if v else "" for v in f["flagged"]],
            "Delta": [f"{v:.2f}" for v in f["delta"]]})
        more = f" (first {len(f)} of {len(listed)})" if len(listed) > len(f) else ""
        parts.append(_text_table(alt, table, {"item": 230, "x": 50, "w": 50, "v": 50, "o": 70, "flag": 45,
                                              "Delta": 50},
                                 title=f"Items listed, sorted by {self.sort_by}{more}"))
        return alt.vconcat(*parts).resolve_scale(color="independent")
