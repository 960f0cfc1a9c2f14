"""View models of the trajectory explorer: what :class:`benchkit.widgets.TrajectoryExplorer` draws.

Paper 000 (BSDProbe). :func:`trajectory_view` resolves a :func:`benchkit.boundary.steps.profiles` result
(or a ResponseSet-level result wrapping one, or a ResponseSet) plus optional item ids, model names,
question text and sample answers into a :class:`TrajectoryView`, whose methods compute everything
the explorer shows -- the item table, the benchmark-level histograms (Sec. 3.3 populations), the
summary line, one item's trajectory with its fit, crossings (Eq. 4) and high-side region (Eq. 6),
and the filtered, sorted item list -- so it is available, and testable, without Jupyter. This module
imports nothing from Jupyter.
"""
from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from benchkit import boundary
from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_int
from benchkit._validation import describe

__all__ = ["DELTA_FILTERS", "FLAG_FILTERS", "HIST_VARS", "SORT_KEYS", "TrajectoryView", "trajectory_view"]

#: Variables with a benchmark-level histogram (and a brush).
HIST_VARS = ("x", "w", "v", "o")
#: Columns the item list can be sorted by ("index" = the result's row order).
SORT_KEYS = ("index", "item", "x", "w", "v", "o", "D", "gamma", "delta", "flagged")
#: Histogram variables summarized over Delta > 0 items only (Sec. 3.3: assigned positions and
#: widths of Delta = 0 items are excluded from summaries of observed transitions).
POSITIVE_ONLY = ("x", "w")
FLAG_FILTERS = ("all", "flagged", "unflagged")
DELTA_FILTERS = ("all", "positive", "flat")


def _jsonable(v: Any) -> Any:
    """Numpy scalars -> Python, non-finite floats -> None (plain values for a view model)."""
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, np.ndarray):
        return [_jsonable(x) for x in v.tolist()]
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v) if np.isfinite(v) else None
    return v


def _unwrap(result: Any) -> dict:
    """The ProfileResult inside ``result`` and the metadata a ResponseSet-level result carries."""
    if isinstance(result, boundary.ProfileResult):
        return {"profile": result}
    from benchkit import ResponseSet

    if isinstance(result, ResponseSet):
        return _unwrap(boundary.profile(result))
    inner = getattr(result, "profile", None)
    if not isinstance(inner, boundary.ProfileResult):
        raise BenchkitTypeError(
            "result must be a benchkit.boundary.steps.profiles(...) result (ProfileResult), a "
            "ResponseSet-level result wrapping one (profile) or a ResponseSet; got "
            f"{describe(result)}"
        )
    out: dict = {"profile": inner}
    axis = getattr(result, "axis", None)
    names = getattr(axis, "models", None)
    if names is not None and len(names) == inner.n:
        out["models"] = [str(v) for v in names]
    traj = getattr(result, "trajectories", None)
    if (traj is not None and getattr(traj, "items", None) is not None
            and len(traj.items) == inner.counts.shape[0]):
        out["items"] = [str(v) for v in traj.items]
        out["trajectories"] = traj
    meta = getattr(result, "items", None)
    if isinstance(meta, pd.DataFrame) and "text" in meta.columns:
        t = meta["text"]
        out["text"] = pd.Series(t.to_numpy(), index=[str(i) for i in meta.index])
    return out


class _StateAnswers:
    """Answer states per item and model from a Trajectories' state counts.

    Computed on demand: one item for the live view; all items at once, vectorized, for an export.
    """

    def __init__(self, traj, model_names: list[str], k: int) -> None:
        self.sc = np.asarray(traj.state_counts)
        self.corr = np.asarray(traj.state_correct)
        self.labels = traj.state_labels
        self.index = {str(v): q for q, v in enumerate(traj.items)}
        self.models = model_names
        self.k = k

    def __contains__(self, item: str) -> bool:
        return item in self.index

    def item(self, item: str) -> dict:
        q = self.index[item]
        labels, per = self.labels[q], {}
        for i, model in enumerate(self.models):
            row = self.sc[q, i]
            used = np.flatnonzero(row > 0)
            # most frequent first, ties by label (as for long-form answers)
            used = np.array(sorted(used.tolist(), key=lambda s: (-int(row[s]), str(labels[s]))),
                            dtype=np.int64)
            per[model] = {
                "model": model,
                "states": [{"answer": str(labels[s]), "count": int(row[s]),
                            "correct": float(bool(self.corr[q, s]))} for s in used[: self.k]],
                "other": int(row[used[self.k:]].sum()), "total": int(row.sum()),
            }
        return per

    def compact(self, items: list[str]) -> list:
        """Per item (in ``items`` order), per model: ``[[answer, count, correct], ..., other]``."""
        Q, item_ix, S = np.nonzero(self.sc)
        cnt = self.sc[Q, item_ix, S]
        lab = np.array([str(self.labels[q][s]) for q, s in zip(Q.tolist(), S.tolist())], dtype=object)
        order = np.lexsort((lab, -cnt, item_ix, Q))
        Q, item_ix, S, cnt, lab = Q[order], item_ix[order], S[order], cnt[order], lab[order]
        cor = self.corr[Q, S].astype(bool)
        n_items, n = self.sc.shape[0], len(self.models)
        out = [[[0] for _ in range(n)] for _ in range(n_items)]
        prev, kk = (-1, -1), 0
        for q, i, c, a, ok in zip(Q.tolist(), item_ix.tolist(), cnt.tolist(), lab.tolist(), cor.tolist()):
            if (q, i) != prev:
                prev, kk = (q, i), 0
                cell = out[q][i] = [0]
            if kk < self.k:
                cell.insert(len(cell) - 1, [a, int(c), 1.0 if ok else 0.0])
            else:
                cell[-1] += int(c)
            kk += 1
        return [out[self.index[it]] for it in items]


def _names(name: str, values: Any, n: int) -> list[str]:
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray, pd.Index,
                                                                   pd.Series)):
        raise BenchkitTypeError(f"{name} must be a sequence of {n} labels; got {describe(values)}")
    out = [str(v) for v in list(values)]
    if len(out) != n:
        per = "model" if name == "models" else "item"
        raise BenchkitValueError(f"{name} must have {n} labels (one per {per}); got {len(out)}")
    return out


def _counts_match(rs, item_ids, counts) -> bool:
    """True when rs's count matrix (roster order) reproduces ``counts``."""
    try:
        cm = rs.counts()
        K = pd.DataFrame(np.asarray(cm.K), index=[str(i) for i in rs.item_ids])
        sub = K.reindex(item_ids)
    except (KeyError, ValueError, TypeError):  # any mismatch means "cannot match"
        return False
    return (sub.shape == counts.shape and not sub.isna().any().any()
            and np.array_equal(sub.to_numpy(dtype=np.int64), counts))


def _resolve_text(text, responses, item_ids) -> list[str | None] | None:
    if text is None and responses is not None and "text" in responses.items.columns:
        text = responses.items["text"].copy()
        text.index = text.index.astype(str)
    if text is None:
        return None
    if isinstance(text, pd.DataFrame):
        if "text" not in text.columns:
            raise BenchkitValueError(f"text DataFrame needs a 'text' column; has {list(text.columns)}")
        text = text.set_index("item")["text"] if "item" in text.columns else text["text"]
    if isinstance(text, pd.Series):
        text = {str(k): v for k, v in text.items()}
    if isinstance(text, Mapping):
        vals = [text.get(i) for i in item_ids]
    elif isinstance(text, (Sequence, np.ndarray)) and not isinstance(text, str):
        vals = list(text)
        if len(vals) != len(item_ids):
            raise BenchkitValueError(f"text must have one entry per item ({len(item_ids)}); got {len(vals)}")
    else:
        raise BenchkitTypeError("text must be a mapping, sequence, Series or DataFrame; "
                                f"got {describe(text)}")
    return [None if (v is None or (isinstance(v, float) and np.isnan(v))) else str(v) for v in vals]


def _group_answers(answers, item_ids, model_names, k) -> dict | None:
    if answers is None:
        return None
    if not isinstance(answers, pd.DataFrame):
        raise BenchkitTypeError(f"answers must be a DataFrame (item, model, answer[, correct]); got "
                                f"{describe(answers)}")
    missing = [c for c in ("item", "model", "answer") if c not in answers.columns]
    if missing:
        raise BenchkitValueError(f"answers is missing columns {missing}; it needs item, model, answer "
                                 f"(and optionally correct); has {list(answers.columns)}")
    df = pd.DataFrame({"item": answers["item"].astype(str).to_numpy(),
                       "model": answers["model"].astype(str).to_numpy(),
                       "answer": answers["answer"].astype(str).to_numpy()})
    df["correct"] = (answers["correct"].to_numpy(dtype=float) if "correct" in answers.columns
                     else np.nan)
    df = df[df["item"].isin(set(item_ids)) & df["model"].isin(set(model_names))]
    if df.empty:
        raise BenchkitValueError("answers has no rows for the result's items and models "
                                 f"(models {model_names[:3]}...; pass models= matching its 'model' column)")
    g = (df.groupby(["item", "model", "answer"], sort=False)
         .agg(count=("answer", "size"), correct=("correct", "mean")).reset_index())
    g = g.sort_values(["item", "model", "count", "answer"], ascending=[True, True, False, True],
                      kind="stable")
    out: dict = {}
    cells = g.groupby(["item", "model"], sort=False).indices  # positions, count-sorted
    ans, cnt, cor = g["answer"].to_numpy(), g["count"].to_numpy(), g["correct"].to_numpy()
    for (item, model), pos in cells.items():
        top = pos[:k]
        out.setdefault(item, {})[model] = {
            "model": model,
            "states": [{"answer": str(ans[j]), "count": int(cnt[j]),
                        "correct": None if np.isnan(cor[j]) else float(cor[j])} for j in top],
            "other": int(cnt[pos[k:]].sum()), "total": int(cnt[pos].sum()),
        }
    return out


@result
class TrajectoryView:
    """A profile result with the names, text and answers the trajectory explorer shows.

    The view model of :class:`benchkit.widgets.TrajectoryExplorer`: its methods compute every
    number the explorer draws (the item table, the benchmark-level histograms of x, w, v and o,
    one item's trajectory with its isotonic fit and crossings), so they can be read and tested
    without Jupyter.

    Parameters
    ----------
    profile, items, models, entropy_source, text, answers, frame
        The fields below (see Attributes); built by :func:`trajectory_view`.

    Attributes
    ----------
    profile : ProfileResult
        The item profiles shown (x, w, v, o, flags, fits).
    items : list of str
        Item ids, one per row of ``profile``.
    models : list of str
        Model names along the axis (weakest first).
    entropy_source : str
        ``"binary"`` or ``"answer states"`` (what E is).
    text : list of (str or None), or None
        Question text per item.
    answers : dict, _StateAnswers or None
        Sample answers: ``answers[item][model] = {"model", "states": [{"answer", "count",
        "correct"}], "other", "total"}`` (top ``n_answers`` states by count) from long-form answers,
        or the answer states of a ResponseSet-level result (read per item on demand); see
        :meth:`TrajectoryView.item_answers` and :meth:`TrajectoryView.compact_answers`.
    frame : DataFrame
        ``profile.to_frame()`` indexed by the item ids.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.1-3.3 (trajectories, profiles, benchmark-level distributions).

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> from benchkit.boundary.explore import trajectory_view
    >>> view = trajectory_view(boundary.profile(simulate.load_sample("ladder")))
    >>> s = view.summary()
    >>> s["n_items"], s["n_flagged"], s["entropy_source"]
    (300, 16, 'answers')
    """

    profile: Any
    items: list[str]
    models: list[str]
    entropy_source: str
    text: list[str | None] | None
    answers: Any
    frame: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """A copy of :attr:`frame` (``profile.to_frame()`` indexed by the item ids)."""
        return self.frame.copy()

    # --------------------------------------------------------------- benchmark level
    def population(self, var: str) -> np.ndarray:
        """Items counted in ``var``'s histogram: Delta > 0 items for x and w (Sec. 3.3), else all."""
        return (~self.frame["flat"].to_numpy()) if var in POSITIVE_ONLY else np.ones(len(self.frame), bool)

    def histograms(self, edges: np.ndarray) -> dict:
        """Histograms of the :data:`HIST_VARS` variables (``numpy.histogram`` bins).

        Per variable: ``edges, counts, n, population, weighted`` (the v-weighted share per bin for x and
        w when the weights sum to > 0).
        """
        df = self.frame
        out = {}
        for var in HIST_VARS:
            pop = self.population(var)
            vals = df[var].to_numpy()[pop]
            counts, _ = np.histogram(vals, bins=edges)
            h = {"edges": np.asarray(edges).tolist(), "counts": counts.tolist(), "n": int(pop.sum()),
                 "population": "Δ > 0 items" if var in POSITIVE_ONLY else "all items", "weighted": None}
            if var in POSITIVE_ONLY:
                wts = df["v"].to_numpy()[pop]
                tot = float(wts.sum())
                if tot > 0:  # Sec. 3.3: normalized weighted distributions only for positive weight
                    wc, _ = np.histogram(vals, bins=edges, weights=wts)
                    h["weighted"] = (wc / tot).tolist()
            out[var] = h
        return out

    def summary(self) -> dict:
        """Counts, Delta = 0 share, flag rate and means over Delta > 0 items (x, w) / all items (v)."""
        df = self.frame
        pos = ~df["flat"]
        p = self.profile
        return _jsonable({
            "n_items": len(df), "n_models": p.n, "T": p.T,
            "n_flat": int(df["flat"].sum()), "flat_share": float(df["flat"].mean()) if len(df) else None,
            "n_flagged": int(df["flagged"].sum()),
            "flag_rate": float(df["flagged"].mean()) if len(df) else None,
            "mean_x": df.loc[pos, "x"].mean(), "mean_w": df.loc[pos, "w"].mean(),
            "mean_v": df["v"].mean(), "alpha_o": p.alpha_o, "entropy_source": self.entropy_source,
        })

    def previews(self, *, chars: int = 120) -> list[str | None] | None:
        """Text previews for the item list (cut to ``chars``)."""
        if self.text is None:
            return None
        return [None if t is None else (t if len(t) <= chars else t[: chars - 1] + "…") for t in self.text]

    # --------------------------------------------------------------- one item
    def item_answers(self, item: str):
        """Per model (axis order) the item's answer states with counts (None without answers)."""
        if self.answers is None:
            return None
        if isinstance(self.answers, _StateAnswers):
            per = self.answers.item(item) if item in self.answers else {}
        else:
            per = self.answers.get(item, {})
        return [per.get(m, {"model": m, "states": [], "other": 0, "total": 0}) for m in self.models]

    def compact_answers(self) -> list | None:
        """Every item's answers, compactly (the export form; None without answers).

        Per item, per model ``[[answer, count, correct], ..., other]``.
        """
        if self.answers is None:
            return None
        if isinstance(self.answers, _StateAnswers):
            return self.answers.compact(self.items)
        out = []
        for item in self.items:
            per = self.answers.get(item, {})
            out.append([[*([st["answer"], st["count"], st["correct"]] for st in per[m]["states"]),
                         per[m]["other"]] if m in per else [0] for m in self.models])
        return out

    def trajectory(self, i: int, *, text_chars: int = 600) -> dict:
        """Everything drawn for row ``i``.

        s, counts, C, E, fit, blocks, Delta, the Q crossings and their levels ``c~1 + q Delta``
        (Eq. 4), x, w, a, gamma, mean high-side entropy, v, D, o, flag, the high-side region
        H = {j : s_j >= Q_0.75} (Eq. 6), text and sample answers.
        """
        p = self.profile
        n = p.n
        flat = bool(p.flat[i])
        hs = int(p.high_start[i])
        fit = p.fit[i]
        delta = float(p.delta[i])
        levels = None if flat else {str(q): float(fit[0] + q * delta) for q in (0.25, 0.5, 0.75)}
        t = None if self.text is None else self.text[i]
        if t is not None and len(t) > text_chars:
            t = t[: text_chars - 1] + "…"
        return _jsonable({
            "index": i, "item": self.items[i], "models": self.models,
            "s": (np.arange(n) / (n - 1)).tolist(), "counts": p.counts[i].tolist(), "T": int(p.T),
            "c": p.c[i].tolist(), "e": p.entropy[i].tolist(), "fit": fit.tolist(),
            "blocks": p.blocks[i].tolist(), "delta": delta, "flat": flat,
            "q25": p.q25[i], "q50": p.q50[i], "q75": p.q75[i], "levels": levels,
            "x": p.x[i], "w": p.w[i], "a": p.a[i], "gamma": p.gamma[i], "e_hi": p.e_hi[i],
            "v": p.v[i], "D": p.D[i], "o": p.o[i], "flagged": bool(p.flagged[i]),
            "alpha_o": float(p.alpha_o), "high_start": hs,
            "high": [bool(not flat and j >= hs) for j in range(n)],
            "entropy_source": self.entropy_source, "text": t,
            "answers": self.item_answers(self.items[i]),
        })

    # --------------------------------------------------------------- the list
    def mask(self, brush: Mapping[str, Sequence[float]], *, flag_filter: str = "all",
             delta_filter: str = "all") -> np.ndarray:
        """Items passing every brush, the flag filter and the Delta filter.

        A brush keeps ``lo <= value <= hi`` (x, w also need Delta > 0); the flag filter is
        ``o <= alpha_o``.
        """
        check_choice("flag_filter", flag_filter, FLAG_FILTERS)
        check_choice("delta_filter", delta_filter, DELTA_FILTERS)
        df = self.frame
        keep = np.ones(len(df), bool)
        flat = df["flat"].to_numpy()
        for var, (lo, hi) in dict(brush).items():
            check_choice("brush variable", var, HIST_VARS)
            vals = df[var].to_numpy()
            keep &= (vals >= lo) & (vals <= hi)
            if var in POSITIVE_ONLY:
                keep &= ~flat
        if flag_filter == "flagged":
            keep &= df["flagged"].to_numpy()
        elif flag_filter == "unflagged":
            keep &= ~df["flagged"].to_numpy()
        if delta_filter == "positive":
            keep &= ~flat
        elif delta_filter == "flat":
            keep &= flat
        return keep

    def order(self, idx: np.ndarray, *, sort_by: str = "o", descending: bool = False) -> np.ndarray:
        """Row indices ``idx`` sorted by ``sort_by`` (stable: ties keep row order; missing last)."""
        check_choice("sort_by", sort_by, SORT_KEYS)
        idx = np.asarray(idx, dtype=np.int64)
        if sort_by == "index":
            return idx[::-1] if descending else idx
        col = pd.Series(self.items) if sort_by == "item" else self.frame[sort_by].reset_index(drop=True)
        sub = col.iloc[idx]
        sub.index = idx
        if sort_by == "flagged":
            sub = sub.astype(int)
        s = sub.sort_values(ascending=not descending, kind="stable", na_position="last")
        return s.index.to_numpy(np.int64)

    def hist_selected(self, keep: np.ndarray, edges: np.ndarray) -> dict:
        """Per histogram variable, the counts of the kept items (its population only)."""
        out = {}
        for var in HIST_VARS:
            sel = keep & self.population(var)
            counts, _ = np.histogram(self.frame[var].to_numpy()[sel], bins=edges)
            out[var] = counts.tolist()
        return out

    # --------------------------------------------------------------- columnar form (export)
    def columns(self) -> dict[str, np.ndarray]:
        """The per-item numbers as compact arrays (item x model matrices and per-item scalars).

        ``counts`` uint16, ``e``, ``fit`` float32, ``blocks`` int32 (items x models); ``x, w, v, o, D,
        gamma, delta, a, e_hi, q25, q50, q75`` float32, ``high_start`` int32, ``flat, flagged`` uint8.
        """
        p = self.profile
        def f32(a):
            return np.asarray(a, dtype=np.float32)
        return {
            "counts": np.asarray(p.counts, dtype=np.uint16 if p.T < 65536 else np.uint32),
            "e": f32(p.entropy), "fit": f32(p.fit), "blocks": np.asarray(p.blocks, dtype=np.int32),
            **{k: f32(getattr(p, k)) for k in ("x", "w", "v", "o", "D", "gamma", "delta", "a", "e_hi",
                                               "q25", "q50", "q75")},
            "high_start": np.asarray(p.high_start, dtype=np.int32),
            "flat": np.asarray(p.flat, dtype=np.uint8), "flagged": np.asarray(p.flagged, dtype=np.uint8),
        }


def trajectory_view(result: Any, *, items: Any = None, models: Any = None, text: Any = None,
                    entropy: Any = None, answers: pd.DataFrame | None = None, responses: Any = None,
                    n_answers: int = 6) -> TrajectoryView:
    """Resolve a profile result and its metadata into a :class:`TrajectoryView`.

    Parameters
    ----------
    result : ProfileResult, ResponseSet-level result wrapping one, or ResponseSet
        :func:`benchkit.boundary.steps.profiles` output; a wrapper's axis model names, trajectories'
        item ids / answer states and item text are used; a ResponseSet is profiled with
        :func:`benchkit.boundary.profile` (default options).
    items, models : sequence of str, optional
        Item ids (one per row) and model names along the axis (weakest first).
    text : mapping item -> str, sequence, Series or DataFrame with a ``text`` column, optional
        Question text per item (default: the ``text`` column of the profiled items, if any).
    entropy : array (items, n), optional
        Normalized answer-state entropies (Eq. 2) replacing ``result.entropy``; the profiles are
        recomputed with :func:`benchkit.boundary.steps.profiles` (same counts, T, alpha_o, calibration,
        items and groups).
    answers : DataFrame, optional
        Long-form sample answers (``item, model, answer[, correct]``).
    responses : ResponseSet, optional
        Source of model names (only when its counts reproduce the result's), text and answers.
    n_answers : int
        Answer states kept per item and model (most frequent first; the rest summed as "other").

    Returns
    -------
    TrajectoryView

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.1-3.3.

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> from benchkit.boundary.explore import trajectory_view
    >>> view = trajectory_view(boundary.profile(simulate.load_sample("ladder")))
    >>> view.models[:2], view.items[:2]
    (['sim-0.6b', 'sim-1.7b'], ['q0000', 'q0001'])
    >>> t = view.trajectory(0)
    >>> t["c"], round(t["x"], 2), t["flagged"]
    ([0.0, 0.2, 0.3, 0.3, 0.8, 1.0], 0.68, False)
    """
    info = _unwrap(result)
    prof = info["profile"]
    n_answers = check_int("n_answers", n_answers, min=1)
    if entropy is not None:
        prof = boundary.steps.profiles(prof.counts, prof.T, entropy=entropy, alpha_o=prof.alpha_o,
                                       calibration=prof.calibration, items=prof.items, by=prof.groups)
    traj_info = info.get("trajectories")
    # a ResponseSet-level result knows whether E is answer-state or binary entropy
    entropy_source = (str(traj_info.entropy_source) if traj_info is not None and entropy is None
                      else str(prof.entropy_source))
    m, n = prof.counts.shape
    if items is not None:
        item_ids = _names("items", items, m)
    elif "items" in info:
        item_ids = info["items"]
    elif prof.items is not None:
        item_ids = [str(v) for v in prof.items.tolist()]
    else:
        item_ids = [str(i) for i in range(m)]
    if responses is not None:
        from benchkit import ResponseSet

        if not isinstance(responses, ResponseSet):
            raise BenchkitTypeError(f"responses must be a benchkit.ResponseSet; got {describe(responses)}")
    if models is not None:
        model_names = _names("models", models, n)
    elif "models" in info:
        model_names = info["models"]
    elif responses is not None:
        if not _counts_match(responses, item_ids, prof.counts):
            raise BenchkitValueError(
                "responses' count matrix (its roster order) does not reproduce result.counts, so "
                "its models cannot be matched to the axis; pass models= (model ids in axis order, "
                "weakest first)"
            )
        model_names = [str(v) for v in responses.model_ids]
    else:
        model_names = [f"model {j + 1}" for j in range(n)]
    if text is None and "text" in info:
        text = info["text"]
    text_list = _resolve_text(text, responses, item_ids)
    if answers is None and responses is None and "trajectories" in info:
        traj = info["trajectories"]
        ans = (_StateAnswers(traj, model_names, n_answers)
               if getattr(traj, "state_labels", None) is not None else None)  # binary states: only k/T
    else:
        if answers is None and responses is not None and getattr(responses, "has_answers", False):
            answers = responses.to_long()
        ans = _group_answers(answers, item_ids, model_names, n_answers)
    frame = prof.to_frame()
    frame.index = pd.Index(item_ids, name="item")
    return TrajectoryView(profile=prof, items=item_ids, models=model_names, entropy_source=entropy_source,
                          text=text_list, answers=ans, frame=frame)
