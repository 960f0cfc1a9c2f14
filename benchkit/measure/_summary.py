"""One benchmark's empirical-measure summary and the paper's Table 1 (paper 002, Sec. 2).

:func:`summarize` collects DDM, the maximum gap and the top-k gaps of one benchmark;
:func:`tabulate_measures` lays several out as Table 1 with the paper's highlight thresholds.
The metrics themselves are ``_metrics``.
"""
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
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.measure._metrics import TopGaps
from benchkit.measure._metrics import _difficulties
from benchkit.measure._metrics import _unit
from benchkit.measure._metrics import ddm
from benchkit.measure._metrics import normalize_difficulty
from benchkit.measure._metrics import top_gaps

#: Highlight thresholds of the paper's Table 1: DDM >= 0.10, Max Gap >= 0.10, Top-5 Sum >= 0.30.
TABLE1_THRESHOLDS = (0.10, 0.10, 0.30)


@result
class MeasureSummary:
    """DDM, maximum gap and top-k gaps of one benchmark (one row of Table 1).

    Parameters
    ----------
    name, z, ddm, max_gap, top_gaps, target
        The fields below (see Attributes); built by :func:`summarize`.

    Attributes
    ----------
    name : str
        The benchmark's label.
    z : ndarray (n,)
        Its normalized difficulties in [0, 1].
    ddm : float
        DDM = W_1(nu_B, mu) in [0, 1]; lower is better (highlighted >= 0.10).
    max_gap : float
        G(B), the widest uncovered interval, in [0, 1]; lower is better (highlighted >= 0.10).
    top_gaps : TopGaps
        The k widest gaps; ``top_sum`` is their total (highlighted >= 0.30 for k = 5).
    target : str
        The DDM target: "uniform", "lebesgue" or "custom".

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical
       Measure Over Difficulty." arXiv:2610.29927, 2026. "Two diagnostic metrics", Table 1.

    Examples
    --------
    >>> from benchkit.measure.steps import summarize
    >>> s = summarize([0.05, 0.1, 0.15, 0.3, 0.35, 0.4, 0.8, 0.9], k=3, name="toy")
    >>> s.ddm, s.max_gap, round(s.top_sum, 2), s.n_items
    (0.11875, 0.4, 0.65, 8)
    """

    name: str
    z: np.ndarray
    ddm: float
    max_gap: float
    top_gaps: TopGaps
    target: str

    @property
    def n_items(self) -> int:
        return int(self.z.size)

    @property
    def top_sum(self) -> float:
        return self.top_gaps.total

    def to_frame(self) -> pd.DataFrame:
        """The gaps table (one row per top gap)."""
        return self.top_gaps.to_frame()


def summarize(z: Any, *, k: int = 5, target: Any = "uniform", name: str = "benchmark") -> MeasureSummary:
    """DDM, Max Gap and Top-k gaps of one benchmark's normalized difficulties.

    Parameters
    ----------
    z : array_like, shape (n,)
        Normalized difficulties in [0, 1].
    k : int
        Number of top gaps (default 5).
    target : "uniform", "lebesgue", array_like, (values, weights) or a distribution
        The DDM target (see :func:`ddm`; default the same-size uniform).
    name : str
        Label used in tables.

    Returns
    -------
    MeasureSummary
        One benchmark's Table 1 row with its gaps.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical
       Measure Over Difficulty." arXiv:2610.29927, 2026. "Two diagnostic metrics", Table 1.

    Examples
    --------
    >>> from benchkit.measure.steps import summarize
    >>> s = summarize([0.05, 0.1, 0.15, 0.3, 0.35, 0.4, 0.8, 0.9], name="toy")
    >>> round(s.ddm, 4), s.max_gap, round(s.top_sum, 2)
    (0.1187, 0.4, 0.8)
    """
    zz = _unit("z", z)
    tg = top_gaps(zz, k=k)
    return MeasureSummary(name=str(name), z=zz, ddm=ddm(zz, target=target),
                          max_gap=tg.gaps[0].width, top_gaps=tg,
                          target=target if isinstance(target, str) else "custom")


@result
class MeasureTable:
    """The paper's Table 1 for many benchmarks: DDM, Max Gap, Top-k Sum, # and the highlights.

    Parameters
    ----------
    summaries, thresholds, k
        The fields below (see Attributes); built by :func:`tabulate_measures`.

    Attributes
    ----------
    summaries : tuple of MeasureSummary
        One summary per benchmark, in input order (index by name: ``table["mbpp"]``).
    thresholds : (float, float, float)
        Highlight thresholds for DDM, Max Gap and Top-k Sum (the paper's 0.10, 0.10, 0.30).
    k : int
        Number of gaps summed in the Top-k Sum (the paper's 5).

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical
       Measure Over Difficulty." arXiv:2610.29927, 2026. Table 1.

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.measure.steps import tabulate_measures
    >>> t = tabulate_measures({"a": [-2.0, -1.0, 0.0, 0.5, 3.0], "b": np.linspace(-2, 2, 9)})
    >>> t.counts()           # benchmarks highlighted per metric
    {'DDM': 1, 'Max Gap': 2, 'Top-5 Sum': 2}
    """

    summaries: tuple[MeasureSummary, ...]
    thresholds: tuple[float, float, float]
    k: int

    def to_frame(self) -> pd.DataFrame:
        """Columns ``Benchmark, DDM, Max Gap, Top-5 Sum, #`` and boolean highlight columns."""
        top = f"Top-{self.k} Sum"
        rows = [{"Benchmark": s.name, "DDM": s.ddm, "Max Gap": s.max_gap, top: s.top_sum,
                 "#": s.n_items} for s in self.summaries]
        df = pd.DataFrame(rows, columns=["Benchmark", "DDM", "Max Gap", top, "#"])
        t = self.thresholds
        df["DDM high"] = df["DDM"] >= t[0]
        df["Max Gap high"] = df["Max Gap"] >= t[1]
        df[f"{top} high"] = df[top] >= t[2]
        return df

    def counts(self) -> dict[str, int]:
        """How many benchmarks are highlighted per metric (the paper's "10/25 have DDM >= 0.10")."""
        df = self.to_frame()
        return {c[:-5]: int(df[c].sum()) for c in df.columns if c.endswith(" high")}

    def __getitem__(self, name: str) -> MeasureSummary:
        for s in self.summaries:
            if s.name == name:
                return s
        raise BenchkitValueError(
            f"no benchmark named {describe(name)}; have {[s.name for s in self.summaries][:20]}"
        )


def tabulate_measures(
    benchmarks: Mapping[str, Any],
    *,
    normalize: str | None = "minmax",
    k: int = 5,
    target: Any = "uniform",
    thresholds: Sequence[float] = TABLE1_THRESHOLDS,
) -> MeasureTable:
    """Table 1 over many benchmarks at once.

    Parameters
    ----------
    benchmarks : mapping name -> difficulties
        Each value is an array of IRT difficulties (or an IRT fit result), or already normalized
        difficulties when ``normalize=None``.
    normalize : {"minmax", "logistic", None}
        Applied to each benchmark separately (default "minmax", as in the paper).
    k : int
        Top-k gaps (default 5).
    target : "uniform", "lebesgue", array_like, (values, weights) or a distribution
        The DDM target (see :func:`ddm`; default the same-size uniform of Table 1).
    thresholds : (float, float, float)
        Highlight thresholds for DDM, Max Gap and Top-k Sum; default (0.10, 0.10, 0.30), the
        paper's Table 1 caption ("DDM >= 0.10, Max Gap >= 0.10, or Top-5 Sum >= 0.30").

    Returns
    -------
    MeasureTable

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. Table 1 (DDM, Max Gap, Top-5 Sum and the
       highlights).

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.measure.steps import tabulate_measures
    >>> t = tabulate_measures({"a": [-2.0, -1.0, 0.0, 0.5, 3.0], "b": np.linspace(-2, 2, 9)})
    >>> t.to_frame()[["Benchmark", "DDM", "Max Gap", "Top-5 Sum", "#"]].round(3)
      Benchmark    DDM  Max Gap  Top-5 Sum  #
    0         a  0.120    0.500      1.000  5
    1         b  0.031    0.125      0.625  9
    """
    if not isinstance(benchmarks, Mapping) or len(benchmarks) == 0:
        raise BenchkitTypeError(
            f"benchmarks must be a non-empty mapping name -> difficulties; got {describe(benchmarks)}"
        )
    if normalize is not None:
        check_choice("normalize", normalize, ("minmax", "logistic"))
    th = tuple(float(check_float("thresholds", t)) for t in thresholds)
    if len(th) != 3:
        raise BenchkitValueError(f"thresholds must have 3 values (DDM, Max Gap, Top-k); got {len(th)}")
    out = []
    for name, b in benchmarks.items():
        arr = _difficulties(f"benchmarks[{name!r}]", b)
        z = arr if normalize is None else normalize_difficulty(arr, method=normalize)
        out.append(summarize(_unit(f"benchmarks[{name!r}]", z), k=k, target=target, name=str(name)))
    return MeasureTable(tuple(out), th, check_int("k", k, min=1))
