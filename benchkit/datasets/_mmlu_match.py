"""Joining questions to the MMLU test rows of the ``mmlu`` source, by subject and text.

MMLU-Redux's annotator files and HELM's outputs carry the question text but no MMLU row id (HELM's
no gold answer either): :class:`_MmluMatcher` finds the row (same whitespace-normalized question and
options, else a unique question-text match, else the same ASCII letters and digits), which gives
:mod:`benchkit.datasets.mmlu_redux` its ``mmlu_item`` ids and its ``"helm-full"`` answer keys.
"""
from __future__ import annotations

import functools
import re

import numpy as np
import pandas as pd

from benchkit.datasets import mmlu as _mmlu
from benchkit.datasets._fetch import fetch_file


def _ws(text: str) -> str:
    """Whitespace-normalized text: runs of whitespace (incl. no-break space) -> one space, stripped."""
    return " ".join(text.split())


_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def _align_key(text: str) -> str:
    """ASCII letters and digits only, lower case: survives the character losses of all.csv."""
    return _NOT_ALNUM.sub("", text.lower())


@functools.lru_cache(maxsize=1)
def _mmlu_lookup_cached(mirror_key: str):
    items = _mmlu.load(part="mmlu", split="test")
    full: dict[tuple, list[int]] = {}
    qonly: dict[tuple, list[int]] = {}
    for pos, (s, q, opts) in enumerate(zip(items["source"], items["text"], items["options"])):
        full.setdefault((s, _ws(q), tuple(_ws(o) for o in opts)), []).append(pos)
        qonly.setdefault((s, _ws(q)), []).append(pos)
    return items, items["answer_key"].to_numpy(dtype=object), full, qonly, {}


def _mmlu_lookup():
    """MMLU test items, answer keys and text lookups (memoized on the verified file paths)."""
    # fetch (and so verify) every file each time; memoize on where they were found
    paths = tuple(str(fetch_file(_mmlu.SOURCE, f"data_mmlu/test/{s}_test.csv")) for s in _mmlu.SUBJECTS)
    items, keys, full, qonly, ascii_by_subject = _mmlu_lookup_cached("|".join(paths))
    return items.copy(), keys, full, qonly, ascii_by_subject


class _MmluMatcher:
    """Finds the MMLU test row (mmlu source) of a question of a given subject.

    Levels, first hit wins: (1) the same whitespace-normalized question text and options;
    (2) the same question text, when exactly one row of the subject has it; (3) the same ASCII
    letters and digits of question and options (survives lost or mis-decoded characters such as
    U+FFFD, 'Õ' for '’'), when unique. Among identical rows the first not yet matched is used;
    identical rows with different answer keys are a failure.
    """

    def __init__(self):
        self.items, self.keys, self.full, self.qonly, self._ascii = _mmlu_lookup()
        self.taken = np.zeros(len(self.items), dtype=bool)

    def _ascii_index(self, subject: str) -> dict[tuple, list[int]]:
        """Level-3 keys of one subject, built on first use (memoized with the lookup)."""
        if subject not in self._ascii:
            index: dict[tuple, list[int]] = {}
            positions = np.nonzero(self.items["source"].to_numpy(dtype=object) == subject)[0]
            texts = self.items["text"].to_numpy(dtype=object)
            options = self.items["options"].to_numpy(dtype=object)
            for pos in positions:
                key = (_align_key(texts[pos]), tuple(_align_key(o) for o in options[pos]))
                index.setdefault(key, []).append(int(pos))
            self._ascii[subject] = index
        return self._ascii[subject]

    def match(self, subject: str, question: str, options) -> tuple[int | None, str]:
        """(row position or None, how it matched or why it failed)."""
        key = (subject, _ws(question), tuple(_ws(o) for o in options))
        cand, how = self.full.get(key), "text and options"
        if cand is None:
            qc = self.qonly.get((subject, _ws(question)))
            if qc is not None and len(qc) == 1:
                cand, how = qc, "question text only (options differ)"
        if cand is None:
            ac = self._ascii_index(subject).get((_align_key(question),
                                                 tuple(_align_key(o) for o in options)))
            if ac is not None:
                cand, how = ac, "ASCII letters and digits of text and options"
        if cand is None:
            qc = self.qonly.get((subject, _ws(question)))
            if qc is None:
                return None, "no MMLU test question of the subject has this text"
            return None, (f"the question text matches {len(qc)} MMLU test rows whose options all "
                          "differ")
        if len({self.keys[p] for p in cand}) > 1:
            return None, "identical MMLU test rows disagree on the answer key"
        free = [p for p in cand if not self.taken[p]]
        if not free:
            return None, "every matching MMLU test row is already matched to another row"
        self.taken[free[0]] = True
        return free[0], how

    def twins(self) -> dict[int, int]:
        """Row position -> first row it is identical to (question and options)."""
        out = {}
        for pos in self.full.values():
            for p in pos[1:]:
                out[p] = pos[0]
        return out


def _match_to_mmlu(labels: pd.DataFrame) -> tuple[list, list]:
    """The MMLU test item id of each labelled item (or None) and how it matched."""
    matcher = _MmluMatcher()
    ids = matcher.items["item"].to_numpy(dtype=object)
    out, how = [], []
    for s, q, opts in zip(labels["subject"], labels["text"], labels["options"]):
        pos, h = matcher.match(s, q, opts)
        out.append(None if pos is None else ids[pos])
        how.append(h)
    return out, how
