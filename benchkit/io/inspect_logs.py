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

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import BenchkitWarning
from benchkit._validation import describe
from benchkit.io._items import record_item
from benchkit.io._items import record_response
from benchkit.io._paths import expand_paths
from benchkit.io._zip import ZipMembers
from benchkit.io._zip import max_member_bytes as _member_cap
from benchkit.io.tabular import _check_options
from benchkit.response_set import ResponseSet

__all__ = ["read_inspect", "score_to_float"]

_SAMPLE_ENTRY = re.compile(r"^samples/(?P<id>.+)_epoch_(?P<epoch>\d+)\.json$")
_LETTER_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def score_to_float(value: Any) -> float | None:
    """An Inspect score value as a number: C/I/P/N -> 1/0/0.5/0, bool -> 1/0, numbers as is.

    Returns None for values with no single number (dicts, lists, other strings).
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
    found = sorted(q for q in p.rglob("*") if q.suffix in (".eval", ".json") and q.is_file())
    # a log folder also holds inspect's listing files (logs.json); keep EvalLog JSON only
    return [q for q in found if q.suffix == ".eval" or _looks_like_log(q)]


def _looks_like_log(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return '"eval"' in head and '"version"' in head


def _zip_json(zf: ZipMembers, name: str, path: Path):
    try:
        return json.loads(zf.read(name))
    except json.JSONDecodeError as exc:
        raise BenchkitValueError(f"{path}: archive entry {name!r} is not valid JSON ({exc.msg})") from exc


def _read_eval_archive(path: Path, full_samples: bool = False, max_member_bytes: int | None = None
                       ) -> tuple[dict, list[tuple[str, dict]], list[tuple[str, int]] | None]:
    """Header, samples and (when the samples come from member files) the summaries' (id, epoch) list."""
    cap = _member_cap(max_member_bytes)  # a bad cap is its own error, not "not a zip file"
    try:
        zf = ZipMembers(path, max_bytes=cap)
    except BenchkitValueError as exc:
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
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BenchkitValueError(f"{str(path)!r} is not valid JSON ({exc.msg})") from exc
    except UnicodeDecodeError as exc:
        raise BenchkitValueError(f"{str(path)!r} is not UTF-8 text (an Inspect .json log is): {exc}") from exc
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
    spec = header.get("eval") if isinstance(header.get("eval"), Mapping) else {}
    dataset = spec.get("dataset") if isinstance(spec.get("dataset"), Mapping) else {}
    config = spec.get("config") if isinstance(spec.get("config"), Mapping) else {}
    results = header.get("results") if isinstance(header.get("results"), Mapping) else {}
    epochs = config.get("epochs") or 1
    total = results.get("total_samples")
    ids = dataset.get("sample_ids")
    if isinstance(epochs, int) and not isinstance(epochs, bool) and epochs >= 1:
        if isinstance(ids, list) and ids and (not isinstance(total, int) or total == len(ids) * epochs):
            declared.extend((str(i), e) for e in range(1, epochs + 1) for i in ids)
    missing = list(dict.fromkeys(pair for pair in declared if pair not in have))
    n_missing = len(missing)
    if isinstance(total, int) and not isinstance(total, bool) and total - len(have) > n_missing:
        n_missing = total - len(have)  # the header counts more samples than it names
    return missing, n_missing


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
                 drop_unscored: bool = False, full_samples: bool = False, allow_missing: bool = False,
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
    allow_missing : bool
        A log that holds fewer samples than it declares (``eval.dataset.sample_ids`` x
        ``eval.config.epochs``, ``results.total_samples``, and with ``full_samples=True`` the
        entries of ``summaries.json``) -- e.g. an archive with sample members deleted, or a run
        that stopped -- is an error naming every missing (id, epoch) unless True; then the
        missing ones are listed in ``meta["missing"]`` as ``{"file", "id", "epoch"}`` (``id``
        None when the header gives only a count) with a :class:`BenchkitWarning`.
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
    """
    _check_options("long", options, reader="read_inspect")
    for flag_name, flag in (("drop_unscored", drop_unscored), ("full_samples", full_samples),
                            ("allow_missing", allow_missing)):
        if not isinstance(flag, (bool, np.bool_)):
            raise BenchkitTypeError(f"{flag_name} must be True or False, got {describe(flag)}")
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
    for path in _files(path_or_glob):
        summarized = None
        if path.suffix.lower() == ".eval" or _is_zip(path):
            header, samples, summarized = _read_eval_archive(path, full_samples, max_member_bytes)
        else:
            header, samples = _read_json_log(path)
        for where, s in samples:
            if not isinstance(s, Mapping):
                raise BenchkitValueError(f"{where}: a sample must be a JSON object, got {describe(s)}")
            for field in ("id", "epoch"):
                if field not in s:
                    raise BenchkitValueError(f"{where}: sample has no field {field!r}")
            epoch = s["epoch"]
            if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
                raise BenchkitValueError(
                    f"{where}: epoch is {describe(epoch)}; allowed: an integer >= 1 (inspect numbers epochs "
                    "from 1)"
                )
            if isinstance(s["id"], bool) or not isinstance(s["id"], (int, str)) or s["id"] == "":
                raise BenchkitValueError(
                    f"{where}: sample id is {describe(s['id'])}; allowed: a non-empty string or an integer"
                )
        missing, n_missing = _missing(header, [(s.get("id"), s.get("epoch")) for _, s in samples],
                                      summarized)
        if n_missing:
            shown = ", ".join(f"id {i!r} epoch {e}" for i, e in missing[:20])
            text = (f"{path}: {n_missing} of the samples the log declares are missing"
                    + (f": {shown}" + (" ..." if len(missing) > 20 else "") if missing else
                       f" (results.total_samples = {header['results']['total_samples']}, found "
                       f"{len(samples)})"))
            if not allow_missing:
                raise BenchkitValueError(
                    text + "; pass allow_missing=True to read the rest (they are listed in meta['missing'])"
                )
            warnings.warn(text, BenchkitWarning, stacklevel=2)
            missing_all.extend({"file": str(path), "id": i, "epoch": e} for i, e in missing)
            missing_all.extend({"file": str(path), "id": None, "epoch": None}
                               for _ in range(n_missing - len(missing)))
        spec = header.get("eval")
        if not isinstance(spec, Mapping):
            raise BenchkitValueError(f"{str(path)!r}: the log header has no 'eval' object")
        for field in ("task", "model"):
            if not spec.get(field):
                raise BenchkitValueError(f"{str(path)!r}: the log header's eval has no field {field!r}")
        task = str(spec["task"])
        model_id = model or str(spec["model"])
        status = header.get("status")
        if status != "success":
            warnings.warn(f"{path.name}: log status is {status!r}, not 'success'; its samples may be "
                          "incomplete", BenchkitWarning, stacklevel=2)
        log_scorer = scorer or _default_scorer(header)
        logs.append({"file": str(path), "task": task, "model": model_id, "status": status,
                     "run_id": spec.get("run_id"), "samples": len(samples), "scorer": log_scorer})
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
            if not isinstance(score, Mapping) or "value" not in score:
                raise BenchkitValueError(f"{where}: score {name!r} has no 'value': {describe(score)}")
            value = score_to_float(score["value"])
            if value is None or math.isnan(value) or not 0.0 <= value <= 1.0:
                raise BenchkitValueError(
                    f"{where}: score {name!r} has value {describe(score['value'])}; allowed: C, I, P, "
                    "N, booleans, yes/no or numbers in [0, 1]"
                )
            epoch = int(s["epoch"])
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
    if not rows:
        raise BenchkitValueError(
            "no scored samples in the logs" + (f" ({len(unscored)} unscored)" if unscored else "")
        )
    frame = pd.DataFrame.from_records(rows)
    item_frame = pd.DataFrame.from_records(list(items.values()))
    if not item_frame["options"].map(lambda o: o is not None).all():
        item_frame = item_frame.drop(columns="options")
    meta = {"source": "inspect_ai", "logs": logs, "scorer": sorted(set(used_scorers.values())),
            "unscored": unscored, "missing": missing_all, "other_scorers": sorted(other_scorers),
            **dict(options.pop("meta", None) or {})}
    return ResponseSet.from_long(frame, items=item_frame, meta=meta, **options)
