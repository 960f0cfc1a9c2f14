"""Kernels of the EM fit of the 1PL on an adaptive grid (``benchkit.irt._em``).

Contract
--------
Arrays in, arrays out; no validation. ``eb = exp(-b)`` (n,) and ``et = exp(theta)`` (K,) are
float64, so that ``x_ik = eb_i * et_k = exp(theta_k - b_i)`` needs no exp per cell;
``P_ik = x / (1 + x)``. Sums of ``softplus = log(1 + x)`` are taken as the log of products over
``chunk`` consecutive items (one log per ``chunk`` items instead of one log1p per cell: numba has
no vector log here); the caller picks ``chunk`` so that a product of ``chunk`` factors cannot
overflow (``chunk * log(1 + max x) < 700``). Missing cells are CSR lists (:func:`missing_csr`):
``ptr_i, idx_i`` (for each item, its missing models) and ``ptr_j, idx_j`` (for each model, its
missing items). Model ``j``'s posterior lives on grid nodes ``k0[j] <= k < k1[j]`` and is also
represented by Chebyshev nodes ``tau_jq`` (``etau = exp(tau)``) with quadrature weights ``wq``.

* :func:`missing_csr` -- both CSR lists of the NaN cells of ``Y``, in one pass.
* :func:`colsum_softplus` -- ``C_k = sum_i log(1 + x_ik)``.
* :func:`missing_softplus_nodes` -- ``S[j, q] = sum_{i missing for j} log(1 + eb_i etau_jq)``.
* :func:`missing_moments_nodes` -- per item, sums of ``wq_jq P`` and ``wq_jq P (1 - P)`` over
  its missing models' nodes.
* :func:`bary_eval2` -- barycentric interpolation of two value vectors at many points.
* :func:`se_moments` -- ``EP2_i = sum_j M_ij E_j[P_i^2]``, ``S2_i = sum_j M_ij E_j[P_i]^2`` (exact
  conditional SEs); :func:`var_p_observed` -- the delta-method ``Var_j[P_i]`` summed over the
  observed cells (SEs of large problems).
* 2PL on an equally spaced grid: :func:`colsum_softplus_2pl`, :func:`item_sums_2pl`.

The numpy twins are in ``tests/test_irt_speed_paths.py``.
"""
from __future__ import annotations

import numba
import numpy as np

# reassociation lets the reductions vectorize; no nnan / ninf (NaN marks missing cells)
_FM = {"reassoc", "contract", "nsz", "arcp"}


@numba.njit(cache=True, nogil=True, fastmath=_FM)
def colsum_softplus(eb, et, chunk):
    n = eb.size
    K = et.size
    C = np.zeros(K)
    prod = np.empty(K)
    for i0 in range(0, n, chunk):
        prod[:] = 1.0
        for i in range(i0, min(i0 + chunk, n)):
            x = eb[i]
            for k in range(K):
                prod[k] *= 1.0 + x * et[k]
        for k in range(K):
            C[k] += np.log(prod[k])
    return C


@numba.njit(cache=True, nogil=True, fastmath=_FM)
def _row_p(e, et, lo, hi, P):
    for k in range(lo, hi):
        x = e * et[k]
        P[k] = x / (1.0 + x)


@numba.njit(cache=True, nogil=True, fastmath=_FM)
def se_moments(eb, et, W, k0, k1, Y):
    n = eb.size
    m = k0.size
    K = et.size
    EP2 = np.zeros(n)
    S2 = np.zeros(n)
    P = np.zeros(K)
    lo = k0.min()
    hi = k1.max()
    for i in range(n):
        _row_p(eb[i], et, lo, hi, P)
        s2 = 0.0
        ep2 = 0.0
        for j in range(m):
            y = Y[i, j]
            if np.isnan(y):  # missing
                continue
            a = 0.0
            a2 = 0.0
            for k in range(k0[j], k1[j]):
                wp = W[j, k] * P[k]
                a += wp
                a2 += wp * P[k]
            s2 += a * a
            ep2 += a2
        EP2[i] = ep2
        S2[i] = s2
    return EP2, S2


# ----------------------------------------------------------------------------------------------
# 2PL on an equally spaced grid theta_k = th0 + h k: x_ik = exp(a_i (theta_k - b_i)) by the
# recurrence x_i,k+1 = x_ik * exp(a_i h) (one multiply per cell, re-anchored by an exact exp
# every 32 nodes, so the relative error stays below ~1e-14)
# ----------------------------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True, fastmath=_FM)
def _row_x(a, b, th0, h, K, x):
    r = np.exp(a * h)
    for k0 in range(0, K, 32):
        v = np.exp(a * (th0 + h * k0 - b))
        for k in range(k0, min(k0 + 32, K)):
            x[k] = v
            v *= r


@numba.njit(cache=True, nogil=True, fastmath=_FM)
def colsum_softplus_2pl(a, b, th0, h, K, chunk):
    """C_k = sum_i log(1 + exp(a_i (theta_k - b_i)))."""
    n = a.size
    C = np.zeros(K)
    prod = np.empty(K)
    x = np.empty(K)
    for i0 in range(0, n, chunk):
        prod[:] = 1.0
        for i in range(i0, min(i0 + chunk, n)):
            _row_x(a[i], b[i], th0, h, K, x)
            for k in range(K):
                prod[k] *= 1.0 + x[k]
        for k in range(K):
            C[k] += np.log(prod[k])
    return C


@numba.njit(cache=True, nogil=True, fastmath=_FM)
def item_sums_2pl(a, b, th0, h, K, N):
    """Per-item sums with P = expit(a (theta_k - b)), u = theta_k - b and node weights N_k.

    Columns: sum N P, sum N P u, sum N P Q, sum N P Q u, sum N P Q u^2, sum N P^2.
    """
    n = a.size
    out = np.zeros((n, 6))
    x = np.empty(K)
    for i in range(n):
        _row_x(a[i], b[i], th0, h, K, x)
        s0 = s1 = s2 = s3 = s4 = s5 = 0.0
        for k in range(K):
            p = x[k] / (1.0 + x[k])
            u = th0 + h * k - b[i]
            w = N[k] * p
            wq = w * (1.0 - p)
            s0 += w
            s1 += w * u
            s2 += wq
            s3 += wq * u
            s4 += wq * u * u
            s5 += w * p
        out[i, 0] = s0
        out[i, 1] = s1
        out[i, 2] = s2
        out[i, 3] = s3
        out[i, 4] = s4
        out[i, 5] = s5
    return out


@numba.njit(cache=True, nogil=True)
def missing_csr(Y):
    """CSR lists of the NaN cells of ``Y`` (n, m), both sorted.

    (ptr_i, idx_i) per item (its missing models) and (ptr_j, idx_j) per model (its missing items).
    """
    n, m = Y.shape
    ci = np.zeros(n + 1, np.int64)
    cj = np.zeros(m + 1, np.int64)
    for i in range(n):
        for j in range(m):
            if np.isnan(Y[i, j]):
                ci[i + 1] += 1
                cj[j + 1] += 1
    for i in range(n):
        ci[i + 1] += ci[i]
    for j in range(m):
        cj[j + 1] += cj[j]
    idx_i = np.empty(ci[n], np.int64)
    idx_j = np.empty(cj[m], np.int64)
    fill_j = cj[:m].copy()
    for i in range(n):
        q = ci[i]
        for j in range(m):
            if np.isnan(Y[i, j]):
                idx_i[q] = j
                q += 1
                idx_j[fill_j[j]] = i
                fill_j[j] += 1
    return ci, idx_i, cj, idx_j


# ----------------------------------------------------------------------------------------------
# per-model Chebyshev nodes: each model's posterior window is represented by Q nodes tau_jq
# (etau = exp(tau)); sums over a model's missing items are evaluated there and interpolated
# ----------------------------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True, fastmath=_FM)
def missing_softplus_nodes(eb, etau, ptr, idx, chunk):
    """S[j, q] = sum_{i missing for j} log(1 + eb_i etau_jq).

    Computed as a product of chunk factors, one log per chunk.
    """
    m, Q = etau.shape
    S = np.zeros((m, Q))
    prod = np.empty(Q)
    for j in range(m):
        p0, p1 = ptr[j], ptr[j + 1]
        for q0 in range(p0, p1, chunk):
            prod[:] = 1.0
            for q in range(q0, min(q0 + chunk, p1)):
                x = eb[idx[q]]
                for r in range(Q):
                    prod[r] *= 1.0 + x * etau[j, r]
            for r in range(Q):
                S[j, r] += np.log(prod[r])
    return S


@numba.njit(cache=True, nogil=True, fastmath=_FM)
def missing_moments_nodes(eb, etau, wq, ptr, idx):
    """g_i = sum_{j missing for i} sum_q wq_jq P(tau_jq - b_i), h_i the same with P(1 - P)."""
    n = eb.size
    Q = etau.shape[1]
    g = np.zeros(n)
    h = np.zeros(n)
    for i in range(n):
        e = eb[i]
        gs = 0.0
        hs = 0.0
        for q in range(ptr[i], ptr[i + 1]):
            j = idx[q]
            for r in range(Q):
                x = e * etau[j, r]
                p = x / (1.0 + x)
                w = wq[j, r] * p
                gs += w
                hs += w * p
        g[i] = gs
        h[i] = gs - hs
    return g, h


@numba.njit(cache=True, nogil=True, fastmath=_FM)
def var_p_observed(eb, emu, v, Y):
    """Sum over the observed cells of item i of (P Q)(mu_j - b_i)^2 v_j.

    The delta-method Var_j[P_i] summed over the models that answered i.
    """
    n, m = Y.shape
    out = np.zeros(n)
    for i in range(n):
        e = eb[i]
        s = 0.0
        for j in range(m):
            y = Y[i, j]
            if not np.isnan(y):
                x = e * emu[j]
                d = 1.0 + x
                pq = x / (d * d)
                s += pq * pq * v[j]
        out[i] = s
    return out


@numba.njit(cache=True, nogil=True, fastmath=_FM)
def bary_eval2(x, nodes, w, F, G):
    """Barycentric interpolation of the values F and G at ``nodes`` (weights ``w``) at every ``x``.

    A point on a node takes the node's value.
    """
    n = x.size
    Q = nodes.size
    f = np.empty(n)
    g = np.empty(n)
    for i in range(n):
        num_f = 0.0
        num_g = 0.0
        den = 0.0
        hit = -1
        for q in range(Q):
            d = x[i] - nodes[q]
            if d == 0.0:
                hit = q
                break
            t = w[q] / d
            num_f += t * F[q]
            num_g += t * G[q]
            den += t
        if hit >= 0:
            f[i] = F[hit]
            g[i] = G[hit]
        else:
            f[i] = num_f / den
            g[i] = num_g / den
    return f, g
