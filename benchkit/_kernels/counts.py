"""Kernels of the aggregating readers: long 0/1 rows scatter-added into dense count arrays.

Contract
--------
Arrays in, arrays out; no pandas. :func:`scatter_binary` takes one batch of rows as Arrow hands
it over -- ``item_idx`` and ``model_idx`` the integer dictionary indices of the item and model
columns (any integer dtype), ``y`` the correctness column (any numeric or bool dtype) -- plus
``item_lut`` / ``model_lut`` int64 lookup tables from dictionary index to code, and adds every
row into ``N`` / ``K`` uint8 ``(items, models)`` C-contiguous arrays (observed rows, correct rows),
in place. Counts saturate at 255 instead of wrapping. It returns ``(bad, dup)``: the first row
whose ``y`` is not 0 or 1 (-1 when none; the rows before it are counted, the ones after are not)
and whether some cell now holds more than one row. The validation (0/1 values, duplicate cells)
is fused into the same pass, so no row-length array is built.

The twin is ``scatter_binary`` in ``tests/naive.py`` (``numpy.add.at``).
"""
from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True)
def scatter_binary(N, K, item_idx, model_idx, item_lut, model_lut, y):
    dup = False
    for r in range(y.size):
        v = y[r]
        if v != 0 and v != 1:
            return r, dup
        i = item_lut[item_idx[r]]
        m = model_lut[model_idx[r]]
        n = N[i, m]
        if n != 0:
            dup = True
        if n < 255:
            N[i, m] = n + 1
            if v == 1:
                K[i, m] += 1
    return -1, dup
