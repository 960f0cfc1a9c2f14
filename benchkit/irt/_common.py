"""Shared helpers of the IRT fits: input scanning, labels, priors, the result type, CG."""
from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_float
from benchkit._validation import describe


# ----------------------------------------------------------------------------------------------
# input
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Stats:
    """One-pass summaries of a 0/1 matrix with NaN for missing cells."""

    row_sum: np.ndarray
    row_obs: np.ndarray
    col_sum: np.ndarray
    col_obs: np.ndarray

    @property
    def complete(self) -> bool:
        return bool(np.all(self.row_obs == self.col_obs.size))


def _scan(arr: np.ndarray, name: str) -> _Stats:
    from benchkit._kernels.irt import scan_binary

    if arr.flags.c_contiguous:
        rs, ro, cs, co, n_bad = scan_binary(arr)
    elif arr.flags.f_contiguous:  # e.g. DataFrame.to_numpy(): scan the transpose, no copy
        cs, co, rs, ro, n_bad = scan_binary(arr.T)
    else:
        rs, ro, cs, co, n_bad = scan_binary(np.ascontiguousarray(arr))
    if n_bad > 0:
        bad = ~np.isnan(arr) & (arr != 0.0) & (arr != 1.0)
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise BenchkitValueError(
            f"{name} must hold 0/1 responses (NaN for missing); found {describe(arr[i, j])} at "
            f"item {i}, model {j}"
        )
    return _Stats(rs, ro, cs, co)


def _matrix_stats(Y: Any, name: str = "Y") -> tuple[np.ndarray, _Stats]:
    if hasattr(Y, "binary") and callable(Y.binary):  # a ResponseSet
        Y = Y.binary()
    if isinstance(Y, pd.DataFrame):
        Y = Y.to_numpy(dtype=float, na_value=np.nan)
    arr = check_array(name, Y, ndim=2, dtype="float", finite=False)
    if arr.shape[0] < 1 or arr.shape[1] < 2:
        raise BenchkitValueError(
            f"{name} must be an items x models matrix with at least 1 item and 2 models; got "
            f"shape {arr.shape}"
        )
    return arr, _scan(arr, name)


def _matrix(Y: Any, name: str = "Y") -> np.ndarray:
    return _matrix_stats(Y, name)[0]


def _labels(Y: Any, n_items: int, n_models: int, items, models):
    if items is None and hasattr(Y, "item_ids"):
        items = Y.item_ids
    if models is None and hasattr(Y, "model_ids"):
        models = Y.model_ids
    if items is None and isinstance(Y, pd.DataFrame):
        items = Y.index
    if models is None and isinstance(Y, pd.DataFrame):
        models = Y.columns
    items = pd.Index(range(n_items) if items is None else list(items), name="item")
    models = pd.Index(range(n_models) if models is None else list(models), name="model")
    if len(items) != n_items:
        raise BenchkitValueError(f"items has {len(items)} ids but Y has {n_items} rows")
    if len(models) != n_models:
        raise BenchkitValueError(f"models has {len(models)} ids but Y has {n_models} columns")
    return items, models


def _prior(name: str, value: Any) -> float:
    """1/sd^2 of a Gaussian penalty, 0 for None (no penalty)."""
    if value is None:
        return 0.0
    sd = check_float(name, value, min=0.0, min_inclusive=False)
    return 1.0 / sd**2


def _softplus(x):
    return np.logaddexp(0.0, x)


def _sp_p(eta):
    """softplus(eta) and expit(eta) with one exp and one log1p per cell."""
    e = np.exp(-np.abs(eta))
    sp = np.maximum(eta, 0.0) + np.log1p(e)
    P = np.where(eta >= 0, 1.0, e) / (1.0 + e)
    return sp, P




# ----------------------------------------------------------------------------------------------
# result
# ----------------------------------------------------------------------------------------------
@result
class IRTFit:
    r"""A fitted 1PL or 2PL model: item difficulties and model abilities on one logit scale.

    :math:`P(Y_{ij} = 1) = \sigma(a_i(\theta_j - b_i))`: an item is answered correctly half of the
    time by a model whose ability equals its difficulty. Returned by :func:`fit_1pl`,
    :func:`fit_2pl` and :func:`fit_1pl_counts`; ``to_frame()`` is the item table,
    ``models_frame()`` the model table and ``probabilities()`` the fitted matrix.

    Parameters
    ----------
    difficulty, difficulty_se, discrimination, discrimination_se, ability, ability_se
        The estimates and their standard errors, as the attributes below.
    ability_sd, model, method, loglik, n_iter, converged, collapsed
        The fit's summary, as the attributes below.
    items, models, options, nodes, posterior
        Labels, options and the MML quadrature, as the attributes below. All fields are filled
        by the fitting function; an IRTFit is not built by hand.

    Attributes
    ----------
    difficulty : ndarray (n_items,)
        :math:`b_i` in logits (higher = harder). Items without any observed response are NaN;
        without an item prior, items answered all-correct / all-wrong are -inf / +inf.
    difficulty_se : ndarray (n_items,)
        Standard errors of :math:`b_i` (inf for infinite difficulties; see the fitting function
        for how they are computed).
    discrimination : ndarray (n_items,)
        :math:`a_i` (all 1 for the 1PL): how sharply the item separates abilities around its
        difficulty.
    discrimination_se : ndarray (n_items,)
        Standard errors of :math:`a_i` (0 for the 1PL; NaN for the 2PL, not computed).
    ability : ndarray (n_models,)
        :math:`\theta_j`: JML the joint estimates; MML the posterior means (EAP).
    ability_se : ndarray (n_models,)
        JML: standard errors of the abilities; MML: their posterior SDs.
    ability_sd : float
        MML: the (estimated or fixed) SD of the ability distribution; JML: SD of the estimates.
    model : str
        ``"1pl"`` or ``"2pl"``.
    method : str
        ``"mml"`` (marginal maximum likelihood) or ``"jml"`` (penalized joint maximum likelihood).
    loglik : float
        Log likelihood at the estimate (marginal for MML, joint for JML; without the penalty).
    n_iter : int
        Iterations of the optimizer.
    converged : bool
        Whether it met its tolerance before ``max_iter``.
    collapsed : bool
        Whether the fit used the complete-matrix sufficient-statistic collapse.
    items : pandas.Index
        Item labels (the rows of ``to_frame()``).
    models : pandas.Index
        Model labels (the rows of ``models_frame()``).
    options : dict
        The options of the call (method, priors, optimizer used, ...).
    nodes : ndarray or None
        MML: the quadrature grid :math:`\theta_k` (K,); None for JML.
    posterior : ndarray or None
        MML: each model's posterior weights over ``nodes`` (n_models, K), rows summing to 1 (used
        by :func:`calibrate_items`); None for JML.

    Examples
    --------
    >>> from benchkit.simulate import binary_matrix
    >>> from benchkit import irt
    >>> Y = binary_matrix(30, 20, rng=0, discrimination_sd=0.0).matrix  # 30 items x 20 models
    >>> fit = irt.fit_1pl(Y)
    >>> fit.model, fit.method, fit.converged, fit.difficulty.shape, fit.ability.shape
    ('1pl', 'mml', True, (30,), (20,))
    >>> fit.to_frame().columns.tolist()
    ['difficulty', 'difficulty_se', 'discrimination', 'discrimination_se']
    """

    difficulty: np.ndarray
    difficulty_se: np.ndarray
    discrimination: np.ndarray
    discrimination_se: np.ndarray
    ability: np.ndarray
    ability_se: np.ndarray
    ability_sd: float
    model: str
    method: str
    loglik: float
    n_iter: int
    converged: bool
    collapsed: bool
    items: pd.Index
    models: pd.Index
    options: dict = field(default_factory=dict)
    nodes: np.ndarray | None = None
    posterior: np.ndarray | None = None

    @property
    def n_items(self) -> int:
        return int(self.difficulty.size)

    @property
    def n_models(self) -> int:
        return int(self.ability.size)

    def to_frame(self) -> pd.DataFrame:
        """Item table: ``difficulty, difficulty_se, discrimination, discrimination_se``."""
        return pd.DataFrame({
            "difficulty": self.difficulty, "difficulty_se": self.difficulty_se,
            "discrimination": self.discrimination, "discrimination_se": self.discrimination_se,
        }, index=self.items)

    def models_frame(self) -> pd.DataFrame:
        """Model table: ``ability, ability_se`` per model."""
        return pd.DataFrame({"ability": self.ability, "ability_se": self.ability_se},
                            index=self.models)

    def probabilities(self) -> np.ndarray:
        """Fitted :math:`P(Y_{ij}=1)` (items x models) at the ability estimates."""
        eta = self.discrimination[:, None] * (self.ability[None, :] - self.difficulty[:, None])
        return special.expit(eta)




# ----------------------------------------------------------------------------------------------
# shared numerics
# ----------------------------------------------------------------------------------------------
def _pcg(matvec, diag, rhs, rtol, max_iter):
    """Preconditioned conjugate gradients for J x = rhs (J symmetric positive definite).

    Returns (x, ok) with ok False on non-positive curvature or no convergence.
    """
    x = np.zeros_like(rhs)
    r = rhs.copy()
    z = r / diag
    q = z.copy()
    rz = r @ z
    target = rtol * np.sqrt(rhs @ rhs)
    for _ in range(max_iter):
        Jq = matvec(q)
        qJq = q @ Jq
        if qJq <= 0:
            return x, False
        alpha = rz / qJq
        x += alpha * q
        r -= alpha * Jq
        if np.sqrt(r @ r) <= target:
            return x, True
        z = r / diag
        rz_new = r @ z
        q = z + (rz_new / rz) * q
        rz = rz_new
    return x, False


def _group(s_i, r_j):
    """Sufficient statistics of a complete 0/1 matrix, grouped.

    Distinct item totals and raw scores with their inverse maps and multiplicities (totals are
    integers: bincount, no sort).
    """
    si = s_i.astype(np.int64)
    rj = r_j.astype(np.int64)
    cs = np.bincount(si)
    s = np.flatnonzero(cs)
    inv_i = (np.cumsum(cs > 0) - 1)[si]
    cr = np.bincount(rj)
    r = np.flatnonzero(cr)
    inv_j = (np.cumsum(cr > 0) - 1)[rj]
    return (s.astype(float), inv_i, cs[s].astype(float), r.astype(float), inv_j,
            cr[r].astype(float))


def _kept_rows(arr: np.ndarray, st: _Stats, keep: np.ndarray) -> tuple[np.ndarray, _Stats]:
    """The rows ``keep`` of ``arr`` and their scan (``arr`` itself when every row is kept)."""
    if keep.all():
        return arr, st
    sub = arr[keep]
    return sub, _scan(sub, "Y")


def _item_estimates(st: _Stats, extreme: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Difficulty and SE arrays, NaN but for the extreme items of an unpenalized fit.

    Items answered correctly by every model get difficulty -inf, items no model solves +inf;
    both with SE inf. The caller fills in the fitted items.
    """
    b = np.full(st.row_sum.size, np.nan)
    se = np.full(st.row_sum.size, np.nan)
    b[extreme & (st.row_sum == st.row_obs)] = -np.inf
    b[extreme & (st.row_sum == 0)] = np.inf
    se[extreme] = np.inf
    return b, se


def _extremes(st: _Stats, prec_b: float):
    n_items = st.row_sum.size
    empty = st.row_obs == 0
    if prec_b == 0:
        extreme = ~empty & ((st.row_sum == 0) | (st.row_sum == st.row_obs))
    else:
        extreme = np.zeros(n_items, bool)
    return empty, extreme, ~empty & ~extreme
