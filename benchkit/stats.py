"""Statistics shared by every method.

Rank agreement, multiple testing, divergences, entropies, exact tails and bootstrap intervals.

One implementation of each, used everywhere it applies; each is checked against scipy /
statsmodels in ``tests/test_stats.py``. The two-class scores and agreement measures (from
:func:`auroc` to :func:`jaccard`) live in ``benchkit/_stats_classification.py``; import them from here.

=====================================  ===========================================================
:func:`kendall_tau_b`                  Kendall's tau-b, batched over leading axes (scipy semantics)
:func:`holm`                           Holm step-down adjusted p-values
:func:`benjamini_hochberg`             Benjamini-Hochberg adjusted p-values (q-values)
:func:`jsd`                            Jensen-Shannon divergence, natural logs
:func:`xlogx`                          ``x log x`` with ``0 log 0 = 0``
:func:`normalized_entropy`             Shannon entropy divided by ``log(n_states)``
:func:`hypergeom_sf`                   exact hypergeometric upper tail ``P(X >= k)``
:func:`percentile_interval`            percentile bootstrap interval of replicates
:func:`bootstrap_interval`             percentile, basic or BCa interval with its diagnostics
                                       (bias, z0, acceleration, whether the estimate is inside)
:func:`auroc`                          area under the ROC curve by the rank (Mann-Whitney) formula
:func:`roc_curve`                      the ROC curve's points (one per distinct score)
:func:`average_precision`              average precision (area under the precision-recall steps)
:func:`mcnemar_exact`                  exact McNemar p-value from the two discordant counts
:func:`cohen_kappa`                    Cohen's kappa of two label sequences
:func:`jaccard`                        Jaccard index of two boolean masks (flag sets)
=====================================  ===========================================================
"""
from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np

from benchkit._stats_bootstrap import BootstrapInterval
from benchkit._stats_bootstrap import bootstrap_interval
from benchkit._stats_classification import auroc
from benchkit._stats_classification import average_precision
from benchkit._stats_classification import cohen_kappa
from benchkit._stats_classification import jaccard
from benchkit._stats_classification import mcnemar_exact
from benchkit._stats_classification import roc_curve
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_choice
from benchkit._validation import check_int
from benchkit._validation import check_probability
from benchkit._validation import describe

__all__ = [
    "kendall_tau_b",
    "holm",
    "benjamini_hochberg",
    "jsd",
    "xlogx",
    "normalized_entropy",
    "hypergeom_sf",
    "percentile_interval",
    "BootstrapInterval",
    "bootstrap_interval",
    "auroc",
    "roc_curve",
    "average_precision",
    "mcnemar_exact",
    "cohen_kappa",
    "jaccard",
]

_PAIR_CHUNK = 1 << 22  # pairs per chunk in kendall_tau_b (bounds memory for long rankings)


def kendall_tau_b(x, y, *, nan_policy: str = "raise", min_objects: int = 2) -> np.ndarray | float:
    r"""Kendall's :math:`\tau_b` between rankings, batched over leading axes.

    Parameters
    ----------
    x, y : array_like (..., n)
        Scores of the same n objects (e.g. models on a subset and on the full benchmark);
        broadcast against each other.
    nan_policy : {"raise", "omit"}, default "raise"
        "omit": each ranking pair (each leading index) uses the objects scored in both x and y
        (pairwise complete, as ``scipy.stats.kendalltau(nan_policy="omit")``), so different rows
        may use different objects.
    min_objects : int, default 2
        With ``nan_policy="omit"``: fewest objects scored in both for a defined tau (NaN below).

    Returns
    -------
    float or ndarray
        :math:`\tau_b = (n_c - n_d) / \sqrt{(n_0 - n_1)(n_0 - n_2)}` with :math:`n_0 = n(n-1)/2`
        and :math:`n_1, n_2` the pairs tied in x, y; NaN when x or y is constant (as
        ``scipy.stats.kendalltau``, the oracle in the tests).

    Notes
    -----
    Counts over all pairs (O(n^2) time, memory bounded by chunks of pairs), exact in integers, so
    ties are handled as scipy does. Benchmark² Eq. 1 (CBRC) and the subset-ranking scores of
    BSDProbe use it. With ``nan_policy="omit"`` a pair of objects counts only where both objects
    are scored in both rankings.

    References
    ----------
    M. G. Kendall (1945), "The treatment of ties in ranking problems", Biometrika 33(3), 239-251
    (the tie-corrected tau-b).

    Examples
    --------
    One swapped pair among the six pairs of four models: five concordant, one discordant, so
    tau = (5 - 1) / 6. Leading axes are batches (one tau per row):

    >>> from benchkit.stats import kendall_tau_b
    >>> kendall_tau_b([1, 2, 3, 4], [1, 3, 2, 4])
    0.6666666666666666
    >>> kendall_tau_b([[1, 2, 3, 4], [4, 3, 2, 1]], [1, 2, 3, 4]).tolist()
    [1.0, -1.0]
    """
    check_choice("nan_policy", nan_policy, ["raise", "omit"])
    omit = nan_policy == "omit"
    xa = check_array("x", x, ndim=None, dtype="float", finite=not omit)
    ya = check_array("y", y, ndim=None, dtype="float", finite=not omit)
    if xa.ndim == 0 or ya.ndim == 0:
        raise BenchkitValueError("x and y must have at least one axis (the ranked objects)")
    if xa.shape[-1] != ya.shape[-1]:
        raise BenchkitValueError(
            f"x and y must rank the same number of objects; got {xa.shape[-1]} and {ya.shape[-1]}"
        )
    n = xa.shape[-1]
    if n < 2:
        raise BenchkitValueError(f"Kendall tau needs at least 2 objects; got {n}")
    xa, ya = np.broadcast_arrays(xa, ya)
    i, j = np.triu_indices(n, 1)
    n0 = i.size
    batch = int(np.prod(xa.shape[:-1], dtype=np.int64))
    step = max(1, _PAIR_CHUNK // max(batch, 1))
    s = np.zeros(xa.shape[:-1], dtype=np.int64)
    tx = np.zeros(xa.shape[:-1], dtype=np.int64)
    ty = np.zeros(xa.shape[:-1], dtype=np.int64)
    for a in range(0, n0, step):
        ii, jj = i[a:a + step], j[a:a + step]
        dx = xa[..., ii] - xa[..., jj]
        dy = ya[..., ii] - ya[..., jj]
        if omit:  # a pair of objects counts where both are scored in both rankings
            both = ~(np.isnan(dx) | np.isnan(dy))
            dx, dy = np.where(both, dx, 0.0), np.where(both, dy, 0.0)
        sx = np.sign(dx).astype(np.int8)
        sy = np.sign(dy).astype(np.int8)
        s += (sx.astype(np.int64) * sy).sum(-1)
        tx += (sx != 0).sum(-1)
        ty += (sy != 0).sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = s / np.sqrt(tx.astype(float) * ty)
    undefined = (tx == 0) | (ty == 0)
    if omit:
        min_objects = check_int("min_objects", min_objects, min=2)
        undefined |= (~(np.isnan(xa) | np.isnan(ya))).sum(-1) < min_objects
    tau = np.where(undefined, np.nan, np.clip(tau, -1.0, 1.0))
    return float(tau) if tau.ndim == 0 else tau


def holm(pvalues) -> np.ndarray:
    """Holm (1979) step-down adjusted p-values.

    Controls the family-wise error rate over ``m`` tests without assuming independence: reject
    hypothesis ``i`` at level alpha where the adjusted p-value is ``<= alpha``.

    Parameters
    ----------
    pvalues : array_like (m,)
        Raw p-values, each in [0, 1].

    Returns
    -------
    ndarray (m,)
        Adjusted p-values in the input order: ``p_(i) * (m - i + 1)`` in ascending order, made
        monotone by a cumulative maximum and capped at 1 (equal p-values keep their input order).

    Notes
    -----
    ``statsmodels.stats.multitest.multipletests(method="holm")`` is the oracle in the tests.

    References
    ----------
    S. Holm (1979), "A simple sequentially rejective multiple test procedure", Scandinavian Journal
    of Statistics 6(2), 65-70.

    Examples
    --------
    The smallest p-value is multiplied by 3, the next by 2 (then raised to keep the order):

    >>> from benchkit.stats import holm
    >>> holm([0.01, 0.04, 0.03]).round(4).tolist()
    [0.03, 0.06, 0.06]
    """
    def step_down(ps, m):
        return np.minimum(1.0, np.maximum.accumulate(ps * (m - np.arange(m))))

    return _adjusted(pvalues, step_down)


def benjamini_hochberg(pvalues) -> np.ndarray:
    """Benjamini-Hochberg (1995) adjusted p-values (q-values) controlling the false discovery rate.

    Reject at FDR level q where the result is ``<= q``: among the rejected hypotheses, the expected
    share of true nulls is at most q (for independent or positively dependent tests).

    Parameters
    ----------
    pvalues : array_like (m,)
        Raw p-values, each in [0, 1].

    Returns
    -------
    ndarray (m,)
        q-values in the input order: ``min_{j >= i} p_(j) * m / j`` over the ascending p-values,
        capped at 1.

    Notes
    -----
    ``statsmodels.stats.multitest.multipletests(method="fdr_bh")`` is the oracle in the tests.

    References
    ----------
    Y. Benjamini and Y. Hochberg (1995), "Controlling the false discovery rate: a practical and
    powerful approach to multiple testing", Journal of the Royal Statistical Society B 57(1),
    289-300.

    Examples
    --------
    >>> from benchkit.stats import benjamini_hochberg
    >>> benjamini_hochberg([0.01, 0.04, 0.03]).round(4).tolist()
    [0.03, 0.04, 0.04]
    """
    def step_up(ps, m):
        scaled = ps * m / np.arange(1, m + 1)
        return np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])

    return _adjusted(pvalues, step_up)


def _adjusted(pvalues, adjust) -> np.ndarray:
    """``adjust(sorted p-values, m)`` (ascending, stable order) put back in the input order."""
    p = _pvalues(pvalues)
    m = p.size
    order = np.argsort(p, kind="stable")
    out = np.empty(m)
    out[order] = adjust(p[order], m)
    return out


def _pvalues(pvalues) -> np.ndarray:
    p = check_array("pvalues", pvalues, ndim=1, dtype="float")
    if np.any((p < 0) | (p > 1)):
        bad = p[(p < 0) | (p > 1)][0]
        raise BenchkitValueError(f"pvalues must lie in [0, 1]; got {describe(bad)}")
    return p


def xlogx(x) -> np.ndarray:
    """``x * log(x)`` elementwise with ``0 log 0 = 0`` (natural log).

    The summand of every entropy in benchkit (``H(p) = -sum(xlogx(p))``).

    Parameters
    ----------
    x : array_like
        Non-negative values (probabilities); entries ``<= 0`` give 0.

    Returns
    -------
    ndarray
        ``x log x`` (float64, the shape of ``x``).

    References
    ----------
    T. M. Cover and J. A. Thomas (2006), Elements of Information Theory, 2nd ed., Wiley, Sec. 2.1
    (the convention ``0 log 0 = 0``).

    Examples
    --------
    >>> from benchkit.stats import xlogx
    >>> xlogx([0.0, 0.5, 1.0]).round(4).tolist()
    [0.0, -0.3466, 0.0]
    """
    p = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)


def jsd(P, Q, *, axis: int = -1) -> np.ndarray:
    """Jensen-Shannon divergence with natural logs, in ``[0, log 2]``.

    How far apart two answer distributions are: 0 for identical distributions, ``log 2`` for
    distributions with disjoint support.

    Parameters
    ----------
    P, Q : array_like
        Probability distributions along ``axis`` (not renormalized here); broadcast against each
        other.
    axis : int, default -1
        The axis holding the states.

    Returns
    -------
    ndarray
        One divergence per distribution pair (the shape of ``P`` and ``Q`` without ``axis``).

    Notes
    -----
    ``JSD = H(M) - (H(P) + H(Q)) / 2`` with ``M = (P + Q) / 2``, which equals
    ``(KL(P||M) + KL(Q||M)) / 2`` (BSDProbe App. G, Eq. 20), clipped at 0 against rounding. The
    oracle in the tests is ``scipy.spatial.distance.jensenshannon(P, Q) ** 2``.

    References
    ----------
    J. Lin (1991), "Divergence measures based on the Shannon entropy", IEEE Transactions on
    Information Theory 37(1), 145-151. H. Hu et al., "Are Benchmarks Reliable? Toward Structural
    Diagnosis via Item-Level Capability Boundaries" (BSDProbe), arXiv:2609.33196, App. G, Eq. (20).

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.stats import jsd
    >>> round(float(jsd([1.0, 0.0], [0.0, 1.0])), 4), round(float(np.log(2)), 4)
    (0.6931, 0.6931)
    >>> jsd([[0.5, 0.5], [0.9, 0.1]], [0.5, 0.5]).round(4).tolist()
    [0.0, 0.1017]
    """
    P = np.asarray(P, dtype=np.float64)
    Q = np.asarray(Q, dtype=np.float64)
    M = 0.5 * (P + Q)
    out = 0.5 * (xlogx(P).sum(axis) + xlogx(Q).sum(axis)) - xlogx(M).sum(axis)
    return np.maximum(out, 0.0)


def normalized_entropy(probs, *, n_states=None, axis: int = -1) -> np.ndarray:
    """Shannon entropy of distributions along ``axis`` divided by ``log(n_states)``.

    Parameters
    ----------
    probs : array_like
        Probabilities (each slice along ``axis`` sums to 1; not renormalized here).
    n_states : int or array_like of int, optional
        The number of possible states; defaults to the length of ``axis``. An array broadcasts
        against the result (one count per distribution).
    axis : int, default -1
        The axis holding the states.

    Returns
    -------
    ndarray
        In ``[0, 1]``; 0 where ``n_states <= 1``. 1 means the mass is spread evenly over all
        ``n_states`` states, 0 that it sits on one state.

    Notes
    -----
    BSDProbe Eq. 2 (normalized entropy over the M_q answer states seen for an item; 0 when
    M_q = 1) and the landscape's H_norm (entropy of the renormalized non-top options over
    ``log(k - 1)``; 0 when k = 2) are both this function. ``0 log 0 = 0``; the result is clipped
    to [0, 1] against rounding. Oracle in the tests: ``scipy.stats.entropy(p) / log(n)``.

    References
    ----------
    C. E. Shannon (1948), "A mathematical theory of communication", Bell System Technical Journal
    27(3), 379-423. H. Hu et al. (BSDProbe), arXiv:2609.33196, Sec. 3.1, Eq. (2). "Auditing MCQA
    Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.2 (H_norm).

    Examples
    --------
    Two answer states seen out of four possible, half the samples in each:

    >>> from benchkit.stats import normalized_entropy
    >>> round(float(normalized_entropy([0.5, 0.5, 0.0, 0.0])), 4)
    0.5
    >>> normalized_entropy([[0.5, 0.5], [1.0, 0.0]]).tolist()
    [1.0, 0.0]
    """
    p = np.asarray(probs, dtype=np.float64)
    h = -xlogx(p).sum(axis=axis)
    m = np.asarray(p.shape[axis] if n_states is None else n_states, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(m > 1, h / np.log(np.maximum(m, 2.0)), 0.0)
    return np.clip(out, 0.0, 1.0)


def hypergeom_sf(k: int, M: int, n: int, N: int) -> float:
    """Exact ``P(X >= k)`` for ``X ~ Hypergeometric(M population, n successes, N draws)``.

    The p-value of an overlap: the chance that ``N`` items drawn at random from ``M``, of which
    ``n`` are marked, contain at least ``k`` marked ones.

    Parameters
    ----------
    k : int
        The observed count of marked items among the draws.
    M : int
        Population size.
    n : int
        Marked items in the population.
    N : int
        Items drawn (without replacement).

    Returns
    -------
    float
        ``P(X >= k)``: 1 when ``k`` is at or below the smallest possible count, 0 above the largest.

    Notes
    -----
    Exact integer arithmetic (``math.comb``, :class:`fractions.Fraction`), rounded once to float.
    Oracle in the tests: ``scipy.stats.hypergeom(M, n, N).sf(k - 1)`` (the same parameter order).

    References
    ----------
    N. L. Johnson, A. W. Kemp and S. Kotz (2005), Univariate Discrete Distributions, 3rd ed., Wiley,
    Ch. 6 (the hypergeometric distribution).

    Examples
    --------
    10 items, 4 of them marked, 3 drawn: all three marked with probability C(4,3) / C(10,3) = 4/120.

    >>> from benchkit.stats import hypergeom_sf
    >>> round(hypergeom_sf(3, 10, 4, 3), 6)
    0.033333
    """
    lo, hi = max(0, N - (M - n)), min(n, N)
    if k <= lo:
        return 1.0
    if k > hi:
        return 0.0
    num = sum(math.comb(n, x) * math.comb(M - n, N - x) for x in range(k, hi + 1))
    return float(Fraction(num, math.comb(M, N)))


def percentile_interval(replicates, *, confidence_level: float = 0.95, axis: int = 0
                        ) -> tuple[np.ndarray | float, np.ndarray | float]:
    """Percentile bootstrap interval: the ``(1 - c)/2`` and ``(1 + c)/2`` quantiles of replicates.

    Parameters
    ----------
    replicates : array_like
        Bootstrap replicates of a statistic along ``axis``; NaN replicates (undefined statistic on a
        resample) are left out.
    confidence_level : float, default 0.95
        The interval's coverage c, strictly between 0 and 1.
    axis : int, default 0
        The axis holding the replicates.

    Returns
    -------
    (low, high)
        Floats for 1-D replicates, arrays otherwise; NaN where no replicate is finite.

    Notes
    -----
    Linear interpolation between order statistics, as ``scipy.stats.bootstrap(method="percentile")``
    (the oracle in the tests: the same interval from its ``bootstrap_distribution``).

    References
    ----------
    B. Efron and R. J. Tibshirani (1993), An Introduction to the Bootstrap, Chapman & Hall, Ch. 13
    (the percentile interval).

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.stats import percentile_interval
    >>> percentile_interval(np.arange(101.0), confidence_level=0.9)
    (5.0, 95.0)
    """
    c = check_probability("confidence_level", confidence_level, open_interval=True)
    r = np.asarray(replicates, dtype=np.float64)
    q = [(1 - c) / 2, (1 + c) / 2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN slice gives NaN
        lo, hi = np.nanquantile(r, q, axis=axis) if r.size else (np.nan, np.nan)
    if np.ndim(lo) == 0:
        return float(lo), float(hi)
    return lo, hi
