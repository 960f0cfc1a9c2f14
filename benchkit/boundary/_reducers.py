"""Answer reducers g_q (BSDProbe Sec. 3.1 and App. E): raw generations -> answer states.

Three task types, as App. E describes them:

* multiple choice (MMLU, GPQA): JSON extraction, regex matching, fallback to the last capital
  letter; compared with the key case-insensitively;
* mathematical reasoning (GSM8K, MATH; in ``_math_answers``): numeric and LaTeX answers;
  fractions converted to decimals, units removed; equivalence by string match, numeric equality
  (with percentage scaling) and symbolic equality via SymPy (optional dependency
  ``benchkit[math]``);
* short-text QA (PopQA, TriviaQA): the content after "ANSWER:" or the last line, normalized
  (lower case, punctuation removed, articles stripped, symbols unified: the SQuAD normalization);
  refusals ("I don't know") are their own state, scored incorrect; aliases; exact or substring
  match.

A response with no extractable answer gets the state :data:`benchkit.response_set.NO_ANSWER`.
"""
from __future__ import annotations

import json
import re
import string
import unicodedata

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_text
from benchkit._validation import describe
from benchkit.boundary._math_answers import extract_math_answer
from benchkit.boundary._math_answers import math_equivalent
from benchkit.boundary._math_answers import normalize_math_answer
from benchkit.response_set import NO_ANSWER

__all__ = [
    "TASKS",
    "extract_choice",
    "extract_qa_answer",
    "normalize_qa_answer",
    "qa_match",
    "reduce_generation",
    "score_state",
    "ReducedGenerations",
    "reduce_generations",
]

TASKS = ("mcq", "math", "qa")

# ---------------------------------------------------------------------------------------------
# multiple choice
# ---------------------------------------------------------------------------------------------
_JSON_KEYS = ("answer", "final_answer", "choice", "option", "label")


def _choices(choices) -> str:
    if isinstance(choices, int) and not isinstance(choices, bool):
        if not 2 <= choices <= 26:
            raise BenchkitValueError(f"choices={choices} must be between 2 and 26 options")
        return string.ascii_uppercase[:choices]
    if not isinstance(choices, str) or not choices or not all(
            c in string.ascii_uppercase for c in choices) or len(set(choices)) != len(choices):
        raise BenchkitValueError(
            f"choices={describe(choices)} must be a number of options or distinct capital letters "
            "such as 'ABCD'"
        )
    return choices


def _letter(value, letters: str) -> str | None:
    if not isinstance(value, str):
        return None
    v = value.strip().strip("()[]{}.:*'\" ").upper()
    return v if len(v) == 1 and v in letters else None


def extract_choice(text, *, choices="ABCD") -> str:
    """Option letter of a multiple-choice generation (App. E, MMLU / GPQA reducer).

    Parameters
    ----------
    text : str
        The raw generation.
    choices : str or int, default "ABCD"
        The option letters (or their number: 10 -> "A".."J").

    Returns
    -------
    str
        The letter, or ``NO_ANSWER`` when none can be extracted.

    Notes
    -----
    App. E names three stages; benchkit's reading, tried in order:

    1. JSON: the last ``{...}`` object that parses and has a key ``answer`` (or ``final_answer``,
       ``choice``, ``option``, ``label``; any case) whose value is one option letter, optionally in
       parentheses.
    2. Regex: the last "answer is X" / "answer: X" / "option X" / "choice X" phrase (case-insensitive
       phrase; a capital letter standing alone, or a letter of either case in parentheses, so "the
       answer is a guess" gives nothing here); else a generation that is only a letter ("B",
       "(b)", "B."); else the last parenthesized option letter "(B)".
    3. Fallback: the last capital letter among the options standing alone as a word (so the "A" of
       "A cat" counts, but not letters inside words).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. E (task-specific state reduction and evaluation).

    Examples
    --------
    >>> extract_choice('{"answer": "C"}')
    'C'
    >>> extract_choice("Let's think. The answer is (b).")
    'B'
    """
    text = check_text("text", text)
    letters = _choices(choices)
    # 1. JSON objects (innermost-first candidates; the last that parses wins)
    found = None
    for m in re.finditer(r"\{[^{}]*\}", text):
        try:
            obj = json.loads(m.group(0))
        except ValueError:
            continue
        if isinstance(obj, dict):
            low = {str(k).lower(): v for k, v in obj.items()}
            for key in _JSON_KEYS:
                if key in low and _letter(low[key], letters):
                    found = _letter(low[key], letters)
                    break
    if found:
        return found
    cls = "".join(letters) + "".join(letters).lower()
    lead = r"(?i:answer|option|choice)\s*(?i:is|:|=|would be|should be)?\s*[:\-]?[\*\s]*"
    phrase = re.compile(lead + rf"(?:\(\s*([{cls}])\s*\)|([{letters}])(?![A-Za-z0-9]))")
    hits = [(m.group(1) or m.group(2)).upper() for m in phrase.finditer(text)]
    if hits:
        return hits[-1]
    only = re.fullmatch(rf"\s*[\*\(\[]*\s*([{cls}])\s*[\)\]\.:\*]*\s*", text)
    if only:
        return only.group(1).upper()
    paren = re.findall(rf"\(([{letters}])\)", text)
    if paren:
        return paren[-1]
    alone = re.findall(rf"(?<![A-Za-z0-9])([{letters}])(?![A-Za-z0-9])", text)
    if alone:
        return alone[-1]
    return NO_ANSWER


# ---------------------------------------------------------------------------------------------
# short-answer QA
# ---------------------------------------------------------------------------------------------
_REFUSALS = (
    "i dont know", "i do not know", "unknown", "no answer", "not sure", "im not sure",
    "i am not sure", "cannot answer", "i cannot answer", "cant answer", "i cant answer",
    "no idea", "n a", "none", "unanswerable", "cannot be determined", "i dont have",
)


def extract_qa_answer(text) -> str:
    r"""The answer part of a short-answer generation (App. E).

    Parameters
    ----------
    text : str
        The raw generation (None or NaN count as empty).

    Returns
    -------
    str
        The content after the last "ANSWER:" (case-insensitive) to the end of its line, else the
        last non-empty line ("" for an empty generation); normalize it with
        :func:`normalize_qa_answer`.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. E (task-specific state reduction and evaluation).

    Examples
    --------
    >>> extract_qa_answer("Paris is the capital.\nANSWER: Paris")
    'Paris'
    """
    text = check_text("text", text)
    m = list(re.finditer(r"answer\s*:", text, flags=re.IGNORECASE))
    if m:
        rest = text[m[-1].end():].strip()
        return rest.split("\n")[0].strip() if rest else ""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def normalize_qa_answer(answer) -> str:
    """SQuAD-style normalization (Rajpurkar et al. 2016's ``normalize_answer``) plus unified symbols.

    Parameters
    ----------
    answer : str
        An extracted short answer (:func:`extract_qa_answer`).

    Returns
    -------
    str
        The normalized answer state, or ``NO_ANSWER`` for a refusal or an empty answer.

    Notes
    -----
    NFKC unicode, accents stripped, "&" -> "and", lower case, punctuation removed, the articles
    a / an / the removed, whitespace collapsed. A refusal ("I don't know", "unknown", "no answer",
    ...) or an empty answer gives ``NO_ANSWER`` (its own state, scored incorrect, App. E).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. E (task-specific state reduction and evaluation).
    .. [2] Rajpurkar, P., Zhang, J., Lopyrev, K. and Liang, P. "SQuAD: 100,000+ Questions for
       Machine Comprehension of Text." EMNLP 2016 (the official evaluation's ``normalize_answer``).

    Examples
    --------
    >>> normalize_qa_answer("The  Eiffel Tower!")
    'eiffel tower'
    >>> normalize_qa_answer("I don't know.")
    '<no answer>'
    """
    s = check_text("answer", answer)
    if s == NO_ANSWER:
        return NO_ANSWER
    s = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", s))
    s = "".join(ch for ch in s if not unicodedata.combining(ch))
    s = s.replace("&", " and ").replace("’", "'").replace("‘", "'")
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    s = " ".join(s.split())
    if not s or s in _REFUSALS or s.startswith(("i dont know", "i do not know")):
        return NO_ANSWER
    return s


def qa_match(prediction, aliases, *, match: str = "substring") -> bool:
    """Whether a QA answer matches any reference alias after :func:`normalize_qa_answer`.

    Parameters
    ----------
    prediction : str
        The model's (extracted) answer.
    aliases : str or sequence of str
        The reference answer and its aliases.
    match : {"substring", "exact"}, default "substring"
        ``"exact"``: normalized equality; ``"substring"`` (App. E's "normalized exact or substring
        matching"): equality, or a normalized alias occurring in the prediction as whole words.

    Returns
    -------
    bool
        True when some alias matches; ``NO_ANSWER`` never matches.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. E (task-specific state reduction and evaluation).

    Examples
    --------
    >>> qa_match("It is the Eiffel Tower, in Paris", ["Eiffel Tower", "La tour Eiffel"])
    True
    >>> qa_match("It is the Eiffel Tower, in Paris", "Eiffel Tower", match="exact")
    False
    """
    match = check_choice("match", match, ("exact", "substring"))
    p = normalize_qa_answer(prediction)
    if p == NO_ANSWER:
        return False
    if isinstance(aliases, str):
        aliases = [aliases]
    for a in aliases:
        r = normalize_qa_answer(a)
        if r == NO_ANSWER:
            continue
        if p == r:
            return True
        if match == "substring" and re.search(r"(?<!\w)" + re.escape(r) + r"(?!\w)", p):
            return True
    return False


# ---------------------------------------------------------------------------------------------
# one entry point per generation and per column
# ---------------------------------------------------------------------------------------------
def reduce_generation(text, *, task: str, choices="ABCD") -> str:
    r"""g_q(text): the answer state of one raw generation (App. E).

    Parameters
    ----------
    text : str
        The raw generation.
    task : {"mcq", "math", "qa"}
        The task type: multiple choice (:func:`extract_choice`), mathematical reasoning
        (:func:`extract_math_answer` then :func:`normalize_math_answer`) or short-text QA
        (:func:`extract_qa_answer` then :func:`normalize_qa_answer`).
    choices : str or int, default "ABCD"
        Option letters for "mcq" (or their number).

    Returns
    -------
    str
        The answer state; ``NO_ANSWER`` when nothing can be extracted.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. E (task-specific state reduction and evaluation).

    Examples
    --------
    >>> reduce_generation("The answer is (c).", task="mcq")
    'C'
    >>> reduce_generation("Total: 1/2 of the cake.\n#### 0.50", task="math")
    '0.5'
    """
    task = check_choice("task", task, TASKS)
    if task == "mcq":
        return extract_choice(text, choices=choices)
    if task == "math":
        return normalize_math_answer(extract_math_answer(text))
    return normalize_qa_answer(extract_qa_answer(text))


def score_state(state, reference, *, task: str, match: str = "substring", **kwargs) -> bool:
    """Whether an answer state is correct (App. E's scoring rules).

    Parameters
    ----------
    state : str
        An answer state (:func:`reduce_generation`).
    reference : str or sequence of str
        The key letter (mcq), the reference answer (math) or the list of aliases (qa).
    task : {"mcq", "math", "qa"}
        The task type.
    match : {"substring", "exact"}, default "substring"
        QA matching rule (:func:`qa_match`).
    **kwargs
        Options of :func:`math_equivalent` for ``task="math"`` (``rel_tol``, ``percent``,
        ``symbolic``).

    Returns
    -------
    bool
        Case-insensitive letter equality (mcq), :func:`math_equivalent` (math), :func:`qa_match`
        against the aliases (qa); ``NO_ANSWER`` is incorrect.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. E (task-specific state reduction and evaluation).

    Examples
    --------
    >>> score_state("b", "B", task="mcq"), score_state("0.5", "1/2", task="math")
    (True, True)
    """
    task = check_choice("task", task, TASKS)
    if state == NO_ANSWER:
        return False
    if task == "mcq":
        return isinstance(reference, str) and state.upper() == reference.strip().upper()
    if task == "math":
        return math_equivalent(state, str(reference), **kwargs)
    return qa_match(state, reference, match=match)


@result
class ReducedGenerations:
    """Answer states (and correctness when references were given) of a column of generations.

    Parameters
    ----------
    answer, correct, task
        The fields below (see Attributes); built by
        :func:`~benchkit.boundary.steps.reduce_generations`.

    Attributes
    ----------
    answer : ndarray of object
        The answer state of each generation (``NO_ANSWER`` where nothing could be extracted;
        ``no_answer_rate`` is their share).
    correct : ndarray of int8 or None
        1 where the state matches the reference, 0 otherwise; None without references.
    task : {"mcq", "math", "qa"}
        The reducer used.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. E (task-specific state reduction and evaluation).

    Examples
    --------
    >>> from benchkit.boundary.steps import reduce_generations
    >>> red = reduce_generations(["ANSWER: A", "no idea"], references=["A", "B"], task="mcq")
    >>> red.to_frame()
            answer  correct
    0            A        1
    1  <no answer>        0
    """

    answer: np.ndarray
    correct: np.ndarray | None
    task: str

    @property
    def no_answer_rate(self) -> float:
        return float(np.mean(self.answer == NO_ANSWER)) if self.answer.size else 0.0

    def to_frame(self) -> pd.DataFrame:
        df = pd.DataFrame({"answer": self.answer})
        if self.correct is not None:
            df["correct"] = self.correct
        return df


def reduce_generations(generations, *, references=None, task: str, choices="ABCD",
                       match: str = "substring") -> ReducedGenerations:
    """Apply g_q to a column of raw generations (App. E); score against references if given.

    Parameters
    ----------
    generations : sequence of str
        Raw generations (None / NaN -> ``NO_ANSWER``).
    references : sequence, optional
        One reference per generation: the key letter (mcq), the reference answer (math) or a list
        of aliases / one alias (qa).
    task : {"mcq", "math", "qa"}
        The reducer (:func:`reduce_generation`).
    choices : str or int, default "ABCD"
        Option letters for "mcq".
    match : {"substring", "exact"}, default "substring"
        QA matching rule.

    Returns
    -------
    ReducedGenerations
        ``answer`` (object array of states) and ``correct`` (int8 0/1, or None).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. E (task-specific state reduction and evaluation).

    Examples
    --------
    >>> red = reduce_generations(["ANSWER: Paris", "I don't know"], references=[["Paris"], ["Rome"]],
    ...                          task="qa")
    >>> red.answer.tolist(), red.correct.tolist(), red.no_answer_rate
    (['paris', '<no answer>'], [1, 0], 0.5)
    """
    task = check_choice("task", task, TASKS)
    gens = list(generations) if not isinstance(generations, str) else None
    if gens is None:
        raise BenchkitTypeError("generations must be a sequence of strings, not one string")
    states = np.array([reduce_generation(g, task=task, choices=choices) for g in gens], dtype=object)
    correct = None
    if references is not None:
        refs = list(references)
        if len(refs) != len(gens):
            raise BenchkitValueError(
                f"references must have one entry per generation ({len(gens)}); got {len(refs)}"
            )
        cache: dict = {}
        out = np.zeros(len(gens), dtype=np.int8)
        for i, (s, r) in enumerate(zip(states, refs)):
            key = (s, tuple(r) if isinstance(r, (list, tuple, np.ndarray)) else r)
            if key not in cache:
                cache[key] = score_state(s, r, task=task, match=match)
            out[i] = cache[key]
        correct = out
    return ReducedGenerations(answer=states, correct=correct, task=task)
