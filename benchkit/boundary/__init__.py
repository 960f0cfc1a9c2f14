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
