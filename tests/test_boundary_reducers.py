"""Answer reducers g_q (BSDProbe App. E) on hand-worked generations.

Oracles: each expected state below was worked out by hand from App. E's rules (the three MCQ stages,
the math equivalence layers, SQuAD normalization); symbolic cases are also checked with SymPy
directly; the SQuAD normalization against the official evaluation script's function, copied below.
"""
from __future__ import annotations

import re
import string

import numpy as np
import pandas as pd
import pytest

from benchkit import NO_ANSWER
from benchkit import ResponseSet
from benchkit import boundary


@pytest.mark.parametrize(("text", "want"), [
    ('{"answer": "C"}', "C"),                                   # JSON
    ('Reasoning... {"reasoning": "x", "Answer": "(d)"}', "D"),  # JSON, key case, parens
    ('{"answer": "C"} wait, actually the answer is B', "C"),    # JSON wins over regex
    ("Let's think step by step. The answer is (b).", "B"),     # regex, parenthesized lower
    ("Answer: A", "A"),
    ("**Answer:** **C**", "C"),
    ("The answer is B. Not A.", "B"),                          # phrase beats trailing letters
    ("B", "B"),
    ("(c)", "C"),
    ("I'd pick (A) over (D)", "D"),                            # last parenthesized letter
    ("Between A and C I choose C", "C"),                       # fallback: last lone capital
    ("The answer is a guess", NO_ANSWER),                      # lowercase 'a' is an article
    ("No idea.", NO_ANSWER),
    ("", NO_ANSWER),
])
def test_extract_choice(text, want):
    assert boundary.steps.extract_choice(text) == want


def test_extract_choice_ten_options_and_errors():
    assert boundary.steps.extract_choice("the answer is J", choices=10) == "J"
    assert boundary.steps.extract_choice("the answer is J") == NO_ANSWER  # J is not among A-D ...
    with pytest.raises(ValueError, match="choices=1 must be between 2 and 26"):
        boundary.steps.extract_choice("A", choices=1)
    with pytest.raises(ValueError, match="distinct capital letters"):
        boundary.steps.extract_choice("A", choices="AAB")
    with pytest.raises(TypeError, match="text must be a string"):
        boundary.steps.extract_choice(3)


@pytest.mark.parametrize(("text", "want"), [
    (r"Thus $x = \boxed{\frac{1}{2}}$.", r"\frac{1}{2}"),
    (r"\boxed{x^{2}} then \boxed{\frac{3}{4}}", r"\frac{3}{4}"),  # last box, nested braces
    ("3 * 4 = 12\n#### 1,200", "1,200"),                           # GSM8K
    ("So the answer is 42 apples. Done.", "42 apples"),
    ("The answer is 3.5.", "3.5"),
    ("we get 7 and then 9", "9"),                                  # last number
    ("no digits at all", NO_ANSWER),
])
def test_extract_math_answer(text, want):
    assert boundary.steps.extract_math_answer(text) == want


@pytest.mark.parametrize(("ans", "want"), [
    (r"\frac{1}{2}", "0.5"), ("1/2", "0.5"), ("0.50", "0.5"), (r"\dfrac{3}{4}", "0.75"),
    (r"\$1,250.00", "1250"), ("1,200", "1200"), ("12 dollars", "12"), (r"10\text{ cm}", "10"),
    ("x = 5", "5"), ("25%", "25"), (r"45^\circ", "45"), ("-3", "-3"),
    (r"\frac{\sqrt{3}}{2}", r"(\sqrt{3})/(2)"), (NO_ANSWER, NO_ANSWER),
])
def test_normalize_math_answer(ans, want):
    assert boundary.steps.normalize_math_answer(ans) == want


def test_math_equivalent_layers():
    import sympy

    assert boundary.steps.math_equivalent("0.5", r"\frac{1}{2}")           # string after normalization
    assert boundary.steps.math_equivalent("12.0000001", "12")              # numeric, rel 1e-6
    assert not boundary.steps.math_equivalent("12.1", "12")
    assert boundary.steps.math_equivalent("30%", "0.3")                    # percentage scaling
    assert boundary.steps.math_equivalent("30", "0.3")
    assert not boundary.steps.math_equivalent("30", "0.3", percent=False)
    # symbolic (checked with sympy directly: sqrt(2)/2 - 1/sqrt(2) simplifies to 0)
    assert sympy.simplify(sympy.sqrt(2) / 2 - 1 / sympy.sqrt(2)) == 0
    assert boundary.steps.math_equivalent(r"\frac{\sqrt{2}}{2}", r"\frac{1}{\sqrt{2}}")
    assert boundary.steps.math_equivalent(r"2\pi", r"\pi \cdot 2")
    assert boundary.steps.math_equivalent("(x+1)^2", "x^2+2x+1")
    assert not boundary.steps.math_equivalent("(x+1)^2", "x^2+1")
    assert not boundary.steps.math_equivalent(r"\frac{\sqrt{2}}{2}", r"\frac{1}{\sqrt{2}}", symbolic=False)
    assert not boundary.steps.math_equivalent(NO_ANSWER, "1")
    assert not boundary.steps.math_equivalent("\\frac{{", "1")             # unparsable: not equivalent


def _squad_normalize(s):
    """The official SQuAD v1.1 evaluate.py normalize_answer (oracle)."""
    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


@pytest.mark.parametrize("s", ["The  Eiffel Tower!", "An apple, a day.", "U.S.A.", "Rock 'n' roll",
                               "  the Beatles  "])
def test_normalize_qa_matches_squad(s):
    assert boundary.steps.normalize_qa_answer(s) == _squad_normalize(s)


def test_qa_extraction_unified_symbols_and_refusals():
    assert boundary.steps.extract_qa_answer("Thinking...\nANSWER: Paris\nextra") == "Paris"
    assert boundary.steps.extract_qa_answer("Line one\n\nThe Louvre  \n") == "The Louvre"
    assert boundary.steps.normalize_qa_answer("Beyoncé & Jay-Z") == "beyonce and jayz"
    assert boundary.steps.normalize_qa_answer("I don't know.") == NO_ANSWER
    assert boundary.steps.normalize_qa_answer("Unknown") == NO_ANSWER
    assert boundary.steps.normalize_qa_answer("") == NO_ANSWER
    assert boundary.steps.qa_match("The Eiffel Tower", ["Eiffel Tower", "La tour Eiffel"])
    assert boundary.steps.qa_match("It is the Eiffel Tower in Paris", "eiffel tower")           # substring
    assert not boundary.steps.qa_match("It is the Eiffel Tower in Paris", "eiffel tower", match="exact")
    assert not boundary.steps.qa_match("Eiffelsberg", "eiffel")                                 # whole words
    assert not boundary.steps.qa_match("I don't know", "know")


def test_reduce_generations_column_and_scores():
    gens = ["The answer is (B)", "answer: c", None, '{"answer": "B"}']
    red = boundary.steps.reduce_generations(gens, references=["B", "B", "B", "b"], task="mcq")
    assert red.answer.tolist() == ["B", NO_ANSWER, NO_ANSWER, "B"]  # 'answer: c' lower: no match
    assert red.correct.tolist() == [1, 0, 0, 1]
    assert red.no_answer_rate == 0.5
    assert list(red.to_frame().columns) == ["answer", "correct"]
    m = boundary.steps.reduce_generations([r"\boxed{\frac{1}{2}}", "#### 0.5", "so 2"],
                                                      references=["1/2"] * 3, task="math")
    assert m.answer.tolist() == ["0.5", "0.5", "2"]
    assert m.correct.tolist() == [1, 1, 0]
    q = boundary.steps.reduce_generations(["ANSWER: the Beatles", "I don't know"],
                           references=[["Beatles"], ["Beatles"]],
                           task="qa")
    assert q.answer.tolist() == ["beatles", NO_ANSWER]
    assert q.correct.tolist() == [1, 0]
    assert boundary.steps.reduce_generation("Answer: D", task="mcq") == "D"
    with pytest.raises(ValueError, match="task='code' is not allowed"):
        boundary.steps.reduce_generations(["x"], task="code")
    with pytest.raises(ValueError, match="references must have one entry per generation"):
        boundary.steps.reduce_generations(["x", "y"], references=["A"], task="mcq")
    with pytest.raises(TypeError, match="not one string"):
        boundary.steps.reduce_generations("A", task="mcq")


def test_answers_from_generations_feeds_response_set():
    long = pd.DataFrame({
        "model": ["m1"] * 4 + ["m2"] * 4,
        "item": ["q1", "q1", "q2", "q2"] * 2,
        "sample": [0, 1] * 4,
        "generation": ["The answer is A", "B", "(C)", "answer: C",
                       '{"answer": "A"}', "A", "I think D", "C"],
    })
    items = pd.DataFrame({"item": ["q1", "q2"], "answer_key": ["A", "C"]})
    out = boundary.steps.answers_from_generations(long, items=items, task="mcq")
    assert out["answer"].tolist() == ["A", "B", "C", "C", "A", "A", "D", "C"]
    assert out["correct"].tolist() == [1, 0, 1, 1, 1, 1, 0, 1]
    assert "answer" not in long.columns  # a copy
    rs = ResponseSet.from_long(out.drop(columns="generation"))
    assert rs.has_answers
    no_ref = boundary.steps.answers_from_generations(long, task="mcq")
    assert "correct" not in no_ref.columns
    with pytest.raises(ValueError, match="missing required column"):
        boundary.steps.answers_from_generations(long.drop(columns="generation"), task="mcq")
    with pytest.raises(ValueError, match="item 'q2' of responses has no row in items"):
        boundary.steps.answers_from_generations(long, items=items.iloc[:1], task="mcq")
    with pytest.raises(TypeError, match="must be a pandas DataFrame"):
        boundary.steps.answers_from_generations(np.zeros(3), task="mcq")
