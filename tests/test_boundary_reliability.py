"""Reliability and sensitivity (App. G, H) against brute-force versions, scipy and statsmodels."""
import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon
from statsmodels.stats.multitest import multipletests

import benchkit.boundary as bb
from benchkit.boundary import _reliability as rel
from benchkit.boundary import _sensitivity as sens


def test_reliability_uses_the_shared_statistics():
    # the JSD and Holm of App. G are benchkit.stats' (checked against scipy / statsmodels in
    # tests/test_stats.py); the boundary package keeps no copy
    from benchkit import stats

    assert rel.jsd is stats.jsd
    assert rel.holm is stats.holm
    assert not hasattr(bb, "jsd")
    assert not hasattr(bb, "holm")


def _data(N=40, R=20, seed=0, dependent=True):
    rng = np.random.default_rng(seed)
    if dependent:  # item-specific role distributions -> self < cross
        pr = rng.dirichlet([0.3, 0.3, 0.3], N)
    else:
        pr = np.tile([0.5, 0.3, 0.2], (N, 1))
    roles = np.array([rng.choice(3, R, p=p) for p in pr])
    states = np.where(roles == 0, 0, np.where(roles == 2, 1, 2 + rng.integers(0, 3, (N, R))))
    return states, roles


def brute(states, roles, t, seed):
    """Eq. 20-22 with explicit loops, using the function's own random partition."""
    ss = np.random.SeedSequence(seed)
    s_part, s_boot, s_perm = ss.spawn(3)
    N, R = states.shape
    perm = np.argsort(np.random.default_rng(s_part).random((N, R)), axis=1)
    ro = np.take_along_axis(roles, perm, axis=1)
    half = R // 2
    U = lambda r: np.bincount(r, minlength=3) / len(r)  # noqa: E731
    A = [U(ro[q, :t]) for q in range(N)]
    B = [U(ro[q, half:half + t]) for q in range(N)]
    self_d = np.array([jensenshannon(A[q], B[q]) ** 2 for q in range(N)])
    cross = np.array([np.mean([jensenshannon(A[q], B[j]) ** 2 for j in range(N) if j != q])
                      for q in range(N)])
    return self_d, cross, A, B, s_boot


def test_split_half_matches_brute_force():
    states, roles = _data()
    res = bb.steps.split_half_reliability(states, roles, block_sizes=(2, 5, 10), t=10, n_resamples=300,
                                          n_permutations=300, rng=7)
    self_d, cross, A, B, s_boot = brute(states, roles, 10, 7)
    np.testing.assert_allclose(res.self_jsd, self_d, atol=1e-12)
    np.testing.assert_allclose(res.cross_jsd, cross, atol=1e-12)
    assert res.G == pytest.approx(np.mean(cross - self_d), abs=1e-12)
    # bootstrap replicate 0 by brute force: resample items, all ordered pairs of distinct draws
    kid = s_boot.spawn(1)[0]
    idx = np.random.default_rng(kid).integers(0, 40, 40)
    J = lambda a, b: jensenshannon(a, b) ** 2  # noqa: E731
    N = len(idx)
    cross_b = [np.mean([J(A[idx[i]], B[idx[j]]) for j in range(N) if j != i]) for i in range(N)]
    self_b = [J(A[q], B[q]) for q in idx]
    g0 = np.mean(np.array(cross_b) - np.array(self_b))
    ta, Jm = rel._role_types(np.array([np.round(a * 10).astype(int) for a in A]), 10)
    tb, _ = rel._role_types(np.array([np.round(b * 10).astype(int) for b in B]), 10)
    boot = rel._boot_block(kid, 0, 1, 40, ta, tb, Jm, res.self_jsd)
    assert boot[0] == pytest.approx(g0, abs=1e-12)
    assert res.ci[0] < res.G < res.ci[1]
    assert res.ci[0] > 0
    assert res.p_perm == pytest.approx(1 / 301)  # item-dependent: no permutation beats it
    assert res.table7().shape == (1, 3)
    assert np.all(np.diff(res.table7().to_numpy()) < 0)
    ct = res.contrasts_frame()
    assert ct.loc[10, "G"] == pytest.approx(res.G)
    assert ct.loc[10, "self_jsd"] == pytest.approx(self_d.mean())
    s5, c5, *_ = brute(states, roles, 5, 7)
    assert ct.loc[5, "cross_jsd"] == pytest.approx(c5.mean(), abs=1e-12)


def test_permutation_not_significant_under_exchangeable_items():
    states, roles = _data(dependent=False, seed=3)
    res = bb.steps.split_half_reliability(states, roles, block_sizes=(10,), t=10, n_resamples=200,
                                          n_permutations=400, rng=1)
    assert res.p_perm > 0.01


def test_reproducible_and_independent_of_n_jobs():
    from joblib import parallel_config

    states, roles = _data(N=30)
    a = bb.steps.split_half_reliability(states, roles, block_sizes=(5,), t=5, n_resamples=1200,
                                        n_permutations=1100, rng=11)
    with parallel_config(backend="threading"):
        b = bb.steps.split_half_reliability(states, roles, block_sizes=(5,), t=5, n_resamples=1200,
                                            n_permutations=1100, rng=11, n_jobs=2)
    assert a.ci == b.ci
    assert a.p_perm == b.p_perm
    assert a.G == b.G
    # rng rule (benchkit._random): SeedSequence(11) == 11; a Generator is consumed
    c = bb.steps.split_half_reliability(states, roles, block_sizes=(5,), t=5, n_resamples=1200,
                                        n_permutations=1100, rng=np.random.SeedSequence(11))
    assert c.ci == a.ci
    g = np.random.default_rng(5)
    d1 = bb.steps.split_half_reliability(states, roles, block_sizes=(5,), t=5, n_resamples=200,
                                         n_permutations=200, rng=g)
    d2 = bb.steps.split_half_reliability(states, roles, block_sizes=(5,), t=5, n_resamples=200,
                                         n_permutations=200, rng=g)
    assert d1.ci != d2.ci
    with pytest.raises(TypeError, match="rng must be None, a non-negative int"):
        bb.steps.split_half_reliability(states, roles, block_sizes=(5,), t=5, rng=1.5)
    with pytest.raises(ValueError, match="confidence_level"):
        bb.steps.split_half_reliability(states, roles, block_sizes=(5,), t=5, confidence_level=1.0)


def test_reliability_table_holm():
    rs = []
    for s in range(3):
        st, ro = _data(seed=s, dependent=s != 2)
        rs.append(bb.steps.split_half_reliability(st, ro, block_sizes=(10,), t=10, n_resamples=100,
                                                  n_permutations=200, rng=s, name=f"b{s}"))
    t = bb.steps.reliability_table(rs)
    np.testing.assert_allclose(t["p_holm"], multipletests(t["p_perm"], method="holm")[1])


def test_cruxeval_codellama_reliability():
    from benchkit import BenchkitValueError
    from benchkit import datasets

    try:
        rs = datasets.fetch("cruxeval")
    except BenchkitValueError as exc:  # pragma: no cover - only the loader's missing-data error
        if "could not download" not in str(exc):
            raise
        pytest.skip(f"cruxeval data unavailable: {exc}")
    res = bb.estimate_reliability(rs, "codellama-7b", n_resamples=500, n_permutations=500)
    print(res.to_frame().T, res.table7())
    assert res.block_sizes == (5,)
    assert res.t == 5
    assert res.n_items == 1600
    assert res.G > 0
    assert res.ci[0] > 0
    assert res.p_perm == pytest.approx(1 / 501)
    assert res.spearman_c[0] > 0.5


def test_errors():
    st, ro = _data(N=10, R=8)
    with pytest.raises(ValueError, match=r"need 2 t <= R = 8"):
        bb.steps.split_half_reliability(st, ro, block_sizes=(5,), t=4)
    with pytest.raises(ValueError, match="roles must be 0"):
        bb.steps.split_half_reliability(st, ro + 3, block_sizes=(2,), t=2)


# ---- App. H ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ladder():
    from benchkit.simulate import load_sample

    return bb.profile(load_sample("ladder"), axis="size")


def test_budget_sensitivity(ladder):
    r = bb.steps.budget_sensitivity(ladder, budgets=(5,), n_rep=6, rng=3)
    t = r.to_frame()
    assert list(t.index) == [5]
    assert t.loc[5, "n_rep"] == 6
    assert 70 < t.loc[5, "agreement_pct"] <= 100
    assert 0 < t.loc[5, "x_mae"] < 0.2
    from joblib import parallel_config

    with parallel_config(backend="threading"):
        again = bb.steps.budget_sensitivity(ladder, budgets=(5,), n_rep=6, rng=3, n_jobs=2)
    assert again.runs.equals(r.runs)  # same seeds per repetition whatever the worker count


def test_budget_subsets_are_hypergeometric():
    # Without-replacement subsets: E[k'] = k T'/T (hypergeometric mean), checked on the expanded,
    # permuted responses the function uses.
    k = np.array([[0, 3, 7, 10]])
    sc, ok = bb.steps.binary_state_counts(k, 10)
    seq = sens._expand_states(sc, 10)
    np.testing.assert_array_equal((seq == 1).sum(axis=2), k)
    rng = np.random.default_rng(0)
    tot = np.zeros(4)
    for _ in range(4000):
        perm = np.argsort(rng.random(seq.shape), axis=2)
        tot += (np.take_along_axis(seq, perm, axis=2)[:, :, :4] == 1).sum(axis=2)[0]
    np.testing.assert_allclose(tot / 4000, k[0] * 0.4, atol=0.06)


def test_budget_degenerate_items_agree_exactly():
    # every cell all-correct or all-wrong: any subset gives the same trajectories
    k = np.array([[0, 0, 10, 10], [0, 10, 10, 10], [10, 10, 10, 10]] * 5)
    sc, ok = bb.steps.binary_state_counts(k, 10)
    tr = bb.steps.state_trajectories(sc, ok, 10, entropy_source="binary")
    r = bb.steps.budget_sensitivity(tr, budgets=(5,), n_rep=3)
    assert (r.runs["agreement"] == 1.0).all()
    assert (r.runs["x_mae"] == 0).all()


def test_subaxis_sensitivity(ladder):
    res = bb.steps.subaxis_sensitivity(ladder)
    t = res.to_frame()
    assert list(t["n_subaxes"]) == [4, 6, 4]
    assert t["x_mae"].is_monotonic_decreasing  # fewer removed models, smaller error (Table 10)
    # oracle for one sub-axis: profiles on the kept columns, crossings mapped by np.interp
    keep = [0, 2, 5]
    models = tuple(ladder.axis.models[i] for i in keep)
    tr = ladder.trajectories.select_models(keep)
    p = bb.steps.profiles(tr.counts, 10, entropy=tr.entropy)
    coord = np.array(keep) / 5
    grid = np.array([0, 0.5, 1.0])
    xm = np.interp(p.q50, grid, coord)
    got = res.mapped[models]
    np.testing.assert_allclose(got["x"].to_numpy()[~p.flat], xm[~p.flat], atol=1e-12)
    both = ~p.flat & ~ladder.profile.flat
    row = res.runs[res.runs["models"] == " > ".join(models)].iloc[0]
    assert row["x_mae"] == pytest.approx(np.mean(np.abs(xm[both] - ladder.profile.x[both])))
    full = bb.steps.subaxis_sensitivity(ladder, sizes=(6,))
    assert full.runs["agreement"].iloc[0] == 1.0
    assert full.runs["x_mae"].iloc[0] == pytest.approx(0)


def test_budget_subsets_follow_scipy_hypergeom():
    # Oracle: scipy.stats.hypergeom. The first T' of a uniformly permuted cell of T responses, k of
    # them correct, hold k' correct with P(k') = hypergeom(M=T, n=k, N=T').pmf(k') (App. H.1's
    # nested subsets on count data). Checked on the permutation budget_sensitivity draws
    # (_expand_states + argsort of uniforms), every support point within 4 binomial SE.
    from scipy.stats import hypergeom

    T, Tp, R = 10, 5, 20_000
    k = np.array([[1, 4, 7]])
    sc, _ = bb.steps.binary_state_counts(k, T)
    seq = sens._expand_states(sc, T)
    rng = np.random.default_rng(11)
    draws = np.empty((R, k.shape[1]), dtype=np.int64)
    for r in range(R):
        perm = np.argsort(rng.random(seq.shape), axis=2)
        draws[r] = (np.take_along_axis(seq, perm, axis=2)[:, :, :Tp] == 1).sum(axis=2)[0]
    for j, kj in enumerate(k[0]):
        support = np.arange(Tp + 1)
        pmf = hypergeom(T, kj, Tp).pmf(support)
        freq = np.bincount(draws[:, j], minlength=Tp + 1) / R
        se = np.sqrt(pmf * (1 - pmf) / R) + 1e-12
        assert np.all(np.abs(freq - pmf) <= 4 * se + 1e-9), (kj, freq, pmf)


# ---- rule 5: a randomized result records the entropy of its root (benchkit._random) -----------
def _small_states():
    g = np.random.default_rng(0)
    return g.integers(0, 3, (12, 10)), g.integers(0, 3, (12, 10))


def test_split_half_rng_entropy_repeats_the_run():
    states, roles = _small_states()
    kw = dict(block_sizes=(2, 4), t=4, n_resamples=200, n_permutations=200)
    a = bb.steps.split_half_reliability(states, roles, rng=7, **kw)
    assert a.rng_entropy == 7
    # an int rng gives the numbers of before the root was resolved once (values computed at
    # d7d702c, where split_half_reliability spawned from rng directly)
    np.testing.assert_allclose([a.G, *a.ci, a.p_perm, *a.native_jsd[:3, 0]],
                               [0.02483643382094951, -0.021889899799517706, 0.0639159898308807,
                                0.2935323383084577, 0.0, 0.0, 0.6931471805599452], rtol=1e-12)
    # a Generator becomes a root with int entropy; that int repeats the run exactly
    b = bb.steps.split_half_reliability(states, roles, rng=np.random.default_rng(3), **kw)
    assert isinstance(b.rng_entropy, int)
    c = bb.steps.split_half_reliability(states, roles, rng=b.rng_entropy, **kw)
    assert (c.G, c.ci, c.p_perm) == (b.G, b.ci, b.p_perm)
    np.testing.assert_array_equal(c.native_jsd, b.native_jsd)


def test_estimate_reliability_rng_entropy_repeats_the_run():
    from benchkit.simulate import repeated_sampling

    rs = repeated_sampling(n_items=30, T=10, rng=0).responses
    kw = dict(n_resamples=200, n_permutations=200)
    a = bb.estimate_reliability(rs, rs.model_ids[2], rng=7, **kw)
    assert a.rng_entropy == 7
    # values computed at d7d702c (before the root was resolved once)
    np.testing.assert_allclose([a.G, *a.ci, a.p_perm, *a.native_jsd[:3, 0]],
                               [0.10971222403574446, 0.06647289731662256, 0.14576403217685427,
                                0.004975124378109453, 0.3112386795830575, 0.35664134705531714,
                                0.0863046217355341], rtol=1e-12)
    b = bb.estimate_reliability(rs, rs.model_ids[2], rng=None, **kw)
    c = bb.estimate_reliability(rs, rs.model_ids[2], rng=b.rng_entropy, **kw)
    assert (c.G, c.ci, c.p_perm) == (b.G, b.ci, b.p_perm)


def test_budget_sensitivity_rng_entropy_repeats_the_run():
    from benchkit.simulate import repeated_sampling

    prof = bb.profile(repeated_sampling(n_items=30, T=10, rng=0).responses)
    a = bb.steps.budget_sensitivity(prof, budgets=(5,), n_rep=3, rng=7)
    assert a.rng_entropy == 7
    # values computed at d7d702c (blocked_map spawned from rng directly)
    np.testing.assert_allclose(a.runs[["agreement", "x_mae", "w_mae"]].to_numpy().ravel(),
                               [0.9333333333333333, 0.06628188775510205, 0.08183035714285716,
                                0.9666666666666667, 0.12534893267651892, 0.16104064039408864,
                                0.9666666666666667, 0.084374518999519, 0.15888912938912939],
                               rtol=1e-12)
    b = bb.steps.budget_sensitivity(prof, budgets=(5,), n_rep=3, rng=np.random.default_rng(1))
    c = bb.steps.budget_sensitivity(prof, budgets=(5,), n_rep=3, rng=b.rng_entropy)
    assert c.runs.equals(b.runs)
