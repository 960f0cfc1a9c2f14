"""Checks of a ResponseSet's rows beyond their columns' types: what they may cost, and whether they agree.

Kept apart from the constructors in :mod:`benchkit.response_set` (they call these helpers once):

* :func:`check_dense_size` -- the dense views (counts ``K``, ``N``, scores) are items x models
  (x variants) arrays, whatever the number of rows: 40,000 x 40,000 sparse long data is 1.6
  billion cells. Their memory is estimated before allocating and checked against the budget
  (:mod:`benchkit._budget`).
* :func:`answer_key_findings` -- a row whose ``answer`` is an option letter, on an item with an
  ``answer_key``, and whose ``correct`` is 0 or 1 must agree with them: answer == key exactly
  when correct == 1. Rows that do not are counted in :attr:`ResponseSet.report` (``findings``),
  and refused with ``strict=True``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchkit._budget import check_memory
from benchkit._validation import BenchkitValueError

__all__ = ["BYTES_PER_CELL", "answer_key_findings", "check_dense_size"]

BYTES_PER_CELL = 48
"""Peak bytes per (variant, item, model) cell while building the dense views: the int64 sample
counts and their masks, then ``N``, the float64 score sums ``S``, ``K`` and a rounding temporary."""
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def check_dense_size(n_items: int, n_models: int, n_rows: int, *, n_variants: int = 1,
                     per_cell: float = BYTES_PER_CELL, what: str = "the dense count matrices") -> None:
    """Refuse a set whose dense views would exceed the memory budget (estimate in the message)."""
    cells = n_variants * n_items * n_models
    shape = f"{n_items:,} items x {n_models:,} models"
    if n_variants > 1:
        shape += f" x {n_variants:,} variants"
    check_memory(
        f"{what} of {shape} ({cells:,} cells)", cells * per_cell,
        hint=(f"the data hold {n_rows:,} rows, {n_rows / max(cells, 1):.2%} of the cells: a ResponseSet "
              "keeps dense items x models views, so keep only the models and items you analyse together "
              "(filter the rows first, or split by benchmark)"),
    )


def answer_key_findings(answers: np.ndarray, correct: np.ndarray, keys: np.ndarray, n_options: np.ndarray,
                        where, *, strict: bool) -> list[tuple[str, np.ndarray]]:
    """Rows whose answer letter, answer key and 0/1 correctness contradict each other.

    ``answers``, ``correct`` are per row; ``keys`` (the item's answer key or None) and
    ``n_options`` (the item's number of options, 0 when unknown) are per row too. Returns
    ``(reason, row indices)`` per kind found; with ``strict`` the first kind is an error naming a
    row (``where(row)`` describes it).
    """
    is_letter = np.fromiter((isinstance(a, str) and len(a) == 1 and a in _LETTERS for a in answers),
                            dtype=bool, count=len(answers))
    has_key = np.fromiter((isinstance(k, str) and len(k) == 1 for k in keys), dtype=bool, count=len(keys))
    in_range = np.ones(len(answers), dtype=bool)
    known = n_options > 0
    if known.any():
        pos = np.array([ord(a) - 65 if ok else 0 for a, ok in zip(answers, is_letter)], dtype=np.int64)
        in_range = ~known | (pos < n_options)
    usable = is_letter & has_key & in_range & ((correct == 0) | (correct == 1))
    same = np.zeros(len(answers), dtype=bool)
    idx = np.nonzero(usable)[0]
    same[idx] = [answers[i] == str(keys[i]).upper() for i in idx]
    found = []
    kinds = (("the answer is the item's answer_key but correct is 0", usable & same & (correct == 0)),
             ("the answer is another option than the answer_key but correct is 1",
              usable & ~same & (correct == 1)))
    for reason, mask in kinds:
        rows = np.nonzero(mask)[0]
        if len(rows):
            if strict:
                r = int(rows[0])
                raise BenchkitValueError(
                    f"responses row {r} ({where(r)}) contradicts itself: answer {answers[r]!r}, answer_key "
                    f"{keys[r]!r}, correct {correct[r]:g}: {reason} ({len(rows):,} such rows); fix the "
                    "answers, the key or the scores, or pass strict=False to keep them (counted in "
                    ".report)"
                )
            found.append((reason, rows))
    return found


def item_columns_per_row(items: pd.DataFrame, item_codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The answer key and the number of options of each row's item (None / 0 when unknown)."""
    keys = items["answer_key"].to_numpy(dtype=object)[item_codes]
    if "options" in items.columns:
        n_opts = items["options"].map(lambda o: len(o) if isinstance(o, (list, tuple, np.ndarray)) else 0)
        return keys, n_opts.to_numpy(dtype=np.int64)[item_codes]
    return keys, np.zeros(len(item_codes), dtype=np.int64)
