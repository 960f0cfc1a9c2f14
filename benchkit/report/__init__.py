"""One self-contained, offline HTML report of benchkit results (``benchkit report``).

:func:`build_report` assembles the page from results the caller computed (the command line runs
every method the data support, :func:`benchkit.compare_all` and, when present, the cross-method
audit). Sections: provenance (command, versions, seed, what each reader read and skipped, the
input files' sha256), the data, the audit summary, one section per method that ran (what it asks,
its headline numbers, its figure as inline SVG, its explorer running offline, its main table), the
methods that did not run and why, per-model results with paired comparisons of leaderboard
neighbours, methods and references, and how to reproduce the report.

The page loads nothing: its Content-Security-Policy forbids every request (``default-src 'none'``),
the only script is the report's own module (allowed by its sha256) and the explorer modules it
imports from ``blob:`` URLs, explorer data are gzip-compressed and base64-embedded, and every
string from a user's file is escaped. ``static=True`` writes the same report without any script.
The same results give the same bytes (no timestamp unless ``created`` is passed).

Figures and explorers need the Jupyter extra (``pip install 'benchkit[jupyter]'``); this module
imports it only when a report is built.
"""
from benchkit.report._build import build_report

__all__ = ["build_report"]
