"""Benchmark²: benchmark quality from model rankings, spread and within-family order (paper 004).

* Metrics (array level): :func:`cbrc` (Eq. 1), :func:`ds` (Eq. 2), :func:`cad` (Eq. 4-6, with
  per-item and per-family contributions), :func:`stability` (Sec. 3.4), :func:`bqs` (Eq. 8-10),
  :func:`band` (the paper's quality bands), :func:`kendall_matrix` (Tables 15-17).
* Families: :func:`families_from_models` (family and size from model metadata, strongest first,
  with the models left out and why).
* :func:`assess` -- several benchmarks' ResponseSets -> :class:`QualityResult` (Table 1, Table 7,
  Table 14 bootstrap intervals, Tables 11-13 scores).
* Selective construction (Sec. 5.4): :func:`select_items`, :func:`selection_sweep` (Figure 2),
  :func:`ablation` (Table 4), :func:`threshold_sensitivity` (Table 5), :func:`baselines`
  (Table 6), :func:`selective_scores` (Table 2), :func:`held_out` (Table 3),
  :func:`lambda_analysis` and :func:`cad_mapping` (Tables 9-10).
* :mod:`benchkit.quality.explore` -- view models for a dashboard (metrics with bands, Kendall
  heatmaps, per-family CAD with inverted items, selection-ratio curve and the subset at a ratio).
"""
from benchkit.quality import explore
from benchkit.quality._families import Families, families_from_models
from benchkit.quality._metrics import (
    BANDS,
    RAW_CAD_LEVELS,
    CADResult,
    band,
    bqs,
    cad,
    cad_score,
    cbrc,
    cbrc_all,
    ds,
    ds_contributions,
    kendall_matrix,
    stability,
)
from benchkit.quality._selection import (
    METHODS,
    SelectiveResult,
    ablation,
    baselines,
    cad_mapping,
    held_out,
    item_criteria,
    lambda_analysis,
    select_items,
    selection_sweep,
    selective_scores,
    subset_metrics,
    threshold_sensitivity,
)
from benchkit.quality.explore import (
    SelectionView,
    family_view,
    kendall_view,
    metrics_view,
    selection_view,
    subset_at,
)
from benchkit.quality.responses import QualityResult, assess

__all__ = [
    "BANDS",
    "CADResult",
    "Families",
    "METHODS",
    "QualityResult",
    "RAW_CAD_LEVELS",
    "SelectionView",
    "SelectiveResult",
    "ablation",
    "assess",
    "band",
    "baselines",
    "bqs",
    "cad",
    "cad_mapping",
    "cad_score",
    "cbrc",
    "cbrc_all",
    "ds",
    "ds_contributions",
    "explore",
    "families_from_models",
    "family_view",
    "held_out",
    "item_criteria",
    "kendall_matrix",
    "kendall_view",
    "lambda_analysis",
    "metrics_view",
    "select_items",
    "selection_sweep",
    "selection_view",
    "selective_scores",
    "stability",
    "subset_at",
    "subset_metrics",
    "threshold_sensitivity",
]
