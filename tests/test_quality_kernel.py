"""The CAD numba kernel against its numpy twin (tests/naive.py), including NaN cells, fractional
scores, empty and single-model families."""
from __future__ import annotations

import numpy as np
import pytest

from benchkit._kernels.quality import cad_counts
from naive import cad_counts_naive


@pytest.mark.parametrize("seed", range(5))
def test_cad_kernel_matches_naive_twin(seed):
    rng = np.random.default_rng(seed)
    Y = (rng.random((300, 30)) < 0.6).astype(float)
    if seed % 2:
        Y = np.round(rng.random(Y.shape) * 10) / 10
        Y[rng.random(Y.shape) < 0.1] = np.nan
    perm = rng.permutation(30)
    fams = [perm[0:5], perm[5:6], perm[6:6], perm[6:14], perm[14:16]]
    members = np.concatenate(fams).astype(np.int64)
    ptr = np.concatenate([[0], np.cumsum([len(f) for f in fams])]).astype(np.int64)
    out = [np.full(300, -1.0), np.full(300, -1.0), np.full(5, -1.0), np.full(5, -1.0)]
    cad_counts(Y, members, ptr, *out)
    for got, want in zip(out, cad_counts_naive(Y, fams)):
        np.testing.assert_allclose(got, want, atol=1e-12, rtol=0)


@pytest.mark.parametrize("bad", [1.5, -0.25, np.inf, -np.inf])
def test_cad_kernel_reports_the_first_value_outside_0_1(bad):
    # the range check fused into the kernel finds the cell the former numpy check reported:
    # the first, in row-major order, of Y < 0 or Y > 1 (NaN allowed)
    from benchkit._validation import BenchkitValueError
    from benchkit.quality.steps import cad

    rng = np.random.default_rng(1)
    Y = (rng.random((50, 8)) < 0.5).astype(float)
    Y[3, 2] = np.nan
    members = np.array([0, 1, 2], dtype=np.int64)  # column 7 is in no family: still checked
    ptr = np.array([0, 3], dtype=np.int64)
    out = [np.empty(50), np.empty(50), np.empty(1), np.empty(1)]
    assert cad_counts(Y, members, ptr, *out) == -1
    Y[41, 7] = 2.0
    Y[17, 7] = bad
    assert cad_counts(Y, members, ptr, *out) == 17 * 8 + 7
    assert Y[(Y < 0) | (Y > 1)][0] == Y.flat[17 * 8 + 7]
    with pytest.raises(BenchkitValueError, match=r"Y must lie in \[0, 1\] \(NaN for missing\); found"):
        cad(Y, [[0, 1, 2]])
