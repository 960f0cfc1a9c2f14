"""The one place benchkit's errors and argument checks live.

Every user-facing error is a :class:`BenchkitValueError` or :class:`BenchkitTypeError` (subclasses
of the builtin ``ValueError`` / ``TypeError``, so ``except ValueError`` keeps working) whose message
names the argument, the bad value and what is allowed. Nothing in the package uses ``assert`` for
input checking.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "BenchkitError",
    "BenchkitValueError",
    "BenchkitTypeError",
    "BenchkitWarning",
    "check_bool",
    "check_text",
    "check_choice",
    "check_choices",
    "check_int",
    "check_float",
    "check_probability",
    "check_array",
    "check_columns",
    "describe",
]


class BenchkitError(Exception):
    """Base class of all benchkit errors.

    Catch it to handle any error benchkit raises about its input; the message names the argument
    (or file and column), the bad value and what is allowed.

    Examples
    --------
    >>> import benchkit
    >>> from benchkit.stats import holm
    >>> try:
    ...     holm([0.2, 1.5])
    ... except benchkit.BenchkitError as err:
    ...     print(err)
    pvalues must lie in [0, 1]; got 1.5
    """


class BenchkitValueError(BenchkitError, ValueError):
    """An argument has the right type but a value that is not allowed.

    A subclass of the builtin ``ValueError``, so ``except ValueError`` keeps working.

    Examples
    --------
    >>> import benchkit
    >>> from benchkit.subsets import select_random
    >>> try:
    ...     select_random(10, 20)
    ... except benchkit.BenchkitValueError as err:
    ...     print(err)
    size=20 exceeds the candidate pool of 10 items
    >>> issubclass(benchkit.BenchkitValueError, ValueError)
    True
    """


class BenchkitTypeError(BenchkitError, TypeError):
    """An argument has a type that is not allowed.

    A subclass of the builtin ``TypeError``, so ``except TypeError`` keeps working.

    Examples
    --------
    >>> import benchkit
    >>> from benchkit.subsets import select_random
    >>> try:
    ...     select_random(10, 2, rng="seven")
    ... except benchkit.BenchkitTypeError as err:
    ...     print(err)
    rng must be None, a non-negative int, a numpy SeedSequence or a numpy Generator; got 'seven'
    """


class BenchkitWarning(UserWarning):
    """A warning from benchkit (pytest turns these into errors in the test suite).

    Raised where benchkit reads data it can use but a user should know about (e.g. an Inspect log
    that stopped early). Filter it like any warning.

    Examples
    --------
    Turn benchkit's warnings into errors (as the test suite does), or silence them:

    >>> import warnings
    >>> import benchkit
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", benchkit.BenchkitWarning)
    ...     try:
    ...         warnings.warn("the log is incomplete", benchkit.BenchkitWarning)
    ...     except benchkit.BenchkitWarning as w:
    ...         print("raised:", w)
    raised: the log is incomplete
    """


class UntrustedIntervalWarning(BenchkitWarning):
    """Some bootstrap intervals cannot be trusted (each one's reason is in the result's diagnostics).

    A category of its own, so that a caller that does not use the intervals (the cross-method
    audit) can set it aside by category instead of by message.
    """


def describe(value: Any, limit: int = 60) -> str:
    """A short, quoted representation of ``value`` for error messages."""
    if isinstance(value, np.generic):
        value = value.item()
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


def _preview(values: Iterable[Any], limit: int = 5) -> str:
    values = list(values)
    shown = ", ".join(describe(v, 40) for v in values[:limit])
    if len(values) > limit:
        shown += f", ... ({len(values)} in all)"
    return shown


def check_choice(name: str, value: Any, allowed: Sequence[Any]) -> Any:
    """Return ``value`` if it is one of ``allowed``; otherwise raise naming all choices."""
    if value not in allowed:
        raise BenchkitValueError(
            f"{name}={describe(value)} is not allowed; choose one of {_preview(allowed, 20)}"
        )
    return value


def check_choices(name: str, value: Any, allowed: Sequence[Any]) -> list:
    """Return the chosen values among ``allowed`` (one string, or several), in ``allowed`` order.

    Each value is kept once; a value that is not allowed raises as :func:`check_choice`.
    """
    chosen = [value] if isinstance(value, str) else list(value)
    for v in chosen:
        check_choice(name, v, allowed)
    return [a for a in allowed if a in chosen]


def check_bool(name: str, value: Any) -> bool:
    """Return ``value`` as a bool if it is True or False (numpy's too); a truthy string is refused."""
    if not isinstance(value, (bool, np.bool_)):
        raise BenchkitTypeError(f"{name} must be True or False, got {describe(value)}")
    return bool(value)


def check_text(name: str, value: Any) -> str:
    """Return ``value`` if it is a string; None and NaN (a missing text in a frame) read as ``""``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if not isinstance(value, str):
        raise BenchkitTypeError(f"{name} must be a string; got {describe(value)}")
    return value


def check_int(
    name: str, value: Any, *, min: int | None = None, max: int | None = None
) -> int:
    """Return ``value`` as ``int`` if it is an integer (not bool) within [min, max]."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise BenchkitTypeError(f"{name} must be an integer, got {describe(value)}")
    value = int(value)
    if min is not None and value < min:
        raise BenchkitValueError(f"{name}={value} is too small; it must be >= {min}")
    if max is not None and value > max:
        raise BenchkitValueError(f"{name}={value} is too large; it must be <= {max}")
    return value


def check_float(
    name: str,
    value: Any,
    *,
    min: float | None = None,
    max: float | None = None,
    min_inclusive: bool = True,
    max_inclusive: bool = True,
) -> float:
    """Return ``value`` as a finite ``float`` within the given bounds."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise BenchkitTypeError(f"{name} must be a real number, got {describe(value)}")
    value = float(value)
    if not np.isfinite(value):
        raise BenchkitValueError(f"{name}={value} must be finite")
    if min is not None and (value < min or (not min_inclusive and value == min)):
        op = ">=" if min_inclusive else ">"
        raise BenchkitValueError(f"{name}={value} is out of range; it must be {op} {min}")
    if max is not None and (value > max or (not max_inclusive and value == max)):
        op = "<=" if max_inclusive else "<"
        raise BenchkitValueError(f"{name}={value} is out of range; it must be {op} {max}")
    return value


def check_probability(name: str, value: Any, *, open_interval: bool = False) -> float:
    """Return ``value`` as a float in [0, 1] (or (0, 1) with ``open_interval``)."""
    return check_float(
        name, value, min=0.0, max=1.0, min_inclusive=not open_interval,
        max_inclusive=not open_interval,
    )


def check_array(
    name: str,
    value: Any,
    *,
    ndim: int | Sequence[int] | None = None,
    dtype: str | None = None,
    finite: bool = True,
    min_size: int = 0,
    shape: Sequence[int | None] | None = None,
) -> np.ndarray:
    """Convert ``value`` to a numpy array and check it.

    ``dtype`` is ``"float"`` (converted to float64), ``"int"`` (must hold integers exactly;
    converted to int64) or ``None`` (kept). ``shape`` entries of ``None`` match any length.
    """
    try:
        arr = np.asarray(value)
    except Exception as exc:  # pragma: no cover - numpy's message is kept
        raise BenchkitTypeError(f"{name} could not be converted to an array: {exc}") from exc
    if arr.dtype == object:
        raise BenchkitTypeError(
            f"{name} must be a numeric array; got an object array (ragged rows or mixed types?)"
        )
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            raise BenchkitValueError(
                f"{name} must have {' or '.join(map(str, allowed))} dimension(s); "
                f"got shape {arr.shape}"
            )
    if shape is not None:
        if arr.ndim != len(shape) or any(
            s is not None and s != a for s, a in zip(shape, arr.shape)
        ):
            want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
            raise BenchkitValueError(f"{name} must have shape {want}; got {arr.shape}")
    if arr.size < min_size:
        raise BenchkitValueError(f"{name} must have at least {min_size} element(s); got {arr.size}")
    if dtype == "float":
        if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
            raise BenchkitTypeError(f"{name} must be numeric; got dtype {arr.dtype}")
        arr = arr.astype(np.float64, copy=False)
    elif dtype == "int":
        if np.issubdtype(arr.dtype, np.floating):
            if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
                bad = arr[~np.isfinite(arr) | (arr != np.round(arr))].ravel()[0]
                raise BenchkitValueError(f"{name} must hold integers; found {describe(bad)}")
        elif not (np.issubdtype(arr.dtype, np.integer) or arr.dtype == bool):
            raise BenchkitTypeError(f"{name} must hold integers; got dtype {arr.dtype}")
        arr = arr.astype(np.int64, copy=False)
    if finite and np.issubdtype(arr.dtype, np.floating) and arr.size and not np.all(np.isfinite(arr)):
        where = np.argwhere(~np.isfinite(arr))[0]
        raise BenchkitValueError(
            f"{name} must be finite; found {arr[tuple(where)]} at index {tuple(int(i) for i in where)}"
        )
    return arr


def check_columns(
    name: str,
    columns: Iterable[Any],
    *,
    required: Sequence[str] = (),
    allowed: Sequence[str] | None = None,
) -> None:
    """Check a table's column names: no duplicates, all ``required`` present, only ``allowed``."""
    columns = list(columns)
    seen: set[Any] = set()
    dups = [c for c in columns if c in seen or seen.add(c)]
    if dups:
        raise BenchkitValueError(f"{name} has duplicate column(s) {_preview(sorted(set(map(str, dups))))}")
    missing = [c for c in required if c not in seen]
    if missing:
        raise BenchkitValueError(
            f"{name} is missing required column(s) {_preview(missing)}; "
            f"it has {_preview(columns, 12)}"
        )
    if allowed is not None:
        extra = [c for c in columns if c not in allowed]
        if extra:
            raise BenchkitValueError(
                f"{name} has unknown column(s) {_preview(extra)}; allowed: {_preview(allowed, 20)}"
            )
