"""read_inspect on fixtures written in Inspect AI's log formats.

The fixture writer follows inspect_ai's EvalRecorder (src/inspect_ai/log/_recorders/eval.py, log
schema version 2): a deflate zip with header.json (EvalLog without samples), _journal/start.json,
_journal/summaries/1.json, summaries.json and samples/<id>_epoch_<n>.json; and the .json format
(the EvalLog with "samples"). Oracle: the expected correctness is written next to each sample by
the fixture (C/I/P/N -> 1/0/0.5/0, inspect's value_to_float), and compared row by row.
"""
from __future__ import annotations

import json
import shutil
import zipfile

import numpy as np
import pytest

from benchkit import NO_ANSWER
from benchkit import BenchkitValueError
from benchkit import BenchkitWarning
from benchkit.io.inspect_logs import read_inspect
from benchkit.io.inspect_logs import score_to_float


def _spec(task, model):
    return {"eval_id": "e1", "run_id": "r1", "created": "2025-01-01T00:00:00+00:00", "task": task,
            "task_id": "t1", "task_version": 0, "dataset": {"name": task, "samples": 6},
            "model": model, "model_args": {}, "config": {"epochs": 2}, "packages": {"inspect_ai": "0.3.90"}}


def _samples(seed, n=6, epochs=2, mc=True, scorers=("choice",)):
    rng = np.random.default_rng(seed)
    out, expected = [], {}
    for i in range(n):
        for e in range(1, epochs + 1):
            sid = i + 1 if i % 2 else f"q{i}"  # ids may be int or str
            value = str(rng.choice(["C", "I", "P", "N"]))
            ans = str(rng.choice(list("ABCD"))) if value != "N" else None
            score = {"value": value, "explanation": "x"}
            if ans is not None:
                score["answer"] = ans
            s = {"id": sid, "epoch": e, "input": f"question {i}", "target": "ABCD"[i % 4],
                 "messages": [], "output": {"model": "m", "choices": []},
                 "scores": {name: dict(score) for name in scorers}, "metadata": {}}
            if mc:
                s["choices"] = [f"opt{j}" for j in range(4)]
            out.append(s)
            expected[(f"{sid}", e)] = ({"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}[value], ans)
    return out, expected


def _write_eval(path, task, model, samples, status="success", header=True):
    spec = _spec(task, model)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("_journal/start.json", json.dumps({"version": 2, "eval": spec, "plan": {"steps": []}}))
        # summaries carry choices and the error as a string (as inspect_ai 0.3.285 writes them)
        keep = ("id", "epoch", "input", "choices", "target", "scores")
        summaries = [{k: v for k, v in s.items() if k in keep}
                     | ({"error": s["error"]["message"]} if s.get("error") else {}) for s in samples]
        zf.writestr("_journal/summaries/1.json", json.dumps(summaries))
        for s in samples:
            zf.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
        if header:
            zf.writestr("summaries.json", json.dumps(summaries))
            zf.writestr("header.json", json.dumps({
                "version": 2, "status": status, "eval": spec, "plan": {"steps": []},
                "results": {"total_samples": len(samples), "completed_samples": len(samples),
                            "scores": []}, "stats": {}}))


def test_eval_archives_two_models(tmp_path):
    exp = {}
    for j, model in enumerate(["openai/gpt-4o", "anthropic/claude-3-5-sonnet-20240620"]):
        samples, exp[model] = _samples(j)
        _write_eval(tmp_path / f"log{j}.eval", "mmlu_0_shot", model, samples)
    rs = read_inspect(tmp_path)
    assert rs.T == 2
    assert rs.n_items == 6
    assert rs.n_models == 2
    long = rs.to_long()
    assert len(long) == 24
    for _, row in long.iterrows():
        sid = row["item"].split("/", 1)[1]
        value, ans = exp[row["model"]][(sid, row["sample"] + 1)]
        assert row["correct"] == value
        assert row["answer"] == (ans if ans is not None else NO_ANSWER)
    assert rs.items.loc["mmlu_0_shot/q0", "answer_key"] == "A"
    assert rs.items.loc["mmlu_0_shot/2", "options"] == ["opt0", "opt1", "opt2", "opt3"]
    assert rs.items["benchmark"].eq("mmlu_0_shot").all()
    assert rs.meta["scorer"] == ["choice"]
    assert rs.models.loc["openai/gpt-4o", "owner"] == "openai"


def test_json_log_and_journal_only_archive(tmp_path):
    samples, exp = _samples(3, mc=False)
    log = {"version": 2, "status": "success", "eval": _spec("gsm8k", "openai/gpt-4o-mini"),
           "plan": {}, "results": {}, "stats": {}, "samples": samples}
    (tmp_path / "a.json").write_text(json.dumps(log))
    (tmp_path / "logs.json").write_text(json.dumps({"a.json": {}}))  # inspect's listing: skipped
    rs = read_inspect(tmp_path)
    assert rs.n_items == 6
    assert "options" not in rs.items
    assert rs.items["answer_key"].isna().all()
    # oracle: mean over epochs of C/I/P/N -> 1/0/0.5/0 (P scores are fractional, so counts() is
    # refused and scores() holds the means)
    with pytest.raises(BenchkitValueError, match="fractional scores"):
        rs.counts()
    means = rs.scores()[:, 0]
    for i, item in enumerate(rs.item_ids):
        sid = item.split("/", 1)[1]
        assert means[i] == pytest.approx(np.mean([exp[(sid, e)][0] for e in (1, 2)]))
    running = tmp_path / "run"
    running.mkdir()
    _write_eval(running / "b.eval", "gsm8k", "openai/gpt-4o-mini", samples, header=False)
    with pytest.warns(BenchkitWarning, match="log status is 'started'"):
        rb = read_inspect(running / "b.eval")
    np.testing.assert_allclose(rb.scores(), rs.scores())


def test_scorer_choice_and_errors(tmp_path):
    samples, _ = _samples(1, scorers=("match", "model_graded_qa"))
    _write_eval(tmp_path / "x.eval", "t", "openai/gpt-4o", samples)
    msg = r"several scores \['match', 'model_graded_qa'\] and the log names no headline scorer; pass scorer"
    with pytest.raises(BenchkitValueError, match=msg):
        read_inspect(tmp_path / "x.eval")
    msg = r"no score from scorer 'f1'; available: \['match', 'model_graded_qa'\]"
    with pytest.raises(BenchkitValueError, match=msg):
        read_inspect(tmp_path / "x.eval", scorer="f1")
    assert read_inspect(tmp_path / "x.eval", scorer="match").meta["scorer"] == ["match"]
    bad = [dict(s) for s in samples]
    bad[3] = {**bad[3], "scores": None, "error": {"message": "RateLimitError"}}
    _write_eval(tmp_path / "y.eval", "t", "openai/gpt-4o", bad)
    msg = (r"1 samples have no score .*y\.eval!summaries\.json\["
           r"3\] \(sample 2 epoch 2, error: 'RateLimitError'\)")
    with pytest.raises(BenchkitValueError, match=msg):
        read_inspect(tmp_path / "y.eval", scorer="match")
    rs = read_inspect(tmp_path / "y.eval", scorer="match", drop_unscored=True, drop_incomplete=True)
    assert rs.meta["unscored"] == [{"where": f"{tmp_path / 'y.eval'}!summaries.json[3]", "id": 2, "epoch": 2,
                                    "error": "RateLimitError"}]
    assert rs.report is not None
    full = read_inspect(tmp_path / "y.eval", scorer="match", drop_unscored=True, drop_incomplete=True,
                        full_samples=True)  # the sample members themselves: same scores
    np.testing.assert_array_equal(full.scores(), rs.scores())
    odd = [dict(s) for s in samples]
    odd[0] = {**odd[0], "scores": {"match": {"value": 7}}}
    _write_eval(tmp_path / "z.eval", "t", "openai/gpt-4o", odd)
    with pytest.raises(BenchkitValueError, match=r"score 'match' has value 7; allowed: C, I, P, N"):
        read_inspect(tmp_path / "z.eval", scorer="match")
    msg = r"duplicate sample: model 'openai/gpt-4o', item 't/q0', epoch 1"
    shutil.copy(tmp_path / "x.eval", tmp_path / "x-copy.eval")
    with pytest.raises(BenchkitValueError, match=msg):
        read_inspect([tmp_path / "x.eval", tmp_path / "x-copy.eval"], scorer="match")
    # the same file named twice is one file (read once)
    assert read_inspect([tmp_path / "x.eval", tmp_path / "x.eval"], scorer="match").n_responses == \
        read_inspect(tmp_path / "x.eval", scorer="match").n_responses
    (tmp_path / "notzip.eval").write_text("hello")
    with pytest.raises(BenchkitValueError, match="not an Inspect .eval archive"):
        read_inspect(tmp_path / "notzip.eval")


def test_score_to_float():
    assert [score_to_float(v) for v in ("C", "I", "P", "N", True, False, 0.25, "0.75", "Yes", "false")] == \
        [1.0, 0.0, 0.5, 0.0, 1.0, 0.0, 0.25, 0.75, 1.0, 0.0]  # inspect's value_to_float
    assert score_to_float({"a": 1}) is None
    assert score_to_float("maybe") is None
