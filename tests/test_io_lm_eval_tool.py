"""read_lm_eval on output written by lm-evaluation-harness itself.

``tests/tool_fixtures/lm_eval/run_{a,b}`` were written by lm-eval 0.4.13 with
``tests/tool_fixtures/make_lm_eval.py`` (``--model dummy``, two local JSON tasks through
``--include_path``, offline); when lm_eval is importable the script runs again inside the test
session into a temporary folder and the same checks run on the fresh output.

Oracles: lm-eval's own per-document metric fields (``acc``, ``exact_match``) and its aggregates in
``results_*.json`` (``"acc,none"``, ``"exact_match,loose"``: mean = sum / n), compared with ``==``;
option probabilities against a numpy softmax of the logged log-likelihoods.
"""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchkit import NO_ANSWER
from benchkit import BenchkitValueError
from benchkit.io.lm_eval import read_lm_eval

HERE = Path(__file__).parent / "tool_fixtures"


@pytest.fixture(scope="module", params=["committed", pytest.param("fresh", marks=pytest.mark.slow)])
def out(request, tmp_path_factory):
    if request.param == "committed":
        return HERE / "lm_eval"
    if importlib.util.find_spec("lm_eval") is None:
        pytest.skip("lm_eval is not installed (pip install benchkit[dev]); the committed output is read")
    folder = tmp_path_factory.mktemp("lm_eval_out")
    done = subprocess.run([sys.executable, str(HERE / "make_lm_eval.py"), str(folder)], check=False,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return folder


def _results(out):
    res = {}
    for path in out.glob("run_*/*/results_*.json"):
        data = json.loads(path.read_text())
        res[data["model_name"]] = data["results"]
    return res


def _records(out, task):
    recs = {}
    for path in out.glob(f"run_*/*/samples_{task}_*.jsonl"):
        model = path.parent.name.replace("__", "/")  # lm-eval sanitizes "/" in the folder name
        recs[model] = [json.loads(line) for line in path.read_text().splitlines()]
    return recs


def test_multiple_choice_two_models(out):
    res = _results(out)
    assert sorted(res) == ["benchkit/dummy-a", "benchkit/dummy-b"]
    rs = read_lm_eval(out, tasks=["bk_mc"])  # default metric: the first listed, acc
    assert rs.meta["metric"] == {"bk_mc": "acc"}
    assert list(rs.model_ids) == ["benchkit/dummy-a", "benchkit/dummy-b"]
    assert rs.n_items == 8
    acc = rs.accuracy()
    long = rs.to_long().set_index(["model", "item"])
    P = rs.option_probs()
    for j, model in enumerate(rs.model_ids):
        assert acc[model] == res[model]["bk_mc"]["acc,none"]
        for rec in _records(out, "bk_mc")[model]:
            item = f"bk_mc/{rec['doc_id']}"
            lls = np.array([float(ll) for ll, _ in rec["filtered_resps"]])
            row = long.loc[(model, item)]
            assert row["correct"] == rec["acc"]
            assert row["answer"] == "ABCD"[int(np.argmax(lls))]
            ref = np.exp(lls - lls.max())
            i = list(rs.item_ids).index(item)
            np.testing.assert_allclose(P[i, j, :], ref / ref.sum(), rtol=1e-12)
    norm = read_lm_eval(out, tasks=["bk_mc"], metric="acc_norm")
    for model in norm.model_ids:
        assert norm.accuracy()[model] == res[model]["bk_mc"]["acc_norm,none"]
    assert rs.items.loc["bk_mc/2", "answer_key"] == "C"
    assert rs.items.loc["bk_mc/0", "options"] == ["alpha", "be", "gamma ray", "d"]


@pytest.mark.parametrize("flt", ["strict", "loose"])
def test_generation_two_filters(out, flt):
    res = _results(out)
    msg = r"task 'bk_gen' .* logs several filters \['loose', 'strict'\]; pass filter"
    with pytest.raises(BenchkitValueError, match=msg):
        read_lm_eval(out, tasks=["bk_gen"])
    rs = read_lm_eval(out, tasks=["bk_gen"], filter=flt)
    assert rs.meta["metric"] == {"bk_gen": "exact_match"}
    assert rs.meta["filter"] == {"bk_gen": flt}
    long = rs.to_long().set_index(["model", "item"])
    for model in ("benchkit/dummy-a", "benchkit/dummy-b"):
        assert rs.accuracy()[model] == res[model]["bk_gen"][f"exact_match,{flt}"]
        for rec in _records(out, "bk_gen")[model]:
            if rec["filter"] != flt:
                continue
            row = long.loc[(model, f"bk_gen/{rec['doc_id']}")]
            assert row["correct"] == rec["exact_match"]
            resps = rec["filtered_resps"]
            text = resps[0] if isinstance(resps, list) else resps
            assert row["answer"] == (NO_ANSWER if text == "[invalid]" else text)


def test_both_tasks_together(out):
    rs = read_lm_eval(out, filter={"bk_gen": "loose"})
    assert rs.n_items == 14
    assert rs.n_models == 2
    assert rs.meta["metric"] == {"bk_mc": "acc", "bk_gen": "exact_match"}
    assert "option_logprobs" not in rs.to_long()  # mixed tasks: no per-option columns ("auto")
