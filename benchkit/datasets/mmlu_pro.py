"""MMLU-Pro: 18 models' chain-of-thought answers to the 12,032 MMLU-Pro test questions.

Source: Wang et al., "MMLU-Pro: A More Robust and Challenging Multi-Task Language Understanding
Benchmark" (NeurIPS 2024), repository ``TIGER-AI-Lab/MMLU-Pro`` at a pinned commit, Apache-2.0.
Each ``eval_results/model_outputs_<model>_5shots.zip`` holds one JSON list of records
``question_id, question, options, answer, answer_index, category, src, cot_content, pred,
generated_text`` (gemini: ``model_outputs``); ``pred`` is the extracted letter, null when the
upstream extractor found none.

Measured on the pinned files (checked in the tests): 18 models x 12,032 items; the gemini-1.5
files hold 12,012 (flash) and 12,020 (pro) records, so 20 and 12 cells are missing; 14 categories.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import random
import zipfile

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_choices
from benchkit._validation import check_int
from benchkit.datasets._fetch import fetch_file
from benchkit.datasets._fetch import load_source

__all__ = ["SOURCE", "MODELS", "SCORINGS", "load"]

SOURCE = load_source("mmlu-pro", repo="TIGER-AI-Lab/MMLU-Pro",
                     commit="f418b116db00b065c2aea046518d8fcf74d39872")

_PREFIX, _SUFFIX = "eval_results/model_outputs_", "_5shots.zip"

#: Model ids, taken from the file names (``model_outputs_<model>_5shots.zip``), in file order.
MODELS: tuple[str, ...] = tuple(f.path[len(_PREFIX):-len(_SUFFIX)] for f in SOURCE.files)

#: Scoring rules for a null ``pred``: "strict" (incorrect) or "upstream" (the scorer's guess).
SCORINGS: tuple[str, ...] = ("strict", "upstream")

_LETTERS = "ABCDEFGHIJ"
_CONTENT = ("question", "options", "answer", "category", "src")


@dataclasses.dataclass(frozen=True)
class _Parsed:
    """The fields benchkit keeps from one model file (text shared across files)."""

    qid: tuple[str, ...]
    pred: tuple[str | None, ...]
    answer: tuple[str, ...]
    answer_index: tuple[int, ...]
    content: tuple[tuple, ...]  # (question, options tuple, answer, category, src) per record


def _read_zip(local_path: str, rel: str, canon: dict) -> _Parsed:
    with zipfile.ZipFile(local_path) as zf:
        members = [n for n in zf.namelist() if n.endswith(".json")]
        if len(members) != 1:
            raise BenchkitValueError(f"{rel} should hold one .json file; it holds {zf.namelist()}")
        records = json.loads(zf.read(members[0]))
    if not isinstance(records, list):
        raise BenchkitValueError(f"{rel}: the JSON is a {type(records).__name__}, expected a list")
    qid, pred, answer, aidx, content = [], [], [], [], []
    seen = set()
    for k, r in enumerate(records):
        q = str(r["question_id"])
        if q in seen:
            raise BenchkitValueError(f"{rel}: question_id {q} appears twice (record {k})")
        seen.add(q)
        p = r["pred"]
        if not (isinstance(p, str) or p is None):
            raise BenchkitValueError(f"{rel}: record {k} has pred {p!r}; expected a letter or null")
        a = r["answer"]
        if not isinstance(a, str) or len(a) != 1 or a not in _LETTERS[: len(r["options"])]:
            raise BenchkitValueError(
                f"{rel}: record {k} (question {q}) has answer {r['answer']!r}, not a letter among "
                f"its {len(r['options'])} options"
            )
        c = (r["question"], tuple(r["options"]), a, r["category"], r["src"])
        qid.append(q)
        pred.append(p)
        answer.append(a)
        aidx.append(int(r["answer_index"]))
        content.append(canon.setdefault(c, c))  # one shared copy per distinct item version
    return _Parsed(tuple(qid), tuple(pred), tuple(answer), tuple(aidx), tuple(content))


@dataclasses.dataclass(frozen=True)
class _All:
    files: dict  # model -> _Parsed
    items: pd.DataFrame  # the item table over all files (see load)


@functools.lru_cache(maxsize=1)
def _parse_all(local_paths: tuple[str, ...]) -> _All:
    """Every file parsed, and the item table, memoized on the verified local paths."""
    canon: dict = {}
    paths = (f.path for f in SOURCE.files)
    files = {m: _read_zip(lp, rel, canon) for m, lp, rel in zip(MODELS, local_paths, paths)}
    # item content: the version most files share (ties: the earliest file); all files are used,
    # so the table does not depend on which models are loaded
    versions: dict[str, dict] = {}
    for P in files.values():
        for q, c in zip(P.qid, P.content):
            cnt = versions.setdefault(q, {})
            cnt[c] = cnt.get(c, 0) + 1  # dicts keep first-seen (earliest file) order
    rows = []
    for q in sorted(versions, key=lambda q: (len(q), q)):
        cnt = versions[q]
        best = max(cnt, key=cnt.__getitem__)  # first maximum = earliest file among ties
        question, opts, answer, category, src = best
        rows.append({
            "item": q, "benchmark": "mmlu-pro", "source": category, "category": category,
            "src": src, "text": question, "options": list(opts), "answer_key": answer,
            "answer_index": _LETTERS.index(answer), "n_options": len(opts),
            "n_versions": len(cnt), "revised": len(cnt) > 1,
        })
    return _All(files, pd.DataFrame.from_records(rows))


def _upstream_guess(n_options: int, seed: int) -> int:
    """The upstream scorer's guess for a null pred: ``random.seed(seed); randint(0, n - 1)``.

    ``save_res`` in ``evaluate_from_local.py`` re-seeds Python's :mod:`random` with 12345
    before every guess, so the guess depends only on the number of options.
    """
    return random.Random(seed).randint(0, n_options - 1)


def load(*, scoring: str = "strict", rng: int = 12345, models=None):
    """Load MMLU-Pro as a ResponseSet: 18 models x 12,032 items, one CoT answer per cell.

    Parameters
    ----------
    scoring : {"strict", "upstream"}, default "strict"
        How a record whose ``pred`` is null (no answer extracted) is scored. ``"strict"``: its
        answer state is :data:`benchkit.NO_ANSWER` and it is incorrect. ``"upstream"``: as the
        repository's scorer (``save_res`` in ``evaluate_from_local.py``) does, a random guess
        ``random.seed(rng); x = random.randint(0, len(options) - 1)`` is correct when ``x ==
        answer_index``; the answer state stays NO_ANSWER.
    rng : int, default 12345
        Seed of the upstream guess (12345 upstream), used only with ``scoring="upstream"``. Only
        an int: the upstream scorer seeds Python's :mod:`random`, whose stream benchkit replays
        (a numpy Generator or SeedSequence cannot reproduce it).
    models : sequence of str, optional
        Model ids to load (see :data:`MODELS`); default all 18.

    Returns
    -------
    benchkit.ResponseSet
        ``name="mmlu-pro"``, one sample per cell, T=1.

        - models: ids from the file names (e.g. ``'Meta-Llama-3_1-70B-Instruct'``,
          ``'gemini-1.5-pro-002'``), family/owner/size parsed from the names, ``order`` = file
          order, ``file``, ``n_records``, ``n_null_pred``;
        - items: ``item`` = ``question_id`` as a string, ``benchmark`` (``'mmlu-pro'``),
          ``source`` and ``category`` (the 14 MMLU-Pro categories), ``src`` (origin, e.g.
          ``'ori_mmlu-business_ethics'``, ``'stemez-...'``, ``'theoremQA-...'``), ``text``
          (question), ``options`` (list of 1-10 str), ``answer_key`` (letter), ``answer_index``,
          ``n_options``, ``n_versions`` (distinct (question, options, answer, category, src)
          contents across the model files) and ``revised`` (``n_versions > 1``). Item content is
          the version most model files share (ties: the earliest file);
        - responses: ``answer`` = ``pred`` (or NO_ANSWER when null), ``correct`` = ``pred ==
          answer`` of *that model's file* (the upstream rule), or the guess described above.

        ``rs.meta`` holds provenance and ``missing_cells`` (per model, the question ids absent
        from its file), ``n_null_pred``, the revised items and notes; ``rs.report`` lists the
        missing cells (absent in the source: nothing is dropped by benchkit).

    Notes
    -----
    Upstream semantics: ``correct = (pred == answer)`` with ``answer`` as stored in each model's
    file. The files were written at different times and MMLU-Pro was revised in between: 14
    items differ (question, options or answer) between the Llama-3.1 files and the earlier ones,
    48 between the gemini files and the earliest; each model is scored against its own file, as
    upstream, and the item table flags these items (``revised``). One record (question 3983 in
    the Llama-3.1 and gemini files) has ``answer`` C but ``answer_index`` 1; ``answer`` is used
    for scoring, ``answer_index`` only by the upstream guess.

    The default differs from the upstream scorer on purpose: a null ``pred`` is a failure to
    answer, so it counts as incorrect rather than as a coin flip among the options (the upstream
    guess re-seeds before every call, so it is the same option for every item with the same
    number of options). ``scoring="upstream"`` reproduces the published accuracies.

    References
    ----------
    Y. Wang et al. (2024), "MMLU-Pro: A More Robust and Challenging Multi-Task Language
    Understanding Benchmark", NeurIPS 2024 Datasets and Benchmarks, arXiv:2406.01574; repository
    ``TIGER-AI-Lab/MMLU-Pro`` (``evaluate_from_local.py`` for the upstream scoring).

    Examples
    --------
    Not run as a doctest (doctests read no data files): it needs the source's files from the
    local mirror, the cache or a download. The output shown was produced on the pinned files.

    >>> from benchkit.datasets import mmlu_pro
    >>> rs = mmlu_pro.load()  # doctest: +SKIP
    >>> rs.n_items, rs.n_models, rs.report.n_cells  # 32 cells absent in the gemini files  # doctest: +SKIP
    (12032, 18, 32)
    >>> mmlu_pro.load(scoring="upstream").accuracy().round(4).head(3).tolist()  # doctest: +SKIP
    [0.2534, 0.3753, 0.2032]
    """
    from benchkit import NO_ANSWER
    from benchkit import ResponseSet
    from benchkit.response_set import DropEntry

    check_choice("scoring", scoring, SCORINGS)
    rng = check_int("rng", rng, min=0)
    chosen = list(MODELS) if models is None else check_choices("models", models, MODELS)
    locals_ = tuple(str(fetch_file(SOURCE, f.path)) for f in SOURCE.files)
    parsed_all = _parse_all(locals_)
    parsed = {m: parsed_all.files[m] for m in chosen}
    used = {q for m in chosen for q in parsed[m].qid}
    items = parsed_all.items
    items = items[items["item"].isin(used)].reset_index(drop=True)

    # responses
    model_col, item_col, ans_col, corr_col = [], [], [], []
    model_rows = []
    guess_cache: dict[int, int] = {}
    for m in chosen:
        P = parsed[m]
        n_null = 0
        for q, p, a, ai, c in zip(P.qid, P.pred, P.answer, P.answer_index, P.content):
            if not p:  # upstream: `if not each["pred"]` (None or "")
                n_null += 1
                if scoring == "upstream":
                    n = len(c[1])
                    if n not in guess_cache:
                        guess_cache[n] = _upstream_guess(n, rng)
                    ok = guess_cache[n] == ai
                else:
                    ok = False
                ans_col.append(NO_ANSWER)
            else:
                ok = p == a
                ans_col.append(p)
            model_col.append(m)
            item_col.append(q)
            corr_col.append(1.0 if ok else 0.0)
        model_rows.append({"model": m, "order": len(model_rows),
                           "file": f"{_PREFIX}{m}{_SUFFIX}", "n_records": len(P.qid),
                           "n_null_pred": n_null})
    responses = pd.DataFrame({"model": model_col, "item": item_col, "answer": ans_col,
                              "correct": np.asarray(corr_col, dtype=np.float64)})
    missing = {m: sorted(used.difference(parsed[m].qid), key=lambda q: (len(q), q)) for m in chosen}
    missing = {m: v for m, v in missing.items() if v}
    revised = items.loc[items["revised"], "item"].tolist()
    meta = {
        "source": SOURCE.name,
        "url": SOURCE.repo_url,
        "commit": SOURCE.commit,
        "license": SOURCE.license,
        "files": [f"{_PREFIX}{m}{_SUFFIX}" for m in chosen],
        "scoring": scoring,
        "rng": rng if scoring == "upstream" else None,
        "n_items": len(items),
        "n_models": len(chosen),
        "missing_cells": missing,
        "n_missing_cells": sum(len(v) for v in missing.values()),
        "n_null_pred": {r["model"]: r["n_null_pred"] for r in model_rows},
        "revised_items": revised,
        "notes": (
            "correct = (pred == answer) with each model file's own answer (upstream rule). A null "
            "pred is the answer state NO_ANSWER; scoring='strict' counts it incorrect, "
            "scoring='upstream' applies the upstream scorer's seeded random guess. Items absent "
            "from a model's file are missing cells (gemini files hold 12,012 and 12,020 records)."
        ),
    }
    rs = ResponseSet.from_long(responses, models=pd.DataFrame(model_rows), items=items,
                               name="mmlu-pro", meta=meta)
    if missing:
        entries = tuple(
            DropEntry(f"{m}: no record in the source file (a missing cell; nothing dropped by "
                      "benchkit)", n_rows=0, n_cells=len(v), examples=tuple(v[:3]))
            for m, v in missing.items()
        )
        rs = dataclasses.replace(rs, report=dataclasses.replace(rs.report,
                                                                entries=tuple(rs.report.entries) + entries))
    return rs
