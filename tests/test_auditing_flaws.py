"""The audit recovers each flaw planted by benchkit.simulate.audit_suite with the method made for it.

Oracle: the simulator's ground truth (``sim.truth.items["flaw"]``: miskeyed, ambiguous,
non_monotone, family_biased, near_duplicate). One test per flaw type: the method made for it flags
at least half of the planted items (recall measured over seeds 1-4: 0.75-1.0, 0.83-1.0, 1.0, 0.5-0.67,
0.99-1.0), at least five times as often as clean items, and the audit's item table holds them with
that method's flag and a reason. Slow: the full audit of the 320-item x 156-model suite takes
8-10 s on 2 cores (family DIF and the 1PL fits).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import benchkit
from benchkit.stats import auroc

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def suite():
    sim = benchkit.simulate.audit_suite(rng=1)
    res = benchkit.audit(sim.responses, n_resamples=20, rng=0, progress=False)
    return sim, res


def _check(sim, res, flaw: str, method: str, *, clean_mask=None) -> np.ndarray:
    it = res.items
    truth = sim.truth.items["flaw"].reindex(it.index).to_numpy()
    planted = truth == flaw
    clean = truth == "none" if clean_mask is None else (truth == "none") & clean_mask
    flag = it[f"{method}_flag"].to_numpy()
    recall, false_rate = flag[planted].mean(), flag[clean].mean()
    assert recall >= 0.5, (flaw, method, recall)
    assert recall >= 5 * false_rate, (flaw, method, recall, false_rate)
    hit = planted & flag
    assert (it.loc[hit, f"{method}_reason"].str.len() > 0).all()
    assert (it.loc[hit, "n_flags"] >= 1).all()
    assert all(method in s for s in it.loc[hit, "flagged_by"])
    return hit


def test_every_method_ran_on_the_suite(suite):
    _, res = suite
    assert bool(res.applicability["ran"].all()), res.applicability["reason"].to_dict()
    assert res.methods == ("labels", "boundary", "dif", "landscape", "quality")


def test_wrong_key_is_flagged_by_the_answer_key_check(suite):
    sim, res = suite
    hit = _check(sim, res, "miskeyed", "labels")
    issue = res.results["labels"].items["issue"].reindex(res.items.index)
    planted = (sim.truth.items["flaw"].reindex(res.items.index) == "miskeyed").to_numpy()
    assert (issue[planted] == "wrong_key").mean() >= 0.5
    assert res.items.loc[hit, "labels_reason"].str.contains("key").all()


def test_ambiguous_item_is_flagged_by_the_answer_key_check(suite):
    sim, res = suite
    _check(sim, res, "ambiguous", "labels")
    issue = res.results["labels"].items["issue"].reindex(res.items.index)
    planted = (sim.truth.items["flaw"].reindex(res.items.index) == "ambiguous").to_numpy()
    assert (issue[planted] == "ambiguous").mean() >= 0.5


def test_order_violation_along_the_ladder_is_flagged_by_bsdprobe(suite):
    sim, res = suite
    hit = _check(sim, res, "non_monotone", "boundary")
    assert res.items.loc[hit, "boundary_reason"].str.startswith("order violation along qwen").all()
    ladder = res.results["boundary"]["qwen"]
    assert list(ladder.axis.models) == [m for m in sim.responses.model_ids if m.startswith("ladder/")]


def test_family_dif_is_flagged_by_the_dif_audit(suite):
    sim, res = suite
    _check(sim, res, "family_biased", "dif")
    truth = sim.truth.items["flaw"].reindex(res.items.index).to_numpy()
    keep = np.isin(truth, ["family_biased", "none"])
    # the score D_i ranks the planted items far above clean ones
    assert auroc(res.items["dif_score"].to_numpy()[keep], truth[keep] == "family_biased") >= 0.85


def test_near_duplicate_benchmark_is_flagged_by_the_quality_view(suite):
    sim, res = suite
    not_source = (res.items["benchmark"] != "sim1").to_numpy()  # the copied items' originals pair up too
    hit = _check(sim, res, "near_duplicate", "quality", clean_mask=not_source)
    copy_of = sim.truth.items["copy_of"].reindex(res.items.index)
    for item in res.items.index[hit][:10]:  # each copy is matched to its own original
        assert f"item {copy_of[item]} of sim1" in res.items.at[item, "quality_reason"]
    tau = res.results["quality"].kendall["all"].to_numpy(copy=True)  # Benchmark² App. F's view
    np.fill_diagonal(tau, -np.inf)
    names = list(res.results["quality"].kendall["all"].index)
    i, j = np.unravel_index(np.argmax(tau), tau.shape)
    assert {names[i], names[j]} == {"sim1", "sim1-copy"}  # the most consistent pair of benchmarks
    assert "sim1 ~ sim1-copy" in res.applicability.loc["quality", "reason"]


def test_validation_against_the_planted_flaws(suite):
    sim, res = suite
    flawed = sim.truth.items.index[sim.truth.items["flaw"] != "none"]
    v = res.validate(flawed)
    t = v.table
    assert t.loc["union", "recall"] >= t[["recall"]].drop(index=["union", "at least two"]).max().iloc[0]
    assert t.loc["at least two", "precision"] >= 0.8
    assert (t["auroc"].drop(index="at least two") > 0.5).all()


def test_results_do_not_depend_on_n_jobs(suite):
    sim, res = suite
    other = benchkit.audit(sim.responses, methods=["dif"], n_resamples=20, rng=0, n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(other.items[["dif_score", "dif_flag", "dif_reason"]],
                                  res.items[["dif_score", "dif_flag", "dif_reason"]])
    np.testing.assert_array_equal(other.results["dif"].controls.replicates,
                                  res.results["dif"].controls.replicates)
