"""Likelihood-ratio statistic D (BSDProbe Eq. 7/16) and its Monte Carlo / exact null (Eq. 19).

Contract
--------
Arrays in, arrays out; no validation. Logarithms never run inside the kernels: with
h(x) = x log x + (1-x) log(1-x) (0 log 0 = 0) and the isotonic fit c~ (block means),

    D = 2T sum_i KL(Bern(c_i) || Bern(c~_i)) = 2T sum_i [h(c_i) - h(c~_i)],

because within a pooled block the mean of c_i equals c~ (so the cross terms collapse). Both h(c_i)
and h(c~_i) are looked up in tables built by :func:`h_table` with the scalar ``math.log`` on the
exact rational argument, so two count vectors with the same fitted rational values get bit-identical
terms, and a monotone row gives exactly D = 0. The per-position terms are summed in index order.

Tail comparisons use integer keys ``rint(D * 1e10)`` (the 10-decimal rounding rho of Eq. 19).

Randomness: the null simulator uses its own xoshiro256** generator, seeded per fixed-size block of
draws from ``numpy.random.SeedSequence.spawn`` (four uint64 words per block), so the draws do not
depend on the number of threads or workers. Binomial draws use Walker/Vose alias tables built from
``scipy.stats.binom.pmf`` (one 53-bit uniform per draw).

Threads: every kernel is serial over an index range and releases the GIL; the dispatch functions
run ranges on :func:`benchkit._kernels.boundary_threads.parallel_for` (no ``parallel=True``:
faster compilation, no thread-team wake-up cost, results independent of the thread count).
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numba import njit

from benchkit._kernels.boundary_unrolled import _draw
from benchkit._kernels.boundary_unrolled import _state
from benchkit._kernels.pava import _pava_counts_row
from benchkit._kernels.pava import lcm_upto
from benchkit._kernels.pava import minmax_counts_lcm

__all__ = [
    "KEY_SCALE",
    "h_scalar",
    "h_table",
    "block_h_table",
    "lcm_tables",
    "lr_statistic_counts",
    "build_alias",
    "simulate_generic",
    "enumerate_generic",
    "exact_tail_max",
    "exact_mass_blocked",
    "tail_envelope_blocked",
    "group_index",
    "exact_tail_max_blocked",
    "envelope_counts",
    "lr_statistic",
    "block_seeds",
    "simulate_keys",
    "distinct_counts",
    "enumerate_keys",
]

KEY_SCALE = 1e10  # rho(d) = rint(d * 1e10): ten-decimal rounding as an exact int64 key


def h_scalar(num: int, den: int) -> float:
    """h(num/den) = x log x + (1-x) log(1-x) for x = num/den, evaluated with math.log."""
    if num < 0 or num > den:
        raise ValueError("num must lie in [0, den]")
    out = 0.0
    if num > 0:
        x = num / den
        out += x * math.log(x)
    if num < den:
        y = (den - num) / den
        out += y * math.log(y)
    return out


@lru_cache(maxsize=64)
def h_table(den: int) -> np.ndarray:
    """``tab[s] = h(s/den)`` for s = 0..den (float64, read-only; built once per ``den``)."""
    tab = np.array([h_scalar(s, den) for s in range(den + 1)], dtype=np.float64)
    tab.setflags(write=False)
    return tab


@lru_cache(maxsize=64)
def block_h_table(n: int, T: int) -> np.ndarray:
    """``tab[L, S] = h(S/(T L))`` for block lengths L = 1..n and block sums S = 0..L*T.

    Read-only and built once per ``(n, T)``: the Python loop costs ~2 ms, a third of a
    14,000-item :func:`benchkit.boundary.profiles` call.
    """
    tab = np.zeros((n + 1, n * T + 1), dtype=np.float64)
    for L in range(1, n + 1):
        for S in range(L * T + 1):
            tab[L, S] = h_scalar(S, T * L)
    tab.setflags(write=False)
    return tab


def lcm_tables(n: int, T: int) -> tuple[int, np.ndarray, np.ndarray]:
    """(lcm, lcm_div, hl) for the branch-free kernel: hl[F] = h(F/(T*lcm)), lcm_div[L] = lcm//L."""
    lcm = lcm_upto(n)
    lcm_div = np.zeros(n + 1, dtype=np.int64)
    for L in range(1, n + 1):
        lcm_div[L] = lcm // L
    return lcm, lcm_div, h_table(T * lcm)


@njit(cache=True)
def _key(d):
    return np.int64(np.rint(d * 1e10))


@njit(cache=True, nogil=True)
def lr_statistic_counts(k, T, hk, hblock, D, keys, start, stop):
    """D and its key for rows start..stop-1 of counts ``k`` (m, n); exact stack PAVA on integers.

    ``hk[s] = h(s/T)``, ``hblock[L, S] = h(S/(T L))``.
    """
    n = k.shape[1]
    num = np.empty((1, n), np.int64)
    den = np.empty((1, n), np.int64)
    blk = np.empty((1, n), np.int64)
    bsum = np.empty(n, np.int64)
    bcnt = np.empty(n, np.int64)
    bstart = np.empty(n + 1, np.int64)
    row = np.empty((1, n), np.int64)
    for r in range(start, stop):
        for i in range(n):
            row[0, i] = k[r, i]
        _pava_counts_row(row, num, den, blk, 0, n, bsum, bcnt, bstart)
        acc = 0.0
        for i in range(n):
            acc += hk[k[r, i]] - hblock[den[0, i], num[0, i]]
        d = 2.0 * T * acc
        d = 0.0 if d < 0.0 else d
        D[r] = d
        keys[r] = _key(d)


@njit(cache=True, inline="always")
def _push(j, scaled, small, ns, large, nl):
    """Push column j on the small (scaled < 1) or the large stack; the new stack heights."""
    if scaled[j] < 1.0:
        small[ns] = j
        return ns + 1, nl
    large[nl] = j
    return ns, nl + 1


@njit(cache=True, nogil=True)
def _vose(p, prob, alias, small, large):
    """Vose's alias table for one pmf row (same stack discipline as the reference Python code)."""
    K = p.shape[0]
    scaled = p * K
    ns = 0
    nl = 0
    for j in range(K):
        ns, nl = _push(j, scaled, small, ns, large, nl)
    for j in range(K):
        prob[j] = 1.0
        alias[j] = j
    while ns > 0 and nl > 0:
        ns -= 1
        sm = small[ns]
        nl -= 1
        g = large[nl]
        prob[sm] = scaled[sm]
        alias[sm] = g
        scaled[g] = scaled[g] + scaled[sm] - 1.0
        ns, nl = _push(g, scaled, small, ns, large, nl)
    for j in range(nl):
        prob[large[j]] = 1.0
        alias[large[j]] = large[j]
    for j in range(ns):
        prob[small[j]] = 1.0
        alias[small[j]] = small[j]


@njit(cache=True)
def _alias_all(pmf, prob, alias):
    r, n, K = pmf.shape
    small = np.empty(K, np.int64)
    large = np.empty(K, np.int64)
    for a in range(r):
        for i in range(n):
            _vose(pmf[a, i], prob[a, i], alias[a, i], small, large)


def build_alias(theta: np.ndarray, T: int) -> tuple[np.ndarray, np.ndarray]:
    """Vose alias tables for Binomial(T, theta_i): (prob (r, n, T+1), alias (r, n, T+1))."""
    from scipy.stats import binom

    theta = np.atleast_2d(np.asarray(theta, dtype=np.float64))
    r, n = theta.shape
    K = T + 1
    ks = np.arange(K)
    p = binom.pmf(ks[None, None, :], T, theta[:, :, None])
    p = np.ascontiguousarray(p / p.sum(axis=2, keepdims=True))
    prob = np.ones((r, n, K), dtype=np.float64)
    alias = np.empty((r, n, K), dtype=np.int64)
    _alias_all(p, prob, alias)
    return prob, alias


@njit(cache=True, inline="always")
def _counts_key(krow, n, T, hl, lcm_div, lcm, P, Rb, F):
    """Key rint(1e10 * D) of one count row via the min-max fit in units 1/lcm (scratch P, Rb, F)."""
    minmax_counts_lcm(krow, n, lcm_div, P, Rb, F)
    acc = 0.0
    for i in range(n):
        acc += hl[krow[i] * lcm] - hl[F[i]]
    d = 2.0 * T * acc
    d = 0.0 if d < 0.0 else d
    return np.int64(np.rint(d * 1e10))


@njit(cache=True, nogil=True)
def simulate_generic(prob, alias, T, seeds, task, a, start, stop, hl, lcm_div, lcm, out):
    """Loop-based twin of ``boundary_unrolled.simulate_task_n{n}`` (same draws, same keys), any n."""
    n = prob.shape[1]
    K = T + 1
    Kf = float(K)
    s0, s1, s2, s3 = _state(seeds, task)
    P = np.empty(n + 1, np.int64)
    Rb = np.empty(n, np.int64)
    F = np.empty(n, np.int64)
    krow = np.empty(n, np.int64)
    pa = prob[a]
    aa = alias[a]
    for pos in range(start, stop):
        for i in range(n):
            kk, s0, s1, s2, s3 = _draw(s0, s1, s2, s3, pa, aa, i, K, Kf)
            krow[i] = kk
        out[a, pos] = _counts_key(krow, n, T, hl, lcm_div, lcm, P, Rb, F)


@njit(cache=True)
def envelope_counts(atoms, all_keys, all_counts, offsets, env, arg):
    """Upper envelope over vectors of the tail counts #{D* >= atom} at every atom.

    ``atoms`` sorted ascending (union of all keys); vector ``a`` has sorted keys
    ``all_keys[offsets[a]:offsets[a+1]]`` with multiplicities ``all_counts``.
    """
    U = atoms.shape[0]
    for u in range(U):
        env[u] = -1
        arg[u] = -1
    nref = offsets.shape[0] - 1
    for a in range(nref):
        lo = offsets[a]
        p = offsets[a + 1] - 1
        tail = 0
        for u in range(U - 1, -1, -1):
            while p >= lo and all_keys[p] >= atoms[u]:
                tail += all_counts[p]
                p -= 1
            if tail > env[u]:
                env[u] = tail
                arg[u] = a


@njit(cache=True, nogil=True)
def enumerate_generic(n, T, hl, lcm_div, lcm, keys, start, stop):
    """Loop-based twin of ``boundary_unrolled.enumerate_range_n{n}``."""
    K = T + 1
    P = np.empty(n + 1, np.int64)
    Rb = np.empty(n, np.int64)
    F = np.empty(n, np.int64)
    krow = np.empty(n, np.int64)
    for idx in range(start, stop):
        rem = idx
        for i in range(n - 1, -1, -1):
            krow[i] = rem % K
            rem //= K
        keys[idx] = _counts_key(krow, n, T, hl, lcm_div, lcm, P, Rb, F)


@njit(cache=True, nogil=True)
def exact_mass(inv_group, pmf, a, n, T, mass):
    """mass[g] += P_theta_a(count vector) over all count vectors idx with atom inv_group[idx]."""
    K = T + 1
    total = inv_group.shape[0]
    for idx in range(total):
        rem = idx
        p = 1.0
        for i in range(n - 1, -1, -1):
            kk = rem % K
            rem //= K
            p *= pmf[a, i, kk]
        mass[a, inv_group[idx]] += p


@njit(cache=True)
def tail_envelope(mass, tail_out, arg_out):
    """Upper tails of each row of ``mass`` (atoms ascending) and their max over rows."""
    nref, ngroups = mass.shape
    for g in range(ngroups):
        tail_out[g] = -1.0
        arg_out[g] = -1
    for a in range(nref):
        acc = 0.0
        for g in range(ngroups - 1, -1, -1):
            acc += mass[a, g]
            if acc > tail_out[g]:
                tail_out[g] = acc
                arg_out[g] = a


def exact_tail_max(inv_group, ngroups, pmf, n, T, tail_out, arg_out):
    """Exact sup over vectors theta of P_theta(D >= atom) by full enumeration.

    ``inv_group[idx]`` is the index of vector idx's atom among the ``ngroups`` sorted atoms;
    ``pmf[a, i, k]`` = Binomial(T, theta_a,i) pmf. Writes the max over theta of the upper tail
    at each atom to ``tail_out`` with its argmax (reference vectors run on the thread pool).
    """
    from benchkit._kernels.boundary_threads import parallel_for

    nref = pmf.shape[0]
    mass = np.zeros((nref, ngroups), np.float64)
    parallel_for(lambda a: exact_mass(inv_group, pmf, a, n, T, mass), nref)
    tail_envelope(mass, tail_out, arg_out)


@njit(cache=True, nogil=True)
def exact_mass_blocked(inv_group, pmfT, n, T, mass):
    """mass[g, a] += P_theta_a(k) for every count vector k with atom g, for a block of vectors theta.

    ``pmfT[i, k, a]`` = Binomial(T, theta_a,i) pmf (the block's reference vectors last, so the
    inner loop runs over contiguous memory); ``mass`` is (ngroups, A). Count vectors are visited
    in mixed-radix order (first position slowest): the product of the first n-1 positions' pmfs
    is formed once per prefix (positions n-2 .. 0) and multiplied by the last position's pmf in
    the innermost loop, so each (vector, theta) costs one multiply-add. Serial and deterministic:
    every mass[g, a] is summed in vector order.
    """
    K = T + 1
    A = pmfT.shape[2]
    npre = 1
    for _ in range(n - 1):
        npre *= K
    pre = np.empty(A, np.float64)
    last = n - 1
    for q in range(npre):
        for a in range(A):
            pre[a] = 1.0
        rem = q
        for i in range(n - 2, -1, -1):
            kk = rem % K
            rem //= K
            for a in range(A):
                pre[a] *= pmfT[i, kk, a]
        base = q * K
        for kk in range(K):
            g = inv_group[base + kk]
            for a in range(A):
                mass[g, a] += pre[a] * pmfT[last, kk, a]


@njit(cache=True, nogil=True)
def tail_envelope_blocked(mass, a0, tail_out, arg_out):
    """Fold the upper tails of each column of ``mass`` into the running envelope.

    ``mass`` is (ngroups, A) with atoms ascending; column a is reference vector a0 + a; the
    envelope is ``tail_out`` / ``arg_out``.

    Same rule as :func:`tail_envelope`: per vector the tail is summed from the largest atom down,
    and a vector replaces the envelope only when strictly larger, so folding blocks in ascending
    a0 gives the argmax :func:`tail_envelope` gives (the smallest maximizing index).
    """
    G, A = mass.shape
    acc = np.zeros(A, np.float64)
    for g in range(G - 1, -1, -1):
        best = tail_out[g]
        arg = arg_out[g]
        for a in range(A):
            acc[a] += mass[g, a]
            if acc[a] > best:
                best = acc[a]
                arg = a0 + a
        tail_out[g] = best
        arg_out[g] = arg


@njit(cache=True, nogil=True)
def _searchsorted_range(atoms, keys, out, start, stop):
    for i in range(start, stop):
        out[i] = np.searchsorted(atoms, keys[i])


def group_index(keys: np.ndarray, *, chunk: int = 1 << 22) -> tuple[np.ndarray, np.ndarray]:
    """(atoms, inv): the sorted distinct keys and each key's index among them (int32 when it fits).

    Equal to ``np.unique(keys, return_inverse=True)``, computed by sorting chunks on the thread
    pool (``np.unique`` per chunk releases the GIL), merging the chunks' distinct keys, and a
    binary search per key; memory is ``keys`` plus the index.
    """
    from benchkit._kernels.boundary_threads import parallel_for

    total = keys.shape[0]
    nch = max(1, (total + chunk - 1) // chunk)
    parts = [None] * nch

    def uniq(c):
        parts[c] = np.unique(keys[c * chunk:min(total, (c + 1) * chunk)])

    parallel_for(uniq, nch)
    atoms = np.unique(np.concatenate(parts)) if nch > 1 else parts[0]
    inv = np.empty(total, dtype=np.int32 if atoms.shape[0] < 2**31 else np.int64)
    parallel_for(lambda c: _searchsorted_range(atoms, keys, inv, c * chunk,
                                               min(total, (c + 1) * chunk)), nch)
    return atoms, inv


def exact_tail_max_blocked(inv_group, ngroups, pmf, n, T, tail_out, arg_out, *,
                           block: int = 32, progress: bool = False):
    """:func:`exact_tail_max` for large enumerations: reference vectors in blocks of ``block``.

    Each block accumulates its (ngroups, block) masses with :func:`exact_mass_blocked` (blocks
    run on the thread pool), then the blocks'
    tails are folded into the envelope in ascending block order, so the result does not depend on
    the number of threads. Equal to :func:`exact_tail_max` up to float64 rounding of the products.
    """
    import threading

    from benchkit._kernels.boundary_threads import parallel_for

    nref = pmf.shape[0]
    nb = (nref + block - 1) // block
    for g in range(ngroups):
        tail_out[g] = -1.0
        arg_out[g] = -1
    done = {}
    nxt = [0]
    lock = threading.Lock()
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=nb, desc="exact calibration", unit="block")

    def fold_ready():
        # called under the lock: fold finished blocks in order, free their buffers
        while nxt[0] in done:
            b = nxt[0]
            tail_envelope_blocked(done.pop(b), b * block, tail_out, arg_out)
            nxt[0] += 1

    def one(b):
        a0, a1 = b * block, min(nref, (b + 1) * block)
        pmfT = np.ascontiguousarray(np.transpose(pmf[a0:a1], (1, 2, 0)))
        mass = np.zeros((ngroups, a1 - a0), np.float64)
        exact_mass_blocked(inv_group, pmfT, n, T, mass)
        with lock:
            done[b] = mass
            fold_ready()
            if bar is not None:
                bar.update(1)

    try:
        parallel_for(one, nb)
    finally:
        if bar is not None:
            bar.close()


# ----------------------------------------------------------------------------------------------
# Python-level dispatch
# ----------------------------------------------------------------------------------------------
SIM_BLOCK = 25_000  # draws per independently seeded block (results do not depend on threads)


def lr_statistic(k: np.ndarray, T: int) -> tuple[np.ndarray, np.ndarray]:
    """D (Eq. 16) and its rho-key for each row of integer counts ``k`` (m, n) in [0, T]."""
    from benchkit._kernels.boundary_threads import parallel_for

    k = np.ascontiguousarray(k, dtype=np.int64)
    m, n = k.shape
    D = np.empty(m, dtype=np.float64)
    keys = np.empty(m, dtype=np.int64)
    if m:
        hk = h_table(T)
        hb = block_h_table(n, T)
        if m * n < 2_000_000:
            lr_statistic_counts(k, T, hk, hb, D, keys, 0, m)
        else:
            ch = 65_536
            parallel_for(lambda c: lr_statistic_counts(k, T, hk, hb, D, keys, c * ch,
                                                       min(m, (c + 1) * ch)), (m + ch - 1) // ch)
    return D, keys


def block_seeds(seed_sequence: np.random.SeedSequence, nref: int, nblocks: int) -> np.ndarray:
    """xoshiro256** states (nref*nblocks, 4) uint64: child b of child a of ``seed_sequence``."""
    out = np.empty((nref * nblocks, 4), dtype=np.uint64)
    for a, child in enumerate(seed_sequence.spawn(nref)):
        for b, grand in enumerate(child.spawn(nblocks)):
            st = grand.generate_state(4, np.uint64)
            if not st.any():  # xoshiro's one forbidden state
                st[0] = 1
            out[a * nblocks + b] = st
    return out


def simulate_keys(theta: np.ndarray, T: int, B: int, seeds: np.ndarray, *,
                  block_size: int = SIM_BLOCK, unrolled: bool = True) -> np.ndarray:
    """Keys (nref, B) of D for B simulated count vectors per reference vector (rows of theta).

    Task ``a * nblocks + b`` simulates draws ``b*block_size ..`` of vector ``a`` with state
    ``seeds[task]``; tasks run on the thread pool.
    """
    from benchkit._kernels import boundary_unrolled as bu
    from benchkit._kernels.boundary_codegen import NMAX
    from benchkit._kernels.boundary_threads import parallel_for

    theta = np.atleast_2d(np.asarray(theta, dtype=np.float64))
    nref, n = theta.shape
    nblocks = (B + block_size - 1) // block_size
    prob, alias = build_alias(theta, T)
    lcm, lcm_div, hl = lcm_tables(n, T)
    out = np.empty((nref, B), dtype=np.int64)
    kern = bu.SIMULATE_TASK[n] if (unrolled and 2 <= n <= NMAX) else simulate_generic

    def task(t):
        a, b = divmod(t, nblocks)
        kern(prob, alias, T, seeds, t, a, b * block_size, min(B, (b + 1) * block_size), hl,
             lcm_div, lcm, out)

    parallel_for(task, nref * nblocks)
    return out


def _distinct_row(row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    row.sort()  # releases the GIL: rows sort in parallel on the thread pool
    starts = np.flatnonzero(np.concatenate(([True], row[1:] != row[:-1])))
    return row[starts].copy(), np.diff(np.append(starts, row.shape[0])).astype(np.int64)


def distinct_counts(keys: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per row of ``keys`` (sorted in place): distinct keys ascending and their multiplicities."""
    from benchkit._kernels.boundary_threads import parallel_for

    res = [None] * keys.shape[0]

    def one(a):
        res[a] = _distinct_row(keys[a])

    parallel_for(one, keys.shape[0])
    return [r[0] for r in res], [r[1] for r in res]


def enumerate_keys(n: int, T: int, *, unrolled: bool = True) -> np.ndarray:
    """Keys of D for all (T+1)^n count vectors in mixed-radix order (first position slowest)."""
    from benchkit._kernels import boundary_unrolled as bu
    from benchkit._kernels.boundary_codegen import NMAX
    from benchkit._kernels.boundary_threads import parallel_for

    lcm, lcm_div, hl = lcm_tables(n, T)
    total = (T + 1) ** n
    keys = np.empty(total, dtype=np.int64)
    ch = 1 << 16
    if unrolled and 2 <= n <= NMAX:
        kern = bu.ENUMERATE_RANGE[n]
        fn = lambda c: kern(T, hl, lcm_div, lcm, keys, c * ch, min(total, (c + 1) * ch))  # noqa: E731
    else:
        fn = lambda c: enumerate_generic(n, T, hl, lcm_div, lcm, keys, c * ch,  # noqa: E731
                                         min(total, (c + 1) * ch))
    parallel_for(fn, (total + ch - 1) // ch)
    return keys
