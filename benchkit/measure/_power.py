"""Theorem 2.3: detection power of a localized improvement against the interval width."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from benchkit._parallel import blocked_map
from benchkit._parallel import check_n_jobs
from benchkit._random import check_rng
from benchkit._random import seed_sequence
from benchkit._random import spawn
from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_choice
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit._validation import check_probability
from benchkit.measure._metrics import _unit
from benchkit.measure._metrics import max_gap


# ----------------------------------------------------------------------------------------------
# Theorem 2.3
# ----------------------------------------------------------------------------------------------
def covered_items_worst_case(z: Any, w: float) -> tuple[int, float]:
    """Fewest items strictly inside an open interval ``(c, c + w)`` within [0, 1], and its ``c``.

    The worst placement of an improved interval of width w in Theorem 2.3: where it covers the
    fewest benchmark items. When it covers none (w <= G(B)), no test can see the improvement.

    Parameters
    ----------
    z : array_like, shape (n,)
        Normalized difficulties in [0, 1].
    w : float
        Width of the interval, in (0, 1].

    Returns
    -------
    count : int
        The fewest items an interval of width w can cover.
    c : float
        The left end of such an interval.

    Notes
    -----
    The count is piecewise constant in ``c``; it drops just at ``c = z_i`` and rises after
    ``c = z_i - w``, so its minimum is attained at ``c = 0``, ``c = 1 - w`` or some ``c = z_i``.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. Theorem 2.3 (worst case over the placement of I,
       ``|I| = w``).

    Examples
    --------
    >>> from benchkit.measure.steps import covered_items_worst_case
    >>> z = [0.05, 0.1, 0.15, 0.3, 0.35, 0.4, 0.8, 0.9]     # normalized difficulties of 8 items
    >>> covered_items_worst_case(z, 0.3)      # fits inside the gap (0.4, 0.8)
    (0, 0.4)
    >>> covered_items_worst_case(z, 0.45)
    (1, 0.4)
    """
    zs = np.sort(_unit("z", z))
    w = check_float("w", w, min=0.0, max=1.0, min_inclusive=False)
    cand = np.unique(np.concatenate([[0.0, 1.0 - w], zs[zs <= 1.0 - w]]))
    lo = np.searchsorted(zs, cand, side="right")  # first z > c
    hi = np.searchsorted(zs, cand + w, side="left")  # first z >= c + w
    cnt = hi - lo
    j = int(np.argmin(cnt))
    return int(cnt[j]), float(cand[j])


@result
class DetectionPower:
    """Power of a level-alpha test for a localized improvement, by width and repeats (Thm 2.3).

    Theorem 2.3 says an improvement confined to an interval no wider than the maximum gap G(B)
    can be invisible (power alpha) however often the benchmark is re-run, while wider ones become
    detectable as the number of repeated samples k grows. The table shows this for the benchmark
    at hand.

    Parameters
    ----------
    max_gap, alpha, a, test, table, rng_entropy
        The fields below (see Attributes); built by :func:`~benchkit.measure.steps.detection_power`.

    Attributes
    ----------
    max_gap : float
        G(B) of the benchmark: widths up to it are undetectable in the worst case.
    alpha : float
        Level of the test.
    a : float
        Size of the improvement on the interval (s+ - s- = a there).
    test : {"max", "score"}
        The test whose power is reported (largest per-item gain, or the aggregate score).
    table : DataFrame
        One row per (w, k): ``w, k, covered`` (items inside the worst-placed interval),
        ``detectable`` (w > G(B)) and ``power``, the rejection probability under the worst-placed
        improvement: alpha means the improvement is invisible (the score test's simulated power
        scatters around it), 1 that it is always detected.
    rng_entropy : int, sequence of int or None
        Entropy of the root SeedSequence of the score test's simulation (``rng=result.rng_entropy``
        repeats it); None for the exact max test, which draws nothing.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. Theorem 2.3 (maximum gap as an exact asymptotic
       minimax detection boundary).

    Examples
    --------
    >>> from benchkit.measure.steps import detection_power
    >>> d = detection_power([0.05, 0.1, 0.15, 0.3, 0.35, 0.4, 0.8, 0.9], [0.3, 0.45],
    ...                     n_samples=(1, 10))
    >>> d.max_gap
    0.4
    >>> d.to_frame().round(4)
          w   k  covered  detectable   power
    0  0.30   1        0       False  0.0500
    1  0.30  10        0       False  0.0500
    2  0.45   1        1        True  0.0507
    3  0.45  10        1        True  0.0913
    """

    max_gap: float
    alpha: float
    a: float
    test: str
    table: pd.DataFrame
    rng_entropy: Any

    def power(self, w: float, n_samples: int) -> float:
        sel = self.table[(np.isclose(self.table["w"], w)) & (self.table["k"] == n_samples)]
        if sel.empty:
            raise BenchkitValueError(f"no entry for w={w}, n_samples={n_samples}")
        return float(sel["power"].iloc[0])

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()


def _diff_pmf(k: int, p: float, q: float) -> np.ndarray:
    """Pmf of X - Y on -k..k, X ~ Bin(k, q), Y ~ Bin(k, p) independent."""
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


#: Draws per seeded block of the score test's simulation (a constant: results never depend on n_jobs).
_SCORE_BLOCK = 5000


def _score_block(seed, start, stop, k, pb, cb, pu, cu):
    """Null and alternative score differences of draws ``start..stop-1`` of one (w, k) cell.

    Items sharing a success probability are pooled: a sum of c independent Bin(k, p) is
    Bin(c k, p), so each draw costs one binomial per distinct probability, not per item.
    """
    rng = np.random.default_rng(seed)
    per = stop - start
    pre0 = rng.binomial(k * cb, pb, size=(per, pb.size)).sum(1)
    post0 = rng.binomial(k * cb, pb, size=(per, pb.size)).sum(1)
    pre1 = rng.binomial(k * cb, pb, size=(per, pb.size)).sum(1)
    post1 = rng.binomial(k * cu, pu, size=(per, pu.size)).sum(1)
    return post0 - pre0, post1 - pre1


def _score_cell(k, base, covered, a, alpha, n_resamples, seed, n_jobs) -> float:
    """Simulated power of the score test in one (w, k) cell: seeded blocks of draws (blocked_map)."""
    up = np.minimum(base + a * covered, 1.0)
    pb, cb = np.unique(base, return_counts=True)
    pu, cu = np.unique(up, return_counts=True)
    parts = blocked_map(_score_block, n_resamples, rng=seed, block_size=_SCORE_BLOCK,
                        args=(k, pb, cb, pu, cu), n_jobs=n_jobs)
    d0 = np.concatenate([d for d, _ in parts])
    d1 = np.concatenate([d for _, d in parts])
    return _score_test_power(d0, d1, alpha)


def _score_test_power(d0: np.ndarray, d1: np.ndarray, alpha: float) -> float:
    """Power of the one-sided aggregate-score test (sum of X+ - X-), randomized to size alpha.

    The size is set under the simulated null ``d0``; the power is estimated on the simulated
    alternative ``d1``.
    """
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
    n_samples: Any = (1, 10, 100),
    a: float = 0.2,
    alpha: float = 0.05,
    baseline: Any = 0.5,
    test: str = "max",
    n_resamples: int = 20_000,
    rng: Any = None,
    n_jobs: int | None = None,
) -> DetectionPower:
    r"""Theorem 2.3's detection boundary: power vs width :math:`w` for :math:`k` repeated samples.

    Parameters
    ----------
    z : array_like, shape (n,)
        Normalized difficulties in [0, 1].
    widths : float or array_like
        Widths :math:`w \in (0, 1]` of the improved interval :math:`I`.
    n_samples : int or sequence of int
        The paper's k: repeated samples per item (per model), default (1, 10, 100); the
        ``k`` column of the table.
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
        difference :math:`\sum_i (X^+_i - X^-_i)`, simulated (``n_resamples`` draws, seeded by ``rng``).
        Both are randomized at the critical value so that their size is exactly ``alpha``.
    n_resamples : int
        Monte Carlo draws per (w, k) for ``test="score"`` (default 20,000).
    rng : None, int, SeedSequence or Generator
        For ``test="score"`` (a Generator is consumed); one child per (w, k), and one grandchild
        per block of 5,000 draws, so results do not depend on ``n_jobs``. The root's entropy is
        kept as ``rng_entropy``; the max test draws nothing and ignores ``rng``.
    n_jobs : int or None
        joblib workers for the score test's blocks (None: ``joblib.parallel_config``'s default).

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
      These cells are computed like all others, not set: the max test's exact power comes out as
      alpha (to rounding), the score test's simulated power as a Monte Carlo estimate of alpha.
    * The worst placement is the one covering the fewest items (:func:`covered_items_worst_case`);
      with a constant baseline this is exactly least favourable for both tests. With a varying
      baseline it is the natural worst case but not guaranteed least favourable.
    * The power reported is that of a concrete consistent test (max: it detects any single improved
      item as k grows, so its power tends to 1 when :math:`w > G(B)`, part 2); the minimax power
      :math:`\Pi^*_\alpha` is at least this. The aggregate score test shows how a localized gain
      can stay invisible in the benchmark score for small k.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical
       Measure Over Difficulty." arXiv:2610.29927, 2026. Theorem 2.3.

    Examples
    --------
    >>> from benchkit.measure.steps import detection_power
    >>> z = [0.05, 0.1, 0.15, 0.3, 0.35, 0.4, 0.8, 0.9]     # normalized difficulties of 8 items
    >>> d = detection_power(z, [0.45], n_samples=(10,), test="score", n_resamples=2000, rng=1)
    >>> d.to_frame().round(4)
          w   k  covered  detectable   power
    0  0.45  10        1        True  0.0758
    >>> detection_power(z, [0.45], n_samples=(10,), test="score", n_resamples=2000,
    ...                 rng=d.rng_entropy).table.equals(d.table)
    True
    """
    zz = _unit("z", z)
    ws = np.atleast_1d(check_array("widths", widths, ndim=(0, 1), dtype="float", min_size=1))
    for w in ws:
        check_float("widths", float(w), min=0.0, max=1.0, min_inclusive=False)
    ks = np.atleast_1d(check_array("n_samples", n_samples, ndim=(0, 1), dtype="int", min_size=1))
    for kk in ks:
        check_int("n_samples", int(kk), min=1)
    a = check_float("a", a, min=0.0, max=1.0, min_inclusive=False)
    alpha = check_probability("alpha", alpha, open_interval=True)
    check_choice("test", test, ("max", "score"))
    n_resamples = check_int("n_resamples", n_resamples, min=100)
    n_jobs = check_n_jobs(n_jobs)
    check_rng(rng)
    if callable(baseline):
        base = np.asarray(baseline(zz), dtype=float)
    else:
        base = np.asarray(baseline, dtype=float)
    base = np.broadcast_to(base, zz.shape).astype(float)
    if base.shape != zz.shape or np.any(~np.isfinite(base)) or np.any((base < 0) | (base > 1)):
        raise BenchkitValueError("baseline must give one success probability in [0, 1] per item")
    G = max_gap(zz).width
    cells = [(w, int(kk)) for w in ws for kk in ks]
    worst = [covered_items_worst_case(zz, float(w)) for w in ws]
    # Every cell is computed, also when the worst-placed interval covers no item (w <= G(B)):
    # then the two models' responses have the same law and the power comes out as alpha
    # (Theorem 2.3 part 1) instead of being set to it.
    cov = {float(w): ((zz > c) & (zz < c + w)) for w, (_, c) in zip(ws, worst)}
    root = None
    if test == "max":
        powers = [_max_test_power(kk, base, cov[float(w)], a, alpha) for w, kk in cells]
    else:
        root = seed_sequence(rng)
        seeds = spawn(root, len(cells))  # one child per (w, k) cell, one grandchild per block
        powers = [_score_cell(kk, base, cov[float(w)].astype(float), a, alpha, n_resamples, sd, n_jobs)
                  for (w, kk), sd in zip(cells, seeds)]
    n_cov = {float(w): cnt for w, (cnt, _) in zip(ws, worst)}
    rows = [{"w": float(w), "k": kk, "covered": n_cov[float(w)], "detectable": bool(w > G),
             "power": pw} for (w, kk), pw in zip(cells, powers)]
    return DetectionPower(max_gap=G, alpha=alpha, a=a, test=test, table=pd.DataFrame(rows),
                          rng_entropy=None if root is None else root.entropy)
