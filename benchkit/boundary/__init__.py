"""BSDProbe: capability-boundary profiles along an ordered model axis (paper 000).

Entry points (a ResponseSet in, a result out):

================================ ==================================================================
:func:`profile`                  trajectories, isotonic fits and profiles (x, w, v, o) of the items
                                 along one model axis (Sec. 3.1-3.2, App. A-F)
                                 -> :class:`ResponseProfiles`
:func:`diagnose`                 profiles and benchmark-level summaries for every benchmark x axis
                                 (Sec. 3.3, Table 1) -> :class:`Diagnosis`
:func:`estimate_reliability`     split-half reliability of the answer-state trajectories of one
                                 model (App. G, Tables 7/8) -> :class:`ReliabilityResult`
:func:`measure_utility`          profile-guided subsets against the baselines, scored by NDR and
                                 Kendall tau_b (Sec. 4.4, App. J, Tables 2/3)
                                 -> :class:`SubsetUtilityResult`
================================ ==================================================================

The array-level steps (trajectories from counts, the order-score calibration tables, profiles,
summaries, the App. E answer reducers, the App. H sensitivity analyses, subset selection and the
paper-table layouts) are in :mod:`benchkit.boundary.steps`; the explorer's view model is in
:mod:`benchkit.boundary.explore`.

Layout: private implementation modules ``_axis``, ``_trajectories``, ``_calibration`` (the
Monte Carlo tables; ``_calibration_exact`` the exact enumeration, ``_calibration_lookup`` the
shipped and cached tables), ``_profiles``, ``_summary``, ``_reliability`` (App. G),
``_sensitivity`` (App. H), ``_reducers`` and ``_math_answers`` (App. E answer reducers),
``_selection`` (BSDProbe's subsets), ``_baselines``, ``_utility`` and ``_measure_utility``
(Sec. 4.4 experiment); ``responses`` (entry points that take a ResponseSet); ``steps`` (the second
tier); ``explore`` (view models).
"""
from benchkit.boundary import steps as steps
from benchkit.boundary._axis import ModelAxis
from benchkit.boundary._measure_utility import measure_utility
from benchkit.boundary._profiles import ProfileResult
from benchkit.boundary._reliability import ReliabilityResult
from benchkit.boundary._summary import BenchmarkSummary
from benchkit.boundary._summary import Diagnosis
from benchkit.boundary._trajectories import Trajectories
from benchkit.boundary._utility import BASELINES
from benchkit.boundary._utility import SubsetUtilityResult
from benchkit.boundary.responses import ResponseProfiles
from benchkit.boundary.responses import diagnose
from benchkit.boundary.responses import estimate_reliability
from benchkit.boundary.responses import profile

__all__ = [
    "BASELINES",
    "BenchmarkSummary",
    "Diagnosis",
    "ModelAxis",
    "ProfileResult",
    "ReliabilityResult",
    "ResponseProfiles",
    "SubsetUtilityResult",
    "Trajectories",
    "diagnose",
    "estimate_reliability",
    "measure_utility",
    "profile",
]
