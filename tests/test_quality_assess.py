"""benchkit.quality.assess: Table 1 against the array-level metrics and literal oracles, the
alignment report, and the item bootstrap (reproducible, identical for n_jobs=1 and 2, replicate 0
recomputed by hand from the same seeds)."""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from benchkit import ResponseSet
from benchkit._random import spawn
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import BenchkitWarning
from benchkit.quality import assess
from benchkit.quality._bootstrap import BLOCK
from benchkit.quality.steps import Families
from benchkit.quality.steps import bqs
from benchkit.quality.steps import cad
from benchkit.quality.steps import ds

TOL = 1e-12
MODELS = ["Qwen2.5-72B-Instruct", "Qwen2.5-32B-Instruct", "Qwen2.5-7B-Instruct",
          "gemma-2-27b-it", "gemma-2-9b-it", "gemma-2-2b-it", "phi-2"]


def _bench(seed, n_items, models=MODELS, nan_share=0.0, name=None):
    rng = np.random.default_rng(seed)
    ability = np.linspace(1.5, -1.0, len(models)) + rng.normal(0, 0.3, len(models))
    diff = rng.normal(0, 1, n_items)
    p = 1 / (1 + np.exp(-(ability[None, :] - diff[:, None])))
    Y = (rng.random(p.shape) < p).astype(float)
    if nan_share:
        Y[rng.random(Y.shape) < nan_share] = np.nan
    frame = pd.DataFrame(Y, index=[f"{name}-{i}" for i in range(n_items)], columns=models)
    items = pd.DataFrame({"text": [" ".join(["w"] * int(k)) for k in rng.integers(1, 30, n_items)]},
                         index=frame.index).rename_axis("item").reset_index()
    return ResponseSet.from_wide(frame, items=items, name=name)


@pytest.fixture(scope="module")
def sets():
    return {"A": _bench(1, 60, name="A"), "B": _bench(2, 45, name="B"),
            "C": _bench(3, 50, name="C"), "D": _bench(4, 40, name="D", nan_share=0.05)}


DOMAINS = {"A": "math", "B": "math", "C": "math", "D": "code"}


def test_assess_table_matches_oracles(sets):
    res = assess(sets, domains=DOMAINS, n_resamples=0, progress=False)
    t = res.table
    assert list(t.index) == ["A", "B", "C", "D"]
    S = {b: sets[b].scores() for b in sets}
    means = {b: np.nanmean(S[b], axis=0) for b in sets}
    # CBRC (Eq. 1): scipy tau-b between mean-score vectors of same-domain benchmarks
    for b in "ABC":
        want = np.mean([kendalltau(means[b], means[c]).statistic for c in "ABC" if c != b])
        assert abs(t.at[b, "cbrc"] - want) < TOL
    assert math.isnan(t.at["D", "cbrc"])  # alone in its domain
    # DS and the range columns
    for b in sets:
        assert abs(t.at[b, "ds"] - ds(means[b])) < TOL
        assert abs(t.at[b, "sd"] - np.std(means[b])) < TOL
        assert t.at[b, "min"] == means[b].min()
        assert t.at[b, "max"] == means[b].max()
    # CAD with the parsed families: qwen2.5/instruct 72 > 32 > 7, gemma-2/instruct 27 > 9 > 2
    fams = [[0, 1, 2], [3, 4, 5]]
    for b in sets:
        Y = S[b]
        inv = sum((1 - Y[q, f[a]]) * Y[q, f[c]] for f in fams
                  for a, c in itertools.combinations(range(3), 2) for q in range(Y.shape[0])
                  if not (np.isnan(Y[q, f[a]]) or np.isnan(Y[q, f[c]])))
        comp = sum(1 for f in fams for a, c in itertools.combinations(range(3), 2)
                   for q in range(Y.shape[0]) if not (np.isnan(Y[q, f[a]]) or np.isnan(Y[q, f[c]])))
        assert abs(t.at[b, "raw_cad"] - inv / comp) < TOL
        assert abs(t.at[b, "cad"] - math.exp(-12 * inv / comp)) < TOL
        if b != "D":
            assert abs(t.at[b, "bqs"] - bqs(t.at[b, "cbrc"], t.at[b, "ds"], t.at[b, "cad"])) < TOL
    assert math.isnan(t.at["D", "bqs"])
    fam = res.families["A"]
    assert dict(zip(fam.left_out["model"], fam.left_out["reason"])) == {"phi-2": "single-model family"}
    k = res.kendall["math"]
    assert list(k.index) == ["A", "B", "C"]
    assert k.loc["A", "A"] == 1.0
    assert set(res.families_frame().columns) == {"qwen2.5/instruct", "gemma-2/instruct"}
    inv_items = res.inverted_items("A")
    r = res.cad_results["A"]
    assert len(inv_items) == int((r.item_inversions > 0).sum())
    assert "text" in inv_items.columns
    assert inv_items["inversions"].is_monotonic_decreasing


def test_assess_alignment_reports_dropped(sets):
    extra = _bench(9, 30, models=MODELS[:5] + ["other-model-1b"], name="E")
    data = {"A": sets["A"], "E": extra}
    res = assess(data, n_resamples=0, progress=False)
    assert list(res.scores.columns) == MODELS[:5]
    assert set(res.dropped["model"]) == {"gemma-2-2b-it", "phi-2", "other-model-1b"}
    pw = assess(data, align="pairwise", n_resamples=0, progress=False)
    assert set(pw.scores.columns) == set(MODELS) | {"other-model-1b"}
    a = np.nanmean(sets["A"].scores(), axis=0)[:5]
    e = np.nanmean(extra.scores(), axis=0)[:5]
    assert abs(pw.table.at["A", "cbrc"] - kendalltau(a, e).statistic) < TOL  # pairwise complete
    assert pw.table.at["A", "n_models"] == 7
    assert pw.table.at["E", "n_models"] == 6
    # aliases unify spellings before aligning
    renamed = assess({"A": sets["A"], "E": extra}, aliases={"other-model-1b": "phi-2"},
                     n_resamples=0, progress=False)
    assert "phi-2" in renamed.scores.columns


def test_assess_single_responseset_split_by_benchmark(sets):
    frames = []
    for b in ("A", "B"):
        Y = pd.DataFrame(sets[b].scores(), index=sets[b].item_ids, columns=sets[b].model_ids)
        frames.append(Y)
    wide = pd.concat(frames)
    items = pd.DataFrame({"item": wide.index, "benchmark": ["A"] * 60 + ["B"] * 45})
    one = ResponseSet.from_wide(wide, items=items)
    res = assess(one, n_resamples=0, progress=False)
    ref = assess({"A": sets["A"], "B": sets["B"]}, n_resamples=0, progress=False)
    pd.testing.assert_frame_equal(res.table, ref.table)


def _assess_warned(*args, **kw):
    """assess on small data, where some intervals may not be trusted (not the subject here: the
    warning is tested in test_quality_intervals.py)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BenchkitWarning)
        return assess(*args, **kw)


def test_bootstrap_reproducible_and_n_jobs_invariant(sets):
    kw = dict(domains=DOMAINS, n_resamples=120, progress=False, interval_method="percentile")
    r1 = _assess_warned(sets, rng=5, n_jobs=1, **kw)
    r2 = _assess_warned(sets, rng=5, n_jobs=2, **kw)
    np.testing.assert_array_equal(r1.replicates, r2.replicates)
    pd.testing.assert_frame_equal(r1.table, r2.table)
    r3 = _assess_warned(sets, rng=6, n_jobs=1, **kw)
    assert not np.array_equal(r1.replicates[:, :3, 1], r3.replicates[:, :3, 1])
    # percentile intervals are the percentiles of the replicates (numpy's linear quantile)
    lo, hi = np.nanquantile(r1.replicates[:, 0, 2], [0.025, 0.975])
    assert abs(r1.table.at["A", "cad_low"] - lo) < TOL
    assert abs(r1.table.at["A", "cad_high"] - hi) < TOL
    lo, hi = np.nanquantile(-np.log(r1.replicates[:, 0, 2]) / 12.0, [0.025, 0.975])
    assert abs(r1.table.at["A", "raw_cad_low"] - lo) < TOL
    assert abs(r1.table.at["A", "raw_cad_high"] - hi) < TOL
    assert len(r1.intervals_frame()) == 4 * 5


def test_bootstrap_rng_entropy_repeats_the_run(sets):
    # rule 5: the result records the entropy of its root; rng=result.rng_entropy repeats the
    # bootstrap, and an int rng gives the intervals of before (computed at d7d702c, where the
    # replicate blocks were spawned from rng directly; percentile intervals, its only method)
    three = {k: sets[k] for k in "ABC"}
    a = _assess_warned(three, n_resamples=60, rng=7, progress=False, interval_method="percentile")
    assert a.rng_entropy == 7
    np.testing.assert_allclose(
        a.table[["cbrc_low", "ds_high", "cad_low", "bqs_high"]].to_numpy().ravel(),
        [0.47970382411351625, 0.3651598740034687, 0.12034876365241337, 0.4725640909327257,
         0.35868061012833785, 0.3807455106529537, 0.040711857072775325, 0.3961848602608237,
         0.35031213478217904, 0.48089182300207256, 0.11295109063330501, 0.4871971790499304],
        rtol=1e-12)
    b = _assess_warned(three, n_resamples=60, rng=np.random.default_rng(3), progress=False)
    assert isinstance(b.rng_entropy, int)
    c = _assess_warned(three, n_resamples=60, rng=b.rng_entropy, progress=False)
    np.testing.assert_array_equal(c.replicates, b.replicates)
    pd.testing.assert_frame_equal(c.table, b.table)


def test_bootstrap_replicate_zero_recomputed_by_hand(sets):
    """Replicate 0 = block 0's first draws: per pool (here one per benchmark, no shared ids),
    n unit indices with replacement."""
    res = _assess_warned(sets, domains=DOMAINS, n_resamples=BLOCK, rng=8, progress=False)
    assert res.settings["item_pools"] == [("A",), ("B",), ("C",), ("D",)]
    gen = np.random.default_rng(spawn(8, 1)[0])
    draws = {}
    for b in sets:  # the block draws all replicates of pool A, then B, ...
        n = sets[b].n_items
        draws[b] = [gen.integers(0, n, n) for _ in range(BLOCK)][0]
    means = {}
    for k, b in enumerate(sets):
        Y = sets[b].scores()[draws[b]]
        means[b] = np.nanmean(Y, axis=0)
        c = cad(Y, [[0, 1, 2], [3, 4, 5]])
        assert abs(res.replicates[0, k, 2] - c.score) < TOL
        assert abs(res.replicates[0, k, 1] - ds(means[b])) < TOL
    for k, b in enumerate("ABC"):
        want = np.mean([kendalltau(means[b], means[c]).statistic for c in "ABC" if c != b])
        assert abs(res.replicates[0, k, 0] - want) < TOL


def test_assess_errors(sets):
    with pytest.raises(BenchkitValueError, match="no entry for benchmark"):
        assess(sets, domains={"A": "x"}, n_resamples=0)
    with pytest.raises(BenchkitTypeError, match="ResponseSet"):
        assess({"A": 3}, n_resamples=0)
    with pytest.raises(BenchkitValueError, match="align"):
        assess(sets, align="outer", n_resamples=0)
    other = _bench(3, 10, models=["x-1b", "y-2b"], name="Z")
    with pytest.raises(BenchkitValueError, match="shared by all"):
        assess({"A": sets["A"], "Z": other}, n_resamples=0)
    with pytest.raises(BenchkitValueError, match="weights"):
        assess(sets, weights=(1, 2), n_resamples=0)


def test_assess_explicit_families(sets):
    fam = Families(names=("mine",), members=((MODELS[6], MODELS[0]),), sizes=((np.nan, np.nan),),
                   left_out=pd.DataFrame())
    res = assess(sets, families=fam, n_resamples=0, progress=False)
    Y = sets["A"].scores()
    want = np.sum((1 - Y[:, 6]) * Y[:, 0]) / Y.shape[0]
    assert abs(res.table.at["A", "raw_cad"] - want) < TOL


def test_assess_families_mapping_reports_unknown_models(sets):
    res = assess(sets, families={"typo": ["Qwen2.5-72B-Instruct", "Qwen2.5-7b-instruct"]},
                 n_resamples=0, progress=False)
    rows = res.dropped[res.dropped["model"] == "Qwen2.5-7b-instruct"]
    assert list(rows["reason"]) == ["listed in families but in no benchmark"]
    assert res.families["A"].members == (("Qwen2.5-72B-Instruct",),)
    assert math.isnan(res.table.at["A", "raw_cad"])  # no pair to compare
