"""What a tool declared about its own log, compared with what the reader read.

Evaluation tools write, next to the per-sample records, their own counts and summary scores:
lm-eval's ``n-samples`` and ``results`` (``results_*.json``), Inspect's ``eval.dataset.sample_ids``,
``eval.config.epochs``, ``results.total_samples`` and each scorer's ``accuracy``, HELM's
``stats.json`` (``num_instances`` and the metric's mean), EvalScope's report (``num`` and
``score`` per subset), Every Eval Ever's aggregate file (``total_rows``, the samples file's
checksum, ``num_samples`` and ``score`` per result). A reader that finds fewer (or more) records
than declared, or a different mean, is reading a cut, padded or edited log, and the numbers it
would return are not the tool's. Each reader collects the comparisons in a :class:`Declared` and
calls :meth:`Declared.settle`: a mismatch is an error naming both numbers, unless the reader was
called with ``allow_partial=True`` (the same option in every reader), which reads the log anyway,
warns, and lists every mismatch in ``meta["partial"]``.
"""
from __future__ import annotations

import math
import warnings

from benchkit._validation import BenchkitValueError
from benchkit._validation import BenchkitWarning

__all__ = ["PARTIAL_HINT", "Declared"]

PARTIAL_HINT = ("pass allow_partial=True to read a partial or edited log anyway (the mismatches are "
                "listed in meta['partial'])")


class Declared:
    """Comparisons between what a log declares and what was read (see the module docstring)."""

    def __init__(self) -> None:
        self.mismatches: list[dict] = []

    def count(self, where: str, what: str, declared, found) -> None:
        """``declared`` and ``found`` must be equal (e.g. a sample count)."""
        if declared != found:
            self.mismatches.append({"where": where, "what": what, "declared": declared, "found": found})

    def score(self, where: str, what: str, declared: float, found: float, *, tol: float = 1e-6) -> None:
        """``found`` (the mean of what was read) must equal ``declared`` within ``tol``.

        ``tol`` covers the tool's own rounding (EvalScope rounds scores to 4 decimals).
        """
        if not (isinstance(declared, (int, float)) and math.isfinite(declared)):
            return
        if not abs(float(declared) - float(found)) <= tol:
            self.mismatches.append({"where": where, "what": what, "declared": declared,
                                    "found": round(float(found), 12)})

    def settle(self, allow_partial: bool, *, stacklevel: int = 3) -> list[dict]:
        """Raise on any mismatch unless ``allow_partial``; then warn and return them (for meta)."""
        if not self.mismatches:
            return []
        shown = "; ".join(f"{m['where']}: {m['what']}: the log declares {m['declared']!r}, read "
                          f"{m['found']!r}" for m in self.mismatches[:5])
        more = f" (and {len(self.mismatches) - 5} more)" if len(self.mismatches) > 5 else ""
        text = (f"{len(self.mismatches)} mismatch(es) between what the tool declared and what was read: "
                f"{shown}{more}")
        if not allow_partial:
            raise BenchkitValueError(f"{text}; {PARTIAL_HINT}")
        warnings.warn(text, BenchkitWarning, stacklevel=stacklevel)
        return list(self.mismatches)
