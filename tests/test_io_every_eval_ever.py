"""Every Eval Ever instance-level reader and writer.

Real-tool files: ``tests/tool_fixtures/every_eval_ever`` was written by every-eval-ever 0.3.0's own
``convert lm_eval --include_samples`` from the lm-eval 0.4.13 output in
``tests/tool_fixtures/lm_eval`` (``make_every_eval_ever.py``). every-eval-ever needs Python >= 3.12,
so it cannot run in this 3.11 test session; when its environment exists
(``/work/venvs/every_eval_ever`` or $BENCHKIT_EEE), the files benchkit writes are checked with its
own ``every_eval_ever validate``. Oracles: lm-eval's per-document metrics and aggregates
(``results_*.json``), compared with ``==``; the round trip compares whole long frames.
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from benchkit import BenchkitValueError
from benchkit.io.every_eval_ever import read_every_eval_ever
from benchkit.io.every_eval_ever import write_every_eval_ever
from benchkit.io.inspect_logs import read_inspect
from benchkit.io.lm_eval import read_lm_eval

HERE = Path(__file__).parent / "tool_fixtures"
EEE = HERE / "every_eval_ever"
_VALIDATOR = Path(os.environ.get("BENCHKIT_EEE", "/work/venvs/every_eval_ever/bin/every_eval_ever"))


def _lm_results():
    out = {}
    for path in HERE.glob("lm_eval/run_*/*/results_*.json"):
        data = json.loads(path.read_text())
        out[data["model_name"]] = data["results"]
    return out


def test_converter_output_reproduces_lm_eval():
    res = _lm_results()
    rs = read_every_eval_ever(EEE)  # default: the first result per evaluation (acc, not acc_norm)
    assert rs.meta["result"] == {"bk_mc": "acc", "bk_gen/strict": "exact_match:strict",
                                 "bk_gen/loose": "exact_match:loose"}
    assert rs.meta["skipped_results"] == {"acc_norm": 16}
    mc = read_every_eval_ever(EEE, result="acc")
    sub = mc.select(items=[i for i in mc.item_ids if i.startswith("bk_mc/")])
    direct = read_lm_eval(HERE / "lm_eval", tasks=["bk_mc"])
    for model in ("benchkit/dummy-a", "benchkit/dummy-b"):
        assert sub.accuracy()[model] == res[model]["bk_mc"]["acc,none"]
    a = sub.to_long().set_index(["model", "item"])["correct"].sort_index()
    b = direct.to_long().set_index(["model", "item"])["correct"].sort_index()
    assert a.equals(b)  # per item and model, the same correctness as lm-eval's own samples
    norm = read_every_eval_ever(EEE, result={"bk_mc": "acc_norm", "bk_gen/strict": "exact_match:strict",
                                             "bk_gen/loose": "exact_match:loose"})
    for model in ("benchkit/dummy-a", "benchkit/dummy-b"):
        loose = norm.select(items=[i for i in norm.item_ids if i.startswith("bk_gen/loose/")])
        assert loose.accuracy()[model] == res[model]["bk_gen"]["exact_match,loose"]
        mcn = norm.select(items=[i for i in norm.item_ids if i.startswith("bk_mc/")])
        assert mcn.accuracy()[model] == res[model]["bk_mc"]["acc_norm,none"]
    assert sub.items.loc["bk_mc/0", "options"] == ["alpha", "be", "gamma ray", "d"]


def test_round_trip_inspect_log(tmp_path):
    rs = read_inspect(HERE / "inspect" / "mc.eval", scorer="graded")  # P and N values, 3 epochs
    # the repository layout the validator expects: data/<benchmark>/<developer>/<model>/<uuid>_samples.jsonl
    folder = tmp_path / "data" / "mc" / "mockllm" / "model"
    folder.mkdir(parents=True)
    path = write_every_eval_ever(rs, folder / "5454cb4f-6d66-4dde-b8ec-4f1088ba2205_samples.jsonl",
                                 evaluation_id="run-1")
    back = read_every_eval_ever(path)
    assert back.to_long().equals(rs.to_long())
    cols = ["benchmark", "answer_key", "options"]
    assert back.items[cols].equals(rs.items[cols])
    rec = json.loads(path.read_text().splitlines()[0])
    assert rec["schema_version"] == "0.3.0"
    assert rec["evaluation_id"] == "run-1"
    assert rec["interaction_type"] == "single_turn"
    assert rec["messages"] is None
    if _VALIDATOR.exists():  # every-eval-ever's own pydantic model of an instance record
        # (its CLI `validate` also wants the aggregate .json next to the samples: not written here)
        code = ("import sys\n"
                "from every_eval_ever.instance_level_types import InstanceLevelEvaluationLog as M\n"
                "for line in open(sys.argv[1]):\n    M.model_validate_json(line)\nprint('ok')")
        done = subprocess.run([str(_VALIDATOR.with_name("python")), "-c", code, str(path)], check=False,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip() == "ok", done.stderr[-2000:]


def test_errors(tmp_path):
    bad = tmp_path / "x.jsonl"
    bad.write_text(json.dumps({"model_id": "m"}) + "\n")
    msg = r"x\.jsonl:1: an Every Eval Ever instance record needs the field 'schema_version'"
    with pytest.raises(BenchkitValueError, match=msg):
        read_every_eval_ever(bad)
    with pytest.raises(BenchkitValueError, match="correct='maybe' is not allowed"):
        read_every_eval_ever(EEE, correct="maybe")
    with pytest.raises(BenchkitValueError, match=r"holds no records of result 'f1'"):
        read_every_eval_ever(EEE, result="f1")
