"""CRUXEval: the 800 problems and Code Llama 7B's 10 sampled answers per problem, with scores.

The source is Gu et al.'s CRUXEval (repository ``facebookresearch/cruxeval``, MIT): the problem
file ``data/cruxeval.jsonl`` (``code``, ``input``, ``output``, ``id`` = ``sample_<k>``) and the only
per-sample generations the repository ships, Code Llama 7B at temperature 0.2 with 10 samples per
problem, for both tasks: CRUXEval-I (predict an input ``f(...)`` such that the assertion holds) and
CRUXEval-O (predict the output literal). ``samples/evaluation_results/sample_scored_...json``
holds ``raw_generations`` (10 answer strings per problem) and ``raw_scored_generations`` (10
booleans, CRUXEval's execution-based judgment) plus ``pass_at_1`` / ``pass_at_5``;
``samples/model_generations/.../generations.json`` holds the same 10 strings and is checked to be
identical.

Counts (checked in the tests): 800 problems; 800 x 10 samples per task; pass@1 35.95% (input) and
34.2125% (output), equal to the files' own ``pass_at_1``. The CRUXEval-O correct counts equal
Eval-Arena's ``codellama-7b`` ``cruxeval_output`` pass1 * 10 on 800/800 items; item ids are
Eval-Arena's (``"CRUXEval-output/<k>"``) so the two join directly.
"""
from __future__ import annotations

import ast
import functools
import json

import pandas as pd

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit.datasets._fetch import fetch_file
from benchkit.datasets._fetch import load_source
from benchkit.response_set import ResponseSet

__all__ = ["SOURCE", "TASKS", "NORMALIZATIONS", "load", "load_problems", "normalize_answer"]

_MODEL = "codellama-7b"

_PROBLEMS = "data/cruxeval.jsonl"
_SCORED = "samples/evaluation_results/sample_scored_codellama-7b_temp0.2_{task}.json"
_GENERATIONS = "samples/model_generations/sample_codellama-7b_temp0.2_{task}/generations.json"

SOURCE = load_source("cruxeval", repo="facebookresearch/cruxeval",
                     commit="190faf16d175b5847b0af05d937872b1fb395942")

#: Accepted values of ``task``: the upstream file suffixes, or both.
TASKS: tuple[str, ...] = ("input", "output", "both")
#: Accepted values of ``normalize`` (see :func:`normalize_answer`).
NORMALIZATIONS: tuple[str, ...] = ("strip", "literal", "none")

_BENCHMARK = {"input": "CRUXEval-input", "output": "CRUXEval-output"}


def _literal(text: str) -> str:
    return repr(ast.literal_eval(text))


def normalize_answer(answer: str, *, normalize: str = "strip") -> str:
    """The answer state of one sampled answer string.

    Parameters
    ----------
    answer : str
        A raw sampled answer: a literal for CRUXEval-O (``"'abc'"``, ``"[1, 2]"``), a call
        ``f(...)`` for CRUXEval-I.
    normalize : {"strip", "literal", "none"}, default "strip"
        ``"strip"``: surrounding whitespace removed, nothing else (the minimal reduction; on the
        pinned files no answer has surrounding whitespace, so it equals the raw string).
        ``"literal"``: additionally, an answer that is a Python literal is rewritten as
        ``repr(ast.literal_eval(answer))`` and a call ``f(<literals>)`` as ``f(`` + the reprs of
        its arguments joined by ``", "`` + ``)``, so ``"'sea'"`` and ``'"sea"'`` become one state;
        anything else (expressions such as ``"'a' + str(1)"``, keyword arguments) is kept
        stripped. ``"none"``: the raw string.

    Notes
    -----
    Only :func:`ast.literal_eval` is used (no code is executed). Both reductions preserve
    CRUXEval's correctness judgments on the pinned data (every answer state of an item is
    uniformly correct or incorrect; checked by :func:`load`), as BSDProbe's reduction map
    requires.

    Returns
    -------
    str
        The answer state.

    References
    ----------
    A. Gu, B. Rozière, H. Leather, A. Solar-Lezama, G. Synnaeve and S. I. Wang (2024), "CRUXEval:
    A Benchmark for Code Reasoning, Understanding and Execution", arXiv:2401.03065; repository
    ``facebookresearch/cruxeval``.
    H. Hu et al. (BSDProbe), arXiv:2609.33196, Sec. 3.1 (the reduction map to answer states).

    Examples
    --------
    >>> from benchkit.datasets.cruxeval import normalize_answer
    >>> normalize_answer(" 'sea' "), normalize_answer('"sea"', normalize="literal")
    ("'sea'", "'sea'")
    >>> normalize_answer("f( [1,2] , 'a')", normalize="literal")
    "f([1, 2], 'a')"
    """
    check_choice("normalize", normalize, NORMALIZATIONS)
    if not isinstance(answer, str):
        raise BenchkitValueError(f"answer must be a str, got {type(answer).__name__}")
    if normalize == "none":
        return answer
    text = answer.strip()
    if normalize == "strip":
        return text
    try:
        return _literal(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    try:
        node = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return text
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        try:
            args = [repr(ast.literal_eval(a)) for a in node.args]
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return text
        return f"{node.func.id}({', '.join(args)})"
    return text


@functools.lru_cache(maxsize=4)
def _read_problems(local_path: str) -> tuple[dict, ...]:
    rows = []
    with open(local_path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            rec = json.loads(line)
            missing = {"code", "input", "output", "id"} - set(rec)
            if missing:
                raise BenchkitValueError(f"{local_path}: line {lineno} lacks {sorted(missing)}")
            rows.append(rec)
    return tuple(rows)


@functools.lru_cache(maxsize=8)
def _read_json(local_path: str):
    with open(local_path, encoding="utf-8") as fh:
        return json.load(fh)


def load_problems() -> pd.DataFrame:
    """The 800 CRUXEval problems, one row per problem in file order.

    Returns
    -------
    pandas.DataFrame
        Columns ``id`` (``"sample_<k>"``, k = 0..799, the row number), ``k`` (int), ``code``
        (the Python function ``f``), ``input`` (the argument list as written in the assertion,
        e.g. ``"[1, 1, 3]"`` or ``"(1, ), (1, 2)"``), ``output`` (the literal ``f`` returns), all
        strings unchanged from ``data/cruxeval.jsonl``.

    References
    ----------
    A. Gu, B. Rozière, H. Leather, A. Solar-Lezama, G. Synnaeve and S. I. Wang (2024), "CRUXEval:
    A Benchmark for Code Reasoning, Understanding and Execution", arXiv:2401.03065; repository
    ``facebookresearch/cruxeval``.

    Examples
    --------
    Not run as a doctest (doctests read no data files): it needs the source's files from the
    local mirror, the cache or a download. The output shown was produced on the pinned files.

    >>> from benchkit.datasets import cruxeval
    >>> cruxeval.load_problems().shape  # doctest: +SKIP
    (800, 5)
    """
    rows = _read_problems(str(fetch_file(SOURCE, _PROBLEMS)))
    frame = pd.DataFrame({
        "id": [r["id"] for r in rows],
        "k": range(len(rows)),
        "code": [r["code"] for r in rows],
        "input": [r["input"] for r in rows],
        "output": [r["output"] for r in rows],
    })
    bad = frame["id"] != [f"sample_{k}" for k in range(len(frame))]
    if bad.any():
        r = frame[bad].iloc[0]
        raise BenchkitValueError(f"{SOURCE.name}/{_PROBLEMS}: row {r['k']} has id {r['id']!r}, "
                                 f"expected 'sample_{r['k']}'")
    return frame


def _task_frames(task: str, problems: pd.DataFrame, normalize: str):
    scored_path = _SCORED.format(task=task)
    scored = _read_json(str(fetch_file(SOURCE, scored_path)))
    gens = _read_json(str(fetch_file(SOURCE, _GENERATIONS.format(task=task))))
    for key in ("raw_generations", "raw_scored_generations"):
        if key not in scored:
            raise BenchkitValueError(f"{SOURCE.name}/{scored_path} has no {key!r}")
    raw, marks = scored["raw_generations"], scored["raw_scored_generations"]
    if raw != gens:
        raise BenchkitValueError(
            f"{SOURCE.name}/{scored_path}: raw_generations differ from "
            f"{_GENERATIONS.format(task=task)}; the files are not the pinned pair"
        )
    prefix = _BENCHMARK[task]
    rows = []
    for pid, k in zip(problems["id"], problems["k"]):
        if pid not in raw or pid not in marks:
            raise BenchkitValueError(f"{SOURCE.name}/{scored_path} has no samples for {pid!r}")
        answers, scores = raw[pid], marks[pid]
        if len(answers) != len(scores):
            raise BenchkitValueError(
                f"{SOURCE.name}/{scored_path}: {pid!r} has {len(answers)} answers but "
                f"{len(scores)} scores"
            )
        item = f"{prefix}/{k}"
        state_correct: dict[str, bool] = {}
        for s, (a, c) in enumerate(zip(answers, scores)):
            if not isinstance(c, bool):
                raise BenchkitValueError(
                    f"{SOURCE.name}/{scored_path}: score {s} of {pid!r} is {c!r}, not a bool"
                )
            state = normalize_answer(a, normalize=normalize)
            if state_correct.setdefault(state, c) != c:
                raise BenchkitValueError(
                    f"normalize={normalize!r} maps a correct and an incorrect answer of {pid!r} "
                    f"({task}) to the same state {state!r}; use normalize='none'"
                )
            rows.append((_MODEL, item, s, float(c), state))
    extra = set(raw) - set(problems["id"])
    if extra:
        raise BenchkitValueError(
            f"{SOURCE.name}/{scored_path} has samples for unknown problems, e.g. {sorted(extra)[0]!r}"
        )
    responses = pd.DataFrame(rows, columns=["model", "item", "sample", "correct", "answer"])
    items = pd.DataFrame({
        "item": [f"{prefix}/{k}" for k in problems["k"]],
        "benchmark": prefix,
        "task": task,
        "problem_id": problems["id"].to_numpy(dtype=object),
        "text": problems["code"].to_numpy(dtype=object),
        "code": problems["code"].to_numpy(dtype=object),
        "input": problems["input"].to_numpy(dtype=object),
        "output": problems["output"].to_numpy(dtype=object),
        "gold": problems["output" if task == "output" else "input"].to_numpy(dtype=object),
    })
    summary = {key: scored[key] for key in ("pass_at_1", "pass_at_5") if key in scored}
    return responses, items, summary


def load(*, task: str = "both", normalize: str = "strip") -> ResponseSet:
    """Load Code Llama 7B's 10 sampled CRUXEval answers per problem as a ResponseSet.

    Parameters
    ----------
    task : {"both", "input", "output"}, default "both"
        CRUXEval-I (input prediction), CRUXEval-O (output prediction), or both in one set
        (1,600 items; pick one with ``rs.select(benchmark="CRUXEval-output")``).
    normalize : {"strip", "literal", "none"}, default "strip"
        How a sampled answer string becomes its answer state (:func:`normalize_answer`).

    Returns
    -------
    ResponseSet
        One model, ``"codellama-7b"`` (Eval-Arena's name), T = 10 samples per item
        (``sample`` = position 0..9 in the upstream list; the principal sample is sample 0):

        - ``correct``: CRUXEval's stored score (``raw_scored_generations``, an execution-based
          check that the assertion holds), as 0/1;
        - ``answer``: the normalized sampled answer string (never :data:`~benchkit.NO_ANSWER`:
          every sample has an answer);
        - items, index ``"CRUXEval-output/<k>"`` / ``"CRUXEval-input/<k>"`` (Eval-Arena's ids;
          k = row of ``data/cruxeval.jsonl``), columns ``benchmark`` (``"CRUXEval-input"`` /
          ``"CRUXEval-output"``), ``task``, ``problem_id`` (``"sample_<k>"``), ``text`` and
          ``code`` (the function), ``input``, ``output``, ``gold`` (the ground truth the task asks
          for: ``output`` for CRUXEval-O, ``input`` for CRUXEval-I; for CRUXEval-I any input
          that satisfies the assertion is correct, so ``gold`` is one correct answer, not the
          key).

        ``meta`` holds the files' ``pass_at_1`` / ``pass_at_5`` per task and the normalization.

    Notes
    -----
    Scores are taken as stored, not recomputed (recomputing would execute the sampled code). The
    answer states preserve correctness: :func:`load` raises if the chosen normalization merges a
    correct and an incorrect answer of one item. Mean correctness equals the files' pass@1
    (35.95% input, 34.2125% output).

    References
    ----------
    A. Gu, B. Rozière, H. Leather, A. Solar-Lezama, G. Synnaeve and S. I. Wang (2024), "CRUXEval:
    A Benchmark for Code Reasoning, Understanding and Execution", arXiv:2401.03065; repository
    ``facebookresearch/cruxeval``.

    Examples
    --------
    Not run as a doctest (doctests read no data files): it needs the source's files from the
    local mirror, the cache or a download. The output shown was produced on the pinned files.

    >>> from benchkit.datasets import cruxeval
    >>> rs = cruxeval.load(task="output")  # doctest: +SKIP
    >>> rs  # doctest: +SKIP
    ResponseSet 'cruxeval/output': 800 items x 1 models, 8,000 responses, T=10, 0.0% cells missing, ...
    >>> rs.accuracy().round(4).tolist()  # the file's pass@1  # doctest: +SKIP
    [0.3421]
    """
    check_choice("task", task, TASKS)
    check_choice("normalize", normalize, NORMALIZATIONS)
    problems = load_problems()
    tasks = ["input", "output"] if task == "both" else [task]
    parts = [_task_frames(t, problems, normalize) for t in tasks]
    responses = pd.concat([p[0] for p in parts], ignore_index=True)
    items = pd.concat([p[1] for p in parts], ignore_index=True)
    meta = {
        "source": SOURCE.name, "url": SOURCE.repo_url, "commit": SOURCE.commit,
        "files": [_PROBLEMS] + [_SCORED.format(task=t) for t in tasks],
        "normalize": normalize,
        "reported": {t: p[2] for t, p in zip(tasks, parts)},
        "notes": "Code Llama 7B, T=0.2, 10 samples per problem; correct = CRUXEval's stored score",
    }
    models = pd.DataFrame({"model": [_MODEL], "family": ["codellama"], "owner": ["meta"],
                           "size": [7e9], "series": ["codellama"], "variant": ["base"]})
    return ResponseSet.from_long(responses, models=models, items=items, T=10, parse_names=False,
                                 name=f"cruxeval/{task}", meta=meta)
