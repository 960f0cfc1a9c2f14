"""Public item-level evaluation datasets, by name.

``fetch(name, **options)`` returns ready :class:`benchkit.ResponseSet` objects (or documented tables
where a source is not a response set). Files come from the local mirror (``BENCHKIT_DATA_MIRROR``,
default ``../shared/data`` when it exists), the cache, or the public URL at a pinned commit, always
checked against a pinned sha256 (see :mod:`benchkit.datasets._fetch`).

Each source lives in its own module (``benchkit.datasets.<module>``) with a ``SOURCE`` (the pinned
repository, commit, license and files) and a ``load(**options)`` function whose docstring says what
it returns and how it reproduces the source's own semantics.
"""
from __future__ import annotations

import importlib
from typing import Any

import pandas as pd

from benchkit._validation import check_choice
from benchkit.datasets._fetch import Source
from benchkit.datasets._fetch import cache_root
from benchkit.datasets._fetch import fetch_file
from benchkit.datasets._fetch import mirror_root

__all__ = ["fetch", "names", "sources", "source", "fetch_file", "mirror_root", "cache_root"]

_MODULES = {
    "mmlu-redux": "mmlu_redux",
    "mmlu": "mmlu",
    "mmlu-pro": "mmlu_pro",
    "eval-arena": "eval_arena",
    "cruxeval": "cruxeval",
    "zeroeval": "zeroeval",
    "llm-uncertainty-bench": "llm_uncertainty_bench",
    "conformal-llm": "conformal_llm",
}


def names() -> list[str]:
    """The dataset names :func:`fetch` accepts."""
    return list(_MODULES)


def _module(name: str):
    check_choice("name", name, names())
    return importlib.import_module(f"benchkit.datasets.{_MODULES[name]}")


def source(name: str) -> Source:
    """The pinned :class:`~benchkit.datasets._fetch.Source` of dataset ``name``."""
    return _module(name).SOURCE


def fetch(name: str, **options: Any):
    """Load public dataset ``name`` (see :func:`names`); ``options`` go to its loader.

    See ``help(benchkit.datasets.<module>.load)`` for each source's options and return value.
    """
    return _module(name).load(**options)


def sources() -> pd.DataFrame:
    """One row per dataset: name, repository, commit, license, number of pinned files."""
    rows = []
    for n in names():
        s = source(n)
        rows.append({"name": n, "repo": s.repo_url, "commit": s.commit, "license": s.license,
                     "files": len(s.files), "description": s.description})
    return pd.DataFrame(rows).set_index("name")
