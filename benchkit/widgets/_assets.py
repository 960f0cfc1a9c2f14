"""Locate the explorers' front-end files (ESM/CSS) shipped with benchkit.

The front end lives in the repository's top-level ``widgets/`` folder. A wheel carries it as package
data in ``benchkit/widgets/static/`` (``pyproject.toml`` force-includes ``widgets`` there). An
editable checkout has no ``static/`` folder next to this module, so the files are read from the
checkout's ``widgets/`` folder instead, which makes front-end edits visible without reinstalling.
"""
from __future__ import annotations

from pathlib import Path

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import describe

__all__ = ["asset", "asset_path", "asset_dirs"]

_HERE = Path(__file__).resolve().parent


def asset_dirs() -> list[Path]:
    """The folders searched by :func:`asset`, in order, that exist on this installation."""
    candidates = [_HERE / "static"]
    checkout = _HERE.parent.parent  # <checkout>/benchkit/widgets -> <checkout>
    if (checkout / "pyproject.toml").is_file() and (checkout / "widgets").is_dir():
        candidates.append(checkout / "widgets")
    return [d for d in candidates if d.is_dir()]


def asset_path(name: str) -> Path:
    """The path of front-end file ``name`` (e.g. ``"trajectories.js"``); see :func:`asset`."""
    if not isinstance(name, str):
        raise BenchkitTypeError(f"name must be a str, got {type(name).__name__}")
    parts = Path(name).parts
    if not name or Path(name).is_absolute() or ".." in parts or "\\" in name:
        raise BenchkitValueError(
            f"name={describe(name)} must be a relative file name inside the widgets folder "
            "(no absolute paths, no '..')"
        )
    dirs = asset_dirs()
    for d in dirs:
        path = d / name
        if path.is_file():
            return path
    searched = ", ".join(str(d) for d in dirs) or "(no widgets folder found)"
    available = sorted(p.name for d in dirs for p in d.iterdir() if p.is_file())
    raise FileNotFoundError(
        f"benchkit front-end file {name!r} not found in {searched}; available: "
        f"{', '.join(available) or 'none'}"
    )


def asset(name: str) -> str:
    """The text of front-end file ``name`` (UTF-8), for an anywidget's ``_esm`` or ``_css``.

    Looks in the installed package data (``benchkit/widgets/static``) and then, in a source
    checkout, in the repository's top-level ``widgets/`` folder.
    """
    return asset_path(name).read_text(encoding="utf-8")
