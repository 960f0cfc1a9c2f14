"""Tests of benchkit.measure against independent oracles (scipy, sorting, brute force)."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from joblib import parallel_config
from scipy import integrate
from scipy import special
from scipy import stats

from benchkit import measure
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError

RNG = np.random.default_rng(20260)

CASES = {
    "random": RNG.random(57),
    "n1": np.array([0.3]),
    "n1_zero": np.array([0.0]),
    "ties": np.array([0.2, 0.2, 0.2, 0.7, 0.7, 0.9]),
    "all_equal": np.full(9, 0.42),
    "ends": np.array([0.0, 0.0, 0.5, 1.0, 1.0]),
    "minmax": measure.steps.normalize_difficulty(RNG.normal(size=200)),
}


def _gaps_oracle(z):
    """Gap widths by sorting, with 0 and 1 appended (paper's z_(0) := 0, z_(n+1) := 1)."""
    return np.diff(np.concatenate([[0.0], np.sort(z), [1.0]]))


@pytest.mark.parametrize("name", list(CASES))
def test_ddm_matches_scipy_wasserstein(name):
    z = CASES[name]
    n = z.size
    ref = (np.arange(n) + 0.5) / n  # same-size uniform reference (DESIGN)
    assert abs(measure.steps.ddm(z) - stats.wasserstein_distance(z, ref)) < 1e-12


@pytest.mark.parametrize("name", list(CASES))
def test_ddm_sample_and_weighted_targets_match_scipy(name):
    z = CASES[name]
    v = RNG.random(13)
    w = RNG.random(13) + 0.1
    assert abs(measure.steps.ddm(z, target=v) - stats.wasserstein_distance(z, v)) < 1e-12
    assert abs(measure.steps.ddm(z, target=(v, w)) - stats.wasserstein_distance(z, v, v_weights=w)) < 1e-12


@pytest.mark.parametrize("name", ["random", "n1", "ties", "ends"])
def test_ddm_lebesgue_and_distribution_targets(name):
    z = CASES[name]
    # oracle: integral of |F_n(x) - x| on [0, 1] by adaptive quadrature with the atoms as breakpoints
    F = lambda x: np.searchsorted(np.sort(z), x, side="right") / z.size  # noqa: E731
    pts = np.unique(np.concatenate([z, np.arange(z.size + 1) / z.size]))
    oracle = integrate.quad(lambda x: abs(F(x) - x), 0, 1, points=pts, limit=500,
                            epsabs=1e-13)[0]
    assert abs(measure.steps.ddm(z, target="lebesgue") - oracle) < 1e-10
    assert abs(measure.steps.ddm(z, target=stats.uniform()) - oracle) < 1e-10
    # a Beta target against the quantile form W1 = int_0^1 |Q_n(u) - Q(u)| du
    beta = stats.beta(2, 3)
    zs = np.sort(z)
    qform = sum(integrate.quad(lambda u: abs(zs[i] - beta.ppf(u)), i / z.size, (i + 1) / z.size,
                               limit=200, epsabs=1e-13)[0] for i in range(z.size))
    assert abs(measure.steps.ddm(z, target=beta) - qform) < 1e-8


@pytest.mark.parametrize("name", list(CASES))
def test_max_gap_and_top_gaps_match_sorting(name):
    z = CASES[name]
    widths = _gaps_oracle(z)
    g = measure.steps.max_gap(z)
    assert abs(g.width - widths.max()) < 1e-12
    assert abs(float(g) - widths.max()) < 1e-12
    assert abs((g.right - g.left) - g.width) < 1e-12
    tg = measure.steps.top_gaps(z, k=5)
    expect = np.sort(widths)[::-1][:5]
    assert len(tg) == min(5, z.size + 1)
    np.testing.assert_allclose(tg.widths, expect, atol=1e-12, rtol=0)
    assert abs(tg.total - expect.sum()) < 1e-12
    # positions: each gap's ends are consecutive knots, end items are where they say
    for gap in tg:
        if gap.left_index >= 0:
            assert z[gap.left_index] == gap.left
        else:
            assert gap.left == 0.0
        if gap.right_index >= 0:
            assert z[gap.right_index] == gap.right
        else:
            assert gap.right == 1.0
        assert not np.any((z > gap.left) & (z < gap.right))


def test_gap_edge_cases_by_hand():
    g = measure.steps.max_gap([0.3])  # gaps 0.3 and 0.7
    assert g.width == pytest.approx(0.7, abs=1e-15)
    assert g.left == 0.3
    assert g.right == 1.0
    assert g.left_index == 0
    assert g.right_index == -1
    tg = measure.steps.top_gaps([0.3], k=5)
    assert len(tg) == 2
    assert tg.total == pytest.approx(1.0, abs=1e-15)
    # all equal at 0.42: gaps 0.42, zeros, 0.58
    tg = measure.steps.top_gaps(np.full(4, 0.42), k=3)
    np.testing.assert_allclose(tg.widths, [0.58, 0.42, 0.0], atol=1e-15)
    # min-max normalized: boundary gaps are zero
    z = measure.steps.normalize_difficulty([3.0, -1.0, 1.0])
    np.testing.assert_allclose(z, [1.0, 0.0, 0.5])
    np.testing.assert_allclose(measure.steps.top_gaps(z, k=4).widths, [0.5, 0.5, 0.0, 0.0])
    # equal widths: leftmost first
    tg = measure.steps.top_gaps([0.25, 0.5, 0.75], k=4)
    assert [gp.left for gp in tg] == [0.0, 0.25, 0.5, 0.75]


def test_ddm_hand_values():
    # n = 1: reference atom 0.5; DDM = |z - 0.5|
    assert measure.steps.ddm([0.0]) == 0.5
    assert measure.steps.ddm([1.0]) == 0.5
    # exactly uniform reference -> 0
    assert measure.steps.ddm((np.arange(10) + 0.5) / 10) == 0.0
    # all at 0.5 with n = 2: atoms 0.25, 0.75 -> mean |.| = 0.25
    assert measure.steps.ddm([0.5, 0.5]) == 0.25


def test_normalize_difficulty():
    b = np.array([-2.0, 0.0, 6.0])
    np.testing.assert_allclose(measure.steps.normalize_difficulty(b), [0.0, 0.25, 1.0])
    np.testing.assert_allclose(measure.steps.normalize_difficulty(b, method="logistic"), special.expit(b))
    np.testing.assert_allclose(measure.steps.normalize_difficulty([1.0, 1.0]), [0.5, 0.5])
    np.testing.assert_allclose(measure.steps.normalize_difficulty([2.0], reference=b), [0.5])
    with pytest.raises(BenchkitValueError, match="outside the reference range"):
        measure.steps.normalize_difficulty([7.0], reference=b)
    np.testing.assert_allclose(measure.steps.normalize_difficulty([7.0], reference=b, clip=True), [1.0])
    with pytest.raises(BenchkitValueError, match="method='logistic' is not allowed|method="):
        measure.steps.normalize_difficulty(b, method="rank")
    with pytest.raises(BenchkitValueError, match="must be finite"):
        measure.steps.normalize_difficulty([0.0, np.inf])


def test_input_errors():
    with pytest.raises(BenchkitValueError, match=r"normalized difficulties in \[0, 1\].*index 1"):
        measure.steps.ddm([0.2, 1.5])
    with pytest.raises(BenchkitValueError, match="at least 1 element"):
        measure.steps.max_gap([])
    with pytest.raises(BenchkitValueError, match="target='gauss' is not allowed"):
        measure.steps.ddm([0.5], target="gauss")
    with pytest.raises(BenchkitValueError, match="k=0 is too small"):
        measure.steps.top_gaps([0.5], k=0)
    with pytest.raises(BenchkitTypeError, match="non-empty mapping"):
        measure.steps.tabulate_measures([0.1, 0.2])


def test_measure_table_layout_and_highlights():
    benches = {
        "even": (np.arange(20) + 0.5) / 20,  # DDM 0, max gap 0.05, top5 0.25
        "clumped": np.r_[np.zeros(5), np.ones(5) * 0.1, 1.0],
    }
    tab = measure.steps.tabulate_measures(benches, normalize=None)
    df = tab.to_frame()
    assert list(df.columns[:5]) == ["Benchmark", "DDM", "Max Gap", "Top-5 Sum", "#"]
    ev = df.set_index("Benchmark").loc["even"]
    assert ev["DDM"] == 0.0
    assert ev["Max Gap"] == pytest.approx(0.05)
    assert ev["#"] == 20
    assert not ev["DDM high"]
    assert not ev["Max Gap high"]
    assert not ev["Top-5 Sum high"]
    cl = df.set_index("Benchmark").loc["clumped"]
    assert cl["Max Gap"] == pytest.approx(0.9)
    assert cl["Max Gap high"]
    assert cl["Top-5 Sum high"]
    assert cl["DDM"] == pytest.approx(stats.wasserstein_distance(
        benches["clumped"], (np.arange(11) + 0.5) / 11), abs=1e-12)
    assert tab.counts() == {"DDM": 1, "Max Gap": 1, "Top-5 Sum": 1}
    assert tab["even"].n_items == 20
    assert measure.TABLE1_THRESHOLDS == (0.10, 0.10, 0.30)
    # default normalizes raw difficulties by min-max
    raw = {"x": np.array([5.0, -5.0, 0.0])}
    assert measure.steps.tabulate_measures(raw).to_frame()["Max Gap"].iloc[0] == pytest.approx(0.5)


def test_rank_stability_theorem_2_1():
    res = measure.steps.rank_stability({"a": 0.70, "b": 0.65, "c": 0.50}, lipschitz=2.0, ddm=0.04)
    assert res.bound == pytest.approx(0.08)
    df = res.to_frame().set_index(["model_a", "model_b"])
    assert not df.loc[("a", "b"), "stable"]  # 0.05 <= 0.08
    assert df.loc[("a", "c"), "stable"]
    assert df.loc[("b", "c"), "stable"]
    assert df.loc[("b", "c"), "D_mu_low"] == pytest.approx(0.07)
    assert res.fraction_stable == pytest.approx(2 / 3)
    # the bound itself on a concrete pair of curves: |D_B - D_mu| <= L W1 (mu = Lebesgue uniform)
    z = RNG.random(40)
    delta = lambda x: 0.3 * np.sin(3 * x)  # Lipschitz constant 0.9  # noqa: E731
    d_b = delta(z).mean()
    d_mu = integrate.quad(delta, 0, 1)[0]
    assert abs(d_b - d_mu) <= 0.9 * measure.steps.ddm(z, target="lebesgue") + 1e-12


def test_covered_items_worst_case_brute_force():
    z = np.sort(RNG.random(15))
    for w in (0.01, 0.05, 0.1, 0.2, 0.5, 1.0):
        cnt, c = measure.steps.covered_items_worst_case(z, w)
        grid = np.linspace(0, 1 - w, 2001)
        grid = np.unique(np.concatenate([grid, z[z <= 1 - w]]))
        brute = int(((z[None, :] > grid[:, None]) & (z[None, :] < grid[:, None] + w)).sum(1).min())
        assert cnt == brute
        assert int(np.sum((z > c) & (z < c + w))) == cnt
        assert (cnt == 0) == (w <= measure.steps.max_gap(z).width)


def _brute_max_test_power(k, p, covered, a, alpha):
    """Exact power of the randomized max-difference test by enumerating all outcomes (tiny n, k)."""
    n = len(p)
    grid = list(itertools.product(range(k + 1), repeat=2 * n))

    def prob(outcome, ps_post):
        pr = 1.0
        for i in range(n):
            pr *= stats.binom.pmf(outcome[i], k, ps_post[i]) * stats.binom.pmf(outcome[n + i], k, p[i])
        return pr

    post = [min(p[i] + a, 1.0) if covered[i] else p[i] for i in range(n)]
    stat = [max(o[i] - o[n + i] for i in range(n)) for o in grid]
    p0 = np.array([prob(o, p) for o in grid])
    p1 = np.array([prob(o, post) for o in grid])
    stat = np.array(stat)
    for t in range(-k, k + 1):
        if p0[stat > t].sum() <= alpha + 1e-15:
            break
    gamma = (alpha - p0[stat > t].sum()) / p0[stat == t].sum()
    return p1[stat > t].sum() + gamma * p1[stat == t].sum(), p0[stat > t].sum() + gamma * p0[stat == t].sum()


def test_detection_power_exact_max_test_against_enumeration():
    z = np.array([0.2, 0.6])  # G = 0.4 (the gap 0.6 -> 1)
    for w, k in ((0.5, 2), (0.45, 3)):
        res = measure.steps.detection_power(z, [w], n_samples=[k], a=0.3, alpha=0.1, baseline=[0.5, 0.3])
        row = res.to_frame().iloc[0]
        cnt, c = measure.steps.covered_items_worst_case(z, w)
        covered = (z > c) & (z < c + w)
        pw, size = _brute_max_test_power(k, [0.5, 0.3], covered, 0.3, 0.1)
        assert abs(size - 0.1) < 1e-12
        assert abs(row["power"] - pw) < 1e-12


def test_detection_power_part_1_against_enumeration():
    # w <= G(B): no item is covered; the power is computed by the kit and checked against the
    # enumeration oracle above (all outcomes of both models, scipy's binomial pmf), whose power
    # with nothing covered is its size
    z = np.array([0.2, 0.6])  # G = 0.4
    for w, k in ((0.3, 2), (0.4, 3)):
        res = measure.steps.detection_power(z, [w], n_samples=[k], a=0.3, alpha=0.1, baseline=[0.5, 0.3])
        row = res.to_frame().iloc[0]
        assert row["covered"] == 0
        assert not row["detectable"]
        pw, size = _brute_max_test_power(k, [0.5, 0.3], [False, False], 0.3, 0.1)
        assert abs(pw - 0.1) < 1e-12
        assert abs(size - 0.1) < 1e-12
        assert abs(row["power"] - pw) < 1e-12


def test_detection_power_boundary_behaviour():
    z = measure.steps.normalize_difficulty(RNG.normal(size=40))
    G = measure.steps.max_gap(z).width
    widths = [G * 0.5, G, min(1.0, G * 1.5), min(1.0, G * 3)]
    res = measure.steps.detection_power(z, widths, n_samples=(1, 10, 1000), a=0.3)
    df = res.to_frame()
    # Theorem 2.3 part 1: for w <= G the worst interval covers no item, the two models' responses
    # have one law, and the (randomized, exact-size) test's power -- computed, not set -- is alpha
    below = df.loc[df["w"] <= G]
    assert len(below) == 6
    assert np.all(below["covered"] == 0)
    np.testing.assert_allclose(below["power"], 0.05, rtol=0, atol=1e-12)
    # part 2: beyond G power grows with k and approaches 1
    big = df[df["w"] > G]
    for w, grp in big.groupby("w"):
        assert np.all(np.diff(grp.sort_values("k")["power"].to_numpy()) >= -1e-12)
        assert grp.loc[grp["k"] == 1000, "power"].iloc[0] > 0.99
    assert res.power(widths[-1], 10) == df[(df["w"] == widths[-1]) & (df["k"] == 10)]["power"].iloc[0]


def test_detection_power_rng_entropy_repeats_the_run():
    # rule 5: the score test records the entropy of its root; rng=result.rng_entropy repeats it,
    # and an int rng gives the powers of before (computed at d7d702c, spawned from rng directly)
    z = np.linspace(0.05, 0.95, 12) ** 1.5
    kw = dict(n_samples=(2,), test="score", n_resamples=1000)
    a = measure.steps.detection_power(z, [0.3, 0.6], rng=7, **kw)
    assert a.rng_entropy == 7
    np.testing.assert_allclose(a.table["power"], [0.07968749999999998, 0.15807692307692303],
                               rtol=1e-12)
    b = measure.steps.detection_power(z, [0.3, 0.6], rng=np.random.default_rng(2), **kw)
    assert isinstance(b.rng_entropy, int)
    pd.testing.assert_frame_equal(
        measure.steps.detection_power(z, [0.3, 0.6], rng=b.rng_entropy, **kw).table, b.table)
    # the exact max test draws nothing: no entropy to record
    assert measure.steps.detection_power(z, [0.3], rng=7).rng_entropy is None


def test_detection_power_score_test_seeded():
    z = measure.steps.normalize_difficulty(RNG.normal(size=30))
    G = measure.steps.max_gap(z).width
    widths = [G / 2, min(1.0, 2 * G)]
    kw = dict(n_samples=(5, 50), a=0.3, test="score", n_resamples=12_000)
    r1 = measure.steps.detection_power(z, widths, rng=7, **kw).to_frame()
    # the blocks are seeded, not the workers: identical for n_jobs=1 and 2 (three blocks per cell;
    # joblib's threading backend keeps the test fast, the process backends run the same blocks)
    with parallel_config(backend="threading"):
        r3 = measure.steps.detection_power(z, widths, rng=7, n_jobs=2, **kw).to_frame()
    pd.testing.assert_frame_equal(r1, r3)
    # the rng rule on fewer draws: an int is SeedSequence(int); a SeedSequence passed twice repeats
    # the draws; a Generator is consumed (as in scipy), so a second call with it gives new draws
    small = dict(kw, n_resamples=2_000)
    i1 = measure.steps.detection_power(z, widths, rng=7, **small).to_frame()
    pd.testing.assert_frame_equal(i1, measure.steps.detection_power(z, widths, rng=7, **small).to_frame())
    ss = np.random.SeedSequence(7)
    pd.testing.assert_frame_equal(i1, measure.steps.detection_power(z, widths, rng=ss, **small).to_frame())
    pd.testing.assert_frame_equal(i1, measure.steps.detection_power(z, widths, rng=ss, **small).to_frame())
    gen = np.random.default_rng(3)
    g1 = measure.steps.detection_power(z, widths, rng=gen, **small).to_frame()
    g2 = measure.steps.detection_power(z, widths, rng=gen, **small).to_frame()
    assert not g1["power"].equals(g2["power"])
    # oracle: exact power with a constant baseline 0.5, where the sums are binomial:
    # post = Bin(k c, 0.8) + Bin(k (n - c), 0.5), pre = Bin(k n, 0.5); randomized at the critical value.
    # For w <= G no item is covered (c = 0): the exact power is alpha (Theorem 2.3 part 1); the
    # simulated power is computed from the draws, so it matches alpha only up to Monte Carlo error.
    n = z.size
    for w in widths:
        c, _ = measure.steps.covered_items_worst_case(z, w)
        assert (c == 0) == (w <= G)
        for k in (5, 50):
            post0 = stats.binom.pmf(np.arange(k * n + 1), k * n, 0.5)
            post1 = np.convolve(stats.binom.pmf(np.arange(k * c + 1), k * c, 0.8),
                                stats.binom.pmf(np.arange(k * (n - c) + 1), k * (n - c), 0.5))
            pre = post0
            d0 = np.convolve(post0, pre[::-1])  # support -kn..kn
            d1 = np.convolve(post1, pre[::-1])
            surv0 = 1 - np.cumsum(d0)
            t = int(np.flatnonzero(surv0 <= 0.05)[0])
            gamma = (0.05 - surv0[t]) / d0[t]
            exact = (1 - np.cumsum(d1))[t] + gamma * d1[t]
            if c == 0:
                assert exact == pytest.approx(0.05, abs=1e-9)
            mc = r1.loc[(r1["w"] == w) & (r1["k"] == k), "power"].iloc[0]
            assert abs(mc - exact) < 4 * np.sqrt(exact * (1 - exact) / 12_000) + 0.01
    with pytest.raises(BenchkitValueError, match="test='t' is not allowed"):
        measure.steps.detection_power(z, [0.1], test="t")
    with pytest.raises(BenchkitValueError, match="widths=0.0 is out of range"):
        measure.steps.detection_power(z, [0.0])
    with pytest.raises(BenchkitValueError, match="rng=-1 must be a non-negative integer"):
        measure.steps.detection_power(z, [0.1], rng=-1)
    with pytest.raises(BenchkitValueError, match="n_jobs=0 is not allowed"):
        measure.steps.detection_power(z, [0.1], test="score", n_jobs=0)


def test_gap_targets_and_what_if():
    z = np.array([0.0, 0.1, 0.15, 0.6, 0.7, 1.0])
    ids = [f"q{i}" for i in range(6)]
    gt = measure.steps.gap_targets(z, k=2, n_neighbors=2, items=ids)
    df = gt.to_frame()
    assert df["target"].iloc[0] == pytest.approx(0.375)  # gap 0.15 -> 0.6
    assert df["width"].iloc[0] == pytest.approx(0.45)
    ref = gt.references(1)
    assert list(ref.loc[ref["side"] == "lower", "item"]) == ["q2", "q1"]
    assert list(ref.loc[ref["side"] == "upper", "item"]) == ["q3", "q4"]
    assert ref["distance"].iloc[0] == pytest.approx(0.225)
    wi = measure.steps.what_if(z, [0.375])
    tab = wi.to_frame()
    assert tab.loc["after", "#"] == 7
    assert tab.loc["before", "Max Gap"] == pytest.approx(0.45)
    assert tab.loc["after", "Max Gap"] == pytest.approx(0.3)  # 0.7 -> 1.0 remains
    assert tab.loc["after", "DDM"] == pytest.approx(
        stats.wasserstein_distance(np.r_[z, 0.375], (np.arange(7) + 0.5) / 7), abs=1e-12)
    with pytest.raises(BenchkitValueError, match="items has 2 ids"):
        measure.steps.gap_targets(z, items=["a", "b"])
