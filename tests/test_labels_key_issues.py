"""benchkit.labels.key_issues / steps.score_keys: planted flaws recovered, formulas, inputs, errors.

Oracles: the simulator's planted ``miskeyed`` and ``ambiguous`` items (benchkit.simulate.
mcq_probabilities, ground truth in sim.truth.items.flaw); scipy's logsumexp for the score
formula; hand-worked weights and per-model counts.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

import benchkit
from benchkit import NO_ANSWER
from benchkit import ResponseSet
from benchkit.labels import ISSUE_KINDS
from benchkit.labels import key_issues
from benchkit.labels.steps import model_weights
from benchkit.labels.steps import score_keys
from benchkit.stats import auroc


@pytest.fixture(scope="module")
def sims():
    return [benchkit.simulate.mcq_probabilities(n_items=1000, n_models=14, rng=seed) for seed in (11, 12)]


@pytest.mark.parametrize("probabilities", [None, False])
def test_planted_miskeyed_items_are_recovered(sims, probabilities):
    for sim in sims:
        res = key_issues(sim.responses, probabilities=probabilities)
        f = res.to_frame()
        flaw = sim.truth.items["flaw"].astype(str).reindex(f.index).to_numpy()
        mis, clean = flaw == "miskeyed", flaw == "none"
        assert auroc(f["score"][mis | clean].to_numpy(), mis[mis | clean]) >= 0.93
        wrong = (f["issue"] == "wrong_key").to_numpy()
        assert wrong[mis].mean() >= 0.5   # measured 0.63-0.67 (the rest: weak models share the key)
        assert wrong[clean].mean() <= 0.03  # measured 0.005-0.016
        # the alternative of a flagged miskeyed item is the planted true answer
        true = sim.truth.items["true_answer"].astype(str).reindex(f.index).to_numpy()
        hit = wrong & mis
        assert (f["alternative"].to_numpy()[hit] == true[hit]).mean() >= 0.95


def test_planted_ambiguous_items_are_recovered_from_probabilities(sims):
    for sim in sims:
        res = key_issues(sim.responses)
        assert res.votes_from == "option probabilities"
        f = res.to_frame()
        flaw = sim.truth.items["flaw"].astype(str).reindex(f.index).to_numpy()
        amb = (f["issue"] == "ambiguous").to_numpy()
        assert amb[flaw == "ambiguous"].mean() >= 0.5  # measured 0.68-0.78
        assert amb[flaw == "none"].mean() <= 0.08  # measured ~0.04: hard items split like ambiguous ones
        partner = sim.truth.items["partner"].astype(str).reindex(f.index).to_numpy()
        sel = amb & (flaw == "ambiguous")
        assert (f["alternative"].to_numpy()[sel] == partner[sel]).all()
        keep = flaw != "miskeyed"
        assert auroc(f["score"][keep].to_numpy(), (flaw == "ambiguous")[keep]) >= 0.85


def test_one_choice_per_model_never_flags_ambiguous(sims):
    # with one-hot answers a split between two options is indistinguishable from a hard item
    f = key_issues(sims[0].responses, probabilities=False).to_frame()
    assert set(f["issue"]) <= {"", "wrong_key"}
    assert set(ISSUE_KINDS) == {"wrong_key", "ambiguous"}


def test_score_is_the_posterior_log_odds_against_the_key():
    rng = np.random.default_rng(0)
    choices = rng.integers(0, 4, size=(60, 7))
    choices[:40] = 0  # a clear majority on most items
    choices[:40, :2] = rng.integers(0, 4, size=(40, 2))
    key = np.zeros(60, dtype=int)
    key[50:] = 3
    res = score_keys(np.eye(4)[choices], key, min_models=3)
    fit = res.fit
    joint = fit.log_likelihood + np.log(fit.prior)
    for i in range(60):
        k = key[i]
        want = logsumexp(np.delete(joint[i], k)) - joint[i, k]  # scipy oracle
        assert abs(res.items["score"].iloc[i] - want) < 1e-9
    w = model_weights(fit.ability, 4)
    alt = res.items["alternative"].map("ABCD".index).to_numpy()
    for i in range(60):
        share = (choices[i] == alt[i]).mean()
        wshare = w[choices[i] == alt[i]].sum() / w.sum()
        assert abs(res.items["share"].iloc[i] - share) < 1e-12
        assert abs(res.items["weighted_share"].iloc[i] - wshare) < 1e-12
    assert (res.items["disagree_share"] == 1 - (choices == key[:, None]).mean(axis=1)).all()


def test_model_weights_hand_values():
    # log(a (k-1) / (1 - a)): a=0.5, k=4 -> log 3; a=0.9 -> log 27; at or below chance -> 0
    w = model_weights([0.5, 0.9, 0.25, 0.1, np.nan, 1.0], 4)
    assert w[:2] == pytest.approx([np.log(3), np.log(27)])
    assert w[2:5].tolist() == [0.0, 0.0, 0.0]
    assert np.isfinite(w[5])


def test_per_model_suspect_picks_hand_case():
    # items 0-3: 5 models say B, key A, model "m5" says A (the key) on items 0-2 -> flagged wrong_key
    n_clean = 40
    rows = []
    for i in range(4 + n_clean):
        for m in range(6):
            if i < 4:
                ans = "A" if (m == 5 and i < 3) else "B"
            else:
                ans = "A" if (i + m) % 9 else "C"
            rows.append({"model": f"m{m}", "item": f"q{i:02d}", "correct": int(ans == "A"), "answer": ans})
    items = pd.DataFrame({"item": [f"q{i:02d}" for i in range(4 + n_clean)], "answer_key": "A"})
    rs = ResponseSet.from_long(pd.DataFrame(rows), items=items)
    res = key_issues(rs)
    assert res.items["issue"].iloc[:4].tolist() == ["wrong_key"] * 4
    assert res.items["issue"].iloc[4:].eq("").all()
    m = res.models
    assert m.loc["m5", "n_suspect"] == 4
    assert m.loc["m5", "picks_key"] == pytest.approx(3 / 4)
    assert m.loc["m5", "peers_pick_key"] == pytest.approx(0.0)
    assert m.loc["m0", "picks_key"] == pytest.approx(0.0)
    # m0's peers on the same 4 items: m5's 3 key picks among 5 peers x 4 items
    assert m.loc["m0", "peers_pick_key"] == pytest.approx(3 / 20)
    assert m.loc["m0", "picks_alternative"] == pytest.approx(1.0)
    assert res.items.loc["q00", "reason"].startswith("wrong key? 83% of 6 models")


def _long(n_items=30, n_models=6, seed=0, samples=1):
    rng = np.random.default_rng(seed)
    rows = []
    for m in range(n_models):
        for i in range(n_items):
            for s in range(samples):
                ans = "A" if rng.random() < 0.8 else "BCD"[rng.integers(0, 3)]
                rows.append({"model": f"m{m}", "item": f"q{i}", "sample": s, "correct": int(ans == "A"),
                             "answer": ans})
    items = pd.DataFrame({"item": [f"q{i}" for i in range(n_items)], "answer_key": ["A"] * n_items,
                          "options": [["w", "x", "y", "z"]] * n_items})
    return pd.DataFrame(rows), items


def test_key_argument_matches_the_items_column():
    long, items = _long()
    rs = ResponseSet.from_long(long, items=items)
    base = key_issues(rs).to_frame()
    key = items.set_index("item")["answer_key"]
    pd.testing.assert_frame_equal(key_issues(rs, key=key).to_frame(), base)
    pd.testing.assert_frame_equal(key_issues(rs, key=dict(key)).to_frame(), base)
    key = key.astype(object).copy()
    key.iloc[3] = None
    f = key_issues(rs, key=key).to_frame()
    assert np.isnan(f["score"].iloc[3])
    assert f["reason"].iloc[3] == "not checked: no answer key"


def test_repeated_samples_are_soft_votes_and_min_models():
    long, items = _long(samples=3)
    rs = ResponseSet.from_long(long, items=items)
    res = key_issues(rs)
    assert res.votes_from == "answer samples"
    q0 = long[long["item"] == "q0"]
    want = (q0["answer"] == "A").groupby(q0["model"]).mean().mean()  # the models' mean key share
    assert res.items.loc["q0", "key_share"] == pytest.approx(want)


def test_no_answers_and_letters_beyond_the_options_are_no_votes():
    long, items = _long()
    long.loc[(long["model"] == "m0") & (long["item"] == "q0"), "answer"] = NO_ANSWER
    long.loc[(long["model"] == "m1") & (long["item"] == "q0"), "answer"] = "E"  # item has 4 options
    long.loc[(long["model"] == "m1") & (long["item"] == "q0"), "correct"] = 0
    rs = ResponseSet.from_long(long, items=items)
    res = key_issues(rs)
    assert res.items.loc["q0", "n_models"] == 4
    assert res.items.loc["q0", "n_no_answer"] == 2
    assert res.models.loc["m0", "n_no_answer"] == 1
    res5 = key_issues(rs, min_models=5)
    assert np.isnan(res5.items.loc["q0", "score"])
    assert res5.items.loc["q0", "reason"] == "not checked: 4 models answered (min_models=5)"


def test_probabilities_argument(sims):
    rs = sims[0].responses
    from_rs = key_issues(rs).to_frame()
    given = key_issues(rs, probabilities=rs.option_probs()).to_frame()
    pd.testing.assert_frame_equal(from_rs, given)
    answers = key_issues(rs, probabilities=False)
    assert answers.votes_from == "answers"


@pytest.mark.parametrize(("change", "kw", "exc", "msg"), [
    ("answer", {}, ValueError, "option letters A-Z or benchkit.NO_ANSWER"),
    ("nokey", {}, ValueError, "no items column 'answer_key'"),
    (None, {"key": pd.Series({"q0": "A"})}, ValueError, "no entry for 29 item"),
    (None, {"key": pd.Series({**{f"q{i}": "A" for i in range(30)}, "zz": "A"})}, ValueError, "not in rs"),
    (None, {"key": pd.Series({f"q{i}": "a" for i in range(30)})}, ValueError, "capital option letter"),
    (None, {"key": ["A"] * 30}, TypeError, "Series or mapping"),
    (None, {"key": pd.Series({f"q{i}": "E" for i in range(30)})}, ValueError, "not among its 4 options"),
    (None, {"min_models": 0}, ValueError, "min_models"),
    (None, {"ambiguity": 1.5}, ValueError, "ambiguity"),
    (None, {"probabilities": np.ones((2, 2, 2))}, ValueError, "probabilities must have shape"),
    (None, {"min_models": 99}, ValueError, "no item can be checked"),
])
def test_errors(change, kw, exc, msg):
    long, items = _long()
    if change == "answer":
        long.loc[0, "answer"] = "maybe"
    if change == "nokey":
        items = items.drop(columns="answer_key")
    rs = ResponseSet.from_long(long, items=items)
    with pytest.raises(exc, match=msg):
        key_issues(rs, **kw)


def test_needs_answers_or_probabilities_and_one_variant():
    long, items = _long()
    rs = ResponseSet.from_long(long.drop(columns="answer"), items=items)
    with pytest.raises(ValueError, match="no 'answer' column and no option probabilities"):
        key_issues(rs)
    two = pd.concat([long.assign(variant="v1"), long.assign(variant="v2")])
    with pytest.raises(ValueError, match="single variant"):
        key_issues(ResponseSet.from_long(two, items=items))
    with pytest.raises(TypeError, match="benchkit.ResponseSet"):
        key_issues(long)
