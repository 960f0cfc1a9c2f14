"""The explorers' per-view cache: a bounded least-recently-used store of computed views.

Rule 2 of :mod:`benchkit.widgets._base`: :meth:`BenchkitWidget.cached` memoizes a view's
computation under a key in a :class:`ViewCache`, so going back to a view never recomputes it.
Re-exported by :mod:`benchkit.widgets._base`.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from collections.abc import Hashable
from typing import Any

from benchkit._validation import check_int

__all__ = ["ViewCache"]


class ViewCache:
    """A bounded least-recently-used cache of per-view results (see :meth:`BenchkitWidget.cached`).

    Parameters
    ----------
    maxsize : int
        Most entries kept (the least recently used goes first).
    """

    def __init__(self, maxsize: int = 256) -> None:
        self.maxsize = check_int("maxsize", maxsize, min=1)
        self._d: OrderedDict[Hashable, Any] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __contains__(self, key: Hashable) -> bool:
        return key in self._d

    def __len__(self) -> int:
        return len(self._d)

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The cached value of ``key``, computing (and storing) it with ``compute()`` if absent."""
        if key in self._d:
            self.hits += 1
            self._d.move_to_end(key)
            return self._d[key]
        self.misses += 1
        value = compute()
        self._d[key] = value
        while len(self._d) > self.maxsize:
            self._d.popitem(last=False)
        return value

    def peek(self, key: Hashable, default: Any = None) -> Any:
        """The cached value of ``key`` or ``default`` (never computes)."""
        return self._d.get(key, default)

    def put(self, key: Hashable, value: Any) -> None:
        self._d[key] = value
        self._d.move_to_end(key)
        while len(self._d) > self.maxsize:
            self._d.popitem(last=False)

    def clear(self) -> None:
        self._d.clear()

