"""Perturbation builders and prompt rendering for MCQ probability-landscape audits.

Paper 003, Sec. 3.4 (token masking, No-Answer, score bias, noise injection), Sec. 5.3 / Table 2
(positional bias), Sec. 4.2 and App. E (5- to 4-choice standardization), App. B (score values),
App. F (prompt template and system instruction), App. J (X1 negation/EXCEPT and X2 semantic
collision failure types, which the noise-injection guards flag).

Every builder takes an items table (one row per MCQ item: ``item, text, options, answer_key``, as
returned by ``benchkit.datasets.fetch("mmlu", part=...)``) and returns a variants table with the
same columns, one row per (item, variant): ``item`` is the original item id, ``variant`` the
variant name, ``text``/``options``/``answer_key``/``answer_index`` the perturbed item. No builder
ever removes the correct answer: the keyed option keeps its text (except No-Answer, where the
keyed option *is* the "No Answer" option) and ``answer_key`` always points at it.
"""
from __future__ import annotations

import re
import zlib
from functools import lru_cache
from importlib import resources
from typing import Any
from typing import Sequence

import numpy as np
import pandas as pd

from benchkit._random import seed_sequence
from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_columns
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit.landscape._points import LETTERS

__all__ = [
    "SYSTEM_PROMPT",
    "PROMPT_TEMPLATE",
    "VARIANTS",
    "PerturbationSet",
    "cities",
    "normalize_items",
    "baseline",
    "mask",
    "no_answer",
    "score_bias",
    "positional_bias",
    "noise_injection",
    "standardize_choices",
    "negation_terms",
    "perturb",
    "render_prompt",
    "render",
]

#: System instruction of App. F (the letter list adapts to the number of options; see render_prompt).
SYSTEM_PROMPT = (
    "You are a helpful assistant. Output only the answer choice letter (A, B, C, or D) and "
    "nothing else."
)
#: Prompt template of App. F.
PROMPT_TEMPLATE = "Question: {question}\n\n{choices}\n\nAnswer:"

#: Default variant names (paper label in parentheses): baseline, mask ("Mask(100%)"), no_answer
#: ("No Answer"), score_bias ("Score Bias(10)"), noise ("Noise Injection"), bias_A .. bias_D
#: ("A bias" .. "D bias").
VARIANTS = ("baseline", "mask", "no_answer", "score_bias", "noise",
            "bias_A", "bias_B", "bias_C", "bias_D")

_NEGATION = re.compile(
    r"\b(not|except|never|least|false|incorrect|untrue|cannot|can't|isn't|aren't|doesn't|don't|"
    r"exception|neither|nor)\b",
    re.IGNORECASE,
)
_LOCATION = re.compile(
    r"\b(city|cities|capital|country|countries|where|located|location|place|region|continent|"
    r"nation|town|travel|visit|cuisine|delicacy|dish|food|famous|native|originat\w*|hometown|"
    r"geograph\w*)\b",
    re.IGNORECASE,
)

_WORD = re.compile(r"\w+")


def _ngrams(text: str, width: int) -> set[str]:
    """Lower-cased word n-grams (n <= width) of ``text``: whole-word, whole-phrase matching."""
    words = _WORD.findall(str(text).lower())
    out = set(words)
    for n in range(2, width + 1):
        out.update(" ".join(words[i:i + n]) for i in range(len(words) - n + 1))
    return out


_BASE_COLS = ["item", "variant", "text", "options", "answer_key", "answer_index", "n_options"]


@result
class PerturbationSet:
    """Variants of a set of items, as data (what :func:`perturb` returns).

    The perturbed benchmark the models are run on: each item once per variant, with the keyed
    option always present. Render the prompts with :meth:`prompts_frame` (App. F) and run them with
    :func:`run_prompts`.

    Parameters
    ----------
    frame, names, rng_entropy
        The fields described under Attributes (built by :func:`perturb`).

    Attributes
    ----------
    frame : DataFrame
        One row per (item, variant) with the items' columns (``item`` is the original id) plus
        ``variant``, the perturbed ``text, options, answer_key, answer_index, n_options`` and the
        guard columns of noise injection (``negation``, ``collision_risk``, ``guard_terms``; False /
        empty for other variants).
    names : tuple of str
        Variant names in build order.
    rng_entropy : int or list of int
        Entropy of the root SeedSequence (the ``rng`` int when one was given); items' random
        choices derive from the root and the item id only, so ``perturb(items,
        rng=rng_entropy)`` rebuilds the same variants.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.4 (perturbations),
    Table 2 (positional bias), App. F (prompts).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import perturb
    >>> items = pd.DataFrame({"item": ["q1"], "text": ["Which gas do plants absorb?"],
    ...                       "options": [["Oxygen", "Carbon dioxide", "Helium", "Neon"]],
    ...                       "answer_key": ["B"]})
    >>> ps = perturb(items, variants=["baseline", "no_answer"])
    >>> ps.names, len(ps)
    (('baseline', 'no_answer'), 2)
    >>> ps.to_frame()["options"].tolist()
    [['Oxygen', 'Carbon dioxide', 'Helium', 'Neon'], ['Oxygen', 'No Answer', 'Helium', 'Neon']]
    """

    frame: pd.DataFrame
    names: tuple[str, ...]
    rng_entropy: Any

    def __len__(self) -> int:
        return len(self.frame)

    def to_frame(self) -> pd.DataFrame:
        """The variants table (a copy)."""
        return self.frame.copy()

    def prompts_frame(self, *, system: str | None = None) -> pd.DataFrame:
        """The variants table with ``system`` and ``prompt`` columns (see :func:`render`).

        Parameters
        ----------
        system : str, optional
            System instruction for every row (default :data:`SYSTEM_PROMPT`, letters adapted).

        Returns
        -------
        DataFrame
            :attr:`frame` with ``system`` and ``prompt``.
        """
        return render(self.frame, system=system)


# ----------------------------------------------------------------------------- helpers
@lru_cache(maxsize=1)
def _city_table() -> pd.DataFrame:
    with resources.files("benchkit.landscape").joinpath("cities.csv").open(encoding="utf-8") as fh:
        return pd.read_csv(fh, dtype=str)


def cities() -> pd.DataFrame:
    """The documented city list used by noise injection (``city, country, demonym``).

    80 well-known world cities (capitals and large cities on every inhabited continent),
    hand-compiled for this kit; it includes the paper's examples (Paris, Seoul, Tokyo, App. J).
    Country and demonym are used by the collision guard of :func:`noise_injection`.

    Returns
    -------
    DataFrame
        80 rows, columns ``city``, ``country``, ``demonym`` (a copy: edit it freely).

    Notes
    -----
    The paper replaces distractors with "city names selected heuristically to ensure semantic
    independence from the question context" (Sec. 3.4) without publishing its list; this list is
    benchkit's.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.4 (noise injection),
    App. J (X2 semantic collision, the Tokyo example).

    Examples
    --------
    >>> from benchkit.landscape.steps import cities
    >>> c = cities()
    >>> len(c), c.iloc[0].tolist()
    (80, ['Paris', 'France', 'French'])
    """
    return _city_table().copy()


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


# ----------------------------------------------------------------------------- builders
def baseline(items: Any) -> pd.DataFrame:
    """The unperturbed items as a variant named ``"baseline"``.

    Parameters
    ----------
    items : DataFrame
        One row per MCQ item: ``item, text, options, answer_key`` (as :func:`normalize_items`).

    Returns
    -------
    DataFrame
        The items as variant ``baseline``: one row per item, the columns of
        :func:`normalize_items` plus ``variant`` and the guard columns (False, empty).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 5 (the baseline column
    of Tables 1-4).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import baseline
    >>> items = pd.DataFrame({"item": ["q1"], "text": ["Which planet is largest?"], "answer_key": ["C"],
    ...                       "options": [["Mars", "Venus", "Jupiter", "Earth"]]})
    >>> baseline(items)[["item", "variant", "text", "answer_index"]]
      item   variant                      text  answer_index
    0   q1  baseline  Which planet is largest?             2
    """
    df = normalize_items(items)
    return _finish(df, "baseline", df["text"], df["options"], df["answer_index"])


def mask(items: Any, *, token: str = "[MASK]", fraction: float = 1.0, rng: Any = 0,
         name: str | None = None) -> pd.DataFrame:
    """Token masking (Sec. 3.4): question tokens replaced by ``token``, template and options kept.

    Tokens are the whitespace-separated words of the question. ``fraction=1`` (the paper's
    "Mask(100%)") replaces every token; a smaller fraction replaces ``round(fraction * n)`` tokens
    chosen at random per item (seeded by ``rng`` and the item id; :mod:`benchkit._random`, a
    Generator is consumed). Default name: ``"mask"`` for 100 %, else ``"mask<percent>"``.

    If models keep a high accuracy with the question masked, the answers can be inferred from the
    options alone (the paper's Table 3 shows masking lowering accuracy by 15-57 points).

    Parameters
    ----------
    items : DataFrame
        One row per MCQ item: ``item, text, options, answer_key`` (as :func:`normalize_items`).
    token : str, default "[MASK]"
        The replacement of each masked word.
    fraction : float, default 1.0
        Share of the question's words masked (1.0: the paper's "Mask(100%)").
    rng : None, int, SeedSequence or Generator, default 0
        Seeds the choice of words when ``fraction < 1`` (per item: the root and the item id).
    name : str, optional
        Variant name (default ``"mask"`` or ``"mask<percent>"``).

    Returns
    -------
    DataFrame
        The masked variant: one row per item with the masked ``text``, the columns of
        :func:`normalize_items` plus ``variant`` and the guard columns (False, empty).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.4 (token masking),
    Tables 3-4 (Mask(100%)).

    Examples
    --------
    The question's words are replaced; the options and the key stay:

    >>> import pandas as pd
    >>> from benchkit.landscape.steps import mask
    >>> items = pd.DataFrame({"item": ["q1"], "text": ["Which gas do plants absorb from the air?"],
    ...                       "options": [["Oxygen", "Carbon dioxide", "Helium", "Neon"]],
    ...                       "answer_key": ["B"]})
    >>> mask(items).loc[0, ["text", "answer_key"]].tolist()
    ['[MASK] [MASK] [MASK] [MASK] [MASK] [MASK] [MASK] [MASK]', 'B']
    >>> half = mask(items, fraction=0.5, rng=0)
    >>> half.loc[0, "variant"], half.loc[0, "text"]
    ('mask50', 'Which gas [MASK] plants absorb [MASK] [MASK] [MASK]')
    """
    fraction = check_float("fraction", fraction, min=0.0, max=1.0)
    if not isinstance(token, str) or not token:
        raise BenchkitValueError(f"token must be a non-empty string; got {token!r}")
    df = normalize_items(items)
    root = seed_sequence(rng)
    texts = []
    for item, text in zip(df["item"].tolist(), df["text"].tolist()):
        words = str(text).split()
        m = int(round(fraction * len(words)))
        if m == len(words):
            chosen = range(len(words))
        else:
            chosen = _item_rng(root, item, "mask").choice(len(words), size=m, replace=False)
        for j in chosen:
            words[j] = token
        texts.append(" ".join(words))
    if name is None:
        name = "mask" if fraction == 1.0 else f"mask{int(round(fraction * 100))}"
    return _finish(df, name, texts, df["options"], df["answer_index"])


def no_answer(items: Any, *, label: str = "No Answer", name: str = "no_answer") -> pd.DataFrame:
    """No-Answer setting (Sec. 3.4): the correct option's text is replaced by ``label``.

    The key stays at the same position, which now reads "No Answer": recognising that no listed
    content answers the question is the correct response.

    Tests the forced-choice bias of MCQ evaluation: a model that picks the most plausible
    distractor instead of "No Answer" is scored wrong.

    Parameters
    ----------
    items : DataFrame
        One row per MCQ item: ``item, text, options, answer_key`` (as :func:`normalize_items`).
    label : str, default "No Answer"
        The text that replaces the keyed option.
    name : str, default "no_answer"
        Variant name.

    Returns
    -------
    DataFrame
        The No-Answer variant: one row per item, the keyed option's text replaced by ``label``,
        plus ``variant`` and the guard columns (False, empty).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.4 (No-Answer setting),
    Tables 3-4.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import no_answer
    >>> items = pd.DataFrame({"item": ["q1"], "text": ["Which planet is largest?"], "answer_key": ["C"],
    ...                       "options": [["Mars", "Venus", "Jupiter", "Earth"]]})
    >>> v = no_answer(items)
    >>> v.loc[0, "options"], v.loc[0, "answer_key"]
    (['Mars', 'Venus', 'No Answer', 'Earth'], 'C')
    """
    df = normalize_items(items)
    opts = []
    for o, j in zip(df["options"].tolist(), df["answer_index"].tolist()):
        o = list(o)
        o[j] = label
        opts.append(o)
    return _finish(df, name, df["text"], opts, df["answer_index"])


def score_bias(items: Any, *, value: str = "10/10", template: str = " (Score: {value})",
               name: str | None = None) -> pd.DataFrame:
    """Score bias (Sec. 3.4, App. B): append ``" (Score: 10/10)"`` to each question.

    App. B also uses ``value="1/10"`` and ``"100/100"``. Default name ``"score_bias"`` for 10/10,
    else ``"score_bias_<value>"``.

    An irrelevant evaluative cue: a robust benchmark's accuracy and landscape should barely move.

    Parameters
    ----------
    items : DataFrame
        One row per MCQ item: ``item, text, options, answer_key`` (as :func:`normalize_items`).
    value : str, default "10/10"
        The displayed score (the paper's representative value).
    template : str, default " (Score: {value})"
        The suffix appended to the question, filled with ``value``.
    name : str, optional
        Variant name (default ``"score_bias"`` or ``"score_bias_<value>"``).

    Returns
    -------
    DataFrame
        The score-bias variant: one row per item with the suffixed ``text``, plus ``variant`` and
        the guard columns (False, empty).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.4 (score bias), App. B
    (Table 9: the score values).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import score_bias
    >>> items = pd.DataFrame({"item": ["q1"], "text": ["At what temperature does water boil at sea level?"],
    ...                       "options": [["90 C", "100 C", "110 C", "120 C"]], "answer_key": ["B"]})
    >>> score_bias(items).loc[0, "text"]
    'At what temperature does water boil at sea level? (Score: 10/10)'
    >>> score_bias(items, value="1/10").loc[0, "variant"]
    'score_bias_1/10'
    """
    if not isinstance(value, str) or not value:
        raise BenchkitValueError(f"value must be a non-empty string such as '10/10'; got {value!r}")
    df = normalize_items(items)
    suffix = template.format(value=value)
    texts = [str(t).rstrip() + suffix for t in df["text"].tolist()]
    if name is None:
        name = "score_bias" if value == "10/10" else f"score_bias_{value}"
    return _finish(df, name, texts, df["options"], df["answer_index"])


def positional_bias(items: Any, position: str | int, *, name: str | None = None) -> pd.DataFrame:
    """Positional bias (Table 2): the correct option is moved to ``position`` (A-D or 0-based).

    The option that was at ``position`` takes the correct option's old place (a swap), so the
    option set is unchanged and only two positions move. Default name ``"bias_<letter>"``.

    Parameters
    ----------
    items : DataFrame
        One row per MCQ item: ``item, text, options, answer_key`` (as :func:`normalize_items`).
    position : str or int
        The key's new position: a letter (``"A"``..) or a 0-based index, within the smallest
        option count of ``items``.
    name : str, optional
        Variant name (default ``"bias_<letter>"``).

    Returns
    -------
    DataFrame
        The positional-bias variant: one row per item with the swapped ``options`` and the new
        ``answer_key`` / ``answer_index``, plus ``variant`` and the guard columns (False, empty).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 5.3 and Table 2
    (answer-position bias).

    Examples
    --------
    The key (C) swaps places with the option at A:

    >>> import pandas as pd
    >>> from benchkit.landscape.steps import positional_bias
    >>> items = pd.DataFrame({"item": ["q1"], "text": ["Which planet is largest?"], "answer_key": ["C"],
    ...                       "options": [["Mars", "Venus", "Jupiter", "Earth"]]})
    >>> v = positional_bias(items, "A")
    >>> v.loc[0, "options"], v.loc[0, "answer_key"], v.loc[0, "variant"]
    (['Jupiter', 'Venus', 'Mars', 'Earth'], 'A', 'bias_A')
    """
    df = normalize_items(items)
    if isinstance(position, str):
        check_choice("position", position.upper(), LETTERS[: int(df["n_options"].min())])
        pos = LETTERS.index(position.upper())
    else:
        pos = check_int("position", position, min=0, max=int(df["n_options"].min()) - 1)
    opts, ans = [], []
    for o, j in zip(df["options"].tolist(), df["answer_index"].tolist()):
        o = list(o)
        o[pos], o[j] = o[j], o[pos]
        opts.append(o)
        ans.append(pos)
    return _finish(df, name or f"bias_{LETTERS[pos]}", df["text"], opts, ans)


def negation_terms(text: str) -> list[str]:
    """Negation / EXCEPT cue words found in ``text`` (App. J, type X1); empty if none.

    Under noise injection, city names also satisfy a negated condition ("which is NOT part of an
    atom?"), so failures on such items reflect the perturbation, not the item (excluded type X1).

    Parameters
    ----------
    text : str
        A question.

    Returns
    -------
    list of str
        The cue words found (lower case, sorted, each once): not, except, never, least, false,
        incorrect, cannot, neither, nor and similar.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 6.1 (Table 5, X1), App.
    J (X1 Negation/EXCEPT format).

    Examples
    --------
    >>> from benchkit.landscape.steps import negation_terms
    >>> negation_terms("All of the following are noble gases EXCEPT which one? It is NOT argon.")
    ['except', 'not']
    """
    return sorted({m.group(0).lower() for m in _NEGATION.finditer(str(text))})


def noise_injection(items: Any, *, rng: Any = 0, city_list: Sequence[str] | None = None,
                    skip_flagged: bool = False, name: str = "noise") -> pd.DataFrame:
    """Noise injection (Sec. 3.4): every distractor is replaced by a distinct city name.

    The keyed option keeps its text and position. Cities are drawn without replacement per item
    (seeded by ``rng`` and the item id, so an item's variant does not depend on the other items;
    :mod:`benchkit._random`, a Generator is consumed).

    Guards (App. J):

    * **semantic collision (X2)** -- a city is never used if the question or any option mentions
      it, its country or its demonym (e.g. a question about a Japanese delicacy excludes Tokyo and
      Osaka); ``collision_risk`` is True when such a mention occurred, when the keyed answer is a
      place name from the list, or when the question has location cues (city, capital, country,
      where, located, cuisine, ...), i.e. when an injected city may accidentally be a plausible
      answer. ``guard_terms`` lists what triggered it.
    * **negation / EXCEPT (X1)** -- ``negation`` is True when the question has cue words such as
      NOT, EXCEPT, LEAST, FALSE (see :func:`negation_terms`): city names also satisfy a negated
      condition, so failures on these items reflect the perturbation, not the item.

    With ``skip_flagged=True`` flagged items are dropped from the variant (the drop is visible as
    missing rows); by default they are kept and flagged, so that failures can be labelled.
    ``city_list`` replaces the documented list of :func:`cities` (names only; then only the name
    itself is used by the collision guard).

    With the distractors replaced, the key should be trivially identifiable: items that models
    still get wrong are the paper's candidates for targeted review (:func:`noise_failures`).

    Parameters
    ----------
    items : DataFrame
        One row per MCQ item: ``item, text, options, answer_key`` (as :func:`normalize_items`).
    rng : None, int, SeedSequence or Generator, default 0
        Seeds the cities drawn (per item: the root and the item id, so an item's variant does not
        depend on the other items).
    city_list : sequence of str, optional
        City names to draw from instead of :func:`cities`.
    skip_flagged : bool, default False
        Drop the items flagged by a guard (``negation`` or ``collision_risk``).
    name : str, default "noise"
        Variant name.

    Returns
    -------
    DataFrame
        The noise variant: one row per item (fewer with ``skip_flagged``) with the new
        ``options``, plus ``variant`` and the guards ``negation``, ``collision_risk`` (bool) and
        ``guard_terms`` (the words that triggered them).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.4 (noise injection),
    Sec. 6 (failure taxonomy, Table 5), App. J (X1, X2).

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({
    ...     "item": ["q1", "q2"],
    ...     "text": ["Which gas do plants absorb from the air?", "Which of these is NOT a noble gas?"],
    ...     "options": [["Oxygen", "Carbon dioxide", "Helium", "Neon"],
    ...                 ["Argon", "Neon", "Nitrogen", "Xenon"]],
    ...     "answer_key": ["B", "C"]})
    >>> from benchkit.landscape.steps import noise_injection
    >>> v = noise_injection(items, rng=0)
    >>> v.loc[0, "options"]
    ['Johannesburg', 'Carbon dioxide', 'Toronto', 'Sao Paulo']
    >>> v[["negation", "collision_risk", "guard_terms"]]
       negation  collision_risk guard_terms
    0     False           False          []
    1      True           False       [not]
    """
    df = normalize_items(items)
    root = seed_sequence(rng)
    if city_list is None:
        table = _city_table()
        names = table["city"].tolist()
        related = [[c.lower(), k.lower(), d.lower()] for c, k, d in
                   zip(table["city"], table["country"], table["demonym"])]
    else:
        names = [str(c) for c in city_list]
        if len(set(names)) != len(names):
            raise BenchkitValueError("city_list has duplicate names")
        related = [[c.lower()] for c in names]
    term_set = {" ".join(_WORD.findall(t)) for rel in related for t in rel}
    related = [[" ".join(_WORD.findall(t)) for t in rel] for rel in related]
    width = max(len(t.split()) for t in term_set)
    texts, opts, ans = [], [], []
    neg, coll, terms = [], [], []
    rows = zip(df["item"].tolist(), df["text"].tolist(), df["options"].tolist(),
               df["answer_index"].tolist())
    for item, text, o, j in rows:
        hits = sorted(set().union(*(_ngrams(x, width) & term_set for x in [text, *o])))
        if hits:
            hit_set = set(hits)
            allowed = [c for c, rel in zip(names, related) if not any(t in hit_set for t in rel)]
        else:
            allowed = names
        need = len(o) - 1
        if len(allowed) < need:
            raise BenchkitValueError(
                f"item {item!r}: only {len(allowed)} cities left after the collision guard; "
                f"{need} are needed (pass a longer city_list)"
            )
        rng = _item_rng(root, item, "noise")
        pick = [allowed[i] for i in rng.choice(len(allowed), size=need, replace=False)]
        new = list(o)
        it = iter(pick)
        for p in range(len(new)):
            if p != j:
                new[p] = next(it)
        key_is_place = bool(_ngrams(o[j], width) & term_set)
        loc = sorted({m.group(0).lower() for m in _LOCATION.finditer(str(text))})
        nt = negation_terms(text)
        neg.append(bool(nt))
        coll.append(bool(hits) or key_is_place or bool(loc))
        terms.append(nt + hits + loc)
        texts.append(text)
        opts.append(new)
        ans.append(j)
    out = _finish(df, name, texts, opts, ans,
                  {"negation": neg, "collision_risk": coll, "guard_terms": terms})
    if skip_flagged:
        out = out[~(out["negation"] | out["collision_risk"])].reset_index(drop=True)
    return out


def standardize_choices(items: Any, *, n_options: int = 4, name: str | None = None) -> pd.DataFrame:
    """5- to 4-choice standardization (Sec. 4.2), generalized to any ``k = n_options``.

    Items with more than ``k`` options keep the first ``k``; when the key is beyond position ``k``
    they keep the first ``k - 1`` and the keyed option moves to position ``k`` (for CSQA: drop E;
    when E is correct, drop D and relabel E as D). Deterministic, never drops the key. Items with
    at most ``k`` options are unchanged. Without ``name``, an existing ``variant`` column is kept
    (so standardization can follow any builder), else the variant is ``"baseline"``.

    Parameters
    ----------
    items : DataFrame
        One row per MCQ item: ``item, text, options, answer_key`` (as :func:`normalize_items`).
    n_options : int, default 4
        k, the number of options kept (the paper's 4-choice format).
    name : str, optional
        Variant name (default: keep ``variant``, else ``"baseline"``).

    Returns
    -------
    DataFrame
        The variants table with at most ``n_options`` options per item.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 4.2 (CommonsenseQA 5 ->
    4 choices), App. E (Table 13, 4- vs 5-choice).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import standardize_choices
    >>> five = pd.DataFrame({"item": ["c1", "c2"], "text": ["x", "y"],
    ...                      "options": [list("abcde"), list("abcde")], "answer_key": ["A", "E"]})
    >>> standardize_choices(five)[["options", "answer_key"]]
            options answer_key
    0  [a, b, c, d]          A
    1  [a, b, c, e]          D
    """
    n_options = check_int("n_options", n_options, min=2)
    df = normalize_items(items)
    opts, ans = [], []
    for o, j in zip(df["options"].tolist(), df["answer_index"].tolist()):
        o = list(o)
        if len(o) > n_options:
            if j < n_options:
                o = o[:n_options]
            else:
                o = o[: n_options - 1] + [o[j]]
                j = n_options - 1
        opts.append(o)
        ans.append(j)
    keep = name is None and "variant" in df.columns
    out = _finish(df, name or "baseline", df["text"], opts, ans)
    if keep:
        out["variant"] = df["variant"].to_numpy()
    return out


def perturb(items: Any, *, variants: Sequence[str] = VARIANTS, rng: Any = 0,
            standardize: int | None = None, mask_token: str = "[MASK]",
            score_value: str = "10/10") -> PerturbationSet:
    """Build several variants of ``items`` at once (names from :data:`VARIANTS`).

    ``standardize=4`` first applies :func:`standardize_choices` (the paper's 4-choice format).
    The result is deterministic given an int ``rng`` (:mod:`benchkit._random`).

    Parameters
    ----------
    items : DataFrame
        One row per MCQ item: ``item, text, options, answer_key`` (as :func:`normalize_items`).
    variants : sequence of str, default :data:`VARIANTS`
        Which builders to run, in this order: ``baseline``, ``mask``, ``no_answer``,
        ``score_bias``, ``noise``, ``bias_A`` .. ``bias_D``.
    rng : None, int, SeedSequence or Generator, default 0
        Seeds masking (below 100 %) and noise injection; resolved once into a root that both use.
    standardize : int, optional
        Cut every item to this many options first (:func:`standardize_choices`).
    mask_token : str, default "[MASK]"
        The token of :func:`mask`.
    score_value : str, default "10/10"
        The value of :func:`score_bias`.

    Returns
    -------
    PerturbationSet
        ``frame`` (one row per (item, variant)), ``names`` and ``rng_entropy``
        (``rng=result.rng_entropy`` rebuilds the same variants).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.4 (perturbations),
    Sec. 4.2 (4-choice format), Table 2 (positional bias).

    Examples
    --------
    Five-choice items cut to the paper's four-choice format, then three variants each:

    >>> import pandas as pd
    >>> from benchkit.landscape.steps import perturb
    >>> items = pd.DataFrame({"item": ["c1", "c2"],
    ...                       "text": ["Where do you keep milk?", "What do bees make?"],
    ...                       "options": [["fridge", "oven", "shelf", "car", "bag"],
    ...                                   ["wax", "silk", "milk", "wool", "honey"]],
    ...                       "answer_key": ["A", "E"]})
    >>> ps = perturb(items, variants=["baseline", "mask", "noise"], standardize=4, rng=0)
    >>> ps.names, len(ps), ps.rng_entropy
    (('baseline', 'mask', 'noise'), 6, 0)
    >>> ps.to_frame().groupby("variant")["answer_key"].agg(list)
    variant
    baseline    [A, D]
    mask        [A, D]
    noise       [A, D]
    Name: answer_key, dtype: object
    """
    if isinstance(variants, str):
        variants = [variants]
    for v in variants:
        check_choice("variants", v, VARIANTS)
    if len(set(variants)) != len(variants):
        raise BenchkitValueError(f"variants has duplicates: {list(variants)}")
    root = seed_sequence(rng)
    df = normalize_items(items)
    if standardize is not None:
        df = standardize_choices(df, n_options=standardize).drop(
            columns=["variant", "negation", "collision_risk", "guard_terms"])
    frames = []
    for v in variants:
        if v == "baseline":
            frames.append(baseline(df))
        elif v == "mask":
            frames.append(mask(df, token=mask_token, rng=root))
        elif v == "no_answer":
            frames.append(no_answer(df))
        elif v == "score_bias":
            frames.append(score_bias(df, value=score_value))
        elif v == "noise":
            frames.append(noise_injection(df, rng=root))
        else:
            frames.append(positional_bias(df, v[-1]))
    frame = pd.concat(frames, ignore_index=True)
    return PerturbationSet(frame=frame, names=tuple(variants), rng_entropy=root.entropy)


# ----------------------------------------------------------------------------- prompts
def _letters_phrase(n: int) -> str:
    ls = list(LETTERS[:n])
    return ", ".join(ls[:-1]) + ", or " + ls[-1] if n > 2 else " or ".join(ls)


def render_prompt(text: str, options: Sequence[str]) -> str:
    """The App. F prompt: ``Question: ...``, a blank line, ``A. ...`` lines, a blank line, ``Answer:``.

    Parameters
    ----------
    text : str
        The question.
    options : sequence of str
        The options, lettered A, B, ... in order.

    Returns
    -------
    str
        :data:`PROMPT_TEMPLATE` filled in.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. F (prompt template),
    Sec. 4.3.

    Examples
    --------
    >>> from benchkit.landscape.steps import render_prompt
    >>> print(render_prompt("Which gas do plants absorb?", ["Oxygen", "Carbon dioxide"]))
    Question: Which gas do plants absorb?
    <BLANKLINE>
    A. Oxygen
    B. Carbon dioxide
    <BLANKLINE>
    Answer:
    """
    choices = "\n".join(f"{LETTERS[i]}. {o}" for i, o in enumerate(options))
    return PROMPT_TEMPLATE.format(question=text, choices=choices)


def render(variants: Any, *, system: str | None = None) -> pd.DataFrame:
    """Add ``system`` and ``prompt`` columns to a variants table (App. F).

    ``system`` defaults to :data:`SYSTEM_PROMPT`, with the letter list adapted to the number of
    options of each row (``(A, B, C, D, or E)`` for 5 options).

    Parameters
    ----------
    variants : DataFrame or PerturbationSet
        A variants table (from a builder or :func:`perturb`), or an items table.
    system : str, optional
        One system instruction for every row (default: :data:`SYSTEM_PROMPT` per row).

    Returns
    -------
    DataFrame
        A copy with ``prompt`` (:func:`render_prompt`) and ``system``; the input of
        :func:`run_prompts`.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. F (template and system
    instruction), Sec. 4.3.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import baseline, render
    >>> items = pd.DataFrame({"item": ["q1"], "text": ["Which gas do plants absorb from the air?"],
    ...                       "options": [["Oxygen", "Carbon dioxide", "Helium", "Neon"]],
    ...                       "answer_key": ["B"]})
    >>> r = render(baseline(items))
    >>> r.loc[0, "system"]
    'You are a helpful assistant. Output only the answer choice letter (A, B, C, or D) and nothing else.'
    >>> print(r.loc[0, "prompt"])
    Question: Which gas do plants absorb from the air?
    <BLANKLINE>
    A. Oxygen
    B. Carbon dioxide
    C. Helium
    D. Neon
    <BLANKLINE>
    Answer:
    """
    if isinstance(variants, PerturbationSet):
        variants = variants.frame
    df = normalize_items(variants) if "answer_index" not in getattr(variants, "columns", []) \
        else variants.copy()
    check_columns("variants", df.columns, required=["text", "options"])
    df["prompt"] = [render_prompt(t, o)
                    for t, o in zip(df["text"].tolist(), df["options"].tolist())]
    if system is None:
        df["system"] = [SYSTEM_PROMPT.replace("(A, B, C, or D)", f"({_letters_phrase(len(o))})")
                        for o in df["options"].tolist()]
    else:
        df["system"] = system
    return df
