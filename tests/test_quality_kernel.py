"""The CAD numba kernel against its numpy twin (tests/naive.py), including NaN cells, fractional
scores, empty and single-model families."""
from __future__ import annotations

import numpy as np
import pytest
from naive import cad_counts_naive

from benchkit._kernels.quality import cad_counts


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
