"""Model metadata parsed from model names: family, owner, size, series and variant.

The rules are data (:data:`FAMILY_RULES`, :data:`KNOWN_SIZES`, :data:`PUBLISHERS`), applied in
order, and every parsed field can be overridden by passing a ``models`` table to
:class:`benchkit.ResponseSet`.

**The owner rule** (one rule for every id; :func:`model_owner`):

1. An id with an uploader component, ``org/name`` (a Hugging Face repository id) or
   ``org--name`` (the Hub's file-system spelling of the same id, e.g. eval-arena's
   ``Qwen--Qwen1.5-72B-Chat``), belongs to that uploader; a publisher's own accounts are written
   as the publisher (:data:`PUBLISHERS`: ``meta-llama`` -> ``meta``, ``Qwen`` -> ``alibaba``),
   any other uploader is its own owner (``TheBloke/Llama-2-7B-GPTQ`` -> ``thebloke``).
2. HELM's ``org_name`` with a publisher account as ``org`` (``meta_llama-3.1-70b``) likewise.
3. An id without an uploader is the publisher's own name when it *starts* with a family token of
   :data:`FAMILY_RULES`, optionally after the publisher's account (``Qwen1.5-72B-Chat``,
   ``Meta-Llama-3-8B``): the owner is that rule's publisher.
4. Anything else has no knowable owner (None): a third party's model named after a base model
   (``speechless-codellama-34b``, ``opencodeinterpreter-ds-33b``) or an unknown name.

Rule 3 trusts a name that starts with a family token; a third party that names its fine-tune
exactly like the base model (``mistral-7b-codealpaca``) is read as the publisher's. The cases are
tested on real ids in ``tests/model_name_cases.csv``.

Examples
--------
>>> m = parse_model_name("Qwen1.5-110B")
>>> m.family, m.owner, m.size, m.series, m.variant
('qwen', 'alibaba', 110000000000.0, 'qwen1.5', 'base')
>>> parse_model_name("meta_llama-3.1-70b-instruct-turbo").owner
'meta'
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["ModelName", "parse_model_name", "parse_model_names", "model_owner", "FAMILY_RULES",
           "KNOWN_SIZES", "PUBLISHERS"]

#: (regular expression on the normalized name, family, owner). First match wins. The normalized
#: name is lower case with the organisation prefix ("meta-llama/", HELM's ``meta_``) removed.
FAMILY_RULES: tuple[tuple[str, str, str], ...] = (
    (r"^code-?llama", "codellama", "meta"),
    (r"llama", "llama", "meta"),
    (r"^qwen", "qwen", "alibaba"),
    (r"^yi\b|^yi-", "yi", "01-ai"),
    (r"^mixtral", "mixtral", "mistral"),
    (r"^mistral|^mathstral|^codestral", "mistral", "mistral"),
    (r"^gemini", "gemini", "google"),
    (r"^gemma", "gemma", "google"),
    (r"^deepseek-?coder", "deepseek-coder", "deepseek"),
    (r"^deepseek", "deepseek", "deepseek"),
    (r"^phi(?![a-z])", "phi", "microsoft"),  # phi-2, phi3; not "phind" (Phind)
    (r"^starcoder", "starcoder", "bigcode"),
    (r"^falcon", "falcon", "tii"),
    (r"^internlm", "internlm", "shanghai-ai-lab"),
    (r"^mpt", "mpt", "mosaicml"),
    (r"^(gpt|text-davinci|davinci|o1|o3)", "gpt", "openai"),
    (r"^claude", "claude", "anthropic"),
    (r"^command|^c4ai", "command", "cohere"),
    (r"^olmo", "olmo", "allenai"),
    (r"^jamba", "jamba", "ai21"),
    (r"^granite", "granite", "ibm"),
    (r"^wizard", "wizard", "wizardlm"),
    (r"^(santacoder|codegen)", "codegen", "salesforce"),
)

#: Publisher accounts (lower case) -> the owner label the family rules use: the uploader
#: component of an id (``meta-llama/...``, ``Qwen--...``, HELM's ``meta_...``) is mapped through
#: it, so one publisher has one owner however its ids are spelled. Other uploaders are their own
#: owner.
PUBLISHERS: dict[str, str] = {
    "meta": "meta", "meta-llama": "meta", "facebook": "meta", "codellama": "meta",
    "qwen": "alibaba", "alibaba": "alibaba", "01-ai": "01-ai", "01ai": "01-ai",
    "mistralai": "mistral", "mistral": "mistral", "google": "google", "deepseek-ai": "deepseek",
    "deepseek": "deepseek", "microsoft": "microsoft", "bigcode": "bigcode", "tiiuae": "tii",
    "internlm": "shanghai-ai-lab", "mosaicml": "mosaicml", "openai": "openai",
    "anthropic": "anthropic", "cohere": "cohere", "cohereforai": "cohere", "allenai": "allenai",
    "ai21": "ai21", "ai21labs": "ai21", "ibm": "ibm", "ibm-granite": "ibm", "together": "together",
    "writer": "writer", "databricks": "databricks", "upstage": "upstage", "nvidia": "nvidia",
    "snowflake": "snowflake", "zhipu": "zhipu", "thudm": "thudm", "salesforce": "salesforce",
}

#: Sizes (parameters) of common models whose names do not carry them.
KNOWN_SIZES: dict[str, float] = {
    "phi-1": 1.3e9,
    "phi-1.5": 1.3e9,
    "phi-1_5": 1.3e9,
    "phi-2": 2.7e9,
}

_SIZE = re.compile(r"(?<![a-z0-9.])(?:(\d+)x)?(\d+(?:\.\d+)?)([bm])(?![a-z])")
_VARIANTS = (("instruct", "instruct"), ("chat", "chat"), ("-it", "instruct"), ("_it", "instruct"))


@dataclass(frozen=True)
class ModelName:
    """What a model name says: family, owner, parameter count, series and variant.

    Returned by :func:`parse_model_name`; :func:`parse_model_names` gives the same fields as a
    table, which :class:`benchkit.ResponseSet` uses for its ``models`` metadata.

    Parameters
    ----------
    name : str
        The model identifier as given.
    family : str or None
        The model family of the first matching rule ("llama", "qwen", ...); None when no rule
        matches.
    owner : str or None
        The organisation of the matching rule, else the name's organisation prefix, else None.
    size : float
        The number of parameters (NaN when the name does not say and it is not in
        :data:`KNOWN_SIZES`); for mixture-of-experts names such as ``8x7B`` it is the nominal
        product (56e9).
    series : str or None
        The family with its version ("llama-3.1", "qwen1.5"), for finer grouping; the family
        alone when the name carries no version.
    variant : str
        "instruct", "chat" or "base".

    Examples
    --------
    >>> from benchkit.model_names import parse_model_name
    >>> m = parse_model_name("mistralai/Mixtral-8x7B-Instruct-v0.1")
    >>> m.family, m.owner, m.size, m.variant
    ('mixtral', 'mistral', 56000000000.0, 'instruct')
    """

    name: str
    family: str | None
    owner: str | None
    size: float
    series: str | None
    variant: str


def _normalize(name: str) -> tuple[str, str | None]:
    """(lower-cased name without its uploader, the uploader or None): rules 1-2 of the owner rule."""
    low = name.strip().lower()
    for sep in ("/", "--"):
        head, _, tail = low.partition(sep)
        if tail and head:
            return tail, head
    head, _, tail = low.partition("_")
    if tail and head in PUBLISHERS:
        return tail, head
    return low, None


def _first_party(low: str, match: re.Match, owner: str) -> bool:
    """Rule 3: the family token opens the name, or follows the publisher's own account."""
    prefix = low[:match.start()].rstrip("-_ ")
    return prefix == "" or PUBLISHERS.get(prefix) == owner


def model_owner(name: str, *, rules: tuple[tuple[str, str, str], ...] = FAMILY_RULES) -> str | None:
    """The owner of a model id by the module's owner rule (see the module docstring).

    Parameters
    ----------
    name : str
        A model identifier as it appears in evaluation data: ``org/name``, an uploader prefix
        written ``org--name``, or a bare name.
    rules : tuple of (pattern, family, owner)
        The family rules of :func:`parse_model_name` (default :data:`FAMILY_RULES`); a bare name
        that starts with a family token is owned by that family's publisher.

    Returns
    -------
    str or None
        The owner (lower case): the uploader component when there is one (publisher accounts map
        to the publisher), else the first-party publisher of the family token the name starts
        with, else None (unknown: a third-party name such as ``speechless-codellama-34b``).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", App. C.1 (owners as uploaders; owner-disjoint halves of the cross-fit).

    Examples
    --------
    >>> [model_owner(n) for n in ["Qwen--Qwen1.5-72B-Chat", "microsoft--Phi-3-mini-4k-instruct",
    ...                           "speechless-codellama-34b", "Meta-Llama-3-8B", "TheBloke/x-7B"]]
    ['alibaba', 'microsoft', None, 'meta', 'thebloke']
    """
    return parse_model_name(name, rules=rules).owner


def parse_model_name(
    name: str, *, rules: tuple[tuple[str, str, str], ...] = FAMILY_RULES
) -> ModelName:
    """Parse ``name`` into a :class:`ModelName` with the ordered ``rules``.

    Parameters
    ----------
    name : str
        A model identifier as it appears in evaluation data ("Qwen1.5-110B",
        "meta_llama-3.1-70b-instruct-turbo", "deepseek-ai/deepseek-coder-6.7b-base").
    rules : tuple of (pattern, family, owner)
        Regular expressions tried in order on the lower-cased name without its organisation prefix;
        the first that matches gives family and owner. Prepend your own rules to override.

    Returns
    -------
    ModelName
        Family, owner, size (parameters, NaN when unknown), series and variant.

    Notes
    -----
    The family comes from the first rule that matches anywhere in the name; the owner follows the
    module's owner rule (uploader component first, then a name that starts with a family token).
    Sizes are read from the first token such as ``7b``, ``1.8B``, ``350m`` or ``8x7b`` that is
    not part of a longer word.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.1 and App. C.1 (family by a case-insensitive model-ID match, owner as
    the uploader). The rules here extend that match to more families and to names without an
    uploader prefix.

    Examples
    --------
    >>> from benchkit.model_names import parse_model_name
    >>> m = parse_model_name("meta-llama/Llama-3.1-8B-Instruct")
    >>> m.family, m.owner, m.size, m.series, m.variant
    ('llama', 'meta', 8000000000.0, 'llama-3.1', 'instruct')

    Your own rule first overrides the built-in ones:

    >>> from benchkit.model_names import FAMILY_RULES
    >>> parse_model_name("acme-7b", rules=((r"^acme", "acme", "acme-labs"), *FAMILY_RULES)).owner
    'acme-labs'
    """
    if not isinstance(name, str) or not name.strip():
        from benchkit._validation import BenchkitValueError

        raise BenchkitValueError(f"model name must be a non-empty string, got {name!r}")
    low, org = _normalize(name)
    family = owner = None
    for pattern, fam, own in rules:
        hit = re.search(pattern, low)
        if hit:
            family = fam
            if org is None and _first_party(low, hit, own):
                owner = own
            break
    if org is not None:
        owner = PUBLISHERS.get(org, org)
    size = float("nan")
    m = _SIZE.search(low.replace("_", "-"))
    if m:
        experts, number, unit = m.groups()
        size = float(number) * (1e9 if unit == "b" else 1e6) * (int(experts) if experts else 1)
    else:
        for key, val in KNOWN_SIZES.items():
            if low == key or low.startswith(key + "-") or low.startswith(key + "_"):
                size = val
                break
    series = None
    if family is not None:
        series = family
        hit = next(re.finditer(rules[[r[1] for r in rules].index(family)][0], low), None)
        if hit is not None:
            vm = re.match(r"[-_ ]?(\d+(?:[._]\d+)?[a-z]?)(?=[-_ ]|$)", low[hit.end():])
            if vm and not re.fullmatch(r"\d+(?:[._]\d+)?[bm]", vm.group(1)):
                sep = "" if family == "qwen" else "-"
                series = f"{family}{sep}{vm.group(1).replace('_', '.')}"
    variant = "base"
    for token, var in _VARIANTS:
        if token in low:
            variant = var
            break
    return ModelName(name=name, family=family, owner=owner, size=size, series=series, variant=variant)


def parse_model_names(names, *, rules: tuple[tuple[str, str, str], ...] = FAMILY_RULES) -> pd.DataFrame:
    """:func:`parse_model_name` for many names: a DataFrame indexed by ``model``.

    Parameters
    ----------
    names : iterable
        Model identifiers (each turned into ``str``).
    rules : tuple of (pattern, family, owner), default FAMILY_RULES
        As in :func:`parse_model_name`.

    Returns
    -------
    DataFrame
        One row per name in input order, indexed by ``model``, with columns ``family``,
        ``owner``, ``size`` (parameters, float, NaN when unknown), ``series`` and ``variant``.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.1 and App. C.1 (family by a case-insensitive model-ID match, owner as
    the uploader). The rules here extend that match to more families and to names without an
    uploader prefix.

    Examples
    --------
    >>> from benchkit.model_names import parse_model_names
    >>> parse_model_names(["Qwen2.5-7B", "gemma-2-9b-it"])[["family", "size", "variant"]]
                  family          size   variant
    model
    Qwen2.5-7B      qwen  7.000000e+09      base
    gemma-2-9b-it  gemma  9.000000e+09  instruct
    """
    rows = [parse_model_name(str(n), rules=rules) for n in names]
    frame = pd.DataFrame(
        {
            "family": [r.family for r in rows],
            "owner": [r.owner for r in rows],
            "size": np.array([r.size for r in rows], dtype=float),
            "series": [r.series for r in rows],
            "variant": [r.variant for r in rows],
        },
        index=pd.Index([r.name for r in rows], name="model"),
    )
    return frame
