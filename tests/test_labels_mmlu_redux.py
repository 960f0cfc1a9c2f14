"""key_issues on MMLU-Redux: 5,700 expert-labelled items x 14 HELM models (the issue's benchmark).

Reference labels: MMLU-Redux's ``error_type`` (Gema et al. 2024; 107 ``wrong_groundtruth`` items).
Measured here in one run: the AUROC of key_issues' score for those items, and of the plain share of
models disagreeing with the key (both readings: no answer counted as disagreement, and left out).
AUROC is the rank formula of benchkit.stats, checked against scipy.stats.mannwhitneyu. Nothing of
key_issues was tuned on these labels (its defaults are Laplace smoothing and confident learning's
own thresholds).
"""
from __future__ import annotations

import pytest
from scipy.stats import mannwhitneyu

from benchkit.datasets import fetch
from benchkit.datasets._fetch import mirror_root
from benchkit.labels import key_issues
from benchkit.stats import auroc

ROOT = mirror_root()
pytestmark = pytest.mark.skipif(
    ROOT is None or not (ROOT / "mmlu-redux").is_dir() or not (ROOT / "mmlu").is_dir(),
    reason="data mirror (../shared/data/mmlu-redux and mmlu) is absent")


@pytest.fixture(scope="module")
def redux():
    rs = fetch("mmlu-redux")
    return rs, key_issues(rs)


def _mw(scores, y):
    return mannwhitneyu(scores[y], scores[~y]).statistic / (y.sum() * (~y).sum())


def test_wrong_groundtruth_auroc_beats_the_plain_disagreement_share(redux):
    rs, res = redux
    f = res.to_frame()
    y = (rs.items["error_type"] == "wrong_groundtruth").reindex(f.index).to_numpy()
    assert y.sum() == 107
    assert f["score"].notna().all()  # every item has >= 5 answering models
    score = f["score"].to_numpy()
    long = rs.to_long()
    ans = long.pivot(index="item", columns="model", values="answer").astype(object).reindex(f.index)
    key = rs.items["answer_key"].astype(object).reindex(f.index).to_numpy()
    plain = (ans.to_numpy() != key[:, None]).mean(axis=1)  # no answer counts as disagreeing
    plain_answered = f["disagree_share"].to_numpy()  # among the models that answered
    got = {name: auroc(s, y) for name, s in
           [("key_issues", score), ("plain", plain), ("plain_answered", plain_answered)]}
    for name, s in [("key_issues", score), ("plain", plain), ("plain_answered", plain_answered)]:
        assert abs(got[name] - _mw(s, y)) < 1e-12  # the rank formula is Mann-Whitney's U / (n1 n0)
    # measured: key_issues 0.9143, plain 0.9089, plain among answering models 0.9096
    assert got["key_issues"] >= 0.91
    assert got["key_issues"] >= got["plain"]
    assert got["key_issues"] >= got["plain_answered"]
    # against the "ok" items only (other error types left out): measured 0.918 vs 0.913
    ok = (rs.items["error_type"].reindex(f.index) == "ok").to_numpy()
    sel = ok | y
    assert auroc(score[sel], y[sel]) >= auroc(plain[sel], y[sel])


def test_flag_precision_and_recall(redux):
    rs, res = redux
    f = res.to_frame()
    et = rs.items["error_type"].reindex(f.index).to_numpy()
    flag = f["flag"].to_numpy()
    # one answer per model: only wrong_key flags (measured: 214 flagged, 59 of the 107
    # wrong_groundtruth items, 84 flagged items carry some expert error label)
    assert set(f["issue"]) == {"", "wrong_key"}
    y = et == "wrong_groundtruth"
    assert (flag & y).sum() / y.sum() >= 0.5
    assert (flag & y).sum() / flag.sum() >= 0.25
    assert (flag & (et != "ok")).sum() / flag.sum() >= 0.35  # base rate of any label: 0.065
    assert res.fit.converged
