"""The one way a user's ``rng`` becomes random streams.

Every randomized function in benchkit takes ``rng=`` and passes it here, never to
``numpy.random.default_rng`` directly. The rule, as in scipy (SPEC 7):

- ``None``: fresh OS entropy (not reproducible);
- a non-negative ``int``: ``SeedSequence(rng)``, so the same int always gives the same result;
- a ``numpy.random.SeedSequence``: used as given, spawned from a copy, so passing the same object
  twice gives the same result;
- a ``numpy.random.Generator``: consumed. 128 bits drawn from it become the root's integer
  entropy, so the Generator advances and a second call with it gives new draws.

A randomized result records the entropy of the root it used in a field ``rng_entropy``
(``seed_sequence(rng).entropy``: an int for None, an int and a Generator), so passing
``rng=result.rng_entropy`` repeats the run exactly. (A SeedSequence given with a spawn key or a
sequence of words as entropy is repeated by passing that SeedSequence again.) A function that records
it resolves ``root = seed_sequence(rng)`` once and draws only from ``root`` (``spawn(root, n)``,
``generator(root)``, ``blocked_map(..., rng=root)``): each of those copies a SeedSequence, so the
draws are the same as when given ``rng`` itself.

Randomized work is cut into fixed-size blocks and block ``b`` draws from child ``b`` of the root
(:func:`spawn`), so results do not depend on how blocks are spread over workers
(:mod:`benchkit._parallel`).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import describe

__all__ = ["seed_sequence", "spawn", "generator", "check_rng"]

_ALLOWED = "None, a non-negative int, a numpy SeedSequence or a numpy Generator"


def check_rng(rng: Any, name: str = "rng") -> None:
    """Raise a clear error unless ``rng`` is one of the accepted forms."""
    if rng is None or isinstance(rng, (np.random.SeedSequence, np.random.Generator)):
        return
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        if int(rng) < 0:
            raise BenchkitValueError(f"{name}={int(rng)} must be a non-negative integer")
        return
    raise BenchkitTypeError(f"{name} must be {_ALLOWED}; got {describe(rng)}")


def seed_sequence(rng: Any, name: str = "rng") -> np.random.SeedSequence:
    """The root :class:`numpy.random.SeedSequence` of ``rng`` (see the module docstring).

    A SeedSequence is returned as a fresh copy (same entropy, spawn key and pool size), so spawning
    from the result never changes the caller's object; a Generator is consumed.
    """
    check_rng(rng, name)
    if isinstance(rng, np.random.SeedSequence):
        return np.random.SeedSequence(rng.entropy, spawn_key=rng.spawn_key, pool_size=rng.pool_size)
    if isinstance(rng, np.random.Generator):
        return np.random.SeedSequence(int.from_bytes(rng.bytes(16), "little"))
    if rng is None:
        return np.random.SeedSequence()
    return np.random.SeedSequence(int(rng))


def spawn(rng: Any, n: int, name: str = "rng") -> list[np.random.SeedSequence]:
    """``n`` independent children of the root of ``rng``; child ``b`` seeds block ``b``."""
    return seed_sequence(rng, name).spawn(int(n))


def generator(rng: Any, name: str = "rng") -> np.random.Generator:
    """A :class:`numpy.random.Generator` for serial draws.

    A Generator is returned as is (consumed by the caller's draws, as in scipy); anything else is
    turned into ``default_rng(seed_sequence(rng))``.
    """
    check_rng(rng, name)
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(seed_sequence(rng, name))
