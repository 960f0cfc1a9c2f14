"""Kernels of benchkit.dif: the residual item x family DIF fit (paper 001, App. C.4).

Contract
--------
Arrays in, arrays out; no validation, no pandas.

* :func:`residual_dif` -- ``Y`` uint8 ``(I, M)`` C-contiguous 0/1 responses, ``fam`` int64 ``(M,)``
  family codes ``0..F-1``, ``O`` float64 ``(I, M)`` C-contiguous offsets, ``F`` int64, ``lam``
  float64, ``n_cycles``/``max_newton`` int64, ``tol``/``max_step`` float64. Returns ``b`` float64
  ``(I,)``, ``delta`` float64 ``(I, F)`` and ``cycles`` int64 ``(I,)`` (alternating cycles used).
  Items run in parallel (``prange``); each item's computation is sequential, so the result does not
  depend on the thread count. Callers limit BLAS threads around it (threadpoolctl).

The objective (Eq. 3) is separable by item, so the clipped alternating Newton scheme of App. C.4
runs item by item: an item stops when its own largest update is below ``tol`` (the paper's global
stopping rule stops when all items have; the extra iterations of already-converged items move
them by less than ``tol``). The numpy twin is ``residual_dif`` in ``tests/naive.py``.
"""
from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, parallel=True, nogil=True)
def residual_dif(Y, fam, offsets, F, lam, n_cycles, max_newton, tol, max_step):
    n_items, M = Y.shape
    b = np.empty(n_items, dtype=np.float64)
    delta = np.zeros((n_items, F), dtype=np.float64)
    cycles = np.zeros(n_items, dtype=np.int64)
    for i in numba.prange(n_items):
        y = Y[i]
        o = offsets[i]
        ysum = 0.0
        osum = 0.0
        for m in range(M):
            ysum += y[m]
            osum += o[m]
        pt = min(max(ysum / M, 1e-4), 1.0 - 1e-4)
        bi = np.log(pt / (1.0 - pt)) - osum / M  # Eq. 25-26
        d = np.zeros(F, dtype=np.float64)
        g = np.zeros(F, dtype=np.float64)
        h = np.zeros(F, dtype=np.float64)
        c_used = 0
        for cyc in range(n_cycles):
            c_used = cyc + 1
            # intercept: Eq. 27-29
            for it in range(max_newton):
                gb = 0.0
                hb = 0.0
                for m in range(M):
                    p = 1.0 / (1.0 + np.exp(-(o[m] + bi + d[fam[m]])))
                    gb += y[m] - p
                    hb += p * (1.0 - p)
                step = min(max(gb / (hb + 1e-9), -max_step), max_step)
                bi += step
                if abs(step) < tol:
                    break
            # family effects: Eq. 30-32 (families are independent given b: one pass updates all)
            d_old = d.copy()
            for it in range(max_newton):
                for f in range(F):
                    g[f] = 0.0
                    h[f] = 0.0
                for m in range(M):
                    f = fam[m]
                    p = 1.0 / (1.0 + np.exp(-(o[m] + bi + d[f])))
                    g[f] += y[m] - p
                    h[f] += p * (1.0 - p)
                big = 0.0
                for f in range(F):
                    step = min(max((g[f] - lam * d[f]) / (h[f] + lam), -max_step), max_step)
                    d[f] += step
                    big = max(big, abs(step))
                if big < tol:
                    break
            # Eq. 33: center within the item, preserving every linear predictor
            mean = 0.0
            for f in range(F):
                mean += d[f]
            mean /= F
            change = 0.0
            for f in range(F):
                d[f] -= mean
                change = max(change, abs(d[f] - d_old[f]))
            bi += mean
            if change < tol:
                break
        b[i] = bi
        for f in range(F):
            delta[i, f] = d[f]
        cycles[i] = c_used
    return b, delta, cycles
