"""Batched equal-weight isotonic regression (PAVA) kernels.

Contract
--------
Arrays in, arrays out; no validation, no pandas. Every kernel works on a C-contiguous batch of
trajectories ``(m, n)`` (one trajectory per row) and writes into caller-allocated outputs.

* :func:`pava_float` -- ``y`` float64 ``(m, n)`` -> ``fit`` float64 ``(m, n)`` (clipped to
  ``[lo, hi]``) and ``blocks`` int8/int16/int32 ``(m, n)`` (0-based block label per position).
  Blocks follow :func:`scipy.optimize.isotonic_regression`: adjacent pools are merged while the
  left mean is ``>=`` the right mean, so the blocks are the maximal runs of equal fitted values.
* :func:`pava_counts` -- integer counts ``k`` int64 ``(m, n)`` -> fitted block sums/lengths as
  exact integers: ``num`` int64 ``(m, n)`` and ``den`` int64 ``(m, n)`` with fit = num/(den*T),
  plus ``blocks``. All comparisons are exact integer cross-multiplications (no floating point), so
  "Delta = 0" and quantile crossings can be decided exactly.
* :func:`profile_rows_serial` -- the row quantities of ``boundary.profiles`` from counts and their
  :func:`pava_counts` fit, one pass per row: fit, rates, binary entropies, total count and the
  quantile crossings (see :func:`profile_rows`), with the same integer expressions and the same
  float divisions as the former numpy code (bit-identical).
* :func:`minmax_counts_lcm` -- the branch-free min-max form of the isotonic fit for short rows,
  fit_i = max_{j<=i} min_{k>=i} mean(k_j..k_k), evaluated in integer units of 1/(T*lcm(1..n)),
  in which every block mean is an integer. Used by the likelihood-ratio kernels.

All kernels are serial over a row range ``[start, stop)`` and release the GIL; large batches are
split into row chunks run on benchkit's thread pool (:mod:`benchkit._kernels.boundary_threads`),
which gives identical results for any thread count (each row is independent). Batches below
``PARALLEL_MIN_ELEMENTS`` stay on one thread: waking a second thread on a busy 2-core machine
costs more than the few milliseconds of work.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from benchkit._kernels import boundary_unrolled as bu
from benchkit._kernels.boundary_codegen import NMAX

__all__ = [
    "pava_float_serial",
    "pava_counts_serial",
    "minmax_counts_lcm",
    "profile_rows_serial",
    "profile_rows",
    "lcm_upto",
]


def lcm_upto(n: int) -> int:
    """lcm(1, ..., n): every block mean of n counts is a multiple of 1/lcm."""
    out = 1
    for i in range(2, n + 1):
        out = out * i // int(np.gcd(out, i))
    return out


@njit(cache=True, inline="always")
def _pool(y, r, n, one, bsum, bcnt, bstart):
    """Pool row ``r`` of ``y`` into blocks (stack PAVA): block sums, lengths and starts; their number.

    ``one`` is the weight of one cell in the dtype of ``bcnt`` (1.0 for float rows, 1 for counts).
    """
    nb = 0
    for i in range(n):
        s = y[r, i]
        c = one
        st = i
        # merge while the previous pool's mean >= this pool's mean (scipy's rule)
        while nb > 0 and bsum[nb - 1] * c >= s * bcnt[nb - 1]:
            nb -= 1
            s += bsum[nb]
            c += bcnt[nb]
            st = bstart[nb]
        bsum[nb] = s
        bcnt[nb] = c
        bstart[nb] = st
        nb += 1
    return nb


@njit(cache=True, inline="always")
def _pava_float_row(y, fit, blocks, r, n, lo, hi, bsum, bcnt, bstart):
    nb = _pool(y, r, n, 1.0, bsum, bcnt, bstart)
    for b in range(nb):
        v = bsum[b] / bcnt[b]
        v = lo if v < lo else v
        v = hi if v > hi else v
        end = bstart[b + 1] if b + 1 < nb else n
        for i in range(bstart[b], end):
            fit[r, i] = v
            blocks[r, i] = b


@njit(cache=True, nogil=True)
def pava_float_serial(y, fit, blocks, lo, hi, start, stop):
    n = y.shape[1]
    bsum = np.empty(n, np.float64)
    bcnt = np.empty(n, np.float64)
    bstart = np.empty(n + 1, np.int64)
    for r in range(start, stop):
        _pava_float_row(y, fit, blocks, r, n, lo, hi, bsum, bcnt, bstart)


@njit(cache=True, inline="always")
def _pava_counts_row(k, num, den, blocks, r, n, bsum, bcnt, bstart):
    nb = _pool(k, r, n, 1, bsum, bcnt, bstart)
    for b in range(nb):
        end = bstart[b + 1] if b + 1 < nb else n
        for i in range(bstart[b], end):
            num[r, i] = bsum[b]
            den[r, i] = bcnt[b]
            blocks[r, i] = b


@njit(cache=True, nogil=True)
def pava_counts_serial(k, num, den, blocks, start, stop):
    n = k.shape[1]
    bsum = np.empty(n, np.int64)
    bcnt = np.empty(n, np.int64)
    bstart = np.empty(n + 1, np.int64)
    for r in range(start, stop):
        _pava_counts_row(k, num, den, blocks, r, n, bsum, bcnt, bstart)


@njit(cache=True, inline="always")
def minmax_counts_lcm(krow, n, lcm_div, P, R, F):
    """Isotonic fit of one count row in integer units 1/lcm (fit*T*lcm = F[i]).

    ``lcm_div[L] = lcm // L``; ``P`` (n+1), ``R`` (n) and ``F`` (n) are int64 scratch/outputs.
    fit_i = max_{j<=i} min_{k>=i} (P[k+1]-P[j]) * lcm/(k-j+1)   (Barlow et al. 1972, Thm 1.4.4)
    Every quantity is an exact integer, so the min/max are branch-free selects and ties are exact.
    """
    P[0] = 0
    for i in range(n):
        P[i + 1] = P[i] + krow[i]
    for i in range(n):
        F[i] = -1
    for j in range(n):
        # suffix minima over k >= i of the window mean (j..k), for i >= j
        run = (P[n] - P[j]) * lcm_div[n - j]
        R[n - 1] = run
        for kk in range(n - 2, j - 1, -1):
            v = (P[kk + 1] - P[j]) * lcm_div[kk + 1 - j]
            run = v if v < run else run
            R[kk] = run
        for i in range(j, n):
            F[i] = R[i] if R[i] > F[i] else F[i]


# ----------------------------------------------------------------------------------------------
# Python-level dispatch (allocates outputs, picks the unrolled / serial / parallel kernel)
# ----------------------------------------------------------------------------------------------
PARALLEL_MIN_ELEMENTS = 2_000_000  # ~5 ms of work: below that one thread beats waking others
_CHUNK = 65_536  # rows per task on the thread pool


@njit(cache=True, nogil=True, error_model="numpy")
def profile_rows_serial(k, num, den, T, etab, fit, c, e, q, i75, a_num, start, stop):
    """The row quantities of :func:`profile_rows` for rows [start, stop)."""
    n = num.shape[1]
    Tf = float(T)
    for r in range(start, stop):
        tot = 0
        for i in range(n):
            fit[r, i] = float(num[r, i]) / (float(den[r, i]) * Tf)
            c[r, i] = float(k[r, i]) / Tf
            tot += k[r, i]
        a_num[r] = tot
        if etab.size:
            both = 0 < tot < n * T  # both states seen across the axis (M_q = 2)
            for i in range(n):
                e[r, i] = etab[k[r, i]] if both else 0.0
        N1 = num[r, 0]
        L1 = den[r, 0]
        Nn = num[r, n - 1]
        Ln = den[r, n - 1]
        if Nn * L1 == N1 * Ln:  # Delta = 0: no crossing
            q[0, r] = np.nan
            q[1, r] = np.nan
            q[2, r] = np.nan
            i75[r] = -1
            continue
        for aq in range(1, 4):
            # first i with fit_i >= c1 + (aq/4) Delta, in exact integers:
            # 4 N_i L1 Ln - (4-aq) N1 L_i Ln - aq Nn L_i L1 >= 0
            i_star = 0
            for i in range(n):
                if 4 * num[r, i] * (L1 * Ln) - (4 - aq) * (N1 * Ln) * den[r, i] \
                        - aq * (Nn * L1) * den[r, i] >= 0:
                    i_star = i
                    break
            i_star = max(i_star, 1)
            Np = num[r, i_star - 1]
            Lp = den[r, i_star - 1]
            Nc = num[r, i_star]
            Lc = den[r, i_star]
            LN = (4 - aq) * N1 * Ln + aq * Nn * L1
            LD = 4 * L1 * Ln
            t = float((LN * Lp - Np * LD) * Lc) / float((Nc * Lp - Np * Lc) * LD)
            q[aq - 1, r] = (float(i_star - 1) + t) / float(n - 1)
        i75[r] = i_star  # of the 3/4 crossing, the last one computed


def _block_dtype(n: int):
    return np.int8 if n <= 127 else (np.int16 if n <= 32767 else np.int32)


def tolerance_scale(n: int) -> float:
    """Tie tolerance of the unrolled float kernel per unit of row scale max(1, max |y|)."""
    return 16.0 * n * np.finfo(np.float64).eps


# per-n constants of the unrolled float kernels, built once (not per call: the 14,000 x 6 fit
# takes ~0.1 ms, so per-call set-up would show)
_INV = {n: np.concatenate([[0.0], 1.0 / np.arange(1, n + 1)]) for n in range(2, NMAX + 1)}
_TOLSCALE = {n: tolerance_scale(n) for n in range(2, NMAX + 1)}


def _run_rows(kernel, m: int, parallel: bool, *args) -> None:
    if not parallel or m <= _CHUNK:
        kernel(*args, 0, m)
        return
    from benchkit._kernels.boundary_threads import parallel_for

    nchunks = (m + _CHUNK - 1) // _CHUNK
    parallel_for(lambda c: kernel(*args, c * _CHUNK, min(m, (c + 1) * _CHUNK)), nchunks)


def pava_batch(y: np.ndarray, *, lo: float = -np.inf, hi: float = np.inf,
               parallel: bool | None = None, out=None) -> tuple[np.ndarray, np.ndarray]:
    """Equal-weight isotonic fits and block labels of each row of ``y`` (m, n), float64.

    Rows with n <= NMAX use the unrolled branch-free kernel (min-max formula, Barlow et al.
    1972, Thm 1.4.4), longer rows the stack PAVA. ``parallel=None`` uses the thread pool only
    for at least ``PARALLEL_MIN_ELEMENTS`` values. ``out=(fit, blocks)`` reuses output arrays
    (float64 (m, n) and an integer (m, n) array, C-contiguous).
    """
    y = np.ascontiguousarray(y, dtype=np.float64)
    m, n = y.shape
    if out is None:
        fit = np.empty((m, n), dtype=np.float64)
        blocks = np.empty((m, n), dtype=_block_dtype(n))
    else:
        fit, blocks = out
        if (fit.shape != (m, n) or blocks.shape != (m, n) or fit.dtype != np.float64
                or not (fit.flags.c_contiguous and blocks.flags.c_contiguous)):
            raise ValueError(f"out must be C-contiguous float64 and integer arrays of shape "
                             f"{(m, n)}, got {fit.dtype} {fit.shape} and {blocks.dtype} "
                             f"{blocks.shape}")
    if m == 0 or n == 0:
        return fit, blocks
    if parallel is None:
        parallel = m * n >= PARALLEL_MIN_ELEMENTS
    if n == 1:
        fit[:, 0] = np.clip(y[:, 0], lo, hi)
        blocks[:] = 0
        return fit, blocks
    if n <= NMAX:
        # the unrolled kernels index flat (m*n) views (reshape of C-contiguous arrays: no copy)
        _run_rows(bu.PAVA_FLOAT_ROWS[n], m, parallel, y.reshape(-1), fit.reshape(-1),
                  blocks.reshape(-1), float(lo), float(hi), _INV[n], _TOLSCALE[n])
    else:
        _run_rows(pava_float_serial, m, parallel, y, fit, blocks, float(lo), float(hi))
    return fit, blocks


def pava_counts_batch(k: np.ndarray, *, parallel: bool | None = None):
    """Exact isotonic fit of integer count rows: (block sum, block length, block label) per cell."""
    k = np.ascontiguousarray(k, dtype=np.int64)
    m, n = k.shape
    num = np.empty((m, n), dtype=np.int64)
    den = np.empty((m, n), dtype=np.int64)
    blocks = np.empty((m, n), dtype=np.int64)
    if m == 0 or n == 0:
        return num, den, blocks
    if parallel is None:
        parallel = m * n >= PARALLEL_MIN_ELEMENTS
    _run_rows(pava_counts_serial, m, parallel, k, num, den, blocks)
    return num, den, blocks


def profile_rows(k: np.ndarray, num: np.ndarray, den: np.ndarray, T: int, etab: np.ndarray, *,
                 parallel: bool | None = None) -> dict:
    """Everything ``boundary.profiles`` needs per row of counts, in one pass over each row.

    ``k`` int64 (m, n) counts and ``num``, ``den`` their integer PAVA fit (:func:`pava_counts_batch`);
    ``etab`` the binary entropy of a cell per count 0..T (empty: no entropies). Returns ``fit`` =
    num / (den T) and ``c`` = k / T (m, n), ``e`` (m, n) the table's entropy where the row has both
    states somewhere on the axis and 0 otherwise, ``a_num`` (m,) the total count, ``q25``, ``q50``,
    ``q75`` (m,) the normalized positions where the fit's linear interpolant first reaches
    c~_1 + (a/4) Delta (NaN when Delta = 0) and ``i75`` (m,) the segment index of the 3/4 crossing
    (-1 when Delta = 0). Crossings are decided by exact integer cross-multiplication; every float
    is the same expression, hence the same bits, as the former numpy code.
    """
    m, n = k.shape
    fit = np.empty((m, n))
    c = np.empty((m, n))
    e = np.empty((m, n) if etab.size else (0, 0))
    q = np.empty((3, m))
    i75 = np.empty(m, dtype=np.int64)
    a_num = np.empty(m, dtype=np.int64)
    if m:
        if parallel is None:
            parallel = m * n >= PARALLEL_MIN_ELEMENTS
        _run_rows(profile_rows_serial, m, parallel, k, num, den, int(T), etab, fit, c, e, q, i75,
                  a_num)
    return {"fit": fit, "c": c, "e": e, "a_num": a_num, "q25": q[0], "q50": q[1], "q75": q[2],
            "i75": i75}
