"""Issue 23: the fresh probe's silent results, raw exceptions and hangs, one test per case.

Each test failed on e599a3b (but ``test_long_parquet_indexed_by_model_and_item_is_read``, which
guards the pandas-index rule) (checked by running this file against a worktree of it; the resource
cases there under ``ulimit -v`` and a timeout, since they allocate or run for minutes), and
docs/bad-inputs.md names it. Tool files are the real ones in tests/tool_fixtures (lm-eval 0.4.13,
inspect_ai 0.3.285, evalscope 1.14.1, every-eval-ever 0.3.0), edited the way a damaged log would be.
tests/test_bad_inputs_siblings.py tries the siblings of each case over every reader and field.
"""
from __future__ import annotations

import inspect
import io
import json
import os
import shutil
import socket
import time
import tracemalloc
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from tool_mutations import _helm_run
from tool_mutations import resource_budget

from benchkit import NO_ANSWER
from benchkit import BenchkitTypeError
from benchkit import BenchkitValueError
from benchkit import ResponseSet
from benchkit._validation import BenchkitWarning
from benchkit.io import read_csv
from benchkit.io import read_evalscope
from benchkit.io import read_every_eval_ever
from benchkit.io import read_helm
from benchkit.io import read_inspect
from benchkit.io import read_lm_eval
from benchkit.io import read_parquet
from benchkit.io._zip import ZipMembers

FIXTURES = Path(__file__).parent / "tool_fixtures"

MC_EVAL = FIXTURES / "inspect" / "mc.eval"
MC_JSON = FIXTURES / "inspect" / "mc.json"


def _copy(src: str, tmp: Path) -> Path:
    dst = tmp / Path(src).name
    shutil.copytree(FIXTURES / src, dst)
    return dst


def _lines(path: Path) -> list[str]:
    return [ln for ln in path.read_text(encoding="utf-8").split("\n") if ln]


def _rewrite_lines(path: Path, lines: list[str]) -> None:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _edit_first_record(path: Path, edit) -> None:
    """Apply ``edit`` to the first record of a JSON Lines file, in place."""
    lines = _lines(path)
    rec = json.loads(lines[0])
    edit(rec)
    lines[0] = json.dumps(rec)
    _rewrite_lines(path, lines)


def _cli(*argv) -> tuple[int, str, str]:
    from contextlib import redirect_stderr

    from benchkit.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stderr(err):
        code = main(list(map(str, argv)), out=out)
    return code, out.getvalue(), err.getvalue()


# ================================================================ 1. what the tool declared
def test_lm_eval_samples_cut_short_of_n_samples_are_refused(tmp_path):
    # the case: results_*.json declares n-samples 8 for bk_mc (acc 0.125); 5 documents remain
    run = _copy("lm_eval/run_a", tmp_path)
    samples = next(run.rglob("samples_bk_mc_*.jsonl"))
    _rewrite_lines(samples, _lines(samples)[:5])
    msg = (r"task 'bk_mc': documents \(n-samples.effective\): the log declares 8, read 5.*"
           r"acc,none \(the mean over documents\): the log declares 0.125, read 0.2.*allow_partial=True")
    with pytest.raises(BenchkitValueError, match=msg):
        read_lm_eval(run, tasks=["bk_mc"])
    with pytest.warns(BenchkitWarning, match="declares 8, read 5"):
        rs = read_lm_eval(run, tasks=["bk_mc"], allow_partial=True)
    assert rs.n_items == 5
    assert [(m["declared"], m["found"]) for m in rs.meta["partial"]] == [(8, 5), (0.125, 0.2)]


def test_lm_eval_edited_metric_is_refused(tmp_path):
    run = _copy("lm_eval/run_a", tmp_path)
    _edit_first_record(next(run.rglob("samples_bk_mc_*.jsonl")), lambda r: r.update(acc=1.0 - r["acc"]))
    with pytest.raises(BenchkitValueError, match=r"acc,none .*declares 0.125, read 0.25"):
        read_lm_eval(run, tasks=["bk_mc"])


def test_inspect_score_edited_against_the_header_is_refused(tmp_path):
    log = json.loads(MC_JSON.read_text())
    sample = next(s for s in log["samples"] if s["scores"]["choice"]["value"] == "I")
    sample["scores"]["choice"]["value"] = "C"
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    with pytest.raises(BenchkitValueError, match=r"scorer 'choice': accuracy: the log declares 0.333"):
        read_inspect(path, scorer="choice")


def test_inspect_epochs_beyond_the_config_are_refused(tmp_path):
    log = json.loads(MC_JSON.read_text())
    log["eval"]["config"]["epochs"] = 2  # the samples hold 3 epochs
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    msg = r"epochs per sample \(eval.config.epochs\): the log declares 2, read 3"
    with pytest.raises(BenchkitValueError, match=msg):
        read_inspect(path, scorer="choice")


def _helm(tmp_path: Path) -> Path:
    _helm_run(tmp_path)
    return next(tmp_path.iterdir())


@pytest.mark.parametrize(("edit", "message"), [
    ("drop-a-request-state", r"instances \(num_instances\): the log declares 6.0, read 5.0"),
    ("edit-a-stat", r"exact_match \(the mean over instances and trials\): the log declares 0.5, read 0.666"),
    ("num-train-trials", r"train trials \(adapter_spec.num_train_trials\): the log declares 3, read 1"),
])
def test_helm_run_disagreeing_with_its_stats_is_refused(tmp_path, edit, message):
    run = _helm(tmp_path)
    state = json.loads((run / "scenario_state.json").read_text())
    stats = json.loads((run / "per_instance_stats.json").read_text())
    if edit == "drop-a-request-state":
        state["request_states"].pop()
        stats.pop()
    elif edit == "edit-a-stat":
        stats[2]["stats"][0]["mean"] = 1.0
    else:
        state["adapter_spec"]["num_train_trials"] = 3
    (run / "scenario_state.json").write_text(json.dumps(state))
    (run / "per_instance_stats.json").write_text(json.dumps(stats))
    with pytest.raises(BenchkitValueError, match=message):
        read_helm(run)
    with pytest.warns(BenchkitWarning):
        assert read_helm(run, allow_partial=True).meta["partial"]


def test_evalscope_reviews_disagreeing_with_the_report_are_refused(tmp_path):
    out = _copy("evalscope", tmp_path)
    reviews = out / "reviews" / "model-a" / "general_mcq_example.jsonl"
    _rewrite_lines(reviews, _lines(reviews)[:4])
    msg = r"general_mcq\.json: subset 'example': scored reviews \(num\): the log declares 6, read 4"
    with pytest.raises(BenchkitValueError, match=msg):
        read_evalscope(out, sample_budget="per_model")
    shutil.copy(FIXTURES / "evalscope" / "reviews" / "model-a" / "general_mcq_example.jsonl", reviews)
    shutil.copy(reviews, reviews.with_name("general_mcq_example (copy).jsonl"))
    with pytest.raises(BenchkitValueError, match=r"repeats the review at .* verbatim"):
        read_evalscope(out, sample_budget="per_model")


def test_every_eval_ever_samples_cut_or_edited_are_refused(tmp_path):
    folder = _copy("every_eval_ever/bk_mc", tmp_path)
    samples = next(folder.rglob("dummy-a/*_samples.jsonl"))
    _rewrite_lines(samples, _lines(samples)[:-1])  # the last acc_norm record cut
    msg = r"records in .*_samples.jsonl \(total_rows\): the log declares 16, read 15.*sha256"
    with pytest.raises(BenchkitValueError, match=msg):
        read_every_eval_ever(folder)


def test_every_eval_ever_score_edited_is_refused(tmp_path):
    folder = _copy("every_eval_ever/bk_mc", tmp_path)
    _edit_first_record(next(folder.rglob("dummy-a/*_samples.jsonl")),
                       lambda r: r["evaluation"].update(score=1.0 - r["evaluation"]["score"]))
    msg = r"bk_mc / acc: score \(the mean of evaluation.score\): the log declares 0.125, read 0.25"
    with pytest.raises(BenchkitValueError, match=msg):
        read_every_eval_ever(folder)


def test_allow_partial_is_the_same_option_in_every_tool_reader():
    from benchkit import io as bio

    for reader in (bio.read_lm_eval, bio.read_inspect, bio.read_helm, bio.read_evalscope,
                   bio.read_every_eval_ever):
        param = inspect.signature(reader).parameters["allow_partial"]
        assert param.kind is inspect.Parameter.KEYWORD_ONLY
        assert param.default is False
        with pytest.raises(BenchkitTypeError, match="allow_partial must be True or False"):
            reader(FIXTURES, allow_partial="yes")


def test_cli_info_lists_what_the_tool_declared_and_was_not_read(tmp_path):
    run = _copy("lm_eval/run_a", tmp_path)
    samples = next(run.rglob("samples_bk_mc_*.jsonl"))
    _rewrite_lines(samples, _lines(samples)[:5])
    code, out, err = _cli("info", run)
    assert code == 0
    assert "2 mismatch(es) with what the tool declared" in out
    assert "declared 8, read 5" in out
    assert "benchkit: warning:" in err


# ================================================================ 2. duplicates
@pytest.mark.parametrize("member", ["summaries.json", "header.json"])
def test_eval_with_a_member_appended_twice_is_refused(tmp_path, member):
    bad = tmp_path / "mc.eval"
    shutil.copy(MC_EVAL, bad)
    with ZipMembers(MC_EVAL) as zm:
        data = json.loads(zm.read(member))
    if member == "summaries.json":
        for s in data:
            for score in s["scores"].values():
                score["value"] = "C" if score["value"] == "I" else "I"
    else:
        data["eval"]["model"] = "mockllm/impostor"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile: "Duplicate name"
        with zipfile.ZipFile(bad, "a") as zf:
            zf.writestr(member, json.dumps(data))
    with pytest.raises(BenchkitValueError, match=rf"holds the member\(s\) \['{member}'\] more than once"):
        read_inspect(bad, scorer="choice")


def test_every_eval_ever_backup_copy_in_the_folder_is_refused(tmp_path):
    folder = _copy("every_eval_ever/bk_mc", tmp_path)
    samples = next(folder.rglob("dummy-a/*_samples.jsonl"))
    backup = samples.parent / "backup"
    backup.mkdir()
    shutil.copy(samples, backup / samples.name)
    with pytest.raises(BenchkitValueError, match=r"repeats the record at .* verbatim|duplicate record"):
        read_every_eval_ever(folder)


def test_every_eval_ever_record_repeated_in_one_file_is_refused(tmp_path):
    folder = _copy("every_eval_ever/bk_mc", tmp_path)
    samples = next(folder.rglob("dummy-b/*_samples.jsonl"))
    lines = _lines(samples)
    _rewrite_lines(samples, lines + lines[:1])
    msg = r"_samples.jsonl:17 repeats the record at .*_samples.jsonl:1 verbatim"
    with pytest.raises(BenchkitValueError, match=msg):
        read_every_eval_ever(samples, allow_partial=True)


def test_cli_info_refuses_one_copied_file(tmp_path):
    # read_any reads with sample_budget="per_model": one model's copy used to become its T = 2
    folder = _copy("every_eval_ever/bk_mc", tmp_path)
    samples = next(folder.rglob("dummy-a/*_samples.jsonl"))
    shutil.copy(samples, samples.with_name("old_samples.jsonl"))
    code, out, err = _cli("info", folder)
    assert code == 2
    assert "verbatim" in err or "duplicate record" in err


# ================================================================ 3. pandas Parquet index
def test_wide_parquet_with_the_pandas_default_index(tmp_path):
    wide = pd.DataFrame({"m1": [1, 0, 1], "m2": [0, 0, 1]}, index=["q1", "q2", "q3"])
    wide.to_parquet(tmp_path / "w.parquet")  # the index stored as __index_level_0__
    rs = read_parquet(tmp_path / "w.parquet", layout="wide")
    assert list(rs.model_ids) == ["m1", "m2"]
    assert list(rs.item_ids) == ["q1", "q2", "q3"]
    assert rs.counts().K.tolist() == [[1, 0], [0, 0], [1, 1]]


def test_wide_parquet_with_a_named_pandas_index(tmp_path):
    wide = pd.DataFrame({"m1": [1, 0], "m2": [0, 1]}, index=pd.Index(["q1", "q2"], name="question"))
    wide.to_parquet(tmp_path / "w.parquet")  # pyarrow writes the index column last
    rs = read_parquet(tmp_path / "w.parquet", layout="wide")
    assert list(rs.model_ids) == ["m1", "m2"]
    assert list(rs.item_ids) == ["q1", "q2"]


def test_wide_parquet_with_a_multiindex_or_a_rangeindex_is_refused_with_the_fix(tmp_path):
    multi = pd.DataFrame({"m1": [1, 0]}, index=pd.MultiIndex.from_tuples([("b", "q1"), ("b", "q2")]))
    multi.to_parquet(tmp_path / "multi.parquet")
    with pytest.raises(BenchkitValueError, match=r"MultiIndex .* df.reset_index\(\)"):
        read_parquet(tmp_path / "multi.parquet", layout="wide")
    pd.DataFrame({"m1": [1, 0], "m2": [0, 1]}).to_parquet(tmp_path / "range.parquet")
    with pytest.raises(BenchkitValueError, match=r"default RangeIndex.*first column 'm1'.*index_col="):
        read_parquet(tmp_path / "range.parquet", layout="wide")
    rs = read_parquet(tmp_path / "range.parquet", layout="wide", index_col="m1")  # the fix, as offered
    assert list(rs.model_ids) == ["m2"]


def test_long_parquet_indexed_by_model_and_item_is_read(tmp_path):
    long = pd.DataFrame({"model": ["a", "a", "b"], "item": ["x", "y", "x"], "correct": [1, 0, 1],
                         "sample": [0, 0, 0]}).set_index(["model", "item"])
    long.to_parquet(tmp_path / "l.parquet")
    for engine in ("duckdb", "pyarrow"):
        rs = read_parquet(tmp_path / "l.parquet", engine=engine)
        assert rs.accuracy().to_dict() == {"a": 0.5, "b": 1.0}


# ================================================================ 4. terminal escapes
def test_cli_info_escapes_terminal_sequences_from_files(tmp_path):
    evil = "evil\x1b[2J\x1b]52;c;SGVsbG8=\x07\r\u202e"
    path = tmp_path / "r.csv"
    path.write_text(f'model,item,correct\n"{evil}","q\x1b[31m",1\n"{evil}",b,0\nok,"q\x1b[31m",1\nok,b,1\n',
                    encoding="utf-8")
    code, out, err = _cli("info", path)
    assert code == 0
    for raw in ("\x1b", "\x07", "\r", "\u202e"):
        assert raw not in out
    assert "evil\\x1b[2J\\x1b]52;c;SGVsbG8=\\x07\\x0d\\u202e" in out


def test_cli_errors_and_warnings_escape_terminal_sequences(tmp_path):
    (tmp_path / "results_2024-01-01T00-00-00.000001.json").write_text(json.dumps({"model_name": "m"}))
    lm = tmp_path / "samples_t_2024-01-01T00-00-00.000001.jsonl"
    lm.write_text(json.dumps({"doc_id": 0, "target": "x", "filtered_resps": ["x"], "metrics": ["em"],
                              "em": "\x1b]0;pwned\x07"}) + "\n")
    code, out, err = _cli("info", lm)
    assert code == 2
    assert "\x1b" not in err
    assert "\\x1b]0;pwned\\x07" in err
    from benchkit._terminal import escape

    assert escape("a\nb\tc\x9b") == "a\\x0ab\\x09c\\x9b"
    assert escape("a\nb", keep_newlines=True) == "a\nb"


# ================================================================ 5. resources up front
def test_boundary_gamma_table_of_large_T_is_refused_with_the_estimate():
    from benchkit.boundary.steps import gamma_grid

    with pytest.raises(BenchkitValueError, match=r"gamma_grid\(T=1000\).*needs about 44.8 GiB"):
        gamma_grid(1000)


@pytest.mark.parametrize(("T", "estimate"), [(10_000, r"would run for about"),
                                             (10**6, r"would run for about"),
                                             (10**7, r"needs about .* of memory")])
def test_boundary_diagnose_with_large_T_is_refused_before_building(T, estimate):
    from benchkit import boundary

    rows = [(f"m{m}", f"i{i}", (T * (m + 1)) // 7, T) for m in range(6) for i in range(20)]
    rs = ResponseSet.from_counts(pd.DataFrame(rows, columns=["model", "item", "n_correct", "n_samples"]))
    tracemalloc.start()
    with resource_budget(memory="8GiB", seconds=60), pytest.raises(BenchkitValueError, match=estimate):
        boundary.diagnose(rs)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 100e6


def test_sparse_long_data_of_40000_by_40000_is_refused_before_allocating():
    n = 40_000
    rows = pd.DataFrame({"model": [f"m{i}" for i in range(n)], "item": [f"i{i}" for i in range(n)],
                         "correct": np.ones(n)})
    msg = r"40,000 items x 40,000 models \(1,600,000,000 cells\) needs about 71.5 GiB"
    with resource_budget(memory="8GiB"), pytest.raises(BenchkitValueError, match=msg):
        ResponseSet.from_long(rows)


def test_csv_of_rows_then_nul_bytes_is_refused_at_the_first_nul(tmp_path):
    path = tmp_path / "r.csv"
    head = b"model,item,correct\n" + b"".join(b"m%d,i%d,1\n" % (i % 7, i) for i in range(800))
    path.write_bytes(head)
    with open(path, "r+b") as fh:
        fh.truncate(200 * 2**20)  # 200 MB of NUL bytes after 8 KB of rows (a sparse file)
    tracemalloc.start()
    with pytest.raises(BenchkitValueError, match=rf"NUL byte at byte {len(head):,} \(line 802\)"):
        read_csv(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 10e6


def test_sparse_lm_eval_file_is_refused_without_reading_it_whole(tmp_path):
    run = _copy("lm_eval/run_a", tmp_path)
    samples = next(run.rglob("samples_bk_mc_*.jsonl"))
    size = samples.stat().st_size
    with open(samples, "r+b") as fh:
        fh.truncate(300 * 2**20)  # a damaged copy: the records, then 300 MB of NUL bytes
    tracemalloc.start()
    with pytest.raises(BenchkitValueError, match=rf"NUL byte at byte {size:,} \(line 9\)"):
        read_lm_eval(run, tasks=["bk_mc"])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 10e6


def test_detect_format_sniffs_instead_of_reading_whole_files(tmp_path):
    from benchkit.io.detect import detect_format

    path = tmp_path / "big.json"
    path.write_text('{"eval": {"task": "t", "model": "m"}, "version": 2, "samples": [' + '"x", ' * 5_000_000
                    + '"x"]}')
    tracemalloc.start()
    assert detect_format(path)[0] == "inspect"
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 10e6  # the file is 25 MB: json.load of it peaked above 100 MB


def test_resource_budget_parsing_and_errors(monkeypatch):
    from benchkit import _budget

    assert _budget.parse_bytes("m", "12GiB") == 12 * 2**30
    assert _budget.parse_bytes("m", "500 MB") == 500 * 10**6
    assert _budget.parse_bytes("m", 1000) == 1000
    for bad in ("lots", "12 XB", "-5", "0"):
        with pytest.raises(BenchkitValueError, match="is not a size|at least 1 byte"):
            _budget.parse_bytes("m", bad)
    with pytest.raises(BenchkitTypeError):
        _budget.parse_bytes("m", 1.5)
    monkeypatch.setenv("BENCHKIT_MEMORY_BUDGET", "3GiB")
    monkeypatch.setenv("BENCHKIT_TIME_BUDGET", "30")
    assert _budget.memory_budget() == 3 * 2**30
    assert _budget.time_budget() == 30.0
    with resource_budget(memory="1GiB"):
        assert _budget.memory_budget() == 2**30
        assert _budget.time_budget() == 30.0
        with resource_budget(seconds=5):
            assert (_budget.memory_budget(), _budget.time_budget()) == (2**30, 5.0)
    assert _budget.memory_budget() == 3 * 2**30
    monkeypatch.setenv("BENCHKIT_TIME_BUDGET", "soon")
    with pytest.raises(BenchkitValueError, match="BENCHKIT_TIME_BUDGET='soon' is not a number of seconds"):
        _budget.time_budget()


# ================================================================ 6. symlink loops
def test_a_folder_with_two_symlinks_to_itself_is_read_once(tmp_path):
    run = _copy("lm_eval/run_a", tmp_path)
    (run / "again").symlink_to(run, target_is_directory=True)
    (run / "benchkit__dummy-a" / "up").symlink_to(run, target_is_directory=True)
    clean = read_lm_eval(FIXTURES / "lm_eval" / "run_a", tasks=["bk_mc"])
    for target in (run, str(run / "**" / "samples_*.jsonl")):
        rs = read_lm_eval(target, tasks=["bk_mc"])
        assert rs.meta["files"] == [str(next(run.glob("benchkit__dummy-a/samples_bk_mc_*.jsonl")))]
        assert rs.accuracy().tolist() == clean.accuracy().tolist()


def test_a_symlink_loop_and_a_name_over_the_os_limit_are_benchkit_errors(tmp_path):
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(BenchkitValueError, match=r"loop.*it is a symlink loop"):
        read_lm_eval(tmp_path / "loop")
    long_name = tmp_path / ("x" * 300 + ".csv")
    for call in (lambda: read_csv(long_name), lambda: read_lm_eval(long_name),
                 lambda: read_parquet(long_name)):
        with pytest.raises(BenchkitValueError, match=r"longer than the operating system allows"):
            call()


# ================================================================ 7. malformed tool files
def _helm_file(tmp_path, edit) -> Path:
    run = _helm(tmp_path)
    state = json.loads((run / "scenario_state.json").read_text())
    edit(state["request_states"][0])
    (run / "scenario_state.json").write_text(json.dumps(state))
    return run


def _latin1(path: Path) -> Path:
    path.write_bytes(path.read_bytes().replace(b'"', b'"caf\xe9', 1))
    return path


def _eee_line(tmp_path, edit) -> Path:
    folder = _copy("every_eval_ever/bk_mc", tmp_path)
    samples = next(folder.rglob("dummy-a/*_samples.jsonl"))
    _edit_first_record(samples, edit)
    return samples


def _evalscope_line(tmp_path, edit) -> Path:
    out = _copy("evalscope", tmp_path)
    _edit_first_record(out / "reviews" / "model-a" / "general_mcq_example.jsonl", edit)
    return out


def _lm_results(tmp_path, write) -> Path:
    run = _copy("lm_eval/run_a", tmp_path)
    results = next(run.rglob("results_*.json"))
    write(results)
    return run


MALFORMED = [
    ("helm-result-a-list", lambda t: read_helm(_helm_file(t, lambda s: s.update(result=[1]))),
     r"scenario_state\.json: field 'request_states\[0\].result' is \[1\]; allowed: an object"),
    ("helm-input-a-string", lambda t: read_helm(_helm_file(t, lambda s: s["instance"].update(input="q"))),
     r"field 'request_states\[0\].instance.input' is 'q'; allowed: an object"),
    ("helm-perturbation-a-string",
     lambda t: read_helm(_helm_file(t, lambda s: s["instance"].update(perturbation="typo"))),
     r"field 'request_states\[0\].instance.perturbation' is 'typo'; allowed: an object"),
    ("helm-latin1", lambda t: read_helm(_latin1(_helm(t) / "scenario_state.json")),
     r"scenario_state\.json.: not UTF-8 text"),
    ("evalscope-latin1",
     lambda t: read_evalscope(_latin1_review(t), sample_budget="per_model"),
     r"general_mcq_example\.jsonl:1: not UTF-8 text"),
    ("evalscope-score-value-a-number",
     lambda t: read_evalscope(_evalscope_line(t, lambda r: r["sample_score"]["score"].update(value=1.0)),
                              sample_budget="per_model"),
     r"jsonl:1: field 'sample_score.score.value' is 1.0; allowed: an object"),
    ("evalscope-generation-index-x",
     lambda t: read_evalscope(_evalscope_line(t, lambda r: r["sample_score"].update(generation_index="x")),
                              sample_budget="per_model"),
     r"jsonl:1: field 'sample_score.generation_index' is 'x'; allowed: an integer >= 0"),
    ("every-eval-ever-latin1", lambda t: read_every_eval_ever(_latin1(_eee_line(t, lambda r: None))),
     r"_samples\.jsonl:1: not UTF-8 text"),
    ("every-eval-ever-metadata-a-list",
     lambda t: read_every_eval_ever(_eee_line(t, lambda r: r.update(metadata=["x"]))),
     r"_samples\.jsonl:1: field 'metadata' is \['x'\]; allowed: an object"),
    ("every-eval-ever-benchkit-sample-x",
     lambda t: read_every_eval_ever(_eee_line(t, lambda r: r.update(metadata={"benchkit_sample": "x"}))),
     r"field 'metadata.benchkit_sample' is 'x'; allowed: a whole number >= 0 written as a string"),
    ("lm-eval-results-utf16",
     lambda t: read_lm_eval(_lm_results(t, lambda p: p.write_bytes(p.read_text().encode("utf-16")))),
     r"results_.*\.json.* is UTF-16 text"),
    ("lm-eval-results-a-list", lambda t: read_lm_eval(_lm_results(t, lambda p: p.write_text("[]"))),
     r"results_.*\.json: an lm-eval results file must be an object, got \[\]"),
    ("lm-eval-results-config-a-string",
     lambda t: read_lm_eval(_lm_results(t, lambda p: p.write_text(json.dumps(
         {**json.loads(p.read_text()), "config": "pretrained=x"})))),
     r"results_.*\.json: field 'config' is 'pretrained=x'; allowed: an object"),
]


def _latin1_review(tmp_path) -> Path:
    out = _copy("evalscope", tmp_path)
    _latin1(out / "reviews" / "model-a" / "general_mcq_example.jsonl")
    return out


@pytest.mark.parametrize(("call", "message"), [(c, m) for _, c, m in MALFORMED],
                         ids=[i for i, _, _ in MALFORMED])
def test_malformed_tool_files_give_benchkit_errors_naming_file_and_field(tmp_path, call, message):
    with pytest.raises(BenchkitValueError, match=message):
        call(tmp_path)


# ================================================================ 8. values that cannot be what they claim
def test_complex_correct_is_refused():
    frame = pd.DataFrame({"model": ["m", "m"], "item": ["a", "b"], "correct": [1 + 0j, 0.5j]})
    with pytest.raises(BenchkitTypeError, match=r"'correct' holds complex numbers .*row 1"):
        ResponseSet.from_long(frame)
    with pytest.raises(BenchkitTypeError, match=r"matrix column 'm' holds complex numbers"):
        ResponseSet.from_wide(pd.DataFrame({"m": [1 + 0j, 0j]}, index=["a", "b"]))
    with pytest.raises(BenchkitTypeError, match=r"matrix column 'm' holds complex numbers"):
        ResponseSet.from_wide(pd.DataFrame({"m": [1 + 0j, 0j]}, index=["a", "b"]), T=2)


def _mc_frame():
    items = pd.DataFrame({"item": ["q1", "q2", "q3"], "answer_key": ["A", "B", "C"],
                          "options": [["w", "x", "y"]] * 3})
    responses = pd.DataFrame({"model": ["m"] * 3 + ["n"] * 3, "item": ["q1", "q2", "q3"] * 2,
                              "answer": ["A", "A", "C", "B", "B", NO_ANSWER],
                              "correct": [1, 1, 0, 0, 1, 0]})
    return responses, items


def test_answer_key_and_correct_contradictions_are_counted_and_refused_with_strict():
    # hand-worked: (m, q2) answer A, key B, correct 1; (m, q3) answer C = key, correct 0
    responses, items = _mc_frame()
    rs = ResponseSet.from_long(responses, items=items)
    frame = rs.report.to_frame()
    assert frame[["action", "reason", "n_rows", "n_cells"]].values.tolist() == [
        ["kept", "the answer is the item's answer_key but correct is 0", 1, 1],
        ["kept", "the answer is another option than the answer_key but correct is 1", 1, 1]]
    assert "kept 1 rows (1 cells) where the answer is another option" in str(rs.report)
    assert rs.report.n_rows == 0  # nothing dropped
    with pytest.raises(BenchkitValueError, match=r"row 2 \(model 'm', item 'q3'\) contradicts itself: answer "
                                                 r"'C', answer_key 'C', correct 0"):
        ResponseSet.from_long(responses, items=items, strict=True)
    consistent = responses.assign(correct=[1, 0, 1, 0, 1, 0])
    assert not ResponseSet.from_long(consistent, items=items, strict=True).report


def test_contradictions_through_a_reader(tmp_path):
    responses, items = _mc_frame()
    responses.to_csv(tmp_path / "r.csv", index=False)
    with pytest.raises(BenchkitValueError, match=r"contradicts itself"):
        read_csv(tmp_path / "r.csv", items=items, strict=True)
    assert len(read_csv(tmp_path / "r.csv", items=items).report.findings) == 2


# ================================================================ 9. the dataset cache
def _toy():
    import hashlib

    from benchkit.datasets._fetch import Source
    from benchkit.datasets._fetch import SourceFile

    payload = b"model,item,correct\na,q,1\n"
    return payload, Source(name="toy", repo="o/toy", commit="0" * 40, license="MIT",
                           files=(SourceFile("x.csv", hashlib.sha256(payload).hexdigest(), len(payload),
                                             url="http://127.0.0.1:9/x.csv"),))


@pytest.fixture
def served(tmp_path):
    import http.server
    import threading
    from functools import partial

    root = tmp_path / "www"
    root.mkdir()
    (root / "x.csv").write_bytes(_toy()[0])
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/x.csv"
    finally:
        server.shutdown()
        server.server_close()


def _served_source(url):
    import dataclasses

    _, source = _toy()
    return dataclasses.replace(source, files=(dataclasses.replace(source.files[0], url=url),))


def test_an_unwritable_cache_is_a_clear_error(tmp_path, monkeypatch):
    from benchkit.datasets._fetch import fetch_file

    monkeypatch.setenv("BENCHKIT_DATA_MIRROR", "")
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("BENCHKIT_CACHE", str(tmp_path / "file" / "cache"))
    msg = r"the dataset cache .* cannot be used: creating the folder failed.*BENCHKIT_CACHE"
    with pytest.raises(BenchkitValueError, match=msg):
        fetch_file(_toy()[1], "x.csv")
    monkeypatch.setenv("BENCHKIT_CACHE", str(tmp_path / "cache"))

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("benchkit.datasets._fetch.open", denied, raising=False)
    msg = r"cannot be used: writing a file failed \(Permission denied\)"
    with pytest.raises(BenchkitValueError, match=msg):
        fetch_file(_toy()[1], "x.csv")


def test_stale_partial_downloads_are_removed(tmp_path, monkeypatch, served):
    from benchkit.datasets._fetch import fetch_file

    monkeypatch.setenv("BENCHKIT_DATA_MIRROR", "")
    monkeypatch.setenv("BENCHKIT_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "cache" / "toy"
    folder.mkdir(parents=True)
    host = socket.gethostname()
    dead = folder / f".x.csv~{host}~{2**22 + 12345}.part"  # above pid_max's default: no such process
    old = folder / ".other.csv~elsewhere~1.part"
    fresh = folder / ".other.csv~elsewhere~2.part"
    mine = folder / f".other.csv~{host}~{os.getpid()}.part"
    for p in (dead, old, fresh, mine):
        p.write_bytes(b"half a download")
    os.utime(old, (time.time() - 2 * 86400,) * 2)
    assert fetch_file(_served_source(served), "x.csv").read_bytes() == _toy()[0]
    left = sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))
    assert left == sorted([fresh.name, mine.name])


def test_cached_files_get_the_umasks_permissions(tmp_path, monkeypatch, served):
    from benchkit.datasets._fetch import fetch_file

    monkeypatch.setenv("BENCHKIT_DATA_MIRROR", "")
    monkeypatch.setenv("BENCHKIT_CACHE", str(tmp_path / "cache"))
    old = os.umask(0o022)
    try:
        path = fetch_file(_served_source(served), "x.csv")
    finally:
        os.umask(old)
    assert oct(path.stat().st_mode & 0o777) == oct(0o644)


def test_an_empty_mirror_variable_means_no_mirror(tmp_path, monkeypatch):
    from benchkit.datasets._fetch import mirror_root

    (tmp_path / "shared" / "data").mkdir(parents=True)
    (tmp_path / "project").mkdir()
    monkeypatch.chdir(tmp_path / "project")  # ../shared/data exists: auto-discovery would find it
    monkeypatch.delenv("BENCHKIT_DATA_MIRROR", raising=False)
    assert mirror_root() is not None
    for empty in ("", "  "):
        monkeypatch.setenv("BENCHKIT_DATA_MIRROR", empty)
        assert mirror_root() is None


def test_reading_is_unchanged_for_clean_tool_files():
    # the new checks refuse nothing the tools wrote: every fixture reads as before, with nothing partial
    import warnings as w

    with w.catch_warnings():
        w.simplefilter("error", BenchkitWarning)
        for rs in (read_lm_eval(FIXTURES / "lm_eval", filter={"bk_gen": "strict"}),
                   read_inspect(MC_EVAL, scorer="choice"),
                   read_inspect(MC_JSON, scorer="choice"),
                   read_evalscope(FIXTURES / "evalscope", sample_budget="per_model"),
                   read_every_eval_ever(FIXTURES / "every_eval_ever")):
            assert rs.meta["partial"] == []
            assert not rs.report.findings
