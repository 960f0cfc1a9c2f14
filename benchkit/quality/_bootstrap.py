"""Percentile bootstrap of every Benchmark² metric (App. E, Table 14).

One replicate resamples the items of every benchmark with replacement (independently per
benchmark) and recomputes the model scores, then CBRC, DS, CAD and BQS from them. CAD's rate is
``sum_q w_q inv_q / sum_q w_q comp_q`` with the resampling counts ``w``, exactly the rate on the
resampled items. Replicates run in fixed blocks of :data:`BLOCK` through
:func:`benchkit._parallel.blocked_map`, so they are identical for any ``n_jobs``.
"""
from __future__ import annotations

import numpy as np

from benchkit._parallel import blocked_map
from benchkit._results import result
from benchkit.quality._metrics import _cbrc_from_tau
from benchkit.quality._metrics import _ds_rows
from benchkit.stats import kendall_tau_b

__all__ = ["BLOCK", "BootstrapInput", "bootstrap_replicates"]

BLOCK = 50


@result
class BootstrapInput:
    """What one worker needs.

    Per benchmark, the response matrix over the models it observes (``cols``: their positions among
    all aligned models; missing cells 0 with ``obs`` = 0), CAD item counts, and the fixed domain
    codes and weights.
    """

    Y: tuple[np.ndarray, ...]
    cols: tuple[np.ndarray, ...]
    n_models: int
    obs: tuple[np.ndarray, ...]
    inv: tuple[np.ndarray, ...]
    comp: tuple[np.ndarray, ...]
    codes: np.ndarray
    eps: float
    lam: float
    weights: np.ndarray
    min_models: int
    omit: bool = False


def _block(seed, start, stop, data: BootstrapInput) -> np.ndarray:
    """Replicates start..stop-1: array (reps, benchmarks, 4) of CBRC, DS, CAD, BQS."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):  # small matmuls: BLAS threads only contend on shared cores
        return _block_serial(seed, start, stop, data)


def _block_serial(seed, start, stop, data: BootstrapInput) -> np.ndarray:
    gen = np.random.default_rng(seed)
    reps = stop - start
    nb = len(data.Y)
    S = []
    out = np.full((reps, nb, 4), np.nan)
    for b in range(nb):
        n = data.Y[b].shape[0]
        W = np.stack([np.bincount(gen.integers(0, n, n), minlength=n) for _ in range(reps)]
                     ).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            Sb = (W @ data.Y[b]) / (W @ data.obs[b])
        seen = np.isfinite(Sb).all(0)
        if seen.sum() >= 2:
            out[:, b, 1] = _ds_rows(Sb[:, seen], data.eps)
        full = np.full((reps, data.n_models), np.nan)
        full[:, data.cols[b]] = Sb
        S.append(full)
        ic = W @ data.comp[b]
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = np.where(ic > 0, (W @ data.inv[b]) / np.where(ic > 0, ic, 1), np.nan)
        out[:, b, 2] = np.exp(-data.lam * rate)
    tau = np.full((reps, nb, nb), np.nan)
    for i in range(nb):
        for j in range(i + 1, nb):
            if data.codes[i] != data.codes[j]:
                continue
            ok = np.isfinite(S[i]).all(0) & np.isfinite(S[j]).all(0)
            if ok.sum() >= data.min_models:
                t = np.atleast_1d(kendall_tau_b(S[i][:, ok], S[j][:, ok]))
                tau[:, i, j] = tau[:, j, i] = t
    for r in range(reps):
        out[r, :, 0] = _cbrc_from_tau(tau[r], data.codes, data.omit)
    w = data.weights
    out[:, :, 3] = w[0] * (out[:, :, 0] + 1) / 2 + w[1] * out[:, :, 1] + w[2] * out[:, :, 2]
    return out


def bootstrap_replicates(data: BootstrapInput, n_resamples: int, *, rng, n_jobs=None,
                         progress: bool = False) -> np.ndarray:
    """All replicates, (n_resamples, benchmarks, 4) with columns CBRC, DS, CAD, BQS."""
    parts = blocked_map(_block, n_resamples, rng=rng, block_size=BLOCK, args=(data,),
                        n_jobs=n_jobs, progress=progress, desc="bootstrap")
    if not parts:
        return np.empty((0, len(data.Y), 4))
    return np.concatenate(parts, axis=0)
