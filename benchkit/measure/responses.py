r"""Paper 002's pipeline on ResponseSets: 1PL difficulties per benchmark -> the empirical measure.

The rest of :mod:`benchkit.measure` works on arrays of difficulties. This module holds the
ResponseSet-level entry points on top of it: it fits a 1PL per benchmark, normalizes the
difficulties, and collects DDM, the gaps and Table 1 for many benchmarks in one frozen result that
the explorer (:class:`benchkit.widgets.ECDFGapExplorer`) and the charts
(:mod:`benchkit.charts.measure`) read; and it checks how the measure moves when one model is left
out of the fit.

============================== ===============================================================
:func:`measure_benchmarks`     ResponseSet(s) -> :class:`BenchmarkMeasures` (Table 1 + per-item)
:func:`fit_difficulties`       the 1PL fit used for one ResponseSet (binary or sampled counts)
:func:`combine`                several results (e.g. whole sets and a ``by=`` split) in one
:func:`leave_one_model_out`    refit without each model: stability of difficulties and metrics
============================== ===============================================================

Example
-------
>>> from benchkit import simulate
>>> from benchkit.measure import measure_benchmarks
>>> res = measure_benchmarks(simulate.load_sample("mirt"), by="source")
>>> res.names
['sample-mirt/dim2', 'sample-mirt/dim3', 'sample-mirt/dim1']
>>> res["sample-mirt/dim1"].gap_targets(k=2).to_frame()[["rank", "width", "target"]].round(3)
   rank  width  target
0     1  0.226   0.887
1     2  0.085   0.042
"""
from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import field
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_choice
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.irt import fit_1pl
from benchkit.irt import fit_1pl_counts
from benchkit.measure._filling import GapTargets
from benchkit.measure._filling import WhatIf
from benchkit.measure._filling import gap_targets
from benchkit.measure._filling import what_if
from benchkit.measure._leave_one_out import LOOStability
from benchkit.measure._leave_one_out import leave_one_model_out
from benchkit.measure._metrics import normalize_difficulty
from benchkit.measure._power import DetectionPower
from benchkit.measure._power import detection_power
from benchkit.measure._summary import TABLE1_THRESHOLDS
from benchkit.measure._summary import MeasureSummary
from benchkit.measure._summary import MeasureTable
from benchkit.measure._summary import summarize
from benchkit.measure._summary import tabulate_measures

__all__ = [
    "BenchmarkMeasure",
    "BenchmarkMeasures",
    "LOOStability",
    "combine",
    "fit_difficulties",
    "leave_one_model_out",
    "measure_benchmarks",
]


def _counts_of(rs) -> tuple[np.ndarray, np.ndarray]:
    from benchkit.response_set import check_response_set

    check_response_set("rs", rs)
    cm = rs.counts()
    return cm.K, cm.N


def _fit_counts(K, N, *, method, item_prior_sd, ability_prior_sd, items, models):
    if N.max(initial=0) <= 1:  # one sample per cell: the ordinary (Bernoulli) 1PL
        Y = np.where(N == 1, K, np.nan).astype(float)
        kw = dict(method=method, item_prior_sd=item_prior_sd, items=items, models=models)
        if method == "jml":
            kw["ability_prior_sd"] = ability_prior_sd
        return fit_1pl(Y, **kw)
    if method != "jml":
        raise BenchkitValueError(
            f"method={method!r} needs one sample per cell; this set has up to {int(N.max())} "
            "samples per cell, fitted by the binomial 1PL: use method='jml'"
        )
    return fit_1pl_counts(K, N, item_prior_sd=item_prior_sd, ability_prior_sd=ability_prior_sd,
                          items=items, models=models)


def fit_difficulties(
    rs: Any,
    *,
    method: str = "jml",
    item_prior_sd: float | None = 3.0,
    ability_prior_sd: float | None = 3.0,
):
    """The 1PL fit :func:`measure_benchmarks` uses for one ResponseSet.

    Parameters
    ----------
    rs : ResponseSet
        0/1 correctness (any number of samples per cell; budgets may differ per model).
    method : {"jml", "mml"}
        ``"jml"`` (default): penalized joint ML — :func:`benchkit.irt.fit_1pl` for one sample per
        cell, :func:`fit_1pl_counts` (binomial) for several. ``"mml"``: marginal ML through
        ``fit_1pl``; only for one sample per cell.
    item_prior_sd, ability_prior_sd : float or None
        Gaussian penalties (see :func:`benchkit.irt.fit_1pl`; ``ability_prior_sd`` is JML only).

    Returns
    -------
    benchkit.irt.IRTFit

    Notes
    -----
    JML is the default because it is consistent when each model answers many items (MMLU: 14,014
    per model), where MML's fixed quadrature degrades (see ``fit_1pl``), and because its penalized
    optimum is the posterior mode of the paper's Bayesian 1PL with Normal(0, 3^2) priors.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. Figure 2, step 3 (1PL IRT model P(Y_ij = 1) =
       sigma(theta_j - b_i)).

    Examples
    --------
    >>> from benchkit import measure, simulate
    >>> rs = simulate.load_sample("mirt")      # 500 items x 60 models, one response each
    >>> fit = measure.fit_difficulties(rs)
    >>> fit.difficulty[:3].round(3)            # logits, higher = harder
    array([-2.143,  0.647,  1.596])
    """
    check_choice("method", method, ("jml", "mml"))
    K, N = _counts_of(rs)
    return _fit_counts(K, N, method=method, item_prior_sd=item_prior_sd,
                       ability_prior_sd=ability_prior_sd, items=rs.item_ids, models=rs.model_ids)


# ----------------------------------------------------------------------------------------------
# results
# ----------------------------------------------------------------------------------------------
def _from_summary(name: str, doc: str) -> property:
    """A read-only attribute forwarded from ``self.summary`` (the benchmark's Table 1 row)."""
    return property(lambda self: getattr(self.summary, name), doc=doc)


@result
class BenchmarkMeasure:
    """One benchmark as an empirical measure: per-item difficulties and its Table 1 row.

    The benchmark is the measure nu_B = (1/n) sum_i delta_{z_i} over normalized item difficulty
    z in [0, 1]. Its DDM says how far that measure is from the target (uniform: every difficulty
    weighted alike), its gaps where along the axis it has no items. Read ``ddm``, ``max_gap`` and
    ``top_sum`` against Table 1's highlights (0.10, 0.10, 0.30), then :meth:`gap_targets` for
    where to add items.

    Parameters
    ----------
    name, items, difficulty, z, text, summary, fit, n_models, dropped, normalize
        The fields below (see Attributes); built by :func:`benchkit.measure.measure_benchmarks`.

    Attributes
    ----------
    name : str
        The benchmark's name.
    items : pandas.Index
        Ids of the items on the axis (those with a finite fitted difficulty), in input order.
    difficulty : ndarray (n,)
        1PL difficulties on the logit scale (higher = harder).
    z : ndarray (n,)
        Normalized difficulties in [0, 1] (default min-max: the easiest item at 0, the hardest
        at 1).
    text : ndarray of object (n,) or None
        Item text where the data carry it (``None`` entries where an item has none).
    summary : benchkit.measure.steps.MeasureSummary
        DDM, Max Gap and top-k gaps of ``z``.
    fit : benchkit.irt.IRTFit or None
        The 1PL fit (None when difficulties were given directly).
    n_models : int
        Models with at least one observed response (the columns of the fit).
    dropped : pandas.Index
        Items left off the axis (no observed response, or infinite difficulty without a prior).
    normalize : {"minmax", "logistic"}
        The map from logits to [0, 1].

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. "A measure-based view of benchmarks", "Two
       diagnostic metrics", Table 1.

    Examples
    --------
    >>> from benchkit import measure, simulate
    >>> b = measure.measure_benchmarks(simulate.load_sample("mirt"))["sample-mirt"]
    >>> b.n_items, b.n_models, round(b.ddm, 3), round(b.max_gap, 3), round(b.top_sum, 3)
    (500, 60, 0.144, 0.152, 0.393)
    >>> b.to_frame().head(3).round(3)
           difficulty      z
    item
    q0000      -2.143  0.327
    q0001       0.647  0.630
    q0002       1.596  0.733
    """

    name: str
    items: pd.Index
    difficulty: np.ndarray
    z: np.ndarray
    text: np.ndarray | None
    summary: MeasureSummary
    fit: Any
    n_models: int
    dropped: pd.Index
    normalize: str

    @property
    def n_items(self) -> int:
        """Number of items on the axis (finite difficulties)."""
        return int(self.z.size)

    ddm = _from_summary("ddm", "DDM of the benchmark (Table 1).")
    max_gap = _from_summary("max_gap", "The Maximum Gap G(B) (Table 1).")
    top_sum = _from_summary("top_sum", "The Top-k Gap Sum (Table 1; k = 5 by default).")
    top_gaps = _from_summary("top_gaps", "The k widest gaps, widest first (TopGaps).")

    def to_frame(self) -> pd.DataFrame:
        """Item table indexed by item: ``difficulty``, ``z`` and ``text`` (if any)."""
        df = pd.DataFrame({"difficulty": self.difficulty, "z": self.z}, index=self.items)
        df.index.name = "item"
        if self.text is not None:
            df["text"] = self.text
        return df

    def gap_targets(self, *, k: int | None = None, n_neighbors: int = 3) -> GapTargets:
        """:func:`benchkit.measure.steps.gap_targets` on this benchmark, with item ids (and ``text``)."""
        kk = len(self.summary.top_gaps) if k is None else k
        gt = gap_targets(self.z, k=kk, n_neighbors=n_neighbors, items=list(self.items))
        if self.text is not None and len(gt.neighbors):
            nb = gt.neighbors.copy()
            nb["text"] = self.text[nb["index"].to_numpy(dtype=np.int64)]
            gt = GapTargets(gaps=gt.gaps, neighbors=nb)
        return gt

    def what_if(self, added: Any, *, k: int | None = None, target: Any = "uniform") -> WhatIf:
        """:func:`benchkit.measure.steps.what_if`: the metrics after adding items at ``added`` (in [0, 1])."""
        kk = len(self.summary.top_gaps) if k is None else k
        return what_if(self.z, added, k=kk, target=target)

    def detection_power(self, widths: Any, **options: Any) -> DetectionPower:
        """:func:`benchkit.measure.steps.detection_power` on this benchmark (options passed through)."""
        return detection_power(self.z, widths, **options)


@result
class BenchmarkMeasures:
    """Many benchmarks as empirical measures over difficulty (input of the ECDF explorer).

    Parameters
    ----------
    benchmarks, table, k, target, options
        The fields below (see Attributes); built by :func:`benchkit.measure.measure_benchmarks`.

    Attributes
    ----------
    benchmarks : tuple of BenchmarkMeasure
        One measure per benchmark, in input order; index by name: ``res["mbpp"]``.
    table : benchkit.measure.steps.MeasureTable
        The paper's Table 1 (DDM, Max Gap, Top-k Sum, # and the highlights).
    k : int
        Gaps summed in the Top-k Sum (the paper's 5).
    target : str
        The DDM target ("uniform": the same-size uniform reference of Table 1).
    options : dict
        The fitting options used (``by``, ``method``, ``normalize``, priors, ``extreme``).

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical
       Measure Over Difficulty." arXiv:2610.29927, 2026. Table 1, Figure 2.

    Examples
    --------
    >>> from benchkit import measure, simulate
    >>> res = measure.measure_benchmarks(simulate.load_sample("mirt"))
    >>> res.to_frame()[["Benchmark", "DDM", "Max Gap", "Top-5 Sum", "#"]].round(3)
         Benchmark    DDM  Max Gap  Top-5 Sum    #
    0  sample-mirt  0.144    0.152      0.393  500
    >>> res.counts()
    {'DDM': 1, 'Max Gap': 1, 'Top-5 Sum': 1}
    """

    benchmarks: tuple[BenchmarkMeasure, ...]
    table: MeasureTable
    k: int
    target: str
    options: dict = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        """Benchmark names, in order."""
        return [b.name for b in self.benchmarks]

    def __len__(self) -> int:
        return len(self.benchmarks)

    def __iter__(self):
        return iter(self.benchmarks)

    def __getitem__(self, name: str) -> BenchmarkMeasure:
        for b in self.benchmarks:
            if b.name == name:
                return b
        raise BenchkitValueError(f"no benchmark named {describe(name)}; have {self.names}")

    def to_frame(self) -> pd.DataFrame:
        """Table 1: ``Benchmark, DDM, Max Gap, Top-k Sum, #``, the highlight flags and ``models``."""
        df = self.table.to_frame()
        df["models"] = [b.n_models for b in self.benchmarks]
        return df

    def counts(self) -> dict[str, int]:
        """Highlighted benchmarks per metric (the paper's "10/25 have DDM >= 0.10")."""
        return self.table.counts()


# ----------------------------------------------------------------------------------------------
# the pipeline
# ----------------------------------------------------------------------------------------------
def _is_response_set(x: Any) -> bool:
    from benchkit.response_set import ResponseSet

    return isinstance(x, ResponseSet)


def _text_lookup(texts: Any):
    if texts is None:
        return None
    if isinstance(texts, pd.Series):
        return texts.to_dict()
    if isinstance(texts, Mapping):
        return dict(texts)
    raise BenchkitTypeError(f"texts must be a mapping item -> text or a Series, got {describe(texts)}")


def _one(name, b, items, text, fit, n_models, *, normalize, k, target):
    b = np.asarray(b, dtype=float)
    ok = np.isfinite(b)
    dropped = items[~ok]
    if ok.sum() < 1:
        raise BenchkitValueError(f"benchmark {name!r}: no item has a finite difficulty")
    bb = b[ok]
    z = normalize_difficulty(bb, method=normalize)
    summ = summarize(z, k=k, target=target, name=name)
    txt = None if text is None else np.asarray(text, dtype=object)[ok]
    return BenchmarkMeasure(name=name, items=items[ok], difficulty=bb, z=z, text=txt, summary=summ,
                            fit=fit, n_models=int(n_models), dropped=dropped, normalize=normalize)


def measure_benchmarks(
    data: Any,
    *,
    by: str | None = None,
    method: str = "jml",
    normalize: str = "minmax",
    k: int = 5,
    target: str = "uniform",
    thresholds: Sequence[float] = TABLE1_THRESHOLDS,
    texts: Any = None,
    item_prior_sd: float | None = 3.0,
    ability_prior_sd: float | None = 3.0,
    extreme: str = "keep",
    min_items: int = 2,
) -> BenchmarkMeasures:
    """Fit 1PL difficulties per benchmark and compute the paper's Table 1 and per-item measures.

    Parameters
    ----------
    data : ResponseSet, or mapping name -> ResponseSet / IRTFit / array of difficulties
        One benchmark per entry (a single ResponseSet is one benchmark named ``rs.name``, or split
        with ``by``). Arrays and fits skip the IRT step (their items are numbered ``"0"``...).
    by : str, optional
        Split every ResponseSet by this items column (e.g. ``"source"`` for MMLU-Pro's 14
        categories, or ``"benchmark"``); benchmark names become ``"<name>/<value>"``. Each part is
        fitted on its own, as the paper fits each benchmark separately.
    method : {"jml", "mml"}
        The 1PL estimator (see :func:`fit_difficulties`; default ``"jml"``).
    normalize : {"minmax", "logistic"}
        :func:`benchkit.measure.steps.normalize_difficulty` per benchmark (default min-max).
    k : int
        Top-k gaps (default 5).
    target : {"uniform", "lebesgue"}
        DDM reference (default the same-size uniform at (i-0.5)/n, the paper's Table 1).
    thresholds : (float, float, float)
        Table 1 highlights (default 0.10, 0.10, 0.30).
    texts : mapping or Series item id -> str, optional
        Item text to show in the explorer where the ResponseSet's items have no ``text`` column
        (e.g. CRUXEval code for Eval-Arena's CRUXEval items). Looked up by item id.
    item_prior_sd, ability_prior_sd : float or None
        The fit's Gaussian penalties (default 3, as ``benchkit.irt.fit_1pl``).
    extreme : {"keep", "drop"}
        Items that every model answered correctly in every sample (or in none): ``"keep"``
        (default; the item prior places them at the ends of the axis, all tied) or ``"drop"``
        (left off before fitting and listed in ``dropped``; they carry no information on the
        difficulty order, but they are part of the benchmark's score).
    min_items : int
        Parts of a ``by`` split with fewer items are left out (default 2).

    Returns
    -------
    BenchmarkMeasures

    Notes
    -----
    Paper 002, Figure 2: (1) the response matrix (``rs.counts()``: several rollouts per item are
    kept as counts), (3) a 1PL per benchmark — ``benchkit.irt.fit_1pl`` for one sample per cell,
    the binomial :func:`fit_1pl_counts` for k/T counts (Eval-Arena's LiveCodeBench and CRUXEval,
    10 samples for most models) — and (4) DDM and the gaps over the min-max normalized
    difficulties. The paper fits a Bayesian 1PL by MCMC; the default penalized JML is the
    posterior mode under Normal(0, 3^2) priors, not the posterior mean. Items answered correctly by
    every model (or by none) stay finite through the item prior and sit at the ends of the axis
    (ties: zero-width gaps). Items with no observed response are left out and listed in
    ``dropped``.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. Figure 2 (pipeline), "Two diagnostic metrics",
       Table 1.

    Examples
    --------
    >>> from benchkit import measure, simulate
    >>> rs = simulate.load_sample("mirt")      # 500 items x 60 models, one response each
    >>> res = measure.measure_benchmarks(rs, by="source")    # one 1PL per source
    >>> res.to_frame()[["Benchmark", "DDM", "Max Gap", "Top-5 Sum", "#"]].round(3)
              Benchmark    DDM  Max Gap  Top-5 Sum    #
    0  sample-mirt/dim2  0.137    0.136      0.384  155
    1  sample-mirt/dim3  0.124    0.132      0.350  178
    2  sample-mirt/dim1  0.130    0.226      0.403  167
    """
    check_choice("method", method, ("jml", "mml"))
    check_choice("normalize", normalize, ("minmax", "logistic"))
    check_choice("target", target, ("uniform", "lebesgue"))
    k = check_int("k", k, min=1)
    min_items = check_int("min_items", min_items, min=1)
    check_choice("extreme", extreme, ("keep", "drop"))
    lookup = _text_lookup(texts)
    if _is_response_set(data):
        entries = {data.name or "benchmark": data}
    elif isinstance(data, Mapping) and len(data) > 0:
        entries = dict(data)
    else:
        raise BenchkitTypeError(
            "data must be a ResponseSet or a non-empty mapping name -> ResponseSet / difficulties; "
            f"got {describe(data)}"
        )
    out: list[BenchmarkMeasure] = []
    for name, value in entries.items():
        name = str(name)
        if _is_response_set(value):
            rs = value
            K, N = _counts_of(rs)
            item_ids = pd.Index([str(i) for i in rs.item_ids])
            text_all = None
            if "text" in rs.items.columns:
                text_all = np.array([None if (v is None or (isinstance(v, float) and np.isnan(v)))
                                     else str(v) for v in rs.items["text"].tolist()], dtype=object)
            if lookup is not None:
                extra = np.array([lookup.get(i) for i in item_ids], dtype=object)
                text_all = extra if text_all is None else np.where(extra != None, extra, text_all)  # noqa: E711
            if by is not None:
                if by not in rs.items.columns:
                    raise BenchkitValueError(
                        f"by={by!r} is not an items column of {name!r}; have "
                        f"{list(rs.items.columns)}"
                    )
                col = rs.items[by].astype(object).to_numpy()
                groups = [(f"{name}/{g}", np.flatnonzero(col == g)) for g in pd.unique(col)
                          if g is not None and not (isinstance(g, float) and np.isnan(g))]
            else:
                groups = [(name, np.arange(len(item_ids)))]
            for gname, idx in groups:
                gone = item_ids[:0]
                if extreme == "drop":
                    si, ni = K[idx].sum(1), N[idx].sum(1)
                    ext = (ni > 0) & ((si == 0) | (si == ni))
                    gone, idx = item_ids[idx[ext]], idx[~ext]
                if idx.size < min_items:
                    continue
                Kg, Ng = K[idx], N[idx]
                fit = _fit_counts(Kg, Ng, method=method, item_prior_sd=item_prior_sd,
                                  ability_prior_sd=ability_prior_sd, items=item_ids[idx],
                                  models=rs.model_ids)
                used = int(((Ng > 0).sum(0) > 0).sum())
                bm = _one(gname, fit.difficulty, item_ids[idx],
                          None if text_all is None else text_all[idx], fit, used,
                          normalize=normalize, k=k, target=target)
                if len(gone):
                    bm = replace(bm, dropped=gone.append(bm.dropped))
                out.append(bm)
        else:
            fit = value if (hasattr(value, "difficulty") and not isinstance(value, np.ndarray)) else None
            b = check_array(f"data[{name!r}]", fit.difficulty if fit is not None else value, ndim=1,
                            dtype="float", finite=False, min_size=1)
            ids = pd.Index([str(i) for i in (fit.items if fit is not None else range(b.size))])
            text = None
            if lookup is not None:
                text = np.array([lookup.get(i) for i in ids], dtype=object)
            out.append(_one(name, b, ids, text, fit, fit.n_models if fit is not None else 0,
                            normalize=normalize, k=k, target=target))
    if not out:
        raise BenchkitValueError(f"no benchmark has at least min_items={min_items} items")
    names = [b.name for b in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise BenchkitValueError(f"benchmark names must be unique; repeated: {dup}")
    table = tabulate_measures({b.name: b.z for b in out}, normalize=None, k=k, target=target,
                                   thresholds=thresholds)
    opts = dict(by=by, method=method, normalize=normalize, item_prior_sd=item_prior_sd,
                ability_prior_sd=ability_prior_sd, extreme=extreme)
    return BenchmarkMeasures(benchmarks=tuple(out), table=table, k=k, target=target, options=opts)


def combine(*results: BenchmarkMeasures, thresholds: Sequence[float] | None = None) -> BenchmarkMeasures:
    """Several :class:`BenchmarkMeasures` as one (benchmarks in order; Table 1 recomputed).

    Parameters
    ----------
    *results : BenchmarkMeasures
        Results to join; all must share ``k`` and ``target``, and benchmark names must be unique.
    thresholds : (float, float, float), optional
        Table 1 highlight thresholds; default the first result's.

    Returns
    -------
    BenchmarkMeasures
        The benchmarks of all results, in order, with one Table 1.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical
       Measure Over Difficulty." arXiv:2610.29927, 2026. Table 1.

    Examples
    --------
    >>> from benchkit import measure, simulate
    >>> from benchkit.measure.steps import combine
    >>> rs = simulate.load_sample("mirt")
    >>> both = combine(measure.measure_benchmarks(rs), measure.measure_benchmarks(rs, by="source"))
    >>> both.names
    ['sample-mirt', 'sample-mirt/dim2', 'sample-mirt/dim3', 'sample-mirt/dim1']
    """
    if not results or not all(isinstance(r, BenchmarkMeasures) for r in results):
        raise BenchkitTypeError("combine() takes one or more BenchmarkMeasures results")
    k, target = results[0].k, results[0].target
    for r in results[1:]:
        if r.k != k or r.target != target:
            raise BenchkitValueError(
                f"results differ in k/target ({r.k}, {r.target!r} vs {k}, {target!r}); recompute "
                "them with the same options"
            )
    benches = tuple(b for r in results for b in r.benchmarks)
    names = [b.name for b in benches]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise BenchkitValueError(f"benchmark names must be unique; repeated: {dup}")
    th = results[0].table.thresholds if thresholds is None else thresholds
    table = tabulate_measures({b.name: b.z for b in benches}, normalize=None, k=k,
                                   target=target, thresholds=th)
    return BenchmarkMeasures(benchmarks=benches, table=table, k=k, target=target,
                             options={"combined": [r.options for r in results]})
