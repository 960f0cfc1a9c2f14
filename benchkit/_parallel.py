"""The one blocked, seeded map that every resampling function runs through.

Resampling work (bootstraps, permutations, matched-random controls, Monte Carlo) is cut into blocks of
a fixed size that does not depend on the number of workers. Block ``b`` covers replicates
``[b * block_size, min(total, (b + 1) * block_size))`` and draws only from child ``b`` of the root
:class:`~numpy.random.SeedSequence` (:func:`benchkit._random.spawn`). Blocks run through
``joblib.Parallel(n_jobs=n_jobs)``, which honours ``joblib.parallel_config``: inside
``with parallel_config("dask"):`` they run on a ``dask.distributed`` cluster. Results come back in
block order, so they are bit-identical for any ``n_jobs`` and any backend.

``n_jobs=None`` means "whatever ``parallel_config`` says" (serial outside any context), as in
scikit-learn.

A fixed, small set of deterministic tasks that are steps of one call (the two owner halves of the
family-DIF cross-fit) is not resampling: :func:`thread_map` runs it on benchkit's internal kernel
threads whatever ``n_jobs`` is, as the numba kernels use every core whatever ``n_jobs`` is. Each
task computes exactly what it computes alone, so the results are the same as a serial loop. (The
audit's anchor-fraction refits follow the same rule on their own worker:
:mod:`benchkit.dif._sensitivity`.)
"""
from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
from typing import Any

import numpy as np

from benchkit._random import spawn
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import describe

__all__ = ["check_n_jobs", "parallel_map", "blocked_map", "block_bounds", "thread_map"]


def check_n_jobs(n_jobs: Any) -> int | None:
    """Validate ``n_jobs``: None, or a non-zero int (negative counts from the CPU count, as joblib)."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, (int, np.integer)) and not isinstance(n_jobs, (bool, np.bool_)):
        if int(n_jobs) == 0:
            raise BenchkitValueError("n_jobs=0 is not allowed; use None (joblib's configured "
                                     "default), a positive worker count, or -1 for all cores")
        return int(n_jobs)
    raise BenchkitTypeError(f"n_jobs must be None or a non-zero int; got {describe(n_jobs)}")


def parallel_map(fn: Callable[..., Any], tasks: Sequence[Any], *, n_jobs: Any = None,
                 progress: bool = False, desc: str | None = None,
                 prefer: str | None = None) -> list[Any]:
    """``[fn(*task) for task in tasks]`` through joblib, in task order.

    Each task is a tuple of positional arguments. ``progress`` shows a tqdm bar over finished tasks.
    A single task, or ``n_jobs=1``, runs in this process without joblib. ``prefer="threads"`` is
    joblib's soft hint for tasks that release the GIL (numba ``nogil`` kernels, BLAS) and share
    large inputs: the default backend becomes threads, while an explicit ``parallel_config``
    backend (Dask, processes) still wins.
    """
    n_jobs = check_n_jobs(n_jobs)
    tasks = list(tasks)
    bar = _bar(len(tasks), progress, desc)
    try:
        if n_jobs == 1 or len(tasks) <= 1:
            out = []
            for t in tasks:
                out.append(fn(*t))
                bar.update(1)
            return out
        from joblib import Parallel
        from joblib import delayed

        gen = Parallel(n_jobs=n_jobs, return_as="generator", prefer=prefer)(delayed(fn)(*t) for t in tasks)
        out = []
        for r in gen:
            out.append(r)
            bar.update(1)
        return out
    finally:
        bar.close()


def thread_map(fn: Callable[..., Any], tasks: Sequence[Any]) -> list[Any]:
    """``[fn(*task) for task in tasks]`` on benchkit's internal threads, in task order.

    For a fixed pair (or a few) of deterministic tasks inside one call, which spend their time in
    code that releases the GIL (numba ``nogil`` kernels, BLAS). They run concurrently whatever
    ``n_jobs`` is, on :func:`benchkit._kernels.boundary_threads.parallel_for`'s pool (at most
    ``NUMBA_NUM_THREADS`` threads; one inside ``limit_threads(1)``). The caller's numba threads are
    shared out between the concurrent tasks (``numba.set_num_threads`` per task thread, restored
    after it): two tasks with a team of two each would oversubscribe the cores (measured 25%
    slower on 2 cores). Nothing a task computes depends on the others or on its thread count, so
    the results equal the serial loop's; BLAS must be pinned to one thread around the call when
    the tasks use it (OpenBLAS's sums depend on its thread count).
    """
    import numba

    from benchkit._kernels.boundary_threads import n_threads
    from benchkit._kernels.boundary_threads import parallel_for

    tasks = list(tasks)
    out: list[Any] = [None] * len(tasks)
    share = max(1, numba.get_num_threads() // max(1, min(n_threads(), len(tasks))))

    def run(c: int) -> None:
        own = numba.get_num_threads()
        numba.set_num_threads(min(own, share))
        try:
            out[c] = fn(*tasks[c])
        finally:
            numba.set_num_threads(own)

    parallel_for(run, len(tasks))
    return out


def block_bounds(total: int, block_size: int) -> list[tuple[int, int]]:
    """``[(start, stop), ...]`` of the fixed-size blocks covering ``range(total)``."""
    total = int(total)
    block_size = int(block_size)
    if block_size < 1:
        raise BenchkitValueError(f"block_size must be >= 1, got {block_size}")
    return [(s, min(total, s + block_size)) for s in range(0, total, block_size)]


def blocked_map(fn: Callable[..., Any], total: int, *, rng: Any, block_size: int,
                args: tuple = (), n_jobs: Any = None, progress: bool = False,
                desc: str | None = None, name: str = "rng", prefer: str | None = None) -> list[Any]:
    """Run ``fn(seed_b, start, stop, *args)`` for every fixed-size block of ``total`` replicates.

    Parameters
    ----------
    fn : callable
        ``fn(seed, start, stop, *args)``; ``seed`` is the block's own SeedSequence (make its
        Generator with ``numpy.random.default_rng(seed)``); it computes replicates
        ``start..stop-1``. Must be picklable (a module-level function) for process backends.
    total : int
        Number of replicates.
    rng : None, int, SeedSequence or Generator
        The user's ``rng`` (:mod:`benchkit._random`; a Generator is consumed).
    block_size : int
        Replicates per block; a constant of the calling function, never derived from ``n_jobs``.
    args : tuple
        Extra positional arguments passed to every block (shipped to each worker).
    n_jobs : None or int
        joblib workers (None: ``joblib.parallel_config``'s default, serial outside a context).
    progress : bool
        Show a tqdm bar over blocks.
    prefer : {None, "threads", "processes"}
        joblib's soft backend hint (see :func:`parallel_map`): ``"threads"`` for blocks that run
        in GIL-free numba kernels, so large ``args`` are shared instead of shipped to processes.

    Returns
    -------
    list
        ``fn``'s results in block order.
    """
    total = int(total)
    if total < 0:
        raise BenchkitValueError(f"the number of replicates must be >= 0, got {total}")
    bounds = block_bounds(total, block_size)
    seeds = spawn(rng, len(bounds), name)
    tasks = [(s, a, b, *args) for s, (a, b) in zip(seeds, bounds)]
    return parallel_map(fn, tasks, n_jobs=n_jobs, progress=progress, desc=desc, prefer=prefer)


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _bar(total: int, progress: bool, desc: str | None):
    if not progress or total <= 1:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, leave=False)
