"""Family-DIF, array level: the documented steps behind :mod:`benchkit.dif`'s entry points (paper 001).

* population (App. C.1): :func:`build_population`, :func:`assign_families`, :func:`model_owners`;
* the cross fit and anchors (App. C.3-C.5): :func:`cross_fit`, :func:`purify`,
  :func:`fit_residual_dif` (Eq. 24-33), :func:`family_codes`, :func:`easiness_cells`,
  :func:`select_anchors`, :func:`anchor_weights` (anchor-set overlap: :func:`benchkit.stats.jaccard`);
* near-tie reversals and controls (Eq. 9-11, 34-43): :func:`pair_set`, :func:`matched_random`,
  :func:`bootstrap_units`, :func:`composition_bootstrap`, :func:`owner_bootstrap`,
  :func:`compare_family_shifts` (Table 7);
* the whole pipeline on an array: :func:`run_audit`, one perturbation :func:`run_variant`,
  :func:`robustness_table` (Table 6) and :func:`robustness_pass` (Eq. 44-46);
* replication and sources (Eq. 47-57, App. D.3): :func:`replicate_signatures`,
  :func:`source_effects`, :func:`source_decomposition`, :func:`source_support`,
  :func:`fold_swap_signs`;
* the blinded content audit (App. D.4): :func:`content_sample`, :func:`analyze_annotations`,
  :func:`family_direction_tests` (rater agreement: :func:`benchkit.stats.cohen_kappa`);
* test data at leaderboard scale: :func:`simulate_family_dif`.
"""
from benchkit.dif._anchors import anchor_weights
from benchkit.dif._anchors import easiness_cells
from benchkit.dif._anchors import purify
from benchkit.dif._anchors import select_anchors
from benchkit.dif._audit_content import ContentAudit
from benchkit.dif._audit_content import analyze_annotations
from benchkit.dif._audit_content import content_sample
from benchkit.dif._audit_content import family_direction_tests
from benchkit.dif._controls import BootstrapResult
from benchkit.dif._controls import MatchedRandomResult
from benchkit.dif._controls import OwnerBootstrapResult
from benchkit.dif._controls import bootstrap_units
from benchkit.dif._controls import composition_bootstrap
from benchkit.dif._controls import matched_random
from benchkit.dif._controls import owner_bootstrap
from benchkit.dif._crossfit import CrossFit
from benchkit.dif._crossfit import cross_fit
from benchkit.dif._pipeline import compare_family_shifts
from benchkit.dif._pipeline import run_audit
from benchkit.dif._population import assign_families
from benchkit.dif._population import build_population
from benchkit.dif._population import model_owners
from benchkit.dif._ranking import FoldTargets
from benchkit.dif._ranking import PairSet
from benchkit.dif._ranking import RankingResult
from benchkit.dif._ranking import pair_set
from benchkit.dif._replication import replicate_signatures
from benchkit.dif._residual import ResidualDIF
from benchkit.dif._residual import family_codes
from benchkit.dif._residual import fit_residual_dif
from benchkit.dif._robustness import robustness_pass
from benchkit.dif._robustness import robustness_table
from benchkit.dif._robustness import run_variant
from benchkit.dif._simulate import FamilyDIFSimulation
from benchkit.dif._simulate import simulate_family_dif
from benchkit.dif._sources import FoldSwapCheck
from benchkit.dif._sources import SourceSupport
from benchkit.dif._sources import fold_swap_signs
from benchkit.dif._sources import source_decomposition
from benchkit.dif._sources import source_effects
from benchkit.dif._sources import source_support

__all__ = [
    "BootstrapResult",
    "ContentAudit",
    "CrossFit",
    "FamilyDIFSimulation",
    "FoldSwapCheck",
    "FoldTargets",
    "MatchedRandomResult",
    "OwnerBootstrapResult",
    "PairSet",
    "RankingResult",
    "ResidualDIF",
    "SourceSupport",
    "analyze_annotations",
    "anchor_weights",
    "assign_families",
    "bootstrap_units",
    "build_population",
    "compare_family_shifts",
    "composition_bootstrap",
    "content_sample",
    "cross_fit",
    "easiness_cells",
    "family_codes",
    "family_direction_tests",
    "fit_residual_dif",
    "fold_swap_signs",
    "matched_random",
    "model_owners",
    "owner_bootstrap",
    "pair_set",
    "purify",
    "replicate_signatures",
    "robustness_pass",
    "robustness_table",
    "run_audit",
    "run_variant",
    "select_anchors",
    "simulate_family_dif",
    "source_decomposition",
    "source_effects",
    "source_support",
]
