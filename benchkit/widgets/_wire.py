"""The explorers' wire format: arrays as one binary buffer, everything else as plain JSON.

Rule 1 of :mod:`benchkit.widgets._base`: state lives in synced traitlets; arrays travel as
``traitlets.Bytes`` holding :func:`pack_arrays` output (several named, typed, little-endian arrays
in one buffer, read in the front end by ``unpackArrays`` of ``widgets/_dom.js``), and JSON traits
are filled with :func:`to_jsonable` (numpy and pandas values to plain JSON, non-finite floats to
``None``). Re-exported by :mod:`benchkit.widgets._base`.
"""
from __future__ import annotations

import json
import math
import struct
from typing import Any

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError

__all__ = ["pack_arrays", "unpack_arrays", "to_jsonable"]

#: dtypes allowed in :func:`pack_arrays` (numpy kind -> name understood by ``unpackArrays``)
_PACK_DTYPES = {"u1": "u1", "i1": "i1", "u2": "u2", "i2": "i2", "u4": "u4", "i4": "i4", "f4": "f4",
                "f8": "f8"}
_MAGIC = b"BKA1"


def pack_arrays(**arrays: Any) -> bytes:
    """Named numeric arrays in one little-endian binary buffer (the explorers' binary state).

    Layout: ``b"BKA1"``, a uint32 header length ``L``, ``L`` bytes of UTF-8 JSON
    ``{name: [dtype, shape, offset]}`` (offset from the start of the data block), padding to a
    multiple of 8, then each array's bytes (C order), each starting at a multiple of 8. dtypes:
    ``u1 i1 u2 i2 u4 i4 f4 f8`` (bool is stored as ``u1``; int64 must be cast by the caller, which
    knows the range). Read it back with :func:`unpack_arrays` (Python) or ``unpackArrays`` (JS).
    """
    header: dict[str, list] = {}
    chunks: list[bytes] = []
    offset = 0
    for name, value in arrays.items():
        a = np.asarray(value)
        if a.dtype == np.bool_:
            a = a.astype(np.uint8)
        code = a.dtype.newbyteorder("<").str[1:] if a.dtype.byteorder in "<>=|" else a.dtype.str[1:]
        if code not in _PACK_DTYPES:
            raise BenchkitTypeError(
                f"array {name!r} has dtype {a.dtype}; pack_arrays stores {sorted(_PACK_DTYPES)} "
                "(cast int64 to int32 / float64 to float32 where the range allows)")
        buf = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes()
        header[name] = [code, list(a.shape), offset]
        pad = (-len(buf)) % 8
        chunks.append(buf + b"\0" * pad)
        offset += len(buf) + pad
    head = json.dumps(header, separators=(",", ":")).encode()
    pre = _MAGIC + struct.pack("<I", len(head)) + head
    pre += b"\0" * ((-len(pre)) % 8)
    return pre + b"".join(chunks)


def unpack_arrays(buf: bytes | memoryview | None) -> dict[str, np.ndarray]:
    """The arrays of a :func:`pack_arrays` buffer (empty dict for ``b""`` / None)."""
    if buf is None or len(buf) == 0:
        return {}
    buf = bytes(buf)
    if buf[:4] != _MAGIC:
        raise BenchkitValueError("not a pack_arrays buffer (missing the BKA1 header)")
    (n,) = struct.unpack("<I", buf[4:8])
    header = json.loads(buf[8:8 + n].decode())
    base = 8 + n + ((-(8 + n)) % 8)
    out = {}
    for name, (code, shape, off) in header.items():
        dt = np.dtype("<" + code) if code not in ("u1", "i1") else np.dtype(code)
        count = int(np.prod(shape)) if shape else 1
        out[name] = np.frombuffer(buf, dtype=dt, count=count, offset=base + off).reshape(shape)
    return out



def to_jsonable(value: Any) -> Any:
    """``value`` as plain JSON types: numpy/pandas -> Python, non-finite floats -> None.

    Dicts keep their keys (converted to str), tuples/arrays/Series become lists, DataFrames become
    lists of row dicts.
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else None
    if isinstance(value, pd.DataFrame):
        return [to_jsonable(r) for r in value.to_dict(orient="records")]
    if isinstance(value, (pd.Series, pd.Index)):
        return [to_jsonable(v) for v in value.tolist()]
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if value is pd.NA:
        return None
    raise BenchkitTypeError(f"cannot put a {type(value).__name__} into widget state (JSON)")


def _json_ready(value: Any) -> Any:
    """``value`` unchanged when it is already plain JSON, else :func:`to_jsonable` of it.

    Plain JSON is checked by the C encoder: fast for big nested lists.
    """
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return to_jsonable(value)
    return value

