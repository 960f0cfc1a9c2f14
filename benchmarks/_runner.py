"""A small, honest benchmark runner.

A benchmark module ``benchmarks/bench_<topic>.py`` defines ``def cases() -> list[Case]``. Each
:class:`Case` times one benchkit call (``kit``) against what a user would write without benchkit
(``alternative``, e.g. a plain pandas/scipy version), in the same process, on the same inputs.

For each case, :func:`run`

1. calls ``setup()`` once (build inputs, not timed);
2. calls ``kit()`` once and reports that first call separately as *warm-up* (numba compilation or
   cache loading, imports, first-touch allocation); the alternative gets one untimed warm-up call too;
3. times ``repeat`` further calls of each with :func:`time.perf_counter`, interleaving kit and
   alternative so that machine noise hits both alike, and reports the medians and the ratio
   ``alternative / kit`` (above 1: benchkit is faster).

A case that raises is reported as failed (with the exception) and the others still run.

Run all benchmarks with ``python -m benchmarks``, or a subset with ``python -m benchmarks <filter>``
(a case runs when the filter is a substring of its module's topic or of its name).

Timings on a shared machine are noisy: rotate several inputs inside ``kit``/``alternative`` where a
single repeated small input would let the CPU learn its branches, and quote medians and ratios.
"""
from __future__ import annotations

import importlib.util
import math
import statistics
import sys
import time
import traceback
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Callable
from typing import Iterable
from typing import TextIO

import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import check_int

__all__ = ["Case", "CaseResult", "RunResult", "run", "format_seconds", "load_naive"]


@dataclass(frozen=True)
class Case:
    """One benchmark: a benchkit call and the alternative a user would otherwise write.

    Parameters
    ----------
    name : str
        Short unique name, e.g. ``"from_long 1000x50 T=10"``.
    kit : callable
        The benchkit call, no arguments (inputs come from a closure or ``setup``).
    alternative : callable or None
        The plain alternative, no arguments; None when there is no fair alternative.
    alternative_name : str
        What the alternative is, e.g. ``"pandas pivot_table"``.
    setup : callable or None
        Called once before the warm-up, untimed.
    repeat : int
        Number of timed calls of each function (after the warm-up call).
    note : str
        Free text printed with the result (input sizes, what is compared).
    """

    name: str
    kit: Callable[[], object]
    alternative: Callable[[], object] | None
    alternative_name: str
    setup: Callable[[], None] | None = None
    repeat: int = 5
    note: str = ""


@dataclass(frozen=True)
class CaseResult:
    """Timings of one case, in seconds. ``error`` is set (and timings may be NaN) when it failed."""

    name: str
    warmup: float
    kit_median: float
    kit_times: tuple[float, ...]
    alternative_name: str
    alternative_warmup: float
    alternative_median: float
    alternative_times: tuple[float, ...]
    note: str = ""
    error: str | None = None

    @property
    def ratio(self) -> float:
        """``alternative_median / kit_median`` (NaN without an alternative or on failure)."""
        if math.isnan(self.alternative_median) or math.isnan(self.kit_median):
            return math.nan
        if self.kit_median == 0.0:
            return math.inf
        return self.alternative_median / self.kit_median

    @property
    def failed(self) -> bool:
        return self.error is not None


@dataclass(frozen=True)
class RunResult:
    """All case results of one :func:`run`."""

    results: tuple[CaseResult, ...] = field(default=())

    @property
    def failed(self) -> tuple[CaseResult, ...]:
        return tuple(r for r in self.results if r.failed)

    def to_frame(self) -> pd.DataFrame:
        """One row per case: warm-up, medians (seconds), ratio, note and error."""
        rows = [
            {
                "case": r.name,
                "warmup_s": r.warmup,
                "kit_median_s": r.kit_median,
                "alternative": r.alternative_name,
                "alternative_warmup_s": r.alternative_warmup,
                "alternative_median_s": r.alternative_median,
                "ratio": r.ratio,
                "repeat": len(r.kit_times),
                "note": r.note,
                "error": r.error,
            }
            for r in self.results
        ]
        columns = ["case", "warmup_s", "kit_median_s", "alternative", "alternative_warmup_s",
                   "alternative_median_s", "ratio", "repeat", "note", "error"]
        return pd.DataFrame(rows, columns=columns)


def format_seconds(seconds: float) -> str:
    """``0.00123`` -> ``'1.23 ms'``; NaN -> ``'-'``."""
    if seconds is None or math.isnan(seconds):
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _run_case(case: Case) -> CaseResult:
    nan = math.nan
    warmup = alt_warmup = nan
    kit_times: list[float] = []
    alt_times: list[float] = []
    error = None
    stage = "setup"
    try:
        if case.setup is not None:
            case.setup()
        stage = "kit (warm-up)"
        warmup = _timed(case.kit)
        if case.alternative is not None:
            stage = f"alternative {case.alternative_name!r} (warm-up)"
            alt_warmup = _timed(case.alternative)
        for _ in range(case.repeat):
            stage = "kit"
            kit_times.append(_timed(case.kit))
            if case.alternative is not None:
                stage = f"alternative {case.alternative_name!r}"
                alt_times.append(_timed(case.alternative))
    except Exception as exc:  # a failing case is reported, the others still run
        last = traceback.extract_tb(exc.__traceback__)[-1]
        error = f"{stage}: {type(exc).__name__}: {exc} ({last.filename}:{last.lineno})"
    return CaseResult(
        name=case.name,
        warmup=warmup,
        kit_median=statistics.median(kit_times) if kit_times and error is None else nan,
        kit_times=tuple(kit_times),
        alternative_name=case.alternative_name if case.alternative is not None else "",
        alternative_warmup=alt_warmup,
        alternative_median=statistics.median(alt_times) if alt_times and error is None else nan,
        alternative_times=tuple(alt_times),
        note=case.note,
        error=error,
    )


def _select(cases: Iterable[Case], filter: str | None) -> list[Case]:
    cases = list(cases)
    for i, c in enumerate(cases):
        if not isinstance(c, Case):
            raise BenchkitTypeError(f"cases[{i}] must be a benchmarks._runner.Case, got {type(c).__name__}")
        check_int(f"cases[{i}].repeat", c.repeat, min=1)
    if filter is None:
        return cases
    if not isinstance(filter, str):
        raise BenchkitTypeError(f"filter must be a str or None, got {type(filter).__name__}")
    needle = filter.lower()
    return [c for c in cases if needle in c.name.lower()]


_HEADER = ("case", "warm-up", "kit median", "alternative", "alt median", "ratio alt/kit", "note")


def _row(r: CaseResult) -> tuple[str, ...]:
    if r.failed:
        return (r.name, format_seconds(r.warmup), "FAILED", r.alternative_name, "-", "-", r.error or "")
    ratio = "-" if math.isnan(r.ratio) else f"{r.ratio:.2f}x"
    return (r.name, format_seconds(r.warmup), format_seconds(r.kit_median), r.alternative_name or "-",
            format_seconds(r.alternative_median), ratio, r.note)


def format_table(results: Iterable[CaseResult]) -> str:
    """The plain-text table :func:`run` prints."""
    rows = [_HEADER] + [_row(r) for r in results]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADER) - 1)]
    lines = []
    for k, row in enumerate(rows):
        cells = [cell.ljust(w) for cell, w in zip(row[:-1], widths)] + [row[-1]]
        lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths) + "  ----")
    return "\n".join(lines)


_STDOUT = object()


def run(cases: Iterable[Case], *, filter: str | None = None, out: TextIO | None = _STDOUT) -> RunResult:  # type: ignore[assignment]
    """Warm up, time and compare ``cases``; print a table to ``out`` (None: print nothing).

    Parameters
    ----------
    cases : iterable of Case
    filter : str, optional
        Run only cases whose name contains this substring (case-insensitive).
    out : text stream or None
        Where the progress lines and the final table go (default: ``sys.stdout`` at call time).

    Returns
    -------
    RunResult
        Per-case warm-up time, medians of the timed calls and the ratio alternative / kit;
        failed cases carry their error.
    """
    if out is _STDOUT:
        out = sys.stdout
    selected = _select(cases, filter)
    results = []
    for case in selected:
        if out is not None:
            print(f"running {case.name} ...", file=out, flush=True)
        results.append(_run_case(case))
    result = RunResult(tuple(results))
    if out is not None:
        print(file=out)
        print(format_table(result.results), file=out)
        if result.failed:
            print(f"\n{len(result.failed)} of {len(results)} case(s) failed", file=out)
        out.flush()
    return result


def load_naive():
    """``tests/naive.py`` (the slow obviously-correct twins and dense oracles) as a module, for
    alternatives that are those twins; loaded by path, as ``tests`` is not a package."""
    path = Path(__file__).resolve().parents[1] / "tests" / "naive.py"
    spec = importlib.util.spec_from_file_location("benchkit_tests_naive", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
