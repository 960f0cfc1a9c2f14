"""benchkit.compare / compare_all against statsmodels and scipy.

Oracles: statsmodels.stats.contingency_tables.mcnemar(exact=True); statsmodels OLS of the paired
differences on a constant (nonrobust, and cov_type="cluster" with use_t=True) for the difference,
SE, p-value and interval, to 1e-10; statsmodels multipletests for Holm and Benjamini-Hochberg;
the bootstrap's spread against the analytic SE.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

import benchkit
from benchkit import ResponseSet
from benchkit.paired import Comparison

TOL = 1e-10


def _binary_rs(n_items=240, n_models=5, seed=0, missing=0.0, n_groups=12):
    rng = np.random.default_rng(seed)
    skill = np.linspace(0.8, 0.55, n_models)
    ease = rng.normal(0, 1.0, n_items)
    rows = []
    for m in range(n_models):
        p = 1 / (1 + np.exp(-(np.log(skill[m] / (1 - skill[m])) + ease)))
        y = (rng.random(n_items) < p).astype(int)
        for i in range(n_items):
            if rng.random() >= missing:
                rows.append({"model": f"m{m}", "item": f"q{i:03d}", "correct": y[i]})
    items = pd.DataFrame({"item": [f"q{i:03d}" for i in range(n_items)],
                          "source": [f"s{i % n_groups}" for i in range(n_items)],
                          "half": ["first" if i < n_items // 2 else "second" for i in range(n_items)]})
    return ResponseSet.from_long(pd.DataFrame(rows), items=items)


def _ols(d, groups=None):
    X = np.ones((d.size, 1))
    if groups is None:
        return sm.OLS(d, X).fit()
    return sm.OLS(d, X).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)


def _check_against(res: Comparison, ols, level=0.95):
    assert abs(res.difference - ols.params[0]) < TOL
    assert abs(res.se - ols.bse[0]) < TOL
    lo, hi = ols.conf_int(alpha=1 - level)[0]
    assert abs(res.ci[0] - lo) < TOL
    assert abs(res.ci[1] - hi) < TOL


def test_binary_mcnemar_and_paired_se_match_statsmodels():
    rs = _binary_rs()
    S = rs.scores()
    for a, b in [("m0", "m1"), ("m0", "m4"), ("m3", "m2")]:
        res = benchkit.compare(rs, a, b)
        sa, sb = S[:, rs.model_ids.get_loc(a)], S[:, rs.model_ids.get_loc(b)]
        table = [[np.sum((sa == 1) & (sb == 1)), np.sum((sa == 1) & (sb == 0))],
                 [np.sum((sa == 0) & (sb == 1)), np.sum((sa == 0) & (sb == 0))]]
        assert res.method == "mcnemar"
        assert (res.a_only, res.b_only) == (table[0][1], table[1][0])
        assert abs(res.p_value - mcnemar(table, exact=True).pvalue) < TOL
        ols = _ols(sa - sb)
        _check_against(res, ols)
        t = benchkit.compare(rs, a, b, method="t", confidence_level=0.9)
        assert abs(t.p_value - ols.pvalues[0]) < TOL
        assert abs(t.statistic - ols.tvalues[0]) < TOL
        _check_against(t, ols, 0.9)


def test_cluster_robust_matches_statsmodels():
    rs = _binary_rs(seed=3)
    S = rs.scores()
    g = rs.items["source"].to_numpy()
    res = benchkit.compare(rs, "m1", "m3", cluster="source")
    assert res.method == "t"
    assert res.n_clusters == 12
    assert res.df == 11
    d = S[:, 1] - S[:, 3]
    ols = _ols(d, pd.factorize(g)[0])
    _check_against(res, ols)
    assert abs(res.p_value - ols.pvalues[0]) < TOL
    # a Series by item works the same
    res2 = benchkit.compare(rs, "m1", "m3", cluster=rs.items["source"])
    assert res2.se == res.se


def test_fractional_scores_and_missing_cells():
    rs = _binary_rs(seed=4, missing=0.1)
    long = rs.to_long()
    long["correct"] = np.clip(long["correct"] * 0.7 + np.random.default_rng(0).random(len(long)) * 0.3, 0, 1)
    frs = ResponseSet.from_long(long, items=rs.items.reset_index())
    res = benchkit.compare(frs, "m0", "m2")
    assert res.method == "t"
    assert res.a_only is None
    S = frs.scores()
    both = ~np.isnan(S[:, 0]) & ~np.isnan(S[:, 2])
    assert res.n_items == both.sum()
    assert res.n_unpaired == (~both).sum()
    assert res.n_unpaired > 0
    ols = _ols(S[both, 0] - S[both, 2])
    _check_against(res, ols)
    assert abs(res.p_value - ols.pvalues[0]) < TOL


def test_by_groups_equal_comparisons_on_each_group():
    rs = _binary_rs(seed=5)
    res = benchkit.compare(rs, "m0", "m1", by="half")
    frame = res.to_frame()
    assert frame["group"].tolist() == ["all", "first", "second"]
    for half in ("first", "second"):
        sub = rs.select(items=rs.items.index[rs.items["half"] == half])
        one = benchkit.compare(sub, "m0", "m1").to_frame().iloc[0]
        row = frame[frame["group"] == half].iloc[0]
        for col in ("difference", "se", "p_value", "ci_low", "ci_high", "n_items", "a_only", "b_only"):
            assert row[col] == pytest.approx(one[col], abs=1e-12)


def _sampled_rs(seed=0, T=5, n_items=150):
    rng = np.random.default_rng(seed)
    p = rng.random((n_items, 3))
    rows = []
    for m in range(3):
        for i in range(n_items):
            for s in range(T):
                rows.append({"model": f"m{m}", "item": f"q{i}", "sample": s,
                             "correct": int(rng.random() < min(1, p[i, m] + 0.1 * m))})
    items = pd.DataFrame({"item": [f"q{i}" for i in range(n_items)],
                          "passage": [f"p{i // 5}" for i in range(n_items)]})
    return ResponseSet.from_long(pd.DataFrame(rows), items=items)


def test_bootstrap_when_samples_repeat():
    rs = _sampled_rs()
    res = benchkit.compare(rs, "m2", "m0", rng=1, n_resamples=1000)
    assert (res.method, res.ci_method, res.n_resamples) == ("t", "bootstrap", 1000)
    S = rs.scores()
    ols = _ols(S[:, 2] - S[:, 0])
    assert abs(res.p_value - ols.pvalues[0]) < TOL  # the p-value is the paired t-test's
    # the percentile interval's width matches the t interval's within bootstrap noise
    assert (res.ci[1] - res.ci[0]) == pytest.approx(2 * 1.96 * res.se, rel=0.12)
    assert res.ci[0] < res.difference < res.ci[1]
    # reproducible, and identical for any n_jobs
    small = benchkit.compare(rs, "m2", "m0", rng=1, n_resamples=300)
    again = benchkit.compare(rs, "m2", "m0", rng=1, n_resamples=300, n_jobs=2)
    assert again.ci == small.ci
    other = benchkit.compare(rs, "m2", "m0", rng=2, n_resamples=1000)
    assert other.ci != res.ci
    gen = np.random.default_rng(5)
    first = benchkit.compare(rs, "m2", "m0", rng=gen, n_resamples=200)
    second = benchkit.compare(rs, "m2", "m0", rng=gen, n_resamples=200)
    assert first.ci != second.ci  # a Generator is consumed
    # the same draw for every pair: compare_all's interval of a pair equals compare's
    allp = benchkit.compare_all(rs, rng=1, n_resamples=1000)
    row = allp.pairs[(allp.pairs["a"] == "m2") & (allp.pairs["b"] == "m0")].iloc[0]
    assert (row["ci_low"], row["ci_high"]) == res.ci


def test_rng_entropy_repeats_the_bootstrap_and_int_seeds_are_unchanged():
    # rule 5 (benchkit._random): rng=result.rng_entropy repeats the run; an int seed gives the
    # intervals it gave before rng_entropy was recorded (printed by commit d7d702c's code)
    rs = benchkit.simulate.load_sample("ladder")  # 10 samples per cell: bootstrap intervals
    a, b = rs.model_ids[0], rs.model_ids[1]
    first = benchkit.compare(rs, a, b, n_resamples=300, rng=np.random.default_rng(3))
    assert first.ci_method == "bootstrap"
    assert isinstance(first.rng_entropy, int)
    assert benchkit.compare(rs, a, b, n_resamples=300, rng=first.rng_entropy).ci == first.ci
    every = benchkit.compare_all(rs, n_resamples=200, rng=None)
    again = benchkit.compare_all(rs, n_resamples=200, rng=every.rng_entropy)
    pd.testing.assert_frame_equal(again.pairs, every.pairs)
    c = benchkit.compare(rs, a, b, n_resamples=300, rng=5)
    assert c.rng_entropy == 5
    assert c.ci == (-0.09100000000000001, -0.04949166666666668)
    g = benchkit.compare(rs, a, b, n_resamples=300, rng=5, by="benchmark")
    assert g.groups["ci_low"].tolist() == [-0.09100000000000001]
    ca = benchkit.compare_all(rs, n_resamples=200, rng=6)
    assert ca.rng_entropy == 6
    assert (float(ca.pairs["ci_low"].sum()), float(ca.pairs["ci_high"].sum())) == (3.4265416666666675, 4.4326)


def test_cluster_bootstrap_resamples_whole_clusters():
    rs = _sampled_rs(seed=2)
    res = benchkit.compare(rs, "m2", "m0", cluster="passage", rng=0, n_resamples=1000)
    assert res.ci_method == "bootstrap"
    assert res.n_clusters == 30
    assert (res.ci[1] - res.ci[0]) == pytest.approx(2 * 2.045 * res.se, rel=0.2)  # t(29) quantile


@pytest.mark.parametrize("adjust", ["holm", "bh", "none"])
def test_compare_all_adjusts_like_statsmodels(adjust):
    rs = _binary_rs(seed=6, n_models=6)
    res = benchkit.compare_all(rs, adjust=adjust, alpha=0.1)
    pairs = res.pairs
    assert len(pairs) == 15
    for _, r in pairs.iterrows():  # each row is compare()'s result for the pair
        one = benchkit.compare(rs, r["a"], r["b"])
        assert r["p_value"] == one.p_value
        assert r["difference"] == one.difference
    if adjust == "none":
        assert np.array_equal(pairs["p_adjusted"], pairs["p_value"])
    else:
        ref = multipletests(pairs["p_value"], method={"holm": "holm", "bh": "fdr_bh"}[adjust])[1]
        np.testing.assert_allclose(pairs["p_adjusted"], ref, atol=1e-12)
    assert pairs["significant"].tolist() == (pairs["p_adjusted"] <= 0.1).tolist()
    # leaderboard: by accuracy, a is the better model of each pair, neighbours adjacent
    acc = rs.accuracy().sort_values(ascending=False, kind="stable")
    board = res.leaderboard
    assert board["model"].tolist() == list(acc.index)
    assert (pairs["rank_a"] < pairs["rank_b"]).all()
    nb = pairs[pairs["neighbours"]]
    assert len(nb) == 5
    assert board["distinguishable_from_next"].iloc[:-1].tolist() == \
        nb.sort_values("rank_a")["significant"].tolist()
    tiers = 1 + np.r_[0, np.cumsum(board["distinguishable_from_next"].to_numpy()[:-1])]
    assert board["tier"].tolist() == tiers.tolist()
    assert res.n_distinguishable_neighbours == int(nb["significant"].sum())


def test_compare_all_subset_of_models():
    rs = _binary_rs(seed=7)
    res = benchkit.compare_all(rs, models=["m0", "m2", "m4"])
    assert set(res.leaderboard["model"]) == {"m0", "m2", "m4"}
    assert len(res.pairs) == 3


@pytest.mark.parametrize(("kw", "exc", "msg"), [
    ({"a": "zz"}, ValueError, "a='zz' is not a model"),
    ({"b": "m0"}, ValueError, "two different models"),
    ({"a": 3}, TypeError, "model id"),
    ({"method": "wilcoxon"}, ValueError, "method='wilcoxon' is not allowed"),
    ({"method": "mcnemar", "cluster": "source"}, ValueError, "independent items"),
    ({"cluster": "nope"}, ValueError, "not an items column"),
    ({"cluster": 3}, TypeError, "items column name or a Series"),
    ({"by": "nope"}, ValueError, "not an items column"),
    ({"confidence_level": 1.0}, ValueError, "confidence_level"),
    ({"n_resamples": 0}, ValueError, "n_resamples"),
])
def test_compare_errors(kw, exc, msg):
    rs = _binary_rs(seed=8)
    args = {"a": "m0", "b": "m1", **kw}
    a, b = args.pop("a"), args.pop("b")
    with pytest.raises(exc, match=msg):
        benchkit.compare(rs, a, b, **args)


def test_more_errors():
    rs = _sampled_rs()
    with pytest.raises(ValueError, match="needs 0/1 correctness with one sample"):
        benchkit.compare(rs, "m0", "m1", method="mcnemar")
    bad = rs.items["passage"].copy()
    bad.iloc[0] = None
    with pytest.raises(ValueError, match="missing for item"):
        benchkit.compare(rs, "m0", "m1", cluster=bad)
    with pytest.raises(ValueError, match="adjust='x' is not allowed"):
        benchkit.compare_all(rs, adjust="x")
    with pytest.raises(ValueError, match="at least 2 models"):
        benchkit.compare_all(rs, models=["m0"])
    long = rs.to_long()
    two = ResponseSet.from_long(pd.concat([long.assign(variant="x"), long.assign(variant="y")]))
    with pytest.raises(ValueError, match="single variant"):
        benchkit.compare(two, "m0", "m1")
