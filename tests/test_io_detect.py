"""``benchkit info FILE``: each format recognized by content (files written by the tools), with what
was read and what was skipped. Oracles: the tools' own numbers already checked in the per-reader
tests (inspect_ai's results, lm-eval's results_*.json, evalscope's report), printed here."""
from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from benchkit.cli import main
from benchkit.io.detect import detect_format

TOOL = Path(__file__).parent / "tool_fixtures"


def _info(path, *extra):
    out = io.StringIO()
    assert main(["info", str(path), *extra], out=out) == 0
    return out.getvalue()


@pytest.mark.parametrize(("path", "fmt"), [
    ("inspect/mc.eval", "inspect"), ("inspect/mc.json", "inspect"), ("lm_eval", "lm_eval"),
    ("lm_eval/run_a/benchkit__dummy-a", "lm_eval"), ("evalscope", "evalscope"),
    ("evalscope/reviews/model-a/general_mcq_example.jsonl", "evalscope"),
    ("every_eval_ever", "every_eval_ever"),
])
def test_detect_by_content(path, fmt, tmp_path):
    assert detect_format(TOOL / path)[0] == fmt
    src = TOOL / path
    if src.is_file():  # the name does not matter: content decides
        renamed = tmp_path / "renamed.dat"
        shutil.copyfile(src, renamed)
        assert detect_format(renamed)[0] == fmt


def test_lm_eval_sample_file_alone(tmp_path):
    src = next((TOOL / "lm_eval" / "run_a").rglob("samples_bk_mc_*.jsonl"))
    assert detect_format(src)[0] == "lm_eval"


def test_info_inspect_errors_are_listed():
    text = _info(TOOL / "inspect" / "errors.eval")
    assert text.startswith("format: inspect (zip archive")
    assert "4 samples without a usable score" in text
    assert "RuntimeError('tool crashed on sample 2')" in text
    oracle = json.loads((TOOL / "inspect" / "oracle.json").read_text())["logs"]["errors.eval"]
    assert f"mockllm/model    {oracle['results']['match']['accuracy']:.4f}".replace("1.0000", "1.0") in text


def test_info_prints_choices_and_skips():
    text = _info(TOOL / "inspect" / "mc.eval")
    assert "scorer: ['choice']" in text
    assert "other scorers (pass scorer=... to read one): ['graded']" in text
    text = _info(TOOL / "lm_eval")
    assert "filter: {'bk_gen': 'strict', 'bk_mc': 'none'}" in text
    assert "records of other filters: {'bk_gen': {'filters': ['loose'], 'records': 12}}" in text
    text = _info(TOOL / "every_eval_ever")
    assert "records of other results: {'acc_norm': 16}" in text
    text = _info(TOOL / "evalscope")
    report = json.loads((TOOL / "evalscope" / "reports" / "model-a" / "general_mcq.json").read_text())
    assert f"model-a    {report['metrics'][0]['score']:.4f}" in text
    assert "skipped: nothing" in text


def test_info_unrecognized(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"hello": 1}))
    assert main(["info", str(bad)]) == 2
    assert "format not recognized" in capsys.readouterr().err
