"""The family-DIF explorer (paper 001): item x family effects, signatures, reversals, robustness.

:class:`DIFExplorer` renders an :class:`benchkit.dif.RankingAudit` (and optionally the robustness
tables of :func:`benchkit.dif.analyze_robustness`). Every number it draws comes from the view models of
:mod:`benchkit.dif.explore`.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import traitlets

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit.dif.explore import near_tie_view
from benchkit.dif.explore import reversal_curve_view
from benchkit.dif.explore import robustness_forest_view
from benchkit.dif.explore import signature_view
from benchkit.widgets._base import BenchkitWidget
from benchkit.widgets._base import pack_arrays
from benchkit.widgets._base import to_jsonable

__all__ = ["DIFExplorer"]

_PAIR_COLUMNS = ["fold", "model_a", "model_b", "full_a", "full_b", "anchor_a", "anchor_b", "gap_pp",
                 "anchor_tie", "reversed"]


class DIFExplorer(BenchkitWidget):
    """Explore a family-DIF audit: heatmap, item signature, Figure 1, Figure 2, near-tie pairs.

    Parameters
    ----------
    audit : benchkit.dif.RankingAudit
        The primary audit (:func:`benchkit.dif.audit_rankings`).
    robustness : DataFrame or mapping of str to DataFrame, optional
        Table 6 column(s) from :func:`benchkit.dif.analyze_robustness` (one per benchmark) for the
        robustness forest (Figure 2). Without it the forest panel says so.
    texts : mapping or Series of item -> str, optional
        Item texts shown with the signature (cut to ``max_text`` characters).
    max_text : int
        Longest text kept per item (keeps the export small).
    **kwargs
        Further widget options, passed on to :class:`anywidget.AnyWidget` (e.g. ``layout=``).

    Notes
    -----
    The heatmap holds every item's final signature from both halves as float32 arrays (binary
    state), ordered by decreasing :math:`D_i` (ties by item order, as
    :func:`benchkit.dif.explore.heatmap_view`). The front end draws a canvas overview of all
    items (each pixel row averages its items) and a detail window of ``window`` rows that can be
    clicked; a click sets :attr:`selected` (an item id), whose signature is drawn from the same
    arrays and returned by :attr:`selected_signature`. Clicking a threshold of the reversal curve
    sets :attr:`epsilon` (pp); Python recomputes the frozen near-tie pair table for it
    (:func:`benchkit.dif.explore.near_tie_view`). The exported page embeds the largest
    threshold's pair table (binary columns) and filters it by gap, so it switches thresholds
    without a kernel. Measured on a 14,042-item x 5,000-model simulated audit (673
    representatives, 26,898 pairs within 5 pp): see ``benchmarks/bench_explorers.py``.

    Examples
    --------
    Not run as a doctest: the audit it shows takes a few seconds (more on a cold numba cache),
    beyond the doctest budget. Constructing the explorer computes its state in Python; showing
    it needs a JupyterLab front end.

    >>> import pandas as pd
    >>> from benchkit import ResponseSet
    >>> from benchkit.dif import audit_rankings
    >>> from benchkit.dif.steps import simulate_family_dif
    >>> from benchkit.widgets import DIFExplorer
    >>> s = simulate_family_dif(n_items=200, n_models=300, n_owners=60, n_sources=4, rng=21)
    >>> wide = pd.DataFrame(s.Y, index=[f"q{i}" for i in range(200)], columns=list(s.model_ids))
    >>> rs = ResponseSet.from_wide(wide, items=pd.DataFrame({"item": wide.index, "source": s.source}))
    >>> audit = audit_rankings(rs, min_family_size=5, K=(2, 2), rng=3, n_controls=20,
    ...                        n_bootstrap=20, n_owner_bootstrap=20, n_permutations=10,
    ...                        sensitivity_fractions=(0.3,), progress=False)  # doctest: +SKIP
    >>> explorer = DIFExplorer(audit)  # doctest: +SKIP
    >>> explorer.epsilon  # doctest: +SKIP
    1.0
    """

    _esm_file = "dif.js"
    _css_file = "dif.css"
    _html_title = "benchkit family-DIF explorer"

    half = traitlets.Int(0).tag(sync=True)
    families = traitlets.List(traitlets.Unicode()).tag(sync=True)
    items = traitlets.List(traitlets.Unicode()).tag(sync=True)
    sources = traitlets.List(traitlets.Unicode()).tag(sync=True)
    texts = traitlets.List(traitlets.Unicode()).tag(sync=True)
    heat = traitlets.Bytes(b"").tag(sync=True)
    window = traitlets.Int(60).tag(sync=True)
    offset = traitlets.Int(0).tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)
    curve = traitlets.List().tag(sync=True)
    forest = traitlets.List().tag(sync=True)
    thresholds = traitlets.List().tag(sync=True)
    epsilon = traitlets.Float(1.0).tag(sync=True)
    pairs = traitlets.List().tag(sync=True)
    reversals_only = traitlets.Bool(False).tag(sync=True)
    summary = traitlets.Dict().tag(sync=True)

    def __init__(self, audit: Any, *, robustness: Any = None, texts: Any = None, max_text: int = 600,
                 **kwargs: Any) -> None:
        from benchkit.dif import RankingAudit

        if not isinstance(audit, RankingAudit):
            raise BenchkitTypeError(
                f"audit must be a benchkit.dif.RankingAudit (from benchkit.dif.audit_rankings); got "
                f"{type(audit).__name__}")
        self._result = audit
        ids = [str(i) for i in audit.item_ids]
        txt = [""] * len(ids)
        if texts is not None:
            if not isinstance(texts, (Mapping, pd.Series)):
                raise BenchkitTypeError(f"texts must be a mapping or Series item -> text; got "
                                        f"{type(texts).__name__}")
            m = {str(k): v for k, v in dict(texts).items()}
            txt = ["" if m.get(i) is None else str(m.get(i))[:max_text] for i in ids]
        forest = []
        self._robustness: dict = {}
        if robustness is not None:
            tables = robustness if isinstance(robustness, Mapping) else {"": robustness}
            for name, table in tables.items():
                if not isinstance(table, pd.DataFrame):
                    raise BenchkitTypeError(f"robustness must be a DataFrame (or a mapping of them) from "
                                            f"benchkit.dif.analyze_robustness; got {type(table).__name__}")
                self._robustness[str(name)] = table
                v = robustness_forest_view(table, benchmark=str(name) if name else None)
                if "benchmark" not in v:
                    v.insert(0, "benchmark", "")
                forest.append(v[["benchmark", "variant", "excess_pp", "p_value", "filled", "primary",
                                 "close_n"]])
        fa0, fa1 = audit.anchors
        order = [np.lexsort((np.arange(fa.D.size), -fa.D)).astype(np.int32) for fa in audit.anchors]
        thr = [float(100 * t) for t in audit.ranking.thresholds]
        eps = 100 * float(audit.settings.get("epsilon", 0.01))
        self._pairs_cache: dict[float, pd.DataFrame] = {}
        super().__init__(
            families=[str(f) for f in audit.families], items=ids,
            sources=[str(s) for s in audit.source], texts=txt,
            heat=pack_arrays(delta0=fa0.delta.astype(np.float32), delta1=fa1.delta.astype(np.float32),
                             D0=fa0.D.astype(np.float32), D1=fa1.D.astype(np.float32),
                             anchor0=fa0.selected[-1], anchor1=fa1.selected[-1],
                             order0=order[0], order1=order[1]),
            curve=to_jsonable(reversal_curve_view(audit)), forest=to_jsonable(pd.concat(forest))
            if forest else [], thresholds=thr, epsilon=eps,
            summary=to_jsonable(audit.to_frame().iloc[0].to_dict()), **kwargs)
        self._load_pairs()

    # ------------------------------------------------------------------ validation / observers
    @traitlets.validate("half")
    def _check_half(self, proposal):
        v = proposal["value"]
        if v not in (0, 1):
            raise BenchkitValueError(f"half={v!r} is not allowed; choose 0 or 1")
        return v

    @traitlets.validate("selected")
    def _check_selected(self, proposal):
        v = proposal["value"]
        if v and v not in self._index:
            raise BenchkitValueError(f"selected={v!r} is not an item of this audit")
        return v

    @traitlets.validate("epsilon")
    def _check_epsilon(self, proposal):
        v = float(proposal["value"])
        if self.thresholds and not any(abs(v - t) < 1e-9 for t in self.thresholds):
            raise BenchkitValueError(f"epsilon={v!r} pp is not an audited threshold; choose one of "
                                     f"{self.thresholds}")
        return v

    @property
    def _index(self) -> dict:
        idx = self.__dict__.get("_item_index")
        if idx is None:
            idx = {i: k for k, i in enumerate(self.items)}
            self.__dict__["_item_index"] = idx
        return idx

    @traitlets.observe("epsilon")
    def _on_epsilon(self, change):
        self._load_pairs()

    def _pair_frame(self, eps_pp: float) -> pd.DataFrame:
        return self.cached(("pairs", round(eps_pp, 9)),
                           lambda: near_tie_view(self._result, epsilon=eps_pp / 100)[_PAIR_COLUMNS])

    def _load_pairs(self) -> None:
        with self.working(f"near-tie pairs within {self.epsilon:g} pp"):
            self.pairs = to_jsonable(self._pair_frame(self.epsilon))

    # ------------------------------------------------------------------ accessors
    @property
    def selected_signature(self) -> pd.DataFrame:
        """The selected item's signature in both halves (empty when nothing is selected).

        Computed by :func:`benchkit.dif.explore.signature_view`.
        """
        if not self.selected:
            return pd.DataFrame(columns=["half", "family", "delta", "D", "anchor"])
        return signature_view(self._result, self.selected)

    @property
    def pair_table(self) -> pd.DataFrame:
        """The near-tie pairs at :attr:`epsilon` as shown (reversals first).

        Only the reversals when :attr:`reversals_only` is set.
        """
        t = self._pair_frame(self.epsilon)
        return t[t["reversed"]].reset_index(drop=True) if self.reversals_only else t

    def _static_state(self) -> dict[str, Any]:
        # The near-tie pairs of every smaller threshold are the largest threshold's pairs with
        # gap <= epsilon (the pair set is frozen), so the page embeds that one table in binary
        # columns and filters it; `pairs` itself is not embedded twice.
        t = self._pair_frame(max(self.thresholds)) if self.thresholds else self._pair_frame(self.epsilon)
        models, codes = np.unique(np.concatenate([t["model_a"], t["model_b"]]).astype(str),
                                  return_inverse=True)
        n = len(t)
        return {"pairs": [], "pair_models": models.tolist(),
                "pair_bin": pack_arrays(
                    fold=t["fold"].to_numpy(np.uint8), a=codes[:n].astype(np.int32),
                    b=codes[n:].astype(np.int32), full_a=t["full_a"].to_numpy(np.float64),
                    full_b=t["full_b"].to_numpy(np.float64), anchor_a=t["anchor_a"].to_numpy(np.float64),
                    anchor_b=t["anchor_b"].to_numpy(np.float64), gap_pp=t["gap_pp"].to_numpy(np.float64),
                    anchor_tie=t["anchor_tie"].to_numpy(bool), reversed=t["reversed"].to_numpy(bool))}

    def static_chart(self):
        """The whole explorer as one chart: the image stored with the live explorer.

        Its title is the summary line; below it the heatmap window shown (rows ``offset`` to
        ``offset + window`` of the half shown, ordered by D_i, anchors marked), the signature of
        the selected item (of the top item when none is selected), Figure 1
        (:func:`benchkit.charts.dif.reversal_curve_chart`), Figure 2
        (:func:`~benchkit.charts.dif.robustness_forest_chart`, when robustness tables were given)
        and the first rows of the near-tie pair table at :attr:`epsilon`.
        """
        import altair as alt

        from benchkit.charts.dif import explorer_panels

        half = int(self.half)
        fa = self._result.anchors[half]
        order = np.lexsort((np.arange(fa.D.size), -fa.D))
        win = min(int(self.window), len(order))
        off = max(0, min(int(self.offset), len(order) - win))
        rows = order[off:off + win]
        selected = self.selected or self.items[int(order[0])]
        S = self.summary

        def num(key, d):
            v = S.get(key)
            return f"{v:.{d}f}" if isinstance(v, (int, float)) else "–"

        title = (f"Family-DIF audit: K {S.get('K', '–')} · τb {num('tau_b', 3)} · close pairs "
                 f"{num('close_n', 0)} · low-DIF reversal {num('low_dif_pct', 1)}% · random "
                 f"{num('random_pct', 1)}% · excess {num('excess_pp', 1)} pp · p {num('p_rand', 3)}")
        panels = explorer_panels(
            self._result, half=half, rows=rows, first_row=off, selected=selected,
            selected_given=bool(self.selected), robustness=self._robustness or None,
            pairs=self.pair_table, epsilon=float(self.epsilon))
        return alt.vconcat(*panels).resolve_scale(color="independent", fill="independent").properties(
            title=alt.TitleParams(title, anchor="start", fontSize=14))
