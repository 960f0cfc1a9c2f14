"""Anchor cells, selection and cell-restoring weights (paper 001, Eq. 6-7, App. C.5)."""
import numpy as np
import pytest

from benchkit._validation import BenchkitValueError
from benchkit.dif._anchors import anchor_weights
from benchkit.dif._anchors import easiness_cells
from benchkit.dif._anchors import purify
from benchkit.dif._anchors import select_anchors
from benchkit.dif.steps import simulate_family_dif


def test_cells_hand_case():
    # source A: 6 items, strata sizes 2,2,1,1 (array_split); ties in b by index
    b = np.array([0.5, 0.1, 0.1, 0.9, 0.3, 0.7, 5.0, 4.0])
    src = ["A"] * 6 + ["B"] * 2
    cells = easiness_cells(b, src)
    # A ordered: 1(0.1), 2(0.1), 4(0.3), 0(0.5), 5(0.7), 3(0.9)
    assert cells[[1, 2]].tolist() == [0, 0]
    assert cells[[4, 0]].tolist() == [1, 1]
    assert cells[5] == 2
    assert cells[3] == 3
    assert cells[7] == 4  # B: 4.0 then 5.0
    assert cells[6] == 5


def test_select_and_weights_restore_mass_exactly():
    rng = np.random.default_rng(0)
    cells = rng.integers(0, 37, 1001)
    D = rng.random(1001).round(1)  # many ties
    for alpha in (0.3, 0.5, 0.7):
        sel = select_anchors(D, cells, anchor_fraction=alpha)
        w = anchor_weights(sel, cells)
        for c in np.unique(cells):
            m = cells == c
            n_c = m.sum()
            k_c = max(1, int(np.floor(alpha * n_c + 0.5)))
            assert sel[m].sum() == k_c
            # Eq. 7: every cell keeps its mass n_c (exact in floating point: k_c * (n_c/k_c))
            assert abs(w[m].sum() - n_c) <= 1e-12 * n_c
            # the selected are the smallest D, ties by index
            idx = np.flatnonzero(m)
            order = idx[np.lexsort((idx, D[idx]))]
            assert set(order[:k_c]) == set(np.flatnonzero(sel & m))
        assert abs(w.sum() - 1001) < 1e-9


def test_k_is_at_least_one():
    sel = select_anchors(np.array([3.0, 1.0]), np.array([0, 1]), anchor_fraction=0.3)
    assert sel.tolist() == [True, True]


def test_purify_rounds_and_mass():
    s = simulate_family_dif(n_items=800, n_models=700, n_owners=80, n_sources=8, rng=4)
    keep = np.array([f is not None for f in s.family])
    fa = purify(s.Y[:, keep], s.family[keep], s.source, K=4, rng=0)
    assert fa.selected.shape == (3, 800)
    assert fa.jaccard.shape == (2,)
    for c in np.unique(fa.cells):
        m = fa.cells == c
        assert abs(fa.weights[m].sum() - m.sum()) < 1e-9
    assert np.array_equal(fa.weights > 0, fa.selected[-1])
    # anchors avoid the planted DIF items
    assert s.dif_items[fa.selected[-1]].mean() < 0.5 * s.dif_items.mean()
    again = purify(s.Y[:, keep], s.family[keep], s.source, K=4, rng=0)
    np.testing.assert_array_equal(again.weights, fa.weights)


def test_errors():
    with pytest.raises(BenchkitValueError, match="anchor_fraction"):
        select_anchors([1.0], [0], anchor_fraction=0.0)
    with pytest.raises(BenchkitValueError, match="source"):
        easiness_cells([1.0, 2.0], ["a"])


def test_purify_and_cross_fit_rng_entropy():
    # rule 5: rng=result.rng_entropy repeats the run; int seeds give the anchors they gave before
    # rng_entropy was recorded (printed by commit d7d702c's code with the same calls)
    from benchkit.dif.steps import build_population
    from benchkit.dif.steps import cross_fit

    sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=3)
    keep = np.array([f is not None for f in sim.family])
    Y, fam = sim.Y[:, keep], sim.family[keep]
    first = purify(Y, fam, sim.source, K=2, rng=np.random.default_rng(0))
    assert isinstance(first.rng_entropy, int)
    again = purify(Y, fam, sim.source, K=2, rng=first.rng_entropy)
    np.testing.assert_array_equal(again.selected, first.selected)
    np.testing.assert_array_equal(again.D, first.D)
    fa = purify(Y, fam, sim.source, K=2, rng=6)
    assert fa.rng_entropy == 6
    assert int(np.flatnonzero(fa.selected[-1]).sum()) == 3780
    assert fa.jaccard.tolist() == [0.8285714285714286, 0.8823529411764706]
    pop = build_population(sim.model_ids, sim.Y.mean(0), min_family_size=5, rng=4)
    cf = cross_fit(sim.Y, pop, sim.source, K=(2, 2), rng=None)
    cf2 = cross_fit(sim.Y, pop, sim.source, K=(2, 2), rng=cf.rng_entropy)
    for h in (0, 1):
        np.testing.assert_array_equal(cf2.anchors[h].weights, cf.anchors[h].weights)
    cf5 = cross_fit(sim.Y, pop, sim.source, K=(2, 2), rng=5)
    assert cf5.rng_entropy == 5
    assert [int(np.flatnonzero(a.selected[-1]).sum()) for a in cf5.anchors] == [3794, 3769]
