"""App. D.3 support rules (source-effect binomial support, fold-swap sign check), the public
robustness entry point and the results-preserving speed-ups of the paper-scale pipeline."""
import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest
from scipy.stats import rankdata
from scipy.stats import spearmanr

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit.dif._crossfit import cross_fit
from benchkit.dif._replication import _centered_ranks
from benchkit.dif._replication import _perm_block
from benchkit.dif._replication import _spearman_cols
from benchkit.dif._sources import source_effects
from benchkit.dif.steps import FoldSwapCheck
from benchkit.dif.steps import SourceSupport
from benchkit.dif.steps import build_population
from benchkit.dif.steps import fold_swap_signs
from benchkit.dif.steps import purify
from benchkit.dif.steps import robustness_table
from benchkit.dif.steps import run_variant
from benchkit.dif.steps import simulate_family_dif
from benchkit.dif.steps import source_decomposition
from benchkit.dif.steps import source_support
from benchkit.irt._spectral import fit_spectral
from benchkit.irt._spectral import standardize


# ------------------------------------------------------------------ source_support
def _eff(k, n):
    return pd.DataFrame({"replicated": [True] * k + [False] * (n - k)})


def test_source_support_hand_and_scipy():
    s = source_support({"A": _eff(18, 20), "B": _eff(14, 20), "C": _eff(9, 20)})
    assert isinstance(s, SourceSupport)
    # hand: pooled 41 / 60; benchmarks at >= 65%: A (90%) and B (70%); C 45% fails
    assert (s.n_selected, s.n_replicated, s.n_benchmarks_meeting) == (60, 41, 2)
    assert s.rate == pytest.approx(41 / 60)
    # oracle: scipy's exact binomial test; 41/60 = 68.3% < 70% so the pooled rule fails
    assert s.p_value == pytest.approx(binomtest(41, 60, 0.5, alternative="greater").pvalue)
    assert s.supported is False
    per = s.per_benchmark.set_index("benchmark")
    assert per.loc["B", "p_value"] == pytest.approx(binomtest(14, 20, alternative="greater").pvalue)
    assert per["meets_benchmark_rate"].tolist() == [True, True, False]
    f = s.to_frame()
    assert f["benchmark"].tolist() == ["A", "B", "C", "pooled"]
    assert f.iloc[-1]["n_replicated"] == 41
    assert f["supported"].tolist() == [None, None, None, False]


def test_source_support_rule_boundaries():
    # 70% exactly passes the rate criterion (">= 70%"); 28/40 has binomial p = 0.0083
    assert source_support({"A": _eff(14, 20), "B": _eff(14, 20)}).supported is True
    # high pooled rate but only one benchmark at >= 65%
    assert source_support({"A": _eff(20, 20), "B": _eff(12, 20)}).supported is False
    assert source_support({"A": _eff(20, 20), "B": _eff(12, 20)}, min_benchmarks=1).supported
    # few trials: 4/4 = 100% but one-sided binomial p = 1/16 > 0.05
    small = source_support({"A": _eff(2, 2), "B": _eff(2, 2)})
    assert small.p_value == pytest.approx(1 / 16)
    assert small.supported is False


def test_source_support_on_source_effects(cf):
    s, _pop, fit = cf
    eff = source_effects(fit.anchors[0], fit.anchors[1], s.source)
    got = source_support(eff)  # one frame = one benchmark
    assert got.n_selected == len(eff)
    assert got.n_replicated == int(eff["replicated"].sum())
    assert got.per_benchmark["benchmark"].tolist() == ["benchmark"]


def test_source_support_errors():
    with pytest.raises(BenchkitValueError, match="replicated"):
        source_support(pd.DataFrame({"x": [1]}))
    with pytest.raises(BenchkitValueError, match="booleans"):
        source_support(pd.DataFrame({"replicated": [1, 2]}))
    with pytest.raises(BenchkitValueError, match="empty"):
        source_support({})
    with pytest.raises(BenchkitTypeError, match="DataFrame"):
        source_support([1, 2])
    with pytest.raises(BenchkitTypeError, match=r"effects\['A'\]"):
        source_support({"A": [True]})
    with pytest.raises(BenchkitValueError, match="min_rate"):
        source_support(_eff(1, 2), min_rate=1.5)
    with pytest.raises(BenchkitValueError, match="min_benchmarks"):
        source_support(_eff(1, 2), min_benchmarks=0)


# ------------------------------------------------------------------ fold_swap_signs
def _decomp():
    fw = {"s1": 3.0, "s2": -1.0, "s3": 2.0, "s4": -4.0, "s5": 0.5, "s6": 0.0}
    sw = {"s1": 1.0, "s2": 0.2, "s3": 2.5, "s4": -1.0, "s5": -7.0, "s6": 3.0}
    rows = [{"direction": "0->1", "family": "a", "source": k, "contribution_pp": v}
            for k, v in fw.items()]
    rows += [{"direction": "1->0", "family": "a", "source": k, "contribution_pp": v}
             for k, v in sw.items()]
    # family b: one positive contribution only; its swapped value is exactly zero
    rows += [{"direction": "0->1", "family": "b", "source": "s1", "contribution_pp": 1.0},
             {"direction": "0->1", "family": "b", "source": "s2", "contribution_pp": -0.5},
             {"direction": "1->0", "family": "b", "source": "s1", "contribution_pp": 0.0},
             {"direction": "1->0", "family": "b", "source": "s2", "contribution_pp": -0.1}]
    return pd.DataFrame(rows)


def test_fold_swap_signs_hand():
    chk = fold_swap_signs(_decomp())
    assert isinstance(chk, FoldSwapCheck)
    t = chk.to_frame()
    a = t[t["family"] == "a"]
    # hand: positives by size s1 (3), s3 (2) [s5 0.5 not in the top 2, s6 zero excluded];
    # negatives s4 (-4), s2 (-1); swapped signs: s1 +, s3 +, s4 -, s2 + (flips)
    assert a["source"].tolist() == ["s1", "s3", "s4", "s2"]
    assert a["selected_as"].tolist() == ["positive", "positive", "negative", "negative"]
    assert a["same_sign"].tolist() == [True, True, True, False]
    b = t[t["family"] == "b"]
    assert b["source"].tolist() == ["s1", "s2"]
    assert b["same_sign"].tolist() == [False, True]
    assert (chk.n_checked, chk.n_same) == (6, 4)
    assert chk.rate == pytest.approx(4 / 6)
    assert chk.families_frame().set_index("family")["n_same"].to_dict() == {"a": 3, "b": 1}
    one = fold_swap_signs(_decomp(), n_select=1)
    assert one.to_frame()["source"].tolist() == ["s1", "s4", "s1", "s2"]


def test_fold_swap_signs_on_a_cross_fit_matches_pandas(cf):
    s, pop, fit = cf
    fam_all = pop.table["family"].to_numpy(object)
    parts = []
    for h, ft in enumerate(fit.folds):
        d = source_decomposition(ft.Y, fam_all[ft.models], ft.weights, s.source, pop.families)
        d.insert(0, "direction", f"{h}->{1 - h}")
        parts.append(d)
    dec = pd.concat(parts, ignore_index=True)
    chk = fold_swap_signs(dec)
    # oracle: pandas nlargest / nsmallest per family on the forward direction
    fw = dec[dec["direction"] == "0->1"]
    sw = dec[dec["direction"] == "1->0"].set_index(["family", "source"])["contribution_pp"]
    n = same = 0
    for _fam, d in fw.groupby("family"):
        pick = pd.concat([d[d["contribution_pp"] > 0].nlargest(2, "contribution_pp"),
                          d[d["contribution_pp"] < 0].nsmallest(2, "contribution_pp")])
        for _, r in pick.iterrows():
            n += 1
            same += np.sign(sw[(r["family"], r["source"])]) == np.sign(r["contribution_pp"])
    assert (chk.n_checked, chk.n_same) == (n, same)
    assert n > 0


def test_fold_swap_signs_errors():
    with pytest.raises(BenchkitTypeError, match="DataFrame"):
        fold_swap_signs([1])
    with pytest.raises(BenchkitValueError, match="columns"):
        fold_swap_signs(pd.DataFrame({"family": ["a"]}))
    with pytest.raises(BenchkitValueError, match="forward='2->3'"):
        fold_swap_signs(_decomp(), forward="2->3")
    with pytest.raises(BenchkitValueError, match="n_select"):
        fold_swap_signs(_decomp(), n_select=0)


# ------------------------------------------------------------------ speed-ups keep results
@pytest.fixture(scope="module")
def cf():
    s = simulate_family_dif(n_items=500, n_models=900, n_owners=120, n_sources=5,
                            dif_source_sd=1.0, rng=8)
    pop = build_population(s.model_ids, s.Y.mean(0), min_family_size=10)
    return s, pop, cross_fit(s.Y, pop, s.source, K=(4, 4), rng=0)


def test_permutation_null_reuses_ranks_exactly():
    # The null ranks dV once and permutes the ranks; oracle: rank every permuted copy (the
    # former code path, scipy rankdata) -- equal to the last bit, since centered average ranks
    # are multiples of 1/2 and their sums are exact.
    rng = np.random.default_rng(3)
    n = 240
    dD, dV = rng.normal(size=(n, 4)), rng.normal(size=(n, 4))
    dV[:30] = np.round(dV[:30], 1)  # ties
    cells = rng.integers(0, 6, n)
    HD, HV = rng.random(n) < 0.2, rng.random(n) < 0.2
    amD, amV = rng.integers(0, 4, n), rng.integers(0, 4, n)
    got = _perm_block(11, 0, 20, _centered_ranks(dD), _centered_ranks(dV), HD, HV, amD, amV,
                      cells)
    g = np.random.default_rng(11)
    groups = [np.flatnonzero(cells == c) for c in np.unique(cells)]
    for r in range(20):
        perm = np.arange(n)
        for idx in groups:
            perm[idx] = g.permutation(idx)
        rho = np.nanmedian(_spearman_cols(dD, dV[perm]))
        assert got[r, 0] == rho
        assert rho == pytest.approx(np.median([spearmanr(dD[:, f], dV[perm, f]).statistic
                                               for f in range(4)]), abs=1e-12)
        both = HD & HV[perm]
        assert got[r, 1] == both.sum() / HD.sum()
        assert got[r, 2] == np.mean(amD[both] == amV[perm][both])
    np.testing.assert_array_equal(_centered_ranks(dV), rankdata(dV, axis=0) - (n + 1) / 2)


def test_fit_spectral_reuses_a_standardization_exactly(cf):
    s = cf[0]
    Y = s.Y[:, :300]
    rows = np.arange(0, 500, 3)
    a = fit_spectral(Y, 6, rows=rows, rng=1)
    b = fit_spectral(Y, 6, rows=rows, standardized=standardize(Y), rng=1)
    np.testing.assert_array_equal(a.offsets(), b.offsets())
    with pytest.raises(BenchkitValueError, match="standardized X has shape"):
        fit_spectral(Y, 6, standardized=standardize(Y[:, :10]))


def test_purify_deterministic_and_restores_cells(cf):
    s, pop, _fit = cf
    cols = pop.half_models(0)
    fam = pop.table["family"].to_numpy(object)[cols]
    a = purify(np.ascontiguousarray(s.Y[:, cols]), fam, s.source, K=4, rng=5)
    b = purify(np.ascontiguousarray(s.Y[:, cols]), fam, s.source, K=4, rng=5)
    np.testing.assert_array_equal(a.weights, b.weights)
    np.testing.assert_array_equal(a.delta, b.delta)
    # every cell's mass restored exactly: sum of weights within a cell = its size (Eq. 6)
    for c in np.unique(a.cells):
        m = a.cells == c
        assert a.weights[m].sum() == pytest.approx(m.sum(), rel=0, abs=1e-9)


def test_robustness_table_public_and_n_jobs_invariant():
    from benchkit.dif.steps import run_audit

    s = simulate_family_dif(n_items=300, n_models=700, n_owners=90, n_sources=3, rng=4)
    res = run_audit(s.Y, s.model_ids, source=s.source, min_family_size=5, K=(2, 2),
                    n_controls=20, n_bootstrap=20, n_owner_bootstrap=20, n_permutations=20,
                    rng=0, progress=False)
    pert = {"owner cap 3": {"owner_cap": 3, "min_family_size": 5},
            "omit qwen": {"omit": ("qwen",), "min_family_size": 5}}
    t1 = robustness_table(s.Y, res, perturbations=pert, n_controls=30, rng=1, progress=False)
    t2 = robustness_table(s.Y, res, perturbations=pert, n_controls=30, rng=1, n_jobs=2,
                          progress=False)
    pd.testing.assert_frame_equal(t1, t2)
    assert t1["variant"].tolist()[1:] == list(pert)
    assert t1["K"].tolist() == ["2/2"] * 3  # K frozen from the primary analysis
    row = run_variant(s.Y, s.model_ids, s.source, res.K, overrides=pert["omit qwen"],
                      base=res.settings, n_controls=30, rng=5)
    assert "qwen" not in row["families"]


@pytest.mark.parametrize("backend", ["threading", "loky"])
def test_cross_fit_halves_in_parallel_equal_serial(cf, backend):
    # The halves always run at once on internal threads (thread_map), whatever n_jobs is; BLAS is
    # pinned to one thread inside them (OpenBLAS sums differ by ~1e-13 between thread counts), so
    # every array equals the one-thread run (limit_threads(1): the halves one after the other)
    # to the last bit.
    import joblib

    from benchkit._kernels.boundary_threads import limit_threads

    s, pop, _fit = cf
    with limit_threads(1):
        serial = cross_fit(s.Y, pop, s.source, grid=(1, 2, 4, 8), rng=2, n_jobs=1)
    with joblib.parallel_config(backend=backend):
        par = cross_fit(s.Y, pop, s.source, grid=(1, 2, 4, 8), rng=2, n_jobs=2)
    assert par.K == serial.K
    for a, b in zip(serial.selection, par.selection):
        np.testing.assert_array_equal(a.model_loss, b.model_loss)
    for a, b in zip(serial.anchors, par.anchors):
        np.testing.assert_array_equal(a.round_D, b.round_D)
        np.testing.assert_array_equal(a.delta, b.delta)
        np.testing.assert_array_equal(a.weights, b.weights)
