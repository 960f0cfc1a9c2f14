"""Noise injection and its guards (paper 003, Sec. 3.4 and App. J).

:func:`noise_injection` replaces every distractor by a city name from :func:`cities`; the guards
flag negation / EXCEPT questions (type X1, :func:`negation_terms`) and semantic collisions with the
question or the key (type X2). Public through :mod:`benchkit.landscape.steps`.
"""
from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Any
from typing import Sequence

import pandas as pd

from benchkit._random import seed_sequence
from benchkit._validation import BenchkitValueError
from benchkit.landscape._items import _finish
from benchkit.landscape._items import _item_rng
from benchkit.landscape._items import normalize_items

__all__ = ["cities", "negation_terms", "noise_injection"]

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
