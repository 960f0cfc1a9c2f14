r"""The benchmark as an empirical measure over difficulty (paper 002).

A benchmark :math:`B` of :math:`n` items with normalized difficulties :math:`z_i \in [0, 1]` is the
empirical measure :math:`\nu_B = \frac1n \sum_i \delta_{z_i}`. Entry points (ResponseSets in):

============================= =====================================================================
:func:`measure_benchmarks`    ResponseSets -> 1PL per benchmark -> the paper's Table 1 (DDM, Max Gap,
                              top-k gap sum, highlights) and the per-item z
                              (:class:`BenchmarkMeasures`; each :class:`BenchmarkMeasure` gives
                              its :class:`GapTargets`, :class:`WhatIf` and :class:`DetectionPower`)
:func:`fit_difficulties`      the 1PL fit :func:`measure_benchmarks` uses for one ResponseSet
:func:`analyze_sensitivity`   the metrics under every choice of extreme items, item prior SD and
                              normalization (:class:`Sensitivity`)
============================= =====================================================================

The array-level steps (normalization, DDM, gaps, the Table 1 layout, Theorem 2.1 rank stability,
Theorem 2.3 detection power, gap-filling targets and what-ifs, leave-one-model-out stability) are in
:mod:`benchkit.measure.steps`. Difficulties come from :mod:`benchkit.irt`.

Layout: ``_metrics`` (normalization, DDM, gaps), ``_summary`` (one benchmark's summary, Table 1),
``_stability`` (Theorem 2.1), ``_power`` (Theorem 2.3), ``_filling`` (gap targets, what-ifs),
``_sensitivity`` (analysis choices), ``_leave_one_out`` (leave-one-model-out refits),
``responses`` (ResponseSet-level entry points), ``steps`` (the second tier).
"""
from benchkit.measure import steps as steps
from benchkit.measure._filling import GapTargets
from benchkit.measure._filling import WhatIf
from benchkit.measure._power import DetectionPower
from benchkit.measure._sensitivity import Sensitivity
from benchkit.measure._sensitivity import analyze_sensitivity
from benchkit.measure._summary import TABLE1_THRESHOLDS
from benchkit.measure.responses import BenchmarkMeasure
from benchkit.measure.responses import BenchmarkMeasures
from benchkit.measure.responses import fit_difficulties
from benchkit.measure.responses import measure_benchmarks

__all__ = [
    "TABLE1_THRESHOLDS",
    "BenchmarkMeasure",
    "BenchmarkMeasures",
    "DetectionPower",
    "GapTargets",
    "Sensitivity",
    "WhatIf",
    "analyze_sensitivity",
    "fit_difficulties",
    "measure_benchmarks",
]
