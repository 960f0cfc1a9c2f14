"""Tests of the landscape validation functions (paper 003, Sec. 6, Tables 5, 6, 16, 17)."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import hypergeom
from scipy.stats import spearmanr
from statsmodels.stats.inter_rater import cohens_kappa

import benchkit.landscape as V
from benchkit.stats import hypergeom_sf


def test_taxonomy_table5():
    t = V.steps.taxonomy()
    assert list(t.index) == ["X1", "X2", "A1", "A2", "A3", "A4", "A5"]
    # Table 5 / Sec. 6.1: 30 residual failures, 21 Excluded, 9 Actionable.
    assert t["paper_count"].sum() == 30
    assert t.groupby("group")["paper_count"].sum().to_dict() == {"Actionable": 9, "Excluded": 21}
    lab = V.steps.labelling_table(pd.DataFrame({"item": ["a", "b", "c"], "text": ["t1", "t2", "t3"]}),
                                  labels={"a": "X1", "c": "a2. Answer-key error"}, columns=["text"])
    assert lab["label"].tolist() == ["X1", None, "A2"]
    assert lab["group"].tolist() == ["Excluded", None, "Actionable"]
    assert list(lab.columns) == ["item", "text", "label", "group", "type"]
    c = V.steps.taxonomy_counts(lab)
    assert c.loc["X1", "count"] == 1
    assert c.loc["A2", "count"] == 1
    assert c["count"].sum() == 2
    with pytest.raises(ValueError, match=r"labels\[0\]='B7' is not a taxonomy code"):
        V.steps.labelling_table(["a"], labels=["B7"])
    with pytest.raises(ValueError, match=r"labels has 1 entries but there are 2 candidates"):
        V.steps.labelling_table(["a", "b"], labels=["X1"])


@pytest.mark.parametrize(("M", "n", "N"), [(373, 9, 2), (373, 9, 11), (50, 10, 20), (10, 10, 3),
                                     (20, 0, 5), (30, 7, 0), (1000, 40, 999)])
def test_hypergeom_sf_matches_scipy(M, n, N):
    for k in range(0, min(n, N) + 2):
        ref = hypergeom.sf(k - 1, M, n, N)  # scipy: P(X > k-1) = P(X >= k)
        assert hypergeom_sf(k, M, n, N) == pytest.approx(ref, rel=1e-9, abs=1e-300)


def _table6_inputs():
    universe = [f"q{i}" for i in range(373)]
    flawed = universe[:9]  # 9 expert-identified flaws in the 373-item overlap (Sec. 6.3)
    noise = flawed[:2]  # noise injection: 2 flagged, both flawed
    union = flawed[:4] + universe[100:107]  # 11 flagged, recall 0.444 -> 4 true positives
    expert = pd.Series([i in set(flawed) for i in universe], index=universe)
    return expert, noise, union


def test_table6_reproduces_paper_numbers():
    expert, noise, union = _table6_inputs()
    t = V.steps.validation_table({"Noise injection": noise, "Noise injection ∪ LLM classifier": union},
                                 expert)
    # Table 6 as printed (Flagged, Recall, Precision, F1, Enrichment; p separately), at the paper's
    # decimals: row 1 "2, 0.222, 1.000, 0.364, 41.4x, 0.0005", row 2 "11, 0.444, 0.364, 0.400,
    # 15.1x, < 0.0001"
    decimals = {"Flagged": 0, "Recall": 3, "Precision": 3, "F1": 3, "Enrichment": 1}
    printed = {"Noise injection": (2, 0.222, 1.000, 0.364, 41.4),
               "Noise injection ∪ LLM classifier": (11, 0.444, 0.364, 0.400, 15.1)}
    for row, values in printed.items():
        got = tuple(round(t.loc[row, col], d) for col, d in decimals.items())
        assert got == values, row
    r = t.loc["Noise injection"]
    assert round(r["p"], 4) == 0.0005
    assert r["p"] == pytest.approx(math.comb(9, 2) / math.comb(373, 2), rel=1e-12)  # hand-worked
    u = t.loc["Noise injection ∪ LLM classifier"]
    assert u["p"] < 1e-4
    assert u["p"] == pytest.approx(hypergeom.sf(3, 373, 9, 11), rel=1e-9)
    b = t.loc["Random baseline"]
    assert round(b["Precision"], 3) == 0.024
    assert b["Enrichment"] == 1.0


def test_validate_flags_ids_universe_and_outside():
    res = V.steps.validate_flags(["a", "b", "zz"], ["a", "c"], universe=["a", "b", "c", "d"], name="s")
    assert (res.flagged, res.true_positives, res.n_outside) == (2, 1, 1)
    assert res.recall == 0.5
    assert res.precision == 0.5
    assert res.f1 == 0.5
    assert res.enrichment == pytest.approx(0.5 / 0.5)
    assert res.to_frame().loc[0, "signal"] == "s"
    empty = V.steps.validate_flags([], ["a"], universe=["a", "b"])
    assert empty.flagged == 0
    assert math.isnan(empty.precision)
    assert empty.p_value == 1.0
    with pytest.raises(ValueError, match=r"universe is required"):
        V.steps.validate_flags(["a"], ["a"])
    with pytest.raises(ValueError, match=r"1 expert positive\(s\) are outside the universe"):
        V.steps.validate_flags(["a"], ["a", "x"], universe=["a", "b"])
    with pytest.raises(TypeError, match=r"flagged must be a collection of item ids"):
        V.steps.validate_flags("abc", ["a"], universe=["a"])


def test_hnorm_consistency_against_scipy_spearman():
    rng = np.random.default_rng(0)
    rows = []
    for bench in ["ARC", "MMLU"]:
        base = rng.random(60)
        for m, noise in [("g", 0.1), ("l", 0.5), ("q", 1.0), ("big", 0.2)]:
            h = np.round(base + noise * rng.random(60), 1)  # rounding -> ties
            for i in range(60):
                if m == "q" and i % 9 == 0:
                    continue  # missing items
                rows.append({"benchmark": bench, "model": m, "item": f"{bench}{i}", "h_norm": h[i]})
    f = pd.DataFrame(rows)
    res = V.steps.hnorm_consistency(f, subsets={"small": ["g", "l", "q"], "all": ["g", "l", "q", "big"]})
    assert len(res.pairs) == 2 * 6
    for _, p in res.pairs.iterrows():
        g = f[f.benchmark == p.benchmark].pivot(index="item", columns="model", values="h_norm")
        g = g[[p.model_a, p.model_b]].dropna()
        assert p.n_items == len(g)
        assert p.spearman_r == pytest.approx(spearmanr(g[p.model_a], g[p.model_b]).statistic,
                                             abs=1e-12)
    small = res.pairs[res.pairs.model_a.isin(["g", "l", "q"]) & res.pairs.model_b.isin(["g", "l", "q"])]
    assert res.summary.loc["ARC", "small"] == pytest.approx(
        small[small.benchmark == "ARC"].spearman_r.mean())
    assert list(res.to_frame().columns) == ["small", "all"]
    with pytest.raises(ValueError, match=r"unknown model\(s\) \['x'\]"):
        V.steps.hnorm_consistency(f, subsets={"s": ["x"]})
    with pytest.raises(ValueError, match=r"several rows for item"):
        V.steps.hnorm_consistency(pd.concat([f, f.head(1)]))


def test_annotation_agreement_against_statsmodels():
    a = ["X1", "X1", "A2", "X2", "A4", "X1", "A2", "X1"]
    b = ["X1", "X2", "A2", "X2", "A4", "X1", "A4", "X1"]
    res = V.steps.annotation_agreement(a, b)
    cats = sorted(set(a) | set(b))
    table = np.array([[sum(1 for x, y in zip(a, b) if x == ca and y == cb) for cb in cats]
                      for ca in cats])
    assert res.kappa == pytest.approx(cohens_kappa(table).kappa, abs=1e-12)
    assert res.agreement == 6 / 8
    assert res.n == 8
    # Table 17, ARC: all items X1 for both annotators -> kappa undefined, agreement 100%
    arc = V.steps.annotation_agreement(["X1"] * 5, ["X1"] * 5)
    assert math.isnan(arc.kappa)
    assert arc.agreement == 1.0


def test_noise_failures_cross_model():
    f = pd.DataFrame({
        "item": ["a", "a", "a", "b", "b", "b", "c", "c", "a"],
        "model": ["m1", "m2", "m3", "m1", "m2", "m3", "m1", "m2", "m1"],
        "variant": ["noise"] * 8 + ["baseline"],
        "correct": [False, False, False, False, True, False, True, True, True],
    })
    nf = V.steps.noise_failures(f)
    assert nf.flagged == ("a",)
    t = nf.to_frame().set_index("item")
    assert t.loc["b", "n_failed"] == 2
    assert t.loc["c", "n_models"] == 2
    assert V.steps.noise_failures(f, min_models=2).flagged == ("a", "b")
    with pytest.raises(ValueError, match=r"no rows with variant='mask'"):
        V.steps.noise_failures(f, variant="mask")
    with pytest.raises(ValueError, match=r"missing required column\(s\) 'correct'"):
        V.steps.noise_failures(f.drop(columns="correct"))
