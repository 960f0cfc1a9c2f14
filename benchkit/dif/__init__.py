"""Family-DIF audit of near-tie rankings (paper 001).

Entry points (a ResponseSet in, a result out):

=============================== ====================================================================
:func:`audit_rankings`          the primary analysis: population rules (App. C.1), per-half spectral
                                dimension (C.3), purified low-DIF anchors (C.4-C.5), pooled near-tie
                                reversals against matched-random controls (Eq. 9-11), composition and
                                owner bootstraps, replication and source attribution
                                -> :class:`RankingAudit` (Tables 1, 2, 4, 5, 7 inputs)
:func:`analyze_robustness`      the nine population perturbations of App. D.2 (Table 6's column)
=============================== ====================================================================

The array-level steps (population rules, the cross fit, purification, residual DIF, reversal counts,
matched-random controls, bootstraps, replication, source support, the blinded content audit of
App. D.4 and the leaderboard-scale simulator) are in :mod:`benchkit.dif.steps`; the explorer's view
models are in :mod:`benchkit.dif.explore`. The spectral MIRT working model is :mod:`benchkit.irt`.
"""
from benchkit.dif import steps as steps
from benchkit.dif._anchors import FoldAnchors
from benchkit.dif._audit_content import BINARY_AXES
from benchkit.dif._audit_content import ORDINAL_AXES
from benchkit.dif._pipeline import RankingAudit
from benchkit.dif._population import LINEAGE_TERMS
from benchkit.dif._population import PAPER_FAMILIES
from benchkit.dif._population import Population
from benchkit.dif._ranking import THRESHOLDS
from benchkit.dif._replication import Replication
from benchkit.dif._robustness import PERTURBATIONS
from benchkit.dif.responses import analyze_robustness
from benchkit.dif.responses import audit_rankings

__all__ = [
    "BINARY_AXES",
    "LINEAGE_TERMS",
    "ORDINAL_AXES",
    "PAPER_FAMILIES",
    "PERTURBATIONS",
    "THRESHOLDS",
    "FoldAnchors",
    "Population",
    "RankingAudit",
    "Replication",
    "analyze_robustness",
    "audit_rankings",
]
