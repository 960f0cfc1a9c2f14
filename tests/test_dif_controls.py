"""Ranking estimand, matched-random controls and bootstraps (paper 001, Sec. 3.4, App. C.6-C.7,
D.1)."""
import itertools
from fractions import Fraction

import numpy as np
import pytest

from benchkit._random import spawn
from benchkit.dif._controls import _cell_k
from benchkit.dif._controls import _random_weights
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


def test_random_weights_restore_cells():
    rng = np.random.default_rng(0)
    cells = rng.integers(0, 9, 200)
    sel = np.zeros(200, dtype=bool)
    for c in range(9):
        idx = np.flatnonzero(cells == c)
        sel[idx[: max(1, idx.size // 2)]] = True
    k_i, w_i = _cell_k(cells, sel.astype(float))
    W = _random_weights(rng, cells.astype(float), k_i, w_i, 50)
    for c in range(9):
        m = cells == c
        assert np.all((W[:, m] > 0).sum(1) == sel[m].sum())  # same k_c as the anchor
        np.testing.assert_allclose(W[:, m].sum(1), m.sum())  # Eq. 7 mass restored


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
