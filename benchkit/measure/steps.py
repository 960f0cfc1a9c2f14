r"""The empirical measure, array level: the steps behind :mod:`benchkit.measure` (paper 002).

========================================= ==========================================================
:func:`normalize_difficulty`              IRT difficulties -> [0, 1] (min-max default, logistic)
:func:`ddm`                               DDM(B; mu) = W_1(nu_B, mu), uniform reference by default
:func:`max_gap`, :func:`top_gaps`         G(B) and the k largest uncovered intervals (with 0 and 1)
:func:`summarize`                         one benchmark's metrics (:class:`MeasureSummary`)
:func:`tabulate_measures`                 the Table 1 layout with its highlights (:class:`MeasureTable`)
:func:`combine`                           several :func:`benchkit.measure.measure_benchmarks` results
                                          as one
:func:`rank_stability`                    Theorem 2.1: which score differences cannot flip rank
:func:`detection_power`                   Theorem 2.3: power vs width w of a localized improvement
:func:`covered_items_worst_case`          Theorem 2.3's worst-case coverage
:func:`gap_targets`, :func:`what_if`      gap-filling targets (midpoints, neighbours) and what-ifs
:func:`leave_one_model_out`               refit without each model: stability of the measure
========================================= ==========================================================
"""
from benchkit.measure._filling import gap_targets
from benchkit.measure._filling import what_if
from benchkit.measure._leave_one_out import LOOStability
from benchkit.measure._leave_one_out import leave_one_model_out
from benchkit.measure._metrics import Gap
from benchkit.measure._metrics import TopGaps
from benchkit.measure._metrics import ddm
from benchkit.measure._metrics import max_gap
from benchkit.measure._metrics import normalize_difficulty
from benchkit.measure._metrics import top_gaps
from benchkit.measure._power import covered_items_worst_case
from benchkit.measure._power import detection_power
from benchkit.measure._stability import RankStability
from benchkit.measure._stability import rank_stability
from benchkit.measure._summary import MeasureSummary
from benchkit.measure._summary import MeasureTable
from benchkit.measure._summary import summarize
from benchkit.measure._summary import tabulate_measures
from benchkit.measure.responses import combine

__all__ = [
    "Gap",
    "LOOStability",
    "MeasureSummary",
    "MeasureTable",
    "RankStability",
    "TopGaps",
    "combine",
    "covered_items_worst_case",
    "ddm",
    "detection_power",
    "gap_targets",
    "leave_one_model_out",
    "max_gap",
    "normalize_difficulty",
    "rank_stability",
    "summarize",
    "tabulate_measures",
    "top_gaps",
    "what_if",
]
