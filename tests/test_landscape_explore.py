"""benchkit.landscape.explore.landscape_view (the view model the LandscapeExplorer renders), on real
data; moved out of tests/test_widget_landscape.py so it runs without the Jupyter extra.

Data: benchkit.datasets.fetch("conformal-llm") (LLaMA-13B option probabilities, 10 prompt variants,
two subjects here). Oracles: the raw ConformalLLM arrays with P_top1 / H_norm written out with
scipy.stats.entropy (paper 003, Sec. 3.2).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import pdist
from scipy.stats import entropy

from benchkit import ResponseSet
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit.datasets import conformal_llm
from benchkit.datasets import fetch
from benchkit.landscape.explore import landscape_view
from benchkit.landscape.steps import points

SUBJECTS = ["anatomy", "business_ethics"]


def conformal_rs():
    """ConformalLLM's LLaMA-13B option probabilities for SUBJECTS (10 prompt variants)."""
    return fetch("conformal-llm", subjects=SUBJECTS)


def conformal_arrays():
    """The raw ConformalLLM arrays (scores, targets) per subject: the oracle's input."""
    return {s: conformal_llm.read_arrays()[s] for s in SUBJECTS}


rs = pytest.fixture(conformal_rs, scope="module", name="rs")
raw = pytest.fixture(conformal_arrays, scope="module", name="raw")


@pytest.fixture(scope="module")
def data(rs):
    return landscape_view(rs, by="source")


def _oracle(p):
    """Sec. 3.2 written out: P_top1 = max p; H_norm = H(residual renormalized) / log(k - 1)."""
    p = np.asarray(p, float) / np.sum(p)
    top = int(np.argmax(p))
    rest = np.delete(p, top)
    if rest.sum() == 0:  # DESIGN.md reading: no residual mass -> H_norm = 0
        return p[top], 0.0, top
    return p[top], entropy(rest / rest.sum()) / np.log(len(p) - 1), top


# ----------------------------------------------------------------------------- landscape_view
def test_landscape_data_points_match_raw_arrays(data, raw):
    f = data.frame
    assert len(f) == 10 * sum(raw[s][1].shape[0] for s in SUBJECTS)
    assert data.variants == [f"prompt_{v}" for v in range(10)]
    assert data.groups == SUBJECTS
    assert data.models == ["llama-13b"]
    for s in SUBJECTS:
        scores, targets = raw[s]
        for v in (0, 7):
            for i in (0, 5, scores.shape[1] - 1):
                row = f[(f["item"] == f"{s}/{i}") & (f["variant"] == f"prompt_{v}")]
                assert len(row) == 1
                pt, hn, top = _oracle(scores[v, i])
                assert row["p_top1"].iloc[0] == pytest.approx(pt, abs=1e-12)
                assert row["h_norm"].iloc[0] == pytest.approx(hn, abs=1e-12)
                assert row["pred"].iloc[0] == "ABCD"[top]
                assert row["answer"].iloc[0] == "ABCD"[targets[i]]
                assert bool(row["correct"].iloc[0]) == (top == targets[i])


def test_landscape_data_rejects_bad_input(rs, data):
    with pytest.raises(BenchkitTypeError, match="source must be a benchkit.ResponseSet"):
        landscape_view(np.zeros((3, 4)))
    with pytest.raises(BenchkitValueError, match="model='gpt' is not in the data"):
        data.view_rows(model="gpt")
    with pytest.raises(BenchkitValueError, match="x0 <= x1"):
        data.brush(data.view_rows(), (0.9, 0.1, 0, 1))
    no_probs = ResponseSet.from_long(pd.DataFrame({"model": ["m"], "item": ["i"], "correct": [1]}))
    with pytest.raises(BenchkitValueError, match="no option probabilities"):
        landscape_view(no_probs)


# ----------------------------------------------------------------------------- compute (explore)
def test_sampled_stats_agree_with_exact_within_se(data):
    rows = data.view_rows(variant="prompt_0")
    ex = data.stats(rows)
    sm = data.stats(rows, method="sampled", n_pairs=200_000)
    assert ex.mpd_method == "exact"
    assert sm.mpd_method == "sampled"
    assert sm.mpd_se > 0
    # the sampled estimate is unbiased with the reported SE (oracle: exact pdist mean)
    assert abs(sm.mpd - ex.mpd) < 5 * sm.mpd_se
    pts = data.frame.loc[rows, ["p_top1", "h_norm"]].to_numpy()
    assert ex.mpd == pytest.approx(pdist(pts).mean(), abs=1e-12)
    # reproducible for a fixed rng
    assert data.stats(rows, method="sampled", rng=3).mpd == data.stats(rows, method="sampled", rng=3).mpd
    assert data.stats(rows, method="auto").mpd_method == "exact"  # 262 points <= EXACT_LIMIT


def test_order_rows_stratified_round_robin_and_sorted():
    pts = points(np.array([[0.7, 0.2, 0.1], [0.5, 0.3, 0.2], [0.9, 0.05, 0.05], [0.4, 0.35, 0.25],
                           [0.6, 0.3, 0.1]]),
                 meta=pd.DataFrame({"model": ["a", "a", "a", "b", "b"], "item": list("12312")}))
    d = landscape_view(pts)
    rows = np.arange(5)
    # round-robin: first row of a, first of b, second of a, second of b, third of a (hand-worked)
    assert d.order_rows(rows).tolist() == [0, 3, 1, 4, 2]
    # sorted by P_top1 descending: 0.9, 0.7, 0.6, 0.5, 0.4 (hand-worked)
    assert d.order_rows(rows, sort_by="p_top1", descending=True).tolist() == [2, 0, 4, 1, 3]
    with pytest.raises(BenchkitValueError, match="sort_by="):
        d.order_rows(rows, sort_by="nope")


def test_flow_is_binned_mean_displacement(data):
    before = data.view_rows(variant="prompt_0")
    mv = data.moves(before, data.view_rows(variant="prompt_9"))
    fl = data.flow(mv, bins=4)
    f = mv.frame
    # oracle: pandas groupby over the before-position cells
    cell = (np.minimum((f.x0 * 4).astype(int), 3) * 4 + np.minimum((f.y0 * 4).astype(int), 3))
    g = f.assign(cell=cell, dx=f.x1 - f.x0, dy=f.y1 - f.y0).groupby("cell")
    ref = g.agg(n=("dx", "size"), dx=("dx", "mean"), dy=("dy", "mean"), d=("distance", "mean"))
    np.testing.assert_array_equal(fl["n"], ref["n"])
    np.testing.assert_allclose(fl["dx"], ref["dx"], atol=1e-12)
    np.testing.assert_allclose(fl["dy"], ref["dy"], atol=1e-12)
    np.testing.assert_allclose(fl["mean_distance"], ref["d"], atol=1e-12)
    assert fl["n"].sum() == len(mv)


def test_view_stats_from_cached_cell_pair_sums_equal_pdist():
    # issue 25: every view is a union of (model, group) cells; its exact MPD is the fsum of the
    # cached cell-pair distance sums. Oracle: scipy pdist on the view's points (float64 kernel:
    # 1e-12); the float32 cell pairs (two cells of >= 16,384 points) are in the next test.
    from benchkit.landscape.explore import ALL

    rng = np.random.default_rng(6)
    parts = []
    for variant, per_item in (("big", 6), ("small", 1)):
        n = 900 * per_item
        meta = pd.DataFrame({"model": np.tile(["m0", "m1", "m2"], n // 3),
                             "item": [f"q{i}" for i in rng.integers(0, 10**6, n)],
                             "benchmark": rng.choice(["arc", "mmlu"], n), "variant": variant})
        parts.append((rng.normal(size=(n, 4)) * rng.uniform(0.5, 4, (n, 1)), meta))
    meta = pd.concat([m for _, m in parts], ignore_index=True)
    meta["item"] = meta["item"] + "_" + meta.groupby("item").cumcount().astype(str) + meta["model"]
    d = landscape_view(points(np.vstack([p for p, _ in parts]), kind="logits", meta=meta))
    for variant, rel in (("big", 1e-12), ("small", 1e-12)):
        cells, counts, S = d.cell_pair_sums(variant)
        assert len(counts) == 6
        assert np.all(np.tril(S, -1) == 0)
        assert d.cell_pair_sums(variant)[2] is S  # computed once
        for model in [ALL, "m0", "m2"]:
            for group in [ALL, "arc", "mmlu"]:
                rows = d.view_rows(model=model, group_value=group, variant=variant)
                st = d.view_stats(model=model, group_value=group, variant=variant)
                ref = pdist(d.frame.loc[rows, ["p_top1", "h_norm"]].to_numpy()).mean()
                assert st.mpd_method == "exact"
                assert st.n_points == len(rows)
                assert abs(st.mpd - ref) <= rel * ref
                other = d.stats(rows, method="exact")
                np.testing.assert_array_equal([st.mean_h_norm, st.mean_p_top1, st.accuracy],
                                              [other.mean_h_norm, other.mean_p_top1, other.accuracy])
    assert d.view_stats(variant="big", method="sampled").mpd_method == "sampled"


def test_view_stats_float32_cell_pairs_within_1e_9():
    # two cells of 16,400 points: their within- and cross-cell sums come from float32 coordinates.
    # Oracle: the float64 tiled kernel on the view's points (itself equal to pdist to 1e-13).
    import math

    from benchkit._kernels import mpd as kmpd
    from benchkit.landscape._mpd import FLOAT32_FROM
    from benchkit.landscape.explore import ALL

    n = 2 * 16_400
    assert 16_400 >= FLOAT32_FROM
    rng = np.random.default_rng(2)
    meta = pd.DataFrame({"model": np.repeat(["a", "b"], n // 2), "item": np.tile(np.arange(n // 2), 2)})
    meta["item"] = meta["item"].astype(str)
    d = landscape_view(points(rng.normal(size=(n, 4)) * rng.uniform(0.5, 4, (n, 1)), kind="logits",
                              meta=meta))
    for model in (ALL, "b"):
        rows = d.view_rows(model=model)
        x = np.ascontiguousarray(d.frame["p_top1"].to_numpy()[rows])
        y = np.ascontiguousarray(d.frame["h_norm"].to_numpy()[rows])
        starts, _ = kmpd.tile_starts([rows.size], 512)
        bi, bj = kmpd.tile_tasks(starts.size - 1, 1)
        pairs = rows.size * (rows.size - 1) // 2
        ref = math.fsum(kmpd.pair_sums_tiles(x, y, starts, bi, bj).tolist()) / pairs
        got = d.view_stats(model=model).mpd
        assert abs(got - ref) <= 1e-9 * ref
