r"""Spectral MIRT working model (paper 001, App. C.2-C.3).

A family-blind, response-derived low-rank approximation of the compensatory MIRT term
:math:`a_i^\top\theta_m`.

Self-contained: it imports nothing from the rest of :mod:`benchkit.irt`.

=====================================  ===========================================================
:func:`standardize`                    smoothed marginals and standardized working responses
                                       (Eq. 12-13)
:func:`randomized_svd`                 Halko-Martinsson-Tropp randomized SVD with power iterations
:func:`fit_spectral`                   directions from a row subset, projection of all items
                                       (Eq. 14-16); :meth:`SpectralFit.offsets` gives Eq. 17
:func:`select_dimension`               nested owner-/item-held-out Bernoulli log loss over the K
                                       grid with the one-standard-error rule (Eq. 18-23)
=====================================  ===========================================================
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from benchkit._random import generator
from benchkit._random import seed_sequence
from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_float
from benchkit._validation import check_int

__all__ = [
    "K_GRID",
    "DimensionSelection",
    "SpectralFit",
    "fit_spectral",
    "randomized_svd",
    "select_dimension",
    "standardize",
]

#: The paper's candidate dimensions (Sec. 3.2, Table C.8).
K_GRID: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256)


def _binary(name: str, Y) -> np.ndarray:
    Y = np.asarray(Y)
    if Y.ndim != 2:
        raise BenchkitValueError(f"{name} must be a 2-D (items x models) array; got shape {Y.shape}")
    if Y.dtype != np.uint8 and Y.dtype != bool:
        Yf = check_array(name, Y, ndim=2, dtype="float")
        if np.any((Yf != 0) & (Yf != 1)):
            bad = Yf[(Yf != 0) & (Yf != 1)][0]
            raise BenchkitValueError(f"{name} must hold 0/1 responses; found {bad!r}")
        return Yf.astype(np.uint8)
    return Y.astype(np.uint8, copy=False)


def standardize(Y, *, out_dtype=np.float64) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Smoothed marginals and standardized working responses (Eq. 12-13).

    Centres each item's responses on its (smoothed) proportion correct and scales them by its
    binomial SD, so that the spectral decomposition sees what models share beyond item easiness.

    Parameters
    ----------
    Y : array_like (items, models)
        0/1 responses, complete (no NaN).
    out_dtype : numpy dtype, default float64
        Dtype of ``X`` (float32 halves the memory of large matrices).

    Returns
    -------
    X : ndarray (items, models)
        :math:`X_{im} = (Y_{im} - \hat p_i)/s_i` (Eq. 13).
    p_hat : ndarray (items,)
        :math:`\hat p_i = (\sum_m Y_{im} + 1/2)/(M + 1)` (Eq. 12), never 0 or 1.
    s : ndarray (items,)
        :math:`s_i = \sqrt{\hat p_i(1-\hat p_i)}` (Eq. 12).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", App. C.2, Eq. (12)-(13).

    Examples
    --------
    >>> from benchkit.irt import standardize
    >>> X, p_hat, s = standardize([[1, 1, 1], [1, 0, 0]])
    >>> p_hat.tolist(), X[1].round(3).tolist()
    ([0.875, 0.375], [1.291, -0.775, -0.775])
    """
    Y = _binary("Y", Y)
    M = Y.shape[1]
    p = (Y.sum(1, dtype=np.float64) + 0.5) / (M + 1.0)
    s = np.sqrt(p * (1.0 - p))
    X = (Y.astype(out_dtype) - p[:, None].astype(out_dtype)) / s[:, None].astype(out_dtype)
    return X, p, s


_CONTROLLER: list = []


def _one_blas_thread():
    """A context limiting BLAS to one thread.

    The :class:`threadpoolctl.ThreadpoolController` is built once per process: a fresh
    ``threadpool_limits`` rescans the loaded libraries on every call (~6 ms each, ~1.6 s of a
    paper-scale audit).
    """
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


def randomized_svd(X, k: int, *, n_iter: int = 5, oversample: int = 10, rng: Any = None):
    """Rank-``k`` randomized SVD; returns ``(U, S, Vt)``.

    The leading ``k`` singular triplets of a large matrix, from a random projection: the step of
    the spectral working model (paper 001, Eq. 14) that :func:`fit_spectral` runs.

    Parameters
    ----------
    X : array_like (m, n)
        The matrix (e.g. :func:`standardize`'s working responses).
    k : int
        Rank, at least 1.
    n_iter : int, default 5
        Power iterations (5, paper 001 Table C.8); more iterations sharpen a slowly decaying
        spectrum.
    oversample : int, default 10
        Extra random directions beyond ``k``.
    rng : None, int, SeedSequence or Generator
        The random test matrix (:mod:`benchkit._random`; a Generator is consumed).

    Returns
    -------
    U : ndarray (m, k)
        Left singular vectors.
    S : ndarray (k,)
        Singular values, decreasing.
    Vt : ndarray (k, n)
        Right singular vectors (rows).

    Notes
    -----
    Halko, Martinsson and Tropp 2011, Alg. 4.3 with ``n_iter`` power iterations; the power steps are
    normalised by LU factorisations, as scikit-learn's ``randomized_svd`` does, and the final range
    by QR: ~8x cheaper than QR at every step at 14,042 x 266, with the same subspace.

    When ``k + oversample >= min(X.shape)`` the exact SVD (``numpy.linalg.svd``) is used.

    References
    ----------
    N. Halko, P.-G. Martinsson and J. A. Tropp (2011), "Finding structure with randomness:
    probabilistic algorithms for constructing approximate matrix decompositions", SIAM Review
    53(2), 217-288, Alg. 4.3.
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", App. C.2, Eq. (14).

    Examples
    --------
    On a matrix of rank 2 plus small noise, two singular values stand out:

    >>> import numpy as np
    >>> from benchkit.irt import randomized_svd
    >>> g = np.random.default_rng(0)
    >>> A = g.normal(size=(200, 2)) @ g.normal(size=(2, 100)) + 0.01 * g.normal(size=(200, 100))
    >>> U, S, Vt = randomized_svd(A, 3, rng=0)
    >>> U.shape, Vt.shape, bool(S[1] > 100 * S[2])
    ((200, 3), (3, 100), True)
    """
    X = np.asarray(X)
    k = check_int("k", k, min=1)
    n_iter = check_int("n_iter", n_iter, min=0)
    m, n = X.shape
    ell = k + int(oversample)
    if ell >= min(m, n):
        U, S, Vt = np.linalg.svd(X, full_matrices=False)
        return U[:, :k], S[:k], Vt[:k]
    from scipy.linalg import lu

    g = generator(rng)
    Omega = g.standard_normal((n, ell)).astype(X.dtype, copy=False)
    Q = X @ Omega
    # The factorisations of tall thin blocks run on one BLAS thread: multi-threaded OpenBLAS QR/LU
    # of a 14,042 x 266 block was measured 12x slower on a loaded 2-core machine (thread
    # synchronisation of level-2 panels); the matrix products keep every thread.
    for _ in range(n_iter):  # LU normalisation between power steps (as scikit-learn's "LU")
        with _one_blas_thread():
            Q, _ = lu(Q, permute_l=True, check_finite=False)
        Q = X.T @ Q
        with _one_blas_thread():
            Q, _ = lu(Q, permute_l=True, check_finite=False)
        Q = X @ Q
    with _one_blas_thread():
        Q, _ = np.linalg.qr(Q)
    B = Q.T @ X
    with _one_blas_thread():
        Ub, S, Vt = np.linalg.svd(B, full_matrices=False)
    return (Q @ Ub)[:, :k], S[:k], Vt[:k]


@result
class SpectralFit:
    r"""Spectral MIRT representation fitted in one owner half (Eq. 12-16).

    Returned by :func:`fit_spectral`. :meth:`offsets` gives the clipped logit offsets of Eq. 17
    that the residual-DIF model of paper 001 holds fixed; the first K columns of a fit are the
    rank-K fit.

    Parameters
    ----------
    p_hat, s, theta, loadings, singular_values, rows, rng_entropy
        The fields below, filled by :func:`fit_spectral`.

    Attributes
    ----------
    p_hat : ndarray (items,)
        Smoothed marginals :math:`\hat p_i` (Eq. 12).
    s : ndarray (items,)
        Their binomial SDs :math:`s_i` (Eq. 12).
    theta : ndarray (models, K)
        Model coordinates, the right singular vectors of ``X_S`` (Eq. 15).
    loadings : ndarray (items, K)
        ``X @ theta`` for all items (Eq. 16).
    singular_values : ndarray (K,)
        Singular values of ``X_S``, decreasing: how much of the standardized responses each
        direction carries.
    rows : ndarray of int
        The item rows ``S`` the directions were learnt from.
    rng_entropy : int
        Entropy of the root seed of the randomized SVD: ``rng=rng_entropy`` repeats the fit.

    Examples
    --------
    >>> from benchkit.simulate import binary_matrix
    >>> from benchkit import irt
    >>> Y = binary_matrix(80, 40, rng=2).matrix  # 80 items x 40 models
    >>> fit = irt.fit_spectral(Y, 2, rng=0)
    >>> fit.theta.shape, fit.loadings.shape, fit.offsets(K=1).shape
    ((40, 2), (80, 2), (80, 40))
    """

    p_hat: np.ndarray
    s: np.ndarray
    theta: np.ndarray
    loadings: np.ndarray
    singular_values: np.ndarray
    rows: np.ndarray
    rng_entropy: Any = None

    @property
    def K(self) -> int:
        """The rank of the fit (columns of ``theta``)."""
        return self.theta.shape[1]

    def offsets(self, *, K: int | None = None, clip: float = 6.0) -> np.ndarray:
        r"""Offsets :math:`o_{im} = \mathrm{clip}(L_{i,:K}\Theta_{m,:K}^\top / s_i, \pm 6)` (Eq. 17)."""
        K = self.K if K is None else check_int("K", K, min=0, max=self.K)
        o = self.loadings[:, :K] @ self.theta[:, :K].T
        o /= self.s[:, None]
        np.clip(o, -clip, clip, out=o)
        return o

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"p_hat": self.p_hat, "s": self.s})


def fit_spectral(Y, K: int, *, rows=None, n_iter: int = 5, oversample: int = 10,
                 standardized: tuple | None = None, rng: Any = None) -> SpectralFit:
    r"""Fit the rank-``K`` spectral working model on the item ``rows`` of ``Y`` (App. C.2).

    Parameters
    ----------
    Y : array_like (items, models)
        0/1 responses of the models of the current audit half.
    K : int
        Rank; truncated to the rank bound ``min(len(rows), models)``.
    rows : array_like of int, optional
        The current anchor rows :math:`\mathcal{S}` (default all items).
    n_iter : int
        Power iterations of the randomized SVD (5, Table C.8).
    oversample : int, default 10
        Extra random directions of the randomized SVD.
    standardized : tuple, optional
        ``standardize(Y)``'s ``(X, p_hat, s)`` when the caller already has it (the purification
        rounds of one half share it: the marginals use all items of the half, whatever ``rows``);
        ``Y`` is then only used for its shape.
    rng : None, int, SeedSequence or Generator
        The randomized SVD's test matrix (:mod:`benchkit._random`); the result records its
        entropy.

    Returns
    -------
    SpectralFit
        Model coordinates ``theta``, item ``loadings`` and :meth:`SpectralFit.offsets` (Eq. 17).

    Notes
    -----
    Eq. 12-16: marginals from all items of the half; SVD of :math:`X_{\mathcal S}`;
    :math:`\Theta = V_K`; :math:`L = X\Theta` for every item, so the smaller-K offsets are
    truncations of one fit (the columns come in decreasing singular value).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.2 and App. C.2, Eq. (12)-(17).
    N. Halko, P.-G. Martinsson and J. A. Tropp (2011), "Finding structure with randomness:
    probabilistic algorithms for constructing approximate matrix decompositions", SIAM Review
    53(2), 217-288.

    Examples
    --------
    >>> from benchkit.simulate import binary_matrix
    >>> from benchkit import irt
    >>> Y = binary_matrix(80, 40, rng=2).matrix  # 80 items x 40 models
    >>> fit = irt.fit_spectral(Y, 4, rows=range(0, 80, 2), rng=0)
    >>> fit.K, fit.rows.size, fit.offsets().shape
    (4, 40, (80, 40))
    >>> float(abs(fit.offsets()).max()) <= 6.0  # Eq. 17 clips at 6 logits
    True
    """
    if standardized is None:
        X, p, s = standardize(Y)
    else:
        X, p, s = standardized
        if X.shape != np.shape(Y):
            raise BenchkitValueError(f"standardized X has shape {X.shape}; Y has {np.shape(Y)}")
    rows = np.arange(X.shape[0]) if rows is None else np.asarray(rows, dtype=np.int64)
    if rows.size == 0:
        raise BenchkitValueError("rows must select at least one item")
    K = check_int("K", K, min=1)
    K = min(K, rows.size, X.shape[1])
    XS = X[rows] if rows.size < X.shape[0] else X
    root = seed_sequence(rng)
    _, S, Vt = randomized_svd(XS, K, n_iter=n_iter, oversample=oversample, rng=root)
    theta = np.ascontiguousarray(Vt.T)
    L = X @ theta
    return SpectralFit(p_hat=p, s=s, theta=theta, loadings=L, singular_values=S, rows=rows,
                       rng_entropy=root.entropy)


@result
class DimensionSelection:
    r"""Nested owner-/item-held-out selection of K (App. C.3, Eq. 18-23).

    Returned by :func:`select_dimension`: ``K_star`` is the dimension to use; ``to_frame()``
    tabulates the held-out loss over the grid.

    Parameters
    ----------
    grid, mean_loss, se, model_loss, K_best, K_star, rank
        The selection, as the attributes below.
    validation_models, calibration_items, rng_entropy
        The splits and the seed, as the attributes below. All fields are filled by
        :func:`select_dimension`.

    Attributes
    ----------
    grid : tuple of int
        The rank-feasible candidates.
    mean_loss : ndarray (len(grid),)
        :math:`\bar L_K`, the mean held-out Bernoulli log loss of the validation models (Eq. 21;
        lower = better prediction of unseen responses).
    se : ndarray (len(grid),)
        :math:`\mathrm{SE}_K`, its standard error over validation models (Eq. 22).
    model_loss : ndarray (validation models, len(grid))
        :math:`L_{m,K}` (Eq. 21).
    K_best : int
        The raw minimiser of ``mean_loss``.
    K_star : int
        The one-standard-error choice (Eq. 23): the smallest K within one SE of the best.
    rank : int
        Numerical rank bound of the training matrix used for feasibility.
    validation_models : ndarray of int
        Columns of ``Y`` of the held-out (validation) owners' models.
    calibration_items : ndarray of int
        Rows of ``Y`` in the coordinate-calibration set :math:`\mathcal C` (the others are
        evaluated).
    rng_entropy : int
        Entropy of the root seed of the splits and the SVD: ``rng=rng_entropy`` repeats the run.

    Examples
    --------
    >>> from benchkit.simulate import binary_matrix
    >>> from benchkit import irt
    >>> Y = binary_matrix(80, 40, rng=2).matrix  # 80 items x 40 models
    >>> owners = [f"owner{j % 8}" for j in range(40)]
    >>> sel = irt.select_dimension(Y, owners=owners, grid=(1, 2, 4), rng=0)
    >>> sel.grid, sel.K_star in sel.grid, sel.to_frame().columns.tolist()
    ((1, 2, 4), True, ['K', 'mean_loss', 'se', 'selected', 'best'])
    """

    grid: tuple
    mean_loss: np.ndarray
    se: np.ndarray
    model_loss: np.ndarray
    K_best: int
    K_star: int
    rank: int
    validation_models: np.ndarray
    calibration_items: np.ndarray
    rng_entropy: Any = None

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"K": self.grid, "mean_loss": self.mean_loss, "se": self.se,
                             "selected": [k == self.K_star for k in self.grid],
                             "best": [k == self.K_best for k in self.grid]})


def _softplus(x):
    return np.logaddexp(0.0, x)


def select_dimension(Y, *, owners: Sequence[Any], sources: Sequence[Any] | None = None,
                     rows=None, grid: Sequence[int] = K_GRID, validation_fraction: float = 0.25,
                     calibration_fraction: float = 0.5, ridge_theta: float = 1.0,
                     n_iter: int = 5, clip: float = 6.0, rng: Any = None) -> DimensionSelection:
    """Select the spectral dimension K inside one audit half (App. C.3).

    Parameters
    ----------
    Y : array_like (items, models)
        0/1 responses of the half's models.
    owners : sequence (models,)
        Owner per model; ``validation_fraction`` of the owners (rounded, at least one, at most
        all but one) form the inner validation set.
    sources : sequence (items,), optional
        Native source per item; items are split into calibration / evaluation halves within
        every source (one source when omitted).
    rows : array_like of int, optional
        Item rows used for the decomposition (default all).
    grid : sequence of int
        Candidate dimensions (Table C.8); values above the rank of the training matrix are omitted.
    validation_fraction : float, default 0.25
        Share of the owners held out for validation (the paper's 25%).
    calibration_fraction : float, default 0.5
        Share of each source's items in the coordinate-calibration set (the paper's "approximately
        half").
    ridge_theta : float
        Ridge of the held-out coordinates (Eq. 19).
    n_iter : int, default 5
        Power iterations of the randomized SVD (Table C.8).
    clip : float, default 6.0
        Clip of the offsets in logits (Eq. 20, the paper's 6).
    rng : None, int, SeedSequence or Generator
        Draws the validation owners, the item split and the SVD's test matrix
        (:mod:`benchkit._random`); the result records its entropy.

    Returns
    -------
    DimensionSelection
        ``K_star`` (the one-SE choice), ``K_best`` and the loss per candidate.

    Notes
    -----
    The largest feasible K is decomposed once and truncated for the smaller ones. Readings: the
    rank bound is ``min(rows, training models)`` reduced to the number of singular values above
    ``max(shape) * eps * s_max`` when the decomposition is exact; ``sd`` in Eq. 22 uses ``ddof=1``;
    within a source, a random permutation puts ``round(calibration_fraction * n)`` items (at least
    one) in the calibration set. Validation models and the item split are drawn from ``rng``.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.2 and App. C.3, Eq. (18)-(23).

    Examples
    --------
    >>> from benchkit.simulate import binary_matrix
    >>> from benchkit import irt
    >>> Y = binary_matrix(80, 40, rng=2).matrix  # 80 items x 40 models
    >>> owners = [f"owner{j % 8}" for j in range(40)]
    >>> sel = irt.select_dimension(Y, owners=owners, grid=(1, 2, 4), rng=0)
    >>> sel.validation_models.size, sel.K_star <= sel.K_best
    (10, True)
    """
    Y = _binary("Y", Y)
    n_items, M = Y.shape
    owners = np.asarray(owners, dtype=object)
    if owners.shape != (M,):
        raise BenchkitValueError(f"owners must have one entry per model ({M}); got {owners.shape}")
    src = np.zeros(n_items, dtype=np.int64) if sources is None else pd.factorize(np.asarray(sources,
                                                                                     dtype=object))[0]
    if src.shape != (n_items,):
        raise BenchkitValueError(f"sources must have one entry per item ({n_items}); got {src.shape}")
    check_float("validation_fraction", validation_fraction, min=0.0, max=1.0, min_inclusive=False,
                max_inclusive=False)
    check_float("calibration_fraction", calibration_fraction, min=0.0, max=1.0,
                min_inclusive=False, max_inclusive=False)
    grid = tuple(sorted(check_int("grid value", k, min=1) for k in grid))
    root = seed_sequence(rng)
    g = generator(root)
    uo = np.unique(owners.astype(str))
    if uo.size < 2:
        raise BenchkitValueError(f"dimension selection needs at least 2 owners; got {uo.size}")
    n_val = min(uo.size - 1, max(1, int(np.floor(validation_fraction * uo.size + 0.5))))
    val_owners = set(g.choice(uo, size=n_val, replace=False).tolist())
    is_val = np.array([str(o) in val_owners for o in owners])
    tr, va = np.flatnonzero(~is_val), np.flatnonzero(is_val)
    calib = np.zeros(n_items, dtype=bool)
    for c in np.unique(src):
        idx = np.flatnonzero(src == c)
        perm = g.permutation(idx)
        calib[perm[:max(1, int(np.floor(calibration_fraction * idx.size + 0.5)))]] = True
    C, E = np.flatnonzero(calib), np.flatnonzero(~calib)
    if E.size == 0:
        raise BenchkitValueError("no evaluation items left; lower calibration_fraction")
    Xtr, p, s = standardize(Y[:, tr])
    rows = np.arange(n_items) if rows is None else np.asarray(rows, dtype=np.int64)
    bound = min(rows.size, tr.size)
    kmax = max([k for k in grid if k <= bound], default=None)
    if kmax is None:
        raise BenchkitValueError(f"no candidate K in {grid} is <= the rank bound {bound}")
    _, S, Vt = randomized_svd(Xtr[rows], kmax, n_iter=n_iter, rng=g)
    if kmax + 10 >= min(rows.size, tr.size):  # exact SVD: numerical rank is known
        tol = max(rows.size, tr.size) * np.finfo(float).eps * S[0]
        bound = min(bound, int(np.sum(S > tol)))
    feas = tuple(k for k in grid if k <= bound)
    F = Xtr @ Vt.T  # Eq. 18: U_K Sigma_K on the decomposed rows, X V_K (projection) elsewhere
    Xv = (Y[:, va].astype(np.float64) - p[:, None]) / s[:, None]
    logit_p = np.log(p / (1.0 - p))
    losses = np.empty((va.size, len(feas)))
    YE = Y[E][:, va].astype(np.float64)
    for j, K in enumerate(feas):
        FC, FE = F[C, :K], F[E, :K]
        A = FC.T @ FC + ridge_theta * np.eye(K)
        th = np.linalg.solve(A, FC.T @ Xv[C])  # Eq. 19, (K, M_val)
        eta = logit_p[E, None] + np.clip(FE @ th / s[E, None], -clip, clip)  # Eq. 20
        losses[:, j] = np.mean(_softplus(eta) - YE * eta, axis=0)  # Eq. 21
    mean = losses.mean(0)
    se = losses.std(0, ddof=1) / np.sqrt(va.size) if va.size > 1 else np.zeros(len(feas))
    jb = int(np.argmin(mean))
    js = int(np.flatnonzero(mean <= mean[jb] + se[jb])[0])
    return DimensionSelection(grid=feas, mean_loss=mean, se=se, model_loss=losses,
                              K_best=feas[jb], K_star=feas[js], rank=bound,
                              validation_models=va, calibration_items=C, rng_entropy=root.entropy)
