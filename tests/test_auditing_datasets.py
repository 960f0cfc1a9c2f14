"""benchkit.audit on every real dataset with item-level responses (the shared data mirror).

Each set is audited with no error, and every method that does not run names its reason. Slow: the
whole list loads and audits 16 response sets (MMLU-Pro alone takes ~25 s to load and audit).
``llm-uncertainty-bench`` is not here: it holds option logits without an answer key, so no response
has a correctness and no ResponseSet can be built from it (its SOURCE.md says so).

MMLU-Redux (14 HELM models, 5,700 expert-labelled items): ``validate`` against the expert labels
prints the per-method table; the answer-key check's AUROC for ``wrong_groundtruth`` (0.914,
tests/test_labels_mmlu_redux.py) is the same number through the audit.
"""
from __future__ import annotations

import pytest

import benchkit
from benchkit.auditing import AUDIT_METHODS
from benchkit.datasets import fetch
from benchkit.datasets import mirror_root

ROOT = mirror_root()
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(ROOT is None, reason="data mirror (../shared/data) is absent")]

EVAL_ARENA = ("cruxeval_input", "cruxeval_output", "humaneval", "humaneval+", "humaneval_hf", "lcb_codegen",
              "mbpp", "mbpp+")
SETS = {
    "mmlu-redux": lambda: fetch("mmlu-redux"),
    "mmlu-redux/helm-full": lambda: fetch("mmlu-redux", part="helm-full"),
    "mmlu-pro": lambda: fetch("mmlu-pro"),
    **{f"eval-arena/{b}": (lambda b=b: fetch("eval-arena", benchmark=b)) for b in EVAL_ARENA},
    "cruxeval": lambda: fetch("cruxeval"),
    "zeroeval/crux": lambda: fetch("zeroeval", benchmark="crux"),
    "zeroeval/math-l5": lambda: fetch("zeroeval", benchmark="math-l5"),
    "conformal-llm": lambda: fetch("conformal-llm"),
}
# what each set supports (the rest must be skipped with a reason)
EXPECTED_RAN = {
    "mmlu-redux": {"labels", "quality", "measure"},
    "mmlu-redux/helm-full": {"labels", "measure"},
    "mmlu-pro": {"labels", "quality", "measure"},
    "eval-arena/cruxeval_input": {"boundary", "quality", "measure"},
    "eval-arena/lcb_codegen": {"boundary", "quality", "measure"},
    "cruxeval": set(),
    "conformal-llm": {"landscape"},
}


def test_every_dataset_with_responses_is_covered():
    covered = {name.split("/")[0] for name in SETS}
    assert covered == set(benchkit.datasets.names()) - {"mmlu", "llm-uncertainty-bench"}  # mmlu: items only


@pytest.mark.parametrize("name", list(SETS))
def test_audit_runs_and_names_a_reason_for_every_skipped_method(name):
    rs = SETS[name]()
    res = benchkit.audit(rs, n_resamples=20, rng=0, progress=False)
    a = res.applicability
    assert list(a.index) == list(AUDIT_METHODS)
    skipped = a[~a["ran"]]
    assert (skipped["reason"].str.len() > 10).all(), skipped["reason"].to_dict()
    assert not skipped["reason"].str.contains("Traceback").any()
    if name in EXPECTED_RAN:
        assert set(a.index[a["ran"]]) == EXPECTED_RAN[name], a["reason"].to_dict()
    assert len(res.items) == rs.n_items
    for m in a.index[a["ran"]]:
        assert f"{m}_reason" in res.items.columns


def test_mmlu_redux_validate_prints_the_per_method_table(capsys):
    rs = fetch("mmlu-redux")
    res = benchkit.audit(rs, rng=0, progress=False)
    wrong_key = rs.items.index[rs.items["error_type"] == "wrong_groundtruth"]
    v = res.validate(wrong_key)
    print(v)
    out = capsys.readouterr().out
    assert "labels" in out
    assert "union" in out
    assert v.n_reference == 107
    assert v.table.loc["labels", "auroc"] >= 0.91
    flawed = rs.items.index[rs.items["error_type"] != "ok"]
    assert res.validate(flawed).n_reference == 370
