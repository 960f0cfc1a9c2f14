"""Benchmark² metrics at the array level.

CBRC (Eq. 1), DS (Eq. 2), stability (Sec. 3.4), BQS (Eq. 8-10) and the quality bands the paper
names; CAD (Eq. 4-6) is in :mod:`benchkit.quality._cad`.

Everything here takes plain arrays (or a DataFrame for ``scores``) and returns floats or frozen
dataclasses; the ResponseSet-level entry point is :func:`benchkit.quality.assess`.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from benchkit._random import generator
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_choice
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.stats import kendall_tau_b

__all__ = [
    "cbrc",
    "cbrc_all",
    "kendall_matrix",
    "ds",
    "ds_contributions",
    "stability",
    "bqs",
    "band",
    "BANDS",
    "RAW_CAD_LEVELS",
]

#: The paper's quality bands, as ``(lower bound, label)`` from the top: a value gets the first
#: label whose bound it exceeds strictly (Sec. 3.1-3.4: "> 0.7 high, 0.4-0.7 moderate, < 0.4 low";
#: a value equal to a bound falls in the lower-middle band, i.e. 0.7 is "moderate").
BANDS: dict[str, tuple[tuple[float, str], ...]] = {
    "cbrc": ((0.7, "high"), (0.4, "moderate"), (-math.inf, "low")),
    "ds": ((0.4, "good"), (0.2, "moderate"), (-math.inf, "minimal")),
    "cad": ((0.6, "good"), (0.4, "acceptable"), (-math.inf, "significant issues")),
    "stability": ((0.7, "high"), (0.5, "moderate"), (-math.inf, "low")),
}

#: App. B / Table 10 quality levels of the raw inversion rate, as ``(upper bound, label)``: a rate
#: gets the first label whose bound it is strictly below ("Excellent (raw_cad < 0.03), Good
#: (0.03-0.08), Acceptable (0.08-0.15), Concerning (0.15-0.25), Poor (> 0.25)").
RAW_CAD_LEVELS: tuple[tuple[float, str], ...] = (
    (0.03, "excellent"), (0.08, "good"), (0.15, "acceptable"), (0.25, "concerning"),
    (math.inf, "poor"),
)


def band(metric: str, value: float) -> str | None:
    """The paper's quality band of ``value`` for ``metric``; None for NaN.

    Parameters
    ----------
    metric : {"cbrc", "ds", "cad", "stability", "raw_cad"}
        The metric; "raw_cad" gives the App. B levels of the raw inversion rate (Table 10).
    value : float
        The metric's value.

    Returns
    -------
    str or None
        The band label (e.g. "high", "moderate", "low" for CBRC), None for NaN.

    Notes
    -----
    The bands of Sec. 3.1-3.4 (:data:`benchkit.quality.BANDS`): a value gets the first label whose
    lower bound it exceeds strictly, so a value on a bound falls in the lower band (CBRC 0.7 is
    "moderate"). Raw inversion rates use the upper bounds of App. B
    (:data:`benchkit.quality.RAW_CAD_LEVELS`).

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation of
       LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 3.1-3.4 (interpretation bands), App. B, Table
       10 (raw CAD levels).

    Examples
    --------
    >>> band("cbrc", 0.75), band("cad", 0.5), band("raw_cad", 0.02)
    ('high', 'acceptable', 'excellent')
    """
    if metric != "raw_cad" and metric not in BANDS:
        raise BenchkitValueError(
            f"metric={describe(metric)} has no bands; choose one of "
            f"{', '.join(repr(k) for k in [*BANDS, 'raw_cad'])}")
    v = float(value)
    if math.isnan(v):
        return None
    if metric == "raw_cad":
        return next(lab for ub, lab in RAW_CAD_LEVELS if v < ub)
    return next(lab for lb, lab in BANDS[metric] if v > lb)


# ----------------------------------------------------------------------------------------- CBRC

def _scores_table(scores: Any, name: str = "scores") -> tuple[np.ndarray, list, list]:
    """(benchmarks x models float array with NaN for missing, row labels, column labels)."""
    if isinstance(scores, pd.DataFrame):
        rows, cols = list(scores.index), list(scores.columns)
        try:
            arr = scores.to_numpy(dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise BenchkitTypeError(f"{name} must hold numbers: {exc}") from exc
    else:
        arr = check_array(name, scores, ndim=2, dtype="float", finite=False)
        rows, cols = list(range(arr.shape[0])), list(range(arr.shape[1]))
    if np.isinf(arr).any():
        raise BenchkitValueError(f"{name} must be finite or NaN (missing); found an infinity")
    if arr.shape[0] < 1 or arr.shape[1] < 2:
        raise BenchkitValueError(f"{name} must be benchmarks x models with at least 2 models; "
                                 f"got shape {arr.shape}")
    return arr, rows, cols


def _domain_codes(domains: Any, n: int) -> np.ndarray:
    if domains is None:
        return np.zeros(n, dtype=np.int64)
    if isinstance(domains, (str, bytes)):
        raise BenchkitTypeError("domains must be one label per benchmark (a sequence), not a "
                                f"single string {describe(domains)}")
    labels = list(domains)
    if len(labels) != n:
        raise BenchkitValueError(f"domains must give one label per benchmark ({n}); got {len(labels)}")
    return pd.factorize(pd.Series(labels, dtype=object))[0].astype(np.int64)


def _pair_tau(a: np.ndarray, b: np.ndarray, min_models: int) -> float:
    ok = ~(np.isnan(a) | np.isnan(b))
    if ok.sum() < max(2, min_models):
        return float("nan")
    return float(kendall_tau_b(a[ok], b[ok]))


def kendall_matrix(scores, *, min_models: int = 2) -> np.ndarray:
    """Pairwise Kendall tau_b between the model rankings of all benchmarks (rows of ``scores``).

    Parameters
    ----------
    scores : DataFrame or array_like (benchmarks x models)
        Score of each model on each benchmark; NaN marks a model not evaluated on a benchmark.
    min_models : int, default 2
        Fewest models scored on both benchmarks for a tau to be defined.

    Returns
    -------
    ndarray (benchmarks, benchmarks)
        tau_b in [-1, 1] (1 = identical rankings); NaN where fewer than ``min_models`` models are
        shared or one ranking is constant. The diagonal is 1 (NaN for a constant row).

    Notes
    -----
    Each pair uses the models scored on both benchmarks (pairwise complete), with
    :func:`benchkit.stats.kendall_tau_b` (ties as scipy).

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation of
       LLM Benchmarks." arXiv:2601.03986, 2026. App. F, Tables 15-17 (pairwise Kendall tau between
       benchmarks).
    .. [2] Kendall, M. G. "The Treatment of Ties in Ranking Problems." Biometrika 33(3), 239-251,
       1945.

    Examples
    --------
    >>> from benchkit.quality.steps import kendall_matrix
    >>> kendall_matrix([[1, 2, 3], [1, 3, 2], [3, 2, 1]]).round(3)
    array([[ 1.   ,  0.333, -1.   ],
           [ 0.333,  1.   , -0.333],
           [-1.   , -0.333,  1.   ]])
    """
    arr, _, _ = _scores_table(scores)
    check_int("min_models", min_models, min=2)
    n = arr.shape[0]
    out = np.full((n, n), np.nan)
    for i in range(n):
        for j in range(i, n):
            out[i, j] = out[j, i] = _pair_tau(arr[i], arr[j], min_models)
    return out


def cbrc(scores, i, *, domains=None, min_models: int = 2, nan_policy: str = "propagate") -> float:
    r"""Cross-Benchmark Ranking Consistency of benchmark ``i`` (Eq. 1).

    Parameters
    ----------
    scores : DataFrame or array_like (benchmarks x models)
        Score of each model on each benchmark; NaN marks a model not evaluated on a benchmark.
    i : int or label
        The benchmark: a row position, or (for a DataFrame) a row label.
    domains : sequence, optional
        One domain label per row; the peers of ``i`` are the other rows with its label. Default:
        all rows form one domain.
    min_models : int, default 2
        Fewest shared models for a peer's tau to be defined.
    nan_policy : {"propagate", "omit"}, default "propagate"
        What an undefined peer tau does: make CBRC NaN, or leave that peer out of the mean (then
        the mean is over the peers with a defined tau; NaN if none).

    Returns
    -------
    float
        :math:`\frac{1}{n-1}\sum_{j \ne i} \tau_b(r_i, r_j)` over the same-domain peers; NaN when
        ``i`` has no peer or any peer's tau is undefined (too few shared models, constant scores).

    Notes
    -----
    Eq. 1 with Kendall's tau_b (:func:`benchkit.stats.kendall_tau_b`; ties as scipy). Models
    missing from some benchmarks: each pair (i, j) is compared on the models scored on both
    (pairwise complete), so different peers may use different model sets; NaN propagates (a peer
    with an undefined tau makes CBRC undefined rather than silently averaging fewer peers).

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 3.1, Eq. (1).
    .. [2] Kendall, M. G. "The Treatment of Ties in Ranking Problems." Biometrika 33(3), 239-251,
       1945.

    Examples
    --------
    >>> cbrc([[1, 2, 3], [1, 3, 2], [1, 2, 3]], 0)
    0.6666666666666666
    """
    arr, rows, _ = _scores_table(scores)
    codes = _domain_codes(domains, arr.shape[0])
    check_int("min_models", min_models, min=2)
    if isinstance(i, (int, np.integer)) and not isinstance(i, bool) and not isinstance(scores, pd.DataFrame):
        idx = int(i)
    elif isinstance(scores, pd.DataFrame) and i in rows:
        idx = rows.index(i)
    elif isinstance(i, (int, np.integer)) and not isinstance(i, bool):
        idx = int(i)
    else:
        raise BenchkitValueError(f"i={describe(i)} is not a benchmark of scores; rows: "
                                 f"{', '.join(map(repr, rows[:8]))}")
    if not 0 <= idx < arr.shape[0]:
        raise BenchkitValueError(f"i={idx} is out of range for {arr.shape[0]} benchmarks")
    check_choice("nan_policy", nan_policy, ["propagate", "omit"])
    peers = [j for j in range(arr.shape[0]) if j != idx and codes[j] == codes[idx]]
    if not peers:
        return float("nan")
    taus = np.array([_pair_tau(arr[idx], arr[j], min_models) for j in peers])
    if nan_policy == "omit":
        taus = taus[~np.isnan(taus)]
        if taus.size == 0:
            return float("nan")
    return float(np.mean(taus))


def cbrc_all(scores, *, domains=None, min_models: int = 2,
             nan_policy: str = "propagate") -> np.ndarray:
    """:func:`cbrc` of every benchmark, from one :func:`kendall_matrix`.

    Parameters
    ----------
    scores : DataFrame or array_like (benchmarks x models)
        Score of each model on each benchmark; NaN marks a model not evaluated on a benchmark.
    domains : sequence, optional
        One domain label per row; each benchmark's peers are the other rows of its domain.
        Default: all rows form one domain.
    min_models : int, default 2
        Fewest shared models for a peer's tau to be defined.
    nan_policy : {"propagate", "omit"}, default "propagate"
        An undefined peer tau makes CBRC NaN ("propagate") or is left out of the mean ("omit").

    Returns
    -------
    ndarray (benchmarks,)
        CBRC in [-1, 1] per row: > 0.7 high, 0.4-0.7 moderate, < 0.4 low consistency with the
        same-domain peers (Sec. 3.1); NaN without peers.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 3.1, Eq. (1).

    Examples
    --------
    >>> from benchkit.quality.steps import cbrc_all
    >>> cbrc_all([[1, 2, 3], [1, 3, 2], [1, 2, 3], [3, 2, 1]], domains=["a", "a", "a", "b"])
    array([0.66666667, 0.33333333, 0.66666667,        nan])
    """
    arr, _, _ = _scores_table(scores)
    codes = _domain_codes(domains, arr.shape[0])
    check_choice("nan_policy", nan_policy, ["propagate", "omit"])
    tau = kendall_matrix(arr, min_models=min_models)
    return _cbrc_from_tau(tau, codes, nan_policy == "omit")


def _cbrc_from_tau(tau: np.ndarray, codes: np.ndarray, omit: bool = False) -> np.ndarray:
    n = tau.shape[0]
    out = np.full(n, np.nan)
    for i in range(n):
        peers = [j for j in range(n) if j != i and codes[j] == codes[i]]
        t = tau[i, peers]
        if omit:
            t = t[~np.isnan(t)]
        if t.size:
            out[i] = np.mean(t)
    return out


# ------------------------------------------------------------------------------------------- DS

def ds(scores, *, eps: float = 0.02) -> float:
    r"""Discriminability Score of one benchmark's model scores (Eq. 2).

    Parameters
    ----------
    scores : array_like (models,)
        Scores of the models on the benchmark as fractions in [0, 1] (accuracies; ``eps`` is a
        difference of fractions, so percentages are refused); NaN entries (models not evaluated)
        are left out.
    eps : float, default 0.02
        Minimum meaningful difference.

    Returns
    -------
    float
        :math:`\frac{\sigma}{\bar s}\sqrt{\#\{j<k: |s_j - s_k| > \epsilon\} / (m(m-1)/2)}`; NaN
        with fewer than 2 scored models (no pair) or when every model scores 0 (zero mean).

    Raises
    ------
    BenchkitValueError
        A score outside [0, 1] (e.g. percentages, ``ds([50, 51, 52])``, or a negative score, which
        would give a negative DS).

    Notes
    -----
    Eq. 2 with the population standard deviation (ddof = 0) and a strict ``> eps``.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 3.2, Eq. (2).

    Examples
    --------
    >>> round(ds([0.2, 0.4, 0.6]), 6)
    0.408248
    """
    s = check_array("scores", scores, ndim=1, dtype="float", finite=False)
    eps = check_float("eps", eps, min=0.0)
    s = s[~np.isnan(s)]
    if s.size and not (s.min() >= 0 and s.max() <= 1):
        bad = s[(s < 0) | (s > 1)][0]
        raise BenchkitValueError(
            f"scores must be fractions in [0, 1] (eps={eps} is a difference of fractions); found "
            f"{describe(float(bad))}" + ("; divide percentages by 100" if bad > 1 else ""))
    m = s.size
    if m < 2:
        return float("nan")
    mean = s.mean()
    if mean == 0:
        return float("nan")
    d = np.abs(s[:, None] - s[None, :])[np.triu_indices(m, 1)]
    share = np.count_nonzero(d > eps) / (m * (m - 1) / 2)
    return float(s.std() / mean * math.sqrt(share))


def _ds_rows(S: np.ndarray, eps: float) -> np.ndarray:
    """DS of each row of a (rows x models) score matrix; NaN cells (unscored models) left out.

    Each row uses its own scored models (NaN with fewer than 2 or a zero mean), as :func:`ds`.
    """
    ok = ~np.isnan(S)
    m = ok.sum(1)
    S0 = np.where(ok, S, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = S0.sum(1) / m
        sd = np.sqrt(np.where(ok, (S0 - mean[:, None]) ** 2, 0.0).sum(1) / m)
    i, j = np.triu_indices(S.shape[1], 1)
    cnt = np.zeros(S.shape[0], dtype=np.int64)
    step = max(1, (1 << 22) // max(i.size, 1))
    for a in range(0, S.shape[0], step):
        blk = S[a:a + step]
        cnt[a:a + step] = (np.abs(blk[:, i] - blk[:, j]) > eps).sum(1)  # NaN > eps is False
    with np.errstate(invalid="ignore", divide="ignore"):
        out = sd / mean * np.sqrt(cnt / (m * (m - 1) / 2))
    return np.where((m < 2) | (mean == 0), np.nan, out)


def ds_contributions(Y, *, eps: float = 0.02) -> np.ndarray:
    """Each item's leave-one-out contribution to DS: ``DS(all items) - DS(all but item q)``.

    Parameters
    ----------
    Y : array_like (items x models)
        Complete 0/1 (or [0, 1]) responses; model scores are item means.
    eps : float, default 0.02
        The minimum meaningful difference of Eq. 2 (the paper's).

    Returns
    -------
    ndarray (items,)
        Positive where the item raises the benchmark's discriminability.

    Notes
    -----
    Sec. 5.4 selects items with "high discriminability contributions" without defining them;
    this reading is the leave-one-out influence of the item on Eq. 2 (exact, vectorized: the
    scores without item q are ``(n * s - Y_q) / (n - 1)``).

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation of
       LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 3.2, Eq. (2); Sec. 5.4 ("high discriminability
       contributions").

    Examples
    --------
    Three items, three models: the first item separates the models (DS drops to 0 without it);
    the all-correct second item compresses the relative spread, so DS rises without it:

    >>> from benchkit.quality.steps import ds_contributions
    >>> ds_contributions([[0, 1, 1], [1, 1, 1], [0, 0, 0]]).round(3)
    array([ 0.231, -0.346,  0.   ])
    """
    Ya = _check_Y(Y, allow_nan=False)
    eps = check_float("eps", eps, min=0.0)
    n = Ya.shape[0]
    if n < 2:
        raise BenchkitValueError(f"ds_contributions needs at least 2 items; got {n}")
    s = Ya.mean(0)
    full = ds(s, eps=eps)
    loo = (n * s[None, :] - Ya) / (n - 1)
    return full - _ds_rows(loo, eps)


# ------------------------------------------------------------------------- the response matrix

def _check_Y(Y, *, allow_nan: bool = True) -> np.ndarray:
    Ya = check_array("Y", Y, ndim=2, dtype="float", finite=False)
    lo, hi = (np.nanmin(Ya), np.nanmax(Ya)) if Ya.size and not np.isnan(Ya).all() else (0.0, 0.0)
    if lo < 0 or hi > 1:  # also catches +-inf
        bad = Ya[(Ya < 0) | (Ya > 1)][0]
        raise BenchkitValueError(f"Y must lie in [0, 1] (NaN for missing); found {bad!r}")
    if not allow_nan and np.isnan(lo + hi + Ya.sum()):
        where = tuple(int(v) for v in np.argwhere(np.isnan(Ya))[0])
        raise BenchkitValueError(f"Y must be complete here; found NaN at (item, model) {where}")
    return Ya


# ------------------------------------------------------------------------------------ stability

def _pairwise_tau_mean(R: np.ndarray) -> float:
    """Mean tau_b over all unordered pairs of rows of R (K x models); NaN pairs left out."""
    K = R.shape[0]
    a, b = np.triu_indices(K, 1)
    taus = []
    step = max(1, 20000 // max(R.shape[1], 1))
    for s in range(0, a.size, step):
        taus.append(np.atleast_1d(kendall_tau_b(R[a[s:s + step]], R[b[s:s + step]])))
    t = np.concatenate(taus)
    return float(np.nanmean(t)) if np.isfinite(t).any() else float("nan")


def _sample_scores(Ya: np.ndarray, pool: np.ndarray, size: int, n_rep: int, replace: bool,
                   gen: np.random.Generator) -> np.ndarray:
    R = np.empty((n_rep, Ya.shape[1]))
    for k in range(n_rep):
        pick = pool[gen.choice(pool.size, size=size, replace=replace)]
        R[k] = Ya[pick].mean(0)
    return R


def stability(Y, ratio, *, n_rep: int = 100, items=None, replace: bool = True, rng=None) -> float:
    r"""Stability Score (Sec. 3.4, Eq. 7): mean pairwise Kendall tau_b of K resampled rankings.

    Parameters
    ----------
    Y : array_like (items x models)
        Complete responses of the full benchmark B.
    ratio : float in (0, 1]
        Selection ratio r; each iteration samples ``max(1, round(r * |B|))`` items, ``|B|`` = number
        of rows of Y.
    n_rep : int, default 100
        The paper's K: the number of repeated samples (sampling iterations).
    items : array_like of int or bool, optional
        The selective benchmark :math:`B_s` (row indices or a mask) the samples are drawn from;
        default all rows (stability of a random r-subset of B).
    replace : bool, default True
        Draw with replacement ("bootstrap sampling iterations"); False draws without (then the
        sample may not exceed the pool).
    rng : None, int, SeedSequence or Generator
        Seed of the sampling (:mod:`benchkit._random`; a Generator is consumed).

    Returns
    -------
    float
        :math:`\frac{2}{K(K-1)}\sum_{i<j}\tau_b(r_i, r_j)` where :math:`r_k` ranks the models by
        mean score on sample k; pairs where a ranking is constant (tau undefined) are left out
        (NaN only if every drawn ranking is constant).

    Raises
    ------
    BenchkitValueError
        Fewer than 2 models (nothing to rank), or a pool where every item gives all models the
        same score (every sampled ranking ties all models: Kendall tau is undefined).

    Notes
    -----
    Sec. 3.4 leaves the pool ambiguous; this reading samples ``r |B|`` instances from the
    selective benchmark ``items`` (for ``r |B| = |B_s|`` an ordinary bootstrap of B_s), with
    replacement by default. Sample size ``max(1, round(r |B|))``.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation of
       LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 3.4, Eq. (7) (K = 100 bootstrap sampling
       iterations).
    .. [2] Kendall, M. G. "The Treatment of Ties in Ranking Problems." Biometrika 33(3), 239-251,
       1945.

    Examples
    --------
    >>> import numpy as np
    >>> Y = (np.random.default_rng(0).random((50, 6)) < np.linspace(0.8, 0.3, 6)).astype(float)
    >>> round(stability(Y, 0.5, n_rep=10, rng=0), 4)
    0.6314
    """
    Ya = _check_Y(Y, allow_nan=False)
    r = check_float("ratio", ratio, min=0.0, max=1.0, min_inclusive=False)
    n_rep = check_int("n_rep", n_rep, min=2)
    n = Ya.shape[0]
    if Ya.shape[1] < 2:
        raise BenchkitValueError(f"stability ranks models: Y needs at least 2 models (columns); got "
                                 f"{Ya.shape[1]}")
    pool = np.arange(n) if items is None else _item_index(items, n)
    if pool.size == 0:
        raise BenchkitValueError("items selects no item; stability needs at least one")
    if _constant_rows(Ya[pool]):
        raise BenchkitValueError(
            f"every one of the {pool.size} pooled items gives all {Ya.shape[1]} models the same "
            "score, so every sampled ranking ties all models and Kendall tau is undefined")
    size = max(1, int(round(r * n)))
    if not replace and size > pool.size:
        raise BenchkitValueError(f"replace=False cannot draw {size} items from a pool of {pool.size}")
    R = _sample_scores(Ya, pool, size, n_rep, bool(replace), generator(rng))
    return _pairwise_tau_mean(R)


def _constant_rows(Y: np.ndarray) -> bool:
    """True when every row gives all columns the same value."""
    return bool(np.all(Y == Y[:, :1]))


def _item_index(items, n: int) -> np.ndarray:
    a = np.asarray(items)
    if a.dtype == bool:
        if a.shape != (n,):
            raise BenchkitValueError(f"items as a mask must have length {n}; got shape {a.shape}")
        return np.flatnonzero(a)
    idx = check_array("items", a, ndim=1, dtype="int")
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise BenchkitValueError(f"items holds an index outside 0..{n - 1}")
    return idx


# ------------------------------------------------------------------------------------------ BQS

def bqs(cbrc, ds, cad, *, weights=(0.3, 0.3, 0.4)):
    r"""Benchmark Quality Score (Eq. 8-10, App. C).

    Parameters
    ----------
    cbrc, ds, cad : float or array_like
        The three metrics (CAD as the transformed score in [0, 1]).
    weights : (alpha, beta, gamma), default (0.3, 0.3, 0.4)
        The weights of CBRC, DS and CAD (the paper's, App. C).

    Returns
    -------
    float or ndarray
        :math:`\alpha (\mathrm{CBRC} + 1)/2 + \beta\,\mathrm{DS} + \gamma\,\mathrm{CAD}`.

    Notes
    -----
    Eq. 9 normalizes CBRC to [0, 1]; DS enters unnormalized, as App. C writes it (DS is not bounded
    by 1 in general, so neither is BQS).

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 3.5, Eq. (8); App. C, Eq. (9)-(10).

    Examples
    --------
    >>> round(bqs(0.8, 0.5, 0.9), 6)
    0.78
    """
    w = check_array("weights", weights, ndim=1, dtype="float", shape=(3,))
    c = np.asarray(cbrc, dtype=np.float64)
    d = np.asarray(ds, dtype=np.float64)
    a = np.asarray(cad, dtype=np.float64)
    out = w[0] * (c + 1.0) / 2.0 + w[1] * d + w[2] * a
    return float(out) if np.ndim(out) == 0 else out
