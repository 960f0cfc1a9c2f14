"""Statistics shared by every method.

Rank agreement, multiple testing, divergences, entropies, exact tails and bootstrap intervals.

One implementation of each, used everywhere it applies; each is checked against scipy /
statsmodels in ``tests/test_stats.py``.

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
from typing import Any

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_bool
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


_INTERVAL_METHODS = ("percentile", "basic", "bca")


@result
class BootstrapInterval:
    r"""A bootstrap confidence interval and the diagnostics that say whether to trust it.

    Every field is a float for one statistic, or an array of the statistics' shape.

    Attributes
    ----------
    low, high : float or ndarray
        The interval (NaN where it cannot be computed).
    estimate : float or ndarray
        The statistic on the data.
    method : str
        "percentile", "basic" or "bca".
    confidence_level : float
        Nominal coverage (0.95 for a 95% interval).
    bias : float or ndarray
        Mean of the defined replicates minus the estimate (the bootstrap estimate of bias).
    se : float or ndarray
        Standard deviation of the defined replicates (ddof = 1).
    z0 : float or ndarray
        Bias-correction constant :math:`\Phi^{-1}(\hat p)`, :math:`\hat p` the share of defined
        replicates below the estimate, ties counted half (as scipy); +-inf when every replicate
        lies on one side.
    acceleration : float or ndarray
        BCa acceleration from the jackknife (0 for the other methods, or without a jackknife).
    level_low, level_high : float or ndarray
        Quantile levels of the replicates the bounds are read at (BCa adjusts them).
    n_finite : int or ndarray
        Defined (finite) replicates; undefined ones are left out.
    inside : bool or ndarray
        ``low <= estimate <= high``.
    reason : str, None or ndarray of object
        Why the interval cannot be trusted (None where it can): undefined estimate, too many
        undefined replicates, every replicate on one side, the estimate outside the interval
        (also when it was extended to the estimate), or an adjusted level beyond what the
        replicates resolve.
    extended : bool or ndarray
        The method's interval did not contain the estimate and one bound was moved to the
        estimate (``contain_estimate=True`` only; always False otherwise).

    References
    ----------
    Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*, Ch. 13-14.

    Examples
    --------
    Replicates far below the estimate (a statistic that shrinks under resampling): the basic
    interval lies wholly above it, and ``contain_estimate=True`` extends it down to the estimate.

    >>> import numpy as np
    >>> from benchkit.stats import bootstrap_interval
    >>> reps = np.linspace(0.0, 1.0, 201)
    >>> iv = bootstrap_interval(reps, 0.99, method="basic")
    >>> round(iv.low, 3), round(iv.high, 3), iv.inside
    (1.005, 1.955, False)
    >>> iv.reason
    'the estimate lies outside the basic interval (98.8% of replicates below it, z0 = 2.24)'
    >>> iv = bootstrap_interval(reps, 0.99, method="basic", contain_estimate=True)
    >>> round(iv.low, 3), round(iv.high, 3), iv.inside, iv.extended, round(iv.z0, 2)
    (0.99, 1.955, True, True, 2.24)
    >>> iv.reason[-23:]
    'interval extended to it'
    """

    low: Any
    high: Any
    estimate: Any
    method: str
    confidence_level: float
    bias: Any
    se: Any
    z0: Any
    acceleration: Any
    level_low: Any
    level_high: Any
    n_finite: Any
    inside: Any
    reason: Any
    extended: Any

    @property
    def trusted(self):
        """True where :attr:`reason` is None."""
        r = np.asarray(self.reason, dtype=object)
        out = np.vectorize(lambda v: v is None, otypes=[bool])(r) if r.ndim else r.item() is None
        return bool(out) if np.ndim(out) == 0 else out

    def to_frame(self) -> pd.DataFrame:
        """One row per statistic (flattened in C order) with every field."""
        cols = ["estimate", "low", "high", "bias", "se", "z0", "acceleration", "level_low",
                "level_high", "n_finite", "inside", "extended", "reason"]
        return pd.DataFrame({c: np.ravel(np.asarray(getattr(self, c), dtype=object if c == "reason"
                                                     else None)) for c in cols})


def bootstrap_interval(replicates, estimate, *, method: str = "bca", jackknife=None,
                       confidence_level: float = 0.95, contain_estimate: bool = False,
                       axis: int = 0) -> BootstrapInterval:
    r"""Percentile, basic or BCa bootstrap interval with its diagnostics.

    Parameters
    ----------
    replicates : array_like
        Bootstrap replicates of one or several statistics along ``axis``; NaN replicates
        (statistic undefined on a resample) are left out, per statistic.
    estimate : float or array_like
        The statistic on the data (the shape of ``replicates`` without ``axis``).
    method : {"percentile", "basic", "bca"}, default "bca"
        "percentile": the :math:`(1 \mp c)/2` quantiles; "basic" (reverse percentile):
        :math:`2\hat\theta - q_{(1 \pm c)/2}`; "bca": bias-corrected and accelerated percentile.
    jackknife : sequence of array_like, optional
        For "bca": leave-one-out values of the statistic(s), one array ``(n_j, ...)`` per
        independently resampled sample j (Efron and Tibshirani 1993, Eq. 14.15; with several
        samples the sums run over all of them, as ``scipy.stats.bootstrap`` does). Without it the
        acceleration is 0 (the bias-corrected "BC" interval).
    confidence_level : float, default 0.95
        Nominal coverage of the interval.
    contain_estimate : bool, default False
        Where the method's interval does not contain the estimate (a bias beyond the interval's
        half-width: every quantile interval then leaves it out, see Notes), move its nearer bound
        to the estimate, so the interval is the smallest one holding both (``extended`` says
        where). The bounds are unchanged wherever the estimate is inside.
    axis : int, default 0
        The replicate axis.

    Returns
    -------
    BootstrapInterval
        Bounds and diagnostics (bias, se, z0, acceleration, the quantile levels used, whether
        the estimate is inside and why the interval cannot be trusted where it cannot).

    Notes
    -----
    The quantiles are numpy's linear ones, :math:`\hat z_0 = \Phi^{-1}\{(\#[\theta^* <
    \hat\theta] + \#[\theta^* \le \hat\theta]) / 2B\}` and the BCa levels
    :math:`\Phi(\hat z_0 + (\hat z_0 + z_\alpha)/(1 - \hat a(\hat z_0 + z_\alpha)))`, exactly
    as ``scipy.stats.bootstrap`` computes them (the oracle in the tests: the same interval from
    ``bootstrap(..., n_resamples=0, bootstrap_result=...)`` on the same replicates). A quantile
    interval (percentile, basic or BCa) contains the estimate only when it lies between the
    :math:`(1 \mp c)/2` quantiles of the replicates (for BCa: :math:`|\hat z_0| \le
    z_{(1+c)/2}`), whatever the method; ``inside`` and ``reason`` report it. A basic interval
    then lies wholly on the far side of the estimate: with :math:`\hat\theta > q_{(1+c)/2}`,
    its low bound :math:`2\hat\theta - q_{(1+c)/2}` exceeds :math:`\hat\theta` (the reflection
    of replicates shrunk below the estimate). ``contain_estimate=True`` moves that bound to
    :math:`\hat\theta`: the interval :math:`[\min(\hat\theta, L), \max(\hat\theta, U)]`
    holds the bias-corrected interval :math:`[L, U]` and the estimate, and is reported as
    ``extended`` (``inside`` is then True; ``z0`` keeps how far the replicates lie from the
    estimate, and ``reason`` still says the interval cannot be trusted: such CBRC intervals of
    :func:`benchkit.quality.assess` covered 0.59 and 0.25 in ``benchmarks/coverage_quality.py``).
    A BCa interval with every replicate on one side (:math:`\hat z_0 = \pm\infty`) stays
    undefined.

    References
    ----------
    Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*, Ch. 13-14.

    Examples
    --------
    >>> import numpy as np
    >>> reps = np.random.default_rng(0).normal(1.0, 0.1, 2000)
    >>> iv = bootstrap_interval(reps, 1.0, method="basic")
    >>> round(iv.low, 2), round(iv.high, 2), iv.inside
    (0.81, 1.19, True)
    """
    from scipy.special import ndtr
    from scipy.special import ndtri

    check_choice("method", method, list(_INTERVAL_METHODS))
    c = check_probability("confidence_level", confidence_level, open_interval=True)
    contain_estimate = check_bool("contain_estimate", contain_estimate)
    r = np.moveaxis(np.asarray(replicates, dtype=np.float64), axis, 0)
    est = np.asarray(estimate, dtype=np.float64)
    if r.shape[1:] != est.shape:
        raise BenchkitValueError(f"estimate must have the replicates' shape without the replicate "
                                 f"axis, {r.shape[1:]}; got {est.shape}")
    shape = est.shape
    R = r.reshape(r.shape[0], -1)
    E = est.reshape(-1)
    jk = None
    if jackknife is not None:
        jk = [np.asarray(j, dtype=np.float64).reshape(np.shape(j)[0], -1) for j in jackknife]
        for j in jk:
            if j.shape[1] != E.size:
                raise BenchkitValueError("each jackknife array must be (n_j, *estimate.shape); got "
                                         f"{j.shape[1]} statistics for {E.size}")
    alpha = (1 - c) / 2
    z_a = float(ndtri(alpha))
    out = {k: np.full(E.size, np.nan) for k in ("low", "high", "bias", "se", "z0", "acc", "l1", "l2")}
    n_fin = np.zeros(E.size, dtype=np.int64)
    reason = np.full(E.size, None, dtype=object)
    extended = np.zeros(E.size, dtype=bool)
    for k in range(E.size):
        x = R[:, k][np.isfinite(R[:, k])]
        n_fin[k] = x.size
        if not np.isfinite(E[k]):
            reason[k] = "estimate undefined"
            continue
        if x.size < 2:
            reason[k] = f"{x.size} defined replicate(s)"
            continue
        out["bias"][k] = x.mean() - E[k]
        out["se"][k] = x.std(ddof=1)
        p = (np.count_nonzero(x < E[k]) + np.count_nonzero(x <= E[k])) / (2 * x.size)
        z0 = float(ndtri(p))
        out["z0"][k] = z0
        a = 0.0
        if method == "bca" and jk is not None:
            nums = dens = 0.0
            for j in jk:
                t = j[:, k]
                u = (t.size - 1) * (t.mean() - t)
                nums += np.sum(u ** 3) / t.size ** 3
                dens += np.sum(u ** 2) / t.size ** 2
            a = float(nums / 6 / dens ** 1.5) if dens > 0 else 0.0
        out["acc"][k] = a if method == "bca" else 0.0
        if method == "bca":
            if not np.isfinite(z0):
                l1 = l2 = np.nan
            else:
                l1 = float(ndtr(z0 + (z0 + z_a) / (1 - a * (z0 + z_a))))
                l2 = float(ndtr(z0 + (z0 - z_a) / (1 - a * (z0 - z_a))))
        else:
            l1, l2 = alpha, 1 - alpha
        out["l1"][k], out["l2"][k] = l1, l2
        if np.isfinite(l1) and np.isfinite(l2):
            lo, hi = np.quantile(x, [l1, l2])
            if method == "basic":
                lo, hi = 2 * E[k] - hi, 2 * E[k] - lo
            tol = 1e-12 * max(1.0, abs(E[k]))  # a bound off the estimate by rounding only (an
            lo = min(lo, E[k]) if lo - E[k] <= tol else lo  # estimate at a quantile of tied
            hi = max(hi, E[k]) if E[k] - hi <= tol else hi  # replicates, 2 est - q != est)
            if contain_estimate and not lo <= E[k] <= hi:
                extended[k] = True
                lo, hi = min(lo, E[k]), max(hi, E[k])
            out["low"][k], out["high"][k] = lo, hi
        undefined = R.shape[0] - x.size
        if undefined > alpha * R.shape[0]:
            reason[k] = (f"{undefined} of {R.shape[0]} replicates undefined (more than the "
                         f"{alpha:.1%} tail)")
        elif not np.isfinite(z0):
            reason[k] = "every replicate lies on one side of the estimate" + (
                "; interval extended to it" if extended[k] else "")
        elif extended[k] or not out["low"][k] <= E[k] <= out["high"][k]:
            reason[k] = (f"the estimate lies outside the {method} interval ({100 * p:.1f}% of "
                         f"replicates below it, z0 = {z0:.2f})"
                         + ("; interval extended to it" if extended[k] else ""))
        elif min(l1, 1 - l2) * x.size < 1:
            reason[k] = (f"an adjusted level ({l1:.4f}, {l2:.4f}) is beyond what {x.size} "
                         "replicates resolve")
    inside = (out["low"] <= E) & (E <= out["high"])

    def shaped(v):
        v = v.reshape(shape)
        return v.item() if v.ndim == 0 else v

    return BootstrapInterval(low=shaped(out["low"]), high=shaped(out["high"]), estimate=shaped(E),
                             method=method, confidence_level=c, bias=shaped(out["bias"]),
                             se=shaped(out["se"]), z0=shaped(out["z0"]),
                             acceleration=shaped(out["acc"]), level_low=shaped(out["l1"]),
                             level_high=shaped(out["l2"]), n_finite=shaped(n_fin),
                             inside=shaped(inside), reason=shaped(reason),
                             extended=shaped(extended))


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

    Examples
    --------
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

    Examples
    --------
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

    Parameters
    ----------
    a, b : array_like of bool, one shape
        Membership of each unit in the two sets.

    Returns
    -------
    float
        In [0, 1]; 1 when both sets are empty (two empty sets are equal).

    Examples
    --------
    >>> from benchkit.stats import jaccard
    >>> jaccard([1, 1, 0, 0], [1, 0, 1, 0])
    0.3333333333333333
    """
    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    if a.shape != b.shape:
        raise BenchkitValueError(f"jaccard needs two boolean masks of one shape; got {a.shape} and {b.shape}")
    u = int(np.sum(a | b))
    return float(np.sum(a & b) / u) if u else 1.0
