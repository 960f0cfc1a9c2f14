"""Altair charts of answer-key checks (:mod:`benchkit.labels`).

Pure functions ``result -> altair.Chart`` (Altair imported inside each function, as in
:mod:`benchkit.charts`).

================================ ============================================================
:func:`key_issues_chart`         items by the ability-weighted share choosing the key (x) and
                                 the alternative (y), sized by count, coloured by issue
:func:`roc_chart`                ROC curves of several item scores against reference labels,
                                 AUROC in the legend (e.g. key_issues vs plain disagreement)
:func:`suspect_picks_chart`      per model: how often it picks a suspect key vs its peers
================================ ============================================================

All numbers plotted come from :class:`benchkit.labels.KeyIssues` and :mod:`benchkit.stats`; the
charts only lay them out.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING
from typing import Any

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit.charts import _altair
from benchkit.stats import auroc
from benchkit.stats import roc_curve

if TYPE_CHECKING:  # pragma: no cover
    import altair

__all__ = ["key_issues_frame", "key_issues_chart", "roc_frame", "roc_chart", "suspect_picks_chart"]

_ISSUE_COLOURS = {"wrong_key": "#d9534f", "ambiguous": "#e0a800", "none": "#9aa5b1"}


def _check_result(result: Any):
    from benchkit.labels import KeyIssues

    if not isinstance(result, KeyIssues):
        raise BenchkitTypeError(f"expected a benchkit.labels.KeyIssues; got {type(result).__name__}")
    return result


def key_issues_frame(result: Any, *, bin_width: float = 0.02) -> pd.DataFrame:
    """The data of :func:`key_issues_chart`: checked items counted by (key share, alternative share, issue).

    Parameters
    ----------
    result : KeyIssues
        From :func:`benchkit.labels.key_issues`.
    bin_width : float, default 0.02
        Shares are rounded to this grid before counting (with one answer per model the shares of
        m models are already on a grid of 1/m).

    Returns
    -------
    DataFrame
        ``weighted_key_share``, ``weighted_share``, ``issue`` ("none" for no issue), ``n_items``
        and ``example`` (the most suspect item of the cell).

    References
    ----------
    A. P. Dawid and A. M. Skene (1979), "Maximum likelihood estimation of observer error-rates
    using the EM algorithm", Applied Statistics 28(1), 20-28. C. G. Northcutt, L. Jiang and
    I. L. Chuang (2021), "Confident learning: estimating uncertainty in dataset labels", Journal
    of Artificial Intelligence Research 70, 1373-1411.

    Examples
    --------
    >>> import benchkit
    >>> from benchkit.labels import key_issues
    >>> from benchkit.charts import labels as cl
    >>> sim = benchkit.simulate.mcq_probabilities(n_items=60, n_models=8, rng=4)  # 2 miskeyed
    >>> result = key_issues(sim.responses)
    >>> frame = cl.key_issues_frame(result)
    >>> frame.head(2)
       weighted_key_share  weighted_share      issue  n_items example
    0                0.04            0.84  wrong_key        1   q0031
    1                0.06            0.92  wrong_key        1   q0041
    """
    res = _check_result(result)
    if not 0 < bin_width <= 0.5:
        raise BenchkitValueError(f"bin_width must be in (0, 0.5]; got {bin_width}")
    f = res.items[res.items["score"].notna()].copy()
    f["issue"] = f["issue"].replace("", "none")
    f["weighted_key_share"] = (f["weighted_key_share"] / bin_width).round() * bin_width
    f["weighted_share"] = (f["weighted_share"] / bin_width).round() * bin_width
    f = f.sort_values("score", ascending=False, kind="stable")
    f["example"] = f.index.astype(str)
    g = f.groupby(["weighted_key_share", "weighted_share", "issue"], sort=True)
    out = g.agg(n_items=("score", "size"), example=("example", "first")).reset_index()
    return out


def key_issues_chart(result: Any, *, bin_width: float = 0.02, width: int = 360, height: int = 300,
                     title: str | None = None) -> "altair.Chart":
    """Items by the weighted share choosing the key and the alternative, coloured by issue.

    A ``wrong_key`` item sits up and left (the models choose the alternative, not the key), an
    ``ambiguous`` one near the anti-diagonal's middle; a dashed rule marks the mean
    confident-learning threshold.

    Parameters
    ----------
    result : KeyIssues
        From :func:`benchkit.labels.key_issues`.
    bin_width : float, default 0.02
        Grid of the shares, as :func:`key_issues_frame`.
    width, height : int
        Size of the chart in pixels.
    title : str, optional
        Default: how many items were flagged.

    Returns
    -------
    altair.LayerChart
        Circles of :func:`key_issues_frame` sized by item count and coloured by issue, and the
        threshold rule.

    References
    ----------
    A. P. Dawid and A. M. Skene (1979), "Maximum likelihood estimation of observer error-rates
    using the EM algorithm", Applied Statistics 28(1), 20-28. C. G. Northcutt, L. Jiang and
    I. L. Chuang (2021), "Confident learning: estimating uncertainty in dataset labels", Journal
    of Artificial Intelligence Research 70, 1373-1411.

    Examples
    --------
    >>> import benchkit
    >>> from benchkit.labels import key_issues
    >>> from benchkit.charts import labels as cl
    >>> sim = benchkit.simulate.mcq_probabilities(n_items=60, n_models=8, rng=4)  # 2 miskeyed
    >>> result = key_issues(sim.responses)
    >>> chart = cl.key_issues_chart(result)
    >>> chart.title
    'Answer-key checks (8 of 60 items flagged)'
    """
    alt = _altair()
    res = _check_result(result)
    data = key_issues_frame(res, bin_width=bin_width)
    t = float(np.nanmean(res.thresholds.replace(np.inf, np.nan).to_numpy()))
    pts = alt.Chart(data).mark_circle(opacity=0.75).encode(
        x=alt.X("weighted_key_share:Q", title="weighted share choosing the key",
                scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("weighted_share:Q", title="weighted share choosing the alternative",
                scale=alt.Scale(domain=[0, 1])),
        size=alt.Size("n_items:Q", title="items", scale=alt.Scale(type="sqrt")),
        color=alt.Color("issue:N", title="issue",
                        scale=alt.Scale(domain=list(_ISSUE_COLOURS), range=list(_ISSUE_COLOURS.values()))),
        tooltip=["issue:N", "n_items:Q", alt.Tooltip("weighted_key_share:Q", format=".2f"),
                 alt.Tooltip("weighted_share:Q", format=".2f"), "example:N"],
    )
    rule = alt.Chart(pd.DataFrame({"t": [t]})).mark_rule(strokeDash=[4, 3], color="#555").encode(
        y=alt.Y("t:Q"))
    return (pts + rule).properties(
        width=width, height=height,
        title=title or f"Answer-key checks ({res.n_flagged} of {len(res.items)} items flagged)")


def roc_frame(scores: Mapping[str, Any], labels: Any) -> pd.DataFrame:
    """ROC points of several scores of the same items against boolean reference labels.

    Parameters
    ----------
    scores : mapping name -> array_like (n,)
        Higher = more suspect. NaN scores (items a method did not check) rank lowest.
    labels : array_like of bool (n,)
        True for the items the reference marks as flawed.

    Returns
    -------
    DataFrame
        ``score`` (the name with its AUROC), ``fpr``, ``tpr``, ``auroc``.

    References
    ----------
    T. Fawcett (2006), "An introduction to ROC analysis", Pattern Recognition Letters 27(8),
    861-874.

    Examples
    --------
    >>> from benchkit.charts.labels import roc_frame
    >>> frame = roc_frame({"a": [0.9, 0.8, 0.3, 0.1], "b": [0.2, 0.9, 0.1, 0.5]},
    ...                   [True, True, False, False])
    >>> frame.groupby("score")["auroc"].first().tolist()
    [1.0, 0.75]
    """
    if not isinstance(scores, Mapping) or not scores:
        raise BenchkitTypeError("scores must be a non-empty mapping of name -> array of scores")
    y = np.asarray(labels, dtype=bool)
    parts = []
    for name, s in scores.items():
        v = np.asarray(s, dtype=float)
        if v.shape != y.shape or np.isnan(v).all():
            raise BenchkitValueError(
                f"scores[{name!r}] must have one score per label ({y.size}), not all NaN")
        v = np.where(np.isnan(v), np.nanmin(v) - 1.0, v)
        a = auroc(v, y)
        fpr, tpr, _ = roc_curve(v, y)
        label = f"{name} (AUROC {a:.3f})"
        parts.append(pd.DataFrame({"score": label, "fpr": fpr, "tpr": tpr, "auroc": a}))
    return pd.concat(parts, ignore_index=True)


def roc_chart(scores: Mapping[str, Any], labels: Any, *, width: int = 300, height: int = 300,
              title: str | None = None) -> "altair.LayerChart":
    """ROC curves of item scores against reference labels (e.g. MMLU-Redux's expert labels).

    Parameters
    ----------
    scores : mapping name -> array_like (n,)
        As :func:`roc_frame` (higher = more suspect).
    labels : array_like of bool (n,)
        True for the items the reference marks as flawed.
    width, height : int
        Size of the chart in pixels.
    title : str, optional
        Default ``"ROC against reference labels"``.

    Returns
    -------
    altair.LayerChart
        One line per score (legend with its AUROC) and the chance diagonal.

    References
    ----------
    T. Fawcett (2006), "An introduction to ROC analysis", Pattern Recognition Letters 27(8),
    861-874.

    Examples
    --------
    >>> from benchkit.charts.labels import roc_chart
    >>> chart = roc_chart({"a": [0.9, 0.8, 0.3, 0.1], "b": [0.2, 0.9, 0.1, 0.5]},
    ...                   [True, True, False, False])
    >>> type(chart).__name__, chart.title
    ('LayerChart', 'ROC against reference labels')
    """
    alt = _altair()
    data = roc_frame(scores, labels)
    lines = alt.Chart(data).mark_line(interpolate="linear").encode(
        x=alt.X("fpr:Q", title="false-positive rate", scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("tpr:Q", title="true-positive rate", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("score:N", title=None, legend=alt.Legend(orient="bottom", direction="vertical")),
        order="fpr:Q",
    )
    diag = alt.Chart(pd.DataFrame({"x": [0.0, 1.0], "y": [0.0, 1.0]})).mark_line(
        strokeDash=[4, 3], color="#999").encode(x="x:Q", y="y:Q")
    return (diag + lines).properties(width=width, height=height,
                                     title=title or "ROC against reference labels")


def suspect_picks_chart(result: Any, *, width: int = 360, title: str | None = None) -> "altair.LayerChart":
    """Per model, the share of suspect (``wrong_key``) items where it picks the key, vs its peers.

    A bar well above its peers' tick is a contamination hint (see :class:`benchkit.labels.KeyIssues`
    for the caveat).

    Parameters
    ----------
    result : KeyIssues
        From :func:`benchkit.labels.key_issues`.
    width : int, default 360
        Width of the chart in pixels.
    title : str, optional
        Default ``"Suspect-key picks (tick: the other models)"``.

    Returns
    -------
    altair.LayerChart
        Bars (``picks_key``, per model) and ticks (``peers_pick_key``); data columns ``model``,
        ``picks_key``, ``peers_pick_key``, ``n_suspect``.

    References
    ----------
    A. P. Dawid and A. M. Skene (1979), "Maximum likelihood estimation of observer error-rates
    using the EM algorithm", Applied Statistics 28(1), 20-28. C. G. Northcutt, L. Jiang and
    I. L. Chuang (2021), "Confident learning: estimating uncertainty in dataset labels", Journal
    of Artificial Intelligence Research 70, 1373-1411.

    Examples
    --------
    >>> import benchkit
    >>> from benchkit.labels import key_issues
    >>> from benchkit.charts import labels as cl
    >>> sim = benchkit.simulate.mcq_probabilities(n_items=60, n_models=8, rng=4)  # 2 miskeyed
    >>> result = key_issues(sim.responses)
    >>> chart = cl.suspect_picks_chart(result)
    >>> chart.data[["model", "n_suspect"]].head(2)
           model  n_suspect
    0  sim-mcq-1          2
    1  sim-mcq-2          2
    """
    alt = _altair()
    res = _check_result(result)
    m = res.models
    if int(m["n_suspect"].max()) == 0:
        raise BenchkitValueError("no item is flagged wrong_key: there are no suspect-key picks to show")
    data = pd.DataFrame({"model": m.index.astype(str), "picks_key": m["picks_key"].to_numpy(dtype=float),
                         "peers_pick_key": m["peers_pick_key"].to_numpy(dtype=float),
                         "n_suspect": m["n_suspect"].to_numpy()})
    order = list(data.sort_values("picks_key", ascending=False, kind="stable")["model"])
    bars = alt.Chart(data).mark_bar(color="#5b8def").encode(
        x=alt.X("picks_key:Q", title="share of suspect items where the model picks the key"),
        y=alt.Y("model:N", sort=order, title=None),
        tooltip=["model:N", "n_suspect:Q", alt.Tooltip("picks_key:Q", format=".3f"),
                 alt.Tooltip("peers_pick_key:Q", format=".3f")],
    )
    ticks = alt.Chart(data).mark_tick(color="#222", thickness=2).encode(
        x="peers_pick_key:Q", y=alt.Y("model:N", sort=order))
    return (bars + ticks).properties(width=width, title=title or "Suspect-key picks (tick: the other models)")
