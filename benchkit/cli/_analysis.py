"""Run one analysis command: read PATH..., call the entry point, write its tables, print the summary."""
from __future__ import annotations

import inspect
from typing import Any

from benchkit._results import result
from benchkit.cli._common import call_text
from benchkit.cli._common import check_out
from benchkit.cli._common import emit
from benchkit.cli._common import exit_code
from benchkit.cli._common import keyword_options
from benchkit.cli._common import result_tables
from benchkit.cli._common import split_pairs
from benchkit.cli._common import write_tables
from benchkit.cli._inputs import read_inputs
from benchkit.cli._methods import COMMANDS
from benchkit.cli._methods import Command


@result
class Run:
    """One entry-point call a command made: the call as Python text, its result and headline numbers."""

    command: str
    entry: str
    call: str
    kwargs: dict
    result: Any
    headline: dict
    flagged: int | None


def entry_and_args(cmd: Command, args) -> tuple[str, tuple]:
    """The entry point's dotted name and positional arguments after the ResponseSet."""
    if cmd is COMMANDS["compare"]:
        return ("benchkit.compare_all", ()) if args.all_pairs else (cmd.entry, tuple(args.models))
    return cmd.entry, ()


def call_command(cmd: Command, rs, args, *, entry: str | None = None, positional: tuple = (),
                 extra: dict | None = None, pairs=()) -> Run:
    """``entry(rs, *positional, **keywords)`` with the command's options, --seed, -j, --quiet and -o."""
    import importlib

    entry = entry or cmd.entry
    module, _, name = entry.rpartition(".")
    func = getattr(importlib.import_module(module), name)
    kwargs = dict(cmd.keywords(args)) if extra is None else dict(extra)
    params = inspect.signature(func).parameters
    if "rng" in params:
        kwargs["rng"] = args.seed
    if "n_jobs" in params and getattr(args, "jobs", None) is not None:
        kwargs["n_jobs"] = args.jobs
    if "progress" in params:
        kwargs["progress"] = not args.quiet
    kwargs.update(keyword_options(func, list(pairs), entry, reserved=set(kwargs)))
    data = ", ".join(["rs", *(repr(p) for p in positional)])
    result = func(rs, *positional, **kwargs)
    return Run(command=cmd.name, entry=entry, call=call_text(entry, data, kwargs), kwargs=kwargs,
               result=result, headline=cmd.headline(result),
               flagged=cmd.flagged(result) if cmd.flagged else None)


def _paragraph(run: Run, rs, inputs, written: dict, code: int) -> str:
    def show(v):
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k}: {show(x)}" for k, x in list(v.items())[:8]) + \
                (", ..." if len(v) > 8 else "") + "}"
        if isinstance(v, list) and len(v) > 8:
            return "[" + ", ".join(map(str, v[:8])) + f", ... ({len(v)} in all)]"
        return str(v)

    where = ", ".join(i.path for i in inputs)
    text = (f"{run.call} on {rs.n_items:,} items x {rs.n_models:,} models ({rs.n_responses:,} responses) "
            f"from {where}: " + "; ".join(f"{k} {show(v)}" for k, v in run.headline.items()) + ".")
    if written:
        text += " Tables: " + ", ".join(f"{k} -> {v}" for k, v in written.items()) + "."
    if code == 1:
        text += f" Exit 1: {run.flagged} flagged (--fail-on)."
    return text


def run_analysis(cmd: Command, args, parser, out) -> int:
    check_out(args.out)
    rs, inputs = read_inputs(args.paths, args.fmt, items=args.item_table, models=args.model_table)
    entry, positional = entry_and_args(cmd, args)
    run = call_command(cmd, rs, args, entry=entry, positional=positional,
                       pairs=split_pairs(args.option, parser))
    written = write_tables(result_tables(run.result, cmd.name), args.out, cmd.name)
    code = exit_code(run.flagged, getattr(args, "fail_on", None))
    summary = {"command": cmd.name, "call": run.call, "inputs": [i.to_dict() for i in inputs],
               "data": {"models": rs.n_models, "items": rs.n_items, "responses": rs.n_responses},
               "headline": run.headline, "flagged": run.flagged, "tables": written, "exit_code": code}
    emit(summary, _paragraph(run, rs, inputs, written, code), args.as_json, out)
    return code
