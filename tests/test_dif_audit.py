"""benchkit.dif.audit_rankings on a ResponseSet: the whole primary analysis (paper 001)."""
import numpy as np
import pandas as pd
import pytest

from benchkit import ResponseSet
from benchkit._random import seed_sequence
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit.dif import analyze_robustness
from benchkit.dif import audit_rankings
from benchkit.dif.steps import robustness_pass


def test_audit_tables(dif_sim_rs, dif_result):
    _s, rs = dif_sim_rs
    r = dif_result
    row = r.to_frame().iloc[0]
    assert row.K == "4/4"
    j = r.ranking.thresholds.index(0.01)
    assert row.close_n == r.ranking.eligible[j].sum()
    assert row.excess_pp == pytest.approx(100 * (r.ranking.rate[j] - np.median(
        r.controls.replicates[:, j])))
    # the pair table lists exactly the counted reversals
    pairs = r.pairs_frame()
    assert int(pairs.reversed.sum()) == int(r.ranking.flips[j].sum())
    assert int((~pairs.anchor_tie).sum()) == int(r.ranking.eligible[j].sum())
    assert list(r.alpha_sensitivity.alpha) == [0.3, 0.5]
    assert set(r.items_frame().half) == {0, 1}
    assert len(r.scores_frame()) == r.population.representatives().size
    # population report: every model accounted for
    assert len(r.population.excluded_frame()) + r.population.retained.size == rs.n_models
    # source contributions sum to the family shift in each direction (Eq. 57)
    sc = r.scores_frame()
    for h in (0, 1):
        d = r.decomposition[r.decomposition.direction == f"{h}->{1 - h}"]
        for f in r.families:
            m = (sc.fold == h) & (sc.family == f)
            assert d[d.family == f].contribution_pp.sum() == pytest.approx(
                100 * sc[m]["shift"].mean(), abs=1e-10)
    assert set(r.timings) >= {"population", "matched-random controls"}


def test_audit_reproducible_and_njobs(dif_sim_rs, dif_result, dif_small_options):
    _s, rs = dif_sim_rs
    b = audit_rankings(rs, min_family_size=10, K=(4, 4), rng=3, n_jobs=2, **dif_small_options)
    np.testing.assert_array_equal(b.controls.replicates, dif_result.controls.replicates)
    np.testing.assert_array_equal(b.bootstrap.replicates, dif_result.bootstrap.replicates)
    np.testing.assert_array_equal(b.owner_shifts.replicates, dif_result.owner_shifts.replicates)
    np.testing.assert_array_equal(b.replication.null, dif_result.replication.null)
    np.testing.assert_array_equal(b.anchors[0].weights, dif_result.anchors[0].weights)


def test_robustness_rows(dif_sim_rs, dif_result):
    _s, rs = dif_sim_rs
    pert = {"owner cap 1": {"owner_cap": 1, "min_family_size": 5},
            "omit qwen": {"omit": ("qwen",), "min_family_size": 10},
            "impossible": {"min_family_size": 10_000}}
    tab = analyze_robustness(rs, dif_result, perturbations=pert, n_controls=20, rng=0, progress=False)
    assert list(tab.variant) == ["baseline cap 5", "owner cap 1", "omit qwen", "impossible"]
    assert "qwen" not in tab.loc[2, "families"]
    assert "min_family_size" in tab.loc[3, "error"]
    assert tab.loc[1, "K"] == "4/4"  # K frozen
    ok = tab.dropna(subset=["excess_pp"]).assign(variant="x")
    assert robustness_pass(ok).G_dir.iloc[0] == (ok.excess_pp > 0).sum()


def test_audit_errors(dif_sim_rs):
    s, rs = dif_sim_rs
    with pytest.raises(BenchkitTypeError, match="ResponseSet"):
        audit_rankings(s.Y)
    with pytest.raises(BenchkitValueError, match="leave 0 families"):
        audit_rankings(rs, progress=False, min_family_size=10_000)
    with pytest.raises(BenchkitValueError, match="owners"):
        audit_rankings(rs, owners="family", progress=False)
    with pytest.raises(BenchkitValueError, match="epsilon"):
        audit_rankings(rs, epsilon=0.015, progress=False)
    wide = pd.DataFrame({"a/llama-1": [1.0, np.nan], "b/qwen-2": [0.0, 1.0]}, index=["x", "y"])
    with pytest.raises(BenchkitValueError, match="complete binary matrix"):
        audit_rankings(ResponseSet.from_wide(wide), progress=False)


def test_explore_views(dif_result):
    from benchkit.dif import explore

    r = dif_result
    hm = explore.heatmap_view(r)
    assert np.all(np.diff(hm.D.to_numpy()) <= 0)  # ordered by D_i
    assert hm.anchor.sum() == r.anchors[0].selected[-1].sum()
    assert list(hm.columns[-len(r.families):]) == list(r.families)
    agg = explore.heatmap_view(r, bins=10)
    assert len(agg) == 10
    assert agg.n_items.sum() == len(hm)
    assert agg.anchor.mul(agg.n_items).sum() == pytest.approx(hm.anchor.sum())
    sig = explore.signature_view(r, hm.item.iloc[0])
    assert len(sig) == 2 * len(r.families)
    assert sig[sig.half == 0].D.iloc[0] == hm.D.iloc[0]
    curve = explore.reversal_curve_view(r)
    assert curve.primary.sum() == 1
    pairs = explore.near_tie_view(r)
    assert pairs.reversed.iloc[0] or not pairs.reversed.any()
    with pytest.raises(BenchkitValueError, match="not in this audit"):
        explore.signature_view(r, "nope")
    assert explore.dimension_selection_view(r).empty  # K frozen: nothing was selected


def test_dimension_selection_view_is_the_one_se_rule(dif_selected):
    # Eq. 23 by hand: K* = the smallest K whose mean loss is within one SE of the best K's
    from benchkit.dif import explore

    v = explore.dimension_selection_view(dif_selected)
    for h, sel in enumerate(dif_selected.selection):
        f = v[v.half == h]
        best = int(np.argmin(sel.mean_loss))
        limit = sel.mean_loss[best] + sel.se[best]
        assert f["threshold"].iloc[0] == limit
        ok = [k for k, m in zip(sel.grid, sel.mean_loss) if m <= limit]
        assert f.loc[f["selected"], "K"].tolist() == [min(ok)] == [sel.K_star]
        assert f.loc[f["best"], "K"].tolist() == [sel.grid[best]]


def test_compare_family_shifts_self_is_zero(dif_result):
    from benchkit.dif.steps import compare_family_shifts

    tab = compare_family_shifts(dif_result, dif_result, n_resamples=30, rng=0)
    np.testing.assert_allclose(tab.difference_pp, 0, atol=1e-12)
    np.testing.assert_allclose(tab.left_shift_pp, tab.right_shift_pp)
    sc = dif_result.scores_frame()
    assert tab.n_models.sum() == len(sc)


def test_audit_content_sample(dif_result):
    sheet, key = dif_result.content_sample(n_pairs=10, benchmark="sim", rng=0)
    rep = dif_result.replication
    pos = {it: k for k, it in enumerate(dif_result.item_ids)}
    hi = key[key.group == "high"].item.map(pos).to_numpy()
    lo = key[key.group == "control"].item.map(pos).to_numpy()
    assert np.all(rep.high_D[hi] & rep.high_V[hi])
    assert not np.any(rep.high_D[lo] | rep.high_V[lo])
    assert set(sheet.blinded_id) == set(key.blinded_id)
    assert key.advantaged_D.isin(dif_result.families).all()


@pytest.mark.slow
def test_variant_changes_only_what_its_perturbation_names(dif_sim_rs, dif_small_options,
                                                          monkeypatch):
    # App. D.2: "all remaining parameters are held at their primary values". A primary audit at
    # anchor_fraction = 0.3 (and other non-default population settings) must run its variants at
    # 0.3, not at the 0.5 default (the anchor share was 0.52 instead of 0.30).
    from benchkit.dif import _robustness

    _s, rs = dif_sim_rs
    primary = audit_rankings(rs, min_family_size=10, K=(4, 4), anchor_fraction=0.3, owner_cap=4,
                             representative="lexicographic", population_rng=7, rng=3,
                             **dif_small_options)
    seen = {}

    def spy(name, fn):
        def wrapped(*args, **kw):
            out = fn(*args, **kw)
            seen.setdefault(name, []).append((kw, out))
            return out
        monkeypatch.setattr(_robustness, name, wrapped)

    spy("build_population", _robustness.build_population)
    spy("cross_fit", _robustness.cross_fit)
    analyze_robustness(rs, primary, perturbations={"owner cap 1": {"owner_cap": 1}, "same": {}},
               n_controls=10, rng=0, progress=False)
    for kw, cf in seen["cross_fit"]:
        for fa in cf.anchors:  # k_c = max(1, round(0.3 n_c)) per cell: the share is ~0.30
            assert abs(fa.selected[-1].mean() - 0.3) < 0.03
        assert kw["anchor_fraction"] == 0.3
        assert kw["K"] == primary.K
    (kw1, pop1), (kw0, pop0) = seen["build_population"]
    assert seed_sequence(kw1.pop("rng")).entropy == 7  # the primary's population seed
    assert kw1 == {"families": primary.settings["families"], "owner_cap": 1, "min_family_size": 10,
                   "representative": "lexicographic", "owners": None}
    # the empty perturbation rebuilds exactly the primary population
    pd.testing.assert_frame_equal(pop0.table, primary.population.table)
    with pytest.raises(BenchkitValueError,
                       match=r"overrides \['anchor_fraction'\] are not population settings"):
        _robustness.run_variant(rs.binary(), primary.model_ids, primary.source, primary.K,
                                overrides={"anchor_fraction": 0.5}, base=primary.settings)


@pytest.mark.slow
def test_audit_records_the_population_seed_it_used(dif_sim_rs, dif_small_options):
    # population_rng=None draws fresh entropy: the settings record it, so the population variants
    # (run_variant) rebuild the primary's population, not a new random one
    _s, rs = dif_sim_rs
    a = audit_rankings(rs, min_family_size=10, K=(4, 4), population_rng=None, rng=3, **dif_small_options)
    ent = a.settings["population_rng_entropy"]
    assert isinstance(ent, int)
    assert a.settings["population_rng_spawn_key"] == ()
    assert a.rng_entropy == 3
    b = audit_rankings(rs, min_family_size=10, K=(4, 4), population_rng=ent, rng=3, **dif_small_options)
    pd.testing.assert_frame_equal(a.population.table, b.population.table)
    np.testing.assert_array_equal(a.anchors[0].weights, b.anchors[0].weights)
    assert audit_rankings(rs, min_family_size=10, K=(4, 4), rng=3,
                          **dif_small_options).settings["population_rng_entropy"] == 0  # the default


def test_audit_rng_entropy_repeats_and_int_seed_unchanged(dif_small_options):
    # rule 5: rng=audit.rng_entropy repeats the whole audit, also after rng=None; an int seed gives
    # the numbers it gave before rng_entropy was recorded (printed by commit d7d702c's code)
    from benchkit.dif.steps import run_audit
    from benchkit.dif.steps import simulate_family_dif

    sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=3)
    wide = pd.DataFrame(sim.Y, index=[f"q{i}" for i in range(120)], columns=list(sim.model_ids))
    rs = ResponseSet.from_wide(wide, items=pd.DataFrame({"item": wide.index, "source": sim.source}))
    first = audit_rankings(rs, min_family_size=5, K=(2, 2), rng=None, **dif_small_options)
    assert isinstance(first.rng_entropy, int)
    again = audit_rankings(rs, min_family_size=5, K=(2, 2), rng=first.rng_entropy, **dif_small_options)
    np.testing.assert_array_equal(again.controls.replicates, first.controls.replicates)
    np.testing.assert_array_equal(again.bootstrap.replicates, first.bootstrap.replicates)
    np.testing.assert_array_equal(again.replication.null, first.replication.null)
    a = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5, K=(2, 2),
                  sensitivity_fractions=(0.3,), n_controls=30, n_bootstrap=30, n_owner_bootstrap=30,
                  n_permutations=30, rng=11, progress=False)
    assert a.rng_entropy == 11
    assert float(np.nansum(a.controls.replicates)) == 46.92860522162832
    assert float(np.nansum(a.bootstrap.replicates)) == 30.12385553332164
    assert float(np.nansum(a.owner_shifts.replicates)) == -164.30933359600633
    assert float(a.replication.null.sum()) == 18.548987198185063
    assert int(np.flatnonzero(a.anchors[0].selected[-1]).sum()) == 3794
