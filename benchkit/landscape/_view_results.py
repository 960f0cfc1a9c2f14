"""The results of the landscape explorer's view model (paper 003, Sec. 3.3-3.4).

:class:`ViewStats` (size, MPD, mean ``H_norm`` and ``P_top1``, accuracy of one view; what
:meth:`LandscapeView.stats` returns) and :class:`Moves` (each point's move from one variant to
another; what :meth:`LandscapeView.moves` returns). Public through
:mod:`benchkit.landscape.explore`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import check_int

__all__ = ["ViewStats", "Moves"]


@result
class ViewStats:
    """Summary of one view's points (Sec. 3.3, Tables 1-4).

    The numbers the explorer prints beside a view: its size, MPD, mean ``H_norm`` and
    ``P_top1`` and accuracy (what Tables 1-4 report per benchmark and variant).

    Parameters
    ----------
    n_points, mpd, mean_h_norm, mean_p_top1, accuracy, mpd_method, mpd_se
        The fields described under Attributes (built by :meth:`LandscapeView.stats`).

    Attributes
    ----------
    n_points : int
        Points in the view.
    mpd : float
        Mean pairwise distance of the pooled view points (:func:`benchkit.landscape.steps.mpd`): exact,
        or the sampled-pairs estimate (see ``mpd_method``); NaN below 2 points.
    mean_h_norm : float
        Mean normalized residual entropy of the points (Table 1's mean ``H_norm``).
    mean_p_top1 : float
        Mean top-option probability (model confidence).
    accuracy : float
        Mean correctness (NaN when correctness is unknown).
    mpd_method : str
        ``"exact"`` or ``"sampled"``.
    mpd_se : float
        Standard error of a sampled estimate (0 for exact; NaN below 2 points).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.3, Tables 1-4.

    Examples
    --------
    The weakest model of the MCQ sample: unsure (low ``P_top1``) and mostly wrong:

    >>> from benchkit.simulate import load_sample
    >>> from benchkit.landscape.explore import landscape_view
    >>> view = landscape_view(load_sample("mcq"))
    >>> st = view.stats(view.view_rows(model="sim-mcq-1"))
    >>> st.n_points, round(st.mpd, 3), round(st.mean_p_top1, 3), round(st.accuracy, 3)
    (300, 0.282, 0.552, 0.047)
    """

    n_points: int
    mpd: float
    mean_h_norm: float
    mean_p_top1: float
    accuracy: float
    mpd_method: str = "exact"
    mpd_se: float = 0.0

    def to_frame(self) -> pd.DataFrame:
        """One-row table of the fields."""
        return pd.DataFrame([self.__dict__])


@result
class Moves:
    """Per-point moves from one variant to another (the before/after view).

    Where each (model, item) point goes under a perturbation, e.g. from the baseline to noise
    injection (Sec. 3.4): long moves towards ``P_top1 = 1`` are items the distractors made hard.

    Parameters
    ----------
    frame
        The field described under Attributes (built by :meth:`LandscapeView.moves`).

    Attributes
    ----------
    frame : DataFrame
        One row per (model, item) present in both variants: ``row_before, row_after, model, item,
        x0, y0, x1, y1, distance`` (Euclidean length of the move in the landscape), in the order of
        the before variant's rows.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.4 (perturbations),
    Sec. 5.3-5.4.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import points
    >>> from benchkit.landscape.explore import landscape_view
    >>> meta = pd.DataFrame({"model": "m1", "item": ["q1", "q2", "q1", "q2"],
    ...                      "variant": ["baseline", "baseline", "noise", "noise"]})
    >>> pts = points([[0.5, 0.3, 0.1, 0.1], [0.4, 0.4, 0.1, 0.1],
    ...               [0.97, 0.01, 0.01, 0.01], [0.9, 0.05, 0.03, 0.02]],
    ...              meta=meta, answer=[0, 1, 0, 1])
    >>> view = landscape_view(pts)
    >>> moves = view.moves(view.view_rows(variant="baseline"), view.view_rows(variant="noise"))
    >>> moves.to_frame()[["item", "x0", "x1", "distance"]].round(3)
      item   x0    x1  distance
    0   q1  0.5  0.97     0.489
    1   q2  0.4  0.90     0.521
    >>> moves.largest(1)["item"].tolist()
    ['q2']
    """

    frame: pd.DataFrame

    def __len__(self) -> int:
        return len(self.frame)

    def largest(self, n: int) -> pd.DataFrame:
        """The ``n`` longest moves (ties keep row order), in row order."""
        n = check_int("n", n, min=0)
        if len(self.frame) <= n:
            return self.frame
        order = np.argsort(-self.frame["distance"].to_numpy(), kind="stable")[:n]
        return self.frame.iloc[np.sort(order)]

    def to_frame(self) -> pd.DataFrame:
        """The view-model table (a copy)."""
        return self.frame.copy()
