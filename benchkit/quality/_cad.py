"""Capability Alignment Deviation at the array level (paper 004, Sec. 3.3, Eq. 3-6).

:func:`cad` counts, within every model family ordered by size, the items a larger model fails and
a smaller one solves, per item and per family, and maps the pooled inversion rate to a score
(:class:`CADResult`); :func:`cad_score` is that mapping alone (Table 10). The checks of the
``families`` argument (model-index lists, strongest first) live here.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_float
from benchkit._validation import describe

__all__ = ["CADResult", "cad", "cad_score"]


def _integer_families(families: list, n_models: int) -> list[np.ndarray] | None:
    """The families as int64 arrays when they are valid 1-D integer lists, checked all at once.

    One range check and one duplicate count (~20x faster than family by family for 20
    families); None when anything needs the family-by-family checks and their messages.
    """
    if not all(isinstance(fam, (list, tuple, np.ndarray, range)) for fam in families):
        return None
    arrs = [np.asarray(fam) for fam in families]
    if not all(a.ndim == 1 and (a.size == 0 or np.issubdtype(a.dtype, np.integer)) for a in arrs):
        return None
    arrs = [a.astype(np.int64) for a in arrs]
    cat = np.concatenate(arrs) if arrs else np.zeros(0, np.int64)
    if cat.size and (cat.min() < 0 or cat.max() >= n_models or np.bincount(cat).max() > 1):
        return None
    return arrs


def _check_families(families, n_models: int) -> list[np.ndarray]:
    if isinstance(families, np.ndarray) or isinstance(families, (str, bytes)):
        raise BenchkitTypeError("families must be a list of model-index lists (strongest first); "
                                f"got {describe(families)}")
    out = []
    seen: dict[int, int] = {}
    try:
        families = list(families)
    except TypeError:
        raise BenchkitTypeError("families must be a list of model-index lists (strongest first); "
                                f"got {describe(families)}") from None
    fast = _integer_families(families, n_models)
    if fast is not None:
        return fast
    for f, fam in enumerate(families):  # the checks one by one (and their messages)
        if not isinstance(fam, (list, tuple, np.ndarray, range)):
            raise BenchkitTypeError(
                f"families[{f}] is {describe(fam)}; each family is a list of model (column) indices, "
                "strongest first, e.g. families=[[0, 1], [2, 3]]")
        idx = check_array(f"families[{f}]", list(fam) if not isinstance(fam, np.ndarray) else fam,
                          ndim=1, dtype="int")
        if idx.size and (idx.min() < 0 or idx.max() >= n_models):
            bad = idx[(idx < 0) | (idx >= n_models)][0]
            raise BenchkitValueError(f"families[{f}] has model index {int(bad)}, outside "
                                     f"0..{n_models - 1} (Y has {n_models} models)")
        for m in idx.tolist():
            if m in seen:
                raise BenchkitValueError(f"model index {m} appears in families[{seen[m]}] and "
                                         f"families[{f}]; a model belongs to one family, once")
            seen[m] = f
        out.append(idx)
    return out


@result
class CADResult:
    """Capability Alignment Deviation of one benchmark (Eq. 4-6), with its full structure.

    Within a model family ordered by size, a well-designed item should not be failed by a larger
    model and solved by a smaller one. CAD counts such inversions over every family and item and
    maps the rate to a score in (0, 1]: 1 = no inversion, > 0.6 good, < 0.4 significant issues.
    The per-item counts point at the items to review.

    Parameters
    ----------
    rate, score, lam, inversions, comparisons, item_inversions, item_comparisons
        The fields below (see Attributes); built by :func:`~benchkit.quality.steps.cad`.
    family_inversions, family_comparisons
        See Attributes.

    Attributes
    ----------
    rate : float
        Raw inversion rate, Eq. 4 (``inversions / comparisons``; NaN with no comparison).
    score : float
        ``exp(-lam * rate)``, Eq. 6.
    lam : float
        The scaling lambda of Eq. 6 (the paper's 12, App. B).
    inversions : float
        Inversions summed over families and items (fractional when Y holds fractional scores).
    comparisons : float
        Compared (stronger, weaker) pairs summed over families and items.
    item_inversions : ndarray (items,)
        Per-item inversions summed over families; ``rate = sum(inv) / sum(comp)``.
    item_comparisons : ndarray (items,)
        Per-item comparisons summed over families (``item_score`` is each item's CAD score).
    family_inversions : ndarray (families,)
        Per-family inversions.
    family_comparisons : ndarray (families,)
        Per-family comparisons (Table 7 uses ``exp(-lam * inv_f / comp_f)``).

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 3.3, Eq. (3)-(6); App. B; Table 7.

    Examples
    --------
    >>> from benchkit.quality.steps import cad
    >>> r = cad([[0, 1, 1], [1, 0, 1], [1, 1, 1]], [[0, 1, 2]])   # one family, largest first
    >>> r.inversions, r.comparisons, round(r.score, 4)
    (3.0, 9.0, 0.0183)
    >>> r.to_frame()
       inversions  comparisons      rate     score
    0         2.0          3.0  0.666667  0.000335
    1         1.0          3.0  0.333333  0.018316
    2         0.0          3.0  0.000000  1.000000
    """

    rate: float
    score: float
    lam: float
    inversions: float
    comparisons: float
    item_inversions: np.ndarray
    item_comparisons: np.ndarray
    family_inversions: np.ndarray
    family_comparisons: np.ndarray

    @property
    def item_rate(self) -> np.ndarray:
        """Per-item inversion rate ``inv_q / comp_q`` (NaN where no pair was compared)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.item_comparisons > 0,
                            self.item_inversions / np.where(self.item_comparisons > 0,
                                                            self.item_comparisons, 1), np.nan)

    @property
    def item_score(self) -> np.ndarray:
        """Per-item CAD score ``exp(-lam * inv_q / comp_q)`` (the selection criterion, Sec. 5.4)."""
        return np.exp(-self.lam * self.item_rate)

    @property
    def family_rate(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.family_comparisons > 0, self.family_inversions
                            / np.where(self.family_comparisons > 0, self.family_comparisons, 1),
                            np.nan)

    @property
    def family_score(self) -> np.ndarray:
        """Per-family CAD score (Table 7)."""
        return np.exp(-self.lam * self.family_rate)

    def to_frame(self) -> pd.DataFrame:
        """One row per item: inversions, comparisons, rate, score."""
        return pd.DataFrame({"inversions": self.item_inversions,
                             "comparisons": self.item_comparisons,
                             "rate": self.item_rate, "score": self.item_score})

    def families_frame(self, *, names: Sequence[str] | None = None) -> pd.DataFrame:
        """One row per family: inversions, comparisons, rate, score (Table 7)."""
        idx = pd.Index(names if names is not None else range(self.family_inversions.size),
                       name="family")
        return pd.DataFrame({"inversions": self.family_inversions,
                             "comparisons": self.family_comparisons,
                             "rate": self.family_rate, "score": self.family_score}, index=idx)


def _cad_counts(Ya: np.ndarray, fams: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray,
                                                                  np.ndarray, np.ndarray]:
    """Per-item and per-family inversion / comparison counts.

    Numba kernel :func:`benchkit._kernels.quality.cad_counts`, one pass over the matrix that also
    checks that every value lies in [0, 1] (NaN for missing), the check of :func:`_check_Y`, which
    on its own (``nanmin``/``nanmax``/``isnan``) cost as much as the counts.
    """
    from benchkit._kernels.quality import cad_counts

    n = Ya.shape[0]
    members = np.concatenate([f.astype(np.int64) for f in fams]) if fams else np.zeros(0, np.int64)
    ptr = np.zeros(len(fams) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([f.size for f in fams])
    inv = np.empty(n)
    comp = np.empty(n)
    finv = np.empty(len(fams))
    fcomp = np.empty(len(fams))
    bad = cad_counts(np.ascontiguousarray(Ya, dtype=np.float64), members, ptr, inv, comp, finv, fcomp)
    if bad >= 0:
        raise BenchkitValueError(f"Y must lie in [0, 1] (NaN for missing); found {Ya.flat[bad]!r}")
    return inv, comp, finv, fcomp


def cad(Y, families, *, lam: float = 12.0) -> CADResult:
    r"""Capability Alignment Deviation (Eq. 4-6) with per-item and per-family contributions.

    Parameters
    ----------
    Y : array_like (items x models)
        1 = correct, 0 = wrong; NaN = not evaluated. Scores in [0, 1] are accepted (see Notes).
    families : list of lists of int
        Model (column) indices of each family, strongest (largest) first (Eq. 3). Families with one
        model contribute nothing.
    lam : float, default 12.0
        The scaling parameter of Eq. 6 (App. B).

    Returns
    -------
    CADResult
        ``.rate`` (Eq. 4), ``.score`` = ``exp(-lam * rate)`` (Eq. 6), per-item and per-family
        counts.

    Notes
    -----
    Eq. 5: for a family :math:`M_1 \succ \dots \succ M_k`, an inversion on item q is an ordered
    pair j < k (j stronger) where :math:`M_j` fails and :math:`M_k` succeeds; every ordered pair
    of the family is compared on every item (``comp = |Q| k(k-1)/2``), and Eq. 4 pools inversions
    and comparisons over families. A pair with a missing cell (NaN) is neither an inversion nor a
    comparison. With fractional scores ``y`` (mean of several samples) a pair contributes
    ``(1 - y_j) y_k``, the expected number of inversions of one sample from each model.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 3.3, Eq. (3)-(6); App. B (lambda = 12).

    Examples
    --------
    >>> r = cad([[0, 1], [1, 1]], [[0, 1]])
    >>> r.rate, round(r.score, 6)
    (0.5, 0.002479)
    """
    Ya = check_array("Y", Y, ndim=2, dtype="float", finite=False)  # values: checked in the kernel
    fams = _check_families(families, Ya.shape[1])
    lam = check_float("lam", lam, min=0.0, min_inclusive=False)
    inv, comp, finv, fcomp = _cad_counts(Ya, fams)
    ti, tc = float(inv.sum()), float(comp.sum())
    rate = ti / tc if tc > 0 else float("nan")
    return CADResult(rate=rate, score=float(np.exp(-lam * rate)), lam=lam, inversions=ti,
                     comparisons=tc, item_inversions=inv, item_comparisons=comp,
                     family_inversions=finv, family_comparisons=fcomp)


def cad_score(rate, *, lam: float = 12.0):
    """``exp(-lam * rate)`` (Eq. 6): raw inversion rate(s) to CAD score(s) (Table 10).

    Parameters
    ----------
    rate : float or array_like
        Raw inversion rate(s) in [0, 1] (Eq. 4); NaN for a benchmark with no comparison.
    lam : float, default 12.0
        The scaling lambda (the paper's, App. B).

    Returns
    -------
    float or ndarray
        CAD in (0, 1]: 1 = no inversion; > 0.6 good, 0.4-0.6 acceptable, < 0.4 significant issues.

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation
       of LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 3.3, Eq. (6); App. B, Table 10.

    Examples
    --------
    >>> from benchkit.quality.steps import cad_score
    >>> cad_score([0.0, 0.03, 0.08, 0.25]).round(3)
    array([1.   , 0.698, 0.383, 0.05 ])
    """
    lam = check_float("lam", lam, min=0.0, min_inclusive=False)
    r = check_array("rate", rate, dtype="float", finite=False)  # NaN: a benchmark with no comparison
    if np.any((r < 0) | (r > 1)):
        raise BenchkitValueError(f"rate is an inversion rate in [0, 1] (Eq. 4); got {describe(rate)}")
    out = np.exp(-lam * r)
    return float(out) if out.ndim == 0 else out
