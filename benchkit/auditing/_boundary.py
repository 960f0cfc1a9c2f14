"""BSDProbe in the audit: :func:`benchkit.boundary.profile` along each axis -> per-item verdict."""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import describe
from benchkit.auditing._verdict import Context
from benchkit.auditing._verdict import NotRun
from benchkit.auditing._verdict import Verdict
from benchkit.auditing._verdict import empty_reasons

_GROUP_COLUMNS = ("family", "series", "variant")
MIN_LADDER = 3


def size_ladders(rs) -> dict[str, list[str]]:
    """Axes in the data: per family (series, variant), models of distinct sizes sharing a budget >= 2.

    A group qualifies with at least :data:`MIN_LADDER` models of known, distinct sizes at its most
    common budget T >= 2; its axis lists them smallest first. Groups whose sizes repeat (e.g. a
    base and a python variant of one size in one family) are left out: their order is undefined.
    """
    t = rs.models.copy()
    t.index = t.index.astype(str)
    t["_budget"] = np.asarray(rs.budget, dtype=np.int64)
    if "size" not in t.columns or "family" not in t.columns:
        return {}
    cols = [c for c in _GROUP_COLUMNS if c in t.columns]
    t = t[(t["_budget"] >= 2) & t["size"].notna() & t["family"].notna()]
    out = {}
    for key, g in t.groupby(cols, sort=False, dropna=False):
        budget = g["_budget"].mode().iloc[0]
        g = g[g["_budget"] == budget]
        if len(g) < MIN_LADDER or g["size"].duplicated().any():
            continue
        key = key if isinstance(key, tuple) else (key,)
        name = " ".join(dict.fromkeys(str(v) for v in key if isinstance(v, str) and v))
        out[name or f"ladder {len(out) + 1}"] = list(g.sort_values("size", kind="stable").index)
    return out


def _axes(rs, axis) -> dict:
    if axis is None:
        budgets = np.asarray(rs.budget, dtype=np.int64)
        if budgets.max() < 2:
            raise NotRun("no repeated samples: every model answers each item once (BSDProbe needs "
                         "T >= 2 samples per model along an ordered model axis)")
        found = size_ladders(rs)
        if not found:
            n_repeated = int((budgets >= 2).sum())
            raise NotRun(f"no size ladder: {n_repeated} model(s) have repeated samples, but no "
                         f"family has {MIN_LADDER} or more of them with distinct known sizes and one budget; "
                         "pass axis=[model ids, weakest first]")
        return found
    if isinstance(axis, str):
        return {axis: axis}
    if isinstance(axis, Mapping):
        return {str(k): v for k, v in axis.items()}
    if isinstance(axis, (list, tuple, pd.Index, np.ndarray)):
        return {"axis": list(axis)}
    raise BenchkitTypeError(f"axis must be None, 'accuracy', 'size', a list of model ids or a mapping "
                            f"name -> axis; got {describe(axis)}")


def run_boundary(rs, ctx: Context) -> Verdict:
    """Score: -log10 of the order-consistency score o (max over axes); flag: o <= alpha_o on any axis."""
    from benchkit.boundary import profile

    axes = _axes(rs, ctx.axis)
    n = rs.n_items
    score = np.full(n, np.nan)
    flag = np.zeros(n, dtype=bool)
    reason = empty_reasons(n)
    results, notes, on_axis = {}, [], {}
    opts = ctx.kwargs("boundary")
    for name, spec in axes.items():
        try:
            res = profile(rs, axis=spec, **opts)
        except BenchkitValueError as exc:  # this axis cannot be profiled; the others may
            notes.append(f"{name}: not profiled ({exc})")
            continue
        results[name] = res
        p = res.profile
        rows = rs.item_ids.get_indexer(res.trajectories.items)
        s = -np.log10(np.clip(p.o, 1e-300, 1.0))
        better = np.isnan(score[rows]) | (s > score[rows])
        score[rows] = np.where(better, s, score[rows])
        for j in np.flatnonzero(p.flagged):
            q = rows[j]
            counts = ", ".join(str(int(c)) for c in p.counts[j])
            text = (f"order violation along {name} (o = {p.o[j]:.3g} <= {p.alpha_o:g}; correct of "
                    f"T={p.T}: {counts}, smallest model first)")
            reason[q] = text if not flag[q] else f"{reason[q]}; {text}"
            flag[q] = True
        for i, m in enumerate(res.axis.models):
            on_axis.setdefault(str(m), []).append(f"{name} #{i + 1}")
        notes.append(f"{name}: {res.axis.n} models, T={res.T}, {int(p.flagged.sum())} flagged, "
                     f"{res.n_dropped} items without T responses")
    if not results:
        raise NotRun("; ".join(notes))
    reason[np.isnan(score)] = "not on any axis: some axis model lacks T responses"
    models = pd.DataFrame({"boundary_axes": [", ".join(on_axis.get(str(m), [])) for m in rs.model_ids]},
                          index=rs.model_ids)
    return Verdict(score=score, flag=flag, reason=reason, result=results, note="; ".join(notes),
                   models=models)
