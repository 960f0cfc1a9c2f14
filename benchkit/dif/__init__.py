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
from benchkit.dif._anchors import (
    FoldAnchors,
    anchor_weights,
    easiness_cells,
    jaccard,
    purify,
    select_anchors,
)
from benchkit.dif._audit_content import (
    BINARY_AXES,
    ORDINAL_AXES,
    ContentAudit,
    analyze_annotations,
    cohen_kappa,
    content_sample,
    family_direction_tests,
)
from benchkit.dif._controls import (
    BootstrapResult,
    MatchedRandomResult,
    OwnerBootstrapResult,
    bootstrap_units,
    composition_bootstrap,
    matched_random,
    owner_bootstrap,
)
from benchkit.dif._crossfit import CrossFit, cross_fit
from benchkit.dif._pipeline import (
    AuditResult,
    compare_family_shifts,
    robustness_table,
    run_audit,
    run_variant,
)
from benchkit.dif._population import (
    LINEAGE_TERMS,
    PAPER_FAMILIES,
    Population,
    assign_families,
    build_population,
    model_owners,
)
from benchkit.dif._ranking import (
    THRESHOLDS,
    FoldTargets,
    PairSet,
    RankingResult,
    pair_set,
)
from benchkit.dif._residual import ResidualDIF, family_codes, fit_residual_dif
from benchkit.dif._robustness import (
    PERTURBATIONS,
    FoldSwapCheck,
    Replication,
    SourceSupport,
    fold_swap_signs,
    replicate_signatures,
    robustness_pass,
    source_decomposition,
    source_effects,
    source_support,
)
from benchkit.dif._simulate import FamilyDIFSimulation, simulate_family_dif
from benchkit.dif.responses import audit, robustness

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
