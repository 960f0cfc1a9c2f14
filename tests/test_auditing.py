"""benchkit.audit (benchkit.auditing): applicability, the item and model tables, agreement, validation.

Oracles: statsmodels' cohens_kappa and scipy's kendalltau for the agreement table; scikit-learn's
roc_auc_score / average_precision_score and hand-counted precision for the validation table; each
method's own result for the columns the audit copies. The planted-flaw recovery on the full
simulator is in tests/test_auditing_flaws.py (slow), the real datasets in
tests/test_auditing_datasets.py (slow).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau
from statsmodels.stats.inter_rater import cohens_kappa

import benchkit
from benchkit import ResponseSet
from benchkit._validation import BenchkitWarning
from benchkit.auditing import AUDIT_METHODS
from benchkit.auditing import AuditResult
from benchkit.auditing import audit
from benchkit.auditing._boundary import size_ladders
from benchkit.auditing._dif import _patterns
from benchkit.auditing._result import percentiles

FAST = ["labels", "landscape", "quality"]


@pytest.fixture(scope="module")
def small():
    """A small suite: 3 x 30 items + a 30-item copy, 60 models, a 4-model ladder with T = 5."""
    return benchkit.simulate.audit_suite(n_items=30, n_models=60, ladder=(1.0, 4.0, 16.0, 64.0), T=5, rng=3)


@pytest.fixture(scope="module")
def small_audit(small):
    return audit(small.responses, methods=FAST, n_resamples=0, rng=0, progress=False)


def _wide(n_items=6, n_models=3, rng=0):
    g = np.random.default_rng(rng)
    Y = (g.random((n_items, n_models)) < 0.6).astype(float)
    return pd.DataFrame(Y, index=[f"i{j}" for j in range(n_items)],
                        columns=[f"m{k}" for k in range(n_models)])


def test_applicability_names_a_reason_for_every_method_not_run():
    rs = ResponseSet.from_wide(_wide())
    res = audit(rs, rng=0, progress=False)
    a = res.applicability
    assert list(a.index) == list(AUDIT_METHODS)
    assert a.loc["labels", "reason"] == "no answer key (items column 'answer_key')"
    assert a.loc["boundary", "reason"].startswith("no repeated samples")
    assert a.loc["dif", "reason"].startswith(
        "too few models for family DIF: 3 < 2 families x min_family_size (20)")
    assert a.loc["landscape", "reason"].startswith("no option probabilities")
    assert a.loc["quality", "reason"].startswith("one benchmark only and no family")
    assert bool(a.loc["measure", "ran"])
    assert not bool(a.loc["measure", "item_verdict"])
    assert (a.loc[~a["ran"], "reason"].str.len() > 0).all()
    assert res.methods == ()
    assert res.agreement.empty
    assert (res.items["n_flags"] == 0).all()
    assert "measure_reason" in res.items.columns  # measure ran: its reasons are in the item table
    assert "labels_score" not in res.items.columns  # methods that did not run have no columns


def test_reasons_for_more_data_shapes():
    # too few models for the key check, one model, a ladder too short
    long = pd.DataFrame({"model": ["a", "b", "a", "b"], "item": ["x", "x", "y", "y"],
                         "correct": [1, 0, 0, 1]})
    items = pd.DataFrame({"item": ["x", "y"], "answer_key": ["A", "B"]})
    res = audit(ResponseSet.from_long(long.assign(answer=["A", "B", "B", "B"]), items=items),
                methods=["labels", "measure", "quality"], progress=False)
    assert res.applicability.loc["labels", "reason"] == "too few models: 2 < min_models (5)"
    one = ResponseSet.from_wide(_wide(n_models=1))
    res = audit(one, methods=["measure", "quality"], progress=False)
    assert res.applicability.loc["measure", "reason"] == (
        "too few models: 1 (the 1PL difficulties need at least 2)")
    assert res.applicability.loc["quality", "reason"].startswith("too few models: 1")
    reps = pd.DataFrame({"model": np.repeat(["s-1b", "s-2b"], 8),
                         "item": np.tile(np.repeat(["x", "y"], 4), 2),
                         "sample": np.tile(np.arange(4), 4), "correct": np.tile([1, 0], 8)})
    rs = ResponseSet.from_long(reps, models=pd.DataFrame({"model": ["s-1b", "s-2b"], "family": "s",
                                                          "size": [1e9, 2e9]}))
    res = audit(rs, methods=["boundary"], progress=False)
    assert res.applicability.loc["boundary", "reason"].startswith(
        "no size ladder: 2 model(s) have repeated samples, but no family has 3 or more")


def test_item_table_joins_each_method_result(small, small_audit):
    res = small_audit
    rs = small.responses
    it = res.items
    assert list(it.index) == list(rs.item_ids)
    assert res.methods == ("labels", "landscape", "quality")
    ki = res.results["labels"].items.reindex(rs.item_ids)
    np.testing.assert_array_equal(it["labels_score"].to_numpy(), ki["score"].to_numpy())
    np.testing.assert_array_equal(it["labels_flag"].to_numpy(), ki["flag"].to_numpy(bool))
    flags = it[[f"{m}_flag" for m in res.methods]].to_numpy()
    np.testing.assert_array_equal(it["n_flags"].to_numpy(), flags.sum(axis=1))
    for q in np.flatnonzero(flags.any(axis=1))[:20]:
        names = [m for m in res.methods if it.iloc[q][f"{m}_flag"]]
        assert it.iloc[q]["flagged_by"] == ", ".join(names)
    for m in res.methods:  # a reason exactly where an item is flagged or not scored
        explained = it[f"{m}_flag"] | it[f"{m}_score"].isna()
        assert (it.loc[explained, f"{m}_reason"].str.len() > 0).all(), m
        assert (it.loc[~explained, f"{m}_reason"] == "").all(), m
    # consensus: the mean percentile rank over the methods that scored the item
    P = np.column_stack([percentiles(it[f"{m}_score"].to_numpy()) for m in res.methods])
    np.testing.assert_allclose(it["consensus"].to_numpy(), np.nanmean(P, axis=1))
    f = res.flagged_frame(min_flags=1)
    assert (np.diff(f["n_flags"].to_numpy()) <= 0).all()
    assert len(f) == int((it["n_flags"] >= 1).sum())
    assert "items" in repr(res)
    assert isinstance(res, AuditResult)


def test_model_table(small, small_audit):
    m = small_audit.models
    rs = small.responses
    assert list(m.index) == list(rs.model_ids)
    np.testing.assert_allclose(m["accuracy"].to_numpy(), rs.accuracy().to_numpy())
    np.testing.assert_array_equal(m["budget"].to_numpy(), rs.budget.to_numpy())
    lm = small_audit.results["labels"].models.reindex(rs.model_ids)
    np.testing.assert_array_equal(m["labels_excess_key"].to_numpy(), lm["excess_key"].to_numpy())
    assert {"landscape_p_top1", "landscape_h_norm", "quality_family"} <= set(m.columns)


def test_agreement_matches_statsmodels_and_scipy(small_audit):
    res = small_audit
    it = res.items
    assert len(res.agreement) == 3  # three methods with item verdicts: three pairs
    for _, row in res.agreement.iterrows():
        a, b = row["method_a"], row["method_b"]
        sa, sb = it[f"{a}_score"].to_numpy(), it[f"{b}_score"].to_numpy()
        both = ~np.isnan(sa) & ~np.isnan(sb)
        fa, fb = it[f"{a}_flag"].to_numpy()[both], it[f"{b}_flag"].to_numpy()[both]
        assert row["n_items"] == both.sum()
        assert row["n_both"] == (fa & fb).sum()
        union = (fa | fb).sum()
        assert row["jaccard"] == pytest.approx((fa & fb).sum() / union if union else 1.0)
        table = np.array([[np.sum(fa & fb), np.sum(fa & ~fb)], [np.sum(~fa & fb), np.sum(~fa & ~fb)]])
        if table.sum(axis=0).min() and table.sum(axis=1).min():  # both raters use both labels
            assert row["kappa"] == pytest.approx(cohens_kappa(table).kappa, abs=1e-12)
        assert row["tau_b"] == pytest.approx(kendalltau(sa[both], sb[both]).statistic, abs=1e-12)


def test_validate_matches_sklearn(small, small_audit):
    metrics = pytest.importorskip("sklearn.metrics")
    res = small_audit
    truth = small.truth.items["flaw"].reindex(res.items.index)
    reference = list(truth.index[truth.isin(["miskeyed", "ambiguous"])])
    v = res.validate(reference, n_top=10)
    t = v.table
    assert list(t.index) == ["labels", "landscape", "quality", "union", "at least two"]
    y = res.items.index.isin(reference)
    assert v.n_reference == y.sum()
    assert v.prevalence == pytest.approx(y.mean())
    s = res.items["labels_score"].to_numpy()
    s_filled = np.where(np.isnan(s), np.nanmin(s) - 1, s)  # unscored items rank last
    assert t.loc["labels", "auroc"] == pytest.approx(metrics.roc_auc_score(y, s_filled), abs=1e-12)
    assert t.loc["labels", "average_precision"] == pytest.approx(
        metrics.average_precision_score(y, s_filled), abs=1e-12)
    flag = res.items["labels_flag"].to_numpy()
    assert t.loc["labels", "precision"] == pytest.approx((flag & y).sum() / flag.sum())
    assert t.loc["labels", "recall"] == pytest.approx((flag & y).sum() / y.sum())
    top = np.argsort(-s_filled, kind="stable")[:10]
    assert t.loc["labels", "precision_at_k"] == pytest.approx(y[top].mean())
    # the union ranks by the highest percentile rank, "at least two" by the second highest
    P = np.column_stack([np.nan_to_num(percentiles(res.items[f"{m}_score"].to_numpy()), nan=0.0)
                         for m in res.methods])
    P = np.sort(P, axis=1)
    assert t.loc["union", "auroc"] == pytest.approx(metrics.roc_auc_score(y, P[:, -1]), abs=1e-12)
    assert t.loc["at least two", "auroc"] == pytest.approx(metrics.roc_auc_score(y, P[:, -2]), abs=1e-12)
    assert t.loc["union", "n_flagged"] == (res.items["n_flags"] >= 1).sum()
    assert t.loc["at least two", "n_flagged"] == (res.items["n_flags"] >= 2).sum()
    text = str(v)
    assert "labels" in text
    assert "prevalence" in text
    # the same reference as a boolean Series, and through audit(reference=...)
    v2 = res.validate(pd.Series(y, index=res.items.index))
    assert v2.n_top == y.sum()
    again = audit(small.responses, methods=FAST, n_resamples=0, rng=0, progress=False, reference=reference)
    pd.testing.assert_frame_equal(again.validation.table, res.validate(reference).table)


@pytest.mark.parametrize(("reference", "exc", "msg"), [
    (["nope"], ValueError, r"reference names 1 item\(s\) that were not audited, e.g. \['nope'\]"),
    ([], ValueError, "reference must hold some but not all"),
    (pd.Series([1.0]), TypeError, "reference as a Series must be boolean"),
    (42, TypeError, "reference must be a set / list of item ids"),
])
def test_validate_errors(small_audit, reference, exc, msg):
    with pytest.raises(exc, match=msg):
        small_audit.validate(reference)


def test_reproducible_from_rng_entropy_and_independent_of_n_jobs(small):
    rs = small.responses
    a = audit(rs, methods=["quality"], n_resamples=40, rng=11, n_jobs=1, progress=False)
    b = audit(rs, methods=["quality"], n_resamples=40, rng=11, n_jobs=2, progress=False)
    np.testing.assert_array_equal(a.results["quality"].replicates, b.results["quality"].replicates)
    pd.testing.assert_frame_equal(a.items, b.items)
    c = audit(rs, methods=["quality"], n_resamples=40, rng=np.random.SeedSequence(a.rng_entropy),
              progress=False)
    np.testing.assert_array_equal(a.results["quality"].replicates, c.results["quality"].replicates)
    d = audit(rs, methods=["quality"], n_resamples=40, rng=12, progress=False)
    assert not np.array_equal(a.results["quality"].replicates, d.results["quality"].replicates)
    # each method has its own seed child: quality's draws do not depend on which others ran
    e = audit(rs, methods=["labels", "quality"], n_resamples=40, rng=11, progress=False)
    np.testing.assert_array_equal(a.results["quality"].replicates, e.results["quality"].replicates)


def test_rng_entropy_repeats_the_run(small):
    # rule 5 (benchkit._random): rng=result.rng_entropy repeats a run exactly, also one seeded by a
    # Generator (its root gets an int entropy), and an int rng gives the draws it gave before
    rs = small.responses
    a = audit(rs, methods=["quality"], n_resamples=40, rng=11, progress=False)
    assert a.rng_entropy == 11
    # printed by the code of commit ab140e4 (the quality bootstrap's first replicates)
    np.testing.assert_array_equal(a.results["quality"].replicates.ravel()[:5].round(12),
                                  [0.302772906673, 0.142409900261, 0.309763800597, 0.362044426318,
                                   0.215451480604])
    again = audit(rs, methods=["quality"], n_resamples=40, rng=a.rng_entropy, progress=False)
    np.testing.assert_array_equal(again.results["quality"].replicates, a.results["quality"].replicates)
    first = audit(rs, methods=["quality"], n_resamples=40, rng=np.random.default_rng(9), progress=False)
    assert isinstance(first.rng_entropy, int)
    repeat = audit(rs, methods=["quality"], n_resamples=40, rng=first.rng_entropy, progress=False)
    np.testing.assert_array_equal(repeat.results["quality"].replicates,
                                  first.results["quality"].replicates)
    pd.testing.assert_frame_equal(repeat.items, first.items)


def test_progress_on_stderr(small, capsys):
    audit(small.responses, methods=["labels"], progress=True)
    err = capsys.readouterr().err
    assert "audit" in err
    audit(small.responses, methods=["labels"], progress=False)
    assert capsys.readouterr().err == ""


def test_variants_single_variant_methods_read_one():
    rows = []
    g = np.random.default_rng(0)
    for v in ("baseline", "noise"):
        for m in ("a", "b", "c"):
            for i in range(8):
                p = g.dirichlet(np.ones(4))
                rows.append((m, f"q{i}", v, p, int(np.argmax(p) == 0), "ABCD"[int(np.argmax(p))]))
    long = pd.DataFrame(rows, columns=["model", "item", "variant", "option_probs", "correct", "answer"])
    items = pd.DataFrame({"item": [f"q{i}" for i in range(8)], "answer_key": "A"})
    rs = ResponseSet.from_long(long, items=items)
    res = audit(rs, methods=["landscape", "measure"], progress=False)
    assert res.settings["variant"] == "baseline"
    assert "under the 'noise' variant" in res.applicability.loc["landscape", "reason"]
    lp = res.results["landscape"].to_frame()
    noise = lp[lp["variant"] == "noise"]
    all_wrong = noise.groupby("item")["correct"].sum() == 0
    np.testing.assert_array_equal(res.items["landscape_flag"].to_numpy(),
                                  all_wrong.reindex(rs.item_ids).to_numpy())
    res = audit(rs, methods=["measure"], variant="noise", progress=False)
    assert res.settings["variant"] == "noise"


def test_families_and_ladders_from_the_models_table(small):
    rs = small.responses
    pats = _patterns(rs, "family")
    from benchkit.dif.steps import assign_families

    fam, _ = assign_families(list(rs.model_ids), families=pats)
    np.testing.assert_array_equal(fam.astype(str), rs.models["family"].astype(str).to_numpy())
    ladders = size_ladders(rs)
    assert ladders == {"qwen": ["ladder/qwen-1b", "ladder/qwen-4b", "ladder/qwen-16b", "ladder/qwen-64b"]}
    assert _patterns(rs, None) is None


@pytest.mark.parametrize(("kwargs", "exc", "msg"), [
    ({"methods": "all"}, ValueError, r"methods='all' is not allowed; use 'auto' or a list of some"),
    ({"methods": ["labels", "nope"]}, ValueError, "methods='nope' is not allowed"),
    ({"methods": []}, ValueError, "methods is empty"),
    ({"n_resamples": -1}, ValueError, "n_resamples=-1"),
    ({"options": {"nope": {}}}, ValueError, "options key='nope' is not allowed"),
    ({"options": {"dif": 3}}, TypeError, r"options\['dif'\] must be a mapping"),
    ({"options": [1]}, TypeError, "options must be a mapping"),
    ({"families": 3}, TypeError, "families must be None, a models column name or a mapping"),
    ({"variant": "x"}, ValueError, "variant='x' was given but rs has no variants"),
    ({"progress": "yes"}, TypeError, "progress must be True or False"),
    ({"n_jobs": 0}, ValueError, "n_jobs=0 is not allowed"),
    ({"rng": -1}, ValueError, "rng=-1 must be a non-negative integer"),
])
def test_errors(kwargs, exc, msg):
    rs = ResponseSet.from_wide(_wide())
    with pytest.raises(exc, match=msg):
        audit(rs, **{"progress": False, **kwargs})


def test_errors_of_the_data_and_families(small):
    with pytest.raises(TypeError, match="rs must be a benchkit.ResponseSet"):
        audit(_wide())
    with pytest.raises(ValueError, match=r"families='nope' is not a models column"):
        audit(small.responses, methods=["quality"], families="nope", progress=False)
    with pytest.raises(ValueError, match=r"families\['x'\] names model\(s\) not in rs: \['ghost'\]"):
        audit(small.responses, methods=["quality"], families={"x": ["ghost"]}, progress=False)
    # an option the method itself refuses becomes the reason, not an error of the audit
    res = audit(small.responses, methods=["labels"], options={"labels": {"ambiguity": 2.0}}, progress=False)
    assert res.applicability.loc["labels", "reason"].startswith("the method refused the data: ambiguity=2")


def test_untrusted_quality_intervals_are_a_note_not_a_warning(small):
    # 40 replicates on 30 items: quality.assess warns that some CBRC intervals cannot be trusted
    # (extended to their estimate). The audit's verdicts do not use those intervals, so the audit
    # records their count in quality's applicability note instead (and warns of nothing else).
    import warnings

    from benchkit import quality

    rs = small.responses
    with pytest.warns(BenchkitWarning, match=r"\d+ bootstrap interval\(s\) cannot be trusted"):
        quality.assess(rs, family_by="family", align="pairwise", n_resamples=40, rng=11, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = audit(rs, methods=["quality"], n_resamples=40, rng=11, progress=False)
    iv = a.results["quality"].intervals_frame()
    n = int((iv["reason"].notna() & iv["estimate"].notna()).sum())
    assert n > 0
    reason = a.applicability.loc["quality", "reason"]
    assert f"; {n} of Benchmark²'s bootstrap intervals cannot be trusted" in reason
