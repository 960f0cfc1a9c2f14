"""Two-class scores and agreement.

The ROC curve, AUROC, average precision, the exact McNemar test, Cohen's kappa and the Jaccard index.

Public through :mod:`benchkit.stats` (import them from there); each is checked against scipy /
statsmodels or a hand formula in ``tests/test_stats.py``.
"""
from __future__ import annotations

import numpy as np

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_int

__all__ = ["roc_curve", "auroc", "average_precision", "mcnemar_exact", "cohen_kappa", "jaccard"]


def _scored(scores, labels) -> tuple[np.ndarray, np.ndarray, int, int]:
    s = check_array("scores", scores, ndim=1, dtype="float")
    y = np.asarray(labels)
    if y.shape != s.shape:
        raise BenchkitValueError(f"labels must have the shape of scores {s.shape}; got {y.shape}")
    if y.dtype != bool:
        if not np.isin(y, (0, 1)).all():
            raise BenchkitValueError("labels must be booleans (or 0/1)")
        y = y.astype(bool)
    n1 = int(y.sum())
    n0 = y.size - n1
    if n1 == 0 or n0 == 0:
        raise BenchkitValueError(f"needs positives and negatives among the labels; got {n1} and {n0}")
    return s, y, n1, n0


def roc_curve(scores, labels) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ROC curve: false- and true-positive rates at every distinct score, highest first.

    Parameters
    ----------
    scores, labels : array_like (n,)
        As :func:`auroc`.

    Returns
    -------
    fpr, tpr, thresholds : ndarray
        ``fpr[j], tpr[j]`` are the rates of ``scores >= thresholds[j]``; the first point is
        ``(0, 0)`` at threshold ``inf``. The trapezoid area under the curve equals :func:`auroc`
        (ties form one diagonal step, counted half), which the tests check.

    References
    ----------
    T. Fawcett (2006), "An introduction to ROC analysis", Pattern Recognition Letters 27(8),
    861-874 (Algorithm 1: one point per distinct score).

    Examples
    --------
    >>> from benchkit.stats import roc_curve
    >>> fpr, tpr, t = roc_curve([0.1, 0.4, 0.35, 0.8], [False, False, True, True])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    s, y, n1, n0 = _scored(scores, labels)
    order = np.argsort(-s, kind="stable")
    ss, yy = s[order], y[order]
    last = np.r_[ss[1:] != ss[:-1], True]  # the last position of each run of equal scores
    tp = np.cumsum(yy)[last]
    fp = np.cumsum(~yy)[last]
    return (np.r_[0.0, fp / n0], np.r_[0.0, tp / n1], np.r_[np.inf, ss[last]])


def auroc(scores, labels) -> float:
    """Area under the ROC curve of ``scores`` for the positives in ``labels``, ties counted half.

    Parameters
    ----------
    scores : array_like (n,)
        Higher = more likely positive. Must be finite.
    labels : array_like of bool (n,)
        True for the positives; both classes must be present.

    Returns
    -------
    float
        ``(R_1 - n_1 (n_1 + 1) / 2) / (n_1 n_0)`` with ``R_1`` the sum of the positives' mid-ranks:
        the Mann-Whitney U of the positives over ``n_1 n_0``, i.e. the probability that a random
        positive scores above a random negative (ties count 1/2). The oracle in the tests is
        ``scipy.stats.mannwhitneyu(pos, neg).statistic / (n_1 n_0)``.

    References
    ----------
    J. A. Hanley and B. J. McNeil (1982), "The meaning and use of the area under a receiver
    operating characteristic (ROC) curve", Radiology 143(1), 29-36. H. B. Mann and D. R. Whitney
    (1947), Annals of Mathematical Statistics 18(1), 50-60.

    Examples
    --------
    Of the four (positive, negative) pairs, three have the positive scored higher:

    >>> from benchkit.stats import auroc
    >>> auroc([0.1, 0.4, 0.35, 0.8], [False, False, True, True])
    0.75
    """
    s, y, n1, n0 = _scored(scores, labels)
    order = np.argsort(s, kind="stable")
    sorted_s = s[order]
    # mid-ranks: each run of ties gets the mean of its positions (1-based)
    first = np.r_[True, sorted_s[1:] != sorted_s[:-1]]
    run = np.cumsum(first) - 1
    starts = np.flatnonzero(first)
    ends = np.r_[starts[1:], s.size]
    mid = (starts + ends + 1) / 2.0
    ranks = np.empty(s.size)
    ranks[order] = mid[run]
    return float((ranks[y].sum() - n1 * (n1 + 1) / 2.0) / (n1 * n0))


def mcnemar_exact(b: int, c: int) -> float:
    """Exact McNemar test of paired 0/1 outcomes: the two-sided binomial p-value of the discordant pairs.

    Parameters
    ----------
    b, c : int
        The discordant counts (first right and second wrong; first wrong and second right).

    Returns
    -------
    float
        ``min(1, 2 P(X <= min(b, c)))`` for ``X ~ Binomial(b + c, 1/2)``; 1 when ``b + c = 0``.
        This is ``statsmodels.stats.contingency_tables.mcnemar(table, exact=True).pvalue``, the
        oracle in the tests (McNemar 1947; the exact form conditions on ``b + c``).

    References
    ----------
    Q. McNemar (1947), "Note on the sampling error of the difference between correlated proportions
    or percentages", Psychometrika 12(2), 153-157.

    Examples
    --------
    >>> from benchkit.stats import mcnemar_exact
    >>> round(mcnemar_exact(9, 2), 6)
    0.06543
    """
    from scipy.stats import binom

    b = check_int("b", b, min=0)
    c = check_int("c", c, min=0)
    if b + c == 0:
        return 1.0
    return float(min(1.0, 2.0 * binom.cdf(min(b, c), b + c, 0.5)))


def average_precision(scores, labels) -> float:
    r"""Average precision of ``scores`` for the positives in ``labels`` (ties form one step).

    Parameters
    ----------
    scores, labels : array_like (n,)
        As :func:`auroc`: finite scores (higher = more likely positive) and booleans with both
        classes present.

    Returns
    -------
    float
        :math:`\mathrm{AP} = \sum_j (R_j - R_{j-1}) P_j` over the distinct scores in decreasing
        order, where :math:`P_j` and :math:`R_j` are the precision and recall of
        ``scores >= threshold_j`` (a run of tied scores enters at once). Without ties this is the
        mean, over the positives, of the precision at each positive's rank, the hand formula the
        tests check; with ties it equals ``sklearn.metrics.average_precision_score`` (the second
        oracle). The baseline of a random ranking is the share of positives.

    References
    ----------
    C. D. Manning, P. Raghavan and H. Schütze (2008), *Introduction to Information Retrieval*,
    Cambridge University Press, Sec. 8.4 (evaluation of ranked retrieval results: average
    precision as the mean of the precisions at the ranks of the relevant documents).

    Examples
    --------
    The two positives rank first and third: AP = (1/1 + 2/3) / 2.

    >>> from benchkit.stats import average_precision
    >>> round(average_precision([0.1, 0.4, 0.35, 0.8], [False, False, True, True]), 6)
    0.833333
    """
    s, y, n1, _ = _scored(scores, labels)
    order = np.argsort(-s, kind="stable")
    ss, yy = s[order], y[order]
    last = np.r_[ss[1:] != ss[:-1], True]  # the last position of each run of equal scores
    tp = np.cumsum(yy)[last].astype(np.float64)
    n = (np.flatnonzero(last) + 1).astype(np.float64)
    recall = tp / n1
    return float(np.sum(np.diff(np.r_[0.0, recall]) * (tp / n)))


def cohen_kappa(a, b) -> float:
    r"""Cohen's (1960) kappa of two label sequences: agreement beyond chance.

    Says how much two raters (e.g. two audit methods' flags on the same items) agree beyond what
    their label shares alone would give: 1 is perfect agreement, 0 no more than chance, negative
    less than chance.

    Parameters
    ----------
    a, b : array_like (n,)
        Labels of the same n units by two raters (any comparable values: bools, ints, strings).

    Returns
    -------
    float
        :math:`\kappa = (p_o - p_e) / (1 - p_e)` with the observed agreement :math:`p_o` and the
        chance agreement :math:`p_e = \sum_c p_{a}(c)\,p_{b}(c)` from the two raters' marginal
        shares; NaN when :math:`p_e = 1` (both raters used one and the same label: undefined).
        The oracle in the tests is ``statsmodels.stats.inter_rater.cohens_kappa`` on the
        contingency table, and a hand-worked 2 x 2 case.

    References
    ----------
    J. Cohen (1960), "A coefficient of agreement for nominal scales", Educational and
    Psychological Measurement 20(1), 37-46.

    Examples
    --------
    Observed agreement 4/5, chance agreement (3 x 2 + 2 x 3) / 25 = 0.48, so
    kappa = (0.8 - 0.48) / 0.52:

    >>> from benchkit.stats import cohen_kappa
    >>> round(cohen_kappa([1, 1, 0, 0, 1], [1, 0, 0, 0, 1]), 6)
    0.615385
    """
    a = np.asarray(a)
    b = np.asarray(b)
    if a.ndim != 1 or a.shape != b.shape or a.size == 0:
        raise BenchkitValueError(
            f"cohen_kappa needs two non-empty 1-D label sequences of one length; got shapes "
            f"{a.shape} and {b.shape}")
    labs, codes = np.unique(np.r_[a, b], return_inverse=True)
    ca, cb = codes[:a.size], codes[a.size:]
    po = float(np.mean(ca == cb))
    pe = float(np.sum(np.bincount(ca, minlength=labs.size) * np.bincount(cb, minlength=labs.size))
               / a.size**2)
    return (po - pe) / (1.0 - pe) if pe < 1.0 else float("nan")


def jaccard(a, b) -> float:
    """Jaccard index ``|A and B| / |A or B|`` of two boolean masks (flag or selection sets).

    The share of the units in either set that are in both: how much two methods' flag sets (or
    two selections) overlap, from 0 (disjoint) to 1 (identical).

    Parameters
    ----------
    a, b : array_like of bool, one shape
        Membership of each unit in the two sets.

    Returns
    -------
    float
        In [0, 1]; 1 when both sets are empty (two empty sets are equal).

    References
    ----------
    P. Jaccard (1912), "The distribution of the flora in the alpine zone", New Phytologist 11(2),
    37-50.

    Examples
    --------
    One unit in both sets, three in either:

    >>> from benchkit.stats import jaccard
    >>> jaccard([1, 1, 0, 0], [1, 0, 1, 0])
    0.3333333333333333
    """
    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    if a.shape != b.shape:
        raise BenchkitValueError(f"jaccard needs two boolean masks of one shape; got {a.shape} and {b.shape}")
    u = int(np.sum(a | b))
    return float(np.sum(a & b) / u) if u else 1.0
