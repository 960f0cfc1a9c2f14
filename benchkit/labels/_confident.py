r"""Confident learning: per-class thresholds and the confident joint (Northcutt et al., 2021).

Given predicted class probabilities :math:`\hat p(\tilde y = j; x)` that did not see the given
labels and the given (noisy) labels, an example "confidently belongs" to class j when
:math:`\hat p_j \ge t_j`, with :math:`t_j` the mean self-confidence of the examples labelled j
(Eq. 2). The confident joint :math:`C[\tilde y, y^*]` counts the examples by given label and
confident class; its off-diagonal holds the label-issue candidates. Here the examples are items,
the classes options and the given labels the answer key.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array

__all__ = ["ConfidentJoint", "confident_joint", "confident_thresholds"]

_FUZZ = 1e-6  # cleanlab compares p >= t - 1e-6 (count.compute_confident_joint)
_LOWEST = 2e-6  # cleanlab's CONFIDENT_THRESHOLDS_LOWER_BOUND


@result
class ConfidentJoint:
    r"""The confident joint of given labels and confidently predicted classes (:func:`confident_joint`).

    Which examples' given labels the (out-of-sample) predicted probabilities contradict: an example
    counts off the diagonal when another class reaches its per-class threshold. Here the examples
    are items, the classes their options and the given labels the answer key.

    Parameters
    ----------
    thresholds, confident, counts, calibrated, off_diagonal
        The fields described under Attributes (built by :func:`confident_joint`).

    Attributes
    ----------
    thresholds : ndarray (k,)
        :math:`t_j`: mean predicted probability of class j over the examples labelled j (``inf``
        for a class no example is labelled with: nothing is confidently counted into it).
    confident : ndarray of int (n,)
        The confident class of each example, -1 when no class reaches its threshold.
    counts : ndarray of int (k, k)
        :math:`C[\tilde y = i, y^* = j]`, the diagonal clipped to at least 1 (as cleanlab).
    calibrated : ndarray (k, k)
        Eq. 3: rows rescaled to the label counts, then the whole to n (floats, not rounded).
    off_diagonal : ndarray of bool (n,)
        Confident class present and different from the given label: the label-issue candidates.

    References
    ----------
    Northcutt, Jiang and Chuang (2021), JAIR 70, 1373-1411: the confident joint of Sec. 3.1 and
    its calibration.

    Examples
    --------
    Four items with three options; item 3 is keyed A but its models lean to C:

    >>> from benchkit.labels.steps import confident_joint
    >>> probs = [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.2, 0.7], [0.1, 0.1, 0.8]]
    >>> cj = confident_joint(probs, [0, 1, 2, 0])
    >>> cj.thresholds.round(3).tolist(), cj.confident.tolist(), cj.off_diagonal.tolist()
    ([0.45, 0.7, 0.7], [0, 1, 2, 2], [False, False, False, True])
    """

    thresholds: np.ndarray
    confident: np.ndarray
    counts: np.ndarray
    calibrated: np.ndarray
    off_diagonal: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        """The counts as a table: rows the given label, columns the confident class."""
        k = self.counts.shape[0]
        return pd.DataFrame(self.counts, index=pd.Index(range(k), name="given"),
                            columns=pd.Index(range(k), name="confident"))


def _check(probs, labels, valid):
    P = check_array("probs", probs, ndim=2, dtype="float")
    y = check_array("labels", labels, ndim=1, dtype="int", shape=(P.shape[0],))
    k = P.shape[1]
    if np.any((y < 0) | (y >= k)):
        bad = y[(y < 0) | (y >= k)][0]
        raise BenchkitValueError(f"labels must be class indices 0..{k - 1}; got {bad}")
    ok = np.ones_like(P, dtype=bool) if valid is None else np.asarray(valid, dtype=bool)
    if ok.shape != P.shape:
        raise BenchkitValueError(f"valid must have the shape of probs {P.shape}; got {ok.shape}")
    if not ok[np.arange(y.size), y].all():
        i = int(np.flatnonzero(~ok[np.arange(y.size), y])[0])
        raise BenchkitValueError(f"labels[{i}] = {y[i]} is not a valid class of example {i}")
    return P, y, ok


def confident_thresholds(probs, labels, *, valid=None) -> np.ndarray:
    r"""Per-class thresholds :math:`t_j = \text{mean}_{x: \tilde y = j}\, \hat p_j(x)` (Eq. 2).

    Parameters
    ----------
    probs : array_like (n, k)
        Predicted class probabilities that did not see ``labels``.
    labels : array_like of int (n,)
        Given labels, ``0..k-1``.
    valid : array_like of bool (n, k), optional
        The classes each example can take (default all); a label must be valid.

    Returns
    -------
    ndarray (k,)
        Clipped below at 2e-6; ``inf`` for a class no example is labelled with.

    References
    ----------
    C. G. Northcutt, L. Jiang and I. L. Chuang (2021), "Confident learning: estimating uncertainty
    in dataset labels", Journal of Artificial Intelligence Research 70, 1373-1411. (the per-class threshold
    :math:`t_j`, Eq. 2).

    Examples
    --------
    >>> from benchkit.labels.steps import confident_thresholds
    >>> confident_thresholds([[0.9, 0.1], [0.7, 0.3], [0.2, 0.8]], [0, 0, 1]).tolist()
    [0.8, 0.8]
    """
    P, y, _ = _check(probs, labels, valid)
    k = P.shape[1]
    sums = np.bincount(y, weights=P[np.arange(y.size), y], minlength=k)
    n = np.bincount(y, minlength=k)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(n > 0, sums / np.maximum(n, 1), np.inf)
    return np.maximum(t, _LOWEST)


def confident_joint(probs, labels, *, valid=None, thresholds=None) -> ConfidentJoint:
    r"""The confident joint of Northcutt, Jiang and Chuang (2021), Sec. 3.1.

    Parameters
    ----------
    probs : array_like (n, k)
        Predicted class probabilities that did not see ``labels`` (here: the ability-weighted
        share of models choosing each option).
    labels : array_like of int (n,)
        Given labels (here: the answer key).
    valid : array_like of bool (n, k), optional
        The classes each example can take (default all); an invalid class is never confident.
    thresholds : array_like (k,), optional
        Default :func:`confident_thresholds`.

    Returns
    -------
    ConfidentJoint

    Notes
    -----
    Eq. 1-3: example x with label i counts into :math:`C[i, j]` when :math:`\hat p_j(x) \ge t_j`;
    when several classes reach their thresholds, the one with the largest :math:`\hat p` wins
    (cleanlab's rule, with its comparison ``p >= t - 1e-6`` and the diagonal clipped to at least
    1). The calibrated joint rescales row i to the number of examples labelled i and the total to
    n (cleanlab rounds it to integers; here it stays float).

    References
    ----------
    C. G. Northcutt, L. Jiang and I. L. Chuang (2021), "Confident learning: estimating uncertainty
    in dataset labels", Journal of Artificial Intelligence Research 70, 1373-1411.

    Examples
    --------
    The third example is labelled 0 but confidently class 1 (its 0.95 reaches t_1 = 0.9):

    >>> from benchkit.labels.steps import confident_joint
    >>> cj = confident_joint([[0.9, 0.1], [0.1, 0.9], [0.05, 0.95]], [0, 1, 0])
    >>> cj.thresholds.round(3).tolist(), cj.confident.tolist()
    ([0.475, 0.9], [0, 1, 1])
    >>> cj.off_diagonal.tolist()
    [False, False, True]
    """
    P, y, ok = _check(probs, labels, valid)
    k = P.shape[1]
    t = confident_thresholds(P, y, valid=ok) if thresholds is None else check_array(
        "thresholds", thresholds, ndim=1, dtype="float", finite=False, shape=(k,))
    above = (P >= t - _FUZZ) & ok
    n_above = above.sum(axis=1)
    confident = np.where(n_above > 1, np.where(above, P, -np.inf).argmax(axis=1), above.argmax(axis=1))
    confident = np.where(n_above > 0, confident, -1)
    has = confident >= 0
    counts = np.zeros((k, k), dtype=np.int64)
    np.add.at(counts, (y[has], confident[has]), 1)
    np.fill_diagonal(counts, np.maximum(np.diag(counts), 1))
    label_counts = np.bincount(y, minlength=k)
    rows = counts.sum(axis=1)
    calibrated = counts / rows[:, None] * label_counts[:, None]
    calibrated = calibrated * (y.size / calibrated.sum())
    return ConfidentJoint(thresholds=t, confident=confident, counts=counts, calibrated=calibrated,
                          off_diagonal=has & (confident != y))
