"""The MCQ items table every perturbation builder starts from (paper 003, Sec. 3.4).

:func:`normalize_items` checks an items table (``item, text, options, answer_key``) and normalizes
its columns; ``_finish`` assembles a builder's variant rows in the one column order; ``_item_rng``
gives each item a generator that depends only on the root seed, the item id and the builder.
Public through :mod:`benchkit.landscape.steps`.
"""
from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_columns
from benchkit.landscape._points import LETTERS

__all__ = ["normalize_items"]

_BASE_COLS = ["item", "variant", "text", "options", "answer_key", "answer_index", "n_options"]


def _item_rng(root: np.random.SeedSequence, item: Any, salt: str) -> np.random.Generator:
    """A generator that depends only on the root, the item id and the builder.

    Not on which other items are present or their order: the item's seed is the root's entropy
    followed by ``crc32(salt, item)`` (for an int ``rng`` that is ``default_rng([rng, key])``).
    """
    key = zlib.crc32(f"{salt}\x00{item}".encode("utf-8"))
    ent = root.entropy
    words = [int(ent)] if isinstance(ent, (int, np.integer)) else [int(w) for w in ent]
    return np.random.default_rng(np.random.SeedSequence(words + [key], spawn_key=root.spawn_key))


def normalize_items(items: Any) -> pd.DataFrame:
    """Check an items table; return a copy with the normalized item columns.

    Every perturbation builder starts here, so a bad items table fails with one clear error.

    Parameters
    ----------
    items : DataFrame
        One row per MCQ item: ``item`` (unique id), ``text`` (or ``question``), ``options`` (list
        of str) and ``answer_key`` (letter or 0-based index; ``answer`` / ``answer_index`` are
        accepted), e.g. ``benchkit.datasets.fetch("mmlu", part=...)``.

    Returns
    -------
    DataFrame
        A copy with ``text``, ``options`` (lists of str), ``answer_key`` (capital letter),
        ``answer_index`` (0-based) and ``n_options``; other columns kept.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 4.2 (the MCQ items,
    A-D), App. F (letters).

    Examples
    --------
    A key may be a letter or a 0-based index, and ``question`` is read as ``text``:

    >>> import pandas as pd
    >>> from benchkit.landscape.steps import normalize_items
    >>> items = pd.DataFrame({"item": ["q1", "q2"], "question": ["2 + 2 = ?", "Capital of Peru?"],
    ...                       "options": [["3", "4"], ["Lima", "Quito", "Cusco"]], "answer_key": [1, "a"]})
    >>> normalize_items(items)[["item", "text", "answer_key", "answer_index", "n_options"]]
      item              text answer_key  answer_index  n_options
    0   q1         2 + 2 = ?          B             1          2
    1   q2  Capital of Peru?          A             0          3
    """
    if not isinstance(items, pd.DataFrame):
        raise BenchkitTypeError(
            f"items must be a pandas DataFrame (item, text, options, answer_key); got "
            f"{type(items).__name__}"
        )
    df = items.copy().reset_index(drop=True)
    if "text" not in df.columns and "question" in df.columns:
        df = df.rename(columns={"question": "text"})
    if "answer_key" not in df.columns:
        if "answer_index" in df.columns:
            df["answer_key"] = [LETTERS[int(i)] for i in df["answer_index"]]
        elif "answer" in df.columns:
            df["answer_key"] = df["answer"]
    check_columns("items", df.columns, required=["item", "text", "options", "answer_key"])
    if df["item"].duplicated().any():
        dup = df.loc[df["item"].duplicated(), "item"].iloc[0]
        raise BenchkitValueError(f"items has duplicate item id {dup!r}; item ids must be unique")
    opts, keys, idx = [], [], []
    rows = zip(df["item"].tolist(), df["options"].tolist(), df["answer_key"].tolist())
    for r, (item, o, a) in enumerate(rows):
        if isinstance(o, str) or not hasattr(o, "__len__"):
            raise BenchkitTypeError(f"items row {r} (item {item!r}): options must be a list of "
                                    f"strings; got {type(o).__name__}")
        o = [str(s) for s in list(o)]
        if len(o) < 2:
            raise BenchkitValueError(f"items row {r} (item {item!r}) has {len(o)} option(s); "
                                     "need at least 2")
        if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
            j = int(a)
        else:
            letter = str(a).strip().upper()
            if letter not in LETTERS[: len(o)]:
                raise BenchkitValueError(
                    f"items row {r} (item {item!r}): answer {a!r} is not one of "
                    f"{', '.join(LETTERS[: len(o)])}"
                )
            j = LETTERS.index(letter)
        if not 0 <= j < len(o):
            raise BenchkitValueError(f"items row {r} (item {item!r}): answer index {j} is out "
                                     f"of range for {len(o)} options")
        opts.append(o)
        keys.append(LETTERS[j])
        idx.append(j)
    df["options"] = opts
    df["answer_key"] = keys
    df["answer_index"] = np.asarray(idx, dtype=np.int64)
    df["n_options"] = np.asarray([len(o) for o in opts], dtype=np.int64)
    return df


def _finish(df: pd.DataFrame, variant: str, texts, options, answers,
            guards: dict[str, list] | None = None) -> pd.DataFrame:
    out = df.copy()
    out["variant"] = variant
    out["text"] = list(texts)
    out["options"] = [list(o) for o in options]
    out["answer_index"] = np.asarray(list(answers), dtype=np.int64)
    out["answer_key"] = [LETTERS[j] for j in out["answer_index"]]
    out["n_options"] = np.asarray([len(o) for o in out["options"]], dtype=np.int64)
    g = guards or {}
    n = len(out)
    for col, default in (("negation", [False] * n), ("collision_risk", [False] * n),
                         ("guard_terms", [[] for _ in range(n)])):
        if col in g:
            out[col] = g[col]
        elif col not in out.columns:
            out[col] = default
    first = [c for c in _BASE_COLS if c in out.columns]
    return out[first + [c for c in out.columns if c not in first]]
