"""The ``benchkit`` command line.

::

    benchkit datasets                 # the public sources: repository, pinned commit, license
    benchkit fetch NAME [--verify]    # load a public dataset (from the mirror/cache/URL) and summarize it
    benchkit info FILE [--layout L]   # load a CSV/Parquet file into a ResponseSet and summarize it
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
    p_info = sub.add_parser("info", help="load a CSV or Parquet file and summarize it")
    p_info.add_argument("path")
    p_info.add_argument("--layout", choices=("long", "counts", "wide"), default="long")
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
            from benchkit import io

            reader = io.read_parquet if args.path.endswith(".parquet") else io.read_csv
            _summarize(reader(args.path, layout=args.layout), out)
    except BenchkitError as exc:
        print(f"benchkit: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
