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
from benchkit.dif._pipeline import run_audit
from benchkit.dif._population import PAPER_FAMILIES
from benchkit.dif._ranking import THRESHOLDS
from benchkit.dif._robustness import PERTURBATIONS
from benchkit.dif._robustness import robustness_table
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

    Are near-tied leaderboard orderings robust to which items the benchmark contains? Models are
    grouped into families by name; items whose residual family dependence is low (after a
    family-blind spectral MIRT adjustment) are selected in one owner half and used to rescore the
    other half; near-tied cross-family pairs that change order are counted and compared with
    random subtests of the same length and blueprint.

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
    grid : sequence of int, default (1, 2, 4, ..., 256)
        Candidate spectral MIRT dimensions (rank-infeasible ones are omitted).
    anchor_fraction, sensitivity_fractions : float, sequence of float
        The paper's anchor fraction alpha (0.5) and the sensitivity fractions (0.3, 0.7;
        Table 5).
    epsilon, thresholds : float, sequence of float
        Primary near-tie band (0.01) and the cumulative gap thresholds (Eq. 41).
    n_controls, n_bootstrap, n_owner_bootstrap, n_permutations : int
        R = 1,000 matched-random subtests, 2,000 composition and owner bootstraps, 500 within-cell
        permutations (Table C.8, D.1, D.3).
    confidence_level : float, default 0.95
        Of the composition- and owner-bootstrap ranges.
    population_rng : seed
        The frozen population-selection seed (owner cap).
    rng : seed
        Everything else (SVDs, K selection splits, controls, bootstraps, permutations).
    n_jobs : int, optional
        Workers of the resampling stages (threads unless a ``joblib.parallel_config`` backend is
        set); results do not depend on it (nor on the joblib backend). The two cross-fit halves
        and the anchor-fraction refits always run on benchkit's internal threads.
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

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3 (Eq. 1-11), Sec. 4-5 (Tables 1-2, 4-7); App. C-D.

    Examples
    --------
    A simulated leaderboard (the paper's benchmarks have 1,267-14,042 items and up to 5,000
    models; the defaults take minutes there):

    >>> from benchkit.simulate import load_sample
    >>> from benchkit.dif import audit_rankings
    >>> rs = load_sample("dif")                           # 400 items x 300 models, 5 families
    >>> rs = rs.select(items=list(rs.item_ids[:160]))     # a quicker example
    >>> audit = audit_rankings(rs, K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99,
    ...                        n_permutations=99, rng=0, progress=False)
    >>> audit.to_frame()[["K", "tau_b", "close_n", "low_dif_pct", "random_pct", "excess_pp",
    ...                   "p_rand"]].round(3)
         K  tau_b  close_n  low_dif_pct  random_pct  excess_pp  p_rand
    0  2/2  0.862       60       38.333        45.0     -6.667     0.8

    No excess reversal here (the simulated family effects do not favour any family's near ties).
    The anchor-fraction sensitivity (Table 5):

    >>> audit.alpha_sensitivity.round(3)
       alpha  mean_tau_b   rate
    0    0.3       0.799  0.356
    1    0.5       0.862  0.383
    2    0.7       0.899  0.433
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

    Parameters
    ----------
    rs : ResponseSet
        The responses the primary audit ran on.
    primary : RankingAudit
        The primary audit (:func:`audit_rankings`); its settings and per-half K are reused.
    perturbations : mapping of str to mapping, default :data:`PERTURBATIONS`
        Variant name -> :func:`benchkit.dif.steps.build_population` overrides (the paper's nine:
        owner caps 1 and 3, score-blind representative, lineage filter, five leave-one-family-out).
    n_controls : int, default 200
        Matched-random controls per variant (App. D.2).
    rng : None, int, SeedSequence or Generator
        One child seed per variant.
    n_jobs : int, optional
        Workers of the controls; results are identical for any value.
    progress : bool, default True
        A progress bar over the variants.

    Returns
    -------
    DataFrame
        One row per specification (the baseline first): ``variant``, ``families``, ``models``,
        ``representatives``, ``K``, ``close_n``, ``low_dif_pct``, ``random_pct``, ``excess_pp``,
        ``p_value`` (``error`` for a variant that cannot be audited).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 4.1 (the nine perturbations), Sec. 5.3 (Figure 2); App. D.2 (population
    rules, Eq. 44-46), App. B.3 (family/owner robustness matrix).

    Examples
    --------
    The owner-cap-1 perturbation of a primary audit (App. D.2 keeps at least 15 models per family):

    >>> from benchkit.dif import PERTURBATIONS, analyze_robustness, audit_rankings
    >>> from benchkit.simulate import load_sample
    >>> rs = load_sample("dif").select(items=[f"q{i:04d}" for i in range(160)])
    >>> primary = audit_rankings(rs, K=(2, 2), sensitivity_fractions=(), n_controls=99, n_bootstrap=99,
    ...                          n_owner_bootstrap=99, n_permutations=99, rng=0, progress=False)
    >>> PERTURBATIONS["owner cap 1"]
    {'owner_cap': 1, 'min_family_size': 15}
    >>> table = analyze_robustness(rs, primary, perturbations={"owner cap 1": PERTURBATIONS["owner cap 1"]},
    ...                            n_controls=49, rng=0, progress=False)
    >>> table[["variant", "models", "close_n", "excess_pp", "p_value"]].round(3)
              variant  models  close_n  excess_pp  p_value
    0  baseline cap 5     233       60     -6.667     0.80
    1     owner cap 1     114       63     -1.587     0.72
    """
    n_jobs = check_n_jobs(n_jobs)
    Y, _, _, _ = _arrays(rs, "uploader", None)
    if Y.shape != (primary.item_ids.size, primary.model_ids.size):
        raise BenchkitValueError("rs does not match the primary audit's matrix shape")
    return robustness_table(Y, primary, perturbations=perturbations, n_controls=n_controls,
                            rng=rng, n_jobs=n_jobs, progress=progress)
