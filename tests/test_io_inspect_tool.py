"""read_inspect on logs written by inspect_ai itself.

Two sources, same checks:

* ``tests/tool_fixtures/inspect/`` -- logs written by inspect_ai 0.3.285 with
  ``tests/tool_fixtures/make_inspect.py`` (committed, so CI without inspect_ai still reads
  real-tool output), and ``oracle.json``: inspect's own ``read_eval_log`` reading of them.
* when inspect_ai is importable, the same script runs in a subprocess inside the test session
  (offline: mockllm/model, tiktoken replaced by a local token count) and writes fresh logs with
  whatever inspect_ai version is installed.

The test process never imports inspect_ai: its import monkey-patches :mod:`zipfile` with zstd
support, which would hide a reader that relies on zipfile. Oracle: inspect_ai's own per-sample
values and ``results`` metrics (``oracle.json``), compared with ``==``.
"""
from __future__ import annotations

import importlib.util
import json
import statistics
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from benchkit import NO_ANSWER
from benchkit import BenchkitValueError
from benchkit.io._zip import ZipMembers
from benchkit.io.inspect_logs import read_inspect

HERE = Path(__file__).parent / "tool_fixtures"
COMMITTED = HERE / "inspect"


@pytest.fixture(scope="module", params=["committed", pytest.param("fresh", marks=pytest.mark.slow)])
def logs(request, tmp_path_factory):
    if request.param == "committed":
        return COMMITTED
    if importlib.util.find_spec("inspect_ai") is None:
        pytest.skip("inspect_ai is not installed (pip install benchkit[dev]); the committed logs are read")
    out = tmp_path_factory.mktemp("inspect_logs")
    env = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "INSPECT_DISPLAY": "none",
           "PATH": "/usr/bin:/bin", "HOME": str(out)}
    done = subprocess.run([sys.executable, str(HERE / "make_inspect.py"), str(out)], env=env, check=False,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def _oracle(logs):
    return json.loads((logs / "oracle.json").read_text())["logs"]


def test_zipfile_cannot_but_benchkit_can(logs):
    assert "inspect_ai" not in sys.modules
    assert "zipfile_zstd" not in sys.modules
    with zipfile.ZipFile(logs / "mc.eval") as zf:
        assert {i.compress_type for i in zf.infolist()} == {93}  # zstd members, as inspect writes
        if sys.version_info < (3, 14):
            with pytest.raises(NotImplementedError, match="compression method is not supported"):
                zf.read("header.json")
    with ZipMembers(logs / "mc.eval") as zm:
        assert json.loads(zm.read("header.json"))["status"] == "success"


def _check_against_oracle(rs, entry, scorer):
    """Per (sample id, epoch): value_to_float and answer; per log: inspect's accuracy, exactly."""
    long = rs.to_long().set_index(["item", "sample"])
    by_sample: dict[str, list[float]] = {}
    for s in entry["samples"]:
        if s["error"]:
            continue
        row = long.loc[(f"{entry['task']}/{s['id']}", s["epoch"] - 1)]
        sc = s["scores"][scorer]
        assert row["correct"] == sc["float"], (s["id"], s["epoch"])
        assert row["answer"] == (sc["answer"] if sc["answer"] else NO_ANSWER)
        by_sample.setdefault(str(s["id"]), []).append(row["correct"])
    # inspect: mean reducer over epochs (statistics.mean), then accuracy = running sum / n, in the
    # log's sample order -- recomputed here from benchkit's values
    total = 0.0
    for values in by_sample.values():
        total += statistics.mean(values)
    assert total / float(len(by_sample)) == entry["results"][scorer]["accuracy"]
    # and benchkit's own accuracy agrees (mean over items of the epoch means)
    assert rs.accuracy().iloc[0] == entry["results"][scorer]["accuracy"]


@pytest.mark.parametrize("name", ["mc.eval", "mc.json"])
def test_multiple_choice_epochs_two_scorers(logs, name):
    entry = _oracle(logs)[name]
    rs = read_inspect(logs / name)  # default: the first scorer the task lists ("choice")
    assert rs.meta["scorer"] == ["choice"]
    assert list(entry["results"]) == ["choice", "graded"]
    assert rs.T == 3
    assert rs.n_items == 6
    assert rs.models.index.tolist() == ["mockllm/model"]
    _check_against_oracle(rs, entry, "choice")
    graded = read_inspect(logs / name, scorer="graded")
    values = {s["scores"]["graded"]["value"] for s in entry["samples"]}
    assert {"C", "I", "P", "N"} <= values  # partial credit and no-answer both occur
    _check_against_oracle(graded, entry, "graded")
    q0 = next(s for s in entry["samples"] if s["id"] == "q0")
    assert rs.items.loc["mc/q0", "options"] == q0["choices"]
    assert q0["target"] == "A"
    assert rs.items.loc["mc/1", "answer_key"] == "B"


def test_deflate_archive_reads_the_same(logs, tmp_path):
    """Archives from inspect_ai releases before zstd used deflate: same members, recompressed."""
    with ZipMembers(logs / "mc.eval") as zm, \
            zipfile.ZipFile(tmp_path / "mc.eval", "w", compression=zipfile.ZIP_DEFLATED) as out:
        for name in zm.names():
            out.writestr(name, zm.read(name))
    a = read_inspect(logs / "mc.eval", scorer="graded")
    b = read_inspect(tmp_path / "mc.eval", scorer="graded")
    assert a.to_long().equals(b.to_long())
    full = read_inspect(logs / "mc.eval", scorer="graded", full_samples=True)
    assert full.to_long().equals(a.to_long())


def test_errored_samples_are_reported(logs):
    entry = _oracle(logs)["errors.eval"]
    errored = [(s["id"], s["epoch"], s["error"]) for s in entry["samples"] if s["error"]]
    assert len(errored) == 4
    assert entry["completed_samples"] == 6
    with pytest.raises(BenchkitValueError, match=r"4 samples have no score .*tool crashed on sample 2"):
        read_inspect(logs / "errors.eval")
    rs = read_inspect(logs / "errors.eval", drop_unscored=True)
    assert sorted((u["id"], u["epoch"], u["error"]) for u in rs.meta["unscored"]) == sorted(errored)
    assert len(rs.to_long()) == entry["completed_samples"]
    _check_against_oracle(rs, entry, "match")
