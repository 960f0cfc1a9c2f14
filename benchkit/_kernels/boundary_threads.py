"""A small thread pool for benchkit's nogil numba kernels (BSDProbe kernels).

numba's ``parallel=True`` costs seconds of compile time per kernel and, on a busy 2-core machine,
its thread team can take milliseconds to wake. benchkit's boundary kernels are instead serial,
``nogil=True`` functions over an index range; :func:`parallel_for` runs chunks of the range on a
persistent :class:`concurrent.futures.ThreadPoolExecutor`. Each chunk writes only its own slice
of the outputs (and random streams are seeded per task), so results never depend on the number
of threads.

The thread count is ``numba.config.NUMBA_NUM_THREADS`` (the ``NUMBA_NUM_THREADS`` environment
variable, default the CPU count), lowered with :func:`limit_threads`.
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

__all__ = ["n_threads", "limit_threads", "parallel_for"]

_POOL: ThreadPoolExecutor | None = None
_POOL_SIZE = 0
_LOCK = threading.Lock()
_LOCAL = threading.local()


def n_threads() -> int:
    """Threads used by :func:`parallel_for` in this thread."""
    lim = getattr(_LOCAL, "limit", None)
    if lim is not None:
        return lim
    import numba

    return max(1, int(numba.config.NUMBA_NUM_THREADS))


@contextmanager
def limit_threads(k: int):
    """Use at most ``k`` threads inside the block (per calling thread)."""
    old = getattr(_LOCAL, "limit", None)
    _LOCAL.limit = max(1, int(k))
    try:
        yield
    finally:
        _LOCAL.limit = old


def _pool(k: int) -> ThreadPoolExecutor:
    global _POOL, _POOL_SIZE
    with _LOCK:
        if _POOL is None or _POOL_SIZE < k:
            _POOL = ThreadPoolExecutor(max_workers=k, thread_name_prefix="benchkit-kernel")
            _POOL_SIZE = k
        return _POOL


def parallel_for(fn, nchunks: int, *, threads: int | None = None) -> None:
    """Call ``fn(c)`` for c in range(nchunks), on up to ``threads`` threads (default n_threads()).

    The calling thread works too; exceptions propagate.
    """
    k = n_threads() if threads is None else max(1, int(threads))
    k = min(k, nchunks)
    if k <= 1:
        for c in range(nchunks):
            fn(c)
        return
    nxt = [0]
    lock = threading.Lock()

    def worker():
        while True:
            with lock:
                c = nxt[0]
                nxt[0] += 1
            if c >= nchunks:
                return
            fn(c)

    pool = _pool(k - 1)
    futs = [pool.submit(worker) for _ in range(k - 1)]
    worker()
    for f in futs:
        f.result()
