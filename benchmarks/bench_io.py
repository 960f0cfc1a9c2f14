"""Benchmarks for benchkit.io (issue 14): a 10,000-sample Inspect log read into a ResponseSet.

The log is written by inspect_ai itself (``tests/tool_fixtures/make_inspect.py OUT 10000``:
mockllm/model, one ``match`` scorer, zstd members, ~18 MB) once and cached in
``$BENCHKIT_BENCH_CACHE`` (default ``~/.cache/benchkit/bench_io``); writing it takes minutes
(inspect runs every sample), so it is kept out of the timings.

Alternatives (inspect_ai's own readers, needs inspect_ai installed):
* ``read_eval_log(path)`` -- the whole EvalLog with every sample (what most users call);
* ``inspect_ai.analysis.samples_df(path)`` -- one row per sample, a pandas frame.
benchkit's ``read_inspect`` decompresses only ``header.json`` and ``summaries.json``.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from benchmarks._runner import Case

N = 10_000
_CACHE = Path(os.environ.get("BENCHKIT_BENCH_CACHE", Path.home() / ".cache" / "benchkit" / "bench_io"))
_LOG = _CACHE / f"big_{N}.eval"


def _make_log() -> None:
    if _LOG.exists():
        return
    out = _CACHE / "tmp_make"
    script = Path(__file__).resolve().parent.parent / "tests" / "tool_fixtures" / "make_inspect.py"
    subprocess.run([sys.executable, str(script), str(out), str(N)], check=True,
                   env={**os.environ, "HF_HUB_OFFLINE": "1", "INSPECT_DISPLAY": "none"})
    _LOG.parent.mkdir(parents=True, exist_ok=True)
    (out / "big.eval").replace(_LOG)


def _kit():
    from benchkit.io import read_inspect
    return lambda: read_inspect(_LOG)


def _read_eval_log():
    from inspect_ai.log import read_eval_log
    return lambda: read_eval_log(str(_LOG))


def _samples_df():
    from inspect_ai.analysis import samples_df
    return lambda: samples_df(str(_LOG), quiet=True)


def cases() -> list[Case]:
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        return []
    note = f"{N:,}-sample .eval log written by inspect_ai (zstd members)"
    return [
        Case(name="inspect_10k_vs_read_eval_log", kit=_kit(), alternative=_read_eval_log(),
             alternative_name="inspect_ai.log.read_eval_log", setup=_make_log, repeat=3, note=note),
        Case(name="inspect_10k_vs_samples_df", kit=_kit(), alternative=_samples_df(),
             alternative_name="inspect_ai.analysis.samples_df", setup=_make_log, repeat=3, note=note),
    ]
