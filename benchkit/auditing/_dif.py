"""Family DIF in the audit: :func:`benchkit.dif.audit_rankings` -> per-item verdict."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from benchkit.auditing._verdict import Context
from benchkit.auditing._verdict import NotRun
from benchkit.auditing._verdict import Verdict
from benchkit.auditing._verdict import empty_reasons
from benchkit.auditing._verdict import family_members


def _patterns(rs, families) -> dict[str, str] | None:
    """The audit's ``families`` as DIF's label -> pattern mapping (exact model ids); None: DIF's own."""
    if families is None:
        return None
    return {name: "^(?:" + "|".join(re.escape(m) for m in members) + ")$"
            for name, members in family_members(rs, families).items() if members}


def run_dif(rs, ctx: Context) -> Verdict:
    """Score: the item's DIF magnitude D_i (mean of the two owner halves); flag: stable high DIF."""
    from benchkit.dif import audit_rankings

    defaults = dict(n_controls=ctx.n_resamples, n_bootstrap=ctx.n_resamples,
                    n_owner_bootstrap=ctx.n_resamples, n_permutations=ctx.n_resamples,
                    sensitivity_fractions=(), rng=ctx.seeds.get("dif"), n_jobs=ctx.n_jobs, progress=False)
    pats = _patterns(rs, ctx.families)
    if pats is not None:
        defaults["families"] = pats
    opts = ctx.kwargs("dif", **defaults)
    min_size = opts.get("min_family_size", 20)
    if rs.n_models < 2 * min_size:
        raise NotRun(f"too few models for family DIF: {rs.n_models} < 2 families x min_family_size "
                     f"({min_size}) (paper 001 audits leaderboards of hundreds of models)")
    res = audit_rankings(rs, **opts)
    halves = res.anchors
    D = np.mean([a.D for a in halves], axis=0)
    rep = res.replication
    flag = np.asarray(rep.high_D & rep.high_V, dtype=bool)
    reason = empty_reasons(rs.n_items)
    fams = np.asarray(rep.families, dtype=object)
    for q in np.flatnonzero(flag):
        reason[q] = (f"stable high DIF: in the top 20% of D within its source x easiness cell in both "
                     f"owner halves (D = {halves[0].D[q]:.2f} / {halves[1].D[q]:.2f}; advantaged family "
                     f"{fams[rep.argmax_D[q]]} / {fams[rep.argmax_V[q]]})")
    score = np.full(rs.n_items, np.nan)
    rows = rs.item_ids.get_indexer(pd.Index(res.item_ids))
    score[rows] = D
    t = res.population.table.set_index("model")
    t.index = t.index.astype(str)
    t = t.reindex(rs.model_ids.astype(str))
    models = pd.DataFrame({"dif_family": t["family"].to_numpy(), "dif_status": t["status"].to_numpy()},
                          index=rs.model_ids)
    note = (f"families {', '.join(res.families)}; K = {res.K[0]}/{res.K[1]}; "
            f"{res.population.retained.size} of {rs.n_models} models retained")
    return Verdict(score=score, flag=flag, reason=reason, result=res, note=note, models=models)
