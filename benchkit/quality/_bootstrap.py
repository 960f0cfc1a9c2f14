"""Item bootstrap and jackknife of every Benchmark² metric (App. E, Table 14).

Resampling unit: an item, identified by its id within a domain. Benchmarks of one domain that
share item ids (HumanEval, HumanEval+ and the base-model HumanEval run; MBPP and MBPP+) form one
*pool*: a replicate draws ``n_units`` ids with replacement from the pool's union of ids, once, and
every benchmark of the pool weights its items by the multiplicity of their ids, so shared items
are resampled jointly. A benchmark alone in its pool draws ``n`` of its ``n`` items, the ordinary
item bootstrap. Pools are resampled independently. (No metric compares benchmarks of different
domains, so pools never cross a domain: two sources whose ids collide by accident, such as
LiveCodeBench's "2808" and MMLU-Pro's question 2808, stay apart.)

Per replicate, with multiplicities ``W_b`` of benchmark b's items: model scores ``S_b = (W_b Y_b)
/ (W_b obs_b)``; a model none of whose observed items was drawn is missing from that replicate
only (never from a whole block). DS uses the models scored in the replicate; each Kendall tau the
models scored on both benchmarks in the replicate (at least ``min_models``); CAD's rate is
``sum_q w_q inv_q / sum_q w_q comp_q``, exactly the rate on the resampled items; BQS combines
them.

Replicates run in fixed blocks of :data:`BLOCK` through :func:`benchkit._parallel.blocked_map`, so
they are identical for any ``n_jobs``. Draw order inside a block (the tests replay it): for each
pool in order, for each replicate of the block, ``gen.integers(0, n_units, n_units)``.

:func:`jackknife` gives the leave-one-unit-out values of every metric, one array per pool (the
independently resampled samples), for the BCa acceleration.
"""
from __future__ import annotations

import numpy as np

from benchkit._parallel import blocked_map
from benchkit._results import result
from benchkit.quality._metrics import _cbrc_from_tau
from benchkit.quality._metrics import _ds_rows
from benchkit.stats import kendall_tau_b

__all__ = ["BLOCK", "BootstrapInput", "bootstrap_replicates", "jackknife", "item_pools"]

BLOCK = 50


@result
class BootstrapInput:
    """What one worker needs.

    Per benchmark: the response matrix over the models it observes (``cols``: their positions among
    all aligned models; missing cells 0 with ``obs`` = 0), CAD item counts, its pool and the pool
    unit of each of its items (``units``); the pool sizes, domain codes, the full-data Kendall
    matrix and the settings.
    """

    Y: tuple[np.ndarray, ...]
    cols: tuple[np.ndarray, ...]
    n_models: int
    obs: tuple[np.ndarray, ...]
    inv: tuple[np.ndarray, ...]
    comp: tuple[np.ndarray, ...]
    pool: np.ndarray
    units: tuple[np.ndarray, ...]
    pool_sizes: np.ndarray
    codes: np.ndarray
    tau: np.ndarray
    eps: float
    lam: float
    weights: np.ndarray
    min_models: int
    omit: bool = False


def item_pools(item_ids, codes) -> tuple[np.ndarray, tuple[np.ndarray, ...], np.ndarray]:
    """Pools of benchmarks sharing item ids within a domain.

    ``item_ids``: one sequence of ids per benchmark; ``codes``: domain code per benchmark. Returns
    ``(pool, units, pool_sizes)``: the pool of each benchmark (numbered by first benchmark), the
    pool unit of each of its items, and the number of units per pool. Benchmarks are joined when
    they share at least one id (transitively).
    """
    nb = len(item_ids)
    parent = list(range(nb))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    owner: dict[tuple, int] = {}
    for b, ids in enumerate(item_ids):
        for i in ids:
            key = (int(codes[b]), i)
            if key in owner:
                ra, rb = find(owner[key]), find(b)
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
            else:
                owner[key] = b
    roots = [find(b) for b in range(nb)]
    number = {r: k for k, r in enumerate(dict.fromkeys(roots))}
    pool = np.array([number[r] for r in roots], dtype=np.int64)
    unit_of: list[dict] = [{} for _ in number]
    units = []
    for b, ids in enumerate(item_ids):
        lookup = unit_of[pool[b]]
        units.append(np.array([lookup.setdefault(i, len(lookup)) for i in ids], dtype=np.int64))
    return pool, tuple(units), np.array([len(u) for u in unit_of], dtype=np.int64)


def replicate_metrics(W, data: BootstrapInput, reps: int) -> np.ndarray:
    """CBRC, DS, CAD, BQS (reps, benchmarks, 4) from item weights.

    ``W[b]`` is a (reps, n_b) array of item weights of benchmark b, or None for the data as they
    are (weight 1 on every item).
    """
    nb = len(data.Y)
    out = np.full((reps, nb, 4), np.nan)
    S = []
    for b in range(nb):
        w = np.ones((1, data.Y[b].shape[0])) if W[b] is None else W[b]
        with np.errstate(invalid="ignore", divide="ignore"):
            Sb = (w @ data.Y[b]) / (w @ data.obs[b])
            ic = w @ data.comp[b]
            rate = np.where(ic > 0, (w @ data.inv[b]) / np.where(ic > 0, ic, 1), np.nan)
        S.append(Sb)  # columns: the benchmark's own models, data.cols[b]
        out[:, b, 1] = _ds_rows(Sb, data.eps)
        out[:, b, 2] = np.exp(-data.lam * rate)
    tau = np.broadcast_to(data.tau, (reps, nb, nb)).copy()
    minm = max(2, data.min_models)
    for i in range(nb):
        for j in range(i + 1, nb):
            if data.codes[i] != data.codes[j] or (W[i] is None and W[j] is None):
                continue
            _, a, b = np.intersect1d(data.cols[i], data.cols[j], return_indices=True)
            if a.size < minm:
                continue  # NaN as in the data (fewer shared models than min_models)
            t = kendall_tau_b(S[i][:, a], S[j][:, b], nan_policy="omit", min_objects=minm)
            tau[:, i, j] = tau[:, j, i] = t
    for r in range(reps):
        out[r, :, 0] = _cbrc_from_tau(tau[r], data.codes, data.omit)
    w = data.weights
    out[:, :, 3] = w[0] * (out[:, :, 0] + 1) / 2 + w[1] * out[:, :, 1] + w[2] * out[:, :, 2]
    return out


def _block(seed, start, stop, data: BootstrapInput) -> np.ndarray:
    """Replicates start..stop-1: array (reps, benchmarks, 4) of CBRC, DS, CAD, BQS."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):  # small matmuls: BLAS threads only contend on shared cores
        gen = np.random.default_rng(seed)
        reps = stop - start
        Wp = [np.stack([np.bincount(gen.integers(0, n, n), minlength=n) for _ in range(reps)]
                       ).astype(np.float64) for n in data.pool_sizes]
        W = [Wp[data.pool[b]][:, data.units[b]] for b in range(len(data.Y))]
        return replicate_metrics(W, data, reps)


def bootstrap_replicates(data: BootstrapInput, n_resamples: int, *, rng, n_jobs=None,
                         progress: bool = False) -> np.ndarray:
    """All replicates, (n_resamples, benchmarks, 4) with columns CBRC, DS, CAD, BQS."""
    parts = blocked_map(_block, n_resamples, rng=rng, block_size=BLOCK, args=(data,),
                        n_jobs=n_jobs, progress=progress, desc="bootstrap")
    if not parts:
        return np.empty((0, len(data.Y), 4))
    return np.concatenate(parts, axis=0)


def jackknife(data: BootstrapInput) -> list[np.ndarray]:
    """Leave-one-unit-out CBRC, DS, CAD, BQS: one (n_units, benchmarks, 4) array per pool."""
    from threadpoolctl import threadpool_limits

    out = []
    with threadpool_limits(1):
        for p, n in enumerate(data.pool_sizes):
            W = []
            for b in range(len(data.Y)):
                if data.pool[b] != p:
                    W.append(None)
                    continue
                w = np.ones((n, data.units[b].size))
                w[data.units[b], np.arange(data.units[b].size)] = 0.0  # unit u left out
                W.append(w)
            out.append(replicate_metrics(W, data, int(n)))
    return out
