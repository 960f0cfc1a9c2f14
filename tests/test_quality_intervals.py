"""Benchmark² bootstrap intervals (App. E, Table 14): items shared by several benchmarks are
resampled jointly, a model missing from a replicate is missing from that replicate only, the BCa
interval equals scipy.stats.bootstrap's on the same replicates, and an interval that cannot be
trusted is named in a warning."""
from __future__ import annotations

import warnings
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import scipy.stats as sps

from benchkit import ResponseSet
from benchkit._random import spawn
from benchkit._validation import BenchkitWarning
from benchkit.quality import assess
from benchkit.quality._bootstrap import BLOCK
from benchkit.quality.steps import ds

MODELS = ["Qwen2.5-72B-Instruct", "Qwen2.5-32B-Instruct", "Qwen2.5-7B-Instruct",
          "gemma-2-27b-it", "gemma-2-9b-it", "gemma-2-2b-it", "phi-2"]


def _frame(seed, n_items, ids, models=MODELS, spread=1.0):
    rng = np.random.default_rng(seed)
    ability = spread * np.linspace(1.5, -1.0, len(models)) + rng.normal(0, 0.3, len(models))
    p = 1 / (1 + np.exp(-(ability[None, :] - rng.normal(0, 1, n_items)[:, None])))
    return pd.DataFrame((rng.random(p.shape) < p).astype(float), index=ids, columns=models)


def _rs(frame, name):
    return ResponseSet.from_wide(frame, name=name)


def _quiet(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BenchkitWarning)
        return assess(*args, **kw)


def test_shared_item_ids_are_resampled_jointly():
    # A and its copy A2 hold the same item ids (HumanEval / HumanEval+): every replicate draws the
    # same items for both, so their DS and CAD replicates agree exactly and tau(A, A2) stays 1.
    ids = [f"q{i}" for i in range(60)]
    a = _frame(1, 60, ids)
    sets = {"A": _rs(a, "A"), "A2": _rs(a.copy(), "A2"),
            "B": _rs(_frame(2, 50, [f"b{i}" for i in range(50)]), "B")}
    res = _quiet(sets, n_resamples=2 * BLOCK, rng=3, progress=False)
    np.testing.assert_array_equal(res.replicates[:, 0, 1:3], res.replicates[:, 1, 1:3])
    # CBRC(A) = (tau(A, A2) + tau(A, B)) / 2 with tau(A, A2) = 1 in every replicate
    means_a = res.replicates[:, 0, 0]
    means_b = res.replicates[:, 2, 0]  # (tau(B, A) + tau(B, A2)) / 2 = tau(A, B)
    np.testing.assert_allclose(means_a, (1 + means_b) / 2, rtol=0, atol=1e-12)
    assert res.settings["item_pools"] == [("A", "A2"), ("B",)]


def test_item_pools_stay_within_a_domain():
    # ids that collide by accident across domains (LiveCodeBench "2808", MMLU-Pro question 2808)
    ids = [str(i) for i in range(40)]
    sets = {"X": _rs(_frame(1, 40, ids), "X"), "Y": _rs(_frame(2, 40, ids), "Y"),
            "Z": _rs(_frame(3, 40, ids), "Z")}
    res = _quiet(sets, domains={"X": "code", "Y": "knowledge", "Z": "code"}, n_resamples=BLOCK,
                 rng=1, progress=False)
    assert res.settings["item_pools"] == [("X", "Z"), ("Y",)]


def test_missing_model_is_handled_per_replicate():
    # A model scored on 2 of 60 items (with both right) is missing from the replicates that draw
    # neither item, and only from those: replicate r's DS is Eq. 2 on the models scored in r.
    frame = _frame(4, 60, [f"q{i}" for i in range(60)])
    frame["phi-3-mini"] = np.nan
    frame.iloc[[5, 40], -1] = 1.0
    res = _quiet({"A": _rs(frame, "A")}, n_resamples=BLOCK, rng=9, progress=False)
    gen = np.random.default_rng(spawn(9, 1)[0])
    Y = frame.to_numpy()
    seen = 0
    for r in range(BLOCK):
        idx = gen.integers(0, 60, 60)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the mean of an undrawn model
            s = np.nanmean(Y[idx], axis=0)
        seen += np.isfinite(s[-1])
        assert res.replicates[r, 0, 1] == pytest.approx(ds(s), abs=1e-12)
    assert 0 < seen < BLOCK  # both cases occur in this block
    # the interval then holds the estimate (the per-block drop put it at [0.222, 0.396] for 0.509)
    big = _quiet({"A": _rs(frame, "A")}, n_resamples=1000, rng=9, progress=False)
    t = big.table
    assert t.at["A", "ds_low"] <= t.at["A", "ds"] <= t.at["A", "ds_high"]


@pytest.fixture(scope="module")
def three():
    sets = {b: _rs(_frame(10 + k, n, [f"{b}{i}" for i in range(n)]), b)
            for k, (b, n) in enumerate([("A", 40), ("B", 35), ("C", 30)])}
    return sets, _quiet(sets, n_resamples=400, rng=2, progress=False, interval_method="bca")


@pytest.mark.parametrize(("metric", "col"), [("cbrc", 0), ("ds", 1), ("cad", 2)])
def test_bca_interval_matches_scipy_bootstrap(three, metric, col):
    # oracle: scipy.stats.bootstrap(method="BCa") on the same replicates, its jackknife over the
    # three independently resampled item samples, statistics from scipy / the array functions
    from benchkit.quality.steps import cad

    sets, res = three
    Y = {b: sets[b].scores() for b in "ABC"}
    fams = [[0, 1, 2], [3, 4, 5]]

    def stat(ia, ib, ic):
        m = {b: Y[b][i].mean(0) for b, i in zip("ABC", (ia, ib, ic))}
        if metric == "cbrc":
            return np.mean([sps.kendalltau(m["A"], m[c]).statistic for c in "BC"])
        if metric == "ds":
            return ds(m["A"])
        return cad(Y["A"][ia], fams).score

    data = tuple(np.arange(Y[b].shape[0]) for b in "ABC")
    reps = res.replicates[:, 0, col]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's degenerate-interval notes, if any
        ref = sps.bootstrap(data, stat, vectorized=False, n_resamples=0, method="BCa",
                            bootstrap_result=SimpleNamespace(bootstrap_distribution=reps))
    row = res.intervals_frame().set_index(["benchmark", "metric"]).loc[("A", metric)]
    assert row["estimate"] == pytest.approx(stat(*data), abs=1e-12)
    assert row["low"] == pytest.approx(ref.confidence_interval.low, abs=1e-12)
    assert row["high"] == pytest.approx(ref.confidence_interval.high, abs=1e-12)
    assert row["bias"] == pytest.approx(reps.mean() - row["estimate"], abs=1e-12)


def test_estimate_outside_the_basic_interval_is_contained():
    # seven models, 45-60 items: Kendall tau of re-estimated model means shrinks under item
    # resampling, and for benchmark A 97.9% of the CBRC replicates fall below the estimate, so the
    # basic interval [2 est - q_0.975, 2 est - q_0.025] lay wholly above it (the bug: 3 of 23
    # estimates of notebook 05 outside their own interval). assess moves the near bound to the
    # estimate (extended) and keeps the far one, cut to CBRC's range [-1, 1]; such intervals
    # covered 0.59 / 0.25 in benchmarks/coverage_quality.py, so the warning still names them
    from benchkit.stats import bootstrap_interval

    sets = {b: _rs(_frame(k + 1, n, [f"{b}{i}" for i in range(n)]), b)
            for k, (b, n) in enumerate([("A", 60), ("B", 45), ("C", 50)])}
    with pytest.warns(BenchkitWarning, match=r"cannot be trusted: A cbrc: the estimate lies outside "
                      r"the basic interval \(97.9% of replicates below it, z0 = 2.03\); interval "
                      r"extended to it; see"):  # one interval only
        res = assess(sets, n_resamples=1000, rng=5, progress=False)
    iv = res.intervals_frame().set_index(["benchmark", "metric"])
    row = iv.loc[("A", "cbrc")]
    plain = bootstrap_interval(res.replicates[:, 0, 0], row["estimate"], method="basic")
    assert not plain.inside
    assert plain.low > row["estimate"]
    assert row["inside"]
    assert row["extended"]
    assert row["z0"] > 1.96
    assert row["bias"] < 0
    assert row["low"] == row["estimate"]
    assert row["high"] == min(1.0, plain.high)
    assert iv["inside"].all()
    assert iv["extended"].sum() == 1
    inside = (iv["low"] <= iv["estimate"]) & (iv["estimate"] <= iv["high"])
    np.testing.assert_array_equal(iv["inside"].to_numpy(dtype=bool), inside.to_numpy())


def test_untrusted_interval_is_named_in_a_warning():
    # the same data with BCa: its adjusted levels for B's CBRC (0.8071, 1.0000) need more than
    # 1,000 replicates to resolve the upper one, and the warning names it (and A's, extended)
    sets = {b: _rs(_frame(k + 1, n, [f"{b}{i}" for i in range(n)]), b)
            for k, (b, n) in enumerate([("A", 60), ("B", 45), ("C", 50)])}
    with pytest.warns(BenchkitWarning,
                      match=r"cannot be trusted: A cbrc: the estimate lies outside the bca interval "
                      r"\(97.9% .*\); interval extended to it; B cbrc: an adjusted level "
                      r"\(0.8071, 1.0000\)"):
        res = assess(sets, n_resamples=1000, rng=5, progress=False, interval_method="bca")
    iv = res.intervals_frame().set_index(["benchmark", "metric"])
    assert iv.loc[("B", "cbrc"), "reason"].startswith("an adjusted level")
    assert iv["inside"].all()
