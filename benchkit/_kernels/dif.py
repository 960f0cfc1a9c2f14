"""Kernels of benchkit.dif: the residual item x family DIF fit (paper 001, App. C.4).

Contract
--------
Arrays in, arrays out; no validation, no pandas. Models are taken in *family order*: ``order``
int64 ``(M,)`` lists the model columns family by family (a stable argsort of the family codes) and
``starts`` int64 ``(F + 1,)`` bounds family ``f`` to positions ``starts[f]:starts[f + 1]`` of that
order. Each item's responses and offsets are gathered once into contiguous buffers in that order,
so every Newton pass is a plain reduction over contiguous family segments (no gather ``d[fam[m]]``,
no scatter ``g[f] +=``) and vectorizes, with the exponential of :mod:`benchkit._kernels.vecmath`.

* :func:`residual_dif` -- ``Y`` uint8 ``(I, M)`` C-contiguous 0/1 responses, ``order``,
  ``starts``, the offsets, ``lam`` float64, ``n_cycles``/``max_newton`` int64, ``tol``/``max_step``
  float64. Returns ``b`` float64 ``(I,)``, ``delta`` float64 ``(I, F)``, ``cycles`` int64 ``(I,)``
  (alternating cycles used) and ``passes`` int64 ``(I,)`` (Newton passes over the item's M cells,
  for benchmarks). The offsets are either ``offsets`` float64 ``(I, M)`` C-contiguous (original
  column order; pass empty ``(0, 0)`` factors), or -- when ``offsets`` has no rows -- those of
  Eq. 17 rebuilt per item from the rank-K factors instead of read from a dense matrix: ``L``
  float64 ``(I, K)`` loadings, ``thetaT`` float64 ``(K, M)`` model coordinates *already in family
  order*, ``s`` float64 ``(I,)`` and ``clip``; ``o = clip(L_i . theta_m / s_i, -clip, clip)``.

* :func:`matched_scores` -- blueprint-matched random anchor scores (App. C.6, Eq. 34): ``keys``
  float64 ``(R, I)`` uniform draws, ``cellv`` float64 ``(I,)`` cell codes, ``ptr`` int64 ``(C + 1,)``
  and ``items`` int64 ``(I,)`` listing each cell's items in index order, ``k_c`` int64 and ``w_c``
  float64 ``(C,)`` (items drawn per cell and their weight ``n_c / k_c``), and the responses
  bit-packed per cell by :func:`pack_cells` (``bits`` uint64 ``(words, M)``, ``woff`` int64
  ``(C + 1,)``; from ``Y`` uint8 ``(I, M)``, ``ptr`` and ``items``, once per fold).
  Replicate ``r`` takes, in every cell, the ``k_c`` items with the smallest ``cellv + keys[r]``
  (ties by item index: exactly the items a stable argsort of ``cellv + keys[r]`` puts first in
  their cell, as commit e599a3b drew them; the k-th value by quickselect) and returns ``alt``
  float64 ``(R, M)``, ``sum_c w_c * (correct drawn items of c) / sum_c w_c k_c``. The counts are
  exact integers (``popcount`` of the packed responses and the drawn-item mask, 64 items a word),
  added over cells in cell order; replicates run in parallel, each on one thread.

* :func:`reversal_counts` -- strict near-tie reversals (Eq. 38-39): ``alt`` float64 ``(R, M)``
  alternative scores, pairs ``pi``/``pj`` int64 ``(P,)`` with the frozen full-score ``sign``
  float64 ``(P,)`` -- or, when ``use_full``, the sign of ``full`` float64 ``(R, M)`` per replicate
  (pairs with ``|full_i - full_j| <= tol`` leave the denominator) --, ``band`` int64 ``(P,)`` in
  ``[0, n_bands)`` (the gap band of each pair; the caller adds bands up into cumulative
  thresholds) and ``tol``. Returns int64 ``(R, n_bands)`` flips (``|d| > tol`` and
  ``sign * d < 0``, ``d = alt_i - alt_j``) and eligible counts (``|d| > tol``) per band;
  replicates in parallel, exact integer counts.

Items run in parallel (``prange``); each item's computation is sequential, so the result does not
depend on the thread count. Callers limit BLAS threads around it (threadpoolctl).

The objective (Eq. 3) is separable by item, so the clipped alternating Newton scheme of App. C.4
runs item by item: an item stops when its own largest update is below ``tol`` (the paper's global
stopping rule stops when all items have; the extra iterations of already-converged items move
them by less than ``tol``).

Accuracy: the reductions are summed family by family in vector lanes (``fastmath`` ``reassoc``,
``contract``, ``nsz``; no approximate functions, no finite-math assumption) and ``exp`` is the 1-ulp
vectorizable one, so results differ from a scalar left-to-right loop by rounding only: on the
paper-scale audit (14,042 items) ``b`` and ``delta`` agree with the scalar kernel of commit
e599a3b to ~1e-13; a fit whose stopping test sits on the ``tol`` boundary can take one iteration
more or less, which moves it by less than ``tol`` (1e-8). The twins are ``residual_dif`` (the
whole-matrix numpy version) and ``residual_dif_items`` (the per-item stopping rule of this kernel)
in ``tests/naive.py``.
"""
from __future__ import annotations

import numba
import numpy as np

from benchkit._kernels.vecmath import exp
from benchkit._kernels.vecmath import popcount

_FM = {"reassoc", "contract", "nsz"}


@numba.njit(fastmath=_FM, error_model="numpy", cache=True)
def _family_sums(y, o, starts, bi, d, g, h):
    """Per family: g_f = sum (y - p), h_f = sum p (1 - p), p = logistic(o + b + d_f)."""
    for f in range(d.size):
        c = bi + d[f]
        yf = y[starts[f]:starts[f + 1]]
        of = o[starts[f]:starts[f + 1]]
        gs = 0.0
        hs = 0.0
        for m in range(yf.size):
            p = 1.0 / (1.0 + exp(-(of[m] + c)))
            gs += yf[m] - p
            hs += p * (1.0 - p)
        g[f] = gs
        h[f] = hs


@numba.njit(fastmath=_FM, error_model="numpy", cache=True)
def _fit_item(y, o, starts, lam, n_cycles, max_newton, tol, max_step, d, g, h):
    """App. C.4 for one item on family-ordered buffers; fills ``d``.

    Returns (b, cycles used, Newton passes over the item's cells).
    """
    M = y.size
    F = d.size
    ysum = 0.0
    osum = 0.0
    for m in range(M):
        ysum += y[m]
        osum += o[m]
    pt = min(max(ysum / M, 1e-4), 1.0 - 1e-4)
    bi = np.log(pt / (1.0 - pt)) - osum / M  # Eq. 25-26
    d_old = np.zeros(F)
    for f in range(F):
        d[f] = 0.0
    c_used = 0
    passes = 0
    for cyc in range(n_cycles):
        c_used = cyc + 1
        # intercept: Eq. 27-29
        for it in range(max_newton):
            _family_sums(y, o, starts, bi, d, g, h)
            passes += 1
            gb = 0.0
            hb = 0.0
            for f in range(F):
                gb += g[f]
                hb += h[f]
            step = min(max(gb / (hb + 1e-9), -max_step), max_step)
            bi += step
            if abs(step) < tol:
                break
        # family effects: Eq. 30-32 (families are independent given b: one pass updates all)
        for f in range(F):
            d_old[f] = d[f]
        for it in range(max_newton):
            _family_sums(y, o, starts, bi, d, g, h)
            passes += 1
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
    return bi, c_used, passes


@numba.njit(cache=True)
def _gather_row(Yi, order, y):
    for m in range(order.size):
        y[m] = Yi[order[m]]


@numba.njit(fastmath=_FM, cache=True)
def _factor_offsets(Li, thetaT, si, clip, o):
    """O = clip(Li . theta_m / si, -clip, clip) for every model m (Eq. 17)."""
    for m in range(o.size):
        o[m] = 0.0
    for k in range(Li.size):
        lk = Li[k]
        tk = thetaT[k]
        for m in range(o.size):
            o[m] += lk * tk[m]
    for m in range(o.size):
        o[m] = min(max(o[m] / si, -clip), clip)


@numba.njit(cache=True, parallel=True, nogil=True)
def residual_dif(Y, order, starts, offsets, L, thetaT, s, clip, lam, n_cycles, max_newton, tol,
                 max_step):
    n_items, M = Y.shape
    F = starts.size - 1
    dense = offsets.shape[0] == n_items
    b = np.empty(n_items, dtype=np.float64)
    delta = np.zeros((n_items, F), dtype=np.float64)
    cycles = np.zeros(n_items, dtype=np.int64)
    passes = np.zeros(n_items, dtype=np.int64)
    for i in numba.prange(n_items):
        y = np.empty(M)
        o = np.empty(M)
        d = np.empty(F)
        g = np.empty(F)
        h = np.empty(F)
        _gather_row(Y[i], order, y)
        if dense:
            _gather_row(offsets[i], order, o)
        else:
            _factor_offsets(L[i], thetaT, s[i], clip, o)
        b[i], cycles[i], passes[i] = _fit_item(y, o, starts, lam, n_cycles, max_newton, tol, max_step,
                                               d, g, h)
        delta[i, :] = d
    return b, delta, cycles, passes


@numba.njit(cache=True)
def pack_cells(Y, ptr, items):
    """Bit-pack the 0/1 rows cell by cell.

    ``bits[woff[c] + t // 64, m]`` holds, in bit ``t % 64``, the response of model ``m`` to the
    ``t``-th item of cell ``c`` (``items[ptr[c] + t]``).
    """
    C = ptr.size - 1
    M = Y.shape[1]
    woff = np.zeros(C + 1, dtype=np.int64)
    for c in range(C):
        woff[c + 1] = woff[c] + (ptr[c + 1] - ptr[c] + 63) // 64
    bits = np.zeros((woff[C], M), dtype=np.uint64)
    for c in range(C):
        for t in range(ptr[c + 1] - ptr[c]):
            row = bits[woff[c] + t // 64]
            b = np.uint64(1) << np.uint64(t % 64)
            yi = Y[items[ptr[c] + t]]
            for m in range(M):
                if yi[m] != 0:
                    row[m] |= b
    return bits, woff


@numba.njit(cache=True)
def _kth_smallest(a, n, k):
    """The ``k``-th smallest (0-based) of ``a[:n]`` by quickselect; reorders ``a[:n]``."""
    lo = 0
    hi = n - 1
    while lo < hi:
        mid = (lo + hi) // 2
        x, y, z = a[lo], a[mid], a[hi]
        pivot = max(min(x, y), min(max(x, y), z))  # median of three
        i = lo
        j = hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return a[k]
    return a[k]


@numba.njit(cache=True, parallel=True, nogil=True)
def matched_scores(keys, cellv, ptr, items, k_c, w_c, bits, woff):
    n = keys.shape[0]
    C = ptr.size - 1
    M = bits.shape[1]
    nmax = 0
    wmax = 0
    for c in range(C):
        nmax = max(nmax, ptr[c + 1] - ptr[c])
        wmax = max(wmax, woff[c + 1] - woff[c])
    alt = np.empty((n, M), dtype=np.float64)
    den = 0.0
    for c in range(C):
        den += w_c[c] * k_c[c]
    for r in numba.prange(n):
        v = np.empty(nmax)
        work = np.empty(nmax)
        sel = np.empty(wmax, dtype=np.uint64)
        cnt = np.empty(M, dtype=np.int64)
        acc = np.zeros(M)
        for c in range(C):
            k = k_c[c]
            size = ptr[c + 1] - ptr[c]
            if k == 0 or size == 0:
                continue
            for t in range(size):
                i = items[ptr[c] + t]
                v[t] = cellv[i] + keys[r, i]
                work[t] = v[t]
            kth = _kth_smallest(work, size, k - 1)
            need = k
            for t in range(size):
                if v[t] < kth:
                    need -= 1
            nw = woff[c + 1] - woff[c]
            for w in range(nw):
                sel[w] = 0
            for t in range(size):  # the k smallest, ties at the k-th value by position
                if v[t] < kth or (v[t] == kth and need > 0):
                    if v[t] == kth:
                        need -= 1
                    sel[t // 64] |= np.uint64(1) << np.uint64(t % 64)
            for m in range(M):
                cnt[m] = 0
            for w in range(nw):
                sw = sel[w]
                row = bits[woff[c] + w]
                for m in range(M):
                    cnt[m] += popcount(row[m] & sw)
            wc = w_c[c]
            for m in range(M):
                acc[m] += wc * cnt[m]
        for m in range(M):
            alt[r, m] = acc[m] / den
    return alt


@numba.njit(cache=True, parallel=True, nogil=True)
def reversal_counts(alt, pi, pj, sign, full, use_full, band, n_bands, tol):
    n = alt.shape[0]
    P = pi.size
    flips = np.zeros((n, n_bands), dtype=np.int64)
    elig = np.zeros((n, n_bands), dtype=np.int64)
    for r in numba.prange(n):
        fr = flips[r]
        er = elig[r]
        for p in range(P):
            d = alt[r, pi[p]] - alt[r, pj[p]]
            ok = abs(d) > tol
            if use_full:
                df = full[r, pi[p]] - full[r, pj[p]]
                ok = ok and abs(df) > tol
                s = 1.0 if df > 0 else -1.0
            else:
                s = sign[p]
            b = band[p]
            er[b] += ok  # branch-free: the flip test is a coin toss for the branch predictor
            fr[b] += ok and s * d < 0
    return flips, elig
