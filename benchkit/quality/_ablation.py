"""Selective construction at the result level: the sweep and the comparisons (paper 004, Sec. 5.4).

On a :class:`~benchkit.quality.QualityResult`: :func:`selection_sweep` (Figure 2: tau, stability
and DS at each ratio), :func:`ablation` (Table 4: metric combinations), :func:`threshold_sensitivity`
(Table 5: the CAD threshold) and :func:`baselines` (Table 6: accuracy, random and length
baselines). Each row is one benchmark and setting, with a ``"mean"`` row per setting.

Every randomized step draws from its own child of the caller's ``rng`` (one per benchmark and
setting, spawned in a fixed order), and tasks run through :func:`benchkit._parallel.parallel_map`,
so results are identical for any ``n_jobs``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchkit._parallel import check_n_jobs
from benchkit._parallel import parallel_map
from benchkit._random import check_rng
from benchkit._random import spawn
from benchkit._validation import check_choice
from benchkit._validation import check_int
from benchkit.quality._selection import METHODS
from benchkit.quality._selection import _benchmark_inputs
from benchkit.quality._selection import select_items
from benchkit.quality._selection import subset_metrics

__all__ = ["ablation", "baselines", "selection_sweep", "threshold_sensitivity"]


def _task(Y: np.ndarray, fams, crit, method, ratio, thr, lengths, n_rep, eps, seed):
    gen_sel, gen_st = (np.random.default_rng(s) for s in seed.spawn(2))
    items = select_items(Y, fams, ratio=ratio, method=method, cad_threshold=thr, eps=eps,
                         lengths=lengths, criteria=crit, rng=gen_sel)
    out = subset_metrics(Y, items, n_rep=n_rep, eps=eps, rng=gen_st)
    out["items"] = items
    return out


def _run(result, settings: list[dict], *, n_rep, rng, n_jobs, progress, desc) -> pd.DataFrame:
    """One row per (benchmark, setting): the subset's metrics.

    Selection and stability draw from child ``(benchmark, setting)`` of ``rng``.
    """
    check_rng(rng)
    check_n_jobs(n_jobs)
    n_rep = check_int("n_rep", n_rep, min=2)
    eps = result.settings["eps"]
    lam = result.settings["lam"]
    names = list(result.matrices)
    seeds = spawn(rng, len(names) * len(settings))
    tasks, meta = [], []
    for bi, b in enumerate(names):
        inputs = _benchmark_inputs(result, b, lam=lam, eps=eps)
        if inputs is None:
            continue
        Y, fams, arr, crit, L = inputs
        for si, s in enumerate(settings):
            if s["method"] in ("longest", "shortest") and L is None:
                continue
            tasks.append((arr, fams, crit, s["method"], s.get("ratio", 0.35),
                          s.get("cad_threshold", 0.15), L, n_rep, eps, seeds[bi * len(settings) + si]))
            meta.append((b, result.domains[b], s))
    outs = parallel_map(_task, tasks, n_jobs=n_jobs, progress=progress, desc=desc)
    rows = []
    for (b, d, s), o in zip(meta, outs):
        rows.append(dict(benchmark=b, domain=d, **s, **{k: v for k, v in o.items() if k != "items"},
                         items=list(result.matrices[b].index[o["items"]])))
    return pd.DataFrame(rows)


def _with_mean(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    cols = ["share", "tau", "stability", "ds"]
    mean = frame.groupby(keys, sort=False)[cols].mean().reset_index()
    mean["benchmark"] = "mean"
    mean["domain"] = "all"
    return pd.concat([frame, mean], ignore_index=True)


def selection_sweep(result, *, ratios=tuple(np.round(np.arange(0.1, 1.0001, 0.05), 2)),
                    method: str = "cad+ds", cad_threshold: float = 0.15, n_rep: int = 100, rng=None,
                    n_jobs=None, progress: bool = True) -> pd.DataFrame:
    """Figure 2: tau, stability and DS of the selective benchmark at each ratio (10%-100%).

    How do ranking consistency, stability and discriminability trade off as more items are kept?
    The paper picks 35% (tau 0.93, stability 0.69, DS 0.47).

    Parameters
    ----------
    result : QualityResult
        A :func:`benchkit.quality.assess` result (its response matrices and families are used).
    ratios : sequence of float, default 0.10, 0.15, ..., 1.00
        Selection ratios.
    method : str, default "cad+ds"
        Selection strategy (:func:`select_items`).
    cad_threshold : float, default 0.15
        Item CAD-score threshold of "cad+ds".
    n_rep : int, default 100
        Resamples of the stability score (the paper's K = 100).
    rng : None, int, SeedSequence or Generator, optional
        Root seed (:mod:`benchkit._random`): each (benchmark, setting) draws from its own child.
    n_jobs : int, optional
        joblib workers (results do not depend on it).
    progress : bool, default True
        Show a progress bar.

    Returns
    -------
    DataFrame
        One row per (benchmark, setting) with ``benchmark, domain``, the setting (``method``,
        ``ratio``, ``cad_threshold``), ``n_items, share, tau, stability, ds`` and the selected
        ``items``; plus the rows of ``benchmark == "mean"`` (domain "all"), averaged over
        benchmarks.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 5.4.1, Figure 2.

    Examples
    --------
    >>> from benchkit.quality.steps import selection_sweep
    >>> from benchkit import quality, simulate
    >>> q = quality.assess(simulate.load_sample("suite"), family_by="family", n_resamples=0,
    ...                    progress=False)
    >>> sw = selection_sweep(q, ratios=(0.35, 1.0), n_rep=10, rng=0, progress=False)
    >>> sw[sw["benchmark"] == "mean"][["ratio", "tau", "stability", "ds"]].round(3)
        ratio    tau  stability     ds
    12   0.35  0.916      0.847  0.655
    13   1.00  1.000      0.846  0.344
    """
    n_jobs = check_n_jobs(n_jobs)
    check_choice("method", method, METHODS)
    settings = [dict(method=method, ratio=float(r), cad_threshold=cad_threshold) for r in ratios]
    return _with_mean(_run(result, settings, n_rep=n_rep, rng=rng, n_jobs=n_jobs, progress=progress,
                           desc="ratio sweep"), ["method", "ratio"])


def ablation(result, *, ratio: float = 0.35, methods=("cad-threshold", "ds", "cad+ds"),
             cad_threshold: float = 0.15, n_rep: int = 100, rng=None, n_jobs=None,
             progress: bool = True) -> pd.DataFrame:
    """Table 4: metric combinations for item selection at one ratio ("full" = all items).

    Parameters
    ----------
    result : QualityResult
        A :func:`benchkit.quality.assess` result (its response matrices and families are used).
    ratio : float, default 0.35
        Share kept by the ranking strategies ("ds", "cad+ds"; the paper's 35%).
    methods : sequence of str, default ("cad-threshold", "ds", "cad+ds")
        Strategies compared (:func:`select_items`). Table 4's "CAD alone" is the threshold filter
        "cad-threshold": every item whose CAD score exceeds ``cad_threshold``, whatever their share
        (Sec. 5.4.2: "filtering by CAD alone (score > 0.15)").
    cad_threshold : float, default 0.15
        Item CAD-score threshold (Sec. 5.4.2).
    n_rep : int, default 100
        Resamples of the stability score (the paper's K = 100).
    rng : None, int, SeedSequence or Generator, optional
        Root seed (:mod:`benchkit._random`): each (benchmark, setting) draws from its own child.
    n_jobs : int, optional
        joblib workers (results do not depend on it).
    progress : bool, default True
        Show a progress bar.

    Returns
    -------
    DataFrame
        One row per (benchmark, setting) with ``benchmark, domain``, the setting (``method``,
        ``ratio``, ``cad_threshold``), ``n_items, share, tau, stability, ds`` and the selected
        ``items``; plus the rows of ``benchmark == "mean"`` (domain "all"), averaged over
        benchmarks.

    Notes
    -----
    The "cad" strategy (top ``ratio`` by item CAD score) is not Table 4's row: item CAD scores
    tie at 1 for most items (no inversion), so a top-35% cut would keep tied items in file order.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 5.4.2, Table 4.

    Examples
    --------
    >>> from benchkit.quality.steps import ablation
    >>> from benchkit import quality, simulate
    >>> q = quality.assess(simulate.load_sample("suite"), family_by="family", n_resamples=0,
    ...                    progress=False)
    >>> t = ablation(q, n_rep=10, rng=0, progress=False)
    >>> t[t["benchmark"] == "mean"][["method", "share", "tau", "stability", "ds"]].round(3)
               method  share    tau  stability     ds
    24  cad-threshold  0.833  0.945      0.859  0.376
    25             ds  0.350  0.910      0.848  0.673
    26         cad+ds  0.350  0.916      0.857  0.655
    27           full  1.000  1.000      0.855  0.344
    """
    n_jobs = check_n_jobs(n_jobs)
    settings = [dict(method=m, ratio=ratio, cad_threshold=cad_threshold) for m in methods]
    settings.append(dict(method="cad+ds", ratio=1.0, cad_threshold=cad_threshold))
    out = _run(result, settings, n_rep=n_rep, rng=rng, n_jobs=n_jobs, progress=progress, desc="ablation")
    out.loc[(out["ratio"] == 1.0) & (out["method"] == "cad+ds"), "method"] = "full"
    return _with_mean(out, ["method", "ratio"])


def threshold_sensitivity(result, *, thresholds=(0.05, 0.10, 0.15, 0.20, 0.30, 0.40),
                          n_rep: int = 100, rng=None, n_jobs=None, progress: bool = True) -> pd.DataFrame:
    """Table 5: the subset of items with CAD score above each threshold.

    With its retained share, tau, stability and DS: a higher threshold keeps fewer, more
    consistent items (the paper settles on 0.15, keeping 84%).

    Parameters
    ----------
    result : QualityResult
        A :func:`benchkit.quality.assess` result (its response matrices and families are used).
    thresholds : sequence of float, default (0.05, 0.10, 0.15, 0.20, 0.30, 0.40)
        Item CAD-score thresholds.
    n_rep : int, default 100
        Resamples of the stability score (the paper's K = 100).
    rng : None, int, SeedSequence or Generator, optional
        Root seed (:mod:`benchkit._random`): each (benchmark, setting) draws from its own child.
    n_jobs : int, optional
        joblib workers (results do not depend on it).
    progress : bool, default True
        Show a progress bar.

    Returns
    -------
    DataFrame
        One row per (benchmark, setting) with ``benchmark, domain``, the setting (``method``,
        ``ratio``, ``cad_threshold``), ``n_items, share, tau, stability, ds`` and the selected
        ``items``; plus the rows of ``benchmark == "mean"`` (domain "all"), averaged over
        benchmarks.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 5.4.3, Table 5.

    Examples
    --------
    >>> from benchkit.quality.steps import threshold_sensitivity
    >>> from benchkit import quality, simulate
    >>> q = quality.assess(simulate.load_sample("suite"), family_by="family", n_resamples=0,
    ...                    progress=False)
    >>> t = threshold_sensitivity(q, thresholds=(0.15, 0.4), n_rep=10, rng=0, progress=False)
    >>> t[t["benchmark"] == "mean"][["cad_threshold", "share", "tau", "stability"]].round(3)
        cad_threshold  share    tau  stability
    12           0.15  0.833  0.945      0.867
    13           0.40  0.467  0.870      0.837
    """
    n_jobs = check_n_jobs(n_jobs)
    settings = [dict(method="cad-threshold", cad_threshold=float(t)) for t in thresholds]
    return _with_mean(_run(result, settings, n_rep=n_rep, rng=rng, n_jobs=n_jobs, progress=progress,
                           desc="thresholds"), ["method", "cad_threshold"])


def baselines(result, *, ratio: float = 0.35, cad_threshold: float = 0.15, n_rep: int = 100,
              rng=None, n_jobs=None, progress: bool = True) -> pd.DataFrame:
    """Table 6: CAD+DS against the baseline selections, all at ``ratio``.

    Baselines: high / low accuracy, medium difficulty, random and (where item text exists; length
    in whitespace tokens) longest / shortest.

    Parameters
    ----------
    result : QualityResult
        A :func:`benchkit.quality.assess` result (its response matrices and families are used).
    ratio : float, default 0.35
        Selection ratio (the paper's 35%).
    cad_threshold : float, default 0.15
        Item CAD-score threshold of "cad+ds".
    n_rep : int, default 100
        Resamples of the stability score (the paper's K = 100).
    rng : None, int, SeedSequence or Generator, optional
        Root seed (:mod:`benchkit._random`): each (benchmark, setting) draws from its own child.
    n_jobs : int, optional
        joblib workers (results do not depend on it).
    progress : bool, default True
        Show a progress bar.

    Returns
    -------
    DataFrame
        One row per (benchmark, setting) with ``benchmark, domain``, the setting (``method``,
        ``ratio``, ``cad_threshold``), ``n_items, share, tau, stability, ds`` and the selected
        ``items``; plus the rows of ``benchmark == "mean"`` (domain "all"), averaged over
        benchmarks.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 5.4.4, Table 6.

    Examples
    --------
    >>> from benchkit.quality.steps import baselines
    >>> from benchkit import quality, simulate
    >>> q = quality.assess(simulate.load_sample("suite"), family_by="family", n_resamples=0,
    ...                    progress=False)
    >>> t = baselines(q, n_rep=10, rng=0, progress=False)
    >>> t[t["benchmark"] == "mean"][["method", "tau", "stability", "ds"]].round(3)
               method    tau  stability     ds
    30  high-accuracy  0.792      0.762  0.210
    31   low-accuracy  0.844      0.747  0.629
    32         medium  0.888      0.777  0.494
    33         random  0.876      0.782  0.353
    34         cad+ds  0.916      0.845  0.655
    """
    n_jobs = check_n_jobs(n_jobs)
    methods = ("high-accuracy", "low-accuracy", "medium", "random", "longest", "shortest", "cad+ds")
    settings = [dict(method=m, ratio=ratio, cad_threshold=cad_threshold) for m in methods]
    return _with_mean(_run(result, settings, n_rep=n_rep, rng=rng, n_jobs=n_jobs, progress=progress,
                           desc="baselines"), ["method", "ratio"])
