r"""BSDProbe measurement utility (Sec. 4.4, App. J): profile-guided subsets, NDR and tau_b.

:func:`select_bsdprobe` (``_selection``)
    Order screening (drop items with o <= alpha_o), then boundary-position stratification with
    sampling weights (1 - w) v.
:func:`ndr`
    The normalized discrimination ratio of Eq. 9 on a reference axis.
:func:`subset_utility`
    The experiment: repeated subset sampling for BSDProbe and the baselines Random, Anchor Points,
    tinyBenchmarks (from :mod:`benchkit.subsets`), Bayesian and PSN-IRT (documented readings,
    ``_baselines``) on one candidate pool and matched sizes,
    scored by NDR and Kendall tau_b against the full benchmark on one reference axis.
:func:`measure_utility` (``_measure_utility``)
    The same from a :class:`benchkit.ResponseSet` with named selection and reference axes.
:func:`utility_table`
    The layout of Tables 2/3 (and 11-14): benchmarks x methods, mean +- sd.

Readings of the paper (also in the docstrings):

* Two roles of axes (App. J): the *selection axis* gives the profiles that guide BSDProbe; the
  *reference axis* (n_a models) is where every method's subset is scored. In the main experiment
  (Table 2/3) the same models play both roles; no models are held out. Baselines "select subsets
  according to their own criteria" from the responses of the reference models (our default
  ``train = reference``; pass other models' responses to hold models out).
* Score^(a)_i(A) is principal-answer accuracy of reference model i on item set A. With count data
  only (no principal sample) the kit uses mean correctness k/T, its expectation.
* The adjacent-model gaps of Eq. 9 follow the reference axis order as given (weakest first); the
  denominator uses ``|gaps|`` on the full scoreable set Q^(a) because a prescribed order need not be
  the accuracy order (the paper's cross-model MCQ order puts DeepSeek-R1-Distill-Qwen-14B after
  GLM-4-9B although it scores lower on GPQA, Table 5/6). NDR is NaN when the denominator is 0.
* Subset scores are plain accuracies on the selected items for every method (Eq. 9 literally);
  ``estimator="method"`` scores each method by its own estimator instead (cluster weights for
  Anchor Points, p-IRT for tinyBenchmarks).
* The paper does not state the number of repetitions or strata: defaults are 20 repetitions and
  n - 1 equal-width strata of x (one per adjacent pair of selection-axis models), with equal
  allocation over strata.
"""
from __future__ import annotations

import zlib
from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from benchkit._parallel import block_bounds
from benchkit._parallel import check_n_jobs
from benchkit._parallel import parallel_map
from benchkit._random import seed_sequence
from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_choice
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.boundary._baselines import select_bayesian
from benchkit.boundary._baselines import select_psn_irt
from benchkit.boundary._profiles import ProfileResult
from benchkit.boundary._selection import _pool_mask
from benchkit.boundary._selection import select_bsdprobe
from benchkit.stats import kendall_tau_b
from benchkit.subsets import Subset
from benchkit.subsets import estimate_accuracy
from benchkit.subsets import fit_item_parameters
from benchkit.subsets import select_anchor_points
from benchkit.subsets import select_random
from benchkit.subsets import select_tinybenchmarks

__all__ = [
    "ndr",
    "SubsetUtilityResult",
    "subset_utility",
    "utility_table",
    "BASELINES",
]

_TASK_BLOCK = 8  # (method, size, repetition) tasks per joblib task; fixed, never from n_jobs

#: Baseline keys accepted by :func:`subset_utility` and their display labels (paper's names).
BASELINES: dict[str, str] = {
    "random": "Random",
    "tinybenchmarks": "TinyBenchmarks",
    "anchor_points": "Anchor Points",
    "bayesian": "Bayesian",
    "psn_irt": "PSN-IRT",
}


# ----------------------------------------------------------------------------------------------
# NDR (Eq. 9)
# ----------------------------------------------------------------------------------------------
def ndr(subset_scores, full_scores) -> np.ndarray | float:
    r"""Normalized discrimination ratio (Eq. 9).

    Parameters
    ----------
    subset_scores : array_like (..., n_a)
        :math:`\mathrm{Score}^{(a)}_i(\mathcal S)` of the reference-axis models in axis order
        (weakest first), batched over leading axes.
    full_scores : array_like (n_a,)
        :math:`\mathrm{Score}^{(a)}_i(\mathcal Q^{(a)})` on the full scoreable item set.

    Returns
    -------
    float or ndarray
        :math:`\sum_i [\Delta_i(\mathcal S)]_+ / \sum_i |\Delta_i(\mathcal Q)|` with
        :math:`\Delta_i = \mathrm{Score}_{i+1} - \mathrm{Score}_i`; NaN when the denominator is 0
        (the paper defines NDR "with a positive denominator").

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 4.4, Eq. (9).

    Examples
    --------
    Four reference models; on the subset the third model scores below the second, which NDR does
    not reward ([z]_+), and the other steps are wider than on the full set:

    >>> from benchkit.boundary.steps import ndr
    >>> ndr([0.1, 0.3, 0.2, 0.6], [0.2, 0.3, 0.5, 0.6])   # (0.2 + 0 + 0.4) / 0.4
    1.5
    """
    S = check_array("subset_scores", subset_scores, dtype="float")
    F = check_array("full_scores", full_scores, ndim=1, dtype="float")
    if S.ndim == 0 or S.shape[-1] != F.size:
        raise BenchkitValueError(
            f"subset_scores must end in the {F.size} reference models of full_scores; got shape "
            f"{S.shape}"
        )
    if F.size < 2:
        raise BenchkitValueError(f"NDR needs at least 2 reference models; got {F.size}")
    den = np.abs(np.diff(F)).sum()
    num = np.maximum(np.diff(S, axis=-1), 0.0).sum(-1)
    out = num / den if den > 0 else np.full(num.shape, np.nan)
    return float(out) if np.ndim(out) == 0 else out


# ----------------------------------------------------------------------------------------------
# the experiment
# ----------------------------------------------------------------------------------------------
@result
class SubsetUtilityResult:
    """Repeated subset sampling scored on a reference axis (Tables 2/3, 11-14 for one benchmark).

    Do BSDProbe's profile-guided subsets separate the reference models better than the baselines,
    while keeping their ranking? Each method draws ``n_repeats`` subsets of each size; NDR > 1
    means more positive adjacent-model score separation than the full benchmark (Eq. 9) and
    tau_b near 1 means the subset ranks the models as the full benchmark does.

    Parameters
    ----------
    methods, sizes, ndr, tau_b, scores, full_scores, selections, reference_models, pool, items
        The fields below (see Attributes); built by :func:`~benchkit.boundary.steps.subset_utility`
        or :func:`benchkit.boundary.measure_utility`.
    estimator, n_repeats, rng_entropy, name
        See Attributes.

    Attributes
    ----------
    methods : tuple of str
        Display labels (``"Random"``, ``"TinyBenchmarks"``, ``"Anchor Points"``,
        ``"BSDProbe(<axis>)"``) in column order.
    sizes : tuple of int
        Subset sizes (the paper's 100 items).
    ndr : ndarray (n_methods, n_sizes, n_repeats)
        NDR (Eq. 9) of each drawn subset: > 1 = more positive adjacent-model separation than the
        full benchmark; NaN when the full-set denominator is 0.
    tau_b : ndarray (n_methods, n_sizes, n_repeats)
        Kendall tau_b between the reference models' subset scores and their full-benchmark scores,
        in [-1, 1] (1 = same ranking); NaN when the subset's scores are all tied.
    scores : ndarray (n_methods, n_sizes, n_repeats, n_a)
        The reference models' subset scores.
    full_scores : ndarray (n_a,)
        Scores on the full scoreable set Q^(a).
    selections : tuple of tuple of ndarray
        ``selections[method][size]`` -> (n_repeats, size) int64 rows (of the candidate matrix).
    reference_models : pandas.Index
        The reference-axis models, weakest first (columns of ``scores``).
    pool : ndarray of bool
        The candidate pool (rows complete on the reference axis, the training data and the pool
        argument).
    items : pandas.Index or None
        Row labels of the candidate matrix (item ids), when given.
    estimator : {"subset", "method"}
        How subset scores were computed: plain accuracy (Eq. 9, the default) or each method's own
        estimator.
    n_repeats : int
        Subsets drawn per method and size.
    rng_entropy : int or sequence of int
        Entropy of the root SeedSequence all draws came from: ``rng=result.rng_entropy`` repeats
        the experiment exactly.
    name : str or None
        Benchmark label (row name in :func:`utility_table`).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 4.4, Eq. (9), Tables 2-3; App. J, Tables 11-14.

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> rs = simulate.load_sample("ladder")
    >>> u = boundary.measure_utility(rs, reference_axis=list(rs.model_ids), methods=("random",),
    ...                              sizes=(30,), n_repeats=4, rng=1)
    >>> u.methods, u.ndr.shape
    (('Random', 'BSDProbe(reference)'), (2, 1, 4))
    >>> u.summary_frame()[["method", "ndr_mean", "tau_b_mean"]].round(2)
                    method  ndr_mean  tau_b_mean
    0               Random      1.16        0.86
    1  BSDProbe(reference)      1.39        0.92
    """

    methods: tuple
    sizes: tuple
    ndr: np.ndarray
    tau_b: np.ndarray
    scores: np.ndarray
    full_scores: np.ndarray
    selections: tuple
    reference_models: pd.Index
    pool: np.ndarray
    items: pd.Index | None
    estimator: str
    n_repeats: int
    rng_entropy: Any
    name: str | None = None

    def to_frame(self) -> pd.DataFrame:
        """Long table: one row per (method, size, repeat) with ``ndr`` and ``tau_b``."""
        M, S, R = self.ndr.shape
        mi, si, ri = np.meshgrid(np.arange(M), np.arange(S), np.arange(R), indexing="ij")
        return pd.DataFrame({
            "method": np.asarray(self.methods, dtype=object)[mi.ravel()],
            "size": np.asarray(self.sizes)[si.ravel()],
            "repeat": ri.ravel(),
            "ndr": self.ndr.ravel(),
            "tau_b": self.tau_b.ravel(),
        })

    def summary_frame(self, *, ddof: int = 1) -> pd.DataFrame:
        """Per (method, size): mean and sd of NDR and tau_b over repetitions (NaN-aware).

        ``tau_b_undefined`` counts the repetitions whose subset scores were all tied.
        """
        rows = []
        for a, mth in enumerate(self.methods):
            for b, sz in enumerate(self.sizes):
                n_ = self.ndr[a, b]
                t_ = self.tau_b[a, b]
                rows.append({
                    "method": mth, "size": sz,
                    "ndr_mean": _nanmean(n_), "ndr_sd": _nansd(n_, ddof),
                    "tau_b_mean": _nanmean(t_), "tau_b_sd": _nansd(t_, ddof),
                    "tau_b_undefined": int(np.isnan(t_).sum()),
                })
        return pd.DataFrame(rows)


def _nanmean(a):
    a = a[np.isfinite(a)]
    return float(a.mean()) if a.size else float("nan")


def _nansd(a, ddof):
    a = a[np.isfinite(a)]
    return float(a.std(ddof=ddof)) if a.size > ddof else (0.0 if a.size == 1 else float("nan"))


def _task_seed(root: np.random.SeedSequence, label: str, size: int,
               rep: int) -> np.random.SeedSequence:
    # keyed children of the root: a method's subsets do not depend on the other methods or sizes
    # run, nor on the workers (for an int rng, spawn_key == () and these are the seeds of before)
    return np.random.SeedSequence(root.entropy, spawn_key=root.spawn_key
                                  + (zlib.crc32(label.encode()), size, rep))


def _run_block(tasks, ctx):
    out = []
    for (a, label, kind, size, rep) in tasks:
        ss = _task_seed(ctx["root"], label, size, rep)
        pool_rows = ctx["pool_rows"]
        if kind == "random":
            sub = select_random(pool_rows.size, size, rng=ss)
        elif kind == "anchor_points":
            sub = select_anchor_points(ctx["train"], size, metric=ctx["anchor_metric"], rng=ss)
        elif kind == "tinybenchmarks":
            sub = select_tinybenchmarks(None, size, fit=ctx["fit"], rng=ss)
        elif kind == "bayesian":
            sub = select_bayesian(ctx["train"], size, rng=ss)
        elif kind == "psn_irt":
            sub = select_psn_irt(None, size, fit=ctx["fit"], rng=ss)
        else:  # bsdprobe: profile rows are rows of the full matrix
            sub = select_bsdprobe(ctx["profiles"][label], size, rng=ss, pool=ctx["pool"],
                                  **ctx["bsd_options"])
            sub = Subset(ctx["pool_pos"][sub.indices], sub.weights, sub.method, sub.n_pool,
                         sub.groups, sub.info)
        Y = ctx["ref_pool"][sub.indices]
        est = "subset"
        if ctx["estimator"] == "method":
            est = {"anchor_points": "weighted", "tinybenchmarks": "pirt"}.get(kind, "subset")
        sc = estimate_accuracy(Y, sub, estimator=est)
        out.append((a, size, rep, pool_rows[sub.indices], sc))
    return out


def subset_utility(reference, *, profiles=None, train=None, train_binary=None,
                   full_scores=None, sizes: Sequence[int] = (100,),
                   methods: Sequence[str] = ("random", "tinybenchmarks", "anchor_points",
                                             "bayesian", "psn_irt"),
                   n_repeats: int = 20, rng: Any = 42, n_jobs: int | None = None, pool=None,
                   estimator: str = "subset", anchor_metric: str = "correlation",
                   irt: str = "2pl", bsd_options: Mapping[str, Any] | None = None,
                   items=None, models=None, name: str | None = None) -> SubsetUtilityResult:
    """Measurement utility of subset selection (Sec. 4.4, Tables 2/3; App. J, Tables 11-14).

    Parameters
    ----------
    reference : array_like (n_items, n_a)
        Scores of the reference-axis models (columns in axis order, weakest first) per item:
        principal-answer correctness 0/1 (or mean correctness k/T), NaN where not scoreable.
    profiles : ProfileResult or mapping of label -> ProfileResult, optional
        Selection-axis profiles (rows aligned with ``reference``), one BSDProbe column each,
        labelled ``"BSDProbe(<label>)"`` (a single result: ``"BSDProbe"``).
    train : array_like (n_items, m), optional
        Source-model confidences for the baselines (Anchor Points clusters them; tinyBenchmarks
        fits its IRT model to ``train_binary``). Default: ``reference``.
    train_binary : array_like (n_items, m), optional
        0/1 responses for tinyBenchmarks' IRT fit; default ``train`` if it is 0/1, else
        ``train >= 0.5`` (tinyBenchmarks binarizes non-binary scores).
    full_scores : array_like (n_a,), optional
        Scores on the full scoreable set Q^(a); default: column means of ``reference`` over its
        complete rows.
    sizes : sequence of int, default (100,)
        Subset sizes (the paper uses 100-item subsets).
    methods : sequence of str
        Baselines among :data:`BASELINES` (``"random"``, ``"tinybenchmarks"``,
        ``"anchor_points"``, ``"bayesian"``, ``"psn_irt"``; default all five, the paper's).
    n_repeats : int, default 20
        Repetitions of subset sampling per method and size (the paper reports mean +- sd over
        repeated sampling without giving the number).
    rng : None, int, SeedSequence or Generator, default 42
        Root of the randomness (the paper's experiments use 42; :mod:`benchkit._random`, a
        Generator is consumed). Repetition r of method m at size k uses the keyed child
        ``SeedSequence(root.entropy, spawn_key=root.spawn_key + (crc32(m), k, r))``, so results do
        not depend on ``n_jobs``, the joblib backend, or on which other methods or sizes are run.
    n_jobs : int, optional
        joblib workers over fixed blocks of repetitions (:func:`benchkit._parallel.parallel_map`;
        None: ``joblib.parallel_config``'s default, serial outside a context).
    pool : array_like of bool or int, optional
        Restrict the candidate pool further (same rows for every method).
    estimator : {"subset", "method"}
        ``"subset"`` (default, Eq. 9): every method is scored by plain accuracy on its subset;
        ``"method"``: Anchor Points by its cluster-weighted estimate and tinyBenchmarks by p-IRT.
    anchor_metric : {"correlation", "euclidean"}
        Anchor Points' item distance.
    irt : {"2pl", "1pl"}
        tinyBenchmarks' IRT model (fitted once, on the pool).
    bsd_options : mapping, optional
        Keyword options of :func:`select_bsdprobe` (``screen``, ``n_strata``, ``allocation``).
    items, models : sequence, optional
        Row and reference-column labels.
    name : str, optional
        Benchmark label for :func:`utility_table`.

    Returns
    -------
    SubsetUtilityResult

    Notes
    -----
    *Candidate pool.* All methods draw from the same pool: rows complete on ``reference`` and
    ``train`` (and in ``pool``). BSDProbe's order screening removes flagged items inside it.
    *Scores.* NDR (Eq. 9) and Kendall tau_b (scipy semantics: NaN when the subset's scores are all
    tied; the summaries average the defined values and count the others) compare the reference
    models' subset scores with their scores on Q^(a), the full scoreable set.
    *Baselines.* Random: uniform. Anchor Points: k-medoids of the confidence patterns
    (:func:`benchkit.subsets.select_anchor_points`). TinyBenchmarks: k-means on 2PL item
    parameters (:func:`benchkit.subsets.select_tinybenchmarks`). Bayesian (Xiao et al. 2025):
    items drawn with probability proportional to a Beta(1, 1) posterior-predictive
    discrimination weight over adjacent training models. PSN-IRT (Zhou et al. 2026): items drawn
    with probability proportional to their Fisher information at the training models' abilities
    under the 2PL special case (c = 0, d = 1) of PSN-IRT's four-parameter model, from the same
    ``irt`` fit as tinyBenchmarks. Both readings are documented in
    ``benchkit.boundary._baselines`` (the BSDProbe paper only names these baselines).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 4.4, Eq. (9), Tables 2-3; App. J, Tables 11-14.
    .. [2] Vivek, R., Ethayarajh, K., Yang, D. and Kiela, D. "Anchor Points: Benchmarking Models
       with Much Fewer Examples." EACL 2024.
    .. [3] Polo, F. M. et al. "tinyBenchmarks: evaluating LLMs with fewer examples." ICML 2024.

    Examples
    --------
    Reference scores of 4 models on 60 items; random subsets of 20 items against the full set:

    >>> import numpy as np
    >>> from benchkit.boundary.steps import subset_utility
    >>> g = np.random.default_rng(0)
    >>> R = (g.random((60, 4)) < [0.3, 0.45, 0.6, 0.8]).astype(float)
    >>> u = subset_utility(R, methods=("random",), sizes=(20,), n_repeats=5, rng=1)
    >>> u.full_scores.round(3), u.ndr.shape
    (array([0.25 , 0.4  , 0.483, 0.733]), (1, 1, 5))
    >>> subset_utility(R, methods=("random",), sizes=(20,), n_repeats=5,
    ...                rng=u.rng_entropy).ndr.tolist() == u.ndr.tolist()
    True
    """
    R = check_array("reference", reference, ndim=2, dtype="float", finite=False)
    n_items, n_a = R.shape
    if n_a < 2:
        raise BenchkitValueError(f"reference needs at least 2 models (columns); got {n_a}")
    vals = R[np.isfinite(R)]
    if vals.size and (vals.min() < 0 or vals.max() > 1):
        raise BenchkitValueError("reference scores must lie in [0, 1] (NaN = not scoreable)")
    check_choice("estimator", estimator, ("subset", "method"))
    check_choice("anchor_metric", anchor_metric, ("correlation", "euclidean"))
    check_choice("irt", irt, ("2pl", "1pl"))
    n_repeats = check_int("n_repeats", n_repeats, min=1)
    n_jobs = check_n_jobs(n_jobs)
    if isinstance(sizes, (int, np.integer)):
        sizes = (sizes,)
    sizes = tuple(check_int("sizes", s, min=1) for s in sizes)
    if not sizes:
        raise BenchkitValueError("sizes must hold at least one subset size")
    methods = tuple(methods)
    for mth in methods:
        check_choice("methods", mth, tuple(BASELINES))
    prof_map: dict[str, ProfileResult] = {}
    if isinstance(profiles, ProfileResult):
        prof_map = {"BSDProbe": profiles}
    elif profiles is not None:
        if not isinstance(profiles, Mapping):
            raise BenchkitTypeError(
                f"profiles must be a ProfileResult or a mapping label -> ProfileResult; got "
                f"{describe(profiles)}"
            )
        for lab, p in profiles.items():
            if not isinstance(p, ProfileResult):
                raise BenchkitTypeError(f"profiles[{lab!r}] must be a ProfileResult; got {describe(p)}")
            prof_map[f"BSDProbe({lab})"] = p
    for lab, p in prof_map.items():
        if p.x.size != n_items:
            raise BenchkitValueError(
                f"{lab}: profiles have {p.x.size} rows but reference has {n_items} items"
            )
    if not methods and not prof_map:
        raise BenchkitValueError("nothing to compare: give methods and/or profiles")
    Tr = R if train is None else check_array("train", train, ndim=2, dtype="float", finite=False)
    if Tr.shape[0] != n_items:
        raise BenchkitValueError(f"train has {Tr.shape[0]} rows but reference has {n_items}")
    complete_ref = np.isfinite(R).all(1)
    cand = complete_ref & np.isfinite(Tr).all(1) & _pool_mask(pool, n_items)
    pool_rows = np.flatnonzero(cand)
    if pool_rows.size < max(sizes):
        raise BenchkitValueError(
            f"the candidate pool has {pool_rows.size} complete items, fewer than size={max(sizes)}"
        )
    if full_scores is None:
        F = R[complete_ref].mean(0)
    else:
        F = check_array("full_scores", full_scores, ndim=1, dtype="float", shape=(n_a,))
    fit = None
    if "tinybenchmarks" in methods or "psn_irt" in methods:
        if train_binary is None:
            TB = Tr[pool_rows]
            if np.any((TB != 0) & (TB != 1)):
                TB = (TB >= 0.5).astype(float)
        else:
            TB = check_array("train_binary", train_binary, ndim=2, dtype="float", finite=False)
            if TB.shape[0] != n_items:
                raise BenchkitValueError(f"train_binary has {TB.shape[0]} rows, reference {n_items}")
            TB = TB[pool_rows]
            if np.isnan(TB).any() or np.any((TB != 0) & (TB != 1)):
                raise BenchkitValueError("train_binary must hold 0/1 on the candidate pool")
        fit = fit_item_parameters(TB, irt=irt)
    root = seed_sequence(rng)
    pool_pos = np.full(n_items, -1, dtype=np.int64)
    pool_pos[pool_rows] = np.arange(pool_rows.size)
    ctx = {
        "root": root, "pool_rows": pool_rows, "pool": cand, "pool_pos": pool_pos,
        "train": Tr[pool_rows], "anchor_metric": anchor_metric, "fit": fit,
        "profiles": prof_map, "bsd_options": dict(bsd_options or {}), "ref_pool": R[pool_rows],
        "estimator": estimator,
    }
    labels = [BASELINES[m] for m in methods] + list(prof_map)
    kinds = list(methods) + ["bsdprobe"] * len(prof_map)
    tasks = [(a, lab, kind, sz, r) for a, (lab, kind) in enumerate(zip(labels, kinds))
             for sz in sizes for r in range(n_repeats)]
    parts = parallel_map(_run_block, [(tasks[a:b], ctx) for a, b in
                                      block_bounds(len(tasks), _TASK_BLOCK)], n_jobs=n_jobs)
    results = [r for p in parts for r in p]
    M, S = len(labels), len(sizes)
    scores = np.full((M, S, n_repeats, n_a), np.nan)
    sel = [[np.zeros((n_repeats, sz), dtype=np.int64) for sz in sizes] for _ in range(M)]
    spos = {sz: b for b, sz in enumerate(sizes)}
    for a, sz, r, rows, sc in results:
        b = spos[sz]
        scores[a, b, r] = sc
        sel[a][b][r] = rows
    return SubsetUtilityResult(
        methods=tuple(labels), sizes=sizes, ndr=ndr(scores, F), tau_b=kendall_tau_b(scores, F),
        scores=scores, full_scores=F, selections=tuple(tuple(s) for s in sel),
        reference_models=pd.Index(models if models is not None else range(n_a)), pool=cand,
        items=None if items is None else pd.Index(items), estimator=estimator,
        n_repeats=n_repeats, rng_entropy=root.entropy, name=name,
    )


# ----------------------------------------------------------------------------------------------
# Table 2/3 layout
# ----------------------------------------------------------------------------------------------
def utility_table(results, *, metric: str = "ndr", size: int | None = None,
                  formatted: bool = False, ddof: int = 1) -> pd.DataFrame:
    """Tables 2/3 (11-14) layout: one row per benchmark, one column per method, mean +- sd.

    Parameters
    ----------
    results : SubsetUtilityResult, sequence or mapping of row label -> SubsetUtilityResult
        One result per benchmark (the rows).
    metric : {"ndr", "tau_b"}
        NDR (Tables 2, 11, 13) or Kendall tau_b (Tables 3, 12, 14).
    size : int, optional
        Subset size to show (default: the first size of each result).
    formatted : bool
        False (default): numeric columns ``(method, "mean")`` and ``(method, "sd")``. True: cells
        ``"2.04 ± 0.06"`` (NDR with 2 decimals, tau_b with 3, as in the paper).
    ddof : int
        Degrees of freedom of the sd (default 1, the sample sd).

    Returns
    -------
    DataFrame
        One row per benchmark; columns ``(method, "mean")`` and ``(method, "sd")`` over the
        repetitions, or one formatted column per method.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Tables 2-3 and 11-14.

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> from benchkit.boundary.steps import utility_table
    >>> rs = simulate.load_sample("ladder")
    >>> u = boundary.measure_utility(rs, reference_axis=list(rs.model_ids), methods=("random",),
    ...                              sizes=(30,), n_repeats=4, rng=1)
    >>> utility_table(u, metric="tau_b").round(3)
    method        Random       BSDProbe(reference)
    stat            mean    sd                mean     sd
    benchmark
    sample-ladder  0.857  0.19               0.925  0.129
    """
    check_choice("metric", metric, ("ndr", "tau_b"))
    if isinstance(results, SubsetUtilityResult):
        results = {results.name or "benchmark": results}
    elif not isinstance(results, Mapping):
        results = {(r.name or f"benchmark {i}"): r for i, r in enumerate(results)}
    rows, index = [], []
    methods: list[str] = []
    for lab, res in results.items():
        if not isinstance(res, SubsetUtilityResult):
            raise BenchkitTypeError(f"results[{lab!r}] must be a SubsetUtilityResult; got "
                                    f"{describe(res)}")
        sz = res.sizes[0] if size is None else size
        if sz not in res.sizes:
            raise BenchkitValueError(f"size={sz} was not run for {lab!r}; sizes {res.sizes}")
        b = res.sizes.index(sz)
        vals = getattr(res, metric)
        row = {}
        for a, mth in enumerate(res.methods):
            if mth not in methods:
                methods.append(mth)
            row[(mth, "mean")] = _nanmean(vals[a, b])
            row[(mth, "sd")] = _nansd(vals[a, b], ddof)
        rows.append(row)
        index.append(lab)
    cols = pd.MultiIndex.from_tuples([(m, s) for m in methods for s in ("mean", "sd")],
                                     names=["method", "stat"])
    df = pd.DataFrame(rows, index=pd.Index(index, name="benchmark")).reindex(columns=cols)
    if not formatted:
        return df
    dec = 2 if metric == "ndr" else 3
    out = pd.DataFrame(index=df.index)
    for m in methods:
        mean, sd = df[(m, "mean")], df[(m, "sd")]
        out[m] = [f"{u:.{dec}f} ± {s:.{dec}f}" if np.isfinite(u) else "nan"
                  for u, s in zip(mean, sd)]
    out.columns.name = "method"
    return out
