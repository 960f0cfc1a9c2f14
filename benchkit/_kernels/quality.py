"""Benchmark² CAD counts (paper 004, Eq. 4-5) in one pass over the response matrix.

Contract
--------
Arrays in, arrays out; no validation, no pandas. :func:`cad_counts` takes

* ``Y`` float64 ``(n_items, n_models)`` C-contiguous: 1 correct, 0 wrong, a fraction for a mean
  score, NaN for a missing cell;
* the families as CSR: ``members`` int64 (model columns of all families, each family strongest
  first) and ``ptr`` int64 ``(n_families + 1,)`` (family f is ``members[ptr[f]:ptr[f + 1]]``);

and writes into caller-allocated float64 outputs ``inv``/``comp`` ``(n_items,)`` and
``fam_inv``/``fam_comp`` ``(n_families,)`` (overwritten). For each item and family it walks the
members strongest first keeping ``F`` = sum of ``1 - y`` and ``O`` = number of observed stronger
members, and adds ``y_k * F`` to the inversions and ``O`` to the comparisons at member k, so
``inv_q = sum_{j<k} (1 - y_j) y_k`` and ``comp_q = #{j<k both observed}`` over all families.
The range check of the input is fused into the same pass: it returns the flat (row-major) index of
the first cell of ``Y`` outside ``[0, 1]`` (infinities included, NaN allowed), or -1; the counts are
then not meaningful. Serial (the whole 14,000 x 100 matrix is ~2 ms of work; a parallel region
would cost more to wake).
The numpy twin is ``tests/naive.py::cad_counts_naive``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["cad_counts"]


@njit(cache=True, nogil=True)
def cad_counts(Y, members, ptr, inv, comp, fam_inv, fam_comp):  # pragma: no cover - numba
    n, n_models = Y.shape
    n_fam = ptr.shape[0] - 1
    bad = -1
    for f in range(n_fam):
        fam_inv[f] = 0.0
        fam_comp[f] = 0.0
    for q in range(n):
        if bad < 0:
            row = Y[q]
            for j in range(n_models):
                if row[j] < 0.0 or row[j] > 1.0:
                    bad = q * n_models + j
                    break
        iq = 0.0
        cq = 0.0
        for f in range(n_fam):
            run_f = 0.0
            run_o = 0.0
            fi = 0.0
            fc = 0.0
            for t in range(ptr[f], ptr[f + 1]):
                y = Y[q, members[t]]
                if np.isnan(y):
                    continue
                fi += y * run_f
                fc += run_o
                run_f += 1.0 - y
                run_o += 1.0
            fam_inv[f] += fi
            fam_comp[f] += fc
            iq += fi
            cq += fc
        inv[q] = iq
        comp[q] = cq
    return bad
