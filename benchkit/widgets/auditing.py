"""The audit explorer: every item's verdict by every method, filters, and one item in full.

:class:`AuditExplorer` renders a :class:`benchkit.AuditResult` with the ResponseSet it audited.
Every number it draws comes from the result and the view models of :mod:`benchkit.auditing.explore`.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import traitlets

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_int
from benchkit.auditing.explore import item_view
from benchkit.auditing.explore import items_view
from benchkit.widgets._base import BenchkitWidget
from benchkit.widgets._base import pack_arrays
from benchkit.widgets._base import to_jsonable

__all__ = ["AuditExplorer"]


def _detail(view) -> dict:
    return to_jsonable({
        "item": view.item, "benchmark": view.benchmark, "text": view.text, "key": view.key,
        "options": view.options, "n_models": len(view.models),
        "verdicts": view.verdicts.reset_index(),
    })


class AuditExplorer(BenchkitWidget):
    """Explore a cross-method audit: the item table with each method's flag, filters, one item in full.

    Parameters
    ----------
    result : benchkit.AuditResult
        From :func:`benchkit.audit`.
    rs : ResponseSet
        The set that was audited: the item text, key and options and the models' answers are shown
        from it.
    static_details : int, default 300
        Items (in the table's default order: most flags first) whose full view an exported page
        (:meth:`to_html`) embeds; a click on another item there says that it needs a kernel.
    **kwargs
        Further widget options, passed on to :class:`anywidget.AnyWidget` (e.g. ``layout=``).

    Notes
    -----
    State: the item table travels as binary arrays (``table``: each method's flag and score per
    item, ``n_flags``, ``consensus``), the ids and benchmarks as lists. The front end filters and
    sorts it itself (by :attr:`method` and :attr:`min_flags`, which it sets, so the kernel knows the
    filter: :attr:`shown` is :func:`benchkit.auditing.explore.items_view` of them) and draws at most
    :attr:`max_rows` rows. Clicking a row sets :attr:`selected`; Python then fills :attr:`detail`
    from :func:`benchkit.auditing.explore.item_view`: text, key, options with the models choosing
    each, and every method's flag, score and reason. Text from the data is inserted as text, never
    as HTML.

    Examples
    --------
    Constructing the explorer computes its state in Python; showing it needs a JupyterLab front
    end. The filters and the selection are traits, so the kernel side can be driven directly:

    >>> import benchkit
    >>> from benchkit.widgets import AuditExplorer
    >>> sim = benchkit.simulate.audit_suite(n_items=20, benchmarks=2, n_models=40, T=5, rng=0)
    >>> res = benchkit.audit(sim.responses, methods=["labels", "landscape"], n_resamples=0,
    ...                      progress=False, rng=0)
    >>> explorer = AuditExplorer(res, sim.responses)
    >>> explorer.methods, len(explorer.items)
    (['labels', 'landscape'], 60)
    >>> explorer.min_flags = 2                     # the items both methods flag
    >>> explorer.shown["flagged_by"].to_dict()
    {'sim2/q0000': 'labels, landscape'}
    >>> explorer.selected = "sim2/q0000"           # what a click on the row does
    >>> explorer.detail["key"], [v["flag"] for v in explorer.detail["verdicts"]]
    ('A', [True, True])
    """

    _esm_file = "auditing.js"
    _css_file = "auditing.css"
    _html_title = "benchkit audit explorer"

    methods = traitlets.List(traitlets.Unicode()).tag(sync=True)
    items = traitlets.List(traitlets.Unicode()).tag(sync=True)
    benchmarks = traitlets.List(traitlets.Unicode()).tag(sync=True)
    table = traitlets.Bytes(b"").tag(sync=True)
    applicability = traitlets.List().tag(sync=True)
    method = traitlets.Unicode("").tag(sync=True)
    min_flags = traitlets.Int(0).tag(sync=True)
    max_rows = traitlets.Int(200).tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)
    detail = traitlets.Dict().tag(sync=True)

    def __init__(self, result: Any, rs: Any, *, static_details: int = 300, **kwargs: Any) -> None:
        from benchkit.auditing import AuditResult
        from benchkit.response_set import check_response_set

        if not isinstance(result, AuditResult):
            raise BenchkitTypeError(f"result must be a benchkit.AuditResult (from benchkit.audit); got "
                                    f"{type(result).__name__}")
        rs = check_response_set("rs", rs)
        if rs.n_items != len(result.items) or not (rs.item_ids.astype(str)
                                                   == result.items.index.astype(str)).all():
            raise BenchkitValueError("rs is not the ResponseSet that was audited (its items differ from "
                                     "the audit's)")
        self._result = result
        self._rs = rs
        self._audited = frozenset(str(i) for i in result.items.index)
        self._static_details = check_int("static_details", static_details, min=0)
        it = result.items
        ms = list(result.methods)
        n = len(it)
        flags = np.zeros((n, len(ms)), dtype=np.uint8)
        scores = np.full((n, len(ms)), np.nan, dtype=np.float32)
        for j, m in enumerate(ms):
            flags[:, j] = it[f"{m}_flag"].to_numpy(bool)
            scores[:, j] = it[f"{m}_score"].to_numpy(float)
        a = result.applicability
        rows = [{"method": m, "ran": bool(a.at[m, "ran"]), "item_verdict": bool(a.at[m, "item_verdict"]),
                 "reason": str(a.at[m, "reason"]), "n_flagged": int(a.at[m, "n_flagged"])} for m in a.index]
        bench = it["benchmark"].astype(str).tolist() if "benchmark" in it.columns else [""] * n
        super().__init__(
            methods=ms, items=[str(i) for i in it.index], benchmarks=bench,
            table=pack_arrays(flags=flags, scores=scores, n_flags=it["n_flags"].to_numpy(np.uint8),
                              consensus=it["consensus"].to_numpy(np.float32)),
            applicability=rows, **kwargs)

    # ------------------------------------------------------------------ validation / observers
    @traitlets.validate("method")
    def _check_method(self, proposal):
        v = proposal["value"]
        if v and v not in self.methods:
            raise BenchkitValueError(f"method={v!r} is not allowed; choose '' (any) or one of {self.methods}")
        return v

    @traitlets.validate("min_flags")
    def _check_min_flags(self, proposal):
        v = proposal["value"]
        if not 0 <= v <= max(1, len(self.methods)):
            raise BenchkitValueError(f"min_flags={v!r} is out of range; it must be in 0..{len(self.methods)}")
        return v

    @traitlets.validate("selected")
    def _check_selected(self, proposal):
        v = proposal["value"]
        if v and v not in self._audited:
            raise BenchkitValueError(f"selected={v!r} is not an item of this audit")
        return v

    @traitlets.observe("selected")
    def _on_selected(self, change):
        with self.working(f"item {self.selected}"):
            self.detail = self._detail_of(self.selected) if self.selected else {}

    def _detail_of(self, item: str) -> dict:
        return self.cached(("detail", item), lambda: _detail(item_view(self._result, self._rs, item)))

    # ------------------------------------------------------------------ accessors
    @property
    def shown(self):
        """The items the table lists now (:func:`benchkit.auditing.explore.items_view` of the filters)."""
        return items_view(self._result, method=self.method or None, min_flags=self.min_flags)

    @property
    def selected_view(self):
        """The selected item's :class:`benchkit.auditing.explore.ItemView` (None when none is selected)."""
        return item_view(self._result, self._rs, self.selected) if self.selected else None

    def _static_state(self) -> dict[str, Any]:
        order = items_view(self._result).index[:self._static_details]
        details = {str(i): self._detail_of(str(i)) for i in order}
        if self.selected:
            details[self.selected] = self._detail_of(self.selected)
        return {"details": details}

    #: rows of the item table drawn in the static image
    static_rows: int = 20

    def static_chart(self):
        """The explorer's whole current view as one chart: the image stored with the live explorer.

        Its title is the header line (items, methods, the filter); then the flags per method
        (:func:`benchkit.charts.auditing.flags_chart`), the first :attr:`static_rows` rows of the
        item table as filtered (each method's flag: ● flagged, · scored, – not scored), and the
        selected item (the first listed when none is selected): its text, its options with the
        number of models choosing each, and every method's verdict. None without a method that
        gives item verdicts.
        """
        if not self.methods:
            return None
        import altair as alt
        import pandas as pd

        from benchkit.charts import _text_table
        from benchkit.charts.auditing import flags_chart

        shown = self.shown
        head = shown.head(self.static_rows)
        marks = {m: np.where(head[f"{m}_flag"], "●", np.where(head[f"{m}_score"].isna(), "–", "·"))
                 for m in self.methods}
        table = pd.DataFrame({"item": head.index.astype(str), "benchmark": head["benchmark"].astype(str),
                              "flags": head["n_flags"].astype(str), **marks})
        widths = {"item": 230, "benchmark": 110, "flags": 40, **{m: 65 for m in self.methods}}
        flt = (f"flagged by {self.method or 'any method'}, at least {self.min_flags} method(s): "
               f"first {len(head)} of {len(shown)} listed")
        parts = [flags_chart(self._result, title="Flags per method, by how many methods agree"),
                 _text_table(alt, table, widths, title=f"Items ({flt})")]
        item = self.selected or (str(shown.index[0]) if len(shown) else "")
        if item:
            d = self._detail_of(item)
            text = pd.DataFrame({"text": [d["text"] or "(no text in the data)"]})
            parts.append(_text_table(alt, text, {"text": 800},
                                     title=f"{item} ({d['benchmark']}; key {d['key'] or '–'})"))
            if d["options"]:
                opts = pd.DataFrame(d["options"])
                opts["option"] = opts["option"] + np.where(opts["is_key"], " (key)", "")
                widths = {"option": 70, "text": 380, "n_models": 60, "models": 280}
                parts.append(_text_table(alt, opts, widths, title="Options and the models choosing each"))
            ver = pd.DataFrame(d["verdicts"])
            ver["flag"] = np.where(ver["flag"], "●", "")
            ver["score"] = [("–" if pd.isna(v) else f"{v:.3f}") for v in ver["score"]]
            parts.append(_text_table(alt, ver, {"method": 75, "flag": 35, "score": 60, "reason": 620},
                                     title="Verdicts"))
        title = (f"Cross-method audit: {len(self.items)} items, {len(self.methods)} methods with item "
                 f"verdicts ({', '.join(self.methods)})")
        return alt.vconcat(*parts).properties(title=alt.TitleParams(title, anchor="start"))
