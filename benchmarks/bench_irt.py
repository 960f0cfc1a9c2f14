"""Benchmarks of benchkit.irt: 1PL / 2PL fits against girth on the same matrix.

The issue's target: the 1PL fit of a 14,000 x 600 matrix at least 10x faster than girth's
``rasch_jml`` / ``rasch_mml`` and under 30 s on 2 cores. The matrix is a Rasch matrix from
``benchkit.simulate.binary_matrix`` (discrimination 1, no spread). Set ``BENCHKIT_BENCH_SMALL=1``
for a quick check at 1,400 x 60. girth's ``rasch_jml`` takes ~45 s at full scale, so that case and
the missing-cell ones use ``repeat=1`` (one warm-up call and one timed call each); the complete
MML case uses ``repeat=3``.

The issue's speed targets on the paths real data hits (issue 13, paper 002):

* 1PL MML with 10% missing cells (14,000 x 600) at least 3x faster than girth's ``rasch_mml``
  (case ``1pl mml ... 10% missing``; before the EM path it was 0.78x);
* 2PL at 3,000 x 200 under 1 s (case ``2pl mml 3000x200``; the alternative is the previous
  implementation, ``optimizer="lbfgs"``, which took 12-16 s). Run them with
  ``python -m benchmarks missing`` and ``python -m benchmarks 2pl``.

(girth's ``twopl_mml`` is not a case: at 3,000 x 200 one call ran for more than 9 minutes here.)
Both run EM on the adaptive grid (``benchkit.irt._em``); ``optimizer="lbfgs"`` is the previous
path, kept as the fallback and as a case of its own.

What is compared: benchkit's complete-matrix fits run on the exact sufficient-statistic collapse
(item totals x raw scores, at most 601 x 600 groups), MML with adaptive quadrature (a grid placed
from the posteriors, ~530 nodes at 0.013-logit spacing here, estimated ability SD, full SEs);
girth's ``rasch_mml`` uses fixed quadrature and fixes the ability SD at 1, ``rasch_jml`` iterates
on the full matrix. Missing cells: benchkit's general path (block-windowed adaptive grid,
preconditioned L-BFGS) against ``rasch_mml`` with girth's INVALID_RESPONSE code.
"""
from __future__ import annotations

import os

import numpy as np

from benchmarks._runner import Case

SMALL = os.environ.get("BENCHKIT_BENCH_SMALL", "") not in ("", "0")
N_ITEMS, N_MODELS = (1_400, 60) if SMALL else (14_000, 600)
N_ITEMS_2PL, N_MODELS_2PL = (600, 40) if SMALL else (3_000, 200)
_state: dict = {}


def _matrix():
    if "Y" not in _state:
        from benchkit.simulate import binary_matrix

        sim = binary_matrix(N_ITEMS, N_MODELS, rng=2026, dtype=np.float64, discrimination_sd=0.0)
        Y = np.ascontiguousarray(sim.matrix)
        rng = np.random.default_rng(7)
        Ym = Y.copy()
        Ym[rng.random(Y.shape) < 0.1] = np.nan
        girth_missing = np.where(np.isnan(Ym), -99999, Ym).astype(int)  # girth's INVALID_RESPONSE
        _state.update(Y=Y, Yint=Y.astype(int), Ym=Ym, Ymint=girth_missing)
    return _state


def _matrix_2pl():
    if "Y2" not in _state:
        from benchkit.simulate import binary_matrix

        sim = binary_matrix(N_ITEMS_2PL, N_MODELS_2PL, rng=2026, dtype=np.float64)
        _state["Y2"] = np.ascontiguousarray(sim.matrix)
        _state["Y2int"] = _state["Y2"].astype(int)
    return _state


def cases() -> list[Case]:
    from benchkit import irt

    def girth():
        import girth as g

        return g

    s = _state
    size = f"{N_ITEMS}x{N_MODELS}"
    size2 = f"{N_ITEMS_2PL}x{N_MODELS_2PL}"
    return [
        Case(f"1pl jml {size}", kit=lambda: irt.fit_1pl(s["Y"], method="jml"),
             alternative=lambda: girth().rasch_jml(s["Yint"]), alternative_name="girth.rasch_jml",
             setup=_matrix, repeat=1,
             note="complete matrix: benchkit collapses by raw scores / item totals (exact)"),
        Case(f"1pl mml {size}", kit=lambda: irt.fit_1pl(s["Y"], method="mml"),
             alternative=lambda: girth().rasch_mml(s["Yint"]), alternative_name="girth.rasch_mml",
             setup=_matrix, repeat=3,
             note="adaptive quadrature, collapsed Newton-CG; benchkit estimates the ability SD and "
                  "gives full SEs; girth fixes SD = 1"),
        Case(f"1pl mml {size} 10% missing", kit=lambda: irt.fit_1pl(s["Ym"], method="mml"),
             alternative=lambda: girth().rasch_mml(s["Ymint"]), alternative_name="girth.rasch_mml",
             setup=_matrix, repeat=3,
             note="target >= 3x: EM on the adaptive grid (missing cells as per-model Chebyshev "
                  "corrections); girth fixes SD = 1 on a fixed grid"),
        Case(f"1pl mml {size} 10% missing em-vs-lbfgs",
             kit=lambda: irt.fit_1pl(s["Ym"], method="mml"),
             alternative=lambda: irt.fit_1pl(s["Ym"], method="mml", optimizer="lbfgs"),
             alternative_name="benchkit optimizer='lbfgs' (previous path)", setup=_matrix,
             repeat=1, note="same estimates (EM vs L-BFGS: max |b diff| 4e-10 at full size)"),
        Case(f"2pl mml {size2}", kit=lambda: irt.fit_2pl(s["Y2"]),
             alternative=lambda: irt.fit_2pl(s["Y2"], optimizer="lbfgs"),
             alternative_name="benchkit optimizer='lbfgs' (previous path)", setup=_matrix_2pl,
             repeat=1, note="target < 1 s (was 12-16 s): EM with 2x2 Newton item steps, shift / "
                            "scale steps, grid recurrences in numba"),
        Case(f"1pl jml {size} 10% missing", kit=lambda: irt.fit_1pl(s["Ym"], method="jml"),
             alternative=None, alternative_name="", setup=_matrix, repeat=1,
             note="alternating Newton with the exact shift step"),
        Case(f"response_diagnostics {size}", kit=lambda: irt.response_diagnostics(s["Y"]),
             alternative=None, alternative_name="", setup=_matrix, repeat=3),
    ]
