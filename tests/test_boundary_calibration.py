"""Calibration tables: Eq. 19 semantics, reproducibility, exact vs Monte Carlo, false-flag rate."""
import numpy as np
import pytest

from benchkit._kernels import lrt
from benchkit.boundary import CalibrationTable, build_table, exact_table, get_table, reference_family


def test_family_size_matches_paper():
    assert reference_family(6).shape == (217, 6)  # App. D.3: 217 vectors for n = 6
    fam = reference_family(5)
    assert np.all(np.diff(fam, axis=1) >= 0)
    assert fam.min() > 0
    assert fam.max() < 1


def test_score_semantics_against_direct_eq19():
    theta = reference_family(3)[[0, 10, 40]]
    B = 3000
    tab = build_table(3, 5, n_resamples=B, rng=5, reference=theta, block_size=700)
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

    a = build_table(3, 5, n_resamples=2000, rng=3, block_size=300)
    with parallel_config(backend="threading"):  # same code path as processes, no worker start-up
        b = build_table(3, 5, n_resamples=2000, rng=3, block_size=300, n_jobs=2, chunk=7)
    with limit_threads(1):
        c1 = build_table(3, 5, n_resamples=2000, rng=3, block_size=300)
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
    ex = exact_table(3, 5, reference=fam, flat_levels=0)
    mc = build_table(3, 5, n_resamples=20000, rng=11, reference=fam, block_size=5000)
    d = ex.atoms / 1e10
    diff = np.abs(ex.score(d) - mc.score(d))
    # max over 133 vectors of binomial errors: sd <= 0.5/sqrt(B) = 0.0035; allow ~5 sd
    assert diff.max() < 0.018, diff.max()
    assert ex.score(np.array([0.0]))[0] == pytest.approx(1.0)


def test_all_common_settings_are_shipped():
    from benchkit.boundary._calibration import _DATA, SHIPPED_N, SHIPPED_T, table_path

    for n in SHIPPED_N:
        for T in SHIPPED_T:
            tab = CalibrationTable.load(_DATA / table_path(n, T))
            assert (tab.n, tab.T, tab.n_resamples, tab.rng) == (n, T, 200_000, 42)
            assert tab.reference.shape == reference_family(n).shape
            assert np.all(np.diff(tab.atoms) > 0)
            assert np.all(np.diff(tab.tail) <= 0)


def test_shipped_table_lookup():
    tab = get_table(6, 20)
    assert tab.n_resamples == 200_000
    assert tab.rng == 42
    assert tab.reference.shape == (217, 6)
    assert tab.min_score == pytest.approx(1 / 200_001)
    assert tab.score(np.array([0.0]))[0] == 1.0


def test_false_flag_rate_under_monotone_profiles():
    # Monotone truths (flat at several levels, increasing, step); rate of o <= 0.05 must be
    # <= 0.05 within MC error. 6,000 items per profile: sd of a 5% rate is 0.0028.
    tab = get_table(6, 20)
    rng = np.random.default_rng(2024)
    truths = {
        "flat0.1": [0.1] * 6, "flat0.5": [0.5] * 6, "flat0.8": [0.8] * 6,
        "increasing": np.linspace(0.2, 0.8, 6), "step": [0.3, 0.3, 0.3, 0.7, 0.7, 0.7],
    }
    from benchkit.boundary import profiles

    for name, th in truths.items():
        k = rng.binomial(20, np.asarray(th)[None, :], size=(6000, 6))
        rate = profiles(k, 20, calibration=tab).flagged.mean()
        print(name, rate)
        assert rate <= 0.05 + 3 * 0.0028, (name, rate)


def test_errors():
    with pytest.raises(ValueError, match="must be non-decreasing"):
        build_table(3, 5, n_resamples=10, reference=[[0.5, 0.2, 0.9]])
    with pytest.raises(ValueError, match="more than max_vectors"):
        exact_table(6, 20, max_vectors=500_000)
    with pytest.raises(ValueError, match="method='mcmc' is not allowed"):
        get_table(6, 20, method="mcmc")
    with pytest.raises(ValueError, match="rng=-1 must be a non-negative integer"):
        build_table(3, 5, n_resamples=10, rng=-1)
    with pytest.raises(TypeError, match="rng must be None, a non-negative int"):
        build_table(3, 5, n_resamples=10, rng="42")
    with pytest.raises(ValueError, match="n_resamples"):
        build_table(3, 5, n_resamples=0)
    with pytest.raises(ValueError, match="n_jobs=0 is not allowed"):
        build_table(3, 5, n_resamples=10, n_jobs=0)


def test_rng_forms():
    # an int and SeedSequence(int) give the same table (benchkit._random's rule) and the same
    # int is recorded; a Generator is consumed: two calls with it give different draws
    a = build_table(3, 5, n_resamples=500, rng=9, block_size=200)
    b = build_table(3, 5, n_resamples=500, rng=np.random.SeedSequence(9), block_size=200)
    np.testing.assert_array_equal(a.atoms, b.atoms)
    np.testing.assert_array_equal(a.tail, b.tail)
    assert a.rng == 9
    assert b.rng == 9
    g = np.random.default_rng(1)
    c = build_table(3, 5, n_resamples=500, rng=g, block_size=200)
    d = build_table(3, 5, n_resamples=500, rng=g, block_size=200)
    assert c.rng is None
    assert not (np.array_equal(c.atoms, d.atoms) and np.array_equal(c.tail, d.tail))
