"""The anchor-fraction refits of the primary audit (paper 001, Table 5) on background threads, and
the results-preserving pieces around them (the shared standardization, the owner-family groups)."""
import numpy as np
import pandas as pd
import pytest
from threadpoolctl import threadpool_info

from benchkit._kernels.boundary_threads import limit_threads
from benchkit._random import spawn
from benchkit._validation import BenchkitValueError
from benchkit.dif._population import _owner_family_groups
from benchkit.dif._sensitivity import AlphaRefits
from benchkit.dif.steps import build_population
from benchkit.dif.steps import purify
from benchkit.dif.steps import run_audit
from benchkit.dif.steps import simulate_family_dif
from benchkit.irt._spectral import standardize


@pytest.fixture(scope="module")
def halves():
    s = simulate_family_dif(n_items=400, n_models=700, n_owners=90, n_sources=4, dif_source_sd=1.0,
                            rng=5)
    pop = build_population(s.model_ids, s.Y.mean(0), min_family_size=5)
    fam = pop.table["family"].to_numpy(object)
    out = []
    for h in (0, 1):
        cols = pop.half_models(h)
        out.append((np.ascontiguousarray(s.Y[:, cols]), fam[cols]))
    return s, out


def _assert_same(a, b):
    for name in ("selected", "weights", "round_D", "delta", "b", "D", "cells"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def test_refits_equal_serial_purify_to_the_bit(halves):
    # Oracle: purify(refit=False) one call after the other on the calling thread. The background
    # run interleaves the four refits' rounds on two threads (and, with limit_threads(1), hands
    # them round by round to one worker and the caller); every array must match exactly.
    s, hv = halves
    fractions = (0.3, 0.7)
    seeds = spawn(np.random.SeedSequence(9), 4)
    serial = [purify(*hv[h], s.source, K=3, anchor_fraction=a, refit=False, rng=seeds[2 * k + h])
              for k, a in enumerate(fractions) for h in (0, 1)]
    for one_thread in (False, True):
        with limit_threads(1) if one_thread else limit_threads(8):
            ref = AlphaRefits(s.source, fractions, seeds)
            for h in (1, 0):  # the halves arrive in either order
                Yh, fam_h = hv[h]
                ref.half_done(h, Yh, fam_h, 3, standardize(Yh))
            got = ref.result()
        assert len(got) == 4
        for a, b in zip(serial, got):
            _assert_same(a, b)


def test_refits_from_the_audit_equal_serial_purify(halves):
    # run_audit's Table 5 comes from the background refits; recompute one of its rows serially
    s, _hv = halves
    a = run_audit(s.Y, s.model_ids, source=s.source, min_family_size=5, K=(3, 3),
                  sensitivity_fractions=(0.3,), n_controls=20, n_bootstrap=20, n_owner_bootstrap=20,
                  n_permutations=20, rng=4, progress=False)
    with limit_threads(1):
        b = run_audit(s.Y, s.model_ids, source=s.source, min_family_size=5, K=(3, 3),
                      sensitivity_fractions=(0.3,), n_controls=20, n_bootstrap=20,
                      n_owner_bootstrap=20, n_permutations=20, rng=4, progress=False, n_jobs=2)
    pd.testing.assert_frame_equal(a.alpha_sensitivity, b.alpha_sensitivity)
    assert list(a.alpha_sensitivity.alpha) == [0.3, 0.5]


def test_refit_error_reaches_the_caller_and_blas_is_restored(halves):
    s, hv = halves
    before = [(i["internal_api"], i["num_threads"]) for i in threadpool_info()]
    ref = AlphaRefits(s.source, (0.3,), spawn(np.random.SeedSequence(1), 2))
    Yh, fam_h = hv[0]
    ref.half_done(0, Yh, fam_h, 3, standardize(Yh))
    ref.half_done(1, Yh[:, :5], fam_h[:5], 3, standardize(Yh))  # standardization of another shape
    with pytest.raises(BenchkitValueError, match="standardized X has shape"):
        ref.result()
    ref.close()  # idempotent
    assert [(i["internal_api"], i["num_threads"]) for i in threadpool_info()] == before


def test_closing_early_drops_queued_rounds(halves):
    s, hv = halves
    ref = AlphaRefits(s.source, (0.3, 0.7), spawn(np.random.SeedSequence(2), 4))
    Yh, fam_h = hv[0]
    ref.half_done(0, Yh, fam_h, 3, standardize(Yh))  # half 1 never arrives (an error elsewhere)
    ref.close()
    assert all(not t.is_alive() for t in ref._threads)


def test_purify_with_the_callers_standardization_is_exact(halves):
    s, hv = halves
    Yh, fam_h = hv[0]
    a = purify(Yh, fam_h, s.source, K=3, rng=1)
    b = purify(Yh, fam_h, s.source, K=3, rng=1, standardized=standardize(Yh))
    _assert_same(a, b)


def test_owner_family_groups_equal_a_pandas_groupby():
    # Oracle: the pandas groupby the population rules used before (sorted (owner, family) keys,
    # each group sorted by id; missing owners or families form no group)
    g = np.random.default_rng(0)
    n = 400
    ids = np.array([f"m{j:04d}" for j in g.permutation(n)], dtype=object)
    own = np.array([f"o{k}" for k in g.integers(0, 40, n)], dtype=object)
    own[g.random(n) < 0.05] = None
    fam = np.array(["llama", "qwen", "phi"], dtype=object)[g.integers(0, 3, n)]
    fam[g.random(n) < 0.05] = None
    rows = np.flatnonzero(g.random(n) < 0.8)
    frame = pd.DataFrame({"i": rows, "id": ids[rows], "fam": fam[rows], "own": own[rows]})
    want = [grp.sort_values("id")["i"].tolist()
            for _, grp in sorted(frame.groupby(["own", "fam"]), key=lambda kv: kv[0])]
    got = [grp.tolist() for grp in _owner_family_groups(rows, ids, fam, own)]
    assert got == want
    assert sum(map(len, got)) < rows.size  # the missing keys were left out
