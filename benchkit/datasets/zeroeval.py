"""ZeroEval greedy outputs of Qwen2.5-Instruct and gemma-2-it on CRUXEval-O and MATH level 5.

The source is Lin's ZeroEval (repository ``yuchenlin/ZeroEval``, Apache-2.0) at commit
``570c6269`` (2024-09-24): ``result_dirs/<task>/<model>.json``, a JSON list with one record per
item holding ``id``, the question (``question`` for crux, ``problem`` for math-l5), the gold
``answer`` and the model ``output`` (a list with one string that should contain a JSON object
``{"reasoning": ..., "answer": ...}``), produced zero-shot with greedy decoding (T=0).

Counts (checked in the tests): 7 models (Qwen2.5-3B/7B/32B/72B-Instruct, gemma-2-2b/9b/27b-it) x
800 CRUXEval-O items and x 721 MATH level-5 items, one output each.

Correctness reproduces ZeroEval's own evaluators, ``src/evaluation/crux_eval.py`` and
``src/evaluation/math_eval.py`` with ``eval_utils.py`` (see :func:`extract_answer`,
:func:`crux_correct`, :func:`math_correct`); the accuracies it gives equal the published
``result_dirs/crux.summary.json`` and ``result_dirs/math-l5.summary.json`` values for all 14
(model, task) pairs (checked in the tests). ``result_dirs/summary_full.json``, which the mirror's
SOURCE.md lists, is not in the mirror and is not read.
"""
from __future__ import annotations

import ast
import functools
import json
import operator
import re

import pandas as pd

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit.datasets._fetch import fetch_file
from benchkit.datasets._fetch import load_source
from benchkit.response_set import NO_ANSWER
from benchkit.response_set import ResponseSet

__all__ = ["SOURCE", "BENCHMARKS", "MODELS", "CRUX_RULES", "load", "extract_answer", "crux_correct",
           "crux_answer", "math_correct", "math_answer", "sanitize_math_answer"]


#: ZeroEval's task names (result folder) -> number of items.
BENCHMARKS: dict[str, int] = {"crux": 800, "math-l5": 721}
#: The seven models (result file stems), smallest to largest within each family.
MODELS: tuple[str, ...] = (
    "Qwen2.5-3B-Instruct", "Qwen2.5-7B-Instruct", "Qwen2.5-32B-Instruct", "Qwen2.5-72B-Instruct",
    "gemma-2-2b-it", "gemma-2-9b-it", "gemma-2-27b-it",
)

SOURCE = load_source("zeroeval", repo="yuchenlin/ZeroEval",
                     commit="570c6269a2e4930ee06a17e713fece1ba52cf1dd")

_OWNER = {"qwen": "alibaba", "gemma": "google"}


# ---------------------------------------------------------------------------- ZeroEval's rules


def _first_complete_json(s: str):
    """ZeroEval's ``extract_first_complete_json``.

    Parse the first balanced ``{...}`` (newlines removed) or return None (also when that first
    object is not valid JSON).
    """
    depth = 0
    start = None
    for i, ch in enumerate(s):
        if ch == "{":
            if start is None:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                try:
                    return json.loads(s[start:i + 1].replace("\n", ""))
                except (json.JSONDecodeError, RecursionError):
                    return None
    return None


def _values_from_json(s: str, keys=("reasoning", "answer"), allow_no_quotes: bool = True) -> dict:
    """ZeroEval's ``extract_values_from_json``: regular-expression fallbacks, key by key."""
    out = {}
    for key in keys:
        match = re.search(f'"{key}"\\s*:\\s*"([^"]*?)"', s)
        if match:
            out[key] = match.group(1)
        else:
            match = re.search(f'"{key}"\\s*:\\s*"(.*?)"', s, re.DOTALL)
            if match:
                out[key] = match.group(1)
        if not match and allow_no_quotes:
            match = re.search(f'"{key}"\\s*:\\s*([^,\\s]*)', s)
            if match:
                out[key] = match.group(1)
            else:
                match = re.search(f'{key}\\s*:\\s*([^,\\s]*)', s)
                if match:
                    out[key] = match.group(1)
    return out


def _model_specific(model: str, s: str):
    r"""ZeroEval's ``model_specific_extraction`` (only Llama-3.1 ``\boxed{...}``)."""
    if "Llama-3.1" in model and "boxed" in s:
        m = re.search(r"\\boxed{([\w\d]+)}", s)
        if m:
            return {"answer": m.group(1)}
    return None


_NO = object()


def extract_answer(output: str, *, model: str = ""):
    r"""The ``answer`` a ZeroEval output string holds, or a "not found" marker when it has none.

    The steps of ZeroEval's evaluators: the first balanced ``{...}`` parsed as JSON (newlines
    removed); if that fails or has no ``"answer"``, the regular-expression fallbacks of
    ``extract_values_from_json`` (quoted value, quoted value across lines, unquoted value up to
    a comma or whitespace, unquoted key); then the Llama-3.1-only ``\boxed{}`` rule. The value
    is returned as parsed (str, or int / float / list / bool / None from JSON).

    Parameters
    ----------
    output : str
        The model's output string.
    model : str, optional
        The model's name; the ``\boxed{}`` fallback applies only to Llama-3.1 models, as in
        ZeroEval.

    Returns
    -------
    object
        The parsed answer. When ZeroEval finds none, a private sentinel object
        (``benchkit.datasets.zeroeval._NO``) rather than ``None``: a JSON answer can itself be
        ``null``. :func:`load` turns it into :data:`benchkit.NO_ANSWER`.

    References
    ----------
    B. Y. Lin (2024), ZeroEval: a unified framework for evaluating language models, repository
    ``yuchenlin/ZeroEval`` (``src/evaluation/crux_eval.py``, ``math_eval.py``,
    ``eval_utils.py``).

    Examples
    --------
    >>> from benchkit.datasets.zeroeval import extract_answer
    >>> extract_answer('Reasoning first. {"reasoning": "...", "answer": "42"}')
    '42'
    >>> extract_answer('{"reasoning": "...", "answer": null}') is None
    True
    """
    if not isinstance(output, str):
        raise BenchkitValueError(f"output must be a str, got {type(output).__name__}")
    parsed = _first_complete_json(output)
    if not isinstance(parsed, dict) or "answer" not in parsed:
        parsed = _values_from_json(output, allow_no_quotes=True)
    if "answer" not in parsed:
        extra = _model_specific(model, output)
        if not extra:
            return _NO
        parsed = extra
    return parsed["answer"]


#: Accepted values of ``crux_rule`` (see :func:`crux_correct`).
CRUX_RULES: tuple[str, ...] = ("summary", "latest")


def crux_answer(value, *, rule: str = "summary") -> str:
    r"""The string ZeroEval compares for a crux answer.

    ``str(value)`` with surrounding ``'`` and ``"`` stripped; with ``rule="latest"`` newlines are
    also escaped as ``\n``.

    Parameters
    ----------
    value : object
        An answer from :func:`extract_answer`.
    rule : {"summary", "latest"}, default "summary"
        As in :func:`crux_correct`.

    Returns
    -------
    str
        The answer state of a crux response.

    References
    ----------
    B. Y. Lin (2024), ZeroEval: a unified framework for evaluating language models, repository
    ``yuchenlin/ZeroEval`` (``src/evaluation/crux_eval.py``, ``math_eval.py``,
    ``eval_utils.py``).

    Examples
    --------
    >>> from benchkit.datasets.zeroeval import crux_answer
    >>> crux_answer("'abc'"), crux_answer(17)
    ('abc', '17')
    """
    check_choice("rule", rule, CRUX_RULES)
    text = str(value).strip("'\"")
    return text.replace("\n", "\\n") if rule == "latest" else text


def crux_correct(value, gold: str, *, rule: str = "summary") -> bool:
    r"""ZeroEval's crux rule: the quote-stripped answer equals the quote-stripped gold string.

    ``rule="summary"`` (default): ``crux_answer(value) == str(gold).strip("'\"")`` and both are
    non-empty; this reproduces the published ``result_dirs/crux.summary.json`` accuracies of all
    seven models exactly. ``rule="latest"``: the later upstream ``crux_eval.py`` (newlines in the
    answer escaped as ``\n``, and an empty answer matching an empty gold counts as correct),
    about 1-2 points higher.

    Parameters
    ----------
    value : object
        An answer from :func:`extract_answer`.
    gold : str
        The item's gold answer string.
    rule : {"summary", "latest"}, default "summary"
        Which version of ZeroEval's comparison (see above).

    Returns
    -------
    bool
        Whether the response is correct.

    References
    ----------
    B. Y. Lin (2024), ZeroEval: a unified framework for evaluating language models, repository
    ``yuchenlin/ZeroEval`` (``src/evaluation/crux_eval.py``, ``math_eval.py``,
    ``eval_utils.py``).

    Examples
    --------
    >>> from benchkit.datasets.zeroeval import crux_correct
    >>> crux_correct('"abc"', "'abc'"), crux_correct("", "''"), crux_correct("", "''", rule="latest")
    (True, False, True)
    """
    model_answer = crux_answer(value, rule=rule)
    gold = str(gold).strip("'\"")
    if model_answer and gold:
        return model_answer == gold
    return rule == "latest" and model_answer == "" and gold == ""


_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
           ast.Pow: operator.pow}
_UNOPS = {ast.UAdd: operator.pos, ast.USub: operator.neg}


class _Unsafe(Exception):
    pass


def _arith(node):
    if isinstance(node, ast.Expression):
        return _arith(node.body)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNOPS:
        return _UNOPS[type(node.op)](_arith(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _arith(node.left), _arith(node.right)
        if isinstance(node.op, ast.Pow) and (abs(right) > 64 or abs(left) > 1e6):
            raise _Unsafe("power too large")
        return _BINOPS[type(node.op)](left, right)
    raise _Unsafe(type(node).__name__)


def sanitize_math_answer(answer: str) -> str:
    """ZeroEval's ``sanitize_math_answers``, with its ``eval`` replaced by a safe evaluator.

    ``$`` removed, stripped, ``,`` removed; if the result contains ``/``, it becomes
    ``str(float(value))`` when it is an arithmetic expression of int / float literals with
    ``+ - * / // % **`` and unary signs (ZeroEval calls ``eval`` here; any other expression, and
    any error, leaves the string unchanged, as ZeroEval's ``try/except`` does). Powers with an
    exponent above 64 or a base above 1e6 are treated as errors instead of being computed.

    Parameters
    ----------
    answer : str
        A math answer string.

    Returns
    -------
    str
        The sanitized answer.

    References
    ----------
    B. Y. Lin (2024), ZeroEval: a unified framework for evaluating language models, repository
    ``yuchenlin/ZeroEval`` (``src/evaluation/crux_eval.py``, ``math_eval.py``,
    ``eval_utils.py``).

    Examples
    --------
    >>> from benchkit.datasets.zeroeval import sanitize_math_answer
    >>> sanitize_math_answer("$1,000/4$"), sanitize_math_answer("x/2")
    ('250.0', 'x/2')
    """
    answer = answer.replace("$", "").strip()
    answer = answer.replace(",", "")
    if "/" in answer:
        try:
            tree = ast.parse(answer.lstrip(" \t"), mode="eval")
            answer = str(float(_arith(tree)))
        except Exception:  # noqa: BLE001 - ZeroEval's bare except around eval
            pass
    return answer


_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def math_answer(value) -> str:
    """The answer state of a math-l5 answer.

    The first number of the sanitized answer as ``repr(float(...))`` (what ZeroEval compares), or
    the sanitized string when it has none.

    Parameters
    ----------
    value : object
        An answer from :func:`extract_answer` (turned into ``str``).

    Returns
    -------
    str
        The answer state.

    References
    ----------
    B. Y. Lin (2024), ZeroEval: a unified framework for evaluating language models, repository
    ``yuchenlin/ZeroEval`` (``src/evaluation/crux_eval.py``, ``math_eval.py``,
    ``eval_utils.py``).

    Examples
    --------
    >>> from benchkit.datasets.zeroeval import math_answer
    >>> math_answer("$1,000/4$"), math_answer("x = 12"), math_answer("none")
    ('250.0', '12.0', 'none')
    """
    sanitized = sanitize_math_answer(str(value))
    m = _NUMBER.search(sanitized)
    return repr(float(m.group())) if m else sanitized


def math_correct(value, gold: str) -> bool:
    r"""ZeroEval's math rule: the first numbers of the sanitized answers are equal as floats.

    ``gold`` is first stripped of ``#`` and whitespace; both sides go through
    :func:`sanitize_math_answer`; the first match of ``-?\d+(\.\d+)?`` in each is compared
    with ``float(a) == float(b)``; no number on either side is incorrect.

    Parameters
    ----------
    value : object
        An answer from :func:`extract_answer`.
    gold : str
        The item's gold answer string.

    Returns
    -------
    bool
        Whether the response is correct.

    References
    ----------
    B. Y. Lin (2024), ZeroEval: a unified framework for evaluating language models, repository
    ``yuchenlin/ZeroEval`` (``src/evaluation/crux_eval.py``, ``math_eval.py``,
    ``eval_utils.py``).

    Examples
    --------
    >>> from benchkit.datasets.zeroeval import math_correct
    >>> math_correct("0.75", "#### 3/4"), math_correct("x", "3")
    (True, False)
    """
    model = sanitize_math_answer(str(value))
    gold = sanitize_math_answer(str(gold).replace("#", "").strip())
    a, b = _NUMBER.search(model), _NUMBER.search(gold)
    return bool(a and b and float(a.group()) == float(b.group()))


# ---------------------------------------------------------------------------- loading


@functools.lru_cache(maxsize=16)
def _read(local_path: str) -> tuple[tuple, ...]:
    with open(local_path, encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, list):
        raise BenchkitValueError(f"{local_path}: expected a JSON list of records")
    rows = []
    for i, rec in enumerate(data):
        for key in ("id", "answer", "output"):
            if key not in rec:
                raise BenchkitValueError(f"{local_path}: record {i} has no {key!r}")
        out = rec["output"]
        if not isinstance(out, list) or not out or not isinstance(out[0], str):
            raise BenchkitValueError(
                f"{local_path}: record {i} output must be a list holding one string, got {out!r:.80}"
            )
        question = rec.get("question", rec.get("problem"))
        rows.append((str(rec["id"]), str(rec["answer"]), out[0], question, rec.get("generator")))
    return tuple(rows)


def _load_one(benchmark: str, crux_rule: str) -> ResponseSet:
    responses = []
    items = None
    no_answer: dict[str, int] = {}
    generators = {}
    for model in MODELS:
        path = f"result_dirs/{benchmark}/{model}.json"
        rows = _read(str(fetch_file(SOURCE, path)))
        if len(rows) != BENCHMARKS[benchmark]:
            raise BenchkitValueError(
                f"{SOURCE.name}/{path} has {len(rows)} records, expected {BENCHMARKS[benchmark]}"
            )
        ids = [f"{benchmark}/{r[0]}" for r in rows]
        if items is None:
            items = pd.DataFrame({
                "item": ids, "benchmark": benchmark, "zeroeval_id": [r[0] for r in rows],
                "text": [r[3] for r in rows], "gold": [r[1] for r in rows],
            })
            if benchmark == "crux":
                # ZeroEval's "crux-test-#k" is CRUXEval problem k (checked in the tests)
                items["cruxeval_item"] = [
                    "CRUXEval-output/" + r[0].rsplit("#", 1)[1] if "#" in r[0] else None for r in rows
                ]
        elif ids != list(items["item"]) or [r[1] for r in rows] != list(items["gold"]):
            raise BenchkitValueError(
                f"{SOURCE.name}/{path}: item ids or gold answers differ from {MODELS[0]}'s file"
            )
        generators[model] = sorted({r[4] for r in rows if r[4] is not None})
        n_none = 0
        for item, (_, gold, output, _, _) in zip(ids, rows):
            value = extract_answer(output, model=model)
            if value is _NO:
                n_none += 1
                responses.append((model, item, 0.0, NO_ANSWER))
            elif benchmark == "crux":
                responses.append((model, item, float(crux_correct(value, gold, rule=crux_rule)),
                                  crux_answer(value, rule=crux_rule)))
            else:
                responses.append((model, item, float(math_correct(value, gold)), math_answer(value)))
        no_answer[model] = n_none
    frame = pd.DataFrame(responses, columns=["model", "item", "correct", "answer"])
    fam = [m.split("-")[0].lower().replace("qwen2.5", "qwen") for m in MODELS]
    models = pd.DataFrame({
        "model": list(MODELS),
        "family": fam,
        "owner": [_OWNER[f] for f in fam],
        "size": [float(re.search(r"(\d+)[bB]", m).group(1)) * 1e9 for m in MODELS],
        "series": ["qwen2.5" if f == "qwen" else "gemma-2" for f in fam],
        "variant": "instruct",
        "generator": [";".join(generators[m]) for m in MODELS],
        "no_answer": [no_answer[m] for m in MODELS],
    })
    meta = {
        "source": SOURCE.name, "url": f"{SOURCE.repo_url}/tree/{SOURCE.commit}/result_dirs/{benchmark}",
        "commit": SOURCE.commit, "no_answer": no_answer,
        "crux_rule": crux_rule if benchmark == "crux" else None,
        "notes": (
            "greedy (T=0) zero-shot; correct and answer states by ZeroEval's "
            f"{'crux_eval.py' if benchmark == 'crux' else 'math_eval.py'} rule; outputs with no "
            "extractable answer are NO_ANSWER and incorrect (ZeroEval's 'No answer')"
        ),
    }
    return ResponseSet.from_long(frame, models=models, items=items, T=1, parse_names=False,
                                 name=f"zeroeval/{benchmark}", meta=meta)


def load(*, benchmark: str | None = None, crux_rule: str = "summary"):
    """Load ZeroEval's greedy outputs as response sets with answer states.

    Parameters
    ----------
    benchmark : {"crux", "math-l5"}, optional
        ZeroEval's task name; default both.
    crux_rule : {"summary", "latest"}, default "summary"
        Which version of ZeroEval's crux comparison to apply (:func:`crux_correct`): the one
        that produced the published summary accuracies, or the later upstream one.

    Returns
    -------
    ResponseSet or dict of str -> ResponseSet
        With ``benchmark`` given, one :class:`benchkit.ResponseSet` (name
        ``"zeroeval/<benchmark>"``); otherwise ``{"crux": ..., "math-l5": ...}``. Each has the 7
        models of :data:`MODELS` (roster order; ``family`` qwen / gemma, ``owner``, ``size``,
        ``series``, ``variant="instruct"``, ``generator`` (the HF id in the file) and
        ``no_answer`` (outputs with no extractable answer)), T = 1 (one greedy output), and

        - items, index ``"<benchmark>/<id>"`` (``"crux/crux-test-#17"``, ``"math-l5/17"``), in
          file order: ``benchmark``, ``zeroeval_id``, ``text`` (the question / problem),
          ``gold`` (the gold answer string) and, for crux, ``cruxeval_item`` (the
          ``"CRUXEval-output/<k>"`` id of :mod:`benchkit.datasets.cruxeval` and Eval-Arena);
        - ``correct``: ZeroEval's rule (:func:`crux_correct`: the answer with surrounding quotes
          stripped equals the gold string with surrounding quotes stripped, both non-empty;
          :func:`math_correct`: equal first numbers after sanitizing);
        - ``answer``: the compared form: :func:`crux_answer` for crux, :func:`math_answer` (the
          first number as a float repr) for math-l5; :data:`~benchkit.NO_ANSWER` when
          :func:`extract_answer` finds nothing (counted in ``rs.models["no_answer"]`` and
          ``rs.meta["no_answer"]``, scored incorrect as ZeroEval does).

    Notes
    -----
    Reproduces ``src/evaluation/crux_eval.py`` and ``math_eval.py`` of ZeroEval (with
    ``eval_utils.py``) step by step. The crux comparison changed upstream over time: an early
    version single-quoted bare strings (``is_valid_string``), the version behind the published
    summaries strips quotes from both sides (the default here), a later one also escapes
    newlines and matches empty to empty (``crux_rule="latest"``). One deliberate change: the
    math sanitizer's ``eval``
    of answers containing ``/`` is replaced by a literal-arithmetic evaluator
    (:func:`sanitize_math_answer`) so that no model output is executed. Accuracy is solved /
    total, as ZeroEval reports it. Measured accuracies equal ZeroEval's summaries: crux
    Qwen2.5-3B/7B/32B/72B 32.12 / 51.25 / 68.12 / 71.88 %, gemma-2 2B/9B/27B 20.75 / 44.88 /
    55.88 %; math-l5 25.52 / 51.46 / 59.50 / 60.19 % and 4.30 / 19.42 / 26.63 %.

    References
    ----------
    B. Y. Lin (2024), ZeroEval: a unified framework for evaluating language models, repository
    ``yuchenlin/ZeroEval`` (``src/evaluation/crux_eval.py``, ``math_eval.py``,
    ``eval_utils.py``).

    Examples
    --------
    Not run as a doctest (doctests read no data files): it needs the source's files from the
    local mirror, the cache or a download. The output shown was produced on the pinned files.

    >>> from benchkit.datasets import zeroeval
    >>> rs = zeroeval.load(benchmark="crux")  # doctest: +SKIP
    >>> rs.accuracy().round(4).head(2).tolist()  # ZeroEval's published summary  # doctest: +SKIP
    [0.3212, 0.5125]
    """
    check_choice("crux_rule", crux_rule, CRUX_RULES)
    if benchmark is not None:
        check_choice("benchmark", benchmark, tuple(BENCHMARKS))
        return _load_one(benchmark, crux_rule)
    return {b: _load_one(b, crux_rule) for b in BENCHMARKS}
