"""Bayesian (Xiao et al. 2025) and PSN-IRT (Zhou et al. 2026) subset baselines (readings).

The two baselines of BSDProbe's Tables 2/3 and 11-14 that :mod:`benchkit.subsets` lacks.

BSDProbe (Sec. 4.4) names both only as baselines that "select subsets according to their own
criteria" on the same candidate pool and matched sizes. What benchkit implements:

* **Bayesian** (Xiao et al. 2025, "Confidence in LLM evaluation: a Bayesian approach to
  limited-sample challenges"): model capabilities are latent, queries are curated "to induce
  discriminative responses", and ranking is a Bayesian test over ordered capability intervals.
  Reading: each training model's correctness on item q gets a Beta(1, 1) prior updated by its
  score s in [0, 1] (one Bernoulli observation; a fractional score counts as a fractional
  success), posterior mean p = (1 + s) / 3. The models are ordered by accuracy (weakest first)
  and the item's discrimination weight is the posterior-predictive probability, averaged over
  adjacent pairs, that the stronger model answers correctly and the weaker one does not, minus
  the reverse: u_q = mean_i [p_{i+1}(1 - p_i) - p_i(1 - p_{i+1})] = mean_i (p_{i+1} - p_i),
  clipped at 0. Items are drawn without replacement with probability proportional to
  u_q + floor (``floor`` = 1e-3 of the largest weight, so every item stays reachable).
* **PSN-IRT** (Zhou et al. 2026, "Lost in benchmarks?"): a pseudo-siamese network estimates a
  four-parameter item model P = c + (d - c) sigma(a (theta - b)) (difficulty b, discrimination
  a, guessing c, feasibility d) and smaller benchmarks are built from the items with the best
  measurement properties. Reading: with a handful of models per item, c and d are not
  identifiable and the network's shared item embeddings are not available, so benchkit fits
  the 2PL special case (c = 0, d = 1; :func:`benchkit.irt.fit_2pl`, the fit tinyBenchmarks
  uses) and scores each item by its Fisher information summed over the training models'
  abilities, I_q = sum_j a_q^2 P_qj (1 - P_qj) (the 4PL information
  a^2 (P - c)^2 (d - P)^2 / ((d - c)^2 P (1 - P)) at c = 0, d = 1). Items are drawn without
  replacement with probability proportional to I_q + floor, as for Bayesian. Items with
  infinite difficulty (all right / all wrong) have information 0.

Both are stochastic (repeated sampling gives the paper's mean +- sd) and weight the selected
items equally (plain accuracy, Eq. 9).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from benchkit._random import generator
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit.subsets import Subset

__all__ = ["bayesian_item_weights", "psn_irt_item_information", "select_bayesian",
           "select_psn_irt", "select_weighted"]


def bayesian_item_weights(train) -> np.ndarray:
    """Discrimination weight u_q of the Bayesian baseline (module Notes) per row of ``train``.

    ``train`` (n_items, n_models) holds scores in [0, 1] (no NaN); models are ordered by their
    column means (ascending, ties in column order) before adjacent pairs are formed.
    """
    Y = check_array("train", train, ndim=2, dtype="float")
    if Y.shape[1] < 2:
        raise BenchkitValueError(f"train needs at least 2 models (columns); got {Y.shape[1]}")
    if Y.size and (Y.min() < 0 or Y.max() > 1):
        raise BenchkitValueError("train scores must lie in [0, 1]")
    order = np.argsort(Y.mean(axis=0), kind="stable")
    p = (1.0 + Y[:, order]) / 3.0
    u = np.diff(p, axis=1).mean(axis=1)
    return np.maximum(u, 0.0)


def psn_irt_item_information(fit) -> np.ndarray:
    """Fisher information I_q = sum_j a_q^2 P_qj (1 - P_qj) of each item over the fit's models."""
    a = np.asarray(fit.discrimination, dtype=np.float64)
    b = np.asarray(fit.difficulty, dtype=np.float64)
    th = np.asarray(fit.ability, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        z = a[:, None] * (th[None, :] - b[:, None])
        P = 1.0 / (1.0 + np.exp(-z))
        info = (a[:, None] ** 2 * P * (1.0 - P)).sum(axis=1)
    return np.where(np.isfinite(info), info, 0.0)


def select_weighted(weights, size: int, *, floor: float = 1e-3, rng: Any = None,
                    method: str = "weighted") -> Subset:
    """Draw ``size`` rows without replacement with probability proportional to w + floor * max w.

    Sequential weighted sampling without replacement (numpy ``Generator.choice(replace=False,
    p=...)``); all-zero weights fall back to uniform.
    """
    w = check_array("weights", weights, ndim=1, dtype="float")
    if np.any(w < 0):
        raise BenchkitValueError("weights must be non-negative")
    n = w.size
    size = check_int("size", size, min=1)
    if size > n:
        raise BenchkitValueError(f"size={size} is larger than the candidate pool ({n} items)")
    floor = check_float("floor", floor, min=0.0)
    top = float(w.max()) if n else 0.0
    q = w + (floor * top if top > 0 else 1.0)
    q = q / q.sum()
    idx = generator(rng).choice(n, size=size, replace=False, p=q).astype(np.int64)
    return Subset(idx, np.full(size, 1.0 / size), method, n, np.full(size, -1, np.int64),
                  {"item_weights": w})


def select_bayesian(train, size: int, *, floor: float = 1e-3, rng: Any = None) -> Subset:
    """The Bayesian baseline (Xiao et al. 2025) as read in the module Notes."""
    return select_weighted(bayesian_item_weights(train), size, floor=floor, rng=rng,
                           method="bayesian")


def select_psn_irt(Y, size: int, *, fit=None, floor: float = 1e-3, rng: Any = None) -> Subset:
    """The PSN-IRT baseline (Zhou et al. 2026) as read in the module Notes.

    ``Y`` (n_pool, n_models) 0/1 responses, or ``fit`` a 2PL fit on them (reused across
    repetitions; the fit is deterministic, only the draw is random).
    """
    if fit is None:
        from benchkit.irt import fit_2pl

        fit = fit_2pl(check_array("Y", Y, ndim=2, dtype="float"))
    return select_weighted(psn_irt_item_information(fit), size, floor=floor, rng=rng,
                           method="psn_irt")
