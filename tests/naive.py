"""Slow, obviously-correct numpy twins of the numba kernels (one per kernel)."""
from __future__ import annotations

import numpy as np


# --- benchkit/_kernels/dif.py ----------------------------------------------------------------
def residual_dif(Y, fam, O, F, lam, n_cycles, max_newton, tol, max_step):
    """App. C.4 on the whole matrix at once (the paper's global stopping rules), numpy only."""
    Y = Y.astype(float)
    I, M = Y.shape
    onehot = np.zeros((M, F))
    onehot[np.arange(M), fam] = 1.0
    pt = np.clip(Y.mean(1), 1e-4, 1 - 1e-4)
    b = np.log(pt / (1 - pt)) - O.mean(1)
    d = np.zeros((I, F))
    cycles = np.zeros(I, dtype=np.int64)
    for cyc in range(n_cycles):
        cycles[:] = cyc + 1
        for _ in range(max_newton):
            p = 1 / (1 + np.exp(-(O + b[:, None] + d[:, fam])))
            step = np.clip((Y - p).sum(1) / ((p * (1 - p)).sum(1) + 1e-9), -max_step, max_step)
            b = b + step
            if np.abs(step).max() < tol:
                break
        d_old = d.copy()
        for _ in range(max_newton):
            p = 1 / (1 + np.exp(-(O + b[:, None] + d[:, fam])))
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
