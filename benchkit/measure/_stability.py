"""Theorem 2.1: which score differences are rank-stable under the DDM bound."""
from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_float


# ----------------------------------------------------------------------------------------------
# Theorem 2.1
# ----------------------------------------------------------------------------------------------
@result
class RankStability:
    """Which observed score differences are rank-stable under Theorem 2.1.

    If the performance difference of two models is L-Lipschitz in difficulty, the benchmark's
    score difference D_B is within L W_1(nu_B, mu) of the difference under the target measure mu:
    a pair whose ``|D_B|`` exceeds that bound keeps its order under the target.

    Parameters
    ----------
    bound, lipschitz, ddm, pairs
        The fields below (see Attributes); built by :func:`~benchkit.measure.steps.rank_stability`.

    Attributes
    ----------
    bound : float
        L W_1(nu_B, mu) = ``lipschitz * ddm``: the largest possible distortion of a score difference.
    lipschitz : float
        The Lipschitz constant L assumed for the performance difference.
    ddm : float
        W_1(nu_B, mu), the benchmark's DDM.
    pairs : DataFrame
        One row per pair of models (stronger first): ``model_a, model_b, D_B``, the interval
        ``[D_mu_low, D_mu_high]`` that contains D_mu, and ``stable`` (``|D_B| > bound``: no rank flip
        under the target). ``fraction_stable`` is the share of stable pairs.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical
       Measure Over Difficulty." arXiv:2610.29927, 2026. Theorem 2.1.

    Examples
    --------
    >>> from benchkit.measure.steps import rank_stability
    >>> r = rank_stability({"m1": 0.62, "m2": 0.55, "m3": 0.54}, lipschitz=1.0, ddm=0.05)
    >>> r.bound, round(r.fraction_stable, 3)
    (0.05, 0.667)
    """

    bound: float
    lipschitz: float
    ddm: float
    pairs: pd.DataFrame

    @property
    def fraction_stable(self) -> float:
        return float(self.pairs["stable"].mean()) if len(self.pairs) else float("nan")

    def to_frame(self) -> pd.DataFrame:
        return self.pairs.copy()


def rank_stability(
    scores: Any,
    *,
    lipschitz: float,
    ddm: float,
    names: Sequence[str] | None = None,
) -> RankStability:
    r"""Theorem 2.1 made usable: pairs of models whose benchmark ranking cannot flip under the target.

    Parameters
    ----------
    scores : array_like, shape (m,)
        Benchmark scores :math:`S_B(\theta)` of m models (mean item score), or a mapping
        name -> score.
    lipschitz : float
        A Lipschitz constant :math:`L` of the performance difference :math:`\Delta(z)` on the
        normalized difficulty axis (the same axis as ``ddm``).
    ddm : float
        :math:`W_1(\nu_B, \mu)` from :func:`ddm`.
    names : sequence of str, optional
        Model names (default ``model_0``...).

    Returns
    -------
    RankStability
        ``bound`` = :math:`L\,W_1`; ``pairs`` has, for each unordered pair (a stronger-first),
        ``D_B``, the interval ``[D_B - bound, D_B + bound]`` that contains :math:`D_\mu`, and
        ``stable`` (``|D_B| > bound``).

    Notes
    -----
    Theorem 2.1: :math:`|D_B - D_\mu| \le L\,W_1(\nu_B,\mu)`. The paper states the consequence for
    the target difference (:math:`|D_\mu| > L W_1` implies equal signs); since the bound is
    symmetric, the same holds with the observed :math:`D_B` in place of :math:`D_\mu`, which is what
    a user can check: if :math:`|D_B| > L W_1` then :math:`D_\mu` has the sign of :math:`D_B`.
    Reading: scores are treated as exact (population) item-averaged performances; sampling noise of
    the scores is not part of the theorem.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. Theorem 2.1 (distribution mismatch controls score
       distortion and rank stability).

    Examples
    --------
    >>> from benchkit.measure.steps import rank_stability
    >>> r = rank_stability({"m1": 0.62, "m2": 0.55, "m3": 0.54}, lipschitz=1.0, ddm=0.05)
    >>> r.to_frame().round(2)
      model_a model_b   D_B  D_mu_low  D_mu_high  stable
    0      m1      m2  0.07      0.02       0.12    True
    1      m1      m3  0.08      0.03       0.13    True
    2      m2      m3  0.01     -0.04       0.06   False
    """
    if isinstance(scores, Mapping):
        names = list(map(str, scores.keys()))
        scores = list(scores.values())
    s = check_array("scores", scores, ndim=1, dtype="float", min_size=1)
    L = check_float("lipschitz", lipschitz, min=0.0)
    w = check_float("ddm", ddm, min=0.0)
    if names is None:
        names = [f"model_{i}" for i in range(s.size)]
    names = [str(x) for x in names]
    if len(names) != s.size:
        raise BenchkitValueError(f"names has {len(names)} entries but scores has {s.size}")
    bound = L * w
    i, j = np.triu_indices(s.size, k=1)
    swap = s[i] < s[j]
    a = np.where(swap, j, i)
    b = np.where(swap, i, j)
    d = s[a] - s[b]
    pairs = pd.DataFrame({
        "model_a": [names[x] for x in a], "model_b": [names[x] for x in b],
        "D_B": d, "D_mu_low": d - bound, "D_mu_high": d + bound, "stable": np.abs(d) > bound,
    })
    return RankStability(bound=bound, lipschitz=L, ddm=w, pairs=pairs)
