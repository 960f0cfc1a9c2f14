"""Benchmark², array level: the steps behind :mod:`benchkit.quality` (paper 004).

* Metrics: :func:`cbrc` (Eq. 1) and :func:`cbrc_all`, :func:`ds` (Eq. 2) and
  :func:`ds_contributions`, :func:`cad` (Eq. 4-6, with per-item and per-family contributions) and
  :func:`cad_score`, :func:`stability` (Sec. 3.4, Eq. 7), :func:`bqs` (Eq. 8-10), :func:`band`
  (the paper's quality bands), :func:`kendall_matrix` (Tables 15-17).
* Families: :func:`families_from_models` (family and size from model metadata, strongest first,
  with the models left out and why).
* Selective construction (Sec. 5.4): :func:`item_criteria`, :func:`select_items`,
  :func:`subset_metrics`, :func:`selection_sweep` (Figure 2), :func:`ablation` (Table 4),
  :func:`threshold_sensitivity` (Table 5), :func:`baselines` (Table 6), :func:`selective_scores`
  (Table 2), :func:`held_out` (Table 3), :func:`lambda_analysis` and :func:`cad_mapping`
  (Tables 9-10).
"""
from benchkit.quality._ablation import ablation
from benchkit.quality._ablation import baselines
from benchkit.quality._ablation import selection_sweep
from benchkit.quality._ablation import threshold_sensitivity
from benchkit.quality._cad import CADResult
from benchkit.quality._cad import cad
from benchkit.quality._cad import cad_score
from benchkit.quality._families import Families
from benchkit.quality._families import families_from_models
from benchkit.quality._lambda import cad_mapping
from benchkit.quality._lambda import lambda_analysis
from benchkit.quality._metrics import band
from benchkit.quality._metrics import bqs
from benchkit.quality._metrics import cbrc
from benchkit.quality._metrics import cbrc_all
from benchkit.quality._metrics import ds
from benchkit.quality._metrics import ds_contributions
from benchkit.quality._metrics import kendall_matrix
from benchkit.quality._metrics import stability
from benchkit.quality._selection import SelectiveResult
from benchkit.quality._selection import held_out
from benchkit.quality._selection import item_criteria
from benchkit.quality._selection import select_items
from benchkit.quality._selection import selective_scores
from benchkit.quality._selection import subset_metrics

__all__ = [
    "CADResult",
    "Families",
    "SelectiveResult",
    "ablation",
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
    "held_out",
    "item_criteria",
    "kendall_matrix",
    "lambda_analysis",
    "select_items",
    "selection_sweep",
    "selective_scores",
    "stability",
    "subset_metrics",
    "threshold_sensitivity",
]
