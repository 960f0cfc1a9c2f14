"""Array-level steps of the answer-key checks (:mod:`benchkit.labels`).

========================================= ==========================================================
:func:`dawid_skene`, :class:`DawidSkene`  EM fit of per-model confusion matrices; key-free
                                          posterior of each item's true option
:func:`model_weights`                     weighted-majority weights of model accuracies
:func:`confident_thresholds`              per-option thresholds of confident learning (Eq. 2)
:func:`confident_joint`,                  the confident joint and its off-diagonal (Eq. 1-3)
:class:`ConfidentJoint`
:func:`score_keys`                        the whole check on arrays (votes, key) -> KeyIssues
========================================= ==========================================================
"""
from benchkit.labels._confident import ConfidentJoint
from benchkit.labels._confident import confident_joint
from benchkit.labels._confident import confident_thresholds
from benchkit.labels._dawid_skene import DawidSkene
from benchkit.labels._dawid_skene import dawid_skene
from benchkit.labels._keys import model_weights
from benchkit.labels._keys import score_keys

__all__ = [
    "ConfidentJoint",
    "DawidSkene",
    "confident_joint",
    "confident_thresholds",
    "dawid_skene",
    "model_weights",
    "score_keys",
]
