"""Trajectories (Sec. 3.1), model axes (App. F) and profile on simulated and real data."""
import numpy as np
import pandas as pd
import pytest
from scipy.stats import entropy as scipy_entropy

import benchkit.boundary as bb
from benchkit import NO_ANSWER
from benchkit import ResponseSet


def _long(rows):
    return pd.DataFrame(rows, columns=["model", "item", "sample", "correct", "answer"])


@pytest.fixture(scope="module")
def small():
    # 3 models x 2 items x T = 4, answer states; m1 < m2 < m3 by principal accuracy
    rows = []
    ans = {  # (model, item): answers of the 4 samples; "A" is correct for q1, "B" for q2
        ("m1", "q1"): ["C", "C", "D", "A"], ("m2", "q1"): ["A", "C", "A", "A"],
        ("m3", "q1"): ["A", "A", "A", "A"], ("m1", "q2"): ["A", "A", "A", "A"],
        ("m2", "q2"): ["B", "A", NO_ANSWER, "A"], ("m3", "q2"): ["B", "B", "A", "B"],
    }
    key = {"q1": "A", "q2": "B"}
    for (m, q), a in ans.items():
        for s, x in enumerate(a):
            rows.append((m, q, s, float(x == key[q]), x))
    # roster order m3, m1, m2 so that the axis must reorder
    models = pd.DataFrame({"model": ["m3", "m1", "m2"]})
    items = pd.DataFrame({"item": ["q1", "q2"], "text": ["first?", "second?"]})
    return ResponseSet.from_long(_long(rows), models=models, items=items, parse_names=False)


def test_trajectories_hand_worked(small):
    tr = bb.steps.trajectories(small, axis=["m1", "m2", "m3"])
    assert tr.entropy_source == "answers"
    assert tr.T == 4
    np.testing.assert_array_equal(tr.counts, [[1, 3, 4], [0, 1, 3]])
    np.testing.assert_allclose(tr.c, tr.counts / 4)
    # q1 states seen on the axis: C, D, A -> M = 3; q2: A, B, NO_ANSWER -> M = 3
    np.testing.assert_array_equal(tr.n_states, [3, 3])
    # Eq. 2 by scipy.stats.entropy (natural log) / log M
    e_m1_q1 = scipy_entropy([2, 1, 1]) / np.log(3)
    e_m2_q2 = scipy_entropy([1, 2, 1]) / np.log(3)
    assert tr.entropy[0, 0] == pytest.approx(e_m1_q1, abs=1e-14)
    assert tr.entropy[1, 1] == pytest.approx(e_m2_q2, abs=1e-14)
    assert tr.entropy[0, 2] == 0.0
    assert tr.entropy[1, 0] == 0.0
    d = tr.distribution("q2")
    assert d.loc["B", "m3"] == 0.75
    assert bool(d.loc["B", "correct"])
    assert not d.loc[NO_ANSWER, "correct"]
    assert set(tr.to_frame().columns) >= {"item", "model", "position", "k", "c", "e"}


def test_sub_axis_recomputes_M(small):
    tr = bb.steps.trajectories(small, axis=["m1", "m2", "m3"])
    sub = tr.select_models([0, 2])  # drop m2: q2 loses NO_ANSWER, q1 keeps C, D, A
    np.testing.assert_array_equal(sub.n_states, [3, 2])
    assert sub.entropy[1, 1] == pytest.approx(scipy_entropy([1, 3]) / np.log(2), abs=1e-14)


def test_binary_entropy_when_only_correctness():
    k = np.array([[0, 5, 10], [10, 10, 10], [0, 0, 0]])
    frame = pd.DataFrame({
        "model": np.tile(["a", "b", "c"], 3), "item": np.repeat(["q1", "q2", "q3"], 3),
        "n_correct": k.ravel(), "n_samples": 10,
    })
    rs = ResponseSet.from_counts(frame, parse_names=False)
    tr = bb.steps.trajectories(rs, axis=["a", "b", "c"])
    assert tr.entropy_source == "binary"
    # q1: both states seen, e = H(Bern(c))/log 2; q2, q3: one state, M = 1 -> 0
    np.testing.assert_allclose(tr.entropy[0], [0.0, 1.0, 0.0], atol=1e-15)
    assert np.all(tr.entropy[1:] == 0.0)
    res = bb.profile(rs, axis=["a", "b", "c"])
    np.testing.assert_allclose(res.profile.entropy, tr.entropy)
    with pytest.raises(ValueError, match="states='answers' needs answer states"):
        bb.steps.trajectories(rs, axis=["a", "b", "c"], states="answers")


def test_empirical_axis_ties_keep_roster_order():
    # principal accuracy: a 0.5, b 0.25, c 0.5, d 0.25 -> b, d (roster order), then a, c
    Y = pd.DataFrame({"a": [1, 1, 0, 0], "b": [1, 0, 0, 0], "c": [0, 1, 1, 0], "d": [0, 0, 0, 1]},
                     index=[f"q{i}" for i in range(4)])
    rs = ResponseSet.from_wide(Y, parse_names=False)
    ax = bb.steps.empirical_axis(rs)
    assert ax.models == ("b", "d", "a", "c")
    assert ax.accuracy_kind == "principal"
    assert ax.accuracy == (0.25, 0.25, 0.5, 0.5)
    assert ax.n_items == 4
    # another roster order breaks ties differently
    ax2 = bb.steps.empirical_axis(rs, models=["d", "c", "b", "a"])
    assert ax2.models == ("d", "b", "c", "a")
    assert bb.steps.model_axis(rs, axis=["c", "a"]).models == ("c", "a")  # explicit order is kept
    with pytest.raises(ValueError, match="not in the ResponseSet"):
        bb.steps.empirical_axis(rs, models=["a", "zz"])
    with pytest.raises(ValueError, match="axis='bogus' is not allowed"):
        bb.steps.model_axis(rs, axis="bogus")


def test_empirical_axis_uses_complete_items_and_principal():
    # m2 is missing q3; q3 must not count for anyone. Principal = first sample.
    rows = [("m1", "q1", 0, 1.0), ("m1", "q1", 1, 0.0), ("m2", "q1", 0, 0.0), ("m2", "q1", 1, 1.0),
            ("m1", "q2", 0, 0.0), ("m1", "q2", 1, 0.0), ("m2", "q2", 0, 0.0), ("m2", "q2", 1, 1.0),
            ("m1", "q3", 0, 0.0), ("m1", "q3", 1, 0.0)]
    rs = ResponseSet.from_long(pd.DataFrame(rows, columns=["model", "item", "sample", "correct"]),
                               parse_names=False)
    ax = bb.steps.empirical_axis(rs)
    # principal accuracy on {q1, q2}: m1 = 1/2, m2 = 0/2 (mean correctness would rank m2 higher)
    assert ax.models == ("m2", "m1")
    assert ax.n_items == 2


def test_subaxes_and_mapping():
    ax = bb.steps.explicit_axis([f"m{i}" for i in range(6)])
    subs = bb.steps.subaxes(ax, sizes=(3, 4, 5))
    assert [s.n for s in subs].count(3) == 4
    assert [s.n for s in subs].count(4) == 6
    assert [s.n for s in subs].count(5) == 4  # App. H.2: four, six and four sub-axes
    assert all(s.models[0] == "m0" and s.models[-1] == "m5" for s in subs)
    s = ax.subaxis(["m0", "m2", "m5"])
    assert s.positions == (0.0, 0.4, 1.0)
    # hand-worked: 0.5 on the sub-axis is model m2 -> 0.4; 0.75 -> 0.4 + 0.5 * 0.6 = 0.7
    np.testing.assert_allclose(s.map_positions([0.0, 0.5, 0.75, 1.0]), [0.0, 0.4, 0.7, 1.0])


def test_per_model_budget_needs_common_T():
    frame = pd.DataFrame({"model": ["a", "b", "a", "b"], "item": ["q1", "q1", "q2", "q2"],
                          "n_correct": [1, 3, 0, 5], "n_samples": [5, 10, 5, 10]})
    rs = ResponseSet.from_counts(frame, sample_budget="per_model", parse_names=False)
    with pytest.raises(ValueError, match="must share one response budget"):
        bb.profile(rs, axis=["a", "b"])


def test_ladder_profiles_match_array_api_and_find_planted_items():
    from benchkit.simulate import repeated_sampling

    sim = repeated_sampling(n_items=300, T=10, rng=20260601,
                            flawed={"non_monotone": 0.05, "flat": 0.1})
    rs = sim.to_response_set() if hasattr(sim, "to_response_set") else sim.responses
    res = bb.profile(rs, axis="size")
    assert res.axis.models == tuple(rs.model_ids)  # ladder roster is in size order
    again = bb.steps.profiles(res.trajectories.counts, res.T, entropy=res.trajectories.entropy)
    pd.testing.assert_frame_equal(res.profile.to_frame().reset_index(drop=True),
                                  again.to_frame().reset_index(drop=True))
    df = res.to_frame()
    planted = df.index.isin(sim.truth.items_with("non_monotone"))
    recall = df.loc[planted, "flagged"].mean()
    false_rate = df.loc[~planted, "flagged"].mean()
    print("recall", recall, "false-flag", false_rate)
    assert recall >= 0.5
    assert false_rate <= 0.06
    # item metadata rides along for explorers
    assert "answer_key" in df.columns
    assert df["n_states"].min() >= 1
    assert set(res.trajectory_frame(df.index[0]).columns) == {"position", "k", "c", "e", "fit", "block"}


def test_eval_arena_codellama_ladder():
    from benchkit import BenchkitValueError
    from benchkit import datasets

    try:
        rs = datasets.fetch("eval-arena", benchmark="cruxeval_output")
    except BenchkitValueError as exc:  # pragma: no cover - only the loader's missing-data error
        if "could not download" not in str(exc):
            raise
        pytest.skip(f"eval-arena data unavailable: {exc}")
    ladder = ["codellama-7b", "codellama-13b", "codellama-34b"]
    ax = bb.steps.size_axis(rs, models=ladder)
    assert ax.models == tuple(ladder)
    res = bb.profile(rs, axis=ax)
    assert res.T == 10
    assert res.n_items == 800
    assert res.trajectories.entropy_source == "binary"
    # oracle: the counts are the loader's k/10 counts in axis order
    cm = rs.counts()
    np.testing.assert_array_equal(res.profile.counts,
                                  cm.K[:, cm.models.get_indexer(ladder)])
    emp = bb.steps.empirical_axis(rs, models=ladder)
    acc = cm.K[:, cm.models.get_indexer(ladder)].mean(axis=0) / 10  # mean correctness (no principal)
    assert emp.accuracy_kind == "mean"
    np.testing.assert_allclose(emp.accuracy, np.sort(acc))
    summ = bb.steps.summarize_profiles(res)
    print(summ.to_frame().T)
    assert 0 < summ.anomaly_rate < 0.5
