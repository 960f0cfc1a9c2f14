"""benchkit.datasets.mmlu_pro: 18 models x 12,032 MMLU-Pro items.

Counts come from /work/shared/data/mmlu-pro/SOURCE.md and the data README; values are checked
against the zips read here with zipfile + json, independently of the loader; the upstream scoring
option is checked against the repository's README leaderboard (Llama-3-70B: 52.78).
"""
from __future__ import annotations

import functools
import json
import random
import shutil
import zipfile

import numpy as np
import pytest

from benchkit import NO_ANSWER
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit.datasets import mmlu_pro
from benchkit.datasets._fetch import DatasetIntegrityError
from benchkit.datasets._fetch import mirror_root

ROOT = mirror_root()
FOLDER = None if ROOT is None else ROOT / "mmlu-pro"
pytestmark = pytest.mark.skipif(
    FOLDER is None or not FOLDER.is_dir(), reason="data mirror (../shared/data/mmlu-pro) is absent"
)


@functools.lru_cache(maxsize=8)
def raw_records(model: str) -> list[dict]:
    with zipfile.ZipFile(FOLDER / "eval_results" / f"model_outputs_{model}_5shots.zip") as zf:
        (name,) = zf.namelist()
        return json.loads(zf.read(name))


@pytest.fixture(scope="module")
def rs():
    return mmlu_pro.load()


@pytest.fixture(scope="module")
def upstream():
    return mmlu_pro.load(scoring="upstream")


def test_shape_and_names(rs):
    # SOURCE.md / README: 18 models x 12,032 items
    assert rs.n_models == 18
    assert rs.n_items == 12_032
    assert rs.T == 1
    assert "Meta-Llama-3_1-70B-Instruct" in rs.model_ids
    assert "gemini-1.5-flash-002" in rs.model_ids
    assert list(rs.model_ids) == list(mmlu_pro.MODELS)
    assert rs.models.loc["Qwen1.5-110B", "size"] == 110e9
    assert rs.models.loc["Meta-Llama-3_1-70B-Instruct", "family"] == "llama"
    assert rs.meta["commit"] == "f418b116db00b065c2aea046518d8fcf74d39872"


def test_gemini_missing_cells_are_reported(rs):
    # SOURCE.md: "gemini: 12,012 and 12,020" records
    N = rs.counts().N
    missing = dict(zip(rs.model_ids, (N == 0).sum(axis=0)))
    assert missing["gemini-1.5-flash-002"] == 20
    assert missing["gemini-1.5-pro-002"] == 12
    assert sum(missing.values()) == 32 == rs.meta["n_missing_cells"]
    assert rs.models.loc["gemini-1.5-flash-002", "n_records"] == 12_012
    assert rs.models.loc["gemini-1.5-pro-002", "n_records"] == 12_020
    cells = {e.reason.split(":")[0]: e.n_cells for e in rs.report.entries}
    assert cells == {"gemini-1.5-flash-002": 20, "gemini-1.5-pro-002": 12}
    raw_ids = {str(r["question_id"]) for r in raw_records("gemini-1.5-pro-002")}
    assert set(rs.meta["missing_cells"]["gemini-1.5-pro-002"]) == set(rs.item_ids) - raw_ids


@pytest.mark.parametrize("model", ["Yi-6B", "Meta-Llama-3_1-70B-Instruct", "gemini-1.5-pro-002"])
def test_against_raw_zip(rs, model):
    recs = raw_records(model)
    acc = np.mean([r["pred"] == r["answer"] for r in recs])  # README: correct = pred == answer
    assert rs.accuracy()[model] == pytest.approx(acc, abs=1e-15)
    long = rs.to_long()
    sub = long[long["model"] == model].set_index("item")
    n_null = sum(r["pred"] is None for r in recs)
    assert int((sub["answer"] == NO_ANSWER).sum()) == n_null == rs.models.loc[model, "n_null_pred"]
    assert (sub.loc[sub["answer"] == NO_ANSWER, "correct"] == 0).all()
    for r in recs[:: len(recs) // 7]:
        row = sub.loc[str(r["question_id"])]
        assert row["answer"] == (NO_ANSWER if r["pred"] is None else r["pred"])
        assert row["correct"] == float(r["pred"] == r["answer"])


def test_items_table(rs):
    items = rs.items
    assert items["category"].nunique() == 14
    assert (items["source"] == items["category"]).all()
    assert items["options"].map(len).max() == 10
    assert (items["n_options"] == items["options"].map(len)).all()
    assert items["src"].str.startswith(("ori_mmlu", "stemez", "theoremQA", "scibench")).all()
    first = raw_records("Yi-6B")[0]
    row = items.loc[str(first["question_id"])]
    assert row["text"] == first["question"]
    assert row["options"] == first["options"]
    assert row["answer_key"] == first["answer"]
    assert row["src"] == first["src"]
    # the model files disagree on 48 items (MMLU-Pro was revised between runs): measured
    assert int(items["revised"].sum()) == 48 == len(rs.meta["revised_items"])


def test_accuracies_plausible(rs):
    acc = rs.accuracy()
    assert acc.between(0.15, 0.75).all()
    assert acc["Llama-2-7b-hf"] < acc["Llama-2-13b-hf"] < acc["Llama-2-70b-hf"]
    assert acc["Meta-Llama-3_1-8B"] < acc["Meta-Llama-3_1-70B"] < acc["Meta-Llama-3_1-70B-Instruct"]
    assert acc["gemini-1.5-flash-002"] < acc["gemini-1.5-pro-002"]


def test_upstream_scoring_reproduces_leaderboard(rs, upstream):
    # mmlu-pro/README.md mini-leaderboard: "Llama-3-70B | 52.78"
    assert round(100 * upstream.accuracy()["Meta-Llama-3-70B"], 2) == 52.78
    # independent re-implementation of save_res() in evaluate_from_local.py
    recs = raw_records("Qwen1.5-7B-Chat")
    corr = 0
    for r in recs:
        if not r["pred"]:
            random.seed(12345)
            corr += random.randint(0, len(r["options"]) - 1) == r["answer_index"]
        else:
            corr += r["pred"] == r["answer"]
    assert upstream.accuracy()["Qwen1.5-7B-Chat"] == pytest.approx(corr / len(recs), abs=1e-15)
    # the guess only ever helps, and only where preds are null
    diff = upstream.accuracy() - rs.accuracy()
    assert (diff >= 0).all()
    assert diff["Meta-Llama-3_1-8B"] == 0
    assert upstream.meta["scoring"] == "upstream"
    assert upstream.meta["rng"] == 12345


def test_options_and_errors():
    two = mmlu_pro.load(models=["Yi-34B", "Yi-6B"])
    assert list(two.model_ids) == ["Yi-34B", "Yi-6B"]
    assert two.n_items == 12_032
    with pytest.raises(BenchkitValueError, match="scoring='random' is not allowed"):
        mmlu_pro.load(scoring="random")
    with pytest.raises(BenchkitValueError, match="models='Yi-9B' is not allowed"):
        mmlu_pro.load(models=["Yi-9B"])
    with pytest.raises(BenchkitTypeError, match="rng must be an integer"):
        mmlu_pro.load(scoring="upstream", rng=1.5)


def test_pins_cover_every_zip():
    pinned = {f.path: f for f in mmlu_pro.SOURCE.files}
    on_disk = {str(p.relative_to(FOLDER)) for p in (FOLDER / "eval_results").glob("*.zip")}
    assert set(pinned) == on_disk
    assert len(pinned) == 18
    # sizes as listed in SOURCE.md
    assert pinned["eval_results/model_outputs_Yi-6B_5shots.zip"].size == 3_206_745
    assert pinned["eval_results/model_outputs_gemini-1.5-pro-002_5shots.zip"].size == 3_554_333


def test_corrupted_mirror_copy_raises(tmp_path, monkeypatch):
    src = FOLDER / "eval_results"
    dst = tmp_path / "mmlu-pro" / "eval_results"
    dst.mkdir(parents=True)
    for f in mmlu_pro.SOURCE.files:
        (tmp_path / "mmlu-pro" / f.path).symlink_to(FOLDER / f.path)
    bad = dst / "model_outputs_Yi-6B_5shots.zip"
    bad.unlink()
    shutil.copyfile(src / "model_outputs_Yi-6B_5shots.zip", bad)
    with open(bad, "r+b") as fh:
        fh.seek(1000)
        byte = fh.read(1)
        fh.seek(1000)
        fh.write(bytes([byte[0] ^ 0xFF]))
    monkeypatch.setenv("BENCHKIT_DATA_MIRROR", str(tmp_path))
    monkeypatch.setenv("BENCHKIT_CACHE", str(tmp_path / "cache"))
    with pytest.raises(DatasetIntegrityError, match="model_outputs_Yi-6B_5shots.zip"):
        mmlu_pro.load(models=["Yi-6B"])
