"""MCQ probability landscapes and perturbation audits (paper 003).

* :func:`points` -- option probabilities (from probabilities, log-probabilities or logits) ->
  ``P_top1``, normalized residual entropy ``H_norm``, predicted option and correctness (Sec. 3.1-3.2).
* :func:`mpd` -- exact mean pairwise distance by a numba kernel, per group, with a bootstrap CI or a
  sampled-pairs estimate for very large N (Sec. 3.3); the paper's MPD tables as DataFrames.
* :mod:`benchkit.landscape.perturb` -- perturbation builders (mask, No-Answer, score bias,
  positional bias, noise injection with guards, 5->4 standardization) and App. F prompts.
"""
from benchkit.landscape import perturb
from benchkit.landscape.mpd import (
    GroupedMPDResult,
    MPDResult,
    benchmark_table,
    model_table,
    mpd,
    pairwise_distance_sum,
    rank_table,
    summary_table,
    variant_table,
)
from benchkit.landscape.perturb import PerturbationSet, render
from benchkit.landscape.points import LETTERS, LandscapePoints, points

__all__ = [
    "LETTERS",
    "LandscapePoints",
    "points",
    "MPDResult",
    "GroupedMPDResult",
    "mpd",
    "pairwise_distance_sum",
    "benchmark_table",
    "variant_table",
    "model_table",
    "rank_table",
    "summary_table",
    "perturb",
    "PerturbationSet",
    "render",
]
