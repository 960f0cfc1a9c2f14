"""Inspect AI evaluation logs (``.eval`` archives and ``.json`` logs) -> :class:`benchkit.ResponseSet`.

Format read (UKGovernmentBEIS/inspect_ai, ``src/inspect_ai/log/_log.py`` and
``src/inspect_ai/log/_recorders/eval.py``; log schema version 2, inspect_ai 0.3.x):

* ``.eval`` (the default format since inspect_ai 0.3.46): a zip archive with ``header.json``
  (the ``EvalLog`` without samples: ``version``, ``status``, ``eval`` (EvalSpec: ``task``,
  ``model``, ``run_id``, ``dataset``, ``config``, ...), ``plan``, ``results``, ``stats``),
  ``samples/<id>_epoch_<n>.json`` (one EvalSample each), ``summaries.json`` and the write
  journal ``_journal/start.json`` + ``_journal/summaries/<k>.json``. A log still being written
  (or from a crashed run) has no ``header.json``; its ``_journal/start.json`` is read instead.
  Archives from the first ``.eval`` releases kept ``start.json`` / ``results.json`` at the top
  level; those are read too.
  Members are compressed with zstd (zip method 93) by current inspect_ai (0.3.285 tested) and
  with deflate by older releases; both are decompressed in memory (:mod:`benchkit.io._zip`),
  whatever Python's own :mod:`zipfile` supports.
  ``summaries.json`` holds one EvalSampleSummary per (sample, epoch): ``id``, ``epoch``,
  ``input``, ``choices``, ``target``, ``scores`` (answers and explanations shortened by inspect's
  ``thin_text`` to 1,000 characters), ``error`` (a string). By default only ``header.json`` and
  ``summaries.json`` are decompressed -- the sample files hold the whole transcript and are most
  of the archive; ``full_samples=True`` reads ``samples/*.json`` instead.
* ``.json``: the whole EvalLog in one JSON object, samples under ``"samples"``.
* EvalSample: ``id`` (int or str), ``epoch`` (1-based), ``input``, ``choices`` (list of str for
  multiple choice, else absent), ``target`` (str or list of str), ``output``, ``scores``
  (scorer name -> Score: ``value``, ``answer``, ``explanation``, ``metadata``), ``error``.
  Logs of schema version 1 had a single ``score`` instead of ``scores``; it is read as the
  scorer named ``"score"``.

Score values: the letters of ``inspect_ai.scorer`` (``CORRECT="C"``, ``INCORRECT="I"``,
``PARTIAL="P"``, ``NOANSWER="N"``) map to 1, 0, 0.5, 0 as in inspect's ``value_to_float``;
booleans to 1/0; "yes"/"true" and "no"/"false" (any case) to 1/0; numbers (and numeric
strings) are kept and must lie in [0, 1].
"""
from __future__ import annotations

import json
import math
import re
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import BenchkitWarning
from benchkit._validation import check_bool
from benchkit._validation import describe
from benchkit.io._declared import Declared
from benchkit.io._files import load_json
from benchkit.io._files import sniff
from benchkit.io._items import record_item
from benchkit.io._items import record_response
from benchkit.io._paths import expand_paths
from benchkit.io._paths import files_in
from benchkit.io._schema import AnyValue
from benchkit.io._schema import Bool
from benchkit.io._schema import Int
from benchkit.io._schema import ListOf
from benchkit.io._schema import Num
from benchkit.io._schema import Obj
from benchkit.io._schema import Str
from benchkit.io._schema import check
from benchkit.io._schema import nullable
from benchkit.io._zip import NotAZipError
from benchkit.io._zip import ZipMembers
from benchkit.io._zip import max_member_bytes as _member_cap
from benchkit.io.tabular import _check_options
from benchkit.response_set import ResponseSet

__all__ = ["read_inspect", "score_to_float"]

_SAMPLE_ENTRY = re.compile(r"^samples/(?P<id>.+)_epoch_(?P<epoch>\d+)\.json$")
_LETTER_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ID = Str(nonempty=True, text="a non-empty string") | Int()
# the fields the reader uses (schema checked on every header and sample, see benchkit.io._schema)
_HEADER = Obj({
    "status": nullable(Str()),
    "eval": Obj({
        "task": Str(nonempty=True), "model": Str(nonempty=True), "run_id": nullable(Str()),
        "dataset": nullable(Obj({"sample_ids": nullable(ListOf(_ID)), "samples": nullable(Int(min=0))})),
        "config": nullable(Obj({"epochs": nullable(Int(min=1))})),
        "headline_metric": nullable(Obj({"scorer": nullable(Str())})),
    }, required=("task", "model")),
    "results": nullable(Obj({
        "total_samples": nullable(Int(min=0)),
        "scores": nullable(ListOf(Obj({
            "name": nullable(Str()), "scorer": nullable(Str()), "reducer": nullable(Str()),
            "scored_samples": nullable(Int(min=0)),
            "metrics": nullable(Obj(values=Obj({"value": AnyValue()}, required=("value",)))),
        }))),
    })),
}, required=("eval",))
_SCORE = Obj({"value": AnyValue(), "answer": nullable(Str() | Num() | Bool())}, required=("value",))
_SAMPLE = Obj({
    "id": _ID, "epoch": Int(min=1),
    "target": nullable(Str() | ListOf(Str())),
    "choices": nullable(ListOf(Str())),
    "scores": nullable(Obj(values=_SCORE)),
    "score": nullable(_SCORE),
    "error": nullable(Str() | Obj()),
}, required=("id", "epoch"))


def score_to_float(value: Any) -> float | None:
    """An Inspect score value as a number: C/I/P/N -> 1/0/0.5/0, bool -> 1/0, numbers as is.

    Returns None for values with no single number (dicts, lists, other strings).

    Parameters
    ----------
    value : Any
        A score's ``value`` as an Inspect log stores it.

    Returns
    -------
    float or None
        The number :func:`read_inspect` uses as ``correct``; "yes"/"true" and "no"/"false" (any
        case) give 1 and 0, numeric strings their number.

    References
    ----------
    Inspect AI (UK AI Security Institute), https://inspect.aisi.org.uk/scorers.html
    (``CORRECT``, ``INCORRECT``, ``PARTIAL``, ``NOANSWER`` and ``value_to_float``).

    Examples
    --------
    >>> from benchkit.io.inspect_logs import score_to_float
    >>> [score_to_float(v) for v in ["C", "I", "P", "N", True, 0.25, "yes", {"a": 1}]]
    [1.0, 0.0, 0.5, 0.0, 1.0, 0.25, 1.0, None]
    """
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        if value in _LETTER_VALUES:
            return _LETTER_VALUES[value]
        if value.lower() in ("yes", "true"):
            return 1.0
        if value.lower() in ("no", "false"):
            return 0.0
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _files(path_or_glob) -> list[Path]:
    return expand_paths("path_or_glob", path_or_glob, _logs_in, "is a directory with no .eval or .json logs")


def _logs_in(p: Path) -> list[Path]:
    # a log folder also holds inspect's listing files (logs.json); keep EvalLog JSON only
    return files_in(p, lambda q: q.suffix == ".eval" or (q.suffix == ".json" and _looks_like_log(q)))


def _looks_like_log(path: Path) -> bool:
    try:
        head = sniff(path, 4096)
    except BenchkitValueError:
        return False
    return b'"eval"' in head and b'"version"' in head


def _zip_json(zf: ZipMembers, name: str, path: Path):
    data = zf.read(name)
    try:
        return json.loads(data)
    except UnicodeDecodeError as exc:
        raise BenchkitValueError(f"{path}: archive entry {name!r} is not UTF-8 JSON ({exc.reason} at byte "
                                 f"{exc.start:,})") from None
    except json.JSONDecodeError as exc:
        raise BenchkitValueError(f"{path}: archive entry {name!r} is not valid JSON ({exc.msg})") from exc
    except RecursionError:
        raise BenchkitValueError(
            f"{path}: archive entry {name!r} nests JSON deeper than Python parses") from None


def _read_eval_archive(path: Path, full_samples: bool = False, max_member_bytes: int | None = None
                       ) -> tuple[dict, list[tuple[str, dict]], list[tuple[str, int]] | None]:
    """Header, samples and (when the samples come from member files) the summaries' (id, epoch) list."""
    cap = _member_cap(max_member_bytes)  # a bad cap is its own error, not "not a zip file"
    try:
        zf = ZipMembers(path, max_bytes=cap)
    except NotAZipError as exc:
        raise BenchkitValueError(f"{str(path)!r} is not an Inspect .eval archive (not a zip file)") from exc
    summarized = None
    with zf:
        names = zf.names()
        if "header.json" in names:
            header = _zip_json(zf, "header.json", path)
        elif "_journal/start.json" in names:
            header = _zip_json(zf, "_journal/start.json", path)
            header.setdefault("status", "started")
        elif "start.json" in names:
            header = _zip_json(zf, "start.json", path)
            if "results.json" in names:
                header.update(_zip_json(zf, "results.json", path))
        else:
            raise BenchkitValueError(
                f"{str(path)!r} has no header.json, _journal/start.json or start.json; entries: "
                f"{names[:6]}"
            )
        if not isinstance(header, dict):
            raise BenchkitValueError(f"{path}: the log header is {describe(header)}, not a JSON object")
        if "summaries.json" in names:
            summaries = _zip_json(zf, "summaries.json", path)
            if not isinstance(summaries, list):
                raise BenchkitValueError(f"{path}: summaries.json is not a list")
            if not full_samples:
                samples = [(f"{path}!summaries.json[{k}]", s) for k, s in enumerate(summaries)]
            else:
                summarized = [(s.get("id"), s.get("epoch")) for s in summaries if isinstance(s, Mapping)]
        if "summaries.json" not in names or full_samples:
            samples = [(f"{path}!{n}", _zip_json(zf, n, path)) for n in names if _SAMPLE_ENTRY.match(n)]
    return header, samples, summarized


def _read_json_log(path: Path) -> tuple[dict, list[tuple[str, dict]]]:
    data = load_json(path, what="an Inspect .json log")
    if not isinstance(data, dict) or "eval" not in data:
        raise BenchkitValueError(f"{str(path)!r} is not an Inspect log (no 'eval' field)")
    samples = data.get("samples") or []
    if not isinstance(samples, list):
        raise BenchkitValueError(f"{str(path)!r}: 'samples' is {describe(samples)}, not a list")
    return data, [(f"{path}: samples[{k}]", s) for k, s in enumerate(samples)]


def _is_zip(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"PK\x03\x04"
    except OSError:
        return False


def _missing(header: Mapping, found: list[tuple], summarized: list[tuple] | None) -> tuple[list[tuple], int]:
    """(id, epoch) pairs the log declares but does not hold, and how many are missing in all.

    Declared: the summaries (when the samples were read from member files), and the header's
    ``eval.dataset.sample_ids`` x epochs ``1..eval.config.epochs`` -- or, when the header lists
    no ids, the count ``results.total_samples``.
    """
    have = {(str(i), e) for i, e in found}
    declared: list[tuple] = []
    if summarized is not None:
        declared.extend((str(i), e) for i, e in summarized)
    spec = header["eval"]
    ids = (spec.get("dataset") or {}).get("sample_ids")
    epochs = (spec.get("config") or {}).get("epochs") or 1
    total = (header.get("results") or {}).get("total_samples")
    if ids and (total is None or total == len(ids) * epochs):
        declared.extend((str(i), e) for e in range(1, epochs + 1) for i in ids)
    missing = list(dict.fromkeys(pair for pair in declared if pair not in have))
    n_missing = len(missing)
    if total is not None and total - len(have) > n_missing:
        n_missing = total - len(have)  # the header counts more samples than it names
    return missing, n_missing


def _check_declared(declared: Declared, path: Path, header: Mapping, scored: dict[str, dict]) -> None:
    """Compare the epochs and each scorer's ``accuracy`` / ``scored_samples`` with what was read.

    ``scored`` maps a scorer to {sample id: [values over epochs]}. Inspect reduces a sample's
    epochs with the score's reducer (``mean`` by default) and takes ``accuracy`` as the mean over
    samples; only mean-reduced accuracies are compared.
    """
    epochs = ((header["eval"].get("config") or {}).get("epochs")) or 1
    for per_id in scored.values():
        longest = max((len(v) for v in per_id.values()), default=0)
        if longest > epochs:
            declared.count(str(path), "epochs per sample (eval.config.epochs)", epochs, longest)
            break
    for entry in (header.get("results") or {}).get("scores") or []:
        name = entry.get("scorer") or entry.get("name")
        per_id = scored.get(name)
        if not per_id:
            continue
        if entry.get("scored_samples") is not None:
            declared.count(str(path), f"scorer {name!r}: scored samples (scored_samples)",
                           entry["scored_samples"], len(per_id))
        accuracy = (entry.get("metrics") or {}).get("accuracy")
        if accuracy is not None and (entry.get("reducer") or "mean") == "mean":
            found = sum(sum(v) / len(v) for v in per_id.values()) / len(per_id)
            declared.score(str(path), f"scorer {name!r}: accuracy", accuracy["value"], found)


def _scores(sample: Mapping) -> dict | None:
    scores = sample.get("scores")
    if isinstance(scores, Mapping) and scores:
        return dict(scores)
    if isinstance(sample.get("score"), Mapping):  # schema version 1
        return {"score": sample["score"]}
    return None


def _default_scorer(header: Mapping) -> str | None:
    """The scorer inspect itself headlines: ``eval.headline_metric.scorer``, else the first score."""
    spec = header.get("eval") or {}
    headline = spec.get("headline_metric") if isinstance(spec, Mapping) else None
    if isinstance(headline, Mapping) and headline.get("scorer"):
        return str(headline["scorer"])
    results = header.get("results") or {}
    scores = results.get("scores") if isinstance(results, Mapping) else None
    if isinstance(scores, list) and scores and isinstance(scores[0], Mapping):
        return str(scores[0].get("scorer") or scores[0].get("name") or "") or None
    return None


def _error_text(sample: Mapping) -> str | None:
    error = sample.get("error")
    if not error:
        return None
    if isinstance(error, Mapping):
        return str(error.get("message", error))
    return str(error)


def read_inspect(path_or_glob, *, scorer: str | None = None, model: str | None = None,
                 drop_unscored: bool = False, full_samples: bool = False, allow_partial: bool = False,
                 max_member_bytes: int | None = None, **options) -> ResponseSet:
    """Read Inspect AI logs (``.eval`` archives or ``.json``) into a ResponseSet.

    Parameters
    ----------
    path_or_glob : str, path, or list of them
        A log file, a log directory (searched recursively for ``.eval`` and EvalLog ``.json``
        files) or a glob.
    scorer : str, optional
        The scorer whose value becomes ``correct``. Default: the one inspect headlines --
        ``eval.headline_metric.scorer`` when the task declares it, else the first scorer of the
        log's ``results.scores`` (the first scorer the task lists), else the only score the
        samples carry. Samples with several scores and no such default are an error naming them.
    model : str, optional
        Override the model id (default ``eval.model``, e.g. ``"openai/gpt-4o"``).
    drop_unscored : bool
        Samples without the scorer's score (errored or cancelled samples) are an error naming
        them (with inspect's error message) unless True; then they are left out and listed in
        ``meta["unscored"]`` as ``{"where", "id", "epoch", "error"}`` -- which is what inspect's
        own ``results`` do (``completed_samples`` counts only scored samples). Combine with
        ``drop_incomplete=True`` when that leaves some epochs short.
    full_samples : bool
        Read the ``samples/*.json`` members of ``.eval`` archives instead of ``summaries.json``
        (whole answers rather than inspect's 1,000-character summaries; several times slower).
    allow_partial : bool
        A log that holds fewer samples than it declares (``eval.dataset.sample_ids`` x
        ``eval.config.epochs``, ``results.total_samples``, and with ``full_samples=True`` the
        entries of ``summaries.json``) -- e.g. an archive with sample members deleted, or a run
        that stopped --, more epochs than ``eval.config.epochs``, or a scorer whose
        ``scored_samples`` or (mean-reduced) ``accuracy`` in ``results.scores`` differs from what
        the samples give, is an error naming both numbers and every missing (id, epoch) unless
        True; then the log is read with a :class:`BenchkitWarning`, the mismatches are listed in
        ``meta["partial"]`` and the missing samples in ``meta["missing"]`` as ``{"file", "id",
        "epoch"}`` (``id`` None when the header gives only a count). The same option reads
        partial logs in every reader.
    max_member_bytes : int, optional
        The largest decompressed size of one ``.eval`` archive member (default 256 MiB, or the
        environment variable ``BENCHKIT_MAX_MEMBER_BYTES``); larger members are refused before
        they fill memory.
    **options
        Passed to :meth:`ResponseSet.from_long`.

    Returns
    -------
    ResponseSet
        Items ``"<task>/<sample id>"`` with ``benchmark`` = task, ``target`` and, for
        multiple-choice samples (``choices`` present) whose target is one letter,
        ``answer_key``; ``options`` when every sample has choices. ``sample`` = epoch - 1;
        ``answer`` = the score's ``answer`` (:data:`benchkit.NO_ANSWER` when absent or empty).
        ``meta["scorer"]`` names the scorer used per log file.

    Notes
    -----
    ``correct`` follows :func:`score_to_float` (inspect's ``value_to_float``), so a model's
    accuracy per item and epoch reproduces inspect's ``accuracy()`` metric (mean over samples
    of the epoch-mean, inspect's default ``mean`` reducer). A log whose status is not
    ``"success"`` is read with a :class:`BenchkitWarning`. The same (model, task, sample id,
    epoch) in two logs is an error naming both (e.g. a retried run next to the original: pass
    only one), and so is one item whose target or choices differ between two logs.

    References
    ----------
    Inspect AI (UK AI Security Institute), https://inspect.aisi.org.uk/eval-logs.html (the
    ``.eval`` and ``.json`` log formats) and https://inspect.aisi.org.uk/scorers.html (score
    values).

    Examples
    --------
    A ``.json`` log of one model on two samples:

    >>> import json, pathlib, tempfile
    >>> from benchkit import io
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> log = {"version": 2, "status": "success", "eval": {"task": "toy", "model": "acme/m1"},
    ...        "samples": [
    ...            {"id": 1, "epoch": 1, "target": "4", "scores": {"match": {"value": "C", "answer": "4"}}},
    ...            {"id": 2, "epoch": 1, "target": "6", "scores": {"match": {"value": "I", "answer": "5"}}}]}
    >>> _ = (tmp / "log.json").write_text(json.dumps(log))
    >>> io.read_inspect(tmp / "log.json").to_long()[["model", "item", "correct", "answer"]]
         model   item  correct answer
    0  acme/m1  toy/1      1.0      4
    1  acme/m1  toy/2      0.0      5
    """
    _check_options("long", options, reader="read_inspect")
    drop_unscored = check_bool("drop_unscored", drop_unscored)
    full_samples = check_bool("full_samples", full_samples)
    allow_partial = check_bool("allow_partial", allow_partial)
    if model is not None and (not isinstance(model, str) or not model):
        raise BenchkitTypeError(f"model must be a non-empty string, got {describe(model)}")
    if scorer is not None and (not isinstance(scorer, str) or not scorer):
        raise BenchkitTypeError(f"scorer must be a non-empty string, got {describe(scorer)}")
    rows: list[dict] = []
    items: dict[str, dict] = {}
    seen: dict[tuple, str] = {}
    unscored: list[dict] = []
    logs: list[dict] = []
    used_scorers: dict[str, str] = {}
    other_scorers: set[str] = set()
    missing_all: list[dict] = []
    item_where: dict[str, str] = {}
    declared = Declared()
    for path in _files(path_or_glob):
        summarized = None
        if path.suffix.lower() == ".eval" or _is_zip(path):
            header, samples, summarized = _read_eval_archive(path, full_samples, max_member_bytes)
        else:
            header, samples = _read_json_log(path)
        check(header, _HEADER, str(path), "an Inspect log header")
        for where, s in samples:
            check(s, _SAMPLE, where, "an Inspect sample")
        missing, n_missing = _missing(header, [(s["id"], s["epoch"]) for _, s in samples], summarized)
        if n_missing:
            shown = ", ".join(f"id {i!r} epoch {e}" for i, e in missing[:20])
            shown = f"; missing: {shown}" + (" ..." if len(missing) > 20 else "") if missing else ""
            what = f"samples (eval.dataset.sample_ids x epochs, results.total_samples){shown}"
            declared.count(str(path), what, len(samples) + n_missing, len(samples))
            missing_all.extend({"file": str(path), "id": i, "epoch": e} for i, e in missing)
            missing_all.extend({"file": str(path), "id": None, "epoch": None}
                               for _ in range(n_missing - len(missing)))
        spec = header["eval"]
        task = spec["task"]
        model_id = model or str(spec["model"])
        status = header.get("status")
        if status != "success":
            warnings.warn(f"{path.name}: log status is {status!r}, not 'success'; its samples may be "
                          "incomplete", BenchkitWarning, stacklevel=2)
        log_scorer = scorer or _default_scorer(header)
        logs.append({"file": str(path), "task": task, "model": model_id, "status": status,
                     "run_id": spec.get("run_id"), "samples": len(samples), "scorer": log_scorer})
        scored: dict[str, dict] = {}
        for where, s in samples:
            scores = _scores(s)
            name = log_scorer
            if scores is not None and name is None:
                if len(scores) > 1:
                    raise BenchkitValueError(
                        f"{where}: samples carry several scores {sorted(scores)} and the log names no "
                        "headline scorer; pass scorer=..."
                    )
                name = next(iter(scores))
            if scores is None or name not in scores:
                error = _error_text(s)
                if scores is not None and error is None and scorer is not None:
                    raise BenchkitValueError(
                        f"{where}: no score from scorer {name!r}; available: {sorted(scores)}"
                    )
                unscored.append({"where": where, "id": s["id"], "epoch": s["epoch"], "error": error})
                continue
            used_scorers[str(path)] = name
            other_scorers.update(k for k in scores if k != name)
            score = scores[name]
            value = score_to_float(score["value"])
            if value is None or math.isnan(value) or not 0.0 <= value <= 1.0:
                raise BenchkitValueError(
                    f"{where}: score {name!r} has value {describe(score['value'])}; allowed: C, I, P, "
                    "N, booleans, yes/no or numbers in [0, 1]"
                )
            epoch = s["epoch"]
            scored.setdefault(name, {}).setdefault(str(s["id"]), []).append(value)
            item = f"{task}/{s['id']}"
            record_response(rows, seen, {"model": model_id, "item": item, "sample": epoch - 1,
                                         "correct": value, "answer": score.get("answer")},
                            where, what="sample", label=f"epoch {epoch}")
            target = s.get("target")
            choices = s.get("choices")
            target_text = target if isinstance(target, str) else (
                " | ".join(map(str, target)) if isinstance(target, list) else None)
            key_letter = None
            if isinstance(choices, list) and isinstance(target_text, str) and len(target_text) == 1 \
                    and target_text in _LETTERS[:len(choices)]:
                key_letter = target_text
            entry = {"item": item, "benchmark": task, "target": target_text, "answer_key": key_letter,
                     "options": [str(c) for c in choices] if isinstance(choices, list) else None}
            record_item(items, item_where, entry, where, ("target", "options"))
        _check_declared(declared, path, header, scored)
    if unscored and not drop_unscored:
        shown = "; ".join(f"{u['where']} (sample {u['id']!r} epoch {u['epoch']}"
                          + (f", error: {u['error'][:80]!r})" if u["error"] else ", no scores)")
                          for u in unscored[:5])
        raise BenchkitValueError(
            f"{len(unscored)} samples have no score (errored or cancelled): {shown}"
            + (" ..." if len(unscored) > 5 else "")
            + "; pass drop_unscored=True to leave them out (they are listed in meta['unscored'], "
            "as inspect's own results leave them out)"
        )
    partial = declared.settle(allow_partial)
    if not rows:
        raise BenchkitValueError(
            "no scored samples in the logs" + (f" ({len(unscored)} unscored)" if unscored else "")
        )
    frame = pd.DataFrame.from_records(rows)
    item_frame = pd.DataFrame.from_records(list(items.values()))
    if not item_frame["options"].map(lambda o: o is not None).all():
        item_frame = item_frame.drop(columns="options")
    meta = {"source": "inspect_ai", "logs": logs, "scorer": sorted(set(used_scorers.values())),
            "unscored": unscored, "missing": missing_all, "partial": partial,
            "other_scorers": sorted(other_scorers),
            **dict(options.pop("meta", None) or {})}
    return ResponseSet.from_long(frame, items=item_frame, meta=meta, **options)
