"""``python -m benchmarks [filter] [--csv PATH]``: discover ``benchmarks/bench_*.py`` and run their cases.

A module's cases all run when ``filter`` is a substring of its topic (``bench_<topic>.py``); otherwise
only its cases whose name contains ``filter`` run. Exit status 1 when any case failed.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from pathlib import Path

from benchmarks._runner import Case
from benchmarks._runner import run


def discover(filter: str | None = None, *, directory: Path | None = None,
             package: str = "benchmarks") -> list[Case]:
    """Cases of every ``bench_*.py`` module of ``package`` (in ``directory``, default this folder),
    selected by ``filter`` as described above."""
    here = Path(directory) if directory is not None else Path(__file__).resolve().parent
    selected: list[Case] = []
    for info in sorted(pkgutil.iter_modules([str(here)]), key=lambda m: m.name):
        if not info.name.startswith("bench_"):
            continue
        topic = info.name[len("bench_"):]
        module = importlib.import_module(f"{package}.{info.name}")
        cases = list(module.cases())
        if filter is None or filter.lower() in topic.lower():
            selected.extend(cases)
        else:
            selected.extend(c for c in cases if filter.lower() in c.name.lower())
    return selected


def main(argv: list[str] | None = None, *, directory: Path | None = None, package: str = "benchmarks") -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("filter", nargs="?", default=None, help="substring of a topic or case name")
    parser.add_argument("--csv", default=None, help="also write the results table to this CSV file")
    args = parser.parse_args(argv)
    cases = discover(args.filter, directory=directory, package=package)
    if not cases:
        print(f"no benchmark case matches {args.filter!r}", file=sys.stderr)
        return 1
    result = run(cases)
    if args.csv:
        Path(args.csv).parent.mkdir(parents=True, exist_ok=True)
        result.to_frame().to_csv(args.csv, index=False)
    return 1 if result.failed else 0


if __name__ == "__main__":
    sys.exit(main())
