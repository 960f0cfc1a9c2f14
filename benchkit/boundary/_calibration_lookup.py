"""Where calibration tables come from: shipped with the package, cached, or built on demand.

:func:`get_calibration` returns the table of an (n, T) (App. D.3: "the frozen calibration table
supports lookup without further simulation"); tables are memoised in the process.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from benchkit._parallel import check_n_jobs
from benchkit._random import check_rng
from benchkit._validation import check_choice
from benchkit._validation import check_int
from benchkit.boundary._calibration import DEFAULT_B
from benchkit.boundary._calibration import DEFAULT_SEED
from benchkit.boundary._calibration import TABLE_VERSION
from benchkit.boundary._calibration import CalibrationTable
from benchkit.boundary._calibration import build_calibration
from benchkit.boundary._calibration_exact import exact_calibration

__all__ = [
    "SHIPPED_N",
    "SHIPPED_T",
    "get_calibration",
    "table_path",
    "table_available",
    "min_attainable_o",
]

SHIPPED_N = tuple(range(3, 9))
SHIPPED_T = (5, 10, 15, 20, 25, 50)
_DATA = Path(__file__).with_name("data")


def table_available(n: int, T: int) -> bool:
    """True when :func:`get_calibration` (n, T) with the default B and seed needs no simulation."""
    name = table_path(n, T)
    return (("monte-carlo", n, T, DEFAULT_B, DEFAULT_SEED) in _MEMO or (_DATA / name).is_file()
            or (_cache_dir() / name).is_file())


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
