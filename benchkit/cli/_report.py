"""``benchkit report``: every method the data support, in one offline HTML file.

The methods run through the cross-method audit (:func:`benchkit.audit`, as ``benchkit audit``
does): it decides which methods the data support and says why the others did not run; each
method's section shows the audit's result of that method, with the headline numbers its own
command prints. Resampling stages use ``--resamples`` (default 200, the audit's) instead of the
papers' thousands, and every random stage draws from ``--seed``.
"""
from __future__ import annotations

import shlex
import textwrap
import time
from collections.abc import Mapping

from benchkit._validation import BenchkitValueError
from benchkit.cli import _common
from benchkit.cli._analysis import Run
from benchkit.cli._analysis import call_command
from benchkit.cli._common import check_out
from benchkit.cli._common import emit
from benchkit.cli._common import exit_code
from benchkit.cli._inputs import DATASET_PREFIX
from benchkit.cli._inputs import read_inputs
from benchkit.cli._methods import COMMANDS

#: method (report section) -> command, in the report's order
REPORT_METHODS = {"labels": "labels", "boundary": "profile", "dif": "dif", "landscape": "landscape",
                  "quality": "quality", "measure": "measure"}


def add_report_command(sub, make) -> None:
    p = make(sub, "report", "every method the data support, in one self-contained offline HTML file",
             "benchkit report runs/ --out report.html\n  benchkit report dataset:mmlu-pro --out pro.html "
             "--static --max-items 100\n"
             "  benchkit report --notebook notebooks/02_family_dif.ipynb --out dif.html")
    _common.add_inputs(p, nargs="*")
    p.add_argument("--static", action="store_true",
                   help="no script at all (figures and tables; for places that strip JavaScript)")
    p.add_argument("--title", default=None, help="the report's title (default: 'benchkit report: PATH')")
    p.add_argument("--max-items", type=int, default=200, metavar="N",
                   help="rows shown per item table (default 200; the explorers hold every item)")
    p.add_argument("--resamples", type=int, default=200, metavar="N",
                   help="replicates of every resampling stage (DIF controls and bootstraps, Benchmark² "
                        "intervals, paired comparisons; default 200)")
    p.add_argument("--methods", default=None, metavar="M[,M]",
                   help=f"only these methods (default all: {','.join(REPORT_METHODS)})")
    p.add_argument("--reference", default=None, metavar="FILE",
                   help="items known to be flawed (one id per line, or a CSV/Parquet table with an 'item' "
                        "column): the audit summary adds each method's precision, recall and AUROC")
    p.add_argument("--notebook", default=None, metavar="NOTEBOOK.ipynb",
                   help="instead of PATH...: turn an executed notebook into the same kind of one-file "
                        "offline report (benchkit.notebook.notebook_to_html: images, MathML, no script)")
    _common.add_common(p, out_help="the HTML file to write (.html)",
                       fail_on="items are flagged by at least one method", options=False)


def _headline(key: str, result):
    cmd = COMMANDS[REPORT_METHODS[key]]
    if isinstance(result, Mapping):  # BSDProbe: one result per axis
        return {str(name): cmd.headline(r) for name, r in result.items()}
    return cmd.headline(result)


def _namespace(command: str, args):
    """The command's own options at their defaults, with the report's seed, jobs, quiet and resamples."""
    from benchkit.cli import build_parser

    ns = build_parser().parse_args([command, "PATH", *(["--all"] if command == "compare" else [])])
    ns.seed, ns.jobs, ns.quiet = args.seed, args.jobs, args.quiet
    if command == "audit":
        ns.methods, ns.reference = args.methods, args.reference
    if hasattr(ns, "resamples"):
        ns.resamples = args.resamples
    return ns


def _chosen(text: str | None) -> list[str]:
    if text is None:
        return list(REPORT_METHODS)
    chosen = [m.strip() for m in text.split(",") if m.strip()]
    bad = [m for m in chosen if m not in REPORT_METHODS]
    if bad or not chosen:
        raise BenchkitValueError(f"--methods {text!r}: choose among {', '.join(REPORT_METHODS)}")
    return chosen


def _python(args, inputs, audit_call, runs, comparisons_call) -> str:
    """The Python that reproduces the report's results: the read, the audit, the comparisons."""
    lines = ["import benchkit"]
    if len(inputs) == 1 and not (args.item_table or args.model_table):
        path = args.paths[0]
        if path.startswith(DATASET_PREFIX):
            name, _, part = path[len(DATASET_PREFIX):].partition("/")
            lines.append(f"rs = benchkit.datasets.fetch({name!r})" + (f"[{part!r}]" if part else ""))
        else:
            lines += ["from benchkit.io.detect import read_any", "",
                      f"rs, fmt, why = read_any({path!r}{f', fmt={args.fmt!r}' if args.fmt else ''})"]
    else:  # several inputs, a folder mixing tools or side tables: the command's own reading and joining
        lines += ["from benchkit.cli._inputs import read_inputs", "",
                  f"rs, inputs = read_inputs({list(args.paths)!r}, {args.fmt!r}, items={args.item_table!r}, "
                  f"models={args.model_table!r})"]
    lines += ["", f"audit = {audit_call}"]
    lines += [f"{key} = audit.results[{key!r}]" for key in runs]
    if comparisons_call:
        lines.append(f"comparisons = {comparisons_call}")
    return "\n".join(lines)


def run_report(args, parser, out) -> int:
    started = time.perf_counter()
    path = check_out(args.out, (".html", ".htm"), folder=False)
    if path is None:
        raise BenchkitValueError("--out FILE.html is required")
    if args.notebook:
        if args.paths:
            parser.error("report takes PATH... or --notebook, not both")
        from benchkit.notebook import notebook_to_html

        html = notebook_to_html(args.notebook, out=path)
        emit({"command": "report", "notebook": args.notebook, "out": str(path), "bytes": len(html.encode())},
             f"Wrote {path} ({len(html.encode()) / 1e6:.2f} MB) from {args.notebook}.", args.as_json, out)
        return 0
    if not args.paths:
        parser.error("report needs PATH... (or --notebook NOTEBOOK.ipynb)")
    chosen = _chosen(args.methods)
    rs, inputs = read_inputs(args.paths, args.fmt, items=args.item_table, models=args.model_table)
    audited = call_command(COMMANDS["audit"], rs, _namespace("audit", args))
    audit = audited.result
    runs = {key: Run(command=key, entry=audited.entry, call=f"{audited.call}.results[{key!r}]", kwargs={},
                     result=audit.results[key], headline=_headline(key, audit.results[key]), flagged=None)
            for key in REPORT_METHODS if key in audit.results}
    ap = audit.applicability
    not_run = {key: " ".join(str(ap.at[key, "reason"]).split()) if key in chosen
               else "not requested (--methods)" for key in REPORT_METHODS if key not in audit.results}
    comparisons = None
    if rs.n_models >= 2:
        cmp = call_command(COMMANDS["compare"], rs, _namespace("compare", args), entry="benchkit.compare_all")
        comparisons = cmp
    from benchkit.report import build_report

    command = "benchkit " + shlex.join(args._argv)
    html = build_report(
        rs, runs, not_run=not_run, audit=audit,
        comparisons=None if comparisons is None else comparisons.result,
        inputs=[i.to_dict() for i in inputs], command=command, rng=args.seed, static=args.static,
        python=_python(args, inputs, audited.call, runs, comparisons.call if comparisons else None),
        title=args.title or f"benchkit report: {', '.join(args.paths)}", max_items=args.max_items)
    path.write_text(html, encoding="utf-8")
    flagged = audited.flagged
    code = exit_code(flagged, args.fail_on)
    summary = {"command": "report", "out": str(path), "bytes": path.stat().st_size,
               "seconds": round(time.perf_counter() - started, 2), "static": bool(args.static),
               "ran": {k: r.call for k, r in runs.items()}, "not_run": not_run, "flagged": flagged,
               "inputs": [i.to_dict() for i in inputs], "exit_code": code}
    text = (f"Wrote {path} ({summary['bytes'] / 1e6:.2f} MB, {summary['seconds']:.1f} s): "
            f"{len(runs)} method(s) ran ({', '.join(runs) or 'none'})"
            + ("; did not run: " + ", ".join(f"{k} ({textwrap.shorten(v, 90, placeholder=' ...')})"
                                             for k, v in not_run.items()) if not_run else "")
            + (f"; {rs.n_models} models compared pairwise" if comparisons else "") + ".")
    emit(summary, text, args.as_json, out)
    return code
