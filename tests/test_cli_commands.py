"""The analysis commands (issue 24 item 1): help, output equal to the API's, exit codes, bad inputs."""
from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import benchkit
from benchkit._validation import BenchkitWarning
from benchkit.cli import build_parser
from benchkit.cli import main
from benchkit.cli._common import read_table

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "data_samples"
FIXTURES = Path(__file__).parent / "tool_fixtures"
COMMANDS = ("audit", "profile", "dif", "measure", "landscape", "quality", "labels", "compare", "report")


def _sample(name: str, *tables: str) -> list[str]:
    """PATH plus --item-table / --model-table of a data sample."""
    args = [str(SAMPLES / name / "responses.parquet")]
    for t in tables:
        args += [f"--{t}-table", str(SAMPLES / name / f"{t}s.parquet")]
    return args


def _run(argv) -> tuple[int, str]:
    out = io.StringIO()
    return main([str(a) for a in argv], out=out), out.getvalue()


def _subcommands() -> list[str]:
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return list(action.choices)


# ------------------------------------------------------------------------------------------- help
@pytest.mark.parametrize("command", _subcommands())
def test_every_command_help_runs_and_shows_an_example(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert f"usage: benchkit {command}" in text
    assert "example:\n  benchkit " + command in text


def test_the_analysis_commands_exist():
    assert set(COMMANDS) <= set(_subcommands())


# ------------------------------------------------------------------- the CLI's output is the API's
def _api_frame(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame if isinstance(frame.index, pd.RangeIndex) else frame.reset_index()
    return frame.set_axis([str(c) for c in frame.columns], axis=1)


def _untrusted_intervals_warned(fn, *args, **kwargs):
    # 30 replicates: Benchmark² names the intervals they cannot resolve (the CLI prints the same
    # warning on stderr, escaped)
    with pytest.warns(BenchkitWarning, match=r"\d+ bootstrap interval\(s\) cannot be trusted"):
        return fn(*args, **kwargs)


CASES = [
    # (command line after the command, API call on the same ResponseSet)
    ("profile", _sample("ladder", "item", "model") + ["--axis", "size"],
     lambda rs: benchkit.boundary.profile(rs, axis="size", by="benchmark", alpha_o=0.05)),
    ("labels", _sample("mcq", "item"), lambda rs: benchkit.labels.key_issues(rs, min_models=5)),
    ("audit", _sample("mcq", "item") + ["--resamples", "20", "--seed", "2"],
     lambda rs: benchkit.audit(rs, n_resamples=20, rng=2, progress=False)),
    ("landscape", _sample("mcq", "item"), lambda rs: benchkit.landscape.map_points(rs)),
    ("measure", _sample("suite", "item") + ["--by", "benchmark"],
     lambda rs: benchkit.measure.measure_benchmarks(rs, by="benchmark")),
    ("quality",
     _sample("suite", "item", "model") + ["--family-by", "family", "--resamples", "30", "--seed", "3"],
     lambda rs: _untrusted_intervals_warned(benchkit.quality.assess, rs, by="benchmark",
                                            family_by=("family",), n_resamples=30, rng=3, progress=False)),
    ("compare", _sample("suite") + ["--all", "--resamples", "50", "--seed", "1"],
     lambda rs: benchkit.compare_all(rs, n_resamples=50, rng=1)),
    ("compare", _sample("suite") + ["--models", "owner001/llama-8b-v1", "owner000/gemma-14b-v1"],
     lambda rs: benchkit.compare(rs, "owner001/llama-8b-v1", "owner000/gemma-14b-v1", rng=0)),
]


def _read_sample(argv: list[str]):
    from benchkit.cli._inputs import read_inputs

    path = argv[0]
    items = argv[argv.index("--item-table") + 1] if "--item-table" in argv else None
    models = argv[argv.index("--model-table") + 1] if "--model-table" in argv else None
    return read_inputs([path], items=items, models=models)[0]


@pytest.mark.parametrize(("command", "argv", "api"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_command_tables_equal_the_api_result(tmp_path, command, argv, api):
    rs = _read_sample(argv)
    expected = api(rs)
    code, text = _run([command, *argv, "--quiet", "--out", tmp_path / "main.parquet"])
    assert code == 0, text
    pd.testing.assert_frame_equal(read_table(tmp_path / "main.parquet"), _api_frame(expected.to_frame()))
    # the folder form holds every table; each *_frame() of the result is one of them
    code, _ = _run([command, *argv, "--quiet", "--out", tmp_path / "all"])
    assert code == 0
    names = sorted(p.stem for p in (tmp_path / "all").glob("*.parquet"))
    assert command in names
    for name in names:
        if name != command and callable(getattr(expected, f"{name}_frame", None)):
            pd.testing.assert_frame_equal(read_table(tmp_path / "all" / f"{name}.parquet"),
                                          _api_frame(getattr(expected, f"{name}_frame")()))


def test_csv_out_equals_the_api_frame(tmp_path):
    argv = _sample("mcq", "item")
    code, _ = _run(["labels", *argv, "--out", tmp_path / "k.csv"])
    assert code == 0
    got = pd.read_csv(tmp_path / "k.csv", dtype={"item": str}, keep_default_na=False, na_values=[""])
    want = _api_frame(benchkit.labels.key_issues(_read_sample(argv)).to_frame())
    assert list(got.columns) == list(want.columns)
    np.testing.assert_allclose(got["score"], want["score"], rtol=1e-12)
    assert got["item"].tolist() == want["item"].tolist()


def test_json_summary_names_the_call_the_inputs_and_the_headline(tmp_path):
    code, text = _run(["profile", *_sample("ladder", "item", "model"), "--axis", "size", "--json"])
    assert code == 0
    summary = json.loads(text)
    assert summary["call"] == "benchkit.boundary.profile(rs, axis='size', by='benchmark', alpha_o=0.05)"
    res = benchkit.boundary.profile(_read_sample(_sample("ladder", "item", "model")), axis="size")
    assert summary["headline"]["flagged"] == int(res.profile.flagged.sum()) == summary["flagged"]
    sha = summary["inputs"][0]["files"][0]["sha256"]
    import hashlib

    assert sha == hashlib.sha256((SAMPLES / "ladder" / "responses.parquet").read_bytes()).hexdigest()
    assert summary["exit_code"] == 0


def test_paragraph_summary_is_one_paragraph():
    code, text = _run(["labels", *_sample("mcq", "item")])
    assert code == 0
    assert text.count("\n") == 1
    assert text.startswith("benchkit.labels.key_issues(rs, min_models=5) on 300 items x 8 models")


# ------------------------------------------------------------------------------------ exit codes
def test_fail_on_exits_1_only_when_enough_is_flagged():
    argv = ["labels", *_sample("mcq", "item")]
    n = benchkit.labels.key_issues(_read_sample(_sample("mcq", "item"))).n_flagged
    assert n > 0
    assert _run(argv)[0] == 0
    assert _run([*argv, "--fail-on", n])[0] == 1
    assert _run([*argv, "--fail-on", n + 1])[0] == 0


def test_seed_and_jobs_reach_the_entry_point_and_do_not_change_the_result(tmp_path):
    base = ["quality", *_sample("suite", "item", "model"), "--family-by", "family", "--resamples", "20", "-q"]
    for jobs, name in (("1", "a.parquet"), ("2", "b.parquet")):
        assert _run([*base, "-j", jobs, "--seed", "5", "--out", tmp_path / name])[0] == 0
    pd.testing.assert_frame_equal(read_table(tmp_path / "a.parquet"), read_table(tmp_path / "b.parquet"))
    assert _run([*base, "--seed", "6", "--out", tmp_path / "c.parquet"])[0] == 0
    assert not read_table(tmp_path / "a.parquet").equals(read_table(tmp_path / "c.parquet"))


def test_option_pairs_are_typed_and_checked(capsys):
    argv = ["labels", *_sample("mcq", "item")]
    code, text = _run([*argv, "-o", "ambiguity=0.7", "--json"])
    assert code == 0
    assert "ambiguity=0.7" in json.loads(text)["call"]
    assert _run([*argv, "-o", "ambiguity=high"])[0] == 2
    assert "--option ambiguity='high' must be a float" in capsys.readouterr().err
    assert _run([*argv, "-o", "nonsense=1"])[0] == 2
    assert "not an option of benchkit.labels.key_issues" in capsys.readouterr().err
    assert _run([*argv, "-o", "min_models=3"])[0] == 2
    assert "set by this command's own options" in capsys.readouterr().err


# ------------------------------------------------------------------------ inputs: several, mixed
def test_a_folder_mixing_tools_is_read_with_each_reader(tmp_path):
    shutil.copytree(FIXTURES / "lm_eval" / "run_a", tmp_path / "mixed" / "lm")
    shutil.copy(FIXTURES / "inspect" / "mc.eval", tmp_path / "mixed")
    code, text = _run(["compare", tmp_path / "mixed", "--all", "--resamples", "10", "--json"])
    assert code == 0, text
    summary = json.loads(text)
    assert sorted(i["format"] for i in summary["inputs"]) == ["inspect", "lm_eval"]
    assert summary["data"] == {"models": 2, "items": 20, "responses": 32}


def test_overlapping_inputs_are_refused_naming_both(tmp_path, capsys):
    path = str(SAMPLES / "mcq" / "responses.parquet")
    assert _run(["labels", path, path])[0] == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert re.search(r"answers item .* in both .*responses\.parquet \(parquet\) and", err)


def test_an_item_described_differently_by_two_inputs_is_refused(tmp_path, capsys):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("model,item,correct\nm1,q1,1\n")
    b.write_text("model,item,correct\nm2,q1,0\n")
    ia, ib = tmp_path / "ia.csv", tmp_path / "ib.csv"
    ia.write_text("item,benchmark\nq1,x\n")
    ib.write_text("item,benchmark\nq1,y\n")
    from benchkit.cli._inputs import join
    from benchkit.cli._inputs import read_one

    (ra, _), = read_one(str(a), items=pd.read_csv(ia))
    (rb, _), = read_one(str(b), items=pd.read_csv(ib))
    with pytest.raises(benchkit.BenchkitValueError, match="item 'q1' is described differently by a and b"):
        join([ra, rb], ["a", "b"])
    (rc, _), = read_one(str(b), items=pd.read_csv(ia))  # the same description: joined
    joined = join([ra, rc], ["a", "c"])
    assert joined.n_models == 2
    assert joined.items.loc["q1", "benchmark"] == "x"


# --------------------------------------------------------------------------- bad inputs: exit 2
def _bad_inputs(tmp: Path) -> dict[str, tuple[list[str], str]]:
    (tmp / "emptydir").mkdir()
    (tmp / "bin.dat").write_bytes(b"\x00\x01\x02binary")
    (tmp / "empty.txt").write_text("")
    (tmp / "one.csv").write_text("model,item,correct\nm,a,1\n")
    (tmp / "bad.csv").write_text("model,item,correct\nm,a,7\n")
    (tmp / "ragged.csv").write_bytes(b"model,item,correct\nm,i,1\nm,j,1,7,8\n")
    (tmp / "fake.parquet").write_text("model,item,correct\n")
    (tmp / "noitem.csv").write_text("benchmark\nx\n")
    (tmp / "latin1.csv").write_bytes("model,item,correct\nm,caf\xe9,1\n".encode("latin-1"))
    return {
        "missing": ([str(tmp / "nope.csv")], r"nope\.csv"),
        "empty-folder": ([str(tmp / "emptydir")], r"emptydir.*no evaluation files"),
        "binary": ([str(tmp / "bin.dat")], r"bin\.dat.*format not recognized"),
        "empty-file": ([str(tmp / "empty.txt")], r"empty\.txt"),
        "score-out-of-range": ([str(tmp / "bad.csv")], r"correct"),
        "ragged-csv": ([str(tmp / "ragged.csv")], r"ragged\.csv"),
        "not-parquet": ([str(tmp / "fake.parquet")], r"fake\.parquet"),
        "latin1-csv": ([str(tmp / "latin1.csv")], r"latin1\.csv.*UTF-8"),
        "unknown-dataset": (["dataset:no-such"], r"dataset:no-such: no such dataset"),
        "item-table-missing": ([str(tmp / "one.csv"), "--item-table", str(tmp / "nope.csv")],
                               r"--item-table .*nope\.csv.* does not exist"),
        "item-table-without-item": ([str(tmp / "one.csv"), "--item-table", str(tmp / "noitem.csv")],
                                    r"has no 'item' column"),
        "out-bad-suffix": ([str(tmp / "one.csv"), "--out", str(tmp / "x.xlsx")],
                           r"must end in \.parquet or \.csv"),
        "out-folder-missing": ([str(tmp / "one.csv"), "--out", str(tmp / "no" / "x.csv")],
                               r"folder .* does not exist"),
    }


_EXTRA = {"compare": ["--all"], "dif": [], "report": ["--out", "r.html"]}


@pytest.mark.parametrize("command", COMMANDS)
def test_bad_inputs_exit_2_with_one_line_naming_the_file(tmp_path, capsys, command):
    cases = _bad_inputs(tmp_path)
    if command == "report":  # --out is the HTML file there
        cases = {k: v for k, v in cases.items() if not k.startswith("out-")}
    for case, (argv, message) in cases.items():
        extra = [a if a != "r.html" else str(tmp_path / "r.html") for a in _EXTRA.get(command, [])]
        code = main([command, *argv, *extra], out=io.StringIO())
        err = capsys.readouterr().err
        assert code == 2, (case, err)
        assert err.startswith("benchkit: error: "), (case, err)
        assert err.count("\n") == 1, (case, err)
        assert re.search(message, err), (case, err)


def test_a_method_refusing_the_data_is_one_line(tmp_path, capsys):
    # one model: nothing to compare, no votes for the key check, no profile axis of 2+ models
    (tmp_path / "one.csv").write_text("model,item,correct\nm,a,1\nm,b,0\n")
    for argv in (["labels"], ["compare", "--all"], ["measure"]):
        code = main([argv[0], str(tmp_path / "one.csv"), *argv[1:]], out=io.StringIO())
        err = capsys.readouterr().err
        assert code == 2, (argv, err)
        assert err.count("\n") == 1, err


@pytest.mark.slow  # family DIF on 300 models with 20 resamples (~15 s)
def test_dif_command_tables_equal_the_api_result(tmp_path):
    import json as _json

    families = tmp_path / "families.json"
    families.write_text(_json.dumps({"llama": "llama", "qwen": "qwen", "gemma": "gemma", "mistral": "mistral",
                                     "phi": "phi"}))
    argv = [*_sample("dif", "item", "model"), "--families", str(families), "--resamples", "20", "--seed", "4",
            "-o", "sensitivity_fractions=[]", "-q"]
    code, _ = _run(["dif", *argv, "--out", tmp_path / "all"])
    assert code == 0
    rs = _read_sample(argv)
    res = benchkit.dif.audit_rankings(rs, owners="uploader", min_family_size=20,
                                      families=_json.loads(families.read_text()), n_controls=20,
                                      n_bootstrap=20, n_owner_bootstrap=20, n_permutations=20,
                                      sensitivity_fractions=[], rng=4, progress=False)
    for name in ("dif", "items", "pairs", "scores", "thresholds"):
        want = res.to_frame() if name == "dif" else getattr(res, f"{name}_frame")()
        pd.testing.assert_frame_equal(read_table(tmp_path / "all" / f"{name}.parquet"), _api_frame(want))


@pytest.mark.slow  # family DIF twice (~10 s)
def test_progress_bars_go_to_stderr_and_quiet_silences_them(capfd):
    argv = ["dif", *_sample("dif", "item", "model"), "--resamples", "5", "-o", "sensitivity_fractions=[]"]
    out = io.StringIO()
    assert main(argv, out=out) == 0
    captured = capfd.readouterr()
    assert "family-DIF audit" in captured.err
    assert "family-DIF audit" not in out.getvalue() + captured.out
    assert main([*argv, "--quiet"], out=io.StringIO()) == 0
    assert capfd.readouterr().err == ""


def test_audit_reference_file_gives_the_validation_of_the_api(tmp_path):
    from benchkit.simulate import load_sample

    flawed = [str(i) for i in load_sample("mcq", with_truth=True).truth.flawed_items]
    assert len(flawed) == 18  # 9 miskeyed, 9 ambiguous (data_samples/README.md)
    (tmp_path / "flawed.txt").write_text("\n".join(flawed) + "\n")
    argv = ["audit", *_sample("mcq", "item"), "--reference", tmp_path / "flawed.txt", "--resamples", "20",
            "--methods", "labels,landscape", "--json", "-q", "--out", tmp_path / "v"]
    code, text = _run(argv)
    assert code == 0
    summary = json.loads(text)
    res = benchkit.audit(_read_sample(_sample("mcq", "item")), methods=["labels", "landscape"],
                         reference=flawed, n_resamples=20, rng=0, progress=False)
    auroc = res.validation.table["auroc"]
    assert summary["headline"]["validation"]["labels"]["auroc"] == round(float(auroc["labels"]), 6)
    assert summary["flagged"] == int((res.items["n_flags"] >= 1).sum())
    assert _run([*argv[:-2], "--fail-on", summary["flagged"]])[0] == 1
    (tmp_path / "bad.txt").write_bytes("caf\xe9".encode("latin-1"))
    assert _run(["audit", *_sample("mcq", "item"), "--reference", tmp_path / "bad.txt"])[0] == 2


def test_a_dataset_that_is_not_a_response_set_is_one_line(capsys):
    # llm-uncertainty-bench loads a table of option logits (was: AttributeError: 'DataFrame' object has no
    # attribute 'meta')
    assert main(["labels", "dataset:llm-uncertainty-bench"], out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "dataset:llm-uncertainty-bench loads a DataFrame, not a response set" in err


def test_a_dataset_of_several_response_sets_takes_a_part(capsys):
    assert main(["compare", "dataset:zeroeval", "--all"], out=io.StringIO()) == 2
    assert "dataset:zeroeval holds several response sets ('crux', 'math-l5'); name one as " \
           "dataset:zeroeval/PART" in capsys.readouterr().err
    assert main(["compare", "dataset:zeroeval/nope", "--all"], out=io.StringIO()) == 2
    assert "no such part; choose one of ['crux', 'math-l5']" in capsys.readouterr().err
    code, text = _run(["compare", "dataset:zeroeval/crux", "--all", "--resamples", "10", "--json"])
    assert code == 0
    assert json.loads(text)["data"]["models"] == 7


# ---------------------------------------------------------------------------------- terminal
def test_names_from_files_reach_the_terminal_with_their_control_characters_escaped(tmp_path, capsys):
    sim = benchkit.simulate.mcq_probabilities(n_items=30, n_models=4, rng=0).responses
    evil = "evil\x1b[2J\x1b]52;c;cHduZWQ=\x07\u202e"
    long = sim.to_long().drop(columns=["principal"])
    long["model"] = long["model"].replace({sim.model_ids[0]: evil})
    long.to_parquet(tmp_path / "evil.parquet")
    for extra in ([], ["--json"]):
        code = main(["compare", str(tmp_path / "evil.parquet"), "--models", evil, sim.model_ids[1],
                     "--resamples", "20", "-q", *extra])
        out, err = capsys.readouterr()
        assert code == 0, err
        for raw in ("\x1b", "\x07", "\u202e"):
            assert raw not in out
        if extra:  # JSON escapes them itself (\u001b) and gives the name back exactly
            assert json.loads(out)["headline"]["a"] == evil
        else:  # the paragraph shows them as visible escapes
            assert "evil\\x1b[2J\\x1b]52;c;cHduZWQ=\\x07\\u202e" in out
    # a bad-input line naming such a model is escaped too
    assert main(["compare", str(tmp_path / "evil.parquet"), "--models", evil, "nope", "-q"]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err
    assert err.count("\n") == 1
    assert "\\x1b[2J" in err
