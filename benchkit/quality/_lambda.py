"""The CAD scaling lambda (paper 004, App. B): Table 10's mapping and Table 9's criteria.

:func:`cad_mapping` maps raw inversion rates to CAD scores ``exp(-lam * rate)`` and their App. B
quality levels; :func:`lambda_analysis` scores candidate lambdas by App. B's five criteria on
observed rates.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchkit._validation import check_array
from benchkit._validation import check_float
from benchkit.quality._metrics import RAW_CAD_LEVELS
from benchkit.quality._metrics import band

__all__ = ["cad_mapping", "lambda_analysis"]


def cad_mapping(*, lam: float = 12.0, rates=(0.0, 0.01, 0.02, 0.03, 0.05, 0.08, 0.10, 0.15, 0.20,
                                              0.25, 0.30, 0.40, 0.50)) -> pd.DataFrame:
    """Table 10: raw inversion rate -> CAD score ``exp(-lam * rate)`` and its App. B level.

    Parameters
    ----------
    lam : float, default 12.0
        The CAD scaling lambda (the paper's).
    rates : sequence of float, default (0, 0.01, ..., 0.50)
        Raw inversion rates in [0, 1]; the default lists the 13 rates of Table 10 (0, 0.01,
        0.02, 0.03, 0.05, 0.08, 0.10, 0.15, 0.20, 0.25, 0.30, 0.40, 0.50).

    Returns
    -------
    DataFrame
        One row per rate: ``raw_cad``, ``score`` and ``level`` (excellent, good, acceptable,
        concerning, poor).

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. App. B, Table 10.

    Examples
    --------
    >>> from benchkit.quality.steps import cad_mapping
    >>> cad_mapping(rates=(0.0, 0.05, 0.2)).round(3)
       raw_cad  score       level
    0     0.00  1.000   excellent
    1     0.05  0.549        good
    2     0.20  0.091  concerning
    """
    lam = check_float("lam", lam, min=0.0, min_inclusive=False)
    r = check_array("rates", rates, ndim=1, dtype="float")
    return pd.DataFrame({"raw_cad": r, "score": np.exp(-lam * r),
                         "level": [band("raw_cad", v) for v in r]})


def lambda_analysis(raw_rates, *, lams=(4.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0),
                    median_range=(0.15, 0.35), excellent=(0.03, 0.65), poor=(0.25, 0.10),
                    range_quantiles=(0.1, 0.9), target_spread=0.5,
                    criterion_weights=(0.30, 0.25, 0.20, 0.15, 0.10)) -> pd.DataFrame:
    """Table 9: App. B's five criteria for candidate lambdas on observed raw inversion rates.

    Columns ``median`` (1 if the median rate maps into ``median_range``, else 0), ``separation``,
    ``excellent`` (share of rates < 0.03 scoring > 0.65; 1 if there is none), ``poor`` (share of
    rates > 0.25 scoring < 0.10; 1 if none), ``range`` and the weighted ``total``.

    Parameters
    ----------
    raw_rates : array_like
        Observed raw inversion rates (e.g. ``result.table["raw_cad"]``).
    lams : sequence of float, default (4, 6, 8, 10, 12, 15, 20)
        Candidate lambdas.
    median_range : (float, float), default (0.15, 0.35)
        Range the median rate's score should fall in (criterion 1).
    excellent : (float, float), default (0.03, 0.65)
        Rates below the first value should score above the second (criterion 3).
    poor : (float, float), default (0.25, 0.10)
        Rates above the first value should score below the second (criterion 4).
    range_quantiles : (float, float), default (0.1, 0.9)
        Quantiles of the mapped scores whose spread is the dynamic range (criterion 5).
    target_spread : float, default 0.5
        Spread that earns the full range criterion.
    criterion_weights : sequence of 5 floats, default (0.30, 0.25, 0.20, 0.15, 0.10)
        Weights of the five criteria (the paper's).

    Returns
    -------
    DataFrame
        One row per lambda: ``lam``, ``median_score`` and the criteria above with ``total``.

    Notes
    -----
    App. B names the criteria and weights but not their formulas; readings: *separation* is the
    mean over adjacent App. B quality levels present of the gap between their mean mapped scores,
    divided by the largest possible gap for that pair (``exp(-lam lo_k) - exp(-lam hi_{k+1})``
    with the level bounds, capped at 1); *range* is ``min(1, (q90 - q10 of mapped scores) /
    target_spread)``. The median criterion is all-or-nothing, which reproduces the paper's total
    for lambda = 12 (0.68 = 0.25*0.93 + 0.20 + 0.15 + 0.10 with median 0).

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. App. B, Table 9.

    Examples
    --------
    >>> from benchkit.quality.steps import lambda_analysis
    >>> t = lambda_analysis([0.02, 0.05, 0.1, 0.2, 0.3], lams=(8.0, 12.0))
    >>> t[["lam", "median", "separation", "total"]].round(3)
        lam  median  separation  total
    0   8.0     0.0       0.460  0.565
    1  12.0     1.0       0.466  0.867
    """
    r = check_array("raw_rates", raw_rates, ndim=1, dtype="float", min_size=1)
    w = check_array("criterion_weights", criterion_weights, ndim=1, dtype="float", shape=(5,))
    bounds = [0.0] + [ub for ub, _ in RAW_CAD_LEVELS]
    level = np.searchsorted(np.array([ub for ub, _ in RAW_CAD_LEVELS]), r, side="right")
    rows = []
    for lam in lams:
        lam = check_float("lams", lam, min=0.0, min_inclusive=False)
        s = np.exp(-lam * r)
        med = 1.0 if median_range[0] <= np.exp(-lam * np.median(r)) <= median_range[1] else 0.0
        present = sorted(set(level.tolist()))
        gaps = []
        for a, b in zip(present, present[1:]):
            hi_b = min(bounds[b + 1], 1.0)
            possible = np.exp(-lam * bounds[a]) - np.exp(-lam * hi_b)
            gap = s[level == a].mean() - s[level == b].mean()
            gaps.append(min(1.0, max(0.0, gap / possible)) if possible > 0 else 0.0)
        sep = float(np.mean(gaps)) if gaps else 0.0
        ex = r < excellent[0]
        exc = float(np.mean(s[ex] > excellent[1])) if ex.any() else 1.0
        pr = r > poor[0]
        po = float(np.mean(s[pr] < poor[1])) if pr.any() else 1.0
        q = np.quantile(s, range_quantiles)
        rng_c = float(min(1.0, (q[1] - q[0]) / target_spread))
        crit = np.array([med, sep, exc, po, rng_c])
        rows.append(dict(lam=lam, median_score=float(np.exp(-lam * np.median(r))), median=med,
                         separation=sep, excellent=exc, poor=po, range=rng_c,
                         total=float(crit @ w)))
    return pd.DataFrame(rows)
