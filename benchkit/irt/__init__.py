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
:func:`fit_spectral`          spectral multidimensional working model (family-DIF paper 001,
                              Eq. 12-23); :func:`select_dimension` picks K by held-out loss
============================= ==================================================================

Bayesian fits: the paper fits the 1PL by MCMC and checks R-hat, bulk ESS and divergences. benchkit
gives the frequentist fits; for a Bayesian 1PL use an existing sampler, e.g. PyMC
(``pm.Bernoulli("y", logit_p=theta[j] - b[i], observed=y)`` on the observed cells with
``theta ~ Normal(0, sigma)``) or Stan (``bernoulli_logit``) and check convergence with ArviZ
(``az.summary`` gives ``r_hat`` and ``ess_bulk``; ``az.loo`` the leave-one-out stability). The
difficulties' posterior means can be passed to :mod:`benchkit.measure` like any array.

Layout: ``_marginal`` (MML of the 1PL / 2PL on adaptive quadrature), ``_joint`` (penalized JML),
``_binomial`` (:func:`fit_1pl_counts`), ``_diagnostics`` (:func:`fit_statistics`,
:func:`response_diagnostics`), ``_online`` (:func:`calibrate_items`), ``_spectral`` (the spectral
MIRT approximation) and ``_common`` (input scanning, priors, :class:`IRTFit`). This is the shared
IRT layer: it imports no method package (leave-one-model-out stability of the measure metrics is
:func:`benchkit.measure.leave_one_model_out`).
"""
from benchkit.irt._binomial import fit_1pl_counts
from benchkit.irt._common import IRTFit
from benchkit.irt._diagnostics import (
    FitStatistics,
    ResponseDiagnostics,
    fit_statistics,
    response_diagnostics,
)
from benchkit.irt._marginal import fit_1pl, fit_2pl
from benchkit.irt._online import Calibration, calibrate_items
from benchkit.irt._spectral import (
    K_GRID,
    DimensionSelection,
    SpectralFit,
    fit_spectral,
    randomized_svd,
    select_dimension,
    standardize,
)

__all__ = [
    "Calibration",
    "DimensionSelection",
    "FitStatistics",
    "IRTFit",
    "K_GRID",
    "ResponseDiagnostics",
    "SpectralFit",
    "calibrate_items",
    "fit_1pl",
    "fit_1pl_counts",
    "fit_2pl",
    "fit_spectral",
    "fit_statistics",
    "randomized_svd",
    "response_diagnostics",
    "select_dimension",
    "standardize",
]
