"""The ``benchkit`` command line.

::

    benchkit datasets                 # the public sources: repository, pinned commit, license
    benchkit fetch NAME [--verify]    # load a public dataset (from the mirror/cache/URL) and summarize it
    benchkit info FILE [--format F] [--layout L]
                                      # recognize an evaluation file or folder by its content and print
                                      # what was read and skipped
    benchkit audit PATH... [--out FILE|DIR]  # every method the data support, joined item by item
    benchkit profile|dif|measure|landscape|quality|labels PATH... [--out FILE|DIR]
                                      # one method's entry point; its result tables
    benchkit compare PATH... --models A B | --all
                                      # paired model comparison (benchkit.compare / compare_all)
    benchkit report PATH... --out report.html [--static]
                                      # every method that applies, in one offline HTML file

Every analysis command reads PATH... (:mod:`benchkit.cli._inputs`), calls one public entry point
with the keyword arguments its options name, writes that result's own tables (``--out``) and prints
a one-paragraph summary (``--json``: a machine-readable one) naming the Python call it made, so the
command's output is the API's. Exit codes: 0 the analysis ran; 1 it ran and ``--fail-on N`` found at
least N flagged; 2 bad input (one line, ``benchkit: error: ...``; ``--debug`` shows the traceback).

Every string that comes from a user's file (model names, item ids, file names, values, error
messages, warnings) is printed through :func:`benchkit._terminal.escape`, so an ESC sequence or a
bidirectional override in a log cannot reach the terminal; the output streams escape what
remains (everything but the line breaks the command itself writes).
"""
from __future__ import annotations

import argparse
import sys
import traceback
import warnings

from benchkit._terminal import EscapingWriter
from benchkit._terminal import escape
from benchkit._validation import BenchkitError
from benchkit.cli import _common
from benchkit.cli import _info
from benchkit.cli._analysis import run_analysis
from benchkit.cli._methods import COMMANDS

__all__ = ["build_parser", "main"]


def _command(sub, name: str, help: str, example: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=help, description=f"{help[0].upper()}{help[1:]}.",
                          epilog=f"example:\n  {example}", formatter_class=_common.Formatter)


def build_parser() -> argparse.ArgumentParser:
    """The ``benchkit`` argument parser (the docs print its help, so the command-line page stays true)."""
    from benchkit.cli._report import add_report_command

    parser = argparse.ArgumentParser(prog="benchkit", description="Item-level diagnosis of LLM benchmarks.",
                                     epilog="example:\n  benchkit report runs/ --out report.html",
                                     formatter_class=_common.Formatter)
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    sub = parser.add_subparsers(dest="command", required=True)
    _command(sub, "datasets", "list the public sources benchkit can fetch", "benchkit datasets")
    p_fetch = _command(sub, "fetch", "load a public dataset and summarize it",
                       "benchkit fetch mmlu-redux -o part=labels")
    p_fetch.add_argument("name")
    p_fetch.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                         help="an option of the dataset's loader, e.g. -o part=labels")
    p_info = _command(sub, "info", "recognize an evaluation file or folder, read it and summarize it",
                      "benchkit info logs/2026-12-03T09-58_mc.eval")
    p_info.add_argument("path")
    p_info.add_argument("--format", default=None, dest="fmt",
                        choices=("inspect", "lm_eval", "helm", "evalscope", "every_eval_ever", "csv",
                                 "parquet"),
                        help="skip content detection")
    p_info.add_argument("--layout", choices=("long", "counts", "wide"), default="long",
                        help="table layout of a CSV/Parquet file")
    for cmd in COMMANDS.values():
        p = _command(sub, cmd.name, cmd.help, cmd.example)
        _common.add_inputs(p)
        cmd.add_options(p)
        _common.add_common(p, out_help=f"FILE.parquet|.csv: the main table ({cmd.name}); any other path: a "
                                       "folder receiving every table of the result as NAME.parquet",
                           fail_on=cmd.flags or None)
    add_report_command(sub, _command)
    return parser


def main(argv: list[str] | None = None, out=None) -> int:
    """Run the ``benchkit`` command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    out = EscapingWriter(out or sys.stdout)
    err = EscapingWriter(sys.stderr)
    parser = build_parser()
    args = parser.parse_args(argv)
    args._argv = list(sys.argv[1:] if argv is None else argv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = _run(args, parser, out, err)
    for w in caught:  # shown after the output, escaped like it (a warning can quote a file)
        print(f"benchkit: warning: {escape(' '.join(str(w.message).split()))}", file=err)
    return code


def _run(args, parser, out, err) -> int:
    try:
        if args.command == "datasets":
            _info.datasets(out)
        elif args.command == "fetch":
            _info.fetch(args.name, _common.split_pairs(args.option, parser), out)
        elif args.command == "info":
            _info.info(args.path, args.fmt, args.layout, out)
        elif args.command == "report":
            from benchkit.cli._report import run_report

            return run_report(args, parser, out)
        else:
            return run_analysis(COMMANDS[args.command], args, parser, out)
    except Exception as exc:  # every error: one line and exit code 2 (--debug: the traceback)
        if args.debug:
            traceback.print_exc(file=err)
        text = " ".join(str(exc).split()) or type(exc).__name__
        if not isinstance(exc, BenchkitError):
            text = f"{type(exc).__name__}: {text}"
        print(f"benchkit: error: {escape(text)}", file=err)
        return 2
    return 0
