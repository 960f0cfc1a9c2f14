"""Flag sets validated against expert labels (paper 003, Sec. 6, Table 6).

:func:`validate_flags` scores one flagging signal against the items experts call flawed (recall,
precision, F1, enrichment over the base rate and an exact hypergeometric p-value);
:func:`validation_table` lays several signals out as the rows of Table 6. Public through
:mod:`benchkit.landscape.steps`.
"""
from __future__ import annotations

from typing import Any
from typing import Iterable
from typing import Mapping

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit.stats import hypergeom_sf

__all__ = ["FlagValidation", "validate_flags", "validation_table"]


@result
class FlagValidation:
    """A flag set validated against expert labels (one row of Table 6).

    How well a flagging signal finds the items experts call flawed, compared with inspecting items
    at random: recall, precision, F1, enrichment over the base rate and an exact p-value.

    Parameters
    ----------
    signal, universe, positives, flagged, true_positives, recall, precision, f1, base_rate
        The fields described under Attributes (built by :func:`validate_flags`).
    enrichment, p_value, n_outside
        The fields described under Attributes.

    Attributes
    ----------
    signal : str
        The name of the flag set (a row label of Table 6).
    universe : int
        Items that have an expert label (the population; 373 in the paper).
    positives : int
        Items the experts label as flawed (9 in the paper).
    flagged : int
        Flagged items inside the universe.
    true_positives : int
        Flagged items the experts label as flawed.
    recall : float
        ``true_positives / positives``: share of the flawed items found (NaN without positives).
    precision : float
        ``true_positives / flagged``: share of the flags that are flawed (NaN when nothing is
        flagged).
    f1 : float
        Harmonic mean of precision and recall (NaN where undefined).
    base_rate : float
        ``positives / universe``: the precision of random inspection.
    enrichment : float
        ``precision / base_rate`` (x over random).
    p_value : float
        Exact one-sided hypergeometric ``P(TP >= observed)`` when ``flagged`` items are drawn at
        random from the universe.
    n_outside : int
        Flagged items without an expert label (not counted; reported so nothing is dropped silently).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 6.3, Table 6.

    Examples
    --------
    Table 6's noise-injection row from its counts (2 flagged, both among the 9 flawed items of the
    373-item MMLU-Redux overlap):

    >>> from benchkit.landscape.steps import validate_flags
    >>> universe = [f"q{i}" for i in range(373)]
    >>> res = validate_flags(["q0", "q1"], universe[:9], universe=universe)
    >>> round(res.recall, 3), res.precision, round(res.f1, 3), round(res.enrichment, 1)
    (0.222, 1.0, 0.364, 41.4)
    >>> round(res.p_value, 4)
    0.0005
    """

    signal: str
    universe: int
    positives: int
    flagged: int
    true_positives: int
    recall: float
    precision: float
    f1: float
    base_rate: float
    enrichment: float
    p_value: float
    n_outside: int

    def to_frame(self) -> pd.DataFrame:
        """One row with every field."""
        return pd.DataFrame([self.__dict__])


def _as_set(name: str, x: Any) -> set:
    if isinstance(x, pd.Series) and (x.dtype == bool or str(x.dtype) == "boolean"):
        return set(x.index[x.fillna(False).astype(bool)])
    if isinstance(x, (str, bytes)) or not isinstance(x, Iterable):
        raise BenchkitTypeError(f"{name} must be a collection of item ids or a boolean Series "
                                f"indexed by item; got {type(x).__name__}")
    return set(x)


def validate_flags(flagged: Any, expert: Any, *, universe: Any = None,
                   name: str = "signal") -> FlagValidation:
    """Validate a flag set against expert labels: recall, precision, F1, enrichment, exact p.

    Parameters
    ----------
    flagged : collection of item ids, or boolean Series indexed by item
        The items a signal flags (e.g. ``noise_failures(...).flagged``).
    expert : boolean Series or collection of item ids
        Expert labels: a boolean Series indexed by item (True = flawed; its index is the default
        universe), or a collection of flawed item ids (then ``universe`` is required).
    universe : collection of item ids, optional
        The items with an expert label (the paper's 373-item MMLU-Redux overlap).
    name : str, default "signal"
        The label of the flag set in the result.

    Returns
    -------
    FlagValidation
        Counts, recall, precision, F1, base rate, enrichment and the exact p-value.

    Notes
    -----
    Table 6: recall = TP / positives, precision = TP / flagged, F1 = 2PR / (P + R), enrichment =
    precision / (positives / universe), p = P(X >= TP) for X hypergeometric (universe, positives,
    flagged), computed exactly (:func:`benchkit.stats.hypergeom_sf`). The paper's rows are
    reproduced from their counts: 2 flagged, 2 TP, 9 of 373 -> 0.222 / 1.000 / 0.364 / 41.4x / 0.0005.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 6.3, Table 6. A. P. Gema
    et al. (2025), "Are We Done with MMLU?",
    arXiv:2406.04127 (MMLU-Redux, the expert labels).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import validate_flags
    >>> expert = pd.Series([True, True, False, False, False, False], index=list("abcdef"))
    >>> res = validate_flags(["a", "c", "z"], expert, name="noise")
    >>> res.true_positives, res.recall, res.precision, res.enrichment, res.n_outside
    (1, 0.5, 0.5, 1.5, 1)
    """
    fl = _as_set("flagged", flagged)
    if isinstance(expert, pd.Series) and (expert.dtype == bool or str(expert.dtype) == "boolean"):
        if expert.isna().any():
            raise BenchkitValueError("expert has missing labels; drop unlabelled items first")
        pos = set(expert.index[expert.astype(bool)])
        uni = set(expert.index) if universe is None else _as_set("universe", universe)
    else:
        pos = _as_set("expert", expert)
        if universe is None:
            raise BenchkitValueError("universe is required when expert is a collection of ids "
                                     "(pass the labelled items, or expert as a boolean Series)")
        uni = _as_set("universe", universe)
    if not pos <= uni:
        raise BenchkitValueError(f"{len(pos - uni)} expert positive(s) are outside the universe, "
                                 f"e.g. {sorted(pos - uni, key=str)[:3]}")
    inside = fl & uni
    M, n, N = len(uni), len(pos), len(inside)
    tp = len(inside & pos)
    recall = tp / n if n else float("nan")
    precision = tp / N if N else float("nan")
    f1 = (2 * precision * recall / (precision + recall)
          if N and n and (precision + recall) > 0 else (0.0 if N and n else float("nan")))
    base = n / M if M else float("nan")
    enr = precision / base if N and n else float("nan")
    p = hypergeom_sf(tp, M, n, N) if M else float("nan")
    return FlagValidation(str(name), M, n, N, tp, recall, precision, f1, base, enr, p,
                          len(fl - uni))


def validation_table(signals: Mapping[str, Any], expert: Any, *, universe: Any = None,
                     random_baseline: bool = True) -> pd.DataFrame:
    """Table 6: one row per signal plus the random-inspection baseline row.

    Columns ``Flagged, Recall, Precision, F1, Enrichment, p``; the baseline row has precision =
    base rate and enrichment 1.0.

    Parameters
    ----------
    signals : mapping of str to collection
        Signal name -> flagged items (as ``flagged`` of :func:`validate_flags`), e.g.
        ``{"Noise injection": ..., "Noise injection | LLM classifier": ...}``.
    expert : boolean Series or collection of item ids
        Expert labels (see :func:`validate_flags`).
    universe : collection of item ids, optional
        The labelled items (required when ``expert`` is a collection of ids).
    random_baseline : bool, default True
        Add the "Random baseline" row.

    Returns
    -------
    DataFrame
        Indexed by ``Signal``: ``Flagged``, ``TP``, ``Recall``, ``Precision``, ``F1``,
        ``Enrichment``, ``p``.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 6.3, Table 6.

    Examples
    --------
    Table 6's first row and the random baseline, from the paper's counts:

    >>> from benchkit.landscape.steps import validation_table
    >>> universe = [f"q{i}" for i in range(373)]
    >>> validation_table({"Noise injection": ["q0", "q1"]}, universe[:9], universe=universe).round(3)
                     Flagged   TP  Recall  Precision     F1  Enrichment      p
    Signal
    Noise injection      2.0  2.0   0.222      1.000  0.364      41.444  0.001
    Random baseline      NaN  NaN     NaN      0.024    NaN       1.000    NaN
    """
    rows = []
    res = None
    for name, fl in signals.items():
        res = validate_flags(fl, expert, universe=universe, name=name)
        rows.append({"Signal": name, "Flagged": res.flagged, "TP": res.true_positives,
                     "Recall": res.recall, "Precision": res.precision, "F1": res.f1,
                     "Enrichment": res.enrichment, "p": res.p_value})
    if random_baseline:
        if res is None:
            res = validate_flags([], expert, universe=universe)
        rows.append({"Signal": "Random baseline", "Flagged": np.nan, "TP": np.nan,
                     "Recall": np.nan, "Precision": res.base_rate, "F1": np.nan,
                     "Enrichment": 1.0, "p": np.nan})
    return pd.DataFrame(rows).set_index("Signal")
