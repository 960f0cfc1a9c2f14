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
from benchkit.quality._families import Families
from benchkit.quality._families import families_from_models
from benchkit.quality._metrics import BANDS
from benchkit.quality._metrics import RAW_CAD_LEVELS
from benchkit.quality._metrics import CADResult
from benchkit.quality._metrics import band
from benchkit.quality._metrics import bqs
from benchkit.quality._metrics import cad
from benchkit.quality._metrics import cad_score
from benchkit.quality._metrics import cbrc
from benchkit.quality._metrics import cbrc_all
from benchkit.quality._metrics import ds
from benchkit.quality._metrics import ds_contributions
from benchkit.quality._metrics import kendall_matrix
from benchkit.quality._metrics import stability
from benchkit.quality._selection import METHODS
from benchkit.quality._selection import SelectiveResult
from benchkit.quality._selection import ablation
from benchkit.quality._selection import baselines
from benchkit.quality._selection import cad_mapping
from benchkit.quality._selection import held_out
from benchkit.quality._selection import item_criteria
from benchkit.quality._selection import lambda_analysis
from benchkit.quality._selection import select_items
from benchkit.quality._selection import selection_sweep
from benchkit.quality._selection import selective_scores
from benchkit.quality._selection import subset_metrics
from benchkit.quality._selection import threshold_sensitivity
from benchkit.quality.explore import SelectionView
from benchkit.quality.explore import family_view
from benchkit.quality.explore import kendall_view
from benchkit.quality.explore import metrics_view
from benchkit.quality.explore import selection_view
from benchkit.quality.explore import subset_at
from benchkit.quality.responses import QualityResult
from benchkit.quality.responses import assess

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
