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
from benchkit.boundary._axis import (
    ModelAxis,
    empirical_axis,
    explicit_axis,
    model_axis,
    size_axis,
    subaxes,
)
from benchkit.boundary._calibration import (
    CalibrationTable,
    build_table,
    compare_with_exact,
    exact_reference_tails,
    exact_table,
    get_table,
    min_attainable_o,
    reference_family,
)
from benchkit.boundary._profiles import ProfileResult, endpoint_gamma, gamma_table, profiles
from benchkit.boundary._reducers import (
    ReducedGenerations,
    extract_choice,
    extract_math_answer,
    extract_qa_answer,
    math_equivalent,
    normalize_math_answer,
    normalize_qa_answer,
    qa_match,
    reduce_generation,
    reduce_generations,
    score_state,
)
from benchkit.boundary._reliability import (
    BudgetSensitivityResult,
    ReliabilityResult,
    SubaxisSensitivityResult,
    budget_sensitivity,
    reliability_table,
    split_half_reliability,
    subaxis_sensitivity,
)
from benchkit.boundary._summary import BenchmarkSummary, Diagnosis, diagnosis_table, summarize
from benchkit.boundary._trajectories import (
    Trajectories,
    answer_entropy,
    binary_state_counts,
    state_trajectories,
)
from benchkit.boundary.responses import (
    ResponseProfiles,
    answers_from_generations,
    diagnose,
    profile_responses,
    profile_trajectories,
    response_reliability,
    trajectories,
)
from benchkit.boundary.utility import (
    BASELINES,
    SubsetUtilityResult,
    measurement_utility,
    ndr,
    select_bsdprobe,
    subset_utility,
    utility_table,
)

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
