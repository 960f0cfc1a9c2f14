r"""Item response theory for benchmark matrices: 1PL / 2PL fits, diagnostics, online calibration.

Input everywhere is an items x models matrix ``Y`` of 0/1 responses (float, NaN = missing cell),
e.g. ``ResponseSet.binary()``. The model of paper 002 (Figure 2, step 3) is the 1PL

.. math:: P(Y_{ij} = 1) = \sigma(\theta_j - b_i),

with item difficulty :math:`b_i` (higher = harder) and model ability :math:`\theta_j`.

============================= ==================================================================
:func:`fit_1pl`               marginal ML with adaptive quadrature (``method="mml"``) or
                              penalized joint ML (``method="jml"``); complete matrices are
                              collapsed exactly by their sufficient statistics
:func:`fit_2pl`               2PL :math:`\sigma(a_i(\theta_j - b_i))` by marginal ML
:func:`fit_statistics`        infit / outfit mean squares of items and models
:func:`response_diagnostics`  model and item information, inversion (Guttman-error) rates
:func:`calibrate_items`       online calibration of new items against a fixed fit
:func:`fit_1pl_counts`        binomial 1PL on k-of-T counts (repeated samples per cell)
:func:`fit_1pl_bayes`         Bayesian 1PL by NUTS with R-hat / ESS / divergences / PSIS-LOO
                              checks (optional extra ``benchkit[bayes]``)
:func:`fit_spectral`          spectral multidimensional working model (family-DIF paper 001,
                              Eq. 12-23); :func:`select_dimension` picks K by held-out loss
============================= ==================================================================

Bayesian fit: :func:`fit_1pl_bayes` samples the paper's 1PL by NUTS (PyMC compiled by nutpie;
the optional extra ``benchkit[bayes]``) and reports the paper's post-fit checks as ArviZ computes
them (max R-hat, min bulk ESS, divergent transitions, PSIS-LOO Pareto k) beside the posterior-mode
fit of :func:`fit_1pl`. The difficulties' posterior means can be passed to :mod:`benchkit.measure`
like any array.

Layout: ``_bayes`` (:func:`fit_1pl_bayes`), ``_marginal`` (MML of the 1PL / 2PL on adaptive
quadrature), ``_joint`` (penalized JML),
``_binomial`` (:func:`fit_1pl_counts`), ``_diagnostics`` (:func:`fit_statistics`,
:func:`response_diagnostics`), ``_online`` (:func:`calibrate_items`), ``_spectral`` (the spectral
MIRT approximation) and ``_common`` (input scanning, priors, :class:`IRTFit`). This is the shared
IRT layer: it imports no method package (leave-one-model-out stability of the measure metrics is
:func:`benchkit.measure.steps.leave_one_model_out`).
"""
from benchkit.irt._bayes import BayesFit
from benchkit.irt._bayes import fit_1pl_bayes
from benchkit.irt._binomial import fit_1pl_counts
from benchkit.irt._common import IRTFit
from benchkit.irt._diagnostics import FitStatistics
from benchkit.irt._diagnostics import ResponseDiagnostics
from benchkit.irt._diagnostics import fit_statistics
from benchkit.irt._diagnostics import response_diagnostics
from benchkit.irt._marginal import fit_1pl
from benchkit.irt._marginal import fit_2pl
from benchkit.irt._online import Calibration
from benchkit.irt._online import calibrate_items
from benchkit.irt._spectral import K_GRID
from benchkit.irt._spectral import DimensionSelection
from benchkit.irt._spectral import SpectralFit
from benchkit.irt._spectral import fit_spectral
from benchkit.irt._spectral import randomized_svd
from benchkit.irt._spectral import select_dimension
from benchkit.irt._spectral import standardize

__all__ = [
    "BayesFit",
    "Calibration",
    "DimensionSelection",
    "FitStatistics",
    "IRTFit",
    "K_GRID",
    "ResponseDiagnostics",
    "SpectralFit",
    "calibrate_items",
    "fit_1pl",
    "fit_1pl_bayes",
    "fit_1pl_counts",
    "fit_2pl",
    "fit_spectral",
    "fit_statistics",
    "randomized_svd",
    "response_diagnostics",
    "select_dimension",
    "standardize",
]
