"""Record schemas of the evaluation-log formats, checked once per record with the field in the message.

Each reader states the JSON shape it relies on as a schema built from the classes below (next to
its format notes) and calls :func:`check` on every record before using it, so a record of the
wrong shape is refused as ``"<file>:<line>: field 'a.b[2].c' is 5; allowed: a string"`` instead
of raising an ``AttributeError`` deep inside the reader. After :func:`check`, the reader may use
every field the schema names with the type it declares.

Only what the readers use is declared: other fields pass unchecked (the tools add fields in new
releases). A field declared :func:`nullable` may be ``null``, which the readers treat as absent.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from benchkit._validation import BenchkitValueError
from benchkit._validation import describe

__all__ = ["AnyValue", "Bool", "Int", "ListOf", "Num", "Obj", "Str", "check", "nullable"]


class _Mismatch(Exception):
    def __init__(self, path: str, value: Any, allowed: str, missing: bool = False):
        super().__init__(path)
        self.path, self.value, self.allowed, self.missing = path, value, allowed, missing


class Spec:
    """A JSON shape: ``check(value, path)`` raises ``_Mismatch``; ``text`` says what is allowed."""

    text = "any value"

    def check(self, value: Any, path: str) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def __or__(self, other: Spec) -> Spec:
        return _Union(self, other)


class _Union(Spec):
    def __init__(self, *specs: Spec):
        self.specs = tuple(s for spec in specs for s in (spec.specs if isinstance(spec, _Union) else (spec,)))
        self.text = " or ".join(s.text for s in self.specs)

    def check(self, value, path):
        deepest = None
        for spec in self.specs:
            try:
                spec.check(value, path)
                return
            except _Mismatch as exc:  # keep the mismatch inside the branch whose type matched
                if exc.path != path and deepest is None:
                    deepest = exc
        if deepest is not None:
            raise deepest
        raise _Mismatch(path, value, self.text)


class AnyValue(Spec):
    """Any JSON value (including null)."""

    def check(self, value, path):
        return None


class _Null(Spec):
    text = "null"

    def check(self, value, path):
        if value is not None:
            raise _Mismatch(path, value, self.text)


def nullable(spec: Spec) -> Spec:
    """``spec`` or null."""
    return spec | _Null()


class Str(Spec):
    """A string (``nonempty``: not ``""``; ``pattern``: a regular expression it must match whole)."""

    def __init__(self, *, nonempty: bool = False, pattern: str | None = None, text: str | None = None):
        self.nonempty = nonempty
        self.pattern = None if pattern is None else re.compile(pattern)
        self.text = text or ("a non-empty string" if nonempty else "a string")

    def check(self, value, path):
        if not isinstance(value, str) or (self.nonempty and not value) or (
                self.pattern is not None and not self.pattern.fullmatch(value)):
            raise _Mismatch(path, value, self.text)


class Bool(Spec):
    """true or false."""

    text = "true or false"

    def check(self, value, path):
        if not isinstance(value, bool):
            raise _Mismatch(path, value, self.text)


class Int(Spec):
    """An integer (never a boolean), at least ``min``."""

    def __init__(self, *, min: int | None = None):
        self.min = min
        self.text = "an integer" + (f" >= {min}" if min is not None else "")

    def check(self, value, path):
        too_small = self.min is not None and isinstance(value, int) and value < self.min
        if isinstance(value, bool) or not isinstance(value, int) or too_small:
            raise _Mismatch(path, value, self.text)


class Num(Spec):
    """A number (never a boolean): finite unless ``finite=False``, inside [``min``, ``max``] when given."""

    def __init__(self, *, min: float | None = None, max: float | None = None, finite: bool = True):
        self.min, self.max, self.finite = min, max, finite
        if min is not None and max is not None:
            self.text = f"a number in [{min:g}, {max:g}]"
        else:
            self.text = ("a finite number" if finite else "a number") + (
                f" >= {min:g}" if min is not None else "")

    def check(self, value, path):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and (
            math.isfinite(value) or not self.finite)
        if not ok or (self.min is not None and value < self.min) or (
                self.max is not None and value > self.max):
            raise _Mismatch(path, value, self.text)


class ListOf(Spec):
    """A list whose every element matches ``item``."""

    def __init__(self, item: Spec, *, nonempty: bool = False):
        self.item, self.nonempty = item, nonempty
        self.text = ("a non-empty list" if nonempty else "a list") + (
            "" if isinstance(item, AnyValue) else f" (each {item.text})")

    def check(self, value, path):
        if not isinstance(value, list) or (self.nonempty and not value):
            raise _Mismatch(path, value, self.text)
        for k, v in enumerate(value):
            self.item.check(v, f"{path}[{k}]")


class Obj(Spec):
    """A JSON object: ``fields`` name -> spec (``required`` must be present), ``values`` for any other key."""

    def __init__(self, fields: Mapping[str, Spec] | None = None, *, required: tuple[str, ...] = (),
                 values: Spec | None = None, text: str = "an object"):
        self.fields, self.required, self.values, self.text = dict(fields or {}), required, values, text

    def check(self, value, path):
        if not isinstance(value, Mapping):
            raise _Mismatch(path, value, self.text)
        for name in self.required:
            if name not in value:
                raise _Mismatch(_join(path, name), None, self.fields[name].text, missing=True)
        for name, v in value.items():
            spec = self.fields.get(name, self.values)
            if spec is not None:
                spec.check(v, _join(path, str(name)))


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def check(record: Any, schema: Spec, where: str, what: str) -> None:
    """Refuse ``record`` (at ``where``, e.g. ``"file:12"``) unless it matches ``schema``.

    ``what`` names the record kind in the message (``"an lm-eval samples record"``).
    """
    try:
        schema.check(record, "")
    except _Mismatch as exc:
        if exc.missing:
            raise BenchkitValueError(
                f"{where}: {what} needs the field {exc.path!r} ({exc.allowed}); it is missing"
            ) from None
        if not exc.path:
            raise BenchkitValueError(
                f"{where}: {what} must be {exc.allowed}, got {describe(exc.value)}") from None
        raise BenchkitValueError(
            f"{where}: field {exc.path!r} is {describe(exc.value)}; allowed: {exc.allowed} ({what})"
        ) from None
