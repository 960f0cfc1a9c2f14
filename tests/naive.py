"""Slow, obviously-correct twins of every kernel in ``benchkit/_kernels`` (plain Python / numpy).

Each twin computes what its kernel's contract says in the most direct way (textbook loops, exact
rationals, full enumeration), with no tables, tiling, unrolling or threads, so that a kernel test
is "fast kernel == slow twin" on inputs small enough for the twin. :data:`TWINS` maps each kernel
module to its kernels and their twins; ``tests/test_kernels_twins.py`` checks that every kernel
module is covered and that each kernel agrees with its twin.

Import from tests as ``from naive import ...`` (``tests/conftest.py`` puts this folder on
``sys.path``).
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from scipy.stats import binom

# ---- benchkit._kernels.pava -------------------------------------------------------------------


def pava_exact(row):
    """Textbook PAVA in exact rationals, pooling while left mean >= right mean (scipy's rule).

    Returns ``(fit, labels)``: the fitted values as :class:`fractions.Fraction` and the 0-based
    block label of each position.
    """
    pools = []  # [sum, count, start]
    for i, y in enumerate(row):
        s, c, st = Fraction(y), 1, i
        while pools and pools[-1][0] / pools[-1][1] >= s / c:
            ps, pc, pst = pools.pop()
            s, c, st = s + ps, c + pc, pst
        pools.append([s, c, st])
    fit, lab = [None] * len(row), [0] * len(row)
    for b, (s, c, st) in enumerate(pools):
        for i in range(st, st + c):
            fit[i], lab[i] = s / c, b
    return fit, lab


def pava_counts(k):
    """Twin of ``pava_counts_serial`` for one row: (block sums, block lengths, labels) as ints."""
    fit, lab = pava_exact([int(x) for x in k])
    num = [sum(int(k[j]) for j in range(len(k)) if lab[j] == lab[i]) for i in range(len(k))]
    den = [lab.count(lab[i]) for i in range(len(k))]
    assert all(Fraction(a, b) == f for a, b, f in zip(num, den, fit))
    return np.array(num), np.array(den), np.array(lab)


def minmax_fit_units(k, lcm):
    """Twin of ``minmax_counts_lcm``: fit_i = max_{j<=i} min_{m>=i} mean(k_j..k_m), times ``lcm``.

    The min-max formula (Barlow et al. 1972, Thm 1.4.4) evaluated literally in exact rationals.
    """
    n = len(k)
    out = []
    for i in range(n):
        best = max(min(Fraction(sum(int(x) for x in k[j:m + 1]), m + 1 - j) for m in range(i, n))
                   for j in range(i + 1))
        out.append(best * lcm)
    assert all(v.denominator == 1 for v in out)
    return np.array([int(v) for v in out], dtype=np.int64)


def profile_rows(k, num, den, T, etab):
    """Twin of ``profile_rows_serial``: the former numpy code of ``boundary.profiles`` -- the fit
    and rates as whole-array divisions, the entropies of ``answer_entropy`` on the binary state
    counts (when ``etab`` is not empty), three ``(m, n)`` integer crossing conditions with
    ``argmax`` and the rational interpolation."""
    from benchkit.boundary._trajectories import binary_state_counts
    from benchkit.boundary.steps import answer_entropy

    m, n = num.shape
    rows = np.arange(m)
    N1, L1, Nn, Ln = num[:, 0], den[:, 0], num[:, -1], den[:, -1]
    flat = Nn * L1 == N1 * Ln
    out = {"fit": num / (den * float(T)), "c": k / float(T), "a_num": k.sum(axis=1),
           "e": answer_entropy(binary_state_counts(k, T)[0], T=T)[0] if len(etab) else np.empty((0, 0))}
    for aq, name in ((1, "q25"), (2, "q50"), (3, "q75")):
        cond = 4 * num * (L1 * Ln)[:, None] - (4 - aq) * (N1 * Ln)[:, None] * den \
            - aq * (Nn * L1)[:, None] * den >= 0
        i_star = np.where(flat, 1, np.maximum(np.argmax(cond, axis=1), 1))
        Np, Lp = num[rows, i_star - 1], den[rows, i_star - 1]
        Nc, Lc = num[rows, i_star], den[rows, i_star]
        LN = (4 - aq) * N1 * Ln + aq * Nn * L1
        LD = 4 * L1 * Ln
        with np.errstate(divide="ignore", invalid="ignore"):
            t = ((LN * Lp - Np * LD) * Lc) / ((Nc * Lp - Np * Lc) * LD)
        out[name] = np.where(flat, np.nan, (i_star - 1 + t) / (n - 1))
    out["i75"] = np.where(flat, -1, i_star)
    return out


# ---- benchkit._kernels.lrt --------------------------------------------------------------------


def lr_statistic(k, T):
    """BSDProbe Eq. 16 directly: 2T sum KL(Bern(c) || Bern(c~)), 0 log 0 = 0, numpy logs.

    ``k`` integer counts in [0, T]; the fit c~ is the exact-rational isotonic fit of c = k/T.
    """
    fit, _ = pava_exact([Fraction(int(x), T) for x in k])
    c = np.asarray(k, float) / T
    f = np.array([float(x) for x in fit])
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = np.where(c > 0, c * np.log(c / f), 0.0)
        t2 = np.where(c < 1, (1 - c) * np.log((1 - c) / (1 - f)), 0.0)
    return max(0.0, 2 * T * float(np.sum(t1 + t2)))


def lr_statistic_float(c_counts, T):
    """Eq. 7 for real-valued "counts" ``T * c`` (population trajectories): scipy's isotonic fit."""
    import scipy.optimize
    import scipy.special

    c = np.asarray(c_counts, float) / T
    ct = np.clip(scipy.optimize.isotonic_regression(c).x, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = (scipy.special.xlogy(c, c) - scipy.special.xlogy(c, ct)
              + scipy.special.xlogy(1 - c, 1 - c) - scipy.special.xlogy(1 - c, 1 - ct))
    return 2 * T * np.nansum(kl)


def count_vectors(n, T):
    """All (T+1)^n count vectors in mixed-radix order, first position slowest (itertools)."""
    return np.array(list(itertools.product(range(T + 1), repeat=n)), dtype=np.int64).reshape(-1, n)


def enumerate_keys(n, T):
    """Twin of ``lrt.enumerate_keys``: rho(D) = rint(D * 1e10) of every count vector."""
    return np.array([int(np.rint(lr_statistic(k, T) * 1e10)) for k in count_vectors(n, T)],
                    dtype=np.int64)


def exact_mass(inv_group, ngroups, theta, n, T):
    """Twin of ``lrt.exact_mass`` for every reference vector: mass[a, g] = P_theta_a(atom g).

    ``theta`` (nref, n); the probability of a count vector is the product of scipy's binomial
    pmfs, summed per atom ``inv_group[idx]`` of vector ``idx`` (mixed-radix order).
    """
    theta = np.atleast_2d(theta)
    mass = np.zeros((theta.shape[0], ngroups))
    for idx, k in enumerate(count_vectors(n, T)):
        for a, th in enumerate(theta):
            mass[a, inv_group[idx]] += math.prod(binom.pmf(int(k[i]), T, th[i]) for i in range(n))
    return mass


def tail_envelope(mass):
    """Twin of ``lrt.tail_envelope``: upper tails P(atom >= g) per row, their max and argmax."""
    tails = np.array([[sum(row[g:]) for g in range(row.size)] for row in np.asarray(mass)])
    return tails.max(axis=0), tails.argmax(axis=0)


def envelope_counts(keys_per_vector):
    """Twin of ``lrt.envelope_counts``: max over vectors of #{D* >= atom} at every atom."""
    atoms = np.unique(np.concatenate([np.asarray(k) for k in keys_per_vector]))
    tails = np.array([[int((np.asarray(k) >= u).sum()) for u in atoms] for k in keys_per_vector])
    return atoms, tails.max(axis=0), tails.argmax(axis=0)


# ---- benchkit._kernels.irt --------------------------------------------------------------------


def scan_binary(Y):
    """Twin of ``irt.scan_binary``: nansum / non-NaN counts along both axes, and bad cells."""
    Y = np.asarray(Y, dtype=float)
    obs = (Y == 0) | (Y == 1)
    return (np.where(obs, Y, 0).sum(1), obs.sum(1).astype(float), np.where(obs, Y, 0).sum(0),
            obs.sum(0).astype(float), float((~np.isnan(Y) & ~obs).sum()))


# ---- benchkit._kernels.mpd --------------------------------------------------------------------


def _tile(block, t, n):
    return range(t * block, min(n, (t + 1) * block))


def pair_sums(pts, bi, bj, block):
    """Twin of ``mpd.pair_sums_nd``: per task, sum of d_ij over i < j.

    ``pts`` (dim, n); task t covers rows of tile ``bi[t]`` and columns of tile ``bj[t]``.
    """
    pts = np.asarray(pts, float)
    n = pts.shape[1]
    out = np.zeros(len(bi))
    for t, (a, b) in enumerate(zip(bi, bj)):
        out[t] = math.fsum(math.dist(pts[:, i], pts[:, j])
                           for i in _tile(block, a, n) for j in _tile(block, b, n) if i < j)
    return out


def pair_sums_tiles(x, y, starts, bi, bj):
    """Twin of ``mpd.pair_sums_tiles``: per task, sum of d_ij (float64) over i < j of tiles
    ``starts[a]:starts[a + 1]`` and ``starts[b]:starts[b + 1]``."""
    out = np.zeros(len(bi))
    for t, (a, b) in enumerate(zip(bi, bj)):
        out[t] = math.fsum(math.hypot(float(x[j]) - float(x[i]), float(y[j]) - float(y[i]))
                           for i in range(starts[a], starts[a + 1])
                           for j in range(starts[b], starts[b + 1]) if i < j)
    return out


def weighted_pair_sums(pts, w, bi, bj, block):
    """Twin of ``mpd.weighted_pair_sums``: per task and weight row r, sum of w_ri w_rj d_ij, i < j."""
    pts = np.asarray(pts, float)
    n = pts.shape[1]
    out = np.zeros((len(bi), w.shape[0]))
    for t, (a, b) in enumerate(zip(bi, bj)):
        for r in range(w.shape[0]):
            out[t, r] = math.fsum(w[r, i] * w[r, j] * math.dist(pts[:, i], pts[:, j])
                                  for i in _tile(block, a, n) for j in _tile(block, b, n) if i < j)
    return out


# ---- benchkit._kernels.dif --------------------------------------------------------------------


def residual_dif(Y, fam, offsets, F, lam, n_cycles, max_newton, tol, max_step):
    """App. C.4 on the whole matrix at once (the paper's global stopping rules), numpy only."""
    Y = Y.astype(float)
    n_items, M = Y.shape
    onehot = np.zeros((M, F))
    onehot[np.arange(M), fam] = 1.0
    pt = np.clip(Y.mean(1), 1e-4, 1 - 1e-4)
    b = np.log(pt / (1 - pt)) - offsets.mean(1)
    d = np.zeros((n_items, F))
    cycles = np.zeros(n_items, dtype=np.int64)
    for cyc in range(n_cycles):
        cycles[:] = cyc + 1
        for _ in range(max_newton):
            p = 1 / (1 + np.exp(-(offsets + b[:, None] + d[:, fam])))
            step = np.clip((Y - p).sum(1) / ((p * (1 - p)).sum(1) + 1e-9), -max_step, max_step)
            b = b + step
            if np.abs(step).max() < tol:
                break
        d_old = d.copy()
        for _ in range(max_newton):
            p = 1 / (1 + np.exp(-(offsets + b[:, None] + d[:, fam])))
            g = (Y - p) @ onehot - lam * d
            h = (p * (1 - p)) @ onehot + lam
            step = np.clip(g / h, -max_step, max_step)
            d = d + step
            if np.abs(step).max() < tol:
                break
        mean = d.mean(1)
        d = d - mean[:, None]
        b = b + mean
        if np.abs(d - d_old).max() < tol:
            break
    return b, d, cycles


def residual_dif_items(Y, order, starts, offsets, L, thetaT, s, clip, lam, n_cycles, max_newton,
                       tol, max_step):
    """Twin of ``benchkit._kernels.dif.residual_dif``: App. C.4 item by item with the kernel's
    per-item stopping rule, numpy over the models of one item (original column order; ``order`` /
    ``starts`` only give each model's family). The offsets: ``offsets``, or when it has no rows
    the dense Eq. 17 offsets of the factors (``thetaT`` in family order). Returns (b, delta,
    cycles, passes)."""
    if offsets.shape[0] == 0:
        theta = np.empty((thetaT.shape[1], thetaT.shape[0]))
        theta[order] = thetaT.T
        offsets = factor_offsets(L, theta, s, clip)
    Y = np.asarray(Y, dtype=float)
    n_items, M = Y.shape
    F = len(starts) - 1
    fam = np.empty(M, dtype=np.int64)
    for f in range(F):
        fam[order[starts[f]:starts[f + 1]]] = f
    b = np.empty(n_items)
    delta = np.zeros((n_items, F))
    cycles = np.zeros(n_items, dtype=np.int64)
    passes = np.zeros(n_items, dtype=np.int64)
    for i in range(n_items):
        y, o = Y[i], offsets[i]
        pt = min(max(y.mean(), 1e-4), 1 - 1e-4)
        bi = np.log(pt / (1 - pt)) - o.mean()
        d = np.zeros(F)
        for cyc in range(n_cycles):
            cycles[i] = cyc + 1
            for _ in range(max_newton):
                p = 1 / (1 + np.exp(-(o + bi + d[fam])))
                passes[i] += 1
                step = np.clip((y - p).sum() / ((p * (1 - p)).sum() + 1e-9), -max_step, max_step)
                bi += step
                if abs(step) < tol:
                    break
            d_old = d.copy()
            for _ in range(max_newton):
                p = 1 / (1 + np.exp(-(o + bi + d[fam])))
                passes[i] += 1
                g = np.bincount(fam, y - p, F) - lam * d
                h = np.bincount(fam, p * (1 - p), F) + lam
                step = np.clip(g / h, -max_step, max_step)
                d = d + step
                if np.abs(step).max() < tol:
                    break
            mean = d.mean()
            d = d - mean
            bi += mean
            if np.abs(d - d_old).max() < tol:
                break
        b[i], delta[i] = bi, d
    return b, delta, cycles, passes


def factor_offsets(L, theta, s, clip):
    """Eq. 17 as ``SpectralFit.offsets`` computes it: ``clip(L theta^T / s, -clip, clip)``."""
    o = L @ theta.T
    o /= s[:, None]
    return np.clip(o, -clip, clip)


def pack_cells(Y, ptr, items):
    """Twin of ``benchkit._kernels.dif.pack_cells``: Python ints as bit sets, cell by cell."""
    words, woff = [], [0]
    for c in range(len(ptr) - 1):
        idx = items[ptr[c]:ptr[c + 1]]
        for w in range(0, idx.size, 64):
            words.append([sum(int(Y[i, m]) << t for t, i in enumerate(idx[w:w + 64]))
                          for m in range(Y.shape[1])])
        woff.append(len(words))
    return np.array(words, dtype=np.uint64).reshape(len(words), Y.shape[1]), np.array(woff)


def unpack_cells(bits, woff, ptr, items, n_items):
    """The 0/1 (items x models) block back from :func:`pack_cells`'s words."""
    Y = np.zeros((n_items, bits.shape[1]), dtype=np.uint8)
    for c in range(len(ptr) - 1):
        for t, i in enumerate(items[ptr[c]:ptr[c + 1]]):
            Y[i] = (bits[woff[c] + t // 64] >> np.uint64(t % 64)) & np.uint64(1)
    return Y


def matched_draws(keys, cellv, ptr, items, k_c):
    """Commit e599a3b's draw: a full stable argsort of ``cells + keys`` per replicate; an item is
    drawn when its rank within its cell is below k_c. Returns the (replicates, items) mask."""
    n, n_items = keys.shape
    k_of_item = np.empty(n_items, dtype=np.int64)
    for c in range(len(ptr) - 1):
        k_of_item[items[ptr[c]:ptr[c + 1]]] = k_c[c]
    order = np.argsort(cellv[None, :] + keys, axis=1, kind="stable")
    first = np.searchsorted(np.sort(cellv), cellv)  # first position of each item's cell
    take = np.zeros((n, n_items), dtype=bool)
    rows = np.repeat(np.arange(n), n_items).reshape(n, n_items)
    ranked = np.arange(n_items)[None, :] - first[order] < k_of_item[order]
    take[rows[ranked], order[ranked]] = True
    return take


def matched_scores(keys, cellv, ptr, items, k_c, w_c, bits, woff):
    """Twin of ``benchkit._kernels.dif.matched_scores``: :func:`matched_draws`, then
    ``W @ Y / W.sum`` (``Y`` unpacked from the cell words)."""
    Y = unpack_cells(bits, woff, ptr, items, keys.shape[1])
    w_of_item = np.empty(keys.shape[1])
    for c in range(len(ptr) - 1):
        w_of_item[items[ptr[c]:ptr[c + 1]]] = w_c[c]
    W = np.where(matched_draws(keys, cellv, ptr, items, k_c), w_of_item[None, :], 0.0)
    return (W @ Y.astype(np.float64)) / W.sum(1, keepdims=True)


def reversal_counts(alt, pi, pj, sign, full, use_full, band, n_bands, tol):
    """Twin of ``benchkit._kernels.dif.reversal_counts``: the numpy expression of commit 785951b
    (whole-array differences and boolean masks, an einsum against a one-hot band matrix)."""
    d = alt[:, pi] - alt[:, pj]
    ok = np.abs(d) > tol
    if use_full:
        df = full[:, pi] - full[:, pj]
        sgn = np.sign(df)
        ok &= np.abs(df) > tol
    else:
        sgn = sign
    flip = ok & (sgn * d < 0)
    onehot = (np.asarray(band)[:, None] == np.arange(n_bands)[None, :]).astype(np.float64)
    flips = np.einsum("rp,pb->rb", flip.astype(np.float64), onehot)
    elig = np.einsum("rp,pb->rb", ok.astype(np.float64), onehot)
    return np.rint(flips).astype(np.int64), np.rint(elig).astype(np.int64)


# ---- benchkit._kernels.counts -----------------------------------------------------------------


def scatter_binary(N, K, item_idx, model_idx, item_lut, model_lut, y):
    """Twin of ``counts.scatter_binary``, row by row in Python: stop at the first value that is
    not 0/1, count each row into its cell unless the cell already holds 255 rows; returns (first
    bad row or -1, whether a cell holds more than one row)."""
    dup = False
    for r, v in enumerate(np.asarray(y).tolist()):
        if v not in (0, 1):
            return r, dup
        cell = (item_lut[item_idx[r]], model_lut[model_idx[r]])
        dup = dup or N[cell] > 0
        if N[cell] < 255:
            N[cell] += 1
            K[cell] += v == 1
    return -1, dup


# ---- benchkit._kernels.quality ----------------------------------------------------------------


def cad_counts_naive(Y, families):
    """Twin of :func:`benchkit._kernels.quality.cad_counts`: a loop over each family's ordered pairs
    (j stronger than k), vectorized over items; a pair with a NaN cell is not compared.

    Returns (inv, comp, fam_inv, fam_comp).
    """
    Y = np.asarray(Y, dtype=np.float64)
    inv = np.zeros(Y.shape[0])
    comp = np.zeros(Y.shape[0])
    fam_inv, fam_comp = [], []
    for fam in families:
        fi = fc = 0.0
        for a in range(len(fam)):
            for b in range(a + 1, len(fam)):
                ys, yw = Y[:, fam[a]], Y[:, fam[b]]
                ok = ~(np.isnan(ys) | np.isnan(yw))
                x = np.where(ok, (1.0 - ys) * yw, 0.0)
                inv += x
                comp += ok
                fi += x.sum()
                fc += ok.sum()
        fam_inv.append(fi)
        fam_comp.append(fc)
    return inv, comp, np.array(fam_inv), np.array(fam_comp)


# ---- benchkit._kernels.irt_em -----------------------------------------------------------------
# Arguments as the kernels take them (exponentials eb = exp(-b), et = exp(theta), missing cells as
# CSR index arrays); each twin is the textbook numpy expression over the full arrays.


def missing_csr(Y):
    """(row pointers, column indices) of the NaN cells by row, then (pointers, row indices) by column."""
    miss = np.isnan(np.asarray(Y, dtype=np.float64))
    _, cols = np.nonzero(miss)
    _, rows = np.nonzero(miss.T)
    pi = np.r_[0, np.cumsum(miss.sum(1))]
    pj = np.r_[0, np.cumsum(miss.sum(0))]
    return pi, cols, pj, rows


def colsum_softplus(eb, et, chunk=None):
    """sum_i log(1 + exp(theta_k - b_i)) for every node k."""
    return np.log1p(np.outer(eb, et)).sum(0)


def colsum_softplus_2pl(a, b, th0, h, K, chunk=None):
    """sum_i log(1 + exp(a_i (theta_k - b_i))) on the grid theta_k = th0 + k h."""
    th = th0 + h * np.arange(K)
    return np.logaddexp(0.0, a[:, None] * (th[None, :] - b[:, None])).sum(0)


def item_sums_2pl(a, b, th0, h, K, N):
    """Per item: sums over nodes of w, w u, w q, w q u, w q u^2, w P with w = N P, q = 1 - P."""
    th = th0 + h * np.arange(K)
    u = th[None, :] - b[:, None]
    P = 1.0 / (1.0 + np.exp(-a[:, None] * u))
    w = N * P
    wq = w * (1 - P)
    return np.c_[w.sum(1), (w * u).sum(1), wq.sum(1), (wq * u).sum(1), (wq * u * u).sum(1),
                 (w * P).sum(1)]


def _missing_mask(ptr, idx, n_rows, n_cols):
    miss = np.zeros((n_rows, n_cols), dtype=bool)
    for j in range(n_cols):
        miss[idx[ptr[j]:ptr[j + 1]], j] = True
    return miss


def missing_softplus_nodes(eb, etau, ptr, idx, chunk=None):
    """Per model j and node q: sum over j's missing items i of log(1 + etau[j, q] eb[i])."""
    miss = _missing_mask(ptr, idx, eb.size, etau.shape[0])
    sp = np.log1p(eb[:, None, None] * etau[None, :, :])
    return (sp * miss[:, :, None]).sum(0)


def missing_moments_nodes(eb, etau, wq, ptr, idx):
    """Per item i: sums over its missing models j and nodes q of wq P and wq P (1 - P)."""
    miss = _missing_mask(ptr, idx, etau.shape[0], eb.size).T
    P = 1.0 / (1.0 + 1.0 / (eb[:, None, None] * etau[None, :, :]))
    g = (wq[None] * P * miss[:, :, None]).sum((1, 2))
    h = (wq[None] * P * (1 - P) * miss[:, :, None]).sum((1, 2))
    return g, h


def var_p_observed(eb, emu, v, Y):
    """Per item: sum over observed cells of (P (1 - P))^2 v_j with P = sigma(mu_j - b_i)."""
    P = 1.0 / (1.0 + 1.0 / np.outer(eb, emu))
    return ((P * (1 - P)) ** 2 * v * ~np.isnan(Y)).sum(1)


def se_moments(eb, et, W, k0, k1, Y):
    """Per item: sums over observed cells of E_j[P^2] and E_j[P]^2 under model j's weights W[j]."""
    obs = ~np.isnan(Y)
    Pk = 1.0 / (1.0 + 1.0 / np.outer(eb, et))
    Wm = np.zeros_like(W)
    for j in range(W.shape[0]):
        Wm[j, k0[j]:k1[j]] = W[j, k0[j]:k1[j]]
    A = Pk @ Wm.T
    return ((Pk ** 2) @ Wm.T * obs).sum(1), (A ** 2 * obs).sum(1)


def bary_eval2(x, nodes, w, f, g):
    """Barycentric interpolation (second form) of two functions given at nodes, evaluated at x."""
    F = np.empty(len(x))
    G = np.empty(len(x))
    for t, xv in enumerate(x):
        d = xv - nodes
        hit = np.flatnonzero(d == 0)
        if hit.size:
            F[t], G[t] = f[hit[0]], g[hit[0]]
            continue
        c = w / d
        F[t] = (c * f).sum() / c.sum()
        G[t] = (c * g).sum() / c.sum()
    return F, G

# ---- oracles shared by tests (not kernel twins) ------------------------------------------------
def crossing(fit, alpha):
    """Eq. 4 of paper 000 by brute force: the first s where the piecewise-linear fit reaches
    c~1 + alpha*Delta (s on the grid 0, 1/(n-1), ..., 1); used by the trajectory explorer tests.
    """
    n = fit.size
    s = np.arange(n) / (n - 1)
    level = fit[0] + alpha * (fit[-1] - fit[0])
    for i in range(1, n):
        if fit[i] >= level - 1e-15:
            if fit[i] == fit[i - 1]:
                return s[i]
            return s[i - 1] + (level - fit[i - 1]) / (fit[i] - fit[i - 1]) * (s[i] - s[i - 1])
    raise AssertionError("no crossing")


def trajectory_filter(df, brush, flag="all", delta="all"):
    """The trajectory explorer's list filter written with pandas: a boolean Series over ``df``
    (a ProfileResult's ``to_frame()``). A brush on x or w also drops flat items (x, w undefined);
    ``flag``/``delta`` keep all, "flagged"/"unflagged", "flat"/"non-flat" items.
    """
    import pandas as pd

    keep = pd.Series(True, index=df.index)
    for var, (lo, hi) in brush.items():
        keep &= df[var].between(lo, hi)
        if var in ("x", "w"):
            keep &= ~df["flat"]
    if flag != "all":
        keep &= df["flagged"] if flag == "flagged" else ~df["flagged"]
    if delta != "all":
        keep &= df["flat"] if delta == "flat" else ~df["flat"]
    return keep


def brute_tails(n, T, theta):
    """Exact LRT tails by listing every count vector (independent of ``benchkit._kernels.lrt``).

    Returns the sorted atoms (D keys, ``rint(D * 1e10)``) and ``{key: [P_theta_a(D >= key) for a]}``
    for each row ``theta_a`` of ``theta``.
    """
    D = {}
    prob = {}
    for k in itertools.product(range(T + 1), repeat=n):
        D[k] = int(np.rint(lr_statistic(k, T) * 1e10))
        prob[k] = [math.prod(binom.pmf(k[i], T, th[i]) for i in range(n)) for th in theta]
    atoms = sorted(set(D.values()))
    tails = {d: [math.fsum(prob[k][a] for k in D if D[k] >= d) for a in range(len(theta))]
             for d in atoms}
    return atoms, tails


def correlation_distance(X):
    """Dense 1 - corrcoef of the rows of X for benchkit.subsets' k-medoids: undefined r (a constant
    row) -> 0, but 1 between two constant rows. Also the dense alternative of bench_subsets."""
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.corrcoef(X)
    const = X.std(1) == 0
    r = np.nan_to_num(r, nan=0.0)
    r[np.ix_(const, const)] = 1.0
    D = 1.0 - r
    np.fill_diagonal(D, 0.0)
    return D


def kmedoids_dense(D, medoids, max_iter=100):
    """Alternating k-medoids on a dense distance matrix from ``medoids``: every object goes to its
    nearest medoid (a medoid to itself), each medoid moves to the member with the least distance sum
    to its cluster, until nothing moves. Also the dense alternative of bench_subsets."""
    med = np.asarray(medoids).copy()
    for _ in range(max_iter):
        labels = np.argmin(D[:, med], axis=1)
        labels[med] = np.arange(med.size)
        new = med.copy()
        for c in range(med.size):
            members = np.flatnonzero(labels == c)
            new[c] = members[np.argmin(D[np.ix_(members, members)].sum(1))]
        if np.array_equal(new, med):
            break
        med = new
    return med


# ---- benchkit.irt marginal ML: the objective by dense quadrature, and Newton to tight tolerance ---
def marginal_nll_dense(p, Y, two_pl, prec_b, prec_a=1.0, grid=None):
    """Penalized negative marginal log likelihood of the 1PL / 2PL and its gradient, densely.

    ``p`` is (b, log sigma) for the 1PL (abilities N(0, sigma^2), discrimination 1) and (b, log a)
    for the 2PL (abilities N(0, 1)). The integral over theta is the trapezoid rule on ``grid``
    (default 2,001 nodes on [-8, 8]), every model x node x item term computed; NaN cells are
    missing. Penalty prec_b/2 sum (b - mean b)^2 (+ prec_a/2 sum (log a)^2), as benchkit.irt.
    """
    Y = np.asarray(Y, dtype=np.float64)
    th = np.linspace(-8.0, 8.0, 2001) if grid is None else np.asarray(grid, dtype=np.float64)
    n = Y.shape[0]
    M = ~np.isnan(Y)
    Y0 = np.where(M, Y, 0.0)
    b = p[:n]
    if two_pl:
        la, ls = p[n:2 * n], 0.0
    else:
        la, ls = np.zeros(n), p[n]
    a = np.exp(la)
    h = th[1] - th[0]
    eta = a[:, None] * (th[None, :] - b[:, None])
    logp1 = -np.logaddexp(0.0, -eta)
    logp0 = -np.logaddexp(0.0, eta)
    ll_jk = (Y0 * M).T @ logp1 + ((1 - Y0) * M).T @ logp0
    s2 = np.exp(2 * ls)
    logw = np.log(h) - 0.5 * np.log(2 * np.pi * s2) - 0.5 * th**2 / s2
    w = np.ones(th.size)
    w[0] = w[-1] = 0.5
    L = ll_jk + logw[None, :] + np.log(w)[None, :]
    mx = L.max(axis=1, keepdims=True)
    lse = mx[:, 0] + np.log(np.exp(L - mx).sum(axis=1))
    W = np.exp(L - lse[:, None])
    dev = b - b.mean()
    f = -lse.sum() + 0.5 * prec_b * dev @ dev
    P = 1.0 / (1.0 + np.exp(-eta))
    resid = (Y0 * M) @ W - (M.astype(float) @ W) * P
    g = [a * resid.sum(1) + prec_b * dev]
    if two_pl:
        f += 0.5 * prec_a * la @ la
        g.append(-(resid * eta).sum(1) + prec_a * la)
    else:
        g.append([-np.sum(W @ (th**2 / s2) - 1.0)])
    return f, np.concatenate(g)


def newton_on_gradient(grad, x0, *, tol=1e-10, max_iter=30, eps=1e-6):
    """Newton's method for grad(x) = 0 with the Hessian by central differences of ``grad``.

    Plain and slow: column k of H is (grad(x + eps e_k) - grad(x - eps e_k)) / (2 eps), H is
    symmetrized and the step solves H d = -grad(x). Stops when max |grad| < tol. Uses only the
    gradient, so it converges where a line search on f stalls (f flat to rounding). Returns
    (x, max |grad|, iterations).
    """
    x = np.array(x0, dtype=np.float64)
    g = grad(x)
    for it in range(1, max_iter + 1):
        if np.max(np.abs(g)) < tol:
            return x, float(np.max(np.abs(g))), it - 1
        m = x.size
        H = np.empty((m, m))
        for k in range(m):
            e = np.zeros(m)
            e[k] = eps
            H[:, k] = (grad(x + e) - grad(x - e)) / (2 * eps)
        H = 0.5 * (H + H.T)
        x = x - np.linalg.solve(H, g)
        g = grad(x)
    return x, float(np.max(np.abs(g))), max_iter


def newton_cg_on_gradient(grad, x0, *, scale=None, tol=1e-9, max_iter=10, eps=1e-6,
                          cg_rtol=1e-10, cg_maxiter=2000):
    """:func:`newton_on_gradient` for many parameters: Hessian-vector products by central
    differences of ``grad`` (H v = (grad(x + eps v) - grad(x - eps v)) / (2 eps), v scaled to
    unit max norm) and each Newton system solved by conjugate gradients (Jacobi-preconditioned
    by ``scale**2`` when given). Returns (x, max |grad|, iterations).
    """
    from scipy.sparse.linalg import LinearOperator
    from scipy.sparse.linalg import cg

    x = np.array(x0, dtype=np.float64)
    g = grad(x)
    m = x.size
    Minv = None
    if scale is not None:
        d = 1.0 / np.asarray(scale, dtype=np.float64) ** 2
        Minv = LinearOperator((m, m), matvec=lambda v: d * v)
    for it in range(1, max_iter + 1):
        if np.max(np.abs(g)) < tol:
            return x, float(np.max(np.abs(g))), it - 1

        def hv(v, x=x):
            nv = np.max(np.abs(v))
            if nv == 0:
                return np.zeros_like(v)
            u = v / nv
            return (grad(x + eps * u) - grad(x - eps * u)) / (2 * eps) * nv

        H = LinearOperator((m, m), matvec=hv)
        step, _ = cg(H, -g, rtol=cg_rtol, atol=0.0, maxiter=cg_maxiter, M=Minv)
        x = x + step
        g = grad(x)
    return x, float(np.max(np.abs(g))), max_iter


# ---- coverage ---------------------------------------------------------------------------------
#: kernel module -> {kernel: twin}. Modules of ``benchkit._kernels`` that hold no kernel of their
#: own are listed in :data:`NOT_KERNELS` with the reason.
TWINS = {
    "benchkit._kernels.pava": {
        "pava_float_serial": pava_exact,
        "pava_counts_serial": pava_counts,
        "minmax_counts_lcm": minmax_fit_units,
        "profile_rows_serial": profile_rows,
    },
    "benchkit._kernels.lrt": {
        "lr_statistic_counts": lr_statistic,
        "enumerate_generic": enumerate_keys,
        "exact_mass": exact_mass,
        "tail_envelope": tail_envelope,
        "exact_tail_max": tail_envelope,
        "envelope_counts": envelope_counts,
    },
    "benchkit._kernels.dif": {"residual_dif": residual_dif_items, "matched_scores": matched_scores,
                              "pack_cells": pack_cells, "reversal_counts": reversal_counts},
    "benchkit._kernels.vecmath": {"exp": np.exp, "popcount": int.bit_count},
    "benchkit._kernels.irt": {"scan_binary": scan_binary},
    "benchkit._kernels.irt_em": {
        "missing_csr": missing_csr,
        "colsum_softplus": colsum_softplus,
        "colsum_softplus_2pl": colsum_softplus_2pl,
        "item_sums_2pl": item_sums_2pl,
        "missing_softplus_nodes": missing_softplus_nodes,
        "missing_moments_nodes": missing_moments_nodes,
        "var_p_observed": var_p_observed,
        "se_moments": se_moments,
        "bary_eval2": bary_eval2,
    },
    "benchkit._kernels.quality": {"cad_counts": cad_counts_naive},
    "benchkit._kernels.counts": {"scatter_binary": scatter_binary},
    "benchkit._kernels.mpd": {
        "pair_sums_tiles": pair_sums_tiles,
        "pair_sums_tiles_serial": pair_sums_tiles,
        "pair_sums_nd": pair_sums,
        "weighted_pair_sums": weighted_pair_sums,
    },
    # the generated per-n copies of the lrt/pava loops: twins are those of the loops they unroll
    "benchkit._kernels.boundary_unrolled": {
        "pava_float_rows_n{n}": pava_exact,
        "enumerate_range_n{n}": enumerate_keys,
    },
}
NOT_KERNELS = {
    "benchkit._kernels.boundary_codegen": "generator of boundary_unrolled (tested: file is current)",
    "benchkit._kernels.boundary_threads": "thread pool (parallel_for), no arithmetic",
}
