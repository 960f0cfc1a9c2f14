r"""The benchmark as an empirical measure over difficulty (paper 002).

A benchmark :math:`B` of :math:`n` items with normalized difficulties :math:`z_i \in [0, 1]` is the
empirical measure :math:`\nu_B = \frac1n \sum_i \delta_{z_i}`. This module computes the paper's two
diagnostics and what follows from them:

========================================= ==========================================================
:func:`normalize_difficulty`              IRT difficulties -> [0, 1] (min-max default, logistic)
:func:`ddm`                               DDM(B; mu) = W_1(nu_B, mu), uniform reference by default
:func:`max_gap`, :func:`top_gaps`         G(B) and the k largest uncovered intervals (with 0 and 1)
:func:`summarize`, :func:`measure_table`  one benchmark / the Table 1 layout with its highlights
:func:`rank_stability`                    Theorem 2.1: which score differences cannot flip rank
:func:`detection_power`                   Theorem 2.3: power vs width w of a localized improvement
:func:`gap_targets`, :func:`what_if`      gap-filling targets (midpoints, neighbours) and what-ifs
========================================= ==========================================================

Difficulties come from :mod:`benchkit.irt` (``fit_1pl(Y).difficulty``); every function here works on
plain arrays.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import integrate, special

from benchkit._validation import (
    BenchkitTypeError,
    BenchkitValueError,
    check_array,
    check_choice,
    check_float,
    check_int,
    check_probability,
    check_seed,
    describe,
)

__all__ = [
    "normalize_difficulty",
    "ddm",
    "max_gap",
    "top_gaps",
    "Gap",
    "TopGaps",
    "MeasureSummary",
    "MeasureTable",
    "summarize",
    "measure_table",
    "RankStability",
    "rank_stability",
    "DetectionPower",
    "detection_power",
    "covered_items_worst_case",
    "GapTargets",
    "gap_targets",
    "WhatIf",
    "what_if",
    "TABLE1_THRESHOLDS",
]

#: Highlight thresholds of the paper's Table 1: DDM >= 0.10, Max Gap >= 0.10, Top-5 Sum >= 0.30.
TABLE1_THRESHOLDS = (0.10, 0.10, 0.30)


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


def ddm(z: Any, target: Any = "uniform") -> float:
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

    Notes
    -----
    Definition from the paper's "Two diagnostic metrics" section (DDM := W_1(nu_B, mu)); the Table 1
    caption fixes the reference as "a same-size empirical uniform distribution on [0, 1]", and
    DESIGN fixes its atoms at (i - 0.5)/n. In one dimension :math:`W_1 = \int |F_B - F_\mu|`, the
    area between the two ECDFs that the paper's explorer shades. Lower is better.
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
@dataclass(frozen=True)
class Gap:
    """One uncovered interval ``[left, right]`` of the difficulty axis.

    ``left_index`` / ``right_index`` are the positions (in the input order) of the items at its
    ends, or -1 for the boundary 0 (left) or 1 (right). ``rank`` is 1 for the widest gap.
    """

    left: float
    right: float
    width: float
    left_index: int
    right_index: int
    rank: int = 1

    @property
    def midpoint(self) -> float:
        """The gap-filling target :math:`z^\\star = (z_L + z_R)/2`."""
        return 0.5 * (self.left + self.right)

    def __float__(self) -> float:
        return float(self.width)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([self._row()])

    def _row(self) -> dict:
        return {"rank": self.rank, "left": self.left, "right": self.right, "width": self.width,
                "midpoint": self.midpoint, "left_index": self.left_index,
                "right_index": self.right_index}


@dataclass(frozen=True)
class TopGaps:
    """The ``k`` widest gaps, widest first (ties: leftmost first)."""

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
    """
    zz = _unit("z", z)
    knots, widths, idx = _all_gaps(zz)
    j = int(np.argmax(widths))
    return _gap(knots, widths, idx, j, 1)


def top_gaps(z: Any, k: int = 5) -> TopGaps:
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


# ----------------------------------------------------------------------------------------------
# one benchmark and Table 1
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MeasureSummary:
    """DDM, maximum gap and top-k gaps of one benchmark (one row of Table 1)."""

    name: str
    z: np.ndarray = field(repr=False)
    ddm: float
    max_gap: float
    top_gaps: TopGaps
    target: str

    @property
    def n_items(self) -> int:
        return int(self.z.size)

    @property
    def top_sum(self) -> float:
        return self.top_gaps.total

    def to_frame(self) -> pd.DataFrame:
        """The gaps table (one row per top gap)."""
        return self.top_gaps.to_frame()


def summarize(z: Any, *, k: int = 5, target: Any = "uniform", name: str = "benchmark") -> MeasureSummary:
    """DDM, Max Gap and Top-k gaps of one benchmark's normalized difficulties.

    Parameters
    ----------
    z : array_like, shape (n,)
        Normalized difficulties in [0, 1].
    k : int
        Number of top gaps (default 5).
    target : see :func:`ddm`
    name : str
        Label used in tables.
    """
    zz = _unit("z", z)
    tg = top_gaps(zz, k=k)
    return MeasureSummary(name=str(name), z=zz, ddm=ddm(zz, target=target),
                          max_gap=tg.gaps[0].width, top_gaps=tg,
                          target=target if isinstance(target, str) else "custom")


@dataclass(frozen=True)
class MeasureTable:
    """The paper's Table 1 for many benchmarks: DDM, Max Gap, Top-k Sum, # and the highlights."""

    summaries: tuple[MeasureSummary, ...]
    thresholds: tuple[float, float, float]
    k: int

    def to_frame(self) -> pd.DataFrame:
        """Columns ``Benchmark, DDM, Max Gap, Top-5 Sum, #`` and boolean highlight columns."""
        top = f"Top-{self.k} Sum"
        rows = [{"Benchmark": s.name, "DDM": s.ddm, "Max Gap": s.max_gap, top: s.top_sum,
                 "#": s.n_items} for s in self.summaries]
        df = pd.DataFrame(rows, columns=["Benchmark", "DDM", "Max Gap", top, "#"])
        t = self.thresholds
        df["DDM high"] = df["DDM"] >= t[0]
        df["Max Gap high"] = df["Max Gap"] >= t[1]
        df[f"{top} high"] = df[top] >= t[2]
        return df

    def counts(self) -> dict[str, int]:
        """How many benchmarks are highlighted per metric (the paper's "10/25 have DDM >= 0.10")."""
        df = self.to_frame()
        return {c[:-5]: int(df[c].sum()) for c in df.columns if c.endswith(" high")}

    def __getitem__(self, name: str) -> MeasureSummary:
        for s in self.summaries:
            if s.name == name:
                return s
        raise BenchkitValueError(
            f"no benchmark named {describe(name)}; have {[s.name for s in self.summaries][:20]}"
        )


def measure_table(
    benchmarks: Mapping[str, Any],
    *,
    normalize: str | None = "minmax",
    k: int = 5,
    target: Any = "uniform",
    thresholds: Sequence[float] = TABLE1_THRESHOLDS,
) -> MeasureTable:
    """Table 1 over many benchmarks at once.

    Parameters
    ----------
    benchmarks : mapping name -> difficulties
        Each value is an array of IRT difficulties (or an IRT fit result), or already normalized
        difficulties when ``normalize=None``.
    normalize : {"minmax", "logistic", None}
        Applied to each benchmark separately (default "minmax", as in the paper).
    k : int
        Top-k gaps (default 5).
    target : see :func:`ddm`
    thresholds : (float, float, float)
        Highlight thresholds for DDM, Max Gap and Top-k Sum; default (0.10, 0.10, 0.30), the
        paper's Table 1 caption ("DDM >= 0.10, Max Gap >= 0.10, or Top-5 Sum >= 0.30").

    Returns
    -------
    MeasureTable
    """
    if not isinstance(benchmarks, Mapping) or len(benchmarks) == 0:
        raise BenchkitTypeError(
            f"benchmarks must be a non-empty mapping name -> difficulties; got {describe(benchmarks)}"
        )
    if normalize is not None:
        check_choice("normalize", normalize, ("minmax", "logistic"))
    th = tuple(float(check_float("thresholds", t)) for t in thresholds)
    if len(th) != 3:
        raise BenchkitValueError(f"thresholds must have 3 values (DDM, Max Gap, Top-k); got {len(th)}")
    out = []
    for name, b in benchmarks.items():
        arr = _difficulties(f"benchmarks[{name!r}]", b)
        z = arr if normalize is None else normalize_difficulty(arr, method=normalize)
        out.append(summarize(_unit(f"benchmarks[{name!r}]", z), k=k, target=target, name=str(name)))
    return MeasureTable(tuple(out), th, check_int("k", k, min=1))


# ----------------------------------------------------------------------------------------------
# Theorem 2.1
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RankStability:
    """Which observed score differences are rank-stable under Theorem 2.1."""

    bound: float
    lipschitz: float
    ddm: float
    pairs: pd.DataFrame = field(repr=False)

    @property
    def fraction_stable(self) -> float:
        return float(self.pairs["stable"].mean()) if len(self.pairs) else float("nan")

    def to_frame(self) -> pd.DataFrame:
        return self.pairs.copy()


def rank_stability(
    scores: Any,
    *,
    lipschitz: float,
    ddm: float,
    names: Sequence[str] | None = None,
) -> RankStability:
    r"""Theorem 2.1 made usable: pairs of models whose benchmark ranking cannot flip under the target.

    Parameters
    ----------
    scores : array_like, shape (m,)
        Benchmark scores :math:`S_B(\theta)` of m models (mean item score), or a mapping
        name -> score.
    lipschitz : float
        A Lipschitz constant :math:`L` of the performance difference :math:`\Delta(z)` on the
        normalized difficulty axis (the same axis as ``ddm``).
    ddm : float
        :math:`W_1(\nu_B, \mu)` from :func:`ddm`.
    names : sequence of str, optional
        Model names (default ``model_0``...).

    Returns
    -------
    RankStability
        ``bound`` = :math:`L\,W_1`; ``pairs`` has, for each unordered pair (a stronger-first),
        ``D_B``, the interval ``[D_B - bound, D_B + bound]`` that contains :math:`D_\mu`, and
        ``stable`` (``|D_B| > bound``).

    Notes
    -----
    Theorem 2.1: :math:`|D_B - D_\mu| \le L\,W_1(\nu_B,\mu)`. The paper states the consequence for
    the target difference (:math:`|D_\mu| > L W_1` implies equal signs); since the bound is
    symmetric, the same holds with the observed :math:`D_B` in place of :math:`D_\mu`, which is what
    a user can check: if :math:`|D_B| > L W_1` then :math:`D_\mu` has the sign of :math:`D_B`.
    Reading: scores are treated as exact (population) item-averaged performances; sampling noise of
    the scores is not part of the theorem.
    """
    if isinstance(scores, Mapping):
        names = list(map(str, scores.keys()))
        scores = list(scores.values())
    s = check_array("scores", scores, ndim=1, dtype="float", min_size=1)
    L = check_float("lipschitz", lipschitz, min=0.0)
    w = check_float("ddm", ddm, min=0.0)
    if names is None:
        names = [f"model_{i}" for i in range(s.size)]
    names = [str(x) for x in names]
    if len(names) != s.size:
        raise BenchkitValueError(f"names has {len(names)} entries but scores has {s.size}")
    bound = L * w
    i, j = np.triu_indices(s.size, k=1)
    swap = s[i] < s[j]
    a = np.where(swap, j, i)
    b = np.where(swap, i, j)
    d = s[a] - s[b]
    pairs = pd.DataFrame({
        "model_a": [names[x] for x in a], "model_b": [names[x] for x in b],
        "D_B": d, "D_mu_low": d - bound, "D_mu_high": d + bound, "stable": np.abs(d) > bound,
    })
    return RankStability(bound=bound, lipschitz=L, ddm=w, pairs=pairs)


# ----------------------------------------------------------------------------------------------
# Theorem 2.3
# ----------------------------------------------------------------------------------------------
def covered_items_worst_case(z: Any, w: float) -> tuple[int, float]:
    """Fewest items strictly inside an open interval ``(c, c + w)`` within [0, 1], and its ``c``.

    The count is piecewise constant in ``c``; it drops just at ``c = z_i`` and rises after
    ``c = z_i - w``, so its minimum is attained at ``c = 0``, ``c = 1 - w`` or some ``c = z_i``.
    """
    zs = np.sort(_unit("z", z))
    w = check_float("w", w, min=0.0, max=1.0, min_inclusive=False)
    cand = np.unique(np.concatenate([[0.0, 1.0 - w], zs[zs <= 1.0 - w]]))
    lo = np.searchsorted(zs, cand, side="right")  # first z > c
    hi = np.searchsorted(zs, cand + w, side="left")  # first z >= c + w
    cnt = hi - lo
    j = int(np.argmin(cnt))
    return int(cnt[j]), float(cand[j])


@dataclass(frozen=True)
class DetectionPower:
    """Power of a level-alpha test for a localized improvement, by width and repeats (Thm 2.3)."""

    max_gap: float
    alpha: float
    a: float
    test: str
    table: pd.DataFrame = field(repr=False)

    def power(self, w: float, k: int) -> float:
        sel = self.table[(np.isclose(self.table["w"], w)) & (self.table["k"] == k)]
        if sel.empty:
            raise BenchkitValueError(f"no entry for w={w}, k={k}")
        return float(sel["power"].iloc[0])

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()


def _diff_pmf(k: int, p: float, q: float) -> np.ndarray:
    """pmf of X - Y on -k..k, X ~ Bin(k, q), Y ~ Bin(k, p) independent."""
    from scipy import stats

    px = stats.binom.pmf(np.arange(k + 1), k, q)
    py = stats.binom.pmf(np.arange(k + 1), k, p)
    return np.convolve(px, py[::-1])


def _max_test_power(k: int, base: np.ndarray, covered: np.ndarray, a: float, alpha: float) -> float:
    """Exact power of the randomized level-alpha test rejecting for large max_i (X+_i - X-_i)."""
    # group items by (baseline, covered) to avoid recomputing pmfs
    keys, inv, counts = np.unique(np.stack([base, covered.astype(float)]), axis=1,
                                  return_inverse=True, return_counts=True)
    log_f0 = np.zeros(2 * k + 1)
    log_f1 = np.zeros(2 * k + 1)
    for (p, cov), c in zip(keys.T, counts):
        f0 = np.cumsum(_diff_pmf(k, p, p))
        f1 = np.cumsum(_diff_pmf(k, p, min(p + a, 1.0))) if cov else f0
        with np.errstate(divide="ignore"):
            log_f0 += c * np.log(np.clip(f0, 0.0, 1.0))
            log_f1 += c * np.log(np.clip(f1, 0.0, 1.0))
    F0 = np.exp(log_f0)  # P(max <= t) for t = -k..k under H0
    F1 = np.exp(log_f1)
    F0[-1] = F1[-1] = 1.0
    # smallest t with P0(max > t) <= alpha; randomize at t
    surv0 = 1.0 - F0
    t = int(np.flatnonzero(surv0 <= alpha + 1e-15)[0])
    p_at = F0[t] - (F0[t - 1] if t > 0 else 0.0)
    gamma = 0.0 if p_at <= 0 else (alpha - surv0[t]) / p_at
    gamma = min(max(gamma, 0.0), 1.0)
    p1_at = F1[t] - (F1[t - 1] if t > 0 else 0.0)
    return float((1.0 - F1[t]) + gamma * p1_at)


def _score_test_power(k, base, covered, a, alpha, n_sim, rng_seeds):
    """Monte Carlo power of the one-sided aggregate-score test (sum of X+ - X-), randomized level.

    Items sharing a success probability are pooled: a sum of c independent Bin(k, p) is
    Bin(c k, p), so each draw costs one binomial per distinct probability, not per item.
    """
    up = np.minimum(base + a * covered, 1.0)
    pb, cb = np.unique(base, return_counts=True)
    pu, cu = np.unique(up, return_counts=True)
    per = n_sim // len(rng_seeds)
    d0, d1 = [], []
    for ss in rng_seeds:
        rng = np.random.default_rng(ss)
        pre0 = rng.binomial(k * cb, pb, size=(per, pb.size)).sum(1)
        post0 = rng.binomial(k * cb, pb, size=(per, pb.size)).sum(1)
        pre1 = rng.binomial(k * cb, pb, size=(per, pb.size)).sum(1)
        post1 = rng.binomial(k * cu, pu, size=(per, pu.size)).sum(1)
        d0.append(post0 - pre0)
        d1.append(post1 - pre1)
    d0 = np.concatenate(d0)
    d1 = np.concatenate(d1)
    vals, cnt = np.unique(d0, return_counts=True)
    surv = 1.0 - np.cumsum(cnt) / d0.size
    t_i = int(np.flatnonzero(surv <= alpha + 1e-15)[0])
    t = vals[t_i]
    p_at = cnt[t_i] / d0.size
    gamma = min(max((alpha - surv[t_i]) / p_at, 0.0), 1.0)
    return float(np.mean(d1 > t) + gamma * np.mean(d1 == t))


def detection_power(
    z: Any,
    widths: Any,
    *,
    k: Any = (1, 10, 100),
    a: float = 0.2,
    alpha: float = 0.05,
    baseline: Any = 0.5,
    test: str = "max",
    n_sim: int = 20_000,
    seed: Any = None,
) -> DetectionPower:
    r"""Theorem 2.3's detection boundary: power vs width :math:`w` for :math:`k` repeated samples.

    Parameters
    ----------
    z : array_like, shape (n,)
        Normalized difficulties in [0, 1].
    widths : float or array_like
        Widths :math:`w \in (0, 1]` of the improved interval :math:`I`.
    k : int or sequence of int
        Repeated samples per item (per model), default (1, 10, 100).
    a : float
        Size of the improvement on :math:`I`, :math:`s^+ - s^- = a` there and 0 elsewhere (the
        least favourable alternative of :math:`H_1`); in (0, 1], default 0.2.
    alpha : float
        Level of the test (default 0.05).
    baseline : float, array_like of shape (n,), or callable
        Pre-improvement success probabilities :math:`s^-(z_i)`: a constant (default 0.5), one value
        per item, or a function of z. Improved items get :math:`\min(s^- + a, 1)`.
    test : {"max", "score"}
        ``"max"`` (default): reject for large :math:`\max_i (X^+_i - X^-_i)`, the per-item
        differences of correct counts out of k; its null and alternative distributions are computed
        exactly (products of per-item CDFs), no simulation. ``"score"``: the usual aggregate score
        difference :math:`\sum_i (X^+_i - X^-_i)`, simulated (``n_sim`` draws, seeded).
        Both are randomized at the critical value so that their size is exactly ``alpha``.
    n_sim : int
        Monte Carlo draws per (w, k) for ``test="score"``.
    seed : None, int, SeedSequence or Generator
        For ``test="score"``; one child seed per (w, k) and per block of 5,000 draws.

    Returns
    -------
    DetectionPower
        ``table`` with columns ``w, k, covered, detectable, power`` (``covered``: items inside the
        worst-placed interval; ``detectable``: ``w > G(B)``).

    Notes
    -----
    Theorem 2.3 compares tests based on k repeated samples of the pre- and post-improvement models
    on each item, against the worst placement of :math:`I` (:math:`|I| = w`). Readings:

    * :math:`I` is open, so an interval of width exactly :math:`G(B)` fits inside the largest gap
      without touching its end items: for :math:`w \le G(B)` it can cover no item, the two models'
      responses have the same distribution, and every level-alpha test has power alpha (part 1).
    * The worst placement is the one covering the fewest items (:func:`covered_items_worst_case`);
      with a constant baseline this is exactly least favourable for both tests. With a varying
      baseline it is the natural worst case but not guaranteed least favourable.
    * The power reported is that of a concrete consistent test (max: it detects any single improved
      item as k grows, so its power tends to 1 when :math:`w > G(B)`, part 2); the minimax power
      :math:`\Pi^*_\alpha` is at least this. The aggregate score test shows how a localized gain
      can stay invisible in the benchmark score for small k.
    """
    zz = _unit("z", z)
    ws = np.atleast_1d(check_array("widths", widths, ndim=(0, 1), dtype="float", min_size=1))
    for w in ws:
        check_float("widths", float(w), min=0.0, max=1.0, min_inclusive=False)
    ks = np.atleast_1d(check_array("k", k, ndim=(0, 1), dtype="int", min_size=1))
    for kk in ks:
        check_int("k", int(kk), min=1)
    a = check_float("a", a, min=0.0, max=1.0, min_inclusive=False)
    alpha = check_probability("alpha", alpha, open_interval=True)
    check_choice("test", test, ("max", "score"))
    n_sim = check_int("n_sim", n_sim, min=100)
    if callable(baseline):
        base = np.asarray(baseline(zz), dtype=float)
    else:
        base = np.asarray(baseline, dtype=float)
    base = np.broadcast_to(base, zz.shape).astype(float)
    if base.shape != zz.shape or np.any(~np.isfinite(base)) or np.any((base < 0) | (base > 1)):
        raise BenchkitValueError("baseline must give one success probability in [0, 1] per item")
    G = max_gap(zz).width
    root = np.random.SeedSequence(check_seed("seed", seed).integers(2**63)) if test == "score" else None
    children = root.spawn(ws.size * ks.size) if root is not None else [None] * (ws.size * ks.size)
    rows = []
    for wi, w in enumerate(ws):
        cnt, c = covered_items_worst_case(zz, float(w))
        covered = (zz > c) & (zz < c + w)
        for ki, kk in enumerate(ks):
            kk = int(kk)
            if cnt == 0:
                pw = alpha
            elif test == "max":
                pw = _max_test_power(kk, base, covered, a, alpha)
            else:
                child = children[wi * ks.size + ki]
                nblk = max(1, n_sim // 5000)
                pw = _score_test_power(kk, base, covered.astype(float), a, alpha,
                                       nblk * (n_sim // nblk), child.spawn(nblk))
            rows.append({"w": float(w), "k": kk, "covered": cnt, "detectable": bool(w > G),
                         "power": pw})
    return DetectionPower(max_gap=G, alpha=alpha, a=a, test=test, table=pd.DataFrame(rows))


# ----------------------------------------------------------------------------------------------
# gap filling
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GapTargets:
    """Gap-filling targets: for each of the widest gaps, its midpoint and nearest items each side."""

    gaps: TopGaps
    neighbors: pd.DataFrame = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per gap: ``rank, left, right, width, target`` and the adjacent items."""
        df = self.gaps.to_frame().rename(columns={"midpoint": "target"})
        return df

    def references(self, rank: int) -> pd.DataFrame:
        """The neighbour items (parents and references) of gap ``rank``."""
        return self.neighbors[self.neighbors["rank"] == rank].reset_index(drop=True)


def gap_targets(
    z: Any,
    *,
    k: int = 5,
    n_neighbors: int = 3,
    items: Sequence[Any] | None = None,
) -> GapTargets:
    r"""Targets for difficulty-targeted gap filling.

    Parameters
    ----------
    z : array_like, shape (n,)
        Normalized difficulties in [0, 1].
    k : int
        Number of gaps (the k widest, default 5).
    n_neighbors : int
        Items listed on each side of each gap (default 3): the nearest below (``side="lower"``,
        nearest first) and above (``side="upper"``).
    items : sequence, optional
        Item ids (default: positions).

    Returns
    -------
    GapTargets
        ``to_frame()``: gaps with their target :math:`z^\star = (z_L + z_R)/2`; ``neighbors``: one
        row per (gap, side, item) with ``z`` and ``distance`` to the target.

    Notes
    -----
    Paper, "Difficulty-targeted gap filling": for an adjacent gap :math:`[z_L, z_R]` the goal is a
    new item with difficulty as close as possible to :math:`z^\star = (z_L + z_R)/2`; the existing
    items closest to the target serve as rewriting parents and the nearby lower and higher items as
    the reference list (Figure 4). Gaps next to 0 or 1 have neighbours on one side only.
    """
    zz = _unit("z", z)
    n_neighbors = check_int("n_neighbors", n_neighbors, min=1)
    ids = list(range(zz.size)) if items is None else list(items)
    if len(ids) != zz.size:
        raise BenchkitValueError(f"items has {len(ids)} ids but z has {zz.size} values")
    tg = top_gaps(zz, k=k)
    order = np.argsort(zz, kind="mergesort")
    zs = zz[order]
    rows = []
    for g in tg:
        t = g.midpoint
        lo = np.searchsorted(zs, g.left, side="right")  # positions < lo are <= left
        hi = np.searchsorted(zs, g.right, side="left")  # positions >= hi are >= right
        for r, pos in enumerate(range(lo - 1, max(lo - 1 - n_neighbors, -1), -1)):
            i = int(order[pos])
            rows.append({"rank": g.rank, "target": t, "side": "lower", "order": r + 1,
                         "item": ids[i], "index": i, "z": float(zz[i]), "distance": abs(t - zz[i])})
        for r, pos in enumerate(range(hi, min(hi + n_neighbors, zs.size))):
            i = int(order[pos])
            rows.append({"rank": g.rank, "target": t, "side": "upper", "order": r + 1,
                         "item": ids[i], "index": i, "z": float(zz[i]), "distance": abs(t - zz[i])})
    cols = ["rank", "target", "side", "order", "item", "index", "z", "distance"]
    return GapTargets(gaps=tg, neighbors=pd.DataFrame(rows, columns=cols))


@dataclass(frozen=True)
class WhatIf:
    """Metrics before and after adding items at given normalized difficulties."""

    before: MeasureSummary
    after: MeasureSummary
    added: np.ndarray = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        k = len(self.before.top_gaps)
        rows = []
        for label, s in (("before", self.before), ("after", self.after)):
            rows.append({"": label, "DDM": s.ddm, "Max Gap": s.max_gap, f"Top-{k} Sum": s.top_sum,
                         "#": s.n_items})
        return pd.DataFrame(rows).set_index("")


def what_if(z: Any, added: Any, *, k: int = 5, target: Any = "uniform") -> WhatIf:
    """The metrics after adding items at given normalized difficulties (nothing is replaced).

    Parameters
    ----------
    z : array_like, shape (n,)
        Current normalized difficulties in [0, 1].
    added : array_like, shape (m,)
        Normalized difficulties of the added items, in [0, 1] (e.g. gap midpoints, or calibrated
        new items placed with ``normalize_difficulty(b_new, reference=b_old)``).
    k, target : see :func:`summarize`

    Notes
    -----
    The axis is kept fixed: the added items are placed on the current normalized axis and the
    union is not re-normalized (the paper's before/after ECDF panels share one axis). The same-size
    uniform reference grows with the benchmark (n + m atoms).
    """
    zz = _unit("z", z)
    add = check_array("added", added, ndim=(0, 1), dtype="float").ravel()
    add = _unit("added", add) if add.size else add
    before = summarize(zz, k=k, target=target, name="before")
    after = summarize(np.concatenate([zz, add]), k=k, target=target, name="after")
    return WhatIf(before=before, after=after, added=add)
