"""BSDProbe, array level: the documented steps behind :mod:`benchkit.boundary`'s entry points.

For those who rebuild the pipeline (paper 000):

* model axes (App. F): :func:`model_axis`, :func:`empirical_axis`, :func:`size_axis`,
  :func:`explicit_axis`, :func:`subaxes`;
* trajectories (Sec. 3.1, Eq. 1-3): :func:`trajectories` (of a ResponseSet),
  :func:`state_trajectories`, :func:`binary_state_counts`, :func:`answer_entropy`;
* the order-consistency calibration (App. D, Eq. 17-19): :func:`get_calibration` (shipped or
  cached Monte Carlo tables), :func:`build_calibration`, :func:`exact_calibration`,
  :func:`exact_reference_tails`, :func:`compare_with_exact`, :func:`min_attainable_o`,
  :func:`reference_family`, :class:`CalibrationTable`;
* profiles (Sec. 3.2, App. A-C): :func:`profiles` (from counts), :func:`profile_trajectories`,
  :func:`endpoint_gamma`, :func:`gamma_grid`;
* summaries (Sec. 3.3): :func:`summarize_profiles`, :func:`tabulate_profiles` (Table 1);
* reliability and sensitivity (App. G-H): :func:`split_half_reliability`,
  :func:`reliability_table` (Tables 7/8), :func:`budget_sensitivity` (Table 9),
  :func:`subaxis_sensitivity` (Table 10);
* answer reducers (App. E): :func:`answers_from_generations`, :func:`reduce_generations`,
  :func:`reduce_generation`, :func:`extract_choice`, :func:`extract_math_answer`,
  :func:`extract_qa_answer`, :func:`normalize_math_answer`, :func:`normalize_qa_answer`,
  :func:`math_equivalent`, :func:`qa_match`, :func:`score_state`;
* measurement utility (Sec. 4.4, App. J): :func:`select_bsdprobe`, :func:`ndr` (Eq. 9),
  :func:`subset_utility`, :func:`utility_table` (Tables 2/3).
"""
from benchkit.boundary._axis import empirical_axis
from benchkit.boundary._axis import explicit_axis
from benchkit.boundary._axis import model_axis
from benchkit.boundary._axis import size_axis
from benchkit.boundary._axis import subaxes
from benchkit.boundary._calibration import CalibrationTable
from benchkit.boundary._calibration import build_calibration
from benchkit.boundary._calibration import reference_family
from benchkit.boundary._calibration_exact import compare_with_exact
from benchkit.boundary._calibration_exact import exact_calibration
from benchkit.boundary._calibration_exact import exact_reference_tails
from benchkit.boundary._calibration_lookup import get_calibration
from benchkit.boundary._calibration_lookup import min_attainable_o
from benchkit.boundary._math_answers import extract_math_answer
from benchkit.boundary._math_answers import math_equivalent
from benchkit.boundary._math_answers import normalize_math_answer
from benchkit.boundary._profiles import endpoint_gamma
from benchkit.boundary._profiles import gamma_grid
from benchkit.boundary._profiles import profiles
from benchkit.boundary._reducers import ReducedGenerations
from benchkit.boundary._reducers import extract_choice
from benchkit.boundary._reducers import extract_qa_answer
from benchkit.boundary._reducers import normalize_qa_answer
from benchkit.boundary._reducers import qa_match
from benchkit.boundary._reducers import reduce_generation
from benchkit.boundary._reducers import reduce_generations
from benchkit.boundary._reducers import score_state
from benchkit.boundary._reliability import reliability_table
from benchkit.boundary._reliability import split_half_reliability
from benchkit.boundary._selection import select_bsdprobe
from benchkit.boundary._sensitivity import BudgetSensitivityResult
from benchkit.boundary._sensitivity import SubaxisSensitivityResult
from benchkit.boundary._sensitivity import budget_sensitivity
from benchkit.boundary._sensitivity import subaxis_sensitivity
from benchkit.boundary._summary import summarize_profiles
from benchkit.boundary._summary import tabulate_profiles
from benchkit.boundary._trajectories import answer_entropy
from benchkit.boundary._trajectories import binary_state_counts
from benchkit.boundary._trajectories import state_trajectories
from benchkit.boundary._utility import ndr
from benchkit.boundary._utility import subset_utility
from benchkit.boundary._utility import utility_table
from benchkit.boundary.responses import answers_from_generations
from benchkit.boundary.responses import profile_trajectories
from benchkit.boundary.responses import trajectories

__all__ = [
    "BudgetSensitivityResult",
    "CalibrationTable",
    "ReducedGenerations",
    "SubaxisSensitivityResult",
    "answer_entropy",
    "answers_from_generations",
    "binary_state_counts",
    "budget_sensitivity",
    "build_calibration",
    "compare_with_exact",
    "empirical_axis",
    "endpoint_gamma",
    "exact_calibration",
    "exact_reference_tails",
    "explicit_axis",
    "extract_choice",
    "extract_math_answer",
    "extract_qa_answer",
    "gamma_grid",
    "get_calibration",
    "math_equivalent",
    "min_attainable_o",
    "model_axis",
    "ndr",
    "normalize_math_answer",
    "normalize_qa_answer",
    "profile_trajectories",
    "profiles",
    "qa_match",
    "reduce_generation",
    "reduce_generations",
    "reference_family",
    "reliability_table",
    "score_state",
    "select_bsdprobe",
    "size_axis",
    "split_half_reliability",
    "state_trajectories",
    "subaxes",
    "subaxis_sensitivity",
    "subset_utility",
    "summarize_profiles",
    "tabulate_profiles",
    "trajectories",
    "utility_table",
]
