"""Item tables of MMLU, ARC-Challenge and CommonsenseQA, as staged by LLM-MCQ-Bias.

The source is the data folder of Zheng et al.'s "Large Language Models Are Not Robust Multiple Choice
Selectors" (ICLR 2024), repository ``chujiezheng/LLM-MCQ-Bias``: headerless hendrycks-style CSVs
``question,A,B,C,D[,E],answer_letter``. These are item tables (question, options, answer key), not
response sets: :func:`load` returns a documented items DataFrame usable as ``items=`` of a
:class:`benchkit.ResponseSet`.

Counts (measured on the pinned files and checked in the tests): MMLU test 57 subjects, 14,042 items,
dev 57 x 5 = 285; ARC-Challenge test 1,165 (4 options), dev 5; CommonsenseQA 1,216 (the CSQA
*validation* split, stored upstream in a folder named ``test``; 5 options), dev 5.
"""
from __future__ import annotations

import csv
import functools
import io

import pandas as pd

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_choices
from benchkit.datasets._fetch import fetch_file
from benchkit.datasets._fetch import load_source

__all__ = ["SOURCE", "SUBJECTS", "PARTS", "SPLITS", "load", "item_id"]


#: The 57 MMLU subjects, in the (alphabetical) order of the upstream file names.
SUBJECTS: tuple[str, ...] = (
    "abstract_algebra",
    "anatomy",
    "astronomy",
    "business_ethics",
    "clinical_knowledge",
    "college_biology",
    "college_chemistry",
    "college_computer_science",
    "college_mathematics",
    "college_medicine",
    "college_physics",
    "computer_security",
    "conceptual_physics",
    "econometrics",
    "electrical_engineering",
    "elementary_mathematics",
    "formal_logic",
    "global_facts",
    "high_school_biology",
    "high_school_chemistry",
    "high_school_computer_science",
    "high_school_european_history",
    "high_school_geography",
    "high_school_government_and_politics",
    "high_school_macroeconomics",
    "high_school_mathematics",
    "high_school_microeconomics",
    "high_school_physics",
    "high_school_psychology",
    "high_school_statistics",
    "high_school_us_history",
    "high_school_world_history",
    "human_aging",
    "human_sexuality",
    "international_law",
    "jurisprudence",
    "logical_fallacies",
    "machine_learning",
    "management",
    "marketing",
    "medical_genetics",
    "miscellaneous",
    "moral_disputes",
    "moral_scenarios",
    "nutrition",
    "philosophy",
    "prehistory",
    "professional_accounting",
    "professional_law",
    "professional_medicine",
    "professional_psychology",
    "public_relations",
    "security_studies",
    "sociology",
    "us_foreign_policy",
    "virology",
    "world_religions",
)

# the mirror drops the repository's leading "code/" folder: the upstream path, and so the raw-GitHub
# URL at the pinned commit, is "code/<path>" (the manifest's "upstream_prefix")
SOURCE = load_source("mmlu", repo="chujiezheng/LLM-MCQ-Bias",
                     commit="2ae2f40c77006f7a00a4675bdfb30151c2406691")

#: Accepted values of ``part`` and ``split``.
PARTS: tuple[str, ...] = ("mmlu", "arc-challenge", "commonsenseqa", "all")
SPLITS: tuple[str, ...] = ("test", "dev", "all")

_LETTERS = "ABCDEFGHIJ"
# part -> (folder, file name pattern for a split, number of options, single-file source label)
_PART_LAYOUT = {
    "arc-challenge": ("data_arc", "arc_{split}.csv", 4),
    "commonsenseqa": ("data_csqa", "csqa_{split}.csv", 5),
}


def item_id(part: str, split: str, row: int, *, subject: str | None = None) -> str:
    """The stable item id of row ``row`` (0-based, file order) of a part and split.

    ``'mmlu/<subject>/<split>/<row>'`` for MMLU, ``'arc-challenge/<split>/<row>'`` and
    ``'commonsenseqa/<split>/<row>'`` otherwise. The row index equals the ``idx`` of the
    LLM-MCQ-Bias result files, so those results join on it.

    Parameters
    ----------
    part : {"mmlu", "arc-challenge", "commonsenseqa"}
        The benchmark (:data:`PARTS`).
    split : {"test", "dev"}
        The split (:data:`SPLITS`).
    row : int
        0-based row in the CSV file.
    subject : str, optional
        The MMLU subject (:data:`SUBJECTS`); required for ``part="mmlu"``, not allowed otherwise.

    Returns
    -------
    str
        The item id, as in the ``item`` column of :func:`load`.

    References
    ----------
    C. Zheng, H. Zhou, F. Meng, J. Zhou and M. Huang (2024), "Large Language Models Are Not
    Robust Multiple Choice Selectors", ICLR 2024, arXiv:2309.03882; repository
    ``chujiezheng/LLM-MCQ-Bias``. D. Hendrycks et al. (2021), "Measuring Massive Multitask
    Language Understanding", ICLR 2021, arXiv:2009.03300.

    Examples
    --------
    >>> from benchkit.datasets.mmlu import item_id
    >>> item_id("mmlu", "test", 3, subject="anatomy"), item_id("arc-challenge", "test", 3)
    ('mmlu/anatomy/test/3', 'arc-challenge/test/3')
    """
    if part == "mmlu":
        return f"mmlu/{subject}/{split}/{row}"
    return f"{part}/{split}/{row}"


@functools.lru_cache(maxsize=256)
def _parse_csv(local_path: str, n_options: int) -> tuple[tuple[str, tuple[str, ...], str], ...]:
    """Rows (question, options, answer letter) of one headerless CSV, checked for shape."""
    with open(local_path, encoding="utf-8", newline="") as fh:
        text = fh.read()
    rows = []
    allowed = tuple(_LETTERS[:n_options])  # a tuple: "" would be a substring of a str
    for i, rec in enumerate(csv.reader(io.StringIO(text, newline=""))):
        if len(rec) != n_options + 2:
            raise BenchkitValueError(
                f"{local_path}: row {i} has {len(rec)} fields; expected {n_options + 2} "
                f"(question, {n_options} options, answer letter)"
            )
        answer = rec[-1].strip()
        if answer not in allowed:
            raise BenchkitValueError(
                f"{local_path}: row {i} has answer {answer!r}; expected one of {', '.join(allowed)}"
            )
        rows.append((rec[0], tuple(rec[1:-1]), answer))
    return tuple(rows)


def _frame(part: str, split: str, subject: str | None, path: str, n_options: int) -> pd.DataFrame:
    local = fetch_file(SOURCE, path)
    rows = _parse_csv(str(local), n_options)
    return pd.DataFrame(
        {
            "item": [item_id(part, split, i, subject=subject) for i in range(len(rows))],
            "benchmark": part,
            "source": subject if subject is not None else part,
            "split": split,
            "row": range(len(rows)),
            "text": [r[0] for r in rows],
            "options": [list(r[1]) for r in rows],
            "answer_key": [r[2] for r in rows],
            "answer_index": [_LETTERS.index(r[2]) for r in rows],
            "n_options": n_options,
            "file": path,
        }
    )


def load(*, part: str = "mmlu", split: str = "test", subjects=None) -> pd.DataFrame:
    """Load an item table: question text, options and answer letter, one row per item.

    Parameters
    ----------
    part : {"mmlu", "arc-challenge", "commonsenseqa", "all"}, default "mmlu"
        Which benchmark: the 57-subject MMLU (``data_mmlu``), ARC-Challenge (``data_arc``, the
        1,165 test items with exactly 4 options), CommonsenseQA (``data_csqa``: the 1,216-item
        CSQA *validation* split, which the upstream repository stores as ``test``) or all three.
    split : {"test", "dev", "all"}, default "test"
        The upstream folder: ``test`` (the evaluation items) or ``dev`` (the 5 few-shot examples
        per MMLU subject, 5 for ARC, 5 for CSQA).
    subjects : str or sequence of str, optional
        MMLU subjects to keep (names as in :data:`SUBJECTS`); default all 57. Only for MMLU.

    Returns
    -------
    pandas.DataFrame
        One row per item, in file order (MMLU subjects alphabetical, then row), with a default
        RangeIndex and the columns

        - ``item`` (str): stable id, ``'mmlu/<subject>/<split>/<row>'``,
          ``'arc-challenge/<split>/<row>'`` or ``'commonsenseqa/<split>/<row>'``
          (see :func:`item_id`);
        - ``benchmark`` (str): ``'mmlu'``, ``'arc-challenge'`` or ``'commonsenseqa'``;
        - ``source`` (str): the MMLU subject (e.g. ``'abstract_algebra'``); for ARC and CSQA the
          benchmark name (they have no subjects);
        - ``split`` (str), ``row`` (int, 0-based row in the CSV);
        - ``text`` (str): the question, unchanged;
        - ``options`` (list of str): the 4 (MMLU, ARC) or 5 (CSQA) options, in order A, B, ...;
        - ``answer_key`` (str): the correct letter; ``answer_index`` (int, 0-based);
        - ``n_options`` (int); ``file`` (str): the file inside the source it came from.

        The frame can be passed as ``items=`` to :meth:`benchkit.ResponseSet.from_long`.

    Notes
    -----
    The CSVs are read with the :mod:`csv` module (RFC 4180 quoting) as UTF-8; every row must have
    the question, exactly the expected number of options and an answer letter among them,
    otherwise a :class:`~benchkit._validation.BenchkitValueError` names the file and row. Text is
    not normalized. Duplicate questions are kept: MMLU test holds 27 rows whose question and
    options repeat an earlier row of the same subject (HELM evaluates one copy of each, see
    :func:`benchkit.datasets.mmlu_redux.load`).

    References
    ----------
    C. Zheng, H. Zhou, F. Meng, J. Zhou and M. Huang (2024), "Large Language Models Are Not
    Robust Multiple Choice Selectors", ICLR 2024, arXiv:2309.03882; repository
    ``chujiezheng/LLM-MCQ-Bias``. D. Hendrycks et al. (2021), "Measuring Massive Multitask
    Language Understanding", ICLR 2021, arXiv:2009.03300.

    Examples
    --------
    Not run as a doctest (doctests read no data files): it needs the source's files from the
    local mirror, the cache or a download. The output shown was produced on the pinned files.

    >>> from benchkit.datasets import mmlu
    >>> items = mmlu.load(subjects="anatomy")  # doctest: +SKIP
    >>> items.shape, bool(items["answer_key"].isin(list("ABCD")).all())  # doctest: +SKIP
    ((135, 11), True)
    """
    check_choice("part", part, PARTS)
    check_choice("split", split, SPLITS)
    parts = ["mmlu", "arc-challenge", "commonsenseqa"] if part == "all" else [part]
    splits = ["test", "dev"] if split == "all" else [split]
    if subjects is not None:
        if part not in ("mmlu", "all"):
            raise BenchkitValueError(
                f"subjects={subjects!r} only applies to part='mmlu'; part={part!r} has no subjects"
            )
        subjects = check_choices("subjects", subjects, SUBJECTS)
    frames = []
    for p in parts:
        for sp in splits:
            if p == "mmlu":
                for subject in SUBJECTS if subjects is None else subjects:
                    frames.append(_frame(p, sp, subject, f"data_mmlu/{sp}/{subject}_{sp}.csv", 4))
            else:
                folder, pattern, k = _PART_LAYOUT[p]
                frames.append(_frame(p, sp, None, f"{folder}/{sp}/{pattern.format(split=sp)}", k))
    return pd.concat(frames, ignore_index=True)
