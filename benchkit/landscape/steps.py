"""Probability landscapes, array level: the steps behind :mod:`benchkit.landscape` (paper 003).

* :func:`points` -- option probabilities (from probabilities, log-probabilities or logits) ->
  ``P_top1``, ``H_norm``, predicted option and correctness (Sec. 3.1-3.2).
* :func:`mpd` -- exact mean pairwise distance by a numba kernel, per group, with a bootstrap
  interval or a sampled-pairs estimate for very large N (Sec. 3.3); :func:`pairwise_distance_sum`;
  the paper's MPD tables as DataFrames (:func:`benchmark_table`, :func:`variant_table`,
  :func:`model_table`, :func:`rank_table`, :func:`summary_table`, :func:`score_spread_table`);
  Fig. 2's per-item averaging (:func:`average_over_models`) and the three MPD readings side by
  side (:func:`mpd_readings`).
* :func:`perturb` and the builders :func:`baseline`, :func:`mask`, :func:`no_answer`,
  :func:`score_bias`, :func:`positional_bias`, :func:`noise_injection` (with guards:
  :func:`negation_terms`, :func:`cities`), :func:`standardize_choices` (5->4),
  :func:`normalize_items`, and the App. F prompts (:func:`render`, :func:`render_prompt`).
* Validation: noise-injection failure flags (:func:`noise_failures`), the Table 5 taxonomy
  (:func:`taxonomy`, :func:`taxonomy_counts`, :func:`labelling_table`), cross-model Spearman
  consistency of H_norm (:func:`hnorm_consistency`, Table 16), annotation agreement
  (:func:`annotation_agreement`, Table 17), flag sets against expert labels with an exact
  hypergeometric p-value (:func:`validate_flags`, :func:`validation_table`, Table 6),
  response-format validity (:func:`response_validity`, Table 14) and the App. K structural
  classifier (:func:`classify_structure`, :func:`structural_prompt`, :func:`structural_rules`,
  :func:`parse_structural_label`, Table 18).
* Runners: model calls on rendered prompts (:class:`CallableBackend`, :class:`OpenAIBackend`)
  into option log-probabilities, resumable (:func:`run_prompts`, :func:`read_results`,
  :func:`letter_logprobs`, :func:`points_from_records`, :func:`to_long`).
"""
from benchkit.landscape._backends import Backend
from benchkit.landscape._backends import CallableBackend
from benchkit.landscape._backends import Prompt
from benchkit.landscape._backends import RunnerError
from benchkit.landscape._backends import TransientError
from benchkit.landscape._backends import letter_logprobs
from benchkit.landscape._flag_validation import FlagValidation
from benchkit.landscape._flag_validation import validate_flags
from benchkit.landscape._flag_validation import validation_table
from benchkit.landscape._items import normalize_items
from benchkit.landscape._mpd import GroupedMPDResult
from benchkit.landscape._mpd import MPDResult
from benchkit.landscape._mpd import mpd
from benchkit.landscape._mpd import pairwise_distance_sum
from benchkit.landscape._mpd_tables import MPDReadings
from benchkit.landscape._mpd_tables import average_over_models
from benchkit.landscape._mpd_tables import benchmark_table
from benchkit.landscape._mpd_tables import model_table
from benchkit.landscape._mpd_tables import mpd_readings
from benchkit.landscape._mpd_tables import rank_table
from benchkit.landscape._mpd_tables import score_spread_table
from benchkit.landscape._mpd_tables import summary_table
from benchkit.landscape._mpd_tables import variant_table
from benchkit.landscape._noise import cities
from benchkit.landscape._noise import negation_terms
from benchkit.landscape._noise import noise_injection
from benchkit.landscape._openai_backend import OpenAIBackend
from benchkit.landscape._perturb import PerturbationSet
from benchkit.landscape._perturb import baseline
from benchkit.landscape._perturb import mask
from benchkit.landscape._perturb import no_answer
from benchkit.landscape._perturb import perturb
from benchkit.landscape._perturb import positional_bias
from benchkit.landscape._perturb import render
from benchkit.landscape._perturb import render_prompt
from benchkit.landscape._perturb import score_bias
from benchkit.landscape._perturb import standardize_choices
from benchkit.landscape._points import points
from benchkit.landscape._results_file import read_results
from benchkit.landscape._runners import RunResult
from benchkit.landscape._runners import points_from_records
from benchkit.landscape._runners import run_prompts
from benchkit.landscape._runners import to_long
from benchkit.landscape._structure import StructuralResult
from benchkit.landscape._structure import ValidityResult
from benchkit.landscape._structure import classify_structure
from benchkit.landscape._structure import parse_structural_label
from benchkit.landscape._structure import response_validity
from benchkit.landscape._structure import structural_prompt
from benchkit.landscape._structure import structural_rules
from benchkit.landscape._validate import Agreement
from benchkit.landscape._validate import ConsistencyResult
from benchkit.landscape._validate import NoiseFailures
from benchkit.landscape._validate import annotation_agreement
from benchkit.landscape._validate import hnorm_consistency
from benchkit.landscape._validate import labelling_table
from benchkit.landscape._validate import noise_failures
from benchkit.landscape._validate import taxonomy
from benchkit.landscape._validate import taxonomy_counts

__all__ = [
    "Agreement",
    "Backend",
    "CallableBackend",
    "ConsistencyResult",
    "FlagValidation",
    "GroupedMPDResult",
    "MPDReadings",
    "MPDResult",
    "NoiseFailures",
    "OpenAIBackend",
    "PerturbationSet",
    "Prompt",
    "RunResult",
    "RunnerError",
    "StructuralResult",
    "TransientError",
    "ValidityResult",
    "annotation_agreement",
    "average_over_models",
    "baseline",
    "benchmark_table",
    "cities",
    "classify_structure",
    "hnorm_consistency",
    "labelling_table",
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
