"""Item flagging, the failure taxonomy and agreement between models and annotators.

Noise-injection failures, the failure taxonomy, cross-model consistency of item-level H_norm,
and annotation agreement. The validation of flag sets against expert labels (Table 6) is in
``_flag_validation.py``.

Paper 003, Sec. 6 (Table 5 taxonomy), App. H (Table 16), App. I (Table 17).
"""
from __future__ import annotations

import itertools
import math
from typing import Any
from typing import Iterable
from typing import Mapping
from typing import Sequence

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_columns
from benchkit._validation import check_int
from benchkit.stats import cohen_kappa

__all__ = [
    "TAXONOMY",
    "taxonomy",
    "labelling_table",
    "taxonomy_counts",
    "NoiseFailures",
    "noise_failures",
    "ConsistencyResult",
    "hnorm_consistency",
    "Agreement",
    "annotation_agreement",
]

#: Table 5: (code, group, type, description, count reported in the paper's four-benchmark scope).
TAXONOMY: tuple[tuple[str, str, str, str, int], ...] = (
    ("X1", "Excluded", "Negation / EXCEPT",
     "Injected city names also satisfy the negated condition, destroying the original contrastive "
     "option set.", 15),
    ("X2", "Excluded", "Semantic collision",
     "Injected city names accidentally become plausible answers, especially in location-related "
     "questions.", 6),
    ("A1", "Actionable", "Scope inconsistency",
     "The question condition conflicts with the labeled answer, e.g., asking about \"all\" cases "
     "while the answer applies only to a subset.", 1),
    ("A2", "Actionable", "Answer-key error",
     "The labeled answer is factually incorrect, or another option is more correct.", 3),
    ("A3", "Actionable", "Encoding artifact",
     "Option text is corrupted by preprocessing or file conversion, such as fractions converted "
     "into date strings.", 1),
    ("A4", "Actionable", "Narrative ambiguity",
     "The context does not uniquely determine the intended continuation, leaving multiple options "
     "plausible.", 3),
    ("A5", "Actionable", "Trivia-dependent underspecification",
     "The answer depends on culture- or episode-specific knowledge not inferable from the question "
     "alone.", 1),
)
_CODES = tuple(t[0] for t in TAXONOMY)


def taxonomy() -> pd.DataFrame:
    """Table 5 as a table: ``code, group, type, description, paper_count`` (index: code).

    The failure taxonomy of noise injection: *Excluded* types (X1, X2) are failures the
    perturbation itself causes; *Actionable* types (A1-A5) are candidate benchmark issues for
    targeted human review.

    Returns
    -------
    DataFrame
        Seven rows indexed by ``code`` (X1, X2, A1-A5): ``group`` (Excluded / Actionable),
        ``type``, ``description`` and ``paper_count`` (the count the paper reports over its four
        benchmarks: 21 excluded, 9 actionable).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 6.1, Table 5; App. J
    (examples).

    Examples
    --------
    >>> from benchkit.landscape.steps import taxonomy
    >>> t = taxonomy()
    >>> t.loc["A2", "type"], int(t.groupby("group")["paper_count"].sum()["Actionable"])
    ('Answer-key error', 9)
    """
    return pd.DataFrame(TAXONOMY, columns=["code", "group", "type", "description",
                                           "paper_count"]).set_index("code")


def _check_labels(labels: Iterable[Any], name: str = "labels") -> list[Any]:
    out = []
    for i, lab in enumerate(labels):
        if lab is None or (isinstance(lab, float) and math.isnan(lab)) or lab is pd.NA:
            out.append(None)
            continue
        code = str(lab).strip().upper().split(".")[0]
        if code not in _CODES:
            raise BenchkitValueError(
                f"{name}[{i}]={lab!r} is not a taxonomy code; allowed: {', '.join(_CODES)} "
                "(or missing for not yet reviewed)"
            )
        out.append(code)
    return out


def labelling_table(candidates: Any, *, labels: Any = None, columns: Sequence[str] = ()) -> pd.DataFrame:
    """A review table for flagged candidates, carrying the taxonomy label with each item.

    Parameters
    ----------
    candidates : DataFrame with an ``item`` column, or a sequence of item ids
        The items to review (e.g. ``noise_failures(...).candidates()``); extra ``columns`` of a
        DataFrame (text, options, ...) are kept.
    labels : mapping item -> code, or sequence aligned with ``candidates``, optional
        Taxonomy codes (``X1, X2, A1..A5``); missing means not yet reviewed.
    columns : sequence of str
        Columns of a ``candidates`` DataFrame to keep beside ``item`` (e.g. ``text``,
        ``options``).

    Returns
    -------
    DataFrame
        ``item``, the kept columns, ``label`` (code or None), ``group`` (Excluded / Actionable /
        None) and ``type``, one row per candidate.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 6.1 (two-stage review),
    Table 5.

    Examples
    --------
    >>> from benchkit.landscape.steps import labelling_table
    >>> labelling_table(["q3", "q7", "q9"], labels={"q3": "A2", "q7": "X1"})
      item label       group               type
    0   q3    A2  Actionable   Answer-key error
    1   q7    X1    Excluded  Negation / EXCEPT
    2   q9  None        None               None
    """
    if isinstance(candidates, pd.DataFrame):
        check_columns("candidates", candidates.columns, required=["item", *columns])
        base = candidates[["item", *columns]].reset_index(drop=True).copy()
    else:
        base = pd.DataFrame({"item": list(candidates)})
    if base["item"].duplicated().any():
        raise BenchkitValueError(
            f"candidates has duplicate item {base.loc[base['item'].duplicated(), 'item'].iloc[0]!r}"
        )
    if labels is None:
        lab = [None] * len(base)
    elif isinstance(labels, Mapping):
        unknown = [k for k in labels if k not in set(base["item"])]
        if unknown:
            raise BenchkitValueError(f"labels has item(s) not among the candidates: {unknown[:5]}")
        lab = [labels.get(i) for i in base["item"]]
    else:
        lab = list(labels)
        if len(lab) != len(base):
            raise BenchkitValueError(
                f"labels has {len(lab)} entries but there are {len(base)} candidates"
            )
    codes = _check_labels(lab)
    tax = taxonomy()
    base["label"] = pd.Series(codes, dtype=object)  # object: None stays None (not yet reviewed)
    base["group"] = pd.Series([tax.loc[c, "group"] if c else None for c in codes], dtype=object)
    base["type"] = pd.Series([tax.loc[c, "type"] if c else None for c in codes], dtype=object)
    return base


def taxonomy_counts(labelled: Any) -> pd.DataFrame:
    """Table 5 layout with the counts of a labelled table (``label`` column, or a list of codes).

    Parameters
    ----------
    labelled : DataFrame or sequence
        A :func:`labelling_table` (its ``label`` column) or a list of taxonomy codes; missing
        labels (not yet reviewed) are not counted.

    Returns
    -------
    DataFrame
        Indexed by code: ``group``, ``type``, ``description``, ``count`` (yours) and
        ``paper_count`` (the paper's).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 6.1, Table 5.

    Examples
    --------
    Three reviewed items and one not yet reviewed:

    >>> from benchkit.landscape.steps import taxonomy_counts
    >>> t = taxonomy_counts(["A2", "X1", "X1", None])
    >>> t.loc[["X1", "A2"], ["group", "count", "paper_count"]]
               group  count  paper_count
    code
    X1      Excluded      2           15
    A2    Actionable      1            3
    """
    codes = _check_labels(labelled["label"] if isinstance(labelled, pd.DataFrame) else labelled)
    tax = taxonomy()
    counts = pd.Series([c for c in codes if c], dtype=object).value_counts()
    tax["count"] = [int(counts.get(c, 0)) for c in tax.index]
    return tax[["group", "type", "description", "count", "paper_count"]]


# ----------------------------------------------------------------------------- noise failures
@result
class NoiseFailures:
    """Cross-model failures under noise injection (Sec. 6.1: candidates for targeted review).

    With the distractors replaced by city names the key should be obvious; an item that (all) the
    models still get wrong is flagged for targeted human review, then labelled with the
    :func:`taxonomy`.

    Parameters
    ----------
    table, min_models
        The fields described under Attributes (built by :func:`noise_failures`).

    Attributes
    ----------
    table : DataFrame
        One row per item: ``item, n_models, n_failed, flagged``.
    min_models : int or None
        Failures needed to flag (None: every model that saw the item).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.4 (noise injection),
    Sec. 6.1, Table 3 (noise-injection accuracy).

    Examples
    --------
    Item a is missed by both models even with city names as distractors:

    >>> import pandas as pd
    >>> from benchkit.landscape.steps import noise_failures
    >>> frame = pd.DataFrame({"item": ["a", "a", "b", "b", "c", "c"], "model": ["m1", "m2"] * 3,
    ...                       "variant": "noise", "correct": [False, False, True, False, True, True]})
    >>> res = noise_failures(frame)
    >>> res.flagged
    ('a',)
    >>> res.to_frame()
      item  n_models  n_failed  flagged
    0    a         2         2     True
    1    b         2         1    False
    2    c         2         0    False
    """

    table: pd.DataFrame
    min_models: int | None

    @property
    def flagged(self) -> tuple:
        """Flagged item ids, in table order."""
        return tuple(self.table.loc[self.table["flagged"], "item"])

    def to_frame(self) -> pd.DataFrame:
        """The per-item table (:attr:`table`), a copy."""
        return self.table.copy()


def noise_failures(frame: Any, *, variant: str | None = "noise", min_models: int | None = None,
                   item_column: str = "item", model_column: str = "model") -> NoiseFailures:
    """Flag items that models still get wrong after noise injection.

    Parameters
    ----------
    frame : DataFrame
        Long table with ``item, model, correct`` (and ``variant`` unless ``variant=None``), e.g.
        :meth:`LandscapePoints.to_frame` with metadata.
    variant : str or None
        Keep rows of this variant (default ``"noise"``); None uses all rows.
    min_models : int, optional
        An item is flagged when at least this many models answer it wrongly. Default (None): all
        models that answered it -- our reading of the paper's "cross-model noise-injection
        failures" (Sec. 6.1).
    item_column, model_column : str
        The columns holding the item and the model.

    Returns
    -------
    NoiseFailures
        ``table`` (per item: models, failures, ``flagged``) and ``flagged`` (the item ids).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.4 (noise injection),
    Sec. 6.1 (cross-model failures as review candidates).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import noise_failures
    >>> frame = pd.DataFrame({"item": ["q1"] * 3 + ["q2"] * 3, "model": ["m1", "m2", "m3"] * 2,
    ...                       "variant": "noise", "correct": [0, 0, 0, 1, 0, 1]})
    >>> noise_failures(frame).flagged                  # every model failed q1
    ('q1',)
    >>> noise_failures(frame, min_models=1).flagged    # any model failed
    ('q1', 'q2')
    """
    if isinstance(frame, pd.DataFrame) is False and hasattr(frame, "to_frame"):
        frame = frame.to_frame()
    if not isinstance(frame, pd.DataFrame):
        raise BenchkitTypeError(f"frame must be a DataFrame; got {type(frame).__name__}")
    need = [item_column, model_column, "correct"] + ([] if variant is None else ["variant"])
    check_columns("frame", frame.columns, required=need)
    f = frame if variant is None else frame[frame["variant"] == variant]
    if len(f) == 0:
        raise BenchkitValueError(f"frame has no rows with variant={variant!r}")
    if min_models is not None:
        min_models = check_int("min_models", min_models, min=1)
    wrong = ~f["correct"].astype(bool)
    g = pd.DataFrame({item_column: f[item_column].to_numpy(), "wrong": wrong.to_numpy(),
                      model_column: f[model_column].to_numpy()}).groupby(item_column, sort=False)
    t = pd.DataFrame({"n_models": g[model_column].nunique(), "n_failed": g["wrong"].sum().astype(int)})
    thr = t["n_models"] if min_models is None else min_models
    t["flagged"] = t["n_failed"] >= thr
    t = t.reset_index().rename(columns={item_column: "item"})
    return NoiseFailures(t, min_models)


# ----------------------------------------------------------------------------- consistency
@result
class ConsistencyResult:
    """Cross-model Spearman consistency of item-level H_norm (App. H, Table 16).

    Do models agree on which items have strong distractor competition? Near-zero correlations
    (the paper's Table 16) mean that item-level ``H_norm`` is model-specific: use it for
    benchmark-level characterization, not as a per-item diagnostic.

    Parameters
    ----------
    pairs, summary
        The fields described under Attributes (built by :func:`hnorm_consistency`).

    Attributes
    ----------
    pairs : DataFrame
        ``benchmark, model_a, model_b, n_items, spearman_r`` for every model pair and benchmark.
    summary : DataFrame
        Benchmarks x model subsets: mean Spearman r over the pairs inside each subset.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. H, Table 16; Sec. 5.2.

    Examples
    --------
    Two models that order four items' ``H_norm`` in opposite ways:

    >>> import pandas as pd
    >>> from benchkit.landscape.steps import hnorm_consistency
    >>> frame = pd.DataFrame({"benchmark": "arc", "item": list("abcd") * 2, "model": ["m1"] * 4 + ["m2"] * 4,
    ...                       "h_norm": [0.1, 0.5, 0.7, 0.9, 0.9, 0.7, 0.5, 0.1]})
    >>> hnorm_consistency(frame).summary
               all
    benchmark
    arc       -1.0

    Three models of one benchmark:

    >>> frame = pd.DataFrame({"benchmark": "mmlu", "item": list("abcd") * 3,
    ...                       "model": ["m1"] * 4 + ["m2"] * 4 + ["m3"] * 4,
    ...                       "h_norm": [0.1, 0.5, 0.7, 0.9, 0.2, 0.4, 0.8, 0.6,
    ...                                  0.9, 0.1, 0.5, 0.3]})
    >>> res = hnorm_consistency(frame)
    >>> res.pairs[["model_a", "model_b", "spearman_r"]]
      model_a model_b  spearman_r
    0      m1      m2         0.8
    1      m1      m3        -0.4
    2      m2      m3        -0.2
    >>> res.summary.round(3)
                 all
    benchmark
    mmlu       0.067
    """

    pairs: pd.DataFrame
    summary: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """The summary table (:attr:`summary`), a copy."""
        return self.summary.copy()


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    from scipy.stats import rankdata

    ra, rb = rankdata(a), rankdata(b)
    sa, sb = ra.std(), rb.std()
    if sa == 0 or sb == 0:
        return float("nan")
    return float(np.mean((ra - ra.mean()) * (rb - rb.mean())) / (sa * sb))


def hnorm_consistency(frame: Any, *, subsets: Mapping[str, Sequence[str]] | None = None,
                      value_column: str = "h_norm", item_column: str = "item",
                      model_column: str = "model", by: str | None = "benchmark") -> ConsistencyResult:
    """Spearman rank correlation of item-level ``H_norm`` between every pair of models.

    Parameters
    ----------
    frame : DataFrame
        One row per (item, model[, benchmark]) with the column ``value_column``.
    subsets : mapping name -> model list, optional
        Model subsets to average over (e.g. ``{"Small-model mean r": [...3 small models...],
        "All-pair mean r": all}``); default ``{"all": every model}``.
    value_column, item_column, model_column : str
        The columns holding the value correlated (default ``"h_norm"``), the item and the model.
    by : str or None
        The split: the column of the groups, e.g. benchmarks (None: one group).

    Returns
    -------
    ConsistencyResult
        ``pairs`` (every model pair and benchmark: items, Spearman r) and ``summary`` (the mean r
        per benchmark and subset, Table 16's columns).

    Notes
    -----
    App. H: ``r`` is Spearman's rank correlation (average ranks for ties) over the items both
    models answered; a subset's score is the plain mean of ``r`` over its model pairs (Table 16).
    A pair with constant ``H_norm`` in either model has undefined ``r`` (NaN, skipped in means).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. H, Table 16
    (small-model and all-pair mean r). C. Spearman (1904), "The proof and measurement of association
    between two things", American Journal of Psychology 15(1), 72-101.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import hnorm_consistency
    >>> frame = pd.DataFrame({"benchmark": "mmlu", "item": list("abcd") * 3,
    ...                       "model": ["m1"] * 4 + ["m2"] * 4 + ["m3"] * 4,
    ...                       "h_norm": [0.1, 0.5, 0.7, 0.9, 0.2, 0.4, 0.8, 0.6,
    ...                                  0.9, 0.1, 0.5, 0.3]})
    >>> res = hnorm_consistency(frame, subsets={"small": ["m1", "m2"], "all": ["m1", "m2", "m3"]})
    >>> res.summary.round(3)
               small    all
    benchmark
    mmlu         0.8  0.067
    """
    if not isinstance(frame, pd.DataFrame):
        raise BenchkitTypeError(f"frame must be a DataFrame; got {type(frame).__name__}")
    need = [item_column, model_column, value_column] + ([by] if by else [])
    check_columns("frame", frame.columns, required=need)
    f = frame.copy()
    bcol = by or "__all__"
    if not by:
        f[bcol] = "all"
    dup = f.duplicated([bcol, item_column, model_column])
    if dup.any():
        r = f[dup].iloc[0]
        raise BenchkitValueError(
            f"frame has several rows for item {r[item_column]!r} and model {r[model_column]!r}; keep one "
            "variant per call (filter the variant column first)"
        )
    models_all = sorted(pd.unique(f[model_column]).tolist(), key=str)
    if subsets is None:
        subsets = {"all": models_all}
    for name, ms in subsets.items():
        missing = [m for m in ms if m not in models_all]
        if missing:
            raise BenchkitValueError(f"subsets[{name!r}] has unknown model(s) {missing}")
    rows = []
    for b, g in f.groupby(bcol, sort=True):
        wide = g.pivot(index=item_column, columns=model_column, values=value_column)
        for ma, mb in itertools.combinations([m for m in models_all if m in wide.columns], 2):
            ok = wide[ma].notna() & wide[mb].notna()
            n = int(ok.sum())
            r = _spearman(wide.loc[ok, ma].to_numpy(float), wide.loc[ok, mb].to_numpy(float)) \
                if n >= 2 else float("nan")
            rows.append({"benchmark": b, "model_a": ma, "model_b": mb, "n_items": n,
                         "spearman_r": r})
    pairs = pd.DataFrame(rows, columns=["benchmark", "model_a", "model_b", "n_items", "spearman_r"])
    summ = {}
    for name, ms in subsets.items():
        s = set(ms)
        sel = pairs[pairs["model_a"].isin(s) & pairs["model_b"].isin(s)]
        summ[name] = sel.groupby("benchmark")["spearman_r"].mean()
    summary = pd.DataFrame(summ)
    summary.index.name = by or "benchmark"
    return ConsistencyResult(pairs, summary)


# ----------------------------------------------------------------------------- agreement
@result
class Agreement:
    """Agreement between two annotators (App. I, Table 17).

    How reliably two people assign the taxonomy labels to the flagged items.

    Parameters
    ----------
    n, kappa, agreement
        The fields described under Attributes (built by :func:`annotation_agreement`).

    Attributes
    ----------
    n : int
        Items labelled by both annotators.
    kappa : float
        Cohen's kappa in [-1, 1]: 1 is perfect agreement, 0 the agreement expected by chance; NaN
        when undefined (both annotators used one and the same category, as Table 17's ARC row).
    agreement : float
        Raw agreement: share of items with the same label, in [0, 1].

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. I (Table 17's
    columns: n, kappa, agreement).

    Examples
    --------
    Table 17's ARC row: every item labelled X1 by both, so kappa is undefined:

    >>> from benchkit.landscape.steps import annotation_agreement
    >>> annotation_agreement(["X1"] * 5, ["X1"] * 5)
    Agreement(n=5, kappa=nan, agreement=1.0)
    """

    n: int
    kappa: float
    agreement: float

    def to_frame(self) -> pd.DataFrame:
        """One row: ``n``, ``kappa``, ``agreement``."""
        return pd.DataFrame([{"n": self.n, "kappa": self.kappa, "agreement": self.agreement}])


def annotation_agreement(a: Sequence[Any], b: Sequence[Any]) -> Agreement:
    """Cohen's kappa and raw agreement of two label sequences (Table 17).

    ``kappa = (p_o - p_e) / (1 - p_e)``; undefined (NaN) when ``p_e = 1``, e.g. the ARC row of
    Table 17 where every item received X1.

    Parameters
    ----------
    a, b : sequence
        The two annotators' labels of the same items, in the same order (any hashable labels,
        e.g. taxonomy codes or "Actionable"/"Excluded").

    Returns
    -------
    Agreement
        ``n``, ``kappa`` (chance-corrected) and ``agreement`` (raw share).

    Notes
    -----
    ``p_o`` is the observed agreement and ``p_e = sum_c p_a(c) p_b(c)`` the agreement expected
    from the two annotators' label frequencies.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. I, Table 17.
    J. Cohen (1960), "A coefficient of agreement for nominal scales", Educational and Psychological
    Measurement 20(1), 37-46.

    Examples
    --------
    >>> from benchkit.landscape.steps import annotation_agreement
    >>> res = annotation_agreement(["A2", "X1", "X1", "A4", "X2"], ["A2", "X1", "X2", "A4", "X2"])
    >>> res.n, round(res.kappa, 3), res.agreement
    (5, 0.737, 0.8)
    """
    a, b = list(a), list(b)
    if len(a) != len(b) or not a:
        raise BenchkitValueError(f"a and b must be non-empty and of equal length; got {len(a)} "
                                 f"and {len(b)}")
    n = len(a)
    po = sum(x == y for x, y in zip(a, b)) / n
    codes = pd.factorize(pd.Series(a + b, dtype=object))[0]  # any hashable labels, mixed types too
    return Agreement(n, cohen_kappa(codes[:n], codes[n:]), float(po))
