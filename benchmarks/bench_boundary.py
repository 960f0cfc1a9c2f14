"""Benchmarks for benchkit.boundary (issue 5): PAVA, one calibration vector, full table, profiling."""
from __future__ import annotations

import numpy as np

from benchmarks._runner import Case

_RNG = np.random.default_rng(0)
_Y = {m: [_RNG.integers(0, 21, (m, 6)) / 20.0 for _ in range(3)] for m in (100_000, 14_000)}
_state = {"i": 0}


def _next(m):
    _state["i"] += 1
    return _Y[m][_state["i"] % 3]  # rotate inputs (the CPU learns one repeated input's branches)


def _kit_pava(m, *, reuse=False):
    from benchkit._kernels.pava import pava_batch
    if not reuse:
        return lambda: pava_batch(_next(m), lo=0.0, hi=1.0)
    # like the floor below, write into buffers allocated once (pava_batch's out=), so neither side
    # pays first-touch page faults of fresh output arrays
    out = (np.empty((m, 6)), np.empty((m, 6), dtype=np.int8))
    return lambda: pava_batch(_next(m), lo=0.0, hi=1.0, out=out)


def _scipy_loop(m):
    from scipy.optimize import isotonic_regression

    def run():
        y = _next(m)
        return [isotonic_regression(row).x for row in y]
    return run


def _floor(m):
    out = np.empty((m, 6))
    return lambda: np.multiply(_next(m), 1.0, out=out)  # read input once, write output once


def _numpy_one_vector():
    """Best vectorized numpy version of one calibration vector: binomial draws, min-max isotonic
    fit on whole columns, D with numpy logs, 10-decimal keys, distinct counts."""
    rng = np.random.default_rng(42)
    theta = np.linspace(0.3, 0.7, 6)
    T, B = 20, 200_000

    def run():
        k = rng.binomial(T, theta, size=(B, 6))
        P = np.zeros((B, 7))
        np.cumsum(k, axis=1, out=P[:, 1:])
        fit = np.full((B, 6), -np.inf)
        for j in range(6):
            R = np.empty((B, 6))
            R[:, 5] = (P[:, 6] - P[:, j]) / (6 - j)
            for kk in range(4, j - 1, -1):
                np.minimum(R[:, kk + 1], (P[:, kk + 1] - P[:, j]) / (kk + 1 - j), out=R[:, kk])
            np.maximum(fit[:, j:], R[:, j:], out=fit[:, j:])
        c = k / T
        f = np.clip(fit / T, 0, 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            kl = (np.where(c > 0, c * np.log(c / f), 0)
                  + np.where(c < 1, (1 - c) * np.log((1 - c) / (1 - f)), 0))
        keys = np.rint(2 * T * kl.sum(axis=1) * 1e10).astype(np.int64)
        return np.unique(keys, return_counts=True)
    return run


def _kit_one_vector():
    from benchkit._kernels import lrt
    theta = np.linspace(0.3, 0.7, 6)[None, :]
    seeds = lrt.block_seeds(np.random.SeedSequence(42), 1, 8)

    def run():
        return lrt.distinct_counts(lrt.simulate_keys(theta, 20, 200_000, seeds))
    return run


def _kit_full_table():
    from benchkit.boundary.steps import build_calibration
    return lambda: build_calibration(6, 20)


_K: dict[int, list[np.ndarray]] = {}


def _counts(m):
    """Three (m, 6) count matrices at T = 20 (rotated between calls)."""
    if m not in _K:
        _K[m] = [np.random.default_rng(s).binomial(20, np.sort(np.random.default_rng(s + 9).random((m, 6)),
                                                               axis=1)) for s in range(3)]
    _state["i"] += 1
    return _K[m][_state["i"] % 3]


def _kit_profiles(m):
    from benchkit.boundary.steps import get_calibration
    from benchkit.boundary.steps import profiles
    table = get_calibration(6, 20)
    return lambda: profiles(_counts(m), 20, calibration=table)


def _profiles_pava(m):
    """The limit reference of profiles: its own exact integer PAVA call on the same counts."""
    from benchkit._kernels.pava import pava_counts_batch
    return lambda: pava_counts_batch(_counts(m))


def _reliability_paper_scale():
    """App. G at MMLU scale: 14,042 items x 50 responses, 10,000 bootstraps and permutations."""
    from benchkit.boundary.steps import split_half_reliability

    rng = np.random.default_rng(1)
    N, R = 14_042, 50
    pr = rng.dirichlet([0.4, 0.4, 0.2], N)
    u = rng.random((N, R))
    roles = (u > pr[:, :1]).astype(np.int64) + (u > pr[:, :1] + pr[:, 1:2])
    states = np.where(roles == 1, 1 + rng.integers(0, 3, (N, R)), roles * 2)
    return lambda: split_half_reliability(states, roles, n_resamples=10_000, n_permutations=10_000,
                                          rng=42)


def _budget_one_rep():
    """App. H.1: one repetition (T' = 5, 10, 15 of T = 20) on 14,000 items x 6 models."""
    from benchkit.boundary.steps import binary_state_counts
    from benchkit.boundary.steps import budget_sensitivity
    from benchkit.boundary.steps import state_trajectories

    _counts(14_000)
    sc, ok = binary_state_counts(_K[14_000][0], 20)
    tr = state_trajectories(sc, ok, 20, entropy_source="binary")
    return lambda: budget_sensitivity(tr, n_rep=1)


def _exact_n6_T20():
    """Exact calibration at the paper's n = 6, T = 20: 21^6 = 85,766,121 count vectors, the 217
    reference vectors, every breakpoint of the envelope (``exact_calibration``)."""
    from benchkit.boundary.steps import exact_calibration
    from benchkit.boundary.steps import reference_family

    def run():
        ex = exact_calibration(6, 20, reference=reference_family(6), flat_levels=0)
        _state["exact_n6_T20"] = ex
        print(f"    exact n=6 T=20: {ex.atoms.size:,} breakpoints, "
              f"d_0.05 = {ex.critical_value(alpha=0.05):.6f}")
        return ex
    return run


def _exact_vs_mc_n6_T20():
    """The shipped Monte Carlo table (B = 200,000, seed 42) against the exact null at every one
    of its atoms: per-vector exact tails (one enumeration), then the exact distribution of each
    table entry (the max over 217 independent binomial counts)."""
    from benchkit.boundary._calibration_exact import compare_with_exact
    from benchkit.boundary._calibration_exact import exact_reference_tails
    from benchkit.boundary.steps import get_calibration

    def run():
        mc = get_calibration(6, 20)
        P = exact_reference_tails(6, 20, mc.atoms)
        if "exact_n6_T20" in _state:  # the envelope of the same family, other code path
            gap = np.abs(P.max(axis=1) - _state["exact_n6_T20"].score_keys(mc.atoms)).max()
            if gap > 1e-12:
                raise AssertionError(f"exact tails disagree with exact_calibration by {gap:.2e}")
        df = compare_with_exact(mc, exact_tails=P)
        ok = df[df.normal_ok]
        top = df.iloc[-1]
        print(f"    MC vs exact at {len(df):,} atoms: max |z| = {np.abs(df.z).max():.2f} (exact "
              f"distribution of the entry); plain binomial z: max {np.abs(ok.z_binomial).max():.2f} "
              f"where B p >= 10 ({len(ok):,} atoms), {np.nanmax(np.abs(df.z_binomial)):.2f} at all "
              f"(last atom: count {top['count']}, B p {top['expected']:.3f}, "
              f"family total {top['expected_all']:.2f}, p-value {top['p_value']:.2f})")
        if np.abs(df.z).max() > 4.0 or np.abs(ok.z_binomial).max() > 4.0:
            raise AssertionError("exact vs Monte Carlo: an atom is more than 4 SE off")
        return df
    return run


def cases() -> list[Case]:
    out = []
    for m in (100_000, 14_000):
        out.append(Case(f"boundary.pava {m}x6 vs scipy loop", _kit_pava(m), _scipy_loop(m),
                        "python loop over scipy.optimize.isotonic_regression", repeat=3,
                        note="need >= 200x"))
        out.append(Case(f"boundary.pava {m}x6 vs bandwidth floor", _kit_pava(m, reuse=True), _floor(m),
                        "one numpy pass (read input, write output)", repeat=7,
                        note="need kit <= 5x floor"))
    out.append(Case("boundary.calibration one vector n=6 T=20 B=200k", _kit_one_vector(),
                    _numpy_one_vector(), "vectorized numpy", repeat=5, note="need >= 3x"))
    out.append(Case("boundary.calibration full table n=6 T=20 (217 vectors)", _kit_full_table(),
                    None, "", repeat=1, note="need < 10 s on 2 cores"))
    out.append(Case("boundary.calibration exact n=6 T=20 (86M vectors, 217 vectors)",
                    _exact_n6_T20(), None, "", repeat=1,
                    note="full enumeration, every breakpoint of the envelope"))
    out.append(Case("boundary.calibration exact vs MC table n=6 T=20 at every MC atom",
                    _exact_vs_mc_n6_T20(), None, "", repeat=1,
                    note="checks |z| <= 4 at every atom (exact law of the max over 217 binomial "
                         "counts) and plain binomial |z| <= 4 where B p >= 10"))
    for m in (14_000, 100_000):
        out.append(Case(f"boundary.steps.profiles {m}x6 T=20 vs its PAVA call", _kit_profiles(m),
                        _profiles_pava(m), "pava_counts_batch alone (limit reference)", repeat=15,
                        note="need profiles / PAVA <= 10 (ratio >= 0.1)"))
    out.append(Case("boundary.reliability 14,042 items x 50, B=10k boot + 10k perm",
                    _reliability_paper_scale(), None, "", repeat=1, note="App. G at MMLU scale"))
    out.append(Case("boundary.steps.budget_sensitivity 14,000 x 6, T=20, one repetition", _budget_one_rep(),
                    None, "", repeat=3, note="x100 for the paper's 100 repetitions"))
    return out
