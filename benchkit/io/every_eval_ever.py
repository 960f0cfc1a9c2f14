"""Every Eval Ever instance-level records <-> :class:`benchkit.ResponseSet`.

Format (evaleval/every_eval_ever, ``instance_level_eval.schema.json``; schema versions 0.2.1 of the
repository and 0.3.0 of the ``every-eval-ever`` 0.3.0 package, which adds
``evaluation_result_id``): JSON Lines, one object per (model, sample) with the required
fields ``schema_version``, ``evaluation_id`` (foreign key to the aggregate file), ``model_id``,
``evaluation_name`` (the eval, e.g. ``"GSM8K"``), ``sample_id``, ``interaction_type``
(``single_turn`` / ``multi_turn`` / ``agentic``), ``input`` (``raw``, ``reference``: list of str,
optional ``choices``), ``answer_attribution`` (list of ``{turn_idx, source, extracted_value,
extraction_method, is_terminal}``) and ``evaluation`` (``score``: number, ``is_correct``: bool);
optional ``output`` (``raw``: list of str), ``messages``, ``sample_hash``, ``error`` and
``metadata`` (str -> str), and (0.3.0) ``evaluation_result_id``, the aggregate result a record
feeds: a sample scored by several metrics (lm-eval's ``acc`` and ``acc_norm``, or one metric
under two filters, ``exact_match:strict``) appears once per result. No additional properties
are allowed at the top level.

The schema has no epoch or repeat field. :func:`write_every_eval_ever` stores benchkit's
``sample`` (and ``variant``, and the item id) in ``metadata`` (``"benchkit_sample"``,
``"benchkit_variant"``, ``"benchkit_item"``), which the schema allows; the reader uses them when
present and otherwise numbers repeated (model, item) records in file order.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_bool
from benchkit._validation import describe
from benchkit.io._declared import Declared
from benchkit.io._files import iter_json_lines
from benchkit.io._files import load_json
from benchkit.io._files import sniff
from benchkit.io._items import record_item
from benchkit.io._schema import AnyValue
from benchkit.io._schema import Bool
from benchkit.io._schema import Int
from benchkit.io._schema import ListOf
from benchkit.io._schema import Num
from benchkit.io._schema import Obj
from benchkit.io._schema import Str
from benchkit.io._schema import check
from benchkit.io._schema import nullable
from benchkit.io.lm_eval import _expand
from benchkit.io.tabular import _check_options
from benchkit.response_set import NO_ANSWER
from benchkit.response_set import ResponseSet

__all__ = ["SCHEMA_VERSION", "read_every_eval_ever", "write_every_eval_ever"]

SCHEMA_VERSION = "0.3.0"
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_SCALAR = Str() | Num() | Bool()
# the fields the reader uses (schema checked on every record, see benchkit.io._schema); the schema's
# required fields are required here too
_RECORD = Obj({
    "schema_version": Str(),
    "evaluation_id": Str(nonempty=True),
    "model_id": Str(nonempty=True),
    "evaluation_name": Str(nonempty=True),
    "evaluation_result_id": nullable(Str()),
    "sample_id": Str(nonempty=True) | Int(),
    "interaction_type": Str(),
    "input": Obj({"raw": nullable(Str()), "reference": nullable(ListOf(_SCALAR)),
                  "choices": nullable(ListOf(_SCALAR))}),
    "answer_attribution": ListOf(Obj({"extracted_value": nullable(_SCALAR),
                                      "is_terminal": nullable(Bool())})),
    "evaluation": Obj({"score": nullable(Num()), "is_correct": nullable(Bool())}),
    "metadata": nullable(Obj({
        "benchkit_item": Str(nonempty=True),
        "benchkit_sample": Str(pattern=r"\d{1,18}", text="a whole number >= 0 written as a string, e.g. '0'"),
        "benchkit_variant": Str(nonempty=True),
    }, values=AnyValue())),
}, required=("schema_version", "evaluation_id", "model_id", "evaluation_name", "sample_id",
             "interaction_type", "input", "answer_attribution", "evaluation"))
_AGGREGATE = Obj({
    "evaluation_results": nullable(ListOf(Obj({
        "evaluation_result_id": nullable(Str()),
        "evaluation_name": Str(),
        "score_details": nullable(Obj({"score": nullable(Num()),
                                       "uncertainty": nullable(Obj({"num_samples": nullable(Int(min=0))}))})),
    }, required=("evaluation_name",)))),
    "detailed_evaluation_results": nullable(Obj({
        "total_rows": nullable(Int(min=0)), "checksum": nullable(Str()), "hash_algorithm": nullable(Str()),
        "file_path": nullable(Str()),
    })),
})


def _records(path: Path):
    """(where, record) for a JSON Lines file or a JSON array of records."""
    if sniff(path, 4096, "an Every Eval Ever file").lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):
        data = load_json(path, what="an Every Eval Ever JSON file")
        if not isinstance(data, list):
            raise BenchkitValueError(f"{str(path)!r} is not a JSON array of records")
        for k, rec in enumerate(data):
            yield f"{path}[{k}]", rec
        return
    for lineno, rec in iter_json_lines(path, what="an Every Eval Ever JSON Lines file"):
        yield f"{path}:{lineno}", rec


def _aggregate_of(path: Path) -> tuple[Path | None, dict | None]:
    """The aggregate file whose ``detailed_evaluation_results`` points at the samples file ``path``."""
    stem = path.name[: -len("_samples.jsonl")] if path.name.endswith("_samples.jsonl") else None
    candidates = [path.with_name(f"{stem}.json")] if stem else []
    for cand in candidates:
        if cand.is_file():
            data = load_json(cand, what="an Every Eval Ever aggregate file")
            check(data, _AGGREGATE, str(cand), "an Every Eval Ever aggregate file")
            detail = data.get("detailed_evaluation_results") or {}
            if Path(str(detail.get("file_path") or path.name)).name == path.name:
                return cand, data
    return None, None


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _check_declared(declared: Declared, path: Path, n_records: int, counts: dict, values: dict) -> None:
    """Compare a samples file with its aggregate: rows, checksum, num_samples and score per result."""
    agg_path, agg = _aggregate_of(path)
    if agg is None:
        return
    where = str(agg_path)
    detail = agg.get("detailed_evaluation_results") or {}
    if detail.get("total_rows") is not None:
        declared.count(where, f"records in {path.name} (total_rows)", detail["total_rows"], n_records)
    if detail.get("checksum") and str(detail.get("hash_algorithm") or "sha256").lower() == "sha256":
        declared.count(where, f"sha256 of {path.name} (checksum)", detail["checksum"], _sha256(path))
    for res in agg.get("evaluation_results") or []:
        key = (res["evaluation_name"], res.get("evaluation_result_id"))
        details = res.get("score_details") or {}
        n = (details.get("uncertainty") or {}).get("num_samples")
        label = f"{key[0]}" + (f" / {key[1]}" if key[1] else "")
        if n is not None and key in counts:
            declared.count(where, f"{label}: samples (num_samples)", n, counts[key])
        if details.get("score") is not None and values.get(key):
            declared.score(where, f"{label}: score (the mean of evaluation.score)", details["score"],
                           sum(values[key]) / len(values[key]))


def _answer(rec: Mapping) -> str:
    attributions = rec.get("answer_attribution") or []
    terminal = [a for a in attributions if isinstance(a, Mapping) and a.get("is_terminal")]
    chosen = terminal[-1] if terminal else (attributions[-1] if attributions else None)
    value = chosen.get("extracted_value") if isinstance(chosen, Mapping) else None
    return NO_ANSWER if value is None or str(value) == "" else str(value)


def read_every_eval_ever(path_or_glob, *, correct: str = "score",
                         result: str | Mapping[str, str] | None = None, allow_partial: bool = False,
                         **options) -> ResponseSet:
    """Read Every Eval Ever instance-level JSONL files into a ResponseSet.

    Parameters
    ----------
    path_or_glob : str, path, or list of them
        A ``.jsonl`` file (or a ``.json`` array of records), a directory (searched recursively
        for ``*.jsonl``) or a glob.
    correct : {"score", "is_correct"}
        The field of ``evaluation`` that becomes ``correct``: ``score`` (default; must lie in
        [0, 1], so partial credit survives) or the boolean ``is_correct``.
    result : str or dict, optional
        The ``evaluation_result_id`` read (e.g. ``"acc_norm"``, ``"exact_match:strict"``), or a
        dict evaluation_name -> id. Default: per evaluation_name, the first id in file order
        (the converters write a task's primary metric first: lm-eval's ``acc`` before
        ``acc_norm``). Records of other results are skipped and counted in
        ``meta["skipped_results"]``; ``meta["result"]`` records the choice.
    allow_partial : bool
        The aggregate file written with a samples file (``<id>.json`` next to
        ``<id>_samples.jsonl``) declares the file's rows and sha256 and, per result, the number
        of samples and the score; a samples file that disagrees (cut, padded or edited) is an
        error naming both numbers unless True, which reads it with a :class:`BenchkitWarning`
        and lists the mismatches in ``meta["partial"]``.
    **options
        Passed to :meth:`ResponseSet.from_long`.

    Returns
    -------
    ResponseSet
        Items ``"<evaluation_name>/<sample_id>"`` (or ``metadata["benchkit_item"]``) with
        ``benchmark`` = evaluation_name, ``target`` (the references joined by ``" | "``),
        ``text`` (``input.raw``), ``options`` (``input.choices``, when every item has them) and
        ``answer_key`` (a single reference that is one of the option letters, or equal to one
        option's text). ``answer`` is the last terminal ``answer_attribution`` value.

    Notes
    -----
    Records with an ``error`` and no usable score are an error naming them (the schema requires a
    score, so such records are malformed). ``meta["evaluation_ids"]`` lists the runs read.
    Without ``metadata.benchkit_sample``, repeated (model, item) records of one file are numbered
    as samples in file order; the same (model, item) in two files, or a record repeated
    verbatim, is an error naming both places (a backup copy of the samples, not a second sample).

    References
    ----------
    EvalEval Coalition, Every Eval Ever, https://github.com/evaleval/every_eval_ever
    (``instance_level_eval.schema.json``, schema versions 0.2.1 and 0.3.0).

    Examples
    --------
    A round trip through :func:`write_every_eval_ever`:

    >>> import pathlib, tempfile
    >>> import pandas as pd
    >>> from benchkit import ResponseSet, io
    >>> rs = ResponseSet.from_long(pd.DataFrame({"model": ["m1", "m1"], "item": ["q1", "q2"],
    ...                                          "correct": [1, 0]}))
    >>> path = io.write_every_eval_ever(rs, pathlib.Path(tempfile.mkdtemp()) / "records.jsonl")
    >>> back = io.read_every_eval_ever(path)
    >>> back.to_long()[["model", "item", "correct"]]
      model item  correct
    0    m1   q1      1.0
    1    m1   q2      0.0
    """
    _check_options("long", options, reader="read_every_eval_ever")
    allow_partial = check_bool("allow_partial", allow_partial)
    if correct not in ("score", "is_correct"):
        raise BenchkitValueError(f"correct={correct!r} is not allowed; choose 'score' or 'is_correct'")
    files = _expand("path_or_glob", path_or_glob, "*.jsonl")
    rows: list[dict] = []
    items: dict[str, dict] = {}
    item_where: dict[str, str] = {}
    seen: dict[tuple, str] = {}
    counter: dict[tuple, int] = {}
    group_file: dict[tuple, tuple[Path, str]] = {}
    digests: dict[bytes, str] = {}
    runs: set[str] = set()
    chosen: dict[str, str | None] = {}
    skipped: dict[str, int] = {}
    declared = Declared()
    coverage: dict[tuple, dict] = {}
    for path in files:
        n_records = 0
        counts: dict[tuple, int] = {}
        values: dict[tuple, list[float]] = {}
        for where, rec in _records(path):
            check(rec, _RECORD, where, "an Every Eval Ever instance record")
            n_records += 1
            digest = hashlib.blake2b(json.dumps(rec, sort_keys=True).encode(), digest_size=16).digest()
            if digest in digests:
                raise BenchkitValueError(
                    f"{where} repeats the record at {digests[digest]} verbatim (a copied record, not a "
                    "second sample); remove the copy"
                )
            digests[digest] = where
            ename = rec["evaluation_name"]
            rid = rec.get("evaluation_result_id")
            counts[(ename, rid)] = counts.get((ename, rid), 0) + 1
            by_result = coverage.setdefault((rec["model_id"], ename), {})
            by_result.setdefault(rid, set()).add(str(rec["sample_id"]))
            if ename not in chosen:
                wanted = result.get(ename) if isinstance(result, Mapping) else result
                chosen[ename] = wanted if wanted is not None else rid
            if chosen[ename] is not None and rid != chosen[ename]:
                skipped[str(rid)] = skipped.get(str(rid), 0) + 1
                continue
            meta = rec.get("metadata") or {}
            evaluation = rec["evaluation"]
            raw = evaluation.get(correct)
            if raw is None:
                raise BenchkitValueError(f"{where}: evaluation has no {correct!r}: {describe(evaluation)}")
            if correct == "score" and not 0.0 <= raw <= 1.0:
                raise BenchkitValueError(
                    f"{where}: evaluation.score is {describe(raw)}; correct must lie in [0, 1] "
                    "(pass correct='is_correct' for scores on another scale)"
                )
            value = float(raw)
            if evaluation.get("score") is not None:
                values.setdefault((ename, rid), []).append(float(evaluation["score"]))
            item = str(meta.get("benchkit_item") or f"{ename}/{rec['sample_id']}")
            model = rec["model_id"]
            variant = meta.get("benchkit_variant")
            group = (model, item, variant)
            if "benchkit_sample" in meta:
                sample = int(meta["benchkit_sample"])
            else:
                other = group_file.setdefault(group, (path, where))
                if other[0] != path:
                    raise BenchkitValueError(
                        f"duplicate record: model {model!r}, item {item!r} appears in {other[1]} and "
                        f"{where}; records of one (model, item) in two files are a copied log, not repeated "
                        "samples (repeated samples stand in one file, or carry metadata.benchkit_sample)"
                    )
                sample = counter.get(group, 0)
                counter[group] = sample + 1
            key = (*group, sample)
            if key in seen:
                raise BenchkitValueError(
                    f"duplicate record: model {model!r}, item {item!r}, sample {sample} in {seen[key]} "
                    f"and {where}"
                )
            seen[key] = where
            runs.add(rec["evaluation_id"])
            row = {"model": model, "item": item, "sample": sample, "correct": value, "answer": _answer(rec)}
            if variant is not None:
                row["variant"] = variant
            rows.append(row)
            inp = rec["input"]
            refs = [str(r) for r in (inp.get("reference") or [])]
            choices = inp.get("choices")
            choices = [str(c) for c in choices] if isinstance(choices, list) else None
            key_letter = None
            if choices and len(refs) == 1:
                if refs[0] in _LETTERS[:len(choices)]:
                    key_letter = refs[0]
                elif refs[0] in choices:
                    key_letter = _LETTERS[choices.index(refs[0])]
            record_item(items, item_where, {"item": item, "benchmark": ename,
                                            "target": " | ".join(refs) if refs else None,
                                            "text": inp.get("raw"), "answer_key": key_letter,
                                            "options": choices},
                        where, ("target", "options"))
        if not n_records:
            raise BenchkitValueError(f"{str(path)!r} holds no records (an empty file)")
        _check_declared(declared, path, n_records, counts, values)
    for (model, ename), by_result in coverage.items():
        # every result of an evaluation scores the same samples (a converter writes each sample once
        # per result): a result with other samples is cut, mislabelled or copied from another run
        largest = max(by_result.values(), key=len)
        for rid, samples in by_result.items():
            if samples != largest:
                declared.count(f"model {model!r}, evaluation {ename!r}",
                               f"samples of result {rid!r} (each result scores the same samples)",
                               len(largest), len(samples) if samples < largest else f"{len(samples)} others")
    partial = declared.settle(allow_partial)
    if not rows:
        raise BenchkitValueError(
            f"path_or_glob={path_or_glob!r} holds no records" + (f" of result {result!r} (found: "
                                                                 f"{sorted(skipped)})" if skipped else ""))
    frame = pd.DataFrame.from_records(rows)
    if "variant" in frame and frame["variant"].isna().any():
        raise BenchkitValueError("some records carry metadata.benchkit_variant and others do not")
    item_frame = pd.DataFrame.from_records(list(items.values()))
    if not item_frame["options"].map(lambda o: o is not None).all():
        item_frame = item_frame.drop(columns="options")
    meta = {"source": "every_eval_ever", "files": [str(p) for p in files],
            "evaluation_ids": sorted(runs), "correct": correct, "result": chosen,
            "skipped_results": skipped, "partial": partial, **dict(options.pop("meta", None) or {})}
    return ResponseSet.from_long(frame, items=item_frame, meta=meta, **options)


def write_every_eval_ever(responses: ResponseSet, path, *, evaluation_id: str | None = None) -> Path:
    """Write a ResponseSet as Every Eval Ever instance-level JSON Lines (one record per response).

    Parameters
    ----------
    responses : ResponseSet
        The data to write: every response (model, item, sample) becomes one record.
    path : str or path
        The ``.jsonl`` file to write (its folder must exist).
    evaluation_id : str, optional
        The ``evaluation_id`` of every record (the key of the aggregate file). Default:
        ``responses.name`` or ``"benchkit"``.

    Returns
    -------
    Path
        The file written.

    Notes
    -----
    ``evaluation_name`` = the item's ``benchmark`` (else ``"benchkit"``), ``sample_id`` = the item
    id without its ``"<benchmark>/"`` prefix, ``interaction_type = "single_turn"``,
    ``input.raw`` = the item ``text`` (else the item id), ``input.reference`` = ``[answer_key]``
    (else ``[target]``, else ``[]``), ``input.choices`` = ``options``, ``output.raw`` =
    ``[answer]``, one terminal ``answer_attribution`` holding the answer (none for
    :data:`benchkit.NO_ANSWER`), ``evaluation.score`` = ``correct`` and ``is_correct`` =
    ``correct == 1``. benchkit's item id, sample and variant go to ``metadata`` so
    :func:`read_every_eval_ever` restores the same ResponseSet.

    References
    ----------
    EvalEval Coalition, Every Eval Ever, https://github.com/evaleval/every_eval_ever
    (``instance_level_eval.schema.json``, schema version 0.3.0).

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> import pandas as pd
    >>> from benchkit import ResponseSet, io
    >>> rs = ResponseSet.from_long(pd.DataFrame({"model": ["m1"], "item": ["q1"], "correct": [1]}))
    >>> path = io.write_every_eval_ever(rs, pathlib.Path(tempfile.mkdtemp()) / "records.jsonl")
    >>> record = json.loads(path.read_text().splitlines()[0])
    >>> record["model_id"], record["sample_id"], record["evaluation"]
    ('m1', 'q1', {'score': 1.0, 'is_correct': True})
    """
    if not isinstance(responses, ResponseSet):
        raise BenchkitTypeError(f"responses must be a ResponseSet, got {describe(responses)}")
    if evaluation_id is not None and (not isinstance(evaluation_id, str) or not evaluation_id):
        raise BenchkitTypeError(f"evaluation_id must be a non-empty string, got {describe(evaluation_id)}")
    run = evaluation_id or getattr(responses, "name", None) or "benchkit"
    if not isinstance(path, (str, os.PathLike)):
        raise BenchkitTypeError(f"path must be a file path, got {describe(path)}")
    path = Path(path)
    if path.is_dir():
        raise BenchkitValueError(f"path={str(path)!r} is a directory; give the .jsonl file to write")
    if not path.parent.is_dir():
        raise BenchkitValueError(f"path={str(path)!r}: its folder {str(path.parent)!r} does not exist")
    long = responses.to_long()
    items = responses.items
    with open(path, "w", encoding="utf-8") as fh:
        for row in long.itertuples(index=False):
            rec_item = items.loc[row.item] if row.item in items.index else pd.Series(dtype=object)
            bench = rec_item.get("benchmark")
            bench = str(bench) if isinstance(bench, str) and bench else "benchkit"
            sample_id = row.item[len(bench) + 1:] if row.item.startswith(bench + "/") else row.item
            key = rec_item.get("answer_key")
            target = rec_item.get("target")
            if isinstance(key, str):
                reference = [str(key)]
            else:
                reference = [str(target)] if isinstance(target, str) else []
            options = rec_item.get("options")
            text = rec_item.get("text")
            answer = getattr(row, "answer", None)
            has_answer = isinstance(answer, str) and answer != NO_ANSWER
            meta = {"benchkit_item": str(row.item), "benchkit_sample": str(int(getattr(row, "sample", 0)))}
            if "variant" in long.columns:
                meta["benchkit_variant"] = str(row.variant)
            value = float(row.correct)
            rec = {
                "schema_version": SCHEMA_VERSION, "evaluation_id": run, "model_id": str(row.model),
                "evaluation_name": bench, "sample_id": sample_id, "interaction_type": "single_turn",
                "input": {"raw": str(text) if isinstance(text, str) else str(row.item),
                          "reference": reference,
                          **({"choices": [str(o) for o in options]} if isinstance(options, list) else {})},
                "output": {"raw": [answer] if has_answer else []},
                "messages": None,
                "answer_attribution": ([{"turn_idx": 0, "source": "output.raw", "extracted_value": answer,
                                         "extraction_method": "benchkit", "is_terminal": True}]
                                       if has_answer else []),
                "evaluation": {"score": value, "is_correct": value == 1.0},
                "metadata": meta,
            }
            fh.write(json.dumps(rec) + "\n")
    return path
