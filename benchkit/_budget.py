"""The resource budget: memory and time a call may use, checked before allocating or computing.

A call whose size follows from its input (a sample budget ``T``, the number of models x items of a
sparse long table, the size of a file) estimates the memory or time it needs *before* it allocates
or starts, and refuses what exceeds the budget with the estimate in the message, instead of
filling memory for minutes and dying. The budget:

* memory: ``BENCHKIT_MEMORY_BUDGET`` (bytes, or a size such as ``"12GiB"`` / ``"500MB"``), else
  half of the machine's physical memory (8 GiB when that cannot be read);
* time: ``BENCHKIT_TIME_BUDGET`` (seconds), else 600 s;
* :func:`resource_budget` overrides both inside a ``with`` block (it wins over the environment).

Estimates are deliberately rough (a factor of two either way): they exist to refuse inputs that
are hundreds of times too large, not to squeeze the last gigabyte. The constants they use are
stated where they are made (e.g. 10x the file size for parsed JSON).
"""
from __future__ import annotations

import contextlib
import contextvars
import os
import re
from collections.abc import Iterator

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import describe

__all__ = ["check_memory", "check_time", "format_bytes", "memory_budget", "parse_bytes",
           "resource_budget", "time_budget"]

ENV_MEMORY = "BENCHKIT_MEMORY_BUDGET"
ENV_SECONDS = "BENCHKIT_TIME_BUDGET"
DEFAULT_SECONDS = 600.0
_FALLBACK_MEMORY = 8 * 1024**3
_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9, "gb": 10**9,
          "t": 10**12, "tb": 10**12, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*([a-zA-Z]*)\s*$")
_override: contextvars.ContextVar[tuple[int | None, float | None]] = contextvars.ContextVar(
    "benchkit_resource_budget", default=(None, None))


def parse_bytes(name: str, value) -> int:
    """A memory size: an int (bytes) or a string such as ``"12GiB"``, ``"500 MB"``, ``"1e9"`` is not one."""
    if isinstance(value, bool):
        raise BenchkitTypeError(
            f"{name} must be a number of bytes or a size like '12GiB', got {describe(value)}")
    if isinstance(value, int):
        nbytes = value
    elif isinstance(value, str):
        m = _SIZE.match(value)
        unit = m.group(2).lower() if m else None
        if m is None or unit not in _UNITS:
            raise BenchkitValueError(
                f"{name}={value!r} is not a size; write bytes (e.g. 8000000000) or a number with a unit "
                "(B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), e.g. '12GiB'"
            )
        nbytes = int(float(m.group(1)) * _UNITS[unit])
    else:
        raise BenchkitTypeError(
            f"{name} must be a number of bytes or a size like '12GiB', got {describe(value)}")
    if nbytes < 1:
        raise BenchkitValueError(f"{name}={value!r} must be at least 1 byte")
    return nbytes


def _seconds(name: str, value) -> float:
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise BenchkitValueError(f"{name}={value!r} is not a number of seconds") from None
    if isinstance(value, bool) or not seconds > 0 or seconds == float("inf"):
        raise BenchkitValueError(f"{name}={value!r} must be a finite number of seconds > 0")
    return seconds


def format_bytes(n: float) -> str:
    """``n`` bytes in binary units, e.g. ``"7.47 GiB"``."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:,.3g} {unit}" if n / size < 1000 else f"{n / size:,.0f} {unit}"
    return f"{int(n)} bytes"


def _physical_memory() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 2 * _FALLBACK_MEMORY


def memory_budget() -> int:
    """The memory budget in bytes (see the module docstring for where it comes from)."""
    memory, _ = _override.get()
    if memory is not None:
        return memory
    env = os.environ.get(ENV_MEMORY, "").strip()
    if env:
        return parse_bytes(ENV_MEMORY, env)
    return _physical_memory() // 2


def time_budget() -> float:
    """The time budget in seconds."""
    _, seconds = _override.get()
    if seconds is not None:
        return seconds
    env = os.environ.get(ENV_SECONDS, "").strip()
    return _seconds(ENV_SECONDS, env) if env else DEFAULT_SECONDS


@contextlib.contextmanager
def resource_budget(*, memory=None, seconds=None) -> Iterator[None]:
    """Set the memory and/or time budget inside a ``with`` block.

    Parameters
    ----------
    memory : int or str, optional
        Bytes, or a size such as ``"64GiB"``; None keeps the current memory budget.
    seconds : float, optional
        Seconds; None keeps the current time budget.

    Yields
    ------
    None
        Inside the block, calls that estimate their memory or time before starting (profiles at
        a large ``T``, dense views of a sparse ResponseSet, the simulators, the aggregating
        Parquet reader) check against these budgets; on exit the previous budgets return.

    References
    ----------
    benchkit's own budget rule (the module docstring of ``benchkit._budget``); the override is
    context-local (Python's :mod:`contextvars`), so threads and tasks keep their own.

    Examples
    --------
    >>> import benchkit
    >>> from benchkit._budget import memory_budget, time_budget
    >>> with benchkit.resource_budget(memory="64GiB", seconds=3600):
    ...     print(memory_budget() == 64 * 2**30, time_budget())
    True 3600.0
    """
    new_memory = None if memory is None else parse_bytes("memory", memory)
    new_seconds = None if seconds is None else _seconds("seconds", seconds)
    old_memory, old_seconds = _override.get()
    token = _override.set((new_memory if new_memory is not None else old_memory,
                           new_seconds if new_seconds is not None else old_seconds))
    try:
        yield
    finally:
        _override.reset(token)


def check_memory(what: str, nbytes: float, *, hint: str = "") -> None:
    """Refuse ``what`` when its estimated memory ``nbytes`` exceeds the budget (message: both numbers)."""
    budget = memory_budget()
    if nbytes > budget:
        raise BenchkitValueError(
            f"{what} needs about {format_bytes(nbytes)} of memory (estimated before allocating), more "
            f"than the budget of {format_bytes(budget)}" + (f"; {hint}" if hint else "")
            + f". If the machine has it, raise the budget: benchkit.resource_budget(memory=...) or "
            f"{ENV_MEMORY}"
        )


def check_time(what: str, seconds: float, *, hint: str = "") -> None:
    """Refuse ``what`` when its estimated run time exceeds the time budget."""
    budget = time_budget()
    if seconds > budget:
        shown = f"{seconds:,.0f} s" if seconds < 1e7 else f"{seconds:.2g} s"
        raise BenchkitValueError(
            f"{what} would run for about {shown} (estimated before starting), more than the time "
            f"budget of {budget:,.0f} s" + (f"; {hint}" if hint else "")
            + f". To wait that long, raise the budget: benchkit.resource_budget(seconds=...) or "
            f"{ENV_SECONDS}"
        )
