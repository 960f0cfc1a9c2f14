"""Mean-pairwise-distance kernels: sums of Euclidean distances over all unordered pairs.

Contract
--------
Arrays in, arrays out; no validation, no pandas. Coordinates are C-contiguous structure-of-arrays:
``x`` and ``y`` ``(n,)`` float32 or float64 for points in the plane, or ``pts`` ``(dim, n)`` float64
in general. The pair set is cut into tiles; task ``t`` is the tile pair ``(bi[t], bj[t])`` with
``bi <= bj`` (build the task list with :func:`tile_tasks`). Each kernel returns one float64 partial
sum per task (or per task and bootstrap replicate); the caller adds the partials in task order
(``math.fsum``), so the result does not depend on the number of threads: each task is computed
sequentially by one thread with the same code whatever the thread count.

* :func:`pair_sums_tiles` / :func:`pair_sums_tiles_serial` -- ``(ntasks,)`` partial sums of
  ``sqrt((x_i - x_j)^2 + (y_i - y_j)^2)`` over the pairs ``i < j`` of each task; tile ``a`` is
  points ``starts[a]:starts[a + 1]`` (:func:`tile_starts`: tiles of any size, e.g. never straddling
  two groups of points, so that per-group-pair sums can be cached).
* :func:`pair_sums_nd` -- square tiles of ``block`` points, ``pts`` ``(dim, n)`` of any dimension.
* :func:`weighted_pair_sums` -- ``(ntasks, B)`` partial sums of ``w_bi * w_bj * d_ij`` over
  ``i < j`` for ``B`` weight rows ``w`` ``(B, n)`` (bootstrap multiplicities), ``pts`` ``(dim, n)``.

Accuracy and speed (2-D kernel)
-------------------------------
Each distance is computed in the precision of the coordinates and widened to float64 before it is
added; a row's distances go into float64 vector accumulators (at most one tile's width of terms),
rows are added to the task total with Neumaier compensated summation, and the caller's ``fsum``
over tasks is exactly rounded. With float64 coordinates the sum agrees with
``scipy.spatial.distance.pdist(...).sum()`` to ~1e-15 relative. With float32 coordinates (16
lanes per AVX-512 vector, hardware ``vsqrtps``) the error comes from rounding the coordinates to
float32 (relative 3e-8 per coordinate, which largely cancels over the pairs) and from float32
arithmetic per distance: measured 2e-11 to 3e-10 relative on landscape points of 1,000 to 100,000
points once the caller centres them (``benchkit.landscape.steps.pairwise_distance_sum``).

``fastmath`` is limited to ``reassoc, contract, nsz`` (needed to vectorize the reductions and use
FMAs); no approximate math functions (``afn``) and no finite-math assumptions are enabled.
Indices are taken from slices (0-based loops), which lets LLVM drop numba's negative-index
wraparound and vectorize the inner loops.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba import prange

__all__ = [
    "tile_tasks",
    "tile_starts",
    "pair_sums_tiles",
    "pair_sums_tiles_serial",
    "pair_sums_nd",
    "weighted_pair_sums",
]

_FM = {"reassoc", "contract", "nsz"}


def tile_tasks(n: int, block: int) -> tuple[np.ndarray, np.ndarray]:
    """Task list (bi, bj), bi <= bj, row-major over the upper triangle of tile pairs.

    The tiles are ``ceil(n / block)`` tiles of ``block`` points (or the tiles of
    :func:`tile_starts`: pass their number and ``block=1``).
    """
    nb = -(-int(n) // int(block)) if n > 0 else 0
    bi, bj = np.triu_indices(nb)
    return bi.astype(np.int64), bj.astype(np.int64)


def tile_starts(sizes, block: int) -> tuple[np.ndarray, np.ndarray]:
    """Tiles of at most ``block`` points that never straddle two segments of ``sizes`` points.

    Returns ``(starts, segment)``: tile ``t`` is points ``starts[t]:starts[t + 1]``, all in segment
    ``segment[t]``.
    """
    starts, seg = [], []
    pos = 0
    for g, size in enumerate(np.asarray(sizes, dtype=np.int64).tolist()):
        for a in range(0, size, block):
            starts.append(pos + a)
            seg.append(g)
        pos += size
    starts.append(pos)
    return np.asarray(starts, dtype=np.int64), np.asarray(seg, dtype=np.int64)


@njit(fastmath=_FM, cache=True, inline="always")
def _neumaier(tot, comp, s):
    """One step of Neumaier's compensated sum: (tot + s, updated compensation)."""
    t = tot + s
    if abs(tot) >= abs(s):
        comp += (tot - t) + s
    else:
        comp += (s - t) + tot
    return t, comp


@njit(cache=True, inline="always")
def _tile_bounds(n, a, b, block):
    """Index ranges [i0, i1) and [j0, j1) of tiles a and b of ``block`` points among n."""
    i0 = a * block
    j0 = b * block
    return i0, min(n, i0 + block), j0, min(n, j0 + block)


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


@njit(fastmath=_FM, cache=True, inline="always")
def _row_sum(x0, y0, xb, yb):
    """Sum of the distances from (x0, y0) to the points (xb, yb), accumulated in float64.

    Each distance is computed in the coordinates' precision and widened before it is added.
    """
    s = 0.0
    for j in range(xb.size):
        dx = xb[j] - x0
        dy = yb[j] - y0
        s += np.float64(np.sqrt(dx * dx + dy * dy))
    return s


@njit(fastmath=_FM, cache=True)
def _tile_pair(x, y, starts, a, b):
    """Sum of distances between tiles a and b (pairs i < j when a == b)."""
    tot = 0.0
    comp = 0.0
    j0 = starts[b]
    j1 = starts[b + 1]
    for i in range(starts[a], starts[a + 1]):
        j = i + 1 if a == b else j0
        tot, comp = _neumaier(tot, comp, _row_sum(x[i], y[i], x[j:j1], y[j:j1]))
    return tot + comp


def _pair_sums_tiles(x, y, starts, bi, bj):
    out = np.empty(bi.size)
    for t in prange(bi.size):
        out[t] = _tile_pair(x, y, starts, bi[t], bj[t])
    return out


pair_sums_tiles = njit(cache=True, parallel=True)(_pair_sums_tiles)
pair_sums_tiles_serial = njit(cache=True)(_pair_sums_tiles)
