"""Online calibration of new items against a fixed 1PL fit (paper 002, Figure 4 step 2(c))."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.irt._common import IRTFit
from benchkit.irt._common import _prior


# ----------------------------------------------------------------------------------------------
# online calibration
# ----------------------------------------------------------------------------------------------
@result
class Calibration:
    """Difficulties of new items calibrated against a fixed fit (:func:`calibrate_items`).

    Parameters
    ----------
    difficulty, difficulty_se, items, method, converged
        The fields below, filled by :func:`calibrate_items`.

    Attributes
    ----------
    difficulty : ndarray (n_new,)
        Difficulty of each new item on the fit's logit scale (higher = harder); NaN for an item
        with no observed response, -inf / +inf for all-correct / all-wrong items without a prior.
    difficulty_se : ndarray (n_new,)
        Standard errors (inf for infinite difficulties).
    items : Index
        Labels of the new items.
    method : str
        The fit's method, ``"mml"`` (abilities integrated over their posteriors) or ``"jml"``
        (point abilities).
    converged : bool
        Whether Newton's method met ``tol`` before ``max_iter``.

    Examples
    --------
    >>> from benchkit.simulate import binary_matrix
    >>> from benchkit import irt
    >>> Y = binary_matrix(33, 20, rng=0, discrimination_sd=0.0).matrix
    >>> cal = irt.calibrate_items(Y[30:], irt.fit_1pl(Y[:30]))
    >>> cal.method, cal.converged, cal.difficulty.round(2).tolist()
    ('mml', True, [-0.89, -2.84, -0.23])
    """

    difficulty: np.ndarray
    difficulty_se: np.ndarray
    items: pd.Index
    method: str
    converged: bool

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"difficulty": self.difficulty, "difficulty_se": self.difficulty_se},
                            index=self.items)


def calibrate_items(
    Y_new: Any,
    fit: IRTFit,
    *,
    item_prior_sd: float | None = "fit",
    tol: float = 1e-10,
    max_iter: int = 100,
    items: Sequence[Any] | None = None,
) -> Calibration:
    r"""Online calibration: difficulties of new items with all existing parameters held fixed.

    Parameters
    ----------
    Y_new : array_like (n_new, n_models)
        0/1 responses of the same models (same column order as the fit), NaN missing.
    fit : IRTFit
        A 1PL fit from :func:`fit_1pl`.
    item_prior_sd : float, None or "fit"
        Penalty on the new difficulties; ``"fit"`` (default) uses the fit's own (for an MML fit
        centred, like the fit's, at the mean difficulty of the existing items).
    tol, max_iter : float, int
        Newton convergence tolerance and iteration cap.
    items : sequence, optional
        Labels of the new items.

    Returns
    -------
    Calibration
        Difficulties on the fit's logit scale; place them on the benchmark's normalized axis with
        ``measure.steps.normalize_difficulty(b_new, reference=fit.difficulty)``.

    Notes
    -----
    Paper 002, Figure 4 step 2(c) ("online calibration to obtain an item difficulty"). For an MML
    fit, each model's ability is integrated over its posterior given the existing items (the
    one-EM-cycle "OEM" fixed-parameter calibration of Wainer & Mislevy): the new item maximizes
    :math:`\sum_j \sum_q W_{jq}\,[y_j \log P_q + (1-y_j)\log(1-P_q)]`. For a JML fit the point
    abilities are used. New items do not update the abilities or each other.

    References
    ----------
    Y. Sun, N. Yu, J. Gong, J. Shen and H. Zhang, "Your Benchmark Is an Empirical Measure Over
    Difficulty", arXiv:2610.29927, Figure 4 step 2(c). H. Wainer and R. J. Mislevy (2000),
    "Item response theory, item calibration, and proficiency estimation", in H. Wainer (ed.),
    Computerized Adaptive Testing: A Primer, 2nd ed., Erlbaum (OEM calibration).

    Examples
    --------
    Calibrate three new items against a fit of 30 existing ones, answered by the same 20 models:

    >>> from benchkit.simulate import binary_matrix
    >>> from benchkit import irt
    >>> Y = binary_matrix(33, 20, rng=0, discrimination_sd=0.0).matrix
    >>> fit = irt.fit_1pl(Y[:30])
    >>> irt.calibrate_items(Y[30:], fit, items=["new1", "new2", "new3"]).to_frame().round(2)
          difficulty  difficulty_se
    item
    new1       -0.89           0.49
    new2       -2.84           0.90
    new3       -0.23           0.46
    """
    if not isinstance(fit, IRTFit):
        raise BenchkitValueError(f"fit must be an IRTFit from fit_1pl; got {describe(fit)}")
    if fit.model != "1pl":
        raise BenchkitValueError("calibrate_items supports 1PL fits only (fit.model == '1pl')")
    arr = check_array("Y_new", Y_new, ndim=(1, 2), dtype="float", finite=False)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.shape[1] != fit.n_models:
        raise BenchkitValueError(
            f"Y_new has {arr.shape[1]} columns but the fit has {fit.n_models} models"
        )
    obs = ~np.isnan(arr)
    if np.any(obs & (arr != 0) & (arr != 1)):
        raise BenchkitValueError("Y_new must hold 0/1 responses (NaN for missing)")
    if item_prior_sd == "fit":
        item_prior_sd = fit.options.get("item_prior_sd")
    prec = _prior("item_prior_sd", item_prior_sd)
    tol = check_float("tol", tol, min=0.0, min_inclusive=False)
    max_iter = check_int("max_iter", max_iter, min=1)
    Y0 = np.nan_to_num(arr)
    Mf = obs.astype(float)
    if fit.method == "mml":
        W, nodes = fit.posterior, fit.nodes
    else:
        if not np.all(np.isfinite(fit.ability)):
            raise BenchkitValueError("the fit has infinite abilities; refit with ability_prior_sd")
        W, nodes = np.eye(fit.n_models), fit.ability
    # MML penalizes deviations from the mean difficulty (see fit_1pl); JML's penalty is at 0
    fin = np.isfinite(fit.difficulty)
    center = float(np.mean(fit.difficulty[fin])) if fit.method == "mml" and fin.any() else 0.0
    Rq = Y0 @ W  # expected correct at each node
    Nq = Mf @ W  # expected observations at each node
    n_new = arr.shape[0]
    s = Y0.sum(1)
    n = Mf.sum(1)
    mean_ability = float(np.sum(W @ nodes) / max(W.sum(), 1))
    b = special.logit(np.clip(1 - s / np.maximum(n, 1), 0.02, 0.98)) + mean_ability
    conv = False
    for _ in range(max_iter):
        P = special.expit(nodes[None, :] - b[:, None])
        g = (Nq * P).sum(1) - Rq.sum(1) - prec * (b - center)  # d loglik / db
        h = (Nq * P * (1 - P)).sum(1) + prec
        step = np.clip(g / np.maximum(h, 1e-300), -2, 2)
        b = b + step
        if np.max(np.abs(step)) < tol:
            conv = True
            break
    P = special.expit(nodes[None, :] - b[:, None])
    se = 1.0 / np.sqrt((Nq * P * (1 - P)).sum(1) + prec)
    if prec == 0:
        b = np.where(s == n, -np.inf, np.where(s == 0, np.inf, b))
        se = np.where((s == n) | (s == 0), np.inf, se)
    b = np.where(n == 0, np.nan, b)
    labels = pd.Index(range(n_new) if items is None else list(items), name="item")
    if len(labels) != n_new:
        raise BenchkitValueError(f"items has {len(labels)} ids but Y_new has {n_new} rows")
    return Calibration(b, se, labels, fit.method, conv)
