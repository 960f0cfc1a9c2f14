"""The answer-key check in the audit: :func:`benchkit.labels.key_issues` -> per-item verdict."""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchkit.auditing._verdict import Context
from benchkit.auditing._verdict import NotRun
from benchkit.auditing._verdict import Verdict


def run_labels(rs, ctx: Context) -> Verdict:
    """Score: Dawid-Skene log-odds that the key is wrong; flag: ``wrong_key`` or ``ambiguous``."""
    from benchkit.labels import key_issues

    if "answer_key" not in rs.items.columns or rs.items["answer_key"].isna().all():
        raise NotRun("no answer key (items column 'answer_key')")
    if not rs.has_answers and not rs.has_option_probs:
        raise NotRun("no chosen options: no 'answer' column and no option probabilities")
    opts = ctx.kwargs("labels")
    min_models = opts.get("min_models", 5)
    if rs.n_models < min_models:
        raise NotRun(f"too few models: {rs.n_models} < min_models ({min_models})")
    res = key_issues(rs, **opts)
    it = res.items.reindex(rs.item_ids)
    score = it["score"].to_numpy(dtype=np.float64)
    flag = it["flag"].fillna(False).to_numpy(dtype=bool)
    reason = np.where(flag | np.isnan(score), it["reason"].fillna("").to_numpy(dtype=object), "")
    m = res.models.reindex(rs.model_ids)
    models = pd.DataFrame({"labels_weight": m["weight"], "labels_ability": m["ability"],
                           "labels_excess_key": m["excess_key"]}, index=rs.model_ids)
    note = f"votes from {res.votes_from}; {res.n_flagged} flagged"
    return Verdict(score=score, flag=flag, reason=reason, result=res, note=note, models=models)
