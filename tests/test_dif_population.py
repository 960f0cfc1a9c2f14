"""Population rules of the family-DIF audit (paper 001, App. C.1, D.2)."""
import numpy as np
import pytest

from benchkit._validation import BenchkitValueError
from benchkit.dif.steps import assign_families
from benchkit.dif.steps import build_population
from benchkit.dif.steps import model_owners
from benchkit.dif.steps import simulate_family_dif


def test_family_patterns_hand_cases():
    # hand-worked against App. C.1's table: unique case-insensitive match, phi as token start
    ids = ["meta/Llama-3-8B", "a/Qwen2-7B", "b/gemma-2-9b", "c/Mixtral-8x7B", "d/Mistral-7B",
           "microsoft/Phi-3-mini", "x/graphite-7b", "y/qwen-llama-merge", "z/yi-34b",
           "u/my_phi2", "v/CodeLlama-7b"]
    fam, nm = assign_families(ids)
    assert list(fam) == ["llama", "qwen", "gemma", "mistral", "mistral", "phi", None, None, None,
                         "phi", "llama"]
    assert list(nm) == [1, 1, 1, 1, 1, 1, 0, 2, 0, 1, 1]


def test_owner_is_uploader():
    assert list(model_owners(["Meta/llama-7b", "qwen1.5-7b", "someone/x/y"])) == [
        "meta", "alibaba", "someone"]


def _population(**kw):
    ids, acc, _own = [], [], []
    rng = np.random.default_rng(0)
    for o in range(12):
        for f in ("Llama", "Qwen"):
            for k in range(7 if o % 3 == 0 else 2):
                ids.append(f"own{o}/{f}-{k}")
                acc.append(rng.random())
    return build_population(ids, np.array(acc), **kw), ids, np.array(acc)


def test_cap_halves_representatives():
    pop, _ids, _acc = _population(min_family_size=5)
    t = pop.table
    kept = t[t.status == "retained"]
    # at most 5 per owner-family; 4 owners had 7 per family: 2 capped each
    assert kept.groupby(["owner", "family"]).size().max() == 5
    assert (t.status == "owner cap 5").sum() == 4 * 2 * 2
    # owner-disjoint halves
    assert kept.groupby("owner")["half"].nunique().max() == 1
    assert set(kept.half) == {0, 1}
    # one representative per owner-family pair, closest to the pair's median accuracy
    reps = t[t.representative]
    assert len(reps) == kept.groupby(["owner", "family"]).ngroups
    for (o, f), grp in kept.groupby(["owner", "family"]):
        med = np.median(grp.accuracy)
        r = reps[(reps.owner == o) & (reps.family == f)]
        assert abs(r.accuracy.iloc[0] - med) == np.min(np.abs(grp.accuracy - med))


def test_cap_reproducible_and_seeded():
    a, _, _ = _population(min_family_size=5, rng=3)
    b, _, _ = _population(min_family_size=5, rng=3)
    assert a.table.equals(b.table)
    c, _, _ = _population(min_family_size=5, rng=4)
    assert not a.table.status.equals(c.table.status)


def test_min_family_size_and_omit_and_lexicographic():
    pop, _, _ = _population(min_family_size=40)
    assert pop.families == ()
    st = pop.table.status
    assert (st.str.contains("min_family_size=40") | (st == "owner cap 5")).all()
    assert st.str.contains("36 < min_family_size=40").sum() == 72  # 2 families x 36 capped
    pop2, _, _ = _population(min_family_size=5, omit=("qwen",))
    assert pop2.families == ("llama",)
    pop3, _, _ = _population(min_family_size=5, representative="lexicographic")
    kept = pop3.table[pop3.table.status == "retained"]
    firsts = kept.sort_values("model").groupby(["owner", "family"])["model"].first()
    assert set(pop3.table.model[pop3.table.representative]) == set(firsts)


def test_lineage_filter():
    pop = build_population(["a/llama-dpo", "a/llama-x", "b/Qwen-merge", "b/qwen-y"],
                           [0.1, 0.2, 0.3, 0.4], min_family_size=1, lineage_filter=True)
    assert list(pop.table.status) == ["lineage filter", "retained", "lineage filter", "retained"]


def test_halves_balance_on_simulation():
    s = simulate_family_dif(n_items=2000, n_models=1500, n_owners=200, rng=5)
    pop = build_population(s.model_ids, s.Y.mean(0))
    c = pop.counts_frame().pivot(index="family", columns="half", values="checkpoints")
    assert np.all(np.abs(c[0] - c[1]) <= 0.15 * (c[0] + c[1]))


def test_errors():
    with pytest.raises(BenchkitValueError, match="accuracy"):
        build_population(["a/llama"], [0.1, 0.2])
    with pytest.raises(BenchkitValueError, match="omit"):
        build_population(["a/llama"], [0.1], omit=("gpt",))
    with pytest.raises(BenchkitValueError, match="representative"):
        build_population(["a/llama"], [0.1], representative="best")


def test_population_and_simulation_rng_entropy():
    # rule 5 (benchkit._random): rng=result.rng_entropy repeats the run; an int seed gives the
    # numbers the code gave before rng_entropy was recorded (printed by commit d7d702c's code)
    small = {"n_items": 120, "n_models": 300, "n_sources": 4, "n_owners": 40}
    sim = simulate_family_dif(**small, rng=np.random.default_rng(1))
    assert isinstance(sim.rng_entropy, int)
    np.testing.assert_array_equal(simulate_family_dif(**small, rng=sim.rng_entropy).Y, sim.Y)
    pop = build_population(sim.model_ids, sim.Y.mean(0), min_family_size=5, rng=None)
    again = build_population(sim.model_ids, sim.Y.mean(0), min_family_size=5, rng=pop.rng_entropy)
    assert again.table.equals(pop.table)
    sim3 = simulate_family_dif(**small, rng=3)
    assert sim3.rng_entropy == 3
    assert (int(sim3.Y.sum()), sim3.model_ids[0]) == (18005, "owner0000/gemma-2-1B-v0")
    pop4 = build_population(sim3.model_ids, sim3.Y.mean(0), min_family_size=5, rng=4)
    assert pop4.rng_entropy == 4
    assert int(np.flatnonzero(pop4.table["status"].str.startswith("owner cap")).sum()) == 18839
