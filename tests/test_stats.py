"""benchkit.stats, benchkit._random and benchkit._parallel against independent oracles.

Oracles: scipy.stats.kendalltau (tau-b), statsmodels multipletests (Holm, BH), scipy's
jensenshannon (JSD = distance**2), scipy.stats.entropy, scipy.stats.hypergeom, and the percentile
interval scipy.stats.bootstrap computes from its own bootstrap distribution.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps
from scipy.spatial.distance import jensenshannon
from statsmodels.stats.multitest import multipletests

from benchkit import _parallel
from benchkit import _random
from benchkit import stats


def _rankings(rng, n_sets=40):
    for _ in range(n_sets):
        n = int(rng.integers(2, 30))
        # few distinct values, so ties are frequent in both rankings
        yield rng.integers(0, 5, n).astype(float), rng.integers(0, 4, n).astype(float)


def test_kendall_tau_b_matches_scipy_with_ties():
    rng = np.random.default_rng(0)
    for x, y in _rankings(rng):
        ref = sps.kendalltau(x, y, variant="b").statistic
        got = stats.kendall_tau_b(x, y)
        if np.isnan(ref):
            assert np.isnan(got)
        else:
            assert abs(got - ref) < 1e-12


def test_kendall_tau_b_batched_and_chunked(monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(7, 50))
    y = rng.normal(size=50)
    ref = np.array([sps.kendalltau(x, y).statistic for x in X])
    np.testing.assert_allclose(stats.kendall_tau_b(X, y), ref, rtol=0, atol=1e-12)
    monkeypatch.setattr(stats, "_PAIR_CHUNK", 37)  # many small chunks: same integers
    np.testing.assert_allclose(stats.kendall_tau_b(X, y), ref, rtol=0, atol=1e-12)


def test_kendall_tau_b_errors():
    with pytest.raises(ValueError, match="same number of objects; got 3 and 2"):
        stats.kendall_tau_b([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="at least 2 objects; got 1"):
        stats.kendall_tau_b([1], [1])


@pytest.mark.parametrize(("ours", "method"), [(stats.holm, "holm"),
                                              (stats.benjamini_hochberg, "fdr_bh")])
def test_multiple_testing_matches_statsmodels(ours, method):
    rng = np.random.default_rng(2)
    for m in (1, 2, 5, 40):
        p = rng.uniform(size=m) ** 3
        p[: m // 3] = p[0]  # ties
        ref = multipletests(p, method=method)[1]
        np.testing.assert_allclose(ours(p), ref, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match=r"pvalues must lie in \[0, 1\]; got 1.5"):
        ours([0.1, 1.5])


def test_jsd_and_entropy_match_scipy():
    rng = np.random.default_rng(3)
    P = rng.dirichlet(np.ones(5), size=20)
    Q = rng.dirichlet(np.ones(5), size=20)
    P[0, :2] = [0.0, P[0, :2].sum()]
    ref = np.array([jensenshannon(p, q) ** 2 for p, q in zip(P, Q)])
    np.testing.assert_allclose(stats.jsd(P, Q), ref, rtol=0, atol=1e-12)
    ref_h = np.array([sps.entropy(p) / math.log(5) for p in P])
    np.testing.assert_allclose(stats.normalized_entropy(P), ref_h, rtol=0, atol=1e-12)
    # per-row state counts; a single state gives 0 (BSDProbe Eq. 2 with M_q = 1)
    n_states = np.array([1] + [5] * 19)
    got = stats.normalized_entropy(P, n_states=n_states)
    assert got[0] == 0.0
    np.testing.assert_allclose(got[1:], ref_h[1:], rtol=0, atol=1e-12)


def test_hypergeom_sf_matches_scipy():
    for M, n, N in [(373, 9, 30), (50, 10, 10), (12, 12, 3), (20, 0, 5)]:
        for k in range(0, min(n, N) + 2):
            ref = sps.hypergeom(M, n, N).sf(k - 1)
            assert abs(stats.hypergeom_sf(k, M, n, N) - ref) < 1e-12


def test_percentile_interval_matches_scipy_bootstrap():
    rng = np.random.default_rng(4)
    data = rng.normal(size=60)
    res = sps.bootstrap((data,), np.mean, n_resamples=999, method="percentile",
                        confidence_level=0.9, rng=5)
    lo, hi = stats.percentile_interval(res.bootstrap_distribution, confidence_level=0.9)
    assert abs(lo - res.confidence_interval.low) < 1e-12
    assert abs(hi - res.confidence_interval.high) < 1e-12
    lo2, hi2 = stats.percentile_interval(np.r_[res.bootstrap_distribution, np.nan], confidence_level=0.9)
    assert (lo2, hi2) == (lo, hi)  # an undefined replicate is left out
    with pytest.raises(ValueError, match="confidence_level=1.0 is out of range"):
        stats.percentile_interval(data, confidence_level=1.0)


def test_kendall_tau_b_omit_matches_scipy_pairwise_complete():
    # oracle: scipy.stats.kendalltau(nan_policy="omit") row by row
    rng = np.random.default_rng(9)
    X = rng.integers(0, 4, (6, 9)).astype(float)
    Y = rng.integers(0, 4, (6, 9)).astype(float)
    X[rng.random(X.shape) < 0.2] = np.nan
    Y[rng.random(Y.shape) < 0.2] = np.nan
    got = stats.kendall_tau_b(X, Y, nan_policy="omit")
    for r in range(6):
        ref = sps.kendalltau(X[r], Y[r], nan_policy="omit").statistic
        assert got[r] == pytest.approx(ref, abs=1e-12, nan_ok=True)
    few = stats.kendall_tau_b([1.0, 2.0, np.nan, 4.0], [1.0, 3.0, 2.0, 4.0], nan_policy="omit",
                              min_objects=4)
    assert np.isnan(few)  # 3 objects scored in both, 4 required
    with pytest.raises(ValueError, match="finite"):
        stats.kendall_tau_b([1.0, np.nan], [1.0, 2.0])


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_bootstrap_interval_matches_scipy(method):
    # oracle: scipy.stats.bootstrap on the same replicates (n_resamples=0, bootstrap_result=...),
    # two independent samples, a skewed statistic (so z0 and the acceleration are not 0)
    from types import SimpleNamespace

    rng = np.random.default_rng(11)
    x, y = rng.exponential(size=40), rng.exponential(2.0, size=30)

    def stat(a, b, axis=-1):
        return np.log(np.mean(a, axis=axis)) - np.std(b, axis=axis)

    ref = sps.bootstrap((x, y), stat, n_resamples=999, method="percentile", rng=3)
    reps = ref.bootstrap_distribution
    out = sps.bootstrap((x, y), stat, n_resamples=0, method=method, confidence_level=0.9,
                        bootstrap_result=SimpleNamespace(bootstrap_distribution=reps))
    jk = [[stat(np.delete(x, i), y) for i in range(x.size)],
          [stat(x, np.delete(y, i)) for i in range(y.size)]]
    iv = stats.bootstrap_interval(reps, stat(x, y), method=method, jackknife=jk,
                                  confidence_level=0.9)
    assert iv.low == pytest.approx(out.confidence_interval.low, abs=1e-12)
    assert iv.high == pytest.approx(out.confidence_interval.high, abs=1e-12)
    assert iv.bias == pytest.approx(reps.mean() - stat(x, y), abs=1e-12)
    assert iv.inside
    assert iv.reason is None


def test_bootstrap_interval_diagnostics_and_errors():
    reps = np.linspace(0.0, 1.0, 201)
    iv = stats.bootstrap_interval(reps, 2.0, method="percentile")
    assert iv.z0 == np.inf
    assert iv.reason == "every replicate lies on one side of the estimate"
    assert not iv.inside
    iv = stats.bootstrap_interval(reps, 0.99, method="basic")  # 99.5% of replicates below
    assert not iv.inside
    assert iv.reason.startswith("the estimate lies outside the basic interval")
    iv = stats.bootstrap_interval(np.r_[reps, [np.nan] * 20], 0.5, method="percentile")
    assert iv.reason == "20 of 221 replicates undefined (more than the 2.5% tail)"
    assert stats.bootstrap_interval(reps, np.nan).reason == "estimate undefined"
    two = stats.bootstrap_interval(np.c_[reps, reps], np.array([0.5, 2.0]), method="basic")
    assert two.trusted.tolist() == [True, False]
    assert list(two.to_frame()["inside"]) == [True, False]
    with pytest.raises(ValueError, match="method"):
        stats.bootstrap_interval(reps, 0.5, method="bc")
    with pytest.raises(ValueError, match="estimate must have the replicates' shape"):
        stats.bootstrap_interval(reps, [0.5, 0.5])


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_bootstrap_interval_contain_estimate(method):
    # hand-worked: replicates 0, 0.005, ..., 1 (numpy's linear quantiles: q_0.025 = 0.025,
    # q_0.975 = 0.975) and an estimate 0.99: 198 replicates below it and one equal (counted half),
    # so z0 = Phi^-1(397 / 402) = 2.2433.
    # basic = [2(0.99) - 0.975, 2(0.99) - 0.025] = [1.005, 1.955] lies wholly above the estimate
    # (the reflection of replicates far below it); percentile [0.025, 0.975] wholly below it.
    # contain_estimate moves the nearer bound to 0.99; the far bound is scipy's.
    from types import SimpleNamespace

    reps = np.linspace(0.0, 1.0, 201)
    plain = stats.bootstrap_interval(reps, 0.99, method=method)
    iv = stats.bootstrap_interval(reps, 0.99, method=method, contain_estimate=True)
    expect = {"percentile": (0.025, 0.99), "basic": (0.99, 1.955)}
    if method != "bca":  # (scipy's BCa would take its acceleration from this dummy data)
        ref = sps.bootstrap((np.zeros(3),), lambda x, axis=-1: 0.99 + 0 * np.mean(x, axis=axis),
                            n_resamples=0, method=method,
                            bootstrap_result=SimpleNamespace(bootstrap_distribution=reps))
        assert (plain.low, plain.high) == pytest.approx(tuple(ref.confidence_interval), abs=1e-12)
    assert not plain.inside
    assert not plain.extended
    assert (iv.low, iv.high) == pytest.approx((min(0.99, plain.low), max(0.99, plain.high)), abs=1e-12)
    if method in expect:
        assert (iv.low, iv.high) == pytest.approx(expect[method], abs=1e-12)
    assert iv.inside
    assert iv.extended
    assert iv.reason.endswith("z0 = 2.24); interval extended to it")  # still not trusted
    assert iv.z0 == pytest.approx(2.2433287630, abs=1e-9)  # scipy.special.ndtri(397 / 402)
    # an estimate inside the interval: the bounds are the method's (scipy's), nothing extended
    inner = stats.bootstrap_interval(reps, 0.5, method=method, contain_estimate=True)
    same = stats.bootstrap_interval(reps, 0.5, method=method)
    assert (inner.low, inner.high, inner.extended) == (same.low, same.high, False)
    # every replicate below the estimate: basic and percentile extend; BCa stays undefined
    far = stats.bootstrap_interval(reps, 2.0, method=method, contain_estimate=True)
    if method == "bca":
        assert np.isnan(far.low)
        assert far.reason == "every replicate lies on one side of the estimate"
    else:
        assert far.inside
        assert far.reason == "every replicate lies on one side of the estimate; interval extended to it"
    with pytest.raises(TypeError, match="contain_estimate must be True or False"):
        stats.bootstrap_interval(reps, 0.5, contain_estimate="yes")


def test_rng_rule():
    # int and SeedSequence: reproducible; Generator: consumed (second use differs)
    a = _random.spawn(7, 2)
    b = _random.spawn(7, 2)
    assert [s.generate_state(2).tolist() for s in a] == [s.generate_state(2).tolist() for s in b]
    ss = np.random.SeedSequence(3)
    assert (_random.generator(ss).random() == _random.generator(ss).random())
    g = np.random.default_rng(0)
    assert _random.seed_sequence(g).entropy != _random.seed_sequence(g).entropy
    # the root of a Generator has an int entropy, so a recorded rng_entropy repeats the draws
    root = _random.seed_sequence(np.random.default_rng(1))
    assert isinstance(root.entropy, int)
    assert _random.generator(root.entropy).random() == _random.generator(root).random()
    with pytest.raises(TypeError, match="rng must be None, a non-negative int, a numpy SeedSequence"
                                        " or a numpy Generator; got 'x'"):
        _random.seed_sequence("x")
    with pytest.raises(ValueError, match="rng=-1 must be a non-negative integer"):
        _random.generator(-1)


def _draws(seed, start, stop, scale):
    return np.random.default_rng(seed).random(stop - start) * scale


def test_blocked_map_independent_of_n_jobs_and_backend():
    from joblib import parallel_config

    ref = np.concatenate(_parallel.blocked_map(_draws, 23, rng=11, block_size=5, args=(2.0,)))
    assert ref.shape == (23,)
    for n_jobs in (1, 2, -1):
        got = _parallel.blocked_map(_draws, 23, rng=11, block_size=5, args=(2.0,), n_jobs=n_jobs)
        np.testing.assert_array_equal(np.concatenate(got), ref)
    with parallel_config("threading", n_jobs=2):
        got = _parallel.blocked_map(_draws, 23, rng=11, block_size=5, args=(2.0,))
    np.testing.assert_array_equal(np.concatenate(got), ref)


def test_thread_map_runs_a_pair_at_once_in_order_and_shares_numba_threads():
    # The fixed deterministic tasks of one call (the DIF cross-fit halves) run concurrently
    # whatever n_jobs is: a two-party barrier passes only if both tasks are live at once.
    import threading

    import numba

    from benchkit._kernels.boundary_threads import limit_threads
    from benchkit._kernels.boundary_threads import n_threads

    if n_threads() < 2:
        pytest.skip("one kernel thread: thread_map runs the tasks one after the other")
    barrier = threading.Barrier(2, timeout=30)
    seen = []

    def task(i):
        barrier.wait()
        seen.append(numba.get_num_threads())
        return i * i

    before = numba.get_num_threads()
    assert _parallel.thread_map(task, [(3,), (4,)]) == [9, 16]
    assert seen == [max(1, before // 2)] * 2  # the caller's team shared out between the two
    assert numba.get_num_threads() == before  # restored in the calling thread
    with limit_threads(1):  # one thread: the loop, in order
        assert _parallel.thread_map(lambda i: i + 1, [(i,) for i in range(5)]) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(("value", "exc", "msg"), [
    (0, ValueError, "n_jobs=0 is not allowed"),
    (1.5, TypeError, "n_jobs must be None or a non-zero int; got 1.5"),
    (True, TypeError, "n_jobs must be None or a non-zero int; got True"),
])
def test_n_jobs_errors(value, exc, msg):
    with pytest.raises(exc, match=msg):
        _parallel.blocked_map(_draws, 3, rng=0, block_size=2, args=(1.0,), n_jobs=value)


def test_auroc_matches_mann_whitney_with_ties():
    # oracle: scipy's Mann-Whitney U of the positives over the negatives, divided by n1 n0
    rng = np.random.default_rng(5)
    for _ in range(30):
        n = int(rng.integers(4, 60))
        s = rng.integers(0, 6, n).astype(float)  # heavy ties
        y = rng.random(n) < 0.3
        y[:2] = [True, False]
        ref = sps.mannwhitneyu(s[y], s[~y]).statistic / (y.sum() * (~y).sum())
        assert abs(stats.auroc(s, y) - ref) < 1e-12
        fpr, tpr, _ = stats.roc_curve(s, y)
        assert abs(np.trapezoid(tpr, fpr) - ref) < 1e-12  # the curve's area is the same number


def test_roc_curve_hand_case():
    # scores 0.8 (pos), 0.4 (neg), 0.35 (pos), 0.1 (neg): steps up, right, up, right
    fpr, tpr, thr = stats.roc_curve([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    assert fpr.tolist() == [0.0, 0.0, 0.5, 0.5, 1.0]
    assert tpr.tolist() == [0.0, 0.5, 0.5, 1.0, 1.0]
    assert thr.tolist() == [np.inf, 0.8, 0.4, 0.35, 0.1]


@pytest.mark.parametrize(("scores", "labels", "msg"), [
    ([0.1, 0.2], [True, True], "positives and negatives"),
    ([0.1, 0.2], [1, 2], "booleans"),
    ([0.1, 0.2, 0.3], [True, False], "shape"),
    ([0.1, np.nan], [True, False], "finite"),
])
def test_auroc_errors(scores, labels, msg):
    with pytest.raises(ValueError, match=msg):
        stats.auroc(scores, labels)


def test_average_precision_hand_formula_and_sklearn():
    # oracle 1 (no ties): the mean over the positives of the precision at each positive's rank
    rng = np.random.default_rng(11)
    for _ in range(20):
        n = int(rng.integers(4, 80))
        s = rng.permutation(n).astype(float)  # distinct scores
        y = rng.random(n) < 0.3
        y[:2] = [True, False]
        order = np.argsort(-s)
        hits = np.cumsum(y[order])
        ranks = np.flatnonzero(y[order]) + 1
        ref = np.mean(hits[ranks - 1] / ranks)
        assert abs(stats.average_precision(s, y) - ref) < 1e-12
    # hand-worked: ranked pos, neg, pos, neg -> (1/1 + 2/3) / 2
    assert stats.average_precision([0.8, 0.4, 0.35, 0.1], [1, 0, 1, 0]) == pytest.approx(5 / 6, abs=1e-15)
    # one tie run of a positive and a negative enters at once: precision 1/2 at recall 1
    assert stats.average_precision([0.5, 0.5], [True, False]) == 0.5
    # oracle 2 (ties): scikit-learn's average_precision_score (installed with the dev tools)
    metrics = pytest.importorskip("sklearn.metrics")
    for _ in range(30):
        n = int(rng.integers(4, 60))
        s = rng.integers(0, 5, n).astype(float)
        y = rng.random(n) < 0.4
        y[:2] = [True, False]
        assert abs(stats.average_precision(s, y) - metrics.average_precision_score(y, s)) < 1e-12


def test_cohen_kappa_matches_statsmodels():
    from statsmodels.stats.inter_rater import cohens_kappa

    # oracle: statsmodels' kappa on the contingency table (binary and three labels)
    rng = np.random.default_rng(1)
    for n_labels in (2, 3):
        a = rng.integers(0, n_labels, 200)
        b = np.where(rng.random(200) < 0.7, a, rng.integers(0, n_labels, 200))
        table = np.array([[np.sum((a == i) & (b == j)) for j in range(n_labels)] for i in range(n_labels)])
        assert stats.cohen_kappa(a, b) == pytest.approx(cohens_kappa(table).kappa, abs=1e-12)
    # hand-worked 2 x 2: p_o = 4/5, p_e = (3/5)(2/5) + (2/5)(3/5) = 12/25 -> (20/25 - 12/25) / (13/25)
    assert stats.cohen_kappa([1, 1, 0, 0, 1], [1, 0, 0, 0, 1]) == pytest.approx(8 / 13, abs=1e-15)
    assert stats.cohen_kappa(["x", "y"], ["x", "y"]) == 1.0  # any labels
    assert np.isnan(stats.cohen_kappa(np.ones(5), np.ones(5)))  # one label for both: undefined
    with pytest.raises(ValueError, match=r"one length; got shapes \(2,\) and \(1,\)"):
        stats.cohen_kappa([1, 0], [1])
    with pytest.raises(ValueError, match="non-empty"):
        stats.cohen_kappa([], [])


def test_jaccard():
    # hand-worked: {0, 1} and {0, 2} share 1 of 3
    assert stats.jaccard([1, 1, 0, 0], [1, 0, 1, 0]) == 1 / 3
    assert stats.jaccard([0, 0], [0, 0]) == 1.0  # two empty sets are equal
    with pytest.raises(ValueError, match="one shape"):
        stats.jaccard([1, 0], [1])


def test_mcnemar_exact_matches_statsmodels():
    from statsmodels.stats.contingency_tables import mcnemar

    # oracle: statsmodels' exact McNemar on the 2x2 table [[both right, b], [c, both wrong]]
    for b, c in [(0, 0), (9, 2), (2, 9), (30, 31), (0, 7), (150, 110), (5000, 5100)]:
        ref = mcnemar([[17, b], [c, 4]], exact=True).pvalue
        assert abs(stats.mcnemar_exact(b, c) - ref) < 1e-12
    with pytest.raises(ValueError, match="b=-1"):
        stats.mcnemar_exact(-1, 3)
    with pytest.raises(TypeError, match="c must be an integer"):
        stats.mcnemar_exact(1, 2.5)
