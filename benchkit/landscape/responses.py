"""Convenience: landscape points from a :class:`benchkit.ResponseSet` with option probabilities.

Paper 003, Sec. 3.1-3.2: every (item, model[, variant]) response with option probabilities becomes
one point ``(P_top1, H_norm)`` (:func:`benchkit.landscape.steps.points`).
"""
from __future__ import annotations

from typing import Any
from typing import Sequence

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit.landscape._points import LandscapePoints
from benchkit.landscape._points import points

__all__ = ["map_points"]


def map_points(rs: Any, *, variant: str | Sequence[str] | None = None,
               correct: str = "responses",
               item_columns: Sequence[str] = ("benchmark", "source")) -> LandscapePoints:
    """Landscape points of every principal response of ``rs`` that has option probabilities.

    Parameters
    ----------
    rs : ResponseSet
        Built with ``option_probs`` or ``option_logprobs`` (softmaxed over the options at
        construction).
    variant : str or list of str, optional
        Keep these variants (default: all).
    correct : {"responses", "items"}
        Where correctness comes from. ``"responses"`` (default): the ``correct`` column of the
        responses (right for variants that move the key, e.g. positional bias), carried as the
        ``correct`` column of ``to_frame()``; the points then have no ``answer``. ``"items"``:
        ``pred == answer_key`` of the items table (one key per item for every variant).
    item_columns : sequence of str
        Item-table columns copied into the point metadata when present.

    Returns
    -------
    LandscapePoints
        ``meta`` has ``model, item`` (``variant`` when ``rs`` has variants), the ``item_columns``
        present and, for ``correct="responses"``, ``correct``. Rows follow ``rs.to_long()``.

    Notes
    -----
    Only principal responses are used (one point per (model, item, variant)), so repeated samples
    do not count several times in MPD.
    """
    from benchkit.response_set import ResponseSet

    if not isinstance(rs, ResponseSet):
        raise BenchkitTypeError(f"rs must be a benchkit.ResponseSet; got {type(rs).__name__}")
    check_choice("correct", correct, ("responses", "items"))
    if not rs.has_option_probs:
        raise BenchkitValueError(
            "rs has no option probabilities; build it with an 'option_probs' or 'option_logprobs' "
            "column (e.g. benchkit.datasets.fetch('conformal-llm'))"
        )
    long = rs.to_long()
    if "principal" in long.columns:
        long = long[long["principal"].astype(bool)]
    if variant is not None:
        if "variant" not in long.columns:
            raise BenchkitValueError("variant= was given but rs has no variants")
        wanted = [variant] if isinstance(variant, str) else list(variant)
        for v in wanted:
            check_choice("variant", v, list(rs.variants))
        long = long[long["variant"].isin(wanted)]
    long = long.reset_index(drop=True)
    P = np.stack(long["option_probs"].to_numpy()).astype(np.float64)
    meta = pd.DataFrame({"model": long["model"].to_numpy(), "item": long["item"].to_numpy()})
    if "variant" in long.columns:
        meta["variant"] = long["variant"].to_numpy()
    items = rs.items
    for c in item_columns:
        if c in items.columns:
            meta[c] = items[c].reindex(long["item"]).to_numpy()
    answer = None
    if correct == "responses":
        meta["correct"] = long["correct"].to_numpy().astype(float) >= 0.5
    else:
        if "answer_key" not in items.columns:
            raise BenchkitValueError("correct='items' needs an items column 'answer_key'")
        answer = items["answer_key"].reindex(long["item"]).to_numpy()
    return points(P, kind="probs", meta=meta, answer=answer)
