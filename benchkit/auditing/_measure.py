"""The empirical measure in the audit: :func:`benchkit.measure.measure_benchmarks` (no item verdict)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchkit.auditing._verdict import Context
from benchkit.auditing._verdict import NotRun
from benchkit.auditing._verdict import Verdict
from benchkit.auditing._verdict import empty_reasons


def run_measure(rs, ctx: Context) -> Verdict:
    """No item score or flag: the reasons name the items bordering each benchmark's widest gaps.

    Paper 002 judges a benchmark's coverage of the difficulty axis (DDM, maximum gap); a gap is
    missing items, not a flawed one, so the method gives no per-item verdict. The reason column
    says where an item sits (normalized difficulty z) when it borders one of the top-k gaps.
    """
    from benchkit.measure import measure_benchmarks

    if rs.n_models < 2:
        raise NotRun(f"too few models: {rs.n_models} (the 1PL difficulties need at least 2)")
    by = "benchmark" if "benchmark" in rs.items.columns and rs.items["benchmark"].nunique() > 1 else None
    res = measure_benchmarks(rs, **ctx.kwargs("measure", by=by))
    n = rs.n_items
    reason = empty_reasons(n)
    notes = []
    for b in res.benchmarks:
        rows = rs.item_ids.get_indexer(b.items)
        s = b.summary
        for g in s.top_gaps:
            for end, j in (("right", g.left_index), ("left", g.right_index)):
                if j < 0:
                    continue
                q = rows[j]
                text = (f"{end} of gap {g.rank} of {b.name} (z = {b.z[j]:.3f}; "
                        f"gap {g.left:.3f}-{g.right:.3f}, "
                        f"width {g.width:.3f})")
                reason[q] = text if not reason[q] else f"{reason[q]}; {text}"
        notes.append(f"{b.name}: DDM {s.ddm:.3f}, max gap {s.max_gap:.3f}")
    fits = [b.fit.models_frame()["ability"] for b in res.benchmarks if b.fit is not None]
    models = None
    if fits:  # each benchmark's 1PL ability, averaged over the benchmarks a model answered
        ab = pd.concat([f.rename(lambda m: str(m)) for f in fits], axis=1).mean(axis=1)
        models = pd.DataFrame({"measure_ability": ab.reindex(rs.model_ids.astype(str)).to_numpy()},
                              index=rs.model_ids)
    note = "benchmark-level verdict only (no item flag): " + "; ".join(notes)
    return Verdict(score=np.full(n, np.nan), flag=np.zeros(n, dtype=bool), reason=reason, result=res,
                   note=note, item_verdict=False, models=models)
