"""Benchmark²: benchmark quality from model rankings, spread and within-family order (paper 004).

Entry point: :func:`assess` -- several benchmarks' ResponseSets -> :class:`QualityResult` with the
cross-benchmark ranking consistency CBRC (Eq. 1), the discriminability score DS (Eq. 2), the
capability alignment deviation CAD (Eq. 4-6), the benchmark quality score BQS (Eq. 8-10), their
bootstrap intervals (Table 14) and the paper's Tables 1, 7 and 11-13. The paper's constants: the
quality bands (:data:`BANDS`), the raw-CAD levels (:data:`RAW_CAD_LEVELS`) and the selection
methods (:data:`METHODS`).

The array-level steps (the metrics on matrices, Kendall matrices, families from model metadata,
stability, and the selective construction of Sec. 5.4 with Tables 2-6 and 9-10 and Figure 2)
are in :mod:`benchkit.quality.steps`; the dashboard's view models are in
:mod:`benchkit.quality.explore`.
"""
from benchkit.quality import steps as steps
from benchkit.quality._metrics import BANDS
from benchkit.quality._metrics import RAW_CAD_LEVELS
from benchkit.quality._selection import METHODS
from benchkit.quality.responses import QualityResult
from benchkit.quality.responses import assess

__all__ = [
    "BANDS",
    "METHODS",
    "RAW_CAD_LEVELS",
    "QualityResult",
    "assess",
]
