"""Zip members read without ``zipfile``'s decompressors: stored, deflate and zstd (method 93).

Python < 3.14's :mod:`zipfile` cannot open zstd members (current Inspect ``.eval`` logs), and a
library that monkey-patches it (inspect_ai imports ``zipfile_zstd``) must not decide whether
benchkit can read a file. :class:`ZipMembers` uses :class:`zipfile.ZipFile` only for the central
directory, reads each member's raw bytes from its local header and decompresses them in memory
(``zlib`` for deflate, ``zstandard`` for zstd, multi-frame streams included). Nothing is
extracted to disk.
"""
from __future__ import annotations

import io
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Self

from benchkit._validation import BenchkitValueError

__all__ = ["METHOD_NAMES", "ZipMembers"]

_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")  # 30 bytes
_LOCAL_MAGIC = b"PK\x03\x04"
METHOD_NAMES = {0: "stored", 8: "deflate", 93: "zstd"}


def _zstd_decompress(data: bytes, size: int) -> bytes:
    import zstandard

    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True)
    with reader:
        out = reader.read(size if size > 0 else -1) if size > 0 else reader.readall()
        if size > 0 and len(out) < size:  # a short read: keep reading
            out += reader.readall()
    return out


class ZipMembers:
    """Random access to a zip archive's members as bytes (open as a context manager)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self._zf = zipfile.ZipFile(self.path)
        except zipfile.BadZipFile as exc:
            raise BenchkitValueError(f"{str(self.path)!r} is not a zip archive") from exc
        self._info = {i.filename: i for i in self._zf.infolist()}
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

    def read(self, name: str) -> bytes:
        info = self._info.get(name)
        if info is None:
            raise BenchkitValueError(f"{str(self.path)!r} has no member {name!r}")
        self._fh.seek(info.header_offset)
        head = self._fh.read(_LOCAL_HEADER.size)
        fields = _LOCAL_HEADER.unpack(head)
        if fields[0] != _LOCAL_MAGIC:
            raise BenchkitValueError(f"{self.path}: member {name!r} has a bad local header")
        if info.flag_bits & 0x1:
            raise BenchkitValueError(f"{self.path}: member {name!r} is encrypted")
        self._fh.seek(fields[9] + fields[10], io.SEEK_CUR)
        raw = self._fh.read(info.compress_size)
        method = info.compress_type
        try:
            if method == zipfile.ZIP_STORED:
                data = raw
            elif method == zipfile.ZIP_DEFLATED:
                data = zlib.decompressobj(-15).decompress(raw)
            elif method == 93:
                data = _zstd_decompress(raw, info.file_size)
            else:
                raise BenchkitValueError(
                    f"{self.path}: member {name!r} uses zip compression method {method}; benchkit reads "
                    "stored (0), deflate (8) and zstd (93)"
                )
        except (zlib.error, ValueError) as exc:
            if isinstance(exc, BenchkitValueError):
                raise
            raise BenchkitValueError(f"{self.path}: cannot decompress member {name!r}: {exc}") from exc
        if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
            raise BenchkitValueError(
                f"{self.path}: member {name!r} fails its size/CRC check (corrupt archive)")
        return data
