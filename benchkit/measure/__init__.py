r"""The benchmark as an empirical measure over difficulty (paper 002).

A benchmark :math:`B` of :math:`n` items with normalized difficulties :math:`z_i \in [0, 1]` is the
empirical measure :math:`\nu_B = \frac1n \sum_i \delta_{z_i}`. This package computes the paper's two
diagnostics and what follows from them:

========================================= ==========================================================
:func:`normalize_difficulty`              IRT difficulties -> [0, 1] (min-max default, logistic)
:func:`ddm`                               DDM(B; mu) = W_1(nu_B, mu), uniform reference by default
:func:`max_gap`, :func:`top_gaps`         G(B) and the k largest uncovered intervals (with 0 and 1)
:func:`summarize`, :func:`measure_table`  one benchmark / the Table 1 layout with its highlights
:func:`rank_stability`                    Theorem 2.1: which score differences cannot flip rank
:func:`detection_power`                   Theorem 2.3: power vs width w of a localized improvement
:func:`gap_targets`, :func:`what_if`      gap-filling targets (midpoints, neighbours) and what-ifs
:func:`measure_benchmarks`                ResponseSets -> 1PL per benchmark -> Table 1 and per-item z
:func:`fit_difficulties`                  the 1PL fit :func:`measure_benchmarks` uses for one ResponseSet
:func:`combine`                           several :func:`measure_benchmarks` results as one
:func:`leave_one_model_out`               refit without each model: stability of the measure
:func:`sensitivity`                       the metrics under every choice of extreme items, item
                                          prior SD and normalization (one tidy table)
========================================= ==========================================================

Difficulties come from :mod:`benchkit.irt` (``fit_1pl(Y).difficulty``); the array-level functions
work on plain arrays, the ResponseSet-level entry points (:mod:`benchkit.measure.responses`) fit the
1PL themselves.

Layout: ``_metrics`` (normalization, DDM, gaps, Table 1), ``_stability`` (Theorem 2.1), ``_power``
(Theorem 2.3), ``_filling`` (gap targets, what-ifs), ``_sensitivity`` (analysis choices),
``responses`` (ResponseSet-level entry points).
"""
from benchkit.measure._filling import GapTargets
from benchkit.measure._filling import WhatIf
from benchkit.measure._filling import gap_targets
from benchkit.measure._filling import what_if
from benchkit.measure._metrics import TABLE1_THRESHOLDS
from benchkit.measure._metrics import Gap
from benchkit.measure._metrics import MeasureSummary
from benchkit.measure._metrics import MeasureTable
from benchkit.measure._metrics import TopGaps
from benchkit.measure._metrics import ddm
from benchkit.measure._metrics import max_gap
from benchkit.measure._metrics import measure_table
from benchkit.measure._metrics import normalize_difficulty
from benchkit.measure._metrics import summarize
from benchkit.measure._metrics import top_gaps
from benchkit.measure._power import DetectionPower
from benchkit.measure._power import covered_items_worst_case
from benchkit.measure._power import detection_power
from benchkit.measure._sensitivity import Sensitivity
from benchkit.measure._sensitivity import sensitivity
from benchkit.measure._stability import RankStability
from benchkit.measure._stability import rank_stability
from benchkit.measure.responses import BenchmarkMeasure
from benchkit.measure.responses import BenchmarkMeasures
from benchkit.measure.responses import LOOStability
from benchkit.measure.responses import combine
from benchkit.measure.responses import fit_difficulties
from benchkit.measure.responses import leave_one_model_out
from benchkit.measure.responses import measure_benchmarks

__all__ = [
    "BenchmarkMeasure",
    "BenchmarkMeasures",
    "DetectionPower",
    "Gap",
    "GapTargets",
    "LOOStability",
    "MeasureSummary",
    "MeasureTable",
    "RankStability",
    "Sensitivity",
    "TABLE1_THRESHOLDS",
    "TopGaps",
    "WhatIf",
    "combine",
    "covered_items_worst_case",
    "ddm",
    "detection_power",
    "fit_difficulties",
    "gap_targets",
    "leave_one_model_out",
    "max_gap",
    "measure_benchmarks",
    "measure_table",
    "normalize_difficulty",
    "rank_stability",
    "sensitivity",
    "summarize",
    "top_gaps",
    "what_if",
]
