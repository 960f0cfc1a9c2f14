"""The dataset registry: every name dispatches to a loader with a pinned source; the CLI.

The per-source counts are checked against each SOURCE.md in tests/test_datasets_*.py; here the
registry itself is checked (names, pins, one cheap fetch per kind of return value).
"""
from __future__ import annotations

import io
import re

import pandas as pd
import pytest

import benchkit
from benchkit import BenchkitValueError
from benchkit import ResponseSet
from benchkit.cli import main
from benchkit.datasets import fetch
from benchkit.datasets import mirror_root
from benchkit.datasets import names
from benchkit.datasets import source
from benchkit.datasets import sources

needs_mirror = pytest.mark.skipif(mirror_root() is None, reason="no local data mirror (../shared/data)")

EIGHT = ["mmlu-redux", "mmlu", "mmlu-pro", "eval-arena", "cruxeval", "zeroeval",
         "llm-uncertainty-bench", "conformal-llm"]


def test_names_and_pins():
    assert names() == EIGHT
    table = sources()
    assert list(table.index) == EIGHT
    for name in EIGHT:
        s = source(name)
        assert s.name == name
        assert re.fullmatch(r"[0-9a-f]{40}", s.commit), name
        assert s.files, name
        assert all(re.fullmatch(r"[0-9a-f]{64}", f.sha256) for f in s.files), name
        assert s.license


def test_unknown_name():
    with pytest.raises(BenchkitValueError, match="name='mmlu-x' is not allowed; choose one of 'mmlu-redux'"):
        fetch("mmlu-x")


@needs_mirror
def test_fetch_kinds():
    assert isinstance(fetch("mmlu", part="arc-challenge"), pd.DataFrame)
    ea = fetch("eval-arena", benchmark="humaneval")
    assert isinstance(ea, ResponseSet)
    assert ea.n_items == 164
    assert benchkit.datasets is not None
    assert benchkit.simulate is not None


@needs_mirror
def test_cli_fetch_and_datasets(capsys):
    buf = io.StringIO()
    assert main(["fetch", "eval-arena", "-o", "benchmark=humaneval"], out=buf) == 0
    assert "164 items x 49 models" in buf.getvalue()
    buf = io.StringIO()
    assert main(["datasets"], out=buf) == 0
    assert "TIGER-AI-Lab/MMLU-Pro" in buf.getvalue()
    assert main(["fetch", "nope"]) == 2
    assert "name='nope' is not allowed" in capsys.readouterr().err


def test_cli_info(tmp_path):
    frame = pd.DataFrame({"model": ["a", "a", "b"], "item": ["q1", "q2", "q1"], "correct": [1, 0, 1]})
    frame.to_csv(tmp_path / "r.csv", index=False)
    buf = io.StringIO()
    assert main(["info", str(tmp_path / "r.csv")], out=buf) == 0
    assert "2 items x 2 models, 3 responses" in buf.getvalue()
