"""BSDProbe on a ResponseSet: axis, trajectories and profiles in one call (Sec. 3, App. F)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitValueError, describe
from benchkit.boundary.axis import ModelAxis, model_axis
from benchkit.boundary.profiles import ProfileResult, profiles
from benchkit.boundary.trajectories import Trajectories, trajectories

__all__ = ["ResponseProfiles", "profile_responses", "profile_trajectories"]


@dataclass(frozen=True)
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

    profile: ProfileResult = field(repr=False)
    trajectories: Trajectories = field(repr=False)
    axis: ModelAxis
    items: pd.DataFrame = field(repr=False)
    n_dropped: int = 0
    name: str | None = None

    @property
    def n_items(self) -> int:
        return int(self.profile.counts.shape[0])

    @property
    def T(self) -> int:
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

    def item_frame(self, item) -> pd.DataFrame:
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
        """Benchmark-level summary (:func:`benchkit.boundary.summarize`, Sec. 3.3)."""
        from benchkit.boundary.summary import summarize

        return summarize(self, bins=bins)

    def answers(self, item) -> pd.DataFrame:
        """The item's answer-state distributions p_{i,q} (Eq. 1): states x models."""
        return self.trajectories.distribution(item)


def profile_trajectories(traj: Trajectories, *, alpha_o: float = 0.05, calibration="auto",
                         groups=None) -> ProfileResult:
    """:func:`profiles` on a :class:`Trajectories` (counts, T and entropies taken from it)."""
    return profiles(traj.counts, traj.T, entropy=traj.entropy, alpha_o=alpha_o,
                    calibration=calibration, items=np.asarray(traj.items, dtype=object),
                    groups=groups)


def profile_responses(rs, *, axis=None, states: str = "auto", alpha_o: float = 0.05,
                      calibration="auto", group_by: str | None = "benchmark") -> ResponseProfiles:
    """BSDProbe profiles of a ResponseSet's items along a model axis (Sec. 3.1-3.2, App. A-F).

    Parameters
    ----------
    rs : benchkit.ResponseSet
    axis : None, "accuracy", "size", sequence of model ids, dict or ModelAxis
        The probe models and their order (:func:`benchkit.boundary.model_axis`); default the
        empirical principal-answer accuracy order of all models (App. F).
    states : {"auto", "answers", "binary"}
        Entropy states (see :func:`benchkit.boundary.trajectories`): with correctness only, e is
        computed on {correct, incorrect} and ``trajectories.entropy_source`` says "binary".
    alpha_o : float, default 0.05
        Screening level of the order-consistency score.
    calibration : "auto", "exact" or CalibrationTable
        See :func:`benchkit.boundary.profiles`; matched to (n, T) of the axis.
    group_by : str or None, default "benchmark"
        Items column whose values are the benchmarks B of App. B (Delta = 0 positioning uses
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
    ax = model_axis(rs, axis)
    traj = trajectories(rs, ax, states=states)
    meta = rs.items.loc[traj.items]
    groups = None
    if group_by is not None and group_by in meta.columns:
        g = meta[group_by].astype(object).where(meta[group_by].notna(), None).to_numpy(dtype=object)
        if len(set(g.tolist())) > 1:
            groups = g
    elif group_by is not None and group_by != "benchmark":
        raise BenchkitValueError(
            f"group_by={describe(group_by)} is not an items column; columns are "
            f"{describe(list(meta.columns))}"
        )
    prof = profile_trajectories(traj, alpha_o=alpha_o, calibration=calibration, groups=groups)
    return ResponseProfiles(profile=prof, trajectories=traj, axis=ax, items=meta,
                            n_dropped=int(rs.n_items - traj.n_items), name=rs.name)
