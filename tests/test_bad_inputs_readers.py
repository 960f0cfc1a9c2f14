"""Issue 12, reader cases 2, 3, 4, 6, 8, 9, 10: tool logs that were read silently wrong or crashed.

Each test failed on the code before this branch (r12 base 993c0a2); docs/bad-inputs.md names them.
The logs are the real-format fixtures written by inspect_ai 0.3.285 and lm-eval 0.4.13 themselves
(tests/tool_fixtures/), edited the way a damaged or mixed-up log would be; HELM runs follow the
layout of tests/test_io_helm.py.
"""
from __future__ import annotations

import io
import json
import shutil
import tracemalloc
import warnings
import zipfile
from pathlib import Path

import pytest

from benchkit import BenchkitError
from benchkit import BenchkitValueError
from benchkit._validation import BenchkitWarning
from benchkit.io import _zip
from benchkit.io import read_helm
from benchkit.io import read_inspect
from benchkit.io import read_lm_eval
from benchkit.io._zip import ZipMembers

FIXTURES = Path(__file__).parent / "tool_fixtures"
MC_EVAL = FIXTURES / "inspect" / "mc.eval"
MC_JSON = FIXTURES / "inspect" / "mc.json"
LM_RUN_A = FIXTURES / "lm_eval" / "run_a"
LM_RUN_B = FIXTURES / "lm_eval" / "run_b"


def rewrite_eval(src: Path, dst: Path, edit: dict) -> Path:
    """Copy an .eval archive member by member (deflate); ``edit`` maps a name to new bytes or None (drop)."""
    with ZipMembers(src) as zm, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as out:
        for name in zm.names():
            data = edit.get(name, zm.read(name)) if name in edit else zm.read(name)
            if data is not None:
                out.writestr(name, data)
    return dst


def eval_json(name: str, path: Path = MC_EVAL):
    with ZipMembers(path) as zm:
        return json.loads(zm.read(name))


# --------------------------------------------------------------- case 2: .eval with members missing
def test_eval_with_a_sample_member_missing_is_refused(tmp_path):
    # samples/3_epoch_2.json deleted; read from the sample members, summaries.json still lists it
    bad = rewrite_eval(MC_EVAL, tmp_path / "mc.eval", {"samples/3_epoch_2.json": None})
    assert read_inspect(bad, scorer="choice").n_items == 6  # summaries still whole: all there
    with pytest.raises(BenchkitValueError, match=r"missing: id '3' epoch 2: the log declares 18, read 17.*"
                                                 r"allow_partial=True"):
        read_inspect(bad, scorer="choice", full_samples=True)


def test_eval_with_summaries_short_of_the_header_is_refused(tmp_path):
    # header.json declares sample_ids [q0, 1, q2, 3, q4, 5] x 3 epochs; summaries lose sample 5
    summaries = [s for s in eval_json("summaries.json") if s["id"] != 5]
    bad = rewrite_eval(MC_EVAL, tmp_path / "mc.eval", {"summaries.json": json.dumps(summaries).encode()})
    with pytest.raises(BenchkitValueError, match=r"missing: id '5' epoch 1, id '5' epoch 2, id '5' epoch 3: "
                                                 r"the log declares 18, read 15"):
        read_inspect(bad, scorer="choice")
    with pytest.warns(BenchkitWarning, match="missing: id '5' epoch 1"):
        rs = read_inspect(bad, scorer="choice", allow_partial=True)
    assert rs.n_items == 5
    assert [(m["id"], m["epoch"]) for m in rs.meta["missing"]] == [("5", 1), ("5", 2), ("5", 3)]


def test_eval_missing_samples_counted_from_total_samples(tmp_path):
    # a header without sample ids: results.total_samples (18) is the declaration
    header = eval_json("header.json")
    del header["eval"]["dataset"]["sample_ids"]
    summaries = eval_json("summaries.json")[:-2]
    bad = rewrite_eval(MC_EVAL, tmp_path / "mc.eval", {"header.json": json.dumps(header).encode(),
                                                        "summaries.json": json.dumps(summaries).encode()})
    with pytest.raises(BenchkitValueError, match=r"samples \(eval.dataset.sample_ids x epochs, "
                                                 r"results.total_samples\): the log declares 18, read 16"):
        read_inspect(bad, scorer="choice")


def test_cli_info_lists_missing_samples(tmp_path, capsys):
    from benchkit.cli import main

    summaries = [s for s in eval_json("summaries.json") if s["id"] != "q2"]
    bad = rewrite_eval(MC_EVAL, tmp_path / "mc.eval", {"summaries.json": json.dumps(summaries).encode()})
    out = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BenchkitWarning)
        assert main(["info", str(bad)], out=out) == 0
    text = out.getvalue()
    assert "3 samples the log declares but does not hold:" in text
    assert "id 'q2' epoch 3" in text


# --------------------------------------------------------- case 3: logs disagreeing on an item's target
def test_inspect_logs_disagreeing_on_a_target_are_refused(tmp_path):
    log = json.loads(MC_JSON.read_text())
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    log["eval"]["model"] = "mockllm/a"
    a.write_text(json.dumps(log))
    log["eval"]["model"] = "mockllm/b"
    first = log["samples"][0]
    first["target"] = "D" if first["target"] != "D" else "A"
    b.write_text(json.dumps(log))
    msg = (rf"item 'mc/{first['id']}' has target .* in .*a\.json: samples\[0\] but .* in "
           r".*b\.json: samples\[0\]")
    with pytest.raises(BenchkitValueError, match=msg):
        read_inspect([a, b], scorer="choice")
    b.write_text(a.read_text().replace('"mockllm/a"', '"mockllm/b"'))
    assert read_inspect([a, b], scorer="choice").n_models == 2  # agreeing logs read as before


def test_lm_eval_logs_disagreeing_on_a_target_are_refused(tmp_path):
    shutil.copytree(LM_RUN_A, tmp_path / "a")
    shutil.copytree(LM_RUN_B, tmp_path / "b")
    (path,) = (tmp_path / "b").rglob("samples_bk_mc_*.jsonl")
    lines = path.read_text().splitlines()
    rec = json.loads(lines[2])
    rec["target"] = str((int(rec["target"]) + 1) % 4)
    lines[2] = json.dumps(rec)
    path.write_text("\n".join(lines) + "\n")
    msg = r"item 'bk_mc/2' has target '2' in .*/a/.*samples_bk_mc_.*:3 but '3' in .*/b/.*samples_bk_mc_.*:3"
    with pytest.raises(BenchkitValueError, match=msg):
        read_lm_eval(tmp_path, tasks=["bk_mc"])


# ------------------------------------------------------ case 4: -inf log-likelihoods in the lm-eval reader
def _lm_edit(tmp_path, line: int, resps) -> Path:
    shutil.copytree(LM_RUN_A, tmp_path / "a")
    (path,) = (tmp_path / "a").rglob("samples_bk_mc_*.jsonl")
    lines = path.read_text().splitlines()
    rec = json.loads(lines[line])
    rec["filtered_resps"] = resps
    lines[line] = json.dumps(rec)
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("option_logprobs", ["auto", False])
def test_lm_eval_all_minus_inf_loglikelihoods_are_refused(tmp_path, option_logprobs):
    # before: NaN option probabilities (auto) or the invented answer "A" (False)
    path = _lm_edit(tmp_path, 1, [["-inf", "False"]] * 4)
    with pytest.raises(BenchkitValueError, match=r"samples_bk_mc_.*\.jsonl:2: every option's "
                                                 r"log-likelihood is -inf"):
        read_lm_eval(path, option_logprobs=option_logprobs)


@pytest.mark.parametrize("bad", ["nan", "inf"])
def test_lm_eval_nan_or_plus_inf_loglikelihoods_are_refused(tmp_path, bad):
    path = _lm_edit(tmp_path, 0, [[bad, "False"], ["-1.0", "True"], ["-2.0", "False"], ["-3.0", "False"]])
    with pytest.raises(BenchkitValueError, match=r"\.jsonl:1: filtered_resps holds the log-likelihoods"):
        read_lm_eval(path, option_logprobs=False)


def test_lm_eval_some_minus_inf_loglikelihoods_are_read(tmp_path):
    path = _lm_edit(tmp_path, 0, [["-inf", "False"], ["-0.5", "True"], ["-2.0", "False"], ["-inf", "False"]])
    rs = read_lm_eval(path)
    P = rs.option_probs()[0, 0]  # softmax of (-inf, -0.5, -2, -inf): hand-worked
    import math
    e1, e2 = math.exp(-0.5), math.exp(-2.0)
    assert P.tolist() == pytest.approx([0.0, e1 / (e1 + e2), e2 / (e1 + e2), 0.0], abs=1e-12)
    assert rs.to_long().iloc[0]["answer"] == "B"


# ------------------------------------------------------------------------------------ HELM run folders
def _helm_state(n=3, **override):
    states = []
    for i in range(n):
        opts = ["a", "b", "c", "d"]
        refs = [{"output": {"text": o}, "tags": ["correct"] if j == i % 4 else []}
                for j, o in enumerate(opts)]
        st = {"instance": {"input": {"text": f"q{i}"}, "references": refs, "split": "test", "id": f"id{i}"},
              "train_trial_index": 0, "output_mapping": {"ABCD"[j]: o for j, o in enumerate(opts)},
              "result": {"completions": [{"text": "ABCD"[i % 4], "logprob": 0.0}]}}
        states.append(st)
    return {"adapter_spec": {"method": "multiple_choice_joint", "model": "org/m"}, "request_states": states}


def _helm_run(tmp_path, state, stats=None) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "scenario_state.json").write_text(json.dumps(state))
    if stats is not None:
        (run / "per_instance_stats.json").write_text(json.dumps(stats))
    return run


def _stat(iid, mean, trial=0):
    return {"instance_id": iid, "train_trial_index": trial,
            "stats": [{"name": {"name": "exact_match", "split": "test"}, "count": 1, "sum": mean,
                       "mean": mean}]}


# ------------------------------------------------------------ case 6: conflicting per_instance_stats
def test_helm_conflicting_per_instance_stats_are_refused(tmp_path):
    stats = [_stat("id0", 1.0), _stat("id1", 0.0), _stat("id2", 1.0), _stat("id1", 1.0)]
    run = _helm_run(tmp_path, _helm_state(), stats)
    msg = (r"per_instance_stats\.json: instance 'id1' \(train trial 0\) has two 'exact_match' stats that "
           r"disagree: 0\.0 in entry 1 and 1\.0 in entry 3")
    with pytest.raises(BenchkitValueError, match=msg):
        read_helm(run)


def test_helm_repeated_identical_per_instance_stats_are_read(tmp_path):
    stats = [_stat("id0", 1.0), _stat("id1", 0.0), _stat("id2", 1.0), _stat("id1", 0.0)]
    rs = read_helm(_helm_run(tmp_path, _helm_state(), stats))
    assert rs.to_long()["correct"].tolist() == [1.0, 0.0, 1.0]


# ------------------------------------------------------------------ case 8: malformed HELM / Inspect logs
def _break_reference(state):
    del state["request_states"][1]["instance"]["references"][0]["output"]


def _bare_completion(state):
    state["request_states"][1]["result"]["completions"] = ["B"]


def _null_trial(state):
    state["request_states"][2]["train_trial_index"] = None


@pytest.mark.parametrize(("edit", "message"), [
    (_break_reference,
     r"a HELM scenario state needs the field 'request_states\[1\].instance.references\[0\].output'"),
    (_bare_completion, r"field 'request_states\[1\].result.completions\[0\]' is 'B'; allowed: an object"),
    (_null_trial, r"field 'request_states\[2\].train_trial_index' is None; allowed: an integer >= 0"),
], ids=["reference-without-output", "completion-bare-string", "null-train-trial-index"])
def test_helm_malformed_request_states_name_file_value_and_rule(tmp_path, edit, message):
    state = _helm_state()
    edit(state)
    run = _helm_run(tmp_path, state)
    with pytest.raises(BenchkitValueError, match=r"scenario_state\.json: " + message):
        read_helm(run)


def test_helm_null_train_trial_index_in_stats_is_refused(tmp_path):
    stats = [_stat("id0", 1.0), _stat("id1", 0.0, trial=None), _stat("id2", 1.0)]
    msg = r"per_instance_stats\.json: field '\[1\].train_trial_index' is None; allowed: an integer >= 0"
    with pytest.raises(BenchkitValueError, match=msg):
        read_helm(_helm_run(tmp_path, _helm_state(), stats))


@pytest.mark.parametrize("epoch", ["one", 0, 1.5, None, True])
def test_inspect_bad_epoch_names_file_value_and_rule(tmp_path, epoch):
    log = json.loads(MC_JSON.read_text())
    log["samples"][3]["epoch"] = epoch
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    msg = r"log\.json: samples\[3\]: field 'epoch' is .*; allowed: an integer >= 1"
    with pytest.raises(BenchkitValueError, match=msg):
        read_inspect(path, scorer="choice", allow_partial=True)


# -------------------------------------------------- case 9: `benchkit info` by content or by suffix
@pytest.mark.parametrize("name", ["r.CSV", "r.Csv", "r.txt", "r"])
def test_cli_info_reads_csv_by_suffix_any_case_or_by_content(tmp_path, name):
    from benchkit.cli import main

    path = tmp_path / name
    path.write_text("model,item,correct\nm1,001,1\nm1,002,0\nm2,001,0\nm2,002,1\n")
    out = io.StringIO()
    assert main(["info", str(path)], out=out) == 0
    assert out.getvalue().startswith("format: csv")
    assert "2 items x 2 models" in out.getvalue()


@pytest.mark.parametrize("name", ["r.PARQUET", "r.pq", "r.Pq", "r.data"])
def test_cli_info_reads_parquet_by_content_or_suffix(tmp_path, name):
    import pandas as pd

    from benchkit.cli import main

    path = tmp_path / name
    pd.DataFrame({"model": ["m1", "m1", "m2", "m2"], "item": ["a", "b", "a", "b"],
                  "correct": [1, 0, 0, 1]}).to_parquet(path)
    out = io.StringIO()
    assert main(["info", str(path)], out=out) == 0
    assert out.getvalue().startswith("format: parquet")


def test_cli_info_parquet_suffix_with_other_content_is_one_clear_line(tmp_path, capsys):
    from benchkit.cli import main

    path = tmp_path / "r.PQ"
    path.write_bytes(b"\x00\x01garbage")
    assert main(["info", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("benchkit: error: ")
    assert "r.PQ" in err
    assert err.count("\n") == 1


# --------------------------------------------------------------- case 10: .eval member size cap
def _bomb(path: Path, size: int, name="header.json") -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr(name, b'{"eval": ' + b" " * size + b"}")
    return path


def _refused_without_decompressing(bomb: Path, match: str) -> None:
    """read_inspect(bomb) with a 1 MiB cap raises ``match``, peaking well under the 64 MB member."""
    tracemalloc.start()
    try:
        with pytest.raises(BenchkitValueError, match=match):
            read_inspect(bomb, max_member_bytes=1024**2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024**2  # nothing near the 64 MB was decompressed


def test_eval_member_over_the_cap_is_refused_before_decompression(tmp_path, monkeypatch):
    bomb = _bomb(tmp_path / "bomb.eval", 64 * 1024**2)  # 64 MB header.json, ~64 KB on disk
    assert bomb.stat().st_size < 200_000
    _refused_without_decompressing(bomb, r"member 'header.json' decompresses to 67,108,874 "
                                         r"\(declared\) bytes, more than the cap of 1,048,576")
    monkeypatch.setenv("BENCHKIT_MAX_MEMBER_BYTES", str(1024**2))
    with pytest.raises(BenchkitValueError, match="more than the cap of 1,048,576"):
        read_inspect(bomb)
    monkeypatch.setenv("BENCHKIT_MAX_MEMBER_BYTES", "lots")
    with pytest.raises(BenchkitValueError, match=r"BENCHKIT_MAX_MEMBER_BYTES='lots' is not allowed"):
        read_inspect(bomb)
    with pytest.raises(BenchkitValueError, match="max_member_bytes"):
        read_inspect(bomb, max_member_bytes=0)


def test_eval_member_lying_about_its_size_stops_at_the_cap(tmp_path):
    bomb = _bomb(tmp_path / "bomb.eval", 64 * 1024**2)
    raw = bytearray(bomb.read_bytes())
    # set the declared uncompressed size (local header and central directory) to 100 bytes
    with zipfile.ZipFile(bomb) as zf:
        info = zf.infolist()[0]
    real = info.file_size.to_bytes(4, "little")
    assert raw.count(real) == 2
    raw[:] = raw.replace(real, (100).to_bytes(4, "little"))
    bomb.write_bytes(bytes(raw))
    _refused_without_decompressing(bomb, r"decompresses to more than 1,048,576 \(its size field says 100\)")


def test_real_eval_logs_read_under_the_default_cap():
    assert _zip.DEFAULT_MAX_MEMBER_BYTES == 256 * 1024**2
    rs = read_inspect(MC_EVAL, scorer="choice", max_member_bytes=64 * 1024)  # its members are small
    assert rs.n_items == 6
    with pytest.raises(BenchkitError, match="more than the cap of 100 bytes"):
        read_inspect(MC_EVAL, scorer="choice", max_member_bytes=100)


# ----------------------------------- case 3 for the other tool readers (HELM, EvalScope, Every Eval Ever)
def _edit_first_record(path: Path, edit) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[0])
    edit(rec)
    lines[0] = json.dumps(rec, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_helm_runs_disagreeing_on_an_answer_key_are_refused(tmp_path):
    a, b = _helm_state(), _helm_state()
    b["adapter_spec"]["model"] = "org/other"
    refs = b["request_states"][1]["instance"]["references"]
    for r in refs:  # the correct reference moves from "b" to "c"
        r["tags"] = ["correct"] if r["output"]["text"] == "c" else []
    for name, state in (("a", a), ("b", b)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "scenario_state.json").write_text(json.dumps(state))
    msg = (r"item 'run/id1' has answer_key 'B' in .*a/scenario_state\.json: request_states\[1\] but 'C' in "
           r".*b/scenario_state\.json: request_states\[1\]")
    with pytest.raises(BenchkitValueError, match=msg):
        read_helm([tmp_path / "a", tmp_path / "b"], benchmark="run")


def test_evalscope_reviews_disagreeing_on_a_target_are_refused(tmp_path):
    from benchkit.io import read_evalscope

    shutil.copytree(FIXTURES / "evalscope", tmp_path / "es")
    _edit_first_record(tmp_path / "es" / "reviews" / "model-b" / "general_mcq_example.jsonl",
                       lambda rec: rec.update(target=["D"]))
    with pytest.raises(BenchkitValueError, match=r"has target 'A' in .*model-a.*:1 but 'D' in .*model-b.*:1"):
        read_evalscope(tmp_path / "es")


def test_every_eval_ever_records_disagreeing_on_a_reference_are_refused(tmp_path):
    from benchkit.io import read_every_eval_ever

    shutil.copytree(FIXTURES / "every_eval_ever" / "bk_mc", tmp_path / "eee")
    (path,) = (tmp_path / "eee").rglob("dummy-b/*_samples.jsonl")
    _edit_first_record(path, lambda rec: rec["input"].update(reference=["2"]))
    with pytest.raises(BenchkitValueError, match=r"has target '0' in .*dummy-a.* but '2' in .*dummy-b"):
        read_every_eval_ever(tmp_path / "eee")
