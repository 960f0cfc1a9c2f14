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

import numpy as np
import pandas as pd

from benchkit._parallel import check_n_jobs
from benchkit._random import spawn
from benchkit._results import result
from benchkit._validation import check_choice
from benchkit._validation import check_float
from benchkit.quality._metrics import band
from benchkit.quality._selection import METHODS
from benchkit.quality._selection import _benchmark_inputs
from benchkit.quality._selection import _complete
from benchkit.quality._selection import _lengths
from benchkit.quality._selection import select_items
from benchkit.quality._selection import selection_sweep
from benchkit.quality._selection import subset_metrics

__all__ = ["metrics_view", "kendall_view", "family_view", "SelectionView", "selection_view",
           "subset_view"]

_BANDED = {"cbrc": "cbrc", "ds": "ds", "cad": "cad", "raw_cad": "raw_cad", "bqs": None}


def metrics_view(result) -> pd.DataFrame:
    """One row per (benchmark, metric).

    Columns ``domain``, ``value``, ``low``, ``high`` (bootstrap interval; NaN for raw_cad and without
    resamples) and ``band`` (None where the paper names no band, e.g. BQS).
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
    """Per domain, the pairwise tau_b matrix as long rows ``row, column, tau``."""
    out = {}
    for d, k in result.kendall.items():
        long = k.stack(future_stack=True).rename("tau").reset_index()
        long.columns = ["row", "column", "tau"]
        out[d] = long
    return out


def family_view(result, benchmark: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(families, inverted items) of ``benchmark``.

    Per family ``members``, ``inversions``, ``comparisons``, ``rate``, ``score`` and its CAD band;
    the items with inversions (see :meth:`QualityResult.inverted_items`).
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

    Attributes
    ----------
    curve : DataFrame
        :func:`benchkit.quality.steps.selection_sweep` output (per benchmark and ``"mean"``).
    order : dict of benchmark -> list of item ids
        The strategy's full ranking, best first (for "cad-threshold" only the passing items).
    criteria : dict of benchmark -> DataFrame
        Per-item CAD score, DS contribution and accuracy, indexed by item id.
    method, cad_threshold : the strategy.
    """

    curve: pd.DataFrame
    order: dict
    criteria: dict
    method: str
    cad_threshold: float

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

    Deterministic strategies only: the order of "random" depends on the draw, so it is not offered
    here.
    """
    n_jobs = check_n_jobs(n_jobs)
    check_choice("method", method, [m for m in METHODS if m != "random"])
    curve = selection_sweep(result, ratios=ratios, method=method, cad_threshold=cad_threshold,
                            n_rep=n_rep, rng=rng, n_jobs=n_jobs, progress=progress)
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
                         cad_threshold=cad_threshold)


def subset_view(result, benchmark: str, ratio: float, *, method: str = "cad+ds",
              cad_threshold: float = 0.15, n_rep: int = 100, rng=None) -> dict:
    """The selective benchmark of ``benchmark`` at ``ratio``.

    ``items`` (ids, best first), ``text`` (where present), and its ``tau``, ``stability``, ``ds``,
    ``n_items``, ``share``.
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
