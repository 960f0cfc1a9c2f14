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

    Attributes
    ----------
    profile : ProfileResult
        The item profiles (x, w, v, o, flags, fits, ...), rows in ``items`` order.
    trajectories : Trajectories
        C_q and E_q and the answer-state counts they come from.
    axis : ModelAxis
    items : pandas.DataFrame
        Item metadata of the profiled items (benchmark, source, text, answer key, labels, ...).
    n_dropped : int
        Items left out because some axis model lacks T responses on them.
    name : str, optional
        Name of the ResponseSet (e.g. the benchmark).
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
    """:func:`profiles` on a :class:`Trajectories` (counts, T and entropies taken from it)."""
    return profiles(traj.counts, traj.T, entropy=traj.entropy, alpha_o=alpha_o,
                    calibration=calibration, items=np.asarray(traj.items, dtype=object),
                    by=by, models=[str(m) for m in traj.models])


def profile(rs, *, axis=None, states: str = "auto", alpha_o: float = 0.05,
            calibration="auto", by: str | None = "benchmark") -> ResponseProfiles:
    """BSDProbe profiles of a ResponseSet's items along a model axis (Sec. 3.1-3.2, App. A-F).

    Parameters
    ----------
    rs : benchkit.ResponseSet
    axis : None, "accuracy", "size", sequence of model ids, dict or ModelAxis
        The probe models and their order (:func:`benchkit.boundary.steps.model_axis`); default the
        empirical principal-answer accuracy order of all models (App. F).
    states : {"auto", "answers", "binary"}
        Entropy states (see :func:`benchkit.boundary.steps.trajectories`): with correctness only, e is
        computed on {correct, incorrect} and ``trajectories.entropy_source`` says "binary".
    alpha_o : float, default 0.05
        Screening level of the order-consistency score.
    calibration : "auto", "exact" or CalibrationTable
        See :func:`benchkit.boundary.steps.profiles`; matched to (n, T) of the axis.
    by : str or None, default "benchmark"
        The split: the items column whose values are the benchmarks B of App. B (Delta = 0 positioning uses
        reference items of the same benchmark); ignored when the column is absent.

    Returns
    -------
    ResponseProfiles

    Notes
    -----
    Items without T responses for every axis model are left out and counted in ``n_dropped``.
    The ordering of App. F is estimated per call: to follow the paper's per-benchmark axes, call
    this once per benchmark (``rs.select(benchmark=...)``) or use
    :func:`benchkit.boundary.diagnose`.
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

    Parameters
    ----------
    rs : benchkit.ResponseSet
    axes : dict name -> axis spec, optional
        Axis specifications as accepted by :func:`benchkit.boundary.steps.model_axis` (e.g.
        ``{"codellama": {"models": [...], "order": "accuracy"}, "size": "size"}``); default one
        empirical axis over all models, named "accuracy". A spec that orders empirically is
        re-estimated on each benchmark (App. F: ordering determined separately per benchmark).
    by : str or None, default "benchmark"
        Items column splitting the set into benchmarks; None (or an absent column) treats the set
        as one benchmark named ``rs.name``.

    Returns
    -------
    Diagnosis
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
    """:func:`split_half_reliability` on one model of a ResponseSet with answer states.

    Roles: correct; incorrect with an extracted answer; invalid (answer ``benchkit.NO_ANSWER``).
    Items with fewer than R responses (R = the most common count) are left out. ``block_sizes=
    "auto"`` keeps the paper's (5, 10, 15, 20, 25) that fit (2 t <= R), or 1..R//2 when none do;
    ``t="auto"`` is 20 if available, else the largest block size.
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
    reference_column : str, optional
        Column with the reference per row (a letter, a math answer or a list of QA aliases);
        default ``"answer_key"``, looked up in ``responses`` first, then in ``items``. Without any,
        only ``answer`` is added.
    choices, match
        As in :func:`benchkit.boundary.steps.reduce_generations`.

    Returns
    -------
    DataFrame
        A copy of ``responses`` with ``answer`` (the state; ``NO_ANSWER`` when nothing could be
        extracted) and, with references, ``correct`` (0/1; replaced if present).
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
