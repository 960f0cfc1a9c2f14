"""Sensitivity of BSDProbe profiles to the response budget and the model axis (App. H).

* :func:`budget_sensitivity` -- App. H.1: nested response subsets T' < T, repeated permutations,
  order-review agreement and x / w MAE, calibration matched to (n, T') (Table 9).
* :func:`subaxis_sensitivity` -- App. H.2: endpoint-preserving sub-axes, crossings mapped to the
  original coordinates (Table 10).

The repeated permutations flow from one ``rng`` (:mod:`benchkit._random`) through
:func:`benchkit._parallel.blocked_map`, so results do not depend on ``n_jobs`` or the joblib backend.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from benchkit._parallel import blocked_map
from benchkit._parallel import check_n_jobs
from benchkit._random import seed_sequence
from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_int
from benchkit._validation import check_probability
from benchkit._validation import describe

__all__ = ["BudgetSensitivityResult", "budget_sensitivity", "SubaxisSensitivityResult",
           "subaxis_sensitivity"]


def _trajectories_of(result):
    # a ResponseProfiles (benchkit.boundary.responses) is recognised by its trajectories, profile
    # and axis, so this module does not import the ResponseSet layer (no import cycle)
    from benchkit.boundary._trajectories import Trajectories

    if isinstance(result, Trajectories):
        return result, None, None
    if isinstance(getattr(result, "trajectories", None), Trajectories) and hasattr(result, "axis"):
        return result.trajectories, result.profile, result.axis
    raise BenchkitTypeError(
        f"result must be a ResponseProfiles or Trajectories; got {describe(result)}"
    )


def _compare(ref, new, x_new=None, w_new=None):
    """Agreement of flags and x / w MAE over items with Delta > 0 in both conditions."""
    x_new = new.x if x_new is None else x_new
    w_new = new.w if w_new is None else w_new
    both = ~ref.flat & ~new.flat
    agree = float(np.mean(ref.flagged == new.flagged))
    if both.any():
        return agree, float(np.mean(np.abs(x_new[both] - ref.x[both]))), \
            float(np.mean(np.abs(w_new[both] - ref.w[both]))), int(both.sum())
    return agree, np.nan, np.nan, 0


def _calibration_for(calibration, n, T):
    if isinstance(calibration, str):
        return calibration
    if isinstance(calibration, dict):
        if (n, T) not in calibration:
            raise BenchkitValueError(f"calibration has no table for (n, T) = ({n}, {T})")
        return calibration[(n, T)]
    raise BenchkitTypeError(
        f"calibration must be 'auto', 'exact' or a dict (n, T) -> CalibrationTable; got "
        f"{describe(calibration)}"
    )


@result
class BudgetSensitivityResult:
    """Response-budget sensitivity of the profiles (App. H.1, Table 9).

    How many of the screening decisions and how much of the boundary positions and widths survive
    when each model answers only T' < T times? Agreement near 100% and small MAEs mean the smaller
    budget would have told the same story.

    Parameters
    ----------
    T, budgets, n_rep, runs, rng_entropy
        The fields below (see Attributes); built by
        :func:`~benchkit.boundary.steps.budget_sensitivity`.

    Attributes
    ----------
    T : int
        The reference budget (responses per cell of the full data).
    budgets : tuple of int
        The reduced budgets T' compared (the paper's 5, 10, 15).
    n_rep : int
        Repetitions per budget (the paper's 100).
    runs : DataFrame
        One row per (repetition, budget): ``rep, budget, agreement`` (share of all items with the
        same flag o <= alpha_o as the reference, in [0, 1]), ``x_mae, w_mae`` (mean absolute change
        of x and w over the items with Delta > 0 in both conditions) and ``n_compared`` (those
        items). :meth:`to_frame` averages them per budget (Table 9).
    rng_entropy : int or sequence of int
        Entropy of the root SeedSequence of the permutations: ``rng=result.rng_entropy`` repeats
        the run exactly.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. H.1, Table 9.

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> from benchkit.boundary.steps import budget_sensitivity
    >>> res = boundary.profile(simulate.load_sample("ladder"))
    >>> b = budget_sensitivity(res, budgets=(5,), n_rep=3, rng=1)
    >>> b.to_frame()[["agreement_pct", "x_mae", "w_mae"]].round(3)
            agreement_pct  x_mae  w_mae
    budget
    5              97.778  0.081  0.102
    """

    T: int
    budgets: tuple
    n_rep: int
    runs: pd.DataFrame
    rng_entropy: Any

    def to_frame(self) -> pd.DataFrame:
        """Table 9 layout: per budget, mean agreement (%) and x / w MAE over repetitions."""
        g = self.runs.groupby("budget", sort=True)
        out = pd.DataFrame({
            "agreement_pct": 100.0 * g["agreement"].mean(),
            "x_mae": g["x_mae"].mean(), "w_mae": g["w_mae"].mean(),
            "agreement_sd": 100.0 * g["agreement"].std(ddof=1),
            "n_rep": g.size(),
        })
        return out


def _expand_states(sc: np.ndarray, T: int) -> np.ndarray:
    """Per-response state codes (items, n, T) from state counts (items, n, S); order arbitrary."""
    cum = np.cumsum(sc, axis=2)
    t = np.arange(T)
    return (t[None, None, :, None] >= cum[:, :, None, :]).sum(axis=3).astype(np.int32)


def _budget_rep(ss, seq, S, state_correct, budgets, ref, items, alpha_o, calibration, source):
    from benchkit.boundary._profiles import profiles
    from benchkit.boundary._trajectories import state_trajectories

    rng = np.random.default_rng(ss)
    m, n, T = seq.shape
    perm = np.argsort(rng.random(seq.shape), axis=2)
    sh = np.take_along_axis(seq, perm, axis=2)
    base = (np.arange(m)[:, None] * n + np.arange(n)[None, :])[:, :, None] * S
    out = []
    for b in budgets:
        flat_idx = (base + sh[:, :, :b]).ravel()
        sc = np.bincount(flat_idx, minlength=m * n * S).reshape(m, n, S)
        tr = state_trajectories(sc, state_correct, b, items=items, entropy_source=source)
        if source == "binary":
            prof = profiles(tr.counts, b, alpha_o=alpha_o,
                            calibration=_calibration_for(calibration, n, b))
        else:
            prof = profiles(tr.counts, b, entropy=tr.entropy, alpha_o=alpha_o,
                            calibration=_calibration_for(calibration, n, b))
        out.append((b,) + _compare(ref, prof))
    return out


def _budget_block(ss, start, stop, *args):
    return _budget_rep(ss, *args)


def budget_sensitivity(result, *, budgets=(5, 10, 15), n_rep: int = 100, rng=42,
                       alpha_o: float | None = None, calibration="auto",
                       n_jobs: int | None = None) -> BudgetSensitivityResult:
    """Response-budget sensitivity of the profiles (App. H.1, Table 9).

    Parameters
    ----------
    result : ResponseProfiles or Trajectories
        The reference condition (its T responses per cell). With a Trajectories the reference
        profile is computed here with ``calibration``.
    budgets : sequence of int, default (5, 10, 15)
        Nested budgets T' < T (the paper's, for T = 20).
    n_rep : int, default 100
        Repetitions (the paper's 100); each permutes the T responses independently within every
        (model, item) cell and takes the first T' as nested subsets.
    rng : None, int, SeedSequence or Generator, default 42
        Root of the permutations (:mod:`benchkit._random`, a Generator is consumed; the paper's
        seed 42); repetition r draws from child r. The root's entropy is kept as ``rng_entropy``.
    alpha_o : float, optional
        Screening level (default: the reference profile's, else 0.05).
    calibration : "auto", "exact" or dict (n, T') -> CalibrationTable
        Order-score calibration matched to (n, T') in every condition.
    n_jobs : int, optional
        joblib workers over repetitions (results do not depend on it).

    Returns
    -------
    BudgetSensitivityResult
        One row per (repetition, budget); :meth:`BudgetSensitivityResult.to_frame` is Table 9.

    Notes
    -----
    Entropies are recomputed on each subset from its answer states, with M_q counted on the
    subset. Agreement is the share of all items with the same screening decision (o <= alpha_o)
    as the reference; x and w MAE use items with Delta > 0 in both conditions.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. H.1, Table 9.

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> from benchkit.boundary.steps import budget_sensitivity
    >>> res = boundary.profile(simulate.load_sample("ladder"))    # T = 10
    >>> b = budget_sensitivity(res, budgets=(5,), n_rep=3, rng=1)
    >>> b.runs[["rep", "budget", "agreement"]].round(3)
       rep  budget  agreement
    0    0       5      0.980
    1    1       5      0.973
    2    2       5      0.980
    """
    n_jobs = check_n_jobs(n_jobs)
    from benchkit.boundary._profiles import profiles

    traj, ref, _ = _trajectories_of(result)
    T = traj.T
    bs = tuple(check_int("budgets", b, min=1, max=T - 1) for b in budgets)
    if not bs:
        raise BenchkitValueError("budgets must list at least one T' < T")
    if list(bs) != sorted(set(bs)):
        raise BenchkitValueError(f"budgets must be increasing and distinct; got {describe(list(bs))}")
    n_rep = check_int("n_rep", n_rep, min=1)
    if alpha_o is None:
        alpha_o = ref.alpha_o if ref is not None else 0.05
    alpha_o = check_probability("alpha_o", alpha_o)
    if ref is None or ref.alpha_o != alpha_o:
        ref = profiles(traj.counts, T, entropy=traj.entropy, alpha_o=alpha_o,
                       calibration=_calibration_for(calibration, traj.n, T))
    seq = _expand_states(traj.state_counts, T)
    S = traj.state_counts.shape[2]
    args = (seq, S, traj.state_correct, bs, ref, traj.items, alpha_o, calibration,
            traj.entropy_source)
    root = seed_sequence(rng)
    parts = blocked_map(_budget_block, n_rep, rng=root, block_size=1, args=args, n_jobs=n_jobs)
    rows = [(r,) + row for r, part in enumerate(parts) for row in part]
    runs = pd.DataFrame(rows, columns=["rep", "budget", "agreement", "x_mae", "w_mae", "n_compared"])
    return BudgetSensitivityResult(T=T, budgets=bs, n_rep=n_rep, runs=runs, rng_entropy=root.entropy)


@result
class SubaxisSensitivityResult:
    """Endpoint-preserving model reduction (App. H.2, Table 10).

    Does dropping intermediate probe models (keeping the weakest and the strongest) change the
    screening decisions and the transitions? Sub-axis boundary positions are mapped back to the
    full axis' coordinates before they are compared.

    Parameters
    ----------
    n, T, runs, mapped
        The fields below (see Attributes); built by
        :func:`~benchkit.boundary.steps.subaxis_sensitivity`.

    Attributes
    ----------
    n : int
        Models on the full axis.
    T : int
        Responses per model and item.
    runs : DataFrame
        One row per sub-axis: ``n_models``, ``models`` (the retained models joined by " > "),
        ``agreement`` (share of items with the same flag as on the full axis, in [0, 1]),
        ``x_mae``, ``w_mae`` (mean absolute error of the mapped x and w over items with Delta > 0
        in both conditions) and ``n_compared``. :meth:`to_frame` summarizes per sub-axis size
        (Table 10).
    mapped : dict
        ``mapped[models]`` (a tuple of the retained models) is a DataFrame of every item's mapped
        ``x``, ``w`` and its ``flagged`` decision on that sub-axis.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. H.2, Table 10.

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> from benchkit.boundary.steps import subaxis_sensitivity
    >>> res = boundary.profile(simulate.load_sample("ladder"))
    >>> s = subaxis_sensitivity(res, sizes=(5,))
    >>> s.to_frame()[["agreement_min_pct", "agreement_max_pct", "x_mae", "n_subaxes"]].round(3)
              agreement_min_pct  agreement_max_pct  x_mae  n_subaxes
    n_models
    5                    98.333               99.0  0.039          4
    """

    n: int
    T: int
    runs: pd.DataFrame
    mapped: dict

    def to_frame(self) -> pd.DataFrame:
        """Table 10 layout: per sub-axis size, agreement range (%) and mean x / w MAE."""
        g = self.runs.groupby("n_models", sort=True)
        return pd.DataFrame({
            "agreement_min_pct": 100.0 * g["agreement"].min(),
            "agreement_max_pct": 100.0 * g["agreement"].max(),
            "x_mae": g["x_mae"].mean(), "w_mae": g["w_mae"].mean(), "n_subaxes": g.size(),
        })


def subaxis_sensitivity(result, *, sizes=(3, 4, 5), alpha_o: float | None = None,
                        calibration="auto", axis=None) -> SubaxisSensitivityResult:
    """Sensitivity to endpoint-preserving model reduction (App. H.2, Table 10).

    Parameters
    ----------
    result : ResponseProfiles or Trajectories
        The reference (full-axis) condition.
    sizes : sequence of int, default (3, 4, 5)
        Sub-axis model counts (the paper's); all subsets of the intermediate models are enumerated
        (for n = 6: 4, 6 and 4 sub-axes).
    alpha_o : float, optional
        Screening level (default: the reference profile's, else 0.05).
    calibration : "auto", "exact" or dict (n', T) -> CalibrationTable
        Matched to each sub-axis' model count.
    axis : ModelAxis, optional
        Needed only with a Trajectories input (default: positions (i-1)/(n-1) of its models).

    Returns
    -------
    SubaxisSensitivityResult
        ``mapped[models]`` holds the mapped x and w of every item on that sub-axis.

    Notes
    -----
    Sub-axis crossings Q_0.25, Q_0.5, Q_0.75 (on the sub-axis' own coordinates (j-1)/(n'-1)) are
    mapped piecewise linearly to the original coordinates, where retained model i sits at
    (i-1)/(n-1); x error uses the mapped Q_0.5 and w error the difference of the mapped Q_0.75
    and Q_0.25. Entropies are recomputed with M_q over the retained models.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. H.2, Table 10.

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> from benchkit.boundary.steps import subaxis_sensitivity
    >>> res = boundary.profile(simulate.load_sample("ladder"))
    >>> s = subaxis_sensitivity(res, sizes=(3, 4))
    >>> s.runs.groupby("n_models").size().tolist()       # 4 + 6 sub-axes of a 6-model axis
    [4, 6]
    """
    from benchkit.boundary._axis import ModelAxis
    from benchkit.boundary._axis import explicit_axis
    from benchkit.boundary._axis import subaxes
    from benchkit.boundary._profiles import profiles

    traj, ref, ax = _trajectories_of(result)
    if ax is None:
        ax = axis if isinstance(axis, ModelAxis) else explicit_axis([str(m) for m in traj.models])
    n, T = traj.n, traj.T
    if alpha_o is None:
        alpha_o = ref.alpha_o if ref is not None else 0.05
    alpha_o = check_probability("alpha_o", alpha_o)
    if ref is None or ref.alpha_o != alpha_o:
        ref = profiles(traj.counts, T, entropy=traj.entropy, alpha_o=alpha_o,
                       calibration=_calibration_for(calibration, n, T))
    rows, mapped = [], {}
    for sub in subaxes(ax, sizes=sizes):
        pos = [ax.models.index(mm) for mm in sub.models]
        tr = traj.select_models(pos)
        prof = profiles(tr.counts, T, entropy=tr.entropy, alpha_o=alpha_o,
                        calibration=_calibration_for(calibration, sub.n, T))
        xm = np.where(prof.flat, np.nan, sub.map_positions(prof.q50))
        wm = np.where(prof.flat, np.nan, sub.map_positions(prof.q75) - sub.map_positions(prof.q25))
        agree, xe, we, nc = _compare(ref, prof, xm, wm)
        rows.append((sub.n, " > ".join(sub.models), agree, xe, we, nc))
        mapped[sub.models] = pd.DataFrame({"x": xm, "w": wm, "flagged": prof.flagged},
                                          index=traj.items)
    runs = pd.DataFrame(rows, columns=["n_models", "models", "agreement", "x_mae", "w_mae",
                                       "n_compared"])
    return SubaxisSensitivityResult(n=n, T=T, runs=runs, mapped=mapped)
