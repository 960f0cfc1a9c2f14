"""Ranking estimand, matched-random controls and bootstraps (paper 001, Sec. 3.4, App. C.6-C.7,
D.1)."""
import itertools
from fractions import Fraction

import numpy as np
import pytest

import naive
from benchkit._kernels.dif import matched_scores
from benchkit._kernels.dif import pack_cells
from benchkit._random import spawn
from benchkit.dif._controls import _cell_design
from benchkit.dif._controls import bootstrap_units
from benchkit.dif._controls import composition_bootstrap
from benchkit.dif._controls import matched_random
from benchkit.dif._controls import owner_bootstrap
from benchkit.dif._ranking import THRESHOLDS
from benchkit.dif._ranking import FoldTargets
from benchkit.dif._ranking import observed_ranking
from benchkit.dif._ranking import pair_set
from benchkit.dif._ranking import reversal_counts


@pytest.fixture(scope="module")
def fitted(dif_cross_fit):
    s, pop, cf = dif_cross_fit(12)
    folds = list(cf.folds)
    pairs = [pair_set(f, max_gap=0.05) for f in folds]
    obs = observed_ranking(folds, pairs, s.model_ids)
    return s, pop, cf, folds, pairs, obs


def _brute(ft, alt, eps):
    """Eq. 38-39 by brute force over itertools.combinations (oracle)."""
    full = ft.Y.sum(0) / ft.Y.shape[0]
    flips = elig = 0
    for a, b in itertools.combinations(range(full.size), 2):
        if ft.owner[a] == ft.owner[b] or ft.family[a] == ft.family[b]:
            continue
        g = abs(full[a] - full[b])
        if not (0 < g <= eps + 1e-12) or alt[a] == alt[b]:
            continue
        elig += 1
        flips += (full[a] - full[b]) * (alt[a] - alt[b]) < 0
    return flips, elig


def test_reversals_match_brute_force(fitted):
    _s, _pop, _cf, folds, _pairs, obs = fitted
    for h, ft in enumerate(folds):
        # exact rational anchor scores (Fractions), so anchor ties are exact ties
        w = [Fraction(x).limit_denominator(10_000) for x in ft.weights]
        nz = np.flatnonzero(ft.weights)
        alt = [sum(w[i] for i in nz if ft.Y[i, m]) for m in range(ft.Y.shape[1])]
        for t, eps in enumerate(THRESHOLDS):
            assert (obs.flips[t, h], obs.eligible[t, h]) == _brute(ft, alt, eps)
    assert obs.rate[2] == obs.flips[2].sum() / obs.eligible[2].sum()  # pooled (Eq. 40)


def test_hand_case_ties_excluded():
    # 4 models, 100 items; owners/families all distinct; hand-built scores
    Y = np.zeros((100, 4), dtype=np.uint8)
    Y[:50, 0] = 1
    Y[:51, 1] = 1
    Y[:50, 2] = 1  # tied with model 0 under the full score -> never eligible
    Y[:52, 3] = 1
    ft = FoldTargets(models=np.arange(4), owner=np.arange(4), family=np.arange(4), Y=Y,
                     weights=np.ones(100), cells=np.zeros(100, dtype=np.int64))
    ps = pair_set(ft, max_gap=0.01)
    assert sorted(zip(ps.i.tolist(), ps.j.tolist())) == [(0, 1), (1, 2), (1, 3)]
    alt = np.array([0.6, 0.5, 0.5, 0.7])  # (0,1) flips, (1,2) tied under alt, (1,3) same order
    f, e = reversal_counts(ps, alt, (0.01,))
    assert (f[0], e[0]) == (1, 2)


@pytest.mark.parametrize("use_full", [False, True])
def test_reversal_counts_kernel_equals_twin(use_full):
    from benchkit._kernels.dif import reversal_counts as kernel

    g = np.random.default_rng(7)
    n, M, P = 30, 40, 300
    alt = np.round(g.random((n, M)), 2)  # rounded: exact ties inside and outside the tolerance
    alt[0, :3] = np.nan
    full = np.round(g.random((n, M)), 2)
    pi, pj = g.integers(0, M, P), g.integers(0, M, P)
    sign = np.where(g.random(P) < 0.5, -1.0, 1.0)
    band = g.integers(0, 4, P)
    f = full if use_full else np.empty((0, 0))
    got = kernel(alt, pi, pj, sign, f, use_full, band, 4, 1e-12)
    want = naive.reversal_counts(alt, pi, pj, sign, f, use_full, band, 4, 1e-12)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert 0 < got[0].sum() < got[1].sum()


@pytest.mark.parametrize("use_full", [False, True])
def test_reversal_counts_equal_the_threshold_masks(use_full):
    # Oracle: the cumulative definition (Eq. 38-39) with one mask per threshold, in the caller's
    # threshold order (unsorted here, with a gap exactly on a threshold and one beyond them all)
    from benchkit.dif._ranking import PairSet

    g = np.random.default_rng(8)
    n, M, P = 12, 30, 400
    alt, full = np.round(g.random((n, M)), 2), np.round(g.random((n, M)), 2)
    i, j = g.integers(0, M, P), g.integers(0, M, P)
    gap = np.round(g.random(P) * 0.06, 3)
    gap[:3] = [0.01, 0.02, 0.07]
    ps = PairSet(i=i, j=j, gap=gap, sign=np.where(g.random(P) < 0.5, -1, 1).astype(np.int8))
    thr = (0.02, 0.005, 0.05, 0.01)
    f, e = reversal_counts(ps, alt, thr, full=full if use_full else None)
    d = alt[:, i] - alt[:, j]
    ok = np.abs(d) > 1e-12
    sgn = ps.sign
    if use_full:
        df = full[:, i] - full[:, j]
        ok &= np.abs(df) > 1e-12
        sgn = np.sign(df)
    for t, th in enumerate(thr):
        w = gap <= th * (1 + 1e-12)
        np.testing.assert_array_equal(e[:, t], (ok & w).sum(1))
        np.testing.assert_array_equal(f[:, t], (ok & w & (sgn * d < 0)).sum(1))
    f1, e1 = reversal_counts(ps, alt[0], thr)  # one score vector: no leading axis
    assert f1.shape == e1.shape == (4,)


def _design(seed, n_items=200, n_cells=9, M=30):
    rng = np.random.default_rng(seed)
    cells = rng.integers(0, n_cells, n_items) * 3 + 1  # codes with gaps, as easiness_cells makes
    sel = np.zeros(n_items, dtype=bool)
    for c in np.unique(cells):
        idx = np.flatnonzero(cells == c)
        sel[idx[: max(1, idx.size // 3)]] = True
    Y = (rng.random((n_items, M)) < 0.6).astype(float)
    ft = FoldTargets(models=np.arange(M), owner=np.arange(M), family=np.arange(M) % 3, Y=Y,
                     weights=sel * 2.5, cells=cells)
    return ft, sel, _cell_design(ft)


def _counted_scores(keys, cellv, ptr, items, k_c, w_c, Y):
    """Oracle with the kernel's arithmetic: e599a3b's draw (``naive.matched_draws``), integer
    counts of the drawn correct items per cell, weighted and added in cell order."""
    take = naive.matched_draws(keys, cellv, ptr, items, k_c)
    out = np.empty((keys.shape[0], Y.shape[1]))
    den = 0.0
    for c in range(ptr.size - 1):
        den += w_c[c] * k_c[c]
    for r in range(keys.shape[0]):
        acc = np.zeros(Y.shape[1])
        for c in range(ptr.size - 1):
            m = items[ptr[c]:ptr[c + 1]]
            acc += w_c[c] * Y[m[take[r, m]]].astype(np.int64).sum(0)
        out[r] = acc / den
    return out


@pytest.mark.parametrize(("seed", "n_items", "n_cells"), [(0, 200, 9), (1, 200, 9), (2, 700, 3)])
def test_matched_draws_restore_cells_and_equal_full_sort(seed, n_items, n_cells):
    # (2, 700, 3): cells of ~230 items, four 64-item words each
    ft, sel, design = _design(seed, n_items=n_items, n_cells=n_cells)
    cellv, ptr, items, k_c, w_c, bits, woff = design
    keys = np.random.default_rng(seed).random((40, cellv.size))
    keys[0, :5] = keys[0, 5]  # tied keys: broken by item index, as a stable argsort does
    keys[1, items[:3]] = 1 - 2.0**-53  # cell + key rounds up to the next code (a float artifact)
    got = matched_scores(keys, *design)
    # the e599a3b draw (full stable argsort per replicate, W @ Y): same items drawn, so the
    # scores agree to rounding (the kernel adds integer counts per cell, then weights them) ...
    np.testing.assert_allclose(got, naive.matched_scores(keys, *design), rtol=1e-14, atol=0)
    # ... and with the kernel's order of operations, to the last bit
    np.testing.assert_array_equal(got, _counted_scores(keys, cellv, ptr, items, k_c, w_c, ft.Y))
    # Eq. 7: every replicate keeps k_c items per cell with weight n_c / k_c, restoring the cell mass
    for c in range(ptr.size - 1):
        m = items[ptr[c]:ptr[c + 1]]
        assert k_c[c] == sel[m].sum()
        assert w_c[c] * k_c[c] == pytest.approx(m.size)
    # one-hot Y per item: the score of column j counts the drawn items whose one-hot is j
    one = np.zeros((cellv.size, cellv.size), dtype=np.uint8)
    np.fill_diagonal(one, 1)
    W = matched_scores(keys, cellv, ptr, items, k_c, w_c, *pack_cells(one, ptr, items))
    W *= (w_c * k_c).sum()
    for c in range(ptr.size - 1):
        m = items[ptr[c]:ptr[c + 1]]
        assert np.all((W[:, m] > 0).sum(1) == k_c[c])
        np.testing.assert_allclose(W[:, m].sum(1), m.size)


def test_pack_cells_equals_twin_and_round_trips():
    ft, _sel, design = _design(3, n_items=500, n_cells=2, M=7)
    _cellv, ptr, items, _k, _w, bits, woff = design
    tb, tw = naive.pack_cells(ft.Y.astype(np.uint8), ptr, items)
    np.testing.assert_array_equal(bits, tb)
    np.testing.assert_array_equal(woff, tw)
    assert np.diff(woff).max() > 1  # cells span several words
    np.testing.assert_array_equal(naive.unpack_cells(bits, woff, ptr, items, 500), ft.Y)


def test_matched_random_reproducible_and_njobs(fitted):
    _s, _pop, _cf, folds, pairs, obs = fitted
    a = matched_random(folds, pairs, obs.rate, n_resamples=60, rng=5, n_jobs=1)
    b = matched_random(folds, pairs, obs.rate, n_resamples=60, rng=5, n_jobs=2)
    np.testing.assert_array_equal(a.replicates, b.replicates)
    np.testing.assert_array_equal(a.flips, b.flips)
    c = matched_random(folds, pairs, obs.rate, n_resamples=60, rng=6, n_jobs=1)
    assert not np.array_equal(a.replicates, c.replicates)
    # Eq. 10-11 from the replicates
    T = a.replicates[:, 2]
    assert a.p_value[2] == (1 + np.sum(T >= obs.rate[2])) / 61
    assert a.excess_pp[2] == pytest.approx(100 * (obs.rate[2] - np.median(T)))


def test_bootstrap_reproducible_and_units(fitted):
    s, _pop, _cf, folds, pairs, obs = fitted
    units = bootstrap_units(s.source)
    assert np.unique(units).size == 12
    u1 = bootstrap_units(["x"] * 250)
    assert np.unique(u1).size == 100
    assert np.all(np.diff(u1) >= 0)
    assert np.bincount(u1).min() == 2
    assert np.bincount(u1).max() == 3
    a = composition_bootstrap(folds, pairs, units, obs.rate, n_resamples=150, rng=1, n_jobs=1)
    b = composition_bootstrap(folds, pairs, units, obs.rate, n_resamples=150, rng=1, n_jobs=2)
    np.testing.assert_array_equal(a.replicates, b.replicates)
    assert np.all(a.interval[0] <= a.interval[1])


def test_bootstrap_scores_eq37(fitted):
    # Eq. 37 by hand for one multiplicity vector: recompose items and score directly
    s, _pop, _cf, folds, _pairs, _obs = fitted
    ft = folds[0]
    units = bootstrap_units(s.source)
    rng = np.random.default_rng(3)
    N = rng.multinomial(12, np.full(12, 1 / 12))
    mult = N[units]
    A = (mult @ ft.Y) / mult.sum()
    At = ((mult * ft.weights) @ ft.Y) / (mult * ft.weights).sum()
    onehot = np.eye(12)[units].T
    S, nb = onehot @ ft.Y, onehot.sum(1)
    St, nbt = (onehot * ft.weights) @ ft.Y, onehot @ ft.weights
    np.testing.assert_allclose((N @ S) / (N @ nb), A)
    np.testing.assert_allclose((N @ St) / (N @ nbt), At)


def test_owner_bootstrap_matches_direct_resampling():
    rng = np.random.default_rng(0)
    owner = np.array([f"o{k}" for k in rng.integers(0, 15, 60)])
    family = np.array(["a", "b", "c"])[rng.integers(0, 3, 60)]
    d = rng.normal(size=60)
    res = owner_bootstrap(d, family, owner, n_resamples=120, rng=9)
    # oracle: redraw the same owners from the same block seeds and average records directly
    owners = np.unique(owner)
    fams = np.unique(family)
    reps = []
    for seed in spawn(9, 2):
        g = np.random.default_rng(seed)
        for _ in range(100 if len(reps) < 100 else 20):
            pick = owners[g.integers(0, owners.size, owners.size)]
            rec = np.concatenate([np.flatnonzero(owner == o) for o in pick])
            reps.append([d[rec][family[rec] == f].mean() if np.any(family[rec] == f) else np.nan
                         for f in fams])
    np.testing.assert_allclose(res.replicates[:, 0, :], np.array(reps), atol=1e-12)
    tab = res.to_frame()
    assert list(tab.family) == list(fams)
    np.testing.assert_allclose(tab["mean"], [d[family == f].mean() for f in fams])


@pytest.mark.slow  # a local Dask cluster
def test_dask_cluster_identical(fitted):
    joblib = pytest.importorskip("joblib")
    distributed = pytest.importorskip("dask.distributed")
    s, _pop, _cf, folds, pairs, obs = fitted
    units = bootstrap_units(s.source)
    ref_mr = matched_random(folds, pairs, obs.rate, n_resamples=50, rng=2, n_jobs=1)
    ref_bs = composition_bootstrap(folds, pairs, units, obs.rate, n_resamples=120, rng=2,
                                   n_jobs=1)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
    with cluster, distributed.Client(cluster), joblib.parallel_config("dask"):
        mr = matched_random(folds, pairs, obs.rate, n_resamples=50, rng=2)
        bs = composition_bootstrap(folds, pairs, units, obs.rate, n_resamples=120, rng=2)
    np.testing.assert_array_equal(mr.replicates, ref_mr.replicates)
    np.testing.assert_array_equal(bs.replicates, ref_bs.replicates)


def test_no_eligible_pair_gives_nan_p():
    Y = np.zeros((50, 2))
    Y[:10, 0] = 1
    Y[:40, 1] = 1  # 60-pp gap: never a near tie
    ft = FoldTargets(models=np.arange(2), owner=np.arange(2), family=np.arange(2), Y=Y,
                     weights=np.ones(50), cells=np.zeros(50, dtype=np.int64))
    ps = pair_set(ft, max_gap=0.05)
    res = matched_random([ft, ft], [ps, ps], np.array([np.nan]), thresholds=(0.01,),
                         n_resamples=5, rng=0)
    assert np.isnan(res.p_value[0])
    assert np.isnan(res.median[0])
    assert np.isnan(res.excess_pp[0])


def test_controls_rng_entropy_repeats_and_int_seeds_unchanged():
    # rule 5: each result records its root's entropy (rng=entropy repeats the draws); int seeds give
    # the replicates they gave before (sums printed by commit d7d702c's code with the same calls)
    from benchkit.dif.steps import build_population
    from benchkit.dif.steps import cross_fit
    from benchkit.dif.steps import simulate_family_dif

    sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=3)
    pop = build_population(sim.model_ids, sim.Y.mean(0), min_family_size=5, rng=4)
    folds = list(cross_fit(sim.Y, pop, sim.source, K=(2, 2), rng=5).folds)
    pairs = [pair_set(f, max_gap=0.05) for f in folds]
    obs = observed_ranking(folds, pairs, sim.model_ids).rate
    units = bootstrap_units(sim.source)
    ob_args = ([1.0, -0.5, 2.0, 0.5, -1.0, 0.0], list("aabbba"), ["o1", "o2", "o3", "o3", "o4", "o5"])
    g = np.random.default_rng(0)
    mr = matched_random(folds, pairs, obs, n_resamples=60, rng=g)
    cb = composition_bootstrap(folds, pairs, units, obs, n_resamples=150, rng=g)
    ob = owner_bootstrap(*ob_args, n_resamples=150, rng=g)
    for res in (mr, cb, ob):
        assert isinstance(res.rng_entropy, int)
    np.testing.assert_array_equal(
        matched_random(folds, pairs, obs, n_resamples=60, rng=mr.rng_entropy).replicates, mr.replicates)
    np.testing.assert_array_equal(
        composition_bootstrap(folds, pairs, units, obs, n_resamples=150, rng=cb.rng_entropy).replicates,
        cb.replicates)
    np.testing.assert_array_equal(owner_bootstrap(*ob_args, n_resamples=150, rng=ob.rng_entropy).replicates,
                                  ob.replicates)
    mr7 = matched_random(folds, pairs, obs, n_resamples=60, rng=7)
    cb8 = composition_bootstrap(folds, pairs, units, obs, n_resamples=150, rng=8)
    ob9 = owner_bootstrap(*ob_args, n_resamples=150, rng=9)
    assert (mr7.rng_entropy, cb8.rng_entropy, ob9.rng_entropy) == (7, 8, 9)
    assert float(np.nansum(mr7.replicates)) == 92.2451823211496
    assert float(np.nansum(cb8.replicates)) == 157.61672455161835
    assert float(np.nansum(ob9.replicates)) == 61.29404761904762
