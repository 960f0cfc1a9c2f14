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

The items table every builder starts from (:func:`normalize_items`) is in ``_items.py``; noise
injection and its guards (:func:`noise_injection`, :func:`cities`, :func:`negation_terms`) are in
``_noise.py``. All are public through :mod:`benchkit.landscape.steps`.
"""
from __future__ import annotations

from typing import Any
from typing import Sequence

import pandas as pd

from benchkit._random import seed_sequence
from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_columns
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit.landscape._items import _finish
from benchkit.landscape._items import _item_rng
from benchkit.landscape._items import normalize_items
from benchkit.landscape._noise import noise_injection
from benchkit.landscape._points import LETTERS

__all__ = [
    "SYSTEM_PROMPT",
    "PROMPT_TEMPLATE",
    "VARIANTS",
    "PerturbationSet",
    "baseline",
    "mask",
    "no_answer",
    "score_bias",
    "positional_bias",
    "standardize_choices",
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
