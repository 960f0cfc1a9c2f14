"""BSDProbe on a ResponseSet: the entry points that take a :class:`benchkit.ResponseSet`.

:func:`trajectories` (Sec. 3.1), :func:`profile` (axis, trajectories and profiles in one
call, Sec. 3-3.2, App. F), :func:`diagnose` (benchmark x axis summaries, Sec. 3.3, Table 1) and
:func:`estimate_reliability` (App. G). The array-level work lives in the private modules.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from benchkit._parallel import check_n_jobs
from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import BenchkitWarning
from benchkit._validation import check_choice
from benchkit._validation import describe
from benchkit.boundary._axis import ModelAxis
from benchkit.boundary._axis import model_axis
from benchkit.boundary._profiles import ProfileResult
from benchkit.boundary._profiles import profiles
from benchkit.boundary._reliability import PAPER_BLOCK_SIZES
from benchkit.boundary._reliability import ReliabilityResult
from benchkit.boundary._reliability import split_half_reliability
from benchkit.boundary._summary import Diagnosis
from benchkit.boundary._summary import summarize_profiles
from benchkit.boundary._summary import tabulate_profiles
from benchkit.boundary._trajectories import Trajectories
from benchkit.boundary._trajectories import binary_state_counts
from benchkit.boundary._trajectories import state_trajectories
from benchkit.response_set import check_response_set

__all__ = [
    "ResponseProfiles",
    "diagnose",
    "profile",
    "profile_trajectories",
    "estimate_reliability",
    "trajectories",
]


@result
class ResponseProfiles:
    """Profiles of a ResponseSet's items along one model axis, with the data behind them.

    What :func:`benchkit.boundary.profile` returns: for every item its boundary position x (where
    on the axis it becomes solvable), width w, validity v and order-consistency score o with the
    review flag, together with the trajectories and the axis they were computed on. Start with
    :meth:`to_frame` (one row per item) and sort by ``o`` to see the items flagged for review.

    Parameters
    ----------
    profile, trajectories, axis, items, n_dropped, name
        The fields below (see Attributes).

    Attributes
    ----------
    profile : ProfileResult
        The item profiles (x, w, v, o, flags, fits, ...), rows in ``items`` order.
    trajectories : Trajectories
        C_q and E_q and the answer-state counts they come from.
    axis : ModelAxis
        The ordered probe models (weakest first) the profiles are read along.
    items : pandas.DataFrame
        Item metadata of the profiled items (benchmark, source, text, answer key, labels, ...).
    n_dropped : int
        Items left out because some axis model lacks T responses on them.
    name : str, optional
        Name of the ResponseSet (e.g. the benchmark).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.1-3.3, App. A-F.

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> res = boundary.profile(simulate.load_sample("ladder"))
    >>> res.n_items, res.T, res.n_dropped
    (300, 10, 0)
    >>> res.to_frame()[["x", "w", "v", "o", "flagged"]].head(3).round(3)
               x      w      v      o  flagged
    item
    q0000  0.680  0.480  0.820  1.000    False
    q0001  0.360  0.240  0.933  1.000    False
    q0002  0.367  0.283  0.686  0.965    False
    >>> res.trajectory_frame("q0000")[["k", "c", "e", "fit"]].round(2)
               k    c     e  fit
    model
    sim-0.6b   0  0.0  0.74  0.0
    sim-1.7b   2  0.2  0.88  0.2
    sim-4b     3  0.3  0.92  0.3
    sim-8b     3  0.3  0.65  0.3
    sim-14b    8  0.8  0.36  0.8
    sim-32b   10  1.0  0.00  1.0
    """

    profile: ProfileResult
    trajectories: Trajectories
    axis: ModelAxis
    items: pd.DataFrame
    n_dropped: int = 0
    name: str | None = None

    @property
    def n_items(self) -> int:
        """Number of profiled items."""
        return int(self.profile.counts.shape[0])

    @property
    def T(self) -> int:
        """Responses per (model, item)."""
        return self.profile.T

    def to_frame(self, *, metadata: bool = True) -> pd.DataFrame:
        """One row per item: the profile columns, M_q, then (``metadata``) the item metadata."""
        df = self.profile.to_frame()
        df.index = pd.Index(self.trajectories.items, name="item")
        df["n_states"] = self.trajectories.n_states
        if metadata and len(self.items.columns):
            extra = self.items.loc[df.index]
            extra = extra[[c for c in extra.columns if c not in df.columns]]
            df = df.join(extra)
        return df

    def trajectory_frame(self, item) -> pd.DataFrame:
        """One item along the axis: k, c, e, the isotonic fit and its block per model."""
        q = self.trajectories.items.get_loc(item)
        p = self.profile
        return pd.DataFrame(
            {
                "position": np.arange(p.n) / (p.n - 1),
                "k": p.counts[q], "c": p.c[q], "e": p.entropy[q], "fit": p.fit[q],
                "block": p.blocks[q],
            },
            index=pd.Index(list(self.axis.models), name="model"),
        )

    def summary(self, *, bins: int = 10):
        """Benchmark-level summary (:func:`benchkit.boundary.steps.summarize_profiles`, Sec. 3.3)."""
        return summarize_profiles(self, bins=bins)

    def answers(self, item) -> pd.DataFrame:
        """The item's answer-state distributions p_{i,q} (Eq. 1): states x models."""
        return self.trajectories.distribution(item)


def profile_trajectories(traj: Trajectories, *, alpha_o: float = 0.05, calibration="auto",
                         by=None) -> ProfileResult:
    """:func:`~benchkit.boundary.steps.profiles` on a :class:`Trajectories`.

    Parameters
    ----------
    traj : Trajectories
        Trajectories along an axis (:func:`trajectories`); its counts, T and entropies are used.
    alpha_o : float, default 0.05
        Screening level of the order-consistency score (the paper's).
    calibration : "auto", "exact" or CalibrationTable, default "auto"
        See :func:`~benchkit.boundary.steps.profiles`.
    by : sequence, optional
        A benchmark label per item (App. B positioning within benchmarks).

    Returns
    -------
    ProfileResult
        Profiles with the trajectories' item and model labels.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.2, App. A-D.

    Examples
    --------
    >>> from benchkit import simulate
    >>> from benchkit.boundary.steps import profile_trajectories, trajectories
    >>> tr = trajectories(simulate.load_sample("ladder"))
    >>> prof = profile_trajectories(tr)
    >>> int(prof.flagged.sum()), prof.models[0]
    (16, 'sim-0.6b')
    """
    return profiles(traj.counts, traj.T, entropy=traj.entropy, alpha_o=alpha_o,
                    calibration=calibration, items=np.asarray(traj.items, dtype=object),
                    by=by, models=[str(m) for m in traj.models])


def profile(rs, *, axis=None, states: str = "auto", alpha_o: float = 0.05,
            calibration="auto", by: str | None = "benchmark") -> ResponseProfiles:
    """BSDProbe profiles of a ResponseSet's items along a model axis (Sec. 3.1-3.2, App. A-F).

    The entry point of BSDProbe: it orders the probe models (App. F), builds each item's
    correctness and entropy trajectories from the repeated responses (Sec. 3.1) and profiles them
    (Sec. 3.2): where along the axis the item becomes solvable (x), how sharply (w), how well
    supported the transition is (v), and whether the reversals of its raw trajectory call for a
    review (o, flagged when o <= alpha_o).

    Parameters
    ----------
    rs : benchkit.ResponseSet
        T repeated responses per (model, item), with answer states when available.
    axis : None, "accuracy", "size", sequence of model ids, dict or ModelAxis
        The probe models and their order (:func:`benchkit.boundary.steps.model_axis`); default the
        empirical principal-answer accuracy order of all models (App. F).
    states : {"auto", "answers", "binary"}
        Entropy states (see :func:`benchkit.boundary.steps.trajectories`): with correctness only, e is
        computed on {correct, incorrect} and ``trajectories.entropy_source`` says "binary".
    alpha_o : float, default 0.05
        Screening level of the order-consistency score (the paper's).
    calibration : "auto", "exact" or CalibrationTable
        See :func:`benchkit.boundary.steps.profiles`; matched to (n, T) of the axis.
    by : str or None, default "benchmark"
        The split: the items column whose values are the benchmarks B of App. B (Delta = 0
        positioning uses reference items of the same benchmark); ignored when the column is absent.

    Returns
    -------
    ResponseProfiles
        The profiles, trajectories, axis and item metadata; ``to_frame()`` has one row per item.

    Notes
    -----
    Items without T responses for every axis model are left out and counted in ``n_dropped``.
    The ordering of App. F is estimated per call: to follow the paper's per-benchmark axes, call
    this once per benchmark (``rs.select(benchmark=...)``) or use
    :func:`benchkit.boundary.diagnose`.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.1-3.2 (Eq. 1-8), App. A-F.

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> rs = simulate.load_sample("ladder")     # 300 items, 6 models, T = 10 responses
    >>> res = boundary.profile(rs)
    >>> res.axis.models
    ('sim-0.6b', 'sim-1.7b', 'sim-4b', 'sim-8b', 'sim-14b', 'sim-32b')
    >>> int(res.profile.flagged.sum())          # items flagged for order-focused review
    16
    >>> res.to_frame().sort_values("o")[["x", "o", "flagged"]].head(3).round(4)
                x    o  flagged
    item
    q0050  0.2156  0.0     True
    q0217  0.8292  0.0     True
    q0267  0.2750  0.0     True
    """
    check_response_set("rs", rs)
    ax = model_axis(rs, axis=axis)
    traj = trajectories(rs, axis=ax, states=states)
    meta = rs.items.loc[traj.items]
    groups = None
    if by is not None and by in meta.columns:
        g = meta[by].astype(object).where(meta[by].notna(), None).to_numpy(dtype=object)
        if len(set(g.tolist())) > 1:
            groups = g
    elif by is not None and by != "benchmark":
        raise BenchkitValueError(
            f"by={describe(by)} is not an items column; columns are "
            f"{describe(list(meta.columns))}"
        )
    prof = profile_trajectories(traj, alpha_o=alpha_o, calibration=calibration, by=groups)
    return ResponseProfiles(profile=prof, trajectories=traj, axis=ax, items=meta,
                            n_dropped=int(rs.n_items - traj.n_items), name=rs.name)


def _answer_states(rs, models: pd.Index, items: pd.Index, T: int):
    """State counts from a ResponseSet's answers; a state is an (answer, correct) pair."""
    long = rs.to_long()
    long = long[long["model"].isin(models) & long["item"].isin(items)]
    corr = long["correct"].to_numpy(dtype=np.float64)
    if np.any((corr != 0) & (corr != 1)):
        raise BenchkitValueError(
            "answer-state trajectories need 0/1 correctness; 'correct' holds fractional scores"
        )
    ii = items.get_indexer(long["item"].to_numpy())
    mi = models.get_indexer(long["model"].to_numpy())
    ans = long["answer"].to_numpy(dtype=object)
    c01 = corr.astype(np.int8)
    fac, levels = pd.factorize(pd.MultiIndex.from_arrays([ii, ans, c01]))
    lev_i = np.asarray(levels.get_level_values(0), dtype=np.int64)
    # rank of each (answer, correct) pair within its item, in order of first appearance
    order = np.argsort(lev_i, kind="stable")
    starts = np.searchsorted(lev_i[order], np.arange(len(items)))
    rank = np.empty(len(levels), dtype=np.int64)
    rank[order] = np.arange(len(levels)) - starts[lev_i[order]]
    s = rank[fac]
    S = int(rank.max()) + 1 if len(levels) else 1
    sc = np.zeros((len(items), len(models), S), dtype=np.int64)
    np.add.at(sc, (ii, mi, s), 1)
    ok = np.zeros((len(items), S), dtype=bool)
    lev_a = np.asarray(levels.get_level_values(1), dtype=object)
    lev_c = np.asarray(levels.get_level_values(2))
    ok[lev_i, rank] = lev_c == 1
    labels = [[None] * S for _ in range(len(items))]
    for q, r, a in zip(lev_i, rank, lev_a):
        labels[q][r] = a
    # answers judged both ways are two states; say so once
    dup = int(pd.DataFrame({"i": lev_i, "a": lev_a}).duplicated().sum())
    return sc, ok, tuple(tuple(x) for x in labels), int(dup)


def trajectories(rs, *, axis=None, states: str = "auto") -> Trajectories:
    """Trajectories of a ResponseSet's items along a model axis (Sec. 3.1, Eq. 1-3).

    Parameters
    ----------
    rs : benchkit.ResponseSet
        T repeated responses per (model, item).
    axis : ModelAxis, sequence of model ids, "accuracy" or "size", optional
        The ordered probe models (see :func:`benchkit.boundary.steps.model_axis`); default: the
        empirical accuracy ordering of all models (App. F).
    states : {"auto", "answers", "binary"}
        "answers" uses the answer states (needs an ``answer`` column), "binary" the two states
        {correct, incorrect}; "auto" picks "answers" when the set has them.

    Returns
    -------
    Trajectories
        Only items observed with exactly T responses for every axis model are kept (``items``);
        the axis models must share one budget T.

    Notes
    -----
    A state is an (answer, correctness) pair: an answer string judged correct in one response and
    incorrect in another (a scoring rule that depends on more than the reduced answer) counts as
    two states, so the reduction map preserves correctness judgments as Sec. 3.1 requires; a
    :class:`~benchkit.BenchkitWarning` reports how often that happens.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.1, Eq. (1)-(3); App. E (state reduction).

    Examples
    --------
    >>> from benchkit import simulate
    >>> from benchkit.boundary.steps import trajectories
    >>> tr = trajectories(simulate.load_sample("ladder"))
    >>> tr.entropy_source, tr.c.shape
    ('answers', (300, 6))
    >>> tr.distribution("q0000").round(1)      # p_{i,q} of Eq. 1: states x models
    model        correct  sim-0.6b  sim-1.7b  sim-4b  sim-8b  sim-14b  sim-32b
    state
    D              False       0.5       0.2     0.2     0.6      0.2      0.0
    A              False       0.2       0.5     0.4     0.0      0.0      0.0
    <no answer>    False       0.3       0.1     0.1     0.1      0.0      0.0
    C               True       0.0       0.2     0.3     0.3      0.8      1.0
    """
    states = check_choice("states", states, ("auto", "answers", "binary"))
    ax = model_axis(rs, axis=axis)
    models = pd.Index(list(ax.models), name="model")
    T, items = _common_budget_items(rs, models)
    if states == "auto":
        states = "answers" if rs.has_answers else "binary"
    if states == "answers":
        if not rs.has_answers:
            raise BenchkitValueError(
                "states='answers' needs answer states, but this ResponseSet has no 'answer' column; "
                "use states='binary'"
            )
        sc, ok, labels, dup = _answer_states(rs, models, items, T)
        if dup:
            warnings.warn(
                f"{dup} answer state(s) were judged both correct and incorrect; each judgment is "
                "treated as its own state", BenchkitWarning, stacklevel=2,
            )
        return state_trajectories(sc, ok, T, items=items, models=models, state_labels=labels,
                                  entropy_source="answers")
    cm = rs.counts()
    ii = cm.items.get_indexer(items)
    mi = cm.models.get_indexer(models)
    sc, ok = binary_state_counts(cm.K[np.ix_(ii, mi)], T)
    return state_trajectories(sc, ok, T, items=items, models=models, entropy_source="binary")


def _common_budget_items(rs, models: pd.Index) -> tuple[int, pd.Index]:
    """The axis models' common budget T and the items observed with T responses for all of them."""
    cm = rs.counts()
    mi = cm.models.get_indexer(models)
    if np.ndim(cm.T):
        budgets = np.asarray(cm.T)[mi]
        if np.unique(budgets).size > 1:
            desc = ", ".join(f"{m!r}: {b}" for m, b in zip(models[:8], budgets[:8]))
            raise BenchkitValueError(
                "the axis models must share one response budget T (Sec. 3.1); budgets are "
                f"{desc}; choose models with equal budgets"
            )
        T = int(budgets[0])
    else:
        T = int(cm.T)
    full = np.all(cm.N[:, mi] == T, axis=1)
    if not full.any():
        raise BenchkitValueError(
            f"no item has T={T} responses for every axis model ({', '.join(map(repr, models[:6]))})"
        )
    return T, cm.items[full]


def diagnose(rs, *, axes=None, by: str | None = "benchmark", states: str = "auto",
             alpha_o: float = 0.05, calibration="auto", bins: int = 10) -> Diagnosis:
    """Profiles and benchmark-level summaries for every benchmark x axis (Sec. 4.2, Table 1).

    The benchmark-level diagnosis of Sec. 3.3: each benchmark is profiled along each model axis
    (ordered separately per benchmark, App. F) and summarized by the distributions of x, w and v,
    the share of flat fits and the order-anomaly rate (Table 1).

    Parameters
    ----------
    rs : benchkit.ResponseSet
        One or several benchmarks (split by ``by``).
    axes : dict name -> axis spec, optional
        Axis specifications as accepted by :func:`benchkit.boundary.steps.model_axis` (e.g.
        ``{"codellama": {"models": [...], "order": "accuracy"}, "size": "size"}``); default one
        empirical axis over all models, named "accuracy". A spec that orders empirically is
        re-estimated on each benchmark (App. F: ordering determined separately per benchmark).
    by : str or None, default "benchmark"
        Items column splitting the set into benchmarks; None (or an absent column) treats the set
        as one benchmark named ``rs.name``.
    states : {"auto", "answers", "binary"}, default "auto"
        Entropy states (:func:`profile`).
    alpha_o : float, default 0.05
        Screening level of the order-consistency score (the paper's).
    calibration : "auto", "exact" or CalibrationTable, default "auto"
        Order-score calibration (:func:`benchkit.boundary.steps.profiles`).
    bins : int, default 10
        Histogram bins on [0, 1] for x, w and v.

    Returns
    -------
    Diagnosis
        ``table1()``: order-anomaly rates (%) per benchmark x axis; ``to_frame()``: every summary.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.3, Sec. 4.2, Table 1, Figures 3-5.

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> d = boundary.diagnose(simulate.load_sample("ladder"), axes={"accuracy": None, "size": "size"})
    >>> d.table1().round(2)
               accuracy  size
    benchmark
    sim            5.33  5.33
    """
    check_response_set("rs", rs)
    if axes is None:
        axes = {"accuracy": None}
    if not isinstance(axes, dict):
        raise BenchkitTypeError(f"axes must be a dict name -> axis spec; got {describe(axes)}")
    if by is not None and by in rs.items.columns:
        names = list(dict.fromkeys(rs.items[by].dropna().tolist()))
        parts = [(b, rs.select(items=rs.item_ids[(rs.items[by] == b).to_numpy()])) for b in names]
    else:
        parts = [(rs.name, rs)]
    results = {}
    for bname, sub in parts:
        for aname, spec in axes.items():
            results[(bname, aname)] = profile(
                sub, axis=spec, states=states, alpha_o=alpha_o, calibration=calibration,
                by=None,
            )
    return tabulate_profiles(results, bins=bins)


def estimate_reliability(rs, model: str, *, block_sizes="auto", t="auto",
                         n_resamples: int = 10_000, n_permutations: int = 10_000,
                         confidence_level: float = 0.95, rng=42,
                         n_jobs: int | None = None) -> ReliabilityResult:
    """Split-half reliability of one model's repeated responses on a ResponseSet (App. G).

    :func:`~benchkit.boundary.steps.split_half_reliability` on the answer states of ``model``: are
    its repeated responses to an item more alike than its responses to different items?

    Parameters
    ----------
    rs : benchkit.ResponseSet
        Responses with answer states (an ``answer`` column).
    model : str
        The model whose responses are split (the paper uses Qwen3-8B's 50 responses per item).
    block_sizes : "auto" or sequence of int, default "auto"
        Block sizes t; "auto" keeps the paper's (5, 10, 15, 20, 25) that fit (2 t <= R), or
        1..R//2 when none do.
    t : "auto" or int, default "auto"
        Block size of the role contrast; "auto" is 20 if available, else the largest block size.
    n_resamples : int, default 10,000
        Bootstrap replicates (the paper's).
    n_permutations : int, default 10,000
        Permutations (the paper's).
    confidence_level : float, default 0.95
        Of the bootstrap interval of G_t.
    rng : None, int, SeedSequence or Generator, default 42
        Root of the randomness (the paper's seed 42); kept as ``rng_entropy``.
    n_jobs : int, optional
        joblib workers (results do not depend on it).

    Returns
    -------
    ReliabilityResult
        Tables 7-8 quantities for this benchmark and model.

    Notes
    -----
    Roles: correct; incorrect with an extracted answer; invalid (answer ``benchkit.NO_ANSWER``).
    Items with fewer than R responses (R = the most common count) are left out.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. G, Eq. (20)-(22), Tables 7-8.

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> rs = simulate.load_sample("ladder")       # T = 10: two blocks of 5 responses
    >>> r = boundary.estimate_reliability(rs, "sim-8b", n_resamples=200, n_permutations=200, rng=1)
    >>> r.block_sizes, r.t, round(r.G, 4), round(r.p_perm, 4)
    ((5,), 5, 0.1401, 0.005)
    """
    n_jobs = check_n_jobs(n_jobs)
    check_response_set("rs", rs)
    from benchkit.response_set import NO_ANSWER

    if not rs.has_answers:
        raise BenchkitValueError("estimate_reliability needs answer states (an 'answer' column)")
    if model not in rs.model_ids:
        raise BenchkitValueError(f"model={model!r} is not in the ResponseSet; known: "
                                 f"{describe(list(rs.model_ids[:8]))}")
    long = rs.select(models=[model]).to_long()
    long = long.sort_values(["item", "sample"], kind="stable")
    n_per = long.groupby("item", sort=False).size()
    R = int(n_per.mode().iloc[0])
    keep = n_per.index[n_per == R]
    long = long[long["item"].isin(keep)]
    items = pd.Index(pd.unique(long["item"]), name="item")
    codes = long.groupby("item", sort=False)["answer"].transform(lambda s: pd.factorize(s)[0])
    st = codes.to_numpy(dtype=np.int64).reshape(len(items), R)
    corr = long["correct"].to_numpy(dtype=np.float64).reshape(len(items), R)
    inval = (long["answer"].to_numpy(dtype=object) == NO_ANSWER).reshape(len(items), R)
    roles = np.where(corr >= 1.0, 0, np.where(inval, 2, 1))
    half = R // 2
    if isinstance(block_sizes, str) and block_sizes == "auto":
        block_sizes = tuple(b for b in PAPER_BLOCK_SIZES if b <= half) or tuple(range(1, half + 1))
    if isinstance(t, str) and t == "auto":
        t = 20 if 20 in tuple(block_sizes) else max(block_sizes)
    return split_half_reliability(st, roles, block_sizes=block_sizes, t=t, n_resamples=n_resamples,
                                  n_permutations=n_permutations, confidence_level=confidence_level,
                                  rng=rng, n_jobs=n_jobs,
                                  items=items, name=rs.name)


def answers_from_generations(responses, *, items=None, task: str,
                             generation_column: str = "generation",
                             reference_column: str | None = None, choices="ABCD",
                             match: str = "substring") -> pd.DataFrame:
    """Reduce a long frame of raw generations to answer states (App. E).

    The result is ready for :meth:`benchkit.ResponseSet.from_long`.

    Parameters
    ----------
    responses : DataFrame
        One row per (model, item[, sample]) with the raw text in column ``generation_column``.
    items : DataFrame, optional
        Item metadata (an ``item`` column or index) holding the references in column
        ``reference_column`` (default ``"answer_key"``) when ``responses`` does not have that column.
    task : {"mcq", "math", "qa"}
        The reducer g_q (:func:`benchkit.boundary.steps.reduce_generation`).
    generation_column : str, default "generation"
        Column of ``responses`` holding the raw model output.
    reference_column : str, optional
        Column with the reference per row (a letter, a math answer or a list of QA aliases);
        default ``"answer_key"``, looked up in ``responses`` first, then in ``items``. Without any,
        only ``answer`` is added.
    choices : str or int, default "ABCD"
        Option letters for ``task="mcq"`` (:func:`benchkit.boundary.steps.reduce_generations`).
    match : {"substring", "exact"}, default "substring"
        QA matching rule (:func:`benchkit.boundary.steps.reduce_generations`).

    Returns
    -------
    DataFrame
        A copy of ``responses`` with ``answer`` (the state; ``NO_ANSWER`` when nothing could be
        extracted) and, with references, ``correct`` (0/1; replaced if present).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. E (task-specific state reduction and evaluation).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.boundary.steps import answers_from_generations
    >>> df = pd.DataFrame({"model": ["a", "a", "b"], "item": ["q1", "q2", "q1"],
    ...                    "generation": ["The answer is (B).", "I think C", '{"answer": "B"}'],
    ...                    "answer_key": ["B", "D", "B"]})
    >>> answers_from_generations(df, task="mcq")[["answer", "correct"]]
      answer  correct
    0      B        1
    1      C        0
    2      B        1
    """
    from benchkit._validation import check_columns
    from benchkit.boundary._reducers import reduce_generations

    if not isinstance(responses, pd.DataFrame):
        raise BenchkitTypeError(f"responses must be a pandas DataFrame; got {type(responses).__name__}")
    check_columns("responses", responses.columns, required=[generation_column])
    col = "answer_key" if reference_column is None else reference_column
    refs = None
    if col in responses.columns:
        refs = responses[col].tolist()
    elif items is not None:
        it = items if "item" not in items.columns else items.set_index("item")
        if col not in it.columns:
            raise BenchkitValueError(f"items has no reference column {col!r}; columns: {list(it.columns)}")
        if "item" not in responses.columns:
            raise BenchkitValueError("responses needs an 'item' column to look references up in items")
        lookup = it[col]
        missing = ~responses["item"].isin(lookup.index)
        if missing.any():
            bad = responses["item"][missing].iloc[0]
            raise BenchkitValueError(f"item {bad!r} of responses has no row in items")
        refs = lookup.loc[responses["item"]].tolist()
    elif reference_column is not None:
        raise BenchkitValueError(f"reference_column={reference_column!r} is neither in responses nor items")
    red = reduce_generations(responses[generation_column].tolist(), references=refs, task=task,
                             choices=choices, match=match)
    out = responses.copy()
    out["answer"] = red.answer
    if red.correct is not None:
        out["correct"] = red.correct.astype(np.int64)
    return out
