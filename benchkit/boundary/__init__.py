"""BSDProbe: capability-boundary profiles along an ordered model axis (paper 000).

Array level: :func:`trajectories` / :func:`state_trajectories` (Sec. 3.1), :func:`profiles`
(Sec. 3.2, App. A-D) with the order-score calibration (:func:`get_table`, :func:`build_table`,
:func:`exact_table`), benchmark summaries (:func:`summarize`, Sec. 3.3), reliability and
sensitivity (App. G-H) and the measurement utility of profile-guided subsets
(:mod:`benchkit.boundary.utility`, Sec. 4.4, App. J). ResponseSet level:
:mod:`benchkit.boundary.responses`.

Layout: private implementation modules ``_axis``, ``_trajectories``, ``_calibration``,
``_profiles``, ``_summary``, ``_reliability``, ``_reducers`` (App. E answer reducers);
``responses`` (entry points that take a ResponseSet);
``utility`` (Sec. 4.4 experiment).
"""
from benchkit.boundary._axis import ModelAxis
from benchkit.boundary._axis import empirical_axis
from benchkit.boundary._axis import explicit_axis
from benchkit.boundary._axis import model_axis
from benchkit.boundary._axis import size_axis
from benchkit.boundary._axis import subaxes
from benchkit.boundary._calibration import CalibrationTable
from benchkit.boundary._calibration import build_table
from benchkit.boundary._calibration import compare_with_exact
from benchkit.boundary._calibration import exact_reference_tails
from benchkit.boundary._calibration import exact_table
from benchkit.boundary._calibration import get_table
from benchkit.boundary._calibration import min_attainable_o
from benchkit.boundary._calibration import reference_family
from benchkit.boundary._profiles import ProfileResult
from benchkit.boundary._profiles import endpoint_gamma
from benchkit.boundary._profiles import gamma_table
from benchkit.boundary._profiles import profiles
from benchkit.boundary._reducers import ReducedGenerations
from benchkit.boundary._reducers import extract_choice
from benchkit.boundary._reducers import extract_math_answer
from benchkit.boundary._reducers import extract_qa_answer
from benchkit.boundary._reducers import math_equivalent
from benchkit.boundary._reducers import normalize_math_answer
from benchkit.boundary._reducers import normalize_qa_answer
from benchkit.boundary._reducers import qa_match
from benchkit.boundary._reducers import reduce_generation
from benchkit.boundary._reducers import reduce_generations
from benchkit.boundary._reducers import score_state
from benchkit.boundary._reliability import BudgetSensitivityResult
from benchkit.boundary._reliability import ReliabilityResult
from benchkit.boundary._reliability import SubaxisSensitivityResult
from benchkit.boundary._reliability import budget_sensitivity
from benchkit.boundary._reliability import reliability_table
from benchkit.boundary._reliability import split_half_reliability
from benchkit.boundary._reliability import subaxis_sensitivity
from benchkit.boundary._summary import BenchmarkSummary
from benchkit.boundary._summary import Diagnosis
from benchkit.boundary._summary import diagnosis_table
from benchkit.boundary._summary import summarize
from benchkit.boundary._trajectories import Trajectories
from benchkit.boundary._trajectories import answer_entropy
from benchkit.boundary._trajectories import binary_state_counts
from benchkit.boundary._trajectories import state_trajectories
from benchkit.boundary.responses import ResponseProfiles
from benchkit.boundary.responses import answers_from_generations
from benchkit.boundary.responses import diagnose
from benchkit.boundary.responses import profile_responses
from benchkit.boundary.responses import profile_trajectories
from benchkit.boundary.responses import response_reliability
from benchkit.boundary.responses import trajectories
from benchkit.boundary.utility import BASELINES
from benchkit.boundary.utility import SubsetUtilityResult
from benchkit.boundary.utility import measurement_utility
from benchkit.boundary.utility import ndr
from benchkit.boundary.utility import select_bsdprobe
from benchkit.boundary.utility import subset_utility
from benchkit.boundary.utility import utility_table

__all__ = [
    "BASELINES",
    "BenchmarkSummary",
    "BudgetSensitivityResult",
    "CalibrationTable",
    "Diagnosis",
    "ModelAxis",
    "ProfileResult",
    "ReducedGenerations",
    "ReliabilityResult",
    "ResponseProfiles",
    "SubaxisSensitivityResult",
    "SubsetUtilityResult",
    "Trajectories",
    "answer_entropy",
    "answers_from_generations",
    "binary_state_counts",
    "budget_sensitivity",
    "build_table",
    "compare_with_exact",
    "diagnose",
    "diagnosis_table",
    "empirical_axis",
    "endpoint_gamma",
    "exact_reference_tails",
    "exact_table",
    "explicit_axis",
    "extract_choice",
    "extract_math_answer",
    "extract_qa_answer",
    "gamma_table",
    "get_table",
    "math_equivalent",
    "measurement_utility",
    "min_attainable_o",
    "model_axis",
    "ndr",
    "normalize_math_answer",
    "normalize_qa_answer",
    "profile_responses",
    "profile_trajectories",
    "profiles",
    "qa_match",
    "reduce_generation",
    "reduce_generations",
    "reference_family",
    "reliability_table",
    "response_reliability",
    "score_state",
    "select_bsdprobe",
    "size_axis",
    "split_half_reliability",
    "state_trajectories",
    "subaxes",
    "subaxis_sensitivity",
    "subset_utility",
    "summarize",
    "trajectories",
    "utility_table",
]
