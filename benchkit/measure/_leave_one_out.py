"""Leave-one-model-out stability of the difficulties and the measure metrics (paper 002, Figure 2).

:func:`leave_one_model_out` refits the 1PL without each model in turn and reports how the
difficulties, DDM and the gaps move (:class:`LOOStability`).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from benchkit._parallel import check_n_jobs
from benchkit._parallel import parallel_map
from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit.irt import IRTFit
from benchkit.irt import fit_1pl
from benchkit.irt._common import _labels
from benchkit.irt._common import _matrix
from benchkit.measure._metrics import ddm
from benchkit.measure._metrics import normalize_difficulty
from benchkit.measure._metrics import top_gaps

__all__ = ["LOOStability", "leave_one_model_out"]


@result
class LOOStability:
    """Leave-one-model-out stability of difficulties and of the measure metrics.

    Does the difficulty axis, and with it DDM and the gaps, hinge on a single model? Each model is
    left out of the 1PL fit in turn; correlations near 1 and small changes mean it does not.

    Parameters
    ----------
    full, difficulties, models, items
        The fields below (see Attributes); built by
        :func:`~benchkit.measure.steps.leave_one_model_out`.

    Attributes
    ----------
    full : benchkit.irt.IRTFit
        The fit on all models.
    difficulties : ndarray (n_models, n_items)
        Row j: the item difficulties of the refit without model j.
    models : DataFrame
        Per left-out model: ``pearson`` and ``spearman`` correlation of its refit's difficulties
        with the full fit's, ``max_abs_dz`` (largest change of a normalized difficulty) and the
        refit's ``DDM``, ``Max Gap`` and ``Top-5 Sum``.
    items : DataFrame
        Per item: ``z`` (full fit), ``sd_z`` and ``max_abs_dz`` of its normalized difficulty across
        the refits (NaN for items without a finite difficulty in every fit).

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. Figure 2, step 3 ("leave-one-out stability").

    Examples
    --------
    >>> from benchkit import simulate
    >>> from benchkit.measure.steps import leave_one_model_out
    >>> Y = simulate.load_sample("mirt").binary()[:, :8]     # 500 items x 8 models
    >>> loo = leave_one_model_out(Y)
    >>> loo.to_frame()[["pearson", "spearman", "DDM"]].head(3).round(3)
           pearson  spearman    DDM
    model
    0        0.986     0.988  0.098
    1        0.983     0.986  0.101
    2        0.967     0.971  0.119
    """

    full: IRTFit
    difficulties: np.ndarray  # (n_models, n_items), row j = fit without model j
    models: pd.DataFrame
    items: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """Per left-out model: correlations with the full fit and the refit's metrics."""
        return self.models.copy()


def _loo_one(arr, j, fit_kwargs):
    sub = np.delete(arr, j, axis=1)
    return fit_1pl(sub, **fit_kwargs).difficulty


def leave_one_model_out(
    Y: Any,
    *,
    method: str = "jml",
    normalize: str = "minmax",
    n_jobs: int | None = None,
    progress: bool = False,
    **fit_kwargs: Any,
) -> LOOStability:
    """Refit the 1PL leaving out each model in turn; report how difficulties and metrics move.

    Parameters
    ----------
    Y : array_like (n_items, n_models)
        0/1 responses (NaN for missing cells), or a DataFrame whose index and columns label the
        items and models.
    method : {"jml", "mml"}
        Estimator for all refits (default "jml", the fast one).
    normalize : {"minmax", "logistic"}
        Map used for the normalized difficulties and metrics.
    n_jobs : int or None
        joblib workers for the refits (results do not depend on it).
    progress : bool
        Show a tqdm bar over the refits (one per model).
    **fit_kwargs
        Passed to :func:`fit_1pl`.

    Returns
    -------
    LOOStability
        ``models``: per left-out model, Pearson and Spearman correlation of its refit's
        difficulties with the full fit's, max ``|change|`` of normalized difficulty, and DDM, Max Gap,
        Top-5 Sum of the refit; ``items``: per item, SD and max ``|change|`` of the normalized
        difficulty across refits.

    Notes
    -----
    The paper checks "leave-one-out stability" after its Bayesian fit (Figure 2 step 3). Reading:
    leave one *model* (response-matrix column) out and refit, so that a difficulty axis that hinges
    on a single model shows up; the metrics are recomputed on each refit, since the normalized
    difficulties (not the logits) are what the paper reports. Only items with finite difficulties
    in every fit enter the correlations.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. Figure 2, step 3 ("leave-one-out stability").

    Examples
    --------
    >>> from benchkit import simulate
    >>> from benchkit.measure.steps import leave_one_model_out
    >>> loo = leave_one_model_out(simulate.load_sample("mirt").binary()[:, :8])
    >>> loo.difficulties.shape, round(float(loo.to_frame()["spearman"].min()), 3)
    ((8, 500), 0.97)
    """
    n_jobs = check_n_jobs(n_jobs)
    arr = _matrix(Y)
    check_choice("method", method, ("mml", "jml"))
    check_choice("normalize", normalize, ("minmax", "logistic"))
    items, models = _labels(Y, arr.shape[0], arr.shape[1], fit_kwargs.pop("items", None),
                            fit_kwargs.pop("models", None))
    if arr.shape[1] < 3:
        raise BenchkitValueError("leave_one_model_out needs at least 3 models")
    fit_kwargs = dict(fit_kwargs, method=method)
    full = fit_1pl(arr, items=items, models=models, **fit_kwargs)
    out = parallel_map(_loo_one, [(arr, j, fit_kwargs) for j in range(arr.shape[1])], n_jobs=n_jobs,
                       progress=bool(progress), desc="leave one model out")
    B = np.vstack(out)
    fin = np.isfinite(full.difficulty) & np.all(np.isfinite(B), axis=0)
    if fin.sum() < 2:
        raise BenchkitValueError("fewer than 2 items have finite difficulties in every refit")
    z_full = normalize_difficulty(full.difficulty[fin], method=normalize)
    rows = []
    Z = np.empty((B.shape[0], int(fin.sum())))
    for j in range(B.shape[0]):
        z = normalize_difficulty(B[j, fin], method=normalize)
        Z[j] = z
        tg = top_gaps(z, k=5)
        rows.append({
            "pearson": float(np.corrcoef(B[j, fin], full.difficulty[fin])[0, 1]),
            "spearman": float(stats.spearmanr(B[j, fin], full.difficulty[fin])[0]),
            "max_abs_dz": float(np.max(np.abs(z - z_full))),
            "DDM": ddm(z), "Max Gap": tg.gaps[0].width, "Top-5 Sum": tg.total,
        })
    mframe = pd.DataFrame(rows, index=models)
    sd = np.full(arr.shape[0], np.nan)
    mx = np.full(arr.shape[0], np.nan)
    sd[fin] = Z.std(axis=0, ddof=0)
    mx[fin] = np.max(np.abs(Z - z_full[None, :]), axis=0)
    iframe = pd.DataFrame({"z": np.where(fin, 0.0, np.nan), "sd_z": sd, "max_abs_dz": mx},
                          index=items)
    iframe.loc[fin, "z"] = z_full
    return LOOStability(full=full, difficulties=B, models=mframe, items=iframe)
