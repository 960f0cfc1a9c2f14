"""Zip members read without ``zipfile``'s decompressors: stored, deflate and zstd (method 93).

Python < 3.14's :mod:`zipfile` cannot open zstd members (current Inspect ``.eval`` logs), and a
library that monkey-patches it (inspect_ai imports ``zipfile_zstd``) must not decide whether
benchkit can read a file. :class:`ZipMembers` uses :class:`zipfile.ZipFile` only for the central
directory, reads each member's raw bytes from its local header and decompresses them in memory
(``zlib`` for deflate, ``zstandard`` for zstd, multi-frame streams included) in 1 MiB chunks,
stopping at a cap on the decompressed size (:func:`max_member_bytes`). Nothing is extracted to disk.
"""
from __future__ import annotations

import io
import os
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Self

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_int

__all__ = ["DEFAULT_MAX_MEMBER_BYTES", "METHOD_NAMES", "ZipMembers", "max_member_bytes"]

_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")  # 30 bytes
_LOCAL_MAGIC = b"PK\x03\x04"
METHOD_NAMES = {0: "stored", 8: "deflate", 93: "zstd"}


class NotAZipError(BenchkitValueError):
    """The file is not a zip archive at all (as opposed to a damaged or refused one)."""


DEFAULT_MAX_MEMBER_BYTES = 256 * 1024**2
"""The default cap on one member's decompressed size (256 MiB); ``BENCHKIT_MAX_MEMBER_BYTES`` overrides it."""
_CHUNK = 1 << 20


def max_member_bytes(value: int | None = None) -> int:
    """The decompressed-size cap: ``value``, else ``$BENCHKIT_MAX_MEMBER_BYTES``, else the default."""
    if value is not None:
        return check_int("max_member_bytes", value, min=1)
    env = os.environ.get("BENCHKIT_MAX_MEMBER_BYTES", "").strip()
    if not env:
        return DEFAULT_MAX_MEMBER_BYTES
    try:
        parsed = int(env)
    except ValueError:
        parsed = 0
    if parsed < 1:
        raise BenchkitValueError(
            f"BENCHKIT_MAX_MEMBER_BYTES={env!r} is not allowed; set a positive integer number of bytes"
        )
    return parsed


def _inflate(raw: bytes, limit: int) -> bytearray:
    """Raw deflate data decompressed in chunks; stops once more than ``limit`` bytes come out."""
    d = zlib.decompressobj(-15)
    out = bytearray()
    view = memoryview(raw)
    for start in range(0, max(len(raw), 1), _CHUNK):
        buf = bytes(view[start:start + _CHUNK])
        while buf:
            out += d.decompress(buf, min(_CHUNK, limit + 1 - len(out)))  # 1 MiB of output at a time
            if len(out) > limit:
                return out
            buf = d.unconsumed_tail
        if d.eof:
            break
    out += d.flush()[: limit + 1 - len(out)]
    return out


def _unzstd(raw: bytes, limit: int) -> bytearray:
    """Zstandard frames (several allowed) in chunks; stops once more than ``limit`` bytes come out."""
    import zstandard

    out = bytearray()
    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw), read_across_frames=True)
    with reader:
        while len(out) <= limit:
            chunk = reader.read(min(_CHUNK, limit + 1 - len(out)))
            if not chunk:
                break
            out += chunk
    return out


class ZipMembers:
    """Random access to a zip archive's members as bytes (open as a context manager).

    ``max_bytes`` caps one member's decompressed size (default :func:`max_member_bytes`): a
    member declaring more is refused before it is decompressed, and one whose data inflate
    past the cap (a lying size field, a zip bomb) is refused as soon as the cap is passed, so
    reading never holds more than about ``max_bytes`` of decompressed data.
    """

    def __init__(self, path: str | Path, *, max_bytes: int | None = None):
        self.path = Path(path)
        self.max_bytes = max_member_bytes(max_bytes)
        try:
            self._zf = zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
            raise NotAZipError(f"{str(self.path)!r} is not a zip archive ({exc})") from exc
        infos = self._zf.infolist()
        self._info = {i.filename: i for i in infos}
        if len(self._info) != len(infos):  # zipfile keeps the last of two same-named members
            seen: set[str] = set()
            twice = sorted({i.filename for i in infos if i.filename in seen or seen.add(i.filename)})
            self._zf.close()
            raise BenchkitValueError(
                f"{str(self.path)!r} holds the member(s) {twice} more than once (a copy appended to the "
                "archive); the copies may differ and nothing says which is the log's, so the archive is "
                "refused: re-create it or remove the extra copy"
            )
        self._fh = open(self.path, "rb")  # noqa: SIM115 (closed in close())

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._fh.close()
        self._zf.close()

    def names(self) -> list[str]:
        return list(self._info)

    def methods(self) -> set[str]:
        return {METHOD_NAMES.get(i.compress_type, f"method {i.compress_type}") for i in self._info.values()}

    def _too_big(self, name: str, size: str) -> BenchkitValueError:
        return BenchkitValueError(
            f"{self.path}: member {name!r} decompresses to {size} bytes, more than the cap of "
            f"{self.max_bytes:,} bytes; raise it with max_member_bytes=... or the environment "
            "variable BENCHKIT_MAX_MEMBER_BYTES if the file is trusted"
        )

    def read(self, name: str) -> bytes | bytearray:
        """The member's decompressed bytes (a bytearray when decompressed: no extra copy)."""
        info = self._info.get(name)
        if info is None:
            raise BenchkitValueError(f"{str(self.path)!r} has no member {name!r}")
        if info.file_size > self.max_bytes:
            raise self._too_big(name, f"{info.file_size:,} (declared)")
        self._fh.seek(info.header_offset)
        head = self._fh.read(_LOCAL_HEADER.size)
        if len(head) != _LOCAL_HEADER.size or head[:4] != _LOCAL_MAGIC:
            raise BenchkitValueError(f"{self.path}: member {name!r} has a bad local header")
        fields = _LOCAL_HEADER.unpack(head)
        if info.flag_bits & 0x1:
            raise BenchkitValueError(f"{self.path}: member {name!r} is encrypted")
        local_name = self._fh.read(fields[9])
        if local_name.decode("utf-8", "replace") != name and local_name.decode("cp437", "replace") != name:
            raise BenchkitValueError(
                f"{self.path}: member {name!r} has the name {local_name[:80]!r} in its local header (a "
                "damaged or edited archive)"
            )
        self._fh.seek(fields[10], io.SEEK_CUR)
        raw = self._fh.read(info.compress_size)
        method = info.compress_type
        try:
            if method == zipfile.ZIP_STORED:
                data = raw
            elif method == zipfile.ZIP_DEFLATED:
                data = _inflate(raw, self.max_bytes)
            elif method == 93:
                data = _unzstd(raw, self.max_bytes)
            else:
                raise BenchkitValueError(
                    f"{self.path}: member {name!r} uses zip compression method {method}; benchkit reads "
                    "stored (0), deflate (8) and zstd (93)"
                )
        except BenchkitValueError:
            raise
        except Exception as exc:  # zlib.error, zstandard.ZstdError, ValueError: a corrupt member
            if not isinstance(exc, (zlib.error, ValueError)) and type(exc).__name__ != "ZstdError":
                raise
            raise BenchkitValueError(f"{self.path}: cannot decompress member {name!r}: {exc}") from exc
        if len(data) > self.max_bytes:
            raise self._too_big(name, f"more than {self.max_bytes:,} (its size field says "
                                      f"{info.file_size:,})")
        if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
            raise BenchkitValueError(
                f"{self.path}: member {name!r} fails its size/CRC check (corrupt archive)")
        return data
