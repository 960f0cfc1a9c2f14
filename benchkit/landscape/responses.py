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

    The entry point of the probability-landscape audit: every (model, item[, variant]) response
    becomes one point ``(P_top1, H_norm)``, the model's confidence in its answer and the
    competition among the options it did not choose. The points feed the benchmark-level summaries
    (mean ``H_norm`` and the mean pairwise distance, :func:`benchkit.landscape.steps.mpd`) and the
    item-level noise-injection flags (:func:`benchkit.landscape.steps.noise_failures`).

    Parameters
    ----------
    rs : ResponseSet
        Built with ``option_probs`` or ``option_logprobs`` (softmaxed over the options at
        construction).
    variant : str or list of str, optional
        Keep these variants (default: all), e.g. ``"baseline"`` and ``"noise"`` of
        :data:`benchkit.landscape.VARIANTS`.
    correct : {"responses", "items"}
        Where correctness comes from. ``"responses"`` (default): the ``correct`` column of the
        responses (right for variants that move the key, e.g. positional bias), carried as the
        ``correct`` column of ``to_frame()``; the points then have no ``answer``. ``"items"``:
        ``pred == answer_key`` of the items table (one key per item for every variant).
    item_columns : sequence of str, default ("benchmark", "source")
        Item-table columns copied into the point metadata when present (the splits of the
        per-benchmark tables).

    Returns
    -------
    LandscapePoints
        ``meta`` has ``model, item`` (``variant`` when ``rs`` has variants), the ``item_columns``
        present and, for ``correct="responses"``, ``correct``. Rows follow ``rs.to_long()``.

    Notes
    -----
    Only principal responses are used (one point per (model, item, variant)), so repeated samples
    do not count several times in MPD. The coordinates are those of
    :func:`benchkit.landscape.steps.points` over the item's options (Sec. 3.1-3.2).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.1-3.2
    (item representation), Sec. 4.3 (option probabilities from the letter logits).

    Examples
    --------
    >>> from benchkit.simulate import load_sample
    >>> from benchkit.landscape import map_points
    >>> rs = load_sample("mcq")                      # 300 items x 8 models, option probabilities
    >>> pts = map_points(rs)
    >>> len(pts), list(pts.meta.columns)
    (2400, ['model', 'item', 'benchmark', 'correct'])
    >>> frame = pts.to_frame()
    >>> frame.groupby("model")[["p_top1", "h_norm"]].mean().round(2).head(2)
               p_top1  h_norm
    model
    sim-mcq-1    0.55    0.73
    sim-mcq-2    0.63    0.69
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
