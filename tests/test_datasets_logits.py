"""benchkit.datasets: llm-uncertainty-bench (option logits) and conformal-llm (option probabilities).

Counts are those of each folder's SOURCE.md and the data README (16 models x 10,000 items x
{MMLU x 3 prompts, HellaSwag, CosmosQA}, demonstrations 1,3,5,7,9; 16 subjects, 2,886 items x 10
prompts). Values are spot-checked against the raw files read here with pyarrow / zipfile + numpy,
independently of the loaders; softmaxes are checked against scipy.special.softmax.
"""
from __future__ import annotations

import hashlib
import io
import shutil
import zipfile

import numpy as np
import pandas as pd
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from scipy.special import softmax

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit.datasets import conformal_llm
from benchkit.datasets import fetch
from benchkit.datasets import llm_uncertainty_bench as lub
from benchkit.datasets import source
from benchkit.datasets._fetch import DatasetIntegrityError
from benchkit.datasets._fetch import mirror_root

ROOT = mirror_root()
pytestmark = pytest.mark.skipif(
    ROOT is None or not all((ROOT / n).is_dir() for n in ("llm-uncertainty-bench", "conformal-llm")),
    reason="data mirror (../shared/data/{llm-uncertainty-bench,conformal-llm}) is absent",
)
PARQUET = None if ROOT is None else ROOT / "llm-uncertainty-bench" / "option_logits_base.parquet"
ZIP = None if ROOT is None else ROOT / "conformal-llm" / "llm_probs_gpt.zip"


@pytest.fixture(scope="module")
def logits() -> pd.DataFrame:
    return lub.load()


@pytest.fixture(scope="module")
def raw_table():
    return pq.read_table(PARQUET)


@pytest.fixture(scope="module")
def conformal():
    return conformal_llm.load()


def raw_npy(member: str) -> np.ndarray:
    with zipfile.ZipFile(ZIP) as zf:
        return np.load(io.BytesIO(zf.read(f"llm_probs_gpt/{member}")), allow_pickle=False)


# ------------------------------------------------------------------ pins


@pytest.mark.parametrize("mod", [lub, conformal_llm])
def test_sha256_pins_match_the_mirror(mod):
    s = mod.SOURCE
    assert source(s.name) is s
    for f in s.files:
        data = (ROOT / s.name / f.path).read_bytes()
        assert len(data) == f.size, f.path
        assert hashlib.sha256(data).hexdigest() == f.sha256, f.path


@pytest.mark.parametrize(("mod", "rel"), [(lub, "option_logits_base.parquet"),
                                      (conformal_llm, "llm_probs_gpt.zip")])
def test_corrupted_mirror_copy_raises(tmp_path, monkeypatch, mod, rel):
    target = tmp_path / mod.SOURCE.name / rel
    target.parent.mkdir(parents=True)
    shutil.copyfile(ROOT / mod.SOURCE.name / rel, target)
    with open(target, "r+b") as fh:  # flip one byte in the middle
        fh.seek(target.stat().st_size // 2)
        b = fh.read(1)
        fh.seek(-1, 1)
        fh.write(bytes([b[0] ^ 0xFF]))
    monkeypatch.setenv("BENCHKIT_DATA_MIRROR", str(tmp_path))
    monkeypatch.setenv("BENCHKIT_CACHE", str(tmp_path / "cache"))
    with pytest.raises(DatasetIntegrityError, match="pinned sha256"):
        mod.load()


def test_converted_parquet_without_mirror_fails_clearly(tmp_path, monkeypatch):
    empty = tmp_path / "mirror"
    empty.mkdir()
    monkeypatch.setenv("BENCHKIT_DATA_MIRROR", str(empty))
    monkeypatch.setenv("BENCHKIT_CACHE", str(tmp_path / "cache"))
    with pytest.raises(BenchkitValueError,
                       match="conversion .* has no public URL, so it cannot be downloaded"):
        lub.load()


# ------------------------------------------------------------------ llm-uncertainty-bench


def test_logit_counts(logits, raw_table):
    assert raw_table.num_rows == 800_000 == 16 * 5 * 10_000
    assert len(logits) == 799_600 == 16 * 5 * 9_995
    assert logits.attrs["n_demonstration_rows_dropped"] == 400 == 16 * 5 * 5
    assert not logits["item_id"].isin([1, 3, 5, 7, 9]).any()
    assert logits["model"].nunique() == 16
    assert set(logits["model"]) == set(lub.MODELS)
    sizes = logits.groupby(["dataset", "prompt_template"]).agg(
        models=("model", "nunique"), items=("item_id", "nunique"), rows=("model", "size"))
    assert sizes.index.tolist() == [("cosmosqa", "base"), ("hellaswag", "base"), ("mmlu", "base"),
                                    ("mmlu", "shared"), ("mmlu", "task")]
    assert (sizes["models"] == 16).all()
    assert (sizes["items"] == 9_995).all()
    assert (sizes["rows"] == 16 * 9_995).all()
    kept = lub.load(drop_demonstrations=False)
    assert len(kept) == 800_000
    assert kept.attrs["n_demonstration_rows_dropped"] == 0
    assert kept.attrs["n_demonstration_rows"] == 400
    one = lub.load(datasets="hellaswag", models=["Yi-6B"])
    assert len(one) == 9_995
    assert one.attrs["n_demonstration_rows_dropped"] == 5
    with pytest.raises(BenchkitValueError, match="datasets"):
        lub.load(datasets="halu_dialogue")


def test_logit_values_equal_raw(logits, raw_table):
    mask = pc.and_(pc.and_(pc.equal(raw_table["model"], "Qwen-7B"), pc.equal(raw_table["dataset"], "mmlu")),
                   pc.and_(pc.equal(raw_table["prompt_template"], "task"),
                           pc.equal(raw_table["item_id"], 1234)))
    raw = raw_table.filter(mask).to_pylist()
    assert len(raw) == 1
    row = logits[(logits["model"] == "Qwen-7B") & (logits["dataset"] == "mmlu")
                 & (logits["prompt_template"] == "task") & (logits["item_id"] == 1234)]
    assert len(row) == 1
    for c in "ABCDEF":
        assert row[f"logit_{c}"].iloc[0] == np.float32(raw[0][f"logit_{c}"])
    assert row["item"].iloc[0] == "mmlu/1234"
    source_file = "outputs_base/Qwen-7B_mmlu_10k_task_icl1.pkl"
    assert row["source_file"].iloc[0] == raw[0]["source_file"] == source_file
    assert logits["logit_A"].dtype == np.float32


def test_option_probs(logits, raw_table):
    with pytest.raises(TypeError):
        lub.option_probs(logits)                              # options is required, no default
    with pytest.raises(BenchkitTypeError, match=r"frame must be a DataFrame from load\(\).*got None"):
        lub.option_probs(None, options="ABCD")                # the frame is the data: required
    with pytest.raises(BenchkitValueError, match="options"):
        lub.option_probs(logits, options="ABC")
    with pytest.raises(BenchkitValueError, match="only MMLU has"):
        lub.option_probs(logits, options="ABCD", dataset="hellaswag", prompt_template="shared")
    r4 = lub.option_probs(logits, options="ABCD")
    r6 = lub.option_probs(logits, options="ABCDEF")
    p4, models, items = r4.probs, list(r4.models), list(r4.items)
    p6, models6, items6 = r6.probs, list(r6.models), list(r6.items)
    assert r4.options == tuple("ABCD")
    assert r6.options == tuple("ABCDEF")
    tf = r4.to_frame()
    assert len(tf) == 16 * 9_995
    assert list(tf.columns) == ["model", "item", "p_A", "p_B", "p_C", "p_D"]
    assert tf["p_C"].iloc[9_995 + 2] == p4[1, 2, 2]
    assert p4.shape == (16, 9_995, 4)
    assert p6.shape == (16, 9_995, 6)
    assert models == models6 == list(lub.MODELS)
    assert items == items6
    assert items[:3] == ["mmlu/0", "mmlu/2", "mmlu/4"]
    np.testing.assert_allclose(p4.sum(axis=2), 1.0, atol=1e-12)
    # the four-option set = the six-way probabilities of A-D renormalized
    np.testing.assert_allclose(p4, p6[..., :4] / p6[..., :4].sum(axis=2, keepdims=True), atol=1e-12)
    # oracle: scipy's softmax on the raw logits of one model, read with pyarrow
    mask = pc.and_(pc.and_(pc.equal(raw_table["model"], "falcon-7b"), pc.equal(raw_table["dataset"], "mmlu")),
                   pc.equal(raw_table["prompt_template"], "base"))
    raw = raw_table.filter(mask).to_pandas().sort_values("item_id")
    raw = raw[~raw["item_id"].isin([1, 3, 5, 7, 9])]
    z = raw[[f"logit_{c}" for c in "ABCDEF"]].to_numpy(dtype=np.float64)
    j = models.index("falcon-7b")
    np.testing.assert_allclose(p6[j], softmax(z, axis=1), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(p4[j], softmax(z[:, :4], axis=1), rtol=1e-12, atol=1e-15)
    hs = lub.option_probs(logits, options="ABCD", dataset="hellaswag")
    assert hs.probs.shape == (16, 9_995, 4)
    assert hs.items[0] == "hellaswag/0"


def test_fetch_dispatch_for_logits():
    frame = fetch("llm-uncertainty-bench", datasets="cosmosqa", models="mpt-7b")
    assert len(frame) == 9_995
    assert set(frame["prompt_template"]) == {"base"}


# ------------------------------------------------------------------ conformal-llm

# per-subject N from the archive's targets arrays (shape (N,)), summing to SOURCE.md's 2,886
SUBJECT_N = {
    "anatomy": 150, "business_ethics": 112, "clinical_knowledge": 295, "college_chemistry": 109,
    "college_computer_science": 112, "college_medicine": 191, "computer_security": 112,
    "formal_logic": 141, "high_school_biology": 343, "high_school_computer_science": 110,
    "machine_learning": 124, "management": 115, "marketing": 260, "professional_accounting": 314,
    "professional_medicine": 275, "public_relations": 123,
}


def test_conformal_counts(conformal):
    assert sum(SUBJECT_N.values()) == 2_886
    assert conformal.n_items == 2_886
    assert conformal.n_models == 1
    assert conformal.variants == tuple(f"prompt_{v}" for v in range(10))
    assert conformal.n_responses == 28_860
    assert conformal.has_option_probs
    assert conformal.has_answers
    assert conformal.items.groupby("source").size().to_dict() == SUBJECT_N
    for subject, n in SUBJECT_N.items():
        assert raw_npy(f"{subject}_targets.npy").shape == (n,)
        assert raw_npy(f"{subject}_scores.npy").shape == (10, n, 4)
    assert (conformal.items["benchmark"] == "mmlu").all()


def test_conformal_values_equal_raw(conformal):
    scores = raw_npy("marketing_scores.npy")
    targets = raw_npy("marketing_targets.npy")
    items = [f"marketing/{r}" for r in range(len(targets))]
    assert conformal.items.loc[items, "answer_key"].tolist() == ["ABCD"[t] for t in targets]
    for v in (0, 7):
        one = conformal.select(variant=f"prompt_{v}", items=items)
        P = one.option_probs()[:, 0, :]
        np.testing.assert_array_equal(P, scores[v])
        np.testing.assert_array_equal(one.binary()[:, 0], (scores[v].argmax(axis=1) == targets).astype(float))
        long = one.to_long()
        assert long["answer"].tolist() == ["ABCD"[k] for k in scores[v].argmax(axis=1)]
    # accuracy per prompt over all subjects, from the raw arrays
    for v in (0, 9):
        hits = total = 0
        for subject in SUBJECT_N:
            s, t = raw_npy(f"{subject}_scores.npy"), raw_npy(f"{subject}_targets.npy")
            hits += int((s[v].argmax(axis=1) == t).sum())
            total += len(t)
        acc = conformal.select(variant=f"prompt_{v}").accuracy()["llama-13b"]
        assert acc == pytest.approx(hits / total, abs=1e-15)


def test_conformal_subjects_option():
    rs = conformal_llm.load(subjects="anatomy")
    assert rs.n_items == 150
    assert set(rs.items["source"]) == {"anatomy"}
    with pytest.raises(BenchkitValueError, match="subjects"):
        conformal_llm.load(subjects="astronomy")
    arrays = conformal_llm.read_arrays()
    assert set(arrays) == set(conformal_llm.SUBJECTS)
    with pytest.raises(ValueError, match="read-only"):
        arrays["anatomy"][0][0, 0, 0] = 1.0
