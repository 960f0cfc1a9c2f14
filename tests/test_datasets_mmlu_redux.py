"""benchkit.datasets.mmlu_redux: labels, HELM response sets, corruption tests, raw HELM states.

Counts come from /work/shared/data/mmlu-redux/SOURCE.md and the data README; values are checked
against the raw files read here with csv / json, independently of the loader, and accuracies
against the authors' own exact-match table (outputs/multi_expert_helm/
mmlu-redux-2-em_concat_all_subjects_EM_per_error.csv).
"""
from __future__ import annotations

import csv
import io
import json
import shutil

import numpy as np
import pandas as pd
import pytest

from benchkit import NO_ANSWER
from benchkit import ResponseSet
from benchkit._validation import BenchkitValueError
from benchkit.datasets import mmlu
from benchkit.datasets import mmlu_redux
from benchkit.datasets._fetch import DatasetIntegrityError
from benchkit.datasets._fetch import mirror_root

ROOT = mirror_root()
FOLDER = None if ROOT is None else ROOT / "mmlu-redux"
pytestmark = pytest.mark.skipif(
    FOLDER is None or not FOLDER.is_dir() or not (ROOT / "mmlu").is_dir(),
    reason="data mirror (../shared/data/mmlu-redux and mmlu) is absent",
)

# SOURCE.md: "CLEAN version: normalized error_type {ok 5330, bad_question_clarity 132,
# wrong_groundtruth 107, multiple_correct_answers 39, no_correct_answer 35, expert 32,
# bad_options_clarity 25}"
SOURCE_MD_COUNTS = {"ok": 5330, "bad_question_clarity": 132, "wrong_groundtruth": 107,
                    "multiple_correct_answers": 39, "no_correct_answer": 35, "expert": 32,
                    "bad_options_clarity": 25}


def read_dicts(rel: str, encoding: str = "utf-8", delimiter: str = ",") -> list[dict]:
    with open(FOLDER / rel, encoding=encoding, newline="") as fh:
        return list(csv.DictReader(fh, delimiter=delimiter))


@pytest.fixture(scope="module")
def labels() -> pd.DataFrame:
    return mmlu_redux.load(part="labels")


@pytest.fixture(scope="module")
def labelled() -> ResponseSet:
    return mmlu_redux.load(part="helm-labelled")


@pytest.fixture(scope="module")
def full() -> ResponseSet:
    return mmlu_redux.load(part="helm-full")


@pytest.fixture(scope="module")
def all_csv() -> list[dict]:
    return read_dicts("outputs/multi_expert_helm/all.csv")


# ------------------------------------------------------------------------------------ labels


def test_label_counts(labels):
    assert len(labels) == 5_700
    assert (labels.groupby("subject").size() == 100).all()
    assert labels["subject"].nunique() == 57
    assert labels["error_type"].value_counts().to_dict() == SOURCE_MD_COUNTS
    assert int((labels["error_type"] != "ok").sum()) == 370  # README: "5,700 labelled items (370 flawed)"
    assert set(labels["error_type"]) <= set(mmlu_redux.ERROR_TYPES)
    assert labels["item"].is_unique
    assert labels["item"].iloc[0] == "mmlu-redux/abstract_algebra/0"


def test_raw_spellings_are_kept(labels):
    raw = set(labels["error_type_raw"])
    assert {"OK", "Ok", "ok", "OK ", "Wrong Groundtruth", "wrong_groundtruth ", "No correct Answer"} <= raw
    assert len(raw) == 27  # counted in the raw files while writing the loader
    sel = labels[labels["error_type_raw"] == "No correct Answer"]
    assert (sel["error_type"] == "no_correct_answer").all()


def test_labels_equal_the_authors_clean_column(labels, all_csv):
    # all.csv is the authors' normalized version, row-aligned with the annotator files
    assert [r["error_type"] for r in all_csv] == labels["error_type"].tolist()
    assert [int(r["groundtruth_answer"]) for r in all_csv] == labels["answer_index"].tolist()


def test_semicolon_file_spot_check(labels):
    # SOURCE.md: 9 annotator files are ';'-delimited; anatomy is one of them
    with open(FOLDER / "mmlu_redux/mmlu_anatomy.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter=";"))
    got = labels[labels["subject"] == "anatomy"].reset_index(drop=True)
    assert (got["file_delimiter"] == ";").all()
    for i in (0, 41, 99):
        assert got.loc[i, "text"] == rows[i]["question"]
        assert got.loc[i, "error_type_raw"] == rows[i]["error_type"]
        assert got.loc[i, "answer_index"] == int(rows[i]["answer"])


def test_moral_scenarios_is_mac_roman(labels):
    data = (FOLDER / "mmlu_redux/mmlu_moral_scenarios.csv").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert sorted({b for b in data if b > 127}) == [0xD5]
    rows = list(csv.DictReader(io.StringIO(data.decode("mac_roman"), newline="")))
    ms = labels[labels["subject"] == "moral_scenarios"].reset_index(drop=True)
    assert (ms["file_encoding"] == "mac_roman").all()
    assert ms["text"].tolist() == [r["question"] for r in rows]
    hit = ms[ms["text"].str.contains("I slapped my sister")]
    assert len(hit) == 1
    assert "sister\u2019s head" in hit["text"].iloc[0]
    # ... which is MMLU's own text (mmlu source)
    mm = mmlu.load(subjects="moral_scenarios").set_index("item")
    assert mm.loc[hit["mmlu_item"].iloc[0], "text"] == hit["text"].iloc[0]


def test_match_to_mmlu(labels):
    counts = labels["mmlu_match"].value_counts().to_dict()
    assert counts["text and options"] == 5_692
    assert counts["ASCII letters and digits of text and options"] == 5  # U+FFFD, 'Õ' for '’' ...
    assert labels["mmlu_item"].isna().sum() == 3
    matched = labels.dropna(subset=["mmlu_item"])
    assert matched["mmlu_item"].is_unique
    mm = mmlu.load().set_index("item")
    assert (mm.loc[matched["mmlu_item"], "answer_key"].to_numpy() == matched["answer_key"].to_numpy()).all()


def test_normalize_error_type():
    assert mmlu_redux.normalize_error_type(" Bad options clarity") == "bad_options_clarity"
    assert mmlu_redux.normalize_error_type("OK ") == "ok"
    with pytest.raises(BenchkitValueError, match="'typo' is not a known MMLU-Redux label"):
        mmlu_redux.normalize_error_type("typo")


# ------------------------------------------------------------------------------------ HELM labelled


def test_helm_labelled_shape_and_items(labelled):
    assert labelled.n_items == 5_700
    assert labelled.n_models == 14
    assert labelled.T == 1
    assert list(labelled.model_ids) == list(mmlu_redux.HELM_LABELLED_MODELS)
    assert labelled.has_answers
    assert not labelled.report
    assert labelled.items["error_type"].value_counts().to_dict() == SOURCE_MD_COUNTS
    assert labelled.items.loc["mmlu-redux/virology/3", "source"] == "virology"
    assert labelled.meta["commit"] == "4563cfa79b659d76716e5b6019f46bba85fa02db"
    assert labelled.models.loc["meta_llama-3.1-70b-instruct-turbo", "owner"] == "meta"


def test_helm_labelled_against_raw_all_csv(labelled, all_csv):
    long = labelled.to_long().set_index(["model", "item"])
    items = labelled.item_ids
    for model in ("anthropic_claude-3-5-sonnet-20240620", "writer_palmyra-x-004",
                  "mistralai_mistral-large-2407"):
        raw = [r[model].strip() for r in all_csv]
        key = ["ABCD"[int(r["groundtruth_answer"])] for r in all_csv]
        acc = np.mean([a == k for a, k in zip(raw, key)])
        assert labelled.accuracy()[model] == pytest.approx(acc, abs=1e-15)
        got = long.loc[model].loc[items, "answer"].tolist()
        assert got == [a if a in ("A", "B", "C", "D") else NO_ANSWER for a in raw]
    n_non_letter = sum(r[m].strip() not in ("A", "B", "C", "D") for r in all_csv
                       for m in mmlu_redux.HELM_LABELLED_MODELS)
    assert int((labelled.to_long()["answer"] == NO_ANSWER).sum()) == n_non_letter


def test_helm_labelled_reproduces_authors_em_table(labelled):
    # the authors' table: per subject, EM of 10 models on all items ("Overall"), on ok items
    # ("OK") and on the rest ("Not OK"). Read here with csv, compared to 1e-12.
    rows = read_dicts("outputs/multi_expert_helm/mmlu-redux-2-em_concat_all_subjects_EM_per_error.csv")
    Y = labelled.binary()
    items = labelled.items
    subj = items["subject"].to_numpy()
    ok = (items["error_type"] == "ok").to_numpy()
    col = {m: j for j, m in enumerate(labelled.model_ids)}
    checked = 0
    for r in rows:
        title = r["Subject"]
        rows_mask = np.ones(len(subj), bool) if title == "All" else subj == title.lower().replace(" ", "_")
        assert rows_mask.sum() in (100, 5_700), title
        cond = {"Overall": rows_mask, "OK": rows_mask & ok, "Not OK": rows_mask & ~ok}[r["Condition"]]
        for name, value in r.items():
            if not name.endswith("_correct"):
                continue
            y = Y[:, col[name.removesuffix("_correct")]]
            if title == "All" and r["Condition"] != "Overall":
                # pooled OK / Not OK rows are means of the per-subject values
                per = [y[(subj == s) & cond].mean() for s in pd.unique(subj) if ((subj == s) & cond).any()]
                assert float(value) == pytest.approx(np.mean(per), abs=1e-12)
            else:
                assert float(value) == pytest.approx(y[cond].mean(), abs=1e-12), (title, name)
            checked += 1
    assert checked == 167 * 10


def test_helm_labelled_accuracies_plausible(labelled):
    acc = labelled.accuracy()
    # all.csv / EM table: claude-3.5-sonnet 0.8647368421052631 = 4929/5700 overall
    assert acc["anthropic_claude-3-5-sonnet-20240620"] == pytest.approx(4929 / 5700, abs=1e-15)
    assert acc.between(0.75, 0.90).all()
    by_label = pd.DataFrame(labelled.binary(), index=labelled.item_ids).groupby(
        labelled.items["error_type"].to_numpy()).mean().mean(axis=1)
    # flawed items are answered "correctly" (per the MMLU key) far less often
    assert by_label["wrong_groundtruth"] < 0.5 < by_label["ok"]


# ------------------------------------------------------------------------------------ HELM full


def test_helm_full_join(full):
    join = full.meta["join"]
    # SOURCE.md: 14,015 rows, "join to MMLU test by question text -> 14,014/14,015 match"
    assert join["n_helm_rows"] == 14_015
    assert join["n_joined"] == 14_014
    assert join["n_failed"] == 1
    assert join["join_rate"] == pytest.approx(14_014 / 14_015)
    (fail,) = join["failed"]
    assert fail["file"].endswith("high_school_computer_science.csv")
    assert fail["row"] == 54
    assert fail["reason"] == "no MMLU test question of the subject has this text"
    assert join["n_mmlu_test_rows"] == 14_042
    assert join["n_mmlu_rows_without_helm"] == 28
    assert join["mmlu_rows_without_helm_reasons"] == {
        "identical to an earlier row of the subject (HELM evaluates one copy)": 27,
        "no HELM row could be joined to it": 1,
    }
    (entry,) = full.report.entries
    assert "not joined" in entry.reason
    assert entry.n_cells == 10
    assert entry.n_rows == 10


def test_helm_full_shape_keys_and_raw_values(full):
    assert full.n_models == 10
    assert full.n_items == 14_014
    assert list(full.model_ids) == list(mmlu_redux.HELM_FULL_MODELS)
    mm = mmlu.load().set_index("item")
    assert (mm.loc[full.item_ids, "answer_key"].to_numpy() == full.items["answer_key"].to_numpy()).all()
    raw = read_dicts("outputs/original_helm_combined/abstract_algebra.csv")
    long = full.to_long().set_index(["model", "item"])
    # row 0: claude-3-opus answers B, gpt-4-1106-preview answers D (key B); row 1: gpt-4-1106
    # answered "To" (a truncated sentence) -> NO_ANSWER
    assert raw[0]["anthropic_claude-3-opus-20240229"] == "B"
    assert long.loc[("anthropic_claude-3-opus-20240229", "mmlu/abstract_algebra/test/0"), "correct"] == 1.0
    assert long.loc[("openai_gpt-4-1106-preview", "mmlu/abstract_algebra/test/0"), "correct"] == 0.0
    assert raw[1]["openai_gpt-4-1106-preview"] == "To"
    assert long.loc[("openai_gpt-4-1106-preview", "mmlu/abstract_algebra/test/1"), "answer"] == NO_ANSWER


def test_helm_full_no_answer_counts_match_raw(full):
    n = 0
    for s in mmlu.SUBJECTS:
        for r in read_dicts(f"outputs/original_helm_combined/{s}.csv"):
            n += r["openai_gpt-4-1106-preview"].strip() not in ("A", "B", "C", "D")
    sub = full.to_long()
    got = int(((sub["model"] == "openai_gpt-4-1106-preview") & (sub["answer"] == NO_ANSWER)).sum())
    # the one unjoined row is not an abstention for this model
    assert got == n == sum(full.meta["non_letter_outputs"]["openai_gpt-4-1106-preview"].values())


def test_helm_full_accuracies_plausible(full):
    acc = full.accuracy()
    assert acc.between(0.75, 0.88).all()
    assert acc["anthropic_claude-3-opus-20240229"] > acc["meta_llama-3-70b"]


# ------------------------------------------------------------------------------------ tables


def test_corruption_table():
    c = mmlu_redux.load(part="corruption")
    assert len(c) == 500
    assert (c.groupby("corruption").size() == 100).all()
    assert (c["original_dataset"] == "ARC-Easy").all()
    nca = c[c["corruption"] == "NCA"]
    assert (nca["n_options"] == 3).all()
    assert nca["answer_index"].isna().all()
    raw = read_dicts("outputs/corruption_tests/corruption_test_MCA.csv")
    mca = c[c["corruption"] == "MCA"].reset_index(drop=True)
    # row 1 printed by numpy: "['carbon dioxide' 'food' 'food' 'water']"
    assert raw[1]["choices"] == "['carbon dioxide' 'food' 'food' 'water']"
    assert mca.loc[1, "options"] == ["carbon dioxide", "food", "food", "water"]
    assert mca.loc[1, "added_correct_answer"] == "food"
    # WG keeps the original answer: it equals BOC's (unchanged) answer on every row
    wg = c[c["corruption"] == "WG"]["original_groundtruth"].to_numpy()
    boc = c[c["corruption"] == "BOC"]["answer_index"].to_numpy()
    assert (wg == boc).all()


def test_helm_raw_table_agrees_with_combined_file():
    raw = mmlu_redux.load(part="helm-raw")
    assert len(raw) == 200
    assert (raw.groupby("model").size() == 100).all()
    assert (raw["completion_logprob"] == 0).all()  # SOURCE.md: no option probabilities
    with open(FOLDER / "outputs/original_helm/openai_gpt-4-0613/global_facts.json", encoding="utf-8") as fh:
        js = json.load(fh)
    first = js["request_states"][0]
    got = raw[raw["model"] == "openai_gpt-4-0613"].iloc[0]
    assert got["completion"] == first["result"]["completions"][0]["text"]
    assert got["text"] == first["instance"]["input"]["text"]
    combined = {" ".join(r["question"].split()): r
                for r in read_dicts("outputs/original_helm_combined/global_facts.csv")}
    for model in ("openai_gpt-4-0613", "meta_llama-3-70b"):
        sub = raw[raw["model"] == model]
        same = [combined[" ".join(t.split())][model].strip() == c.strip()
                for t, c in zip(sub["text"], sub["completion"])]
        assert all(same)


def test_em_per_error_table():
    em = mmlu_redux.load(part="em-per-error")
    assert len(em) == 167 * 10
    assert em["model"].nunique() == 10
    top = em[(em["subject"] == "all") & (em["condition"] == "Overall")].set_index("model")["em"]
    assert top["anthropic_claude-3-5-sonnet-20240620"] == 0.8647368421052631


# ------------------------------------------------------------------------------------ pins and errors


def test_pins_cover_every_file_read():
    pinned = {f.path: f for f in mmlu_redux.SOURCE.files}
    on_disk = {str(p.relative_to(FOLDER)) for d in ("mmlu_redux", "outputs") for p in (FOLDER / d).rglob("*")
               if p.is_file()}
    assert set(pinned) == on_disk
    assert len(pinned) == 57 + 5 + 2 + 2 + 57


def test_corrupted_mirror_copy_raises(tmp_path, monkeypatch):
    rel = "mmlu_redux/mmlu_abstract_algebra.csv"
    target = tmp_path / "mmlu-redux" / rel
    target.parent.mkdir(parents=True)
    shutil.copyfile(FOLDER / rel, target)
    target.write_bytes(target.read_bytes().replace(b"Statement 1", b"Statement 2", 1))
    monkeypatch.setenv("BENCHKIT_DATA_MIRROR", str(tmp_path))
    monkeypatch.setenv("BENCHKIT_CACHE", str(tmp_path / "cache"))
    with pytest.raises(DatasetIntegrityError, match="mmlu_abstract_algebra.csv"):
        mmlu_redux.load(part="labels")


def test_bad_part():
    with pytest.raises(BenchkitValueError, match="part='helm' is not allowed"):
        mmlu_redux.load(part="helm")
