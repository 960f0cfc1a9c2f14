"""Family-DIF audit of near-tie rankings (paper 001).

Population rules (:func:`build_population`), the residual DIF fit (:func:`fit_residual_dif`),
cross-fitted low-DIF anchors, near-tie reversal estimand with matched-random controls and
composition bootstrap, robustness and replication, blinded content-audit support, and the
ResponseSet entry point :func:`audit`. The spectral MIRT working model is in
:mod:`benchkit.irt_spectral`.
"""
from benchkit.dif._population import (
    LINEAGE_TERMS,
    PAPER_FAMILIES,
    Population,
    assign_families,
    build_population,
    model_owners,
)
from benchkit.dif._residual import ResidualDIF, family_codes, fit_residual_dif
from benchkit.dif._simulate import FamilyDIFSimulation, simulate_family_dif

__all__ = [
    "FamilyDIFSimulation",
    "LINEAGE_TERMS",
    "PAPER_FAMILIES",
    "Population",
    "ResidualDIF",
    "assign_families",
    "build_population",
    "family_codes",
    "fit_residual_dif",
    "model_owners",
    "simulate_family_dif",
]
