"""View models for a Benchmark² dashboard: plain tables a front end renders (no Jupyter imports).

* :func:`metrics_view` -- benchmarks x metrics, one row per cell with its value, interval and the
  paper's band (Table 1 / Table 14 coloured);
* :func:`kendall_view` -- pairwise Kendall tau_b per domain as long (row, column, tau) tables
  (Tables 15-17 heatmaps);
* :func:`family_view` -- per-family CAD of one benchmark (Table 7) and its inverted items with
  the inverted pairs and text where present;
* :func:`selection_view` -- the selection-ratio curve (Figure 2) plus, per benchmark, the full
  ranked item order of the strategy, so that the subset at any ratio r is exactly the first
  ``max(1, round(r n))`` items of ``order`` (what :func:`benchkit.quality.steps.select_items` returns),
  and :func:`subset_view` for the subset's items and metrics at one ratio.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from benchkit._parallel import check_n_jobs
from benchkit._random import seed_sequence
from benchkit._random import spawn
from benchkit._results import result
from benchkit._validation import check_choice
from benchkit._validation import check_float
from benchkit.quality._ablation import selection_sweep
from benchkit.quality._metrics import band
from benchkit.quality._selection import METHODS
from benchkit.quality._selection import _benchmark_inputs
from benchkit.quality._selection import _complete
from benchkit.quality._selection import _lengths
from benchkit.quality._selection import select_items
from benchkit.quality._selection import subset_metrics

__all__ = ["metrics_view", "kendall_view", "family_view", "SelectionView", "selection_view",
           "subset_view"]

_BANDED = {"cbrc": "cbrc", "ds": "ds", "cad": "cad", "raw_cad": "raw_cad", "bqs": None}


def metrics_view(result) -> pd.DataFrame:
    """One row per (benchmark, metric) with its value, interval and band (Table 1 / Table 14).

    Parameters
    ----------
    result : QualityResult
        A :func:`benchkit.quality.assess` result.

    Returns
    -------
    DataFrame
        Columns ``benchmark``, ``domain``, ``metric`` (cbrc, ds, cad, raw_cad, bqs), ``value``,
        ``low``, ``high`` (bootstrap interval; NaN without resamples) and ``band`` (None where the
        paper names no band, e.g. BQS).

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Table 1, Sec. 3.1-3.3 (bands), App. E, Table 14.

    Examples
    --------
    >>> from benchkit.quality.explore import metrics_view
    >>> from benchkit import quality, simulate
    >>> q = quality.assess(simulate.load_sample("suite"), family_by="family", n_resamples=0,
    ...                    progress=False)
    >>> metrics_view(q).head(3).round(3)
      benchmark domain metric  value  low  high                band
    0      math    all   cbrc  0.811  NaN   NaN                high
    1      math    all     ds  0.358  NaN   NaN            moderate
    2      math    all    cad  0.323  NaN   NaN  significant issues
    """
    t = result.table
    rows = []
    for b in t.index:
        for m, bname in _BANDED.items():
            v = float(t.at[b, m])
            lo = float(t.at[b, f"{m}_low"]) if f"{m}_low" in t.columns else np.nan
            hi = float(t.at[b, f"{m}_high"]) if f"{m}_high" in t.columns else np.nan
            rows.append(dict(benchmark=b, domain=t.at[b, "domain"], metric=m, value=v, low=lo,
                             high=hi, band=band(bname, v) if bname else None))
    return pd.DataFrame(rows)


def kendall_view(result) -> dict[str, pd.DataFrame]:
    """Per domain, the pairwise tau_b matrix as long rows ``row, column, tau``.

    Parameters
    ----------
    result : QualityResult
        A :func:`benchkit.quality.assess` result.

    Returns
    -------
    dict of domain -> DataFrame
        Columns ``row``, ``column`` (benchmarks) and ``tau`` (Kendall tau_b of their model rankings),
        one row per ordered pair: a heatmap of Tables 15-17.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. App. F, Tables 15-17.

    Examples
    --------
    >>> from benchkit.quality.explore import kendall_view
    >>> from benchkit import quality, simulate
    >>> q = quality.assess(simulate.load_sample("suite"), family_by="family", n_resamples=0,
    ...                    progress=False)
    >>> kendall_view(q)["all"].head(2).round(3)
        row column    tau
    0  math   math  1.000
    1  math   code  0.782
    """
    out = {}
    for d, k in result.kendall.items():
        long = k.stack(future_stack=True).rename("tau").reset_index()
        long.columns = ["row", "column", "tau"]
        out[d] = long
    return out


def family_view(result, benchmark: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(families, inverted items) of ``benchmark``: the CAD breakdown of Table 7 and what to review.

    Parameters
    ----------
    result : QualityResult
        A :func:`benchkit.quality.assess` result.
    benchmark : str
        One of its benchmarks.

    Returns
    -------
    families : DataFrame
        Per family ``members``, ``inversions``, ``comparisons``, ``rate``, ``score`` and its CAD
        band.
    items : DataFrame
        The items with inversions, most first, with the inverted pairs (see
        :meth:`QualityResult.inverted_items`).

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 3.3, Sec. 5.5, Table 7.

    Examples
    --------
    >>> from benchkit.quality.explore import family_view
    >>> from benchkit import quality, simulate
    >>> q = quality.assess(simulate.load_sample("suite"), family_by="family", n_resamples=0,
    ...                    progress=False)
    >>> families, items = family_view(q, "math")
    >>> families[["family", "score", "band"]].round(3)
        family  score                band
    0    llama  0.344  significant issues
    1    gemma  0.619                good
    2  mistral  0.245  significant issues
    3     qwen  0.423          acceptable
    """
    check_choice("benchmark", benchmark, list(result.matrices))
    r = result.cad_results[benchmark]
    fam = result.families[benchmark]
    frame = r.families_frame(names=list(fam.names)).reset_index()
    frame.insert(1, "members", [" > ".join(m) for m in fam.members])
    frame["band"] = [band("cad", v) for v in frame["score"]]
    return frame, result.inverted_items(benchmark)


@result
class SelectionView:
    """The selection-ratio curve and each benchmark's ranked item order.

    What the selective-construction panel of the dashboard draws: Figure 2's curves, and for each
    benchmark the strategy's full ranking, so that the subset at any ratio is a prefix of it.

    Parameters
    ----------
    curve, order, criteria, method, cad_threshold, rng_entropy
        The fields below (see Attributes); built by :func:`selection_view`.

    Attributes
    ----------
    curve : DataFrame
        :func:`benchkit.quality.steps.selection_sweep` output (per benchmark and ``"mean"``).
    order : dict of benchmark -> list of item ids
        The strategy's full ranking, best first (for "cad-threshold" only the passing items).
    criteria : dict of benchmark -> DataFrame
        Per-item CAD score, DS contribution and accuracy, indexed by item id.
    method : str
        The selection strategy (:func:`~benchkit.quality.steps.select_items`).
    cad_threshold : float
        Its item CAD-score threshold.
    rng_entropy : int or sequence of int
        Entropy of the root SeedSequence of the curve's stability draws: ``rng=view.rng_entropy``
        repeats it exactly.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 5.4, Figure 2.

    Examples
    --------
    >>> from benchkit.quality.explore import selection_view
    >>> from benchkit import quality, simulate
    >>> q = quality.assess(simulate.load_sample("suite"), family_by="family", n_resamples=0,
    ...                    progress=False)
    >>> view = selection_view(q, ratios=(0.35, 1.0), n_rep=10, rng=0)
    >>> view.subset("math", 0.05)              # the first 5 of 100 items
    ['q0050', 'q0072', 'q0054', 'q0001', 'q0051']
    """

    curve: pd.DataFrame
    order: dict
    criteria: dict
    method: str
    cad_threshold: float
    rng_entropy: Any

    def to_frame(self) -> pd.DataFrame:
        """A copy of the curve table (:attr:`curve`)."""
        return self.curve.copy()

    def subset(self, benchmark: str, ratio: float) -> list[str]:
        """The item ids kept at ``ratio``: the first ``max(1, round(ratio * n))`` of the order."""
        check_choice("benchmark", benchmark, list(self.order))
        r = check_float("ratio", ratio, min=0.0, max=1.0, min_inclusive=False)
        n = len(self.criteria[benchmark])
        return list(self.order[benchmark][:max(1, int(round(r * n)))])


def selection_view(result, *, ratios=tuple(np.round(np.arange(0.1, 1.0001, 0.05), 2)),
                   method: str = "cad+ds", cad_threshold: float = 0.15, n_rep: int = 100, rng=None,
                   n_jobs=None, progress: bool = False) -> SelectionView:
    """Figure 2's curve and the ranked orders behind it.

    Parameters
    ----------
    result : QualityResult
        A :func:`benchkit.quality.assess` result.
    ratios : sequence of float, default 0.10, 0.15, ..., 1.00
        Selection ratios of the curve.
    method : str, default "cad+ds"
        A deterministic strategy of :data:`benchkit.quality.METHODS`: the order of "random"
        depends on the draw, so it is not offered here.
    cad_threshold : float, default 0.15
        Item CAD-score threshold.
    n_rep : int, default 100
        Resamples of the stability score (K = 100).
    rng : None, int, SeedSequence or Generator, optional
        Root seed of the stability draws; kept as ``rng_entropy``.
    n_jobs : int, optional
        joblib workers (results do not depend on it).
    progress : bool, default False
        Show a progress bar.

    Returns
    -------
    SelectionView
        The curve (:func:`~benchkit.quality.steps.selection_sweep`) and each benchmark's ranked
        items and criteria.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 5.4.1, Figure 2.

    Examples
    --------
    >>> from benchkit.quality.explore import selection_view
    >>> from benchkit import quality, simulate
    >>> q = quality.assess(simulate.load_sample("suite"), family_by="family", n_resamples=0,
    ...                    progress=False)
    >>> view = selection_view(q, ratios=(0.35, 1.0), n_rep=10, rng=0)
    >>> c = view.to_frame()
    >>> c[c["benchmark"] == "mean"][["ratio", "tau", "stability"]].round(3)
        ratio    tau  stability
    12   0.35  0.916      0.847
    13   1.00  1.000      0.846
    >>> selection_view(q, ratios=(0.35, 1.0), n_rep=10, rng=view.rng_entropy).curve.equals(view.curve)
    True
    """
    n_jobs = check_n_jobs(n_jobs)
    check_choice("method", method, [m for m in METHODS if m != "random"])
    root = seed_sequence(rng)
    curve = selection_sweep(result, ratios=ratios, method=method, cad_threshold=cad_threshold,
                            n_rep=n_rep, rng=root, n_jobs=n_jobs, progress=progress)
    order, crits = {}, {}
    lam, eps = result.settings["lam"], result.settings["eps"]
    for b in result.matrices:
        inputs = _benchmark_inputs(result, b, lam=lam, eps=eps)
        if inputs is None:
            continue
        Y, fams, arr, crit, L = inputs
        if method in ("longest", "shortest") and L is None:
            continue
        idx = select_items(arr, fams, ratio=1.0, method=method, cad_threshold=cad_threshold,
                           lam=lam, eps=eps, lengths=L, criteria=crit)
        order[b] = list(Y.index[idx])
        crit.index = Y.index
        crits[b] = crit
    return SelectionView(curve=curve, order=order, criteria=crits, method=method,
                         cad_threshold=cad_threshold, rng_entropy=root.entropy)


def subset_view(result, benchmark: str, ratio: float, *, method: str = "cad+ds",
              cad_threshold: float = 0.15, n_rep: int = 100, rng=None) -> dict:
    """The selective benchmark of ``benchmark`` at ``ratio``: its items and metrics.

    Parameters
    ----------
    result : QualityResult
        A :func:`benchkit.quality.assess` result.
    benchmark : str
        One of its benchmarks.
    ratio : float
        Share of the items kept, in (0, 1].
    method : str, default "cad+ds"
        Selection strategy (:data:`benchkit.quality.METHODS`).
    cad_threshold : float, default 0.15
        Item CAD-score threshold.
    n_rep : int, default 100
        Resamples of the stability score (K = 100).
    rng : None, int, SeedSequence or Generator, optional
        Root seed: its two children seed the selection ("random" only) and the stability draws.

    Returns
    -------
    dict
        ``items`` (ids, best first), ``text`` (where present, else None), and the subset's ``tau``
        (against the full benchmark's ranking), ``stability``, ``ds``, ``n_items``, ``share``
        (:func:`~benchkit.quality.steps.subset_metrics`).

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 5.4.

    Examples
    --------
    >>> from benchkit.quality.explore import subset_view
    >>> from benchkit import quality, simulate
    >>> q = quality.assess(simulate.load_sample("suite"), family_by="family", n_resamples=0,
    ...                    progress=False)
    >>> v = subset_view(q, "math", 0.05, n_rep=10, rng=0)
    >>> v["items"], v["n_items"], round(v["tau"], 3)
    (['q0050', 'q0072', 'q0054', 'q0001', 'q0051'], 5, 0.742)
    """
    check_choice("benchmark", benchmark, list(result.matrices))
    check_choice("method", method, METHODS)
    Y, fams = _complete(result, benchmark)
    arr = Y.to_numpy()
    L = _lengths(result, benchmark, Y.index)
    s_sel, s_st = spawn(rng, 2)
    idx = select_items(arr, fams, ratio=ratio, method=method, cad_threshold=cad_threshold,
                       lam=result.settings["lam"], eps=result.settings["eps"], lengths=L,
                       rng=s_sel)
    out = subset_metrics(arr, idx, n_rep=n_rep, eps=result.settings["eps"], rng=s_st)
    out["items"] = list(Y.index[idx])
    text = result.item_text.get(benchmark)
    out["text"] = None if text is None else list(text.reindex(out["items"]))
    return out
