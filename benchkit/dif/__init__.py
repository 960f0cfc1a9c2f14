"""Family-DIF audit of near-tie rankings (paper 001).

Population rules (:func:`build_population`), the residual DIF fit (:func:`fit_residual_dif`),
cross-fitted low-DIF anchors, the near-tie reversal estimand with matched-random controls and
composition / owner bootstraps, robustness and replication, blinded content-audit support
(:func:`content_sample`, :func:`analyze_annotations`), and the ResponseSet entry points
:func:`audit` and :func:`robustness` (array level: :func:`run_audit`, :func:`robustness_table`),
with the App. D.3 support rules :func:`source_support` and :func:`fold_swap_signs`. The spectral
MIRT working model is :mod:`benchkit.irt` (spectral working model); :func:`simulate_family_dif`
draws leaderboard-scale test data.
"""
from benchkit.dif._anchors import FoldAnchors
from benchkit.dif._anchors import anchor_weights
from benchkit.dif._anchors import easiness_cells
from benchkit.dif._anchors import jaccard
from benchkit.dif._anchors import purify
from benchkit.dif._anchors import select_anchors
from benchkit.dif._audit_content import BINARY_AXES
from benchkit.dif._audit_content import ORDINAL_AXES
from benchkit.dif._audit_content import ContentAudit
from benchkit.dif._audit_content import analyze_annotations
from benchkit.dif._audit_content import cohen_kappa
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
from benchkit.dif._pipeline import AuditResult
from benchkit.dif._pipeline import compare_family_shifts
from benchkit.dif._pipeline import robustness_table
from benchkit.dif._pipeline import run_audit
from benchkit.dif._pipeline import run_variant
from benchkit.dif._population import LINEAGE_TERMS
from benchkit.dif._population import PAPER_FAMILIES
from benchkit.dif._population import Population
from benchkit.dif._population import assign_families
from benchkit.dif._population import build_population
from benchkit.dif._population import model_owners
from benchkit.dif._ranking import THRESHOLDS
from benchkit.dif._ranking import FoldTargets
from benchkit.dif._ranking import PairSet
from benchkit.dif._ranking import RankingResult
from benchkit.dif._ranking import pair_set
from benchkit.dif._residual import ResidualDIF
from benchkit.dif._residual import family_codes
from benchkit.dif._residual import fit_residual_dif
from benchkit.dif._robustness import PERTURBATIONS
from benchkit.dif._robustness import FoldSwapCheck
from benchkit.dif._robustness import Replication
from benchkit.dif._robustness import SourceSupport
from benchkit.dif._robustness import fold_swap_signs
from benchkit.dif._robustness import replicate_signatures
from benchkit.dif._robustness import robustness_pass
from benchkit.dif._robustness import source_decomposition
from benchkit.dif._robustness import source_effects
from benchkit.dif._robustness import source_support
from benchkit.dif._simulate import FamilyDIFSimulation
from benchkit.dif._simulate import simulate_family_dif
from benchkit.dif.responses import audit
from benchkit.dif.responses import robustness

__all__ = [
    "BINARY_AXES",
    "LINEAGE_TERMS",
    "ORDINAL_AXES",
    "PAPER_FAMILIES",
    "PERTURBATIONS",
    "THRESHOLDS",
    "AuditResult",
    "BootstrapResult",
    "ContentAudit",
    "CrossFit",
    "FamilyDIFSimulation",
    "FoldAnchors",
    "FoldSwapCheck",
    "FoldTargets",
    "MatchedRandomResult",
    "OwnerBootstrapResult",
    "PairSet",
    "Population",
    "RankingResult",
    "Replication",
    "ResidualDIF",
    "SourceSupport",
    "analyze_annotations",
    "anchor_weights",
    "assign_families",
    "audit",
    "bootstrap_units",
    "build_population",
    "cohen_kappa",
    "compare_family_shifts",
    "composition_bootstrap",
    "content_sample",
    "cross_fit",
    "easiness_cells",
    "family_codes",
    "family_direction_tests",
    "fit_residual_dif",
    "fold_swap_signs",
    "jaccard",
    "matched_random",
    "model_owners",
    "owner_bootstrap",
    "pair_set",
    "purify",
    "replicate_signatures",
    "robustness",
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
