"""Selective benchmark construction (Sec. 5.4): strategies against hand-sorted oracles, subset
metrics against scipy, reproducibility with rng and identical results for n_jobs=1 vs 2, and the
App. B tables."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from benchkit import ResponseSet
from benchkit import quality
from benchkit._validation import BenchkitValueError

TOL = 1e-12
MODELS = ["Qwen2.5-72B-Instruct", "Qwen2.5-32B-Instruct", "Qwen2.5-7B-Instruct",
          "gemma-2-27b-it", "gemma-2-9b-it", "gemma-2-2b-it", "phi-2"]
FAMS = [[0, 1, 2], [3, 4, 5]]


def _Y(seed, n=80, m=7):
    rng = np.random.default_rng(seed)
    ability = np.linspace(1.5, -1.0, m) + rng.normal(0, 0.4, m)
    p = 1 / (1 + np.exp(-(ability[None, :] - rng.normal(0, 1, n)[:, None])))
    return (rng.random(p.shape) < p).astype(float)


@pytest.fixture(scope="module")
def result():
    sets = {}
    for k, b in enumerate("ABCD"):
        Y = _Y(k + 10, 60 + 10 * k)
        idx = [f"{b}{i}" for i in range(Y.shape[0])]
        items = pd.DataFrame({"item": idx, "text": [" ".join("x" * (1 + i % 13)) for i in range(len(idx))]})
        sets[b] = ResponseSet.from_wide(pd.DataFrame(Y, index=idx, columns=MODELS), items=items, name=b)
    return quality.assess(sets, domains={"A": "m", "B": "m", "C": "k", "D": "k"}, n_resamples=0,
                  progress=False)


def test_item_criteria_and_cad_ds_selection_oracle():
    Y = _Y(1)
    crit = quality.steps.item_criteria(Y, FAMS)
    r = quality.steps.cad(Y, FAMS)
    np.testing.assert_allclose(crit["cad_score"], np.exp(-12 * r.item_inversions / r.item_comparisons),
                               atol=TOL, rtol=0)
    np.testing.assert_allclose(crit["ds_contribution"], quality.steps.ds_contributions(Y), atol=TOL, rtol=0)
    # oracle for "cad+ds": passing items by DS contribution desc, then the rest by DS contribution
    k = round(0.35 * Y.shape[0])
    s, d = crit["cad_score"].to_numpy(), crit["ds_contribution"].to_numpy()
    ranked = sorted(range(Y.shape[0]), key=lambda q: (not s[q] > 0.15, -d[q], q))
    np.testing.assert_array_equal(quality.steps.select_items(Y, FAMS, ratio=0.35), ranked[:k])
    # threshold subset: exactly the items with score > t
    got = quality.steps.select_items(Y, FAMS, method="cad-threshold", cad_threshold=0.3)
    np.testing.assert_array_equal(got, np.flatnonzero(s > 0.3))
    acc = Y.mean(axis=1)
    np.testing.assert_array_equal(quality.steps.select_items(Y, FAMS, ratio=0.25, method="medium"),
                                  sorted(range(80), key=lambda q: (abs(acc[q] - 0.5), q))[:20])
    np.testing.assert_array_equal(quality.steps.select_items(Y, FAMS, ratio=0.25, method="high-accuracy"),
                                  sorted(range(80), key=lambda q: (-acc[q], q))[:20])
    L = np.arange(80) % 7
    got = quality.steps.select_items(Y, FAMS, ratio=0.1, method="shortest", lengths=L)
    np.testing.assert_array_equal(got, sorted(range(80), key=lambda q: (L[q], q))[:8])
    a = quality.steps.select_items(Y, FAMS, ratio=0.5, method="random", rng=3)
    np.testing.assert_array_equal(a, quality.steps.select_items(Y, FAMS, ratio=0.5, method="random", rng=3))
    assert len(set(a.tolist())) == 40


def test_subset_metrics_against_scipy():
    Y = _Y(2)
    items = np.arange(0, 80, 3)
    m = quality.steps.subset_metrics(Y, items, n_rep=15, rng=9)
    assert m["tau"] == pytest.approx(kendalltau(Y[items].mean(axis=0), Y.mean(axis=0)).statistic, abs=TOL)
    assert m["ds"] == pytest.approx(quality.steps.ds(Y[items].mean(axis=0)), abs=TOL)
    assert m["stability"] == quality.steps.stability(Y, items.size / 80, n_rep=15, items=items, rng=9)
    assert m["n_items"] == items.size


def test_select_items_errors():
    Y = _Y(3)
    with pytest.raises(BenchkitValueError, match="method"):
        quality.steps.select_items(Y, FAMS, method="best")
    with pytest.raises(BenchkitValueError, match="lengths"):
        quality.steps.select_items(Y, FAMS, method="longest")
    with pytest.raises(BenchkitValueError, match="ratio"):
        quality.steps.select_items(Y, FAMS, ratio=1.5)


def test_sweeps_reproducible_and_n_jobs_invariant(result):
    kw = dict(ratios=(0.2, 0.5, 1.0), n_rep=12, rng=4, progress=False)
    a = quality.steps.selection_sweep(result, n_jobs=1, **kw)
    b = quality.steps.selection_sweep(result, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(a, b)
    full = a[(a["ratio"] == 1.0) & (a["benchmark"] == "A")].iloc[0]
    assert full["tau"] == 1.0  # all items: same ranking as the full benchmark
    assert full["share"] == 1.0
    mean = a[(a["benchmark"] == "mean") & (a["ratio"] == 0.5)]["stability"].iloc[0]
    assert mean == pytest.approx(a[(a["benchmark"] != "mean") & (a["ratio"] == 0.5)]["stability"].mean(),
                                 abs=TOL)
    c = quality.steps.selection_sweep(result, ratios=(0.2, 0.5, 1.0), n_rep=12, rng=5, progress=False)
    assert not np.array_equal(a["stability"].to_numpy(), c["stability"].to_numpy())


def test_tables_4_5_6(result):
    t4 = quality.steps.ablation(result, n_rep=10, rng=1, progress=False)
    assert set(t4["method"]) == {"cad-threshold", "ds", "cad+ds", "full"}
    t5 = quality.steps.threshold_sensitivity(result, thresholds=(0.05, 0.4), n_rep=10, rng=1, progress=False)
    for _, row in t5[t5["benchmark"] != "mean"].iterrows():
        crit = quality.steps.item_criteria(result.matrices[row["benchmark"]].to_numpy(),
                             result.families[row["benchmark"]].indices(MODELS))
        assert row["n_items"] == int((crit["cad_score"] > row["cad_threshold"]).sum())
    t6 = quality.steps.baselines(result, n_rep=10, rng=1, progress=False, n_jobs=1)
    t6b = quality.steps.baselines(result, n_rep=10, rng=1, progress=False, n_jobs=2)
    pd.testing.assert_frame_equal(t6, t6b)
    assert {"longest", "shortest", "random", "medium"} <= set(t6["method"])


def test_table4_cad_alone_is_the_threshold_filter(result):
    # Sec. 5.4.2: "Filtering by CAD alone (score > 0.15)": every item above the threshold, in
    # whatever share, not the top 35% by CAD score (most items tie at score 1)
    t4 = quality.steps.ablation(result, n_rep=10, rng=1, progress=False)
    rows = t4[(t4["benchmark"] != "mean") & (t4["method"] == "cad-threshold")]
    assert len(rows) == 4
    for _, row in rows.iterrows():
        crit = quality.steps.item_criteria(result.matrices[row["benchmark"]].to_numpy(),
                                     result.families[row["benchmark"]].indices(MODELS))
        keep = np.flatnonzero(crit["cad_score"].to_numpy() > 0.15)
        assert row["n_items"] == keep.size
        assert row["share"] == keep.size / len(crit)
        assert row["items"] == list(result.matrices[row["benchmark"]].index[keep])


def test_selective_scores_table2(result):
    sel = quality.steps.selective_scores(result, ratio=0.35, n_rep=10, rng=2)
    m = sel.models
    a = m[(m["domain"] == "m") & (m["model"] == MODELS[0])].iloc[0]
    fa = result.matrices["A"][MODELS[0]].mean()
    fb = result.matrices["B"][MODELS[0]].mean()
    assert a["full"] == pytest.approx((fa + fb) / 2, abs=TOL)
    sa = result.matrices["A"].loc[sel.subsets["A"], MODELS[0]].mean()
    sb = result.matrices["B"].loc[sel.subsets["B"], MODELS[0]].mean()
    assert a["selective"] == pytest.approx((sa + sb) / 2, abs=TOL)
    dm = m[m["domain"] == "m"]
    assert sel.domains.set_index("domain").at["m", "tau"] == pytest.approx(
        kendalltau(dm["full"], dm["selective"]).statistic, abs=TOL)
    assert len(sel.subsets["A"]) == round(0.35 * 60)
    ba = sel.benchmarks.set_index("benchmark").loc["A"]
    assert ba["tau"] == pytest.approx(kendalltau(result.matrices["A"].mean(axis=0),
                                                 result.matrices["A"].loc[sel.subsets["A"]].mean(axis=0)).statistic,
                                      abs=TOL)
    sel2 = quality.steps.selective_scores(result, ratio=0.35, n_rep=10, rng=2, n_jobs=2)
    pd.testing.assert_frame_equal(sel.models, sel2.models)
    pd.testing.assert_frame_equal(sel.domains, sel2.domains)


def test_held_out_models_do_not_influence_selection(result):
    ho = quality.steps.held_out(result, [MODELS[6]], ratio=0.35, n_rep=10, rng=2)
    # selection uses the 6 other models only: same subsets as selecting on them directly
    Y = result.matrices["A"][MODELS[:6]].to_numpy()
    items = quality.steps.select_items(Y, FAMS, ratio=0.35)
    assert ho.subsets["A"] == list(result.matrices["A"].index[items])
    d = ho.domains.set_index("domain")
    h = ho.models[ho.models["held_out"] & (ho.models["domain"] == "m")]
    assert d.at["m", "avg_abs_rank_change"] == (h["rank_full"] - h["rank_selective"]).abs().mean()
    with pytest.raises(BenchkitValueError, match="unknown"):
        quality.steps.held_out(result, ["nope"])


def test_cad_mapping_table10():
    t = quality.steps.cad_mapping(rates=(0.0, 0.05, 0.3))
    np.testing.assert_allclose(t["score"], [1.0, math.exp(-0.6), math.exp(-3.6)], atol=TOL)
    assert list(t["level"]) == ["excellent", "good", "poor"]


def test_lambda_analysis_criteria_hand_case():
    rates = np.array([0.01, 0.02, 0.05, 0.1, 0.2, 0.3])
    t = quality.steps.lambda_analysis(rates, lams=(12.0,)).iloc[0]
    # median rate 0.075 -> exp(-0.9) = 0.4066, outside [0.15, 0.35] -> 0
    assert t["median"] == 0.0
    # excellent: exp(-0.12), exp(-0.24) > 0.65 -> 1; poor: exp(-3.6) = 0.027 < 0.10 -> 1
    assert t["excellent"] == 1.0
    assert t["poor"] == 1.0
    s = np.exp(-12 * rates)
    assert t["range"] == pytest.approx(min(1.0, (np.quantile(s, 0.9) - np.quantile(s, 0.1)) / 0.5), abs=TOL)
    assert t["total"] == pytest.approx(0.25 * t["separation"] + 0.2 + 0.15 + 0.1 * t["range"], abs=TOL)


# ------------------------------------------------------------------------------ view models

def test_explore_views(result):
    from benchkit.quality.explore import family_view
    from benchkit.quality.explore import kendall_view
    from benchkit.quality.explore import metrics_view
    from benchkit.quality.explore import selection_view
    from benchkit.quality.explore import subset_view

    mv = metrics_view(result)
    assert len(mv) == 4 * 5
    row = mv[(mv["benchmark"] == "A") & (mv["metric"] == "cad")].iloc[0]
    assert row["value"] == result.table.at["A", "cad"]
    assert row["band"] == ("good" if row["value"] > 0.6 else "acceptable" if row["value"] > 0.4
                           else "significant issues")
    kv = kendall_view(result)["m"]
    assert kv[(kv["row"] == "A") & (kv["column"] == "B")]["tau"].iloc[0] == result.kendall["m"].loc["A", "B"]
    fams, inv = family_view(result, "A")
    np.testing.assert_allclose(fams["score"], result.cad_results["A"].family_score, atol=TOL)
    assert fams["members"].iloc[0] == " > ".join(MODELS[:3])
    sv = selection_view(result, ratios=(0.3, 1.0), n_rep=5, rng=0)
    Y = result.matrices["B"].to_numpy()
    for r in (0.1, 0.35, 0.77):
        want = list(result.matrices["B"].index[quality.steps.select_items(Y, FAMS, ratio=r)])
        assert sv.subset("B", r) == want
        assert subset_view(result, "B", r, n_rep=5, rng=1)["items"] == want
    sub = subset_view(result, "B", 0.35, n_rep=5, rng=1)
    assert sub == subset_view(result, "B", 0.35, n_rep=5, rng=1)
    assert sub["text"][0] == result.item_text["B"][sub["items"][0]]


def test_selective_scores_rng_entropy_repeats_the_run(result):
    # rule 5: the result records the entropy of its root; rng=result.rng_entropy repeats the run,
    # and an int rng gives the subsets and stabilities of before (computed at d7d702c, where the
    # benchmarks' seeds were spawned from rng directly)
    a = quality.steps.selective_scores(result, method="random", n_rep=5, rng=7)
    assert a.rng_entropy == 7
    assert a.subsets["A"][:6] == ["A43", "A21", "A3", "A8", "A4", "A24"]
    np.testing.assert_allclose(a.benchmarks["stability"],
                               [0.5405671789974298, 0.6627318709448942, 0.6150674123872888,
                                0.7371389044507819], rtol=1e-12)
    b = quality.steps.selective_scores(result, method="random", n_rep=5, rng=np.random.default_rng(1))
    assert isinstance(b.rng_entropy, int)
    c = quality.steps.selective_scores(result, method="random", n_rep=5, rng=b.rng_entropy)
    assert c.subsets == b.subsets
    pd.testing.assert_frame_equal(c.models, b.models)
    pd.testing.assert_frame_equal(c.benchmarks, b.benchmarks)


def test_selection_view_rng_entropy_repeats_the_run(result):
    from benchkit.quality import explore

    a = explore.selection_view(result, ratios=(0.5,), n_rep=5, rng=7)
    assert a.rng_entropy == 7
    # values computed at d7d702c
    np.testing.assert_allclose(a.curve["stability"],
                               [0.885127742006157, 0.8967067043671142, 0.8365679295644061,
                                0.9047619047619048, 0.8807910701748956], rtol=1e-12)
    b = explore.selection_view(result, ratios=(0.5,), n_rep=5, rng=None)
    c = explore.selection_view(result, ratios=(0.5,), n_rep=5, rng=b.rng_entropy)
    pd.testing.assert_frame_equal(c.curve, b.curve)
