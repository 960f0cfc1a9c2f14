"""Benchmark² dashboard: benchmark quality at a glance (paper 004).

:class:`QualityDashboard` shows a :class:`benchkit.quality.QualityResult`:

- Table 1 in the paper's layout: benchmarks x metrics (CBRC, DS, CAD, raw CAD, BQS), each cell
  coloured by the paper's quality band, the bootstrap interval (Table 14) in its tooltip; clicking
  a row selects the benchmark;
- the pairwise Kendall tau_b heatmap of the selected benchmark's domain (Tables 15-17);
- the per-family CAD of the selected benchmark (Table 7) as bars with their bands, and its items
  with within-family inversions (most first, the inverted pairs and the item text where present),
  paged;
- the selection-ratio curve (Figure 2: tau, stability and DS of the selective benchmark against
  the ratio) with a draggable ratio: the subset at that ratio (exactly
  :func:`benchkit.quality.explore.subset_view`: the first ``max(1, round(ratio * n))`` items of the
  strategy's order) is listed with its tau / stability / DS, computed in Python.

Every number comes from :mod:`benchkit.quality` (view models in :mod:`benchkit.quality.explore`).
``to_html()`` writes an offline page with every benchmark's views; there the ratio snaps to the
precomputed grid (``ratios``), whose subsets were computed in Python with the same seeds.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import traitlets

from benchkit._random import check_rng
from benchkit._random import seed_sequence
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.widgets._base import BenchkitWidget
from benchkit.widgets._base import to_jsonable

__all__ = ["QualityDashboard"]

#: Table 1 columns shown (metric key, header)
#: Figure 2's ratios (10%, 15%, ..., 100%)
_GRID = tuple(float(r) for r in np.round(np.arange(0.1, 1.0001, 0.05), 2))
_COLUMNS = (("cbrc", "CBRC"), ("ds", "DS"), ("cad", "CAD"), ("raw_cad", "raw CAD"), ("bqs", "BQS"))


class QualityDashboard(BenchkitWidget):
    """Interactive Benchmark² dashboard of a :class:`~benchkit.quality.QualityResult`.

    Parameters
    ----------
    result : QualityResult
        From :func:`benchkit.quality.assess`.
    benchmark : str, optional
        The benchmark shown first (default the first of ``result.table``).
    method : str
        Selection strategy of the ratio curve (default ``"cad+ds"``, the paper's; any
        deterministic one of :data:`benchkit.quality.METHODS`).
    cad_threshold : float
        For ``method="cad-threshold"`` (default 0.15).
    ratio : float
        The ratio shown first (default 0.35, the paper's headline ratio).
    ratios : sequence of float
        The curve's grid (default 0.10, 0.15, ..., 1.00 as Figure 2); exported pages snap the
        ratio to it.
    n_rep : int
        Stability draws, the paper's K (default 100, Sec. 3.4).
    selection : SelectionView, optional
        A :func:`benchkit.quality.explore.selection_view` of ``result`` already computed (e.g.
        for Figure 2) with the same ``method``: reused for the curve, its ratios become the grid
        (``ratios``, ``n_rep`` and ``cad_threshold`` are then its own). Default: computed here.
    rng : None, int or SeedSequence
        Seeds the stability draws: the curve and every subset readout use fixed children of it,
        so the same ratio always shows the same numbers (default 0). A Generator is not accepted
        (the dashboard recomputes on demand and must stay reproducible).
    progress : bool
        Show a progress bar while the curve is computed (default False; it is the slow part of
        the build: about 35 s for the notebook's 24 benchmarks, a few seconds for a handful).
    text_chars : int
        Item text is cut to this many characters in the widget state (default 240).
    **kwargs
        Further widget options, passed on to :class:`anywidget.AnyWidget` (e.g. ``layout=``).

    Notes
    -----
    Synced state (traitlets):
    ``table`` (Table 1 rows with bands and intervals), ``benchmarks``, ``domains``, ``kendall``
    ({domain: {names, tau}}), ``benchmark`` (selected), ``families`` (Table 7 rows of it),
    ``inverted`` (its inverted items), ``curve`` (its Figure 2 rows; ``mean_curve`` over
    benchmarks), ``n_items``, ``has_curve``, ``ratio``, ``ratio_grid``, ``subset`` ({ratio,
    n_items, share, tau, stability, ds, items, text}), ``method``, plus ``busy``, ``revision``,
    ``static_mode``.

    Python accessors: :attr:`result`, :attr:`selection` (the
    :class:`~benchkit.quality.explore.SelectionView`), :attr:`subset_items` (the subset at the current
    ratio as a DataFrame), :meth:`subset_for`.

    Examples
    --------
    Constructing the explorer computes its state in Python; showing it (the last expression of a
    notebook cell) needs a JupyterLab front end, so the examples read its traits instead.

    >>> import benchkit
    >>> from benchkit.quality import assess
    >>> from benchkit.widgets import QualityDashboard
    >>> result = assess(benchkit.simulate.load_sample("suite"), family_by="family",
    ...                 n_resamples=0, progress=False)
    >>> dashboard = QualityDashboard(result, ratio=0.5, ratios=(0.5, 1.0), n_rep=5)
    >>> dashboard.benchmark, dashboard.ratio_grid, dashboard.subset["n_items"]
    ('math', [0.5, 1.0], 50)
    """

    _esm_file = "quality.js"
    _css_file = "quality.css"
    _html_title = "benchkit Benchmark² dashboard"

    table = traitlets.List(traitlets.Dict()).tag(sync=True)
    columns = traitlets.List().tag(sync=True)
    benchmarks = traitlets.List(traitlets.Unicode()).tag(sync=True)
    domains = traitlets.Dict().tag(sync=True)
    kendall = traitlets.Dict().tag(sync=True)
    benchmark = traitlets.Unicode("").tag(sync=True)
    families = traitlets.List(traitlets.Dict()).tag(sync=True)
    inverted = traitlets.List(traitlets.Dict()).tag(sync=True)
    curve = traitlets.List(traitlets.Dict()).tag(sync=True)
    mean_curve = traitlets.List(traitlets.Dict()).tag(sync=True)
    n_items = traitlets.Int(0).tag(sync=True)
    has_curve = traitlets.Bool(True).tag(sync=True)
    ratio = traitlets.Float(0.35).tag(sync=True)
    ratio_grid = traitlets.List(traitlets.Float()).tag(sync=True)
    subset = traitlets.Dict().tag(sync=True)
    method = traitlets.Unicode("cad+ds").tag(sync=True)

    def __init__(self, result: Any, *, benchmark: str | None = None, method: str = "cad+ds",
                 cad_threshold: float = 0.15, ratio: float = 0.35,
                 ratios=_GRID, n_rep: int = 100,
                 rng=0, text_chars: int = 240, selection=None, progress: bool = False,
                 **kwargs: Any) -> None:
        from benchkit.quality import METHODS
        from benchkit.quality import QualityResult
        from benchkit.quality.explore import metrics_view
        from benchkit.quality.explore import selection_view

        if not isinstance(result, QualityResult):
            raise BenchkitValueError(
                f"result must be a benchkit.quality.QualityResult (from benchkit.quality.assess); "
                f"got {type(result).__name__}")
        check_choice("method", method, [m for m in METHODS if m != "random"])
        if isinstance(rng, np.random.Generator):
            raise BenchkitValueError("rng must be None, an int or a SeedSequence for the dashboard "
                                     "(a Generator would make readouts depend on the order of use)")
        check_rng(rng)
        self._result = result
        self._n_rep = check_int("n_rep", n_rep, min=2)
        self._text_chars = check_int("text_chars", text_chars, min=1)
        self._cad_threshold = check_float("cad_threshold", cad_threshold, min=0.0, max=1.0)
        grid = sorted({float(check_float("ratios", r, min=0.0, max=1.0, min_inclusive=False))
                       for r in np.atleast_1d(np.asarray(ratios, dtype=float))})
        if not grid:
            raise BenchkitValueError("ratios must hold at least one ratio in (0, 1]")
        ss = seed_sequence(rng)
        s_curve, self._s_subset = ss.spawn(2)
        names = list(result.table.index)
        self._bench_seed = dict(zip(names, self._s_subset.spawn(len(names))))
        if selection is None:
            selection = selection_view(result, ratios=grid, method=method,
                                       cad_threshold=cad_threshold, n_rep=n_rep, rng=s_curve,
                                       progress=bool(progress))
        else:
            from benchkit.quality.explore import SelectionView

            if not isinstance(selection, SelectionView):
                raise BenchkitValueError("selection must be a benchkit.quality.explore.SelectionView (from "
                                         f"explore.selection_view); got {type(selection).__name__}")
            if selection.method != method or set(selection.order) - set(result.matrices):
                raise BenchkitValueError(
                    f"selection was computed with method={selection.method!r} on other benchmarks;"
                    f" the dashboard shows method={method!r} of this result")
            grid = sorted({float(r) for r in selection.curve["ratio"]})
            self._cad_threshold = float(selection.cad_threshold)
        self._selection = selection
        if benchmark is None:
            benchmark = names[0]
        check_choice("benchmark", benchmark, names)
        mv = metrics_view(result)
        rows = []
        for b in names:
            row = {"benchmark": b, "domain": str(result.domains[b]),
                   "n_items": int(result.table.at[b, "n_items"]),
                   "n_models": int(result.table.at[b, "n_models"])}
            for m, _ in _COLUMNS:
                r = mv[(mv["benchmark"] == b) & (mv["metric"] == m)].iloc[0]
                row[m] = r["value"]
                row[f"{m}_low"] = r["low"]
                row[f"{m}_high"] = r["high"]
                row[f"{m}_band"] = r["band"]
            rows.append(row)
        kv = {}
        for d in result.kendall:
            order = list(result.kendall[d].index)
            kv[str(d)] = {"names": order, "tau": result.kendall[d].loc[order, order].to_numpy()}
        curve = self._selection.curve
        mean = curve[curve["benchmark"] == "mean"].sort_values("ratio")
        super().__init__(table=to_jsonable(rows), columns=[list(c) for c in _COLUMNS],
                         benchmarks=names, domains={b: str(result.domains[b]) for b in names},
                         kendall=to_jsonable(kv), ratio_grid=grid, method=method,
                         mean_curve=to_jsonable(mean[["ratio", "tau", "stability", "ds"]]),
                         **kwargs)
        self.ratio = check_float("ratio", ratio, min=0.0, max=1.0, min_inclusive=False)
        self.benchmark = benchmark

    # ----------------------------------------------------------------- accessors
    @property
    def selection(self):
        """The :class:`~benchkit.quality.explore.SelectionView` behind the curve (all benchmarks)."""
        return self._selection

    def subset_for(self, benchmark: str, ratio: float) -> dict:
        """The selective benchmark of ``benchmark`` at ``ratio`` (what the readout shows).

        At a grid ratio the curve's point (:func:`benchkit.quality.steps.selection_sweep`), elsewhere
        :func:`benchkit.quality.explore.subset_view` with the dashboard's strategy and a fixed child seed
        per (benchmark, ratio) (cached). Items are the first ``max(1, round(ratio * n))`` of the
        strategy's order in both cases.
        """
        from benchkit.quality.explore import subset_view

        check_choice("benchmark", benchmark, self.benchmarks)
        r = check_float("ratio", ratio, min=0.0, max=1.0, min_inclusive=False)

        curve = self._selection.curve
        row = curve[(curve["benchmark"] == benchmark) & np.isclose(curve["ratio"], r, rtol=0,
                                                                   atol=1e-9)]
        if len(row):  # a grid ratio: the curve's own point (same numbers as drawn)
            row = row.iloc[0]
            items = list(row["items"])
            text = self._result.item_text.get(benchmark)
            return {"n_items": int(row["n_items"]), "share": float(row["share"]),
                    "tau": float(row["tau"]), "stability": float(row["stability"]),
                    "ds": float(row["ds"]), "items": items,
                    "text": None if text is None else list(text.reindex(items))}

        def compute():
            # the same child seed for every (benchmark, ratio): readouts are reproducible
            seed = np.random.SeedSequence(self._bench_seed[benchmark].entropy,
                                          spawn_key=(*self._bench_seed[benchmark].spawn_key,
                                                     round(r * 10_000)))
            return subset_view(self._result, benchmark, r, method=self.method,
                             cad_threshold=self._cad_threshold, n_rep=self._n_rep, rng=seed)

        return self.cached(("subset", benchmark, r), compute)

    @property
    def subset_items(self) -> pd.DataFrame:
        """The subset at the current ratio: ``item`` (best first) and ``text`` (where present)."""
        s = self.subset
        return pd.DataFrame({"item": s.get("items", []), "text": s.get("text") or
                             [None] * len(s.get("items", []))})

    # ----------------------------------------------------------------- views
    def _cut(self, text):
        if text is None or (isinstance(text, float) and np.isnan(text)):
            return None
        text = str(text)
        return text if len(text) <= self._text_chars else text[: self._text_chars - 1] + "…"

    def _bench_view(self, b: str) -> dict:
        from benchkit.quality.explore import family_view

        fam, inv = family_view(self._result, b)
        fam = fam.rename(columns={fam.columns[0]: "family"})
        inv = inv.copy()
        if "text" in inv.columns:
            inv["text"] = [self._cut(t) for t in inv["text"]]
        curve = self._selection.curve
        cb = curve[curve["benchmark"] == b].sort_values("ratio")
        has = b in self._selection.order
        return {"families": to_jsonable(fam), "inverted": to_jsonable(inv),
                "curve": to_jsonable(cb[["ratio", "tau", "stability", "ds", "n_items"]]),
                "n_items": len(self._selection.criteria[b]) if has else 0, "has_curve": has}

    def _subset_view(self, b: str, r: float) -> dict:
        if b not in self._selection.order:
            return {"ratio": r, "n_items": 0, "items": [], "text": None}
        s = self.subset_for(b, r)
        text = s.get("text")
        return to_jsonable({"ratio": r, "n_items": s["n_items"], "share": s["share"],
                            "tau": s["tau"], "stability": s["stability"], "ds": s["ds"],
                            "items": [str(i) for i in s["items"]],
                            "text": None if text is None else [self._cut(t) for t in text]})

    def _load(self, b: str) -> None:
        view = self.cached(("bench", b), lambda: self._bench_view(b))
        with self.working(f"loading {b}"), self.hold_sync():
            self.families = view["families"]
            self.inverted = view["inverted"]
            self.curve = view["curve"]
            self.n_items = view["n_items"]
            self.has_curve = view["has_curve"]
            self.subset = self._subset_view(b, self.ratio)

    # ----------------------------------------------------------------- observers
    @traitlets.validate("benchmark")
    def _valid_benchmark(self, proposal):
        v = proposal["value"]
        if v not in self._result.table.index:
            raise BenchkitValueError(f"benchmark={describe(v)} is not in the result; choose one "
                                     f"of {list(self._result.table.index)}")
        return v

    @traitlets.validate("ratio")
    def _valid_ratio(self, proposal):
        return check_float("ratio", proposal["value"], min=0.0, max=1.0, min_inclusive=False)

    @traitlets.observe("benchmark")
    def _on_benchmark(self, change):
        self._load(change["new"])

    @traitlets.observe("ratio")
    def _on_ratio(self, change):
        if not self.benchmark:
            return
        with self.working(f"selecting {change['new']:.0%} of the items"):
            self.subset = self._subset_view(self.benchmark, change["new"])

    # ----------------------------------------------------------------- export
    def _static_state(self) -> dict:
        """Every benchmark's views and its subsets at each grid ratio.

        Metrics; the items are the first ``n_items`` of ``order``, so the exported page works without a
        kernel.
        """
        bundle = {}
        for b in self.benchmarks:
            view = dict(self.cached(("bench", b), lambda b=b: self._bench_view(b)))
            order = [str(i) for i in self._selection.order.get(b, [])]
            subs = {}
            text = None
            if view["has_curve"]:
                for r in self.ratio_grid:
                    s = self._subset_view(b, r)
                    subs[f"{r:.4f}"] = {k: s[k] for k in ("n_items", "share", "tau", "stability",
                                                          "ds")}
                    # the subset is a prefix of the order (checked here, relied on by the page)
                    if s["items"] != order[:s["n_items"]]:  # pragma: no cover - invariant
                        raise AssertionError(f"subset of {b} at {r} is not a prefix of its order")
                t = self._result.item_text.get(b)
                if t is not None:
                    text = [self._cut(v) for v in t.reindex(order)]
            bundle[b] = {**view, "order": order, "text": text, "subsets": subs}
        return {"bundle": bundle}

    def static_chart(self):
        """The dashboard's whole view as one chart: the image stored with the explorer.

        Table 1 of every benchmark (value and band of each metric), then the selected benchmark's
        Figure 2 (:func:`benchkit.charts.quality.selection_curve_chart`) beside the Kendall heatmap
        of its domain (:func:`~benchkit.charts.quality.kendall_heatmap_chart`, when the domain has
        two or more benchmarks), then its per-family CAD (Table 7,
        :func:`~benchkit.charts.quality.family_cad_chart`) when a family has two or more models.
        """
        import altair as alt
        import pandas as pd

        from benchkit.charts import _text_table
        from benchkit.charts.quality import family_cad_chart
        from benchkit.charts.quality import kendall_heatmap_chart
        from benchkit.charts.quality import selection_curve_chart

        def cell(r, m):
            v = r.get(m)
            text = "–" if v is None else f"{v:.3f}"
            return f"{text} ({r[m + '_band']})" if r.get(m + "_band") else text

        table = pd.DataFrame([{
            "benchmark": r["benchmark"] + (" (selected)" if r["benchmark"] == self.benchmark else ""),
            "domain": r["domain"], "items": str(r["n_items"]), "models": str(r["n_models"]),
            **{label: cell(r, m) for m, label in _COLUMNS}} for r in self.table])
        # wide enough for the bands' longest names ("(significant issues)"); under 960 px in all
        # with the offset the rows below give it (their axis labels)
        widths = {"benchmark": 165, "domain": 65, "items": 35, "models": 42, "CBRC": 100, "DS": 100,
                  "CAD": 148, "raw CAD": 118, "BQS": 40}
        parts = [_text_table(alt, table, widths, title="Benchmark quality (Table 1 layout)")]
        row = []
        curve = self._selection.curve
        if self.has_curve and self.benchmark in set(curve["benchmark"]):
            row.append(selection_curve_chart(curve, benchmarks=[self.benchmark],
                                             title=f"{self.benchmark}: selection ratio curve"))
        domain = self.domains.get(self.benchmark)
        if domain is not None and len(self._result.kendall.get(domain, ())) >= 2:
            row.append(kendall_heatmap_chart(self._result, domain=domain))
        if row:
            parts.append(alt.hconcat(*row).resolve_scale(color="independent"))
        if self.families:
            parts.append(family_cad_chart(self._result, benchmarks=[self.benchmark]))
        return alt.vconcat(*parts).resolve_scale(color="independent")
