"""Difficulty-targeted gap filling: gap targets with their neighbour items, and what-ifs."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_int
from benchkit.measure._metrics import TopGaps
from benchkit.measure._metrics import _unit
from benchkit.measure._metrics import top_gaps
from benchkit.measure._summary import MeasureSummary
from benchkit.measure._summary import summarize


# ----------------------------------------------------------------------------------------------
# gap filling
# ----------------------------------------------------------------------------------------------
@result
class GapTargets:
    """Gap-filling targets: for each of the widest gaps, its midpoint and nearest items each side.

    The paper's gap filling puts a new item at the midpoint of a gap and rewrites the existing
    items closest to it (Figure 4); this lists both for the k widest gaps.

    Parameters
    ----------
    gaps, neighbors
        The fields below (see Attributes); built by :func:`~benchkit.measure.steps.gap_targets`.

    Attributes
    ----------
    gaps : TopGaps
        The k widest gaps, widest first; :meth:`to_frame` lists them with their target
        z* = (z_L + z_R)/2.
    neighbors : DataFrame
        One row per (gap, side, item): ``rank`` of the gap, ``target``, ``side`` ("lower" or
        "upper"), ``order`` (1 = nearest), ``item``, ``index``, ``z`` and ``distance`` to the
        target: the rewriting parents and references of each gap.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. "Difficulty-targeted gap filling", Figure 4.

    Examples
    --------
    >>> from benchkit.measure.steps import gap_targets
    >>> gt = gap_targets([0.05, 0.1, 0.15, 0.3, 0.35, 0.4, 0.8, 0.9], k=2, n_neighbors=1)
    >>> gt.to_frame()[["rank", "left", "right", "target"]]
       rank  left  right  target
    0     1  0.40    0.8   0.600
    1     2  0.15    0.3   0.225
    >>> gt.references(1)[["side", "item", "z"]]
        side  item    z
    0  lower     5  0.4
    1  upper     6  0.8
    """

    gaps: TopGaps
    neighbors: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """One row per gap: ``rank, left, right, width, target`` and the adjacent items."""
        df = self.gaps.to_frame().rename(columns={"midpoint": "target"})
        return df

    def references(self, rank: int) -> pd.DataFrame:
        """The neighbour items (parents and references) of gap ``rank``."""
        return self.neighbors[self.neighbors["rank"] == rank].reset_index(drop=True)


def gap_targets(
    z: Any,
    *,
    k: int = 5,
    n_neighbors: int = 3,
    items: Sequence[Any] | None = None,
) -> GapTargets:
    r"""Targets for difficulty-targeted gap filling.

    Parameters
    ----------
    z : array_like, shape (n,)
        Normalized difficulties in [0, 1].
    k : int
        Number of gaps (the k widest, default 5).
    n_neighbors : int
        Items listed on each side of each gap (default 3): the nearest below (``side="lower"``,
        nearest first) and above (``side="upper"``).
    items : sequence, optional
        Item ids (default: positions).

    Returns
    -------
    GapTargets
        ``to_frame()``: gaps with their target :math:`z^\star = (z_L + z_R)/2`; ``neighbors``: one
        row per (gap, side, item) with ``z`` and ``distance`` to the target.

    Notes
    -----
    Paper, "Difficulty-targeted gap filling": for an adjacent gap :math:`[z_L, z_R]` the goal is a
    new item with difficulty as close as possible to :math:`z^\star = (z_L + z_R)/2`; the existing
    items closest to the target serve as rewriting parents and the nearby lower and higher items as
    the reference list (Figure 4). Gaps next to 0 or 1 have neighbours on one side only.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. "Difficulty-targeted gap filling", Figure 4.

    Examples
    --------
    >>> from benchkit.measure.steps import gap_targets
    >>> z = [0.05, 0.1, 0.15, 0.3, 0.35, 0.4, 0.8, 0.9]     # normalized difficulties of 8 items
    >>> gap_targets(z, k=2, n_neighbors=2).neighbors[["rank", "side", "order", "z", "distance"]]
       rank   side  order     z  distance
    0     1  lower      1  0.40     0.200
    1     1  lower      2  0.35     0.250
    2     1  upper      1  0.80     0.200
    3     1  upper      2  0.90     0.300
    4     2  lower      1  0.15     0.075
    5     2  lower      2  0.10     0.125
    6     2  upper      1  0.30     0.075
    7     2  upper      2  0.35     0.125
    """
    zz = _unit("z", z)
    n_neighbors = check_int("n_neighbors", n_neighbors, min=1)
    ids = list(range(zz.size)) if items is None else list(items)
    if len(ids) != zz.size:
        raise BenchkitValueError(f"items has {len(ids)} ids but z has {zz.size} values")
    tg = top_gaps(zz, k=k)
    order = np.argsort(zz, kind="mergesort")
    zs = zz[order]
    rows = []
    for g in tg:
        t = g.midpoint
        lo = np.searchsorted(zs, g.left, side="right")  # positions < lo are <= left
        hi = np.searchsorted(zs, g.right, side="left")  # positions >= hi are >= right
        for r, pos in enumerate(range(lo - 1, max(lo - 1 - n_neighbors, -1), -1)):
            i = int(order[pos])
            rows.append({"rank": g.rank, "target": t, "side": "lower", "order": r + 1,
                         "item": ids[i], "index": i, "z": float(zz[i]), "distance": abs(t - zz[i])})
        for r, pos in enumerate(range(hi, min(hi + n_neighbors, zs.size))):
            i = int(order[pos])
            rows.append({"rank": g.rank, "target": t, "side": "upper", "order": r + 1,
                         "item": ids[i], "index": i, "z": float(zz[i]), "distance": abs(t - zz[i])})
    cols = ["rank", "target", "side", "order", "item", "index", "z", "distance"]
    return GapTargets(gaps=tg, neighbors=pd.DataFrame(rows, columns=cols))


@result
class WhatIf:
    """Metrics before and after adding items at given normalized difficulties.

    Parameters
    ----------
    before, after, added
        The fields below (see Attributes); built by :func:`~benchkit.measure.steps.what_if`.

    Attributes
    ----------
    before : MeasureSummary
        DDM, Max Gap and top gaps of the benchmark as it is.
    after : MeasureSummary
        The same with the added items (nothing replaced, same normalized axis).
    added : ndarray
        The normalized difficulties of the added items.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. "Difficulty-targeted gap filling" (largest gap
       before and after filling).

    Examples
    --------
    >>> from benchkit.measure.steps import what_if
    >>> w = what_if([0.05, 0.1, 0.15, 0.3, 0.35, 0.4, 0.8, 0.9], [0.6])
    >>> w.before.max_gap, w.after.max_gap
    (0.4, 0.2)
    """

    before: MeasureSummary
    after: MeasureSummary
    added: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        k = len(self.before.top_gaps)
        rows = []
        for label, s in (("before", self.before), ("after", self.after)):
            rows.append({"": label, "DDM": s.ddm, "Max Gap": s.max_gap, f"Top-{k} Sum": s.top_sum,
                         "#": s.n_items})
        return pd.DataFrame(rows).set_index("")


def what_if(z: Any, added: Any, *, k: int = 5, target: Any = "uniform") -> WhatIf:
    """The metrics after adding items at given normalized difficulties (nothing is replaced).

    Parameters
    ----------
    z : array_like, shape (n,)
        Current normalized difficulties in [0, 1].
    added : array_like, shape (m,)
        Normalized difficulties of the added items, in [0, 1] (e.g. gap midpoints, or calibrated
        new items placed with ``normalize_difficulty(b_new, reference=b_old)``).
    k : int
        Top-k gaps summed (see :func:`summarize`).
    target : "uniform", "lebesgue", array_like, (values, weights) or a distribution
        The DDM target (see :func:`ddm`; default the same-size uniform).

    Returns
    -------
    WhatIf
        ``to_frame()``: DDM, Max Gap, Top-k Sum and # before and after.

    References
    ----------
    .. [1] Sun, Y., Yu, N., Gong, J., Shen, J. and Zhang, H. "Your Benchmark Is an Empirical Measure
       Over Difficulty." arXiv:2610.29927, 2026. "Difficulty-targeted gap filling" (the before /
       after ECDF panels).

    Examples
    --------
    >>> from benchkit.measure.steps import what_if
    >>> z = [0.05, 0.1, 0.15, 0.3, 0.35, 0.4, 0.8, 0.9]     # normalized difficulties of 8 items
    >>> f = what_if(z, [0.6]).to_frame()     # one item at the widest gap's midpoint
    >>> f.index.tolist(), f["Max Gap"].tolist(), f["DDM"].round(4).tolist()
    (['before', 'after'], [0.4, 0.2], [0.1188, 0.0944])

    Notes
    -----
    The axis is kept fixed: the added items are placed on the current normalized axis and the
    union is not re-normalized (the paper's before/after ECDF panels share one axis). The same-size
    uniform reference grows with the benchmark (n + m atoms).
    """
    zz = _unit("z", z)
    add = check_array("added", added, ndim=(0, 1), dtype="float").ravel()
    add = _unit("added", add) if add.size else add
    before = summarize(zz, k=k, target=target, name="before")
    after = summarize(np.concatenate([zz, add]), k=k, target=target, name="after")
    return WhatIf(before=before, after=after, added=add)
