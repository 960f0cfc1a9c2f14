"""ResponseSet-level entry point: :func:`assess` several benchmarks into Table 1's layout."""
from __future__ import annotations

import warnings
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from benchkit._parallel import check_n_jobs
from benchkit._random import seed_sequence
from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import UntrustedIntervalWarning
from benchkit._validation import check_choice
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit._validation import check_probability
from benchkit._validation import describe
from benchkit.quality._bootstrap import BootstrapInput
from benchkit.quality._bootstrap import bootstrap_replicates
from benchkit.quality._bootstrap import item_pools
from benchkit.quality._bootstrap import jackknife
from benchkit.quality._cad import CADResult
from benchkit.quality._cad import cad
from benchkit.quality._families import Families
from benchkit.quality._families import families_from_models
from benchkit.quality._metrics import _cbrc_from_tau
from benchkit.quality._metrics import band
from benchkit.quality._metrics import bqs
from benchkit.quality._metrics import ds
from benchkit.quality._metrics import kendall_matrix
from benchkit.response_set import ResponseSet
from benchkit.stats import bootstrap_interval

__all__ = ["QualityResult", "assess"]

_METRICS = ("cbrc", "ds", "cad", "bqs")
#: Each metric's range; interval bounds are cut to it (CBRC is a mean of Kendall taus, DS and
#: BQS are not bounded above, CAD and the inversion rate are in [0, 1]).
_RANGES = {"cbrc": (-1.0, 1.0), "ds": (0.0, np.inf), "cad": (0.0, 1.0), "bqs": (0.0, np.inf),
           "raw_cad": (0.0, 1.0)}
_DIAGNOSTICS = ["benchmark", "metric", "estimate", "low", "high", "bias", "se", "z0", "acceleration",
                "level_low", "level_high", "n_finite", "inside", "extended", "reason"]


@result
class QualityResult:
    """Benchmark² assessment of several benchmarks (Table 1 and its appendices).

    How good is each benchmark as a measuring instrument? CBRC: does it rank the models like its
    peers of the same domain; DS: does it separate the models; CAD: do the items respect the size
    order within model families; BQS: the three combined. Start with :meth:`to_frame` (Table 1,
    with the paper's bands), then :meth:`inverted_items` for the items to review.

    Parameters
    ----------
    table, scores, kendall, cad_results, families, dropped, replicates, interval_diagnostics
        The fields below (see Attributes); built by :func:`benchkit.quality.assess`.
    matrices, item_text, domains, settings, rng_entropy
        See Attributes.

    Attributes
    ----------
    table : DataFrame
        Table 1: one row per benchmark (index) with ``domain``, ``n_items``, ``n_models``,
        ``n_peers``, ``cbrc`` (in [-1, 1]; > 0.7 high), ``ds`` (> 0.4 good, < 0.2 minimal),
        ``mean``, ``sd`` (population), ``min``, ``max`` (the range, as fractions), ``raw_cad``
        (inversion rate), ``cad`` (in (0, 1]; > 0.6 good, < 0.4 significant issues), ``bqs``, the
        bands ``cbrc_band``, ``ds_band``, ``cad_band``, ``raw_cad_level`` and the interval bounds
        ``<metric>_low`` / ``<metric>_high`` (cbrc, ds, cad, bqs, raw_cad).
    scores : DataFrame
        Benchmarks x models mean scores (Tables 11-13); NaN where a model was not evaluated.
    kendall : dict of domain -> DataFrame
        Pairwise Kendall tau_b between the domain's benchmarks (Tables 15-17).
    cad_results : dict of benchmark -> CADResult
        Per-item and per-family CAD counts.
    families : dict of benchmark -> Families
        The families used on each benchmark (strongest first; built from that benchmark's models)
        and the models left out of its CAD, with reasons.
    dropped : DataFrame
        Models dropped by the alignment: ``model``, ``benchmarks`` (where present), ``reason``.
    replicates : ndarray (n_resamples, benchmarks, 4)
        Bootstrap replicates of CBRC, DS, CAD, BQS (App. E).
    interval_diagnostics : DataFrame
        Table 14 in long form with the interval's diagnostics: per benchmark and metric
        ``estimate``, ``low``, ``high``, ``bias`` (mean replicate minus estimate), ``se``, ``z0``,
        ``acceleration``, the quantile levels, ``n_finite``, ``inside`` and ``reason`` (why the
        interval cannot be trusted; None where it can). See :func:`benchkit.stats.bootstrap_interval`.
    matrices : dict of benchmark -> DataFrame
        The items x models responses used (mean correctness per cell; NaN missing).
    item_text : dict of benchmark -> Series or None
        Item text where the ResponseSet has a ``text`` column (for the length baselines).
    domains : dict of benchmark -> str
        The domain of each benchmark (its CBRC peers are the benchmarks of the same domain).
    settings : dict
        lam, eps, weights, n_resamples, confidence_level, interval_method, align, min_models,
        nan_policy and ``item_pools`` (the benchmarks resampled jointly because they share item
        ids, one tuple per pool).
    rng_entropy : int or sequence of int
        Entropy of the root SeedSequence of the bootstrap: ``rng=result.rng_entropy`` repeats the
        intervals exactly.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation of
       LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 3.1-3.5, Eq. (1)-(10); Tables 1, 7, 11-17; App.
       E (bootstrap intervals).

    Examples
    --------
    >>> from benchkit import quality, simulate
    >>> q = quality.assess(simulate.load_sample("suite"), family_by="family", n_resamples=0,
    ...                    progress=False)
    >>> q.to_frame()[["cbrc", "ds", "cad", "bqs", "cad_band"]].round(3).head(3)
                cbrc     ds    cad    bqs            cad_band
    benchmark
    math       0.811  0.358  0.323  0.508  significant issues
    code       0.770  0.398  0.330  0.517  significant issues
    reasoning  0.845  0.380  0.300  0.511  significant issues
    >>> q.families_frame().round(3).head(2)            # Table 7: CAD per family
               llama  gemma  mistral   qwen
    benchmark
    math       0.344  0.619    0.245  0.423
    code       0.365  0.353    0.280  0.407
    """

    table: pd.DataFrame
    scores: pd.DataFrame
    kendall: dict
    cad_results: dict
    families: dict
    dropped: pd.DataFrame
    replicates: np.ndarray
    interval_diagnostics: pd.DataFrame
    matrices: dict
    item_text: dict
    domains: dict
    settings: dict
    rng_entropy: Any

    def to_frame(self) -> pd.DataFrame:
        """Table 1 (:attr:`table`)."""
        return self.table.copy()

    def intervals_frame(self) -> pd.DataFrame:
        """Table 14: per benchmark and metric the estimate, its interval and the diagnostics.

        The rows of :attr:`interval_diagnostics`, benchmark by benchmark (empty intervals when
        ``n_resamples=0``).
        """
        if len(self.interval_diagnostics):
            order = {b: k for k, b in enumerate(self.table.index)}
            d = self.interval_diagnostics
            return d.iloc[np.lexsort((np.arange(len(d)), d["benchmark"].map(order).to_numpy()))
                          ].reset_index(drop=True)
        rows = [(b, m, self.table.at[b, m], np.nan, np.nan) for b in self.table.index
                for m in (*_METRICS, "raw_cad")]
        return pd.DataFrame(rows, columns=["benchmark", "metric", "estimate", "low", "high"])

    def families_frame(self) -> pd.DataFrame:
        """Table 7: CAD score per benchmark (rows) and family (columns).

        NaN where a family has fewer than two models on a benchmark.
        """
        out = {}
        for b, r in self.cad_results.items():
            out[b] = pd.Series(r.family_score, index=list(self.families[b].names), dtype=float)
        return pd.DataFrame(out).T.rename_axis("benchmark")

    def inverted_items(self, benchmark: str) -> pd.DataFrame:
        """The items of ``benchmark`` with at least one within-family inversion, most first.

        The inverted pairs ``stronger > weaker`` are listed, and the text where present.
        """
        check_choice("benchmark", benchmark, list(self.matrices))
        Y = self.matrices[benchmark]
        r = self.cad_results[benchmark]
        fams = self.families[benchmark].indices(list(Y.columns))
        arr = Y.to_numpy()
        rows = []
        for q in np.flatnonzero(r.item_inversions > 0):
            pairs = []
            for f, idx in enumerate(fams):
                for a in range(len(idx)):
                    for c in range(a + 1, len(idx)):
                        ya, yc = arr[q, idx[a]], arr[q, idx[c]]
                        if not (np.isnan(ya) or np.isnan(yc)) and ya < 1 and yc > 0:
                            pairs.append(f"{Y.columns[idx[a]]} > {Y.columns[idx[c]]}")
            rows.append((Y.index[q], r.item_inversions[q], r.item_comparisons[q],
                         r.item_score[q], "; ".join(pairs)))
        out = pd.DataFrame(rows, columns=["item", "inversions", "comparisons", "score", "pairs"])
        text = self.item_text.get(benchmark)
        if text is not None:
            out["text"] = text.reindex(out["item"]).to_numpy()
        return out.sort_values("inversions", ascending=False, kind="stable").reset_index(drop=True)


def _split(data: Any, by: str) -> dict[str, ResponseSet]:
    if isinstance(data, ResponseSet):
        if by not in data.items.columns:
            raise BenchkitValueError(f"a single ResponseSet needs an items column {by!r} naming "
                                     f"the benchmark of each item; it has {list(data.items.columns)}")
        names = [str(b) for b in pd.unique(data.items[by].dropna())]
        return {b: data.select(items=data.items.index[data.items[by].astype(str) == b])
                for b in names}
    if isinstance(data, Mapping):
        out = {}
        for k, v in data.items():
            if not isinstance(v, ResponseSet):
                raise BenchkitTypeError(f"data[{k!r}] must be a ResponseSet; got {describe(v)}")
            out[str(k)] = v
        return out
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        out = {}
        for i, v in enumerate(data):
            if not isinstance(v, ResponseSet):
                raise BenchkitTypeError(f"data[{i}] must be a ResponseSet; got {describe(v)}")
            name = v.name or f"benchmark_{i}"
            if name in out:
                raise BenchkitValueError(f"two ResponseSets are named {name!r}; pass a dict "
                                         "name -> ResponseSet")
            out[name] = v
        return out
    raise BenchkitTypeError("data must be a ResponseSet with a benchmark column, a list of "
                            f"ResponseSets or a dict name -> ResponseSet; got {describe(data)}")


def _matrix(rs: ResponseSet, aliases: Mapping[str, str]) -> pd.DataFrame:
    Y = pd.DataFrame(rs.scores(), index=rs.item_ids.astype(str),
                     columns=[aliases.get(str(m), str(m)) for m in rs.model_ids])
    if Y.columns.has_duplicates:
        dup = Y.columns[Y.columns.duplicated()][0]
        raise BenchkitValueError(f"aliases map two models of {rs.name!r} to {dup!r}")
    return Y


def assess(data, *, domains=None, families=None, by: str = "benchmark",
           family_by=("series", "variant"), overrides=None, aliases=None,
           align: str = "intersection", lam: float = 12.0, eps: float = 0.02,
           weights=(0.3, 0.3, 0.4), min_models: int = 2, nan_policy: str = "propagate",
           n_resamples: int = 1000, interval_method: str = "basic",
           confidence_level: float = 0.95, rng=None, n_jobs=None,
           progress: bool = True) -> QualityResult:
    r"""Benchmark² assessment of several benchmarks: CBRC, DS, CAD, BQS with bootstrap intervals.

    The entry point of Benchmark²: given the same models' responses on several benchmarks, it
    scores each benchmark's ranking consistency with its domain peers (CBRC, Eq. 1), its power to
    separate the models (DS, Eq. 2), the share of within-family inversions among its items (CAD,
    Eq. 4-6) and their combination (BQS, Eq. 8-10), with the paper's quality bands.

    Parameters
    ----------
    data : dict of name -> ResponseSet, list of ResponseSet, or ResponseSet
        The benchmarks; a single ResponseSet is split by its items column ``by``.
    by : str, default "benchmark"
        The items column naming each item's benchmark, used when ``data`` is one ResponseSet.
    domains : str or dict of benchmark -> domain, optional
        The domain of each benchmark (CBRC peers). Default: one domain "all".
    families : Families or dict of name -> list of model ids, optional
        Families strongest first (members absent from a benchmark are skipped there); default
        :func:`families_from_models` on each benchmark's own models (grouped by ``family_by``,
        ordered by size, with ``overrides``).
    family_by : str or sequence of str, default ("series", "variant")
        Models-table column(s) whose joint value is a model's family (:func:`families_from_models`'s
        ``by``); e.g. ``"family"`` for a roster with a ``family`` column.
    overrides : dict of model -> dict, optional
        Per-model corrections of the models table before grouping (e.g. ``{"phi-1": {"series":
        "phi", "size": 1.3e9}}``).
    aliases : dict of model -> canonical name, optional
        Renames applied before alignment, for sources that spell one model differently in
        different benchmarks (e.g. eval-arena's "DSCoder-33b-Ins" and "deepseek-coder-33b-instruct").
    align : {"intersection", "pairwise"}, default "intersection"
        "intersection" keeps the models present in every benchmark (the paper's setting) and
        reports the rest in ``dropped``; "pairwise" keeps every model: CBRC compares each pair of
        benchmarks on their shared models, DS and CAD use each benchmark's own models.
    lam, eps, weights : float, float, (float, float, float)
        The CAD scaling lambda (Eq. 6), the DS minimum difference (Eq. 2) and the BQS weights
        (Eq. 10); the paper's defaults (12, 0.02, (0.3, 0.3, 0.4)).
    min_models : int, default 2
        Fewest shared models for a pairwise tau.
    nan_policy : {"propagate", "omit"}, default "propagate"
        CBRC with an undefined peer tau (too few shared models under ``align="pairwise"``): NaN,
        or the mean over the peers with a defined tau (``n_peers`` in the table says how many).
    n_resamples : int, default 1000
        Bootstrap replicates (App. E); 0 skips the intervals.
    interval_method : {"basic", "bca", "percentile"}, default "basic"
        The interval read from the replicates (:func:`benchkit.stats.bootstrap_interval`): basic
        (reverse percentile, :math:`2\hat\theta - q`), BCa (acceleration from the
        leave-one-item-out jackknife of every pool) or percentile. The default is the one that
        covers best in ``benchmarks/coverage_quality.py`` (see Notes).
    confidence_level : float, default 0.95
        Level of the intervals (App. E's 95%).
    rng : None, int, SeedSequence or Generator, optional
        Root seed of the bootstrap (:mod:`benchkit._random`; a Generator is consumed); kept as
        ``rng_entropy``.
    n_jobs : int, optional
        joblib workers for the bootstrap blocks (results do not depend on it).
    progress : bool, default True
        Show a progress bar over the bootstrap blocks.

    Returns
    -------
    QualityResult

    Notes
    -----
    Model scores are mean correctness per benchmark (mean over samples for count data, then over
    items, missing cells left out). Intervals (App. E does not say what is resampled; items are
    the reading, models being too few): replicates resample items, jointly for the benchmarks of a
    domain that share item ids (HumanEval / HumanEval+, MBPP / MBPP+; ``settings["item_pools"]``),
    and every replicate uses the models scored in it (a model is never dropped for a block of
    replicates); see :mod:`benchkit.quality._bootstrap`. The interval corrects bias (basic by
    default; its bounds are cut to the metric's range, e.g. CBRC to [-1, 1]) and reports its
    diagnostics in :meth:`QualityResult.intervals_frame`. Every interval holds its estimate: where
    the method's interval leaves it out, its nearer bound is moved to the estimate
    (:func:`benchkit.stats.bootstrap_interval` with ``contain_estimate=True``; column
    ``extended``). That happens to CBRC: Kendall tau between re-estimated model means shrinks
    under item resampling, and when more than 97.5% of the replicates fall below the estimate, the
    basic interval, which reflects them, lies wholly above it (and a percentile or BCa interval
    wholly below it). A :class:`~benchkit.BenchkitWarning` names every interval that cannot be
    trusted: extended ones, too many undefined replicates, a BCa level beyond what the replicates
    resolve. Stability (Sec. 3.4) is a property of a selective benchmark, so it is reported by
    :func:`benchkit.quality.steps.selective_scores` and the sweeps, not here.

    Measured coverage of the nominal 95% intervals of the population values
    (``benchmarks/coverage_quality.py``: 12 models, six benchmarks of 164-500 items, two of them
    sharing item ids, 1,000 resamples; 200 simulated datasets per scenario, Monte Carlo SE about
    0.015), basic / BCa / percentile: CAD 0.947 / 0.958 / 0.956 with well separated models and
    0.942 / 0.938 / 0.941 with many near ties; DS 0.944 / 0.938 / 0.911 and 0.898 / 0.774 /
    0.472; CBRC 0.846 / 0.632 / 0.317 and 0.658 / 0.448 / 0.113. With the basic interval extended
    to the estimate (the default; 100 datasets per scenario): CBRC 0.842 and 0.685 (plain basic on
    the same datasets 0.833 and 0.680); the extended intervals alone (9% and 5% of them) covered
    0.59 and 0.25, hence the warning. CBRC intervals under-cover: Kendall tau of estimated means
    is not a smooth function of the data (pairs of models near a tie flip), and no item bootstrap
    reproduces its bias exactly; read them as a lower bound on the uncertainty. Resampling the
    shared items independently lowers the CBRC coverage of the two sharing benchmarks (basic
    0.845 -> 0.825, BCa 0.672 -> 0.475).

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation of
       LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 3.1-3.5, Eq. (1)-(10); App. B-C; App. E (1000
       bootstrap iterations).

    Examples
    --------
    >>> from benchkit import quality, simulate
    >>> suite = simulate.load_sample("suite")      # 6 benchmarks, 24 models of 4 families
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     q = quality.assess(suite, family_by="family", n_resamples=100, rng=0, progress=False)
    >>> str(caught[0].message).startswith("5 bootstrap interval(s) cannot be trusted: math cbrc: "
    ...                                    "the estimate lies outside the basic interval")
    True
    >>> q.intervals_frame().query("metric == 'cbrc'")[["benchmark", "estimate", "low", "high",
    ...                                                 "extended"]].round(3).head(2)
      benchmark  estimate    low   high  extended
    0      math     0.811  0.811  0.905      True
    5      code     0.770  0.744  0.859     False
    >>> q.table[["cbrc", "ds", "cad", "bqs"]].round(3).head(2)
                cbrc     ds    cad    bqs
    benchmark
    math       0.811  0.358  0.323  0.508
    code       0.770  0.398  0.330  0.517
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     again = quality.assess(suite, family_by="family", n_resamples=100, rng=q.rng_entropy,
    ...                            progress=False)
    >>> bool((again.replicates == q.replicates).all())
    True
    """
    sets = _split(data, by)
    if len(sets) < 1:
        raise BenchkitValueError("data holds no benchmark")
    check_choice("align", align, ["intersection", "pairwise"])
    check_choice("nan_policy", nan_policy, ["propagate", "omit"])
    omit = nan_policy == "omit"
    lam = check_float("lam", lam, min=0.0, min_inclusive=False)
    eps = check_float("eps", eps, min=0.0)
    n_resamples = check_int("n_resamples", n_resamples, min=0)
    confidence_level = check_probability("confidence_level", confidence_level, open_interval=True)
    check_choice("interval_method", interval_method, ["bca", "basic", "percentile"])
    min_models = check_int("min_models", min_models, min=2)
    root = seed_sequence(rng)
    check_n_jobs(n_jobs)
    w = np.asarray(weights, dtype=float)
    if w.shape != (3,):
        raise BenchkitValueError(f"weights must be 3 numbers (alpha, beta, gamma); got {describe(weights)}")
    aliases = {str(k): str(v) for k, v in (aliases or {}).items()}
    names = list(sets)
    if domains is None or isinstance(domains, str):
        dom = {b: (domains or "all") for b in names}
    elif isinstance(domains, Mapping):
        missing = [b for b in names if b not in domains]
        if missing:
            raise BenchkitValueError(f"domains has no entry for benchmark(s) {missing}; "
                                     f"benchmarks: {names}")
        dom = {b: str(domains[b]) for b in names}
    else:
        raise BenchkitTypeError("domains must be a str or a dict benchmark -> domain; "
                                f"got {describe(domains)}")

    mats = {b: _matrix(rs, aliases) for b, rs in sets.items()}
    # models table: union, first occurrence wins
    tables = []
    for rs in sets.values():
        t = rs.models.copy()
        t.index = [aliases.get(str(m), str(m)) for m in t.index]
        tables.append(t)
    models_table = pd.concat(tables)
    models_table = models_table[~models_table.index.duplicated()]
    all_models = set(models_table.index)
    order = list(models_table.index)
    present = {m: [b for b in names if m in mats[b].columns] for m in order}
    if align == "intersection":
        keep = [m for m in order if len(present[m]) == len(names)]
        dropped = pd.DataFrame([(m, ", ".join(present[m]), f"absent from {len(names) - len(present[m])} "
                                 "benchmark(s)") for m in order if m not in keep],
                               columns=["model", "benchmarks", "reason"])
        if len(keep) < 2:
            raise BenchkitValueError(
                f"only {len(keep)} model(s) are shared by all {len(names)} benchmarks; pass "
                "aliases= to unify spellings or align='pairwise'")
        mats = {b: Y[keep] for b, Y in mats.items()}
    else:
        keep = order
        dropped = pd.DataFrame(columns=["model", "benchmarks", "reason"])
    models_table = models_table.loc[keep]

    if families is not None and not isinstance(families, (Families, Mapping)):
        raise BenchkitTypeError(f"families must be a Families, a dict name -> models or None; "
                                f"got {describe(families)}")
    if isinstance(families, Mapping):  # a family catalogue may list models absent here: report
        listed = list(dict.fromkeys(str(m) for v in families.values() for m in v))
        unknown = [m for m in listed if m not in all_models]
        if unknown:
            extra = pd.DataFrame({"model": unknown, "benchmarks": "",
                                  "reason": "listed in families but in no benchmark"})
            dropped = extra if dropped.empty else pd.concat([dropped, extra], ignore_index=True)
    fam_by_bench: dict[str, Families] = {}
    for b in names:
        cols = list(mats[b].columns[mats[b].notna().any(axis=0).to_numpy()])
        if isinstance(families, Families):
            fam_by_bench[b] = families
        else:
            explicit = None
            if isinstance(families, Mapping):
                explicit = {k: [m for m in v if m in cols] for k, v in families.items()}
            fam_by_bench[b] = families_from_models(models_table.loc[cols], by=family_by,
                                                   overrides={k: v for k, v in (overrides or {}).items()
                                                              if k in cols},
                                                   families=explicit)
    scores = pd.DataFrame({b: mats[b].mean(axis=0) for b in names}).T.reindex(columns=keep)
    scores.index.name = "benchmark"
    S = scores.to_numpy()
    codes = pd.factorize(pd.Series([dom[b] for b in names]))[0]
    tau = kendall_matrix(S, min_models=min_models) if len(keep) >= 2 else np.full((len(names),) * 2, np.nan)
    cb = _cbrc_from_tau(tau, codes, omit)
    cads: dict[str, CADResult] = {}
    rows = []
    for k, b in enumerate(names):
        Y = mats[b]
        r = cad(Y.to_numpy(), fam_by_bench[b].indices(list(Y.columns)), lam=lam)
        cads[b] = r
        s = S[k][~np.isnan(S[k])]
        d = ds(s, eps=eps)
        n_peers = int(sum(1 for j in range(len(names)) if j != k and codes[j] == codes[k]
                          and not np.isnan(tau[k, j])))
        rows.append(dict(domain=dom[b], n_items=Y.shape[0], n_models=int(s.size), n_peers=n_peers,
                         cbrc=cb[k], ds=d,
                         mean=s.mean() if s.size else np.nan, sd=s.std() if s.size else np.nan,
                         min=s.min() if s.size else np.nan, max=s.max() if s.size else np.nan,
                         raw_cad=r.rate, cad=r.score, bqs=bqs(cb[k], d, r.score, weights=w)))
    table = pd.DataFrame(rows, index=pd.Index(names, name="benchmark"))
    for m in ("cbrc", "ds", "cad"):
        table[f"{m}_band"] = [band(m, v) for v in table[m]]
    table["raw_cad_level"] = [band("raw_cad", v) for v in table["raw_cad"]]

    reps, diag, pools = _intervals(mats, names, keep, cads, codes, tau, table, eps=eps, lam=lam, w=w,
                                   min_models=min_models, omit=omit, n_resamples=n_resamples,
                                   interval_method=interval_method,
                                   confidence_level=confidence_level, rng=root, n_jobs=n_jobs,
                                   progress=progress)
    kend = {}
    for d in dict.fromkeys(dom[b] for b in names):
        ix = [k for k, b in enumerate(names) if dom[b] == d]
        kend[d] = pd.DataFrame(tau[np.ix_(ix, ix)], index=[names[k] for k in ix],
                               columns=[names[k] for k in ix])
    text = {}
    for b, rs in sets.items():
        if "text" in rs.items.columns:
            t = rs.items["text"].copy()
            t.index = t.index.astype(str)
            text[b] = t
        else:
            text[b] = None
    settings = dict(lam=lam, eps=eps, weights=tuple(w), n_resamples=n_resamples,
                    confidence_level=confidence_level, interval_method=interval_method,
                    align=align, min_models=min_models, nan_policy=nan_policy,
                    item_pools=[tuple(names[b] for b in range(len(names)) if pools[b] == p)
                                for p in range(int(pools.max()) + 1)] if len(names) else [])
    return QualityResult(table=table, scores=scores, kendall=kend, cad_results=cads, families=fam_by_bench,
                         dropped=dropped, replicates=reps, interval_diagnostics=diag, matrices=mats,
                         item_text=text, domains=dom, settings=settings,
                         rng_entropy=root.entropy)


def untrusted_intervals(diagnostics: pd.DataFrame) -> np.ndarray:
    """Which rows of :attr:`QualityResult.interval_diagnostics` hold an interval that cannot be trusted."""
    return (diagnostics["reason"].notna() & diagnostics["estimate"].notna()).to_numpy()


def _intervals(mats, names, keep, cads, codes, tau, table, *, eps, lam, w, min_models, omit,
               n_resamples, interval_method, confidence_level, rng, n_jobs, progress):
    """Bootstrap replicates, Table 14's bounds (written into ``table``) and their diagnostics."""
    pos = {m: i for i, m in enumerate(keep)}
    own = {b: [m for m in mats[b].columns if mats[b][m].notna().any()] for b in names}
    arrs = {b: np.ascontiguousarray(mats[b][own[b]].to_numpy(dtype=np.float64)) for b in names}
    pools, units, sizes = item_pools([list(mats[b].index) for b in names], codes)
    payload = BootstrapInput(
        Y=tuple(np.nan_to_num(arrs[b], nan=0.0) for b in names),
        cols=tuple(np.array([pos[m] for m in own[b]], dtype=np.int64) for b in names),
        n_models=len(keep), obs=tuple((~np.isnan(arrs[b])).astype(np.float64) for b in names),
        inv=tuple(cads[b].item_inversions for b in names),
        comp=tuple(cads[b].item_comparisons for b in names), pool=pools, units=units,
        pool_sizes=sizes, codes=codes, tau=tau, eps=eps, lam=lam, weights=w,
        min_models=min_models, omit=omit)
    if not n_resamples:
        for m in (*_METRICS, "raw_cad"):
            table[f"{m}_low"] = table[f"{m}_high"] = np.nan
        return np.empty((0, len(names), 4)), pd.DataFrame(columns=_DIAGNOSTICS), pools
    reps = bootstrap_replicates(payload, n_resamples, rng=rng, n_jobs=n_jobs, progress=progress)
    jk = jackknife(payload) if interval_method == "bca" else None
    rows = []
    for j, m in enumerate((*_METRICS, "raw_cad")):
        def pick(a):
            return -np.log(a[:, :, 2]) / lam if m == "raw_cad" else a[:, :, j]
        with np.errstate(divide="ignore"):
            iv = bootstrap_interval(pick(reps), table[m].to_numpy(dtype=float), method=interval_method,
                                    jackknife=None if jk is None else [pick(a) for a in jk],
                                    confidence_level=confidence_level, contain_estimate=True)
        f = iv.to_frame()
        f["low"] = np.clip(f["low"].to_numpy(dtype=float), *_RANGES[m])  # a basic bound may leave it
        f["high"] = np.clip(f["high"].to_numpy(dtype=float), *_RANGES[m])
        table[f"{m}_low"] = f["low"].to_numpy()
        table[f"{m}_high"] = f["high"].to_numpy()
        f.insert(0, "metric", m)
        f.insert(0, "benchmark", names)
        rows.append(f)
    diag = pd.concat(rows, ignore_index=True)
    bad = diag[untrusted_intervals(diag)]
    if len(bad):
        listed = "; ".join(f"{r.benchmark} {r.metric}: {r.reason}" for r in bad.head(8).itertuples())
        more = f" (and {len(bad) - 8} more)" if len(bad) > 8 else ""
        warnings.warn(f"{len(bad)} bootstrap interval(s) cannot be trusted: {listed}{more}; see "
                      "QualityResult.intervals_frame() (columns bias, z0, inside, reason)",
                      UntrustedIntervalWarning,
                      stacklevel=3)
    return reps, diag, pools
