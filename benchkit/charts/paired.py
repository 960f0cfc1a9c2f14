"""Altair charts of paired model comparisons (:mod:`benchkit.paired`).

================================ ============================================================
:func:`neighbours_chart`         the leaderboard's adjacent pairs: difference with its interval,
                                 coloured by whether the pair is distinguishable
:func:`groups_chart`             one comparison split ``by=`` a column: difference per group
================================ ============================================================

All numbers plotted come from :class:`benchkit.paired.Comparisons` / ``Comparison`` results.
"""
from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit.charts import _altair

if TYPE_CHECKING:  # pragma: no cover
    import altair

__all__ = ["neighbours_frame", "neighbours_chart", "groups_chart"]


def neighbours_frame(result: Any) -> pd.DataFrame:
    """The adjacent-pair rows of :attr:`Comparisons.pairs` in leaderboard order, with a ``pair`` label.

    Parameters
    ----------
    result : Comparisons
        From :func:`benchkit.compare_all`.

    Returns
    -------
    DataFrame
        The neighbour rows of ``result.pairs`` (rank_a = 1, 2, ...) with ``pair`` ("1. a  vs
        2. b") and ``distinguishable`` ("yes" when the adjusted p-value is at most alpha).

    References
    ----------
    Q. McNemar (1947), "Note on the sampling error of the difference between correlated
    proportions or percentages", Psychometrika 12(2), 153-157. E. Miller (2024), "Adding error
    bars to evals: a statistical approach to language model evaluations", arXiv:2411.00640.
    S. Holm (1979), Scandinavian Journal of Statistics 6(2), 65-70 (the adjustment).

    Examples
    --------
    >>> import benchkit
    >>> from benchkit.charts import paired as cp
    >>> rs = benchkit.simulate.mcq_probabilities(n_items=60, n_models=4, rng=4).responses
    >>> frame = cp.neighbours_frame(benchkit.compare_all(rs, rng=0))
    >>> frame[["pair", "difference", "distinguishable"]].round(3)
                                 pair  difference distinguishable
    0  1. sim-mcq-3  vs  2. sim-mcq-4       0.050              no
    1  2. sim-mcq-4  vs  3. sim-mcq-2       0.250             yes
    2  3. sim-mcq-2  vs  4. sim-mcq-1       0.017              no
    """
    from benchkit.paired import Comparisons

    if not isinstance(result, Comparisons):
        raise BenchkitTypeError(f"expected a benchkit.paired.Comparisons; got {type(result).__name__}")
    f = result.pairs[result.pairs["neighbours"]].sort_values("rank_a").copy()
    f["pair"] = [f"{ra}. {a}  vs  {rb}. {b}"
                 for ra, a, rb, b in zip(f["rank_a"], f["a"], f["rank_b"], f["b"])]
    f["distinguishable"] = f["significant"].map({True: "yes", False: "no"})
    return f.reset_index(drop=True)


def neighbours_chart(result: Any, *, width: int = 360, title: str | None = None) -> "altair.LayerChart":
    """Each leaderboard neighbour pair: accuracy difference (upper minus lower) with its interval.

    Parameters
    ----------
    result : Comparisons
        From :func:`benchkit.compare_all`.
    width : int, default 360
        Width of the chart in pixels.
    title : str, optional
        Default: the interval level and the adjustment.

    Returns
    -------
    altair.LayerChart
        Points and interval rules per pair, coloured by ``distinguishable`` (adjusted p <= alpha),
        and a rule at 0.

    References
    ----------
    Q. McNemar (1947), "Note on the sampling error of the difference between correlated
    proportions or percentages", Psychometrika 12(2), 153-157. E. Miller (2024), "Adding error
    bars to evals: a statistical approach to language model evaluations", arXiv:2411.00640.

    Examples
    --------
    >>> import benchkit
    >>> from benchkit.charts import paired as cp
    >>> rs = benchkit.simulate.mcq_probabilities(n_items=60, n_models=4, rng=4).responses
    >>> chart = cp.neighbours_chart(benchkit.compare_all(rs, rng=0))
    >>> chart.title
    'Leaderboard neighbours (95% intervals, holm adjusted)'
    """
    alt = _altair()
    data = neighbours_frame(result)
    order = list(data["pair"])
    colour = alt.Color("distinguishable:N", title=f"adjusted p <= {result.alpha:g}",
                       scale=alt.Scale(domain=["yes", "no"], range=["#d9534f", "#9aa5b1"]))
    y = alt.Y("pair:N", sort=order, title=None, axis=alt.Axis(labelLimit=480))
    tip = ["pair:N", alt.Tooltip("difference:Q", format=".4f"), alt.Tooltip("ci_low:Q", format=".4f"),
           alt.Tooltip("ci_high:Q", format=".4f"), alt.Tooltip("p_adjusted:Q", format=".3g"),
           "n_items:Q"]
    rules = alt.Chart(data).mark_rule(strokeWidth=2).encode(
        x=alt.X("ci_low:Q", title="accuracy difference (upper - lower)"), x2="ci_high:Q", y=y, color=colour,
        tooltip=tip)
    pts = alt.Chart(data).mark_point(filled=True, size=50).encode(x="difference:Q", y=y, color=colour,
                                                                 tooltip=tip)
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="#555", strokeDash=[4, 3]).encode(x="x:Q")
    lvl = f"{result.confidence_level:.0%}"
    return (zero + rules + pts).properties(
        width=width, title=title or f"Leaderboard neighbours ({lvl} intervals, {result.adjust} adjusted)")


def groups_chart(result: Any, *, width: int = 360, title: str | None = None) -> "altair.LayerChart":
    """A comparison split by groups: difference and interval per group, all items on top.

    Parameters
    ----------
    result : Comparison
        From :func:`benchkit.compare` with ``by=`` (an error otherwise: no groups to draw).
    width : int, default 360
        Width of the chart in pixels.
    title : str, optional
        Default: the two models and the ``by`` column.

    Returns
    -------
    altair.LayerChart
        Points and interval rules per group (the first row: all items) and a rule at 0.

    References
    ----------
    Q. McNemar (1947), "Note on the sampling error of the difference between correlated
    proportions or percentages", Psychometrika 12(2), 153-157. E. Miller (2024), "Adding error
    bars to evals: a statistical approach to language model evaluations", arXiv:2411.00640.

    Examples
    --------
    Split the items into two halves and compare two models in each:

    >>> import benchkit
    >>> from benchkit.charts import paired as cp
    >>> rs = benchkit.simulate.mcq_probabilities(n_items=60, n_models=4, rng=4).responses
    >>> import numpy as np
    >>> items = rs.items.reset_index().assign(
    ...     half=np.where(np.arange(rs.n_items) < 30, "first", "second"))
    >>> rs2 = benchkit.ResponseSet.from_long(rs.to_long()[["model", "item", "correct"]], items=items)
    >>> chart = cp.groups_chart(benchkit.compare(rs2, "sim-mcq-4", "sim-mcq-1", by="half"))
    >>> chart.title
    'sim-mcq-4 vs sim-mcq-1 by half'
    """
    alt = _altair()
    from benchkit.paired import Comparison

    if not isinstance(result, Comparison):
        raise BenchkitTypeError(f"expected a benchkit.paired.Comparison; got {type(result).__name__}")
    if result.groups is None:
        raise BenchkitValueError("this comparison has no groups: call compare(..., by=column)")
    data = result.to_frame()
    data["group"] = data["group"].astype(str)
    data["significant"] = (data["p_value"] <= 0.05).map({True: "p <= 0.05", False: "p > 0.05"})
    order = list(data["group"])
    y = alt.Y("group:N", sort=order, title=result.by)
    colour = alt.Color("significant:N", title=None,
                       scale=alt.Scale(domain=["p <= 0.05", "p > 0.05"], range=["#d9534f", "#9aa5b1"]))
    tip = ["group:N", alt.Tooltip("difference:Q", format=".3f"), alt.Tooltip("p_value:Q", format=".3g"),
           "n_items:Q"]
    rules = alt.Chart(data).mark_rule().encode(x=alt.X("ci_low:Q", title=f"{result.a} - {result.b}"),
                                               x2="ci_high:Q", y=y, color=colour, tooltip=tip)
    pts = alt.Chart(data).mark_point(filled=True).encode(x="difference:Q", y=y, color=colour, tooltip=tip)
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="#555", strokeDash=[4, 3]).encode(x="x:Q")
    return (zero + rules + pts).properties(
        width=width, title=title or f"{result.a} vs {result.b} by {result.by}")
