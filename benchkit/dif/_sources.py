"""Source attribution of family effects (paper 001, Sec. 4.2, App. D.3, Eq. 54-57).

:func:`source_effects` estimates source-level family effects in the discovery half and checks their
signs in the validation half (Eq. 54-55); :func:`source_support` pools those checks over benchmarks
by the binomial support rule (:class:`SourceSupport`); :func:`source_decomposition` splits a
family's score shift exactly into source contributions (Eq. 56-57) and :func:`fold_swap_signs`
checks their signs after swapping the folds (:class:`FoldSwapCheck`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.dif._anchors import FoldAnchors
from benchkit.dif._replication import _common_families

__all__ = ["FoldSwapCheck", "SourceSupport", "fold_swap_signs", "source_decomposition",
           "source_effects", "source_support"]


def source_effects(disc: FoldAnchors, val: FoldAnchors, source, *, min_items: int = 20,
                   n_select: int = 2) -> pd.DataFrame:
    """Source-level family effects and their held-out sign replication (Eq. 54-55).

    For each family, the ``n_select`` most positive and most negative discovery source effects
    (sources with at least ``min_items`` items) are checked for the same sign in validation.

    Parameters
    ----------
    disc : FoldAnchors
        The discovery half's anchors (final signatures).
    val : FoldAnchors
        The validation half's anchors.
    source : array_like (items,)
        Native source of every item.
    min_items : int, default 20
        Sources with fewer items are not eligible (App. D.3).
    n_select : int, default 2
        Most positive and most negative discovery effects selected per family.

    Returns
    -------
    DataFrame
        One row per selected (family, source): ``selected_as`` (positive / negative),
        ``gamma_discovery``, ``gamma_validation`` (Eq. 55) and ``replicated`` (same nonzero sign);
        the input of :func:`source_support`.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 4.2, Sec. 5.4 (58 of 60 signs replicate); App. D.3, Eq. 54-55.

    Examples
    --------
    One most negative and one most positive source per family, checked in the other half:

    >>> from benchkit.dif.steps import build_population, cross_fit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> pop = build_population(sim.model_ids, sim.Y.mean(0), min_family_size=5)
    >>> cf = cross_fit(sim.Y, pop, sim.source, K=(2, 2), rng=0)
    >>> from benchkit.dif.steps import source_effects
    >>> eff = source_effects(cf.anchors[0], cf.anchors[1], sim.source, n_select=1)
    >>> eff[["family", "source", "selected_as", "replicated"]].head(4)
        family    source selected_as  replicated
    0    gemma  source00    negative        True
    1    gemma  source01    positive        True
    2    llama  source02    negative        True
    3    llama  source03    positive        True
    """
    src = np.asarray(source, dtype=object)
    labels, inv = np.unique(src.astype(str), return_inverse=True)
    n_s = np.bincount(inv)
    rows = []
    gam = []
    for fa in (disc, val):
        ds = fa.delta - fa.delta.mean(0, keepdims=True)  # Eq. 54
        gam.append(np.stack([np.bincount(inv, weights=ds[:, f]) / n_s
                             for f in range(ds.shape[1])], 1))  # Eq. 55
    ok = n_s >= min_items
    fams, iD, iV = _common_families(disc, val)
    for fam, fd, fv in zip(fams, iD, iV):
        gd, gv = gam[0][:, fd], gam[1][:, fv]
        cand = np.flatnonzero(ok)
        order = cand[np.argsort(gd[cand], kind="stable")]
        picks = [(s, "negative") for s in order[:n_select]] + \
                [(s, "positive") for s in order[::-1][:n_select]]
        for s, kind in picks:
            rows.append({"family": fam, "source": labels[s], "selected_as": kind,
                         "gamma_discovery": gd[s], "gamma_validation": gv[s],
                         "replicated": bool(np.sign(gd[s]) == np.sign(gv[s]) and gv[s] != 0)})
    return pd.DataFrame(rows)


def source_decomposition(Y_target: np.ndarray, family_target: np.ndarray, weights: np.ndarray,
                         source, families: tuple) -> pd.DataFrame:
    """Exact source contributions to family score shifts (Eq. 56-57) for one direction.

    ``Y_target`` (items, target models), ``family_target`` labels of the target models,
    ``weights`` the frozen anchor weights learnt on the other half (they sum to I). Returns one
    row per (family, source) with ``contribution_pp``; per family the contributions sum to
    ``100 (mean anchor score - mean full score)`` (checked in the tests).

    Which sources move a family's score when the anchors replace the full benchmark.

    Parameters
    ----------
    Y_target : ndarray (items, target models)
        0/1 responses of the target half's representatives.
    family_target : array_like (target models,)
        Their family labels.
    weights : ndarray (items,)
        The anchor weights learnt on the other half (summing to the number of items).
    source : array_like (items,)
        Native source of every item.
    families : tuple of str
        The families to decompose (those absent from the targets are skipped).

    Returns
    -------
    DataFrame
        One row per (family, source): ``contribution_pp`` (Eq. 56).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 5.4; App. D.3, Eq. 56-57.

    Examples
    --------
    Half 0's anchors scoring half 1's models; per family the contributions add up (Eq. 57):

    >>> from benchkit.dif.steps import build_population, cross_fit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> pop = build_population(sim.model_ids, sim.Y.mean(0), min_family_size=5)
    >>> cf = cross_fit(sim.Y, pop, sim.source, K=(2, 2), rng=0)
    >>> from benchkit.dif.steps import source_decomposition
    >>> fold = cf.folds[0]
    >>> family = pop.table["family"].to_numpy(object)[fold.models]
    >>> dec = source_decomposition(fold.Y, family, fold.weights, sim.source, pop.families)
    >>> dec.groupby("family")["contribution_pp"].sum().round(3).head(2)       # Eq. 57
    family
    gemma    1.510
    llama    1.083
    Name: contribution_pp, dtype: float64
    """
    src = np.asarray(source, dtype=object).astype(str)
    labels, inv = np.unique(src, return_inverse=True)
    n_items = Y_target.shape[0]
    fam = np.asarray(family_target, dtype=object)
    rows = []
    for f in families:
        m = fam == f
        if not m.any():
            continue
        per_item = (weights - 1.0) * Y_target[:, m].sum(1)  # sum over models of (w_i - 1) Y_im
        C = 100.0 * np.bincount(inv, weights=per_item, minlength=labels.size) / (n_items * m.sum())
        for s, lab in enumerate(labels):
            rows.append({"family": f, "source": lab, "contribution_pp": C[s]})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ D.3 support rules
def _selected_frame(effects, name: str) -> pd.DataFrame:
    """One frame with a ``benchmark`` column from a frame or a mapping of frames."""
    from collections.abc import Mapping

    if isinstance(effects, pd.DataFrame):
        if "benchmark" in effects.columns:
            return effects.copy()
        return effects.assign(benchmark="benchmark")
    if not isinstance(effects, Mapping):
        raise BenchkitTypeError(f"{name} must be a DataFrame or a mapping benchmark -> DataFrame; "
                                f"got {describe(effects)}")
    if len(effects) == 0:
        raise BenchkitValueError(f"{name} must hold at least one benchmark; got an empty mapping")
    parts = []
    for b, f in effects.items():
        if not isinstance(f, pd.DataFrame):
            raise BenchkitTypeError(f"{name}[{b!r}] must be a DataFrame; got {describe(f)}")
        parts.append(f.assign(benchmark=b))
    return pd.concat(parts, ignore_index=True)


@result
class SourceSupport:
    """Pooled support of source-level family effects (App. D.3, after Eq. 55).

    Whether the discovery-selected extreme source effects keep their signs in the validation half
    often enough, pooled over the source-rich benchmarks (the paper: 58 of 60 checks).

    Parameters
    ----------
    per_benchmark, n_selected, n_replicated, rate, p_value, n_benchmarks_meeting, supported
        The fields described under Attributes (built by :func:`source_support`).
    settings
        The field described under Attributes.

    Attributes
    ----------
    per_benchmark : DataFrame
        Per benchmark: ``n_selected``, ``n_replicated``, ``rate`` and its one-sided exact binomial
        ``p_value`` (H0: sign replication with probability 1/2), ``meets_benchmark_rate``.
    n_selected : int
        Selected source effects, pooled over benchmarks.
    n_replicated : int
        Of those, the ones whose sign replicated.
    rate : float
        Pooled sign-replication rate ``n_replicated / n_selected``.
    p_value : float
        Its one-sided exact binomial p (H0: each sign replicates with probability 1/2).
    n_benchmarks_meeting : int
        Benchmarks with a rate of at least ``min_benchmark_rate``.
    supported : bool
        ``rate >= min_rate`` and ``p_value <= alpha`` and ``n_benchmarks_meeting >=
        min_benchmarks``.
    settings : dict
        The thresholds used (``min_rate``, ``alpha``, ``min_benchmark_rate``,
        ``min_benchmarks``).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 5.4; App. D.3 ("Source-level family effects").

    Examples
    --------
    Benchmark B keeps too few signs, so only one benchmark meets its rate:

    >>> import pandas as pd
    >>> from benchkit.dif.steps import source_support
    >>> eff = {"A": pd.DataFrame({"replicated": [True] * 18 + [False] * 2}),
    ...        "B": pd.DataFrame({"replicated": [True] * 9 + [False] * 11})}
    >>> res = source_support(eff)
    >>> res.rate, res.n_benchmarks_meeting, res.supported
    (0.675, 1, False)
    """

    per_benchmark: pd.DataFrame
    n_selected: int
    n_replicated: int
    rate: float
    p_value: float
    n_benchmarks_meeting: int
    supported: bool
    settings: dict

    def to_frame(self) -> pd.DataFrame:
        """The per-benchmark rows followed by a ``pooled`` row (with ``supported``)."""
        pooled = pd.DataFrame([{"benchmark": "pooled", "n_selected": self.n_selected,
                                "n_replicated": self.n_replicated, "rate": self.rate,
                                "p_value": self.p_value, "meets_benchmark_rate": None,
                                "supported": self.supported}])
        per = self.per_benchmark.astype({"meets_benchmark_rate": object}).assign(supported=None)
        return pd.concat([per, pooled.astype({"supported": object})], ignore_index=True)


def source_support(effects, *, min_rate: float = 0.70, alpha: float = 0.05,
                   min_benchmark_rate: float = 0.65, min_benchmarks: int = 2) -> SourceSupport:
    r"""The pooled binomial support rule for source-level family effects (App. D.3).

    Parameters
    ----------
    effects : DataFrame or mapping of str to DataFrame
        :func:`source_effects` tables (one per source-rich benchmark: the paper uses MMLU-Pro, BBH
        and MMLU), each with a boolean ``replicated`` column: the discovery-selected extreme source
        effects and whether each kept its sign in the validation half. A single frame is one
        benchmark unless it has a ``benchmark`` column.
    min_rate : float
        Pooled sign-replication rate required (0.70).
    alpha : float
        Level of the pooled one-sided exact binomial test (0.05).
    min_benchmark_rate, min_benchmarks : float, int
        At least ``min_benchmarks`` (2) benchmarks must replicate at least ``min_benchmark_rate``
        (0.65) of their selected effects.

    Returns
    -------
    SourceSupport

    Notes
    -----
    Paper 001, App. D.3 ("Source-level family effects", Eq. 54-55): "Pooled support requires at
    least 70% sign replication with a one-sided exact binomial :math:`p \le 0.05`, together with
    at least 65% replication in at least two of the three source-rich benchmarks." Reading: the
    binomial null is a sign replicated with probability 1/2 (:func:`scipy.stats.binomtest`,
    ``alternative="greater"``), the selected effects counted as independent trials; a
    validation effect of exactly zero counts as not replicated (as :func:`source_effects` does).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 5.4; App. D.3 ("Source-level family effects", Eq. 54-55).

    Examples
    --------
    Two benchmarks keep 18 and 14 of their 20 selected signs:

    >>> import pandas as pd
    >>> from benchkit.dif.steps import source_support
    >>> eff = {"A": pd.DataFrame({"replicated": [True] * 18 + [False] * 2}),
    ...        "B": pd.DataFrame({"replicated": [True] * 14 + [False] * 6})}
    >>> s = source_support(eff)
    >>> s.rate, s.n_benchmarks_meeting, s.supported
    (0.8, 2, True)
    """
    from scipy.stats import binomtest

    from benchkit._validation import check_probability

    min_rate = check_probability("min_rate", min_rate)
    alpha = check_probability("alpha", alpha)
    min_benchmark_rate = check_probability("min_benchmark_rate", min_benchmark_rate)
    min_benchmarks = check_int("min_benchmarks", min_benchmarks, min=1)
    tab = _selected_frame(effects, "effects")
    if "replicated" not in tab.columns:
        raise BenchkitValueError("effects must have a boolean 'replicated' column (see "
                                 f"source_effects); got columns {list(tab.columns)}")
    rep = tab["replicated"]
    if not rep.isin([True, False]).all():
        raise BenchkitValueError("effects['replicated'] must hold booleans; got values "
                                 f"{sorted(set(map(repr, rep.unique())))[:5]}")
    rep = rep.astype(bool)
    rows = []
    for b, r in rep.groupby(tab["benchmark"], sort=False):
        n, k = int(r.size), int(r.sum())
        rows.append({"benchmark": b, "n_selected": n, "n_replicated": k, "rate": k / n,
                     "p_value": float(binomtest(k, n, 0.5, alternative="greater").pvalue),
                     "meets_benchmark_rate": bool(k / n >= min_benchmark_rate)})
    per = pd.DataFrame(rows)
    n, k = int(rep.size), int(rep.sum())
    if n == 0:
        raise BenchkitValueError("effects hold no selected source effect")
    rate = k / n
    p = float(binomtest(k, n, 0.5, alternative="greater").pvalue)
    meeting = int(per["meets_benchmark_rate"].sum())
    return SourceSupport(per_benchmark=per, n_selected=n, n_replicated=k, rate=rate, p_value=p,
                         n_benchmarks_meeting=meeting,
                         supported=bool(rate >= min_rate and p <= alpha and meeting >= min_benchmarks),
                         settings={"min_rate": min_rate, "alpha": alpha,
                                   "min_benchmark_rate": min_benchmark_rate,
                                   "min_benchmarks": min_benchmarks})


@result
class FoldSwapCheck:
    """Sign stability of the largest exact source contributions across folds (App. D.3, Eq. 56-57).

    Whether the sources that move a family's score most in one cross-fitting direction move it
    the same way in the other (the paper: 43 of 60 checks).

    Parameters
    ----------
    table, directions
        The fields described under Attributes (built by :func:`fold_swap_signs`).

    Attributes
    ----------
    table : DataFrame
        One row per selected (family, source): ``selected_as`` (positive / negative),
        ``contribution_pp`` in the discovery-to-validation direction, ``swapped_pp`` in the
        swapped direction, ``same_sign``.
    n_checked : int
        Selected contributions (a property).
    n_same : int
        Of those, the ones keeping their sign (a property).
    rate : float
        Share of selected contributions keeping their sign after the swap (NaN when none).
    directions : tuple of str
        ``(forward, swapped)`` direction labels.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 5.4; App. D.3 ("Exact source contribution to score shifts").

    Examples
    --------
    The check on an audit's exact source decomposition (both cross-fitting directions):

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> from benchkit.dif.steps import fold_swap_signs
    >>> check = fold_swap_signs(audit.decomposition)
    >>> check.n_checked, check.n_same, check.rate
    (16, 8, 0.5)
    """

    table: pd.DataFrame
    directions: tuple

    @property
    def n_checked(self) -> int:
        """Selected contributions checked."""
        return len(self.table)

    @property
    def n_same(self) -> int:
        """Selected contributions that keep their sign after the swap."""
        return int(self.table["same_sign"].sum())

    @property
    def rate(self) -> float:
        """``n_same / n_checked`` (NaN when nothing was selected)."""
        return self.n_same / self.n_checked if self.n_checked else float("nan")

    def to_frame(self) -> pd.DataFrame:
        """The per-contribution table (:attr:`table`), a copy."""
        return self.table.copy()

    def families_frame(self) -> pd.DataFrame:
        """Per family: contributions checked and kept."""
        g = self.table.groupby("family", sort=True)["same_sign"]
        return pd.DataFrame({"n_checked": g.size(), "n_same": g.sum().astype(int)}).reset_index()


def fold_swap_signs(decomposition: pd.DataFrame, *, n_select: int = 2,
                    forward: str = "0->1", swapped: str = "1->0") -> FoldSwapCheck:
    r"""The fold-swap sign check of exact source contributions (App. D.3, Eq. 56-57).

    Parameters
    ----------
    decomposition : DataFrame
        :attr:`RankingAudit.decomposition`: columns ``direction``, ``family``, ``source``,
        ``contribution_pp`` (Eq. 56) for both cross-fitting directions.
    n_select : int
        Per family, the ``n_select`` (2) largest positive and the ``n_select`` largest negative
        contributions in the ``forward`` direction are selected.
    forward, swapped : str
        Direction labels: discovery-to-validation, and the same after swapping the folds.

    Returns
    -------
    FoldSwapCheck
        The selected contributions with their swapped values and whether each keeps its sign.

    Notes
    -----
    Paper 001, App. D.3 ("Exact source contribution to score shifts"): "For each family, the two
    largest positive and two largest negative contributions in the discovery-to-validation
    direction are selected, and their signs are checked after swapping the two folds." Readings:
    "positive" and "negative" are strict (a family with fewer than ``n_select`` positive
    contributions contributes what it has); ties in size are broken by source label; a swapped
    contribution of exactly zero, or a source or family missing in the swapped direction, does
    not keep its sign.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 5.4 (43 of 60 signs kept); App. D.3, Eq. 56-57.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.dif.steps import fold_swap_signs
    >>> decomposition = pd.DataFrame({
    ...     "direction": ["0->1"] * 4 + ["1->0"] * 4, "family": "llama",
    ...     "source": ["law", "math", "bio", "art"] * 2,
    ...     "contribution_pp": [1.2, 0.4, -0.8, -0.1, 0.9, -0.2, -0.5, 0.3]})
    >>> check = fold_swap_signs(decomposition)
    >>> check.to_frame()[["source", "selected_as", "contribution_pp", "swapped_pp", "same_sign"]]
      source selected_as  contribution_pp  swapped_pp  same_sign
    0    law    positive              1.2         0.9       True
    1   math    positive              0.4        -0.2      False
    2    bio    negative             -0.8        -0.5       True
    3    art    negative             -0.1         0.3      False
    """
    n_select = check_int("n_select", n_select, min=1)
    if not isinstance(decomposition, pd.DataFrame):
        raise BenchkitTypeError(f"decomposition must be a DataFrame; got {describe(decomposition)}")
    need = {"direction", "family", "source", "contribution_pp"}
    if not need <= set(decomposition.columns):
        raise BenchkitValueError(f"decomposition must have columns {sorted(need)}; got "
                                 f"{list(decomposition.columns)}")
    dirs = set(decomposition["direction"].unique())
    for nm, d in (("forward", forward), ("swapped", swapped)):
        if d not in dirs:
            raise BenchkitValueError(f"{nm}={d!r} is not a direction of the decomposition "
                                     f"({sorted(dirs)})")
    fw = decomposition[decomposition["direction"] == forward]
    sw = decomposition[decomposition["direction"] == swapped].set_index(["family", "source"])[
        "contribution_pp"]
    rows = []
    for fam, d in fw.groupby("family", sort=True):
        d = d.sort_values("source", kind="stable")
        c = d["contribution_pp"].to_numpy(float)
        src = d["source"].to_numpy()
        pos = np.flatnonzero(c > 0)
        neg = np.flatnonzero(c < 0)
        pos = pos[np.argsort(-c[pos], kind="stable")][:n_select]
        neg = neg[np.argsort(c[neg], kind="stable")][:n_select]
        for kind, idx in (("positive", pos), ("negative", neg)):
            for i in idx:
                other = sw.get((fam, src[i]), np.nan)
                rows.append({"family": fam, "source": src[i], "selected_as": kind,
                             "contribution_pp": c[i], "swapped_pp": other,
                             "same_sign": bool(np.sign(other) == np.sign(c[i]))})
    tab = pd.DataFrame(rows, columns=["family", "source", "selected_as", "contribution_pp",
                                      "swapped_pp", "same_sign"])
    return FoldSwapCheck(table=tab, directions=(forward, swapped))
