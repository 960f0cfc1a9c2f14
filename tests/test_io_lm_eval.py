"""read_lm_eval on fixtures written in lm-evaluation-harness's --log_samples format.

The fixture writer follows lm_eval 0.4.3+ (evaluation_tracker.save_results_samples): arguments as
{"gen_args_i": {"arg_j": ...}}, resps / filtered_resps through sanitize_list (every leaf a
string), target as str, one record per (doc, filter) with "filter" and "metrics", and a
results_<date_id>.json with model_name and config.model_args next to the samples. The 0.4.0-0.4.2
variant (numbers and booleans, [[ctx, cont], ...] arguments, no "filter"/"metrics") is also
written. Oracle: correctness and chosen letters are recomputed here from the fixture's own
loglikelihoods with numpy (argmax, as lm-eval's acc / acc_norm define them).
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from benchkit import NO_ANSWER
from benchkit import BenchkitValueError
from benchkit.io.lm_eval import read_lm_eval

DATE = "2024-06-01T10-20-30.123456"


def _sanitize(x):  # lm_eval.utils.sanitize_list
    if isinstance(x, list):
        return [_sanitize(v) for v in x]
    if isinstance(x, tuple):
        return tuple(_sanitize(v) for v in x)
    return str(x)


def _mc_record(doc_id, lls, gold, conts, *, new=True):
    lls = [float(v) for v in lls]
    greedy = [bool(i == int(np.argmax(lls))) for i in range(len(lls))]
    filtered = [[ll, g] for ll, g in zip(lls, greedy)]
    resps = [[[ll, g]] for ll, g in zip(lls, greedy)]
    acc = float(int(np.argmax(lls)) == gold)
    norm = np.asarray(lls) / np.array([len(c) for c in conts], dtype=float)
    acc_norm = float(int(np.argmax(norm)) == gold)
    rec = {"doc_id": doc_id, "doc": {"question": f"q{doc_id}", "choices": conts, "answer": gold},
           "target": gold, "arguments": [[f"Question: q{doc_id}\nAnswer:", c] for c in conts],
           "resps": resps, "filtered_resps": filtered}
    if new:
        rec["arguments"] = {f"gen_args_{i}": {"arg_0": a[0], "arg_1": a[1]}
                            for i, a in enumerate(rec["arguments"])}
        rec["resps"] = _sanitize(rec["resps"])
        rec["filtered_resps"] = _sanitize(rec["filtered_resps"])
        rec["target"] = str(gold)
        rec.update(filter="none", metrics=["acc", "acc_norm"])
    rec.update(doc_hash="d", prompt_hash="p", target_hash="t", acc=acc, acc_norm=acc_norm)
    return rec


def _write_run(folder, model, task, records, *, date=DATE, model_name=True):
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"samples_{task}_{date}.jsonl", "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in records)
    results = {"results": {task: {"alias": task}}, "config": {"model": "hf",
               "model_args": f"pretrained={model},dtype=bfloat16"}}
    if model_name:
        results["model_name"] = model
        results["model_name_sanitized"] = model.replace("/", "__")
    (folder / f"results_{date}.json").write_text(json.dumps(results))


def _mc_data(seed, n=12, k=4):
    """Log-likelihoods drawn with ``seed``; the documents (gold, continuations) fixed, as for one task."""
    lls = -np.random.default_rng(seed).gamma(2.0, 1.5, size=(n, k))
    rng = np.random.default_rng(1000 + n)
    gold = rng.integers(0, k, n)
    conts = [[" " + "x" * int(rng.integers(1, 9)) for _ in range(k)] for _ in range(n)]
    return lls, gold, conts


@pytest.mark.parametrize("new", [True, False])
def test_multiple_choice_two_models(tmp_path, new):
    data = {}
    for j, name in enumerate(["EleutherAI/pythia-160m", "EleutherAI/pythia-410m"]):
        lls, gold, conts = _mc_data(j)
        data[name] = (lls, gold, conts)
        recs = [_mc_record(i, lls[i], int(gold[i]), conts[i], new=new) for i in range(len(gold))]
        _write_run(tmp_path / name.replace("/", "__"), name, "arc_easy", recs)
    if new:  # 0.4.3+: the first metric the record lists (the task's metric_list order) is the default
        assert read_lm_eval(tmp_path).meta["metric"] == {"arc_easy": "acc"}
    else:  # no "metrics" list: two numeric fields are ambiguous
        with pytest.raises(BenchkitValueError, match=r"logs 2 metrics \['acc', 'acc_norm'\]; pass metric"):
            read_lm_eval(tmp_path)
    rs = read_lm_eval(tmp_path, metric="acc")
    assert list(rs.model_ids) == ["EleutherAI/pythia-160m", "EleutherAI/pythia-410m"]
    assert rs.n_items == 12
    assert rs.items["benchmark"].eq("arc_easy").all()
    long = rs.to_long().set_index(["model", "item"])
    for name, (lls, gold, conts) in data.items():
        for i in range(len(gold)):
            row = long.loc[(name, f"arc_easy/{i}")]
            assert row["answer"] == "ABCD"[int(np.argmax(lls[i]))]
            assert row["correct"] == float(np.argmax(lls[i]) == gold[i])
    assert rs.items.loc["arc_easy/3", "answer_key"] == "ABCD"[data["EleutherAI/pythia-160m"][1][3]]
    assert rs.items.loc["arc_easy/0", "options"] == [c.strip() for c in data["EleutherAI/pythia-160m"][2][0]]
    P = rs.option_probs()  # softmax of the logged loglikelihoods
    lls0 = data["EleutherAI/pythia-160m"][0]
    ref = np.exp(lls0 - lls0.max(1, keepdims=True))
    np.testing.assert_allclose(P[:, 0, :], ref / ref.sum(1, keepdims=True), rtol=1e-12)
    # acc_norm: chosen letter is argmax(ll / len(continuation)), as lm-eval computes acc_norm
    rn = read_lm_eval(tmp_path, metric="acc_norm").to_long().set_index(["model", "item"])
    lls, gold, conts = data["EleutherAI/pythia-410m"]
    for i in range(len(gold)):
        norm = lls[i] / np.array([len(c) for c in conts[i]])
        assert rn.loc[("EleutherAI/pythia-410m", f"arc_easy/{i}"), "answer"] == "ABCD"[int(np.argmax(norm))]
    assert rs.accuracy().loc["EleutherAI/pythia-160m"] == pytest.approx(
        np.mean(np.argmax(data["EleutherAI/pythia-160m"][0], 1) == data["EleutherAI/pythia-160m"][1]))


def test_model_from_model_args_and_explicit(tmp_path):
    lls, gold, conts = _mc_data(3, n=4)
    recs = [_mc_record(i, lls[i], int(gold[i]), conts[i]) for i in range(4)]
    _write_run(tmp_path / "run", "meta-llama/Llama-2-7b-hf", "piqa", recs, model_name=False)
    rs = read_lm_eval(tmp_path / "run" / f"samples_piqa_{DATE}.jsonl", metric="acc")
    assert list(rs.model_ids) == ["meta-llama/Llama-2-7b-hf"]
    assert rs.models.loc["meta-llama/Llama-2-7b-hf", "size"] == 7e9
    rs2 = read_lm_eval(str(tmp_path / "run" / "samples_*.jsonl"), metric="acc", model="mine")
    assert list(rs2.model_ids) == ["mine"]
    (tmp_path / "run" / f"results_{DATE}.json").unlink()
    with pytest.raises(BenchkitValueError, match="its folder has no results_.*pass model="):
        read_lm_eval(tmp_path / "run", metric="acc")


def _gen_records(answers, targets, filt=None):
    out = []
    for i, (a, t) in enumerate(zip(answers, targets)):
        rec = {"doc_id": i, "doc": {"question": f"q{i}"}, "target": str(t),
               "arguments": {"gen_args_0": {"arg_0": f"Q: q{i}\nA:", "arg_1": "{'until': ['\\n']}"}},
               "resps": [[f"The answer is {a}"]], "filtered_resps": [str(a)],
               "filter": filt or "none", "metrics": ["exact_match"], "doc_hash": "d",
               "prompt_hash": "p", "target_hash": "t", "exact_match": float(str(a) == str(t))}
        out.append(rec)
    return out


def test_generation_filters_and_no_answer(tmp_path):
    targets = ["4", "10", "7", "3"]
    strict = _gen_records(["4", "[invalid]", "7", ""], targets, "strict-match")
    flexible = _gen_records(["4", "10", "8", "3"], targets, "flexible-extract")
    _write_run(tmp_path / "m", "Qwen/Qwen2-7B", "gsm8k", strict + flexible)
    with pytest.raises(BenchkitValueError, match=r"several filters \['flexible-extract', 'strict-match'\]"):
        read_lm_eval(tmp_path)
    with pytest.raises(BenchkitValueError, match=r"filter 'loose' is not logged.*available"):
        read_lm_eval(tmp_path, filter="loose")
    rs = read_lm_eval(tmp_path, filter="strict-match")  # one metric: no metric= needed
    long = rs.to_long().set_index("item")
    assert list(long["answer"]) == ["4", NO_ANSWER, "7", NO_ANSWER]
    assert list(long["correct"]) == [1.0, 0.0, 1.0, 0.0]
    assert "answer_key" in rs.items
    assert rs.items["answer_key"].isna().all()
    assert list(rs.items["target"]) == targets
    assert not rs.has_option_probs
    rf = read_lm_eval(tmp_path, filter={"gsm8k": "flexible-extract"})
    assert list(rf.to_long()["correct"]) == [1.0, 1.0, 0.0, 1.0]
    assert rf.meta["filter"] == {"gsm8k": "flexible-extract"}
    assert rf.meta["metric"] == {"gsm8k": "exact_match"}


def test_mixed_tasks_drop_option_logprobs(tmp_path):
    lls, gold, conts = _mc_data(5, n=3)
    mc = [_mc_record(i, lls[i], int(gold[i]), conts[i]) for i in range(3)]
    gen = _gen_records(["a", "b"], ["a", "c"])
    _write_run(tmp_path / "m", "gpt2", "hellaswag", mc)
    _write_run(tmp_path / "m", "gpt2", "triviaqa", gen, date="2024-06-01T11-00-00.000001")
    # results file pairs with each samples file by its date_id
    rs = read_lm_eval(tmp_path, metric={"hellaswag": "acc", "triviaqa": "exact_match"})
    assert rs.n_items == 5
    assert not rs.has_option_probs
    assert sorted(rs.items["benchmark"].unique()) == ["hellaswag", "triviaqa"]
    with pytest.raises(BenchkitValueError, match="option_logprobs=True needs every document"):
        read_lm_eval(tmp_path, metric={"hellaswag": "acc", "triviaqa": "exact_match"}, option_logprobs=True)
    one = read_lm_eval(tmp_path, tasks=["hellaswag"], metric="acc")
    assert one.n_items == 3
    assert one.has_option_probs


def test_errors_name_file_and_line(tmp_path):
    lls, gold, conts = _mc_data(1, n=3)
    recs = [_mc_record(i, lls[i], int(gold[i]), conts[i]) for i in range(3)]

    def refused(metric, msg):
        _write_run(tmp_path / "a", "gpt2", "arc_easy", recs)
        with pytest.raises(BenchkitValueError, match=msg):
            read_lm_eval(tmp_path / "a", metric=metric)

    del recs[1]["doc_id"]
    refused("acc", r"samples_arc_easy_.*\.jsonl:2: an lm-eval samples record needs the field 'doc_id'")
    recs[1]["doc_id"] = 0
    refused("acc", r"duplicate document: model 'gpt2', item 'arc_easy/0' appears at .*:1 and .*:2")
    recs[1]["doc_id"] = 1
    refused("f1", r":1: record has no metric 'f1'; available: \['acc', 'acc_norm'\]")
    recs[2]["acc"] = 3.5
    refused("acc", r":3: metric 'acc' is 3.5; correct must be 0/1")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "samples_x.jsonl").write_text("{}\n")
    with pytest.raises(BenchkitValueError, match="not named like an lm-eval samples file"):
        read_lm_eval(tmp_path / "b" / "samples_x.jsonl")
    with pytest.raises(BenchkitValueError, match="matches no files"):
        read_lm_eval(str(tmp_path / "nothing" / "*.jsonl"))
    bad = tmp_path / "c"
    _write_run(bad, "gpt2", "arc_easy", recs[:1])
    with open(bad / f"samples_arc_easy_{DATE}.jsonl", "a") as fh:
        fh.write("{not json\n")
    with pytest.raises(BenchkitValueError, match=r":2: not valid JSON"):
        read_lm_eval(bad, metric="acc")
