r"""Paired item-level comparison of models: is a leaderboard difference real.

Two models answered the same items, so their accuracy difference is a mean of per-item paired
differences :math:`d_i = s_{ai} - s_{bi}` (scores averaged over a cell's samples). Its standard
error is that of a paired mean, made cluster-robust when items are not independent (passages,
subjects); 0/1 single-sample data get the exact McNemar test; repeated samples a paired bootstrap
interval.

================================ ===========================================================
:func:`compare`                  two models: difference, SE, p-value, interval (``by=`` splits)
:func:`compare_all`              every pair, Holm or Benjamini-Hochberg adjusted, and which
                                 leaderboard neighbours are statistically distinguishable
================================ ===========================================================

Checked against statsmodels in the tests: ``mcnemar(table, exact=True)`` and
``OLS(d, 1).fit()`` / ``.fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True)`` (to 1e-10).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from benchkit._parallel import blocked_map
from benchkit._parallel import check_n_jobs
from benchkit._random import seed_sequence
from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_int
from benchkit._validation import check_probability
from benchkit._validation import describe
from benchkit.response_set import check_response_set
from benchkit.stats import benjamini_hochberg
from benchkit.stats import holm
from benchkit.stats import mcnemar_exact
from benchkit.stats import percentile_interval

__all__ = ["Comparison", "Comparisons", "METHODS", "ADJUSTMENTS", "compare", "compare_all"]

#: ``method=`` choices of :func:`compare` and :func:`compare_all`.
METHODS: tuple[str, ...] = ("auto", "mcnemar", "t", "bootstrap")
#: ``adjust=`` choices of :func:`compare_all`.
ADJUSTMENTS: tuple[str, ...] = ("holm", "bh", "none")
_BLOCK = 100  # bootstrap replicates per block (a constant: results do not depend on n_jobs)
_PAIR_CHUNK = 256  # pairs per bootstrap matrix product (bounds memory)


@result
class Comparison:
    """A paired comparison of two models (:func:`compare`).

    Is model a's accuracy lead over model b on the same items real? The difference of their
    accuracies with a paired standard error, a p-value and an interval: a small p (or an interval
    that excludes 0) means the lead is unlikely to be item-sampling noise.

    Parameters
    ----------
    a, b, difference, se, p_value, ci, statistic, df, accuracy_a, accuracy_b, n_items, n_unpaired
        The fields described under Attributes (built by :func:`compare`).
    a_only, b_only, n_clusters, method, ci_method, n_resamples, confidence_level, cluster, by
        The fields described under Attributes.
    groups, rng_entropy
        The fields described under Attributes.

    Attributes
    ----------
    a : str
        The first model; ``difference`` is a minus b.
    b : str
        The second model.
    difference : float
        Mean paired difference = accuracy of a minus accuracy of b on the items both answered.
    se : float
        Its standard error (paired; cluster-robust with ``cluster``).
    p_value : float
        Two-sided: exact McNemar (``method="mcnemar"``) or the paired t-test.
    ci : tuple of float
        The interval at ``confidence_level``: t (paired or clustered) or percentile bootstrap.
    statistic : float
        The paired t statistic ``difference / se``.
    df : float
        Its degrees of freedom (``n_items - 1``, or ``n_clusters - 1``).
    accuracy_a : float
        Model a's accuracy on the paired items.
    accuracy_b : float
        Model b's accuracy on the paired items.
    n_items : int
        Items both models answered.
    n_unpaired : int
        Items left out because one model has no response there.
    a_only : int or None
        Discordant count of 0/1 single-sample data: items a got right and b wrong (None for
        graded or repeated scores).
    b_only : int or None
        The reverse: b right and a wrong.
    n_clusters : int or None
        Clusters with ``cluster`` (None without).
    method : str
        How the p-value was computed: ``"mcnemar"`` or ``"t"``.
    ci_method : str
        ``"t"`` or ``"bootstrap"``.
    n_resamples : int
        Bootstrap replicates (0 without a bootstrap).
    confidence_level : float
        Of ``ci``.
    cluster : str or None
        The items column of the clusters (None without).
    by : str or None
        The items column of the groups (None without).
    groups : DataFrame or None
        With ``by``: one row per group, the columns of :meth:`to_frame`.
    rng_entropy : int or None
        Entropy of the root seed of ``rng`` (only the bootstrap draws from it):
        ``compare(..., rng=rng_entropy)`` repeats the bootstrap interval exactly.

    References
    ----------
    Q. McNemar (1947), Psychometrika 12(2), 153-157 (the exact test of the discordant counts).
    E. Miller (2024), "Adding error bars to evals", arXiv:2411.00640 (paired differences of
    evaluation scores).

    Examples
    --------
    >>> import benchkit
    >>> sim = benchkit.simulate.mcq_probabilities(rng=0)          # 300 items x 8 models
    >>> res = benchkit.compare(sim.responses, "sim-mcq-8", "sim-mcq-1")
    >>> round(res.difference, 3), res.a_only, res.b_only, res.method
    (0.533, 163, 3, 'mcnemar')
    >>> [round(x, 3) for x in res.ci]
    [0.474, 0.592]
    """

    a: str
    b: str
    difference: float
    se: float
    p_value: float
    ci: tuple
    statistic: float
    df: float
    accuracy_a: float
    accuracy_b: float
    n_items: int
    n_unpaired: int
    a_only: int | None
    b_only: int | None
    n_clusters: int | None
    method: str
    ci_method: str
    n_resamples: int
    confidence_level: float
    cluster: str | None = None
    by: str | None = None
    groups: pd.DataFrame | None = None
    rng_entropy: Any = None

    def _row(self) -> dict:
        return {"a": self.a, "b": self.b, "difference": self.difference, "se": self.se,
                "p_value": self.p_value, "ci_low": self.ci[0], "ci_high": self.ci[1],
                "statistic": self.statistic, "df": self.df, "accuracy_a": self.accuracy_a,
                "accuracy_b": self.accuracy_b, "n_items": self.n_items, "n_unpaired": self.n_unpaired,
                "a_only": self.a_only, "b_only": self.b_only, "n_clusters": self.n_clusters,
                "method": self.method, "ci_method": self.ci_method}

    def to_frame(self) -> pd.DataFrame:
        """One row for all items (``group`` "all"), then one per ``by`` group."""
        top = pd.DataFrame([{"group": "all", **self._row()}])
        if self.groups is None:
            return top
        return pd.concat([top, self.groups], ignore_index=True)


@result
class Comparisons:
    """Every pair of models compared (:func:`compare_all`).

    Which leaderboard neighbours can be told apart: every pair's paired comparison with
    multiplicity-adjusted p-values, and the leaderboard grouped into tiers of models that are not
    distinguishable from their neighbours.

    Parameters
    ----------
    pairs, leaderboard, adjust, alpha, confidence_level, n_resamples, cluster, rng_entropy
        The fields described under Attributes (built by :func:`compare_all`).

    Attributes
    ----------
    pairs : DataFrame
        One row per pair, ``a`` the more accurate model (by :meth:`ResponseSet.accuracy`): the
        columns of :meth:`Comparison.to_frame`, plus ``p_adjusted`` and ``significant``
        (``p_adjusted <= alpha``), ``rank_a``, ``rank_b`` and ``neighbours`` (adjacent on the
        leaderboard).
    leaderboard : DataFrame
        One row per model, most accurate first: ``rank``, ``model``, ``accuracy``, ``next``
        (the model ranked below), ``difference_to_next``, ``p_adjusted_to_next``,
        ``distinguishable_from_next`` and ``tier`` (a new tier starts below each distinguishable
        neighbour pair, so models in one tier are not told apart from their neighbours).
    adjust : str
        ``"holm"``, ``"bh"`` or ``"none"`` (over all pairs).
    alpha : float
        The level of ``significant`` and ``distinguishable_from_next``.
    confidence_level : float
        Of the pairs' intervals.
    n_resamples : int
        Bootstrap replicates of the intervals (0 without a bootstrap).
    cluster : str or None
        The items column of the clusters (None without).
    rng_entropy : int or None
        Entropy of the root seed of ``rng`` (only the bootstrap draws from it; one draw serves
        all pairs): ``compare_all(..., rng=rng_entropy)`` repeats the intervals exactly.

    References
    ----------
    S. Holm (1979), "A simple sequentially rejective multiple test procedure", Scandinavian Journal
    of Statistics 6(2), 65-70. Y. Benjamini and Y. Hochberg (1995), "Controlling the false
    discovery rate: a practical and powerful approach to multiple testing", J. R. Stat. Soc. B
    57(1), 289-300.

    Examples
    --------
    Eight simulated models: three neighbour pairs can be told apart, so four tiers:

    >>> import benchkit
    >>> sim = benchkit.simulate.mcq_probabilities(rng=0)          # 300 items x 8 models
    >>> res = benchkit.compare_all(sim.responses)
    >>> res.n_distinguishable_neighbours, res.leaderboard["tier"].tolist()
    (3, [1, 2, 2, 2, 2, 3, 3, 4])
    """

    pairs: pd.DataFrame
    leaderboard: pd.DataFrame
    adjust: str
    alpha: float
    confidence_level: float
    n_resamples: int
    cluster: str | None = None
    rng_entropy: Any = None

    @property
    def n_distinguishable_neighbours(self) -> int:
        """How many adjacent leaderboard pairs differ significantly."""
        return int(self.leaderboard["distinguishable_from_next"].sum())

    def to_frame(self) -> pd.DataFrame:
        """The pairs table (:attr:`pairs`)."""
        return self.pairs.copy()


# ------------------------------------------------------------------------------------ inputs


@result
class _Data:
    S: np.ndarray          # items x models, mean score (NaN = no response)
    binary: bool           # every response 0/1 and one sample per cell
    repeats: bool          # some cell has several samples
    models: pd.Index
    clusters: np.ndarray | None  # cluster code per item
    cluster: str | None


def _data(rs, cluster) -> _Data:
    rs = check_response_set("rs", rs)
    if rs.variants:
        raise BenchkitValueError(
            f"comparisons need a single variant, but rs holds {len(rs.variants)} "
            f"({', '.join(map(repr, rs.variants[:5]))}); pick one with rs.select(variant=...)")
    S = rs.scores()
    repeats = bool(np.any(rs.budget.to_numpy() > 1))
    binary = rs.is_binary and not repeats
    codes, name = None, None
    if cluster is not None:
        codes, name = _codes(rs, "cluster", cluster)
    return _Data(S=S, binary=binary, repeats=repeats, models=rs.model_ids, clusters=codes, cluster=name)


def _column(rs, arg: str, value) -> tuple[pd.Series, str]:
    """An items column (by name) or a Series by item id."""
    if isinstance(value, str):
        if value not in rs.items.columns:
            raise BenchkitValueError(
                f"{arg}={value!r} is not an items column; columns: {', '.join(map(str, rs.items.columns))}")
        return rs.items[value], value
    if isinstance(value, pd.Series):
        missing = rs.item_ids.difference(value.index)
        if len(missing):
            raise BenchkitValueError(f"{arg} has no value for item(s) {', '.join(map(repr, missing[:5]))}")
        return value.reindex(rs.item_ids), str(value.name) if value.name is not None else arg
    raise BenchkitTypeError(f"{arg} must be an items column name or a Series by item; got {describe(value)}")


def _codes(rs, arg: str, value) -> tuple[np.ndarray, str]:
    col, name = _column(rs, arg, value)
    if col.isna().any():
        it = rs.item_ids[col.isna().to_numpy()][0]
        raise BenchkitValueError(f"{arg} {name!r} is missing for item {it!r}; every item needs a value")
    codes, _ = pd.factorize(col.astype(object), sort=False)
    return codes.astype(np.int64), name


def _model(data: _Data, arg: str, name) -> int:
    if not isinstance(name, str):
        raise BenchkitTypeError(f"{arg} must be a model id (str); got {describe(name)}")
    pos = data.models.get_indexer([name])[0]
    if pos < 0:
        more = " ..." if len(data.models) > 8 else ""
        raise BenchkitValueError(f"{arg}={name!r} is not a model of rs; models: "
                                 f"{', '.join(map(repr, data.models[:8]))}{more}")
    return int(pos)


def _resolve_method(method: str, data: _Data, clustered: bool) -> tuple[str, str]:
    """(p-value method, interval method)."""
    check_choice("method", method, METHODS)
    if method == "auto":
        if data.repeats:
            return "t", "bootstrap"
        if data.binary and not clustered:
            return "mcnemar", "t"
        return "t", "t"
    if method == "mcnemar":
        if not data.binary:
            raise BenchkitValueError(
                "method='mcnemar' needs 0/1 correctness with one sample per cell; use 't' or 'bootstrap'")
        if clustered:
            raise BenchkitValueError(
                "method='mcnemar' assumes independent items; with cluster= use method='t' or 'bootstrap'")
        return "mcnemar", "t"
    if method == "bootstrap":
        return "t", "bootstrap"
    return "t", "t"


# ------------------------------------------------------------------------------------ analytic


def _paired(d: np.ndarray, clusters: np.ndarray | None, confidence_level: float) -> dict:
    """Mean, SE, t, df, p and t interval of paired differences (statsmodels OLS on a constant)."""
    from scipy import stats

    n = d.size
    diff = float(d.mean())
    if clusters is None:
        se = float(np.std(d, ddof=1) / math.sqrt(n))
        df = n - 1
        n_clusters = None
    else:
        codes, inv = np.unique(clusters, return_inverse=True)
        G = codes.size
        u = np.bincount(inv, weights=d - diff, minlength=G)
        # statsmodels' cluster covariance with its default small-sample factor G/(G-1) (N-1)/(N-k), k = 1
        se = float(math.sqrt(G / (G - 1) * float(u @ u)) / n) if G > 1 else float("nan")
        df = G - 1
        n_clusters = int(G)
    if se > 0:
        t = diff / se
        p = float(2 * stats.t.sf(abs(t), df))
        half = float(stats.t.ppf((1 + confidence_level) / 2, df) * se)
    elif se == 0:  # every paired difference equal
        t = 0.0 if diff == 0 else math.copysign(math.inf, diff)
        p = 1.0 if diff == 0 else 0.0
        half = 0.0
    else:
        t, p, half = float("nan"), float("nan"), float("nan")
    return {"difference": diff, "se": se, "statistic": float(t), "df": float(df), "p_value": p,
            "ci": (diff - half, diff + half), "n_clusters": n_clusters}


def _pair_stats(sa: np.ndarray, sb: np.ndarray, data: _Data, method: str, confidence_level: float,
                keep: np.ndarray | None = None) -> dict:
    both = ~np.isnan(sa) & ~np.isnan(sb)
    if keep is not None:
        n_unpaired = int((keep & ~both).sum())
        both &= keep
    else:
        n_unpaired = int((~both).sum())
    n = int(both.sum())
    out = {"accuracy_a": float("nan"), "accuracy_b": float("nan"), "n_items": n,
           "n_unpaired": n_unpaired, "a_only": None, "b_only": None}
    clusters = None if data.clusters is None else data.clusters[both]
    if n < 2 or (clusters is not None and np.unique(clusters).size < 2):
        nan = float("nan")
        out.update(difference=nan, se=nan, statistic=nan, df=nan, p_value=nan, ci=(nan, nan),
                   n_clusters=None if clusters is None else int(np.unique(clusters).size))
        return out
    a, b = sa[both], sb[both]
    out["accuracy_a"], out["accuracy_b"] = float(a.mean()), float(b.mean())
    out.update(_paired(a - b, clusters, confidence_level))
    if data.binary:
        out["a_only"] = int(np.sum((a == 1) & (b == 0)))
        out["b_only"] = int(np.sum((a == 0) & (b == 1)))
    if method == "mcnemar":
        out["p_value"] = mcnemar_exact(out["a_only"], out["b_only"])
    return out


# ------------------------------------------------------------------------------------ bootstrap


def _weights(gen: np.random.Generator, reps: int, n_items: int, clusters: np.ndarray | None) -> np.ndarray:
    """Resampling counts per item, (reps, items): items, or whole clusters, drawn with replacement."""
    if clusters is None:
        draws = gen.integers(0, n_items, size=(reps, n_items))
        W = np.zeros((reps, n_items))
        np.add.at(W, (np.repeat(np.arange(reps), n_items), draws.ravel()), 1.0)
        return W
    G = int(clusters.max()) + 1
    draws = gen.integers(0, G, size=(reps, G))
    Wc = np.zeros((reps, G))
    np.add.at(Wc, (np.repeat(np.arange(reps), G), draws.ravel()), 1.0)
    return Wc[:, clusters]


def _boot_block(seed, start, stop, D, Obs, clusters) -> np.ndarray:
    """Replicates start..stop-1 of every pair's mean difference: (reps, pairs)."""
    from threadpoolctl import threadpool_limits

    gen = np.random.default_rng(seed)
    W = _weights(gen, stop - start, D.shape[0], clusters)
    with threadpool_limits(1), np.errstate(invalid="ignore", divide="ignore"):
        return (W @ D) / (W @ Obs)


def _bootstrap(D: np.ndarray, Obs: np.ndarray, clusters, n_resamples: int, rng, n_jobs) -> np.ndarray:
    """(n_resamples, pairs) replicate differences; D = d * observed, Obs = observed (items x pairs)."""
    parts = blocked_map(_boot_block, n_resamples, rng=rng, block_size=_BLOCK, args=(D, Obs, clusters),
                        n_jobs=n_jobs)
    return np.concatenate(parts, axis=0)


def _check_common(confidence_level, n_resamples):
    c = check_probability("confidence_level", confidence_level, open_interval=True)
    r = check_int("n_resamples", n_resamples, min=1)
    return c, r


# ------------------------------------------------------------------------------------ entry points


def compare(rs: Any, a: str, b: str, *, by: Any = None, cluster: Any = None, method: str = "auto",
            confidence_level: float = 0.95, n_resamples: int = 2_000, rng: Any = None,
            n_jobs: Any = None) -> Comparison:
    r"""Paired comparison of two models on the items both answered.

    Parameters
    ----------
    rs : ResponseSet
        One variant; scores are averaged over a cell's samples.
    a, b : str
        Model ids; the difference is a minus b.
    by : str or Series, optional
        An items column (or a Series by item): also compare within each of its groups
        (:attr:`Comparison.groups`).
    cluster : str or Series, optional
        An items column (or a Series by item) of clusters, e.g. subject or passage: cluster-robust
        SE and t on (clusters - 1) df, and a cluster bootstrap.
    method : {"auto", "mcnemar", "t", "bootstrap"}
        ``"auto"``: repeated samples -> ``"bootstrap"``; 0/1 single-sample data without
        ``cluster`` -> ``"mcnemar"``; otherwise ``"t"``. ``"mcnemar"``: exact McNemar p-value, t
        interval. ``"t"``: paired t-test and interval. ``"bootstrap"``: t-test p-value, percentile
        interval of a paired bootstrap.
    confidence_level : float, default 0.95
        Of the interval.
    n_resamples : int, default 2000
        Bootstrap replicates (``"bootstrap"`` only).
    rng : None, int, SeedSequence or Generator
        Seeds the bootstrap (:mod:`benchkit._random`; a Generator is consumed); recorded as
        ``rng_entropy``.
    n_jobs : int, optional
        Workers for the bootstrap (results identical for any value).

    Returns
    -------
    Comparison
        ``difference`` (a minus b), ``se``, ``p_value``, ``ci`` and the counts; with ``by``,
        ``groups`` holds one row per group.

    Notes
    -----
    With :math:`d_i = s_{ai} - s_{bi}` over the n paired items, the difference is :math:`\bar d`
    and the paired SE :math:`s_d / \sqrt n` (``ddof=1``), the OLS standard error of a regression of
    d on a constant; the t-test uses n - 1 df. Clustered: :math:`\widehat{V} = \frac{G}{G-1}
    \sum_g (\sum_{i \in g} (d_i - \bar d))^2 / n^2` (Liang and Zeger 1986 with statsmodels'
    small-sample factor) and t on G - 1 df (Cameron and Miller 2015). McNemar (1947): the exact
    binomial test of the discordant counts ``a_only`` vs ``b_only``. Bootstrap: items (or whole
    clusters) are resampled with replacement, the same draw for both models (paired); the
    replicate difference is the mean of d over the drawn items; the interval is the percentile
    interval. Samples within a cell are not resampled: their noise is already in each
    :math:`d_i`. With ``by``, each group's replicate is the same draw restricted to the group.
    Items one model did not answer are left out and counted (``n_unpaired``).

    References
    ----------
    Q. McNemar (1947), Psychometrika 12(2), 153-157. K.-Y. Liang and S. L. Zeger (1986), Biometrika
    73(1), 13-22. A. C. Cameron and D. L. Miller (2015), J. Human Resources 50(2), 317-372.
    B. Efron and R. J. Tibshirani (1993), An Introduction to the Bootstrap, Chapman & Hall/CRC.
    E. Miller (2024), "Adding error bars to evals", arXiv:2411.00640.

    Examples
    --------
    >>> import benchkit
    >>> sim = benchkit.simulate.mcq_probabilities(rng=0)
    >>> res = benchkit.compare(sim.responses, "sim-mcq-8", "sim-mcq-1")
    >>> res.method, res.difference > 0
    ('mcnemar', True)

    Repeated samples per (model, item) get a paired bootstrap interval:

    >>> rs = benchkit.simulate.load_sample("ladder")               # 10 samples per cell
    >>> res = benchkit.compare(rs, "sim-32b", "sim-14b", n_resamples=500, rng=0)
    >>> res.ci_method, round(res.difference, 3), [round(x, 3) for x in res.ci]
    ('bootstrap', 0.11, [0.086, 0.137])
    >>> benchkit.compare(rs, "sim-32b", "sim-14b", n_resamples=500, rng=res.rng_entropy).ci == res.ci
    True
    """
    n_jobs = check_n_jobs(n_jobs)
    data = _data(rs, cluster)
    ia, ib = _model(data, "a", a), _model(data, "b", b)
    if ia == ib:
        raise BenchkitValueError(f"a and b must be two different models; got {a!r} twice")
    method_p, method_ci = _resolve_method(method, data, cluster is not None)
    confidence_level, n_resamples = _check_common(confidence_level, n_resamples)
    root = seed_sequence(rng)
    group_codes, by_name, levels = None, None, None
    if by is not None:
        col, by_name = _column(rs, "by", by)
        if col.isna().any():
            raise BenchkitValueError(f"by {by_name!r} is missing for item "
                                     f"{rs.item_ids[col.isna().to_numpy()][0]!r}")
        group_codes, levels = pd.factorize(col.astype(object), sort=True)
    sa, sb = data.S[:, ia], data.S[:, ib]
    keeps = [None] + ([] if levels is None else [group_codes == g for g in range(len(levels))])
    stats_ = [_pair_stats(sa, sb, data, method_p, confidence_level, keep) for keep in keeps]
    if method_ci == "bootstrap":
        D, Obs = [], []
        for keep in keeps:
            obs = ~np.isnan(sa) & ~np.isnan(sb) & (True if keep is None else keep)
            Obs.append(obs.astype(float))
            D.append(np.where(obs, np.nan_to_num(sa - sb), 0.0))
        reps = _bootstrap(np.column_stack(D), np.column_stack(Obs), data.clusters, n_resamples, root, n_jobs)
        for j, st in enumerate(stats_):
            st["ci"] = percentile_interval(reps[:, j], confidence_level=confidence_level)
    common = dict(a=a, b=b, method=method_p, ci_method=method_ci,
                  n_resamples=n_resamples if method_ci == "bootstrap" else 0,
                  confidence_level=confidence_level, cluster=data.cluster)
    groups = None
    if levels is not None:
        rows = []
        for lev, st in zip(levels, stats_[1:]):
            c = Comparison(**common, **st)
            rows.append({"group": lev, **c._row()})
        groups = pd.DataFrame(rows)
    return Comparison(**common, **stats_[0], by=by_name, groups=groups, rng_entropy=root.entropy)


def compare_all(rs: Any, *, models: Any = None, cluster: Any = None, method: str = "auto",
                adjust: str = "holm", alpha: float = 0.05, confidence_level: float = 0.95,
                n_resamples: int = 2_000, rng: Any = None, n_jobs: Any = None) -> Comparisons:
    """Every pair of models compared, with multiplicity-adjusted p-values and leaderboard tiers.

    Parameters
    ----------
    rs : ResponseSet
        One variant; scores are averaged over a cell's samples.
    models : list of str, optional
        The models to compare (default all).
    cluster, method, confidence_level, n_resamples, rng, n_jobs
        As in :func:`compare` (one bootstrap draw is shared by all pairs).
    adjust : {"holm", "bh", "none"}, default "holm"
        Family-wise (Holm 1979) or false-discovery-rate (Benjamini-Hochberg 1995) adjustment over
        all pairs (:mod:`benchkit.stats`).
    alpha : float, default 0.05
        Level for ``significant`` and ``distinguishable_from_next``.

    Returns
    -------
    Comparisons
        ``pairs`` (every pair, ``a`` the more accurate, with ``p_adjusted`` and ``significant``)
        and ``leaderboard`` (rank, accuracy, distinguishability from the next model, tier).

    Notes
    -----
    The leaderboard orders models by :meth:`ResponseSet.accuracy`; two neighbours are
    distinguishable when their pair's adjusted p-value is at most ``alpha``. Adjusting over all
    pairs (not only neighbours) keeps the table's other rows valid too; it is conservative for the
    neighbour question alone.

    References
    ----------
    S. Holm (1979), "A simple sequentially rejective multiple test procedure", Scandinavian Journal
    of Statistics 6(2), 65-70. Y. Benjamini and Y. Hochberg (1995), "Controlling the false
    discovery rate: a practical and powerful approach to multiple testing", J. R. Stat. Soc. B
    57(1), 289-300. The paired statistics of each pair: see :func:`compare`.

    Examples
    --------
    >>> import benchkit
    >>> sim = benchkit.simulate.mcq_probabilities(rng=0)
    >>> res = benchkit.compare_all(sim.responses)
    >>> len(res.pairs), list(res.leaderboard["rank"])
    (28, [1, 2, 3, 4, 5, 6, 7, 8])
    >>> res.leaderboard[["model", "accuracy", "distinguishable_from_next", "tier"]].head(3).round(3)
           model  accuracy  distinguishable_from_next  tier
    0  sim-mcq-8     0.933                       True     1
    1  sim-mcq-5     0.873                      False     2
    2  sim-mcq-6     0.863                      False     2
    """
    n_jobs = check_n_jobs(n_jobs)
    check_choice("adjust", adjust, ADJUSTMENTS)
    alpha = check_probability("alpha", alpha, open_interval=True)
    if models is not None:
        rs = check_response_set("rs", rs).select(models=models)
    data = _data(rs, cluster)
    if data.models.size < 2:
        raise BenchkitValueError("compare_all needs at least 2 models")
    method_p, method_ci = _resolve_method(method, data, cluster is not None)
    confidence_level, n_resamples = _check_common(confidence_level, n_resamples)
    root = seed_sequence(rng)  # one root: every chunk of pairs sees the same item draws
    acc = rs.accuracy()
    order = np.argsort(-acc.to_numpy(), kind="stable")
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(1, order.size + 1)
    pairs = [(order[i], order[j]) for i in range(order.size) for j in range(i + 1, order.size)]
    S = data.S
    rows = []
    for ia, ib in pairs:
        st = _pair_stats(S[:, ia], S[:, ib], data, method_p, confidence_level)
        rows.append({"a": data.models[ia], "b": data.models[ib], **st})
    if method_ci == "bootstrap":
        for s in range(0, len(pairs), _PAIR_CHUNK):
            chunk = pairs[s:s + _PAIR_CHUNK]
            ia = np.array([p[0] for p in chunk])
            ib = np.array([p[1] for p in chunk])
            obs = ~np.isnan(S[:, ia]) & ~np.isnan(S[:, ib])
            D = np.where(obs, np.nan_to_num(S[:, ia] - S[:, ib]), 0.0)
            reps = _bootstrap(D, obs.astype(float), data.clusters, n_resamples, root, n_jobs)
            lo, hi = percentile_interval(reps, confidence_level=confidence_level)
            for k, j in enumerate(range(s, s + len(chunk))):
                rows[j]["ci"] = (float(lo[k]), float(hi[k]))
    frame = pd.DataFrame([{
        **{k: r[k] for k in ("a", "b")},
        **Comparison(a=r["a"], b=r["b"], method=method_p, ci_method=method_ci,
                     n_resamples=0, confidence_level=confidence_level, cluster=data.cluster,
                     **{k: v for k, v in r.items() if k not in ("a", "b")})._row(),
    } for r in rows])
    p = frame["p_value"].to_numpy(dtype=float)
    finite = ~np.isnan(p)
    adj = p.copy()
    if finite.any() and adjust != "none":
        adj[finite] = (holm if adjust == "holm" else benjamini_hochberg)(p[finite])
    frame["p_adjusted"] = adj
    frame["significant"] = adj <= alpha
    frame["rank_a"] = [int(rank[i]) for i, _ in pairs]
    frame["rank_b"] = [int(rank[j]) for _, j in pairs]
    frame["neighbours"] = frame["rank_b"] == frame["rank_a"] + 1
    board = _leaderboard(frame, data.models, order, acc)
    return Comparisons(pairs=frame, leaderboard=board, adjust=adjust, alpha=alpha,
                       confidence_level=confidence_level,
                       n_resamples=n_resamples if method_ci == "bootstrap" else 0, cluster=data.cluster,
                       rng_entropy=root.entropy)


def _leaderboard(frame: pd.DataFrame, models: pd.Index, order: np.ndarray, acc: pd.Series) -> pd.DataFrame:
    nb = frame[frame["neighbours"]].set_index("a")
    rows = []
    tier = 1
    for r, pos in enumerate(order):
        m = models[pos]
        row = {"rank": r + 1, "model": m, "accuracy": float(acc.iloc[pos]), "tier": tier}
        if m in nb.index:
            x = nb.loc[m]
            row.update(next=x["b"], difference_to_next=float(x["difference"]),
                       p_adjusted_to_next=float(x["p_adjusted"]),
                       distinguishable_from_next=bool(x["significant"]))
            if row["distinguishable_from_next"]:
                tier += 1
        else:
            row.update(next=None, difference_to_next=float("nan"), p_adjusted_to_next=float("nan"),
                       distinguishable_from_next=False)
        rows.append(row)
    return pd.DataFrame(rows)
