"""MCQ probability landscapes and perturbation audits (paper 003).

* :func:`points` -- option probabilities (from probabilities, log-probabilities or logits) ->
  ``P_top1``, normalized residual entropy ``H_norm``, predicted option and correctness (Sec. 3.1-3.2).
* :func:`mpd` -- exact mean pairwise distance by a numba kernel, per group, with a bootstrap CI or a
  sampled-pairs estimate for very large N (Sec. 3.3); the paper's MPD tables as DataFrames.
* :mod:`benchkit.landscape.perturb` -- perturbation builders (mask, No-Answer, score bias,
  positional bias, noise injection with guards, 5->4 standardization) and App. F prompts.
* :mod:`benchkit.landscape.validate` -- noise-injection failure flags, the Table 5 taxonomy as a
  labelling table, cross-model Spearman consistency of H_norm (Table 16), annotation agreement
  (Table 17), and validation of flag sets against expert labels with an exact hypergeometric
  p-value (Table 6).
* :mod:`benchkit.landscape.runners` -- running models on rendered prompts (a callable or an
  OpenAI-compatible endpoint) into option log-probabilities, resumable; and
  :func:`points_from_responses` (a ResponseSet with option probabilities -> landscape points).
"""
from benchkit.landscape import perturb, validate
from benchkit.landscape.mpd import (
    GroupedMPDResult,
    MPDResult,
    benchmark_table,
    model_table,
    mpd,
    pairwise_distance_sum,
    rank_table,
    score_spread_table,
    summary_table,
    variant_table,
)
from benchkit.landscape.perturb import PerturbationSet, render
from benchkit.landscape.points import LETTERS, LandscapePoints, points
from benchkit.landscape.validate import (
    hnorm_consistency,
    labelling_table,
    noise_failures,
    validate_flags,
    validation_table,
)
# --- runners and ResponseSet convenience (issue 4 items 4 and 7)
from benchkit.landscape import runners
from benchkit.landscape.responses import points_from_responses
from benchkit.landscape.runners import CallableBackend, OpenAIBackend, run_prompts
from benchkit.landscape.explore import LandscapeData, landscape_data

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
    "score_spread_table",
    "perturb",
    "PerturbationSet",
    "render",
    "validate",
    "noise_failures",
    "labelling_table",
    "hnorm_consistency",
    "validate_flags",
    "validation_table",
    "runners",
    "CallableBackend",
    "OpenAIBackend",
    "run_prompts",
    "points_from_responses",
    "landscape_data",
    "LandscapeData",
]
