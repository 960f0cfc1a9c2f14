"""lm-evaluation-harness per-sample logs (``--log_samples``) -> :class:`benchkit.ResponseSet`.

Format read (EleutherAI/lm-evaluation-harness, ``lm_eval/loggers/evaluation_tracker.py`` and
``lm_eval/evaluator.py`` of the 0.4.x line; tested on output written by lm-eval 0.4.13 itself,
``tests/tool_fixtures/make_lm_eval.py``, and on hand-written fixtures of older layouts):

* ``<output_path>/<model_name_sanitized>/samples_<task>_<date_id>.jsonl``, one JSON object per
  (document, filter) with ``doc_id``, ``doc``, ``target`` (``str(doc_to_target(doc))``),
  ``arguments``, ``resps``, ``filtered_resps``, ``filter`` (the filter pipeline, ``"none"`` by
  default; absent before 0.4.2, read as ``"none"``), ``metrics`` (the metric names, from 0.4.3;
  before that every numeric field not part of the record's bookkeeping is a candidate),
  ``doc_hash``, ``prompt_hash``, ``target_hash`` and one field per metric (``acc``,
  ``acc_norm``, ``exact_match``, ...). ``date_id`` is ``datetime.now().isoformat()`` with ``:``
  replaced by ``-``.
* ``resps`` / ``filtered_resps`` pass through ``sanitize_list`` before writing (0.4.3 and
  later), which turns every leaf into a string: a multiple-choice document's ``filtered_resps``
  is ``[["-1.25", "False"], ["-0.31", "True"], ...]`` (loglikelihood, is-greedy per option);
  earlier versions wrote the numbers and booleans themselves. Both are read.
* ``arguments`` is ``{"gen_args_0": {"arg_0": context, "arg_1": continuation}, ...}`` from
  0.4.3 and ``[[context, continuation], ...]`` before.
* ``results_<date_id>.json`` next to the samples holds ``model_name`` (0.4.3 and later) and
  ``config.model_args`` (``"pretrained=<name>,..."``), from which the model id is taken.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_bool
from benchkit._validation import describe
from benchkit.io._declared import Declared
from benchkit.io._files import iter_json_lines
from benchkit.io._files import load_json
from benchkit.io._items import record_item
from benchkit.io._paths import expand_paths
from benchkit.io._paths import files_matching
from benchkit.io._schema import AnyValue
from benchkit.io._schema import Int
from benchkit.io._schema import ListOf
from benchkit.io._schema import Obj
from benchkit.io._schema import Str
from benchkit.io._schema import check
from benchkit.io._schema import nullable
from benchkit.io.tabular import _check_options
from benchkit.response_set import NO_ANSWER
from benchkit.response_set import ResponseSet

__all__ = ["read_lm_eval"]

_SAMPLES_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")
_BOOKKEEPING = frozenset({
    "doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
    "doc_hash", "prompt_hash", "target_hash", "task_name", "length_info",
})
# prefixes lm-eval's GeneralConfigTracker._get_model_name tries, in its order
_MODEL_ARG_KEYS = ("peft=", "delta=", "pretrained=", "model=", "path=", "engine=")
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_NO_ANSWER_TEXT = ("", "[invalid]")  # "[invalid]": the fallback of lm-eval's regex filters


def _expand(name: str, path_or_glob, pattern: str) -> list[Path]:
    """Files named by a path, a directory (searched recursively for ``pattern``) or a glob."""
    return expand_paths(name, path_or_glob, files_matching(pattern),
                        f"is a directory with no {pattern} files")


# the fields the reader uses (schema checked on every record, see benchkit.io._schema)
_RECORD = Obj({
    "doc_id": Int() | Str(nonempty=True),
    "target": AnyValue(),
    "filtered_resps": AnyValue(),
    "filter": Str(),
    "metrics": ListOf(Str()),
    "arguments": nullable(Obj() | ListOf(AnyValue())),
}, required=("doc_id", "target", "filtered_resps"))
_RESULTS = Obj({
    "model_name": nullable(Str()),
    "config": nullable(Obj({"model_args": nullable(Str() | Obj())})),
    "n-samples": nullable(Obj(values=Obj({"original": Int(min=0), "effective": Int(min=0)},
                                         required=("effective",)))),
    "results": nullable(Obj(values=Obj())),
    "configs": nullable(Obj(values=Obj({"metric_list": nullable(ListOf(Obj({"metric": AnyValue()})))}))),
})


def _results_file(sample_path: Path, date: str) -> tuple[Path | None, dict | None]:
    """The ``results_*.json`` of the run that wrote ``sample_path`` (same date id), read and checked."""
    same_run = sample_path.parent / f"results_{date}.json"
    if not same_run.is_file():
        return None, None
    data = load_json(same_run, what="an lm-eval results file")
    check(data, _RESULTS, str(same_run), "an lm-eval results file")
    return same_run, data


def _model_from_results(sample_path: Path, date: str, results: dict | None, results_path: Path | None) -> str:
    """The model id from the ``results_*.json`` written with ``sample_path``."""
    if results is None:
        candidates = sorted(sample_path.parent.glob("results_*.json"))
        if len(candidates) != 1:
            why = ("no results_*.json" if not candidates else
                   f"{len(candidates)} results files and none named results_{date}.json")
            raise BenchkitValueError(
                f"cannot tell the model of {str(sample_path)!r}: its folder has {why}; pass model=..."
            )
        results_path = candidates[0]
        results = load_json(results_path, what="an lm-eval results file")
        check(results, _RESULTS, str(results_path), "an lm-eval results file")
    name = results.get("model_name")
    if name:
        return name
    args = (results.get("config") or {}).get("model_args")
    if isinstance(args, Mapping):  # the Python API accepts a dict of model_args
        for key in ("peft", "delta", "pretrained", "model", "path", "engine"):
            if args.get(key):
                return str(args[key])
    elif isinstance(args, str):
        for prefix in _MODEL_ARG_KEYS:
            if prefix in args:
                return args.split(prefix, 1)[1].split(",")[0]
    raise BenchkitValueError(
        f"{str(results_path)!r} names no model (no 'model_name', and config.model_args "
        f"{describe(args)} has none of {', '.join(k.rstrip('=') for k in _MODEL_ARG_KEYS)}); "
        "pass model=..."
    )


def _check_declared(declared: Declared, results: dict | None, results_path: Path | None, task: str,
                    metric: str, filter_name: str, values: list[float]) -> None:
    """Compare a task's documents and mean metric with the run's ``n-samples`` and ``results``."""
    if results is None:
        return
    where = str(results_path)
    counts = (results.get("n-samples") or {}).get(task)
    if counts is not None:
        declared.count(where, f"task {task!r}: documents (n-samples.effective)", counts["effective"],
                       len(values))
    metric_list = ((results.get("configs") or {}).get(task) or {}).get("metric_list") or []
    aggregation = next((m.get("aggregation") for m in metric_list if m.get("metric") == metric), None)
    summary = ((results.get("results") or {}).get(task) or {}).get(f"{metric},{filter_name}")
    if aggregation == "mean" and isinstance(summary, (int, float)) and not isinstance(summary, bool):
        declared.score(where, f"task {task!r}: {metric},{filter_name} (the mean over documents)", summary,
                       float(np.mean(values)))


def _as_float(value) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _as_bool(value) -> bool | None:
    if isinstance(value, bool):
        return value
    if value in ("True", "False"):
        return value == "True"
    return None


def _loglikelihoods(filtered) -> list[float] | None:
    """``[[ll, is_greedy], ...]`` (strings or numbers) -> the lls; None if not that shape."""
    if not isinstance(filtered, list) or not filtered:
        return None
    lls = []
    for entry in filtered:
        if not isinstance(entry, (list, tuple)) or len(entry) != 2:
            return None
        ll = _as_float(entry[0])
        if ll is None or _as_bool(entry[1]) is None:
            return None
        lls.append(ll)
    return lls


def _continuations(arguments) -> list[str] | None:
    if isinstance(arguments, Mapping):  # 0.4.3+: {"gen_args_i": {"arg_j": ...}}
        try:
            keys = sorted(arguments, key=lambda k: int(str(k).rsplit("_", 1)[1]))
            return [str(arguments[k]["arg_1"]) for k in keys]
        except (KeyError, IndexError, ValueError, TypeError):
            return None
    if isinstance(arguments, list):  # before 0.4.3: [[context, continuation], ...]
        try:
            return [str(a[1]) for a in arguments]
        except (IndexError, TypeError, KeyError):
            return None
    return None


def _metric_candidates(record: Mapping) -> list[str]:
    listed = record.get("metrics")
    if isinstance(listed, list) and listed:
        return [str(m) for m in listed]
    return [k for k, v in record.items()
            if k not in _BOOKKEEPING and (isinstance(v, (bool, int, float)))]


def _pick(option, task: str):
    if isinstance(option, Mapping):
        return option.get(task)
    return option


def _answer_text(value) -> Any:
    """The response as one answer state; None for what is not one response (several, an object)."""
    if value is None:
        return NO_ANSWER
    if isinstance(value, list):
        return _answer_text(value[0]) if len(value) == 1 else None
    if isinstance(value, dict):
        return None
    text = str(value)
    return NO_ANSWER if text.strip() in _NO_ANSWER_TEXT else text


def read_lm_eval(path_or_glob, *, metric: str | Mapping[str, str] | None = None,
                 filter: str | Mapping[str, str] | None = None, model: str | None = None,
                 tasks: Sequence[str] | None = None, option_logprobs: bool | str = "auto",
                 allow_partial: bool = False, **options) -> ResponseSet:
    r"""Read lm-evaluation-harness ``samples_<task>_<timestamp>.jsonl`` files into a ResponseSet.

    Parameters
    ----------
    path_or_glob : str, path, or list of them
        A samples file, a directory (searched recursively for ``samples_*.jsonl``; lm-eval writes
        one folder per model under ``--output_path``) or a glob.
    metric : str or dict, optional
        The per-document metric that becomes ``correct`` (``"acc"``, ``"acc_norm"``,
        ``"exact_match"``, ...), or a dict task -> metric. Default: the first metric of the
        record's ``metrics`` list, which lm-eval (0.4.3 and later) writes in the order of the
        task's ``metric_list`` -- the task's primary metric (``acc`` for the multiple-choice
        default ``[acc, acc_norm]``). Records without that list (lm-eval before 0.4.3) must log
        exactly one metric; otherwise the error lists the candidates. Values must be 0/1,
        booleans or scores in [0, 1]. ``meta["metric"]`` records the choice per task.
    filter : str or dict, optional
        The filter pipeline whose records are read (lm-eval logs a document once per filter,
        e.g. gsm8k's ``"strict-match"`` and ``"flexible-extract"``). Needed only when a task
        logs several; the error lists them. ``"first"`` takes each task's first filter in the
        file (lm-eval writes them in the task's ``filter_list`` order); ``benchkit info`` uses it.
    model : str, optional
        The model id for every file. Default: from the ``results_<timestamp>.json`` next to
        each samples file (``model_name``, else the ``pretrained=``/``model=``/... entry of
        ``config.model_args``).
    tasks : sequence of str, optional
        Read only these tasks (the names in the file names).
    option_logprobs : {"auto", True, False}
        Keep the per-option loglikelihoods of multiple-choice documents as ``option_logprobs``.
        "auto" keeps them when every document is multiple choice with the same number of
        options; True makes that an error otherwise.
    allow_partial : bool
        The run's ``results_<timestamp>.json`` declares each task's number of documents
        (``n-samples``) and its summary score per metric and filter (``results``); a samples file
        with other counts or another mean (a cut or edited log) is an error naming both numbers
        unless True, which reads it with a :class:`BenchkitWarning` and lists the mismatches in
        ``meta["partial"]``.
    **options
        Passed to :meth:`ResponseSet.from_long` (``T=``, ``name=``, ``meta=``, ...).

    Returns
    -------
    ResponseSet
        Items ``"<task>/<doc_id>"`` with ``benchmark`` = task, ``target`` (the logged target) and
        ``answer_key`` (the target as a letter when it is an option index or a letter); for
        all-multiple-choice data also ``options`` (the continuations, stripped). One sample per
        (model, item). ``answer`` is the chosen option's letter for multiple choice and the
        filtered response for generation. ``meta`` records files, metric and filter per task.

    Notes
    -----
    A multiple-choice document is one whose ``filtered_resps`` is a list of at least two
    (loglikelihood, is-greedy) pairs. The chosen option is the argmax of the loglikelihoods,
    as lm-eval's ``acc``; with ``metric="acc_norm"`` it is the argmax of loglikelihood divided
    by the continuation's length in characters, as lm-eval's ``acc_norm``. A single
    loglikelihood request (e.g. lambada) gets the answer state ``"greedy"`` / ``"not greedy"``.
    Generation responses that are empty or lm-eval's ``"[invalid]"`` (the regex filters'
    fallback) get :data:`benchkit.NO_ANSWER`. The same document twice for one model (two runs
    of a task in one folder, or a repeated ``doc_id``) is an error naming both places.

    References
    ----------
    L. Gao et al., "A framework for few-shot language model evaluation" (lm-evaluation-harness),
    Zenodo, https://github.com/EleutherAI/lm-evaluation-harness; its documentation of
    ``--log_samples`` (``docs/interface.md``).

    Examples
    --------
    A samples file of a generation task with two documents:

    >>> import json, pathlib, tempfile
    >>> from benchkit import io
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> recs = [{"doc_id": i, "target": t, "filtered_resps": [r], "filter": "none",
    ...          "metrics": ["exact_match"], "exact_match": float(r == t)}
    ...         for i, (t, r) in enumerate([("4", "4"), ("6", "5")])]
    >>> path = tmp / "samples_toy_2026-01-01T00-00-00.jsonl"
    >>> _ = path.write_text("\n".join(json.dumps(r) for r in recs))
    >>> rs = io.read_lm_eval(path, model="acme/m1")
    >>> rs.to_long()[["model", "item", "correct", "answer"]]
         model   item  correct answer
    0  acme/m1  toy/0      1.0      4
    1  acme/m1  toy/1      0.0      5
    >>> rs.meta["metric"]
    {'toy': 'exact_match'}
    """
    _check_options("long", options, reader="read_lm_eval")
    allow_partial = check_bool("allow_partial", allow_partial)
    files = _expand("path_or_glob", path_or_glob, "samples_*.jsonl")
    if option_logprobs not in ("auto", True, False):
        raise BenchkitValueError(
            f"option_logprobs={option_logprobs!r} is not allowed; choose 'auto', True or False"
        )
    if model is not None and (not isinstance(model, str) or not model):
        raise BenchkitTypeError(f"model must be a non-empty string, got {describe(model)}")
    if isinstance(tasks, str):
        raise BenchkitTypeError(f"tasks must be a list of task names, got the string {tasks!r}; "
                                f"write tasks=[{tasks!r}]")
    wanted = None if tasks is None else {str(t) for t in tasks}
    rows: list[dict] = []
    items: dict[str, dict] = {}
    item_where: dict[str, str] = {}
    seen: dict[tuple[str, str], str] = {}
    used_metric: dict[str, str] = {}
    used_filter: dict[str, str] = {}
    read_files: list[str] = []
    skipped_filters: dict[str, dict] = {}
    declared = Declared()
    for path in files:
        m = _SAMPLES_NAME.match(path.name)
        if m is None:
            raise BenchkitValueError(
                f"{str(path)!r} is not named like an lm-eval samples file "
                "(samples_<task>_<YYYY-MM-DDTHH-MM-SS.ffffff>.jsonl)"
            )
        task, date = m.group("task"), m.group("date")
        if wanted is not None and task not in wanted:
            continue
        results_path, results = _results_file(path, date)
        model_id = model if model is not None else _model_from_results(path, date, results, results_path)
        records = []
        for lineno, rec in iter_json_lines(path, what="an lm-eval samples file"):
            check(rec, _RECORD, f"{path}:{lineno}", "an lm-eval samples record")
            records.append((lineno, rec))
        if not records:
            raise BenchkitValueError(f"{str(path)!r} has no records")
        read_files.append(str(path))
        filters = sorted({str(r.get("filter", "none")) for _, r in records})
        chosen_filter = _pick(filter, task)
        if chosen_filter == "first":  # the task's first filter, in the order lm-eval wrote them
            in_order = [str(r.get("filter", "none")) for _, r in records]
            chosen_filter = in_order[0] if "first" not in in_order else "first"
        if chosen_filter is None:
            if len(filters) > 1:
                raise BenchkitValueError(
                    f"task {task!r} ({path.name}) logs several filters {filters}; pass filter=... "
                    "(a name, or a dict task -> name)"
                )
            chosen_filter = filters[0]
        elif chosen_filter not in filters:
            raise BenchkitValueError(
                f"filter {chosen_filter!r} is not logged for task {task!r} ({path.name}); "
                f"available: {filters}"
            )
        n_all = len(records)
        records = [(ln, r) for ln, r in records if str(r.get("filter", "none")) == chosen_filter]
        if n_all > len(records):
            entry = skipped_filters.setdefault(task, {"filters": [], "records": 0})
            entry["filters"] = sorted(set(entry["filters"]) | {f for f in filters if f != chosen_filter})
            entry["records"] += n_all - len(records)
        listed_first = records[0][1].get("metrics")
        for ln, r in records:
            if r.get("metrics") != listed_first:
                raise BenchkitValueError(
                    f"{path}:{ln}: metrics is {describe(r.get('metrics'))} but {path}:{records[0][0]} lists "
                    f"{describe(listed_first)}; every document of a task logs the same metrics"
                )
        candidates = _metric_candidates(records[0][1])
        chosen_metric = _pick(metric, task)
        listed = records[0][1].get("metrics")
        if chosen_metric is None and isinstance(listed, list) and listed:
            # lm-eval 0.4.3+ lists the task's metric_list in order: the first is the task's
            # primary metric (acc before acc_norm for multiple choice)
            chosen_metric = str(listed[0])
        if chosen_metric is None:
            if len(candidates) != 1:
                raise BenchkitValueError(
                    f"task {task!r} ({path.name}) logs {len(candidates)} metrics {candidates}; pass "
                    "metric=... (a name, or a dict task -> name)"
                    if candidates else
                    f"task {task!r} ({path.name}) logs no per-document metric"
                )
            chosen_metric = candidates[0]
        used_metric[task] = chosen_metric
        used_filter[task] = chosen_filter
        values: list[float] = []
        for lineno, rec in records:
            where = f"{path}:{lineno}"
            if chosen_metric not in rec:
                raise BenchkitValueError(
                    f"{where}: record has no metric {chosen_metric!r}; available: "
                    f"{_metric_candidates(rec)}"
                )
            raw = rec[chosen_metric]
            value = float(raw) if isinstance(raw, bool) else _as_float(raw)
            if value is None or math.isnan(value) or not 0.0 <= value <= 1.0:
                raise BenchkitValueError(
                    f"{where}: metric {chosen_metric!r} is {describe(raw)}; correct must be 0/1 or a "
                    "score in [0, 1] (choose another metric)"
                )
            values.append(value)
            item = f"{task}/{rec['doc_id']}"
            key = (model_id, item)
            if key in seen:
                raise BenchkitValueError(
                    f"duplicate document: model {model_id!r}, item {item!r} appears at {seen[key]} "
                    f"and {where}"
                )
            seen[key] = where
            target = str(rec["target"])
            lls = _loglikelihoods(rec["filtered_resps"])
            row = {"model": model_id, "item": item, "correct": value}
            answer_key = None
            opts = None
            if lls is not None and not all((math.isfinite(x) and x <= 0) or x == -math.inf for x in lls):
                raise BenchkitValueError(
                    f"{where}: filtered_resps holds the log-likelihoods {lls}; allowed: finite numbers "
                    "<= 0 or -inf (NaN, +inf and positive numbers are not log-likelihoods)"
                )
            if lls is not None and len(lls) >= 2 and all(x == -math.inf for x in lls):
                raise BenchkitValueError(
                    f"{where}: every option's log-likelihood is -inf, so no option can be chosen (the "
                    "model gave every option probability 0); fix or drop this document"
                )
            if lls is not None and len(lls) >= 2:
                k = len(lls)
                conts = _continuations(rec.get("arguments"))
                scores = np.asarray(lls)
                if chosen_metric == "acc_norm" and conts is not None and len(conts) == k:
                    scores = scores / np.array([max(len(c), 1) for c in conts], dtype=float)
                row["answer"] = _LETTERS[int(np.argmax(scores))] if k <= 26 else str(int(np.argmax(scores)))
                row["option_logprobs"] = lls
                if target.isdigit() and int(target) < min(k, 26):
                    answer_key = _LETTERS[int(target)]
                elif len(target) == 1 and target in _LETTERS[:k]:
                    answer_key = target
                if conts is not None and len(conts) == k:
                    opts = [c.strip() for c in conts]
            elif lls is not None:
                greedy = _as_bool(rec["filtered_resps"][0][1])
                row["answer"] = "greedy" if greedy else "not greedy"
            else:
                row["answer"] = _answer_text(rec["filtered_resps"])
                if not isinstance(row["answer"], str):
                    raise BenchkitValueError(
                        f"{where}: filtered_resps is {describe(rec['filtered_resps'])}; allowed: one "
                        "response (a string, or a list holding one), or [log-likelihood, is-greedy] "
                        "pairs for loglikelihood and multiple-choice tasks"
                    )
            rows.append(row)
            entry = {"item": item, "benchmark": task, "target": target, "answer_key": answer_key,
                     "options": opts}
            record_item(items, item_where, entry, where, ("target", "options"))
        _check_declared(declared, results, results_path, task, chosen_metric, chosen_filter, values)
    partial = declared.settle(allow_partial)
    if not rows:
        raise BenchkitValueError(
            f"no samples read from {len(files)} file(s)"
            + (f" for tasks {sorted(wanted)}" if wanted is not None else "")
        )
    frame = pd.DataFrame.from_records(rows)
    if "option_logprobs" in frame.columns:
        mc = frame["option_logprobs"].notna()
    else:
        mc = pd.Series(False, index=frame.index)
    ks = frame.loc[mc, "option_logprobs"].map(len).unique() if mc.any() else []
    keep = bool(mc.all()) and len(ks) == 1
    if option_logprobs is True and not keep:
        raise BenchkitValueError(
            "option_logprobs=True needs every document to be multiple choice with the same number "
            f"of options; found {int((~mc).sum())} non-multiple-choice rows and option counts "
            f"{sorted(int(k) for k in ks)}"
        )
    if "option_logprobs" in frame.columns and not (keep and option_logprobs is not False):
        frame = frame.drop(columns="option_logprobs")
    item_frame = pd.DataFrame.from_records(list(items.values()))
    if not item_frame["options"].map(lambda o: o is not None).all():
        item_frame = item_frame.drop(columns="options")
    meta = {"source": "lm-evaluation-harness", "files": read_files, "metric": used_metric,
            "skipped_filters": skipped_filters, "partial": partial,
            "filter": used_filter, **dict(options.pop("meta", None) or {})}
    return ResponseSet.from_long(frame, items=item_frame, meta=meta, **options)
