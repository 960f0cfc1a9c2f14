"""Clustering for the subset selectors: k-means (tinyBenchmarks) and k-medoids (Anchor Points).

Public through :mod:`benchkit.subsets` (``kmeans``, ``kmedoids`` and their results); numpy only,
seeded through :mod:`benchkit._random`, memory O(n k) for k-medoids.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from benchkit._random import generator
from benchkit._random import seed_sequence
from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_choice
from benchkit._validation import check_int


@result
class KMeansResult:
    """Lloyd's k-means: the cluster centers and every point's cluster (:func:`kmeans`).

    Parameters
    ----------
    centers, labels, inertia, n_iter, converged, rng_entropy
        The fields below, filled by :func:`kmeans`.

    Attributes
    ----------
    centers : ndarray (k, d)
        Cluster centers (the mean of their points; a cluster that emptied keeps its last center).
    labels : ndarray of int64 (n,)
        Cluster of each point, ``0..k-1`` (its nearest center, ties to the lowest number).
    inertia : float
        Sum of squared Euclidean distances of the points to their centers (lower = tighter).
    n_iter : int
        Lloyd iterations run.
    converged : bool
        True when no center moved by more than ``tol`` before ``max_iter`` was reached.
    rng_entropy : int
        Entropy of the root seed of the k-means++ seeding: ``rng=rng_entropy`` repeats the run.

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.subsets import kmeans
    >>> X = np.array([[0.0], [0.1], [5.0], [5.2]])
    >>> res = kmeans(X, 2, rng=0)
    >>> sorted(res.to_frame()["size"].tolist()), res.converged
    ([2, 2], True)
    """

    centers: np.ndarray
    labels: np.ndarray
    inertia: float
    n_iter: int
    converged: bool
    rng_entropy: Any

    def to_frame(self) -> pd.DataFrame:
        """One row per cluster: its size and center coordinates."""
        df = pd.DataFrame(self.centers, columns=[f"c{j}" for j in range(self.centers.shape[1])])
        df.insert(0, "size", np.bincount(self.labels, minlength=self.centers.shape[0]))
        return df


@result
class KMedoidsResult:
    """Alternating k-medoids: the medoid rows and every object's cluster (:func:`kmedoids`).

    Parameters
    ----------
    medoids, labels, cost, n_iter, converged, metric, rng_entropy
        The fields below, filled by :func:`kmedoids`.

    Attributes
    ----------
    medoids : ndarray of int64 (k,)
        Row of ``X`` that is the medoid of each cluster.
    labels : ndarray of int64 (n,)
        Cluster of each row, ``0..k-1`` (its nearest medoid; a medoid belongs to its own cluster).
    cost : float
        Sum of the distances of the rows to their medoids (lower = tighter clusters).
    n_iter : int
        Alternating iterations run.
    converged : bool
        True when the medoids stopped changing before ``max_iter`` was reached.
    metric : str
        The distance used, ``"correlation"`` or ``"euclidean"``.
    rng_entropy : int
        Entropy of the root seed of the medoid seeding: ``rng=rng_entropy`` repeats the run.

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.subsets import kmedoids
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
    >>> res = kmedoids(X, 2, metric="euclidean", rng=0)
    >>> sorted(X[res.medoids, 0].tolist()), round(res.cost, 2)
    ([0.1, 5.1], 0.4)
    """

    medoids: np.ndarray
    labels: np.ndarray
    cost: float
    n_iter: int
    converged: bool
    metric: str
    rng_entropy: Any

    def to_frame(self) -> pd.DataFrame:
        """One row per cluster: medoid row and cluster size."""
        return pd.DataFrame({"medoid": self.medoids,
                             "size": np.bincount(self.labels, minlength=self.medoids.size)})


# ----------------------------------------------------------------------------------------------
# clustering
# ----------------------------------------------------------------------------------------------
def _sqdist(X: np.ndarray, C: np.ndarray) -> np.ndarray:
    d = (X * X).sum(1)[:, None] - 2.0 * X @ C.T + (C * C).sum(1)[None, :]
    return np.maximum(d, 0.0)


def _lloyd(X: np.ndarray, centers: np.ndarray, max_iter: int, tol: float):
    """Lloyd iterations from given centers; empty clusters keep their center."""
    C = centers.copy()
    labels = np.zeros(X.shape[0], dtype=np.int64)
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        labels = np.argmin(_sqdist(X, C), axis=1)
        k = C.shape[0]
        sums = np.zeros_like(C)
        np.add.at(sums, labels, X)
        cnt = np.bincount(labels, minlength=k)
        newC = C.copy()
        nz = cnt > 0
        newC[nz] = sums[nz] / cnt[nz, None]
        shift = float(np.max(np.abs(newC - C))) if C.size else 0.0
        C = newC
        if shift <= tol:
            converged = True
            break
    labels = np.argmin(_sqdist(X, C), axis=1)
    inertia = float(np.take_along_axis(_sqdist(X, C), labels[:, None], 1).sum())
    return C, labels, inertia, it, converged


def _plusplus(rng: np.random.Generator, dist_to: Any, n: int, k: int) -> np.ndarray:
    """k-means++ seeding: first uniform, then proportional to the squared distance to the chosen.

    ``dist_to(i)`` returns the (n,) distances of all points to point i. When every remaining point
    sits on a chosen one (fewer distinct points than k), the next is uniform among unchosen rows.
    """
    chosen = np.empty(k, dtype=np.int64)
    chosen[0] = rng.integers(n)
    best = dist_to(chosen[0]) ** 2
    taken = np.zeros(n, bool)
    taken[chosen[0]] = True
    for c in range(1, k):
        p = np.where(taken, 0.0, best)
        tot = p.sum()
        if tot > 0:
            nxt = int(rng.choice(n, p=p / tot))
        else:
            free = np.flatnonzero(~taken)
            nxt = int(free[rng.integers(free.size)])
        chosen[c] = nxt
        taken[nxt] = True
        best = np.minimum(best, dist_to(nxt) ** 2)
    return chosen


def kmeans(X, k: int, *, rng: Any = None, max_iter: int = 300, tol: float = 1e-10) -> KMeansResult:
    r"""Lloyd's k-means with k-means++ seeding (Arthur & Vassilvitskii, 2007).

    Groups n points into k clusters of nearby points; tinyBenchmarks' selection
    (:func:`select_tinybenchmarks`) clusters the items' IRT parameters with it.

    Parameters
    ----------
    X : array_like (n, d)
        One row per point (finite).
    k : int
        Number of clusters, 1 <= k <= n.
    rng : None, int, SeedSequence or Generator
        Seeding randomness (:mod:`benchkit._random`); the result records its entropy.
    max_iter : int, default 300
        Iteration cap.
    tol : float, default 1e-10
        Stop when no center moves by more than ``tol`` (in every coordinate).

    Returns
    -------
    KMeansResult
        ``centers``, ``labels``, ``inertia`` and whether the iterations converged.

    Notes
    -----
    Ties in the assignment go to the lowest-numbered center; a cluster that empties keeps its
    center (as ``scipy.cluster.vq.kmeans2(..., missing="warn")``, the oracle in the tests).

    References
    ----------
    S. P. Lloyd (1982), "Least squares quantization in PCM", IEEE Transactions on Information
    Theory 28(2), 129-137. D. Arthur and S. Vassilvitskii (2007), "k-means++: the advantages of
    careful seeding", Proc. 18th ACM-SIAM Symposium on Discrete Algorithms, 1027-1035.

    Examples
    --------
    Two well-separated groups of points:

    >>> import numpy as np
    >>> from benchkit.subsets import kmeans
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [4.0, 4.0], [4.1, 4.0]])
    >>> res = kmeans(X, 2, rng=0)
    >>> res.labels.tolist() in ([0, 0, 1, 1], [1, 1, 0, 0])
    True
    >>> round(res.inertia, 3)
    0.01
    """
    Xa = check_array("X", X, ndim=2, dtype="float")
    n = Xa.shape[0]
    k = check_int("k", k, min=1, max=max(n, 1))
    max_iter = check_int("max_iter", max_iter, min=1)
    root = seed_sequence(rng)
    rng = generator(root)
    sq = (Xa * Xa).sum(1)

    def dist_to(i):
        return np.sqrt(np.maximum(sq - 2.0 * Xa @ Xa[i] + sq[i], 0.0))

    init = _plusplus(rng, dist_to, n, k)
    C, labels, inertia, it, conv = _lloyd(Xa, Xa[init], max_iter, tol)
    return KMeansResult(C, labels.astype(np.int64), inertia, it, conv, root.entropy)


class _CorrelationDistance:
    """d(i, j) = 1 - r_ij over models (r = 0 between a constant and a varying row).

    r = 1 between constant rows; d(i, i) = 0. Rows are standardized to unit vectors with one
    extra coordinate that is 1 exactly for constant rows, so r_ij = z_i . z_j throughout.
    """

    name = "correlation"

    def __init__(self, X):
        Z = X - X.mean(1, keepdims=True)
        nrm = np.sqrt((Z * Z).sum(1))
        const = nrm <= 1e-12 * np.maximum(1.0, np.abs(X).max(1))
        Z = np.divide(Z, nrm[:, None], out=np.zeros_like(Z), where=~const[:, None])
        self.Z = np.column_stack([Z, const.astype(float)])
        self.n = X.shape[0]

    def to(self, idx):  # (n, len(idx))
        D = 1.0 - self.Z @ self.Z[idx].T
        D[idx, np.arange(len(idx))] = 0.0
        return np.maximum(D, 0.0)

    def within_sums(self, members):  # sum_j d(i, j) over members, for each member i
        Zm = self.Z[members]
        self_term = 1.0 - (Zm * Zm).sum(1)  # what the linear formula counts for j = i
        return members.size - Zm @ Zm.sum(0) - self_term


class _EuclideanDistance:
    name = "euclidean"

    def __init__(self, X):
        self.X = X
        self.n = X.shape[0]

    def to(self, idx, chunk=64):
        # direct differences (no |x|^2 - 2xy + |y|^2 cancellation): exact zeros on the diagonal
        idx = np.asarray(idx)
        out = np.empty((self.n, idx.size))
        for s in range(0, idx.size, chunk):
            C = self.X[idx[s:s + chunk]]
            out[:, s:s + chunk] = np.sqrt(((self.X[:, None, :] - C[None]) ** 2).sum(-1))
        return out

    def within_sums(self, members, chunk=2048):
        out = np.empty(members.size)
        for s in range(0, members.size, chunk):
            blk = members[s:s + chunk]
            out[s:s + chunk] = self.to(blk)[members].sum(0)
        return out


def kmedoids(X, k: int, *, metric: str = "correlation", rng: Any = None,
             max_iter: int = 100, init=None) -> KMedoidsResult:
    r"""k-medoids by alternating assignment and medoid update (Park & Jun, 2009).

    Parameters
    ----------
    X : array_like (n, d)
        One row per object (an item's confidence pattern over d models).
    k : int
        Number of medoids, 1 <= k <= n.
    metric : {"correlation", "euclidean"}
        ``"correlation"`` (default): :math:`d(i, j) = 1 - r_{ij}`, the Pearson correlation of the
        two rows. Correlation is undefined for a constant row (every model equally right, common
        with 0/1 or k/T confidences): it is set to 0 against varying rows (as the Anchor Points
        reimplementations zero undefined correlations) and to 1 against other constant rows, so
        that items carrying no ranking information form their own cluster(s) instead of all
        joining the first medoid by a tie.
    rng : None, int, SeedSequence or Generator
        k-means++-style seeding (probability proportional to the squared distance); the result
        records its entropy.
    max_iter : int, default 100
        Cap on the alternating iterations.
    init : array_like of int (k,), optional
        Starting medoids (distinct rows) instead of the seeding.

    Returns
    -------
    KMedoidsResult
        ``medoids`` (rows of ``X``), ``labels``, total ``cost`` and whether it converged.

    Notes
    -----
    Memory is O(n k): distances to the medoids are computed on the fly, and within-cluster
    distance sums for the correlation metric in O(n d) by
    :math:`\sum_{j\in G} (1 - z_i\cdot z_j) = |G| - z_i\cdot\sum_{j\in G} z_j` on standardized
    rows. The result is a fixed point: every object sits with its nearest medoid (ties to the
    lowest-numbered), and every medoid minimizes the distance sum of its cluster (ties to the
    current medoid, then the lowest row). The tests check both properties by brute force.

    References
    ----------
    H.-S. Park and C.-H. Jun (2009), "A simple and fast algorithm for K-medoids clustering", Expert
    Systems with Applications 36(2), 3336-3341. R. Vivek, K. Ethayarajh, D. Yang and D. Kiela
    (2024), "Anchor points: benchmarking models with much fewer examples", EACL 2024, 1576-1601
    (the correlation distance).

    Examples
    --------
    Items whose confidence rises with the model (rows 0-2) and items whose confidence falls (rows
    3-4) form two clusters under the correlation distance:

    >>> import numpy as np
    >>> from benchkit.subsets import kmedoids
    >>> X = np.array([[0.1, 0.5, 0.9], [0.2, 0.5, 0.8], [0.0, 0.6, 1.0],
    ...               [0.9, 0.5, 0.1], [0.8, 0.4, 0.2]])
    >>> res = kmedoids(X, 2, rng=0)
    >>> res.labels.tolist() in ([0, 0, 0, 1, 1], [1, 1, 1, 0, 0])
    True
    """
    Xa = check_array("X", X, ndim=2, dtype="float")
    n = Xa.shape[0]
    k = check_int("k", k, min=1, max=max(n, 1))
    check_choice("metric", metric, ("correlation", "euclidean"))
    max_iter = check_int("max_iter", max_iter, min=1)
    root = seed_sequence(rng)
    rng = generator(root)
    dist = _CorrelationDistance(Xa) if metric == "correlation" else _EuclideanDistance(Xa)
    if init is None:
        med = _plusplus(rng, lambda i: dist.to(np.array([i]))[:, 0], n, k)
    else:
        med = check_array("init", init, ndim=1, dtype="int", shape=(k,)).copy()
        if med.min() < 0 or med.max() >= n or np.unique(med).size != k:
            raise BenchkitValueError(f"init must hold {k} distinct rows in [0, {n})")
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        D = dist.to(med)
        labels = np.argmin(D, axis=1)
        labels[med] = np.arange(k)  # a medoid belongs to its own cluster
        new = med.copy()
        for c in range(k):
            members = np.flatnonzero(labels == c)
            sums = dist.within_sums(members)
            cur = np.flatnonzero(members == med[c])[0]
            best = int(np.argmin(sums))
            if sums[best] < sums[cur] - 1e-12 * max(1.0, abs(sums[cur])):
                new[c] = members[best]
        if np.array_equal(new, med):
            converged = True
            break
        med = new
    D = dist.to(med)
    labels = np.argmin(D, axis=1)
    labels[med] = np.arange(k)
    cost = float(D[np.arange(n), labels].sum())
    return KMedoidsResult(med.astype(np.int64), labels.astype(np.int64), cost, it, converged,
                          dist.name, root.entropy)
