"""``benchkit datasets``, ``benchkit fetch NAME`` and ``benchkit info PATH``: what is there to read."""
from __future__ import annotations

from benchkit._terminal import escape
from benchkit._validation import BenchkitError
from benchkit.cli._common import keyword_options
from benchkit.cli._inputs import skipped_lines


def summarize(obj, out) -> None:
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
            summarize(value, out)
    elif isinstance(obj, pd.DataFrame):
        columns = ", ".join(escape(c) for c in obj.columns[:10])
        print(f"table: {len(obj):,} rows x {obj.shape[1]} columns ({columns})", file=out)
    else:
        print(escape(repr(obj), keep_newlines=True), file=out)


def info(path: str, fmt: str | None, layout: str, out) -> None:
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
    summarize(rs, out)
    skipped = skipped_lines(rs)
    print("skipped: " + ("nothing" if not skipped else ""), file=out)
    for line in skipped:
        print(f"  {line}", file=out)


def datasets(out) -> None:
    from benchkit.datasets import sources

    print(sources()[["repo", "commit", "license", "files"]].to_string(), file=out)


def fetch(name: str, pairs: list[tuple[str, str]], out) -> None:
    from benchkit.datasets import _module
    from benchkit.datasets import fetch

    summarize(fetch(name, **keyword_options(_module(name).load, pairs, f"dataset {name!r}")), out)
