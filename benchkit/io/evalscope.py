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

import math
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from benchkit._jsonl import iter_jsonl
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import describe
from benchkit.io._items import record_item
from benchkit.io._items import record_response
from benchkit.io.lm_eval import _expand
from benchkit.io.tabular import _check_options
from benchkit.response_set import ResponseSet

__all__ = ["read_evalscope"]

_USABLE = ("success", "fallback")


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
                   benchmarks=None, drop_unscored: bool = False, **options) -> ResponseSet:
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
    if model is not None and (not isinstance(model, str) or not model):
        raise BenchkitTypeError(f"model must be a non-empty string, got {describe(model)}")
    files = _expand("path_or_glob", path_or_glob, "*.jsonl")
    files = [f for f in files if f.parent.parent.name == "reviews" or len(files) == 1
             or not any(p.parent.parent.name == "reviews" for p in files)]
    rows, items, unscored, used = [], {}, [], {}
    item_where: dict[str, str] = {}
    seen: dict[tuple, str] = {}
    for path in files:
        bench, subset = _split_name(path, benchmarks)
        model_id = model or path.parent.name
        for lineno, rec in iter_jsonl(path, path.read_text(encoding="utf-8")):
            where = f"{path}:{lineno}"
            ss = rec.get("sample_score") if isinstance(rec, Mapping) else None
            if not isinstance(ss, Mapping) or not isinstance(ss.get("score"), Mapping):
                raise BenchkitValueError(f"{where}: not an EvalScope review record (no sample_score.score)")
            score = ss["score"]
            value_map = score.get("value") or {}
            status = str(score.get("status", "success"))
            name = metric or score.get("main_score_name") or next(iter(value_map), None)
            sid = ss.get("group_id")
            sid = sid if sid is not None else ss.get("sample_id")
            sid = sid if sid is not None else rec.get("index")
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
    if unscored and not drop_unscored:
        shown = "; ".join(f"{u['where']} ({u['item']}: {u['why']})" for u in unscored[:5])
        raise BenchkitValueError(
            f"{len(unscored)} reviews have no usable score: {shown}" + (" ..." if len(unscored) > 5 else "")
            + "; pass drop_unscored=True to leave them out (listed in meta['unscored'])"
        )
    if not rows:
        raise BenchkitValueError("no scored reviews" + (f" ({len(unscored)} unscored)" if unscored else ""))
    meta = {"source": "evalscope", "files": [str(p) for p in files], "metric": used, "unscored": unscored,
            **dict(options.pop("meta", None) or {})}
    return ResponseSet.from_long(pd.DataFrame.from_records(rows),
                                 items=pd.DataFrame.from_records(list(items.values())), meta=meta, **options)
