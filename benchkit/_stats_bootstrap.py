"""Bootstrap intervals with their diagnostics: percentile, basic and BCa.

Public through :mod:`benchkit.stats` (import them from there); checked against
``scipy.stats.bootstrap`` and hand-worked cases in ``tests/test_stats.py``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_bool
from benchkit._validation import check_choice
from benchkit._validation import check_probability

__all__ = ["BootstrapInterval", "bootstrap_interval"]

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
