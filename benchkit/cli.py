"""The ``benchkit`` command line.

::

    benchkit datasets                 # the public sources: repository, pinned commit, license
    benchkit fetch NAME [--verify]    # load a public dataset (from the mirror/cache/URL) and summarize it
    benchkit info FILE [--format F] [--layout L]
                                      # recognize an evaluation file or folder by its content
                                      # (Inspect, lm-eval, HELM, EvalScope, Every Eval Ever,
                                      # CSV/Parquet), read it, and print what was read and skipped

Every string that comes from a user's file (model names, item ids, file names, values, error
messages, warnings) is printed through :func:`benchkit._terminal.escape`, so an ESC sequence or a
bidirectional override in a log cannot reach the terminal; the output streams escape what
remains (everything but the line breaks the command itself writes).
"""
from __future__ import annotations

import argparse
import inspect
import json
import sys
import traceback
import types
import typing
import warnings
from typing import Any

from benchkit._terminal import EscapingWriter
from benchkit._terminal import escape
from benchkit._validation import BenchkitError
from benchkit._validation import BenchkitValueError

__all__ = ["main"]


def _summarize(obj, out) -> None:
    import pandas as pd

    from benchkit.response_set import ResponseSet

    if isinstance(obj, ResponseSet):
        print(escape(repr(obj), keep_newlines=True), file=out)
        if obj.variants:
            variant = obj.variants[0]
            obj = obj.select(variant=variant)
            print(f"(accuracy of variant {escape(variant)})", file=out)
        try:
            acc = obj.accuracy().sort_values(ascending=False)
        except BenchkitError:
            return
        acc.index = acc.index.map(escape)
        print(acc.round(4).to_string(), file=out)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            print(f"== {escape(key)}", file=out)
            _summarize(value, out)
    elif isinstance(obj, pd.DataFrame):
        columns = ", ".join(escape(c) for c in obj.columns[:10])
        print(f"table: {len(obj):,} rows x {obj.shape[1]} columns ({columns})", file=out)
    else:
        print(escape(repr(obj), keep_newlines=True), file=out)


def _info(path: str, fmt: str | None, layout: str, out) -> None:
    from benchkit.io.detect import read_any

    options = {"layout": layout} if fmt in (None, "csv", "parquet") else {}
    if fmt is None:
        from benchkit.io.detect import detect_format

        fmt, reason = detect_format(path)
        if fmt not in ("csv", "parquet"):
            options = {}
    else:
        reason = "--format"
    rs, fmt, _ = read_any(path, fmt=fmt, **options)
    print(f"format: {fmt} ({escape(reason)})", file=out)
    meta = rs.meta or {}
    for key in ("scorer", "metric", "filter", "result", "correct"):
        if meta.get(key) not in (None, {}, []):
            print(f"{key}: {escape(meta[key])}", file=out)
    print("read:", file=out)
    _summarize(rs, out)
    skipped = []
    unscored = meta.get("unscored") or []
    if unscored:
        skipped.append(f"{len(unscored)} samples without a usable score:")
        for u in unscored[:10]:
            detail = u.get("error") or u.get("why") or "no score"
            ident = u.get("id", u.get("item"))
            skipped.append(f"  {escape(ident)} (epoch/sample {escape(u.get('epoch', u.get('sample')))}): "
                           f"{escape(detail)}")
        if len(unscored) > 10:
            skipped.append(f"  ... {len(unscored) - 10} more")
    missing = meta.get("missing") or []
    if missing:
        skipped.append(f"{len(missing)} samples the log declares but does not hold:")
        for m in missing[:10]:
            ident = f"id {escape(repr(m['id']))} epoch {m.get('epoch')}" if m.get("id") is not None else \
                "(not named)"
            skipped.append(f"  {escape(m.get('file'))}: {ident}")
        if len(missing) > 10:
            skipped.append(f"  ... {len(missing) - 10} more")
    partial = meta.get("partial") or []
    if partial:
        skipped.append(f"{len(partial)} mismatch(es) with what the tool declared (a partial or edited log):")
        for m in partial[:10]:
            skipped.append(f"  {escape(m['where'])}: {escape(m['what'])}: declared "
                           f"{escape(repr(m['declared']))}, read {escape(repr(m['found']))}")
    if meta.get("other_scorers"):
        skipped.append(f"other scorers (pass scorer=... to read one): {escape(meta['other_scorers'])}")
    if meta.get("skipped_filters"):
        skipped.append(f"records of other filters: {escape(meta['skipped_filters'])}")
    if meta.get("skipped_results"):
        skipped.append(f"records of other results: {escape(meta['skipped_results'])}")
    report = getattr(rs, "report", None)
    if report:
        skipped.extend(escape(line) for line in str(report).split("\n"))
    print("skipped: " + ("nothing" if not skipped else ""), file=out)
    for line in skipped:
        print(f"  {line}", file=out)


_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}


def _convert(key: str, text: str, hint: Any) -> Any:
    """``text`` (from ``-o key=text``) as the loader parameter's annotated type ``hint``."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        if type(None) in args and text.strip().lower() == "none":
            return None
        errors = []
        for arg in (a for a in args if a is not type(None)):
            try:
                return _convert(key, text, arg)
            except BenchkitValueError as exc:
                errors.append(str(exc))
        raise BenchkitValueError(errors[0] if errors else f"--option {key}={text!r} cannot be converted")
    if hint is Any or hint is inspect.Parameter.empty or hint is str:
        return text
    if hint is bool:
        low = text.strip().lower()
        if low in _TRUE | _FALSE:
            return low in _TRUE
        raise BenchkitValueError(f"--option {key}={text!r} must be a bool (true/false, yes/no, 1/0)")
    if hint in (int, float):
        try:
            return hint(text)
        except ValueError:
            kind = "an int" if hint is int else "a float"
            raise BenchkitValueError(f"--option {key}={text!r} must be {kind}") from None
    container = origin or hint
    if container in (list, tuple, set, frozenset, dict) or (
            isinstance(container, type) and container.__module__ == "collections.abc"):
        stripped = text.strip()
        if stripped.startswith(("[", "{")):
            try:
                value = json.loads(stripped)
            except json.JSONDecodeError as exc:
                raise BenchkitValueError(f"--option {key}={text!r} is not valid JSON: {exc}") from None
        elif container is dict or "Mapping" in getattr(container, "__name__", ""):
            raise BenchkitValueError(
                f"--option {key}={text!r} must be a JSON object, e.g. {key}='{{\"a\": 1}}'"
            )
        else:
            value = [v.strip() for v in stripped.split(",") if v.strip()]
        return value
    return text


def _loader_options(name: str, pairs: list[tuple[str, str]]) -> dict:
    """``-o KEY=VALUE`` pairs converted to the annotated types of dataset ``name``'s loader."""
    from benchkit.datasets import _module

    load = _module(name).load
    params = inspect.signature(load).parameters
    try:
        hints = typing.get_type_hints(load)
    except Exception:  # pragma: no cover - an annotation that cannot be resolved: keep strings
        hints = {}
    options = {}
    for key, text in pairs:
        if key not in params:
            raise BenchkitValueError(
                f"--option {key}=... is not an option of dataset {name!r}; its options: "
                f"{', '.join(params) or 'none'}"
            )
        hint = hints.get(key, params[key].annotation)
        if hint is inspect.Parameter.empty and params[key].default not in (None, inspect.Parameter.empty):
            hint = type(params[key].default)
        options[key] = _convert(key, text, hint)
    return options


def build_parser() -> argparse.ArgumentParser:
    """The ``benchkit`` argument parser (the docs print its help, so the command-line page stays true)."""
    parser = argparse.ArgumentParser(prog="benchkit", description="Item-level diagnosis of LLM benchmarks.")
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("datasets", help="list the public sources benchkit can fetch")
    p_fetch = sub.add_parser("fetch", help="load a public dataset and summarize it")
    p_fetch.add_argument("name")
    p_fetch.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                         help="an option of the dataset's loader, e.g. -o part=labels")
    p_info = sub.add_parser("info", help="recognize an evaluation file or folder, read it and summarize it")
    p_info.add_argument("path")
    p_info.add_argument("--format", default=None, dest="fmt",
                        choices=("inspect", "lm_eval", "helm", "evalscope", "every_eval_ever", "csv",
                                 "parquet"),
                        help="skip content detection")
    p_info.add_argument("--layout", choices=("long", "counts", "wide"), default="long",
                        help="table layout of a CSV/Parquet file")
    return parser


def main(argv: list[str] | None = None, out=None) -> int:
    """Run the ``benchkit`` command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    out = EscapingWriter(out or sys.stdout)
    err = EscapingWriter(sys.stderr)
    parser = build_parser()
    args = parser.parse_args(argv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = _run(args, parser, out, err)
    for w in caught:  # shown after the output, escaped like it (a warning can quote a file)
        print(f"benchkit: warning: {escape(' '.join(str(w.message).split()))}", file=err)
    return code


def _run(args, parser, out, err) -> int:
    try:
        if args.command == "datasets":
            from benchkit.datasets import sources

            print(sources()[["repo", "commit", "license", "files"]].to_string(), file=out)
        elif args.command == "fetch":
            from benchkit.datasets import fetch

            pairs = []
            for item in args.option:
                key, sep, value = item.partition("=")
                if not sep or not key:
                    parser.error(f"--option {item!r} must look like KEY=VALUE")
                pairs.append((key, value))
            _summarize(fetch(args.name, **_loader_options(args.name, pairs)), out)
        else:
            _info(args.path, args.fmt, args.layout, out)
    except Exception as exc:  # every error: one line and exit code 2 (--debug: the traceback)
        if args.debug:
            traceback.print_exc(file=err)
        text = " ".join(str(exc).split()) or type(exc).__name__
        if not isinstance(exc, BenchkitError):
            text = f"{type(exc).__name__}: {text}"
        print(f"benchkit: error: {escape(text)}", file=err)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
