"""Response-format validity (paper 003 Table 14) and the structural classifier (App. K, Table 18).

Table 14 counts, per model and dataset, how many single-token responses were a valid option
letter. App. K labels each item ``ok``, ``bad_question_clarity`` (a structural defect of the stem)
or ``bad_options_clarity`` (a formatting defect of the choices), MMLU-Redux style, with
GPT-4o-mini at temperature 0; wrong-answer and multiple-correct judgments are excluded.
"""
from __future__ import annotations

import re
from typing import Any
from typing import Callable
from typing import Sequence

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_columns

__all__ = [
    "STRUCTURAL_LABELS",
    "ValidityResult",
    "response_validity",
    "structural_prompt",
    "parse_structural_label",
    "structural_rules",
    "StructuralResult",
    "classify_structure",
]

#: App. K's three labels (Table 18 abbreviates the two flags as bq and bo).
STRUCTURAL_LABELS = ("ok", "bad_question_clarity", "bad_options_clarity")


# ---------------------------------------------------------------------------------------------
# Table 14
# ---------------------------------------------------------------------------------------------
def _token_class(token: Any, letters: Sequence[str]) -> str:
    if token is None or (isinstance(token, float) and np.isnan(token)):
        return "invalid"
    t = str(token)
    if t.strip() in letters:
        return "valid"
    bare = re.sub(r"[\s\(\)\[\]\.\:\*\"']", "", t).upper()
    if len(bare) == 1 and bare in [x.upper() for x in letters]:
        return "format_error"
    return "invalid"


@result
class ValidityResult:
    """Table 14: response-format validity per group, and the class of every response.

    Whether the models answered with a bare option letter, as the App. F instruction asks: the
    letter probabilities only describe the model's choice when it does.

    Parameters
    ----------
    table, classes
        The fields described under Attributes (built by :func:`response_validity`).

    Attributes
    ----------
    table : DataFrame
        Per group (the ``by`` columns): ``total``, ``valid``, ``format_error``, ``invalid`` and
        ``valid_ratio`` = valid / total (Table 14's columns; the paper reports ratios >= 0.999).
    classes : Series
        The class of every response (``"valid"``, ``"format_error"`` or ``"invalid"``), aligned
        with the input rows.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. F, Table 14.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import response_validity
    >>> frame = pd.DataFrame({"model": "m1", "benchmark": "csqa", "token": ["B", " C", "(A", "hello"],
    ...                       "letters": [("A", "B", "C", "D")] * 4})
    >>> response_validity(frame).classes.tolist()
    ['valid', 'valid', 'format_error', 'invalid']
    """

    table: pd.DataFrame
    classes: pd.Series

    def to_frame(self) -> pd.DataFrame:
        """The per-group table (:attr:`table`), a copy."""
        return self.table.copy()


def response_validity(frame: Any, *, by: str | Sequence[str] = ("model", "benchmark"),
                      token_column: str = "token",
                      letters_column: str = "letters") -> ValidityResult:
    """Response-format validity of single-token answers (paper 003 App. F, Table 14).

    Parameters
    ----------
    frame : DataFrame
        One row per response with the generated ``token`` and the offered ``letters`` (a runner's
        ``RunResult.records``, with ``benchmark`` merged from the prompt table when wanted).
    by : str or list of str, default ("model", "benchmark")
        Group columns (the rows of Table 14).
    token_column, letters_column : str
        The columns holding the generated token and the offered letters.

    Returns
    -------
    ValidityResult
        ``table``: ``total, valid, format_error, invalid, valid_ratio`` per group; ``classes``:
        the class of each row.

    Notes
    -----
    The paper gives the columns (Total, Valid, Format Err, Invalid, Valid Ratio), not the rules.
    benchkit's reading: *valid* -- the token, stripped of whitespace, is one of the offered
    letters (the system instruction asks for "only the answer choice letter"); *format error* --
    not valid, but removing whitespace, brackets, periods, colons, asterisks and quotes and
    upper-casing leaves exactly one offered letter ("(B", "b", "C."); *invalid* -- anything else
    (another word, a letter not offered, no token).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. F (system instruction,
    Table 14).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import response_validity
    >>> frame = pd.DataFrame({"model": "m1", "benchmark": "csqa",
    ...                       "token": ["B", " C", "(A", "hello", None],
    ...                       "letters": [("A", "B", "C", "D")] * 5})
    >>> response_validity(frame).table
                     total  valid  format_error  invalid  valid_ratio
    model benchmark
    m1    csqa           5      2             1        2          0.4
    """
    if not isinstance(frame, pd.DataFrame):
        raise BenchkitTypeError(f"frame must be a DataFrame; got {type(frame).__name__}")
    groups = [by] if isinstance(by, str) else list(by)
    check_columns("frame", frame.columns, required=groups + [token_column, letters_column])
    cls = pd.Series([_token_class(t, tuple(lets)) for t, lets in
                     zip(frame[token_column], frame[letters_column])],
                    index=frame.index, name="class")
    d = pd.get_dummies(cls).reindex(columns=["valid", "format_error", "invalid"], fill_value=0)
    d = d.astype(np.int64)
    for g in groups:
        d[g] = frame[g].to_numpy()
    t = d.groupby(groups, sort=True).sum()
    t.insert(0, "total", t[["valid", "format_error", "invalid"]].sum(axis=1))
    t["valid_ratio"] = t["valid"] / t["total"]
    return ValidityResult(table=t, classes=cls)


# ---------------------------------------------------------------------------------------------
# App. K
# ---------------------------------------------------------------------------------------------
_PROMPT = """You are auditing a multiple-choice benchmark item for structural defects, as in \
MMLU-Redux. Do not judge whether the keyed answer is correct and do not judge whether several \
options are correct: those need domain knowledge.

Label the item with exactly one of:
- ok: the question and the options are well formed.
- bad_question_clarity: the question stem has a structural defect (ambiguous pronoun or \
reference, incomplete or truncated sentence, missing context, garbled text).
- bad_options_clarity: the answer choices have a formatting defect (corrupted text such as \
fractions turned into dates, symbols replaced by '?', duplicated options, empty or meaningless \
options).

Question: {question}

{options}

Answer with the label only."""


def structural_prompt(question: str, options: Sequence[str], *,
                      letters: str = "ABCDEFGHIJ") -> str:
    """The App. K classification prompt for one item (benchkit's wording; see Notes).

    Parameters
    ----------
    question : str
        The question stem.
    options : sequence of str
        The answer choices, lettered in order.
    letters : str, default "ABCDEFGHIJ"
        The option letters.

    Returns
    -------
    str
        The prompt asking for one of :data:`STRUCTURAL_LABELS`.

    Notes
    -----
    The paper gives the classifier (GPT-4o-mini via OpenRouter, temperature 0), its three labels
    and the exclusions, not its prompt; this wording states exactly those.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 6.2, App. K
    (classification procedure). A. P. Gema et al. (2025), "Are We Done
    with MMLU?", arXiv:2406.04127 (the MMLU-Redux error types).

    Examples
    --------
    >>> from benchkit.landscape.steps import structural_prompt
    >>> prompt = structural_prompt("Which fraction is largest?", ["1/6", "1/5"])
    >>> prompt.splitlines()[-6:]
    ['Question: Which fraction is largest?', '', 'A. 1/6', 'B. 1/5', '', 'Answer with the label only.']
    """
    if not isinstance(question, str):
        raise BenchkitTypeError(f"question must be a string; got {type(question).__name__}")
    opts = "\n".join(f"{letters[j]}. {o}" for j, o in enumerate(options))
    return _PROMPT.format(question=question, options=opts)


def parse_structural_label(reply: Any) -> str | None:
    """The label in a classifier reply (case-insensitive; "bq"/"bo" accepted); None if absent.

    Parameters
    ----------
    reply : str
        The language model's reply to :func:`structural_prompt`.

    Returns
    -------
    str or None
        One of :data:`STRUCTURAL_LABELS`, or None when the reply names none (a non-string reply
        too).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. K (labels; Table 18
    abbreviates the flags bq and bo).

    Examples
    --------
    >>> from benchkit.landscape.steps import parse_structural_label
    >>> parse_structural_label("Label: bad_options_clarity"), parse_structural_label("BQ")
    ('bad_options_clarity', 'bad_question_clarity')
    >>> parse_structural_label("ok."), parse_structural_label("no idea")
    ('ok', None)
    """
    if not isinstance(reply, str):
        return None
    r = reply.strip().lower()
    for lab, short in (("bad_question_clarity", "bq"), ("bad_options_clarity", "bo")):
        if lab in r or lab.replace("_", " ") in r or re.fullmatch(rf"\W*{short}\W*", r):
            return lab
    if re.search(r"\bok\b", r):
        return "ok"
    return None


_DATE = re.compile(r"^\s*(\d{1,2}-(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|"
                   r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)-\d{1,4})\s*$", re.I)
_LOST_SYMBOL = re.compile(r"(\w\?\w|\d\?(\s|$)|\ufffd)")  # in options: "10?2", "10?"
_LOST_IN_STEM = re.compile(r"([A-Za-z0-9]\?[A-Za-z0-9]|\ufffd)")  # a stem may end "... 2?"


def structural_rules(question: str, options: Sequence[str]) -> str:
    """A rule-based stand-in for the App. K classifier (no model call).

    Rules, from the defects App. K reports: ``bad_options_clarity`` when an option is a
    spreadsheet date ("6-Jan", "Jan-06"), has a symbol lost to "?" or U+FFFD inside or after a
    number ("10?2", "x?y", "10?"), is empty, or two options are equal after whitespace normalization
    (case-sensitive); else ``bad_question_clarity`` when the stem is empty or has a symbol lost to
    "?" between two letters or digits ("10?2") or U+FFFD; else ``ok``. Short stems are not
    flagged (MMLU's sentence-completion stems such as "Osteoclasts" are well formed). Pronoun
    ambiguity, incomplete stems and meaningless distractors need a language model: use
    :func:`classify_structure` with ``classify=``.

    Parameters
    ----------
    question : str
        The question stem.
    options : sequence of str
        The answer choices.

    Returns
    -------
    str
        ``"ok"``, ``"bad_question_clarity"`` or ``"bad_options_clarity"``.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. K (Table 18 and the
    reported defects: fractions turned into dates, symbols
    replaced by "?", duplicated options).

    Examples
    --------
    >>> from benchkit.landscape.steps import structural_rules
    >>> structural_rules("Which fraction is largest?", ["6-Jan", "5-Jan", "3-Jan", "2-Jan"])
    'bad_options_clarity'
    >>> structural_rules("Compute 10?2.", ["5", "8", "12", "20"])
    'bad_question_clarity'
    """
    opts = ["" if o is None else str(o) for o in options]
    norm = [" ".join(o.split()) for o in opts]  # case kept: "Rr" and "RR" are different genotypes
    if (any(_DATE.match(o) for o in opts) or any(_LOST_SYMBOL.search(o) for o in opts)
            or any(not o for o in norm) or len(set(norm)) < len(norm)):
        return "bad_options_clarity"
    q = "" if question is None else str(question)
    if not q.split() or _LOST_IN_STEM.search(q):
        return "bad_question_clarity"
    return "ok"


@result
class StructuralResult:
    """App. K labels per item and Table 18 (per group: total, ok, bq, bo, flag rate).

    A complementary item-level signal to noise injection: items whose stem or options are
    structurally defective, for targeted review (the paper's MMLU flags concentrate in extraction
    artifacts).

    Parameters
    ----------
    labels, table, method
        The fields described under Attributes (built by :func:`classify_structure`).

    Attributes
    ----------
    labels : DataFrame
        One row per item: ``item``, ``group`` (the ``by`` value), ``label`` (one of
        :data:`STRUCTURAL_LABELS` or ``"unparsed"``) and ``reply`` (the model's reply; None for
        the rules).
    table : DataFrame
        Table 18 per group: ``total``, ``ok``, ``bq``, ``bo``, ``flagged`` (bq + bo) and
        ``flag_rate`` (flagged / total; the paper: 0.8 % ARC, 18.4 % CSQA, 2.8 % MMLU).
    method : str
        ``"rules"`` (:func:`structural_rules`) or ``"model"`` (a ``classify`` callable).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 6.2 (a
    complementary signal), App. K (Table 18's columns).

    Examples
    --------
    A duplicated option is a formatting defect of the choices:

    >>> import pandas as pd
    >>> from benchkit.landscape.steps import classify_structure
    >>> items = pd.DataFrame({"item": ["a1", "a2"], "benchmark": "arc", "text": ["Which is a mammal?"] * 2,
    ...                       "options": [["whale", "shark", "trout"], ["whale", "whale", "trout"]]})
    >>> res = classify_structure(items)
    >>> res.flagged, res.method, float(res.table.loc["arc", "flag_rate"])
    (('a2',), 'rules', 0.5)
    """

    labels: pd.DataFrame
    table: pd.DataFrame
    method: str

    @property
    def flagged(self) -> tuple:
        """Items labelled bad_question_clarity or bad_options_clarity."""
        lab = self.labels
        return tuple(lab.loc[lab["label"].isin(STRUCTURAL_LABELS[1:]), "item"])

    def to_frame(self) -> pd.DataFrame:
        """Table 18 (:attr:`table`), a copy."""
        return self.table.copy()


def classify_structure(items: Any, *, classify: Callable[[str], str] | None = None,
                       by: str | None = "benchmark", item_column: str = "item",
                       text_column: str = "text", options_column: str = "options") -> StructuralResult:
    """App. K's structural classifier over an items table, with Table 18.

    Parameters
    ----------
    items : DataFrame
        One row per item with ``item``, ``text`` (the stem), ``options`` (list of choices) and
        ``by``.
    classify : callable, optional
        ``classify(prompt) -> reply``: a language model (the paper: GPT-4o-mini at temperature 0)
        called with :func:`structural_prompt`; the reply is read by
        :func:`parse_structural_label`. Default: :func:`structural_rules` (no model).
    by : str or None, default "benchmark"
        Group column of Table 18 (None: one row "all").
    item_column, text_column, options_column : str
        The columns holding the item id, the stem and the list of choices.

    Returns
    -------
    StructuralResult
        ``labels`` (item, group, label, reply) and ``table`` with ``total, ok, bq, bo, flagged,
        flag_rate`` (flag rate = (bq + bo) / total, Table 18). Replies without a label are
        ``"unparsed"``, counted in ``total`` only.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 6.2, App. K, Table 18.

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({
    ...     "item": ["m1", "m2", "m3"], "benchmark": "mmlu",
    ...     "text": ["Which fraction is largest?", "What is the capital of France?", "Compute 10?2."],
    ...     "options": [["6-Jan", "5-Jan", "3-Jan", "2-Jan"], ["Paris", "Rome", "Oslo", "Bern"],
    ...                 ["5", "8", "12", "20"]]})
    >>> from benchkit.landscape.steps import classify_structure
    >>> res = classify_structure(items)
    >>> res.labels[["item", "label"]]
      item                 label
    0   m1   bad_options_clarity
    1   m2                    ok
    2   m3  bad_question_clarity
    >>> res.table.round(3)
               total  ok  bq  bo  flagged  flag_rate
    benchmark
    mmlu           3   1   1   1        2      0.667

    With a language model, ``classify`` takes the prompt and returns the reply:

    >>> classify_structure(items, classify=lambda prompt: "ok").table["flagged"].tolist()
    [0]
    """
    if not isinstance(items, pd.DataFrame):
        raise BenchkitTypeError(f"items must be a DataFrame; got {type(items).__name__}")
    req = [item_column, text_column, options_column] + ([by] if by is not None else [])
    check_columns("items", items.columns, required=req)
    if len(items) == 0:
        raise BenchkitValueError("items is empty")
    if classify is not None and not callable(classify):
        raise BenchkitTypeError("classify must be a callable prompt -> reply")
    labels, replies = [], []
    for q, opts in zip(items[text_column], items[options_column]):
        opts = list(opts)
        if classify is None:
            labels.append(structural_rules(q, opts))
            replies.append(None)
        else:
            rep = classify(structural_prompt(q, opts))
            replies.append(rep)
            labels.append(parse_structural_label(rep) or "unparsed")
    g = items[by].to_numpy() if by is not None else np.full(len(items), "all", dtype=object)
    lab = pd.DataFrame({"item": items[item_column].to_numpy(), "group": g, "label": labels,
                        "reply": replies})
    counts = pd.crosstab(lab["group"], lab["label"]).reindex(
        columns=list(STRUCTURAL_LABELS), fill_value=0)
    table = pd.DataFrame({
        "total": lab.groupby("group").size(),
        "ok": counts["ok"], "bq": counts["bad_question_clarity"],
        "bo": counts["bad_options_clarity"],
    })
    table["flagged"] = table["bq"] + table["bo"]
    table["flag_rate"] = table["flagged"] / table["total"]
    table.index.name = by if by is not None else "group"
    return StructuralResult(labels=lab, table=table,
                            method="rules" if classify is None else "model")
