"""Slow, obviously-correct numpy twins of the numba kernels (one function per kernel)."""
from __future__ import annotations

import numpy as np


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
