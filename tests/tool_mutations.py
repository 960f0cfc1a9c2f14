"""Real tool files, their records, and ways to damage them: the sibling probe's and the fuzz tests' material.

Each :class:`Format` copies real files written by the tools (``tests/tool_fixtures``: lm-eval
0.4.13, inspect_ai 0.3.285, evalscope 1.14.1, every-eval-ever 0.3.0) or, for HELM, a run folder in
HELM's layout with its ``stats.json`` and ``per_instance_stats.json`` consistent with the scenario
state, into a temporary folder, and names the file whose records are damaged and the reader call.
:func:`field_paths` lists every field of a record (depth-limited), :func:`set_path` replaces one.
:func:`outcome` reads the damaged copy and classifies what the reader did.
"""
from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from benchkit import BenchkitError

FIXTURES = Path(__file__).parent / "tool_fixtures"
# fields whose value is the score itself: with no aggregate file to check against, a new value is
# read as the new score (the file says so); everywhere else a score change must be refused
SCORE_FIELDS = {
    "lm_eval-samples-alone": {("acc",), ("acc_norm",)},
    "evalscope-review-alone": {("sample_score", "score", "value", "accuracy")},
    "every_eval_ever-record-alone": {("evaluation", "score")},
}
DELETE = object()
VALUES = (None, [], {}, "x", 7, -1, 1.5, True, "\x1b[2J")


def resource_budget(**kwargs):
    """:func:`benchkit.resource_budget`, imported late (so the tests run on code that lacks it)."""
    import benchkit

    return benchkit.resource_budget(**kwargs)


def _helm_run(folder: Path) -> None:
    """A HELM run folder (HELM's file layout) whose aggregate files agree with its request states."""
    run = folder / "mmlu:subject=x,method=multiple_choice_joint,model=org_m"
    run.mkdir(parents=True)
    opts = ["a", "b", "c", "d"]
    answers = ["A", "B", "D", "D", "C", "A"]  # keys A B C D A B: 3 right of 6
    states, stats = [], []
    for i, out in enumerate(answers):
        key = "ABCD"[i % 4]
        states.append({
            "instance": {"input": {"text": f"q{i}"}, "split": "test", "id": f"id{i}",
                         "references": [{"output": {"text": o},
                                         "tags": ["correct"] if "ABCD"[j] == key else []}
                                        for j, o in enumerate(opts)]},
            "train_trial_index": 0, "output_mapping": dict(zip("ABCD", opts)),
            "request": {"prompt": f"q{i}"}, "result": {"success": True, "completions": [{"text": out,
                                                                                         "logprob": -0.1}]}})
        em = float(out == key)
        stats.append({"instance_id": f"id{i}", "train_trial_index": 0,
                      "stats": [{"name": {"name": "exact_match", "split": "test"}, "count": 1, "sum": em,
                                 "sum_squared": em, "min": em, "max": em, "mean": em}]})
    spec = {"method": "multiple_choice_joint", "model": "org/m", "num_train_trials": 1}
    (run / "scenario_state.json").write_text(json.dumps({"adapter_spec": spec, "request_states": states}))
    (run / "per_instance_stats.json").write_text(json.dumps(stats))
    (run / "stats.json").write_text(json.dumps([
        {"name": {"name": "num_instances", "split": "test"}, "count": 1, "sum": 6.0, "mean": 6.0},
        {"name": {"name": "exact_match", "split": "test"}, "count": 1, "sum": 0.5, "mean": 0.5}]))
    (run / "run_spec.json").write_text(json.dumps({"name": run.name}))


@dataclass(frozen=True)
class Format:
    """A reader, the real files it reads (copied into a fresh folder) and the file to damage."""

    name: str
    reader: str
    copy: Callable[[Path], Path]  # builds the folder in tmp; returns what the reader is given
    target: str  # glob (below the copied root) of the damaged file
    layout: str  # "jsonl": one record per line; "json": one document
    kwargs: dict = field(default_factory=dict)

    def build(self, tmp: Path) -> tuple[Path, Path]:
        root = self.copy(tmp)
        base = root if root.is_dir() else root.parent
        return root, sorted(base.glob(self.target))[0]

    def read(self, root: Path):
        from benchkit import io

        return getattr(io, self.reader)(root, **self.kwargs)


def _copier(src: str) -> Callable[[Path], Path]:
    def copy(tmp: Path) -> Path:
        tmp.mkdir(parents=True, exist_ok=True)
        dst = tmp / Path(src).name
        if (FIXTURES / src).is_dir():
            shutil.copytree(FIXTURES / src, dst)
        else:
            shutil.copy(FIXTURES / src, dst)
        return dst
    return copy


def _alone(src: str, drop: str) -> Callable[[Path], Path]:
    """A copier that leaves out the tool's aggregate files (``drop``, a glob): the records alone."""
    def copy(tmp: Path) -> Path:
        root = _copier(src)(tmp)
        for p in root.glob(drop):
            if p.is_dir():
                shutil.rmtree(p)
            else:
                p.unlink()
        return root
    return copy


def _helm_copier(tmp: Path) -> Path:
    _helm_run(tmp / "helm")
    return tmp / "helm"


FORMATS = (
    Format("lm_eval-samples", "read_lm_eval", _copier("lm_eval/run_a"), "*/samples_bk_mc_*.jsonl", "jsonl",
           {"tasks": ["bk_mc"]}),
    Format("lm_eval-samples-alone", "read_lm_eval", _alone("lm_eval/run_a", "*/results_*.json"),
           "*/samples_bk_mc_*.jsonl", "jsonl", {"tasks": ["bk_mc"], "model": "m"}),
    Format("lm_eval-results", "read_lm_eval", _copier("lm_eval/run_a"), "*/results_*.json", "json",
           {"tasks": ["bk_mc"]}),
    Format("inspect-json", "read_inspect", _copier("inspect/mc.json"), "mc.json", "json",
           {"scorer": "choice"}),
    Format("helm-state", "read_helm", _helm_copier, "*/scenario_state.json", "json"),
    Format("helm-per-instance-stats", "read_helm", _helm_copier, "*/per_instance_stats.json", "json"),
    Format("helm-stats", "read_helm", _helm_copier, "*/stats.json", "json"),
    Format("evalscope-review", "read_evalscope", _copier("evalscope"), "reviews/model-a/*.jsonl", "jsonl",
           {"sample_budget": "per_model"}),
    Format("evalscope-review-alone", "read_evalscope", _alone("evalscope", "reports"),
           "reviews/model-a/*.jsonl", "jsonl", {"sample_budget": "per_model"}),
    Format("evalscope-report", "read_evalscope", _copier("evalscope"), "reports/model-a/*.json", "json",
           {"sample_budget": "per_model"}),
    Format("every_eval_ever-record", "read_every_eval_ever", _copier("every_eval_ever/bk_mc"),
           "*/dummy-a/*_samples.jsonl", "jsonl"),
    Format("every_eval_ever-record-alone", "read_every_eval_ever",
           _alone("every_eval_ever/bk_mc", "*/*/*-*-*-*-????????????.json"), "*/dummy-a/*_samples.jsonl",
           "jsonl"),
    Format("every_eval_ever-aggregate", "read_every_eval_ever", _copier("every_eval_ever/bk_mc"),
           "*/dummy-a/*-*-*-*-????????????.json", "json"),
)
FORMAT = {f.name: f for f in FORMATS}


def load_record(fmt: Format, path: Path) -> Any:
    """The damaged unit: the first record of a JSON Lines file, or the whole JSON document."""
    text = path.read_text(encoding="utf-8")
    return json.loads(text.split("\n")[0]) if fmt.layout == "jsonl" else json.loads(text)


def save_record(fmt: Format, path: Path, record: Any) -> None:
    if fmt.layout == "jsonl":
        lines = path.read_text(encoding="utf-8").split("\n")
        lines[0] = json.dumps(record, ensure_ascii=False)
        path.write_text("\n".join(lines), encoding="utf-8")
    else:
        path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")


def field_paths(value: Any, prefix: tuple = (), depth: int = 5) -> list[tuple]:
    """Paths to every field of ``value`` (dict keys; the first element of each list), up to ``depth``."""
    out = []
    if depth == 0:
        return out
    if isinstance(value, dict):
        for k, v in value.items():
            out.append((*prefix, k))
            out.extend(field_paths(v, (*prefix, k), depth - 1))
    elif isinstance(value, list) and value:
        out.append((*prefix, 0))
        out.extend(field_paths(value[0], (*prefix, 0), depth - 1))
    return out


def set_path(record: Any, path: tuple, value: Any) -> Any:
    """A deep copy of ``record`` with the field at ``path`` replaced (or removed: ``DELETE``)."""
    record = json.loads(json.dumps(record))
    node = record
    for key in path[:-1]:
        node = node[key]
    if value is DELETE:
        if isinstance(node, dict):
            del node[path[-1]]
        else:
            del node[path[-1]]
    else:
        node[path[-1]] = value
    return record


def responses(rs) -> tuple:
    """What a read returns, for comparison with the clean read: the sorted (model, item, sample, correct)."""
    long = rs.to_long()
    cols = [c for c in ("model", "item", "sample", "correct") if c in long.columns]
    return tuple(sorted(map(tuple, long[cols].astype(str).to_numpy().tolist())))


def allowed(fmt: Format, path: tuple) -> set[str]:
    """The outcomes allowed when the field at ``path`` of ``fmt``'s record is changed."""
    return {"refused", "same", "changed-ids"} | (
        {"changed-scores"} if path in SCORE_FIELDS.get(fmt.name, ()) else set())


def outcome(fmt: Format, root: Path, damaged: Path, clean: tuple | None) -> tuple[str, str]:
    """("refused" | "refused-without-file" | "raw" | "same" | "changed-ids" | "changed-scores", detail)."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rs = fmt.read(root)
    except BenchkitError as exc:
        msg = str(exc)
        named = damaged.name in msg or str(damaged.parent.name) in msg or str(root) in msg
        return ("refused" if named else "refused-without-file"), msg[:300]
    except Exception as exc:  # noqa: BLE001 - the probe reports raw exceptions
        return "raw", f"{type(exc).__name__}: {exc}"[:300]
    got = responses(rs)
    if clean is None or got == clean:
        return "same", ""
    if sorted(r[3] for r in got) == sorted(r[3] for r in clean):
        return "changed-ids", ""
    return "changed-scores", ""


# ------------------------------------------------------------------------------ whole-file corruptions
def _insert_latin1(data: bytes) -> bytes:
    at = data.find(b'": "') + 4
    return data[:at] + b"caf\xe9 " + data[at:]


def _duplicate_first_line(data: bytes) -> bytes:
    first, _, rest = data.partition(b"\n")
    return first + b"\n" + first + b"\n" + rest


def _sparse_pad(path: Path, size: int) -> None:
    with open(path, "r+b") as fh:
        fh.truncate(size)  # a sparse tail of NUL bytes (no disk blocks)


def _copy_beside(path: Path) -> None:
    """A copy of the file next to it, named as the tool would name another run of it."""
    name = path.name
    if name.startswith("samples_"):  # lm-eval: another run's date
        date = "2026-12-03T09-58-18.984661.jsonl"
        copy = path.with_name(name[: -len(date)] + "2026-12-04T00-00-00.000001.jsonl")
    else:
        copy = path.with_name(path.stem + " (copy)" + path.suffix)
    shutil.copy(path, copy)


def _backup_folder(path: Path) -> None:
    """A backup of the file's folder inside the folder read (``<folder>/backup/<folder name>``)."""
    folder = path.parent
    shutil.copytree(folder, folder.parent / "backup" / folder.name)


def _symlink_loops(path: Path) -> None:
    folder = path.parent
    (folder / "again").symlink_to(folder, target_is_directory=True)
    (folder / "up").symlink_to(folder.parent, target_is_directory=True)


CORRUPTIONS: dict[str, Callable[[Path], None]] = {
    "latin1-byte": lambda p: p.write_bytes(_insert_latin1(p.read_bytes())),
    "utf16": lambda p: p.write_bytes(p.read_text(encoding="utf-8").encode("utf-16")),
    "utf8-bom": lambda p: p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes()),
    "crlf": lambda p: p.write_bytes(p.read_bytes().replace(b"\n", b"\r\n")),
    "nul-appended": lambda p: p.write_bytes(p.read_bytes() + b"\x00" * (1 << 20)),
    "nul-padded-100MB": lambda p: _sparse_pad(p, 100 * 2**20),
    "truncated-half": lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]),
    "empty": lambda p: p.write_bytes(b""),
    "first-line-twice": lambda p: p.write_bytes(_duplicate_first_line(p.read_bytes())),
    "copy-beside": _copy_beside,
    "backup-folder": _backup_folder,
    "symlink-loops": _symlink_loops,
}
# what each corruption may do: a damaged file is refused; an equivalent file is read unchanged (or
# refused where the tool recorded the file's checksum); a copy is refused or, when the reader does
# not take that file (an aggregate, a backup folder outside the tool's layout), has no effect
EXPECTED = {"utf8-bom": {"same"}, "crlf": {"same"}, "symlink-loops": {"same"},
            "copy-beside": {"refused", "same"}, "backup-folder": {"refused", "same"}}
CHECKSUMMED = {"every_eval_ever-record"}  # the aggregate file holds the samples file's sha256


def expected(fmt: Format, corruption: str) -> set[str]:
    """The outcomes allowed for ``corruption`` of ``fmt``'s file."""
    allowed = EXPECTED.get(corruption, {"refused"})
    if fmt.name in CHECKSUMMED and corruption in ("utf8-bom", "crlf"):
        return {"refused"}
    return allowed
