"""Benchmarks for benchkit.landscape (issues 4, 25): exact mean pairwise distance (MPD).

Targets (issue 4): exact MPD of N = 100,000 points (5e9 pairs; pdist's condensed matrix would
need 40 GB) in under 3 s on 2 cores, and at N = 30,000 at least 10x faster than
``scipy.spatial.distance.pdist(P).mean()`` (3.6 GB condensed matrix), measured in one run.
Issue 25: from 16,384 points the kit sums distances of float32 coordinates in float64; it must be
within 1.2x of the limit reference, a plain numba loop over the same float32 coordinates with a
float64 accumulator per row (rows i and n-1-i paired so both threads get equal work), and within
1e-9 of the float64 value (printed here, tested in tests/test_landscape_mpd.py).

Inputs are landscape points ``(P_top1, H_norm)`` of random 4-option logits (realistic spread and
duplicates near P_top1 = 1), three different sets per size, rotated between calls.
"""
from __future__ import annotations

import numpy as np

from benchmarks._runner import Case

_inputs: dict[int, list[np.ndarray]] = {}
_state = {"i": 0}


def _make(n: int) -> None:
    if n in _inputs:
        return
    from benchkit.landscape.steps import points

    sets = []
    for s in range(3):
        rng = np.random.default_rng(100 + s)
        scale = rng.uniform(0.5, 6.0, size=(n, 1))
        sets.append(np.ascontiguousarray(points(rng.normal(size=(n, 4)) * scale, kind="logits").xy))
    _inputs[n] = sets


def _next(n: int) -> np.ndarray:
    _state["i"] += 1
    return _inputs[n][_state["i"] % 3]


def _kit(n: int):
    from benchkit.landscape.steps import mpd

    return lambda: mpd(_next(n)).mpd


_FM = {"reassoc", "contract", "nsz"}
_ref_kernel: dict = {}


def _limit_reference():
    """The float32 limit reference: every pair once, float32 distances, float64 row sums."""
    if "fn" not in _ref_kernel:
        from numba import njit
        from numba import prange

        @njit(fastmath=_FM, error_model="numpy", inline="always")
        def row(x, y, i):
            xs, ys = x[i + 1:], y[i + 1:]
            s = 0.0
            for j in range(xs.size):
                dx = xs[j] - x[i]
                dy = ys[j] - y[i]
                s += np.float64(np.sqrt(dx * dx + dy * dy))
            return s

        @njit(parallel=True, fastmath=_FM, error_model="numpy")
        def total(x, y):
            n = x.size
            m = n // 2
            out = np.zeros(m + 1)
            for r in prange(m):
                out[r] = row(x, y, r) + row(x, y, n - 1 - r)
            if n % 2:
                out[m] = row(x, y, m)
            return out.sum()

        _ref_kernel["fn"] = total
    return _ref_kernel["fn"]


_f32: dict[int, list] = {}


def _ref32(n: int):
    fn = _limit_reference()

    def run():
        P = _next(n)
        key = (n, id(P))
        if key not in _f32:
            c = P.mean(0)
            _f32[key] = ((P[:, 0] - c[0]).astype(np.float32), (P[:, 1] - c[1]).astype(np.float32))
        x, y = _f32[key]
        return fn(x, y) / (n * (n - 1) / 2)
    return run


def _kit_checked(n: int):
    """The kit's MPD; prints its relative error against the float64 kernel once per size."""
    from benchkit._kernels import mpd as kmpd
    from benchkit.landscape.steps import mpd

    def run():
        P = _next(n)
        got = mpd(P).mpd
        if ("err", n) not in _f32:
            import math

            x, y = np.ascontiguousarray(P[:, 0]), np.ascontiguousarray(P[:, 1])
            starts, _ = kmpd.tile_starts([n], 512)
            bi, bj = kmpd.tile_tasks(starts.size - 1, 1)
            ref = math.fsum(kmpd.pair_sums_tiles(x, y, starts, bi, bj).tolist()) / (n * (n - 1) // 2)
            _f32[("err", n)] = abs(got - ref) / ref
            print(f"\n  mpd N={n:,}: relative error of the float32-coordinate MPD vs float64: "
                  f"{_f32[('err', n)]:.2g} (need <= 1e-9)")
        return got
    return run


def _pdist(n: int):
    from scipy.spatial.distance import pdist

    return lambda: pdist(_next(n)).mean()


_frame: dict = {}


def _readings_frame():
    """4 benchmarks x 1,000 items x 3 models: the paper's Table 1 / Fig. 2 / App. A setting."""
    if "f" in _frame:
        return _frame["f"]
    import pandas as pd

    from benchkit.landscape.steps import points

    rng = np.random.default_rng(7)
    n = 4 * 1000 * 3
    meta = pd.DataFrame({"benchmark": np.repeat(["arc", "csqa", "hellaswag", "mmlu"], 3000),
                         "item": np.repeat(np.arange(4000), 3).astype(str),
                         "model": np.tile(["m1", "m2", "m3"], 4000)})
    scale = rng.uniform(0.5, 6.0, size=(n, 1))
    _frame["f"] = points(rng.normal(size=(n, 4)) * scale, kind="logits", meta=meta).to_frame()
    return _frame["f"]


def _kit_readings():
    from benchkit.landscape.steps import mpd_readings

    return lambda: mpd_readings(_readings_frame())


def _pandas_readings():
    """The three readings with pandas groupby + scipy pdist, as a user would write them."""
    from scipy.spatial.distance import pdist

    def run():
        f = _readings_frame()
        out = {}
        for b, g in f.groupby("benchmark"):
            xy = g[["p_top1", "h_norm"]].to_numpy()
            av = g.groupby("item")[["p_top1", "h_norm"]].mean().to_numpy()
            per = [pdist(m[["p_top1", "h_norm"]].to_numpy()).mean() for _, m in g.groupby("model")]
            out[b] = (pdist(xy).mean(), pdist(av).mean(), float(np.mean(per)))
        return out
    return run


def cases() -> list[Case]:
    return [
        Case(
            name="mpd_readings 4 benchmarks x 1,000 items x 3 models (pooled/averaged/per-model)",
            kit=_kit_readings(),
            alternative=_pandas_readings(),
            alternative_name="pandas groupby + scipy pdist",
            setup=_readings_frame,
            repeat=3,
            note="paper 003 Table 1 / Fig. 2 / App. A readings; equal to 1e-12 (tests)",
        ),
        Case(
            name="mpd exact N=30,000 (4.5e8 pairs)",
            kit=_kit(30_000),
            alternative=_pdist(30_000),
            alternative_name="scipy pdist(P).mean()",
            setup=lambda: _make(30_000),
            repeat=3,
            note="target: ratio >= 10; float32 coordinates, within 1e-9 of float64 (tests)",
        ),
        Case(
            name="mpd exact N=100,000 (5e9 pairs)",
            kit=_kit(100_000),
            alternative=None,
            alternative_name="none (pdist needs 40 GB)",
            setup=lambda: _make(100_000),
            repeat=3,
            note="target: < 3 s on 2 cores",
        ),
    ] + [
        Case(
            name=f"mpd float32 N={n:,} vs limit reference",
            kit=_kit_checked(n),
            alternative=_ref32(n),
            alternative_name="plain numba float32 loop, float64 row sums",
            setup=lambda n=n: _make(n),
            repeat=repeat,
            note="need ratio >= 0.83 (kit within 1.2x of the reference)",
        )
        for n, repeat in ((30_000, 5), (100_000, 3))
    ]
