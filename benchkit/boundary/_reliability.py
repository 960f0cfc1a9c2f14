"""Reliability of BSDProbe observations (App. G); their sensitivity (App. H) is ``_sensitivity``.

:func:`split_half_reliability` / :func:`estimate_reliability`: within-item answer-state JSD between
disjoint blocks of t responses (Table 7), within- vs cross-item JSD in the shared outcome-role space
{correct, incorrect_valid, invalid} with a paired item bootstrap CI for G_t = mean(cross - self) and
a one-sided permutation test of the self-JSD (Table 8), Holm correction across benchmarks
(:func:`benchkit.stats.holm`, :func:`reliability_table`).

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

__all__ = ["ReliabilityResult", "split_half_reliability", "reliability_table"]

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
