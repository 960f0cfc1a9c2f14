"""Normalized difficulties, DDM and gaps of the empirical measure (paper 002, Sec. 2).

One benchmark's summary and the Table 1 layout are ``_summary``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import integrate
from scipy import special

from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_choice
from benchkit._validation import check_int
from benchkit._validation import describe


# ----------------------------------------------------------------------------------------------
# input helpers
# ----------------------------------------------------------------------------------------------
def _difficulties(name: str, b: Any) -> np.ndarray:
    if hasattr(b, "difficulty") and not isinstance(b, np.ndarray):  # an IRT fit result
        b = b.difficulty
    arr = check_array(name, b, ndim=1, dtype="float", finite=True, min_size=1)
    return arr


def _unit(name: str, z: Any) -> np.ndarray:
    """Normalized difficulties: a non-empty finite 1-D float array in [0, 1]."""
    arr = _difficulties(name, z)
    bad = (arr < 0.0) | (arr > 1.0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise BenchkitValueError(
            f"{name} must hold normalized difficulties in [0, 1]; found {describe(arr[i])} at "
            f"index {i} (normalize first with normalize_difficulty(b))"
        )
    return arr


# ----------------------------------------------------------------------------------------------
# normalization
# ----------------------------------------------------------------------------------------------
def normalize_difficulty(
    b: Any,
    *,
    method: str = "minmax",
    reference: Any = None,
    clip: bool = False,
) -> np.ndarray:
    r"""Map IRT difficulties to the unit interval.

    Parameters
    ----------
    b : array_like, shape (n,), or an IRT fit result (its ``difficulty`` is used)
        Item difficulties on the logit scale (higher = harder), finite.
    method : {"minmax", "logistic"}
        ``"minmax"`` (default, the paper's normalization): :math:`z = (b - \min b) / (\max b - \min
        b)`; ``"logistic"``: :math:`z = \sigma(b) = 1/(1 + e^{-b})`, the failure probability of a
        model of ability 0 (the mean ability of a 1PL fit) under the 1PL model.
    reference : array_like, optional
        For ``"minmax"``: take the minimum and maximum from these difficulties instead of ``b``
        (e.g. the original benchmark's, to place new or calibrated items on its normalized axis).
    clip : bool
        With ``reference``: clip values outside the reference range to [0, 1] (default False: such
        values raise, since they lie outside the benchmark's normalized axis).

    Returns
    -------
    numpy.ndarray of float64, shape (n,)

    Notes
    -----
    The paper computes both metrics "over the normalized difficulty distribution" (Figure 2,
    step 4) without fixing the map; DESIGN fixes min-max as the default and the logistic map as the
    option. Min-max puts the easiest item at 0 and the hardest at 1, so the two boundary gaps of
    :func:`max_gap` are zero. If all difficulties are equal (zero range), every item maps to 0.5.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. "A measure-based view of benchmarks" (difficulties
       z_i in [0, 1]); Figure 2, step 4 (metrics over the normalized difficulty distribution).

    Examples
    --------
    >>> from benchkit.measure.steps import normalize_difficulty
    >>> b = [-2.0, -1.0, 0.0, 0.5, 3.0]                  # 1PL difficulties (logits)
    >>> normalize_difficulty(b)
    array([0. , 0.2, 0.4, 0.5, 1. ])
    >>> normalize_difficulty(b, method="logistic").round(3)
    array([0.119, 0.269, 0.5  , 0.622, 0.953])
    >>> normalize_difficulty([1.0], reference=b)         # a new item on the benchmark's axis
    array([0.6])
    """
    b = _difficulties("b", b)
    check_choice("method", method, ("minmax", "logistic"))
    if method == "logistic":
        if reference is not None:
            raise BenchkitValueError("reference= is only used with method='minmax'")
        return special.expit(b)
    ref = b if reference is None else _difficulties("reference", reference)
    lo, hi = float(ref.min()), float(ref.max())
    if hi == lo:
        if reference is not None and np.any(b != lo) and not clip:
            raise BenchkitValueError(
                "reference has zero range, so values different from it cannot be placed on its "
                "axis; pass clip=True to map them to 0 or 1"
            )
        return np.where(b < lo, 0.0, np.where(b > lo, 1.0, 0.5))
    z = (b - lo) / (hi - lo)
    if reference is not None:
        out = (z < 0.0) | (z > 1.0)
        if out.any() and not clip:
            i = int(np.flatnonzero(out)[0])
            raise BenchkitValueError(
                f"b[{i}]={describe(b[i])} lies outside the reference range [{lo:.6g}, {hi:.6g}]; "
                "pass clip=True to clip it to [0, 1]"
            )
        z = np.clip(z, 0.0, 1.0)
    else:
        z = np.clip(z, 0.0, 1.0)  # exact endpoints despite rounding
    return z


# ----------------------------------------------------------------------------------------------
# DDM
# ----------------------------------------------------------------------------------------------
def _w1_weighted(u: np.ndarray, v: np.ndarray, vw: np.ndarray | None) -> float:
    """W1 between the equal-weight empirical measure of u and a (weighted) discrete measure v."""
    vw = np.full(v.size, 1.0 / v.size) if vw is None else vw / vw.sum()
    uw = np.full(u.size, 1.0 / u.size)
    allv = np.concatenate([u, v])
    order = np.argsort(allv, kind="mergesort")
    xs = allv[order]
    w = np.concatenate([uw, -vw])[order]
    diff = np.cumsum(w)[:-1]  # F_u - F_v on [xs[i], xs[i+1])
    return float(np.sum(np.abs(diff) * np.diff(xs)))


def _w1_lebesgue(zs: np.ndarray) -> float:
    """Exact W1 between the empirical measure of sorted zs (in [0,1]) and Uniform(0, 1).

    On [z_(i), z_(i+1)] with z_(0)=0, z_(n+1)=1 the integrand is |i/n - x|; integrate piecewise.
    """
    n = zs.size
    knots = np.concatenate([[0.0], zs, [1.0]])
    c = np.arange(n + 1) / n
    a, b = knots[:-1], knots[1:]
    # integral of |c - x| over [a, b]
    inside = (c > a) & (c < b)
    whole = np.abs(0.5 * (a + b) - c) * (b - a)  # valid when c is outside (a, b)
    split = 0.5 * (c - a) ** 2 + 0.5 * (b - c) ** 2
    return float(np.sum(np.where(inside, split, whole)))


def _w1_distribution(zs: np.ndarray, dist: Any) -> float:
    """W1 between the empirical measure of sorted zs and a continuous distribution with a cdf."""
    n = zs.size
    cdf = dist.cdf
    total = 0.0
    # left tail: integral of F from -inf to z_(1); right tail: integral of 1 - F from z_(n)
    lo, hi = -np.inf, np.inf
    if hasattr(dist, "support"):
        lo, hi = (float(v) for v in dist.support())
    if zs[0] > lo:
        total += integrate.quad(cdf, lo, zs[0], limit=200)[0]
    if zs[-1] < hi:
        total += integrate.quad(lambda x: 1.0 - cdf(x), zs[-1], hi, limit=200)[0]
    ppf = getattr(dist, "ppf", None)
    for i in range(n - 1):
        a, b = zs[i], zs[i + 1]
        if b <= a:
            continue
        level = (i + 1) / n
        pts = None
        if ppf is not None:
            x = float(ppf(level))
            if a < x < b:
                pts = [x]
        total += integrate.quad(lambda x: abs(level - cdf(x)), a, b, points=pts, limit=200,
                                epsabs=1e-14, epsrel=1e-12)[0]
    return float(total)


def ddm(z: Any, *, target: Any = "uniform") -> float:
    r"""Difficulty Distribution Mismatch: :math:`\mathrm{DDM}(B;\mu) = W_1(\nu_B, \mu)`.

    Parameters
    ----------
    z : array_like, shape (n,)
        Normalized difficulties in [0, 1] (see :func:`normalize_difficulty`).
    target : "uniform", "lebesgue", array_like, (values, weights) tuple, or a distribution
        The target measure :math:`\mu`:

        * ``"uniform"`` (default, the paper's Table 1): the same-size empirical uniform reference,
          equal masses at :math:`(i - 0.5)/n`, :math:`i = 1..n`; then
          :math:`\mathrm{DDM} = \frac1n\sum_i |z_{(i)} - (i-0.5)/n|`;
        * ``"lebesgue"``: the continuous Uniform(0, 1), computed exactly (piecewise integral);
        * an array of values: the empirical measure of that sample (any size);
        * a tuple ``(values, weights)``: a weighted discrete measure;
        * an object with a ``cdf`` method (e.g. a frozen ``scipy.stats`` distribution such as
          ``scipy.stats.beta(2, 2)``): integrated numerically, :math:`\int |F_n - F|`.

    Returns
    -------
    float
        The 1-Wasserstein distance in [0, 1] (difficulty units): how much mass, moved how far,
        turns the benchmark's difficulty distribution into the target; 0 = the benchmark weights
        difficulty exactly as the target. Table 1 highlights DDM >= 0.10.

    Notes
    -----
    Definition from the paper's "Two diagnostic metrics" section (DDM := W_1(nu_B, mu)); the Table 1
    caption fixes the reference as "a same-size empirical uniform distribution on [0, 1]", and
    DESIGN fixes its atoms at (i - 0.5)/n. In one dimension :math:`W_1 = \int |F_B - F_\mu|`, the
    area between the two ECDFs that the paper's explorer shades. Lower is better.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. "Two diagnostic metrics" (DDM(B; mu) := W_1(nu_B,
       mu)), Theorem 2.1, Table 1.

    Examples
    --------
    >>> from benchkit.measure.steps import ddm
    >>> z = [0.05, 0.1, 0.15, 0.3, 0.35, 0.4, 0.8, 0.9]     # normalized difficulties of 8 items
    >>> ddm(z)                         # against the same-size uniform at (i - 0.5)/8
    0.11875
    >>> round(ddm(z, target="lebesgue"), 6)
    0.124375
    """
    zz = _unit("z", z)
    zs = np.sort(zz)
    n = zs.size
    if isinstance(target, str):
        check_choice("target", target, ("uniform", "lebesgue"))
        if target == "uniform":
            ref = (np.arange(n) + 0.5) / n
            return float(np.mean(np.abs(zs - ref)))
        return _w1_lebesgue(zs)
    if hasattr(target, "cdf") and not isinstance(target, np.ndarray):
        return _w1_distribution(zs, target)
    if isinstance(target, tuple):
        if len(target) != 2:
            raise BenchkitValueError(
                f"target as a tuple must be (values, weights); got a tuple of length {len(target)}"
            )
        v = check_array("target values", target[0], ndim=1, dtype="float", min_size=1)
        w = check_array("target weights", target[1], ndim=1, dtype="float", shape=(v.size,))
        if np.any(w < 0) or w.sum() <= 0:
            raise BenchkitValueError("target weights must be non-negative with a positive sum")
        return _w1_weighted(zs, v, w)
    v = check_array("target", target, ndim=1, dtype="float", min_size=1)
    return _w1_weighted(zs, v, None)


# ----------------------------------------------------------------------------------------------
# gaps
# ----------------------------------------------------------------------------------------------
@result
class Gap:
    """One uncovered interval ``[left, right]`` of the difficulty axis.

    A gap is a difficulty range where the benchmark has no item: an improvement confined to a gap
    wider than the maximum gap can stay invisible to the benchmark (Theorem 2.3), and its
    midpoint is the target difficulty of a new item (gap filling).

    Parameters
    ----------
    left, right, width, left_index, right_index, rank
        The fields below (see Attributes); built by :func:`max_gap` and :func:`top_gaps`.

    Attributes
    ----------
    left : float
        Lower end z_(j) of the gap (0 for the gap next to 0).
    right : float
        Upper end z_(j+1) of the gap (1 for the gap next to 1).
    width : float
        right - left, in [0, 1]: the length of difficulty axis with no item.
    left_index : int
        Position (in the input order) of the item at the lower end; -1 for the boundary 0.
    right_index : int
        Position of the item at the upper end; -1 for the boundary 1.
    rank : int
        1 for the widest gap, 2 for the next, ...

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. "Two diagnostic metrics" (Maximum Gap),
       "Difficulty-targeted gap filling".

    Examples
    --------
    >>> from benchkit.measure.steps import max_gap
    >>> g = max_gap([0.05, 0.1, 0.15, 0.3, 0.35, 0.4, 0.8, 0.9])
    >>> g.left, g.right, g.width, round(g.midpoint, 3)
    (0.4, 0.8, 0.4, 0.6)
    """

    left: float
    right: float
    width: float
    left_index: int
    right_index: int
    rank: int = 1

    @property
    def midpoint(self) -> float:
        r"""The gap-filling target :math:`z^\star = (z_L + z_R)/2`."""
        return 0.5 * (self.left + self.right)

    def __float__(self) -> float:
        return float(self.width)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([self._row()])

    def _row(self) -> dict:
        return {"rank": self.rank, "left": self.left, "right": self.right, "width": self.width,
                "midpoint": self.midpoint, "left_index": self.left_index,
                "right_index": self.right_index}


@result
class TopGaps:
    """The ``k`` widest gaps, widest first (ties: leftmost first).

    Parameters
    ----------
    gaps, n_items
        The fields below (see Attributes); built by :func:`top_gaps`.

    Attributes
    ----------
    gaps : tuple of Gap
        The gaps, widest first; ``total`` is the sum of their widths (the Top-k Gap Sum of
        Table 1, highlighted when >= 0.30 for k = 5).
    n_items : int
        Items on the difficulty axis.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. Table 1 (Top-5 Sum: the sum of the five largest
       gaps).

    Examples
    --------
    >>> from benchkit.measure.steps import top_gaps
    >>> tg = top_gaps([0.05, 0.1, 0.15, 0.3, 0.35, 0.4, 0.8, 0.9], k=3)
    >>> tg.widths.round(2).tolist(), round(tg.total, 2)
    ([0.4, 0.15, 0.1], 0.65)
    """

    gaps: tuple[Gap, ...]
    n_items: int

    @property
    def widths(self) -> np.ndarray:
        return np.array([g.width for g in self.gaps])

    @property
    def total(self) -> float:
        """Sum of the widths (the paper's Top-5 Gap Sum for k = 5)."""
        return float(self.widths.sum())

    def __len__(self) -> int:
        return len(self.gaps)

    def __iter__(self):
        return iter(self.gaps)

    def __getitem__(self, i):
        return self.gaps[i]

    def to_frame(self) -> pd.DataFrame:
        cols = ["rank", "left", "right", "width", "midpoint", "left_index", "right_index"]
        return pd.DataFrame([g._row() for g in self.gaps], columns=cols)


def _all_gaps(zz: np.ndarray):
    """Sorted order, knots with 0 and 1 appended, and the n+1 gap widths."""
    order = np.argsort(zz, kind="mergesort")
    zs = zz[order]
    knots = np.concatenate([[0.0], zs, [1.0]])
    widths = np.diff(knots)
    idx = np.concatenate([[-1], order, [-1]])
    return knots, widths, idx


def _gap(knots, widths, idx, j, rank) -> Gap:
    return Gap(left=float(knots[j]), right=float(knots[j + 1]), width=float(widths[j]),
               left_index=int(idx[j]), right_index=int(idx[j + 1]), rank=rank)


def max_gap(z: Any) -> Gap:
    r"""The Maximum Gap :math:`G(B) = \max_{0\le j\le n} (z_{(j+1)} - z_{(j)})`, with its position.

    Parameters
    ----------
    z : array_like, shape (n,)
        Normalized difficulties in [0, 1].

    Returns
    -------
    Gap
        ``width`` is :math:`G(B)` (``float(max_gap(z))`` gives it too); ``left``/``right`` and the
        item positions locate it. Ties go to the leftmost gap.

    Notes
    -----
    Paper, "Maximum Gap": the intervals next to 0 and 1 count (:math:`z_{(0)} := 0`,
    :math:`z_{(n+1)} := 1`). Tied items give zero-width gaps.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. "Two diagnostic metrics" (Maximum Gap G(B)),
       Theorem 2.3, Table 1.

    Examples
    --------
    >>> from benchkit.measure.steps import max_gap
    >>> z = [0.05, 0.1, 0.15, 0.3, 0.35, 0.4, 0.8, 0.9]     # normalized difficulties of 8 items
    >>> g = max_gap(z)
    >>> float(g), g.left_index, g.right_index      # between items 5 and 6 (0-based)
    (0.4, 5, 6)
    """
    zz = _unit("z", z)
    knots, widths, idx = _all_gaps(zz)
    j = int(np.argmax(widths))
    return _gap(knots, widths, idx, j, 1)


def top_gaps(z: Any, *, k: int = 5) -> TopGaps:
    """The ``k`` largest gaps of the difficulty axis (counting those next to 0 and 1).

    Parameters
    ----------
    z : array_like, shape (n,)
        Normalized difficulties in [0, 1].
    k : int
        Number of gaps (default 5, the paper's Top-5 Gap Sum). At most ``n + 1`` gaps exist; fewer
        are returned when ``k > n + 1``.

    Returns
    -------
    TopGaps
        Widest first; equal widths are ordered left to right. ``.total`` is the Top-k Sum.

    Notes
    -----
    Table 1 caption: "Top-5 Sum is the sum of the five largest such gaps".

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. "Two diagnostic metrics" (Maximum Gap), Table 1
       (Top-5 Sum).

    Examples
    --------
    >>> from benchkit.measure.steps import top_gaps
    >>> z = [0.05, 0.1, 0.15, 0.3, 0.35, 0.4, 0.8, 0.9]     # normalized difficulties of 8 items
    >>> top_gaps(z, k=3).to_frame()[["rank", "left", "right", "width"]]
       rank  left  right  width
    0     1  0.40    0.8   0.40
    1     2  0.15    0.3   0.15
    2     3  0.80    0.9   0.10
    """
    zz = _unit("z", z)
    k = check_int("k", k, min=1)
    knots, widths, idx = _all_gaps(zz)
    if k < widths.size:  # O(n) selection, then exact tie order (leftmost first) among candidates
        v = np.partition(widths, widths.size - k)[widths.size - k]
        cand = np.flatnonzero(widths >= v)
    else:
        cand = np.arange(widths.size)
    order = cand[np.lexsort((cand, -widths[cand]))][:k]
    return TopGaps(tuple(_gap(knots, widths, idx, int(j), r + 1) for r, j in enumerate(order)),
                   n_items=zz.size)
