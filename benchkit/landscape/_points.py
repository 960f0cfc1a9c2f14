"""Item representation of the probability landscape: P_top1 and normalized residual entropy.

Paper 003 ("Auditing MCQA Benchmarks through Probability Landscapes"), Sec. 3.1-3.2.
"""
from __future__ import annotations

from typing import Any
from typing import Sequence

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_choice
from benchkit._validation import check_float
from benchkit.stats import normalized_entropy

__all__ = ["LandscapePoints", "points", "LETTERS"]

LETTERS = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


@result
class LandscapePoints:
    """Per-row (item x model x variant) landscape coordinates and what they were computed from.

    Each row is one point ``z = (P_top1, H_norm)`` of the paper's probability landscape: how
    strongly the model favours its answer, and how evenly the rest of its probability spreads over
    the other options (the competition among distractors). Built by :func:`points` and
    :func:`benchkit.landscape.map_points`; :meth:`to_frame` is the table the MPD steps read.

    Parameters
    ----------
    p_top1, h_norm, pred, probs, n_options, outside_mass, answer, correct, kind, labels, meta
        The fields described under Attributes (a result is built by :func:`points`, not by hand).

    Attributes
    ----------
    p_top1 : ndarray (N,)
        Probability of the predicted option after renormalizing over the offered options
        (Sec. 3.2's model confidence), in ``[1/k, 1]``: 1 means all the mass sits on one option.
    h_norm : ndarray (N,)
        Normalized residual entropy in [0, 1] (Sec. 3.2; see :func:`points`): 1 when the
        non-selected options share the rest equally (strong distractor competition), 0 when one of
        them takes it all (or nothing is left).
    pred : ndarray (N,) int64
        0-based index of the predicted option (argmax; ties go to the lowest index).
    probs : ndarray (N, k)
        Probabilities renormalized over the offered options (0 where an option is not offered).
    n_options : ndarray (N,) int64
        Number of options offered in each row.
    outside_mass : ndarray (N,)
        Probability mass on columns outside the offered set before renormalization (for
        ``kind="probs"``: their raw sum; for logits/log-probabilities: their softmax share over all
        finite columns). 0 when every column is offered.
    answer : ndarray (N,) int64 or None
        0-based index of the keyed answer, when given.
    correct : ndarray (N,) bool or None
        ``pred == answer``, when ``answer`` is given.
    kind : str
        What the input was: ``"probs"``, ``"logprobs"`` or ``"logits"``.
    labels : tuple of str
        Option labels of the k columns (``A, B, ...`` by default).
    meta : DataFrame or None
        Row metadata (e.g. ``model, benchmark, item, variant``) carried into :meth:`to_frame`.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.1-3.2.

    Examples
    --------
    >>> from benchkit.landscape.steps import points
    >>> pts = points([[0.7, 0.1, 0.1, 0.1], [0.4, 0.4, 0.1, 0.1]], answer=["A", "B"])
    >>> pts.xy.round(3).tolist()
    [[0.7, 1.0], [0.4, 0.79]]
    >>> pts.to_frame()[["pred", "answer", "correct"]]
      pred answer  correct
    0    A      A     True
    1    A      B    False
    """

    p_top1: np.ndarray
    h_norm: np.ndarray
    pred: np.ndarray
    probs: np.ndarray
    n_options: np.ndarray
    outside_mass: np.ndarray
    answer: np.ndarray | None
    correct: np.ndarray | None
    kind: str
    labels: tuple[str, ...]
    meta: pd.DataFrame | None = None

    def __len__(self) -> int:
        return int(self.p_top1.shape[0])

    @property
    def xy(self) -> np.ndarray:
        """The landscape points ``z_i = (P_top1, H_norm)`` as an ``(N, 2)`` float64 array."""
        return np.column_stack([self.p_top1, self.h_norm])

    @property
    def accuracy(self) -> float:
        """Mean of ``correct`` (NaN when no answer key was given)."""
        if self.correct is None or len(self) == 0:
            return float("nan")
        return float(np.mean(self.correct))

    def to_frame(self) -> pd.DataFrame:
        """One row per input row: metadata, ``p_top1, h_norm, pred``, key, correctness, probabilities."""
        labels = np.asarray(self.labels, dtype=object)
        data: dict[str, Any] = {}
        if self.meta is not None:
            for c in self.meta.columns:
                data[c] = self.meta[c].to_numpy()
        data["p_top1"] = self.p_top1
        data["h_norm"] = self.h_norm
        data["pred"] = labels[self.pred]
        if self.answer is not None:
            data["answer"] = labels[self.answer]
            data["correct"] = self.correct
        data["n_options"] = self.n_options
        data["outside_mass"] = self.outside_mass
        for j, lab in enumerate(self.labels):
            data[f"p_{lab}"] = self.probs[:, j]
        return pd.DataFrame(data)


def _offered_mask(offered: Any, n: int, k: int) -> np.ndarray:
    if offered is None:
        return np.ones((n, k), dtype=bool)
    if isinstance(offered, (int, np.integer)) and not isinstance(offered, bool):
        m = int(offered)
        if not 2 <= m <= k:
            raise BenchkitValueError(
                f"offered={m} must be between 2 and the number of columns k={k}"
            )
        mask = np.zeros((n, k), dtype=bool)
        mask[:, :m] = True
        return mask
    arr = np.asarray(offered)
    if arr.dtype == bool:
        if arr.shape == (k,):
            return np.broadcast_to(arr, (n, k)).copy()
        if arr.shape == (n, k):
            return arr.copy()
        raise BenchkitValueError(
            f"offered as a boolean mask must have shape ({k},) or ({n}, {k}); got {arr.shape}"
        )
    counts = check_array("offered", arr, ndim=1, dtype="int", shape=(n,))
    bad = (counts < 2) | (counts > k)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise BenchkitValueError(
            f"offered[{i}]={int(counts[i])} options; each row must offer between 2 and k={k}"
        )
    return np.arange(k)[None, :] < counts[:, None]


def _answer_index(answer: Any, n: int, labels: Sequence[str]) -> np.ndarray:
    arr = np.asarray(answer)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise BenchkitValueError(f"answer must have one entry per row ({n}); got shape {arr.shape}")
    if arr.dtype.kind in "OUSTt" or isinstance(arr.dtype, pd.StringDtype):
        lookup = {lab: j for j, lab in enumerate(labels)}
        out = np.empty(n, dtype=np.int64)
        for i, a in enumerate(arr.tolist()):
            key = str(a).strip().upper() if a is not None else None
            if key not in lookup:
                raise BenchkitValueError(
                    f"answer[{i}]={a!r} is not an option label; allowed: {', '.join(labels)}"
                )
            out[i] = lookup[key]
        return out
    idx = check_array("answer", arr, ndim=1, dtype="int")
    bad = (idx < 0) | (idx >= len(labels))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise BenchkitValueError(
            f"answer[{i}]={int(idx[i])} is not a 0-based option index in [0, {len(labels) - 1}]"
        )
    return idx


def points(
    probs: Any,
    *,
    kind: str = "probs",
    offered: Any = None,
    answer: Any = None,
    meta: pd.DataFrame | None = None,
    labels: Sequence[str] | None = None,
    renormalize: bool = True,
    atol: float = 1e-6,
) -> LandscapePoints:
    """Landscape coordinates ``(P_top1, H_norm)`` of each row of an ``(N, k)`` option array.

    Parameters
    ----------
    probs : array_like (N, k)
        One row per (item, model[, variant]) and one column per option (A, B, ...): option
        probabilities, log-probabilities or logits according to ``kind``.
    kind : {"probs", "logprobs", "logits"}
        ``"logits"`` and ``"logprobs"`` are turned into probabilities by a softmax over the offered
        options (the paper's Sec. 4.3: letter-token logits -> softmax). ``"probs"`` are divided by
        their sum over the offered options (when ``renormalize``).
    offered : None, int, (N,) ints, (k,) or (N, k) bool
        Which columns are options of the item: all (None), the first ``m`` (int), the first
        ``offered[i]`` of row ``i``, or an explicit mask. Columns outside the offered set (e.g. the
        E/F logits a source stores for 4-option MMLU items) are excluded from the softmax and from
        ``k``; their share is reported as ``outside_mass``. NaN is allowed only outside the set.
    answer : None or (N,) ints (0-based) or letters
        Keyed answer per row; gives ``correct = (pred == answer)``. Must be an offered option.
    meta : DataFrame, optional
        Row metadata (N rows, e.g. ``model, benchmark, item, variant``) carried into ``to_frame``.
    labels : sequence of str, optional
        Option labels; default ``A, B, C, ...``.
    renormalize : bool
        For ``kind="probs"``: divide by the offered sum (default). If False, offered rows must
        already sum to 1 within ``atol``.
    atol : float
        Tolerance for the sum check when ``renormalize=False``.

    Returns
    -------
    LandscapePoints
        ``p_top1`` and ``h_norm`` per row (``xy`` stacks them), the predicted option, the
        renormalized probabilities, and correctness when ``answer`` is given.

    Notes
    -----
    Sec. 3.1: ``y_pred = argmax_i P(x_i | q)`` over the offered options (ties: lowest index).
    Sec. 3.2: ``P_top1 = max_i P(x_i | q)``; with ``P'`` the non-top options renormalized to sum
    to 1, ``H_norm = -sum_j P'_j log P'_j / log(k - 1)``. Readings fixed in DESIGN.md: ``H_norm = 0``
    when the residual mass is 0 or ``k = 2``. ``k`` is the number of *offered* options of the row.
    Numerics: the residual distribution is computed from the non-top entries themselves (their own
    sum, or a softmax of their logits), never from ``1 - P_top1``, so it stays accurate when
    ``P_top1`` rounds to 1. ``0 log 0 = 0``; ``H_norm`` is clipped to [0, 1] against rounding.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.1
    (prediction), Sec. 3.2 (``P_top1`` and ``H_norm``), Sec. 4.3 (softmax over the letter
    logits).

    Examples
    --------
    Four options; the second row splits its residual mass unevenly, so its ``H_norm`` is lower:

    >>> from benchkit.landscape.steps import points
    >>> pts = points([[0.7, 0.1, 0.1, 0.1], [0.4, 0.4, 0.1, 0.1]], answer=["A", "B"])
    >>> pts.p_top1.round(3).tolist(), pts.h_norm.round(3).tolist(), pts.accuracy
    ([0.7, 0.4], [1.0, 0.79], 0.5)

    Log-probabilities of a 3-option item stored in a 4-column array (the last column unused):

    >>> import numpy as np
    >>> pts = points(np.log([[0.6, 0.3, 0.1, np.nan]]), kind="logprobs", offered=3)
    >>> pts.n_options.tolist(), pts.h_norm.round(3).tolist()
    ([3], [0.811])
    """
    check_choice("kind", kind, ("probs", "logprobs", "logits"))
    atol = check_float("atol", atol, min=0.0)
    arr = check_array("probs", probs, ndim=2, dtype="float", finite=False)
    n, k = arr.shape
    if k < 2:
        raise BenchkitValueError(f"probs must have at least 2 option columns; got shape {arr.shape}")
    if labels is None:
        if k > len(LETTERS):
            raise BenchkitValueError(f"probs has {k} columns; pass labels= for more than 26 options")
        labels = LETTERS[:k]
    labels = tuple(str(s) for s in labels)
    if len(labels) != k:
        raise BenchkitValueError(f"labels has {len(labels)} entries but probs has k={k} columns")
    mask = _offered_mask(offered, n, k)
    if (mask.sum(axis=1) < 2).any():
        i = int(np.flatnonzero(mask.sum(axis=1) < 2)[0])
        raise BenchkitValueError(f"row {i} offers fewer than 2 options (offered mask)")
    if meta is not None:
        if not isinstance(meta, pd.DataFrame):
            raise BenchkitTypeError(f"meta must be a pandas DataFrame; got {type(meta).__name__}")
        if len(meta) != n:
            raise BenchkitValueError(f"meta has {len(meta)} rows but probs has N={n}")
        meta = meta.reset_index(drop=True)

    inside = np.where(mask, arr, np.nan)
    nan_in = np.isnan(inside) & mask
    if nan_in.any():
        i, j = map(int, np.argwhere(nan_in)[0])
        raise BenchkitValueError(
            f"probs[{i}, {j}] is NaN but option {labels[j]} is offered in row {i}; "
            "mark it as not offered (offered=...) or pass a value"
        )

    if kind == "probs":
        if np.isinf(arr[mask]).any() or (arr[mask] < 0).any():
            i, j = map(int, np.argwhere(mask & (~np.isfinite(arr) | (arr < 0)))[0])
            raise BenchkitValueError(
                f"probs[{i}, {j}]={float(arr[i, j])!r} must be a finite probability >= 0"
            )
        p = np.where(mask, arr, 0.0)
        out_vals = np.where(~mask & np.isfinite(arr), arr, 0.0)
        if (out_vals < 0).any():
            i, j = map(int, np.argwhere(out_vals < 0)[0])
            raise BenchkitValueError(f"probs[{i}, {j}]={float(arr[i, j])!r} must be >= 0")
        outside_mass = out_vals.sum(axis=1)
        tot = p.sum(axis=1)
        if (tot <= 0).any():
            i = int(np.flatnonzero(tot <= 0)[0])
            raise BenchkitValueError(f"row {i} has zero probability on every offered option")
        if not renormalize:
            off = np.abs(tot - 1.0) > atol
            if off.any():
                i = int(np.flatnonzero(off)[0])
                raise BenchkitValueError(
                    f"row {i} sums to {float(tot[i])!r} over the offered options; pass renormalize=True "
                    f"or probabilities summing to 1 within atol={atol}"
                )
        p = p / tot[:, None]
        pred = np.argmax(np.where(mask, p, -1.0), axis=1)
        rows = np.arange(n)
        p_top = p[rows, pred]
        resid = p.copy()
        resid[rows, pred] = 0.0
        rmass = resid.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            q = np.where(rmass[:, None] > 0, resid / np.where(rmass > 0, rmass, 1.0)[:, None], 0.0)
    else:
        if (np.isposinf(arr) & mask).any():
            i, j = map(int, np.argwhere(np.isposinf(arr) & mask)[0])
            raise BenchkitValueError(f"probs[{i}, {j}] is +inf; {kind} must be finite or -inf")
        lg = np.where(mask, arr, -np.inf)
        if np.isneginf(lg).all(axis=1).any():
            i = int(np.flatnonzero(np.isneginf(lg).all(axis=1))[0])
            raise BenchkitValueError(f"row {i} has -inf {kind} on every offered option")
        pred = np.argmax(lg, axis=1)
        rows = np.arange(n)
        top = lg[rows, pred]
        e = np.exp(lg - top[:, None])  # 1 at the top, in [0, 1] elsewhere, 0 outside
        z = e.sum(axis=1)
        p = e / z[:, None]
        p_top = 1.0 / z
        # outside share: softmax over all finite columns
        allf = np.where(np.isfinite(arr), arr, -np.inf)
        big = np.maximum(allf.max(axis=1), top)
        ea = np.where(np.isfinite(allf), np.exp(allf - big[:, None]), 0.0)
        outside_mass = np.where(~mask, ea, 0.0).sum(axis=1) / ea.sum(axis=1)
        rl = lg.copy()
        rl[rows, pred] = -np.inf
        rtop = rl.max(axis=1)
        has = np.isfinite(rtop)
        with np.errstate(invalid="ignore"):
            er = np.where(has[:, None], np.exp(rl - np.where(has, rtop, 0.0)[:, None]), 0.0)
        rs = er.sum(axis=1)
        q = np.where(has[:, None], er / np.where(has, rs, 1.0)[:, None], 0.0)
        rmass = np.where(has, rs, 0.0)

    kk = mask.sum(axis=1).astype(np.int64)
    # entropy of the renormalized non-top options over log(k - 1); 0 when k = 2 (n_states = 1)
    # or when the residual mass is 0 (DESIGN.md reading)
    h_norm = np.where(rmass > 0, normalized_entropy(q, n_states=kk - 1, axis=1), 0.0)

    ans = corr = None
    if answer is not None:
        ans = _answer_index(answer, n, labels)
        not_off = ~mask[np.arange(n), ans]
        if not_off.any():
            i = int(np.flatnonzero(not_off)[0])
            raise BenchkitValueError(
                f"answer[{i}]={labels[ans[i]]} is not among the offered options of row {i}"
            )
        corr = pred == ans
    return LandscapePoints(
        p_top1=np.asarray(p_top, dtype=np.float64),
        h_norm=np.asarray(h_norm, dtype=np.float64),
        pred=pred.astype(np.int64),
        probs=p,
        n_options=kk,
        outside_mass=np.asarray(outside_mass, dtype=np.float64),
        answer=ans,
        correct=corr,
        kind=kind,
        labels=labels,
        meta=meta,
    )
