"""Mean-pairwise-distance kernels: sums of Euclidean distances over all unordered pairs.

Contract
--------
Arrays in, arrays out; no validation, no pandas. Coordinates are float64, C-contiguous,
structure-of-arrays: ``x`` and ``y`` ``(n,)`` for points in the plane, or ``pts`` ``(dim, n)`` in
general. The pair set is cut into square tiles of ``block`` points; task ``t`` is the tile pair
``(bi[t], bj[t])`` with ``bi <= bj`` (build the task list with :func:`tile_tasks`). Each kernel
returns one float64 partial sum per task (or per task and bootstrap replicate); the caller adds the
partials in task order (``math.fsum``), so the result does not depend on the number of threads:
each task is computed sequentially by one thread with the same code whatever the thread count.

* :func:`pair_sums_2d` / :func:`pair_sums_2d_serial` -- ``(ntasks,)`` partial sums of
  ``sqrt((x_i - x_j)^2 + (y_i - y_j)^2)`` over the pairs ``i < j`` of each task.
* :func:`pair_sums_nd` -- the same for ``pts`` ``(dim, n)`` of any dimension.
* :func:`weighted_pair_sums` -- ``(ntasks, B)`` partial sums of ``w_bi * w_bj * d_ij`` over
  ``i < j`` for ``B`` weight rows ``w`` ``(B, n)`` (bootstrap multiplicities), ``pts`` ``(dim, n)``.

Accuracy and speed (2-D kernel)
-------------------------------
The off-diagonal tiles are processed two rows at a time: the first row's distances use the
hardware square root (``vsqrtpd``), the second row's use :func:`_nsqrt`, a division-free square
root built from FMA-pipe arithmetic (a bit-level initial guess of ``1/sqrt(d)`` refined by two
Newton steps and a final third-order step). The hardware square root unit and the multiply/FMA
pipes then work in parallel; on the 2-core AMD EPYC (Zen 3) machines this is ~25 % more pairs per
second than the square root alone (1.65 vs 1.30 G pairs/s per core, in-cache). ``_nsqrt`` is
accurate to 4.4e-16 relative (2 ulp; measured over 2e6 values from 1e-300 to 1e300) and returns
exactly 0 for ``d = 0``; for ``0 < d < 1e-300`` (distances below 1e-150) it is off by less than
1e-150 absolute. Tile sums are accumulated in float64 vector accumulators (at most ``2*block``
terms), added to the task total with Neumaier compensated summation; the caller's ``fsum`` over
tasks is exactly rounded. Against ``scipy.spatial.distance.pdist(...).mean()`` the mean agrees to
~1e-15 relative.

``fastmath`` is limited to ``reassoc, contract, nsz`` (needed to vectorize the reductions and use
FMAs); no approximate math functions (``afn``) and no finite-math assumptions are enabled.
Indices are taken from slices (0-based loops), which lets LLVM drop numba's negative-index
wraparound and vectorize the inner loops.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba import prange

from benchkit._kernels.vecmath import bits as _bits
from benchkit._kernels.vecmath import from_bits as _from_bits

__all__ = [
    "tile_tasks",
    "pair_sums_2d",
    "pair_sums_2d_serial",
    "pair_sums_nd",
    "weighted_pair_sums",
]

_FM = {"reassoc", "contract", "nsz"}
_MAGIC = 0x5FE6EB50C7B537A9  # initial guess of 1/sqrt(d) from the bits of d (float64 variant)


def tile_tasks(n: int, block: int) -> tuple[np.ndarray, np.ndarray]:
    """Task list (bi, bj), bi <= bj, row-major over the upper triangle of tile pairs."""
    nb = -(-int(n) // int(block)) if n > 0 else 0
    bi, bj = np.triu_indices(nb)
    return bi.astype(np.int64), bj.astype(np.int64)


@njit(fastmath=_FM, cache=True, inline="always")
def _nsqrt(d):
    """sqrt(d) for d >= 0 without the square-root unit (see module docstring for accuracy)."""
    dc = max(d, 1e-300)
    r = _from_bits(_MAGIC - (_bits(dc) >> 1))  # ~3.4 % relative error
    hd = 0.5 * dc
    r = r * (1.5 - hd * (r * r))  # Newton: 1.7e-3
    r = r * (1.5 - hd * (r * r))  # Newton: 4.5e-6
    s = d * r  # sqrt(d) = d / sqrt(d); exactly 0 for d = 0
    h = 1.0 - s * r
    return s + (s * h) * (0.5 + 0.375 * h)  # third order: (1-h)^(-1/2) ~ 1 + h/2 + 3h^2/8


@njit(fastmath=_FM, cache=True, inline="always")
def _neumaier(tot, comp, s):
    """One step of Neumaier's compensated sum: (tot + s, updated compensation)."""
    t = tot + s
    if abs(tot) >= abs(s):
        comp += (tot - t) + s
    else:
        comp += (s - t) + tot
    return t, comp


@njit(fastmath=_FM, cache=True, inline="always")
def _dist_sum(x0, y0, xb, yb):
    """Sum of the planar distances from (x0, y0) to every point of (xb, yb), in index order."""
    s = 0.0
    for j in range(xb.size):
        dx = xb[j] - x0
        dy = yb[j] - y0
        s += np.sqrt(dx * dx + dy * dy)
    return s


@njit(fastmath=_FM, cache=True)
def _rect_2d(xa, ya, xb, yb):
    """Sum of distances between every point of tile a and every point of tile b."""
    m = xa.size
    L = xb.size
    tot = 0.0
    comp = 0.0
    i = 0
    while i + 1 < m:
        x0 = xa[i]
        y0 = ya[i]
        x1 = xa[i + 1]
        y1 = ya[i + 1]
        s = 0.0
        for j in range(L):
            xj = xb[j]
            yj = yb[j]
            dx0 = xj - x0
            dy0 = yj - y0
            dx1 = xj - x1
            dy1 = yj - y1
            s += np.sqrt(dx0 * dx0 + dy0 * dy0) + _nsqrt(dx1 * dx1 + dy1 * dy1)
        tot, comp = _neumaier(tot, comp, s)
        i += 2
    if i < m:
        tot, comp = _neumaier(tot, comp, _dist_sum(xa[i], ya[i], xb, yb))
    return tot + comp


@njit(fastmath=_FM, cache=True)
def _tri_2d(xa, ya):
    """Sum of distances over the pairs i < j inside one tile."""
    m = xa.size
    tot = 0.0
    comp = 0.0
    for i in range(m - 1):
        tot, comp = _neumaier(tot, comp, _dist_sum(xa[i], ya[i], xa[i + 1:], ya[i + 1:]))
    return tot + comp


@njit(cache=True, inline="always")
def _tile_bounds(n, a, b, block):
    """Index ranges [i0, i1) and [j0, j1) of tiles a and b of ``block`` points among n."""
    i0 = a * block
    j0 = b * block
    return i0, min(n, i0 + block), j0, min(n, j0 + block)


@njit(cache=True)
def _task_2d(x, y, a, b, block):
    i0, i1, j0, j1 = _tile_bounds(x.size, a, b, block)
    if a == b:
        return _tri_2d(x[i0:i1], y[i0:i1])
    return _rect_2d(x[i0:i1], y[i0:i1], x[j0:j1], y[j0:j1])


@njit(cache=True, parallel=True)
def pair_sums_2d(x, y, bi, bj, block):
    """Per-task partial sums of planar distances, tasks split across threads."""
    out = np.empty(bi.size)
    for t in prange(bi.size):
        out[t] = _task_2d(x, y, bi[t], bj[t], block)
    return out


@njit(cache=True)
def pair_sums_2d_serial(x, y, bi, bj, block):
    """Same as :func:`pair_sums_2d` on one thread (identical partials; for small inputs)."""
    out = np.empty(bi.size)
    for t in range(bi.size):
        out[t] = _task_2d(x, y, bi[t], bj[t], block)
    return out


@njit(fastmath=_FM, cache=True)
def _tile_dist2(pts, i0, i1, j0, j1, buf):
    """buf[:i1-i0, :j1-j0] = squared distances between tiles (row i, column j)."""
    dim = pts.shape[0]
    for i in range(i1 - i0):
        row = buf[i]
        for j in range(j1 - j0):
            row[j] = 0.0
        for k in range(dim):
            pk = pts[k]
            c = pk[i0 + i]
            seg = pk[j0:j1]
            for j in range(j1 - j0):
                dd = seg[j] - c
                row[j] += dd * dd


@njit(fastmath=_FM, cache=True)
def _task_nd(pts, a, b, block, buf):
    i0, i1, j0, j1 = _tile_bounds(pts.shape[1], a, b, block)
    _tile_dist2(pts, i0, i1, j0, j1, buf)
    tot = 0.0
    comp = 0.0
    for i in range(i1 - i0):
        row = buf[i]
        start = i + 1 if a == b else 0
        seg = row[start:j1 - j0]
        s = 0.0
        for j in range(seg.size):
            s += np.sqrt(seg[j])
        tot, comp = _neumaier(tot, comp, s)
    return tot + comp


@njit(cache=True, parallel=True)
def pair_sums_nd(pts, bi, bj, block):
    """Per-task partial sums of Euclidean distances for ``pts`` ``(dim, n)``."""
    out = np.empty(bi.size)
    for t in prange(bi.size):
        buf = np.empty((block, block))
        out[t] = _task_nd(pts, bi[t], bj[t], block, buf)
    return out


@njit(fastmath=_FM, cache=True)
def _task_weighted(pts, w, a, b, block, buf, out_row):
    i0, i1, j0, j1 = _tile_bounds(pts.shape[1], a, b, block)
    _tile_dist2(pts, i0, i1, j0, j1, buf)
    for i in range(i1 - i0):
        row = buf[i]
        for j in range(j1 - j0):
            row[j] = np.sqrt(row[j])
        if a == b:
            for j in range(i + 1):
                row[j] = 0.0
    nrep = w.shape[0]
    for r in range(nrep):
        wr = w[r]
        wa = wr[i0:i1]
        wb = wr[j0:j1]
        tot = 0.0
        for i in range(i1 - i0):
            wi = wa[i]
            if wi == 0.0:
                continue
            row = buf[i]
            s = 0.0
            for j in range(j1 - j0):
                s += row[j] * wb[j]
            tot += wi * s
        out_row[r] = tot


@njit(cache=True, parallel=True)
def weighted_pair_sums(pts, w, bi, bj, block):
    """Per-task, per-replicate sums of ``w[r, i] * w[r, j] * d_ij`` over pairs ``i < j``."""
    out = np.empty((bi.size, w.shape[0]))
    for t in prange(bi.size):
        buf = np.empty((block, block))
        _task_weighted(pts, w, bi[t], bj[t], block, buf, out[t])
    return out
