"""ResponseSet entry points of the family-DIF audit (paper 001)."""
from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from benchkit._parallel import check_n_jobs
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit.dif._pipeline import PRIMARY
from benchkit.dif._pipeline import RankingAudit
from benchkit.dif._pipeline import robustness_table
from benchkit.dif._pipeline import run_audit
from benchkit.dif._population import PAPER_FAMILIES
from benchkit.dif._ranking import THRESHOLDS
from benchkit.dif._robustness import PERTURBATIONS
from benchkit.irt._spectral import K_GRID

__all__ = ["RankingAudit", "analyze_robustness", "audit_rankings"]


def _arrays(rs, owners: str, source: str | None):
    from benchkit.response_set import ResponseSet

    if not isinstance(rs, ResponseSet):
        raise BenchkitTypeError(f"rs must be a benchkit.ResponseSet; got {type(rs).__name__}")
    check_choice("owners", owners, ("uploader", "models"))
    Y = rs.binary()
    miss = np.isnan(Y)
    if miss.any():
        i, m = np.argwhere(miss)[0]
        raise BenchkitValueError(
            f"audit needs a complete binary matrix (the paper's complete-response matrices); "
            f"{int(miss.sum())} cells are missing, e.g. model {rs.model_ids[m]!r} on item "
            f"{rs.item_ids[i]!r}; select complete items or models first (rs.select(...))")
    if source is None:
        src = rs.items["source"].to_numpy(object) if "source" in rs.items.columns else None
    else:
        if source not in rs.items.columns:
            raise BenchkitValueError(f"source={source!r} is not an item column; columns are "
                                     f"{list(rs.items.columns)}")
        src = rs.items[source].to_numpy(object)
    if src is not None and pd.isna(src).any():
        src = np.where(pd.isna(src), "unknown", src).astype(object)
    own = None if owners == "uploader" else rs.models["owner"].astype(str).to_numpy(object)
    return Y.astype(np.uint8), np.asarray(rs.model_ids, dtype=object), src, own


def audit_rankings(rs, *, owners: str = "uploader", source: str | None = None,
                            families: Mapping[str, str] = PAPER_FAMILIES, owner_cap: int = 5,
                            min_family_size: int = 20, representative: str = "median", K=None,
                            grid: Sequence[int] = K_GRID, anchor_fraction: float = 0.5,
                            sensitivity_fractions: Sequence[float] = (0.3, 0.7), epsilon: float = PRIMARY,
                            thresholds: Sequence[float] = THRESHOLDS, n_controls: int = 1000,
                            n_bootstrap: int = 2000, n_owner_bootstrap: int = 2000, n_permutations: int = 500,
                            confidence_level: float = 0.95, population_rng: Any = 0, rng: Any = None,
                            n_jobs: Any = None, progress: bool = True) -> RankingAudit:
    r"""Family-DIF audit of near-tie rankings on a ResponseSet (paper 001, primary analysis).

    Parameters
    ----------
    rs : ResponseSet
        Complete binary responses (one sample per cell).
    owners : {"uploader", "models"}
        Owner = the uploader component of the model id (App. C.1; ids without "/" fall back to
        :mod:`benchkit.model_names`), or the ``owner`` column of ``rs.models``.
    source : str, optional
        Item column holding the native source (default ``"source"`` when present, else one
        source: 100 contiguous bootstrap clusters).
    families : mapping label -> regex
        Frozen family patterns (App. C.1).
    owner_cap, min_family_size, representative : int, int, str
        Population rules (5, 20, "median"; App. C.1).
    K : pair of int, optional
        Freeze the dimension per half instead of selecting it over ``grid`` (App. C.3).
    anchor_fraction, sensitivity_fractions : float, sequence of float
        The paper's anchor fraction alpha (0.5) and the sensitivity fractions (0.3, 0.7;
        Table 5).
    epsilon, thresholds : float, sequence of float
        Primary near-tie band (0.01) and the cumulative gap thresholds (Eq. 41).
    n_controls, n_bootstrap, n_owner_bootstrap, n_permutations : int
        R = 1,000 matched-random subtests, 2,000 composition and owner bootstraps, 500 within-cell
        permutations (Table C.8, D.1, D.3).
    population_rng : seed
        The frozen population-selection seed (owner cap).
    rng : seed
        Everything else (SVDs, K selection splits, controls, bootstraps, permutations).
    n_jobs : int, optional
        Workers for the resampling stages; results do not depend on it (nor on the joblib
        backend).
    progress : bool
        A progress bar per stage.

    Returns
    -------
    RankingAudit
        ``to_frame()`` is Table 1's row; ``thresholds_frame()`` Table 4 / Figure 1;
        ``alpha_sensitivity`` Table 5; ``replication.to_frame()`` Table 2; ``owner_shifts`` the
        family shifts with owner-bootstrap intervals (Table 7's inputs); ``items_frame()``,
        ``scores_frame()``, ``pairs_frame()``; ``population.counts_frame()`` / ``excluded_frame()`` the
        population report.

    Notes
    -----
    Sec. 3 and App. C: population (C.1), per-half K selection (C.3, Eq. 18-23), three purification
    rounds (C.5) with the residual fit (C.4, Eq. 24-33), weights frozen and applied to the other
    half (Eq. 6-8), pooled strict reversals (Eq. 9, 38-40), matched-random controls (Eq. 10-11,
    34-35), composition bootstrap (Eq. 36-37), owner bootstrap (Eq. 42-43), replication (Eq.
    47-53), source attribution (Eq. 54-57). Readings: see the Notes of each step's function
    (:func:`benchkit.dif.steps.build_population`, :func:`benchkit.irt.select_dimension`,
    :func:`benchkit.dif.steps.fit_residual_dif`). Population perturbations: :func:`analyze_robustness`.
    """
    n_jobs = check_n_jobs(n_jobs)
    Y, ids, src, own = _arrays(rs, owners, source)
    return run_audit(Y, ids, source=src, item_ids=np.asarray(rs.item_ids, dtype=object), owners=own,
                     families=families, owner_cap=owner_cap, min_family_size=min_family_size,
                     representative=representative, K=K, grid=grid, anchor_fraction=anchor_fraction,
                     sensitivity_fractions=sensitivity_fractions, epsilon=epsilon, thresholds=thresholds,
                     n_controls=n_controls, n_bootstrap=n_bootstrap,
                     n_owner_bootstrap=n_owner_bootstrap, n_permutations=n_permutations,
                     confidence_level=confidence_level, population_rng=population_rng, rng=rng,
                     n_jobs=n_jobs, progress=progress)


def analyze_robustness(rs, primary: RankingAudit, *, perturbations: Mapping[str, Mapping] = PERTURBATIONS,
                               n_controls: int = 200, rng: Any = None, n_jobs: Any = None,
                               progress: bool = True) -> pd.DataFrame:
    """The nine population perturbations of App. D.2 for one benchmark (Table 6's column).

    Each variant rebuilds the population (minimum family size 15), keeps K frozen at the primary
    values, refits directions, residual DIF and anchors, and runs ``n_controls`` (200) matched
    controls. Combine the columns of several benchmarks and apply
    :func:`benchkit.dif.steps.robustness_pass` (Eq. 44-46). A variant whose population cannot be
    audited has its reason in ``error``.
    """
    n_jobs = check_n_jobs(n_jobs)
    Y, _, _, _ = _arrays(rs, "uploader", None)
    if Y.shape != (primary.item_ids.size, primary.model_ids.size):
        raise BenchkitValueError("rs does not match the primary audit's matrix shape")
    return robustness_table(Y, primary, perturbations=perturbations, n_controls=n_controls,
                            rng=rng, n_jobs=n_jobs, progress=progress)
