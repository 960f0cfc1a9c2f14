"""Altair charts of the cross-method audit (:func:`benchkit.audit`).

Pure functions ``result -> altair.Chart`` (Altair imported inside each function, as in
:mod:`benchkit.charts`).

================================ ============================================================
:func:`agreement_chart`          methods x methods: Cohen's kappa, Jaccard or Kendall tau_b of
                                 each pair, with the number of items both flag; the diagonal
                                 shows how many items each method flags
:func:`flags_chart`              per method, its flagged items split by how many methods flag
                                 them (1, 2, 3 or more)
:func:`validation_chart`         per method (and union, at least two), a validation metric
                                 against a reference flag set, with its chance level
================================ ============================================================

All numbers plotted come from :class:`benchkit.AuditResult` and
:class:`benchkit.auditing.AuditValidation`; the charts only lay them out.
"""
from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit.charts import _altair

if TYPE_CHECKING:  # pragma: no cover
    import altair

__all__ = ["agreement_frame", "agreement_chart", "flags_frame", "flags_chart", "validation_chart"]

_STATISTICS = ("kappa", "jaccard", "tau_b")
_METRICS = ("auroc", "average_precision", "precision_at_k", "precision", "recall")


def _check_result(result: Any):
    from benchkit.auditing import AuditResult

    if not isinstance(result, AuditResult):
        raise BenchkitTypeError(f"expected a benchkit.AuditResult; got {type(result).__name__}")
    return result


def agreement_frame(result: Any, *, statistic: str = "kappa") -> pd.DataFrame:
    """The data of :func:`agreement_chart`: every ordered pair of methods, and each method with itself.

    Parameters
    ----------
    result : AuditResult
        From :func:`benchkit.audit`, with at least two methods that give an item verdict.
    statistic : {"kappa", "jaccard", "tau_b"}, default "kappa"
        Column of the ``agreement`` table of :class:`benchkit.AuditResult` shown as colour.

    Returns
    -------
    DataFrame
        ``method_a``, ``method_b``, ``value`` (the statistic; NaN on the diagonal), ``n_both``
        (items both flag; on the diagonal, the items the method flags), ``n_items`` and
        ``label`` (the text in the cell).

    References
    ----------
    J. Cohen (1960), "A coefficient of agreement for nominal scales", Educational and
    Psychological Measurement 20(1), 37-46 (kappa). P. Jaccard (1912), "The distribution of the
    flora in the alpine zone", New Phytologist 11(2), 37-50. M. G. Kendall (1945), "The treatment
    of ties in ranking problems", Biometrika 33(3), 239-251 (tau_b).

    Examples
    --------
    Two methods on a simulated suite: each flags its own items (diagonal), one item both flag:

    >>> import benchkit
    >>> from benchkit.charts import auditing as ca
    >>> sim = benchkit.simulate.audit_suite(n_items=20, benchmarks=2, n_models=40, T=5, rng=0)
    >>> res = benchkit.audit(sim.responses, methods=["labels", "landscape"], n_resamples=0,
    ...                      progress=False, rng=0)
    >>> ca.agreement_frame(res).round(2)
        method_a   method_b  value  n_both  n_items          label
    0     labels     labels    NaN       6       60      6 flagged
    1  landscape  landscape    NaN       1       60      1 flagged
    2     labels  landscape   0.26       1       60  0.26 (1 both)
    3  landscape     labels   0.26       1       60  0.26 (1 both)
    """
    res = _check_result(result)
    check_choice("statistic", statistic, _STATISTICS)
    methods = list(res.methods)
    if len(methods) < 2:
        raise BenchkitValueError(f"agreement needs two methods with an item verdict; this audit has "
                                 f"{methods or 'none'}")
    rows = []
    for m in methods:
        scored = res.items[f"{m}_score"].notna()
        n_flag = int(res.items[f"{m}_flag"].sum())
        rows.append((m, m, np.nan, n_flag, int(scored.sum()), f"{n_flag} flagged"))
    for _, r in res.agreement.iterrows():
        label = f"{r[statistic]:.2f} ({int(r['n_both'])} both)" if np.isfinite(r[statistic]) else \
            f"n/a ({int(r['n_both'])} both)"
        for a, b in ((r["method_a"], r["method_b"]), (r["method_b"], r["method_a"])):
            rows.append((a, b, r[statistic], int(r["n_both"]), int(r["n_items"]), label))
    return pd.DataFrame(rows, columns=["method_a", "method_b", "value", "n_both", "n_items", "label"])


def agreement_chart(result: Any, *, statistic: str = "kappa", cell: int = 70,
                    title: str | None = None) -> "altair.LayerChart":
    """Heat map of the agreement between the methods' flags (or scores), one cell per pair.

    Parameters
    ----------
    result : AuditResult
        From :func:`benchkit.audit`, with at least two methods that give an item verdict.
    statistic : {"kappa", "jaccard", "tau_b"}, default "kappa"
        Cohen's kappa of the flags, the Jaccard index of the flag sets, or Kendall's tau_b of the
        scores (over the items both methods scored).
    cell : int, default 70
        Cell size in pixels.
    title : str, optional
        Chart title; default names the statistic.

    Returns
    -------
    altair.LayerChart
        Colour: the statistic (blue scale from 0 to 1 for Jaccard, red-blue from -1 to 1
        otherwise); cell text: the value and the number of items both flag (on the diagonal,
        the items the method flags). The data are :func:`agreement_frame`'s.

    References
    ----------
    J. Cohen (1960), "A coefficient of agreement for nominal scales", Educational and
    Psychological Measurement 20(1), 37-46 (kappa). P. Jaccard (1912), "The distribution of the
    flora in the alpine zone", New Phytologist 11(2), 37-50. M. G. Kendall (1945), "The treatment
    of ties in ranking problems", Biometrika 33(3), 239-251 (tau_b).

    Examples
    --------
    >>> import benchkit
    >>> from benchkit.charts import auditing as ca
    >>> sim = benchkit.simulate.audit_suite(n_items=20, benchmarks=2, n_models=40, T=5, rng=0)
    >>> res = benchkit.audit(sim.responses, methods=["labels", "landscape"], n_resamples=0,
    ...                      progress=False, rng=0)
    >>> chart = ca.agreement_chart(res, statistic="jaccard")
    >>> type(chart).__name__, chart.width, chart.height     # two methods: 2 x 70 pixels
    ('LayerChart', 140, 140)
    """
    alt = _altair()
    data = agreement_frame(result, statistic=statistic)
    order = list(_check_result(result).methods)
    domain = [0.0, 1.0] if statistic == "jaccard" else [-1.0, 1.0]
    scheme = "blues" if statistic == "jaccard" else "redblue"
    base = alt.Chart(data).encode(
        x=alt.X("method_b:N", sort=order, title=None, axis=alt.Axis(labelAngle=-30)),
        y=alt.Y("method_a:N", sort=order, title=None),
    )
    cells = base.mark_rect(stroke="white").encode(
        color=alt.Color("value:Q", title=statistic, scale=alt.Scale(domain=domain, scheme=scheme)),
        tooltip=["method_a:N", "method_b:N", alt.Tooltip("value:Q", format=".3f"), "n_both:Q", "n_items:Q"],
    )
    text = base.mark_text(fontSize=10).encode(text="label:N")
    n = len(order)
    return (cells + text).properties(
        width=cell * n, height=cell * n,
        title=title or f"Agreement between the methods ({statistic}; cell text: value and items both flag)")


def flags_frame(result: Any) -> pd.DataFrame:
    """The data of :func:`flags_chart`: per method, its flagged items by how many methods flag them.

    Parameters
    ----------
    result : AuditResult
        From :func:`benchkit.audit`, with at least one method that gives an item verdict.

    Returns
    -------
    DataFrame
        ``method``, ``n_flags`` (``"1"``, ``"2"``, ``"3+"``: how many methods flag the item, this
        one included) and ``n_items``.

    References
    ----------
    The audit's methods and their papers: :func:`benchkit.audit` (References).

    Examples
    --------
    Five of the six items the answer-key check flags are flagged by it alone; the landscape's
    one flag is confirmed by the answer-key check:

    >>> import benchkit
    >>> from benchkit.charts import auditing as ca
    >>> sim = benchkit.simulate.audit_suite(n_items=20, benchmarks=2, n_models=40, T=5, rng=0)
    >>> res = benchkit.audit(sim.responses, methods=["labels", "landscape"], n_resamples=0,
    ...                      progress=False, rng=0)
    >>> ca.flags_frame(res).pivot(index="method", columns="n_flags", values="n_items")
    n_flags    1  2  3+
    method
    labels     5  1   0
    landscape  0  1   0
    """
    res = _check_result(result)
    if not res.methods:
        raise BenchkitValueError("no method with an item verdict ran in this audit")
    rows = []
    n = res.items["n_flags"].to_numpy()
    band = np.where(n >= 3, "3+", n.astype(str))
    for m in res.methods:
        f = res.items[f"{m}_flag"].to_numpy(bool)
        for b in ("1", "2", "3+"):
            rows.append((m, b, int(np.sum(f & (band == b)))))
    return pd.DataFrame(rows, columns=["method", "n_flags", "n_items"])


def flags_chart(result: Any, *, width: int = 360, title: str | None = None) -> "altair.Chart":
    """Flagged items per method, stacked by how many methods flag them.

    A method whose flags others confirm has long "2" and "3+" segments; one that flags alone has a
    long "1" segment.

    Parameters
    ----------
    result : AuditResult
        From :func:`benchkit.audit`, with at least one method that gives an item verdict.
    width : int, default 360
        Chart width in pixels.
    title : str, optional
        Chart title.

    Returns
    -------
    altair.Chart
        One horizontal bar per method, stacked by :func:`flags_frame`'s ``n_flags`` (grey: this
        method alone, amber: two methods, red: three or more).

    References
    ----------
    The audit's methods and their papers: :func:`benchkit.audit` (References).

    Examples
    --------
    >>> import benchkit
    >>> from benchkit.charts import auditing as ca
    >>> sim = benchkit.simulate.audit_suite(n_items=20, benchmarks=2, n_models=40, T=5, rng=0)
    >>> res = benchkit.audit(sim.responses, methods=["labels", "landscape"], n_resamples=0,
    ...                      progress=False, rng=0)
    >>> chart = ca.flags_chart(res)
    >>> type(chart).__name__, chart.title
    ('Chart', 'Flags per method, by how many methods agree')
    """
    alt = _altair()
    res = _check_result(result)
    data = flags_frame(res)
    return alt.Chart(data).mark_bar().encode(
        x=alt.X("sum(n_items):Q", title="flagged items"),
        y=alt.Y("method:N", sort=list(res.methods), title=None),
        color=alt.Color("n_flags:N", title="methods flagging the item",
                        scale=alt.Scale(domain=["1", "2", "3+"], range=["#9aa5b1", "#e0a800", "#d9534f"]),
                        legend=alt.Legend(orient="bottom", direction="horizontal")),
        order=alt.Order("n_flags:N", sort="ascending"),
        tooltip=["method:N", "n_flags:N", "n_items:Q"],
    ).properties(width=width, title=title or "Flags per method, by how many methods agree")


def validation_chart(validation: Any, *, metric: str = "auroc", width: int = 360,
                     title: str | None = None) -> "altair.LayerChart":
    """One bar per method (and union, at least two): a metric against the reference, with chance.

    Parameters
    ----------
    validation : AuditValidation
        From :meth:`benchkit.AuditResult.validate`.
    metric : {"auroc", "average_precision", "precision_at_k", "precision", "recall"}, default "auroc"
        The column of ``validation.table`` drawn. The chance level drawn as a rule: 0.5 for
        AUROC, the prevalence for the precisions and average precision; none for recall.
    width : int, default 360
        Chart width in pixels.
    title : str, optional
        Chart title; default names the metric and the size of the reference set.

    Returns
    -------
    altair.LayerChart
        One bar per row of ``validation.table`` (the methods, ``union``, ``at least two``); a
        bar beyond the dashed rule does better than a random ranking.

    References
    ----------
    T. Fawcett (2006), "An introduction to ROC analysis", Pattern Recognition Letters 27(8),
    861-874 (AUROC). C. D. Manning, P. Raghavan and H. Schütze (2008), *Introduction to
    Information Retrieval*, Cambridge University Press, Sec. 8.4 (precision at k, average
    precision).

    Examples
    --------
    The audit's flags against the flaws planted in a simulated suite:

    >>> import benchkit
    >>> from benchkit.charts import auditing as ca
    >>> sim = benchkit.simulate.audit_suite(n_items=20, benchmarks=2, n_models=40, T=5, rng=0)
    >>> res = benchkit.audit(sim.responses, methods=["labels", "landscape"], n_resamples=0,
    ...                      progress=False, rng=0)
    >>> v = res.validate(sim.truth.flawed_items)
    >>> chart = ca.validation_chart(v, metric="average_precision")
    >>> type(chart).__name__, chart.title
    ('LayerChart', 'average_precision against 28 reference items (rule: chance)')
    """
    from benchkit.auditing import AuditValidation

    alt = _altair()
    if not isinstance(validation, AuditValidation):
        raise BenchkitTypeError(f"expected a benchkit.auditing.AuditValidation; got "
                                f"{type(validation).__name__}")
    check_choice("metric", metric, _METRICS)
    t = validation.table
    data = pd.DataFrame({"method": t.index.astype(str), "value": t[metric].to_numpy(dtype=float),
                         "n_flagged": t["n_flagged"].to_numpy(), "n_hits": t["n_hits"].to_numpy()})
    bars = alt.Chart(data).mark_bar(color="#5b8def").encode(
        x=alt.X("value:Q", title=metric, scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("method:N", sort=list(data["method"]), title=None),
        tooltip=["method:N", alt.Tooltip("value:Q", format=".3f"), "n_flagged:Q", "n_hits:Q"],
    )
    chance = {"auroc": 0.5, "recall": np.nan}.get(metric, validation.prevalence)
    layers = bars
    if np.isfinite(chance):
        layers = bars + alt.Chart(pd.DataFrame({"chance": [chance]})).mark_rule(
            strokeDash=[4, 3], color="#555").encode(x="chance:Q")
    return layers.properties(width=width, title=title or (
        f"{metric} against {validation.n_reference} reference items (rule: chance)"))
