"""The anchor-fraction refits of the primary audit (paper 001, Table 5), run in the background.

Each refit is :func:`benchkit.dif.steps.purify` of one owner half at another anchor fraction, with
no final refit. It needs only that half's responses, its K and its standardization, so
:class:`AlphaRefits` takes a half's refits as soon as :func:`benchkit.dif.steps.cross_fit` has
purified the half (its ``on_half_done`` hook) and runs them on background threads while the audit
goes on: beside the other half's cross-fit, then beside the resampling stages. The refits advance
one purification round at a time, the one with the most rounds left first, so they progress
together; when the calling thread asks for the result it runs rounds too, and the two threads end
within about a round of each other. Every round is a fixed deterministic computation on one BLAS
and one numba thread, so the results equal a serial :func:`purify` whatever ran where.
"""
from __future__ import annotations

import inspect
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from benchkit.dif._anchors import _purify_rounds
from benchkit.dif._anchors import purify
from benchkit.irt._spectral import _one_blas_thread

__all__ = ["AlphaRefits"]

# The refits run purify with its own defaults for everything but the anchor fraction (as before)
_SETTINGS = {k: p.default for k, p in inspect.signature(purify).parameters.items()
             if k in ("rounds", "n_strata", "ridge", "n_iter")}


class _Refit:
    """One refit: its round generator, the rounds it has left, whether a thread holds it."""

    def __init__(self, index: int, steps, rounds: int):
        self.index, self.steps, self.left, self.busy, self.value = index, steps, rounds, False, None


class AlphaRefits:
    """Queue and run the refits of ``fractions`` in both owner halves.

    ``seeds[2 k + h]`` seeds fraction ``k`` in half ``h``. :meth:`half_done` (the cross-fit's hook,
    called from the half's thread) queues that half's refits and starts the workers;
    :attr:`main_threads` is the numba thread count the calling thread keeps meanwhile;
    :meth:`result` runs rounds in the calling thread until every refit is done and returns the
    fits in the order ``[(k, h) for k in fractions for h in (0, 1)]``; :meth:`close` stops early
    (an error elsewhere) and restores BLAS. BLAS stays pinned to one thread from construction to
    :meth:`close`: threads share that setting, and OpenBLAS's sums depend on it.
    """

    def __init__(self, source, fractions: Sequence[float], seeds: Sequence[Any]):
        import numba

        from benchkit._kernels.boundary_threads import n_threads

        self._source = source
        self._fractions, self._seeds = tuple(fractions), tuple(seeds)
        self._refits: list[_Refit] = []
        self._cond = threading.Condition()
        self._waiting = 2 if self._fractions else 0  # halves not yet handed over
        self._stopped = False
        self._errors: list[BaseException] = []
        self._threads: list[threading.Thread] = []
        self._n_workers = max(1, min(2 * len(self._fractions), n_threads() // 2))
        self._cores = numba.get_num_threads()
        self._pin = _one_blas_thread()  # applied now; restored by close()
        self._open = True

    @property
    def main_threads(self) -> int:
        """Numba threads left to the calling thread while the workers run."""
        return max(1, self._cores - self._n_workers) if self._fractions else self._cores

    def half_done(self, h: int, Yh: np.ndarray, fam_h: np.ndarray, K: int,
                  standardized: tuple) -> None:
        """Queue half ``h``'s refits: its responses and families, its K, ``standardize(Yh)``."""
        if not self._fractions:
            return
        with self._cond:
            for k, a in enumerate(self._fractions):
                i = 2 * k + h
                steps = _purify_rounds(Yh, fam_h, self._source, K=int(K), anchor_fraction=a,
                                       refit=False, standardized=standardized, rng=self._seeds[i],
                                       **_SETTINGS)
                self._refits.append(_Refit(i, steps, _SETTINGS["rounds"]))
            self._waiting -= 1
            if not self._threads and not self._stopped:
                for w in range(self._n_workers):
                    t = threading.Thread(target=self._work, name=f"benchkit-alpha-refits-{w}",
                                         daemon=True)
                    self._threads.append(t)
                    t.start()
            self._cond.notify_all()

    def _take(self) -> _Refit | None:
        """The free refit with the most rounds left (then the lowest index).

        None when all are done or stopped; waits while every unfinished refit is held by another
        thread.
        """
        with self._cond:
            while not self._stopped:
                free = [r for r in self._refits if r.left > 0 and not r.busy]
                if free:
                    r = max(free, key=lambda r: (r.left, -r.index))
                    r.busy = True
                    return r
                if self._waiting == 0 and all(r.left == 0 for r in self._refits):
                    return None
                self._cond.wait()
            return None

    def _advance(self, r: _Refit) -> None:
        """One round of ``r`` (on one BLAS thread), then hand it back."""
        try:
            with _one_blas_thread():
                try:
                    next(r.steps)
                except StopIteration as done:
                    r.value = done.value
        except BaseException as e:  # handed to the calling thread by result()
            with self._cond:
                self._errors.append(e)
                self._stopped = True
                self._cond.notify_all()
            return
        with self._cond:
            r.left -= 1
            r.busy = False
            self._cond.notify_all()

    def _work(self) -> None:
        import numba

        numba.set_num_threads(1)
        while (r := self._take()) is not None:
            self._advance(r)

    def result(self) -> list:
        """Run rounds in this thread until every refit is done; the fits in task order."""
        import numba

        own = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            while (r := self._take()) is not None:
                self._advance(r)
        finally:
            numba.set_num_threads(own)
            self.close()
        if self._errors:
            raise self._errors[0]
        return [r.value for r in sorted(self._refits, key=lambda r: r.index)]

    def close(self) -> None:
        """Stop taking rounds, wait for the running ones and restore BLAS (idempotent)."""
        if not self._open:
            return
        self._open = False
        with self._cond:
            self._stopped = True  # running rounds finish; the rest (an error elsewhere) is dropped
            self._cond.notify_all()
        for t in self._threads:
            t.join()
        self._pin.restore_original_limits()
