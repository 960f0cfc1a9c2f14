"""MCQ probability landscapes and perturbation audits (paper 003).

* :func:`points` -- option probabilities (from probabilities, log-probabilities or logits) ->
  ``P_top1``, normalized residual entropy ``H_norm``, predicted option and correctness (Sec. 3.1-3.2).
* :func:`mpd` -- exact mean pairwise distance by a numba kernel, per group, with a bootstrap interval
  or a sampled-pairs estimate for very large N (Sec. 3.3); the paper's MPD tables as DataFrames;
  Fig. 2's per-item averaging (:func:`average_over_models`) and the three MPD readings side by
  side (:func:`mpd_readings`).
* :func:`perturb` and the builders :func:`mask`, :func:`no_answer`, :func:`score_bias`,
  :func:`positional_bias`, :func:`noise_injection` (with guards), :func:`standardize_choices`
  (5->4), and the App. F prompts (:func:`render`).
* Validation: noise-injection failure flags (:func:`noise_failures`), the Table 5 taxonomy as a
  labelling table, cross-model Spearman consistency of H_norm (:func:`hnorm_consistency`, Table 16),
  annotation agreement (Table 17), and flag sets against expert labels with an exact
  hypergeometric p-value (:func:`validate_flags`, Table 6); response-format validity
  (:func:`response_validity`, Table 14) and the App. K structural classifier
  (:func:`classify_structure`, Table 18).
* Runners: model calls on rendered prompts (a callable or an OpenAI-compatible endpoint) into option
  log-probabilities, resumable (:func:`run_prompts`).
* :mod:`benchkit.landscape.responses` -- :func:`points_from_responses` (a ResponseSet with option
  probabilities -> landscape points); :mod:`benchkit.landscape.explore` -- the explorer's view model.

Layout: private implementation modules ``_points``, ``_mpd``, ``_perturb``, ``_validate``,
``_structure``, ``_runners``; ``responses`` (ResponseSet entry points); ``explore`` (view models).
"""
from benchkit.landscape._mpd import (
    GroupedMPDResult,
    MPDReadings,
    MPDResult,
    average_over_models,
    benchmark_table,
    model_table,
    mpd,
    mpd_readings,
    pairwise_distance_sum,
    rank_table,
    score_spread_table,
    summary_table,
    variant_table,
)
from benchkit.landscape._perturb import (
    PROMPT_TEMPLATE,
    SYSTEM_PROMPT,
    VARIANTS,
    PerturbationSet,
    baseline,
    cities,
    mask,
    negation_terms,
    no_answer,
    noise_injection,
    normalize_items,
    perturb,
    positional_bias,
    render,
    render_prompt,
    score_bias,
    standardize_choices,
)
from benchkit.landscape._points import (
    LETTERS,
    LandscapePoints,
    points,
)
from benchkit.landscape._runners import (
    Backend,
    CallableBackend,
    OpenAIBackend,
    Prompt,
    RunnerError,
    RunResult,
    TransientError,
    letter_logprobs,
    points_from_records,
    read_results,
    run_prompts,
    to_long,
)
from benchkit.landscape._structure import (
    STRUCTURAL_LABELS,
    StructuralResult,
    ValidityResult,
    classify_structure,
    parse_structural_label,
    response_validity,
    structural_prompt,
    structural_rules,
)
from benchkit.landscape._validate import (
    TAXONOMY,
    Agreement,
    ConsistencyResult,
    FlagValidation,
    NoiseFailures,
    annotation_agreement,
    hnorm_consistency,
    labelling_table,
    noise_failures,
    taxonomy,
    taxonomy_counts,
    validate_flags,
    validation_table,
)
from benchkit.landscape.explore import (
    LandscapeData,
    landscape_data,
)
from benchkit.landscape.responses import (
    points_from_responses,
)

__all__ = [
    "Agreement",
    "Backend",
    "CallableBackend",
    "ConsistencyResult",
    "FlagValidation",
    "GroupedMPDResult",
    "LETTERS",
    "LandscapeData",
    "LandscapePoints",
    "MPDReadings",
    "MPDResult",
    "NoiseFailures",
    "OpenAIBackend",
    "PROMPT_TEMPLATE",
    "PerturbationSet",
    "Prompt",
    "RunResult",
    "RunnerError",
    "STRUCTURAL_LABELS",
    "SYSTEM_PROMPT",
    "StructuralResult",
    "TAXONOMY",
    "TransientError",
    "VARIANTS",
    "ValidityResult",
    "annotation_agreement",
    "average_over_models",
    "baseline",
    "benchmark_table",
    "cities",
    "classify_structure",
    "hnorm_consistency",
    "labelling_table",
    "landscape_data",
    "letter_logprobs",
    "mask",
    "model_table",
    "mpd",
    "mpd_readings",
    "negation_terms",
    "no_answer",
    "noise_failures",
    "noise_injection",
    "normalize_items",
    "pairwise_distance_sum",
    "parse_structural_label",
    "perturb",
    "points",
    "points_from_records",
    "points_from_responses",
    "positional_bias",
    "rank_table",
    "read_results",
    "render",
    "render_prompt",
    "response_validity",
    "run_prompts",
    "score_bias",
    "score_spread_table",
    "standardize_choices",
    "structural_prompt",
    "structural_rules",
    "summary_table",
    "taxonomy",
    "taxonomy_counts",
    "to_long",
    "validate_flags",
    "validation_table",
    "variant_table",
]
