"""HELM run folders -> :class:`benchkit.ResponseSet`.

Format read (stanford-crfm/helm, ``helm.benchmark.runner`` writes each run to
``benchmark_output/runs/<suite>/<run name>/``, files written with ``asdict_without_nones``; the
reader is tested on the two real scenario-state files of the mmlu-redux source (HELM MMLU runs of
2024) and on synthetic run folders in that layout, not on other HELM releases):

* ``scenario_state.json``: ``adapter_spec`` (``method``, ``model``, ...) and ``request_states``,
  one per (instance, train trial[, perturbation]): ``instance`` (``id``, ``input.text``,
  ``references`` with ``output.text`` and ``tags`` (``"correct"``), ``split``, optional
  ``perturbation.name``), ``train_trial_index``, ``output_mapping`` (letter -> option text, for
  ``multiple_choice_joint``), ``request`` and ``result.completions`` (``text``, ``logprob``).
* ``per_instance_stats.json`` (optional): a list of ``{instance_id, train_trial_index,
  [perturbation], stats: [{name: {name, split, [perturbation]}, mean, count, ...}]}``.
* ``run_spec.json`` (optional): ``name``, e.g.
  ``"mmlu:subject=global_facts,method=multiple_choice_joint,model=openai_gpt-4-0613"``.

A scenario-state file may also be passed by itself (as the mmlu-redux source ships them, named
``<subject>.json``).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_bool
from benchkit._validation import describe
from benchkit.io._declared import Declared
from benchkit.io._files import load_json
from benchkit.io._items import record_item
from benchkit.io._paths import expand_paths
from benchkit.io._paths import files_in
from benchkit.io._schema import AnyValue
from benchkit.io._schema import Int
from benchkit.io._schema import ListOf
from benchkit.io._schema import Num
from benchkit.io._schema import Obj
from benchkit.io._schema import Str
from benchkit.io._schema import check
from benchkit.io._schema import nullable
from benchkit.io.tabular import _check_options
from benchkit.response_set import NO_ANSWER
from benchkit.response_set import ResponseSet

__all__ = ["read_helm"]

_METHODS = ("multiple_choice_joint", "generation")
_PERTURBATION = nullable(Obj({"name": nullable(Str())}))
_ID = Str(nonempty=True) | Int()
# the fields the reader uses (schema checked on every file, see benchkit.io._schema)
_STATE = Obj({
    "adapter_spec": Obj({"method": nullable(Str()), "model": nullable(Str()),
                         "model_deployment": nullable(Str()), "num_train_trials": nullable(Int(min=1))}),
    "request_states": ListOf(Obj({
        "instance": Obj({
            "id": _ID,
            "input": nullable(Obj({"text": nullable(Str())})),
            "references": nullable(ListOf(Obj({"output": Obj({"text": Str()}, required=("text",)),
                                               "tags": nullable(ListOf(Str()))}, required=("output",)))),
            "split": nullable(Str()),
            "perturbation": _PERTURBATION,
        }, required=("id",)),
        "train_trial_index": Int(min=0),
        "output_mapping": nullable(Obj(values=Str())),
        "result": nullable(Obj({"completions": nullable(ListOf(Obj({"text": nullable(Str())})))})),
    }, required=("instance",))),
}, required=("adapter_spec", "request_states"))
_STAT_NAME = Obj({"name": Str(), "split": nullable(Str()), "perturbation": _PERTURBATION}, required=("name",))
_STAT = Obj({"name": _STAT_NAME, "mean": nullable(Num(finite=False)), "sum": nullable(Num(finite=False)),
             "count": nullable(Num(min=0))}, required=("name",))
_INSTANCE_STATS = ListOf(Obj({"instance_id": _ID, "train_trial_index": Int(min=0),
                              "perturbation": _PERTURBATION, "stats": ListOf(_STAT)},
                             required=("instance_id", "stats")))
_RUN_STATS = ListOf(Obj({"name": Obj({"name": Str(), "split": nullable(Str())}, values=AnyValue(),
                                     required=("name",)),
                         "mean": nullable(Num(finite=False)), "count": nullable(Num(min=0))},
                        required=("name",)))
_RUN_SPEC = Obj({"name": nullable(Str())})


def _runs(path_or_glob) -> list[Path]:
    """Scenario-state files named by run folders, files, globs or a folder of run folders."""
    return expand_paths("run_dir_or_glob", path_or_glob, _states_in, "holds no scenario_state.json",
                        glob_dirs=True)


def _states_in(p: Path) -> list[Path]:
    if (p / "scenario_state.json").is_file():
        return [p / "scenario_state.json"]
    return files_in(p, lambda q: q.name == "scenario_state.json")


def _load(path: Path, schema, what: str):
    data = load_json(path, what=what)
    check(data, schema, str(path), what)
    return data


def _benchmark_name(state_path: Path) -> str:
    spec_path = state_path.parent / "run_spec.json"
    if spec_path.is_file():
        name = str(_load(spec_path, _RUN_SPEC, "a HELM run_spec.json").get("name") or "")
        if name:
            head, _, args = name.partition(":")
            kept = [a for a in args.split(",") if a and not a.startswith(("model=", "model_deployment="))]
            return head + (":" + ",".join(kept) if kept else "")
    if state_path.name != "scenario_state.json":
        return state_path.stem
    return state_path.parent.name


def _instance_stats(folder: Path, metric: str):
    path = folder / "per_instance_stats.json"
    if not path.is_file():
        return None, None
    data = _load(path, _INSTANCE_STATS, "a HELM per_instance_stats.json")
    table: dict[tuple, float] = {}
    first: dict[tuple, int] = {}
    names: set[str] = set()
    for k, entry in enumerate(data):
        pert = (entry.get("perturbation") or {}).get("name")
        for st in entry["stats"]:
            nm = st["name"]
            names.add(nm["name"])
            if nm["name"] != metric or (nm.get("perturbation") or {}).get("name") not in (None, pert):
                continue
            key = (str(entry["instance_id"]), entry.get("train_trial_index", 0), pert)
            if st.get("mean") is not None:
                mean = float(st["mean"])
            elif st.get("count") and st.get("sum") is not None:
                mean = float(st["sum"]) / float(st["count"])
            else:
                raise BenchkitValueError(
                    f"{path}: entry {k} stat {metric!r} has no mean, and no sum with a count > 0")
            if key in table and not (table[key] == mean or (math.isnan(mean) and math.isnan(table[key]))):
                raise BenchkitValueError(
                    f"{path}: instance {key[0]!r} (train trial {key[1]}"
                    + (f", perturbation {pert!r}" if pert else "")
                    + f") has two {metric!r} stats that disagree: {table[key]!r} in entry {first[key]} and "
                    f"{mean!r} in entry {k}"
                )
            first.setdefault(key, k)
            table[key] = mean
    if not table:
        raise BenchkitValueError(
            f"{str(path)!r} has no per-instance stat {metric!r}; available: {sorted(names)}"
        )
    return table, str(path)


def _check_declared(declared: Declared, state_path: Path, spec: Mapping, metric: str,
                    values: dict[tuple, list[float]]) -> None:
    """Compare one run with its ``stats.json`` (HELM's aggregate) and ``adapter_spec.num_train_trials``.

    ``values`` maps (split, train trial) of the unperturbed instances to their metric values. HELM
    averages a stat over the instances of each trial, then over trials (``take_mean``); so do we.
    """
    trials = sorted({t for _, t in values})
    if spec.get("num_train_trials") is not None and values:
        declared.count(str(state_path), "train trials (adapter_spec.num_train_trials)",
                       spec["num_train_trials"], len(trials))
    stats_path = state_path.parent / "stats.json"
    if state_path.name != "scenario_state.json" or not stats_path.is_file():
        return
    for st in _load(stats_path, _RUN_STATS, "a HELM stats.json"):
        name = st["name"]
        if set(name) - {"name", "split"} or st.get("mean") is None:
            continue  # perturbed, sub-split and other contexts
        per_trial = [values[(name.get("split"), t)] for t in trials if (name.get("split"), t) in values]
        if not per_trial:
            continue
        what = f"split {name.get('split')!r}"
        if name["name"] == "num_instances":
            declared.count(str(stats_path), f"{what}: instances (num_instances)", st["mean"],
                           sum(len(v) for v in per_trial) / len(per_trial))
        elif name["name"] == metric:
            declared.score(str(stats_path), f"{what}: {metric} (the mean over instances and trials)",
                           st["mean"], sum(sum(v) / len(v) for v in per_trial) / len(per_trial))


def read_helm(run_dir_or_glob, *, metric: str = "exact_match", benchmark: str | None = None,
              model: str | None = None, allow_partial: bool = False, **options) -> ResponseSet:
    """Read HELM runs (scenario states, with per-instance stats where present) into a ResponseSet.

    Parameters
    ----------
    run_dir_or_glob : str, path, or list of them
        A run folder (holding ``scenario_state.json``), a folder of run folders, a
        scenario-state file, or a glob of any of these.
    metric : str
        The per-instance stat that becomes ``correct`` (default ``"exact_match"``), read from
        ``per_instance_stats.json`` when the run folder has one; the error lists the stats
        available. Without that file only ``"exact_match"`` can be used: it is recomputed from
        the completions (see Notes).
    benchmark : str, optional
        The benchmark name in item ids (default: the run name of ``run_spec.json`` without its
        ``model=`` argument, else the scenario-state file's stem, else the folder name).
    model : str, optional
        Override the model id (default ``adapter_spec.model``, e.g. ``"openai/gpt-4-0613"``).
    allow_partial : bool
        HELM declares the run's train trials (``adapter_spec.num_train_trials``) and, in the run
        folder's ``stats.json``, the number of instances and the metric's mean per split; a run
        whose request states give other numbers (a cut or edited run) is an error naming both
        unless True, which reads it with a :class:`BenchkitWarning` and lists the mismatches in
        ``meta["partial"]``.
    **options
        Passed to :meth:`ResponseSet.from_long`.

    Returns
    -------
    ResponseSet
        Items ``"<benchmark>/<instance id>"`` with ``benchmark``, ``split``, ``text`` (the
        instance input), and for multiple choice ``options`` (in output-mapping letter order)
        and ``answer_key`` (the letter of the reference tagged ``correct``). ``sample`` = the
        train-trial index; ``variant`` = the perturbation name (``"original"`` for unperturbed
        instances) when any instance is perturbed. ``answer`` = the output letter for
        multiple choice (:data:`benchkit.NO_ANSWER` when the output is not an option letter),
        the stripped completion for generation.

    Notes
    -----
    Recomputed exact match (no ``per_instance_stats.json``): for ``multiple_choice_joint`` the
    stripped first completion equals the correct letter; for ``generation`` it equals the
    stripped text of a correct reference, as HELM's ``exact_match`` (which strips both sides).
    Instances with several correct references in multiple choice get no answer key and count
    as correct when the output is any of their letters. The completions' logprobs are not
    option probabilities (HELM's joint method samples one letter), so no ``option_probs`` are
    produced. Other adapter methods (``multiple_choice_separate_*``, language modeling) are
    rejected with the method named.

    References
    ----------
    P. Liang et al. (2023), "Holistic Evaluation of Language Models", Transactions on Machine
    Learning Research. The HELM documentation, https://crfm-helm.readthedocs.io/ (run outputs:
    ``scenario_state.json``, ``per_instance_stats.json``, ``run_spec.json``).

    Examples
    --------
    A scenario-state file of a generation run with two instances:

    >>> import json, pathlib, tempfile
    >>> from benchkit import io
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> states = [{"instance": {"id": iid, "input": {"text": q}, "split": "test",
    ...                         "references": [{"output": {"text": a}, "tags": ["correct"]}]},
    ...            "train_trial_index": 0, "result": {"completions": [{"text": out}]}}
    ...           for iid, q, a, out in [("id1", "2+2?", "4", " 4"), ("id2", "3+3?", "6", "5")]]
    >>> _ = (tmp / "toy.json").write_text(json.dumps({
    ...     "adapter_spec": {"method": "generation", "model": "acme/m1"}, "request_states": states}))
    >>> rs = io.read_helm(tmp / "toy.json")
    >>> rs.to_long()[["model", "item", "correct", "answer"]]
         model     item  correct answer
    0  acme/m1  toy/id1      1.0      4
    1  acme/m1  toy/id2      0.0      5
    """
    _check_options("long", options, reader="read_helm")
    allow_partial = check_bool("allow_partial", allow_partial)
    if not isinstance(metric, str) or not metric:
        raise BenchkitTypeError(f"metric must be a non-empty string, got {describe(metric)}")
    rows: list[dict] = []
    items: dict[str, dict] = {}
    item_where: dict[str, str] = {}
    seen: dict[tuple, str] = {}
    runs_meta: list[dict] = []
    declared = Declared()
    for path in _runs(run_dir_or_glob):
        state = _load(path, _STATE, "a HELM scenario state")
        if not state["request_states"]:
            raise BenchkitValueError(f"{str(path)!r}: the scenario state holds no request states")
        spec = state["adapter_spec"]
        method = spec.get("method")
        if method not in _METHODS:
            raise BenchkitValueError(
                f"{str(path)!r}: adapter method {method!r} is not supported; supported: {list(_METHODS)}"
            )
        model_id = model or spec.get("model") or spec.get("model_deployment")
        if not model_id:
            raise BenchkitValueError(f"{str(path)!r}: adapter_spec names no model; pass model=...")
        bench = benchmark or _benchmark_name(path)
        stats, stats_file = (_instance_stats(path.parent, metric) if path.name == "scenario_state.json"
                             else (None, None))
        if stats is None and metric != "exact_match":
            raise BenchkitValueError(
                f"{str(path)!r}: metric {metric!r} needs per_instance_stats.json next to the scenario "
                "state; without it only 'exact_match' is recomputed from the completions"
            )
        runs_meta.append({"file": str(path), "model": model_id, "benchmark": bench, "method": method,
                          "per_instance_stats": stats_file, "adapter_spec": dict(spec)})
        values: dict[tuple, list[float]] = {}
        for k, st in enumerate(state["request_states"]):
            where = f"{path}: request_states[{k}]"
            inst = st["instance"]
            refs = inst.get("references") or []
            comps = (st.get("result") or {}).get("completions") or []
            text = str(comps[0].get("text") or "").strip() if comps else ""
            pert = (inst.get("perturbation") or {}).get("name")
            trial = st.get("train_trial_index", 0)
            iid = str(inst["id"])
            item = f"{bench}/{iid}"
            key = (model_id, item, trial, pert)
            if key in seen:
                raise BenchkitValueError(
                    f"duplicate request: model {model_id!r}, item {item!r}, train trial {trial}"
                    + (f", perturbation {pert!r}" if pert else "") + f" at {seen[key]} and {where}"
                )
            seen[key] = where
            correct_texts = [r["output"]["text"] for r in refs if "correct" in (r.get("tags") or [])]
            answer_key = None
            opts = None
            if method == "multiple_choice_joint":
                mapping = st.get("output_mapping")
                if not isinstance(mapping, Mapping) or not mapping:
                    raise BenchkitValueError(f"{where}: multiple_choice_joint request has no output_mapping")
                letters = sorted(mapping)
                opts = [str(mapping[L]) for L in letters]
                key_letters = [L for L in letters if mapping[L] in correct_texts]
                if len(key_letters) == 1:
                    answer_key = key_letters[0]
                answer = text if text in mapping else NO_ANSWER
                computed = float(answer in key_letters)
            else:
                answer = text if text else NO_ANSWER
                computed = float(any(text == str(c).strip() for c in correct_texts))
            if stats is not None:
                skey = (iid, trial, pert)
                if skey not in stats:
                    raise BenchkitValueError(
                        f"{stats_file}: no {metric!r} stat for instance {iid!r}, train trial {trial}"
                        + (f", perturbation {pert!r}" if pert else "")
                    )
                value = stats[skey]
            else:
                value = computed
            if math.isnan(value) or not 0.0 <= value <= 1.0:
                raise BenchkitValueError(
                    f"{where}: metric {metric!r} is {value!r}; correct must be in [0, 1]"
                )
            if pert is None:
                values.setdefault((inst.get("split"), trial), []).append(value)
            row = {"model": model_id, "item": item, "sample": trial, "correct": value, "answer": answer}
            if pert is not None:
                row["variant"] = pert
            rows.append(row)
            record_item(items, item_where, {"item": item, "benchmark": bench, "split": inst.get("split"),
                                            "text": (inst.get("input") or {}).get("text"),
                                            "answer_key": answer_key, "options": opts},
                        where, ("answer_key", "options"))
        _check_declared(declared, path, spec, metric, values)
    partial = declared.settle(allow_partial)
    if not rows:
        raise BenchkitValueError("the HELM runs hold no request states")
    frame = pd.DataFrame.from_records(rows)
    if "variant" in frame.columns:
        frame["variant"] = frame["variant"].fillna("original")
    item_frame = pd.DataFrame.from_records(list(items.values()))
    if not item_frame["options"].map(lambda o: o is not None).all():
        item_frame = item_frame.drop(columns="options")
    meta = {"source": "helm", "metric": metric, "runs": runs_meta, "partial": partial,
            **dict(options.pop("meta", None) or {})}
    return ResponseSet.from_long(frame, items=item_frame, meta=meta, **options)
