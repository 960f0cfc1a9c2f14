"""The audit's result: the item and model tables, applicability, agreement between methods, validation."""
from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.stats import auroc
from benchkit.stats import average_precision
from benchkit.stats import cohen_kappa
from benchkit.stats import jaccard
from benchkit.stats import kendall_tau_b

AGREEMENT_COLUMNS = ("method_a", "method_b", "n_items", "n_flagged_a", "n_flagged_b", "n_both",
                     "jaccard", "kappa", "tau_b")
VALIDATION_COLUMNS = ("n_scored", "n_flagged", "n_hits", "precision", "recall", "precision_at_k", "auroc",
                      "average_precision")
UNION, AT_LEAST_TWO = "union", "at least two"


def percentiles(scores: np.ndarray) -> np.ndarray:
    """Each score's percentile rank among the scored items, in (0, 1] (ties: mean rank); NaN stays NaN."""
    out = np.full(scores.shape, np.nan)
    ok = ~np.isnan(scores)
    if ok.any():
        out[ok] = pd.Series(scores[ok]).rank(method="average").to_numpy() / ok.sum()
    return out


def pairwise_agreement(items: pd.DataFrame, methods) -> pd.DataFrame:
    """Per pair of methods, over the items both scored: flag overlap, Cohen's kappa, Kendall tau_b."""
    rows = []
    for a, b in combinations(methods, 2):
        sa, sb = items[f"{a}_score"].to_numpy(float), items[f"{b}_score"].to_numpy(float)
        both = ~np.isnan(sa) & ~np.isnan(sb)
        fa, fb = items[f"{a}_flag"].to_numpy(bool)[both], items[f"{b}_flag"].to_numpy(bool)[both]
        n = int(both.sum())
        rows.append((a, b, n, int(fa.sum()), int(fb.sum()), int((fa & fb).sum()),
                     jaccard(fa, fb) if n else np.nan, cohen_kappa(fa, fb) if n else np.nan,
                     float(kendall_tau_b(sa[both], sb[both])) if n >= 2 else np.nan))
    return pd.DataFrame(rows, columns=list(AGREEMENT_COLUMNS))


@result
class AuditValidation:
    """The audit's flags and scores against a reference flag set (:meth:`AuditResult.validate`).

    Attributes
    ----------
    table : DataFrame
        One row per method with an item verdict, then ``"union"`` (flagged by any method) and
        ``"at least two"`` (flagged by two or more). Columns: ``n_scored`` (items the method
        scored), ``n_flagged``, ``n_hits`` (flagged reference items), ``precision`` and
        ``recall`` of the flag set, ``precision_at_k`` (reference share among the k = ``n_top`` items
        with the highest scores), ``auroc`` and ``average_precision`` of the scores over all items
        (unscored items rank last, tied). The union ranks items by their highest percentile rank
        over the methods, "at least two" by the second highest.
    n_top : int
        The k of ``precision_at_k`` (default: the size of the reference set).
    n_items, n_reference : int
        Items audited, and those among them in the reference set.
    prevalence : float
        ``n_reference / n_items``: the precision, precision at k and average precision of a
        random ranking.

    Examples
    --------
    The audit of a simulated suite against the flaws planted in it:

    >>> import benchkit
    >>> sim = benchkit.simulate.audit_suite(n_items=20, benchmarks=2, n_models=40, T=5, rng=0)
    >>> res = benchkit.audit(sim.responses, methods=["labels", "landscape"], n_resamples=0,
    ...                      progress=False, rng=0)
    >>> v = res.validate(sim.truth.flawed_items)
    >>> v.n_reference, v.n_items, round(v.prevalence, 3)
    (28, 60, 0.467)
    >>> v.table[["n_flagged", "n_hits", "precision", "recall", "auroc"]].round(2)
                  n_flagged  n_hits  precision  recall  auroc
    method
    labels                6       6        1.0    0.21   0.73
    landscape             1       1        1.0    0.04   0.72
    union                 6       6        1.0    0.21   0.73
    at least two          1       1        1.0    0.04   0.73

    Every flag is a planted flaw (precision 1), but two methods find few of the 28: the planted
    flaws also include family DIF, order violations and near-duplicates, which other methods
    look for.
    """

    table: pd.DataFrame
    n_top: int
    n_items: int
    n_reference: int
    prevalence: float

    def to_frame(self) -> pd.DataFrame:
        """The per-method table (:attr:`table`)."""
        return self.table.copy()

    def __str__(self) -> str:
        head = (f"Audit against {self.n_reference} reference items of {self.n_items} "
                f"(prevalence {self.prevalence:.3f}; precision_at_k with k = {self.n_top})")
        return head + "\n" + self.table.to_string(float_format=lambda v: f"{v:.3f}")


@result
class AuditResult:
    """The cross-method audit of a ResponseSet (:func:`benchkit.audit`).

    Attributes
    ----------
    items : DataFrame
        One row per item (index: item id, in the set's order): ``benchmark`` and ``source`` when
        the set has them; for every method that ran, ``<method>_score`` (higher = more suspect,
        NaN where the method did not score the item), ``<method>_flag`` and ``<method>_reason``
        (why the item is flagged, or why it was not scored; empty otherwise); then ``n_flags``
        (how many methods flag the item), ``flagged_by`` (their names) and ``consensus`` (the mean
        of the item's percentile ranks over the methods that scored it). Sort by ``n_flags``
        (:meth:`flagged_frame`).
    models : DataFrame
        One row per model: ``family``, ``owner``, ``size`` and ``budget`` where known,
        ``accuracy``, then what each method says about the model (``labels_weight``,
        ``labels_ability`` and ``labels_excess_key``: how much more often than its peers it picks
        keys the answer-key check finds wrong, a contamination hint; ``boundary_axes``: its place
        on the BSDProbe axes; ``dif_family`` and ``dif_status`` in the family-DIF population;
        ``landscape_p_top1`` and ``landscape_h_norm``, its mean confidence and residual entropy;
        ``quality_family``: its CAD family; ``measure_ability``: its 1PL ability).
    applicability : DataFrame
        One row per method (index ``method``): ``ran`` (bool), ``item_verdict`` (whether its
        flags and scores enter agreement and validation), ``reason`` (why it did not run, or what
        it found: the benchmark-level verdict, the settings read from the data), ``n_scored``,
        ``n_flagged`` and ``seconds``.
    agreement : DataFrame
        One row per pair of methods with an item verdict, over the items both scored:
        ``n_items``, ``n_flagged_a``, ``n_flagged_b``, ``n_both``, ``jaccard`` of the flag sets,
        Cohen's ``kappa`` of the flags and Kendall's ``tau_b`` of the scores.
    results : Mapping[str, Any]
        Each method's own result (``KeyIssues``, a dict axis -> ``ResponseProfiles``,
        ``RankingAudit``, ``LandscapePoints``, ``QualityResult``, ``BenchmarkMeasures``).
    rng_entropy : int or sequence of int
        Entropy of the root seed; ``audit(rs, rng=numpy.random.SeedSequence(rng_entropy))``
        repeats the run exactly.
    settings : dict
        The options used (methods asked for, variant, n_resamples, families, axis, options).
    validation : AuditValidation or None
        :meth:`validate` against the ``reference`` given to :func:`benchkit.audit`, if any.

    Examples
    --------
    >>> import benchkit
    >>> sim = benchkit.simulate.audit_suite(n_items=20, benchmarks=2, n_models=40, T=5, rng=0)
    >>> res = benchkit.audit(sim.responses, methods=["labels", "landscape"], n_resamples=0,
    ...                      progress=False, rng=0)
    >>> res.applicability[["ran", "n_scored", "n_flagged"]]
                ran  n_scored  n_flagged
    method
    labels     True        60          6
    landscape  True        60          1

    Items most flagged first, then how far the two methods agree (over the 60 items both scored):

    >>> res.flagged_frame()[["n_flags", "labels_flag", "landscape_flag"]].head(3)
                n_flags  labels_flag  landscape_flag
    item
    sim2/q0000        2         True            True
    sim2/q0015        1         True           False
    sim2/q0001        1         True           False
    >>> res.agreement[["method_a", "method_b", "n_both", "jaccard", "kappa"]].round(2)
      method_a   method_b  n_both  jaccard  kappa
    0   labels  landscape       1     0.17   0.26

    The model whose picks follow the suspect keys most (a contamination hint):

    >>> res.models["labels_excess_key"].idxmax()
    'owner052/phi-3b-v1'
    """

    items: pd.DataFrame
    models: pd.DataFrame
    applicability: pd.DataFrame
    agreement: pd.DataFrame
    results: Mapping[str, Any]
    rng_entropy: Any
    settings: dict
    validation: AuditValidation | None = None

    def __repr__(self) -> str:
        a = self.applicability
        ran = ", ".join(a.index[a["ran"]]) or "none"
        skipped = ", ".join(a.index[~a["ran"]]) or "none"
        n = self.items["n_flags"]
        return (f"AuditResult({len(self.items)} items, {len(self.models)} models; ran: {ran}; not run: "
                f"{skipped}; flagged by >= 1 method: {int((n >= 1).sum())}, by >= 2: {int((n >= 2).sum())}; "
                f"rng_entropy={self.rng_entropy!r})")

    @property
    def methods(self) -> tuple[str, ...]:
        """The methods that ran and give an item verdict (those in :attr:`agreement`)."""
        a = self.applicability
        return tuple(a.index[a["ran"] & a["item_verdict"]])

    def to_frame(self) -> pd.DataFrame:
        """The item table (:attr:`items`)."""
        return self.items.copy()

    def flagged_frame(self, *, min_flags: int = 1) -> pd.DataFrame:
        """Items flagged by at least ``min_flags`` methods, most flags first (then by consensus)."""
        min_flags = check_int("min_flags", min_flags, min=1)
        f = self.items[self.items["n_flags"] >= min_flags]
        return f.sort_values(["n_flags", "consensus"], ascending=False, kind="stable")

    def validate(self, reference: Any, *, n_top: int | None = None) -> AuditValidation:
        """Precision, recall, precision at k, AUROC and average precision against a reference flag set.

        Parameters
        ----------
        reference : set, list or Index of item ids, or Series / mapping item id -> bool
            The items known to be flawed (e.g. MMLU-Redux's expert error labels). Every id must be
            an audited item; both flawed and clean items must be present.
        n_top : int, optional
            The k of ``precision_at_k`` (the share of reference items among the ``n_top`` items
            with the highest scores, ties in item order); default the number of reference items.

        Returns
        -------
        AuditValidation
            Its ``table``: one row per method with an item verdict, ``"union"`` and
            ``"at least two"``; ``print`` shows it.
        """
        truth = _reference(reference, self.items.index)
        n_ref = int(truth.sum())
        if n_ref == 0 or n_ref == truth.size:
            raise BenchkitValueError(f"reference must hold some but not all of the {truth.size} audited "
                                     f"items; "
                                     f"it holds {n_ref}")
        k = n_ref if n_top is None else check_int("n_top", n_top, min=1, max=truth.size)
        rows = {}
        pct = {}
        for m in self.methods:
            s = self.items[f"{m}_score"].to_numpy(float)
            pct[m] = np.nan_to_num(percentiles(s), nan=0.0)
            rows[m] = _row(s, self.items[f"{m}_flag"].to_numpy(bool), truth, k)
        if pct:
            P = np.sort(np.column_stack(list(pct.values())), axis=1)[:, ::-1]
            n_flags = self.items["n_flags"].to_numpy()
            rows[UNION] = _row(P[:, 0], n_flags >= 1, truth, k)
            second = P[:, 1] if P.shape[1] > 1 else np.zeros(len(P))
            rows[AT_LEAST_TWO] = _row(second, n_flags >= 2, truth, k)
        table = pd.DataFrame.from_dict(rows, orient="index", columns=list(VALIDATION_COLUMNS))
        table.index.name = "method"
        return AuditValidation(table=table, n_top=k, n_items=int(truth.size), n_reference=n_ref,
                               prevalence=n_ref / truth.size)


def _reference(reference: Any, index: pd.Index) -> np.ndarray:
    ids = index.astype(str)
    if isinstance(reference, Mapping) and not isinstance(reference, pd.Series):
        reference = pd.Series(dict(reference))
    if isinstance(reference, pd.Series):
        if reference.dtype != bool:
            raise BenchkitTypeError(f"reference as a Series must be boolean (item id -> flawed); got dtype "
                                    f"{reference.dtype}")
        listed = reference.index.astype(str)
        wanted = listed[reference.to_numpy()]
    elif isinstance(reference, (set, frozenset, list, tuple, pd.Index, np.ndarray)):
        listed = wanted = pd.Index([str(v) for v in reference])
    else:
        raise BenchkitTypeError(f"reference must be a set / list of item ids or a boolean Series by item; "
                                f"got {describe(reference)}")
    unknown = listed.difference(ids)
    if len(unknown):
        raise BenchkitValueError(f"reference names {len(unknown)} item(s) that were not audited, e.g. "
                                 f"{describe(list(unknown[:3]))}")
    return ids.isin(wanted)


def _row(score: np.ndarray, flag: np.ndarray, truth: np.ndarray, k: int) -> list:
    scored = ~np.isnan(score)
    s = np.where(scored, score, -np.inf)
    s = np.where(np.isinf(s), np.nanmin(np.where(scored, score, np.nan)) - 1.0 if scored.any() else 0.0, s)
    hits = int((flag & truth).sum())
    n_flag = int(flag.sum())
    top = np.argsort(-s, kind="stable")[:k]
    return [int(scored.sum()), n_flag, hits, hits / n_flag if n_flag else np.nan, hits / truth.sum(),
            float(truth[top].mean()), auroc(s, truth), average_precision(s, truth)]
