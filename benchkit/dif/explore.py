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
    """Item x family effects ordered by decreasing :math:`D_i` (ties by item order), anchors marked.

    One row per item (``order, item, source, D, anchor, weight, <family>...``) from half ``half``'s
    final signatures; with ``bins``, consecutive rows of that order are averaged into ``bins``
    rows (``anchor`` becomes the anchor share) so 14,042 items draw as a few hundred rows.
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
    """
    out = audit.thresholds_frame()
    out["filled"] = out["p_value"] <= 0.05
    out["primary"] = np.isclose(out["threshold_pp"], 100 * audit.settings.get("epsilon", 0.01))
    return out


def dimension_selection_view(audit) -> pd.DataFrame:
    r"""App. C.3's held-out loss curves and the one-standard-error rule, one row per half and K.

    Columns ``half, K, mean_loss, se`` (Eq. 21-22), ``threshold`` (the best K's loss plus its
    SE), ``best`` (the raw minimiser), ``selected`` (:math:`K^\star`, Eq. 23) and
    ``within_one_se``. Empty when the audit froze K instead of selecting it.
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
    """
    t = table.dropna(subset=["excess_pp"]).copy()
    t["filled"] = t["p_value"] <= 0.05
    t["primary"] = t["variant"].str.startswith("baseline")
    if benchmark is not None:
        t.insert(0, "benchmark", benchmark)
    return t.reset_index(drop=True)


def near_tie_view(audit, *, epsilon: float | None = None) -> pd.DataFrame:
    """The frozen near-tie pairs with both scores, ordered with the reversals first."""
    p = audit.pairs_frame(epsilon=epsilon)
    return p.sort_values(["reversed", "gap_pp"], ascending=[False, True]).reset_index(drop=True)
