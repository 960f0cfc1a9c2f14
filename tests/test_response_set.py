"""ResponseSet: construction, validation errors (one test each), dense views and selection.

Oracles: hand-built toy tables whose counts are written out by hand, and pandas pivot tables
computed independently of benchkit's bincount-based aggregation.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchkit import NO_ANSWER
from benchkit import BenchkitTypeError
from benchkit import BenchkitValueError
from benchkit import ResponseSet


def toy_long(T=3, models=("m-a", "m-b"), items=("q1", "q2", "q3"), seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for m in models:
        for i in items:
            for s in range(T):
                c = int(rng.random() < 0.5)
                rows.append((m, i, s, c, "A" if c else str(rng.choice(["B", "C"]))))
    return pd.DataFrame(rows, columns=["model", "item", "sample", "correct", "answer"])


# ---------------------------------------------------------------------------- construction


def test_counts_match_independent_pivot():
    df = toy_long(T=4, models=("x", "y", "z"), items=tuple(f"i{k}" for k in range(7)), seed=3)
    rs = ResponseSet.from_long(df)
    cm = rs.counts()
    # oracle: pandas pivot_table of sums and sizes
    piv = df.pivot_table(index="item", columns="model", values="correct", aggfunc="sum")
    size = df.pivot_table(index="item", columns="model", values="correct", aggfunc="size")
    np.testing.assert_array_equal(cm.K, piv.loc[rs.item_ids, rs.model_ids].to_numpy())
    np.testing.assert_array_equal(cm.N, size.loc[rs.item_ids, rs.model_ids].to_numpy())
    assert cm.T == 4
    assert rs.T == 4
    assert list(rs.model_ids) == ["x", "y", "z"]  # roster order = first appearance


def test_hand_worked_views():
    df = pd.DataFrame({
        "model": ["a", "a", "a", "a", "b", "b"],
        "item": ["q1", "q1", "q2", "q2", "q1", "q1"],
        "sample": [0, 1, 0, 1, 1, 0],
        "correct": [1, 0, 0, 0, 1, 1],
        "answer": ["x", "y", "y", "z", "x", "x"],
    })
    rs = ResponseSet.from_long(df)
    cm = rs.counts()
    np.testing.assert_array_equal(cm.K, [[1, 2], [0, 0]])
    np.testing.assert_array_equal(cm.N, [[2, 2], [2, 0]])  # b never answered q2: missing cell
    assert cm.missing.tolist() == [[False, False], [False, True]]
    # principal = lowest sample: a/q1 sample 0 -> 1; a/q2 -> 0; b/q1 sample 0 -> 1
    b = rs.binary()
    assert b[0, 0] == 1
    assert b[1, 0] == 0
    assert b[0, 1] == 1
    assert np.isnan(b[1, 1])
    np.testing.assert_allclose(rs.accuracy().to_numpy(), [(0.5 + 0.0) / 2, 1.0])
    ac = rs.answer_counts()
    assert ac.states[0] == ("x", "y")
    assert ac.states[1] == ("y", "z")
    assert ac.n_states.tolist() == [2, 2]
    np.testing.assert_array_equal(ac.counts[0], [[1, 1], [2, 0]])
    np.testing.assert_array_equal(ac.state_correct[0], [1.0, 0.0])


def test_explicit_principal_column():
    df = toy_long(T=2, models=("a",), items=("q1",))
    df["principal"] = [False, True]
    rs = ResponseSet.from_long(df)
    assert rs.binary()[0, 0] == df["correct"].iloc[1]


def test_model_metadata_parsed_and_overridable():
    df = toy_long(T=1, models=("Qwen1.5-110B", "meta_llama-3.1-70b-instruct-turbo"))
    rs = ResponseSet.from_long(df)
    assert rs.models.loc["Qwen1.5-110B", "family"] == "qwen"
    assert rs.models.loc["Qwen1.5-110B", "size"] == 110e9
    assert rs.models.loc["meta_llama-3.1-70b-instruct-turbo", "owner"] == "meta"
    models = pd.DataFrame({"model": ["meta_llama-3.1-70b-instruct-turbo", "Qwen1.5-110B"],
                           "family": ["custom", None]})
    rs2 = ResponseSet.from_long(df, models=models)
    assert list(rs2.model_ids) == ["meta_llama-3.1-70b-instruct-turbo", "Qwen1.5-110B"]
    assert rs2.models.loc["meta_llama-3.1-70b-instruct-turbo", "family"] == "custom"
    assert rs2.models.loc["Qwen1.5-110B", "family"] == "qwen"  # filled where not given


def test_option_probs_and_logprobs():
    p = [[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]]
    df = pd.DataFrame({"model": ["a", "a"], "item": ["q1", "q2"], "correct": [1, 0],
                       "option_probs": p})
    items = pd.DataFrame({"item": ["q1", "q2"], "answer_key": ["A", "B"]})
    rs = ResponseSet.from_long(df, items=items)
    np.testing.assert_allclose(rs.option_probs()[:, 0, :], p)
    lp = np.log(np.array(p) * 0.5)  # unnormalized over the options: softmax renormalizes
    df2 = df.drop(columns="option_probs").assign(option_logprobs=list(lp))
    np.testing.assert_allclose(ResponseSet.from_long(df2).option_probs()[:, 0, :], p, atol=1e-12)


def test_from_counts_and_per_model_budget():
    frame = pd.DataFrame({"model": ["a", "a", "b", "b"], "item": ["q1", "q2", "q1", "q2"],
                          "n_correct": [3, 10, 1, 0], "n_samples": [10, 10, 1, 1]})
    with pytest.raises(BenchkitValueError, match="sample_budget='per_model'"):
        ResponseSet.from_counts(frame)
    rs = ResponseSet.from_counts(frame, sample_budget="per_model")
    assert rs.budget.to_dict() == {"a": 10, "b": 1}
    with pytest.raises(BenchkitValueError, match="per-model sample budgets"):
        _ = rs.T
    np.testing.assert_array_equal(rs.counts().K, [[3, 1], [10, 0]])
    with pytest.raises(BenchkitValueError, match="built from counts"):
        rs.binary()
    assert rs.select(models=["b"]).binary().tolist() == [[1.0], [0.0]]
    assert rs.to_long().columns.tolist() == ["model", "item", "n_correct", "n_samples"]


def test_from_wide_binary_and_counts():
    wide = pd.DataFrame({"m1": [1, 0, np.nan], "m2": [0, 1, 1]}, index=["q1", "q2", "q3"])
    rs = ResponseSet.from_wide(wide)
    assert rs.counts().N.tolist() == [[1, 1], [1, 1], [0, 1]]
    rs10 = ResponseSet.from_wide(wide * 7, T=10)
    assert rs10.counts().K.tolist() == [[7, 0], [0, 7], [0, 7]]
    assert rs10.T == 10
    with pytest.raises(BenchkitValueError, match=r"correct counts 0..T=10"):
        ResponseSet.from_wide(wide * 11, T=10)


def test_select_and_variants():
    df = toy_long(T=2)
    df = pd.concat([df.assign(variant="base"), df.assign(variant="masked", correct=0)])
    items = pd.DataFrame({"item": ["q1", "q2", "q3"], "benchmark": ["x", "x", "y"]})
    rs = ResponseSet.from_long(df, items=items)
    assert rs.variants == ("base", "masked")
    with pytest.raises(BenchkitValueError, match="pick one with .select"):
        rs.counts()
    masked = rs.select(variant="masked")
    assert masked.counts().K.sum() == 0
    sub = rs.select(variant="base", benchmark="x", models=["m-b"])
    assert list(sub.item_ids) == ["q1", "q2"]
    assert list(sub.model_ids) == ["m-b"]
    with pytest.raises(BenchkitValueError, match="variant='other' is not allowed"):
        rs.select(variant="other")
    with pytest.raises(BenchkitValueError, match="unknown id"):
        rs.select(models=["nope"])


def test_to_long_round_trip():
    df = toy_long(T=3)
    rs = ResponseSet.from_long(df)
    back = ResponseSet.from_long(rs.to_long().drop(columns="principal"))
    np.testing.assert_array_equal(back.counts().K, rs.counts().K)
    assert back.answer_counts().states == rs.answer_counts().states


def test_fractional_scores():
    df = pd.DataFrame({"model": ["a", "b"], "item": ["q", "q"], "correct": [0.25, 1.0]})
    rs = ResponseSet.from_long(df)
    np.testing.assert_allclose(rs.scores(), [[0.25, 1.0]])
    with pytest.raises(BenchkitValueError, match="fractional scores"):
        rs.counts()


# ---------------------------------------------------------------------------- validation errors


def test_error_not_a_frame():
    with pytest.raises(BenchkitTypeError, match="responses must be a pandas DataFrame, got list"):
        ResponseSet.from_long([1, 2])


def test_error_empty():
    with pytest.raises(BenchkitValueError, match="responses is empty"):
        ResponseSet.from_long(pd.DataFrame(columns=["model", "item", "correct"]))


def test_error_missing_column():
    with pytest.raises(BenchkitValueError, match=r"missing required column\(s\) 'correct'"):
        ResponseSet.from_long(pd.DataFrame({"model": ["a"], "item": ["q"]}))


def test_error_duplicate_column():
    df = pd.DataFrame([["a", "q", 1, 1]], columns=["model", "item", "correct", "correct"])
    with pytest.raises(BenchkitValueError, match=r"duplicate column\(s\) 'correct'"):
        ResponseSet.from_long(df)


def test_error_unknown_column():
    df = pd.DataFrame({"model": ["a"], "item": ["q"], "correct": [1], "subject": ["x"]})
    with pytest.raises(BenchkitValueError, match=r"unknown column\(s\) 'subject'"):
        ResponseSet.from_long(df)


def test_error_duplicate_rows():
    df = pd.DataFrame({"model": ["a", "a"], "item": ["q", "q"], "correct": [1, 0]})
    msg = r"duplicate rows .*rows 0 and 1 .*model 'a', item 'q', sample 0.*add a 'sample'"
    with pytest.raises(BenchkitValueError, match=msg):
        ResponseSet.from_long(df)


def test_error_correct_out_of_range():
    df = pd.DataFrame({"model": ["a", "b"], "item": ["q", "q"], "correct": [1, 2]})
    with pytest.raises(BenchkitValueError,
                       match=r"0/1 or a score in \[0, 1\]; row 1 \(model 'b', item 'q'\) has 2.0"):
        ResponseSet.from_long(df)


def test_error_correct_nan():
    df = pd.DataFrame({"model": ["a", "b"], "item": ["q", "q"], "correct": [1, np.nan]})
    with pytest.raises(BenchkitValueError, match=r"'correct' has NaN at row 1 \(model 'b', item 'q'\)"):
        ResponseSet.from_long(df)


def test_error_correct_not_numeric():
    df = pd.DataFrame({"model": ["a"], "item": ["q"], "correct": ["yes"]})
    with pytest.raises(BenchkitTypeError, match="'correct' must be numeric"):
        ResponseSet.from_long(df)


def test_error_model_nan():
    df = pd.DataFrame({"model": ["a", None], "item": ["q", "q"], "correct": [1, 0]})
    with pytest.raises(BenchkitValueError, match="column 'model' has a missing value at row 1"):
        ResponseSet.from_long(df)


def test_error_unequal_budget_names_model_and_item():
    df = toy_long(T=10, models=("codellama-7b", "codellama-13b"), items=("crux_17", "crux_18"))
    df = df[~((df["model"] == "codellama-13b") & (df["item"] == "crux_17") & (df["sample"] >= 8))]
    with pytest.raises(
        BenchkitValueError,
        match=r"sample budget differs across models: 'codellama-13b' has 8 samples for item "
              r"'crux_17', others have 10; pass T=\.\.\., drop_incomplete=True",
    ):
        ResponseSet.from_long(df)


def test_drop_incomplete_is_counted():
    df = toy_long(T=10, models=("a", "b"), items=("q1", "q2"))
    df = df[~((df["model"] == "b") & (df["item"] == "q1") & (df["sample"] >= 8))]
    rs = ResponseSet.from_long(df, drop_incomplete=True)
    assert rs.report.n_rows == 8
    assert rs.report.n_cells == 1
    assert "incomplete cell" in str(rs.report)
    assert "'b' on 'q1': 8 samples" in str(rs.report)
    assert rs.counts().N.tolist() == [[10, 0], [10, 10]]
    assert "dropped 8 rows" in repr(rs)


def test_error_more_samples_than_T():
    df = toy_long(T=3)
    msg = r"has 3 samples for item 'q1', more than the sample budget T=2"
    with pytest.raises(BenchkitValueError, match=msg):
        ResponseSet.from_long(df, T=2)


def test_error_probs_do_not_sum_to_one():
    df = pd.DataFrame({"model": ["a"], "item": ["q"], "correct": [1], "option_probs": [[0.5, 0.4, 0.05]]})
    msg = r"must sum to 1 .* row 0 \(model 'a', item 'q'\) sums to 0.95"
    with pytest.raises(BenchkitValueError, match=msg):
        ResponseSet.from_long(df)


def test_error_logprobs_given_as_probs():
    df = pd.DataFrame({"model": ["a"], "item": ["q"], "correct": [1],
                       "option_probs": [list(np.log([0.5, 0.3, 0.2]))]})
    with pytest.raises(BenchkitValueError, match="Log-probabilities\\? Pass them as 'option_logprobs'"):
        ResponseSet.from_long(df)


def test_error_logits_given_as_logprobs():
    df = pd.DataFrame({"model": ["a"], "item": ["q"], "correct": [1], "option_logprobs": [[2.0, -1.0]]})
    with pytest.raises(BenchkitValueError, match=r"must hold log-probabilities \(<= 0\).*Raw logits"):
        ResponseSet.from_long(df)


def test_error_both_prob_columns():
    df = pd.DataFrame({"model": ["a"], "item": ["q"], "correct": [1], "option_probs": [[0.5, 0.5]],
                       "option_logprobs": [[-0.7, -0.7]]})
    with pytest.raises(BenchkitValueError, match="both 'option_probs' and 'option_logprobs'"):
        ResponseSet.from_long(df)


def test_error_ragged_options():
    df = pd.DataFrame({"model": ["a", "b"], "item": ["q", "q"], "correct": [1, 0],
                       "option_probs": [[0.5, 0.5], [0.2, 0.3, 0.5]]})
    with pytest.raises(BenchkitValueError, match="same number of options in every row; row 1 .* has 3"):
        ResponseSet.from_long(df)


def test_error_answer_key_not_among_options():
    df = pd.DataFrame({"model": ["a"], "item": ["q"], "correct": [1]})
    items = pd.DataFrame({"item": ["q"], "answer_key": ["E"], "options": [["w", "x", "y", "z"]]})
    msg = r"item 'q' has answer_key 'E', which is not among its 4 options \(A-D\)"
    with pytest.raises(BenchkitValueError, match=msg):
        ResponseSet.from_long(df, items=items)


def test_error_answer_key_not_a_letter():
    df = pd.DataFrame({"model": ["a"], "item": ["q"], "correct": [1]})
    items = pd.DataFrame({"item": ["q"], "answer_key": ["paris"], "options": [["paris", "rome"]]})
    msg = "'answer_key' for item 'q' is 'paris'; it must be a letter A-B"
    with pytest.raises(BenchkitValueError, match=msg):
        ResponseSet.from_long(df, items=items)


def test_error_answer_nan():
    df = pd.DataFrame({"model": ["a"], "item": ["q"], "correct": [0], "answer": [None]})
    with pytest.raises(BenchkitValueError, match="'answer' has a missing value .* use benchkit.NO_ANSWER"):
        ResponseSet.from_long(df)
    assert ResponseSet.from_long(df.assign(answer=NO_ANSWER)).answer_counts().states == ((NO_ANSWER,),)


def test_error_principal_twice():
    df = toy_long(T=2, models=("a",), items=("q1",))
    df["principal"] = True
    with pytest.raises(BenchkitValueError, match="exactly one sample per cell; model 'a', item 'q1' has 2"):
        ResponseSet.from_long(df)


def test_error_metadata_tables():
    df = toy_long(T=1)
    with pytest.raises(BenchkitValueError, match=r"responses has model\(s\) not listed in models: 'm-b'"):
        ResponseSet.from_long(df, models=pd.DataFrame({"model": ["m-a"]}))
    with pytest.raises(BenchkitValueError, match=r"items lists 1 item\(s\) with no responses, e.g. 'q9'"):
        ResponseSet.from_long(df, items=pd.DataFrame({"item": ["q1", "q2", "q3", "q9"]}))
    with pytest.raises(BenchkitValueError, match="items lists item 'q1' more than once"):
        ResponseSet.from_long(df, items=pd.DataFrame({"item": ["q1", "q1", "q2", "q3"]}))


def test_error_counts_table():
    base = {"model": ["a"], "item": ["q"], "n_samples": [10]}
    msg = r"'n_correct' must be between 0 and n_samples; .* n_correct=11"
    with pytest.raises(BenchkitValueError, match=msg):
        ResponseSet.from_counts(pd.DataFrame({**base, "n_correct": [11]}))
    with pytest.raises(BenchkitTypeError, match="must have an integer dtype, got float64"):
        ResponseSet.from_counts(pd.DataFrame({**base, "n_correct": [3.0]}))
    with pytest.raises(BenchkitValueError, match="more than one row for model 'a', item 'q'"):
        ResponseSet.from_counts(pd.DataFrame({"model": ["a", "a"], "item": ["q", "q"],
                                              "n_correct": [1, 2], "n_samples": [10, 10]}))


def test_error_bad_option_values():
    df = toy_long(T=1)
    with pytest.raises(BenchkitValueError, match="sample_budget='each' is not allowed"):
        ResponseSet.from_long(df, sample_budget="each")
    with pytest.raises(BenchkitValueError, match="T=0 is too small"):
        ResponseSet.from_long(df, T=0)
