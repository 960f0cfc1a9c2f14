"""Probability landscapes in the audit: :func:`benchkit.landscape.map_points` -> per-item verdict."""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchkit.auditing._verdict import Context
from benchkit.auditing._verdict import NotRun
from benchkit.auditing._verdict import Verdict
from benchkit.auditing._verdict import empty_reasons

NOISE_VARIANT = "noise"


def run_landscape(rs_all, ctx: Context) -> Verdict:
    """Score: mean probability off the key; flag: every response fails (cross-model failure).

    ``rs_all`` is the audited set with all its variants: the flag uses the ``"noise"`` variant
    (paper 003's noise injection) when there is one, else every response.
    """
    from benchkit.landscape import map_points
    from benchkit.landscape.steps import noise_failures

    if not rs_all.has_option_probs:
        raise NotRun("no option probabilities (columns 'option_probs' / 'option_logprobs')")
    if rs_all.n_models * max(1, len(rs_all.variants)) < 2:
        raise NotRun("one model and one variant: a cross-model failure needs two or more responses per item")
    pts = map_points(rs_all, **ctx.kwargs("landscape"))
    frame = pts.to_frame()
    variant = NOISE_VARIANT if NOISE_VARIANT in rs_all.variants else None
    if variant is None and "variant" in frame.columns:  # pooled variants: each (model, variant) responds
        frame["responder"] = frame["model"].astype(str) + " | " + frame["variant"].astype(str)
    else:
        frame["responder"] = frame["model"].astype(str)
    fails = noise_failures(frame, variant=variant, model_column="responder")
    use = (frame["variant"] == variant).to_numpy() if variant else np.ones(len(frame), dtype=bool)
    items = pd.Index(frame["item"].astype(str))
    off_key = 1.0 - frame["correct"].to_numpy(dtype=np.float64)
    how = "share of responses wrong"
    if "answer_key" in rs_all.items.columns:
        key = rs_all.items["answer_key"].reindex(frame["item"]).to_numpy(dtype=object)
        col = pd.Index(pts.labels).get_indexer(pd.Index(key, dtype=object))
        ok = col >= 0
        p_key = np.where(ok, pts.probs[np.arange(len(frame)), np.maximum(col, 0)], np.nan)
        off_key = np.where(ok, 1.0 - p_key, off_key)
        how = "mean probability off the key"
    g = pd.DataFrame({"item": items[use], "off": off_key[use]}).groupby("item", sort=False)["off"].mean()
    ids = rs_all.item_ids.astype(str)
    score = g.reindex(ids).to_numpy(dtype=np.float64)
    t = fails.table.set_index("item")
    t.index = t.index.astype(str)
    t = t.reindex(ids)
    flag = t["flagged"].fillna(False).to_numpy(dtype=bool)
    reason = empty_reasons(rs_all.n_items)
    where = f"under the {variant!r} variant" if variant else "in every response"
    for q in np.flatnonzero(flag):
        reason[q] = (f"cross-model failure: all {int(t['n_models'].iloc[q])} responses are wrong {where} "
                     f"({how} {score[q]:.2f})")
    reason[np.isnan(score)] = "no response with option probabilities"
    per_model = frame.groupby("model", sort=False, observed=True)[["p_top1", "h_norm"]].mean()
    per_model.index = per_model.index.astype(str)
    per_model = per_model.reindex(rs_all.model_ids.astype(str))
    models = pd.DataFrame({"landscape_p_top1": per_model["p_top1"].to_numpy(),
                           "landscape_h_norm": per_model["h_norm"].to_numpy()}, index=rs_all.model_ids)
    note = (f"{len(frame)} points; score = {how}; flag = every response wrong "
            + (f"under the {variant!r} variant" if variant else "(no 'noise' variant: all responses)"))
    return Verdict(score=score, flag=flag, reason=reason, result=pts, note=note, models=models)
