"""Trajectory explorer: BSDProbe item profiles, trajectories and benchmark histograms (paper 000).

:class:`TrajectoryExplorer` shows a :func:`benchkit.boundary.profiles` result:

- an **item list** with x, w, v, o, the flag and Delta, sortable by any of them (click a column
  header) and filterable by the flag, by Delta > 0 / Delta = 0 and by brushed ranges of the
  histograms;
- for the **chosen item** its correctness trajectory C and entropy trajectory E along the model
  axis, the isotonic fit, the Q_0.25 / Q_0.5 / Q_0.75 crossings of the fit (Eq. 4), the high-side
  region H = {i : s_i >= Q_0.75} (Eq. 6), its numbers (Delta, x, w, gamma, mean high-side entropy,
  v, D, o, flag, counts k/T) and, where the data carry them, the question text and the sample
  answers per model (answer states with their counts);
- **benchmark-level histograms** of x and w (Delta > 0 items, with the v-weighted distribution,
  Sec. 3.3), v and o (all items); dragging across a histogram brushes a range and filters the
  list, and the histograms show the filtered items' counts on top of the totals.

Every number comes from the profile result (computed in Python); the histogram bins are computed
in Python with :func:`numpy.histogram`. The front end is ``widgets/trajectory.js``.
``to_html()`` writes a static page with every item's trajectory embedded: choosing items,
sorting, the flag/Delta filters and brushing all work there without a kernel.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import traitlets

from benchkit._validation import (
    BenchkitTypeError,
    BenchkitValueError,
    check_choice,
    check_int,
    describe,
)
from benchkit.widgets._base import BenchkitWidget, to_jsonable

__all__ = ["TrajectoryExplorer", "HIST_VARS", "SORT_KEYS"]

#: Variables with a benchmark-level histogram (and a brush).
HIST_VARS = ("x", "w", "v", "o")
#: Columns the item list can be sorted by ("index" = the result's row order).
SORT_KEYS = ("index", "item", "x", "w", "v", "o", "D", "gamma", "delta", "flagged")
#: Histogram variables summarized over Delta > 0 items only (Sec. 3.3: assigned positions and
#: widths of Delta = 0 items are excluded from summaries of observed transitions).
_POSITIVE_ONLY = ("x", "w")
_FLAG_FILTERS = ("all", "flagged", "unflagged")
_DELTA_FILTERS = ("all", "positive", "flat")


def _unwrap(result: Any) -> dict:
    """The ProfileResult inside ``result`` and the metadata a ResponseSet-level result carries.

    Accepted: a :func:`benchkit.boundary.profiles` result; a ResponseSet-level result wrapping
    one (``profile`` attribute, e.g. :func:`benchkit.boundary.profile_responses`' output, whose
    ``axis.models``, ``trajectories`` (item ids, answer states) and ``items`` (text) are used);
    a :class:`benchkit.ResponseSet`, profiled first with ``profile_responses`` (default options).
    """
    from benchkit.boundary import ProfileResult

    if isinstance(result, ProfileResult):
        return {"profile": result}
    from benchkit.response_set import ResponseSet

    if isinstance(result, ResponseSet):
        from benchkit.boundary.responses import profile_responses

        return _unwrap(profile_responses(result))
    inner = getattr(result, "profile", None)
    if not isinstance(inner, ProfileResult):
        raise BenchkitTypeError(
            "result must be a benchkit.boundary.profiles(...) result (ProfileResult), a "
            "ResponseSet-level result wrapping one (profile_responses) or a ResponseSet; got "
            f"{describe(result)}"
        )
    out: dict = {"profile": inner}
    axis = getattr(result, "axis", None)
    names = getattr(axis, "models", None)
    if names is not None and len(names) == inner.n:
        out["models"] = [str(v) for v in names]
    traj = getattr(result, "trajectories", None)
    if traj is not None and getattr(traj, "items", None) is not None and len(traj.items) == inner.counts.shape[0]:
        out["items"] = [str(v) for v in traj.items]
        out["trajectories"] = traj
    meta = getattr(result, "items", None)
    if isinstance(meta, pd.DataFrame) and "text" in meta.columns:
        t = meta["text"]
        out["text"] = pd.Series(t.to_numpy(), index=[str(i) for i in meta.index])
    return out


def _state_answers(traj, model_names: list[str], k: int) -> dict | None:
    """Per item and model the answer states with counts, from a Trajectories' state counts."""
    labels = getattr(traj, "state_labels", None)
    if labels is None:  # binary states only: nothing beyond k/T to show
        return None
    sc = np.asarray(traj.state_counts)
    corr = np.asarray(traj.state_correct)
    out: dict = {}
    for q, item in enumerate(str(v) for v in traj.items):
        per = {}
        for i, model in enumerate(model_names):
            row = sc[q, i]
            used = np.flatnonzero(row > 0)
            # most frequent first, ties by label (as for long-form answers)
            used = np.array(sorted(used.tolist(), key=lambda s: (-int(row[s]), str(labels[q][s]))),
                            dtype=np.int64)
            per[model] = {
                "model": model,
                "states": [{"answer": str(labels[q][s]), "count": int(row[s]),
                            "correct": float(bool(corr[q, s]))} for s in used[:k]],
                "other": int(row[used[k:]].sum()), "total": int(row.sum()),
            }
        out[item] = per
    return out


def _names(name: str, values: Any, n: int) -> list[str]:
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray, pd.Index,
                                                                   pd.Series)):
        raise BenchkitTypeError(f"{name} must be a sequence of {n} labels; got {describe(values)}")
    out = [str(v) for v in list(values)]
    if len(out) != n:
        raise BenchkitValueError(f"{name} must have {n} labels (one per {'model' if name == 'models' else 'item'}); "
                                 f"got {len(out)}")
    return out


class TrajectoryExplorer(BenchkitWidget):
    """Interactive explorer of BSDProbe item profiles, trajectories and histograms.

    Parameters
    ----------
    result : ProfileResult
        :func:`benchkit.boundary.profiles` output (or a ResponseSet-level result wrapping one,
        whose axis model names are then used).
    items : sequence of str, optional
        Item ids, one per row (default ``result.items``, else ``"0", "1", ...``).
    models : sequence of str, optional
        Model names along the axis, weakest first (default: from ``responses`` when its counts
        match the result, else ``"model 1" ... "model n"``).
    text : mapping item -> str, sequence, Series or DataFrame with a ``text`` column, optional
        Question text per item (default: ``responses.items["text"]`` when present).
    entropy : array (items, n), optional
        Normalized answer-state entropies (Eq. 2) to use instead of ``result.entropy``. The
        profiles are then recomputed with :func:`benchkit.boundary.profiles` (same counts, T,
        alpha_o, calibration table, items and groups), so E, mean high-side entropy and v agree.
    answers : DataFrame, optional
        Sample answers in long form: columns ``item``, ``model``, ``answer`` and optionally
        ``correct`` (e.g. ``ResponseSet.to_long()``). Default: from ``responses`` when it has
        answer states.
    responses : ResponseSet, optional
        Source of model names, text and sample answers (see above). Its models are matched to
        the axis only when its count matrix reproduces ``result.counts`` (else pass ``models``).
    selected : int or str, optional
        Item shown first (row index or item id; default the first row of the sorted list).
    bins : int, default 20
        Histogram bins on [0, 1] for x, w, v and o.
    sort_by : str, default "o"
        Initial sort column (one of :data:`SORT_KEYS`); ascending, so flagged items come first.
    text_chars : int, default 600
        Text is cut to this many characters in the widget state.
    n_answers : int, default 6
        Answer states listed per model (most frequent first; the rest are summed as "other").

    Synced state (traitlets)
    ------------------------
    ``rows`` (one dict per item: index, item, x, w, v, o, D, gamma, delta, flat, flagged, text
    preview), ``models``, ``T``, ``alpha_o``, ``entropy_source``, ``summary`` (counts, flat share,
    flag rate, means over Delta > 0 items), ``histograms`` (per variable: edges, counts,
    v-weighted shares for x and w, population), ``brush`` (variable -> [lo, hi]),
    ``flag_filter`` ("all" / "flagged" / "unflagged"), ``delta_filter`` ("all" / "positive" /
    "flat"), ``sort_by``, ``sort_descending``, ``visible`` (row indices of the filtered, sorted
    list), ``hist_selected`` (per variable: counts of the visible items), ``selected`` (row index,
    -1 none), ``trajectory`` (everything drawn for the selected item), ``static_mode``.

    Notes
    -----
    Filter rule (also applied by the front end of exported pages): an item is listed when, for
    every brushed variable ``var`` with range [lo, hi], ``lo <= value <= hi`` holds, and for x and
    w also Delta > 0 (their histograms count Delta > 0 items, Sec. 3.3); plus the flag filter
    (``o <= alpha_o``) and the Delta filter. That is, with ``df = result.to_frame()``:
    ``df[df.x.between(lo, hi) & ~df.flat]`` for a brush on x. Sorting is stable (ties keep row
    order), missing values last. Histogram bins follow :func:`numpy.histogram` on the edges
    ``linspace(0, 1, bins + 1)`` (half-open bins, the last one closed).

    The high-side region drawn is H = {i : s_i >= Q_0.75} (Eq. 6), i.e. the models from
    ``result.high_start`` on; Delta = 0 items have no crossings and no high-side region, and their
    x (App. B position) is drawn as an assigned position.
    """

    _esm_file = "trajectory.js"
    _css_file = "trajectory.css"
    _html_title = "benchkit trajectory explorer"

    rows = traitlets.List(traitlets.Dict()).tag(sync=True)
    models = traitlets.List(traitlets.Unicode()).tag(sync=True)
    T = traitlets.Int(1).tag(sync=True)
    alpha_o = traitlets.Float(0.05).tag(sync=True)
    entropy_source = traitlets.Unicode("").tag(sync=True)
    summary = traitlets.Dict().tag(sync=True)
    histograms = traitlets.Dict().tag(sync=True)
    brush = traitlets.Dict().tag(sync=True)
    flag_filter = traitlets.Unicode("all").tag(sync=True)
    delta_filter = traitlets.Unicode("all").tag(sync=True)
    sort_by = traitlets.Unicode("o").tag(sync=True)
    sort_descending = traitlets.Bool(False).tag(sync=True)
    visible = traitlets.List(traitlets.Int()).tag(sync=True)
    hist_selected = traitlets.Dict().tag(sync=True)
    selected = traitlets.Int(-1).tag(sync=True)
    trajectory = traitlets.Dict().tag(sync=True)

    def __init__(self, result: Any, *, items: Any = None, models: Any = None, text: Any = None,
                 entropy: Any = None, answers: pd.DataFrame | None = None, responses: Any = None,
                 selected: int | str | None = None, bins: int = 20, sort_by: str = "o",
                 text_chars: int = 600, n_answers: int = 6, **kwargs: Any) -> None:
        info = _unwrap(result)
        prof = info["profile"]
        self._source = result
        bins = check_int("bins", bins, min=1, max=1000)
        self._text_chars = check_int("text_chars", text_chars, min=1)
        self._n_answers = check_int("n_answers", n_answers, min=1)
        sort_by = check_choice("sort_by", sort_by, SORT_KEYS)
        if entropy is not None:
            from benchkit.boundary import profiles

            prof = profiles(prof.counts, prof.T, entropy=entropy, alpha_o=prof.alpha_o,
                            calibration=prof.calibration, items=prof.items, groups=prof.groups)
        self._prof = prof
        traj_info = info.get("trajectories")
        # a ResponseSet-level result knows whether E is answer-state or binary entropy
        self._entropy_source = (str(traj_info.entropy_source) if traj_info is not None and entropy is None
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
        self._items = item_ids
        if responses is not None:
            from benchkit.response_set import ResponseSet

            if not isinstance(responses, ResponseSet):
                raise BenchkitTypeError(f"responses must be a benchkit.ResponseSet; got {describe(responses)}")
        if models is not None:
            model_names = _names("models", models, n)
        elif "models" in info:
            model_names = info["models"]
        elif responses is not None:
            if not self._counts_match(responses, item_ids):
                raise BenchkitValueError(
                    "responses' count matrix (its roster order) does not reproduce result.counts, so "
                    "its models cannot be matched to the axis; pass models= (model ids in axis order, "
                    "weakest first)"
                )
            model_names = [str(v) for v in responses.model_ids]
        else:
            model_names = [f"model {j + 1}" for j in range(n)]
        self._models = model_names
        if text is None and "text" in info:
            text = info["text"]
        self._text = self._resolve_text(text, responses, item_ids)
        if answers is None and responses is None and "trajectories" in info:
            self._answers = _state_answers(info["trajectories"], model_names, self._n_answers)
        else:
            if answers is None and responses is not None and getattr(responses, "has_answers", False):
                answers = responses.to_long()
            self._answers = self._group_answers(answers, item_ids, model_names)
        self._frame = prof.to_frame()
        self._frame.index = pd.Index(item_ids, name="item")
        self._edges = np.linspace(0.0, 1.0, bins + 1)
        super().__init__(
            rows=self._rows(), models=model_names, T=int(prof.T), alpha_o=float(prof.alpha_o),
            entropy_source=self._entropy_source, summary=self._summary(),
            histograms=self._histograms(), sort_by=sort_by, **kwargs,
        )
        self._refresh()
        if selected is None:
            first = self.visible[0] if self.visible else (0 if m else -1)
            self.selected = first
        else:
            self.selected = self._index_of(selected)
        if self.selected == -1:  # observers run only on change
            self.trajectory = {}

    # ----------------------------------------------------------------- inputs
    def _counts_match(self, rs, item_ids) -> bool:
        """True when rs's count matrix (roster order) reproduces the result's counts."""
        try:
            cm = rs.counts()
            K = pd.DataFrame(np.asarray(cm.K), index=[str(i) for i in rs.item_ids])
            sub = K.reindex(item_ids)
        except Exception:  # noqa: BLE001 - any mismatch means "cannot match"
            return False
        return (sub.shape == self._prof.counts.shape and not sub.isna().any().any()
                and np.array_equal(sub.to_numpy(dtype=np.int64), self._prof.counts))

    def _resolve_text(self, text, responses, item_ids) -> list[str | None] | None:
        if text is None and responses is not None and "text" in responses.items.columns:
            text = responses.items["text"]
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
            raise BenchkitTypeError(f"text must be a mapping, sequence, Series or DataFrame; got {describe(text)}")
        return [None if (v is None or (isinstance(v, float) and np.isnan(v))) else str(v) for v in vals]

    def _group_answers(self, answers, item_ids, model_names) -> dict | None:
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
        k = self._n_answers
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

    def _index_of(self, key) -> int:
        if isinstance(key, str):
            try:
                return self._items.index(key)
            except ValueError:
                raise BenchkitValueError(f"selected={describe(key)} is not an item id of the result "
                                         f"(e.g. {self._items[:3]})") from None
        return int(key)

    # ----------------------------------------------------------------- static views
    def _cut(self, t: str | None) -> str | None:
        if t is None:
            return None
        return t if len(t) <= self._text_chars else t[: self._text_chars - 1] + "…"

    def _rows(self) -> list[dict]:
        df = self._frame
        out = pd.DataFrame({
            "index": np.arange(len(df)), "item": self._items,
            "x": df["x"].to_numpy(), "w": df["w"].to_numpy(), "v": df["v"].to_numpy(),
            "o": df["o"].to_numpy(), "D": df["D"].to_numpy(), "gamma": df["gamma"].to_numpy(),
            "delta": df["delta"].to_numpy(), "flat": df["flat"].to_numpy(),
            "flagged": df["flagged"].to_numpy(),
        })
        rows = to_jsonable(out)
        if self._text is not None:
            for r, t in zip(rows, self._text):
                r["text"] = None if t is None else (t if len(t) <= 120 else t[:119] + "…")
        return rows

    def _population(self, var: str) -> np.ndarray:
        df = self._frame
        return (~df["flat"].to_numpy()) if var in _POSITIVE_ONLY else np.ones(len(df), bool)

    def _histograms(self) -> dict:
        df = self._frame
        out = {}
        for var in HIST_VARS:
            pop = self._population(var)
            vals = df[var].to_numpy()[pop]
            counts, _ = np.histogram(vals, bins=self._edges)
            h = {"edges": self._edges.tolist(), "counts": counts.tolist(), "n": int(pop.sum()),
                 "population": "Δ > 0 items" if var in _POSITIVE_ONLY else "all items",
                 "weighted": None}
            if var in _POSITIVE_ONLY:
                wts = df["v"].to_numpy()[pop]
                tot = float(wts.sum())
                if tot > 0:  # Sec. 3.3: normalized weighted distributions only for positive weight
                    wc, _ = np.histogram(vals, bins=self._edges, weights=wts)
                    h["weighted"] = (wc / tot).tolist()
            out[var] = h
        return out

    def _summary(self) -> dict:
        df = self._frame
        pos = ~df["flat"]
        return to_jsonable({
            "n_items": len(df), "n_models": self._prof.n, "T": self._prof.T,
            "n_flat": int(df["flat"].sum()), "flat_share": float(df["flat"].mean()) if len(df) else None,
            "n_flagged": int(df["flagged"].sum()),
            "flag_rate": float(df["flagged"].mean()) if len(df) else None,
            "mean_x": df.loc[pos, "x"].mean(), "mean_w": df.loc[pos, "w"].mean(),
            "mean_v": df["v"].mean(), "alpha_o": self._prof.alpha_o,
            "entropy_source": self._entropy_source,
        })

    def _trajectory(self, i: int) -> dict:
        """Everything the front end draws for row ``i`` (also what the static page embeds)."""
        p = self._prof
        n = p.n
        flat = bool(p.flat[i])
        hs = int(p.high_start[i])
        fit = p.fit[i]
        delta = float(p.delta[i])
        levels = None if flat else {str(q): float(fit[0] + q * delta) for q in (0.25, 0.5, 0.75)}
        traj = {
            "index": i, "item": self._items[i], "models": self._models,
            "s": (np.arange(n) / (n - 1)).tolist(), "counts": p.counts[i].tolist(), "T": int(p.T),
            "c": p.c[i].tolist(), "e": p.entropy[i].tolist(), "fit": fit.tolist(),
            "blocks": p.blocks[i].tolist(), "delta": delta, "flat": flat,
            "q25": p.q25[i], "q50": p.q50[i], "q75": p.q75[i], "levels": levels,
            "x": p.x[i], "w": p.w[i], "a": p.a[i], "gamma": p.gamma[i], "e_hi": p.e_hi[i],
            "v": p.v[i], "D": p.D[i], "o": p.o[i], "flagged": bool(p.flagged[i]),
            "alpha_o": float(p.alpha_o), "high_start": hs,
            "high": [bool(not flat and j >= hs) for j in range(n)],
            "entropy_source": self._entropy_source,
            "text": self._cut(self._text[i]) if self._text is not None else None,
            "answers": self._item_answers(self._items[i]),
        }
        return to_jsonable(traj)

    def _item_answers(self, item: str):
        if self._answers is None:
            return None
        per = self._answers.get(item, {})
        return [per.get(m, {"model": m, "states": [], "other": 0, "total": 0}) for m in self._models]

    # ----------------------------------------------------------------- filtering
    def _mask(self) -> np.ndarray:
        df = self._frame
        keep = np.ones(len(df), bool)
        for var, (lo, hi) in self.brush.items():
            vals = df[var].to_numpy()
            keep &= (vals >= lo) & (vals <= hi)
            if var in _POSITIVE_ONLY:
                keep &= ~df["flat"].to_numpy()
        if self.flag_filter == "flagged":
            keep &= df["flagged"].to_numpy()
        elif self.flag_filter == "unflagged":
            keep &= ~df["flagged"].to_numpy()
        if self.delta_filter == "positive":
            keep &= ~df["flat"].to_numpy()
        elif self.delta_filter == "flat":
            keep &= df["flat"].to_numpy()
        return keep

    def _order(self, idx: np.ndarray) -> list[int]:
        key = self.sort_by
        if key == "index":
            order = idx[::-1] if self.sort_descending else idx
            return [int(i) for i in order]
        col = (pd.Series(self._items) if key == "item" else self._frame[key].reset_index(drop=True))
        sub = col.iloc[idx]
        sub.index = idx
        if key == "flagged":
            sub = sub.astype(int)
        s = sub.sort_values(ascending=not self.sort_descending, kind="stable", na_position="last")
        return [int(i) for i in s.index]

    def _refresh(self) -> None:
        keep = self._mask()
        idx = np.flatnonzero(keep)
        hs = {}
        for var in HIST_VARS:
            sel = keep & self._population(var)
            counts, _ = np.histogram(self._frame[var].to_numpy()[sel], bins=self._edges)
            hs[var] = counts.tolist()
        with self.hold_sync():
            self.visible = self._order(idx)
            self.hist_selected = hs

    # ----------------------------------------------------------------- validation / observers
    @traitlets.validate("brush")
    def _valid_brush(self, proposal):
        out = {}
        for var, rng in dict(proposal["value"]).items():
            if var not in HIST_VARS:
                raise BenchkitValueError(f"brush variable {describe(var)} is not one of {list(HIST_VARS)}")
            try:
                lo, hi = (float(v) for v in rng)
            except (TypeError, ValueError):
                raise BenchkitValueError(f"brush[{var!r}] must be [lo, hi]; got {describe(rng)}") from None
            if not (np.isfinite(lo) and np.isfinite(hi) and lo <= hi):
                raise BenchkitValueError(f"brush[{var!r}] must be finite [lo, hi] with lo <= hi; got "
                                         f"{describe(rng)}")
            out[var] = [lo, hi]
        return out

    @traitlets.validate("flag_filter")
    def _valid_flag(self, proposal):
        return check_choice("flag_filter", proposal["value"], _FLAG_FILTERS)

    @traitlets.validate("delta_filter")
    def _valid_delta(self, proposal):
        return check_choice("delta_filter", proposal["value"], _DELTA_FILTERS)

    @traitlets.validate("sort_by")
    def _valid_sort(self, proposal):
        return check_choice("sort_by", proposal["value"], SORT_KEYS)

    @traitlets.validate("selected")
    def _valid_selected(self, proposal):
        v = int(proposal["value"])
        m = len(self._items)
        if v != -1 and not 0 <= v < m:
            raise BenchkitValueError(f"selected={v} must be -1 (none) or a row index 0..{m - 1}")
        return v

    @traitlets.observe("brush", "flag_filter", "delta_filter", "sort_by", "sort_descending")
    def _on_filter(self, change):
        if self._frame is not None:
            self._refresh()

    @traitlets.observe("selected")
    def _on_selected(self, change):
        i = change["new"]
        self.trajectory = {} if i < 0 else self._trajectory(i)

    _frame = None

    # ----------------------------------------------------------------- Python API
    @property
    def result(self):
        """The :class:`benchkit.boundary.ProfileResult` shown (recomputed if ``entropy`` was given)."""
        return self._prof

    @property
    def frame(self) -> pd.DataFrame:
        """``result.to_frame()`` indexed by the item ids shown."""
        return self._frame.copy()

    @property
    def item(self) -> str | None:
        """Id of the selected item (None when none is selected)."""
        return None if self.selected < 0 else self._items[self.selected]

    def select(self, item: int | str) -> None:
        """Choose the item shown (row index or item id)."""
        self.selected = self._index_of(item)

    @property
    def filtered(self) -> pd.DataFrame:
        """The listed items (filtered and sorted as in the widget) as rows of :attr:`frame`."""
        return self._frame.iloc[self.visible].copy()

    def set_brush(self, var: str, lo: float | None = None, hi: float | None = None) -> None:
        """Brush ``var`` (one of x, w, v, o) to [lo, hi]; without lo/hi, clear its brush."""
        var = check_choice("var", var, HIST_VARS)
        b = dict(self.brush)
        if lo is None and hi is None:
            b.pop(var, None)
        else:
            b[var] = [0.0 if lo is None else lo, 1.0 if hi is None else hi]
        self.brush = b

    def clear_filters(self) -> None:
        """Remove every brush and reset the flag and Delta filters."""
        with self.hold_trait_notifications():
            self.brush = {}
            self.flag_filter = "all"
            self.delta_filter = "all"

    def _static_state(self) -> dict:
        """Every item's trajectory, so the exported page can switch items without a kernel."""
        return {"bundle": [self._trajectory(i) for i in range(len(self._items))]}
