"""Exact calibration of the order-consistency score o by enumeration (beyond BSDProbe App. D.3).

All (T+1)^n count vectors are enumerated, so the null tails of D are exact up to float64
summation: :func:`exact_calibration` builds a :class:`CalibrationTable` of the envelope,
:func:`exact_reference_tails` keeps every reference vector's tail at chosen statistics, and
:func:`compare_with_exact` judges a Monte Carlo table against them.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_int
from benchkit.boundary._calibration import CalibrationTable
from benchkit.boundary._calibration import _breakpoints
from benchkit.boundary._calibration import _check_reference
from benchkit.boundary._calibration import reference_family

__all__ = [
    "exact_calibration",
    "exact_reference_tails",
    "compare_with_exact",
]


def exact_calibration(n: int, T: int, *, reference=None, flat_levels: int = 201,
                      max_vectors: int = 100_000_000, block: int = 32,
                      progress: bool = False) -> CalibrationTable:
    """Exact calibration by enumerating all (T+1)^n count vectors (beyond the paper).

    Parameters
    ----------
    n : int
        Models on the axis.
    T : int
        Responses per model.
    reference : array (r, n), optional
        Monotone reference vectors; default :func:`reference_family`.
    flat_levels : int, default 201
        Flat vectors on an even grid of [0, 1] added to the family (0: the family alone, which is
        what the Monte Carlo tables use).
    max_vectors : int, default 100,000,000
        Refuse larger enumerations. The paper's n = 6, T = 20 is 21^6 = 85,766,121 vectors:
        about 1.4 GB of working memory (keys and atom index) plus (number of atoms) x ``block``
        x 8 bytes per thread (about 1M atoms there: 256 MB per thread for block = 32).
    block : int, default 32
        Reference vectors accumulated together (the memory / speed trade-off above).
    progress : bool, default False
        Progress bar over blocks of reference vectors.

    Returns
    -------
    CalibrationTable
        ``method="exact"``; ``tail`` is max over theta of P_theta(D* >= atom) (float64).

    Notes
    -----
    The score at d is max over theta of P_theta(D* >= d) (Eq. 17 over the finite family), computed
    exactly up to float64 summation for theta in the family plus ``flat_levels`` flat vectors: no
    Monte Carlo error and no add-one correction (Eq. 19's (1 + count) / (B + 1)). With
    ``flat_levels=0`` (the same family) it equals the shipped Monte Carlo tables within 4 standard
    errors at every atom when each Monte Carlo entry is judged by its exact law, the max over the
    family of binomial counts (:func:`compare_with_exact`; n = 6, T = 20: max ``|z|`` 3.47 over
    6,711 atoms). The default adds 201 flat vectors, so its envelope can only be higher than the
    family's. Deterministic and independent
    of the number of threads: every probability mass is summed in the same vector order and the
    per-block envelopes are merged in block order.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. D.2, Eq. (17); App. D.3 (the finite reference family).

    Examples
    --------
    >>> from benchkit.boundary.steps import exact_calibration
    >>> table = exact_calibration(3, 5, flat_levels=0)   # 6^3 = 216 count vectors
    >>> table.method, table.score([0.0, 2.0]).round(4)
    ('exact', array([1.    , 0.2668]))
    """
    from scipy.stats import binom

    from benchkit._kernels import lrt

    n = check_int("n", n, min=2)
    T = check_int("T", T, min=1)
    flat_levels = check_int("flat_levels", flat_levels, min=0)
    max_vectors = check_int("max_vectors", max_vectors, min=1)
    block = check_int("block", block, min=1)
    digits = n * math.log10(T + 1)  # (T+1)^n itself can be too large to print (or to build)
    total = (T + 1) ** n if digits < 30 else None
    if total is None or total > max_vectors:
        shown = f"{total:,}" if total is not None else f"about 10^{digits:,.0f}"
        raise BenchkitValueError(
            f"exact calibration enumerates (T+1)^n = {shown} count vectors for n={n}, T={T}, "
            f"more than max_vectors={max_vectors:,}; use the Monte Carlo table or raise max_vectors"
        )
    fam = reference_family(n) if reference is None else _check_reference(reference, n)
    flats = np.repeat(np.linspace(0.0, 1.0, flat_levels)[:, None], n, axis=1)
    ref = np.vstack([fam, flats]) if flat_levels else fam
    keys = lrt.enumerate_keys(n, T)
    atoms, inv = lrt.group_index(keys)
    del keys
    ks = np.arange(T + 1)
    pmf = binom.pmf(ks[None, None, :], T, ref[:, :, None])
    tail = np.empty(atoms.shape[0], dtype=np.float64)
    arg = np.empty(atoms.shape[0], dtype=np.int64)
    lrt.exact_tail_max_blocked(inv, atoms.shape[0], pmf, n, T, tail, arg, block=block,
                               progress=progress)
    atoms, tail, arg = _breakpoints(atoms, tail, arg)
    return CalibrationTable(n=n, T=T, method="exact", n_resamples=0, rng=None, block_size=0,
                            reference=ref, atoms=atoms, tail=np.minimum(tail, 1.0),
                            argmax=arg.astype(np.int32))


def exact_reference_tails(n: int, T: int, keys, *, reference=None, block: int = 32,
                          max_vectors: int = 100_000_000) -> np.ndarray:
    """Exact P_theta(rho(D*) >= key) for every reference vector theta and every key, by enumeration.

    Parameters
    ----------
    n : int
        Models on the axis.
    T : int
        Responses per model.
    keys : array of int
        Ten-decimal keys rho(d) = rint(1e10 d) of the statistics d at which to evaluate the tails
        (e.g. a Monte Carlo table's ``atoms``).
    reference : array (r, n), optional
        Reference vectors; default :func:`reference_family` (the vectors of the shipped tables).
    block : int, default 32
        Reference vectors accumulated together (one pass over the count vectors per block).
    max_vectors : int, default 100,000,000
        Refuse enumerations of more than this many count vectors.

    Returns
    -------
    ndarray (len(keys), r)
        Column a holds the upper tail of D under theta_a at each key (float64, summed in the
        enumeration order, so independent of the number of threads).

    Notes
    -----
    :func:`exact_calibration` keeps only the upper envelope max_theta; this keeps every vector's tail
    at a few chosen statistics, which is what the distribution of a Monte Carlo table's entries
    needs (:func:`compare_with_exact`). Count vectors are grouped by the interval between
    consecutive keys their statistic falls in, so the work is one pass over the (T+1)^n vectors
    per block of reference vectors whatever the number of keys.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. D.2-D.3, Eq. (17)-(19).

    Examples
    --------
    >>> from benchkit.boundary.steps import exact_reference_tails
    >>> tails = exact_reference_tails(3, 5, [0, 20_000_000_000])   # at D = 0 and D = 2
    >>> tails.shape, tails[:, :3].round(4).tolist()
    ((2, 133), [[1.0, 1.0, 1.0], [0.0826, 0.1605, 0.2275]])
    """
    from benchkit._kernels import lrt
    from benchkit._kernels.boundary_threads import parallel_for

    n = check_int("n", n, min=2)
    T = check_int("T", T, min=1)
    block = check_int("block", block, min=1)
    max_vectors = check_int("max_vectors", max_vectors, min=1)
    total = (T + 1) ** n
    if total > max_vectors:
        raise BenchkitValueError(
            f"exact tails enumerate (T+1)^n = {total:,} count vectors for n={n}, T={T}, more than "
            f"max_vectors={max_vectors:,}"
        )
    keys = check_array("keys", keys, ndim=1, dtype="int")
    ref = reference_family(n) if reference is None else _check_reference(reference, n)
    q, back = np.unique(keys.astype(np.int64), return_inverse=True)
    allk = lrt.enumerate_keys(n, T)
    # group g = number of query keys <= the vector's key: D* >= q[j] <=> group >= j + 1
    inv = np.empty(total, dtype=np.int32)
    ch = 1 << 22
    for c in range(0, total, ch):
        inv[c:c + ch] = np.searchsorted(q, allk[c:c + ch], side="right")
    del allk
    from scipy.stats import binom

    pmf = binom.pmf(np.arange(T + 1)[None, None, :], T, ref[:, :, None])
    r = ref.shape[0]
    nb = (r + block - 1) // block
    mass = np.zeros((q.shape[0] + 1, r), dtype=np.float64)

    def one(b):
        a0, a1 = b * block, min(r, (b + 1) * block)
        pmfT = np.ascontiguousarray(np.transpose(pmf[a0:a1], (1, 2, 0)))
        part = np.zeros((q.shape[0] + 1, a1 - a0), np.float64)
        lrt.exact_mass_blocked(inv, pmfT, n, T, part)
        mass[:, a0:a1] = part

    parallel_for(one, nb)
    tails = np.cumsum(mass[::-1], axis=0)[::-1][1:]  # tails[j] = sum of groups j+1..
    return np.minimum(tails, 1.0)[back.ravel()]


def compare_with_exact(table: CalibrationTable, *, exact_tails=None, min_count: float = 10.0,
                       skip_zero: bool = True) -> pd.DataFrame:
    """Check a Monte Carlo table against the exact null at every one of its atoms.

    Parameters
    ----------
    table : CalibrationTable
        A ``method="monte-carlo"`` table.
    exact_tails : array (atoms, r), optional
        :func:`exact_reference_tails` at ``table.atoms`` for ``table.reference`` (computed when
        not given: full enumeration).
    min_count : float, default 10
        The plain binomial z (``z_binomial``) is marked usable (``normal_ok``) where the expected
        counts B p and B (1 - p) are both at least this (the usual rule for the normal
        approximation to the binomial).
    skip_zero : bool, default True
        Leave out the atom D = 0 (both tails are 1 there).

    Returns
    -------
    DataFrame
        One row per atom: ``D``, ``key``, ``count`` (the table's max over theta of
        #{D* >= D}), ``p_exact`` (max over theta of P_theta(D* >= D)), ``expected`` (B
        ``p_exact``), ``expected_all`` (B times the sum over theta of the tails: the expected
        number of simulated statistics at or above the atom over the whole family),
        ``argmax_exact``, ``argmax_mc``, ``z_binomial`` ((count/B - p_exact) / sqrt(p (1 - p) /
        B), signed), ``normal_ok``, ``p_value`` (exact two-sided p-value of ``count`` under the
        exact distribution of the table's entry) and ``z`` (the normal deviate with the same
        two-sided tail probability, signed like ``z_binomial``).

    Notes
    -----
    A Monte Carlo entry is M = max_theta C_theta, with C_theta ~ Binomial(B, P_theta(D* >= d))
    independent across theta (each vector has its own seeds), so P(M <= c) = prod_theta
    F_theta(c) exactly. Comparing with the plain binomial standard error of the maximizing
    vector alone is wrong in two places: where several vectors have nearly the same tail (the
    max of their counts is biased upwards) and, above all, in the extreme tail, where the
    atoms are chosen by the simulation itself: the table's largest atom is the largest of
    r x B simulated statistics, so its count is at least 1 by construction while B p there is
    about 1 / r (n = 6, T = 20: B p = 0.027, 217 B sum P = 0.75; plain z = 5.9, exact
    two-sided p-value 1, z = 0). ``z`` is the honest "number of standard errors": the
    two-sided tail probability of the observed entry under the exact null of the table, mapped
    to the normal scale.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. D.3 (Monte Carlo uncertainty of the finite-reference score).

    Examples
    --------
    >>> from benchkit.boundary.steps import build_calibration, compare_with_exact
    >>> check = compare_with_exact(build_calibration(3, 5, n_resamples=2000, rng=1))
    >>> len(check), round(float(check["z"].abs().max()), 2)
    (30, 1.7)
    """
    from scipy.stats import binom
    from scipy.stats import norm

    if not isinstance(table, CalibrationTable) or table.method != "monte-carlo":
        raise BenchkitValueError("table must be a Monte Carlo CalibrationTable")
    B = table.n_resamples
    atoms = table.atoms
    if exact_tails is None:
        exact_tails = exact_reference_tails(table.n, table.T, atoms, reference=table.reference)
    P = check_array("exact_tails", exact_tails, ndim=2, dtype="float")
    if P.shape != (atoms.shape[0], table.reference.shape[0]):
        raise BenchkitValueError(
            f"exact_tails must have shape (atoms, reference vectors) = "
            f"{(atoms.shape[0], table.reference.shape[0])}; got {P.shape}"
        )
    keep = atoms > 0 if skip_zero else np.ones(atoms.shape[0], dtype=bool)
    atoms, P = atoms[keep], P[keep]
    c = table.tail[keep].astype(np.int64)
    p = P.max(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z_bin = (c / B - p) / np.sqrt(p * (1 - p) / B)
    # P(M <= c) = prod F_theta(c); P(M >= c) = 1 - prod (1 - S_theta(c - 1)), in logs
    log_lo = binom.logcdf(c[:, None], B, P).sum(axis=1)
    sf = binom.sf(c[:, None] - 1, B, P)
    with np.errstate(divide="ignore"):
        hi = -np.expm1(np.log1p(-np.minimum(sf, 1.0)).sum(axis=1))
    lo = np.exp(log_lo)
    pval = np.minimum(1.0, 2.0 * np.minimum(lo, hi))
    z = norm.isf(pval / 2.0) * np.where(hi < lo, 1.0, -1.0)
    normal_ok = (B * p >= min_count) & (B * (1 - p) >= min_count)
    return pd.DataFrame({
        "D": atoms / 1e10, "key": atoms, "count": c, "p_exact": p, "expected": B * p,
        "expected_all": B * P.sum(axis=1), "argmax_exact": P.argmax(axis=1),
        "argmax_mc": table.argmax[keep], "z_binomial": z_bin, "normal_ok": normal_ok,
        "p_value": pval, "z": z,
    })
