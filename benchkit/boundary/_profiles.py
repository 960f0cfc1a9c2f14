"""Item-level BSDProbe profiles from correct-response counts (Sec. 3.2, App. A-D)."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from benchkit._budget import check_memory
from benchkit._budget import check_time
from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_int
from benchkit._validation import check_probability
from benchkit._validation import describe
from benchkit.boundary._calibration import DEFAULT_B
from benchkit.boundary._calibration import CalibrationTable
from benchkit.boundary._calibration import build_cost
from benchkit.boundary._calibration import check_cost
from benchkit.boundary._calibration import reference_family
from benchkit.boundary._calibration import statistic_cost
from benchkit.boundary._calibration_lookup import get_calibration
from benchkit.boundary._calibration_lookup import table_available

__all__ = ["ProfileResult", "profiles", "endpoint_gamma", "gamma_grid"]


_GAMMA_BYTES = 48  # float64 temporaries per term of the closed form (betaln x 3, log, exp, where)
_GAMMA_SECONDS = 2e-7  # per term (three betaln, a log and an exp; measured ~0.15 us)
_GAMMA_TABLE_MAX = 256 * 1024**2  # the whole (T+1)^3 table is built only below this (T <= ~175)
_GAMMA_CHUNK = 64 * 1024**2


def _gamma_terms(k1: np.ndarray, kn: np.ndarray, T: int) -> np.ndarray:
    """The gamma of pairs (k1, kn) broadcast against each other: the closed form summed over i."""
    from scipy.special import betaln

    a1 = (k1 + 1)[..., None].astype(np.float64)
    b1 = (T - k1 + 1)[..., None].astype(np.float64)
    an = (kn + 1)[..., None].astype(np.float64)
    bn = (T - kn + 1)[..., None].astype(np.float64)
    i = np.arange(T + 1, dtype=np.float64)
    logt = betaln(a1 + i, b1 + bn) - np.log(bn + i) - betaln(1 + i, bn) - betaln(a1, b1)
    return np.where(i < an, np.exp(logt), 0.0).sum(axis=-1)


@lru_cache(maxsize=64)
def gamma_grid(T: int) -> np.ndarray:
    """``G[k1, kn] = P(theta_n > theta_1 | k1, kn)`` for every pair of endpoint counts (Eq. 5/13/14).

    Parameters
    ----------
    T : int
        Responses per model (the binomial budget).

    Returns
    -------
    ndarray (T + 1, T + 1), read-only
        Row k1 (correct responses of the weakest model), column kn (of the strongest): the
        posterior confidence gamma that the strongest model is more often correct, in [0, 1];
        0.5 on the diagonal (equal counts, neutral evidence).

    Notes
    -----
    Uniform Beta(1, 1) priors give posteriors theta ~ Beta(k + 1, T - k + 1) (Eq. 13); the
    probability is computed exactly with the closed form for integer Beta parameters
    (theta_1 ~ Beta(a1, b1), theta_n ~ Beta(an, bn)):
    P = sum_{i=0}^{an-1} B(a1+i, b1+bn) / ((bn+i) B(1+i, bn) B(a1, b1)),
    not by Monte Carlo (DESIGN reading). Cached per T. The table has (T+1)^2 entries of T+1
    terms each: about 48 (T+1)^3 bytes while it is built (7.5 GiB at T = 1000), checked against
    the memory budget first; :func:`endpoint_gamma` computes only the pairs asked for.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.2, Eq. (5); App. C, Eq. (13)-(14).

    Examples
    --------
    >>> from benchkit.boundary.steps import gamma_grid
    >>> gamma_grid(2).round(2)
    array([[0.5 , 0.8 , 0.95],
           [0.2 , 0.5 , 0.8 ],
           [0.05, 0.2 , 0.5 ]])
    """
    T = check_int("T", T, min=1)
    check_memory(f"gamma_grid(T={T}) ((T+1)^3 = {(T + 1) ** 3:,} terms)", _GAMMA_BYTES * float(T + 1) ** 3,
                 hint="endpoint_gamma(k1, kn, T) computes gamma for the count pairs you need only")
    k = np.arange(T + 1)
    out = _gamma_terms(k[:, None], k[None, :], T)
    out.setflags(write=False)
    return out


def _gamma_cost(k1: np.ndarray, kn: np.ndarray, T: int) -> tuple[float, float]:
    """(bytes, seconds) :func:`endpoint_gamma` needs for these pairs."""
    if _GAMMA_BYTES * float(T + 1) ** 3 <= _GAMMA_TABLE_MAX:
        return _GAMMA_BYTES * float(T + 1) ** 3, float(T + 1) ** 3 * _GAMMA_SECONDS
    pairs = len(np.unique(k1.astype(np.int64) * (T + 1) + kn))
    return float(_GAMMA_CHUNK), pairs * (T + 1.0) * _GAMMA_SECONDS


def _check_profile_cost(k: np.ndarray, n: int, T: int, calibration) -> None:
    """The costs that grow with T, estimated together before anything is built."""
    memory, seconds = statistic_cost(n, T)
    memory = max(memory, 24.0 * (T + 1))  # the entropy table x log x on k / T
    g_memory, g_seconds = _gamma_cost(k[:, 0], k[:, -1], T)
    memory, seconds = max(memory, g_memory), seconds + g_seconds
    if isinstance(calibration, str) and calibration == "auto" and not table_available(n, T):
        t_memory, t_seconds = build_cost(n, T, len(reference_family(n)), DEFAULT_B)
        memory, seconds = max(memory, t_memory), seconds + t_seconds
    check_cost(f"profiles of {len(k):,} items for n={n} models and T={T:,} samples", memory, seconds)


def _calibration_table(calibration, n: int, T: int) -> CalibrationTable:
    if isinstance(calibration, CalibrationTable):
        return calibration
    return get_calibration(n, T, method="exact" if calibration == "exact" else "monte-carlo")


def endpoint_gamma(k1, kn, T: int) -> np.ndarray:
    """Posterior confidence gamma (Eq. 14) that correctness rises between the axis endpoints.

    Parameters
    ----------
    k1 : array_like of int
        Correct responses of the first (weakest) model, in [0, T].
    kn : array_like of int
        Correct responses of the last (strongest) model, in [0, T], same shape as ``k1``.
    T : int
        Responses per model.

    Returns
    -------
    ndarray
        gamma = P(theta_n > theta_1 | k1, kn) under Beta(1, 1) priors, one per pair: near 1 when
        the strongest model is clearly more often correct, 0.5 for equal counts.

    Notes
    -----
    Small T read :func:`gamma_grid`; otherwise each distinct (k1, kn) pair is summed on its own
    (T+1 terms, in chunks of 64 MiB), after the time it needs is checked against the time budget
    (:func:`benchkit.resource_budget`).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.2, Eq. (5); App. C, Eq. (13)-(14).

    Examples
    --------
    >>> from benchkit.boundary.steps import endpoint_gamma
    >>> endpoint_gamma([0, 5, 10], [10, 5, 0], 10).round(4)
    array([1. , 0.5, 0. ])
    """
    T = check_int("T", T, min=1)
    k1 = check_array("k1", k1, dtype="int")
    kn = check_array("kn", kn, dtype="int")
    for name, arr in (("k1", k1), ("kn", kn)):
        if arr.size and (arr.min() < 0 or arr.max() > T):
            raise BenchkitValueError(f"{name} must lie in [0, T={T}]")
    k1, kn = np.broadcast_arrays(k1, kn)
    if _GAMMA_BYTES * float(T + 1) ** 3 <= _GAMMA_TABLE_MAX:
        return gamma_grid(T)[k1, kn]
    pairs, back = np.unique(np.stack([k1.ravel(), kn.ravel()], axis=1), axis=0, return_inverse=True)
    check_time(f"gamma for {len(pairs):,} count pairs at T={T:,}", _gamma_cost(k1.ravel(), kn.ravel(), T)[1],
               hint="gamma sums T+1 terms per distinct (k1, kn) pair")
    out = np.empty(len(pairs), dtype=np.float64)
    step = max(1, _GAMMA_CHUNK // (_GAMMA_BYTES * (T + 1)))
    for s in range(0, len(pairs), step):
        out[s:s + step] = _gamma_terms(pairs[s:s + step, 0], pairs[s:s + step, 1], T)
    return out[back.ravel()].reshape(k1.shape)


@result
class ProfileResult:
    """BSDProbe profiles phi(q) = (x, w, v, o) of items, with everything they are built from.

    Each item's correct-response counts along the axis are fitted by a non-decreasing (isotonic)
    curve. Its boundary position x says where on the axis (0 = weakest model, 1 = strongest) the
    item becomes solvable, its width w how abruptly, its validity v how well the responses support
    that transition, and its order-consistency score o whether the reversals of the raw counts
    are more than sampling noise (small o: flagged for review).

    Parameters
    ----------
    counts, T, c, entropy, entropy_source, fit, blocks, delta, flat, q25, q50, q75, x, w, a
        The fields below (see Attributes); built by :func:`~benchkit.boundary.steps.profiles`.
    gamma, high_start, e_hi, v, D, o, flagged, alpha_o, calibration, positioning
        See Attributes.
    items, groups, models
        See Attributes.

    Attributes
    ----------
    counts : ndarray (items, n) int64
        Correct responses k_{i,q} of model i (axis order, weakest first) on item q, in [0, T].
    T : int
        Responses per model and item.
    c : ndarray (items, n)
        Correctness trajectory c_{i,q} = k_{i,q}/T (Eq. 3).
    entropy : ndarray (items, n)
        Normalized entropy trajectory e_{i,q} in [0, 1] (Eq. 2).
    entropy_source : {"given", "binary"}
        "given": entropies passed in (answer states); "binary": computed on {correct, incorrect}.
    fit : ndarray (items, n)
        The equal-weight isotonic fit c~_{i,q} (Eq. 10, App. A), non-decreasing along the axis.
    blocks : ndarray (items, n) int64
        PAVA block of each position (positions sharing a fitted level share a block id, from 0).
    delta : ndarray (items,)
        Fitted correctness gain Delta_q = c~_n - c~_1 in [0, 1] (Sec. 3.2); 0 for flat fits.
    flat : ndarray (items,) bool
        Delta_q = 0: the fit identifies no transition (App. B positioning applies).
    q25 : ndarray (items,)
        Q_0.25 (Eq. 4): first normalized position where the interpolated fit reaches
        c~_1 + 0.25 Delta; NaN for flat items.
    q50 : ndarray (items,)
        Q_0.5, the same at half the gain (= x for items with Delta > 0); NaN for flat items.
    q75 : ndarray (items,)
        Q_0.75, the same at three quarters of the gain; NaN for flat items.
    x : ndarray (items,)
        Boundary position in (0, 1] (Eq. 4, Q_0.5): where along the axis the fit reaches half of
        the item's correctness gain; small = the item becomes solvable early, by weak models.
        For flat items, the App. B assigned position in [0, 1] (Eq. 11-12), not an observed
        transition.
    w : ndarray (items,)
        Boundary width Q_0.75 - Q_0.25 in [0, 1] (Eq. 4): small = an abrupt transition between
        neighbouring models; 1 for flat items.
    a : ndarray (items,)
        Mean correctness a_q over the axis (App. B), used to position flat items.
    gamma : ndarray (items,)
        Posterior confidence that the strongest model beats the weakest (Eq. 5, 14), in [0, 1].
    high_start : ndarray (items,) int64
        First model index of the high side H_q = {i : s_i >= Q_0.75} (Eq. 6); -1 for flat items.
    e_hi : ndarray (items,)
        Mean normalized entropy on the high side (Eq. 6); NaN for flat items.
    v : ndarray (items,)
        Boundary-signal validity v = Delta gamma (1 - e_hi) in [0, Delta] (Eq. 6): a weight, high
        when the gain is large, the endpoints clearly differ and the strong models agree on their
        answers; 0 for flat items.
    D : ndarray (items,)
        Likelihood-ratio statistic of monotonicity (Eq. 7/16), >= 0; 0 for a non-decreasing raw
        trajectory, large for pronounced reversals.
    o : ndarray (items,)
        Order-consistency score (Eq. 8, computed as Eq. 19) in (0, 1]: the calibrated tail
        probability of D; small values are evidence against a monotone trajectory.
    flagged : ndarray (items,) bool
        o <= alpha_o: flagged for order-focused review (Sec. 3.3).
    alpha_o : float
        The screening level (the paper's 0.05).
    calibration : CalibrationTable
        The table o was looked up in (matched to n and T).
    positioning : dict
        Per group (None without ``by``): the App. B reference points (u, b) of Eq. 12, with the
        endpoints (0, 1) and (1, 0).
    items : ndarray or None
        Item labels (the index of :meth:`to_frame`).
    groups : ndarray or None
        The benchmark of each item (the ``by`` split), or None.
    models : tuple of str or None
        The n axis model names, weakest first.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.2, Eq. (4)-(8); App. A-D, Eq. (10)-(19).

    Examples
    --------
    >>> from benchkit.boundary.steps import profiles
    >>> r = profiles([[0, 1, 4, 9, 10, 10], [2, 8, 1, 9, 3, 10]], 10)
    >>> r.x.round(3), r.w.round(3), r.flagged
    (array([0.44, 0.6 ]), array([0.24, 0.74]), array([False,  True]))
    >>> r.to_frame()[["delta", "v", "D", "o"]].round(4)
       delta       v        D       o
    0    1.0  0.8437   0.0000  1.0000
    1    0.8  0.7999  19.2174  0.0015
    """

    counts: np.ndarray
    T: int
    c: np.ndarray
    entropy: np.ndarray
    entropy_source: str
    fit: np.ndarray
    blocks: np.ndarray
    delta: np.ndarray
    flat: np.ndarray
    q25: np.ndarray
    q50: np.ndarray
    q75: np.ndarray
    x: np.ndarray
    w: np.ndarray
    a: np.ndarray
    gamma: np.ndarray
    high_start: np.ndarray
    e_hi: np.ndarray
    v: np.ndarray
    D: np.ndarray
    o: np.ndarray
    flagged: np.ndarray
    alpha_o: float
    calibration: CalibrationTable
    positioning: dict
    items: np.ndarray | None = None
    groups: np.ndarray | None = None
    models: tuple | None = None

    @property
    def n(self) -> int:
        return int(self.counts.shape[1])

    @property
    def q(self) -> np.ndarray:
        """Benjamini-Hochberg q-values of the order-consistency scores o over all items.

        ``benchkit.stats.benjamini_hochberg(o)``: flagging the items with q <= alpha controls the
        false discovery rate among the flagged items at alpha (for independent or positively
        dependent scores), which the per-item rule o <= alpha_o does not (App. D.2: "It does not
        provide benchmark-wide false-discovery control"). With ``groups``, see :meth:`q_by_group`.
        """
        from benchkit.stats import benjamini_hochberg

        if self.o.size == 0:
            return np.array([], dtype=np.float64)
        return benjamini_hochberg(self.o)

    def q_by_group(self) -> np.ndarray:
        """Benjamini-Hochberg q-values computed separately within each group (benchmark)."""
        from benchkit.stats import benjamini_hochberg

        if self.groups is None:
            return self.q
        out = np.empty(self.o.shape[0], dtype=np.float64)
        for g in dict.fromkeys(self.groups.tolist()):
            sel = self.groups == g
            out[sel] = benjamini_hochberg(self.o[sel])
        return out

    @property
    def critical_value(self) -> float:
        """d_alpha of Eq. 18 at ``alpha_o`` (:meth:`CalibrationTable.critical_value`)."""
        return self.calibration.critical_value(alpha=self.alpha_o)

    @property
    def min_attainable_o(self) -> float:
        """Smallest score any item can get at this (n, T) (:attr:`CalibrationTable.min_attainable_o`)."""
        return self.calibration.min_attainable_o

    def to_frame(self) -> pd.DataFrame:
        """One row per item: delta, x, w, gamma, v, D, o, flagged and the intermediate quantities."""
        df = pd.DataFrame(
            {
                "delta": self.delta, "x": self.x, "w": self.w, "gamma": self.gamma,
                "v": self.v, "D": self.D, "o": self.o, "flagged": self.flagged,
                "q": self.q, "flat": self.flat, "q25": self.q25, "q50": self.q50, "q75": self.q75,
                "a": self.a, "e_hi": self.e_hi, "high_start": self.high_start,
                "n_blocks": self.blocks.max(axis=1) + 1 if self.blocks.size else [],
            }
        )
        if self.groups is not None:
            df.insert(0, "group", self.groups)
        if self.items is not None:
            df.index = pd.Index(self.items, name="item")
        return df


def _binary_entropy_table(T: int) -> np.ndarray:
    """Eq. 2 on the states {correct, incorrect} of one cell with k of T correct, k = 0..T.

    The values :func:`~benchkit.boundary.steps.answer_entropy` gives on binary state counts when the
    item has both states somewhere on the axis (M_q = 2; the same arithmetic, so the same bits):
    clip(H(k/T) / log 2, 0, 1). Items with one state seen (M_q = 1) get 0.
    """
    from benchkit.stats import xlogx

    plogp = xlogx(np.arange(T + 1) / float(T))
    kk = np.arange(T + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.clip((0.0 - (plogp[T - kk] + plogp[kk])) / np.log(2.0), 0.0, 1.0)


def _positions(a_num, q50, flat, n, T, groups):
    """App. B: x = h_{B,F}(a) for Delta = 0 items (medians by total count, Eq. 11-12)."""
    x = np.full(a_num.shape[0], np.nan)
    info = {}
    labels = [None] if groups is None else list(dict.fromkeys(groups.tolist()))
    for g in labels:
        sel = np.ones(a_num.shape[0], bool) if g is None else (groups == g)
        ref = sel & ~flat
        totals = a_num[ref]
        if totals.size:
            # medians of q50 per total count from one sort (by total, then q50): the middle value,
            # or the mean of the two middle values, as numpy.median computes them
            vals = q50[ref]
            order = np.argsort(vals)  # then a stable sort by total: radix on int16 totals
            order = order[np.argsort(totals[order].astype(np.int16 if n * T < 2**15 else np.int64),
                                     kind="stable")]
            ts, vs = totals[order], vals[order]
            starts = np.flatnonzero(np.r_[True, ts[1:] != ts[:-1]])
            cnt = np.diff(np.r_[starts, ts.size])
            lo, hi = starts + (cnt - 1) // 2, starts + cnt // 2
            b = np.where(lo == hi, vs[lo], (vs[lo] + vs[hi]) / 2)
            b[np.add.reduceat(np.isnan(vs), starts) > 0] = np.nan  # numpy.median's NaN rule
            u = ts[starts] / (n * T)
        else:
            u = np.array([], dtype=np.float64)
            b = np.array([], dtype=np.float64)
        uu = np.concatenate(([0.0], u, [1.0]))
        bb = np.concatenate(([1.0], b, [0.0]))
        target = sel & flat
        x[target] = np.interp(a_num[target] / (n * T), uu, bb)
        info[g] = (uu, bb)
    return x, info


def profiles(counts, T, *, entropy=None, alpha_o=0.05, calibration="auto", items=None,
             by=None, models=None) -> ProfileResult:
    """BSDProbe item profiles from correct-response counts along an ordered model axis.

    The array-level core of BSDProbe: from each item's correct counts along the axis it fits the
    isotonic curve, reads off the boundary position x and width w, weighs the transition by its
    validity v and scores the order consistency o (Sec. 3.2). :func:`benchkit.boundary.profile`
    does the same from a ResponseSet.

    Parameters
    ----------
    counts : array (items, n) of int
        k_{i,q}: correct responses of model i (axis order, weakest first) on item q, in [0, T].
    T : int
        Responses per model-item pair (common budget).
    entropy : array (items, n), optional
        Normalized answer-state entropies e_{i,q} (Eq. 2) in [0, 1]. Default: computed from the
        counts on the two states {correct, incorrect} (``entropy_source="binary"``).
    alpha_o : float, default 0.05
        Screening level: items with o <= alpha_o are flagged (the paper's 0.05).
    calibration : "auto", "exact" or CalibrationTable, default "auto"
        "auto": the shipped / cached Monte Carlo table for (n, T) (B = 200,000, seed 42, 217
        reference vectors for n = 6), built and cached on demand otherwise. "exact": enumeration
        of all (T+1)^n count vectors (small settings only).
    items : sequence, optional
        Item labels (index of ``to_frame()``).
    by : sequence, optional
        The split: a benchmark label per item; App. B positioning uses reference items of the
        same group (kept as ``ProfileResult.groups``).
    models : sequence of str, optional
        Names of the n axis models (columns of ``counts``, weakest first), kept on the result
        (``ProfileResult.models``) for charts and tables.

    Returns
    -------
    ProfileResult
        x, w, v, o, the flags and every intermediate quantity, one entry per item.

    Notes
    -----
    * Fit (Eq. 10, App. A): exact PAVA on the integer counts; fitted values are block sums over
      (T x block length). Delta = c~_n - c~_1 (Sec. 3.2) is decided from those integers.
    * Q_alpha (Eq. 4): first normalized position s = (i-1)/(n-1) where the linear interpolant of
      the fit reaches c~_1 + alpha Delta (>=), found by exact rational comparisons; x = Q_0.5,
      w = Q_0.75 - Q_0.25.
    * gamma (Eq. 5, 13-14): exact closed form for integer Beta parameters, for every item.
    * H = {i : s_i >= Q_0.75} and v = Delta gamma (1 - mean_{i in H} e_i) (Eq. 6); v = 0 when
      Delta = 0.
    * Delta = 0 (App. B, Eq. 11-12): reference items (Delta > 0, same group) are grouped by their
      total correct count; b_j is the median Q_0.5 of each group, with endpoints (0, 1) and (1, 0)
      and linear interpolation in a = mean correctness; w = 1.
    * D (Eq. 7/16) from the integer fit with tabulated x log x terms; o (Eq. 19) is a lookup in the
      calibration table with rho(d) = rint(1e10 d): o = max_theta (1 + #{rho(D*) >= rho(D)})/(B+1).
    * Multiple testing (beyond the paper, which controls only the per-item error, App. D.2):
      ``ProfileResult.q`` are Benjamini-Hochberg q-values of o over all items (``q_by_group()``
      within benchmarks); ``critical_value`` is d_alpha of Eq. 18 and ``min_attainable_o`` the
      smallest score the (n, T) allows (when it exceeds alpha_o no item can be flagged, e.g. T = 1).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.2, Eq. (4)-(8); App. A (Eq. 10), App. B (Eq. 11-12), App. C (Eq. 13-14),
       App. D (Eq. 15-19).

    Examples
    --------
    Three items on a six-model axis, T = 10 responses each: a clean transition, a trajectory with
    strong reversals, and a flat one.

    >>> from benchkit.boundary.steps import profiles
    >>> r = profiles([[0, 1, 4, 9, 10, 10], [2, 8, 1, 9, 3, 10], [5, 5, 5, 5, 5, 5]], 10)
    >>> r.x.round(3)          # boundary positions (the flat item's is App. B's assignment)
    array([0.44 , 0.6  , 0.636])
    >>> r.w.round(3), r.v.round(3)
    (array([0.24, 0.74, 1.  ]), array([0.844, 0.8  , 0.   ]))
    >>> r.o.round(4), r.flagged   # the item with reversals is flagged for review
    (array([1.    , 0.0015, 1.    ]), array([False,  True, False]))
    """
    from benchkit._kernels.lrt import lr_statistic
    from benchkit._kernels.pava import pava_counts_batch
    from benchkit._kernels.pava import profile_rows

    T = check_int("T", T, min=1)
    k = check_array("counts", counts, ndim=2, dtype="int")
    m, n = k.shape
    if n < 2:
        raise BenchkitValueError(f"counts must have at least 2 models (columns); got shape {k.shape}")
    if k.size and (k.min() < 0 or k.max() > T):
        bad = k[(k < 0) | (k > T)].ravel()[0]
        raise BenchkitValueError(f"counts must lie in [0, T={T}]; found {bad}")
    alpha_o = check_probability("alpha_o", alpha_o)
    _check_profile_cost(k, n, T, calibration)
    if entropy is None:
        e = None
        source = "binary"
    else:
        e = check_array("entropy", entropy, ndim=2, dtype="float", shape=(m, n))
        if e.size and (e.min() < -1e-12 or e.max() > 1 + 1e-12):
            raise BenchkitValueError(
                f"entropy must be normalized to [0, 1]; found values in [{e.min()}, {e.max()}]"
            )
        e = np.clip(e, 0.0, 1.0)
        source = "given"
    if isinstance(calibration, CalibrationTable):
        if (calibration.n, calibration.T) != (n, T):
            raise BenchkitValueError(
                f"calibration table is for n={calibration.n}, T={calibration.T}; counts need "
                f"n={n}, T={T}"
            )
    elif isinstance(calibration, str):
        if calibration not in ("auto", "exact"):
            raise BenchkitValueError(
                f"calibration={describe(calibration)} is not allowed; choose 'auto', 'exact' or a "
                "CalibrationTable"
            )
    else:
        raise BenchkitTypeError(
            f"calibration must be 'auto', 'exact' or a CalibrationTable; got {describe(calibration)}"
        )
    if items is not None:
        items = np.asarray(items)
        if items.shape != (m,):
            raise BenchkitValueError(f"items must have one label per row ({m}); got shape {items.shape}")
    groups = None
    if by is not None:
        groups = np.asarray(by)
        if groups.shape != (m,):
            raise BenchkitValueError(f"by must have one label per row ({m}); got shape {groups.shape}")
    if models is not None:
        if isinstance(models, str):
            raise BenchkitTypeError(f"models must be a sequence of {n} model names; got {models!r}")
        models = tuple(str(x) for x in models)
        if len(models) != n:
            raise BenchkitValueError(
                f"models must name the {n} axis models (columns of counts); got {len(models)}: "
                f"{describe(list(models))}"
            )

    gamma = endpoint_gamma(k[:, 0], k[:, -1], T)
    D, keys = lr_statistic(k, T)
    table = _calibration_table(calibration, n, T)
    num, den, blocks = pava_counts_batch(k)
    rows = profile_rows(k, num, den, T, _binary_entropy_table(T) if e is None else np.empty(0))
    fit, c, a_num = rows["fit"], rows["c"], rows["a_num"]
    q25, q50, q75, i75 = rows["q25"], rows["q50"], rows["q75"], rows["i75"]
    e = rows["e"] if e is None else e
    flat = i75 < 0  # Delta = 0 (decided on the integer fit)
    delta = np.where(flat, 0.0, fit[:, -1] - fit[:, 0])
    a = a_num / float(n * T)
    x_flat, info = _positions(a_num, q50, flat, n, T, groups)
    x = np.where(flat, x_flat, q50)
    w = np.where(flat, 1.0, q75 - q25)
    cols = np.arange(n)[None, :]
    hmask = cols >= i75[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        e_hi = (e * hmask).sum(axis=1) / hmask.sum(axis=1)
    e_hi = np.where(flat, np.nan, e_hi)
    v = np.where(flat, 0.0, delta * gamma * (1.0 - np.nan_to_num(e_hi)))
    o = table.score_keys(keys)
    flagged = o <= alpha_o
    return ProfileResult(
        counts=k, T=T, c=c, entropy=e, entropy_source=source, fit=fit, blocks=blocks,
        delta=delta, flat=flat, q25=q25, q50=q50, q75=q75, x=x, w=w, a=a, gamma=gamma,
        high_start=i75, e_hi=e_hi, v=v, D=D, o=o, flagged=flagged, alpha_o=alpha_o,
        calibration=table, positioning=info, items=items, groups=groups, models=models,
    )
