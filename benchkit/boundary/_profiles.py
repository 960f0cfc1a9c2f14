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
from benchkit.boundary._calibration import get_calibration
from benchkit.boundary._calibration import reference_family
from benchkit.boundary._calibration import statistic_cost
from benchkit.boundary._calibration import table_available
from benchkit.boundary._trajectories import answer_entropy
from benchkit.boundary._trajectories import binary_state_counts

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
    """``G[k1, kn] = P(theta_n > theta_1 | k1, kn)`` with Beta(1, 1) priors (Eq. 5/13/14).

    Closed form for integer Beta parameters (theta_1 ~ Beta(a1, b1), theta_n ~ Beta(an, bn)):
    P = sum_{i=0}^{an-1} B(a1+i, b1+bn) / ((bn+i) B(1+i, bn) B(a1, b1)). The table has (T+1)^2
    entries of T+1 terms each: about 48 (T+1)^3 bytes while it is built (7.5 GiB at T = 1000),
    checked against the memory budget first; :func:`endpoint_gamma` computes only the pairs
    asked for.
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
    """Posterior confidence gamma (Eq. 14) for endpoint counts k1, kn out of T.

    Small T read :func:`gamma_grid`; otherwise each distinct (k1, kn) pair is summed on its own
    (T+1 terms, in chunks of 64 MiB), after the time it needs is checked against the time budget
    (:func:`benchkit.resource_budget`).
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
    """BSDProbe profiles phi(q) = (x, w, v, o) with everything they are built from.

    Arrays have one entry per item (rows of ``counts``); ``fit``, ``blocks``, ``c`` and ``entropy``
    are (items, n). ``flat`` marks Delta = 0 items, whose ``x`` is the App. B position and ``w`` = 1.
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


def _binary_entropy(counts: np.ndarray, T: int) -> np.ndarray:
    """Eq. 2 on the states {correct, incorrect}: M_q = number of those seen across the axis."""
    return answer_entropy(binary_state_counts(counts, T)[0], T=T)[0]


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
            ut, inv = np.unique(totals, return_inverse=True)
            b = np.array([np.median(q50[ref][inv == j]) for j in range(ut.size)])
            u = ut / (n * T)
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
        Screening level: items with o <= alpha_o are flagged.
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
    """
    from benchkit._kernels.lrt import lr_statistic
    from benchkit._kernels.pava import pava_counts_batch

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
        e = _binary_entropy(k, T)
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
    fit = num / (den * float(T))
    c = k / float(T)
    N1, L1 = num[:, 0], den[:, 0]
    Nn, Ln = num[:, -1], den[:, -1]
    flat = Nn * L1 == N1 * Ln
    delta = np.where(flat, 0.0, fit[:, -1] - fit[:, 0])
    rows = np.arange(m)

    def crossing(aq: int):
        # fit_i >= c1 + (aq/4) Delta  <=>  4 N_i L1 Ln - (4-aq) N1 L_i Ln - aq Nn L_i L1 >= 0
        cond = 4 * num * (L1 * Ln)[:, None] - (4 - aq) * (N1 * Ln)[:, None] * den \
            - aq * (Nn * L1)[:, None] * den >= 0
        i_star = np.argmax(cond, axis=1)
        i_star = np.where(flat, 1, np.maximum(i_star, 1))
        Np, Lp = num[rows, i_star - 1], den[rows, i_star - 1]
        Nc, Lc = num[rows, i_star], den[rows, i_star]
        LN = (4 - aq) * N1 * Ln + aq * Nn * L1
        LD = 4 * L1 * Ln
        t_num = (LN * Lp - Np * LD) * Lc
        t_den = (Nc * Lp - Np * Lc) * LD
        with np.errstate(divide="ignore", invalid="ignore"):
            t = t_num / t_den
        q = (i_star - 1 + t) / (n - 1)
        return np.where(flat, np.nan, q), np.where(flat, -1, i_star)

    q25, _ = crossing(1)
    q50, _ = crossing(2)
    q75, i75 = crossing(3)
    a_num = k.sum(axis=1)
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
