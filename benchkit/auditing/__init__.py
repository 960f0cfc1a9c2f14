"""The cross-method audit: every method's item verdict on one ResponseSet, and how they agree.

:func:`audit` runs each method the data support through its public entry point
(:func:`benchkit.labels.key_issues`, :func:`benchkit.boundary.profile`,
:func:`benchkit.dif.audit_rankings`, :func:`benchkit.landscape.map_points`,
:func:`benchkit.quality.assess`, :func:`benchkit.measure.measure_benchmarks`), turns each into a
score, a flag and a reason per item, and says for every method that did not run why not.

================================ ===============================================================
:func:`audit`                    ResponseSet -> :class:`AuditResult`: the item table (each
                                 method's score, flag and reason; ``n_flags``), the model table,
                                 ``applicability``, ``agreement`` between methods
:meth:`AuditResult.validate`     against a reference flag set -> :class:`AuditValidation`:
                                 precision, recall, precision at k, AUROC, average precision
:data:`AUDIT_METHODS`            the methods, in the order they run
================================ ===============================================================

``benchkit.audit`` and ``benchkit.AuditResult`` are these objects; the explorer
(:class:`benchkit.widgets.AuditExplorer`) reads its view models from :mod:`benchkit.auditing.explore`.
"""
from benchkit.auditing._result import AuditResult
from benchkit.auditing._result import AuditValidation
from benchkit.auditing._run import audit
from benchkit.auditing._verdict import AUDIT_METHODS

__all__ = [
    "AUDIT_METHODS",
    "AuditResult",
    "AuditValidation",
    "audit",
]
