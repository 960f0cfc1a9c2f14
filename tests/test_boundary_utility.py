"""Measurement utility (BSDProbe Sec. 4.4, App. J): selectors, NDR, tau_b, the experiment."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.stats
from scipy import optimize
from scipy.cluster.vq import kmeans2

from benchkit._clustering import _CorrelationDistance
from benchkit._clustering import _EuclideanDistance
from benchkit._clustering import _lloyd
from benchkit.boundary import measure_utility
from benchkit.boundary._selection import _allocate
from benchkit.boundary.steps import ndr
from benchkit.boundary.steps import profiles
from benchkit.boundary.steps import select_bsdprobe
from benchkit.boundary.steps import subset_utility
from benchkit.boundary.steps import utility_table
from benchkit.simulate import repeated_sampling
from benchkit.stats import kendall_tau_b
from benchkit.subsets import estimate_accuracy
from benchkit.subsets import irt_abilities
from benchkit.subsets import kmeans
from benchkit.subsets import kmedoids
from benchkit.subsets import select_anchor_points
from benchkit.subsets import select_random
from benchkit.subsets import select_tinybenchmarks
from naive import correlation_distance
from naive import kmedoids_dense


# ------------------------------------------------------------------------------------------------
# Kendall tau_b
# ------------------------------------------------------------------------------------------------
def test_kendall_tau_b_matches_scipy_with_ties():
    # oracle: scipy.stats.kendalltau(variant="b"), row by row, on small integer scores (many ties)
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, (300, 6)).astype(float)
    y = rng.integers(0, 5, (300, 6)).astype(float)
    got = kendall_tau_b(x, y)
    want = np.array([scipy.stats.kendalltau(a, b, variant="b").statistic for a, b in zip(x, y)])
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    assert np.max(np.abs(got[ok] - want[ok])) < 1e-12
    # broadcasting one full ranking against many subset rankings
    full = np.array([0.1, 0.3, 0.2, 0.5, 0.9, 0.7])
    got = kendall_tau_b(x, full)
    want = np.array([scipy.stats.kendalltau(a, full).statistic for a in x])
    ok = ~np.isnan(want)
    assert np.max(np.abs(got[ok] - want[ok])) < 1e-12


def test_kendall_tau_b_paper_values_and_constant():
    # hand-worked: 6 models, one tied pair in the subset -> 14 / sqrt(15 * 14) = 0.966 (the value
    # reported for GSM8K in Table 3); two discordant pairs -> 11/15 = 0.733 (Tables 3, 14)
    full = np.arange(6.0)
    assert kendall_tau_b([0, 1, 2, 3, 4, 4], full) == pytest.approx(14 / np.sqrt(15 * 14))
    assert round(14 / np.sqrt(210), 3) == 0.966
    assert kendall_tau_b([1, 0, 3, 2, 4, 5], full) == pytest.approx(11 / 15)
    assert np.isnan(kendall_tau_b([0.5] * 6, full))
    with pytest.raises(ValueError, match="same number of objects"):
        kendall_tau_b([1, 2, 3], full)
    with pytest.raises(ValueError, match="at least 2 objects"):
        kendall_tau_b([1.0], [2.0])


# ------------------------------------------------------------------------------------------------
# NDR (Eq. 9)
# ------------------------------------------------------------------------------------------------
def _ndr_loop(sub, full):
    num = sum(max(0.0, sub[i + 1] - sub[i]) for i in range(len(sub) - 1))
    den = sum(abs(full[i + 1] - full[i]) for i in range(len(full) - 1))
    return num / den


def test_ndr_hand_case_and_loop_oracle():
    # hand-worked Eq. 9: full gaps |0.2|+|-0.1|+|0.3| = 0.6; subset positive gaps 0.4+0+0.4 = 0.8
    full = [0.2, 0.4, 0.3, 0.6]
    assert ndr([0.1, 0.5, 0.5, 0.9], full) == pytest.approx(0.8 / 0.6)
    # a subset identical to the full set in accuracy order has NDR 1
    assert ndr([0.1, 0.2, 0.4], [0.1, 0.2, 0.4]) == pytest.approx(1.0)
    rng = np.random.default_rng(1)
    S = rng.random((50, 6))
    F = rng.random(6)
    got = ndr(S, F)
    assert np.allclose(got, [_ndr_loop(s, F) for s in S], rtol=0, atol=1e-14)
    assert np.isnan(ndr([0.1, 0.2], [0.3, 0.3]))  # zero denominator: undefined
    with pytest.raises(ValueError, match="must end in the 3 reference models"):
        ndr([0.1, 0.2], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="at least 2 reference models"):
        ndr([0.1], [0.2])


# ------------------------------------------------------------------------------------------------
# clustering
# ------------------------------------------------------------------------------------------------
def test_lloyd_matches_scipy_kmeans2_from_same_centers():
    # oracle: scipy.cluster.vq.kmeans2 with minit="matrix" runs the same Lloyd iterations
    rng = np.random.default_rng(2)
    X = np.concatenate([rng.normal(c, 0.4, (60, 2)) for c in ((0, 0), (3, 0), (0, 3), (3, 3))])
    C0 = X[rng.choice(X.shape[0], 4, replace=False)]
    C, labels, _, _, conv = _lloyd(X, C0, 300, 0.0)
    C_sp, lab_sp = kmeans2(X, C0.copy(), iter=300, minit="matrix", missing="warn")
    assert conv
    assert np.array_equal(labels, lab_sp)
    assert np.allclose(C, C_sp, atol=1e-12)


def test_kmeans_fixed_point_and_reproducible():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3))
    r1 = kmeans(X, 7, rng=5)
    r2 = kmeans(X, 7, rng=5)
    assert np.array_equal(r1.labels, r2.labels)
    assert np.array_equal(r1.centers, r2.centers)
    # Lloyd fixed point: each center is its cluster mean, each point at its nearest center
    for c in range(7):
        assert np.allclose(r1.centers[c], X[r1.labels == c].mean(0))
    d = ((X[:, None, :] - r1.centers[None]) ** 2).sum(-1)
    assert np.array_equal(r1.labels, d.argmin(1))
    assert r1.to_frame()["size"].sum() == 200


def test_distance_helpers_match_dense_oracles():
    rng = np.random.default_rng(4)
    X = rng.random((40, 6))
    X[3] = 0.5  # constant pattern: r undefined
    X[7] = 1.0
    D = correlation_distance(X)
    cd = _CorrelationDistance(X)
    idx = np.array([0, 3, 10])
    assert np.allclose(cd.to(idx), D[:, idx], atol=1e-12)
    members = np.array([1, 3, 5, 7, 20])
    assert np.allclose(cd.within_sums(members), D[np.ix_(members, members)].sum(1), atol=1e-12)
    E = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    ed = _EuclideanDistance(X)
    assert np.allclose(ed.to(idx), E[:, idx], atol=1e-12)
    assert np.allclose(ed.within_sums(members, chunk=2), E[np.ix_(members, members)].sum(1),
                       atol=1e-6)


@pytest.mark.parametrize("metric", ["correlation", "euclidean"])
def test_kmedoids_fixed_point_by_brute_force(metric):
    rng = np.random.default_rng(5)
    X = rng.random((80, 5))
    res = kmedoids(X, 6, metric=metric, rng=1)
    D = correlation_distance(X) if metric == "correlation" else np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    assert res.converged
    # every object with its nearest medoid (up to float ties)
    dm = D[:, res.medoids]
    assert np.allclose(dm[np.arange(80), res.labels], dm.min(1), atol=1e-9)
    # every medoid minimizes its cluster's distance sum
    for c, m in enumerate(res.medoids):
        members = np.flatnonzero(res.labels == c)
        sums = D[np.ix_(members, members)].sum(1)
        assert sums[members == m][0] <= sums.min() + 1e-9
    assert res.cost == pytest.approx(dm.min(1).sum(), abs=1e-9)


def test_kmedoids_global_optimum_on_separated_data():
    # brute force over all C(12, 2) medoid pairs on two well-separated groups
    rng = np.random.default_rng(6)
    X = np.concatenate([rng.normal(0, 0.1, (6, 2)), rng.normal(5, 0.1, (6, 2))])
    E = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    best = min(itertools.combinations(range(12), 2), key=lambda p: E[:, p].min(1).sum())
    res = kmedoids(X, 2, metric="euclidean", rng=0)
    assert set(res.medoids.tolist()) == set(best)


# ------------------------------------------------------------------------------------------------
# baselines
# ------------------------------------------------------------------------------------------------
def test_select_random_uniform_and_seeded():
    a = select_random(50, 10, rng=3)
    b = select_random(50, 10, rng=3)
    assert np.array_equal(a.indices, b.indices)
    assert np.unique(a.indices).size == 10
    assert np.allclose(a.weights, 0.1)
    # inclusion frequencies are uniform: chi-square over 2000 draws (seeded, deterministic)
    rng = np.random.default_rng(0)
    counts = np.zeros(20)
    for _ in range(2000):
        counts[select_random(20, 5, rng=rng).indices] += 1
    assert scipy.stats.chisquare(counts).pvalue > 0.01
    with pytest.raises(ValueError, match="size=60 exceeds the candidate pool of 50"):
        select_random(50, 60)


def test_anchor_points_weights_are_cluster_shares():
    rng = np.random.default_rng(7)
    C = rng.random((120, 6))
    s = select_anchor_points(C, 15, rng=2)
    lab = s.info["labels"]
    assert np.allclose(s.weights, np.bincount(lab, minlength=15) / 120)
    assert s.weights.sum() == pytest.approx(1.0)
    assert np.array_equal(s.indices, s.info["clustering"].medoids)
    assert np.unique(s.indices).size == 15
    # the weighted anchor estimate of the mean equals the cluster-share weighting by hand
    Y = C[s.indices]
    assert np.allclose(estimate_accuracy(Y, s, estimator="weighted"),
                       (np.bincount(lab, minlength=15)[:, None] * Y).sum(0) / 120)
    with pytest.raises(ValueError, match="at least 2 models"):
        select_anchor_points(C[:, :1], 5)
    bad = C.copy()
    bad[4, 2] = np.nan
    with pytest.raises(ValueError, match="found NaN at row 4, column 2"):
        select_anchor_points(bad, 5)


def test_tinybenchmarks_nearest_to_centroid_and_duplicates():
    rng = np.random.default_rng(8)
    ability = np.linspace(-2, 2, 10)
    b = rng.normal(0, 1.2, 300)
    Y = (rng.random((300, 10)) < 1 / (1 + np.exp(-(ability[None] - b[:, None])))).astype(float)
    s = select_tinybenchmarks(Y, 25, rng=1)
    fit = s.info["fit"]
    E = np.column_stack([fit.discrimination, fit.difficulty])
    km = s.info["clustering"]
    d = np.sqrt(((E[:, None] - km.centers[None]) ** 2).sum(-1))
    assert np.unique(s.indices).size == 25
    # oracle: per cluster in order, the nearest item to its centroid not taken by an earlier one
    taken = set()
    for c in range(25):
        order = np.argsort(d[:, c], kind="stable")
        first = next(int(i) for i in order if int(i) not in taken)
        assert d[s.indices[c], c] == pytest.approx(d[first, c], abs=1e-12)
        taken.add(int(s.indices[c]))
    assert np.allclose(s.weights, np.bincount(km.labels, minlength=25) / 300)
    # 1PL on 10 models: at most 11 distinct difficulties -> coinciding centroids, still 25 items
    s1 = select_tinybenchmarks(Y, 25, irt="1pl", rng=1)
    assert np.unique(s1.indices).size == 25
    assert s1.weights.sum() == pytest.approx(1.0)
    # reuse of a fit: same subset
    s2 = select_tinybenchmarks(None, 25, fit=fit, rng=1)
    assert np.array_equal(s.indices, s2.indices)
    with pytest.raises(ValueError, match="0/1 responses"):
        select_tinybenchmarks(Y * 0.5, 5)


def test_irt_abilities_match_scipy_optimizer():
    rng = np.random.default_rng(9)
    a = rng.uniform(0.5, 2, 30)
    b = rng.normal(0, 1, 30)
    Y = (rng.random((30, 4)) < 0.6).astype(float)
    Y[:, 3] = 1.0  # all correct: finite thanks to the prior
    got = irt_abilities(Y, a, b, prior_sd=1.5)

    def negpost(t, y):
        z = a * (t - b)
        return -(y * -np.logaddexp(0, -z) + (1 - y) * -np.logaddexp(0, z)).sum() + t**2 / (2 * 1.5**2)

    for j in range(4):
        want = optimize.minimize_scalar(negpost, args=(Y[:, j],), bounds=(-10, 10),
                                        method="bounded", options={"xatol": 1e-12}).x
        assert got[j] == pytest.approx(want, abs=1e-6)


def test_pirt_estimator_on_full_pool_is_exact_accuracy():
    rng = np.random.default_rng(10)
    Y = (rng.random((80, 6)) < np.linspace(0.2, 0.9, 6)).astype(float)
    s = select_tinybenchmarks(Y, 80, rng=0)  # every item selected: nothing to predict
    est = estimate_accuracy(Y[s.indices], s, estimator="pirt")
    assert np.allclose(est, Y.mean(0))
    s = select_tinybenchmarks(Y, 20, rng=0)
    est = estimate_accuracy(Y[s.indices], s, estimator="pirt")
    assert np.all((est > 0) & (est < 1))
    with pytest.raises(ValueError, match="needs a subset from select_tinybenchmarks"):
        estimate_accuracy(Y[:5], select_random(80, 5, rng=0), estimator="pirt")


def _subset_calls():
    """(name, call(rng) -> result, what to compare, the int-seeded value before rng_entropy).

    The expected values were printed by the code of commit d7d702c, before the selectors
    recorded ``rng_entropy``: an int rng must still give them bit for bit."""
    rs = np.random.default_rng(0)
    X = rs.normal(size=(40, 3))
    C = rs.random((40, 5))
    Y = (rs.random((60, 12)) < rs.random((60, 1))).astype(float)
    return [
        ("kmeans", lambda r: kmeans(X, 4, rng=r), lambda res: res.labels.tolist(), 5,
         [3, 3, 2, 1, 1, 1, 2, 3, 2, 1, 1, 2, 0, 3, 2, 0, 2, 0, 0, 1, 3, 1, 2, 0, 3, 0, 2, 1,
          0, 3, 2, 0, 1, 0, 3, 0, 1, 1, 3, 2]),
        ("kmedoids", lambda r: kmedoids(X, 4, rng=r), lambda res: res.medoids.tolist(), 5,
         [18, 0, 2, 7]),
        ("select_random", lambda r: select_random(50, 6, rng=r), lambda s: s.indices.tolist(), 3,
         [3, 48, 11, 36, 8, 40]),
        ("select_anchor_points", lambda r: select_anchor_points(C, 5, rng=r),
         lambda s: s.indices.tolist(), 2, [15, 32, 30, 0, 18]),
        ("select_tinybenchmarks", lambda r: select_tinybenchmarks(Y, 6, rng=r),
         lambda s: s.indices.tolist(), 1, [46, 17, 40, 13, 29, 18]),
    ]


@pytest.mark.parametrize("case", _subset_calls(), ids=lambda c: c[0])
def test_subset_selectors_record_rng_entropy(case):
    _, call, value, seed, before = case
    res = call(seed)
    assert value(res) == before  # an int rng: the same selection as before the change
    assert res.rng_entropy == seed
    first = call(np.random.default_rng(123))  # a Generator: its root gets an int entropy
    assert isinstance(first.rng_entropy, int)
    again = call(first.rng_entropy)
    assert value(again) == value(first)
    assert again.rng_entropy == first.rng_entropy
    fresh = call(None)  # fresh OS entropy, recorded, so even this run can be repeated
    assert value(call(fresh.rng_entropy)) == value(fresh)


# ------------------------------------------------------------------------------------------------
# BSDProbe selection
# ------------------------------------------------------------------------------------------------
def test_allocate_hand_cases():
    # equal shares 3/3/3, the middle stratum holds 1 -> its excess goes to the others
    assert _allocate(9, np.array([5, 1, 10]), np.ones(3), "equal").tolist() == [4, 1, 4]
    # remainder to the larger mass: 10 over 3 strata -> 3/3/3 + 1 to the heaviest
    assert _allocate(10, np.array([9, 9, 9]), np.array([1.0, 5.0, 2.0]), "equal").tolist() == [3, 4, 3]
    # proportional by mass
    assert _allocate(8, np.array([9, 9]), np.array([1.0, 3.0]), "proportional").tolist() == [2, 6]
    # capacity short of size: everything
    assert _allocate(9, np.array([2, 0, 3]), np.ones(3), "equal").tolist() == [2, 0, 3]


@pytest.fixture(scope="module")
def sim():
    s = repeated_sampling(n_items=500, T=10, rng=11)
    rs = s.to_response_set()
    K = rs.counts().K
    return s, rs, K, profiles(K, 10)


def test_select_bsdprobe_screens_and_stratifies(sim):
    _, _, K, prof = sim
    assert prof.flagged.any()
    wt = (1 - prof.w) * prof.v
    sub = select_bsdprobe(prof, 40, rng=0)
    idx = sub.indices
    assert np.unique(idx).size == 40
    assert not prof.flagged[idx].any()          # order screening
    assert np.all(wt[idx] > 0)                  # sampling weights (1-w)v: zero weight never drawn
    n = K.shape[1]
    strata = np.minimum((prof.x[idx] * (n - 1)).astype(int), n - 2)
    assert np.array_equal(strata, sub.groups)   # strata = x-intervals between adjacent models
    assert np.array_equal(np.bincount(sub.groups, minlength=n - 1), sub.info["allocation"])
    caps = sub.info["strata_capacity"]
    assert np.array_equal(sub.info["allocation"], _allocate(40, caps, np.ones(n - 1), "equal"))
    assert sub.info["n_screened"] == int(prof.flagged.sum())
    # unscreened variant may pick flagged items
    assert select_bsdprobe(prof, 40, rng=0, screen=False).info["n_screened"] == 0
    with pytest.raises(ValueError, match="left after order screening"):
        select_bsdprobe(prof, 10_000)
    with pytest.raises(TypeError, match="must be a ProfileResult"):
        select_bsdprobe(K, 10)


def test_select_bsdprobe_inclusion_follows_weights(sim):
    # one item per draw within one stratum: inclusion frequency proportional to (1-w)v
    _, _, _, prof = sim
    wt = np.nan_to_num((1 - prof.w) * prof.v)
    elig = (~prof.flagged) & (wt > 0)
    st = np.minimum((prof.x * 5).astype(int), 4)
    pool = np.flatnonzero(elig & (st == 2))[:8]
    rng = np.random.default_rng(1)
    counts = np.zeros(prof.x.size)
    for _ in range(4000):
        counts[select_bsdprobe(prof, 1, rng=rng, pool=pool).indices] += 1
    p = wt[pool] / wt[pool].sum()
    assert scipy.stats.chisquare(counts[pool], 4000 * p).pvalue > 0.01


def test_select_bsdprobe_fills_with_zero_weight_items(sim):
    _, _, _, prof = sim
    wt = np.nan_to_num((1 - prof.w) * prof.v)
    elig = ~prof.flagged
    pool = np.flatnonzero(elig & (wt > 0))[:5].tolist() + np.flatnonzero(elig & (wt == 0))[:10].tolist()
    sub = select_bsdprobe(prof, 8, rng=0, pool=pool)
    assert sub.info["n_filled"] == 3
    assert (sub.groups == -1).sum() == 3
    assert set(np.flatnonzero(elig & (wt > 0))[:5]) <= set(sub.indices.tolist())


# ------------------------------------------------------------------------------------------------
# the experiment
# ------------------------------------------------------------------------------------------------
def _exp(sim, **kw):
    _, rs, K, prof = sim
    R = rs.binary()
    opts = dict(profiles={"sim": prof}, sizes=(20,), n_repeats=6, rng=3)
    opts.update(kw)
    return subset_utility(R, **opts)


def test_subset_utility_worker_count_and_method_independence(sim):
    r1 = _exp(sim)
    r2 = _exp(sim, n_jobs=2)
    assert r1.methods == ("Random", "TinyBenchmarks", "Anchor Points", "Bayesian", "PSN-IRT",
                          "BSDProbe(sim)")
    assert np.array_equal(r1.scores, r2.scores, equal_nan=True)
    for a in range(6):
        assert np.array_equal(r1.selections[a][0], r2.selections[a][0])
    # keyed seeds: Random alone, or with another size, draws the same subsets
    r3 = _exp(sim, methods=("random",), profiles=None, sizes=(10, 20))
    assert np.array_equal(r3.selections[0][1], r1.selections[0][0])
    # scores are the reference models' plain accuracies on the selected rows (Eq. 9)
    R = sim[1].binary()
    rows = r1.selections[5][0][2]
    assert np.allclose(r1.scores[5, 0, 2], R[rows].mean(0))
    assert np.allclose(r1.ndr[5, 0, 2], ndr(R[rows].mean(0), R.mean(0)))
    assert r1.tau_b[5, 0, 2] == pytest.approx(
        scipy.stats.kendalltau(R[rows].mean(0), R.mean(0)).statistic)
    df = r1.to_frame()
    assert len(df) == 6 * 6
    assert set(df.columns) == {"method", "size", "repeat", "ndr", "tau_b"}


def test_bsdprobe_beats_random_on_simulated_ladder():
    # known truth: monotone logistic trajectories along a 6-model ladder (plus planted flat and
    # non-monotone items); at small sizes the profile-guided subset should keep the full ranking
    # and spread scores better than uniform sampling. Seeded; margins well inside the observed gap.
    s = repeated_sampling(n_items=800, T=10, rng=21)
    rs = s.to_response_set()
    res = measure_utility(rs, reference_axis=list(rs.model_ids), sizes=(15, 30),
                          methods=("random",), n_repeats=30, rng=0, name="sim")
    summ = res.summary_frame().set_index(["method", "size"])
    for size in (15, 30):
        bsd = summ.loc[("BSDProbe(reference)", size)]
        rnd = summ.loc[("Random", size)]
        assert bsd["ndr_mean"] > rnd["ndr_mean"] + 0.1  # observed +0.19..+0.43 over 4 seeds
        assert bsd["tau_b_mean"] > rnd["tau_b_mean"] + 0.025  # observed +0.038..+0.13
    # the truth: the ladder's generating accuracies increase, and the full benchmark agrees
    assert np.all(np.diff(s.truth.models["p_mean"].to_numpy()) > 0)


def test_measurement_utility_axes_and_tables(sim):
    _, rs, _, _ = sim
    models = list(rs.model_ids)
    res = measure_utility(rs, reference_axis=models[::-1],  # empirical order restores it
                          selection_axes={"small": models[:4], "all": models},
                          methods=("random", "anchor_points"), sizes=(20,), n_repeats=4,
                          estimator="method", name="sim")
    assert list(res.reference_models) == models
    assert res.methods == ("Random", "Anchor Points", "BSDProbe(small)", "BSDProbe(all)")
    tab = utility_table({"sim": res, "sim2": res}, metric="tau_b")
    assert tab.shape == (2, 8)
    summ = res.summary_frame()
    assert tab.loc["sim", ("Anchor Points", "mean")] == pytest.approx(
        summ.set_index("method").loc["Anchor Points", "tau_b_mean"])
    txt = utility_table(res, formatted=True)
    m, sd = res.ndr[0, 0].mean(), res.ndr[0, 0].std(ddof=1)
    assert txt.loc["sim", "Random"] == f"{m:.2f} ± {sd:.2f}"
    with pytest.raises(ValueError, match="size=7 was not run"):
        utility_table(res, size=7)


def test_subset_utility_errors(sim):
    _, rs, _, prof = sim
    R = rs.binary()
    with pytest.raises(ValueError, match="methods='psn' is not allowed"):
        subset_utility(R, methods=("psn",))
    with pytest.raises(ValueError, match="reference scores must lie in"):
        subset_utility(R * 2)
    with pytest.raises(ValueError, match="profiles have 500 rows but reference has 10"):
        subset_utility(R[:10], profiles=prof, methods=())
    with pytest.raises(ValueError, match="fewer than size=600"):
        subset_utility(R, sizes=(600,))
    with pytest.raises(ValueError, match="at least 2 models"):
        subset_utility(R[:, :1])
    with pytest.raises(TypeError, match="mapping label -> ProfileResult"):
        subset_utility(R, profiles=[prof])
    with pytest.raises(ValueError, match="nothing to compare"):
        subset_utility(R, methods=())


def test_kmedoids_init_matches_dense_alternating():
    # oracle: the same alternating algorithm on a dense 1 - corrcoef matrix from the same start
    rng = np.random.default_rng(12)
    X = rng.random((150, 6))
    X[:10] = 1.0  # constant rows
    med = kmedoids_dense(correlation_distance(X), [0, 20, 40, 60, 80, 100, 120])
    res = kmedoids(X, 7, init=[0, 20, 40, 60, 80, 100, 120])
    assert np.array_equal(res.medoids, med)
    with pytest.raises(ValueError, match="distinct rows"):
        kmedoids(X, 2, init=[3, 3])


def test_answer_entropy_matches_scipy_and_feeds_profiles(sim):
    # oracle: scipy.stats.entropy of each cell's state distribution / log M_q (Eq. 2), M_q = states
    # seen for the item across the axis's models
    from benchkit.boundary.steps import answer_entropy

    _, rs, K, _ = sim
    ac = rs.answer_counts()
    cols = np.arange(4)
    e, _ = answer_entropy(ac.counts[:, cols, :])
    for i in range(0, 500, 37):
        cnt = ac.counts[i][cols]
        M = int((cnt.sum(0) > 0).sum())
        for j in range(4):
            want = 0.0 if M <= 1 else scipy.stats.entropy(cnt[j]) / np.log(M)
            assert e[i, j] == pytest.approx(want, abs=1e-12)
    res = measure_utility(rs, reference_axis=list(rs.model_ids), methods=(), sizes=(10,),
                          n_repeats=2)
    res_bin = measure_utility(rs, reference_axis=list(rs.model_ids), methods=(), sizes=(10,),
                              n_repeats=2, entropy={})
    # answer-state entropy changes v and thus the (1-w)v-weighted subsets
    assert not np.array_equal(res.selections[0][0], res_bin.selections[0][0])
    with pytest.raises(ValueError, match="entropy='x' is not allowed"):
        measure_utility(rs, reference_axis=list(rs.model_ids), entropy="x")


def test_select_bsdprobe_rng_entropy_repeats_the_draw():
    # rule 5: the Subset records the entropy of its root; an int rng draws the subset of before
    # (indices computed at d7d702c, where the Generator was made from rng directly)
    from benchkit.boundary import profile

    prof = profile(repeated_sampling(n_items=30, T=10, rng=0).responses).profile
    a = select_bsdprobe(prof, 10, rng=7)
    assert a.rng_entropy == 7
    assert a.indices.tolist() == [13, 24, 19, 12, 3, 26, 2, 28, 20, 15]
    b = select_bsdprobe(prof, 10, rng=np.random.default_rng(4))
    assert isinstance(b.rng_entropy, int)
    np.testing.assert_array_equal(select_bsdprobe(prof, 10, rng=b.rng_entropy).indices, b.indices)
