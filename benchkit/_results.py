"""``@result``: the one way a benchkit function's result class is declared.

A result is a frozen dataclass (CONTRIBUTING.md, "The calling convention") whose repr summarizes
instead of printing data: arrays show their shape and dtype, frames their size, long collections
their length. Printing a result in a notebook therefore shows its scalars and its structure, never
pages of numbers, and no field needs ``field(repr=False)`` to stay readable.
"""
from __future__ import annotations

import dataclasses
from typing import Any
from typing import TypeVar
from typing import dataclass_transform

import numpy as np
import pandas as pd

__all__ = ["result", "summary_repr"]

_T = TypeVar("_T")
_SHOWN_ITEMS = 6  # arrays and collections up to this many elements are printed whole
_WIDTH = 100  # a repr longer than this is laid out one field per line
_VALUE_WIDTH = 80  # a field's own repr longer than this is cut


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def result(cls: type[_T]) -> type[_T]:
    """Declare ``cls`` a frozen dataclass with the summarizing :func:`summary_repr`.

    A ``__repr__`` written in the class body is kept. ``__benchkit_result__`` marks the class as a
    result (so tools, e.g. the docstring checks, know it whatever its repr).
    """
    own_repr = "__repr__" in cls.__dict__
    cls = dataclasses.dataclass(frozen=True, repr=False)(cls)
    cls.__benchkit_result__ = True
    if not own_repr:
        cls.__repr__ = summary_repr
    return cls


def summary_repr(obj: Any) -> str:
    """``Name(field=value, ...)`` with arrays, frames and long collections summarized."""
    parts = [f"{f.name}={_short(getattr(obj, f.name))}" for f in dataclasses.fields(obj) if f.repr]
    name = type(obj).__name__
    line = f"{name}({', '.join(parts)})"
    if len(line) <= _WIDTH:
        return line
    body = "".join(f"    {p.replace(chr(10), chr(10) + '    ')},\n" for p in parts)
    return f"{name}(\n{body})"


def _short(value: Any) -> str:
    if isinstance(value, np.ndarray):
        if value.size <= _SHOWN_ITEMS and value.ndim <= 1:
            return repr(value.tolist())
        shape = "x".join(str(n) for n in value.shape)
        return f"<array {shape} {value.dtype}>"
    if isinstance(value, pd.DataFrame):
        return f"<DataFrame {value.shape[0]} rows x {value.shape[1]} columns>"
    if isinstance(value, (pd.Series, pd.Index)):
        return f"<{type(value).__name__} of {len(value)}>"
    if isinstance(value, (list, tuple, dict, set, frozenset)) and len(value) > _SHOWN_ITEMS:
        return f"<{type(value).__name__} of {len(value)}>"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return repr(value)
    if type(value) is dict:  # a few entries: each value summarized by the same rules
        text = "{" + ", ".join(f"{k!r}: {_short(v)}" for k, v in value.items()) + "}"
    elif type(value) in (list, tuple):
        inner = ", ".join(_short(v) for v in value)
        text = f"[{inner}]" if type(value) is list else f"({inner}{',' if len(value) == 1 else ''})"
    else:
        text = repr(value)
    return text if len(text) <= _VALUE_WIDTH else text[:_VALUE_WIDTH - 3] + "..."
