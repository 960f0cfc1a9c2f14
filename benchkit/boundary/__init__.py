"""BSDProbe: capability-boundary profiles along an ordered model axis (paper 000).

Array-level entry point :func:`profiles`; calibration of the order-consistency score in
:mod:`benchkit.boundary.calibration`.
"""
from benchkit.boundary.calibration import (
    CalibrationTable,
    build_table,
    exact_table,
    get_table,
    reference_family,
)
from benchkit.boundary.profiles import ProfileResult, endpoint_gamma, gamma_table, profiles

__all__ = [
    "profiles",
    "ProfileResult",
    "endpoint_gamma",
    "gamma_table",
    "CalibrationTable",
    "build_table",
    "exact_table",
    "get_table",
    "reference_family",
]

# --- measurement utility (Sec. 4.4, App. J): benchkit/boundary/subsets.py -----------------------
from benchkit.boundary.subsets import (  # noqa: E402
    BASELINES,
    SubsetUtilityResult,
    measurement_utility,
    ndr,
    select_bsdprobe,
    subset_utility,
    utility_table,
)

__all__ += [
    "select_bsdprobe",
    "ndr",
    "SubsetUtilityResult",
    "subset_utility",
    "measurement_utility",
    "utility_table",
    "BASELINES",
]
# --- end measurement utility ---------------------------------------------------------------------

# --- trajectories, axes, ResponseSet entry point, diagnosis, reliability (Sec. 3.1, 3.3, App. F-H)
from benchkit.boundary.axis import (  # noqa: E402
    ModelAxis,
    empirical_axis,
    explicit_axis,
    model_axis,
    size_axis,
    subaxes,
)
from benchkit.boundary.reliability import (  # noqa: E402
    BudgetSensitivityResult,
    ReliabilityResult,
    SubaxisSensitivityResult,
    budget_sensitivity,
    holm,
    jsd,
    reliability_table,
    response_reliability,
    split_half_reliability,
    subaxis_sensitivity,
)
from benchkit.boundary.responses import (  # noqa: E402
    ResponseProfiles,
    profile_responses,
    profile_trajectories,
)
from benchkit.boundary.summary import (  # noqa: E402
    BenchmarkSummary,
    Diagnosis,
    diagnose,
    diagnosis_table,
    summarize,
)
from benchkit.boundary.trajectories import (  # noqa: E402
    Trajectories,
    binary_state_counts,
    state_trajectories,
    trajectories,
)

__all__ += [
    "ModelAxis", "empirical_axis", "explicit_axis", "model_axis", "size_axis", "subaxes",
    "Trajectories", "trajectories", "state_trajectories", "binary_state_counts",
    "ResponseProfiles", "profile_responses", "profile_trajectories",
    "BenchmarkSummary", "summarize", "Diagnosis", "diagnose", "diagnosis_table",
    "ReliabilityResult", "split_half_reliability", "response_reliability", "holm", "jsd",
    "reliability_table", "BudgetSensitivityResult", "budget_sensitivity",
    "SubaxisSensitivityResult", "subaxis_sensitivity",
]
# --- end trajectories / diagnosis / reliability ---------------------------------------------------
