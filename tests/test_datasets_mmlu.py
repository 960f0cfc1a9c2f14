"""benchkit.datasets.mmlu: the LLM-MCQ-Bias item tables (MMLU, ARC-Challenge, CommonsenseQA).

Counts are the ones stated in /work/shared/data/mmlu/SOURCE.md and the data README; values are
spot-checked against the raw CSVs read here with the csv module, independently of the loader.
"""
from __future__ import annotations

import csv
import hashlib
import shutil

import numpy as np
import pandas as pd
import pytest

from benchkit import ResponseSet
from benchkit._validation import BenchkitValueError
from benchkit.datasets import fetch
from benchkit.datasets import mmlu
from benchkit.datasets import source
from benchkit.datasets._fetch import DatasetIntegrityError
from benchkit.datasets._fetch import mirror_root

ROOT = mirror_root()
FOLDER = None if ROOT is None else ROOT / "mmlu"
pytestmark = pytest.mark.skipif(
    FOLDER is None or not FOLDER.is_dir(), reason="data mirror (../shared/data/mmlu) is absent"
)


def raw_rows(rel: str) -> list[list[str]]:
    with open(FOLDER / rel, encoding="utf-8", newline="") as fh:
        return list(csv.reader(fh))


@pytest.fixture(scope="module")
def test_items() -> pd.DataFrame:
    return mmlu.load()


@pytest.fixture(scope="module")
def everything() -> pd.DataFrame:
    return mmlu.load(part="all", split="all")


def test_counts_from_source_md(test_items, everything):
    # SOURCE.md: data_mmlu/test 57 subjects, 14,042 rows; dev 5/subject; ARC 1,165 x 4 options;
    # CSQA 1,216 x 5 options. Dev files of ARC / CSQA hold 5 rows each (counted with csv below).
    assert len(test_items) == 14_042
    assert test_items["source"].nunique() == 57 == len(mmlu.SUBJECTS)
    assert (test_items["benchmark"] == "mmlu").all()
    dev = mmlu.load(split="dev")
    assert len(dev) == 285
    assert (dev.groupby("source").size() == 5).all()
    arc = mmlu.load(part="arc-challenge")
    assert len(arc) == 1_165
    assert (arc["options"].map(len) == 4).all()
    csqa = mmlu.load(part="commonsenseqa")
    assert len(csqa) == 1_216
    assert (csqa["options"].map(len) == 5).all()
    assert len(raw_rows("data_arc/dev/arc_dev.csv")) == len(mmlu.load(part="arc-challenge", split="dev")) == 5
    n_dev = len(mmlu.load(part="commonsenseqa", split="dev"))
    assert len(raw_rows("data_csqa/dev/csqa_dev.csv")) == n_dev == 5
    assert len(everything) == 14_042 + 285 + 1_165 + 5 + 1_216 + 5
    assert everything["item"].is_unique


def test_per_subject_counts_match_raw_files(test_items):
    sizes = test_items.groupby("source").size()
    for subject in mmlu.SUBJECTS:
        assert sizes[subject] == len(raw_rows(f"data_mmlu/test/{subject}_test.csv")), subject


def test_columns_and_ids(test_items):
    for col in ("item", "benchmark", "source", "split", "row", "text", "options", "answer_key",
                "answer_index", "n_options", "file"):
        assert col in test_items.columns
    assert test_items["item"].iloc[0] == "mmlu/abstract_algebra/test/0"
    assert test_items["item"].is_unique
    assert set(test_items["answer_key"]) == set("ABCD")
    letters = np.array(list("ABCD"))
    assert (letters[test_items["answer_index"].to_numpy()] == test_items["answer_key"].to_numpy()).all()
    arc = mmlu.load(part="arc-challenge")
    assert arc["item"].iloc[7] == "arc-challenge/test/7"
    assert (arc["source"] == "arc-challenge").all()
    csqa = mmlu.load(part="commonsenseqa", split="dev")
    assert csqa["item"].tolist() == [f"commonsenseqa/dev/{i}" for i in range(5)]


@pytest.mark.parametrize(
    ("rel", "row", "part", "subject"),
    [
        ("data_mmlu/test/abstract_algebra_test.csv", 0, "mmlu", "abstract_algebra"),
        ("data_mmlu/test/professional_law_test.csv", 1533, "mmlu", "professional_law"),
        ("data_mmlu/test/world_religions_test.csv", 170, "mmlu", "world_religions"),
        ("data_arc/test/arc_test.csv", 1164, "arc-challenge", None),
        ("data_csqa/test/csqa_test.csv", 600, "commonsenseqa", None),
    ],
)
def test_spot_values_against_raw_csv(rel, row, part, subject):
    raw = raw_rows(rel)[row]
    items = mmlu.load(part=part, subjects=subject) if subject else mmlu.load(part=part)
    got = items.set_index("item").loc[mmlu.item_id(part, "test", row, subject=subject)]
    assert got["text"] == raw[0]
    assert got["options"] == raw[1:-1]
    assert got["answer_key"] == raw[-1]


def test_first_row_by_hand(test_items):
    # data_mmlu/test/abstract_algebra_test.csv line 1, read by eye
    first = test_items.iloc[0]
    assert first["text"].startswith("Find the degree for the given field extension Q(sqrt(2)")
    assert first["options"] == ["0", "4", "2", "6"]
    assert first["answer_key"] == "B"


def test_answer_key_distribution_matches_raw(test_items):
    counts = {}
    for subject in mmlu.SUBJECTS:
        for r in raw_rows(f"data_mmlu/test/{subject}_test.csv"):
            counts[r[-1]] = counts.get(r[-1], 0) + 1
    assert test_items["answer_key"].value_counts().to_dict() == counts


def test_subject_filter_and_errors():
    two = mmlu.load(subjects=["virology", "anatomy"])
    assert list(pd.unique(two["source"])) == ["anatomy", "virology"]
    with pytest.raises(BenchkitValueError, match="part='mmlux' is not allowed"):
        mmlu.load(part="mmlux")
    with pytest.raises(BenchkitValueError, match="split='val' is not allowed"):
        mmlu.load(split="val")
    with pytest.raises(BenchkitValueError, match="subjects='astrology' is not allowed"):
        mmlu.load(subjects="astrology")
    with pytest.raises(BenchkitValueError, match="only applies to part='mmlu'"):
        mmlu.load(part="arc-challenge", subjects="anatomy")


def test_fetch_by_name_dispatches():
    arc = fetch("mmlu", part="arc-challenge", split="dev")
    assert len(arc) == 5
    assert source("mmlu") is mmlu.SOURCE


def test_pins_list_every_file_and_match_the_mirror():
    pinned = {f.path: f for f in mmlu.SOURCE.files}
    on_disk = {str(p.relative_to(FOLDER)) for p in FOLDER.rglob("*.csv")}
    assert set(pinned) == on_disk
    assert len(pinned) == 2 * 57 + 4
    for path in ("data_arc/test/arc_test.csv", "data_mmlu/test/anatomy_test.csv"):
        data = (FOLDER / path).read_bytes()
        assert pinned[path].sha256 == hashlib.sha256(data).hexdigest()
        assert pinned[path].size == len(data)
    # upstream keeps these folders under code/ (SOURCE.md): the URL must point there
    url = mmlu.SOURCE.url("data_arc/test/arc_test.csv")
    assert url == ("https://raw.githubusercontent.com/chujiezheng/LLM-MCQ-Bias/"
                   "2ae2f40c77006f7a00a4675bdfb30151c2406691/code/data_arc/test/arc_test.csv")


def test_corrupted_mirror_copy_raises(tmp_path, monkeypatch):
    target = tmp_path / "mmlu" / "data_arc" / "test" / "arc_test.csv"
    target.parent.mkdir(parents=True)
    shutil.copyfile(FOLDER / "data_arc" / "test" / "arc_test.csv", target)
    with open(target, "ab") as fh:
        fh.write(b"x")
    monkeypatch.setenv("BENCHKIT_DATA_MIRROR", str(tmp_path))
    monkeypatch.setenv("BENCHKIT_CACHE", str(tmp_path / "cache"))
    with pytest.raises(DatasetIntegrityError, match="pinned sha256"):
        mmlu.load(part="arc-challenge")


def test_items_table_is_usable_in_a_response_set(test_items):
    items = test_items.iloc[:3]
    responses = pd.DataFrame({
        "model": ["m"] * 3,
        "item": items["item"].tolist(),
        "answer": ["B", "A", "D"],
    })
    responses["correct"] = (responses["answer"].to_numpy() == items["answer_key"].to_numpy()).astype(float)
    rs = ResponseSet.from_long(responses, items=items, name="mmlu")
    assert rs.n_items == 3
    assert rs.items.loc["mmlu/abstract_algebra/test/0", "answer_key"] == "B"
    assert rs.accuracy()["m"] == pytest.approx(responses["correct"].mean())
