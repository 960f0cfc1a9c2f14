"""How much DDM / Max Gap / top-k gap sum move with the analysis choices the paper leaves open."""
from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_float
from benchkit._validation import describe
from benchkit.measure._metrics import normalize_difficulty
from benchkit.measure._summary import summarize

_EXTREME = ("keep", "drop", "drop_correct", "drop_wrong")
_NORMALIZE = ("minmax", "logistic")
_METRICS = ("ddm", "max_gap", "top_sum")


@result
class Sensitivity:
    """The measure metrics of each benchmark under every combination of the analysis choices.

    How much of a benchmark's DDM and gaps is the data and how much the analysis? The paper leaves
    open how extreme items enter, which prior the 1PL uses and how difficulties are normalized;
    small ranges over these choices mean the metrics can be trusted as reported.

    Parameters
    ----------
    table, default, k
        The fields below (see Attributes); built by :func:`benchkit.measure.analyze_sensitivity`.

    Attributes
    ----------
    table : DataFrame
        One row per benchmark x ``extreme`` x ``item_prior_sd`` x ``normalize``: ``benchmark,
        extreme, item_prior_sd, normalize, n_items, n_removed, ddm, max_gap, top_sum,
        is_default`` (``n_removed``: extreme items left out before the fit).
    default : dict
        The setting of :func:`benchkit.measure.measure_benchmarks`' defaults (the reference row).
    k : int
        Gaps summed in ``top_sum`` (the paper's 5).

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical
       Measure Over Difficulty." arXiv:2610.29927, 2026. Figure 2, steps 3-4; Table 1.

    Examples
    --------
    >>> from benchkit import measure, simulate
    >>> s = measure.analyze_sensitivity(simulate.load_sample("mirt"), item_prior_sd=(1.0, 3.0))
    >>> s.by_choice("normalize")[["normalize", "ddm", "max_gap", "top_sum"]].round(3)
      normalize    ddm  max_gap  top_sum
    0    minmax  0.144    0.152    0.393
    1  logistic  0.084    0.049    0.127
    """

    table: pd.DataFrame
    default: dict
    k: int

    def to_frame(self) -> pd.DataFrame:
        """The tidy table (a copy)."""
        return self.table.copy()

    def ranges_frame(self) -> pd.DataFrame:
        """Per benchmark and metric: the value at the default setting, and its range over settings.

        Columns: default value, min, max and max - min over all settings.
        """
        rows = []
        for name, g in self.table.groupby("benchmark", sort=False):
            ref = g[g["is_default"]]
            for m in _METRICS:
                rows.append({"benchmark": name, "metric": m,
                             "default": float(ref[m].iloc[0]) if len(ref) else np.nan,
                             "min": float(g[m].min()), "max": float(g[m].max()),
                             "range": float(g[m].max() - g[m].min())})
        return pd.DataFrame(rows)

    def by_choice(self, choice: str) -> pd.DataFrame:
        """Each metric as ``choice`` varies, the other choices held at their defaults.

        One row per benchmark x value of ``choice``.
        """
        check_choice("choice", choice, ("extreme", "item_prior_sd", "normalize"))
        t = self.table
        mask = np.ones(len(t), bool)
        for c in ("extreme", "item_prior_sd", "normalize"):
            if c != choice:
                mask &= (t[c] == self.default[c]).to_numpy()
        cols = ["benchmark", choice, "n_items", "n_removed", *_METRICS]
        return t.loc[mask, cols].reset_index(drop=True)


def _extreme_items(rs, mode: str) -> np.ndarray:
    """Boolean mask of the items ``mode`` removes.

    All-correct and / or all-wrong in every observed sample of every model.
    """
    cm = rs.counts()
    s, n = cm.K.sum(1), cm.N.sum(1)
    correct = (n > 0) & (s == n)
    wrong = (n > 0) & (s == 0)
    return {"keep": np.zeros(s.size, bool), "drop": correct | wrong,
            "drop_correct": correct, "drop_wrong": wrong}[mode]


def _as_tuple(name: str, value: Any, allowed=None, number: bool = False) -> tuple:
    vals = (value,) if isinstance(value, (str, int, float)) or value is None else tuple(value)
    if len(vals) == 0:
        raise BenchkitValueError(f"{name} must hold at least one value; got {describe(value)}")
    out = []
    for v in vals:
        if allowed is not None:
            check_choice(name, v, allowed)
        if number:
            v = check_float(name, v, min=0.0, min_inclusive=False)
        out.append(v)
    if len(set(out)) != len(out):
        raise BenchkitValueError(f"{name} has repeated values: {list(out)}")
    return tuple(out)


def analyze_sensitivity(
    data: Any,
    *,
    extreme: str | Sequence[str] = ("keep", "drop"),
    item_prior_sd: float | Sequence[float] = (1.0, 3.0, 10.0),
    normalize: str | Sequence[str] = ("minmax", "logistic"),
    method: str = "jml",
    by: str | None = None,
    k: int = 5,
    target: str = "uniform",
    ability_prior_sd: float | None = 3.0,
) -> Sensitivity:
    r"""DDM, Max Gap and top-k gap sum under every combination of the open analysis choices.

    Parameters
    ----------
    data : ResponseSet or mapping name -> ResponseSet
        The benchmark(s), as for :func:`benchkit.measure.measure_benchmarks`.
    extreme : str or sequence of {"keep", "drop", "drop_correct", "drop_wrong"}
        What happens to items answered correctly by every model in every sample (all-correct)
        and by none (all-wrong): ``"keep"`` (the item prior places them at the ends of the axis),
        ``"drop"`` (both left out before the fit), ``"drop_correct"``, ``"drop_wrong"`` (one
        kind left out). Default ("keep", "drop").
    item_prior_sd : float or sequence of float
        SDs of the Gaussian item prior / penalty of the 1PL fit (default (1, 3, 10); 3 is the
        default of the fits). It sets how far out the extreme items are placed.
    normalize : str or sequence of {"minmax", "logistic"}
        Normalizations of the difficulties to [0, 1] (default both).
    method : {"jml", "mml"}
        The 1PL estimator (default ``"jml"``, as :func:`measure_benchmarks`).
    by : str, optional
        Split each ResponseSet by this items column (as :func:`measure_benchmarks`).
    k : int
        Top-k gaps summed (default 5).
    target : {"uniform", "lebesgue"}
        DDM reference (default the same-size uniform at (i-0.5)/n).
    ability_prior_sd : float or None
        JML ability penalty (default 3).

    Returns
    -------
    Sensitivity
        ``table`` (tidy, one row per benchmark x setting), ``ranges_frame()``, ``by_choice(...)``.

    Notes
    -----
    Paper 002 computes DDM (its Eq. for :math:`W_1(\nu_B, \mu)`), the maximum gap and the
    top-5 gap sum "over the normalized difficulty distribution" (Figure 2, step 4) of a Bayesian
    1PL (step 3), without saying how items that every model solves (or none does) enter, which
    prior the fit uses, or how difficulties are normalized. Each of these moves the metrics:
    under ``"keep"`` the extreme items sit at the ends of the min-max axis, as far out as the
    item prior lets them, and compress every other item toward the middle, so DDM grows with the
    number of extreme items and with the prior SD. One fit is made per (benchmark, extreme,
    item_prior_sd); the normalizations reuse it. The reference row (``is_default``) is the
    setting of :func:`measure_benchmarks`' defaults: extreme="keep", item_prior_sd=3,
    normalize="minmax" (when those values are in the grid).

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. Figure 2, steps 3-4 (Bayesian 1PL, metrics over the
       normalized difficulties); Table 1.

    Examples
    --------
    >>> from benchkit import measure, simulate
    >>> s = measure.analyze_sensitivity(simulate.load_sample("mirt"), item_prior_sd=(1.0, 3.0))
    >>> s.ranges_frame()[["metric", "default", "min", "max"]].round(3)
        metric  default    min    max
    0      ddm    0.144  0.084  0.144
    1  max_gap    0.152  0.049  0.171
    2  top_sum    0.393  0.127  0.393
    """
    from benchkit.measure.responses import _is_response_set
    from benchkit.measure.responses import measure_benchmarks

    extremes = _as_tuple("extreme", extreme, _EXTREME)
    priors = _as_tuple("item_prior_sd", item_prior_sd, number=True)
    norms = _as_tuple("normalize", normalize, _NORMALIZE)
    check_choice("method", method, ("jml", "mml"))
    if _is_response_set(data):
        entries = {data.name or "benchmark": data}
    elif (isinstance(data, Mapping) and len(data) > 0
          and all(_is_response_set(v) for v in data.values())):
        entries = {str(n): v for n, v in data.items()}
    else:
        raise BenchkitTypeError(
            "data must be a ResponseSet or a non-empty mapping name -> ResponseSet (the choices "
            f"act on the fit); got {describe(data)}"
        )
    default = dict(extreme="keep", item_prior_sd=3.0, normalize="minmax")
    rows = []
    for name, rs in entries.items():
        for ext in extremes:
            gone = _extreme_items(rs, ext)
            sub = rs if not gone.any() else rs.select(items=list(rs.item_ids[~gone]))
            for sd in priors:
                res = measure_benchmarks({name: sub}, by=by, method=method, normalize="minmax",
                                         k=k, target=target, item_prior_sd=sd,
                                         ability_prior_sd=ability_prior_sd)
                for bm in res:
                    n_removed = int(gone.sum()) if by is None else int(
                        np.isin(np.asarray([str(i) for i in rs.item_ids[gone]]),
                                _group_items(rs, by, bm.name, name)).sum())
                    for norm in norms:
                        z = bm.z if norm == "minmax" else normalize_difficulty(bm.difficulty,
                                                                               method=norm)
                        s = summarize(z, k=k, target=target, name=bm.name)
                        rows.append({
                            "benchmark": bm.name, "extreme": ext, "item_prior_sd": sd,
                            "normalize": norm, "n_items": bm.n_items, "n_removed": n_removed,
                            "ddm": float(s.ddm), "max_gap": float(s.max_gap),
                            "top_sum": float(s.top_sum),
                            "is_default": (ext == "keep" and sd == 3.0 and norm == "minmax"),
                        })
    table = pd.DataFrame(rows)
    return Sensitivity(table=table, default=default, k=k)


def _group_items(rs, by: str, bench: str, name: str) -> np.ndarray:
    """Item ids (str) of the part ``bench`` = "<name>/<value>" of a ``by`` split."""
    value = bench[len(name) + 1:]
    col = rs.items[by].astype(object).to_numpy()
    return np.asarray([str(i) for i, v in zip(rs.item_ids, col) if str(v) == value])
