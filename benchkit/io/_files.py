"""Reading users' files: UTF-8 text, JSON and JSON Lines, with the file (and line) in every error.

The one place the readers (and ``benchkit info``) open a text file:

* every file is decoded as UTF-8 (a UTF-8 byte-order mark is skipped); other bytes are an error
  naming the file, the byte offset and, for JSON Lines, the line; a UTF-16 byte-order mark is
  recognized and named;
* a NUL byte is an error naming its byte offset: JSON, JSON Lines and CSV text never hold one,
  and a file padded with NULs (a sparse or damaged file) must not be read into memory whole. The
  scan streams the file in 1 MiB chunks and stops at the first NUL;
* a whole JSON document is estimated at 10x its size once parsed into Python objects (measured:
  6-9x for evaluation logs), and refused before reading when that exceeds the memory budget
  (:mod:`benchkit._budget`); JSON Lines are streamed line by line, and one line is refused when
  it alone would exceed the budget;
* OS errors (no such file, no permission, a name longer than the OS allows, a symlink loop) are
  errors naming the file.
"""
from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterator
from typing import Any

from benchkit._budget import check_memory
from benchkit._budget import format_bytes
from benchkit._validation import BenchkitValueError

__all__ = ["JSON_OBJECT_FACTOR", "check_no_nul", "file_error", "iter_json_lines", "load_json",
           "read_text", "sniff"]

JSON_OBJECT_FACTOR = 10
"""Estimated memory of a parsed JSON document per byte of its text."""
_CHUNK = 1 << 20
_UTF8_BOM = b"\xef\xbb\xbf"


def _shown(path) -> str:
    text = str(path)
    return repr(text if len(text) <= 200 else text[:90] + "..." + text[-90:])


def file_error(path, exc: OSError, what: str = "file") -> BenchkitValueError:
    """An OS error opening ``path`` as a benchkit error naming the file and the cause."""
    reason = {errno.ENAMETOOLONG: "its name is longer than the operating system allows",
              errno.ELOOP: "it is a symlink loop", errno.EACCES: "permission denied",
              errno.ENOENT: "it does not exist", errno.EISDIR: "it is a directory, not a file"}.get(
        exc.errno, exc.strerror or str(exc))
    return BenchkitValueError(f"cannot read {what} {_shown(path)}: {reason}")


def _open(path, what: str):
    try:
        return open(path, "rb")  # noqa: SIM115 (closed by the callers' with-blocks)
    except OSError as exc:
        raise file_error(path, exc, what) from None


def sniff(path, n: int = 65536, what: str = "file") -> bytes:
    """The first ``n`` bytes of ``path`` (for recognizing a format without reading the file)."""
    with _open(path, what) as fh:
        return fh.read(n)


def _nul_error(path, offset: int, line: int, what: str) -> BenchkitValueError:
    return BenchkitValueError(
        f"{_shown(path)} holds a NUL byte at byte {offset:,} (line {line:,}): {what} is UTF-8 text, "
        "which never holds one; the file is damaged, padded (e.g. a sparse or truncated copy) or "
        "binary (UTF-16 text? re-save it as UTF-8)"
    )


def _utf16(path, head: bytes, what: str) -> None:
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise BenchkitValueError(
            f"{_shown(path)} is UTF-16 text (it starts with a UTF-16 byte-order mark); {what} is read as "
            "UTF-8: re-save it as UTF-8"
        )


def _decode_error(path, exc: UnicodeDecodeError, what: str, offset: int = 0, line: int | None = None):
    where = f"{path}:{line}" if line is not None else _shown(path)
    return BenchkitValueError(
        f"{where}: not UTF-8 text ({exc.reason} at byte {offset + exc.start:,}); {what} is UTF-8: "
        "re-save the file as UTF-8 (Latin-1 or Windows-1252 files are not read)"
    )


def _chunks(path, what: str) -> Iterator[bytes]:
    """``path`` in 1 MiB chunks, refused at its first NUL byte (and first, a UTF-16 byte-order mark)."""
    offset, line = 0, 1
    with _open(path, what) as fh:
        while chunk := fh.read(_CHUNK):
            if not offset:
                _utf16(path, chunk[:2], what)
            at = chunk.find(b"\x00")
            if at >= 0:
                raise _nul_error(path, offset + at, line + chunk.count(b"\n", 0, at), what)
            line += chunk.count(b"\n")
            offset += len(chunk)
            yield chunk


def check_no_nul(path, what: str = "a text file") -> None:
    """Stream ``path`` and refuse it at its first NUL byte (see the module docstring)."""
    for _ in _chunks(path, what):
        pass


def read_text(path, *, what: str, factor: float = 2.0) -> str:
    """The whole of ``path`` as UTF-8 text (``factor`` x its size is checked against the budget)."""
    try:
        size = os.stat(path).st_size
    except OSError as exc:
        raise file_error(path, exc, what) from None
    check_memory(f"reading {_shown(path)} ({format_bytes(size)}) whole", size * factor,
                 hint=f"{what} of this size is not an evaluation log benchkit can hold")
    data = b"".join(_chunks(path, what))
    if data.startswith(_UTF8_BOM):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _decode_error(path, exc, what) from None


def load_json(path, *, what: str) -> Any:
    """The JSON document in ``path`` (UTF-8; estimated at 10x the file size before reading)."""
    text = read_text(path, what=what, factor=JSON_OBJECT_FACTOR)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BenchkitValueError(
            f"{_shown(path)} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
            f"{what} is one JSON document"
        ) from None
    except RecursionError:
        raise BenchkitValueError(f"{_shown(path)} nests JSON deeper than Python can parse") from None


def iter_json_lines(path, *, what: str) -> Iterator[tuple[int, Any]]:
    r"""``(line number, record)`` for each non-blank line of the JSON Lines file ``path``, streamed.

    Lines are split on ``\\n`` only (U+2028 and other separators may stand inside a JSON string).
    A line that is not UTF-8 or not JSON, a NUL byte, or one line whose parse alone would exceed
    the memory budget raises a ``BenchkitValueError`` naming ``path:line``.
    """
    buf = bytearray()
    offset = 0  # file offset of buf[0]
    lineno = 1
    with _open(path, what) as fh:
        chunk = fh.read(_CHUNK)
        _utf16(path, chunk[:2], what)
        if chunk.startswith(_UTF8_BOM):
            chunk, offset = chunk[3:], 3
        while True:
            at = chunk.find(b"\x00")
            if at >= 0:
                line = lineno + buf.count(b"\n") + chunk.count(b"\n", 0, at)
                raise _nul_error(path, offset + len(buf) + at, line, what)
            buf += chunk
            start = 0
            while (end := buf.find(b"\n", start)) >= 0:
                yield from _parse_line(path, buf, start, end, offset, lineno, what)
                lineno += 1
                start = end + 1
            del buf[:start]
            offset += start
            if not chunk:
                yield from _parse_line(path, buf, 0, len(buf), offset, lineno, what)
                return
            check_memory(f"{path}:{lineno}: one JSON line of more than {format_bytes(len(buf))}",
                         len(buf) * JSON_OBJECT_FACTOR, hint=f"{what} holds one record per line")
            chunk = fh.read(_CHUNK)


def _parse_line(path, buf: bytearray, start: int, end: int, offset: int, lineno: int, what: str):
    raw = bytes(buf[start:end])
    if not raw.strip():
        return
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _decode_error(path, exc, what, offset + start, lineno) from None
    try:
        yield lineno, json.loads(line)
    except json.JSONDecodeError as exc:
        raise BenchkitValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise BenchkitValueError(f"{path}:{lineno}: JSON nested deeper than Python can parse") from None
