"""Frozen calibration tables for the order-consistency score o (BSDProbe App. D.3, Eq. 17-19).

A :class:`CalibrationTable` stores, for one (n, T), the upper envelope over a finite reference
family of the null tail of D, at every attainable value of D seen in the simulation (or, in the
exact mode, at every attainable value). Looking up a score is a binary search: no simulation.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

from benchkit._budget import check_memory
from benchkit._budget import check_time
from benchkit._parallel import check_n_jobs
from benchkit._parallel import parallel_map
from benchkit._random import check_rng
from benchkit._random import seed_sequence
from benchkit._results import result
from benchkit._validation import BenchkitError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_choice
from benchkit._validation import check_int
from benchkit._validation import describe

__all__ = [
    "TABLE_VERSION",
    "SHIPPED_N",
    "SHIPPED_T",
    "CalibrationTable",
    "reference_family",
    "build_calibration",
    "exact_calibration",
    "get_calibration",
    "table_path",
    "min_attainable_o",
    "exact_reference_tails",
    "compare_with_exact",
]

TABLE_VERSION = 1
SHIPPED_N = tuple(range(3, 9))
SHIPPED_T = (5, 10, 15, 20, 25, 50)
DEFAULT_B = 200_000
DEFAULT_SEED = 42
_FLAT_LEVELS = (0.02,) + tuple(round(0.05 * j, 2) for j in range(1, 20)) + (0.98,)
_PAIR_LEVELS = (0.02, 0.15, 0.30, 0.45, 0.55, 0.70, 0.85, 0.98)
_DATA = Path(__file__).with_name("data")


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


def table_available(n: int, T: int) -> bool:
    """True when :func:`get_calibration` (n, T) with the default B and seed needs no simulation."""
    name = table_path(n, T)
    return (("monte-carlo", n, T, DEFAULT_B, DEFAULT_SEED) in _MEMO or (_DATA / name).is_file()
            or (_cache_dir() / name).is_file())


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


def exact_calibration(n: int, T: int, *, reference=None, flat_levels: int = 201,
                      max_vectors: int = 100_000_000, block: int = 32,
                      progress: bool = False) -> CalibrationTable:
    """Exact calibration by enumerating all (T+1)^n count vectors (beyond the paper).

    Parameters
    ----------
    n : int
        Models on the axis.
    T : int
        Responses per model.
    reference : array (r, n), optional
        Monotone reference vectors; default :func:`reference_family`.
    flat_levels : int, default 201
        Flat vectors on an even grid of [0, 1] added to the family (0: the family alone, which is
        what the Monte Carlo tables use).
    max_vectors : int, default 100,000,000
        Refuse larger enumerations. The paper's n = 6, T = 20 is 21^6 = 85,766,121 vectors:
        about 1.4 GB of working memory (keys and atom index) plus (number of atoms) x ``block``
        x 8 bytes per thread (about 1M atoms there: 256 MB per thread for block = 32).
    block : int, default 32
        Reference vectors accumulated together (the memory / speed trade-off above).
    progress : bool, default False
        Progress bar over blocks of reference vectors.

    Returns
    -------
    CalibrationTable
        ``method="exact"``; ``tail`` is max over theta of P_theta(D* >= atom) (float64).

    Notes
    -----
    The score at d is max over theta of P_theta(D* >= d) (Eq. 17 over the finite family), computed
    exactly up to float64 summation for theta in the family plus ``flat_levels`` flat vectors: no
    Monte Carlo error and no add-one correction (Eq. 19's (1 + count) / (B + 1)). With
    ``flat_levels=0`` (the same family) it equals the shipped Monte Carlo tables within 4 standard
    errors at every atom when each Monte Carlo entry is judged by its exact law, the max over the
    family of binomial counts (:func:`compare_with_exact`; n = 6, T = 20: max ``|z|`` 3.47 over
    6,711 atoms). The default adds 201 flat vectors, so its envelope can only be higher than the
    family's. Deterministic and independent
    of the number of threads: every probability mass is summed in the same vector order and the
    per-block envelopes are merged in block order.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. D.2, Eq. (17); App. D.3 (the finite reference family).

    Examples
    --------
    >>> from benchkit.boundary.steps import exact_calibration
    >>> table = exact_calibration(3, 5, flat_levels=0)   # 6^3 = 216 count vectors
    >>> table.method, table.score([0.0, 2.0]).round(4)
    ('exact', array([1.    , 0.2668]))
    """
    from scipy.stats import binom

    from benchkit._kernels import lrt

    n = check_int("n", n, min=2)
    T = check_int("T", T, min=1)
    flat_levels = check_int("flat_levels", flat_levels, min=0)
    max_vectors = check_int("max_vectors", max_vectors, min=1)
    block = check_int("block", block, min=1)
    digits = n * math.log10(T + 1)  # (T+1)^n itself can be too large to print (or to build)
    total = (T + 1) ** n if digits < 30 else None
    if total is None or total > max_vectors:
        shown = f"{total:,}" if total is not None else f"about 10^{digits:,.0f}"
        raise BenchkitValueError(
            f"exact calibration enumerates (T+1)^n = {shown} count vectors for n={n}, T={T}, "
            f"more than max_vectors={max_vectors:,}; use the Monte Carlo table or raise max_vectors"
        )
    fam = reference_family(n) if reference is None else _check_reference(reference, n)
    flats = np.repeat(np.linspace(0.0, 1.0, flat_levels)[:, None], n, axis=1)
    ref = np.vstack([fam, flats]) if flat_levels else fam
    keys = lrt.enumerate_keys(n, T)
    atoms, inv = lrt.group_index(keys)
    del keys
    ks = np.arange(T + 1)
    pmf = binom.pmf(ks[None, None, :], T, ref[:, :, None])
    tail = np.empty(atoms.shape[0], dtype=np.float64)
    arg = np.empty(atoms.shape[0], dtype=np.int64)
    lrt.exact_tail_max_blocked(inv, atoms.shape[0], pmf, n, T, tail, arg, block=block,
                               progress=progress)
    atoms, tail, arg = _breakpoints(atoms, tail, arg)
    return CalibrationTable(n=n, T=T, method="exact", n_resamples=0, rng=None, block_size=0,
                            reference=ref, atoms=atoms, tail=np.minimum(tail, 1.0),
                            argmax=arg.astype(np.int32))


def exact_reference_tails(n: int, T: int, keys, *, reference=None, block: int = 32,
                          max_vectors: int = 100_000_000) -> np.ndarray:
    """Exact P_theta(rho(D*) >= key) for every reference vector theta and every key, by enumeration.

    Parameters
    ----------
    n : int
        Models on the axis.
    T : int
        Responses per model.
    keys : array of int
        Ten-decimal keys rho(d) = rint(1e10 d) of the statistics d at which to evaluate the tails
        (e.g. a Monte Carlo table's ``atoms``).
    reference : array (r, n), optional
        Reference vectors; default :func:`reference_family` (the vectors of the shipped tables).
    block : int, default 32
        Reference vectors accumulated together (one pass over the count vectors per block).
    max_vectors : int, default 100,000,000
        Refuse enumerations of more than this many count vectors.

    Returns
    -------
    ndarray (len(keys), r)
        Column a holds the upper tail of D under theta_a at each key (float64, summed in the
        enumeration order, so independent of the number of threads).

    Notes
    -----
    :func:`exact_calibration` keeps only the upper envelope max_theta; this keeps every vector's tail
    at a few chosen statistics, which is what the distribution of a Monte Carlo table's entries
    needs (:func:`compare_with_exact`). Count vectors are grouped by the interval between
    consecutive keys their statistic falls in, so the work is one pass over the (T+1)^n vectors
    per block of reference vectors whatever the number of keys.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. D.2-D.3, Eq. (17)-(19).

    Examples
    --------
    >>> from benchkit.boundary.steps import exact_reference_tails
    >>> tails = exact_reference_tails(3, 5, [0, 20_000_000_000])   # at D = 0 and D = 2
    >>> tails.shape, tails[:, :3].round(4).tolist()
    ((2, 133), [[1.0, 1.0, 1.0], [0.0826, 0.1605, 0.2275]])
    """
    from benchkit._kernels import lrt
    from benchkit._kernels.boundary_threads import parallel_for

    n = check_int("n", n, min=2)
    T = check_int("T", T, min=1)
    block = check_int("block", block, min=1)
    max_vectors = check_int("max_vectors", max_vectors, min=1)
    total = (T + 1) ** n
    if total > max_vectors:
        raise BenchkitValueError(
            f"exact tails enumerate (T+1)^n = {total:,} count vectors for n={n}, T={T}, more than "
            f"max_vectors={max_vectors:,}"
        )
    keys = check_array("keys", keys, ndim=1, dtype="int")
    ref = reference_family(n) if reference is None else _check_reference(reference, n)
    q, back = np.unique(keys.astype(np.int64), return_inverse=True)
    allk = lrt.enumerate_keys(n, T)
    # group g = number of query keys <= the vector's key: D* >= q[j] <=> group >= j + 1
    inv = np.empty(total, dtype=np.int32)
    ch = 1 << 22
    for c in range(0, total, ch):
        inv[c:c + ch] = np.searchsorted(q, allk[c:c + ch], side="right")
    del allk
    from scipy.stats import binom

    pmf = binom.pmf(np.arange(T + 1)[None, None, :], T, ref[:, :, None])
    r = ref.shape[0]
    nb = (r + block - 1) // block
    mass = np.zeros((q.shape[0] + 1, r), dtype=np.float64)

    def one(b):
        a0, a1 = b * block, min(r, (b + 1) * block)
        pmfT = np.ascontiguousarray(np.transpose(pmf[a0:a1], (1, 2, 0)))
        part = np.zeros((q.shape[0] + 1, a1 - a0), np.float64)
        lrt.exact_mass_blocked(inv, pmfT, n, T, part)
        mass[:, a0:a1] = part

    parallel_for(one, nb)
    tails = np.cumsum(mass[::-1], axis=0)[::-1][1:]  # tails[j] = sum of groups j+1..
    return np.minimum(tails, 1.0)[back.ravel()]


def compare_with_exact(table: CalibrationTable, *, exact_tails=None, min_count: float = 10.0,
                       skip_zero: bool = True) -> pd.DataFrame:
    """Check a Monte Carlo table against the exact null at every one of its atoms.

    Parameters
    ----------
    table : CalibrationTable
        A ``method="monte-carlo"`` table.
    exact_tails : array (atoms, r), optional
        :func:`exact_reference_tails` at ``table.atoms`` for ``table.reference`` (computed when
        not given: full enumeration).
    min_count : float, default 10
        The plain binomial z (``z_binomial``) is marked usable (``normal_ok``) where the expected
        counts B p and B (1 - p) are both at least this (the usual rule for the normal
        approximation to the binomial).
    skip_zero : bool, default True
        Leave out the atom D = 0 (both tails are 1 there).

    Returns
    -------
    DataFrame
        One row per atom: ``D``, ``key``, ``count`` (the table's max over theta of
        #{D* >= D}), ``p_exact`` (max over theta of P_theta(D* >= D)), ``expected`` (B
        ``p_exact``), ``expected_all`` (B times the sum over theta of the tails: the expected
        number of simulated statistics at or above the atom over the whole family),
        ``argmax_exact``, ``argmax_mc``, ``z_binomial`` ((count/B - p_exact) / sqrt(p (1 - p) /
        B), signed), ``normal_ok``, ``p_value`` (exact two-sided p-value of ``count`` under the
        exact distribution of the table's entry) and ``z`` (the normal deviate with the same
        two-sided tail probability, signed like ``z_binomial``).

    Notes
    -----
    A Monte Carlo entry is M = max_theta C_theta, with C_theta ~ Binomial(B, P_theta(D* >= d))
    independent across theta (each vector has its own seeds), so P(M <= c) = prod_theta
    F_theta(c) exactly. Comparing with the plain binomial standard error of the maximizing
    vector alone is wrong in two places: where several vectors have nearly the same tail (the
    max of their counts is biased upwards) and, above all, in the extreme tail, where the
    atoms are chosen by the simulation itself: the table's largest atom is the largest of
    r x B simulated statistics, so its count is at least 1 by construction while B p there is
    about 1 / r (n = 6, T = 20: B p = 0.027, 217 B sum P = 0.75; plain z = 5.9, exact
    two-sided p-value 1, z = 0). ``z`` is the honest "number of standard errors": the
    two-sided tail probability of the observed entry under the exact null of the table, mapped
    to the normal scale.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. D.3 (Monte Carlo uncertainty of the finite-reference score).

    Examples
    --------
    >>> from benchkit.boundary.steps import build_calibration, compare_with_exact
    >>> check = compare_with_exact(build_calibration(3, 5, n_resamples=2000, rng=1))
    >>> len(check), round(float(check["z"].abs().max()), 2)
    (30, 1.7)
    """
    from scipy.stats import binom
    from scipy.stats import norm

    if not isinstance(table, CalibrationTable) or table.method != "monte-carlo":
        raise BenchkitValueError("table must be a Monte Carlo CalibrationTable")
    B = table.n_resamples
    atoms = table.atoms
    if exact_tails is None:
        exact_tails = exact_reference_tails(table.n, table.T, atoms, reference=table.reference)
    P = check_array("exact_tails", exact_tails, ndim=2, dtype="float")
    if P.shape != (atoms.shape[0], table.reference.shape[0]):
        raise BenchkitValueError(
            f"exact_tails must have shape (atoms, reference vectors) = "
            f"{(atoms.shape[0], table.reference.shape[0])}; got {P.shape}"
        )
    keep = atoms > 0 if skip_zero else np.ones(atoms.shape[0], dtype=bool)
    atoms, P = atoms[keep], P[keep]
    c = table.tail[keep].astype(np.int64)
    p = P.max(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z_bin = (c / B - p) / np.sqrt(p * (1 - p) / B)
    # P(M <= c) = prod F_theta(c); P(M >= c) = 1 - prod (1 - S_theta(c - 1)), in logs
    log_lo = binom.logcdf(c[:, None], B, P).sum(axis=1)
    sf = binom.sf(c[:, None] - 1, B, P)
    with np.errstate(divide="ignore"):
        hi = -np.expm1(np.log1p(-np.minimum(sf, 1.0)).sum(axis=1))
    lo = np.exp(log_lo)
    pval = np.minimum(1.0, 2.0 * np.minimum(lo, hi))
    z = norm.isf(pval / 2.0) * np.where(hi < lo, 1.0, -1.0)
    normal_ok = (B * p >= min_count) & (B * (1 - p) >= min_count)
    return pd.DataFrame({
        "D": atoms / 1e10, "key": atoms, "count": c, "p_exact": p, "expected": B * p,
        "expected_all": B * P.sum(axis=1), "argmax_exact": P.argmax(axis=1),
        "argmax_mc": table.argmax[keep], "z_binomial": z_bin, "normal_ok": normal_ok,
        "p_value": pval, "z": z,
    })


def min_attainable_o(n: int, T: int, *, method: str = "auto") -> float:
    """The smallest order-consistency score o attainable with n models and T responses each.

    When it exceeds the screening level alpha_o no item can be flagged, whatever its responses:
    check it before screening a design with few responses per model.

    Parameters
    ----------
    n : int
        Models on the axis.
    T : int
        Responses per model.
    method : {"auto", "exact", "monte-carlo"}, default "auto"
        "exact" enumerates all (T+1)^n count vectors (:func:`exact_calibration`, reference family plus
        201 flat vectors); "monte-carlo" reads the shipped / cached table (:func:`get_calibration`);
        "auto" is exact when (T+1)^n <= 500,000, else Monte Carlo.

    Returns
    -------
    float
        o of the largest null statistic. When it exceeds alpha_o (0.05), no item can be flagged at
        that budget: with T = 1 (one response per model) the exact values are 0.25 (n = 3),
        0.078 (n = 6) and 0.055 (n = 8), so T = 1 data cannot flag at 0.05 for n <= 8.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. D.2 ("If no attainable statistic satisfies the condition, the rejection
       set is empty").

    Examples
    --------
    >>> from benchkit.boundary.steps import min_attainable_o
    >>> round(min_attainable_o(6, 1), 4)     # one response per model: nothing can be flagged
    0.0781
    """
    n = check_int("n", n, min=2)
    T = check_int("T", T, min=1)
    method = check_choice("method", method, ("auto", "exact", "monte-carlo"))
    if method == "auto":
        method = "exact" if (T + 1) ** n <= 500_000 else "monte-carlo"
    return get_calibration(n, T, method=method).min_attainable_o


def table_path(n: int, T: int, n_resamples: int = DEFAULT_B, rng: int = DEFAULT_SEED) -> str:
    """File name of the table for (n, T, B = n_resamples, seed = rng), as shipped."""
    return f"lrt_n{n}_T{T}_B{n_resamples}_seed{rng}_v{TABLE_VERSION}.npz"


def _cache_dir() -> Path:
    from benchkit.datasets._fetch import cache_root

    return cache_root() / "boundary"


_MEMO: dict = {}


def get_calibration(n: int, T: int, *, method: str = "monte-carlo", n_resamples: int = DEFAULT_B,
                    rng=DEFAULT_SEED, n_jobs: int | None = None,
                    cache: bool = True) -> CalibrationTable:
    """The calibration table for (n, T): shipped, cached, or built (and cached) on demand.

    Every profile's order-consistency score is looked up in this table (Eq. 19), matched to the
    axis length n and the response budget T.

    Parameters
    ----------
    n : int
        Models on the axis.
    T : int
        Responses per model.
    method : {"monte-carlo", "exact"}, default "monte-carlo"
        "monte-carlo": the paper's finite-reference simulation; "exact": :func:`exact_calibration`
        (memoised in the process only; a progress bar above 10M count vectors: n = 6, T = 20
        enumerates 85.8M vectors for 418 reference vectors).
    n_resamples : int, default 200,000
        Simulations per reference vector (the paper's B).
    rng : None, int, SeedSequence or Generator, default 42
        Seed of the simulation (the paper's 42). An int selects the shipped or cached table of
        that seed; any other value (None, a SeedSequence or a Generator) always builds a fresh
        table, neither looked up nor cached.
    n_jobs : int, optional
        joblib workers when a table is built (:func:`build_calibration`; the table does not
        depend on it).
    cache : bool, default True
        Read and write built tables under ``$BENCHKIT_CACHE/boundary`` (``~/.cache/benchkit``).

    Returns
    -------
    CalibrationTable
        Its ``rng_entropy`` is the seed it was built from (None for exact tables).

    Notes
    -----
    Shipped tables (package data) cover n = 3..8 and T in {5, 10, 15, 20, 25, 50} with the
    default family, n_resamples = B = 200,000 and rng = seed 42. Other settings are simulated once
    with :func:`build_calibration` and stored in the cache.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. D.3 ("The frozen calibration table supports lookup without further
       simulation"), Eq. (19).

    Examples
    --------
    >>> from benchkit.boundary.steps import get_calibration
    >>> table = get_calibration(6, 10)
    >>> table.n, table.T, table.method, len(table.reference)
    (6, 10, 'monte-carlo', 217)
    """
    n_jobs = check_n_jobs(n_jobs)
    method = check_choice("method", method, ("monte-carlo", "exact"))
    n = check_int("n", n, min=2)
    T = check_int("T", T, min=1)
    if method == "exact":
        key = (method, n, T)
        if key not in _MEMO:
            # above 10M count vectors (e.g. n = 6, T = 20: minutes) show a progress bar
            _MEMO[key] = exact_calibration(n, T, progress=(T + 1) ** n > 10_000_000)
        return _MEMO[key]
    n_resamples = check_int("n_resamples", n_resamples, min=1)
    check_rng(rng)
    if not isinstance(rng, (int, np.integer)) or isinstance(rng, (bool, np.bool_)):
        return build_calibration(n, T, n_resamples=n_resamples, rng=rng, n_jobs=n_jobs)
    rng = int(rng)
    key = (method, n, T, n_resamples, rng)
    if key in _MEMO:
        return _MEMO[key]
    name = table_path(n, T, n_resamples, rng)
    shipped = _DATA / name
    cached = _cache_dir() / name
    if shipped.is_file():
        table = CalibrationTable.load(shipped)
    elif cache and cached.is_file():
        table = CalibrationTable.load(cached)
    else:
        table = build_calibration(n, T, n_resamples=n_resamples, rng=rng, n_jobs=n_jobs)
        if cache:
            try:
                table.save(cached)
            except OSError:  # pragma: no cover - read-only home
                pass
    _MEMO[key] = table
    return table
