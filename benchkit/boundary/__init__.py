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
