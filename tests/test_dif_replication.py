"""Replication, source attribution, robustness rule (App. D.2-D.3) and the content audit (D.4)."""
import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr
from statsmodels.stats.contingency_tables import mcnemar

from benchkit._validation import BenchkitValueError
from benchkit.dif._audit_content import BINARY_AXES
from benchkit.dif._audit_content import ORDINAL_AXES
from benchkit.dif._audit_content import analyze_annotations
from benchkit.dif._audit_content import content_sample
from benchkit.dif._replication import _spearman_cols
from benchkit.dif._replication import replicate_signatures
from benchkit.dif._replication import top_fraction_sets
from benchkit.dif._replication import within_cell_center
from benchkit.dif._robustness import PERTURBATIONS
from benchkit.dif._robustness import robustness_pass
from benchkit.dif._sources import source_decomposition
from benchkit.dif._sources import source_effects


@pytest.fixture(scope="module")
def cf(dif_cross_fit):
    return dif_cross_fit(4)


def test_perturbations_are_the_nine():
    assert len(PERTURBATIONS) == 9
    assert all(v["min_family_size"] == 15 for v in PERTURBATIONS.values())


def test_within_cell_center_and_top_sets_hand():
    delta = np.array([[1.0, -1.0], [3.0, -3.0], [5.0, 0.0]])
    cells = np.array([0, 0, 1])
    np.testing.assert_array_equal(within_cell_center(delta, cells),
                                  [[-1, 1], [1, -1], [0, 0]])
    D = np.array([0.1, 0.9, 0.5, 0.5, 0.2, 0.3, 0.8, 0.4, 0.6, 0.7, 0.05])
    c = np.array([0] * 10 + [1])
    # cell 0: round(0.2*10)=2 largest -> items 1, 6; cell 1: max(1, round(0.2)) = 1
    assert np.flatnonzero(top_fraction_sets(D, c, 0.2)).tolist() == [1, 6, 10]


def test_spearman_matches_scipy():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(50, 3)), rng.normal(size=(50, 3))
    b[:, 0] = a[:, 0] + 0.1 * b[:, 0]
    got = _spearman_cols(a, b)
    want = [spearmanr(a[:, f], b[:, f]).statistic for f in range(3)]
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_replication_identical_halves_and_planted(cf):
    s, _pop, fit = cf
    a = fit.anchors[0]
    rep = replicate_signatures(a, a, s.source, n_resamples=40, rng=1)
    assert rep.median_rho == pytest.approx(1.0)
    assert rep.overlap == 1.0
    assert rep.agreement == 1.0
    np.testing.assert_array_equal(rep.p_values, 1 / 41)
    real = replicate_signatures(fit.anchors[0], fit.anchors[1], s.source, n_resamples=60, rng=1)
    assert real.median_rho > 0.2  # planted effects replicate
    assert real.overlap > 0.2
    assert real.p_values[0] == 1 / 61
    again = replicate_signatures(fit.anchors[0], fit.anchors[1], s.source, n_resamples=60,
                                 rng=1, n_jobs=2)
    np.testing.assert_array_equal(again.null, real.null)


def test_source_decomposition_sums_exactly(cf):
    s, pop, fit = cf
    fams = pop.table["family"].to_numpy(object)
    for h in (0, 1):
        ft = fit.folds[h]
        tab = source_decomposition(ft.Y, fams[ft.models], ft.weights, s.source, pop.families)
        for f in pop.families:
            m = fams[ft.models] == f
            shift = 100 * (ft.weighted()[m].mean() - ft.full[m].mean())
            total = tab.loc[tab.family == f, "contribution_pp"].sum()
            assert abs(total - shift) < 1e-10  # Eq. 57
    eff = source_effects(fit.anchors[0], fit.anchors[1], s.source, min_items=20)
    assert len(eff) == 4 * len(pop.families)
    assert set(eff.selected_as) == {"positive", "negative"}


def test_robustness_pass_hand():
    t = pd.DataFrame({"variant": ["v"] * 5 + ["w"] * 5,
                      "excess_pp": [1, 2, 3, -1, -2, 1, 2, 3, 4, -1],
                      "p_value": [.01, .01, .2, .01, .5, .01, .01, .04, .2, .01]})
    out = robustness_pass(t).set_index("variant")
    assert out.loc["v", "G_dir"] == 3
    assert out.loc["v", "G_sig"] == 3
    assert bool(out.loc["v", "passes"])
    assert out.loc["w", "G_sig"] == 4
    assert bool(out.loc["w", "passes"])


def _annotations(key, planted, effect, noise, rng):
    high = (key.group == "high").to_numpy()
    out = {"blinded_id": key.blinded_id.to_numpy()}
    for ax in BINARY_AXES:
        p = np.where(high & (ax == planted), 0.2 + effect, 0.2)
        out[ax] = (rng.random(len(key)) < p).astype(int)
    for ax in ORDINAL_AXES:
        out[ax] = rng.integers(0, 4, len(key))
    return pd.DataFrame(out)


def test_content_audit_finds_planted_axis():
    rng = np.random.default_rng(3)
    keys = []
    for bench in range(5):  # five benchmarks, 50 matched pairs each
        n = 400
        cells = rng.integers(0, 8, n)
        hD = rng.random(n) < 0.3
        hV = hD & (rng.random(n) < 0.9)
        sheet, key = content_sample(hD, hV, cells, [f"b{bench}-{i}" for i in range(n)],
                                    texts=[f"q{i}" for i in range(n)], benchmark=f"bench{bench}",
                                    n_pairs=50, rng=bench)
        key["pair"] += 1000 * bench
        assert set(sheet.columns) == {"blinded_id", "text"}
        assert (key.groupby("pair").cell.nunique() == 1).all()  # exact-cell matches
        keys.append(key)
    key = pd.concat(keys, ignore_index=True)
    assert (key.group == "high").sum() == 250
    ann_a = _annotations(key, "negation", 0.35, 0.0, rng)
    # annotator B agrees with A on 90% of binary labels
    ann_b = ann_a.copy()
    for ax in BINARY_AXES:
        flip = rng.random(len(ann_b)) < 0.05
        ann_b.loc[flip, ax] = 1 - ann_b.loc[flip, ax]
    ann_b[list(ORDINAL_AXES)] = np.clip(ann_a[list(ORDINAL_AXES)] + rng.integers(-1, 2, (len(key), 3)), 0, 3)
    res = analyze_annotations(key, ann_a, ann_b)
    assert res.criteria.set_index("axis").confirmed.to_dict() == {
        ax: ax == "negation" for ax in BINARY_AXES}
    assert res.passes
    assert res.reliability_passes
    # exact McNemar p against statsmodels for one axis
    row = res.binary[(res.binary.annotator == "A") & (res.binary.axis == "negation")].iloc[0]
    merged = key.merge(ann_a, on="blinded_id")
    hi = merged[merged.group == "high"].sort_values("pair")["negation"].to_numpy()
    lo = merged[merged.group == "control"].sort_values("pair")["negation"].to_numpy()
    tab = pd.crosstab(pd.Categorical(hi, [0, 1]), pd.Categorical(lo, [0, 1]), dropna=False).to_numpy()
    assert row.p == pytest.approx(mcnemar(tab, exact=True).pvalue, rel=1e-10)
    # no planted axis -> nothing confirmed
    null = analyze_annotations(key, _annotations(key, None, 0, 0, rng), ann_b)
    assert not null.passes


def test_content_errors():
    with pytest.raises(BenchkitValueError, match="no stable"):
        content_sample([False], [False], [0], ["a"], rng=0)


def test_family_direction_tests_planted_and_null():
    from benchkit.dif.steps import family_direction_tests

    rng = np.random.default_rng(5)
    n = 160
    fam = np.array(["llama", "qwen"])[rng.integers(0, 2, n)]
    key = pd.DataFrame({"blinded_id": [f"x{i}" for i in range(n)], "group": "high",
                        "pair": np.arange(n), "benchmark": np.array(["a", "b"])[np.arange(n) % 2],
                        "advantaged_D": fam, "advantaged_V": fam})
    ann = pd.DataFrame({"blinded_id": key.blinded_id})
    for ax in BINARY_AXES:
        p = np.where((ax == "code_structured") & (fam == "qwen"), 0.7, 0.3)
        ann[ax] = (rng.random(n) < p).astype(int)
    res = family_direction_tests(key, ann, n_resamples=400, rng=0).set_index("axis")
    assert res.loc["code_structured", "q"] <= 0.05
    assert (res.drop(index="code_structured").q > 0.05).all()
    # hand check of the statistic for one axis: sum over benchmarks of n_f (p_f - p)^2
    x = ann["wordplay"].to_numpy(float)
    want = 0.0
    for b in ("a", "b"):
        m = key.benchmark.to_numpy() == b
        for f in ("llama", "qwen"):
            mf = m & (fam == f)
            want += mf.sum() * (x[mf].mean() - x[m].mean()) ** 2
    assert res.loc["wordplay", "statistic"] == pytest.approx(want)
    again = family_direction_tests(key, ann, n_resamples=400, rng=0, n_jobs=2)
    np.testing.assert_array_equal(again.p.to_numpy(), res.p.to_numpy())


def _drop_family(fa, fam):
    import dataclasses

    keep = [i for i, f in enumerate(fa.families) if f != fam]
    return dataclasses.replace(fa, delta=fa.delta[:, keep], families=tuple(fa.families[i] for i in keep))


def test_replication_uses_the_families_both_halves_estimated(cf):
    # halves with different family sets (a family whose owners all fell into one half) are compared
    # on the common families: the same as dropping that family from both halves by hand
    s, _pop, fit = cf
    d, v = fit.anchors
    gone = d.families[0]
    mixed = replicate_signatures(d, _drop_family(v, gone), s.source, n_resamples=30, rng=2)
    both = replicate_signatures(_drop_family(d, gone), _drop_family(v, gone), s.source,
                                n_resamples=30, rng=2)
    assert mixed.families == both.families
    assert gone not in mixed.families
    np.testing.assert_array_equal(mixed.rho, both.rho)
    np.testing.assert_array_equal(mixed.argmax_D, both.argmax_D)
    eff = source_effects(d, _drop_family(v, gone), s.source)
    assert gone not in set(eff["family"])
    one = _drop_family(v, gone)
    for f in one.families[1:]:
        one = _drop_family(one, f)
    with pytest.raises(ValueError, match="at least 2 families estimated in both halves"):
        replicate_signatures(d, one, s.source, n_resamples=5, rng=0)


def test_replication_rng_entropy_repeats_and_int_seed_unchanged():
    # rule 5: rng=result.rng_entropy repeats the permutations; an int seed gives the null it gave
    # before (the sum printed by commit d7d702c's code with the same calls)
    from benchkit.dif.steps import build_population
    from benchkit.dif.steps import cross_fit
    from benchkit.dif.steps import simulate_family_dif

    sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=3)
    pop = build_population(sim.model_ids, sim.Y.mean(0), min_family_size=5, rng=4)
    cf = cross_fit(sim.Y, pop, sim.source, K=(2, 2), rng=5)
    first = replicate_signatures(cf.anchors[0], cf.anchors[1], sim.source, n_resamples=70, rng=None)
    again = replicate_signatures(cf.anchors[0], cf.anchors[1], sim.source, n_resamples=70,
                                 rng=first.rng_entropy)
    np.testing.assert_array_equal(again.null, first.null)
    rep = replicate_signatures(cf.anchors[0], cf.anchors[1], sim.source, n_resamples=70, rng=10)
    assert rep.rng_entropy == 10
    assert float(rep.null.sum()) == 32.36256549451737
