"""Assemble the report from benchkit results (HTML only: every number is a result's)."""
from __future__ import annotations

import platform
from collections.abc import Mapping
from collections.abc import Sequence
from importlib import metadata
from typing import Any

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import check_int
from benchkit.report._methods import AUDIT
from benchkit.report._methods import COMPARE
from benchkit.report._methods import METHODS
from benchkit.report._page import definition_list
from benchkit.report._page import inline_svg
from benchkit.report._page import page
from benchkit.report._page import preformatted
from benchkit.report._page import table
from benchkit.report._page import text

#: largest explorer embedded live (bytes of compressed, base64 data): a report stays a file to mail
EXPLORER_BUDGET = 8_000_000
_PAIR_COLUMNS = ("rank_a", "a", "rank_b", "b", "accuracy_a", "accuracy_b", "difference", "ci_low", "ci_high",
                 "p_value", "p_adjusted", "significant", "method", "n_items")
_VERSIONS = ("numpy", "pandas", "scipy", "numba", "altair", "vl-convert-python", "anywidget")


def _versions() -> list[tuple[str, str]]:
    from benchkit import __version__

    out = [("benchkit", __version__), ("python", platform.python_version())]
    for name in _VERSIONS:
        try:
            out.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            out.append((name, "not installed"))
    return out


def _flatten(value, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, Mapping):
        return [pair for k, v in value.items() for pair in _flatten(v, f"{prefix}{k} / ")]
    if isinstance(value, list):
        more = f", ... ({len(value)} in all)" if len(value) > 12 else ""
        value = ", ".join(str(v) for v in value[:12]) + more
    return [(prefix.removesuffix(" / "), value)]


class _Explorers:
    """Explorers embedded live: one element per explorer, one module per explorer class."""

    def __init__(self, static: bool) -> None:
        self.static = static
        self.blocks: list[str] = []
        self.modules: dict[str, str] = {}
        self.css: dict[str, str] = {}
        self.count = 0

    def add(self, widget, hint: str) -> str:
        from benchkit.widgets._base import explorer_blocks

        esm, css, state, binary = widget.export_parts()
        cls = type(widget).__name__
        explorer_id = f"bk-explorer-{self.count + 1}"
        block = explorer_blocks(explorer_id, state, binary)
        if len(block) > EXPLORER_BUDGET:
            return (f"<p class=\"more\">The interactive explorer is left out: its data take "
                    f"{len(block) / 1e6:.1f} MB compressed, over the report's {EXPLORER_BUDGET / 1e6:.0f} MB "
                    "per explorer (the figure above is its view; open it in a notebook).</p>")
        module_id = f"bk-module-{cls}"
        self.modules.setdefault(module_id, esm)
        self.css.setdefault(cls, css)
        self.count += 1
        self.blocks.append(block)
        return (f"<div class=\"explorer\"><p class=\"hint\">{text(hint)}</p>"
                f"<div id=\"{explorer_id}\" data-bk-explorer=\"{explorer_id}\" "
                f"data-bk-module=\"{module_id}\">"
                "</div></div>")

    def data(self) -> str:
        from benchkit.widgets._base import data_block

        mods = "".join(data_block(mid, esm.encode()) for mid, esm in self.modules.items())
        return "".join(self.blocks) + mods

    def style(self) -> str:
        css = "\n".join(self.css.values()).replace("</", "<\\/")
        return f"<style>{css}</style>\n" if css else ""


def _figure(chart, alt: str) -> str:
    from benchkit.charts import to_svg

    return inline_svg(to_svg(chart), alt)


def _main_table(frame: pd.DataFrame, max_items: int) -> str:
    """A result's ``to_frame()``, flagged rows first when it has a boolean flag column."""
    flag = next((c for c in ("flagged", "flag") if c in frame.columns and frame[c].dtype == bool), None)
    caption = "Main table (to_frame())"
    if flag is not None:
        frame = frame.sort_values(flag, ascending=False, kind="stable")
        caption += f", {int(frame[flag].sum()):,} flagged rows first"
    return table(frame, max_rows=max_items, caption=caption, index=not isinstance(frame.index, pd.RangeIndex))


def _method_section(key: str, run, rs, explorers: _Explorers, max_items: int) -> str:
    info = METHODS[key]
    parts = [f"<section id=\"method-{key}\"><h2>{text(info.title)}</h2>",
             f"<p><em>What it asks.</em> {text(info.question)}</p>",
             f"<p>Call: <code>{text(run.call)}</code></p>",
             "<h3>Headline numbers</h3>", definition_list(_flatten(run.headline))]
    results = run.result if isinstance(run.result, Mapping) else {"": run.result}
    for name, result in results.items():
        if name:
            parts.append(f"<h3>{text(name)}</h3>")
        widget = info.explorer(result, rs) if info.explorer else None
        chart = widget.static_chart() if widget is not None else info.figure(result)
        if chart is not None:
            parts.append(_figure(chart, f"{info.title}: the {'explorer view' if widget else 'figure'}"
                                        f"{' of ' + name if name else ''}"))
        if widget is not None and not explorers.static:
            parts.append(explorers.add(widget, "Interactive explorer (runs in this file, offline): click "
                                               "an item, a model or a bar to see its details."))
        parts.append(_main_table(result.to_frame(), max_items))
    parts.append("</section>")
    return "\n".join(parts)


def _data_section(rs) -> str:
    single = rs.select(variant=rs.variants[0]) if rs.variants else rs
    of = f" (variant {rs.variants[0]})" if rs.variants else ""
    missing = int(np.asarray(single.counts().missing).sum())
    pairs = [("models", rs.n_models), ("items", rs.n_items), ("responses", rs.n_responses),
             (f"missing model x item cells{of}", f"{missing:,} of {rs.n_models * rs.n_items:,}"),
             ("samples per model (T)", f"{int(np.min(rs.budget))}-{int(np.max(rs.budget))}"),
             ("variants", ", ".join(rs.variants) or "none"),
             ("answers / option probabilities", f"{'yes' if rs.has_answers else 'no'} / "
                                                 f"{'yes' if rs.has_option_probs else 'no'}")]
    body = [definition_list(pairs)]
    if "benchmark" in rs.items.columns:
        per = rs.items["benchmark"].astype(str).value_counts(sort=False).sort_index()
        body.append(table(per.rename("items").rename_axis("benchmark").reset_index(),
                          caption="Items per benchmark"))
    models = single.models.copy()
    models.index = models.index.astype(str)
    models["T"] = np.asarray(single.budget)
    models["accuracy"] = single.accuracy().to_numpy()
    models["missing items"] = np.asarray(single.counts().missing).sum(axis=0)
    models = models.drop(columns=[c for c in ("order",) if c in models.columns])
    body.append(table(models.sort_values("accuracy", ascending=False, kind="stable"), index=True,
                      caption=f"Models (accuracy over the items each answered{of})"))
    return "<section id=\"data\"><h2>The data</h2>" + "".join(body) + "</section>"


def _provenance_section(inputs, command, seed, created, skipped) -> str:
    pairs = []
    if command:
        pairs.append(("command", command))
    pairs.append(("seed", "none" if seed is None else seed))
    if created:
        pairs.append(("created", created))
    pairs += _versions()
    body = [definition_list(pairs)]
    for i in inputs:
        read = [("path", i["path"]), ("format", f"{i['format']} ({i['reason']})"), ("read", i["summary"]),
                ("skipped", list(i["skipped"]))]
        body.append(definition_list(read))
        if i.get("files"):
            # a folder of many files: the hashes fold under one line so the findings stay near the top
            files = table(pd.DataFrame(i["files"], columns=["file", "sha256"]), max_rows=200,
                          caption="Input files (sha256)")
            n = len(i["files"])
            body.append(files if n <= 5 else
                        f"<details><summary>Input files (sha256): {n} files</summary>{files}</details>")
    if skipped:
        body.append(f"<p>Joining the inputs: {text('; '.join(skipped))}</p>")
    return "<section id=\"provenance\"><h2>Provenance</h2>" + "".join(body) + "</section>"


def _audit_section(audit, rs, explorers: _Explorers, max_items: int) -> str:
    if audit is None:
        return ("<section id=\"audit\"><h2>Audit summary</h2><p>No cross-method audit in this report "
                "(not in this version of benchkit); each method's flags are in its section.</p>"
                "</section>")
    items = audit.items.sort_values(["n_flags", "consensus"], ascending=[False, False], kind="stable")
    flagged = items[items["n_flags"] >= 1]
    reasons = [c for c in items.columns if c.endswith("_reason")]
    cols = [c for c in ("benchmark", "n_flags", "flagged_by", "consensus") if c in items.columns] + reasons
    n2 = int((items["n_flags"] >= 2).sum())
    from benchkit.charts.auditing import agreement_chart
    from benchkit.charts.auditing import flags_chart

    figures, live = [], ""
    if audit.methods:  # the flag figures and the explorer need a method with an item verdict
        figures.append(_figure(flags_chart(audit), "Items flagged per method, by how many methods agree"))
        if len(audit.agreement):
            figures.append(_figure(agreement_chart(audit), "Agreement between methods (Cohen's kappa)"))
        hint = "Interactive audit explorer (runs in this file, offline): filter the items, click one to " \
            "see every method's verdict."
        live = "" if explorers.static else explorers.add(AUDIT.explorer(audit, rs), hint)
    else:
        figures.append("<p>No method that ran gives a verdict per item (the methods that ran judge whole "
                       "benchmarks): nothing to join item by item.</p>")
    body = [f"<p><em>What it asks.</em> {text(AUDIT.question)}</p>",
            f"<p>{len(flagged):,} items flagged by at least one method, <span class=\"flagged\">{n2:,} by at "
            "least two</span> (listed first).</p>", *figures, live,
            table(flagged[cols], index=True, max_rows=max_items, caption="Flagged items"),
            table(audit.applicability.drop(columns=["seconds"], errors="ignore"), index=True,
                  caption="Methods: ran or not, and why"),
            table(audit.agreement, index=True, caption="Agreement between methods")]
    if audit.validation is not None:
        v = audit.validation
        body.append(table(v.table, index=True, caption=f"Against the reference: {v.n_reference:,} flawed of "
                                                       f"{v.n_items:,} items (precision at k = {v.n_top:,})"))
    return "<section id=\"audit\"><h2>Audit summary</h2>" + "".join(body) + "</section>"


def _compare_section(comparisons, max_items: int) -> str:
    if comparisons is None:
        return ""
    body = [f"<p><em>What it asks.</em> {text(COMPARE.question)}</p>",
            _figure(COMPARE.figure(comparisons), "Leaderboard neighbours: paired differences with intervals"),
            table(comparisons.leaderboard, caption="Leaderboard (tier: models not distinguishable from the "
                                                   "next share a tier)")]
    pairs = comparisons.to_frame()
    pairs = pairs[pairs["neighbours"]] if "neighbours" in pairs.columns else pairs
    pairs = pairs[[c for c in _PAIR_COLUMNS if c in pairs.columns]]
    body.append(table(pairs, max_rows=max_items, caption="Paired comparisons of leaderboard neighbours"))
    return "<section id=\"models\"><h2>" + text(COMPARE.title) + "</h2>" + "".join(body) + "</section>"


def build_report(rs: Any, runs: Mapping[str, Any], *, not_run: Mapping[str, str] | None = None,
                 comparisons: Any = None, audit: Any = None, inputs: Sequence[Mapping] = (),
                 command: str | None = None, python: str | None = None, rng: int | None = None,
                 title: str = "benchkit report", static: bool = False, max_items: int = 200,
                 created: str | None = None) -> str:
    """One self-contained HTML report of benchkit results on a ResponseSet.

    Parameters
    ----------
    rs : ResponseSet
        The data the results were computed on (the data section describes it).
    runs : mapping method -> run
        Each method that ran (keys from ``"labels"``, ``"boundary"``, ``"dif"``, ``"landscape"``,
        ``"quality"``, ``"measure"``): an object with ``result`` (the entry point's result, or a
        mapping name -> result for several), ``call`` (the Python call, as text) and ``headline``
        (a mapping of headline numbers).
    not_run : mapping method -> reason, optional
        Methods that did not run and why.
    comparisons : Comparisons, optional
        :func:`benchkit.compare_all` of the models (the per-model section).
    audit : AuditResult, optional
        The cross-method audit (the audit summary).
    inputs : sequence of mappings
        What each reader read: ``path, format, reason, summary, skipped, files`` (``files``: pairs
        file, sha256).
    command, python : str, optional
        The command line and the Python code that reproduce the report.
    rng : int, optional
        The root seed the random stages drew from (printed in the provenance; nothing is drawn here).
    title : str
        The page title.
    static : bool, default False
        No script at all: figures only, no live explorer.
    max_items : int, default 200
        Rows shown per item table.
    created : str, optional
        A creation time to print (none by default, so the same input gives the same bytes).

    Returns
    -------
    str
        The HTML page: no request leaves it (Content-Security-Policy ``default-src 'none'``), every
        user string escaped, explorer data gzip-compressed.

    Notes
    -----
    ``benchkit report PATH... --out report.html`` builds ``runs`` from :func:`benchkit.audit`'s
    results, ``comparisons`` from :func:`benchkit.compare_all` and ``inputs`` from its readers;
    this function only lays out what it is given (every number on the page is a result's).

    References
    ----------
    Each method's section cites its paper (listed under "Methods and references" in the page);
    the Content-Security-Policy is W3C's Content Security Policy Level 3
    (https://www.w3.org/TR/CSP3/).

    Examples
    --------
    A report of the data alone (pass each method's run to add its section, as the command does):

    >>> import benchkit
    >>> from benchkit.report import build_report
    >>> rs = benchkit.simulate.load_sample("mcq")
    >>> page = build_report(rs, {}, not_run={"dif": "too few models"}, static=True, rng=0,
    ...                     title="<b>8 models</b>")
    >>> page.startswith("<!DOCTYPE html>"), "<script" in page, "&lt;b&gt;8 models&lt;/b&gt;" in page
    (True, False, True)
    >>> '<section id="not-run">' in page
    True
    """
    max_items = check_int("max_items", max_items, min=1)
    if not isinstance(runs, Mapping):
        raise BenchkitTypeError(f"runs must be a mapping method -> run; got {type(runs).__name__}")
    unknown = [k for k in runs if k not in METHODS]
    if unknown:
        raise BenchkitTypeError(f"runs has unknown method(s) {unknown}; allowed: {list(METHODS)}")
    not_run = dict(not_run or {})
    explorers = _Explorers(static)
    order = [k for k in METHODS if k in runs]
    sections = [_provenance_section(inputs, command, rng, created, (rs.meta or {}).get("joined") or []),
                _data_section(rs), _audit_section(audit, rs, explorers, max_items)]
    sections += [_method_section(k, runs[k], rs, explorers, max_items) for k in order]
    if not_run:
        items = "".join(f"<li><b>{text(METHODS[k].title if k in METHODS else k)}</b>: {text(v)}</li>"
                        for k, v in not_run.items())
        sections.append(f"<section id=\"not-run\"><h2>Methods that did not run</h2>"
                        f"<ul class=\"notrun\">{items}</ul></section>")
    sections.append(_compare_section(comparisons, max_items))
    refs = ([AUDIT] if audit is not None else []) + [METHODS[k] for k in order] + \
        ([COMPARE] if comparisons is not None else [])
    sections.append("<section id=\"references\"><h2>Methods and references</h2><ol>"
                    + "".join(f"<li><b>{text(m.title)}</b>. {text(m.reference)}</li>" for m in refs)
                    + "</ol></section>")
    repro = []
    if command:
        repro.append(f"<h3>Command</h3>{preformatted(command)}")
    if python:
        repro.append(f"<h3>Python</h3>{preformatted(python)}")
    sections.append("<section id=\"reproduce\"><h2>How to reproduce</h2>" + "".join(repro) + "</section>")
    toc_names = [("provenance", "Provenance"), ("data", "The data"), ("audit", "Audit summary")] + \
        [(f"method-{k}", METHODS[k].title) for k in order] + \
        ([("not-run", "Methods that did not run")] if not_run else []) + \
        ([("models", COMPARE.title)] if comparisons is not None else []) + \
        [("references", "Methods and references"), ("reproduce", "How to reproduce")]
    toc = ("<nav class=\"toc\"><ol>"
           + "".join(f"<li><a href=\"#{a}\">{text(t)}</a></li>" for a, t in toc_names)
           + "</ol></nav>")
    lead = (f"{rs.n_models:,} models x {rs.n_items:,} items; {len(order)} method(s) ran"
            + (f", {len(not_run)} did not" if not_run else "")
            + (". Static version: no script." if static else ". Explorers run offline in this file."))
    header = f"<header class=\"report\"><h1>{text(title)}</h1><p class=\"lead\">{text(lead)}</p></header>"
    body = header + toc + "\n".join(sections)
    if static or explorers.count == 0:
        return page(title=title, body=body)
    from benchkit.widgets._base import MOUNT_JS

    return page(title=title, body=body + explorers.data(), head_extra=explorers.style(), scripts=[MOUNT_JS])

