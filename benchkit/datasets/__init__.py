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
    """The dataset names :func:`fetch` accepts.

    Returns
    -------
    list of str
        One name per source, each backed by a module ``benchkit.datasets.<module>``.

    References
    ----------
    Each source module's docstring cites the paper and repository it reads; :func:`sources`
    tabulates the pinned repositories, commits and licenses.

    Examples
    --------
    >>> from benchkit import datasets
    >>> datasets.names()  # doctest: +NORMALIZE_WHITESPACE
    ['mmlu-redux', 'mmlu', 'mmlu-pro', 'eval-arena', 'cruxeval', 'zeroeval',
     'llm-uncertainty-bench', 'conformal-llm']
    """
    return list(_MODULES)


def _module(name: str):
    check_choice("name", name, names())
    return importlib.import_module(f"benchkit.datasets.{_MODULES[name]}")


def source(name: str) -> Source:
    """The pinned :class:`~benchkit.datasets._fetch.Source` of dataset ``name``.

    Parameters
    ----------
    name : str
        One of :func:`names`.

    Returns
    -------
    Source
        The public repository (``repo``), the pinned ``commit``, the ``license``, a
        ``description`` and the pinned ``files`` (path, sha256, size), read from the package's
        manifest; no file is fetched.

    References
    ----------
    The source module's docstring (``benchkit.datasets.<module>``) cites the paper and
    repository.

    Examples
    --------
    >>> from benchkit import datasets
    >>> src = datasets.source("mmlu-pro")
    >>> src.repo, src.commit[:7], len(src.files)
    ('TIGER-AI-Lab/MMLU-Pro', 'f418b11', 18)
    """
    return _module(name).SOURCE


def fetch(name: str, **options: Any):
    """Load public dataset ``name`` (see :func:`names`); ``options`` go to its loader.

    See ``help(benchkit.datasets.<module>.load)`` for each source's options and return value.

    Parameters
    ----------
    name : str
        One of :func:`names`.
    **options
        Keyword options of the source's ``load`` (e.g. ``benchmark=`` of Eval-Arena, ``part=`` of
        MMLU-Redux).

    Returns
    -------
    ResponseSet, dict of str to ResponseSet, or DataFrame
        What the source's ``load`` returns: a response set where the source holds responses,
        a documented table otherwise.

    References
    ----------
    The source module's docstring (``benchkit.datasets.<module>``) cites the paper and
    repository; files are read at the commit :func:`source` pins, checked against their sha256.

    Examples
    --------
    Not run as a doctest (doctests read no data files): it needs the source's files from the
    local mirror, the cache or a download. The output shown was produced on the pinned files.

    >>> import benchkit
    >>> rs = benchkit.datasets.fetch("mmlu-pro")  # doctest: +SKIP
    >>> rs  # doctest: +SKIP
    ResponseSet 'mmlu-pro': 12,032 items x 18 models, 216,544 responses, T=1, 0.0% cells missing, ...
    """
    return _module(name).load(**options)


def sources() -> pd.DataFrame:
    """One row per dataset: name, repository, commit, license, number of pinned files.

    Returns
    -------
    DataFrame
        Indexed by ``name``, with columns ``repo`` (URL), ``commit``, ``license``, ``files`` (the
        number of pinned files) and ``description``.

    References
    ----------
    Each source module's docstring cites the paper and repository it reads.

    Examples
    --------
    >>> from benchkit import datasets
    >>> table = datasets.sources()
    >>> table.loc["cruxeval", "license"], int(table.loc["cruxeval", "files"])
    ('MIT (Copyright (c) 2023 Meta)', 5)
    """
    rows = []
    for n in names():
        s = source(n)
        rows.append({"name": n, "repo": s.repo_url, "commit": s.commit, "license": s.license,
                     "files": len(s.files), "description": s.description})
    return pd.DataFrame(rows).set_index("name")
