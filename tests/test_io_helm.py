"""read_helm on the two raw HELM scenario-state files of the mmlu-redux source, and on a
synthetic run folder with run_spec.json and per_instance_stats.json.

Oracles: the mmlu-redux loader's own parse of the same files (part="helm-raw", written
independently of benchkit.io.helm) and the authors' combined per-subject table (part="helm-full",
the letters of the same two models on global_facts, joined by question text); for the synthetic
run, the stats written by the fixture.
"""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from benchkit import NO_ANSWER
from benchkit import BenchkitValueError
from benchkit.datasets import fetch
from benchkit.datasets import fetch_file
from benchkit.datasets.mmlu_redux import SOURCE
from benchkit.io.helm import read_helm

_MODELS = ("meta_llama-3-70b", "openai_gpt-4-0613")


def _raw_paths():
    try:
        return [fetch_file(SOURCE, f"outputs/original_helm/{m}/global_facts.json") for m in _MODELS]
    except BenchkitValueError as exc:  # only the loader's missing-data error (no mirror, no network)
        if "could not download" not in str(exc):
            raise
        pytest.skip(f"mmlu-redux HELM files unavailable: {exc}")


@pytest.fixture(scope="module")
def helm_rs():
    return read_helm(_raw_paths())


def test_raw_scenario_states_match_loader(helm_rs):
    rs = helm_rs
    assert rs.n_items == 100
    assert list(rs.model_ids) == ["meta/llama-3-70b", "openai/gpt-4-0613"]
    raw = fetch("mmlu-redux", part="helm-raw")
    long = rs.to_long().set_index(["model", "item"])
    for _, r in raw.iterrows():
        row = long.loc[(r["helm_model"], f"global_facts/{r['instance_id']}")]
        assert row["correct"] == float(bool(r["correct"]))
        assert row["answer"] == (r["chosen"] if isinstance(r["chosen"], str) else NO_ANSWER)
        assert rs.items.loc[f"global_facts/{r['instance_id']}", "answer_key"] == r["answer_key"]
    # accuracies measured on these files: 0.49 (Llama-3-70B), 0.62 (GPT-4-0613)
    assert rs.accuracy().round(2).to_dict() == {"meta/llama-3-70b": 0.49, "openai/gpt-4-0613": 0.62}
    assert rs.items["options"].map(len).eq(4).all()


def test_raw_scenario_states_match_combined_table(helm_rs):
    full = fetch("mmlu-redux", part="helm-full")
    fi = full.items[full.items["source"] == "global_facts"]

    def norm(t):
        return re.sub(r"\s+", " ", str(t)).strip()

    by_text = {norm(t): it for it, t in fi["text"].items()}
    mine = helm_rs.items["text"].map(norm)
    joined = mine.map(by_text).dropna()
    assert len(joined) >= 95  # measured: all 100 join
    fl = full.to_long().set_index(["model", "item"])["answer"]
    ml = helm_rs.to_long().set_index(["model", "item"])["answer"]
    agree = [ml.loc[(hm, it)] == fl.loc[(m, mm)]
             for m, hm in zip(_MODELS, ("meta/llama-3-70b", "openai/gpt-4-0613"))
             for it, mm in joined.items()]
    assert np.mean(agree) == 1.0
    # answer keys agree with the MMLU answer key where joined
    keys = helm_rs.items.loc[joined.index, "answer_key"].to_numpy()
    assert (keys == fi.loc[joined.to_numpy(), "answer_key"].to_numpy()).all()


def _state(instances, completions, *, method="multiple_choice_joint", trials=1):
    states = []
    for t in range(trials):
        for (iid, q, opts, key), comp in zip(instances, completions[t]):
            refs = [{"output": {"text": o}, "tags": ["correct"] if i == key else []}
                    for i, o in enumerate(opts)]
            st = {"instance": {"input": {"text": q}, "references": refs, "split": "test", "id": iid},
                  "train_trial_index": t, "request": {"prompt": "..."},
                  "result": {"success": True, "completions": [{"text": comp, "logprob": 0.0}]}}
            if method == "multiple_choice_joint":
                st["output_mapping"] = {"ABCD"[i]: o for i, o in enumerate(opts)}
            states.append(st)
    return {"adapter_spec": {"method": method, "model": "together/qwen1.5-7b"}, "request_states": states}


def test_run_folder_with_stats(tmp_path):
    run_name = "mmlu:subject=anatomy,method=multiple_choice_joint,model=together_qwen1.5-7b"
    run = tmp_path / "runs" / "v1" / run_name
    run.mkdir(parents=True)
    inst = [(f"id{i}", f"q{i}", ["a", "b", "c", "d"], i % 4) for i in range(5)]
    comps = [[" A", "B", "x", "D", "A"], ["A", "C", "C", "D", "B"]]
    (run / "scenario_state.json").write_text(json.dumps(_state(inst, comps, trials=2)))
    (run / "run_spec.json").write_text(json.dumps({"name": run.name}))
    with pytest.raises(BenchkitValueError, match=r"metric 'quasi_exact_match' needs per_instance_stats.json"):
        read_helm(tmp_path, metric="quasi_exact_match")
    rs = read_helm(tmp_path)  # recomputed exact match
    assert rs.T == 2
    assert rs.items["benchmark"].eq("mmlu:subject=anatomy,method=multiple_choice_joint").all()
    long = rs.to_long().set_index(["item", "sample"])
    bench = "mmlu:subject=anatomy,method=multiple_choice_joint"
    # keys A B C D A; trial 0 outputs A B x D A -> 1 1 0 1 1; trial 1 A C C D B -> 1 0 1 1 0
    assert [long.loc[(f"{bench}/id{i}", 0), "correct"] for i in range(5)] == [1, 1, 0, 1, 1]
    assert [long.loc[(f"{bench}/id{i}", 1), "correct"] for i in range(5)] == [1, 0, 1, 1, 0]
    assert long.loc[(f"{bench}/id2", 0), "answer"] == NO_ANSWER
    stats = [{"instance_id": f"id{i}", "train_trial_index": t,
              "stats": [{"name": {"name": "exact_match", "split": "test"},
                         "count": 1, "sum": 0.0, "mean": 0.0},
                        {"name": {"name": "quasi_exact_match", "split": "test"}, "count": 1,
                         "sum": float((i + t) % 2), "mean": float((i + t) % 2)}]}
             for i in range(5) for t in range(2)]
    (run / "per_instance_stats.json").write_text(json.dumps(stats))
    rq = read_helm(run, metric="quasi_exact_match")
    lq = rq.to_long().set_index(["item", "sample"])
    assert [lq.loc[(f"{bench}/id{i}", t), "correct"] for i in range(5) for t in range(2)] == \
        [float((i + t) % 2) for i in range(5) for t in range(2)]
    msg = r"no per-instance stat 'f1'; available: \['exact_match', 'quasi_exact_match'\]"
    with pytest.raises(BenchkitValueError, match=msg):
        read_helm(run, metric="f1")


def test_generation_and_errors(tmp_path):
    inst = [("id1", "2+2?", ["4"], 0), ("id2", "capital of France?", ["Paris"], 0)]
    p = tmp_path / "gsm.json"
    p.write_text(json.dumps(_state(inst, [[" 4 ", ""]], method="generation")))
    rs = read_helm(p, benchmark="toy")
    assert list(rs.to_long()["correct"]) == [1.0, 0.0]
    assert list(rs.to_long()["answer"]) == ["4", NO_ANSWER]
    assert "options" not in rs.items
    assert list(rs.item_ids) == ["toy/id1", "toy/id2"]
    bad = _state(inst, [["4", "Paris"]], method="multiple_choice_separate_original")
    p.write_text(json.dumps(bad))
    msg = r"adapter method 'multiple_choice_separate_original' is not supported"
    with pytest.raises(BenchkitValueError, match=msg):
        read_helm(p)
    dup = _state(inst, [["4", "Paris"]], method="generation")
    dup["request_states"].append(dup["request_states"][0])
    p.write_text(json.dumps(dup))
    msg = r"duplicate request: model 'together/qwen1.5-7b', item 'gsm/id1'"
    with pytest.raises(BenchkitValueError, match=msg):
        read_helm(p)
    p.write_text(json.dumps({"request_states": []}))
    with pytest.raises(BenchkitValueError, match="a HELM scenario state needs the field 'adapter_spec'"):
        read_helm(p)


def test_perturbations_become_variants(tmp_path):
    """One scenario with HELM robustness perturbations (crafted: the real HELM files here have none).

    Built from a real scenario-state file (GPT-4-0613, global_facts): each request state is kept as
    the unperturbed instance and copied once as a perturbed one, the way HELM's
    DataAugmenterRunExpander writes them -- the same instance ``id`` with
    ``instance.perturbation`` = a PerturbationDescription (``name``, ``robustness``,
    ``fairness``, ``computed_on``; helm/benchmark/augmentations/perturbation_description.py) --
    with every third perturbed completion changed to the next letter. Oracle: the letters written.
    """
    path = _raw_paths()[1]
    state = json.loads(path.read_text())
    original = state["request_states"]
    perturbed, expected = [], {}
    for k, rs_ in enumerate(original):
        copy = json.loads(json.dumps(rs_))
        copy["instance"]["perturbation"] = {"name": "typo", "robustness": True, "fairness": False,
                                            "computed_on": "perturbed", "prob": 0.1}
        text = copy["result"]["completions"][0]["text"].strip()
        if k % 3 == 0 and text in ("A", "B", "C", "D"):
            text = "ABCD"[("ABCD".index(text) + 1) % 4]
            copy["result"]["completions"][0]["text"] = " " + text
        key = next(letter for letter, opt in copy["output_mapping"].items()
                   if any(r["output"]["text"] == opt and "correct" in r.get("tags", [])
                          for r in copy["instance"]["references"]))
        # HELM's exact match on the stripped completion; a non-letter output is no answer
        expected[copy["instance"]["id"]] = (text if text in ("A", "B", "C", "D") else NO_ANSWER,
                                            float(text == key))
        perturbed.append(copy)
    state["request_states"] = original + perturbed
    run = tmp_path / "mmlu:subject=global_facts,method=multiple_choice_joint,model=openai_gpt-4-0613"
    run.mkdir()
    (run / "scenario_state.json").write_text(json.dumps(state))
    rs = read_helm(run, benchmark="global_facts")
    assert rs.variants == ("original", "typo")
    base = read_helm(path)
    orig = rs.select(variant="original")
    assert orig.accuracy().iloc[0] == base.accuracy().iloc[0]  # 0.62, unchanged
    long = rs.select(variant="typo").to_long().set_index("item")
    for iid, (letter, correct) in expected.items():
        row = long.loc[f"global_facts/{iid}"]
        assert row["answer"] == letter
        assert row["correct"] == correct
    assert rs.select(variant="typo").accuracy().iloc[0] == pytest.approx(
        np.mean([c for _, c in expected.values()]), abs=1e-15)
