"""read_evalscope on review files written by evalscope 1.14.1, and on hand-written edge cases.

``tests/tool_fixtures/evalscope`` was written by evalscope 1.14.1 itself
(``tool_fixtures/make_evalscope.py``; evalscope runs from its own environment because its pins clash
with lm-eval's, so the files are committed rather than produced in this test session). Oracle:
evalscope's own per-sample values and its report (``reports/<model>/general_mcq.json``, metric
score), compared with ``==``. The hand-written edge cases below follow the layout of
``ReviewResult.model_dump()`` as modelscope/evalscope saves it
(``evalscope/api/evaluator/cache.py``, ``save_review_cache``;
``evalscope/api/metric/scorer.py``, ``Score`` / ``SampleScore``; commit fde259d, 2026-08, the
1.x line): ``reviews/<model>/<benchmark>_<subset>.jsonl``. Oracle: the values written, by hand,
and the main-score rule of EvalScope's ``Score.main_value`` (``main_score_name``, else the first
key of ``value``).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchkit import NO_ANSWER
from benchkit import BenchkitValueError
from benchkit.io.evalscope import read_evalscope


def _review(index, target, value, *, pred="A", status="success", main=None, group=None, gen=None):
    return {"index": index, "target": target,
            "messages": [{"role": "user", "content": f"question {index}"},
                         {"role": "assistant", "content": f"ANSWER: {pred}"}],
            "agent_trace": None,
            "sample_score": {"score": {"value": value, "status": status, "judge_summary": None,
                                       "extracted_prediction": pred, "prediction": f"ANSWER: {pred}",
                                       "explanation": None, "metadata": {}, "main_score_name": main},
                             "sample_id": index, "group_id": group, "generation_index": gen,
                             "sample_metadata": {"subject": "x"}}}


def _write(folder, model, name, records):
    d = folder / "reviews" / model
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


TOOL = Path(__file__).parent / "tool_fixtures" / "evalscope"


def test_written_by_evalscope():
    rs = read_evalscope(TOOL, sample_budget="per_model")  # model-b ran with repeats=2
    assert list(rs.model_ids) == ["model-a", "model-b"]
    assert rs.n_items == 6
    assert len(rs.to_long()) == 6 + 12
    for model in ("model-a", "model-b"):
        report = json.loads((TOOL / "reports" / model / "general_mcq.json").read_text())
        metric = report["metrics"][0]
        assert metric["identity"]["name"] == "accuracy"
        one = rs.select(models=[model])
        assert round(one.accuracy()[model], 4) == metric["score"]  # evalscope reports 4 decimals
        long = one.to_long().set_index(["item", "sample"])
        for line in (TOOL / "reviews" / model / "general_mcq_example.jsonl").read_text().splitlines():
            rec = json.loads(line)
            ss = rec["sample_score"]
            row = long.loc[(f"general_mcq/example/{ss['group_id']}", ss["generation_index"] or 0)]
            assert row["correct"] == ss["score"]["value"]["accuracy"]
            pred = ss["score"]["extracted_prediction"]
            assert row["answer"] == (pred if pred else NO_ANSWER)
    assert rs.items.loc["general_mcq/example/2", "answer_key"] == "C"
    assert rs.items.loc["general_mcq/example/2", "source"] == "example"


def test_two_models_subsets_and_main_score(tmp_path):
    run = tmp_path / "20260901_120000"
    _write(run, "qwen2.5-7b", "general_mcq_default", [
        _review(0, "A", {"acc": 1.0}, main="acc"), _review(1, "B", {"acc": 0.0}, pred="C"),
        _review(2, "C", {"acc": 1.0}, pred="C")])
    (run / "reports" / "qwen2.5-7b").mkdir(parents=True)
    (run / "reports" / "qwen2.5-7b" / "general_mcq.json").write_text("{}")  # names the benchmark
    _write(run, "qwen2.5-7b", "gsm8k_main", [
        _review(0, "42", {"mean_acc": True, "f1": 0.3}, pred="42"),
        _review(1, "7", {"f1": 0.9, "mean_acc": False}, pred="", main="mean_acc")])
    _write(run, "llama-3-8b", "gsm8k_main", [
        _review(0, "42", {"mean_acc": False, "f1": 0.1}, pred="41"),
        _review(1, "7", {"mean_acc": True, "f1": 1.0}, pred="7")])
    rs = read_evalscope(run, drop_incomplete=True)
    long = rs.to_long().set_index(["model", "item"])
    # main score: main_score_name, else the first key (EvalScope's Score.main_value)
    assert long.loc[("qwen2.5-7b", "gsm8k/main/0"), "correct"] == 1.0  # first key mean_acc=True
    assert long.loc[("qwen2.5-7b", "gsm8k/main/1"), "correct"] == 0.0  # main_score_name mean_acc
    assert long.loc[("qwen2.5-7b", "gsm8k/main/1"), "answer"] == NO_ANSWER
    assert long.loc[("llama-3-8b", "gsm8k/main/1"), "answer"] == "7"
    assert rs.items.loc["general_mcq/default/1", "benchmark"] == "general_mcq"  # split by the report name
    assert rs.items.loc["gsm8k/main/0", "source"] == "main"
    assert rs.items.loc["gsm8k/main/0", "target"] == "42"
    f1 = read_evalscope(run / "reviews" / "llama-3-8b", metric="f1")
    assert f1.accuracy()["llama-3-8b"] == pytest.approx((0.1 + 1.0) / 2, abs=0)


def test_repeats_and_unusable_scores(tmp_path):
    recs = [_review(k, "A", {"acc": float(k % 2)}, group=k // 3, gen=k % 3) for k in range(6)]
    recs.append(_review(6, "B", {}, status="parse_error", group=2, gen=0))
    _write(tmp_path, "m", "arc_easy", recs)
    msg = r"1 reviews have no usable score: .*arc/easy/2: status 'parse_error'"
    with pytest.raises(BenchkitValueError, match=msg):
        read_evalscope(tmp_path)
    rs = read_evalscope(tmp_path, drop_unscored=True, drop_incomplete=True)
    assert rs.T == 3
    assert rs.n_items == 2
    assert len(rs.meta["unscored"]) == 1
    K = rs.counts().K[:, 0]
    assert K.tolist() == [1, 2]  # group 0: 0,1,0 ; group 1: 1,0,1
    bad = [_review(0, "A", {"score": 7.0})]
    _write(tmp_path / "b", "m", "x_y", bad)
    msg = r"metric 'score' is 7.0; correct must be a boolean or a number in \[0, 1\]"
    with pytest.raises(BenchkitValueError, match=msg):
        read_evalscope(tmp_path / "b")


def test_duplicate_review_names_both_lines(tmp_path):
    # two reviews of one (model, item, generation): group 0, generation 1 written twice
    recs = [_review(0, "A", {"acc": 1.0}, group=0, gen=1), _review(1, "A", {"acc": 0.0}, group=0, gen=1)]
    _write(tmp_path, "m", "arc_easy", recs)
    msg = (r"duplicate review: model 'm', item 'arc/easy/0', generation 1 appears in "
           r".*arc_easy\.jsonl:1 and .*arc_easy\.jsonl:2")
    with pytest.raises(BenchkitValueError, match=msg):
        read_evalscope(tmp_path)
