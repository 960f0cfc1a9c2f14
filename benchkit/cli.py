"""The ``benchkit`` command line.

::

    benchkit datasets                 # the public sources: repository, pinned commit, license
    benchkit fetch NAME [--verify]    # load a public dataset (from the mirror/cache/URL) and summarize it
    benchkit info FILE [--format F] [--layout L]
                                      # recognize an evaluation file or folder by its content
                                      # (Inspect, lm-eval, HELM, EvalScope, Every Eval Ever,
                                      # CSV/Parquet), read it, and print what was read and skipped
"""
from __future__ import annotations

import argparse
import sys

from benchkit._validation import BenchkitError

__all__ = ["main"]


def _summarize(obj, out) -> None:
    import pandas as pd

    from benchkit.response_set import ResponseSet

    if isinstance(obj, ResponseSet):
        print(repr(obj), file=out)
        if obj.variants:
            obj = obj.select(variant=obj.variants[0])
            print(f"(accuracy of variant {obj.variants[0] if obj.variants else ''!s})", file=out)
        try:
            acc = obj.accuracy().sort_values(ascending=False)
        except BenchkitError:
            return
        print(acc.round(4).to_string(), file=out)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            print(f"== {key}", file=out)
            _summarize(value, out)
    elif isinstance(obj, pd.DataFrame):
        print(f"table: {len(obj):,} rows x {obj.shape[1]} columns ({', '.join(map(str, obj.columns[:10]))})",
              file=out)
    else:
        print(repr(obj), file=out)


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
    print(f"format: {fmt} ({reason})", file=out)
    meta = rs.meta or {}
    for key in ("scorer", "metric", "filter", "result", "correct"):
        if meta.get(key) not in (None, {}, []):
            print(f"{key}: {meta[key]}", file=out)
    print("read:", file=out)
    _summarize(rs, out)
    skipped = []
    unscored = meta.get("unscored") or []
    if unscored:
        skipped.append(f"{len(unscored)} samples without a usable score:")
        for u in unscored[:10]:
            detail = u.get("error") or u.get("why") or "no score"
            ident = u.get("id", u.get("item"))
            skipped.append(f"  {ident} (epoch/sample {u.get('epoch', u.get('sample'))}): {detail}")
        if len(unscored) > 10:
            skipped.append(f"  ... {len(unscored) - 10} more")
    if meta.get("other_scorers"):
        skipped.append(f"other scorers (pass scorer=... to read one): {meta['other_scorers']}")
    if meta.get("skipped_filters"):
        skipped.append(f"records of other filters: {meta['skipped_filters']}")
    if meta.get("skipped_results"):
        skipped.append(f"records of other results: {meta['skipped_results']}")
    report = getattr(rs, "report", None)
    if report:
        skipped.append(str(report))
    print("skipped: " + ("nothing" if not skipped else ""), file=out)
    for line in skipped:
        print(f"  {line}", file=out)


def main(argv: list[str] | None = None, out=None) -> int:
    """Run the ``benchkit`` command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    out = out or sys.stdout
    parser = argparse.ArgumentParser(prog="benchkit", description="Item-level diagnosis of LLM benchmarks.")
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
    args = parser.parse_args(argv)
    try:
        if args.command == "datasets":
            from benchkit.datasets import sources

            print(sources()[["repo", "commit", "license", "files"]].to_string(), file=out)
        elif args.command == "fetch":
            from benchkit.datasets import fetch

            options = {}
            for item in args.option:
                key, sep, value = item.partition("=")
                if not sep or not key:
                    parser.error(f"--option {item!r} must look like KEY=VALUE")
                options[key] = value
            _summarize(fetch(args.name, **options), out)
        else:
            _info(args.path, args.fmt, args.layout, out)
    except BenchkitError as exc:
        print(f"benchkit: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
