"""Expanding the ``path_or_glob`` argument of the readers into a list of files: the one place.

* Folders are walked following symlinks, but each real directory is entered once (by device and
  inode), so a symlink loop (``logs/again -> ..``) neither hangs nor repeats files.
* Recursive globs (``**``) use the same walk (Python's ``glob`` follows such loops until the OS
  refuses the path: two loops make the number of paths grow exponentially).
* Each real file is kept once (by its resolved path), in the order first found. (Two different
  files with the same records -- a backup copy -- are refused by the readers, record by record:
  identical bytes alone do not make a copy, e.g. two models' lm-eval samples can be equal.)
* OS errors (a name longer than the OS allows, a symlink loop, no permission) name the path.
"""
from __future__ import annotations

import errno
import fnmatch
import glob as _glob
import os
import stat
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit.io._files import file_error

__all__ = ["expand_paths", "files_in", "files_matching", "path_kind", "walk"]

_MAGIC = "*?["


def path_kind(path: Path, name: str) -> str | None:
    """"dir", "file", "other" or None (does not exist); other OS errors name the path."""
    try:
        st = path.stat()
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return None
        raise file_error(path, exc, name) from None
    if stat.S_ISDIR(st.st_mode):
        return "dir"
    return "file" if stat.S_ISREG(st.st_mode) else "other"


def walk(root: Path, *, dirs: bool = False) -> Iterator[Path]:
    """Files (and with ``dirs`` also folders) below ``root``, sorted per folder.

    Symlinks are followed, and each real directory is entered once.
    """
    seen: set[tuple[int, int]] = set()

    def visit(folder: Path) -> Iterator[Path]:
        try:
            st = folder.stat()
        except OSError:
            return
        key = (st.st_dev, st.st_ino)
        if key in seen:
            return
        seen.add(key)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir()  # follows symlinks; a loop shows up as a seen directory
                is_file = not is_dir and entry.is_file()
            except OSError:
                continue
            if is_dir:
                if dirs:
                    yield path
                yield from visit(path)
            elif is_file:
                yield path

    yield from visit(root)


def files_in(root: Path, keep: Callable[[Path], bool]) -> list[Path]:
    """The files below ``root`` for which ``keep(path)`` is true (see :func:`walk`)."""
    return [p for p in walk(root) if keep(p)]


def files_matching(pattern: str) -> Callable[[Path], list[Path]]:
    """An ``in_dir`` for :func:`expand_paths`: the files below a directory whose name matches ``pattern``."""
    def in_dir(p: Path) -> list[Path]:
        return files_in(p, lambda q: fnmatch.fnmatchcase(q.name, pattern))
    return in_dir


def _match_parts(parts: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    """Glob semantics on path components: ``**`` matches any number of folders; no hidden names."""
    if not pattern:
        return not parts
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_match_parts(parts[k:], rest) for k in range(len(parts) + 1)
                   if not any(p.startswith(".") for p in parts[:k]))
    if not parts:
        return False
    if parts[0].startswith(".") and not head.startswith("."):
        return False
    return fnmatch.fnmatchcase(parts[0], head) and _match_parts(parts[1:], rest)


def _glob_paths(text: str, with_dirs: bool) -> list[Path]:
    if "**" not in text:
        return sorted(Path(p) for p in _glob.glob(text))
    parts = Path(text).parts
    k = next(i for i, part in enumerate(parts) if any(ch in part for ch in _MAGIC))
    base = Path(*parts[:k]) if k else Path(".")
    pattern = parts[k:]
    if path_kind(base, "path_or_glob") != "dir":
        return []
    found = []
    for p in walk(base, dirs=with_dirs):
        if _match_parts(p.relative_to(base).parts, pattern):
            found.append(p)
    return sorted(found)


def _collect(name: str, path_or_glob, in_dir, empty_dir: str, glob_dirs: bool) -> list[Path]:
    if isinstance(path_or_glob, (list, tuple)):
        out: list[Path] = []
        for p in path_or_glob:
            out.extend(_collect(name, p, in_dir, empty_dir, glob_dirs))
        return out
    if not isinstance(path_or_glob, (str, os.PathLike)):
        raise BenchkitTypeError(
            f"{name} must be a path, a glob or a list of them, got {type(path_or_glob).__name__}"
        )
    text = os.fspath(path_or_glob)
    if not isinstance(text, str):
        raise BenchkitTypeError(f"{name} must be a text path, got {type(text).__name__}")
    if any(ch in text for ch in _MAGIC):
        if glob_dirs:
            matches = _glob_paths(text, with_dirs=True)
            if not matches:
                raise BenchkitValueError(f"{name}={text!r} matches nothing")
            return [f for m in matches for f in _collect(name, m, in_dir, empty_dir, False)]
        found = [p for p in _glob_paths(text, with_dirs=False) if path_kind(p, name) == "file"]
        if not found:
            raise BenchkitValueError(f"{name}={text!r} matches no files")
        return found
    p = Path(text)
    kind = path_kind(p, name)
    if kind == "dir":
        found = in_dir(p)
        if not found:
            raise BenchkitValueError(f"{name}={text!r} {empty_dir}")
        return found
    if kind != "file":
        raise BenchkitValueError(f"{name}={text!r} does not exist" if kind is None else
                                 f"{name}={text!r} is not a regular file")
    return [p]


def expand_paths(name: str, path_or_glob, in_dir: Callable[[Path], list[Path]], empty_dir: str, *,
                 glob_dirs: bool = False) -> list[Path]:
    """Files named by a path, a directory, a glob or a list of them (argument ``name``).

    A directory gives ``in_dir(directory)``; when that is empty the error says
    ``"{name}={text!r} {empty_dir}"``. A glob keeps the files it matches, or with ``glob_dirs``
    every match (a matched directory then goes through ``in_dir`` too). Each real file comes once.
    """
    files: list[Path] = []
    real: set[str] = set()
    for p in _collect(name, path_or_glob, in_dir, empty_dir, glob_dirs):
        key = os.path.realpath(p)
        if key not in real:
            real.add(key)
            files.append(p)
    return files
