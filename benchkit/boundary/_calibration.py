"""Frozen calibration tables for the order-consistency score o (BSDProbe App. D.3, Eq. 17-19).

A :class:`CalibrationTable` stores, for one (n, T), the upper envelope over a finite reference
family of the null tail of D, at every attainable value of D seen in the simulation (or, in the
exact mode, at every attainable value). Looking up a score is a binary search: no simulation.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from benchkit._budget import check_memory
from benchkit._budget import check_time
from benchkit._parallel import check_n_jobs
from benchkit._parallel import parallel_map
from benchkit._random import seed_sequence
from benchkit._results import result
from benchkit._validation import BenchkitError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_int
from benchkit._validation import describe

__all__ = [
    "TABLE_VERSION",
    "CalibrationTable",
    "reference_family",
    "build_calibration",
]

TABLE_VERSION = 1
DEFAULT_B = 200_000
DEFAULT_SEED = 42
_FLAT_LEVELS = (0.02,) + tuple(round(0.05 * j, 2) for j in range(1, 20)) + (0.98,)
_PAIR_LEVELS = (0.02, 0.15, 0.30, 0.45, 0.55, 0.70, 0.85, 0.98)


def reference_family(n: int) -> np.ndarray:
    """The documented monotone reference family Theta_ref for n models (App. D.3).

    The order-consistency score maximizes a null tail probability over monotone correctness
    vectors; the shipped tables take that maximum over this finite family.

    Parameters
    ----------
    n : int
        Models on the axis (at least 2).

    Returns
    -------
    ndarray (21 + 28 (n + 1), n)
        One non-decreasing vector in [0, 1] per row; for n = 6 that is the paper's 217 vectors.

    Notes
    -----
    The paper names the family's kinds (flat, linearly increasing, piecewise-constant) and its size
    for n = 6 (217), not its members; benchkit's reading is:

    * 21 flat vectors at 0.02, 0.05, 0.10, ..., 0.95, 0.98;
    * for each of the 28 pairs lo < hi from the levels (0.02, 0.15, 0.30, 0.45, 0.55, 0.70, 0.85,
      0.98): the linear ramp lo + (hi - lo) s_i; the n - 1 single steps (lo before position j,
      hi from j on, j = 1..n-1); and one two-step lo / (lo+hi)/2 / hi with changes at the thirds
      of the axis (i < n/3, i < 2n/3).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. D.3 (a prespecified finite family of 217 monotone vectors for n = 6).

    Examples
    --------
    >>> from benchkit.boundary.steps import reference_family
    >>> reference_family(6).shape
    (217, 6)
    """
    n = check_int("n", n, min=2)
    s = np.arange(n) / (n - 1)
    rows = [np.full(n, p) for p in _FLAT_LEVELS]
    idx = np.arange(n)
    for a, lo in enumerate(_PAIR_LEVELS):
        for hi in _PAIR_LEVELS[a + 1:]:
            rows.append(lo + (hi - lo) * s)
            for j in range(1, n):
                rows.append(np.where(idx < j, lo, hi).astype(np.float64))
            rows.append(np.where(idx < n / 3, lo, np.where(idx < 2 * n / 3, (lo + hi) / 2, hi)))
    return np.array(rows, dtype=np.float64)


@result
class CalibrationTable:
    """Calibration of the order-consistency score o for one (n, T) (App. D, Eq. 17-19).

    An item's order-consistency score is the largest probability, over monotone correctness
    vectors, of a likelihood-ratio statistic at least as large as the item's D; small scores mean
    the item's reversals along the axis are hard to explain by sampling noise. A table stores that
    tail function once for every attainable D, so scoring an item is a lookup (:meth:`score`).
    Tables are read with :func:`~benchkit.boundary.steps.get_calibration` (shipped for n = 3..8
    and T in {5, 10, 15, 20, 25, 50}), simulated with
    :func:`~benchkit.boundary.steps.build_calibration` or enumerated exactly with
    :func:`~benchkit.boundary.steps.exact_calibration`.

    Parameters
    ----------
    n, T, method, n_resamples, rng, block_size, reference, atoms, tail, argmax
        The fields below (see Attributes).
    version, rng_entropy
        See Attributes.

    Attributes
    ----------
    n : int
        Number of models on the axis.
    T : int
        Responses per model and item.
    method : {"monte-carlo", "exact"}
        "monte-carlo": the paper's finite-reference simulation (Eq. 19); "exact": tails computed by
        enumerating all (T+1)^n count vectors (Eq. 17 over the family, no Monte Carlo error).
    n_resamples : int
        Simulations per reference vector, the paper's B (200,000 in the shipped tables; 0 in the
        exact mode). The smallest Monte Carlo score is 1/(B+1).
    rng : int or None
        Root seed of the simulation (``SeedSequence(rng)``; child a of it seeds vector a, whose
        children seed its blocks of ``block_size`` draws); None in the exact mode or when the table
        was built from a Generator / spawned SeedSequence. Stored as ``"B"`` and ``"seed"`` in the
        table files (the shipped tables' keys).
    block_size : int
        Draws per independently seeded block (0 in the exact mode).
    reference : ndarray (r, n)
        The reference vectors theta (non-decreasing rows in [0, 1]).
    atoms : ndarray of int64
        Sorted keys rho(D) = rint(1e10 D) of the null statistics at which the tail function
        changes (atoms whose tail equals the next atom's are dropped; lookups are unaffected).
    tail : ndarray
        Monte Carlo: max over theta of #{b : rho(D*_theta^(b)) >= atom} (int64). Exact: max over
        theta of P_theta(D >= atom) (float64).
    argmax : ndarray of int32
        Index of the reference vector attaining the maximum at each atom.
    version : int
        Table format / family version (``TABLE_VERSION``).
    rng_entropy : int or None
        Entropy of the root :class:`numpy.random.SeedSequence` the simulation drew from:
        ``build_calibration(n, T, rng=table.rng_entropy, ...)`` rebuilds the table exactly (an int
        also for ``rng=None`` or a Generator). The seed for shipped and cached tables; None for
        exact tables (no randomness).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. D.2-D.3, Eq. (17)-(19).

    Examples
    --------
    >>> from benchkit.boundary.steps import get_calibration
    >>> table = get_calibration(6, 20)          # shipped: the paper's B = 200,000, seed 42
    >>> table.n_resamples, table.rng, table.rng_entropy
    (200000, 42, 42)
    >>> table.score([0.0, 2.0, 8.0]).round(4)   # o for D = 0 (monotone counts), 2 and 8
    array([1.    , 0.7869, 0.1183])
    >>> round(table.critical_value(alpha=0.05), 4)  # items with D >= d_alpha are flagged
    10.1795
    """

    n: int
    T: int
    method: str
    n_resamples: int
    rng: int | None
    block_size: int
    reference: np.ndarray
    atoms: np.ndarray
    tail: np.ndarray
    argmax: np.ndarray
    version: int = TABLE_VERSION
    rng_entropy: int | None = None

    # -- lookup -----------------------------------------------------------------------------
    def score_keys(self, keys: np.ndarray) -> np.ndarray:
        """Scores for integer keys rho(D) (see :meth:`score`)."""
        keys = np.asarray(keys, dtype=np.int64)
        idx = np.searchsorted(self.atoms, keys, side="left")
        inside = idx < self.atoms.shape[0]
        safe = np.minimum(idx, self.atoms.shape[0] - 1)
        if self.method == "exact":
            return np.where(inside, self.tail[safe], 0.0).astype(np.float64)
        count = np.where(inside, self.tail[safe], 0)
        return (1.0 + count) / (self.n_resamples + 1.0)

    def score(self, D: np.ndarray) -> np.ndarray:
        """Order-consistency scores o for statistics D (Eq. 19; exact mode: Eq. 17 over the family).

        Monte Carlo: max_theta (1 + #{rho(D*) >= rho(D)}) / (B + 1), so the minimum is 1/(B+1) and
        D = 0 gives 1. Exact: max_theta P_theta(D* >= D).
        """
        D = np.asarray(D, dtype=np.float64)
        return self.score_keys(np.rint(D * 1e10).astype(np.int64))

    @property
    def min_score(self) -> float:
        """Floor of the score formula: 1/(B+1) (Monte Carlo, Eq. 19), 0 (exact)."""
        return 1.0 / (self.n_resamples + 1.0) if self.method == "monte-carlo" else 0.0

    @property
    def min_attainable_o(self) -> float:
        """The smallest score o any count vector can get at this (n, T).

        The score of the largest null statistic in the table.

        When it exceeds alpha_o no item can be flagged at that level (for n = 6, T = 1 it is
        0.078 with the exact table). The Monte Carlo tables only know the statistics seen in
        their simulations; use an exact table (``exact_calibration``) for a certain answer.
        """
        return float(self.score_keys(self.atoms[-1:])[0])

    def critical_value(self, *, alpha: float = 0.05) -> float:
        """d_alpha (Eq. 18): the smallest statistic D with Q(D) <= alpha.

        ``o <= alpha`` holds exactly when ``rho(D) >= rho(d_alpha)`` (rho the ten-decimal
        rounding), so Pr_theta(o <= alpha) = Pr_theta(D >= d_alpha) <= alpha under the null
        (exact table). Returns ``inf`` when no attainable statistic reaches alpha (the rejection
        set is empty, App. D.2).

        Notes
        -----
        The table stores only the atoms where Q drops; Q is constant from just above one stored
        atom up to the next. d_alpha is returned on the ten-decimal grid of rho: the first grid
        point above the last stored atom with Q > alpha. The paper's d_alpha, the smallest
        attainable statistic with Q <= alpha, is the first attainable D at or above it; both give
        the same rejection set {D : o <= alpha}.
        """
        from benchkit._validation import check_probability

        alpha = check_probability("alpha", alpha)
        o = self.score_keys(self.atoms)
        ok = np.flatnonzero(o <= alpha)
        if ok.size == 0:
            return float("inf")
        j = int(ok[0])
        if j == 0:
            return 0.0
        return float((self.atoms[j - 1] + 1) / 1e10)

    def to_frame(self) -> pd.DataFrame:
        """One row per atom: D, score o at that D, and the maximizing reference vector."""
        return pd.DataFrame(
            {
                "D": self.atoms / 1e10,
                "key": self.atoms,
                "o": self.score_keys(self.atoms),
                "argmax_reference": self.argmax,
            }
        )

    def references_frame(self) -> pd.DataFrame:
        """The reference vectors, one row each (columns theta_1..theta_n)."""
        return pd.DataFrame(self.reference, columns=[f"theta_{i + 1}" for i in range(self.n)])

    # -- persistence ------------------------------------------------------------------------
    def metadata(self) -> dict:
        return {
            "n": self.n, "T": self.T, "method": self.method, "B": self.n_resamples, "seed": self.rng,
            "block_size": self.block_size, "version": self.version,
            "rounding": "rint(D * 1e10)", "family": "benchkit.boundary.steps.reference_family"
            if self.reference.shape[0] == reference_family(self.n).shape[0]
            and np.array_equal(self.reference, reference_family(self.n)) else "custom",
        }

    def save(self, path: str | os.PathLike) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        atoms = self.atoms
        deltas = np.diff(atoms, prepend=np.int64(0))
        tail = self.tail.astype(np.int64) if self.method == "monte-carlo" else self.tail
        tmp = path.with_name(path.name + f".tmp{os.getpid()}.npz")
        np.savez_compressed(
            tmp, meta=np.array(json.dumps(self.metadata())), reference=self.reference,
            atom_deltas=deltas, tail=tail, argmax=self.argmax.astype(np.int16),
        )
        tmp.replace(path)
        return path

    @classmethod
    def load(cls, path: str | os.PathLike) -> CalibrationTable:
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                atoms = np.cumsum(z["atom_deltas"]).astype(np.int64)
                return cls(
                    n=meta["n"], T=meta["T"], method=meta["method"], n_resamples=meta["B"],
                    rng=meta["seed"], block_size=meta["block_size"], reference=z["reference"],
                    atoms=atoms, tail=z["tail"], argmax=z["argmax"].astype(np.int32),
                    version=meta["version"], rng_entropy=meta["seed"],
                )
        except BenchkitError:
            raise
        except Exception as exc:  # a truncated / corrupted file: zipfile, zlib, json, KeyError...
            raise BenchkitValueError(
                f"calibration table {str(path)!r} is corrupted or not a benchkit table "
                f"({type(exc).__name__}: {exc}); delete it (get_calibration rebuilds and re-caches it)"
            ) from None


def _breakpoints(atoms, tail, arg):
    """Keep only atoms where the (non-increasing) tail drops at the next atom; lookups unchanged.

    A query between two kept atoms finds the next kept atom, whose tail equals that of every
    dropped atom before it.
    """
    keep = np.ones(atoms.shape[0], dtype=bool)
    if atoms.shape[0] > 1:
        keep[:-1] = tail[:-1] != tail[1:]
    return atoms[keep], tail[keep], arg[keep]


def _check_reference(reference, n: int | None) -> np.ndarray:
    ref = check_array("reference", reference, ndim=2, dtype="float", min_size=1)
    if n is not None and ref.shape[1] != n:
        raise BenchkitValueError(f"reference must have n={n} columns; got shape {ref.shape}")
    if np.any(ref < 0) or np.any(ref > 1):
        raise BenchkitValueError("reference vectors must lie in [0, 1]")
    if np.any(np.diff(ref, axis=1) < 0):
        bad = int(np.flatnonzero(np.any(np.diff(ref, axis=1) < 0, axis=1))[0])
        raise BenchkitValueError(
            f"reference vectors must be non-decreasing (the monotone null M_n); row {bad} is "
            f"{describe(ref[bad].tolist())}"
        )
    return ref


# Cost model of the tables that grow with T (measured on the 2-core test machines; rough estimates,
# checked against the resource budget before building): an entry of the h tables (a Python loop)
# or of the binomial alias tables (scipy's binom.pmf) takes 0.7-1.2 us; one model's count in one
# simulated vector 0.2 us while the h(F / (T lcm)) table fits in cache (217 x 200,000 vectors of
# n = 6, T = 100 in 51 s), 0.7 us beyond (T = 1000: 145 s); an alias entry holds ~40 bytes while
# it is built (pmf, its normalized copy, prob, alias).
_SECONDS_PER_ENTRY = 1e-6
_ALIAS_BYTES = 40


def statistic_cost(n: int, T: int) -> tuple[float, float]:
    """(bytes, seconds) of :func:`benchkit._kernels.lrt.lr_statistic`'s h tables for (n, T).

    It tabulates h(S / (T L)) for block lengths L <= n: (n + 1)(n T + 1) floats, n (n + 1) T / 2
    of them computed one by one.
    """
    return 8.0 * (n + 1) * (n * T + 1), (T + 1 + n * (n + 1) / 2 * T) * _SECONDS_PER_ENTRY


def build_cost(n: int, T: int, nref: int, n_resamples: int, chunk: int = 16,
               n_jobs=None) -> tuple[float, float]:
    """(bytes, seconds) of :func:`build_table` (see the cost model above)."""
    from joblib import effective_n_jobs

    from benchkit._kernels.pava import lcm_upto

    nchunks = -(-nref // chunk)
    lcm = lcm_upto(n)
    workers = 1 if n_jobs in (None, 1) else max(1, min(nchunks, effective_n_jobs(n_jobs)))
    memory = workers * (8.0 * T * lcm + _ALIAS_BYTES * chunk * n * (T + 1.0) + 8.0 * chunk * n_resamples)
    per_draw = 2e-7 if T * lcm <= 32_768 else 7e-7
    seconds = (nchunks * (T * lcm + chunk * n * (T + 1.0)) * _SECONDS_PER_ENTRY
               + nref * n_resamples * n * per_draw)
    return memory, seconds


def check_cost(what: str, memory: float, seconds: float) -> None:
    """Refuse ``what`` when its (bytes, seconds) estimate exceeds the resource budget."""
    hint = ("the boundary tables grow with the sample budget T (h(F / (T lcm)), binomial alias tables and "
            "gamma have about T entries per model, pair or reference vector)")
    check_memory(what, memory, hint=hint)
    check_time(what, seconds, hint=hint)


def _simulate_chunk(theta, T, n_resamples, seeds, block_size, threads):
    from contextlib import nullcontext

    from benchkit._kernels import lrt
    from benchkit._kernels.boundary_threads import limit_threads

    with limit_threads(threads) if threads is not None else nullcontext():
        keys = lrt.simulate_keys(theta, T, n_resamples, seeds, block_size=block_size)
        return lrt.distinct_counts(keys)


def build_calibration(n: int, T: int, *, n_resamples: int = DEFAULT_B, rng=DEFAULT_SEED,
                      reference=None, n_jobs: int | None = None, block_size: int = 25_000,
                      chunk: int = 16, progress: bool = False) -> CalibrationTable:
    """Simulate a Monte Carlo calibration table (App. D.3, Eq. 19).

    For each monotone reference vector theta, ``n_resamples`` count vectors k_i ~ Binomial(T,
    theta_i) are drawn and their statistics D* recorded; the table keeps, at every attainable D,
    the largest count of simulated D* >= D over the family. This is how the paper's frozen tables
    were made; :func:`get_calibration` reads the shipped ones.

    Parameters
    ----------
    n : int
        Models on the axis.
    T : int
        Responses per model.
    n_resamples : int, default 200,000
        Simulated count vectors per reference vector (the paper's B).
    rng : None, int, SeedSequence or Generator, default 42
        Root of the simulation (the paper's seed 42; :mod:`benchkit._random`, a Generator is
        consumed). Draws are seeded per (vector, block): child b of child a of the root seeds
        block b of vector a, so the table does not depend on ``n_jobs``, ``chunk`` or the number
        of numba threads, and ``rng=42`` rebuilds the shipped tables bit for bit.
    reference : array (r, n), optional
        Monotone reference vectors; default :func:`reference_family` (217 vectors for n = 6).
    n_jobs : int, optional
        ``None`` or 1: one process, kernels on benchkit's thread pool (``NUMBA_NUM_THREADS``
        threads). Otherwise chunks of vectors run through :func:`benchkit._parallel.parallel_map`
        (each worker single-threaded); honours ``joblib.parallel_config`` (e.g. a Dask backend).
    block_size : int, default 25,000
        Draws per seeded block.
    chunk : int, default 16
        Reference vectors per task.
    progress : bool, default False
        Show a progress bar over chunks of reference vectors.

    Returns
    -------
    CalibrationTable
        ``method="monte-carlo"``; ``rng_entropy`` repeats the build exactly.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. D.3, Eq. (19).

    Examples
    --------
    >>> from benchkit.boundary.steps import build_calibration
    >>> table = build_calibration(3, 5, n_resamples=2000, rng=1)
    >>> table.min_score            # 1 / (B + 1)
    0.0004997501249375312
    >>> table.score([0.0, 2.0]).round(4)
    array([1.    , 0.2749])
    """
    from threadpoolctl import threadpool_limits

    from benchkit._kernels import lrt

    n = check_int("n", n, min=2)
    T = check_int("T", T, min=1)
    n_resamples = check_int("n_resamples", n_resamples, min=1)
    n_jobs = check_n_jobs(n_jobs)
    root = seed_sequence(rng)
    block_size = check_int("block_size", block_size, min=1)
    chunk = check_int("chunk", chunk, min=1)
    ref = reference_family(n) if reference is None else _check_reference(reference, n)
    nref = ref.shape[0]
    check_cost(f"building the Monte Carlo calibration table for n={n}, T={T:,} ({nref} reference vectors x "
               f"B={n_resamples:,})", *build_cost(n, T, nref, n_resamples, chunk, n_jobs))
    nblocks = (n_resamples + block_size - 1) // block_size
    seeds = lrt.block_seeds(root, nref, nblocks)
    parts = [(s, min(nref, s + chunk)) for s in range(0, nref, chunk)]
    threads = None if n_jobs in (None, 1) else 1
    tasks = [(ref[a:b], T, n_resamples, seeds[a * nblocks:b * nblocks], block_size, threads)
             for a, b in parts]
    with threadpool_limits(limits=1, user_api="blas"):
        results = parallel_map(_simulate_chunk, tasks, n_jobs=n_jobs, progress=progress,
                               desc="calibration")
    ukeys = [u for r in results for u in r[0]]
    ucounts = [c for r in results for c in r[1]]
    atoms = np.unique(np.concatenate(ukeys))
    offsets = np.zeros(nref + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([u.shape[0] for u in ukeys])
    env = np.empty(atoms.shape[0], dtype=np.int64)
    arg = np.empty(atoms.shape[0], dtype=np.int64)
    lrt.envelope_counts(atoms, np.concatenate(ukeys), np.concatenate(ucounts), offsets, env, arg)
    atoms, env, arg = _breakpoints(atoms, env, arg)
    root_int = root.entropy if isinstance(root.entropy, int) and not root.spawn_key else None
    if isinstance(rng, np.random.Generator):
        root_int = None  # drawn from a Generator: not reproducible from the stored int
    return CalibrationTable(n=n, T=T, method="monte-carlo", n_resamples=n_resamples,
                            rng=root_int, block_size=block_size, reference=ref, atoms=atoms,
                            tail=env, argmax=arg.astype(np.int32), rng_entropy=root.entropy)
