"""View models of the family-DIF explorer (paper 001).

Plain DataFrames an explorer or a chart renders, computed only from an
:class:`~benchkit.dif.RankingAudit`. No Jupyter imports.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_int

__all__ = [
    "dimension_selection_view",
    "heatmap_view",
    "near_tie_view",
    "reversal_curve_view",
    "robustness_forest_view",
    "signature_view",
]


def heatmap_view(audit, *, half: int = 0, bins: int | None = None) -> pd.DataFrame:
    r"""Item x family effects ordered by decreasing :math:`D_i` (ties by item order), anchors marked.

    One row per item (``order, item, source, D, anchor, weight, <family>...``) from half ``half``'s
    final signatures; with ``bins``, consecutive rows of that order are averaged into ``bins``
    rows (``anchor`` becomes the anchor share) so 14,042 items draw as a few hundred rows.

    Parameters
    ----------
    audit : RankingAudit
        A primary audit.
    half : {0, 1}
        The owner half whose anchors and signatures are shown.
    bins : int, optional
        Average consecutive rows into this many bins (default: one row per item).

    Returns
    -------
    DataFrame
        One row per item (or bin): ``order``, ``item``, ``source``, ``D``, ``anchor``, ``weight``
        and one column of :math:`\delta_{if}` per family (with ``bins``: ``n_items`` and
        ``first_item`` instead of ``item``, ``source``).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.2-3.3 (Eq. 5-6), App. C.5.

    Examples
    --------
    Half 0's items, most family-dependent first:

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> from benchkit.dif.explore import heatmap_view
    >>> view = heatmap_view(audit)
    >>> len(view), list(view.columns[:6])
    (120, ['order', 'item', 'source', 'D', 'anchor', 'weight'])
    >>> bool(view["D"].is_monotonic_decreasing), int(heatmap_view(audit, bins=4)["n_items"].sum())
    (True, 120)
    """
    half = check_int("half", half, min=0, max=1)
    fa = audit.anchors[half]
    order = np.lexsort((np.arange(fa.D.size), -fa.D))
    out = pd.DataFrame({"order": np.arange(order.size), "item": audit.item_ids[order],
                        "source": audit.source[order], "D": fa.D[order],
                        "anchor": fa.selected[-1][order], "weight": fa.weights[order]})
    for j, f in enumerate(fa.families):
        out[f] = fa.delta[order, j]
    if bins is None:
        return out
    bins = check_int("bins", bins, min=1)
    grp = np.minimum(out["order"].to_numpy() * bins // len(out), bins - 1)
    num = out.drop(columns=["item", "source"]).assign(anchor=out["anchor"].astype(float))
    agg = num.groupby(grp).mean()
    agg["n_items"] = np.bincount(grp)
    agg["first_item"] = out.groupby(grp)["item"].first().to_numpy()
    return agg.reset_index(drop=True)


def signature_view(audit, item) -> pd.DataFrame:
    """One item's family effects in both halves, plus D and anchor flags per half.

    Long form: ``half, family, delta``.

    Parameters
    ----------
    audit : RankingAudit
        A primary audit.
    item : object
        An item id of the audit (:attr:`RankingAudit.item_ids`).

    Returns
    -------
    DataFrame
        One row per (half, family): ``half``, ``family``, ``delta``, and the item's ``D`` and
        ``anchor`` flag in that half.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.2 (Eq. 3-5), Sec. 4.2 (replication across owner halves).

    Examples
    --------
    One item's effects in the two owner halves:

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> from benchkit.dif.explore import signature_view
    >>> view = signature_view(audit, audit.item_ids[0])
    >>> view.shape, sorted(set(view["half"]))
    ((10, 5), [0, 1])
    """
    hits = np.flatnonzero(audit.item_ids == item)
    if hits.size == 0:
        raise BenchkitValueError(f"item {item!r} is not in this audit")
    i = int(hits[0])
    rows = []
    for h, fa in enumerate(audit.anchors):
        for j, f in enumerate(fa.families):
            rows.append({"half": h, "family": f, "delta": fa.delta[i, j], "D": fa.D[i],
                         "anchor": bool(fa.selected[-1][i])})
    return pd.DataFrame(rows)


def reversal_curve_view(audit) -> pd.DataFrame:
    """Figure 1 / Table 4 rows, one per threshold (pp).

    The low-DIF rate, matched-random median and 95% band, excess, p and whether the marker is
    filled (p <= .05).

    Parameters
    ----------
    audit : RankingAudit
        A primary audit.

    Returns
    -------
    DataFrame
        :meth:`RankingAudit.thresholds_frame` plus ``filled`` (p <= .05) and ``primary`` (the
        one-point threshold).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 5.2, Figure 1; App. B.1 (Table 4).

    Examples
    --------
    Figure 1's points of an audit:

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> from benchkit.dif.explore import reversal_curve_view
    >>> reversal_curve_view(audit)[["threshold_pp", "excess_pp", "filled", "primary"]].iloc[2:4]
       threshold_pp  excess_pp  filled  primary
    2           1.0   0.000000   False     True
    3           2.0   0.000000   False    False
    """
    out = audit.thresholds_frame()
    out["filled"] = out["p_value"] <= 0.05
    out["primary"] = np.isclose(out["threshold_pp"], 100 * audit.settings.get("epsilon", 0.01))
    return out


def dimension_selection_view(audit) -> pd.DataFrame:
    r"""App. C.3's held-out loss curves and the one-standard-error rule, one row per half and K.

    Parameters
    ----------
    audit : RankingAudit
        An audit that selected K (``K=None``).

    Returns
    -------
    DataFrame
        Columns ``half, K, mean_loss, se`` (Eq. 21-22), ``threshold`` (the best K's loss plus its
        SE), ``best`` (the raw minimiser), ``selected`` (:math:`K^\star`, Eq. 23) and
        ``within_one_se``. Empty when the audit froze K instead of selecting it.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", App. C.3, Eq. (21)-(23) (held-out loss and the one-standard-error rule).

    Examples
    --------
    The smallest K within one SE of the best is selected in each owner half:

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5, grid=(1, 2, 4),
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> from benchkit.dif.explore import dimension_selection_view
    >>> dimension_selection_view(audit)[["half", "K", "mean_loss", "se", "selected"]].round(4)
       half  K  mean_loss      se  selected
    0     0  1     0.5354  0.0171      True
    1     0  2     0.5332  0.0192     False
    2     0  4     0.5347  0.0182     False
    3     1  1     0.6070  0.0126      True
    4     1  2     0.6051  0.0100     False
    5     1  4     0.6175  0.0117     False
    """
    rows = []
    for h, sel in enumerate(audit.selection):
        if sel is None:
            continue
        f = sel.to_frame()
        b = list(sel.grid).index(sel.K_best)
        f.insert(0, "half", h)
        f["threshold"] = sel.mean_loss[b] + sel.se[b]
        f["within_one_se"] = f["mean_loss"] <= f["threshold"]
        rows.append(f)
    cols = ["half", "K", "mean_loss", "se", "selected", "best", "threshold", "within_one_se"]
    return pd.concat(rows, ignore_index=True)[cols] if rows else pd.DataFrame(columns=cols)


def robustness_forest_view(table: pd.DataFrame, *, benchmark: str | None = None) -> pd.DataFrame:
    """Figure 2 rows from :func:`benchkit.dif.analyze_robustness` tables.

    Columns: variant, excess, p, filled, primary (the baseline row).

    Parameters
    ----------
    table : DataFrame
        One benchmark's :func:`benchkit.dif.analyze_robustness` table.
    benchmark : str, optional
        Added as a first column (to stack the rows of several benchmarks).

    Returns
    -------
    DataFrame
        The rows with an excess (variants that could be audited) plus ``filled`` (p <= .05) and
        ``primary`` (the baseline).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 5.3, Figure 2; App. D.2.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.dif.explore import robustness_forest_view
    >>> table = pd.DataFrame({"variant": ["baseline cap 5", "owner cap 1", "omit phi"],
    ...                       "excess_pp": [19.5, 12.0, None], "p_value": [0.001, 0.03, None]})
    >>> robustness_forest_view(table, benchmark="mmlu")
      benchmark         variant  excess_pp  p_value  filled  primary
    0      mmlu  baseline cap 5       19.5    0.001    True     True
    1      mmlu     owner cap 1       12.0    0.030    True    False
    """
    t = table.dropna(subset=["excess_pp"]).copy()
    t["filled"] = t["p_value"] <= 0.05
    t["primary"] = t["variant"].str.startswith("baseline")
    if benchmark is not None:
        t.insert(0, "benchmark", benchmark)
    return t.reset_index(drop=True)


def near_tie_view(audit, *, epsilon: float | None = None) -> pd.DataFrame:
    """The frozen near-tie pairs with both scores, ordered with the reversals first.

    Parameters
    ----------
    audit : RankingAudit
        A primary audit.
    epsilon : float, optional
        The near-tie band (default: the audit's, 0.01).

    Returns
    -------
    DataFrame
        :meth:`RankingAudit.pairs_frame`: per pair the fold, both models' full and anchor scores,
        the gap (pp), ``anchor_tie`` and ``reversed``; reversals first, then by gap.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.4 (Eq. 9), Sec. 5.1.

    Examples
    --------
    The near-tied pairs of an audit, reversals first:

    >>> from benchkit.dif.steps import run_audit, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> quick = dict(K=(2, 2), n_controls=99, n_bootstrap=99, n_owner_bootstrap=99, n_permutations=99)
    >>> audit = run_audit(sim.Y, sim.model_ids, source=sim.source, min_family_size=5,
    ...                   sensitivity_fractions=(), rng=0, progress=False, **quick)
    >>> from benchkit.dif.explore import near_tie_view
    >>> view = near_tie_view(audit)
    >>> len(view), int(view["reversed"].sum())
    (14, 6)
    """
    p = audit.pairs_frame(epsilon=epsilon)
    return p.sort_values(["reversed", "gap_pp"], ascending=[False, True]).reset_index(drop=True)
