"""Calibration tables: Eq. 19 semantics, reproducibility, exact vs Monte Carlo, false-flag rate."""
import numpy as np
import pytest

from benchkit._kernels import lrt
from benchkit.boundary.steps import CalibrationTable
from benchkit.boundary.steps import build_calibration
from benchkit.boundary.steps import exact_calibration
from benchkit.boundary.steps import get_calibration
from benchkit.boundary.steps import reference_family


def test_family_size_matches_paper():
    assert reference_family(6).shape == (217, 6)  # App. D.3: 217 vectors for n = 6
    fam = reference_family(5)
    assert np.all(np.diff(fam, axis=1) >= 0)
    assert fam.min() > 0
    assert fam.max() < 1


def test_score_semantics_against_direct_eq19():
    theta = reference_family(3)[[0, 10, 40]]
    B = 3000
    tab = build_calibration(3, 5, n_resamples=B, rng=5, reference=theta, block_size=700)
    seeds = lrt.block_seeds(np.random.SeedSequence(5), 3, (B + 699) // 700)
    keys = lrt.simulate_keys(theta, 5, B, seeds, block_size=700)
    for d in [0.0, 0.3, 1.0, 2.5, 4.0, 7.0, 50.0]:
        kq = np.int64(np.rint(d * 1e10))
        direct = max((1 + (keys[a] >= kq).sum()) / (B + 1) for a in range(3))  # Eq. 19
        assert tab.score(np.array([d]))[0] == pytest.approx(direct, abs=1e-15)
    assert tab.score(np.array([0.0]))[0] == 1.0
    assert tab.score(np.array([1e6]))[0] == pytest.approx(1 / (B + 1))


def test_same_table_for_any_worker_count(tmp_path):
    from joblib import parallel_config

    from benchkit._kernels.boundary_threads import limit_threads

    a = build_calibration(3, 5, n_resamples=2000, rng=3, block_size=300)
    with parallel_config(backend="threading"):  # same code path as processes, no worker start-up
        b = build_calibration(3, 5, n_resamples=2000, rng=3, block_size=300, n_jobs=2, chunk=7)
    with limit_threads(1):
        c1 = build_calibration(3, 5, n_resamples=2000, rng=3, block_size=300)
    np.testing.assert_array_equal(a.tail, c1.tail)
    np.testing.assert_array_equal(a.atoms, b.atoms)
    np.testing.assert_array_equal(a.tail, b.tail)
    a.save(tmp_path / "t.npz")
    c = CalibrationTable.load(tmp_path / "t.npz")
    np.testing.assert_array_equal(c.atoms, a.atoms)
    np.testing.assert_array_equal(c.tail, a.tail)


def test_exact_vs_monte_carlo():
    # n = 3, T = 5: exact P over the same family vs MC scores; they differ only by MC error.
    fam = reference_family(3)
    ex = exact_calibration(3, 5, reference=fam, flat_levels=0)
    mc = build_calibration(3, 5, n_resamples=20000, rng=11, reference=fam, block_size=5000)
    d = ex.atoms / 1e10
    diff = np.abs(ex.score(d) - mc.score(d))
    # max over 133 vectors of binomial errors: sd <= 0.5/sqrt(B) = 0.0035; allow ~5 sd
    assert diff.max() < 0.018, diff.max()
    assert ex.score(np.array([0.0]))[0] == pytest.approx(1.0)


def test_all_common_settings_are_shipped():
    from benchkit.boundary._calibration_lookup import _DATA
    from benchkit.boundary._calibration_lookup import SHIPPED_N
    from benchkit.boundary._calibration_lookup import SHIPPED_T
    from benchkit.boundary._calibration_lookup import table_path

    for n in SHIPPED_N:
        for T in SHIPPED_T:
            tab = CalibrationTable.load(_DATA / table_path(n, T))
            assert (tab.n, tab.T, tab.n_resamples, tab.rng) == (n, T, 200_000, 42)
            assert tab.reference.shape == reference_family(n).shape
            assert np.all(np.diff(tab.atoms) > 0)
            assert np.all(np.diff(tab.tail) <= 0)


def test_shipped_table_lookup():
    tab = get_calibration(6, 20)
    assert tab.n_resamples == 200_000
    assert tab.rng == 42
    assert tab.reference.shape == (217, 6)
    assert tab.min_score == pytest.approx(1 / 200_001)
    assert tab.score(np.array([0.0]))[0] == 1.0


def test_false_flag_rate_under_monotone_profiles():
    # Monotone truths (flat at several levels, increasing, step); rate of o <= 0.05 must be
    # <= 0.05 within MC error. 6,000 items per profile: sd of a 5% rate is 0.0028.
    tab = get_calibration(6, 20)
    rng = np.random.default_rng(2024)
    truths = {
        "flat0.1": [0.1] * 6, "flat0.5": [0.5] * 6, "flat0.8": [0.8] * 6,
        "increasing": np.linspace(0.2, 0.8, 6), "step": [0.3, 0.3, 0.3, 0.7, 0.7, 0.7],
    }
    from benchkit.boundary.steps import profiles

    for name, th in truths.items():
        k = rng.binomial(20, np.asarray(th)[None, :], size=(6000, 6))
        rate = profiles(k, 20, calibration=tab).flagged.mean()
        print(name, rate)
        assert rate <= 0.05 + 3 * 0.0028, (name, rate)


def test_errors():
    with pytest.raises(ValueError, match="must be non-decreasing"):
        build_calibration(3, 5, n_resamples=10, reference=[[0.5, 0.2, 0.9]])
    with pytest.raises(ValueError, match="more than max_vectors"):
        exact_calibration(6, 20, max_vectors=500_000)
    with pytest.raises(ValueError, match="method='mcmc' is not allowed"):
        get_calibration(6, 20, method="mcmc")
    with pytest.raises(ValueError, match="rng=-1 must be a non-negative integer"):
        build_calibration(3, 5, n_resamples=10, rng=-1)
    with pytest.raises(TypeError, match="rng must be None, a non-negative int"):
        build_calibration(3, 5, n_resamples=10, rng="42")
    with pytest.raises(ValueError, match="n_resamples"):
        build_calibration(3, 5, n_resamples=0)
    with pytest.raises(ValueError, match="n_jobs=0 is not allowed"):
        build_calibration(3, 5, n_resamples=10, n_jobs=0)


def test_rng_forms():
    # an int and SeedSequence(int) give the same table (benchkit._random's rule) and the same
    # int is recorded; a Generator is consumed: two calls with it give different draws
    a = build_calibration(3, 5, n_resamples=500, rng=9, block_size=200)
    b = build_calibration(3, 5, n_resamples=500, rng=np.random.SeedSequence(9), block_size=200)
    np.testing.assert_array_equal(a.atoms, b.atoms)
    np.testing.assert_array_equal(a.tail, b.tail)
    assert a.rng == 9
    assert b.rng == 9
    g = np.random.default_rng(1)
    c = build_calibration(3, 5, n_resamples=500, rng=g, block_size=200)
    d = build_calibration(3, 5, n_resamples=500, rng=g, block_size=200)
    assert c.rng is None
    assert not (np.array_equal(c.atoms, d.atoms) and np.array_equal(c.tail, d.tail))


# ----------------------------------------------------------------------------------------------
# Monte Carlo tables against the exact null, atom by atom (issue 13)
# ----------------------------------------------------------------------------------------------
def test_exact_reference_tails_equal_brute_force():
    # oracle: naive.brute_tails lists all (T+1)^n count vectors with itertools (exact-rational D,
    # scipy binomial pmfs); keys between and beyond atoms are asked too
    import naive
    from benchkit.boundary._calibration_exact import exact_reference_tails

    n, T = 3, 4
    theta = np.vstack([reference_family(3)[[0, 7, 30, 60]], [[0.1, 0.5, 0.95]]])
    atoms, tails = naive.brute_tails(n, T, theta)
    got = exact_reference_tails(n, T, np.array(atoms), reference=theta)
    np.testing.assert_allclose(got, np.array([tails[d] for d in atoms]), rtol=0, atol=1e-12)
    # a key just above atom j has the tail of atom j+1; above the last atom, 0; below 0, 1
    mid = np.array([atoms[3] + 1, atoms[-1] + 1, -5])
    got_mid = exact_reference_tails(n, T, mid, reference=theta)
    np.testing.assert_allclose(got_mid[0], tails[atoms[4]], atol=1e-12)
    np.testing.assert_allclose(got_mid[1], 0.0, atol=0)
    np.testing.assert_allclose(got_mid[2], 1.0, atol=1e-12)


def test_compare_with_exact_p_value_equals_brute_force_max_of_binomials():
    # oracle: the distribution of the table entry M = max(C_1, C_2, C_3), C_a ~ Bin(B, p_a)
    # independent, by listing all (B+1)^3 joint outcomes with scipy's binomial pmf
    import itertools

    from scipy.stats import binom

    from benchkit.boundary._calibration_exact import compare_with_exact

    B = 6
    P = np.array([[0.9, 0.7, 0.85], [0.4, 0.45, 0.1], [0.05, 0.2, 0.01]])  # (atoms, vectors)
    counts = np.array([6, 1, 3])
    tab = CalibrationTable(n=3, T=5, method="monte-carlo", n_resamples=B, rng=None, block_size=1,
                           reference=np.array([[0.1, 0.2, 0.3]] * 3),
                           atoms=np.array([10, 20, 30], dtype=np.int64), tail=counts,
                           argmax=np.zeros(3, dtype=np.int32))
    df = compare_with_exact(tab, exact_tails=P)
    for j in range(3):
        pm = np.zeros(B + 1)
        for cs in itertools.product(range(B + 1), repeat=3):
            pm[max(cs)] += math_prod(binom.pmf(cs[a], B, P[j, a]) for a in range(3))
        lo, hi = pm[:counts[j] + 1].sum(), pm[counts[j]:].sum()
        assert df.p_value[j] == pytest.approx(min(1.0, 2 * min(lo, hi)), rel=1e-10)
        p = P[j].max()
        assert df.z_binomial[j] == pytest.approx((counts[j] / B - p) / np.sqrt(p * (1 - p) / B))
    assert df.z[2] > 0  # 3 of 6 above the largest tail 0.2 is in the upper tail


def math_prod(xs):
    out = 1.0
    for x in xs:
        out *= x
    return out


def _check_agreement(n, T, cross_check=True):
    from benchkit.boundary._calibration_exact import compare_with_exact
    from benchkit.boundary._calibration_exact import exact_reference_tails

    mc = get_calibration(n, T)
    P = exact_reference_tails(n, T, mc.atoms)
    if cross_check:  # two code paths agree: the max over vectors is exact_calibration's envelope
        ex = exact_calibration(n, T, reference=mc.reference, flat_levels=0)
        np.testing.assert_allclose(P.max(axis=1), ex.score_keys(mc.atoms), rtol=0, atol=1e-12)
    df = compare_with_exact(mc, exact_tails=P)
    return df


@pytest.mark.parametrize(("n", "T"), [(3, 50), (4, 20), (5, 10), (6, 5), (7, 5)])
def test_shipped_tables_equal_exact_within_4_standard_errors(n, T):
    # every atom: the exact two-sided p-value of the table entry (max over the family of
    # binomial counts) maps to |z| <= 4; where the normal approximation to the binomial holds
    # (B p, B (1 - p) >= 10) the plain binomial z of the maximizing vector is <= 4 as well
    df = _check_agreement(n, T)
    assert np.abs(df.z).max() <= 4.0, df.loc[np.abs(df.z).idxmax()]
    ok = df[df.normal_ok]
    assert len(ok) >= 0.9 * len(df)
    assert np.abs(ok.z_binomial).max() <= 4.0, ok.loc[np.abs(ok.z_binomial).idxmax()]


@pytest.mark.slow
def test_shipped_n6_T20_equals_exact_within_4_standard_errors():
    # the paper's setting: 21^6 = 85,766,121 count vectors (about 1 min on 2 shared cores; the
    # cross-check with exact_calibration's envelope, 2 more minutes, is in benchmarks/bench_boundary)
    df = _check_agreement(6, 20, cross_check=False)
    assert np.abs(df.z).max() <= 4.0, df.loc[np.abs(df.z).idxmax()]
    assert np.abs(df.z_binomial[df.normal_ok]).max() <= 4.0
    # the table's last atom is its largest simulated statistic over 217 x 200,000 draws: count 1
    # by construction, where the family expects < 1 draw in all; the plain binomial z of one
    # vector is meaningless there (5.9), the exact test is not
    top = df.iloc[-1]
    assert top["count"] == 1
    assert top["expected_all"] < 1.0
    assert top["z_binomial"] > 4.0
    assert top["p_value"] > 0.5


def test_compare_with_exact_errors():
    from benchkit.boundary._calibration_exact import compare_with_exact
    from benchkit.boundary._calibration_exact import exact_reference_tails

    ex = exact_calibration(3, 2, flat_levels=0)
    with pytest.raises(ValueError, match="Monte Carlo CalibrationTable"):
        compare_with_exact(ex)
    mc = build_calibration(3, 2, n_resamples=50, rng=1)
    with pytest.raises(ValueError, match="exact_tails must have shape"):
        compare_with_exact(mc, exact_tails=np.zeros((2, 3)))
    with pytest.raises(ValueError, match="more than max_vectors"):
        exact_reference_tails(6, 20, [1], max_vectors=1000)
    with pytest.raises(ValueError, match="keys"):
        exact_reference_tails(3, 2, np.array([0.5]))


def test_rng_entropy_repeats_the_build():
    # rule 5: the table records the entropy of its root; rng=table.rng_entropy rebuilds it, and
    # an int rng gives the table of before (sums computed at d7d702c)
    a = build_calibration(3, 5, n_resamples=2000, rng=7, reference=reference_family(3)[:5])
    assert a.rng_entropy == 7
    assert [int(a.atoms.sum()), int(a.tail.sum()), int(a.tail[:5].sum())] == [1039603373940, 13251,
                                                                                6741]
    b = build_calibration(3, 5, n_resamples=500, rng=np.random.default_rng(2), block_size=200)
    assert isinstance(b.rng_entropy, int)
    c = build_calibration(3, 5, n_resamples=500, rng=b.rng_entropy, block_size=200)
    np.testing.assert_array_equal(c.atoms, b.atoms)
    np.testing.assert_array_equal(c.tail, b.tail)
    # get_calibration: shipped tables record their seed; an unshipped setting is built
    assert get_calibration(6, 20).rng_entropy == 42
    d = get_calibration(3, 5, n_resamples=1000, rng=7, cache=False)
    assert [int(d.atoms.sum()), int(d.tail.sum())] == [1705692894045, 6915]
    e = get_calibration(3, 5, n_resamples=500, rng=None, cache=False)
    f = get_calibration(3, 5, n_resamples=500, rng=e.rng_entropy, cache=False)
    np.testing.assert_array_equal(f.atoms, e.atoms)
    np.testing.assert_array_equal(f.tail, e.tail)
    assert exact_calibration(3, 2).rng_entropy is None
