"""Answer-key checks: which items' keys the models' choices contradict.

A sixth method on the package template (not from one of the five papers). For each item of a
multiple-choice benchmark, the models' chosen options (or option probabilities) are aggregated by a
Dawid-Skene model that learns how reliable each model is; confident learning compares the
ability-weighted choices with the key.

=============================== ===============================================================
:func:`key_issues`              ResponseSet -> :class:`KeyIssues`: per item a score (higher =
                                more suspect), the alternative, shares choosing it, a flag and
                                its reason; per model its weight and suspect-key picks
:data:`ISSUE_KINDS`             the flag kinds: ``wrong_key``, ``ambiguous``
:mod:`benchkit.labels.steps`    the array-level steps (Dawid-Skene, confident joint, weights)
=============================== ===============================================================

Layout: ``_dawid_skene`` (EM), ``_confident`` (thresholds, confident joint), ``_keys`` (scores,
flags, per-model table on arrays), ``responses`` (the ResponseSet entry point), ``steps`` (the
public array-level steps).
"""
from benchkit.labels import steps as steps
from benchkit.labels._keys import ISSUE_KINDS
from benchkit.labels._keys import KeyIssues
from benchkit.labels.responses import key_issues

__all__ = [
    "ISSUE_KINDS",
    "KeyIssues",
    "key_issues",
]
