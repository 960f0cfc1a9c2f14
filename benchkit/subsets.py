r"""Item-subset selection for efficient evaluation: the generic selectors and ranking agreement.

Shared by the papers' subset experiments (BSDProbe's measurement utility, Sec. 4.4 / App. J, builds
on it in :func:`benchkit.boundary.measure_utility`). Input everywhere is an items x models matrix.

=================================== ===========================================================
:func:`select_random`               uniform sampling without replacement (the Random baseline)
:func:`select_anchor_points`        Anchor Points (Vivek et al., 2024): k-medoids clustering of
                                    the items' model-confidence patterns, medoids weighted by
                                    cluster size
:func:`select_tinybenchmarks`       tinyBenchmarks (Polo et al., 2024), IRT strategy: k-means
                                    on the IRT item parameters, the item nearest each centroid,
                                    weighted by cluster size
:func:`estimate_accuracy`           accuracy of models from a subset: plain subset mean, the
                                    subset's weights, or tinyBenchmarks' p-IRT estimator
:func:`fit_item_parameters`         the IRT item fit tinyBenchmarks clusters (2PL or 1PL)
:func:`kmeans`, :func:`kmedoids`    the clustering both baselines use (numpy, seeded)
=================================== ===========================================================

Every selector takes ``rng`` (None, int, SeedSequence or Generator; :mod:`benchkit._random`, a
Generator is consumed) and returns a frozen :class:`Subset` with the selected rows, their
estimator weights, method details and the seed entropy used (``rng_entropy``: passing it back as
``rng`` repeats the selection). Kendall's tau-b is :func:`benchkit.stats.kendall_tau_b`.
"""
from __future__ import annotations

from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from benchkit._clustering import KMeansResult
from benchkit._clustering import KMedoidsResult
from benchkit._clustering import _sqdist
from benchkit._clustering import kmeans
from benchkit._clustering import kmedoids
from benchkit._random import generator
from benchkit._random import seed_sequence
from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_choice
from benchkit._validation import check_int
from benchkit._validation import describe

__all__ = [
    "Subset",
    "KMeansResult",
    "KMedoidsResult",
    "fit_item_parameters",
    "kmeans",
    "kmedoids",
    "select_random",
    "select_anchor_points",
    "select_tinybenchmarks",
    "estimate_accuracy",
    "irt_abilities",
]


# ----------------------------------------------------------------------------------------------
# results
# ----------------------------------------------------------------------------------------------
@result
class Subset:
    """A selected item subset: which rows of the pool, and how each one counts in an estimate.

    Returned by every selector (:func:`select_random`, :func:`select_anchor_points`,
    :func:`select_tinybenchmarks`, and BSDProbe's
    :func:`benchkit.boundary.steps.select_bsdprobe`); pass it to :func:`estimate_accuracy` with
    the models' scores on ``indices``.

    Parameters
    ----------
    indices, weights, method, n_pool, groups, info, rng_entropy
        The fields below, filled by the selector (a Subset is not built by hand).

    Attributes
    ----------
    indices : ndarray of int64
        Selected rows of the candidate matrix, in selection order.
    weights : ndarray of float64
        The method's estimator weight of each selected item (sums to 1): 1/k for Random and
        BSDProbe, the cluster share for Anchor Points and tinyBenchmarks.
    method : str
        The selector: ``"random"``, ``"anchor_points"``, ``"tinybenchmarks"``, ``"bsdprobe"`` or a
        baseline of :func:`benchkit.boundary.measure_utility` (``"bayesian"``, ``"psn_irt"``).
    n_pool : int
        Size of the candidate pool the subset was drawn from.
    groups : ndarray of int64
        Per selected item: its cluster (Anchor Points, tinyBenchmarks), stratum (BSDProbe) or -1.
    info : dict
        Method details (e.g. cluster labels of the whole pool, stratum allocation, the IRT fit).
    rng_entropy : int or None
        Entropy of the root seed the selection drew from (:mod:`benchkit._random`): pass it as
        ``rng=`` to repeat the selection exactly. None when the producer did not record it.

    Examples
    --------
    >>> from benchkit.subsets import select_random
    >>> sub = select_random(10, 4, rng=0)
    >>> sub.size, sub.weights.tolist()
    (4, [0.25, 0.25, 0.25, 0.25])
    >>> sub.to_frame().columns.tolist()
    ['index', 'weight', 'group']
    >>> select_random(10, 4, rng=sub.rng_entropy).indices.tolist() == sub.indices.tolist()
    True
    """

    indices: np.ndarray
    weights: np.ndarray
    method: str
    n_pool: int
    groups: np.ndarray
    info: dict = field(default_factory=dict)
    rng_entropy: Any = None

    @property
    def size(self) -> int:
        """Number of selected items."""
        return int(self.indices.size)

    def to_frame(self) -> pd.DataFrame:
        """One row per selected item: ``index`` (row in the pool), ``weight``, ``group``."""
        return pd.DataFrame({"index": self.indices, "weight": self.weights,
                             "group": self.groups})


# ----------------------------------------------------------------------------------------------
# selectors
# ----------------------------------------------------------------------------------------------
def _check_size(size, n_pool: int) -> int:
    size = check_int("size", size, min=1)
    if size > n_pool:
        raise BenchkitValueError(f"size={size} exceeds the candidate pool of {n_pool} items")
    return size


def _pool_matrix(name: str, X) -> np.ndarray:
    arr = check_array(name, X, ndim=2, dtype="float", finite=False)
    if np.isnan(arr).any():
        i, j = (int(v) for v in np.argwhere(np.isnan(arr))[0])
        raise BenchkitValueError(
            f"{name} must be complete on the candidate pool (no NaN); found NaN at row {i}, "
            f"column {j}: restrict the pool to complete items first"
        )
    return arr


def select_random(n_pool: int, size: int, *, rng: Any = None) -> Subset:
    """The Random baseline: ``size`` of ``n_pool`` rows uniformly without replacement.

    Every item of the pool has the same chance ``size / n_pool`` of being selected; the other
    selectors (and BSDProbe's) are judged against this one.

    Parameters
    ----------
    n_pool : int
        Size of the candidate pool (rows ``0..n_pool-1``).
    size : int
        Number of items to select, 1 <= size <= n_pool.
    rng : None, int, SeedSequence or Generator
        The draw's randomness (:mod:`benchkit._random`); the result records its entropy.

    Returns
    -------
    Subset
        ``method="random"``, weights ``1/size``, groups -1.

    References
    ----------
    H. Hu et al., "Are Benchmarks Reliable? Toward Structural Diagnosis via Item-Level Capability
    Boundaries" (BSDProbe), arXiv:2609.33196, Sec. 4.4 (the uniform Random baseline).

    Examples
    --------
    >>> from benchkit.subsets import select_random
    >>> sub = select_random(100, 5, rng=1)
    >>> sub.indices.size, sub.method, len(set(sub.indices.tolist()))
    (5, 'random', 5)
    """
    n_pool = check_int("n_pool", n_pool, min=1)
    size = _check_size(size, n_pool)
    root = seed_sequence(rng)
    idx = generator(root).choice(n_pool, size=size, replace=False).astype(np.int64)
    return Subset(idx, np.full(size, 1.0 / size), "random", n_pool, np.full(size, -1, np.int64),
                  rng_entropy=root.entropy)


def _representatives(dist_to_center: np.ndarray, labels: np.ndarray, k: int):
    """Per cluster the nearest not-yet-taken row (greedy in cluster order), cluster shares."""
    n = labels.size
    taken = np.zeros(n, bool)
    reps = np.empty(k, dtype=np.int64)
    for c in range(k):
        d = np.where(taken, np.inf, dist_to_center[:, c])
        reps[c] = int(np.argmin(d))
        taken[reps[c]] = True
    weights = np.bincount(labels, minlength=k) / float(n)
    return reps, weights


def select_anchor_points(confidence, size: int, *, metric: str = "correlation", rng: Any = None,
                         max_iter: int = 100) -> Subset:
    r"""Anchor Points (Vivek et al., 2024): k-medoids on the items' model-confidence patterns.

    Parameters
    ----------
    confidence : array_like (n_pool, n_models)
        Each source model's confidence in the correct answer per item (probability of the gold
        option, or the correctness mass k/T of repeated samples, or 0/1 correctness).
    size : int
        Number of anchor items (= medoids).
    metric : {"correlation", "euclidean"}
        Distance between items' patterns (default ``1 - r``, Anchor Points' correlation
        clustering).
    rng : None, int, SeedSequence or Generator
        Seeding of :func:`kmedoids`; the result records its entropy.
    max_iter : int, default 100
        Cap on the k-medoids iterations.

    Returns
    -------
    Subset
        The medoids with weights = cluster size / n_pool (the Anchor Points estimate of a model's
        score is the weighted mean of its anchor scores); ``info["labels"]`` the cluster of every
        pool item, ``info["clustering"]`` the :class:`KMedoidsResult`.

    Notes
    -----
    BSDProbe (Sec. 2, 4.4) describes the baseline as selecting "representative items from
    model-confidence patterns"; the original clusters items by the correlation of source models'
    confidences and predicts scores from the medoids weighted by their cluster sizes.

    References
    ----------
    R. Vivek, K. Ethayarajh, D. Yang and D. Kiela (2024), "Anchor points: benchmarking models with
    much fewer examples", EACL 2024, 1576-1601. H. Hu et al. (BSDProbe), arXiv:2609.33196,
    Sec. 4.4 (the Anchor Points baseline).

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.subsets import select_anchor_points
    >>> conf = np.random.default_rng(0).random((30, 4))  # 30 items x 4 source models
    >>> sub = select_anchor_points(conf, 3, rng=0)
    >>> sub.size, round(float(sub.weights.sum()), 6), sub.info["labels"].shape
    (3, 1.0, (30,))
    """
    C = _pool_matrix("confidence", confidence)
    size = _check_size(size, C.shape[0])
    if C.shape[1] < 2:
        raise BenchkitValueError(
            f"confidence needs at least 2 models (columns) to compare items; got {C.shape[1]}"
        )
    res = kmedoids(C, size, metric=metric, rng=rng, max_iter=max_iter)
    w = np.bincount(res.labels, minlength=size) / float(C.shape[0])
    return Subset(res.medoids.copy(), w, "anchor_points", C.shape[0],
                  np.arange(size, dtype=np.int64), {"labels": res.labels, "clustering": res},
                  res.rng_entropy)


def fit_item_parameters(Y, *, irt: str = "2pl"):
    """The IRT fit tinyBenchmarks clusters: :func:`benchkit.irt.fit_2pl` or ``fit_1pl`` of 0/1 Y.

    Parameters
    ----------
    Y : array_like (n_items, n_models)
        0/1 responses of the source models.
    irt : {"2pl", "1pl"}, default "2pl"
        The IRT model: 2PL (discrimination and difficulty per item) or 1PL (difficulty only).

    Returns
    -------
    IRTFit
        Deterministic; fit it once and pass it as ``fit=`` to :func:`select_tinybenchmarks`
        across repetitions.

    References
    ----------
    F. M. Polo, L. Weber, L. Choshen, Y. Sun, G. Xu and M. Yurochkin (2024), "tinyBenchmarks:
    evaluating LLMs with fewer examples", ICML 2024 (Sec. 3, the IRT item embeddings).

    Examples
    --------
    >>> from benchkit.simulate import binary_matrix
    >>> from benchkit.subsets import fit_item_parameters
    >>> Y = binary_matrix(40, 20, rng=0).matrix
    >>> fit = fit_item_parameters(Y, irt="1pl")
    >>> fit.model, fit.difficulty.shape
    ('1pl', (40,))
    """
    from benchkit import irt as _irt

    check_choice("irt", irt, ("2pl", "1pl"))
    if irt == "2pl":
        return _irt.fit_2pl(Y)
    return _irt.fit_1pl(Y)


def _embedding(fit) -> np.ndarray:
    b = np.asarray(fit.difficulty, float)
    if not np.all(np.isfinite(b)):
        raise BenchkitValueError("the IRT fit has non-finite difficulties; fit with an item prior")
    if fit.model == "2pl":
        return np.column_stack([np.asarray(fit.discrimination, float), b])
    return b[:, None]


def select_tinybenchmarks(Y, size: int, *, fit=None, irt: str = "2pl",
                          rng: Any = None, max_iter: int = 300) -> Subset:
    r"""tinyBenchmarks-style selection (Polo et al., 2024, "IRT" anchor strategy).

    Parameters
    ----------
    Y : array_like (n_pool, n_models) or None
        0/1 responses of the source models (needed unless ``fit`` is given).
    size : int
        Number of anchor items (= k-means clusters).
    fit : IRTFit, optional
        A :func:`benchkit.irt.fit_2pl` / ``fit_1pl`` fit on the pool (reuse it across repetitions;
        the fit is deterministic, only the clustering is random).
    irt : {"2pl", "1pl"}
        Model fitted when ``fit`` is None (default 2PL, the unidimensional case of the original's
        multidimensional IRT).
    rng : None, int, SeedSequence or Generator
        k-means++ seeding of :func:`kmeans`; the result records its entropy.
    max_iter : int, default 300
        Lloyd iteration cap.

    Returns
    -------
    Subset
        Per cluster the item nearest its centroid, weighted by cluster share; ``info["fit"]`` the
        IRT fit (for :func:`estimate_accuracy` with ``estimator="pirt"``), ``info["labels"]``.

    Notes
    -----
    Item embeddings are the IRT parameters :math:`(a_i, b_i)` (2PL) or :math:`b_i` (1PL). When the
    pool has fewer distinct embeddings than ``size``, several centroids coincide; each cluster
    still takes a distinct item (the nearest one not yet taken), and empty clusters get weight 0.

    References
    ----------
    F. M. Polo, L. Weber, L. Choshen, Y. Sun, G. Xu and M. Yurochkin (2024), "tinyBenchmarks:
    evaluating LLMs with fewer examples", ICML 2024 (Sec. 3, IRT anchor strategy). H. Hu et al.
    (BSDProbe), arXiv:2609.33196, Sec. 4.4 (the TinyBenchmarks baseline).

    Examples
    --------
    >>> from benchkit.simulate import binary_matrix
    >>> from benchkit.subsets import select_tinybenchmarks
    >>> Y = binary_matrix(60, 20, rng=0).matrix
    >>> sub = select_tinybenchmarks(Y, 5, irt="1pl", rng=0)
    >>> sub.size, sub.method, round(float(sub.weights.sum()), 6)
    (5, 'tinybenchmarks', 1.0)
    """
    irt = check_choice("irt", irt, ("2pl", "1pl"))
    if fit is None:
        if Y is None:
            raise BenchkitValueError("pass Y (0/1 responses) or a precomputed IRT fit")
        Ya = _pool_matrix("Y", Y)
        if np.any((Ya != 0) & (Ya != 1)):
            raise BenchkitValueError("Y must hold 0/1 responses; binarize scores first")
        fit = fit_item_parameters(Ya, irt=irt)
    elif not hasattr(fit, "difficulty") or not hasattr(fit, "discrimination"):
        raise BenchkitTypeError(f"fit must be an IRTFit from benchkit.irt; got {describe(fit)}")
    E = _embedding(fit)
    size = _check_size(size, E.shape[0])
    km = kmeans(E, size, rng=rng, max_iter=max_iter)
    d = np.sqrt(_sqdist(E, km.centers))
    reps, w = _representatives(d, km.labels, size)
    return Subset(reps, w, "tinybenchmarks", E.shape[0], np.arange(size, dtype=np.int64),
                  {"labels": km.labels, "clustering": km, "fit": fit}, km.rng_entropy)


# ----------------------------------------------------------------------------------------------
# estimation
# ----------------------------------------------------------------------------------------------
def irt_abilities(Y_sub, a, b, *, prior_sd: float = 1.0, tol: float = 1e-10,
                  max_iter: int = 100) -> np.ndarray:
    r"""MAP abilities of models from their responses on items with known 2PL parameters.

    The ability step of tinyBenchmarks' p-IRT estimator (:func:`estimate_accuracy` with
    ``estimator="pirt"``): where does each model sit on the IRT scale, given its answers to the
    subset's items?

    Parameters
    ----------
    Y_sub : array_like (n_items, n_models)
        Responses (0/1 or fractional scores in [0, 1]) of the models on the items.
    a, b : array_like (n_items,)
        The items' 2PL discriminations and difficulties.
    prior_sd : float, default 1.0
        SD of the normal prior on the abilities (mean 0).
    tol : float, default 1e-10
        Stop when no ability moves by more than ``tol``.
    max_iter : int, default 100
        Cap on the Newton steps.

    Returns
    -------
    ndarray (n_models,)
        The abilities :math:`\hat\theta` (higher = more able, on the scale of ``b``).

    Notes
    -----
    Maximizes :math:`\sum_i [y_i \log \sigma(a_i(\theta - b_i)) + (1 - y_i)\log(1 - \sigma(\cdot))]
    - \theta^2 / (2\,\mathrm{sd}^2)` per model (column of ``Y_sub``, fractional y allowed) by
    safeguarded Newton steps (each step clipped to [-1, 1]); the objective is strictly concave.

    References
    ----------
    F. M. Polo, L. Weber, L. Choshen, Y. Sun, G. Xu and M. Yurochkin (2024), "tinyBenchmarks:
    evaluating LLMs with fewer examples", ICML 2024 (Sec. 3, the p-IRT estimator).

    Examples
    --------
    Items of difficulty -1, 0 and 1; model 0 answers the two easier ones, model 1 only the
    easiest, so model 1 sits lower on the scale:

    >>> from benchkit.subsets import irt_abilities
    >>> theta = irt_abilities([[1, 1], [1, 0], [0, 0]], [1.0, 1.0, 1.0], [-1.0, 0.0, 1.0])
    >>> theta.round(3).tolist()
    [0.305, -0.305]
    """
    Y = check_array("Y_sub", Y_sub, ndim=2, dtype="float")
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    prec = 1.0 / float(prior_sd) ** 2
    t = np.zeros(Y.shape[1])
    for _ in range(max_iter):
        P = special.expit(a[:, None] * (t[None, :] - b[:, None]))
        g = (a[:, None] * (Y - P)).sum(0) - prec * t
        h = (a[:, None] ** 2 * P * (1 - P)).sum(0) + prec
        step = np.clip(g / h, -1.0, 1.0)
        t = t + step
        if np.max(np.abs(step)) < tol:
            break
    return t


def estimate_accuracy(scores_subset, subset: Subset, *, estimator: str = "subset",
                      n_pool: int | None = None) -> np.ndarray:
    r"""Models' benchmark accuracy estimated from their scores on a subset.

    Parameters
    ----------
    scores_subset : array_like (size, n_models)
        Scores of the evaluated models on ``subset.indices`` (in that order).
    subset : Subset
        The selection the scores belong to (from a selector of this module).
    estimator : {"subset", "weighted", "pirt"}
        ``"subset"``: the plain accuracy on the subset (what BSDProbe's Eq. 9 scores);
        ``"weighted"``: :math:`\sum_i w_i y_i` with the subset's weights (Anchor Points /
        tinyBenchmarks' anchor estimate); ``"pirt"``: tinyBenchmarks' p-IRT estimate
        :math:`\hat Z = N^{-1}[\sum_{i\in S} y_i + \sum_{i\notin S} P_i(\hat\theta)]` with
        :math:`\hat\theta` from :func:`irt_abilities` on the subset (needs ``subset.info["fit"]``).
    n_pool : int, optional
        Not used: the pool size is ``subset.n_pool`` (p-IRT predicts the ``N`` items of the fit).

    Returns
    -------
    ndarray (n_models,)
        Estimated accuracy of each model on the whole pool, in [0, 1].

    References
    ----------
    F. M. Polo, L. Weber, L. Choshen, Y. Sun, G. Xu and M. Yurochkin (2024), "tinyBenchmarks:
    evaluating LLMs with fewer examples", ICML 2024 (Sec. 3, the p-IRT estimator). R. Vivek,
    K. Ethayarajh, D. Yang and D. Kiela (2024), "Anchor points", EACL 2024 (the weighted
    estimate). H. Hu et al. (BSDProbe), arXiv:2609.33196, Sec. 4.4, Eq. (9) (the subset scores).

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.subsets import estimate_accuracy, select_random
    >>> sub = select_random(10, 4, rng=0)
    >>> scores = np.array([[1, 0], [1, 1], [0, 0], [1, 0]])  # 4 selected items x 2 models
    >>> estimate_accuracy(scores, sub).tolist()
    [0.75, 0.25]
    """
    Y = check_array("scores_subset", scores_subset, ndim=2, dtype="float")
    if Y.shape[0] != subset.size:
        raise BenchkitValueError(
            f"scores_subset has {Y.shape[0]} rows but the subset has {subset.size} items"
        )
    check_choice("estimator", estimator, ("subset", "weighted", "pirt"))
    if estimator == "subset":
        return Y.mean(0)
    if estimator == "weighted":
        return subset.weights @ Y
    fit = subset.info.get("fit")
    if fit is None:
        raise BenchkitValueError("estimator='pirt' needs a subset from select_tinybenchmarks")
    a = np.asarray(fit.discrimination, float)
    b = np.asarray(fit.difficulty, float)
    sd = float(fit.ability_sd) if np.isfinite(fit.ability_sd) and fit.ability_sd > 0 else 1.0
    theta = irt_abilities(Y, a[subset.indices], b[subset.indices], prior_sd=sd)
    rest = np.ones(a.size, bool)
    rest[subset.indices] = False
    P = special.expit(a[rest, None] * (theta[None, :] - b[rest, None]))
    return (Y.sum(0) + P.sum(0)) / float(a.size)
