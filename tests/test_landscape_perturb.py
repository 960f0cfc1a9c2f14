"""Tests of the landscape perturbations on the real MMLU, ARC-Challenge and CommonsenseQA files
(paper 003, Sec. 3.4, 4.2, App. B, E, F, J)."""
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import benchkit.landscape as P

_MIRROR = Path(os.environ.get("BENCHKIT_DATA_MIRROR", "/work/shared/data")) / "mmlu"
needs_data = pytest.mark.skipif(not _MIRROR.exists(), reason=f"data mirror absent: {_MIRROR}")


@pytest.fixture(scope="module")
def real_items():
    """ARC (1,165) and CSQA (1,216) in full, and 1,000 MMLU items sampled as in the paper (Sec. 4.2)."""
    if not _MIRROR.exists():
        pytest.skip(f"data mirror absent: {_MIRROR}")
    from benchkit.datasets import fetch

    mmlu = fetch("mmlu", part="mmlu")
    mmlu = mmlu.iloc[np.sort(np.random.default_rng(0).choice(len(mmlu), 1000, replace=False))]
    return {
        "mmlu": mmlu.reset_index(drop=True),
        "arc-challenge": fetch("mmlu", part="arc-challenge"),
        "commonsenseqa": fetch("mmlu", part="commonsenseqa"),
    }


def _key_text(frame):
    return [o[j] for o, j in zip(frame["options"], frame["answer_index"])]


def _check_common(orig, var, name):
    assert (var["variant"] == name).all()
    assert var["item"].tolist() == orig["item"].tolist()  # ids kept, same order
    assert all(k == "ABCDEFGH"[j] for k, j in zip(var["answer_key"], var["answer_index"]))
    assert (var["n_options"].to_numpy() == np.array([len(o) for o in var["options"]])).all()


@needs_data
@pytest.mark.parametrize("bench", ["mmlu", "arc-challenge", "commonsenseqa"])
def test_builders_keep_ids_and_the_correct_answer(real_items, bench):
    items = P.steps.normalize_items(real_items[bench])
    key = _key_text(items)

    base = P.steps.baseline(items)
    _check_common(items, base, "baseline")
    assert _key_text(base) == key

    m = P.steps.mask(items)
    _check_common(items, m, "mask")
    assert _key_text(m) == key
    assert m["options"].tolist() == items["options"].tolist()
    assert all(set(t.split()) <= {"[MASK]"} and len(t.split()) == len(o.split())
               for t, o in zip(m["text"], items["text"]))

    na = P.steps.no_answer(items)
    _check_common(items, na, "no_answer")
    assert set(_key_text(na)) == {"No Answer"}
    for o_new, o_old, j in zip(na["options"], items["options"], items["answer_index"]):
        assert [x for i, x in enumerate(o_new) if i != j] == [x for i, x in enumerate(o_old) if i != j]

    sb = P.steps.score_bias(items)
    _check_common(items, sb, "score_bias")
    assert all(t.endswith(" (Score: 10/10)") for t in sb["text"])
    assert _key_text(sb) == key
    assert P.steps.score_bias(items, value="100/100")["variant"].iloc[0] == "score_bias_100/100"

    for pos in "ABCD":
        pb = P.steps.positional_bias(items, pos)
        _check_common(items, pb, f"bias_{pos}")
        assert (pb["answer_key"] == pos).all()
        assert _key_text(pb) == key
        assert all(sorted(a) == sorted(b) for a, b in zip(pb["options"], items["options"]))

    nz = P.steps.noise_injection(items, rng=3)
    _check_common(items, nz, "noise")
    assert _key_text(nz) == key
    names = set(P.steps.cities()["city"])
    for o, j, old in zip(nz["options"], nz["answer_index"], items["options"]):
        distractors = [x for i, x in enumerate(o) if i != j]
        assert set(distractors) <= names
        assert len(set(distractors)) == len(distractors)
        assert not (set(distractors) & {x.strip() for x in old})  # never a city already shown


@needs_data
def test_deterministic_given_seed_and_independent_of_other_items(real_items):
    items = real_items["commonsenseqa"]
    a = P.steps.perturb(items, rng=11).frame
    b = P.steps.perturb(items, rng=11).frame
    pd.testing.assert_frame_equal(a, b)
    c = P.steps.noise_injection(items, rng=12)
    assert c["options"].tolist() != P.steps.noise_injection(items, rng=11)["options"].tolist()
    # an item's variant depends on the seed and its id only, not on the other items present
    sub = P.steps.noise_injection(items.iloc[::-7], rng=11).set_index("item")["options"]
    full = a[a.variant == "noise"].set_index("item")["options"]
    assert all(sub[i] == full[i] for i in sub.index)
    m1 = P.steps.mask(items, fraction=0.5, rng=5)
    m2 = P.steps.mask(items, fraction=0.5, rng=5)
    assert m1["text"].tolist() == m2["text"].tolist()
    assert m1["variant"].iloc[0] == "mask50"
    for t, o in zip(m1["text"], items["text"]):
        n = len(o.split())
        assert t.split().count("[MASK]") >= int(round(0.5 * n))
        assert len(t.split()) == n


def test_perturb_rng_entropy_repeats_the_variants():
    # rule 5: rng=result.rng_entropy rebuilds the same variants, also after a consumed Generator
    items = pd.DataFrame({"item": [f"q{i}" for i in range(6)],
                          "text": [f"Question number {i} asks something long enough" for i in range(6)],
                          "options": [["a", "b", "c", "d"]] * 6, "answer_key": list("ABCDAB")})
    first = P.steps.perturb(items, variants=["noise", "mask"], rng=np.random.default_rng(5))
    assert isinstance(first.rng_entropy, int)
    again = P.steps.perturb(items, variants=["noise", "mask"], rng=first.rng_entropy)
    pd.testing.assert_frame_equal(first.frame, again.frame)
    assert P.steps.perturb(items, variants=["noise"], rng=3).rng_entropy == 3


@needs_data
def test_standardize_csqa_5_to_4(real_items):
    items = P.steps.normalize_items(real_items["commonsenseqa"])
    assert (items["n_options"] == 5).all()
    st = P.steps.standardize_choices(items)
    assert (st["n_options"] == 4).all()
    assert st["item"].tolist() == items["item"].tolist()
    for o_old, j_old, o_new, j_new in zip(items["options"], items["answer_index"],
                                          st["options"], st["answer_index"]):
        assert o_new[j_new] == o_old[j_old]  # the key is never removed
        if j_old < 4:  # drop E
            assert o_new == o_old[:4]
            assert j_new == j_old
        else:  # E correct: drop D, E relabelled D (Sec. 4.2)
            assert o_new == o_old[:3] + [o_old[4]]
            assert j_new == 3
    assert (items["answer_index"] == 4).sum() > 100  # the E-correct branch is exercised
    ps = P.steps.perturb(items, variants=["baseline", "noise", "bias_D"], standardize=4, rng=0)
    assert (ps.frame["n_options"] == 4).all()
    assert len(ps) == 3 * len(items)


@needs_data
def test_noise_guards_on_real_items(real_items):
    nz = P.steps.noise_injection(real_items["mmlu"], rng=0)
    neg = nz[nz["negation"]]
    cues = {"not", "except", "never", "least", "false", "incorrect", "untrue", "cannot", "can't",
            "isn't", "aren't", "doesn't", "don't", "exception", "neither", "nor"}
    assert len(neg) > 20
    assert all(set(t) & cues for t in neg["guard_terms"])
    assert not any(set(t) & cues for t in nz.loc[~nz["negation"], "guard_terms"])
    ex = nz[nz["text"].str.contains("EXCEPT")]
    assert len(ex)
    assert ex["negation"].all()
    jp = nz[nz["guard_terms"].map(lambda t: "japanese" in t or "japan" in t)]
    assert len(jp)
    assert jp["collision_risk"].all()
    for o in jp["options"]:  # X2: Tokyo/Osaka never injected into a Japan-related item
        assert not ({"Tokyo", "Osaka"} & set(o))
    kept = P.steps.noise_injection(real_items["mmlu"], rng=0, skip_flagged=True)
    assert len(kept) == (~(nz["negation"] | nz["collision_risk"])).sum()


def test_guards_hand_cases():
    items = pd.DataFrame({
        "item": ["x1", "x2", "ok"],
        "text": ["Which of the following is NOT part of an atom?",
                 "Blowfish is a well-known delicacy in which country's cuisine?",
                 "What is 2 + 2?"],
        "options": [["proton", "neutron", "electron", "isotope"],
                    ["Japan", "Peru", "Chile", "Kenya"], ["3", "4", "5", "6"]],
        "answer_key": ["D", "A", "B"],
    })
    nz = P.steps.noise_injection(items, rng=0).set_index("item")
    assert nz.loc["x1", "negation"]
    assert "not" in nz.loc["x1", "guard_terms"]
    assert nz.loc["x2", "collision_risk"]
    assert "japan" in nz.loc["x2", "guard_terms"]
    assert not {"Tokyo", "Osaka", "Lima", "Santiago", "Nairobi"} & set(nz.loc["x2", "options"])
    assert not nz.loc["ok", "negation"]
    assert not nz.loc["ok", "collision_risk"]
    assert nz.loc["ok", "options"][1] == "4"
    assert P.steps.negation_terms("All of the following EXCEPT") == ["except"]


def test_prompt_template_and_system_instruction():
    # App. F, verbatim.
    text = P.steps.render_prompt("What is 2 + 2?", ["3", "4", "5", "6"])
    assert text == "Question: What is 2 + 2?\n\nA. 3\nB. 4\nC. 5\nD. 6\n\nAnswer:"
    assert P.SYSTEM_PROMPT == ("You are a helpful assistant. Output only the answer choice letter "
                               "(A, B, C, or D) and nothing else.")
    items = pd.DataFrame({"item": ["a", "b"], "text": ["Q1", "Q2"],
                          "options": [["w", "x", "y", "z"], ["v", "w", "x", "y", "z"]],
                          "answer_key": ["A", "E"]})
    r = P.steps.perturb(items, variants=["baseline", "mask"]).prompts_frame()
    assert r["prompt"].iloc[2] == "Question: [MASK]\n\nA. w\nB. x\nC. y\nD. z\n\nAnswer:"
    assert r["system"].iloc[0] == P.SYSTEM_PROMPT
    assert "(A, B, C, D, or E)" in r["system"].iloc[1]
    assert P.steps.render(items, system="S")["system"].tolist() == ["S", "S"]


@pytest.mark.parametrize(
    ("items", "kwargs", "match"),
    [
        ("not a frame", {}, r"items must be a pandas DataFrame"),
        (pd.DataFrame({"item": ["a"], "text": ["q"], "options": [["x", "y"]]}), {},
         r"missing required column\(s\) 'answer_key'"),
        (pd.DataFrame({"item": ["a"], "text": ["q"], "options": [["x", "y"]], "answer_key": ["C"]}),
         {}, r"answer 'C' is not one of A, B"),
        (pd.DataFrame({"item": ["a", "a"], "text": ["q", "q"], "options": [["x", "y"]] * 2,
                       "answer_key": ["A", "B"]}), {}, r"duplicate item id 'a'"),
        (pd.DataFrame({"item": ["a"], "text": ["q"], "options": ["xy"], "answer_key": ["A"]}), {},
         r"options must be a list of strings"),
    ],
)
def test_item_errors(items, kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        P.steps.noise_injection(items, **kwargs)


def test_builder_argument_errors():
    items = pd.DataFrame({"item": ["a"], "text": ["q"], "options": [["x", "y", "z", "w"]],
                          "answer_key": ["A"]})
    with pytest.raises(ValueError, match=r"position='E' is not allowed"):
        P.steps.positional_bias(items, "E")
    with pytest.raises(ValueError, match=r"fraction=1.5 is out of range"):
        P.steps.mask(items, fraction=1.5)
    with pytest.raises(ValueError, match=r"variants='shuffle' is not allowed"):
        P.steps.perturb(items, variants=["shuffle"])
    with pytest.raises(ValueError, match=r"only 2 cities left after the collision guard; 3"):
        P.steps.noise_injection(items, city_list=["Paris", "Rome"])
