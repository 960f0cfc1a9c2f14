"""Paper 003 Table 14 (response-format validity) and App. K's structural classifier (Table 18).

Oracles: hand-classified tokens and items (each expected label below is worked out from the
rules stated in the docstrings, which follow the defects App. K reports: "6-Jan" date strings,
symbols replaced with "?", duplicated options, incomplete stems); Table 18's counts and flag rate
recomputed by hand; a fake classifier callable standing in for GPT-4o-mini.
"""
from __future__ import annotations

import pandas as pd
import pytest

from benchkit.landscape import STRUCTURAL_LABELS
from benchkit.landscape.steps import classify_structure
from benchkit.landscape.steps import parse_structural_label
from benchkit.landscape.steps import response_validity
from benchkit.landscape.steps import structural_prompt
from benchkit.landscape.steps import structural_rules


def test_response_validity_table14():
    f = pd.DataFrame({
        "model": ["m1"] * 5 + ["m2"] * 3,
        "benchmark": ["arc"] * 8,
        "token": ["A", " B", "(c", "Paris", None, "D", "d.", "E"],
        "letters": [("A", "B", "C", "D")] * 8,
    })
    r = response_validity(f)
    assert r.classes.tolist() == ["valid", "valid", "format_error", "invalid", "invalid", "valid",
                                  "format_error", "invalid"]  # E is not offered
    t = r.to_frame()
    assert t.loc[("m1", "arc")].tolist() == [5, 2, 1, 2, 0.4]
    assert t.loc[("m2", "arc")].tolist() == [3, 1, 1, 1, 1 / 3]
    assert list(t.columns) == ["total", "valid", "format_error", "invalid", "valid_ratio"]
    with pytest.raises(ValueError, match="missing required column"):
        response_validity(f.drop(columns="token"))


@pytest.mark.parametrize(("q", "opts", "want"), [
    ("What fraction of the die faces are 1?", ["6-Jan", "5-Jan", "3-Jan", "2-Jan"],
     "bad_options_clarity"),                                    # App. K: 1/6 -> "6-Jan"
    ("Compute 10^2.", ["10?2", "100", "20", "1000"], "bad_options_clarity"),  # lost superscript
    ("Pick one.", ["red", " red ", "blue", "green"], "bad_options_clarity"),  # duplicated
    ("Genotype?", ["R", "rr", "Rr", "RR"], "ok"),                             # case matters
    ("Pick one.", ["red", "", "blue", "green"], "bad_options_clarity"),       # empty option
    ("Compute 10?2 mod 7.", ["2", "3", "4", "5"], "bad_question_clarity"),  # lost symbol in stem
    ("", ["a", "b", "c", "d"], "bad_question_clarity"),
    ("How many homomorphisms are there of Z into Z_2?", ["1", "2", "0", "4"], "ok"),
    ("Osteoclasts", ["deposit bone.", "resorb bone.", "divide.", "die."], "ok"),  # completion
    ("Where is the Eiffel Tower?", ["Paris", "Rome", "Oslo", "Bern"], "ok"),
    ("The capital of France is ___", ["Paris", "Rome", "Oslo", "Bern"], "ok"),
])
def test_structural_rules(q, opts, want):
    assert structural_rules(q, opts) == want


def test_parse_structural_label():
    assert parse_structural_label("bad_options_clarity") == "bad_options_clarity"
    assert parse_structural_label("Label: Bad question clarity.") == "bad_question_clarity"
    assert parse_structural_label("BO") == "bad_options_clarity"
    assert parse_structural_label("ok") == "ok"
    assert parse_structural_label("I cannot tell") is None
    assert parse_structural_label(None) is None


def _items():
    return pd.DataFrame({
        "item": ["a1", "a2", "a3", "m1", "m2"],
        "benchmark": ["arc", "arc", "arc", "mmlu", "mmlu"],
        "text": ["Where is Paris?", "\ufffd", "Which is a gas?", "1/6 as a date?", "Which planet?"],
        "options": [["France", "Spain", "Italy", "Chile"], ["a", "b", "c", "d"],
                    ["O2", "Fe", "Cu", "Au"], ["6-Jan", "5-Jan", "3-Jan", "2-Jan"],
                    ["Mars", "Venus", "Earth", "Pluto"]],
    })


def test_classify_structure_rules_table18():
    r = classify_structure(_items())
    assert r.labels["label"].tolist() == ["ok", "bad_question_clarity", "ok",
                                          "bad_options_clarity", "ok"]
    t = r.to_frame()
    assert t.loc["arc"].tolist() == [3, 2, 1, 0, 1, pytest.approx(1 / 3)]
    assert t.loc["mmlu"].tolist() == [2, 1, 0, 1, 1, 0.5]
    assert r.flagged == ("a2", "m1")
    assert r.method == "rules"


def test_classify_structure_with_a_model_callable():
    seen = []

    def fake(prompt):  # stands in for GPT-4o-mini: flags any prompt mentioning 'Jan'
        seen.append(prompt)
        return "bad_options_clarity" if "Jan" in prompt else ("weird" if "Mars" in prompt else "ok")

    r = classify_structure(_items(), classify=fake, by=None)
    assert r.labels["label"].tolist() == ["ok", "ok", "ok", "bad_options_clarity", "unparsed"]
    assert r.to_frame().loc["all"].tolist() == [5, 3, 0, 1, 1, 0.2]
    assert seen[0] == structural_prompt("Where is Paris?", ["France", "Spain", "Italy", "Chile"])
    assert "A. France\nB. Spain" in seen[0]
    assert set(STRUCTURAL_LABELS) == {"ok", "bad_question_clarity", "bad_options_clarity"}
    with pytest.raises(TypeError, match="classify must be a callable"):
        classify_structure(_items(), classify="gpt")
    with pytest.raises(ValueError, match="items is empty"):
        classify_structure(_items().iloc[:0])
