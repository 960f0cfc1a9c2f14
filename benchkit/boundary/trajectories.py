"""Correctness and normalized-entropy trajectories along an ordered model axis (BSDProbe Sec. 3.1).

From the answer states of T repeated responses per (model, item), Eq. 1 gives the empirical
state distribution p_{i,q}, Eq. 2 its entropy normalized by log M_q (M_q = number of states seen
across all probe models of the axis for item q) and Eq. 3 the correctness mass c_{i,q}.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from benchkit._validation import (
    BenchkitValueError,
    BenchkitWarning,
    check_array,
    check_int,
)

__all__ = ["Trajectories", "state_trajectories", "binary_state_counts", "trajectories"]


@dataclass(frozen=True)
class Trajectories:
    """Trajectories C_q and E_q of items along an ordered model axis (Sec. 3.1).

    Attributes
    ----------
    state_counts : ndarray (items, n, S) int64
        Responses of model i (axis order, weakest first) on item q in state s. States are numbered
        per item; unused slots have zero counts.
    state_correct : ndarray (items, S) bool
        Whether state s of item q is judged correct (the set Omega*_q of Eq. 3).
    T : int
        Responses per (model, item).
    counts : ndarray (items, n) int64
        Correct responses k_{i,q} (sum of the correct states' counts).
    c : ndarray (items, n)
        Correctness mass c_{i,q} = k_{i,q} / T (Eq. 3).
    entropy : ndarray (items, n)
        Normalized entropy e_{i,q} (Eq. 2), 0 where M_q = 1.
    n_states : ndarray (items,) int64
        M_q: distinct states seen across the n models of the axis.
    entropy_source : {"answers", "binary"}
        "answers": e is computed on the answer states; "binary": only correctness was available
        and e is computed on the two states {correct, incorrect} (M_q <= 2).
    items, models : pandas.Index
        Item ids and the axis' model ids (weakest first).
    state_labels : tuple of tuples, optional
        Label of each state per item (e.g. the answer string), when known.
    """

    state_counts: np.ndarray = field(repr=False)
    state_correct: np.ndarray = field(repr=False)
    T: int
    counts: np.ndarray = field(repr=False)
    c: np.ndarray = field(repr=False)
    entropy: np.ndarray = field(repr=False)
    n_states: np.ndarray = field(repr=False)
    entropy_source: str
    items: pd.Index = field(repr=False)
    models: pd.Index = field(repr=False)
    state_labels: tuple | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        return int(self.counts.shape[1])

    @property
    def n_items(self) -> int:
        return int(self.counts.shape[0])

    def distribution(self, item) -> pd.DataFrame:
        """p_{i,q}(omega) (Eq. 1) of one item: rows = states seen on the axis, columns = models."""
        q = self.items.get_loc(item) if not isinstance(item, (int, np.integer)) else int(item)
        S = int(self.n_states[q])
        used = np.flatnonzero(self.state_counts[q].sum(axis=0) > 0)[:S]
        if self.state_labels is not None:
            labels = [self.state_labels[q][s] for s in used]
        elif self.entropy_source == "binary":
            labels = ["correct" if self.state_correct[q, s] else "incorrect" for s in used]
        else:
            labels = [f"state {s}" for s in used]
        p = self.state_counts[q][:, used].T / float(self.T)
        df = pd.DataFrame(p, index=pd.Index(labels, name="state"), columns=self.models)
        df.insert(0, "correct", self.state_correct[q, used])
        return df

    def select_models(self, positions) -> "Trajectories":
        """Trajectories on a sub-axis (model positions kept in the given order); M_q recomputed."""
        pos = np.asarray(positions, dtype=np.int64)
        return state_trajectories(
            self.state_counts[:, pos, :], self.state_correct, self.T, items=self.items,
            models=self.models[pos], state_labels=self.state_labels,
            entropy_source=self.entropy_source,
        )

    def to_frame(self) -> pd.DataFrame:
        """Long table: one row per (item, model) with position s_i, k, c and e."""
        m, n = self.counts.shape
        s = np.arange(n) / (n - 1) if n > 1 else np.zeros(1)
        return pd.DataFrame(
            {
                "item": np.repeat(np.asarray(self.items, dtype=object), n),
                "model": np.tile(np.asarray(self.models, dtype=object), m),
                "position": np.tile(s, m),
                "k": self.counts.ravel(),
                "c": self.c.ravel(),
                "e": self.entropy.ravel(),
                "n_states": np.repeat(self.n_states, n),
            }
        )


def _entropy(state_counts: np.ndarray, T: int) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 2 with M_q over the axis; exact x log x terms tabulated on k/T."""
    m, n, S = state_counts.shape
    M = (state_counts.sum(axis=1) > 0).sum(axis=1).astype(np.int64)
    xs = np.arange(T + 1) / float(T)
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(xs > 0, xs * np.log(np.where(xs > 0, xs, 1.0)), 0.0)
    H = 0.0 - plogp[state_counts].sum(axis=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = H / np.log(np.maximum(M, 2))[:, None]
    e[M <= 1] = 0.0
    return np.clip(e, 0.0, 1.0), M


def state_trajectories(state_counts, state_correct, T, *, items=None, models=None,
                       state_labels=None, entropy_source: str = "answers") -> Trajectories:
    """Trajectories from answer-state counts (array level, Eq. 1-3).

    Parameters
    ----------
    state_counts : array (items, n, S) of int
        Responses of each axis model (weakest first) in each answer state; each (item, model)
        cell must sum to T.
    state_correct : array (items, S) of bool
        Whether each state is judged correct.
    T : int
        Responses per (model, item).
    items, models : sequence, optional
        Labels; default 0..items-1 and 0..n-1.
    state_labels : tuple of tuples, optional
        Label of each state per item.

    Returns
    -------
    Trajectories

    Notes
    -----
    M_q counts the states with at least one response among the n models given (DESIGN.md reading
    of Sec. 3.1: states seen across all probe models), so a sub-axis recomputes M_q. When
    M_q = 1 the entropy is 0 (log M_q = 0 would make Eq. 2 undefined). c_{i,q} = k_{i,q}/T is the
    summed mass of the correct states (Eq. 3).
    """
    T = check_int("T", T, min=1)
    sc = check_array("state_counts", state_counts, ndim=3, dtype="int")
    m, n, S = sc.shape
    if sc.size and sc.min() < 0:
        raise BenchkitValueError("state_counts must be non-negative")
    tot = sc.sum(axis=2)
    if tot.size and np.any(tot != T):
        q, i = np.argwhere(tot != T)[0]
        raise BenchkitValueError(
            f"every (item, model) cell of state_counts must hold T={T} responses; item {q}, model "
            f"{i} has {tot[q, i]}"
        )
    ok = np.asarray(state_correct)
    if ok.shape != (m, S):
        raise BenchkitValueError(f"state_correct must have shape ({m}, {S}); got {ok.shape}")
    ok = ok.astype(bool)
    k = (sc * ok[:, None, :]).sum(axis=2).astype(np.int64)
    e, M = _entropy(sc, T)
    items = pd.Index(range(m) if items is None else list(items), name="item")
    models = pd.Index(range(n) if models is None else list(models), name="model")
    return Trajectories(state_counts=sc, state_correct=ok, T=T, counts=k, c=k / float(T),
                        entropy=e, n_states=M, entropy_source=entropy_source, items=items,
                        models=models, state_labels=state_labels)


def binary_state_counts(counts, T) -> tuple[np.ndarray, np.ndarray]:
    """(state_counts, state_correct) for correctness-only data: states (incorrect, correct)."""
    k = check_array("counts", counts, ndim=2, dtype="int")
    sc = np.stack([T - k, k], axis=2)
    ok = np.zeros((k.shape[0], 2), dtype=bool)
    ok[:, 1] = True
    return sc, ok


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


def trajectories(rs, axis=None, *, states: str = "auto") -> Trajectories:
    """Trajectories of a ResponseSet's items along a model axis (Sec. 3.1, Eq. 1-3).

    Parameters
    ----------
    rs : benchkit.ResponseSet
    axis : ModelAxis, sequence of model ids, "accuracy" or "size", optional
        The ordered probe models (see :func:`benchkit.boundary.model_axis`); default: the
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
    from benchkit._validation import check_choice
    from benchkit.boundary.axis import model_axis

    states = check_choice("states", states, ("auto", "answers", "binary"))
    ax = model_axis(rs, axis)
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
