"""Diagnostics of a response matrix and of a fit: information, inversion rates, infit / outfit."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit.irt._common import IRTFit
from benchkit.irt._common import _labels
from benchkit.irt._common import _matrix


# ----------------------------------------------------------------------------------------------
# post-fit diagnostics
# ----------------------------------------------------------------------------------------------
@result
class FitStatistics:
    """Infit and outfit mean squares of items and models (Rasch fit statistics).

    Returned by :func:`fit_statistics`. Both mean squares have expectation 1 when the responses
    follow the fitted model; above ~1.3 an item (or model) is noisier than the model predicts
    (e.g. a miskeyed item), below ~0.7 more deterministic.

    Parameters
    ----------
    items, models
        The fields below, filled by :func:`fit_statistics`.

    Attributes
    ----------
    items : DataFrame
        One row per item (the fit's item labels): ``infit``, ``outfit`` and ``n_obs`` (the cells
        that entered them).
    models : DataFrame
        The same per model.

    Examples
    --------
    >>> from benchkit.simulate import binary_matrix
    >>> from benchkit import irt
    >>> Y = binary_matrix(30, 20, rng=0, discrimination_sd=0.0).matrix  # 30 items x 20 models
    >>> stats = irt.fit_statistics(Y, irt.fit_1pl(Y))
    >>> stats.items.round(2).head(2)
          infit  outfit  n_obs
    item
    0      0.97    0.92     20
    1      0.94    0.92     20
    """

    items: pd.DataFrame
    models: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        return self.items.copy()


def fit_statistics(Y: Any, fit: IRTFit) -> FitStatistics:
    r"""Item and model infit / outfit mean squares of a fitted model.

    Parameters
    ----------
    Y : array_like (n_items, n_models)
        The responses the model was fitted to (NaN missing).
    fit : IRTFit
        From :func:`fit_1pl` or :func:`fit_2pl`; its ``ability`` (JML estimates or MML EAP) is used.

    Returns
    -------
    FitStatistics
        ``items`` / ``models`` frames with ``outfit`` (mean of squared standardized residuals
        :math:`z^2 = (y - P)^2 / (P(1-P))`), ``infit`` (information-weighted:
        :math:`\sum (y-P)^2 / \sum P(1-P)`) and ``n_obs``. Expected value 1; above ~1.3
        indicates noise (e.g. miskeyed items), below ~0.7 overly deterministic responses.

    Notes
    -----
    The paper's post-fit checks (Figure 2 step 3) are Bayesian (R-hat, ESS, divergences, LOO);
    these are their frequentist counterparts for a point fit (Wright & Masters 1982). Cells whose
    fitted probability is 0 or 1 (infinite parameters) are left out.

    References
    ----------
    B. D. Wright and G. N. Masters (1982), Rating Scale Analysis, MESA Press, Ch. 5 (infit and
    outfit mean squares).
    Y. Sun, N. Yu, J. Gong, J. Shen and H. Zhang, "Your Benchmark Is an Empirical Measure Over
    Difficulty", arXiv:2610.29927, Figure 2 step 3 (the post-fit checks).

    Examples
    --------
    >>> from benchkit.simulate import binary_matrix
    >>> from benchkit import irt
    >>> Y = binary_matrix(30, 20, rng=0, discrimination_sd=0.0).matrix  # 30 items x 20 models
    >>> stats = irt.fit_statistics(Y, irt.fit_1pl(Y))
    >>> round(float(stats.items["outfit"].median()), 2)
    0.91
    """
    arr = _matrix(Y)
    if arr.shape != (fit.n_items, fit.n_models):
        raise BenchkitValueError(
            f"Y has shape {arr.shape} but the fit has {fit.n_items} items x {fit.n_models} models"
        )
    with np.errstate(invalid="ignore"):
        P = fit.probabilities()
    V = P * (1 - P)
    ok = ~np.isnan(arr) & np.isfinite(P) & (V > 0)
    R2 = np.where(ok, (np.nan_to_num(arr) - np.nan_to_num(P)) ** 2, 0.0)
    Vz = np.where(ok, V, 1.0)
    Z2 = np.where(ok, R2 / Vz, 0.0)
    Vok = np.where(ok, V, 0.0)

    def frame(axis, index):
        n = ok.sum(axis)
        with np.errstate(invalid="ignore", divide="ignore"):
            outfit = np.where(n > 0, Z2.sum(axis) / n, np.nan)
            infit = np.where(n > 0, R2.sum(axis) / Vok.sum(axis), np.nan)
        return pd.DataFrame({"infit": infit, "outfit": outfit, "n_obs": n}, index=index)

    return FitStatistics(items=frame(1, fit.items), models=frame(0, fit.models))





# ----------------------------------------------------------------------------------------------
# response-matrix diagnostics
# ----------------------------------------------------------------------------------------------
@result
class ResponseDiagnostics:
    """Pre-fit diagnostics of a response matrix (paper 002, Figure 2 step 2).

    Returned by :func:`response_diagnostics`: how much each item and model can tell apart, and
    how often the response matrix contradicts the ordering of models by accuracy.

    Parameters
    ----------
    items, models, inversion_rate
        The fields below, filled by :func:`response_diagnostics`.

    Attributes
    ----------
    items : DataFrame
        One row per item: ``n_obs``, ``p_correct``, ``information`` (:math:`p(1-p)`, 0 for items
        every model solves or fails), ``inversion_rate`` (share of comparable model pairs where
        the more accurate model fails and the less accurate succeeds; near 0.5 the item does not
        order models, above 0.5 it may be miskeyed), ``inversions`` and ``pairs``.
    models : DataFrame
        One row per model: ``n_obs``, ``accuracy``, ``information`` and the inversion counts over
        pairs of items of different p-value (failing the easier, solving the harder).
    inversion_rate : float
        The item inversion rate pooled over all items (NaN when no pair is comparable).

    Examples
    --------
    >>> from benchkit.simulate import binary_matrix
    >>> from benchkit import irt
    >>> Y = binary_matrix(30, 20, rng=0, discrimination_sd=0.0).matrix  # 30 items x 20 models
    >>> diag = irt.response_diagnostics(Y)
    >>> round(diag.inversion_rate, 3)
    0.105
    """

    items: pd.DataFrame
    models: pd.DataFrame
    inversion_rate: float

    def to_frame(self) -> pd.DataFrame:
        return self.items.copy()


def _inversions(Y: np.ndarray, strength: np.ndarray):
    """Per row of Y: (#pairs stronger-fails & weaker-succeeds, #comparable pairs).

    Columns are compared by ``strength`` (ties are not comparable); only observed cells count.
    Columns are grouped by equal strength; with S_g / O_g successes / observations of group g
    (ascending strength), inversions = sum_g F_g * sum_{h<g} S_h and pairs = sum_g O_g sum_{h<g} O_h.
    """
    order = np.argsort(strength, kind="mergesort")
    st = strength[order]
    starts = np.flatnonzero(np.concatenate([[True], st[1:] != st[:-1]]))
    Ys = Y[:, order]
    obs = ~np.isnan(Ys)
    succ = np.nan_to_num(Ys)
    S = np.add.reduceat(succ, starts, axis=1)
    Ob = np.add.reduceat(obs.astype(float), starts, axis=1)
    F = Ob - S
    cS = np.cumsum(S, axis=1) - S
    cO = np.cumsum(Ob, axis=1) - Ob
    return (F * cS).sum(1), (Ob * cO).sum(1)


def response_diagnostics(Y: Any, *, items: Sequence[Any] | None = None,
                         models: Sequence[Any] | None = None) -> ResponseDiagnostics:
    r"""Model and item information and inversion rates of an items x models 0/1 matrix.

    Parameters
    ----------
    Y : array_like (n_items, n_models), DataFrame or ResponseSet
        0/1 responses, NaN missing.
    items, models : sequence, optional
        Labels.

    Returns
    -------
    ResponseDiagnostics
        ``items``: ``n_obs``, ``p_correct``, ``information`` :math:`p(1-p)` (the Bernoulli variance:
        0 for items every model solves or fails, which carry no information on abilities),
        ``inversion_rate`` (among pairs of models of different accuracy that both answered the
        item, the fraction where the more accurate model fails and the less accurate succeeds),
        ``inversions`` and ``pairs``. ``models``: the same with roles swapped (accuracy; pairs of
        items of different p-value, where the model fails the easier and solves the harder).
        ``inversion_rate``: pooled over all items.

    Notes
    -----
    Paper 002, Figure 2 step 2 ("diagnose the response matrix with model and item information and
    inversion rates"); the paper does not define them further. Readings: information is the
    empirical Bernoulli variance at the observed proportion (the Fisher information an item
    contributes under a logistic model is P(1-P)); inversions are Guttman errors, ordering models
    by accuracy and items by proportion correct, ties excluded. An inversion rate near 0.5 means
    the item does not order models (or is miskeyed when above 0.5).

    References
    ----------
    Y. Sun, N. Yu, J. Gong, J. Shen and H. Zhang, "Your Benchmark Is an Empirical Measure Over
    Difficulty", arXiv:2610.29927, Figure 2 step 2. L. Guttman (1944), "A basis for scaling
    qualitative data", American Sociological Review 9(2), 139-150 (Guttman errors).

    Examples
    --------
    >>> from benchkit.simulate import binary_matrix
    >>> from benchkit import irt
    >>> Y = binary_matrix(30, 20, rng=0, discrimination_sd=0.0).matrix  # 30 items x 20 models
    >>> diag = irt.response_diagnostics(Y)
    >>> diag.items.round(3).head(3)
          n_obs  p_correct  information  inversion_rate  inversions  pairs
    item
    0        20       0.75        0.188           0.117          21    180
    1        20       0.25        0.188           0.122          22    180
    2        20       0.05        0.048           0.033           6    180
    """
    arr = _matrix(Y)
    items, models = _labels(Y, arr.shape[0], arr.shape[1], items, models)
    obs = ~np.isnan(arr)
    n_i = obs.sum(1)
    n_j = obs.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_i = np.nansum(arr, 1) / n_i
        p_j = np.nansum(arr, 0) / n_j
    inv_i, pairs_i = _inversions(arr, np.nan_to_num(p_j, nan=-1.0))
    # models: an inversion is failing an easier item (higher p) and solving a harder one.
    inv_j, pairs_j = _inversions(arr.T, np.nan_to_num(p_i, nan=-1.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        it = pd.DataFrame({"n_obs": n_i, "p_correct": p_i, "information": p_i * (1 - p_i),
                           "inversion_rate": np.where(pairs_i > 0, inv_i / pairs_i, np.nan),
                           "inversions": inv_i.astype(np.int64), "pairs": pairs_i.astype(np.int64)},
                          index=items)
        md = pd.DataFrame({"n_obs": n_j, "accuracy": p_j, "information": p_j * (1 - p_j),
                           "inversion_rate": np.where(pairs_j > 0, inv_j / pairs_j, np.nan),
                           "inversions": inv_j.astype(np.int64), "pairs": pairs_j.astype(np.int64)},
                          index=models)
    tot = pairs_i.sum()
    return ResponseDiagnostics(items=it, models=md,
                               inversion_rate=float(inv_i.sum() / tot) if tot > 0 else float("nan"))
