"""Expanding the ``path_or_glob`` argument of the readers into a list of files."""

from __future__ import annotations

import glob as _glob
import os
from collections.abc import Callable
from pathlib import Path

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError


def expand_paths(name: str, path_or_glob, in_dir: Callable[[Path], list[Path]], empty_dir: str, *,
                 glob_dirs: bool = False) -> list[Path]:
    """Files named by a path, a directory, a glob or a list of them (argument ``name``).

    A directory gives ``in_dir(directory)``; when that is empty the error says
    ``"{name}={text!r} {empty_dir}"``. A glob keeps the files it matches, or with ``glob_dirs``
    every match (a matched directory then goes through ``in_dir`` too).
    """
    if isinstance(path_or_glob, (list, tuple)):
        out: list[Path] = []
        for p in path_or_glob:
            out.extend(expand_paths(name, p, in_dir, empty_dir, glob_dirs=glob_dirs))
        return out
    if not isinstance(path_or_glob, (str, os.PathLike)):
        raise BenchkitTypeError(
            f"{name} must be a path, a glob or a list of them, got {type(path_or_glob).__name__}"
        )
    text = str(path_or_glob)
    if any(ch in text for ch in "*?["):
        if glob_dirs:
            matches = sorted(Path(p) for p in _glob.glob(text, recursive=True))
            if not matches:
                raise BenchkitValueError(f"{name}={text!r} matches nothing")
            return [f for m in matches for f in expand_paths(name, m, in_dir, empty_dir)]
        found = sorted(Path(p) for p in _glob.glob(text, recursive=True) if Path(p).is_file())
        if not found:
            raise BenchkitValueError(f"{name}={text!r} matches no files")
        return found
    p = Path(text)
    if p.is_dir():
        found = in_dir(p)
        if not found:
            raise BenchkitValueError(f"{name}={text!r} {empty_dir}")
        return found
    if not p.is_file():
        raise BenchkitValueError(f"{name}={text!r} does not exist")
    return [p]


def files_matching(pattern: str) -> Callable[[Path], list[Path]]:
    """An ``in_dir`` for :func:`expand_paths`: the files below a directory matching ``pattern``."""
    def in_dir(p: Path) -> list[Path]:
        return sorted(q for q in p.rglob(pattern) if q.is_file())
    return in_dir
