"""Reliability and sensitivity of BSDProbe observations (App. G, H).

* :func:`split_half_reliability` / :func:`estimate_reliability` -- App. G: within-item answer-state
  JSD between disjoint blocks of t responses (Table 7), within- vs cross-item JSD in the shared
  outcome-role space {correct, incorrect_valid, invalid} with a paired item bootstrap CI for
  G_t = mean(cross - self) and a one-sided permutation test of the self-JSD (Table 8), Holm
  correction across benchmarks (:func:`benchkit.stats.holm`, :func:`reliability_table`).
* :func:`budget_sensitivity` -- App. H.1: nested response subsets T' < T, repeated permutations,
  order-review agreement and x / w MAE, calibration matched to (n, T') (Table 9).
* :func:`subaxis_sensitivity` -- App. H.2: endpoint-preserving sub-axes, crossings mapped to the
  original coordinates (Table 10).

All randomness flows from one ``rng`` (:mod:`benchkit._random`) in fixed-size blocks run by
:func:`benchkit._parallel.blocked_map`, so results do not depend on ``n_jobs`` or the joblib backend.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from benchkit._parallel import blocked_map
from benchkit._parallel import check_n_jobs
from benchkit._random import seed_sequence
from benchkit._random import spawn
from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_int
from benchkit._validation import check_probability
from benchkit._validation import describe
from benchkit.stats import holm
from benchkit.stats import jsd
from benchkit.stats import percentile_interval

__all__ = [
    "ReliabilityResult", "split_half_reliability", "reliability_table",
    "BudgetSensitivityResult", "budget_sensitivity", "SubaxisSensitivityResult",
    "subaxis_sensitivity",
]

PAPER_BLOCK_SIZES = (5, 10, 15, 20, 25)
_BLOCK = 500  # bootstrap / permutation replicates per independently seeded block


# ------------------------------------------------------------------------------------------
# App. G: repeated-response reliability
# ------------------------------------------------------------------------------------------
@result
class ReliabilityResult:
    """Split-half reliability of one model's repeated responses on one benchmark (App. G).

    Are BSDProbe's repeated-response observations repeatable? The responses of each item are split
    into two disjoint blocks: if the answer-state distributions of the two blocks of one item are
    closer (self-JSD) than those of different items (cross-JSD), the observations are
    item-dependent and stable (the contrast G_t > 0 with a positive interval, Table 8).

    Parameters
    ----------
    name, items, block_sizes, native_jsd, spearman_c, contrast, t, self_jsd, cross_jsd, G, ci
        The fields below (see Attributes); built by
        :func:`~benchkit.boundary.steps.split_half_reliability` or
        :func:`benchkit.boundary.estimate_reliability`.
    p_perm, n_resamples, n_permutations, confidence_level, rng_entropy
        See Attributes.

    Attributes
    ----------
    name : str or None
        The benchmark's name (row label of Tables 7-8).
    items : pandas.Index
        The items compared.
    block_sizes : tuple of int
        t values compared (first t responses of each block).
    native_jsd : ndarray (items, len(block_sizes))
        d^native_{q,t}: answer-state JSD between the blocks (Eq. 20), in [0, log 2] (natural logs);
        small = the item's answers repeat. Column means are Table 7.
    spearman_c : ndarray (len(block_sizes),)
        Split-half Spearman correlation of correctness mass across items (the paper reports at
        least 0.8466 on its six benchmarks).
    contrast : ndarray (len(block_sizes), 3)
        Mean self-JSD, mean cross-JSD and G_t in the outcome-role space at every block size.
    t : int
        Block size of the outcome-role contrast (the paper's 20).
    self_jsd : ndarray (items,)
        d^self_{q,t} (Eq. 21): role JSD between the two blocks of the same item, in [0, log 2].
    cross_jsd : ndarray (items,)
        d^cross_{q,t} (Eq. 22): mean role JSD between block A of the item and block B of every
        other item.
    G : float
        G_t = mean(cross - self): how much more different items differ than two halves of one
        item; > 0 for item-dependent responses (Table 8 reports 0.0648-0.2853).
    ci : (float, float)
        Percentile bootstrap interval of G_t at ``confidence_level`` (paired item bootstrap,
        ``n_resamples`` replicates).
    p_perm : float
        One-sided permutation p-value of the mean self-JSD:
        (1 + #{perm <= obs}) / (n_permutations + 1); small = self-JSD unusually small.
    n_resamples : int
        Bootstrap replicates (the paper's 10,000).
    n_permutations : int
        Permutations of the test (the paper's 10,000).
    confidence_level : float
        Level of ``ci`` (the paper's 0.95).
    rng_entropy : int or sequence of int
        Entropy of the root SeedSequence the partition, bootstrap and permutations drew from:
        passing ``rng=result.rng_entropy`` repeats the run exactly.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. G, Eq. (20)-(22), Tables 7-8.

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.boundary.steps import split_half_reliability
    >>> g = np.random.default_rng(0)
    >>> states = np.array([g.choice(4, size=20, p=g.dirichlet(np.ones(4))) for _ in range(30)])
    >>> roles = np.select([states == 0, states == 3], [0, 2], 1)  # 0 correct, 3 invalid
    >>> r = split_half_reliability(states, roles, block_sizes=(5, 10), t=10, n_resamples=500,
    ...                            n_permutations=500, rng=1)
    >>> round(r.G, 4), tuple(round(v, 4) for v in r.ci), r.p_perm
    (0.0998, (0.059, 0.1395), 0.001996007984031936)
    >>> split_half_reliability(states, roles, block_sizes=(5, 10), t=10, n_resamples=500,
    ...                        n_permutations=500, rng=r.rng_entropy).G == r.G
    True
    """

    name: str | None
    items: pd.Index
    block_sizes: tuple
    native_jsd: np.ndarray
    spearman_c: np.ndarray
    contrast: np.ndarray
    t: int
    self_jsd: np.ndarray
    cross_jsd: np.ndarray
    G: float
    ci: tuple
    p_perm: float
    n_resamples: int
    n_permutations: int
    confidence_level: float
    rng_entropy: Any

    @property
    def n_items(self) -> int:
        return int(self.self_jsd.size)

    def table7(self) -> pd.DataFrame:
        """Mean within-item answer-state JSD per block size (one row, Table 7 layout)."""
        return pd.DataFrame([self.native_jsd.mean(axis=0)], index=pd.Index([self.name], name="benchmark"),
                            columns=[f"t={t}" for t in self.block_sizes])

    def contrasts_frame(self) -> pd.DataFrame:
        """Within- vs cross-item role JSD and G_t by block size, with the split-half Spearman of c."""
        return pd.DataFrame({"self_jsd": self.contrast[:, 0], "cross_jsd": self.contrast[:, 1],
                             "G": self.contrast[:, 2], "spearman_c": self.spearman_c},
                            index=pd.Index(self.block_sizes, name="t"))

    def to_frame(self) -> pd.DataFrame:
        """One row (Table 8 layout): items, self-JSD, cross-JSD, G_t, CI and permutation p."""
        return pd.DataFrame([{
            "benchmark": self.name, "items": self.n_items, "t": self.t,
            "self_jsd": float(self.self_jsd.mean()), "cross_jsd": float(self.cross_jsd.mean()),
            "G": self.G, "ci_low": self.ci[0], "ci_high": self.ci[1], "p_perm": self.p_perm,
        }])

    def items_frame(self) -> pd.DataFrame:
        df = pd.DataFrame(self.native_jsd, index=self.items,
                          columns=[f"native_jsd_t{t}" for t in self.block_sizes])
        df["self_jsd"] = self.self_jsd
        df["cross_jsd"] = self.cross_jsd
        return df


def _compositions(t: int) -> np.ndarray:
    """All (a, b, c) with a + b + c = t, as rows; index = a (t+1) + b lookup table."""
    rows = [(a, b, t - a - b) for a in range(t + 1) for b in range(t + 1 - a)]
    return np.array(rows, dtype=np.int64)


def _role_types(role_counts: np.ndarray, t: int):
    """Type index of each 3-role count vector and the JSD matrix between types."""
    comp = _compositions(t)
    lut = -np.ones((t + 1, t + 1), dtype=np.int64)
    lut[comp[:, 0], comp[:, 1]] = np.arange(comp.shape[0])
    idx = lut[role_counts[:, 0], role_counts[:, 1]]
    P = comp / float(t)
    J = jsd(P[:, None, :], P[None, :, :])
    return idx, J


def _role_contrast(A, B, t, full=False):
    """Role types of blocks A, B (items, t), self-JSD (Eq. 21) and cross-JSD (Eq. 22) per item."""
    N = A.shape[0]
    UA = np.stack([(A == r).sum(axis=1) for r in range(3)], axis=1)
    UB = np.stack([(B == r).sum(axis=1) for r in range(3)], axis=1)
    ta, J = _role_types(UA, t)
    tb, _ = _role_types(UB, t)
    self_d = J[ta, tb]
    hB = np.bincount(tb, minlength=J.shape[0]).astype(np.float64)
    cross_d = ((J @ hB)[ta] - self_d) / (N - 1)
    if full:
        return ta, tb, J, self_d, cross_d
    return ta, tb, float(self_d.mean()), float(cross_d.mean()), float(np.mean(cross_d - self_d))


def _boot_block(ss, start, stop, N, ta, tb, J, self_d):
    rng = np.random.default_rng(ss)
    nrep = stop - start
    nt = J.shape[0]
    out = np.empty(nrep)
    for r in range(nrep):
        idx = rng.integers(0, N, N)
        hA = np.bincount(ta[idx], minlength=nt).astype(np.float64)
        hB = np.bincount(tb[idx], minlength=nt).astype(np.float64)
        S = float(self_d[idx].sum())
        cross_sum = (float(hA @ (J @ hB)) - S) / (N - 1)  # all ordered pairs of distinct draws
        out[r] = (cross_sum - S) / N
    return out


def _perm_block(ss, start, stop, N, ta, tb, J):
    rng = np.random.default_rng(ss)
    nrep = stop - start
    out = np.empty(nrep)
    for r in range(nrep):
        out[r] = J[ta, tb[rng.permutation(N)]].mean()
    return out


def _run_blocks(fn, ss, total, n_jobs, *args):
    parts = blocked_map(fn, total, rng=ss, block_size=_BLOCK, args=args, n_jobs=n_jobs)
    return np.concatenate(parts) if parts else np.empty(0)


def split_half_reliability(states, roles, *, block_sizes=PAPER_BLOCK_SIZES, t=20,
                           n_resamples: int = 10_000, n_permutations: int = 10_000,
                           confidence_level: float = 0.95, rng=42, n_jobs: int | None = None,
                           items=None,
                           name: str | None = None) -> ReliabilityResult:
    """Split-half reliability of repeated responses (App. G, Eq. 20-22, Tables 7-8).

    Parameters
    ----------
    states : array (items, R) of int
        Answer-state code of each of the R responses of one model (codes per item, >= 0).
    roles : array (items, R) of int
        Outcome role of each response: 0 correct, 1 incorrect but valid, 2 invalid.
    block_sizes : sequence of int, default (5, 10, 15, 20, 25)
        t values (the paper's); each needs 2 t <= R.
    t : int, default 20
        Block size of the outcome-role contrast G_t, bootstrap and permutation test (the paper's).
    n_resamples : int, default 10,000
        Bootstrap replicates (the paper's).
    n_permutations : int, default 10,000
        Permutations of the test (the paper's).
    confidence_level : float, default 0.95
        Of the percentile bootstrap interval of G_t.
    rng : None, int, SeedSequence or Generator, default 42
        Root of the randomness (:mod:`benchkit._random`; a Generator is consumed; the paper's seed
        42): its three children seed the random partition, the bootstrap blocks and the
        permutation blocks. The root's entropy is kept as ``rng_entropy``.
    n_jobs : int, optional
        joblib workers for the replicate blocks of 500 (results do not depend on it).
    items : sequence, optional
        Item labels (default 0..items-1).
    name : str, optional
        Benchmark label (row of :func:`reliability_table`).

    Returns
    -------
    ReliabilityResult
        Table 7's within-item JSDs, Table 8's self- and cross-item JSD, G_t, its interval and the
        permutation p-value.

    Notes
    -----
    Each item's R responses are randomly permuted and split into two disjoint blocks of R // 2
    (the paper: 50 responses, blocks of 25); the first t responses of each block are compared.
    Cross-item JSD (Eq. 22) pairs block A of q with block B of every q' != q. In a bootstrap
    replicate (items drawn with replacement, both blocks kept paired) the cross term uses all
    ordered pairs of distinct draws, computed exactly from the histograms of role compositions
    (at most (t+1)(t+2)/2 of them). The permutation test permutes the block-B item labels; its
    statistic is the mean self-JSD and small values are extreme.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. G, Eq. (20)-(22), Tables 7-8.

    Examples
    --------
    Thirty items with 20 responses each, answer states 0-3 (0 correct, 3 an invalid output):

    >>> import numpy as np
    >>> from benchkit.boundary.steps import split_half_reliability
    >>> g = np.random.default_rng(0)
    >>> states = np.array([g.choice(4, size=20, p=g.dirichlet(np.ones(4))) for _ in range(30)])
    >>> roles = np.select([states == 0, states == 3], [0, 2], 1)  # 0 correct, 3 invalid
    >>> r = split_half_reliability(states, roles, block_sizes=(5, 10), t=10, n_resamples=500,
    ...                            n_permutations=500, rng=1)
    >>> r.table7().round(4)
                 t=5    t=10
    benchmark
    None       0.161  0.0857
    >>> r.to_frame()[["self_jsd", "cross_jsd", "G", "ci_low", "ci_high"]].round(4)
       self_jsd  cross_jsd       G  ci_low  ci_high
    0    0.0566     0.1564  0.0998   0.059   0.1395
    """
    n_jobs = check_n_jobs(n_jobs)
    from scipy.stats import spearmanr

    st = check_array("states", states, ndim=2, dtype="int")
    ro = check_array("roles", roles, ndim=2, dtype="int", shape=st.shape)
    N, R = st.shape
    if N < 3:
        raise BenchkitValueError(f"split-half reliability needs at least 3 items; got {N}")
    if st.size and st.min() < 0:
        raise BenchkitValueError("states must be non-negative codes")
    if ro.size and (ro.min() < 0 or ro.max() > 2):
        raise BenchkitValueError("roles must be 0 (correct), 1 (incorrect valid) or 2 (invalid)")
    half = R // 2
    bs = tuple(check_int("block_sizes", b, min=1) for b in block_sizes)
    if not bs or max(bs) > half:
        raise BenchkitValueError(
            f"block_sizes={describe(list(bs))} need 2 t <= R = {R} responses per item (t <= {half})"
        )
    t = check_int("t", t, min=1, max=half)
    n_resamples = check_int("n_resamples", n_resamples, min=1)
    n_permutations = check_int("n_permutations", n_permutations, min=1)
    confidence_level = check_probability("confidence_level", confidence_level, open_interval=True)
    root = seed_sequence(rng)
    s_part, s_boot, s_perm = spawn(root, 3)
    rng = np.random.default_rng(s_part)
    perm = np.argsort(rng.random((N, R)), axis=1)
    stp = np.take_along_axis(st, perm, axis=1)
    rop = np.take_along_axis(ro, perm, axis=1)
    A_s, B_s = stp[:, :half], stp[:, half:2 * half]
    A_r, B_r = rop[:, :half], rop[:, half:2 * half]
    S = int(st.max()) + 1
    rows = np.arange(N)[:, None]
    native = np.empty((N, len(bs)))
    rho = np.empty(len(bs))
    contrast = np.empty((len(bs), 3))
    for j, b in enumerate(bs):
        P = np.zeros((N, S))
        Q = np.zeros((N, S))
        np.add.at(P, (rows, A_s[:, :b]), 1.0)
        np.add.at(Q, (rows, B_s[:, :b]), 1.0)
        native[:, j] = jsd(P / b, Q / b)
        ca = (A_r[:, :b] == 0).mean(axis=1)
        cb = (B_r[:, :b] == 0).mean(axis=1)
        rho[j] = spearmanr(ca, cb).statistic if (np.ptp(ca) > 0 and np.ptp(cb) > 0) else np.nan
        contrast[j] = _role_contrast(A_r[:, :b], B_r[:, :b], b)[2:]
    ta, tb, J, self_d, cross_d = _role_contrast(A_r[:, :t], B_r[:, :t], t, full=True)
    G = float(np.mean(cross_d - self_d))
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):  # tiny mat-vecs: BLAS threads only hurt
        boot = _run_blocks(_boot_block, s_boot, n_resamples, n_jobs, N, ta, tb, J, self_d)
    ci = percentile_interval(boot, confidence_level=confidence_level)
    permd = _run_blocks(_perm_block, s_perm, n_permutations, n_jobs, N, ta, tb, J)
    obs = self_d.mean()
    # ties within float noise count as "as extreme" (inclusive comparison)
    p = (1.0 + np.sum(permd <= obs + 1e-12)) / (n_permutations + 1.0)
    return ReliabilityResult(
        name=name, items=pd.Index(range(N) if items is None else list(items), name="item"),
        block_sizes=bs, native_jsd=native, spearman_c=rho, contrast=contrast, t=t, self_jsd=self_d,
        cross_jsd=cross_d, G=G, ci=ci, p_perm=float(p), n_resamples=n_resamples,
        n_permutations=n_permutations, confidence_level=confidence_level, rng_entropy=root.entropy,
    )


def reliability_table(results) -> pd.DataFrame:
    """Table 8 layout for several benchmarks, with Holm-adjusted permutation p-values.

    Parameters
    ----------
    results : list or dict of ReliabilityResult
        One result per benchmark (:func:`benchkit.boundary.estimate_reliability`).

    Returns
    -------
    DataFrame
        One row per benchmark: ``benchmark, items, t, self_jsd, cross_jsd, G, ci_low, ci_high,
        p_perm`` and ``p_holm``, the permutation p-values adjusted by Holm's method across the rows
        (the paper's correction across its six benchmarks).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. G, Table 8.
    .. [2] Holm, S. "A Simple Sequentially Rejective Multiple Test Procedure." Scandinavian
       Journal of Statistics 6(2), 65-70, 1979.

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> from benchkit.boundary.steps import reliability_table
    >>> rs = simulate.load_sample("ladder")
    >>> runs = [boundary.estimate_reliability(rs, m, n_resamples=200, n_permutations=200, rng=1)
    ...         for m in ("sim-0.6b", "sim-32b")]
    >>> reliability_table(runs)[["items", "t", "p_perm", "p_holm"]].round(4)
       items  t  p_perm  p_holm
    0    300  5  0.005  0.01
    1    300  5  0.005  0.01
    """
    if isinstance(results, dict):
        results = list(results.values())
    results = list(results)
    if not results or not all(isinstance(r, ReliabilityResult) for r in results):
        raise BenchkitTypeError("results must be a non-empty list/dict of ReliabilityResult")
    df = pd.concat([r.to_frame() for r in results], ignore_index=True)
    df["p_holm"] = holm(df["p_perm"].to_numpy())
    return df


# ------------------------------------------------------------------------------------------
# App. H: sensitivity
# ------------------------------------------------------------------------------------------
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
