"""EvalScope review files (``reviews/<model>/<benchmark>_<subset>.jsonl``) -> :class:`benchkit.ResponseSet`.

Format read (modelscope/evalscope, ``evalscope/api/evaluator/cache.py`` -- ``ReviewResult``,
``CacheManager.get_review_cache_path`` / ``save_review_cache`` -- and
``evalscope/api/metric/scorer.py`` -- ``Score``, ``SampleScore``; read at commit fde259d of
2026-08, the 1.x line). An output directory ``<work_dir>/<timestamp>/`` holds ``predictions/``,
``reviews/``, ``reports/`` and ``logs/``; each review file is JSON Lines, one ``ReviewResult`` per
(sample, generation):

* ``index`` (the sample's id in the run), ``target`` (str), ``messages`` (the chat; older files
  had an ``input`` string instead), ``agent_trace``;
* ``sample_score``: ``score`` (``value``: dict metric name -> number or bool, whose
  ``main_score_name`` -- else its first key -- is the main score; ``status``: ``"success"`` or
  ``"fallback"`` carry a usable score, other values (``transport_error``, ``parse_error``, ...)
  mean the sample is excluded from aggregation; ``extracted_prediction``, ``prediction``,
  ``explanation``, ``metadata``), ``sample_id``, ``group_id`` (the original sample when a
  sample is generated k times), ``generation_index`` (0-based position inside the group),
  ``sample_metadata``.

Tested on review files written by evalscope 1.14.1 itself (``tests/tool_fixtures/make_evalscope.py``:
``general_mcq`` on a local subset with its ``mock_llm`` model, offline), whose ``target`` is a
list of letters.
"""
from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_bool
from benchkit._validation import describe
from benchkit.io._declared import Declared
from benchkit.io._files import iter_json_lines
from benchkit.io._files import load_json
from benchkit.io._items import record_item
from benchkit.io._items import record_response
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
from benchkit.response_set import ResponseSet

__all__ = ["read_evalscope"]

_USABLE = ("success", "fallback")
_ID = Int() | Str(nonempty=True)
# the fields the reader uses (schema checked on every record, see benchkit.io._schema)
_REVIEW = Obj({
    "index": nullable(_ID),
    "target": nullable(Str() | Int() | ListOf(Str() | Int())),
    "sample_score": Obj({
        "score": Obj({
            "value": Obj(values=AnyValue(), text="an object (metric name -> value)"),
            "status": nullable(Str()),
            "main_score_name": nullable(Str()),
            "extracted_prediction": nullable(Str() | Num() | Bool()),
        }, required=("value",)),
        "sample_id": nullable(_ID),
        "group_id": nullable(_ID),
        "generation_index": nullable(Int(min=0)),
    }, required=("score",)),
}, required=("sample_score",))
_SUBSET = Obj({"name": Str(), "num": Int(min=0), "score": nullable(Num())}, required=("name", "num"))
_REPORT = Obj({"metrics": nullable(ListOf(Obj({
    "name": nullable(Str()),
    "identity": nullable(Obj({"name": Str()})),
    "categories": nullable(ListOf(Obj({"subsets": nullable(ListOf(_SUBSET))}))),
})))})
_SCORE_TOL = 6e-5  # reports round scores to 4 decimals


def _report(path: Path, bench: str) -> tuple[Path | None, dict | None]:
    """The run's ``reports/<model>/<benchmark>.json`` for the review file ``path``, read and checked."""
    report = path.parent.parent.parent / "reports" / path.parent.name / f"{bench}.json"
    if not report.is_file():
        return None, None
    data = load_json(report, what="an EvalScope report")
    check(data, _REPORT, str(report), "an EvalScope report")
    return report, data


def _check_declared(declared: Declared, report: Path | None, data: dict | None, subset: str,
                    metric: str | None, values: list[float]) -> None:
    """Compare one subset's reviews (count, mean) with the report's ``num`` and ``score``."""
    if data is None or not data.get("metrics"):
        return
    named = [m for m in data["metrics"] if metric is not None
             and metric in ((m.get("identity") or {}).get("name"), m.get("name"))]
    entry = named[0] if named else data["metrics"][0]
    listed = [s for c in entry.get("categories") or [] for s in c.get("subsets") or []]
    subsets = [s for s in listed if s["name"] == subset]
    if not subsets and listed:  # a review file the run did not write (a renamed copy?)
        declared.count(str(report), "subsets of the benchmark", sorted({s["name"] for s in listed}),
                       f"a review file of subset {subset!r}")
    if len(subsets) != 1:
        return
    declared.count(str(report), f"subset {subset!r}: scored reviews (num)", subsets[0]["num"], len(values))
    if named and subsets[0].get("score") is not None and values:
        declared.score(str(report), f"subset {subset!r}: {metric} (the mean score)", subsets[0]["score"],
                       sum(values) / len(values), tol=_SCORE_TOL)


def _split_name(path: Path, benchmarks) -> tuple[str, str]:
    """(benchmark, subset) from ``<benchmark>_<subset>.jsonl``."""
    stem = path.stem
    candidates = list(benchmarks or [])
    reports = path.parent.parent.parent / "reports" / path.parent.name
    if reports.is_dir():
        candidates += [p.stem for p in reports.glob("*.json")]
    matches = [b for b in candidates if stem.startswith(b + "_")]
    if matches:
        bench = max(matches, key=len)
        return bench, stem[len(bench) + 1:]
    bench, sep, subset = stem.partition("_")
    return bench, (subset if sep else "default")


def read_evalscope(path_or_glob, *, metric: str | None = None, model: str | None = None,
                   benchmarks=None, drop_unscored: bool = False, allow_partial: bool = False,
                   **options) -> ResponseSet:
    r"""Read EvalScope review files into a ResponseSet.

    Parameters
    ----------
    path_or_glob : str, path, or list of them
        A review file, a directory (an output directory, its ``reviews/`` folder or one model's
        folder; searched recursively for ``*.jsonl`` under a ``reviews`` folder) or a glob.
    metric : str, optional
        The key of ``score.value`` that becomes ``correct``. Default: the score's
        ``main_score_name``, else the first key -- EvalScope's own ``Score.main_value``.
    model : str, optional
        Override the model id (default: the folder name, ``reviews/<model>/``).
    benchmarks : list of str, optional
        Benchmark names, to split ``<benchmark>_<subset>`` when a benchmark name contains
        ``_``. The run's ``reports/<model>/<benchmark>.json`` names are used too; otherwise the
        name is split at its first ``_``.
    drop_unscored : bool
        Records whose ``score.status`` is not usable (anything but ``success``/``fallback``)
        or lack the metric are an error naming them unless True; then they are left out and
        listed in ``meta["unscored"]`` (EvalScope also leaves them out of its aggregates).
    allow_partial : bool
        The run's report (``reports/<model>/<benchmark>.json``) declares each subset's number of
        scored reviews (``num``) and mean score; a review file with another count or mean (a cut
        or edited file) is an error naming both numbers unless True, which reads it with a
        :class:`BenchkitWarning` and lists the mismatches in ``meta["partial"]``.
    **options
        Passed to :meth:`ResponseSet.from_long`.

    Returns
    -------
    ResponseSet
        Items ``"<benchmark>/<subset>/<id>"`` (id = ``group_id``, else ``sample_id``, else
        ``index``) with ``benchmark``, ``source`` = subset, ``target`` (a list target joined by
        ``" | "``) and ``answer_key`` (a one-letter target). ``sample`` =
        ``generation_index`` (0 when absent); ``answer`` = ``extracted_prediction``
        (:data:`benchkit.NO_ANSWER` when empty). Values must be booleans or numbers in [0, 1].

    References
    ----------
    ModelScope, EvalScope, https://github.com/modelscope/evalscope and its documentation,
    https://evalscope.readthedocs.io/ (the output directory and its review files).

    Examples
    --------
    An output directory with one model's review file of benchmark ``toy``, subset ``default``:

    >>> import json, pathlib, tempfile
    >>> from benchkit import io
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> reviews = tmp / "reviews" / "m1"
    >>> reviews.mkdir(parents=True)
    >>> recs = [{"index": i, "target": t, "sample_id": i, "sample_score": {"score": {
    ...     "value": {"acc": float(t == p)}, "main_score_name": "acc", "status": "success",
    ...     "extracted_prediction": p}}} for i, (t, p) in enumerate([("A", "A"), ("B", "C")])]
    >>> _ = (reviews / "toy_default.jsonl").write_text("\n".join(json.dumps(r) for r in recs))
    >>> rs = io.read_evalscope(tmp)
    >>> rs.to_long()[["model", "item", "correct", "answer"]]
      model           item  correct answer
    0    m1  toy/default/0      1.0      A
    1    m1  toy/default/1      0.0      C
    """
    _check_options("long", options, reader="read_evalscope")
    drop_unscored = check_bool("drop_unscored", drop_unscored)
    allow_partial = check_bool("allow_partial", allow_partial)
    if model is not None and (not isinstance(model, str) or not model):
        raise BenchkitTypeError(f"model must be a non-empty string, got {describe(model)}")
    files = _expand("path_or_glob", path_or_glob, "*.jsonl")
    files = [f for f in files if f.parent.parent.name == "reviews" or len(files) == 1
             or not any(p.parent.parent.name == "reviews" for p in files)]
    rows, items, unscored, used = [], {}, [], {}
    item_where: dict[str, str] = {}
    seen: dict[tuple, str] = {}
    declared = Declared()
    digests: dict[tuple, str] = {}
    for path in files:
        bench, subset = _split_name(path, benchmarks)
        model_id = model or path.parent.name
        values: list[float] = []
        name = None
        n_records = 0
        for lineno, rec in iter_json_lines(path, what="an EvalScope review file"):
            where = f"{path}:{lineno}"
            check(rec, _REVIEW, where, "an EvalScope review record")
            n_records += 1
            # a record repeated verbatim in one model's folder (its messages carry random ids) is a copy
            canonical = json.dumps(rec, sort_keys=True).encode()
            digest = (path.parent, hashlib.blake2b(canonical, digest_size=16).digest())
            if digest in digests:
                raise BenchkitValueError(
                    f"{where} repeats the review at {digests[digest]} verbatim (a copied review file?); keep "
                    "one copy"
                )
            digests[digest] = where
            ss = rec["sample_score"]
            score = ss["score"]
            value_map = score["value"]
            status = str(score.get("status") or "success")
            name = metric or score.get("main_score_name") or next(iter(value_map), None)
            ids = (ss.get("group_id"), ss.get("sample_id"), rec.get("index"))
            sid = next((v for v in ids if v is not None), None)
            if sid is None:
                raise BenchkitValueError(
                    f"{where}: an EvalScope review record needs an id: sample_score.group_id, "
                    "sample_score.sample_id or index (all missing or null)"
                )
            item = f"{bench}/{subset}/{sid}"
            sample = int(ss.get("generation_index") or 0)
            if status not in _USABLE or name not in value_map:
                why = f"status {status!r}" if status not in _USABLE else (
                    f"no metric {name!r} (available: {sorted(value_map)})")
                unscored.append({"where": where, "item": item, "sample": sample, "why": why})
                continue
            raw = value_map[name]
            in_unit = isinstance(raw, (int, float)) and not math.isnan(raw) and 0.0 <= raw <= 1.0
            if isinstance(raw, bool) or in_unit:
                value = float(raw)
            else:
                raise BenchkitValueError(
                    f"{where}: metric {name!r} is {describe(raw)}; correct must be a boolean or a number in "
                    f"[0, 1] (available: {sorted(value_map)}; pass metric=...)"
                )
            values.append(value)
            used[f"{bench}/{subset}"] = name
            record_response(rows, seen, {"model": model_id, "item": item, "sample": sample, "correct": value,
                                         "answer": score.get("extracted_prediction")},
                            where, what="review", label=f"generation {sample}")
            target = rec.get("target")
            if isinstance(target, list):
                target = " | ".join(map(str, target))
            target = None if target is None else str(target)
            key_letter = target if target is not None and len(target) == 1 and target.isalpha() \
                and target.isupper() else None
            record_item(items, item_where, {"item": item, "benchmark": bench, "source": subset,
                                            "target": target, "answer_key": key_letter},
                        where, ("target",))
        if not n_records:
            raise BenchkitValueError(f"{str(path)!r} holds no review records (an empty review file)")
        report, data = _report(path, bench)
        _check_declared(declared, report, data, subset, name, values)
    if unscored and not drop_unscored:
        shown = "; ".join(f"{u['where']} ({u['item']}: {u['why']})" for u in unscored[:5])
        raise BenchkitValueError(
            f"{len(unscored)} reviews have no usable score: {shown}" + (" ..." if len(unscored) > 5 else "")
            + "; pass drop_unscored=True to leave them out (listed in meta['unscored'])"
        )
    partial = declared.settle(allow_partial)
    if not rows:
        raise BenchkitValueError("no scored reviews" + (f" ({len(unscored)} unscored)" if unscored else ""))
    meta = {"source": "evalscope", "files": [str(p) for p in files], "metric": used, "unscored": unscored,
            "partial": partial,
            **dict(options.pop("meta", None) or {})}
    return ResponseSet.from_long(pd.DataFrame.from_records(rows),
                                 items=pd.DataFrame.from_records(list(items.values())), meta=meta, **options)
