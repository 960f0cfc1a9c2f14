"""Selective benchmark construction (Sec. 5.4) and full against selective scores (Tables 2-3).

Array level: :func:`item_criteria` (per-item CAD score and DS contribution), :func:`select_items`
(one strategy at one ratio), :func:`subset_metrics` (tau to the full ranking, stability, DS).
Result level (a :class:`~benchkit.quality.QualityResult`): :func:`selective_scores` (Table 2),
:func:`held_out` (Table 3). The sweep and the comparisons of Figure 2 and Tables 4-6 are in
:mod:`benchkit.quality._ablation`, the lambda analysis of Tables 9-10 in
:mod:`benchkit.quality._lambda`.

Every randomized step draws from its own child of the caller's ``rng`` (one per benchmark and
setting, spawned in a fixed order), and tasks run through :func:`benchkit._parallel.parallel_map`,
so results are identical for any ``n_jobs``.
"""
from __future__ import annotations

from typing import Any
from typing import Sequence

import numpy as np
import pandas as pd

from benchkit._parallel import check_n_jobs
from benchkit._parallel import parallel_map
from benchkit._random import generator
from benchkit._random import seed_sequence
from benchkit._random import spawn
from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit.quality._cad import cad
from benchkit.quality._metrics import _check_Y
from benchkit.quality._metrics import _constant_rows
from benchkit.quality._metrics import ds
from benchkit.quality._metrics import ds_contributions
from benchkit.quality._metrics import stability
from benchkit.stats import kendall_tau_b

__all__ = [
    "METHODS",
    "item_criteria",
    "select_items",
    "subset_metrics",
    "SelectiveResult",
    "selective_scores",
    "held_out",
]

#: Selection strategies: the paper's (CAD+DS, CAD only, DS only, CAD threshold) and the Table 6
#: baselines.
METHODS = ("cad+ds", "cad", "ds", "cad-threshold", "high-accuracy", "low-accuracy", "medium",
           "random", "longest", "shortest")


def item_criteria(Y, families, *, lam: float = 12.0, eps: float = 0.02) -> pd.DataFrame:
    """Per item: CAD inversions, comparisons, rate and score; DS contribution; accuracy.

    The criteria of the selective construction (Sec. 5.4): items with a high CAD score respect the
    within-family order, items with a high DS contribution separate the models.

    Parameters
    ----------
    Y : array_like (items x models)
        Complete responses (0/1 or scores in [0, 1]).
    families : list of lists of int
        Model (column) indices of each family, strongest first (Eq. 3).
    lam : float, default 12.0
        The CAD scaling lambda (Eq. 6, the paper's).
    eps : float, default 0.02
        The DS minimum meaningful difference (Eq. 2, the paper's).

    Returns
    -------
    DataFrame
        One row per item: ``inversions``, ``comparisons``, ``cad_rate``, ``cad_score`` (
        ``exp(-lam * inv_q / comp_q)``, 1 for an item without comparisons: nothing contradicts it),
        ``ds_contribution`` (:func:`~benchkit.quality.steps.ds_contributions`) and ``accuracy``.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 3.2-3.3, Eq. (2)-(6); Sec. 5.4.

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.quality.steps import item_criteria
    >>> g = np.random.default_rng(0)
    >>> ability = np.linspace(1.5, -1.0, 6)              # two families of three, strongest first
    >>> p = 1 / (1 + np.exp(-(ability - g.normal(0, 1, (40, 1)))))
    >>> Y = (g.random((40, 6)) < p).astype(float)
    >>> fams = [[0, 1, 2], [3, 4, 5]]
    >>> item_criteria(Y, fams).head(3).round(3)
       inversions  comparisons  cad_rate  cad_score  ds_contribution  accuracy
    0         0.0          6.0     0.000      1.000            0.008     0.500
    1         2.0          6.0     0.333      0.018           -0.002     0.667
    2         2.0          6.0     0.333      0.018           -0.005     0.500
    """
    Ya = _check_Y(Y, allow_nan=False)
    r = cad(Ya, families, lam=lam)
    score = np.where(r.item_comparisons > 0, r.item_score, 1.0)
    return pd.DataFrame({"inversions": r.item_inversions, "comparisons": r.item_comparisons,
                         "cad_rate": r.item_rate, "cad_score": score,
                         "ds_contribution": ds_contributions(Ya, eps=eps),
                         "accuracy": Ya.mean(axis=1)})


def _order(crit: pd.DataFrame, method: str, cad_threshold: float, lengths, gen) -> np.ndarray:
    """Item indices, best first, for a ranking strategy (ties keep item order)."""
    n = len(crit)
    idx = np.arange(n)
    if method == "cad+ds":
        keys = (idx, -crit["ds_contribution"].to_numpy(),
                -(crit["cad_score"].to_numpy() > cad_threshold).astype(int))
    elif method == "cad":
        keys = (idx, -crit["cad_score"].to_numpy())
    elif method == "ds":
        keys = (idx, -crit["ds_contribution"].to_numpy())
    elif method == "high-accuracy":
        keys = (idx, -crit["accuracy"].to_numpy())
    elif method == "low-accuracy":
        keys = (idx, crit["accuracy"].to_numpy())
    elif method == "medium":
        keys = (idx, np.abs(crit["accuracy"].to_numpy() - 0.5))
    elif method in ("longest", "shortest"):
        if lengths is None:
            raise BenchkitValueError(f"method={method!r} needs item lengths (item text)")
        L = np.asarray(lengths, dtype=float)
        keys = (idx, -L if method == "longest" else L)
    elif method == "random":
        return gen.permutation(n)
    else:  # pragma: no cover - checked by callers
        raise BenchkitValueError(method)
    return np.lexsort(keys)


def select_items(Y, families, *, ratio: float = 0.35, method: str = "cad+ds",
                 cad_threshold: float = 0.15, lam: float = 12.0, eps: float = 0.02,
                 lengths=None, criteria: pd.DataFrame | None = None, rng=None) -> np.ndarray:
    """Select a subset of items (Sec. 5.4); returns row indices, best first.

    The paper's selective benchmark keeps about 35% of the items, those that respect the
    within-family order (CAD) and separate the models best (DS), and ranks the models nearly as
    the full benchmark does.

    Parameters
    ----------
    Y : array_like (items x models)
        Complete responses.
    families : list of lists of int
        Families strongest first (for CAD).
    ratio : float in (0, 1], default 0.35
        Share of items kept: ``max(1, round(ratio * n))``; ignored by "cad-threshold".
    method : str, default "cad+ds"
        One of :data:`benchkit.quality.METHODS`. "cad+ds": items whose CAD score exceeds
        ``cad_threshold`` first, each group by DS contribution (highest first); "cad": by item CAD
        score; "ds": by DS contribution (ties keep item order: most items tie at CAD score 1);
        "cad-threshold": every item with CAD score > ``cad_threshold`` (Table 4's "CAD alone",
        Table 5); "high-accuracy" / "low-accuracy": by mean accuracy; "medium": closest to 0.5
        accuracy; "random": uniform without replacement (``rng``); "longest" / "shortest": by
        ``lengths``.
    cad_threshold : float, default 0.15
        The item CAD-score threshold (Sec. 5.4.2-5.4.3).
    lengths : array_like, optional
        Item lengths (e.g. tokens of the item text) for "longest" / "shortest".
    lam : float, default 12.0
        The CAD scaling lambda (Eq. 6).
    eps : float, default 0.02
        The DS minimum meaningful difference (Eq. 2).
    criteria : DataFrame, optional
        Precomputed :func:`item_criteria` (must match Y).
    rng : None, int, SeedSequence or Generator, optional
        Seed of the "random" strategy (:mod:`benchkit._random`); unused by the others.

    Returns
    -------
    ndarray of int64
        Row indices of the selected items, best first (for "cad-threshold": every passing item, in
        item order).

    Notes
    -----
    The paper says it keeps items with "high CAD scores and high discriminability contributions";
    "cad+ds" reads that as the CAD threshold of Table 5 (0.15) as a filter and the DS contribution
    as the ranking, filling with below-threshold items (again by DS contribution) only when the
    ratio asks for more items than pass. Ties keep item order.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation of
       LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 5.4 (selective benchmark construction),
       5.4.2-5.4.4, Tables 4-6.

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.quality.steps import select_items
    >>> g = np.random.default_rng(0)
    >>> ability = np.linspace(1.5, -1.0, 6)              # two families of three, strongest first
    >>> p = 1 / (1 + np.exp(-(ability - g.normal(0, 1, (40, 1)))))
    >>> Y = (g.random((40, 6)) < p).astype(float)
    >>> fams = [[0, 1, 2], [3, 4, 5]]
    >>> select_items(Y, fams, ratio=0.25)          # 10 of 40 items, best first
    array([22, 29, 35, 20,  7, 21,  0, 16, 31, 13])
    """
    check_choice("method", method, METHODS)
    Ya = _check_Y(Y, allow_nan=False)
    cad_threshold = check_float("cad_threshold", cad_threshold)
    crit = criteria if criteria is not None else item_criteria(Ya, families, lam=lam, eps=eps)
    if len(crit) != Ya.shape[0]:
        raise BenchkitValueError(f"criteria has {len(crit)} rows for {Ya.shape[0]} items")
    if method == "cad-threshold":
        return np.flatnonzero(crit["cad_score"].to_numpy() > cad_threshold)
    r = check_float("ratio", ratio, min=0.0, max=1.0, min_inclusive=False)
    k = max(1, int(round(r * Ya.shape[0])))
    gen = generator(rng) if method == "random" else None
    return _order(crit, method, cad_threshold, lengths, gen)[:k]


def subset_metrics(Y, items, *, n_rep: int = 100, eps: float = 0.02, rng=None) -> dict[str, float]:
    """Quality of a selective benchmark: size, rank agreement, stability and discriminability.

    Parameters
    ----------
    Y : array_like (items x models)
        Complete responses of the full benchmark B.
    items : array_like of int
        Row indices of the selective benchmark B_s.
    n_rep : int, default 100
        Resamples of the stability score (the paper's K = 100).
    eps : float, default 0.02
        The DS minimum meaningful difference (Eq. 2).
    rng : None, int, SeedSequence or Generator, optional
        Seed of the stability resampling.

    Returns
    -------
    dict
        ``n_items``, ``share`` (of the full benchmark), ``tau`` (Kendall tau_b between model scores
        on the subset and on the full benchmark: 1 = same ranking), ``stability`` (Sec. 3.4 with
        ``ratio = |subset| / |B|`` drawn from the subset; NaN when every item of the subset gives all
        models the same score, since every ranking then ties) and ``ds`` (Eq. 2 on the subset
        scores).

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation of
       LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 3.2, Eq. (2); Sec. 3.4, Eq. (7); Sec. 5.4
       (ranking consistency, stability, DS of the selective benchmark).

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.quality.steps import select_items, subset_metrics
    >>> g = np.random.default_rng(0)
    >>> ability = np.linspace(1.5, -1.0, 6)              # two families of three, strongest first
    >>> p = 1 / (1 + np.exp(-(ability - g.normal(0, 1, (40, 1)))))
    >>> Y = (g.random((40, 6)) < p).astype(float)
    >>> fams = [[0, 1, 2], [3, 4, 5]]
    >>> m = subset_metrics(Y, select_items(Y, fams, ratio=0.5), n_rep=20, rng=0)
    >>> m["n_items"], round(m["tau"], 3), round(m["stability"], 3), round(m["ds"], 3)
    (20, 0.828, 0.868, 0.505)
    """
    Ya = _check_Y(Y, allow_nan=False)
    items = np.asarray(items, dtype=np.int64)
    n = Ya.shape[0]
    if items.size == 0:
        return dict(n_items=0, share=0.0, tau=np.nan, stability=np.nan, ds=np.nan)
    full = Ya.mean(axis=0)
    sub = Ya[items].mean(axis=0)
    tau = kendall_tau_b(sub, full) if Ya.shape[1] >= 2 else np.nan
    st = (np.nan if _constant_rows(Ya[items]) or Ya.shape[1] < 2
          else stability(Ya, items.size / n, n_rep=n_rep, items=items, rng=rng))
    return dict(n_items=int(items.size), share=items.size / n, tau=float(tau), stability=st,
                ds=ds(sub, eps=eps))


# ------------------------------------------------------------------------------ result level

def _complete(result, b: str, models: Sequence[str] | None = None):
    """Benchmark b's complete response matrix (models with every item observed), families."""
    Y = result.matrices[b]
    if models is not None:
        Y = Y[[m for m in models if m in Y.columns]]
    Y = Y.loc[:, Y.notna().all(axis=0).to_numpy()]
    return Y, result.families[b].indices(list(Y.columns))


def _lengths(result, b: str, index) -> np.ndarray | None:
    t = result.item_text.get(b)
    if t is None:
        return None
    return t.reindex(index).fillna("").astype(str).str.split().str.len().to_numpy(dtype=float)


def _benchmark_inputs(result, b: str, *, lam: float, eps: float):
    """Benchmark b's complete matrix, families, its array, item criteria and item lengths.

    None when fewer than two models have every item observed.
    """
    Y, fams = _complete(result, b)
    if Y.shape[1] < 2:
        return None
    arr = Y.to_numpy()
    return Y, fams, arr, item_criteria(arr, fams, lam=lam, eps=eps), _lengths(result, b, Y.index)



@result
class SelectiveResult:
    """Full vs selective scores (Table 2 / Table 3).

    Does the selective benchmark rank the models as the full one does? Per domain, tau_b near 1
    and small rank changes (also for models held out of the selection) say it does.

    Parameters
    ----------
    models, domains, subsets, benchmarks, rng_entropy
        The fields below (see Attributes); built by :func:`~benchkit.quality.steps.selective_scores`
        or :func:`~benchkit.quality.steps.held_out`.

    Attributes
    ----------
    models : DataFrame
        One row per (domain, model) plus domain "average": ``full``, ``selective``, ``delta``,
        ``rank_full``, ``rank_selective`` (1 = best, among all models; ties share the lowest
        rank), ``held_out``.
    domains : DataFrame
        Per domain: ``n_models``, ``tau`` (tau_b between full and selective domain scores over models),
        ``stability`` (mean over the domain's benchmarks), ``avg_abs_rank_change`` of held-out
        models (NaN when none).
    subsets : dict of benchmark -> list of item ids
        The selected items of each benchmark, best first.
    benchmarks : DataFrame
        Per benchmark: ``domain``, ``n_items``, ``n_selected``, ``tau`` (full vs selective scores of
        the benchmark's own models), ``stability``, ``ds_full``, ``ds_selective``.
    rng_entropy : int or sequence of int
        Entropy of the root SeedSequence of the selection and stability draws:
        ``rng=result.rng_entropy`` repeats the run exactly.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 5.2-5.3, Tables 2-3.

    Examples
    --------
    >>> from benchkit.quality.steps import selective_scores
    >>> from benchkit import quality, simulate
    >>> q = quality.assess(simulate.load_sample("suite"), family_by="family", n_resamples=0,
    ...                    progress=False)
    >>> r = selective_scores(q, n_rep=10, rng=0)
    >>> r.domains.round(3)
        domain  n_models    tau  stability  avg_abs_rank_change
    0      all        24  0.935      0.846                  NaN
    1  average        24  0.935      0.846                  NaN
    """

    models: pd.DataFrame
    domains: pd.DataFrame
    subsets: dict
    benchmarks: pd.DataFrame
    rng_entropy: Any

    def to_frame(self) -> pd.DataFrame:
        return self.models.copy()


def _select_task(arr, fams, L, seed, ratio, method, cad_threshold, lam, eps, n_rep):
    gen_sel, gen_st = (np.random.default_rng(s) for s in seed.spawn(2))
    items = select_items(arr, fams, ratio=ratio, method=method, cad_threshold=cad_threshold,
                         lam=lam, eps=eps, lengths=L, rng=gen_sel)
    st = stability(arr, items.size / arr.shape[0], n_rep=n_rep, items=items, rng=gen_st)
    return items, st


def _rank(x: pd.Series) -> pd.Series:
    return x.rank(ascending=False, method="min")


def selective_scores(result, *, ratio: float = 0.35, method: str = "cad+ds",
                     cad_threshold: float = 0.15, n_rep: int = 100, held_out_models=(),
                     rng=None, n_jobs=None) -> SelectiveResult:
    """Table 2 (and Table 3 with ``held_out_models``): full against selective scores.

    Every model's full and selective score per domain, rank changes, and per domain tau and
    stability: does the selective benchmark rank the models as the full one does?

    Parameters
    ----------
    result : QualityResult
        A :func:`benchkit.quality.assess` result (its response matrices and families are used).
    ratio : float, default 0.35
        Selection ratio (the paper's 35%).
    method : str, default "cad+ds"
        Selection strategy (:func:`select_items`).
    cad_threshold : float, default 0.15
        Item CAD-score threshold of "cad+ds".
    n_rep : int, default 100
        Resamples of the stability score (K = 100).
    held_out_models : sequence of str, default ()
        Models left out of the selection criteria (Sec. 5.3); they are still scored and ranked.
    rng : None, int, SeedSequence or Generator, optional
        Root seed (:mod:`benchkit._random`; each benchmark draws from its own child); kept as
        ``rng_entropy``.
    n_jobs : int, optional
        joblib workers (results do not depend on it).

    Returns
    -------
    SelectiveResult
        Per model and domain the full and selective scores and ranks; per domain tau and stability.

    Notes
    -----
    Selection criteria (CAD, DS contributions) use only the models not in ``held_out_models``
    (Sec. 5.3); scores and ranks are then computed for all models. A domain's score is the mean
    over its benchmarks of the model's score (benchmarks where the model is missing left out);
    "average" is the mean over domains, for the models scored in every domain.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 5.2-5.3, Tables 2-3.

    Examples
    --------
    >>> from benchkit.quality.steps import selective_scores
    >>> from benchkit import quality, simulate
    >>> q = quality.assess(simulate.load_sample("suite"), family_by="family", n_resamples=0,
    ...                    progress=False)
    >>> r = selective_scores(q, n_rep=10, rng=0)
    >>> r.benchmarks[["benchmark", "n_selected", "ds_full", "ds_selective"]].head(2).round(3)
      benchmark  n_selected  ds_full  ds_selective
    0      math          35    0.358         0.617
    1      code          35    0.398         0.798
    >>> selective_scores(q, n_rep=10, rng=r.rng_entropy).subsets == r.subsets
    True
    """
    root = seed_sequence(rng)
    check_n_jobs(n_jobs)
    n_rep = check_int("n_rep", n_rep, min=2)
    check_choice("method", method, METHODS)
    held = [str(m) for m in held_out_models]
    unknown = [m for m in held if m not in result.scores.columns]
    if unknown:
        raise BenchkitValueError(f"held_out_models has unknown model(s) {unknown[:5]}")
    eps, lam = result.settings["eps"], result.settings["lam"]
    names = list(result.matrices)
    seeds = spawn(root, len(names))
    tasks = []
    for bi, b in enumerate(names):
        Yall = result.matrices[b]
        fit = [m for m in Yall.columns if m not in held]
        Y, fams = _complete(result, b, fit)
        tasks.append((b, Y.to_numpy(), fams, _lengths(result, b, Y.index), seeds[bi], Y.index))

    outs = parallel_map(_select_task, [(t[1], t[2], t[3], t[4], ratio, method, cad_threshold,
                                        lam, eps, n_rep) for t in tasks], n_jobs=n_jobs)
    full_rows, sel_rows, subsets, stab, brows = {}, {}, {}, {}, []
    for (b, _, _, _, _, index), (items, st) in zip(tasks, outs):
        Yall = result.matrices[b]
        ids = index[items]
        subsets[b] = list(ids)
        full_rows[b] = Yall.mean(axis=0)
        sel_rows[b] = Yall.loc[ids].mean(axis=0)
        stab[b] = st
        ok = full_rows[b].notna() & sel_rows[b].notna()
        f, g = full_rows[b][ok].to_numpy(), sel_rows[b][ok].to_numpy()
        brows.append(dict(benchmark=b, domain=result.domains[b], n_items=len(index),
                          n_selected=len(ids), tau=kendall_tau_b(f, g) if ok.sum() >= 2 else np.nan,
                          stability=st, ds_full=ds(f, eps=eps), ds_selective=ds(g, eps=eps)))
    F = pd.DataFrame(full_rows).T
    Sel = pd.DataFrame(sel_rows).T
    doms = list(dict.fromkeys(result.domains[b] for b in names))
    frames, drows = [], []
    fd, sd = {}, {}
    for d in doms:
        bs = [b for b in names if result.domains[b] == d]
        fd[d] = F.loc[bs].mean(axis=0)
        sd[d] = Sel.loc[bs].mean(axis=0)
    # "average": models scored in every domain only (a mean over different domain sets would
    # rank incomparable numbers)
    fd["average"] = pd.DataFrame(fd).mean(axis=1, skipna=False)
    sd["average"] = pd.DataFrame(sd).mean(axis=1, skipna=False)
    for d in [*doms, "average"]:
        f, s = fd[d].dropna(), sd[d].reindex(fd[d].dropna().index)
        fr = pd.DataFrame({"domain": d, "model": f.index, "full": f.to_numpy(),
                           "selective": s.to_numpy()})
        fr["delta"] = fr["selective"] - fr["full"]
        fr["rank_full"] = _rank(fr["full"]).to_numpy()
        fr["rank_selective"] = _rank(fr["selective"]).to_numpy()
        fr["held_out"] = fr["model"].isin(held)
        frames.append(fr)
        bs = names if d == "average" else [b for b in names if result.domains[b] == d]
        ok = fr["selective"].notna()
        tau = kendall_tau_b(fr.loc[ok, "full"], fr.loc[ok, "selective"]) if ok.sum() >= 2 else np.nan
        h = fr[fr["held_out"]]
        drows.append(dict(domain=d, n_models=int(ok.sum()), tau=tau,
                          stability=float(np.mean([stab[b] for b in bs])),
                          avg_abs_rank_change=float((h["rank_full"] - h["rank_selective"]).abs().mean())
                          if len(h) else np.nan))
    return SelectiveResult(models=pd.concat(frames, ignore_index=True),
                           domains=pd.DataFrame(drows), subsets=subsets,
                           benchmarks=pd.DataFrame(brows), rng_entropy=root.entropy)


def held_out(result, held_out_models, **kwargs) -> SelectiveResult:
    """Table 3: :func:`selective_scores` with ``held_out_models`` left out of the selection.

    Parameters
    ----------
    result : QualityResult
        A :func:`benchkit.quality.assess` result (its response matrices and families are used).
    held_out_models : sequence of str
        Models that do not enter the selection criteria (the paper holds out Qwen2.5-Base).
    **kwargs
        Options of :func:`selective_scores` (``ratio``, ``method``, ``n_rep``, ``rng``, ...).

    Returns
    -------
    SelectiveResult
        ``.domains["avg_abs_rank_change"]`` is the table's Avg ``|dRk|``: how far the held-out
        models move in the ranking when scored on the selective benchmark.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 5.3, Table 3.

    Examples
    --------
    >>> from benchkit import simulate
    >>> from benchkit.quality.steps import held_out
    >>> from benchkit import quality
    >>> q = quality.assess(simulate.load_sample("suite"), family_by="family", n_resamples=0,
    ...                    progress=False)
    >>> r = held_out(q, ["owner001/llama-8b-v1", "owner000/gemma-14b-v1"], n_rep=10, rng=0)
    >>> r.domains[["domain", "tau", "avg_abs_rank_change"]].round(3)
        domain   tau  avg_abs_rank_change
    0      all  0.94                  1.0
    1  average  0.94                  1.0
    """
    if len(list(held_out_models)) == 0:
        raise BenchkitValueError("held_out_models must name at least one model")
    return selective_scores(result, held_out_models=held_out_models, **kwargs)
