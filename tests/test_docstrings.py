"""Docstrings a newcomer can use (issue 20 item 2), checked over the whole public API.

The walk: every public module (no path component starting with ``_``; not the command line
``benchkit.cli``), every object in its ``__all__`` defined by benchkit, each object once. Rules:

1. Every public function has the numpydoc sections Parameters (when it takes any), Returns (or
   Yields), References and Examples. References of a method's function cite its paper: the arXiv id
   (papers 000, 002, 003, 004) or, for paper 001, whose text gives no arXiv id, its title.
2. Every result class (a dataclass declared with ``@result``) has an Attributes section that lists
   each of its fields with a description, so a reader knows how to read each number (fields read
   the same way may share an entry: ``x_mean, x_median : float``). Its generated constructor is not
   checked for a Parameters section: that would list the same fields twice.
3. The numpydoc validation subset :data:`CHECKS` holds for every public function and class. The
   subset is the part of numpydoc's checks that says whether a docstring can be used: it exists,
   it has a summary, every parameter is documented with a description and none that does not exist,
   there is a Returns section and an Examples section. Style-only checks (summary punctuation, the
   order of sections, See Also) are left out.
4. The examples run: ``pytest --doctest-modules`` over ``benchkit`` is part of the suite
   (``pyproject.toml``: ``testpaths`` and ``addopts``).
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re

import pytest
from numpydoc.docscrape import ClassDoc
from numpydoc.docscrape import FunctionDoc
from numpydoc.validate import validate

import benchkit
from benchkit._results import summary_repr

# numpydoc's codes: GL08 no docstring, SS01 no summary, PR01 parameter not documented, PR02 unknown
# parameter documented, PR07 parameter without a description, RT01 no Returns section, EX01 no
# Examples section.
CHECKS = ("GL08", "SS01", "PR01", "PR02", "PR07", "RT01", "EX01")

# What a method's References must contain: the paper's arXiv id, or its title when the paper's text
# gives no id (paper 001).
PAPERS = {
    "benchkit.boundary": "arXiv:2609.33196",
    "benchkit.dif": "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark Recomposition?",
    "benchkit.measure": "arXiv:2610.29927",
    "benchkit.landscape": "arXiv:2608.30372",
    "benchkit.quality": "arXiv:2601.03986",
}


def _public_modules() -> list[str]:
    names = ["benchkit"]
    for info in pkgutil.walk_packages(benchkit.__path__, prefix="benchkit."):
        if not any(part.startswith("_") for part in info.name.split(".")) and info.name != "benchkit.cli":
            names.append(info.name)
    return sorted(names)


def _objects() -> list[tuple[str, object]]:
    """(public name, object) for every benchkit function and class in a public ``__all__``, each
    object once, under its shallowest public name."""
    seen: dict[int, tuple[str, object]] = {}
    for modname in _public_modules():
        mod = importlib.import_module(modname)
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if not (getattr(obj, "__module__", "") or "").startswith("benchkit"):
                continue
            qual = f"{modname}.{name}"
            if id(obj) not in seen or qual.count(".") < seen[id(obj)][0].count("."):
                seen[id(obj)] = (qual, obj)
    return sorted(seen.values(), key=lambda t: t[0])


OBJECTS = _objects()
FUNCTIONS = [(n, o) for n, o in OBJECTS if inspect.isfunction(o)]
CLASSES = [(n, o) for n, o in OBJECTS if inspect.isclass(o)]
RESULTS = [(n, o) for n, o in CLASSES if dataclasses.is_dataclass(o)
           and (o.__repr__ is summary_repr or getattr(o, "__benchkit_result__", False))]


def _ids(pairs):
    return [n for n, _ in pairs]


def test_the_walk_sees_the_api():
    assert len(FUNCTIONS) > 100
    assert len(RESULTS) > 40
    assert "benchkit.ResponseSet" in _ids(CLASSES)


def _paper(name: str) -> str | None:
    for prefix, cite in PAPERS.items():
        if name == prefix or name.startswith(prefix + "."):
            return cite
    return None


def function_problems(name: str, fn) -> list[str]:
    doc = FunctionDoc(fn)
    params = [p for p in inspect.signature(fn).parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    problems = []
    if params and not doc["Parameters"]:
        problems.append("no Parameters section")
    if not (doc["Returns"] or doc["Yields"]):
        problems.append("no Returns section")
    if not doc["References"]:
        problems.append("no References section")
    elif _paper(name) and _paper(name) not in " ".join(" ".join(doc["References"]).split()):
        problems.append(f"References do not cite the paper ({_paper(name)})")
    if not "".join(doc["Examples"]).strip():
        problems.append("no Examples section")
    return problems


def result_problems(cls) -> list[str]:
    documented = {name.strip().strip("*"): "".join(p.desc).strip()
                  for p in ClassDoc(cls)["Attributes"] for name in p.name.split(",")}
    problems = []
    if not documented:
        problems.append("no Attributes section")
    for field in dataclasses.fields(cls):
        if field.name.startswith("_"):
            continue
        if field.name not in documented:
            problems.append(f"field {field.name!r} is not in Attributes")
        elif not documented[field.name]:
            problems.append(f"field {field.name!r} has no description in Attributes")
    return problems


RESULT_IDS = {id(o) for _, o in RESULTS}


def validation_problems(name: str, obj) -> list[str]:
    found = validate(f"{obj.__module__}.{obj.__qualname__}")
    codes = CHECKS if inspect.isfunction(obj) else tuple(c for c in CHECKS if c not in ("RT01",))
    if id(obj) in RESULT_IDS:
        # a result's constructor is generated from its fields, which rule 2 checks under Attributes;
        # listing them again under Parameters would only repeat them
        codes = tuple(c for c in codes if c not in ("PR01", "PR02", "PR07"))
    return [f"{code} {msg}" for code, msg in found["errors"] if code in codes]


@pytest.mark.parametrize(("name", "fn"), FUNCTIONS, ids=_ids(FUNCTIONS))
def test_function_docstring_has_the_sections(name, fn):
    assert function_problems(name, fn) == []


@pytest.mark.parametrize(("name", "cls"), RESULTS, ids=_ids(RESULTS))
def test_result_class_documents_every_field(name, cls):
    assert result_problems(cls) == []


@pytest.mark.parametrize(("name", "obj"), OBJECTS, ids=_ids(OBJECTS))
def test_numpydoc_validation_subset(name, obj):
    assert validation_problems(name, obj) == []


# ---- the checks catch what they should ----------------------------------------------------------
def _good(x, *, k=1):
    """Do a thing.

    Parameters
    ----------
    x : int
        The data.
    k : int
        A count.

    Returns
    -------
    int
        The sum.

    References
    ----------
    .. [1] Song, M. and Park, C. Auditing MCQA benchmarks through probability landscapes.
       arXiv:2608.30372, Sec. 3, Eq. (2).

    Examples
    --------
    >>> _good(1)
    2
    """
    return x + k


def _bare(x, *, k=1):
    """Do a thing.

    Parameters
    ----------
    x : int
        The data.
    """
    return x + k


def test_the_function_rule_catches_missing_sections():
    assert function_problems("benchkit.landscape.x", _good) == []
    assert function_problems("benchkit.quality.x", _good) == ["References do not cite the paper "
                                                             "(arXiv:2601.03986)"]
    assert function_problems("benchkit.stats.x", _bare) == [
        "no Returns section", "no References section", "no Examples section"]


@dataclasses.dataclass(frozen=True)
class _Documented:
    """A result.

    Attributes
    ----------
    a : float
        How to read a.
    b : int
    d, e : int
        Two fields read the same way.
    """

    a: float
    b: int
    c: int
    d: int
    e: int


def test_the_result_rule_catches_undocumented_fields():
    assert result_problems(_Documented) == ["field 'b' has no description in Attributes",
                                            "field 'c' is not in Attributes"]


def test_every_randomized_result_can_be_repeated():
    """Rule 5: a callable that takes ``rng`` returns a result recording the seed entropy it used
    (``rng_entropy``), so passing ``rng=result.rng_entropy`` repeats the run exactly."""
    missing = []
    for name, fn in FUNCTIONS:
        if "rng" not in inspect.signature(fn).parameters:
            continue
        ret = inspect.signature(fn).return_annotation
        if isinstance(ret, str):  # ``from __future__ import annotations``: look the name up
            name_only = re.sub(r"[^\w].*", "", ret.strip("'\""))
            ret = getattr(importlib.import_module(fn.__module__), name_only, None)
        cls = ret if inspect.isclass(ret) else None
        if cls is None or not dataclasses.is_dataclass(cls):
            continue  # arrays, frames or ResponseSets (simulators): the caller owns the seed
        if "rng_entropy" not in {f.name for f in dataclasses.fields(cls)}:
            missing.append(f"{name} -> {cls.__name__}")
    assert missing == []
