r"""ECDF gap explorer: a benchmark's normalized difficulties against the uniform reference (paper 002).

:class:`ECDFGapExplorer` shows, for one benchmark at a time (picked from a Table 1 of many):

- the ECDF of the normalized item difficulties and the same-size uniform reference (atoms at
  (i - 0.5)/n), with the area between them shaded — that area is DDM;
- the top-k gaps (default 5) as bands with their widths labelled;
- on clicking a gap: its target :math:`z^\star` and the neighbouring items on each side (ids,
  difficulty, text where the data carry it), from :func:`benchkit.measure.steps.gap_targets`;
- the what-if of adding items: clicking the strip under the x axis adds an item at that
  difficulty; Python recomputes the metrics with :func:`benchkit.measure.steps.what_if` and syncs them
  back (the "after" ECDF is drawn dashed, the metrics show before -> after).

Input is a :class:`benchkit.measure.BenchmarkMeasures` (from
:func:`benchkit.measure.measure_benchmarks`), or anything that function accepts.
``to_html()`` writes a static page with every benchmark embedded (picker, gap bands and
neighbour lists work there; adding items needs the kernel and is disabled).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import traitlets

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.widgets._base import BenchkitWidget
from benchkit.widgets._base import pack_arrays
from benchkit.widgets._base import to_jsonable
from benchkit.widgets._base import unpack_arrays

__all__ = ["ECDFGapExplorer"]


def _metrics(summary) -> dict:
    return {"ddm": float(summary.ddm), "max_gap": float(summary.max_gap),
            "top_sum": float(summary.top_sum), "n_items": int(summary.n_items),
            "k": len(summary.top_gaps)}


def _gaps(top) -> list[dict]:
    return [{"rank": g.rank, "left": g.left, "right": g.right, "width": g.width,
             "midpoint": g.midpoint} for g in top]


class ECDFGapExplorer(BenchkitWidget):
    """Interactive ECDF / coverage-gap explorer over many benchmarks.

    Parameters
    ----------
    result : BenchmarkMeasures, ResponseSet or mapping
        A :func:`benchkit.measure.measure_benchmarks` result; anything else is passed to
        that function first (with default options).
    benchmark : str, optional
        The benchmark shown first (default the first).
    n_neighbors : int
        Items listed on each side of a clicked gap (default 5).
    text_chars : int
        Item text is cut to this many characters in the widget state (default 300; the full text
        stays in ``result``).
    **kwargs
        Further widget options, passed on to :class:`anywidget.AnyWidget` (e.g. ``layout=``).

    Notes
    -----
    Synced state (traitlets):
    ``benchmarks`` (names), ``table`` (Table 1 rows), ``thresholds``, ``benchmark`` (selected),
    ``z`` (binary, ``pack_arrays(z=...)``: its sorted normalized difficulties, float64),
    ``metrics``, ``gaps`` (top-k, widest first), ``gap_items`` (per gap, its neighbour rows),
    ``selected_gap`` (index into ``gaps``, -1 none), ``added`` (what-if difficulties in [0, 1]),
    ``after`` (metrics and gaps after adding them; empty when none), ``busy``, ``revision``,
    ``static_mode``. Adjacent gap bands alternate two hues and their width labels are spread in one
    row above the plot (never stacked).

    Python accessors: :attr:`measure` (the selected :class:`BenchmarkMeasure`),
    :attr:`selected_items` (the clicked gap's neighbours as a DataFrame), :attr:`what_if_result`
    (the last :class:`benchkit.measure.WhatIf`), :meth:`add_items`, :meth:`clear_added`.

    Examples
    --------
    Constructing the explorer computes its state in Python; showing it (the last expression of a
    notebook cell) needs a JupyterLab front end, so the examples read its traits instead.

    >>> import benchkit
    >>> from benchkit.widgets import ECDFGapExplorer
    >>> explorer = ECDFGapExplorer(benchkit.simulate.load_sample("suite"))
    >>> explorer.benchmarks, round(explorer.metrics["max_gap"], 3)
    (['sample-suite'], 0.129)
    """

    _esm_file = "ecdf_gap.js"
    _css_file = "ecdf_gap.css"
    _html_title = "benchkit ECDF gap explorer"

    benchmarks = traitlets.List(traitlets.Unicode()).tag(sync=True)
    table = traitlets.List(traitlets.Dict()).tag(sync=True)
    thresholds = traitlets.List(traitlets.Float()).tag(sync=True)
    benchmark = traitlets.Unicode("").tag(sync=True)
    z = traitlets.Bytes(b"").tag(sync=True)
    metrics = traitlets.Dict().tag(sync=True)
    gaps = traitlets.List(traitlets.Dict()).tag(sync=True)
    gap_items = traitlets.List(traitlets.List(traitlets.Dict())).tag(sync=True)
    selected_gap = traitlets.Int(-1).tag(sync=True)
    added = traitlets.List(traitlets.Float()).tag(sync=True)
    after = traitlets.Dict().tag(sync=True)

    def __init__(self, result: Any, *, benchmark: str | None = None, n_neighbors: int = 5,
                 text_chars: int = 300, **kwargs: Any) -> None:
        from benchkit.measure import BenchmarkMeasures
        from benchkit.measure import measure_benchmarks

        if not isinstance(result, BenchmarkMeasures):
            result = measure_benchmarks(result)
        self._result = result
        self._n_neighbors = check_int("n_neighbors", n_neighbors, min=1)
        self._text_chars = check_int("text_chars", text_chars, min=1)
        self._what_if = None
        names = result.names
        if benchmark is None:
            benchmark = names[0]
        self._check_name(benchmark)
        df = result.to_frame()
        top = f"Top-{result.k} Sum"
        rows = [{"name": r["Benchmark"], "ddm": r["DDM"], "max_gap": r["Max Gap"],
                 "top_sum": r[top], "n_items": r["#"], "n_models": r["models"],
                 "ddm_high": r["DDM high"], "gap_high": r["Max Gap high"],
                 "top_high": r[f"{top} high"]} for r in df.to_dict(orient="records")]
        super().__init__(benchmarks=names, table=to_jsonable(rows),
                         thresholds=[float(t) for t in result.table.thresholds], **kwargs)
        # set after construction so the observer fills the per-benchmark traits
        self.benchmark = benchmark

    # ----------------------------------------------------------------- helpers
    @property
    def measure(self):
        """The selected benchmark's :class:`~benchkit.measure.BenchmarkMeasure`."""
        return self._result[self.benchmark]

    def _check_name(self, name: str) -> None:
        if name not in self._result.names:
            raise BenchkitValueError(
                f"benchmark={describe(name)} is not in the result; choose one of "
                f"{self._result.names}"
            )

    def _cut(self, text):
        if text is None:
            return None
        text = str(text)
        return text if len(text) <= self._text_chars else text[: self._text_chars - 1] + "…"

    def _view(self, bm) -> dict:
        """All per-benchmark state for ``bm`` (also what the static page embeds)."""
        gt = bm.gap_targets(n_neighbors=self._n_neighbors)
        nb = gt.neighbors
        per_gap = []
        for g in gt.gaps:
            sub = nb[nb["rank"] == g.rank]
            per_gap.append([{"side": r["side"], "order": int(r["order"]), "item": str(r["item"]),
                             "z": float(r["z"]), "distance": float(r["distance"]),
                             "text": self._cut(r.get("text"))} for r in sub.to_dict(orient="records")])
        return {"z": np.sort(np.asarray(bm.z, dtype=np.float64)), "metrics": _metrics(bm.summary),
                "gaps": _gaps(bm.top_gaps), "gap_items": to_jsonable(per_gap)}

    def _load(self, name: str) -> None:
        view = self.cached(("view", name), lambda: self._view(self._result[name]))
        self._what_if = None
        with self.working(f"loading {name}"), self.hold_sync():
            self.selected_gap = -1
            self.added = []
            self.after = {}
            self.z = pack_arrays(z=view["z"])
            self.metrics = view["metrics"]
            self.gaps = view["gaps"]
            self.gap_items = view["gap_items"]

    # ----------------------------------------------------------------- validation / observers
    @traitlets.validate("benchmark")
    def _valid_benchmark(self, proposal):
        self._check_name(proposal["value"])
        return proposal["value"]

    @traitlets.validate("selected_gap")
    def _valid_gap(self, proposal):
        v = int(proposal["value"])
        n = len(self.gaps)
        if v != -1 and not 0 <= v < n:
            raise BenchkitValueError(f"selected_gap={v} must be -1 (none) or 0..{n - 1}")
        return v

    @traitlets.validate("added")
    def _valid_added(self, proposal):
        vals = [float(v) for v in proposal["value"]]
        for v in vals:
            if not (np.isfinite(v) and 0.0 <= v <= 1.0):
                raise BenchkitValueError(
                    f"added items need normalized difficulties in [0, 1]; got {describe(v)}"
                )
        return vals

    @traitlets.observe("benchmark")
    def _on_benchmark(self, change):
        self._load(change["new"])

    @traitlets.observe("added")
    def _on_added(self, change):
        vals = change["new"]
        with self.working("recomputing the metrics"):
            if not vals:
                self._what_if = None
                self.after = {}
                return
            wi = self.measure.what_if(np.asarray(vals, dtype=float), k=self._result.k)
            self._what_if = wi
            after = _metrics(wi.after)
            after["gaps"] = _gaps(wi.after.top_gaps)
            self.after = to_jsonable(after)

    # ----------------------------------------------------------------- Python API
    @property
    def selected_items(self) -> pd.DataFrame:
        """Neighbours of the selected gap (``side, order, item, z, distance, text``); empty if none."""
        cols = ["side", "order", "item", "z", "distance", "text"]
        if self.selected_gap < 0:
            return pd.DataFrame(columns=cols)
        return pd.DataFrame(self.gap_items[self.selected_gap], columns=cols)

    @property
    def what_if_result(self):
        """The :class:`benchkit.measure.WhatIf` of the current additions (None without any)."""
        return self._what_if

    def add_items(self, z: Any) -> None:
        """Add what-if items at normalized difficulties ``z`` (a float or a sequence)."""
        vals = np.atleast_1d(np.asarray(z, dtype=float)).tolist()
        self.added = [*self.added, *vals]

    def clear_added(self) -> None:
        """Remove all what-if items."""
        self.added = []

    @property
    def z_values(self) -> np.ndarray:
        """The selected benchmark's sorted normalized difficulties (the ``z`` trait's array)."""
        return unpack_arrays(self.z)["z"]

    def _static_state(self) -> dict:
        """Every benchmark's view (z as one float32 binary column).

        So the exported page can switch benchmarks without a kernel.
        """
        bundle, zs, off = {}, [], 0
        for b in self._result:
            view = dict(self.cached(("view", b.name), lambda b=b: self._view(b)))
            z = view.pop("z")
            bundle[b.name] = {"offset": off, "n": len(z), **view}
            zs.append(z.astype(np.float32))
            off += len(z)
        z_all = np.concatenate(zs) if zs else np.zeros(0, np.float32)
        return {"bundle": bundle, "bundle_z": pack_arrays(z=z_all)}

    def static_chart(self):
        """The explorer's whole view as one chart: the image stored with the live explorer.

        :func:`benchkit.charts.measure.ecdf_chart` of the selected benchmark (ECDF against the
        uniform reference, DDM area, top gaps), the items beside the selected gap when one is
        picked, the what-if result when items were added, and Table 1 of every benchmark
        (:func:`~benchkit.charts.measure.measure_table_chart`).
        """
        import altair as alt
        import pandas as pd

        from benchkit.charts import _text_table
        from benchkit.charts.measure import ecdf_chart
        from benchkit.charts.measure import measure_table_chart

        parts = [ecdf_chart(self.measure, width=460, height=280)]
        if self.selected_gap >= 0:
            g = self.gaps[self.selected_gap]
            rows = pd.DataFrame(self.gap_items[self.selected_gap])
            if len(rows):
                rows = rows.assign(z=rows["z"].map("{:.3f}".format), text=rows["text"].fillna(""))
                parts.append(_text_table(alt, rows, {"side": 50, "item": 200, "z": 50, "text": 420}, title=(
                    f"Items beside gap #{g['rank']} [{g['left']:.3f}, {g['right']:.3f}]")))
        if self.added and self.after:
            a = self.after
            parts.append(alt.Chart(pd.DataFrame({"t": [
                f"What if {len(self.added)} items were added at z = "
                + ", ".join(f"{v:.2f}" for v in self.added[:8]) + ("…" if len(self.added) > 8 else "")
                + f": DDM {a.get('ddm', float('nan')):.3f}, Max Gap {a.get('max_gap', float('nan')):.3f}"]}))
                .mark_text(align="left", fontSize=12).encode(text="t:N", x=alt.value(0))
                .properties(width=460, height=16, view=alt.ViewBackground(stroke=None)))
        parts.append(measure_table_chart(self._result).properties(title=alt.TitleParams(
            "Table 1: every benchmark (red: at or above the threshold)", anchor="start")))
        return alt.vconcat(*parts).resolve_scale(color="independent")
