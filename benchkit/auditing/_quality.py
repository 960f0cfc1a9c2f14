"""Benchmark² in the audit: :func:`benchkit.quality.assess` -> per-item verdict (CAD, near-duplicates)."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from benchkit._validation import UntrustedIntervalWarning
from benchkit.auditing._verdict import Context
from benchkit.auditing._verdict import NotRun
from benchkit.auditing._verdict import Verdict
from benchkit.auditing._verdict import empty_reasons
from benchkit.auditing._verdict import family_members

#: Item CAD score ``exp(-lambda * inversion rate)`` at or below which an item is rank-inconsistent:
#: the threshold of Benchmark²'s selective construction (Sec. 5.4, Table 5: keep items above 0.15).
CAD_THRESHOLD = 0.15
#: Share of a benchmark's items (the smaller of the pair) that must pair up with items of another
#: benchmark as mutual best matches for the two to be called near-duplicates.
DUPLICATE_SHARE = 0.5
_MIN_SHARED_MODELS = 10
_MAX_PAIRS = 40_000_000  # items x items correlations computed for one benchmark pair


def _family_options(rs, families) -> dict:
    if families is not None:
        return {"families": family_members(rs, families)}
    cols = rs.models.columns
    if "series" in cols and "variant" in cols and rs.models["series"].notna().any():
        return {}  # quality's own default: series and variant (e.g. Qwen2.5-Instruct)
    if "family" in cols and rs.models["family"].notna().any():
        return {"family_by": "family"}
    return {"families": {}}


def _twins(A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mutual best matches between the rows of A and B by response correlation over the models."""
    def centred(X):
        X = X - X.mean(axis=1, keepdims=True)
        norm = np.sqrt((X * X).sum(axis=1, keepdims=True))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(norm > 0, X / norm, np.nan)

    R = np.nan_to_num(centred(A) @ centred(B).T, nan=-2.0)  # constant items never match
    best_b, best_a = R.argmax(axis=1), R.argmax(axis=0)
    mutual = (best_a[best_b] == np.arange(A.shape[0])) & (R[np.arange(A.shape[0]), best_b] > -2.0)
    return mutual, best_b, R[np.arange(A.shape[0]), best_b]


def run_quality(rs, ctx: Context) -> Verdict:
    """Score: the item's within-family inversion rate (CAD); flag: item CAD <= 0.15 or a near-copy."""
    from benchkit.quality import assess
    from benchkit.quality.responses import untrusted_intervals

    if rs.n_models < 2:
        raise NotRun(f"too few models: {rs.n_models} (Benchmark² compares models)")
    fam = _family_options(rs, ctx.families)
    by = "benchmark"
    has_bench = by in rs.items.columns and rs.items[by].notna().all()
    n_bench = int(rs.items[by].nunique()) if has_bench else 1
    data = rs if has_bench else {rs.name or "benchmark": rs}
    opts = ctx.kwargs("quality", **fam, align="pairwise", n_resamples=ctx.n_resamples,
                      rng=ctx.seeds.get("quality"), n_jobs=ctx.n_jobs, progress=False)
    # The item verdicts below use item CAD and near-copies, not Benchmark²'s bootstrap intervals:
    # their warning (short audits resample little) is set aside by category and its count goes
    # into the note, where AuditResult.applicability shows it. Every other warning passes through.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UntrustedIntervalWarning)
        res = assess(data, **opts)
    n_untrusted = int(untrusted_intervals(res.interval_diagnostics).sum())
    n_fam = {b: sum(1 for m in f.members if len(m) >= 2) for b, f in res.families.items()}
    if n_bench < 2 and not any(n_fam.values()):
        raise NotRun("one benchmark only and no family with two or more models of distinct known sizes "
                     "(CAD compares the members of a family; the cross-benchmark view needs two benchmarks)")
    n = rs.n_items
    ids = rs.item_ids.astype(str)
    score = np.full(n, np.nan)
    flag = np.zeros(n, dtype=bool)
    reason = empty_reasons(n)
    lam = res.settings["lam"]
    for b, r in res.cad_results.items():
        rows = ids.get_indexer(res.matrices[b].index.astype(str))
        rate = r.item_rate
        score[rows] = rate
        bad = np.flatnonzero(np.exp(-lam * np.nan_to_num(rate, nan=0.0)) <= CAD_THRESHOLD)
        for j in bad:
            reason[rows[j]] = (f"rank-inconsistent: a stronger family member fails where a weaker one "
                               f"succeeds in {rate[j]:.0%} of {r.item_comparisons[j]:g} within-family pairs "
                               f"(item CAD {np.exp(-lam * rate[j]):.3f} <= {CAD_THRESHOLD})")
        flag[rows[bad]] = True
    notes = [f"CAD families per benchmark: {', '.join(f'{b} {k}' for b, k in n_fam.items())}"]
    if n_untrusted:
        notes.append(f"{n_untrusted} of Benchmark²'s bootstrap intervals cannot be trusted (not used "
                     "by the item verdicts; see results['quality'].intervals_frame())")
    names = list(res.matrices)
    pairs = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            pairs.append(_duplicate_pair(res, names[i], names[j], ids, flag, reason))
    pairs = [p for p in pairs if p]
    if len(names) >= 2:
        notes.append("near-duplicate benchmarks: " + ("; ".join(pairs) if pairs else "none"))
    else:
        notes.append("one benchmark: no cross-benchmark view")
    models = None
    if res.families:
        fam_of = {}
        for b, f in res.families.items():
            for name, members in zip(f.names, f.members):
                for m in members:
                    fam_of.setdefault(str(m), name)
        models = pd.DataFrame({"quality_family": [fam_of.get(str(m), "") for m in rs.model_ids]},
                              index=rs.model_ids)
    return Verdict(score=score, flag=flag, reason=reason, result=res, note="; ".join(notes), models=models)


def _duplicate_pair(res, a: str, b: str, ids: pd.Index, flag: np.ndarray, reason: np.ndarray) -> str:
    """Flag the mutual-best-matching items of benchmarks a and b when enough of them pair up."""
    A, B = res.matrices[a], res.matrices[b]
    shared = [m for m in A.columns if m in B.columns and A[m].notna().all() and B[m].notna().all()]
    if len(shared) < _MIN_SHARED_MODELS or len(A) * len(B) > _MAX_PAIRS:
        return ""
    mutual, best, r = _twins(A[shared].to_numpy(dtype=np.float64), B[shared].to_numpy(dtype=np.float64))
    share = mutual.sum() / min(len(A), len(B))
    if share < DUPLICATE_SHARE:
        return ""
    tau = np.nan
    for table in res.kendall.values():
        if a in table.index and b in table.columns:
            tau = table.at[a, b]
    ia = ids.get_indexer(A.index.astype(str))
    ib = ids.get_indexer(B.index.astype(str))
    for j in np.flatnonzero(mutual):
        for q, other, bench in ((ia[j], B.index[best[j]], b), (ib[best[j]], A.index[j], a)):
            text = (f"near-duplicate: responses match item {other} of {bench} (r = {r[j]:.2f}); "
                    f"{share:.0%} of the items of {a} and {b} pair up (Kendall tau_b of their model "
                    f"rankings {tau:.2f})")
            reason[q] = text if not reason[q] else f"{reason[q]}; {text}"
            flag[q] = True
    return f"{a} ~ {b} ({share:.0%} of items pair up, tau_b {tau:.2f})"
