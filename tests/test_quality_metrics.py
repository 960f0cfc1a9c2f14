"""Benchmark² metrics against independent computations.

Oracles: ``scipy.stats.kendalltau`` (tau-b) over pairwise-complete models for CBRC;
``itertools.combinations`` + ``statistics.pstdev`` for DS; a triple loop over families, ordered
pairs and items for CAD (Eq. 4-5 written out literally); hand-worked cases in comments.
"""
from __future__ import annotations

import itertools
import math
import statistics

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from benchkit import quality
from benchkit._random import generator
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError

TOL = 1e-12


# ------------------------------------------------------------------------------------- oracles

def oracle_cbrc(S, i, domains=None):
    """Eq. 1 literally: mean over same-domain peers of scipy's tau-b on shared (non-NaN) models."""
    S = np.asarray(S, dtype=float)
    dom = [0] * S.shape[0] if domains is None else list(domains)
    taus = []
    for j in range(S.shape[0]):
        if j == i or dom[j] != dom[i]:
            continue
        ok = ~np.isnan(S[i]) & ~np.isnan(S[j])
        taus.append(kendalltau(S[i][ok], S[j][ok]).statistic if ok.sum() >= 2 else np.nan)
    return float(np.mean(taus)) if taus else float("nan")


def oracle_ds(s, eps=0.02):
    s = [v for v in s if not math.isnan(v)]
    m = len(s)
    pairs = list(itertools.combinations(s, 2))
    big = sum(1 for a, b in pairs if abs(a - b) > eps)
    return statistics.pstdev(s) / statistics.fmean(s) * math.sqrt(big / (m * (m - 1) / 2))


def oracle_cad(Y, families, lam=12.0):
    """Eq. 4-6 literally: every family, every ordered pair j < k (j stronger), every item."""
    Y = np.asarray(Y, dtype=float)
    inv = comp = 0.0
    item_inv = np.zeros(Y.shape[0])
    item_comp = np.zeros(Y.shape[0])
    fam = []
    for f in families:
        fi = fc = 0.0
        for a, b in itertools.combinations(range(len(f)), 2):  # a before b: a is stronger
            for q in range(Y.shape[0]):
                ys, yw = Y[q, f[a]], Y[q, f[b]]
                if math.isnan(ys) or math.isnan(yw):
                    continue
                x = (1 - ys) * yw
                fi += x
                fc += 1
                item_inv[q] += x
                item_comp[q] += 1
        fam.append((fi, fc))
        inv += fi
        comp += fc
    rate = inv / comp if comp else float("nan")
    return rate, math.exp(-lam * rate), item_inv, item_comp, fam


def _scores(rng, n_bench, n_models, levels=None, nan_share=0.0):
    S = rng.random((n_bench, n_models))
    if levels is not None:  # force ties
        S = np.round(S * levels) / levels
    if nan_share:
        S[rng.random(S.shape) < nan_share] = np.nan
    return S


# ----------------------------------------------------------------------------------------- CBRC

def test_cbrc_hand_case():
    # rows: r0 = (1,2,3), r1 = (1,3,2), r2 = (1,2,3): tau(r0,r1) = 1/3, tau(r0,r2) = 1 -> 2/3
    assert quality.steps.cbrc([[1, 2, 3], [1, 3, 2], [1, 2, 3]], 0) == pytest.approx(2 / 3, abs=TOL)


@pytest.mark.parametrize("seed", range(6))
def test_cbrc_matches_scipy_with_ties_and_missing(seed):
    rng = np.random.default_rng(seed)
    S = _scores(rng, 6, 9, levels=4, nan_share=0.15 * (seed % 2))
    domains = ["a", "a", "b", "a", "b", "b"]
    for i in range(6):
        got = quality.steps.cbrc(S, i, domains=domains)
        want = oracle_cbrc(S, i, domains)
        np.testing.assert_allclose(got, want, atol=TOL, rtol=0)  # NaN only where scipy gives NaN
    np.testing.assert_allclose(quality.steps.cbrc_all(S, domains=domains),
                               [oracle_cbrc(S, i, domains) for i in range(6)], atol=TOL, rtol=0)


def test_cbrc_dataframe_labels_and_single_domain_default():
    rng = np.random.default_rng(7)
    S = _scores(rng, 4, 7, levels=5)
    df = pd.DataFrame(S, index=["A", "B", "C", "D"], columns=list("abcdefg"))
    assert quality.steps.cbrc(df, "C") == pytest.approx(oracle_cbrc(S, 2), abs=TOL)
    assert quality.steps.cbrc(df, 2) == pytest.approx(oracle_cbrc(S, 2), abs=TOL)


def test_cbrc_no_peer_and_too_few_shared_models_are_nan():
    S = np.array([[0.1, 0.2, 0.3], [0.3, 0.2, np.nan], [np.nan, np.nan, 0.5]])
    assert math.isnan(quality.steps.cbrc(S, 0, domains=["x", "y", "z"]))  # no peer
    # row 2 shares one model with row 0: that tau is undefined, so CBRC(0) is NaN (propagated)
    assert math.isnan(quality.steps.cbrc(S, 0))
    # row 1 vs row 0 share 2 models: tau = -1 exactly (scipy agrees)
    tau = kendalltau([0.1, 0.2], [0.3, 0.2]).statistic
    assert quality.steps.cbrc(S[:2], 0) == pytest.approx(tau, abs=TOL)


def test_kendall_matrix_matches_scipy():
    rng = np.random.default_rng(3)
    S = _scores(rng, 5, 8, levels=3, nan_share=0.1)
    K = quality.steps.kendall_matrix(S)
    for i, j in itertools.combinations(range(5), 2):
        ok = ~np.isnan(S[i]) & ~np.isnan(S[j])
        want = kendalltau(S[i][ok], S[j][ok]).statistic
        np.testing.assert_allclose(K[i, j], want, atol=TOL, rtol=0)
        np.testing.assert_array_equal(K[i, j], K[j, i])


def test_cbrc_errors():
    with pytest.raises(BenchkitValueError, match="i=7"):
        quality.steps.cbrc(np.zeros((3, 4)), 7)
    with pytest.raises(BenchkitValueError, match="one label per benchmark"):
        quality.steps.cbrc(np.zeros((3, 4)), 0, domains=["a", "b"])
    with pytest.raises(BenchkitTypeError, match="domains"):
        quality.steps.cbrc(np.zeros((3, 4)), 0, domains="ab")
    with pytest.raises(BenchkitValueError, match="at least 2 models"):
        quality.steps.cbrc(np.zeros((3, 1)), 0)
    with pytest.raises(BenchkitValueError, match="not a benchmark"):
        quality.steps.cbrc(pd.DataFrame(np.zeros((2, 3)), index=["x", "y"]), "z")


# ------------------------------------------------------------------------------------------- DS

def test_ds_hand_case():
    # s = (0.2, 0.4, 0.6): population sd = sqrt(0.08/3) = 0.163299..., mean 0.4, every pair differs
    # by more than 0.02 -> DS = 0.408248...
    assert quality.steps.ds([0.2, 0.4, 0.6]) == pytest.approx(math.sqrt(0.08 / 3) / 0.4, abs=TOL)


@pytest.mark.parametrize("seed", range(8))
def test_ds_matches_itertools(seed):
    rng = np.random.default_rng(seed)
    s = np.round(rng.random(11) * 20) / 20  # many ties and differences exactly 0 or 0.05
    if seed % 2:
        s[rng.random(11) < 0.2] = np.nan
    for eps in (0.0, 0.02, 0.05, 0.1):
        assert quality.steps.ds(s, eps=eps) == pytest.approx(oracle_ds(s, eps), abs=TOL)


def test_ds_strict_eps_and_degenerate():
    # |0.52 - 0.5| = 0.02 (in floats slightly above) vs eps: use exact binary fractions instead
    assert quality.steps.ds([0.5, 0.75], eps=0.25) == 0.0  # difference equals eps: not "> eps"
    assert math.isnan(quality.steps.ds([0.5]))
    assert math.isnan(quality.steps.ds([0.0, 0.0]))
    with pytest.raises(BenchkitValueError, match="eps"):
        quality.steps.ds([0.1, 0.2], eps=-1)


def test_ds_refuses_percentages_and_negative_scores():
    # Eq. 2's eps = 0.02 is a difference of fractions: percentages would make every pair "apart"
    # and scale sigma / mean by nothing; a negative score gives a negative DS (-0.667 for this one)
    with pytest.raises(BenchkitValueError, match=r"fractions in \[0, 1\].*found 50.0; divide "
                                                 "percentages by 100"):
        quality.steps.ds([50, 51, 52])
    with pytest.raises(BenchkitValueError, match=r"fractions in \[0, 1\].*found -0.5"):
        quality.steps.ds([-0.5, 0.1, 0.1])
    assert quality.steps.ds([0.5, 0.51, 0.52]) == pytest.approx(quality.steps.ds([0.5, 0.51, 0.52, np.nan]))


def test_ds_contributions_match_deleting_each_item():
    rng = np.random.default_rng(5)
    Y = (rng.random((30, 7)) < np.linspace(0.9, 0.2, 7)).astype(float)
    got = quality.steps.ds_contributions(Y)
    full = oracle_ds(Y.mean(0))
    want = [full - oracle_ds(np.delete(Y, q, axis=0).mean(0)) for q in range(30)]
    np.testing.assert_allclose(got, want, atol=TOL, rtol=0)


# ------------------------------------------------------------------------------------------ CAD

def test_cad_hand_case():
    # one family (m0 > m1), item 0: m0 fails, m1 succeeds -> inversion; item 1: both succeed.
    # rate = 1/2, score = exp(-6)
    r = quality.steps.cad([[0, 1], [1, 1]], [[0, 1]])
    assert r.rate == 0.5
    assert r.score == pytest.approx(math.exp(-6), abs=TOL)
    np.testing.assert_array_equal(r.item_inversions, [1, 0])
    np.testing.assert_array_equal(r.item_comparisons, [1, 1])


@pytest.mark.parametrize("seed", range(8))
def test_cad_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n_items, n_models = 40, 13
    Y = (rng.random((n_items, n_models)) < rng.random(n_models)).astype(float)
    if seed % 3 == 1:
        Y[rng.random(Y.shape) < 0.1] = np.nan  # models missing on some items
    if seed % 3 == 2:
        Y = np.round(rng.random(Y.shape) * 10) / 10  # k/10 pass rates
    perm = rng.permutation(n_models)
    families = [list(perm[:4]), list(perm[4:5]), list(perm[5:8]), list(perm[8:10]), []]  # incl. singles
    lam = [12.0, 5.0, 20.0][seed % 3]
    r = quality.steps.cad(Y, families, lam=lam)
    rate, score, ii, ic, fam = oracle_cad(Y, families, lam)
    assert abs(r.rate - rate) < TOL
    assert abs(r.score - score) < TOL
    np.testing.assert_allclose(r.item_inversions, ii, atol=TOL, rtol=0)
    np.testing.assert_allclose(r.item_comparisons, ic, atol=TOL, rtol=0)
    np.testing.assert_allclose(r.family_inversions, [f[0] for f in fam], atol=TOL, rtol=0)
    np.testing.assert_allclose(r.family_comparisons, [f[1] for f in fam], atol=TOL, rtol=0)
    fam_rate = [f[0] / f[1] if f[1] else np.nan for f in fam]
    np.testing.assert_allclose(r.family_rate, fam_rate, atol=TOL, rtol=0)
    np.testing.assert_allclose(r.family_score, np.exp(-lam * np.array(fam_rate)), atol=TOL, rtol=0)
    # the per-item contributions add up to the totals
    assert abs(r.item_inversions.sum() / r.item_comparisons.sum() - r.rate) < TOL
    frame = r.to_frame()
    assert list(frame.columns) == ["inversions", "comparisons", "rate", "score"]


def test_cad_single_model_families_only_is_nan():
    r = quality.steps.cad(np.ones((5, 3)), [[0], [1], [2]])
    assert math.isnan(r.rate)
    assert math.isnan(r.score)
    assert r.comparisons == 0


def test_cad_order_matters():
    # strongest first: reversing the family turns inversions into agreements
    Y = np.array([[1, 0], [1, 0], [0, 1]], dtype=float)
    assert quality.steps.cad(Y, [[0, 1]]).rate == pytest.approx(1 / 3, abs=TOL)
    assert quality.steps.cad(Y, [[1, 0]]).rate == pytest.approx(2 / 3, abs=TOL)


def test_cad_errors():
    Y = np.zeros((3, 4))
    with pytest.raises(BenchkitValueError, match="appears in families"):
        quality.steps.cad(Y, [[0, 1], [1, 2]])
    with pytest.raises(BenchkitValueError, match="outside 0..3"):
        quality.steps.cad(Y, [[0, 4]])
    with pytest.raises(BenchkitValueError, match=r"\[0, 1\]"):
        quality.steps.cad(Y + 2, [[0, 1]])
    with pytest.raises(BenchkitValueError, match="lam"):
        quality.steps.cad(Y, [[0, 1]], lam=0)
    with pytest.raises(BenchkitTypeError, match="families"):
        quality.steps.cad(Y, np.array([[0, 1]]))


def test_cad_score_mapping_table10_points():
    # exp(-12 * 0.03) = 0.6977 (App. B: "raw_cad < 0.03 receives > 0.65"); exp(-12 * 0.25) = 0.0498
    np.testing.assert_allclose(quality.steps.cad_score([0.03, 0.25]), [math.exp(-0.36), math.exp(-3.0)],
                               atol=TOL)


# ------------------------------------------------------------------------------------ stability

def oracle_stability(Y, ratio, K, seed, items=None):
    """Sec. 3.4 literally with the same draws: sample, rank, scipy tau over all K(K-1)/2 pairs."""
    gen = generator(seed)
    pool = np.arange(Y.shape[0]) if items is None else np.asarray(items)
    size = max(1, round(ratio * Y.shape[0]))
    R = [Y[pool[gen.choice(pool.size, size=size, replace=True)]].mean(0) for _ in range(K)]
    taus = [kendalltau(R[a], R[b]).statistic for a, b in itertools.combinations(range(K), 2)]
    return float(np.nanmean(taus))


@pytest.mark.parametrize(("ratio", "items"), [(0.3, None), (0.5, [0, 3, 4, 8, 9, 11, 15, 20])])
def test_stability_matches_oracle_and_is_reproducible(ratio, items):
    rng = np.random.default_rng(11)
    Y = (rng.random((40, 6)) < np.linspace(0.8, 0.3, 6)).astype(float)
    got = quality.steps.stability(Y, ratio, n_rep=20, items=items, rng=4)
    assert got == pytest.approx(oracle_stability(Y, ratio, 20, 4, items), abs=TOL)
    assert quality.steps.stability(Y, ratio, n_rep=20, items=items, rng=4) == got
    g = np.random.default_rng(1)
    a = quality.steps.stability(Y, ratio, n_rep=20, items=items, rng=g)
    b = quality.steps.stability(Y, ratio, n_rep=20, items=items, rng=g)  # a Generator is consumed: new draws
    assert a != b


def test_stability_errors():
    Y = np.zeros((10, 3))
    Y[::2, 0] = 1
    with pytest.raises(BenchkitValueError, match="ratio"):
        quality.steps.stability(Y, 0.0)
    with pytest.raises(BenchkitValueError, match="n_rep"):
        quality.steps.stability(Y, 0.5, n_rep=1)
    with pytest.raises(BenchkitValueError, match="replace=False"):
        quality.steps.stability(Y, 0.9, n_rep=5, items=[0, 1], replace=False)
    with pytest.raises(BenchkitValueError, match="NaN"):
        quality.steps.stability(np.full((3, 3), np.nan), 0.5)


def test_stability_degenerate_input_is_an_error():
    # one model: nothing to rank; every item gives every model the same score: every sampled
    # ranking is a tie, Kendall tau undefined (both returned NaN without a word before)
    with pytest.raises(BenchkitValueError, match="at least 2 models"):
        quality.steps.stability(np.ones((10, 1)), 0.5, rng=0)
    Y = np.tile(np.array([[1.0], [0.0], [1.0]]), (4, 3))  # rows constant across the 3 models
    with pytest.raises(BenchkitValueError, match="same score, so every sampled ranking ties"):
        quality.steps.stability(Y, 0.5, rng=0)
    mixed = Y.copy()
    mixed[0, 0] = 0.0
    with pytest.raises(BenchkitValueError, match="11 pooled items"):
        quality.steps.stability(mixed, 0.5, items=np.arange(1, 12), rng=0)
    # a selective subset of such items has no stability (NaN, documented), the whole pool has one
    assert math.isnan(quality.steps.subset_metrics(mixed, np.arange(1, 12), n_rep=5, rng=0)["stability"])
    assert not math.isnan(quality.steps.subset_metrics(mixed, np.arange(0, 12), n_rep=5, rng=0)["stability"])


# ------------------------------------------------------------------------------- BQS and bands

def test_bqs_app_c_formula():
    # 0.3 * (0.8 + 1) / 2 + 0.3 * 0.5 + 0.4 * 0.9 = 0.27 + 0.15 + 0.36 = 0.78
    assert quality.steps.bqs(0.8, 0.5, 0.9) == pytest.approx(0.78, abs=TOL)
    assert quality.steps.bqs(-1.0, 0.0, 0.0, weights=(1, 0, 0)) == 0.0
    np.testing.assert_allclose(quality.steps.bqs([0.0, 1.0], [0.2, 0.4], [0.5, 0.5]),
                               [0.15 + 0.06 + 0.2, 0.3 + 0.12 + 0.2], atol=TOL)


@pytest.mark.parametrize(("metric", "value", "label"), [
    ("cbrc", 0.71, "high"), ("cbrc", 0.7, "moderate"), ("cbrc", 0.4, "low"), ("cbrc", 0.41, "moderate"),
    ("ds", 0.41, "good"), ("ds", 0.3, "moderate"), ("ds", 0.2, "minimal"),
    ("cad", 0.61, "good"), ("cad", 0.5, "acceptable"), ("cad", 0.39, "significant issues"),
    ("stability", 0.69, "moderate"), ("stability", 0.75, "high"), ("stability", 0.5, "low"),
    ("raw_cad", 0.029, "excellent"), ("raw_cad", 0.03, "good"), ("raw_cad", 0.1, "acceptable"),
    ("raw_cad", 0.2, "concerning"), ("raw_cad", 0.3, "poor"),
])
def test_bands(metric, value, label):
    assert quality.steps.band(metric, value) == label


def test_band_errors_and_nan():
    assert quality.steps.band("ds", float("nan")) is None
    with pytest.raises(BenchkitValueError, match="no bands"):
        quality.steps.band("bqs", 0.5)


# ------------------------------------------------------------------------------------- families

def test_families_from_models_order_and_report():
    models = pd.DataFrame({
        "series": ["qwen2.5", "qwen2.5", "qwen2.5", "gemma-2", "gemma-2", "llama", "phi", None],
        "variant": ["instruct"] * 5 + ["base", "base", "base"],
        "size": [7e9, 72e9, 7e9, 9e9, np.nan, 8e9, 2.7e9, 1e9],
    }, index=["q7", "q72", "q7b", "g9", "g?", "l8", "phi2", "x"])
    f = quality.steps.families_from_models(models)
    assert f.names == ("qwen2.5/instruct",)
    assert f.members == (("q72", "q7"),)  # largest first; q7b ties with q7 and is left out
    reasons = dict(zip(f.left_out["model"], f.left_out["reason"]))
    assert reasons == {"q7b": "size tie with q7", "g?": "no size", "g9": "single-model family",
                       "l8": "single-model family", "phi2": "single-model family", "x": "no family"}
    assert f.indices(["q7", "zzz", "q72"]) == [[2, 0]]
    # an override fixes a size; explicit families skip grouping
    f2 = quality.steps.families_from_models(models, overrides={"g?": {"size": 2e9}})
    assert ("g9", "g?") in f2.members
    f3 = quality.steps.families_from_models(models, families={"mine": ["l8", "x"]})
    assert f3.members == (("l8", "x"),)
    assert len(f3.left_out) == 6
    with pytest.raises(BenchkitValueError, match="unknown model"):
        quality.steps.families_from_models(models, overrides={"nope": {"size": 1}})


def test_families_from_names_parses_with_model_names():
    f = quality.steps.families_from_models(["Qwen2.5-7B-Instruct", "Qwen2.5-72B-Instruct", "gemma-2-9b-it",
                              "gemma-2-27b-it", "gemma-2-2b-it"])
    by = dict(zip(f.names, f.members))
    assert by["qwen2.5/instruct"] == ("Qwen2.5-72B-Instruct", "Qwen2.5-7B-Instruct")
    assert by["gemma-2/instruct"] == ("gemma-2-27b-it", "gemma-2-9b-it", "gemma-2-2b-it")


def test_cbrc_nan_policy_omit_averages_defined_peers():
    # row 2 shares one model with row 0 (tau undefined); omit -> CBRC(0) = tau(row 0, row 1) only
    S = np.array([[0.1, 0.2, 0.3, 0.4], [0.4, 0.1, 0.2, 0.3], [np.nan, np.nan, np.nan, 0.5]])
    want = kendalltau(S[0], S[1]).statistic
    assert math.isnan(quality.steps.cbrc(S, 0))
    assert quality.steps.cbrc(S, 0, nan_policy="omit") == pytest.approx(want, abs=TOL)
    np.testing.assert_allclose(quality.steps.cbrc_all(S, nan_policy="omit"), [want, want, np.nan], atol=TOL)
    with pytest.raises(BenchkitValueError, match="nan_policy"):
        quality.steps.cbrc(S, 0, nan_policy="skip")
