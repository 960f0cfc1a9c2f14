"""Tests of the exact MPD kernel and benchkit.landscape.steps.mpd (paper 003, Sec. 3.3).

Oracle: scipy.spatial.distance.pdist (mean over unordered pairs of distinct points).
"""
import math

import numba
import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import pdist
from scipy.spatial.distance import squareform

import naive
from benchkit._kernels import mpd as K
from benchkit.landscape._mpd import FLOAT32_FROM
from benchkit.landscape.steps import benchmark_table
from benchkit.landscape.steps import model_table
from benchkit.landscape.steps import mpd
from benchkit.landscape.steps import pairwise_distance_sum
from benchkit.landscape.steps import points
from benchkit.landscape.steps import rank_table
from benchkit.landscape.steps import score_spread_table
from benchkit.landscape.steps import summary_table
from benchkit.landscape.steps import variant_table


@pytest.mark.parametrize("n", [2, 3, 7, 64, 513, 1100, 2500])
@pytest.mark.parametrize("block", [1, 5, 64, 512])
def test_exact_2d_matches_pdist(n, block):
    rng = np.random.default_rng(n * 1000 + block)
    P = rng.random((n, 2))
    ref = pdist(P).mean()
    got = mpd(P, block=block).mpd
    assert abs(got - ref) <= 1e-12 * ref


@pytest.mark.parametrize("dim", [1, 3, 5])
def test_exact_nd_matches_pdist(dim):
    rng = np.random.default_rng(dim)
    P = rng.normal(size=(701, dim)) * 10.0
    ref = pdist(P).mean()
    assert abs(mpd(P, block=128).mpd - ref) <= 1e-12 * ref


def test_exact_on_real_landscape_like_points_with_duplicates_and_scale():
    # points concentrated at P_top1 ~ 1, H_norm ~ 0 (many exact duplicates and tiny distances),
    # plus large-magnitude coordinates: exercises the FMA-path square root at d = 0 and d ~ 1e-30.
    rng = np.random.default_rng(5)
    P = np.vstack([np.tile([[1.0, 0.0]], (300, 1)), 1.0 - rng.random((300, 2)) * 1e-15,
                   rng.random((300, 2)), rng.random((101, 2)) * 1e6])
    ref = pdist(P).mean()
    assert abs(mpd(P).mpd - ref) <= 1e-12 * ref
    assert mpd(np.zeros((10, 2))).mpd == 0.0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kernel_partials_do_not_depend_on_thread_count(dtype):
    rng = np.random.default_rng(9)
    n = 3000
    x, y = rng.random(n).astype(dtype), rng.random(n).astype(dtype)
    starts, _ = K.tile_starts([1000, 7, 1993], 256)  # tiles never straddle the three segments
    assert set(np.diff(starts)) == {256, 232, 7, 201}
    assert starts[-1] == n
    bi, bj = K.tile_tasks(starts.size - 1, 1)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        a = K.pair_sums_tiles(x, y, starts, bi, bj)
        numba.set_num_threads(max(2, old) if numba.config.NUMBA_NUM_THREADS >= 2 else 1)
        b = K.pair_sums_tiles(x, y, starts, bi, bj)
    finally:
        numba.set_num_threads(old)
    c = K.pair_sums_tiles_serial(x, y, starts, bi, bj)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    ref = pdist(np.c_[x, y].astype(np.float64)).sum()
    # float32: each distance rounded to 24 bits (errors cancel over 4.5e6 pairs), summed in float64
    assert math.fsum(a) == pytest.approx(ref, rel=1e-13 if dtype == np.float64 else 1e-9)


@pytest.mark.parametrize("n", [FLOAT32_FROM, 30_000])
def test_float32_coordinates_within_1e_9_of_float64(n):
    # issue 25: MPD from float32 coordinates (centred), float64 accumulation; oracle: the float64
    # kernel on the same points (itself equal to pdist to 1e-13 above). Landscape points of random
    # logits, with a far offset that centring removes.
    rng = np.random.default_rng(n)
    P = points(rng.normal(size=(n, 4)) * rng.uniform(0.5, 6.0, (n, 1)), kind="logits").xy
    for Q in (P, P + [1e3, -2e3]):
        x, y = np.ascontiguousarray(Q[:, 0]), np.ascontiguousarray(Q[:, 1])
        starts, _ = K.tile_starts([n], 512)
        bi, bj = K.tile_tasks(starts.size - 1, 1)
        ref = math.fsum(K.pair_sums_tiles(x, y, starts, bi, bj).tolist())
        got = pairwise_distance_sum(Q)
        assert abs(got - ref) <= 1e-9 * ref


def test_weighted_kernel_against_numpy():
    rng = np.random.default_rng(3)
    n = 300
    P = rng.random((n, 2))
    D = squareform(pdist(P))
    w = rng.integers(0, 4, size=(5, n)).astype(float)
    bi, bj = K.tile_tasks(n, 64)
    parts = K.weighted_pair_sums(np.ascontiguousarray(P.T), w, bi, bj, 64)
    got = parts.sum(axis=0)
    ref = np.array([0.5 * (wr @ D @ wr) for wr in w])  # sum over i<j of w_i w_j d_ij
    np.testing.assert_allclose(got, ref, rtol=1e-13)
    # per task: the slow twin (tests/naive.py)
    np.testing.assert_allclose(parts, naive.weighted_pair_sums(P.T, w, bi, bj, 64), rtol=1e-13, atol=1e-12)


def test_landscape_points_input_and_degenerate_sizes():
    rng = np.random.default_rng(8)
    meta = pd.DataFrame({"model": np.repeat(["a", "b"], 150)})
    r = points(rng.normal(size=(300, 4)), kind="logits", meta=meta)
    assert mpd(r).mpd == pytest.approx(pdist(r.xy).mean(), rel=1e-12)
    assert mpd(r, by="model")["b"].mpd == pytest.approx(pdist(r.xy[150:]).mean(), rel=1e-12)
    one = mpd(np.zeros((1, 2)))
    assert math.isnan(one.mpd)
    assert one.n_pairs == 0
    assert mpd(np.array([[0.0, 0.0], [3.0, 4.0]])).mpd == 5.0


def test_pairwise_distance_sum():
    P = np.array([[0.0, 0.0], [3.0, 4.0], [0.0, 4.0]])
    assert pairwise_distance_sum(P) == pytest.approx(5 + 4 + 3)  # hand-worked 3-4-5 triangle


def test_grouped_mpd_matches_pdist_per_group():
    rng = np.random.default_rng(11)
    df = pd.DataFrame({"model": rng.choice(["a", "b", "c"], 900),
                       "benchmark": rng.choice(["ARC", "MMLU"], 900),
                       "p_top1": rng.random(900), "h_norm": rng.random(900)})
    res = mpd(df, by=["model", "benchmark"])
    t = res.to_frame()
    assert len(t) == 6
    for (m, b), g in df.groupby(["model", "benchmark"]):
        assert res[(m, b)].mpd == pytest.approx(pdist(g[["p_top1", "h_norm"]].to_numpy()).mean(),
                                                rel=1e-12)
    assert mpd(df, by="model")["a"].n_points == (df.model == "a").sum()


def test_pooled_differs_from_mean_of_per_model():
    # Sec. 3.3: pooled MPD includes cross-model pairs, so it differs from the per-model mean.
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"model": np.repeat(["a", "b"], 200),
                       "p_top1": np.r_[rng.random(200) * 0.1, 0.9 + rng.random(200) * 0.1],
                       "h_norm": rng.random(400)})
    pooled = mpd(df).mpd
    per = mpd(df, by="model").to_frame()["mpd"].mean()
    assert pooled > per + 0.1


def test_bootstrap_is_seeded_and_sensible():
    rng = np.random.default_rng(4)
    P = rng.random((400, 2))
    r1 = mpd(P, confidence_level=0.9, n_resamples=300, rng=7)
    r2 = mpd(P, confidence_level=0.9, n_resamples=300, rng=7)
    np.testing.assert_array_equal(r1.boot, r2.boot)
    assert r1.ci_low < r1.mpd < r1.ci_high
    assert r1.confidence_level == 0.9
    # replicate mean ~ MPD (self-copy pairs excluded), SD close to the U-statistic SE
    # from the Hoeffding projection: Var(U) ~ 4 Var(h1) / N, h1(x_i) = mean distance to the others.
    D = squareform(pdist(P))
    h1 = D.sum(axis=1) / (len(P) - 1)
    se_u = math.sqrt(4 * h1.var() / len(P))
    assert abs(r1.boot.mean() - r1.mpd) < 0.5 * se_u
    assert 0.75 < r1.se / se_u < 1.3
    r3 = mpd(P, confidence_level=0.9, n_resamples=300, rng=8)
    assert not np.array_equal(r1.boot, r3.boot)
    # distinct cluster labels == point bootstrap; grouped points move together otherwise
    r4 = mpd(P, confidence_level=0.9, n_resamples=300, rng=7, cluster=np.arange(400) + 10)
    np.testing.assert_array_equal(r1.boot, r4.boot)
    # the same blocks of 64 replicates whatever the worker count or backend
    from joblib import parallel_config

    with parallel_config(backend="threading"):
        r5 = mpd(P, confidence_level=0.9, n_resamples=300, rng=7, n_jobs=2)
    np.testing.assert_array_equal(r1.boot, r5.boot)
    # rng rule (benchkit._random): SeedSequence(7) == 7; a Generator is consumed
    r6 = mpd(P, confidence_level=0.9, n_resamples=300, rng=np.random.SeedSequence(7))
    np.testing.assert_array_equal(r1.boot, r6.boot)
    g = np.random.default_rng(3)
    g1 = mpd(P, confidence_level=0.9, n_resamples=100, rng=g)
    g2 = mpd(P, confidence_level=0.9, n_resamples=100, rng=g)
    assert not np.array_equal(g1.boot, g2.boot)


def test_rng_entropy_repeats_the_run_and_int_seeds_are_unchanged():
    # rule 5 (benchkit._random): the result records the root's entropy; rng=entropy repeats the run
    P = np.random.default_rng(4).random((120, 2))
    df = pd.DataFrame({"g": np.repeat(["a", "b"], 60), "p_top1": P[:, 0], "h_norm": P[:, 1]})
    first = mpd(P, confidence_level=0.9, n_resamples=130, rng=np.random.default_rng(11))
    assert isinstance(first.rng_entropy, int)
    again = mpd(P, confidence_level=0.9, n_resamples=130, rng=first.rng_entropy)
    np.testing.assert_array_equal(first.boot, again.boot)
    assert (first.ci_low, first.ci_high, first.se) == (again.ci_low, again.ci_high, again.se)
    grouped = mpd(df, by="g", confidence_level=0.9, n_resamples=70, rng=None)
    assert grouped.rng_entropy == grouped["a"].rng_entropy == grouped["b"].rng_entropy
    regrouped = mpd(df, by="g", confidence_level=0.9, n_resamples=70, rng=grouped.rng_entropy)
    for k in ("a", "b"):
        np.testing.assert_array_equal(grouped[k].boot, regrouped[k].boot)
    sampled = mpd(P, method="sampled", n_pairs=5000, rng=np.random.default_rng(2))
    assert mpd(P, method="sampled", n_pairs=5000, rng=sampled.rng_entropy).mpd == sampled.mpd
    # an int rng gives the numbers it gave before rng_entropy was recorded (printed by the code
    # of commit d7d702c with the same calls): the root copies SeedSequence(7)
    r = mpd(P, confidence_level=0.9, n_resamples=130, rng=7)
    assert r.rng_entropy == 7
    assert (r.ci_low, r.ci_high, r.se) == (0.48681299849071297, 0.5340289584187388, 0.013619936764430664)
    assert float(r.boot.sum()) == 66.36215524090764
    g = mpd(df, by="g", confidence_level=0.9, n_resamples=70, rng=7)
    assert (g["a"].ci_low, g["b"].ci_low) == (0.46919647715662427, 0.4788228756087257)
    s = mpd(P, method="sampled", n_pairs=5000, rng=7)
    assert (s.mpd, s.se) == (0.5130737350759761, 0.003471285760705384)


def test_cluster_bootstrap_replicate_by_hand():
    # 2 clusters of 2 points; a replicate drawing cluster 0 twice has points {p0,p1,p0,p1}: pairs of
    # distinct points: (p0,p1) x 4 -> MPD* = d01. Drawing one of each -> all 6 pairs of 4 points.
    P = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [0.0, 5.0]])
    r = mpd(P, confidence_level=0.5, n_resamples=400, rng=1, cluster=[0, 0, 1, 1])
    vals = set(np.round(r.boot, 12))
    D = squareform(pdist(P))
    assert vals <= {round(D[0, 1], 12), round(D[2, 3], 12), round(pdist(P).mean(), 12)}
    assert len(vals) == 3


def test_sampled_estimate_is_unbiased_with_correct_se():
    rng = np.random.default_rng(6)
    P = rng.random((2000, 2)) ** 3
    exact = pdist(P).mean()
    z = []
    for s in range(40):
        r = mpd(P, method="sampled", n_pairs=20_000, rng=s)
        assert r.method == "sampled"
        assert r.n_sampled == 20_000
        z.append((r.mpd - exact) / r.se)
    z = np.array(z)
    assert abs(z.mean()) < 3 / math.sqrt(40)  # unbiased
    assert 0.6 < z.std(ddof=1) < 1.4  # SE calibrated
    r = mpd(P, method="sampled", n_pairs=50_000, rng=1, confidence_level=0.95)
    assert r.ci_low < r.mpd < r.ci_high
    from joblib import parallel_config

    big = mpd(P, method="sampled", n_pairs=(1 << 20) + 5000, rng=2)  # two blocks of pairs
    with parallel_config(backend="threading"):
        big2 = mpd(P, method="sampled", n_pairs=(1 << 20) + 5000, rng=2, n_jobs=2)
    assert (big.mpd, big.se) == (big2.mpd, big2.se)


def _frame():
    rng = np.random.default_rng(12)
    rows = []
    for bench, spread in [("ARC", 0.2), ("MMLU", 1.0)]:
        for model in ["g", "l", "q"]:
            for variant in ["baseline", "mask", "A bias"]:
                n = 60
                L = rng.normal(scale=4 * spread + (variant == "mask"), size=(n, 4))
                r = points(L, kind="logits", answer=rng.integers(0, 4, n))
                f = r.to_frame()
                f["benchmark"], f["model"], f["variant"], f["item"] = bench, model, variant, range(n)
                rows.append(f)
    return pd.concat(rows, ignore_index=True)


def test_tables_layout_and_values():
    f = _frame()
    base = f[f.variant == "baseline"]
    t1 = benchmark_table(base)
    assert list(t1.columns) == ["points", "mean_h_norm", "mpd"]
    g = base[base.benchmark == "ARC"]
    assert t1.loc["ARC", "mpd"] == pytest.approx(pdist(g[["p_top1", "h_norm"]].to_numpy()).mean(),
                                                 rel=1e-12)
    assert t1.loc["ARC", "mean_h_norm"] == pytest.approx(g.h_norm.mean())
    t4 = variant_table(f, variants=["baseline", "mask", "A bias"])
    assert list(t4.columns) == ["baseline", "mask", "mask delta", "A bias", "A bias delta"]
    assert t4.loc["MMLU", "mask delta"] == pytest.approx(t4.loc["MMLU", "mask"] - t4.loc["MMLU", "baseline"])
    t3 = variant_table(f, stat="accuracy")
    assert t3.loc["ARC", "baseline"] == pytest.approx(100 * base[base.benchmark == "ARC"].correct.mean())
    t7 = model_table(base, models=["q", "g", "l"])
    assert list(t7.index) == ["q", "g", "l"]
    assert list(t7.columns) == ["ARC", "MMLU"]
    gl = base[(base.model == "l") & (base.benchmark == "MMLU")]
    assert t7.loc["l", "MMLU"] == pytest.approx(pdist(gl[["p_top1", "h_norm"]].to_numpy()).mean(),
                                                rel=1e-12)
    t11 = model_table(base, models=["l", "g"], orient="benchmark")
    assert list(t11.columns) == ["l", "g"]
    assert list(t11.index) == ["ARC", "MMLU"]
    t8 = rank_table(base)
    assert list(t8.columns) == ["1st", "2nd"]
    for m in "glq":
        order = t7.loc[m].sort_values(ascending=False).index.tolist()
        assert t8.loc[m].tolist() == order
    t13 = summary_table(f, by=["model", "variant"])
    assert {"n", "accuracy", "mean_h_norm", "mean_p_top1", "mpd"} <= set(t13.columns)


def test_score_spread_table_hand_case():
    # App. B / Table 9: spread = max - min accuracy over the score values, in points.
    rows = []
    acc = {"score_bias_1/10": [1, 1, 0, 0], "score_bias": [1, 1, 1, 0], "score_bias_100/100": [1, 0, 0, 0]}
    for v, corr in acc.items():
        for i, c in enumerate(corr):
            rows.append({"model": "m", "benchmark": "b", "variant": v, "correct": bool(c),
                         "item": i, "p_top1": 0.5, "h_norm": 0.5})
    rows.append({"model": "m2", "benchmark": "b", "variant": "score_bias", "correct": True,
                 "item": 0, "p_top1": 0.5, "h_norm": 0.5})
    t = score_spread_table(pd.DataFrame(rows))
    assert list(t.columns) == ["score_bias_1/10", "score_bias", "score_bias_100/100", "complete",
                               "spread_pp"]
    assert t.loc[("m", "b"), "spread_pp"] == pytest.approx(75.0 - 25.0)
    assert t.loc[("m", "b"), "complete"]
    assert not t.loc[("m2", "b"), "complete"]
    with pytest.raises(ValueError, match=r"no rows with variant in"):
        score_spread_table(pd.DataFrame(rows), variants=["x"])


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        (([1.0, 2.0],), {}, r"got a 1-D array"),
        ((np.array([[0.0, np.nan]]),), {}, r"points\[0, 1\]=nan must be finite"),
        ((np.zeros((3, 2)),), dict(method="approx"), r"method='approx' is not allowed"),
        ((np.zeros((3, 2)),), dict(by="model"), r"by='model' needs a table"),
        ((np.zeros((3, 2)),), dict(confidence_level=1.5), r"confidence_level=1.5 is out of range"),
        ((np.zeros((3, 2)),), dict(cluster="item", confidence_level=0.9), r"cluster='item' names a column"),
        ((np.zeros((3, 2)),), dict(cluster=[1, 2], confidence_level=0.9), r"one label per point \(3\)"),
        ((pd.DataFrame({"p_top1": [0.1]}),), {}, r"missing required column\(s\) 'h_norm'"),
        ((np.zeros((3, 2)),), dict(rng=-1, confidence_level=0.9), r"rng=-1 must be a non-negative integer"),
    ],
)
def test_errors(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        mpd(*args, **kwargs)
