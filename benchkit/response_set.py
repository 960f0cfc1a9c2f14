"""``ResponseSet``: item-level evaluation data in long form, and its dense views.

One row per (model, item[, variant], sample) with the correctness of that sample; optional answer
states, MCQ option probabilities, a principal-sample flag and a variant (perturbation or prompt).
Model metadata (family, owner, size, order) and item metadata (benchmark, source, answer key,
text, options, labels) travel with it. Validation happens once, at construction; every row that an
explicit option drops is counted in :attr:`ResponseSet.report`.

Dense views (each says what it does with missing cells):

* :meth:`ResponseSet.counts` -- correct counts ``K`` and observed samples ``N`` (items x models);
  missing cells have ``N == 0`` and ``K == 0``.
* :meth:`ResponseSet.binary` -- correctness of the principal sample; NaN where missing.
* :meth:`ResponseSet.scores` -- mean correctness over samples; NaN where missing.
* :meth:`ResponseSet.answer_counts` -- answer-state counts per item, model and state.
* :meth:`ResponseSet.option_probs` -- option probabilities of the principal sample; NaN where
  missing.

The constructors' bodies live in :mod:`benchkit._response_constructors` (with :data:`NO_ANSWER`,
re-exported here), their checks in :mod:`benchkit._response_ingest` (identifiers, rosters, options,
columns, the sample budget) and :mod:`benchkit._response_checks`; the report and the views' result
classes in :mod:`benchkit._response_views` (re-exported here).
"""
from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import Iterable
from typing import Mapping
from typing import Sequence

import numpy as np
import pandas as pd

from benchkit._response_checks import check_dense_size
from benchkit._response_constructors import NO_ANSWER
from benchkit._response_constructors import _from_code_counts
from benchkit._response_constructors import _from_counts
from benchkit._response_constructors import _from_dense_counts
from benchkit._response_constructors import _from_long
from benchkit._response_constructors import _from_wide
from benchkit._response_ingest import _Options
from benchkit._response_views import AnswerCounts
from benchkit._response_views import CountMatrix
from benchkit._response_views import DropEntry
from benchkit._response_views import DropReport
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import describe
from benchkit.model_names import FAMILY_RULES

__all__ = [
    "ResponseSet",
    "CountMatrix",
    "AnswerCounts",
    "DropReport",
    "DropEntry",
    "NO_ANSWER",
]


# --------------------------------------------------------------------------------------------
# the container
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ResponseSet:
    """Item-level evaluation data: long-form responses plus model and item metadata.

    Build one with :meth:`from_long`, :meth:`from_counts` or :meth:`from_wide` (or a reader in
    :mod:`benchkit.io` / :func:`benchkit.datasets.fetch`); the constructor itself is internal.

    Attributes
    ----------
    models : DataFrame
        Indexed by model id in roster order: ``family``, ``owner``, ``size`` (parameters),
        ``series``, ``variant`` (parsed from names unless given) and any columns passed in.
    items : DataFrame
        Indexed by item id: ``benchmark``, ``source``, ``answer_key``, ``text``, ``options`` and
        labels, as passed in.
    name, meta : str, dict
        A label and provenance (source URL, commit, notes such as join rates).
    report : DropReport
        What construction dropped on request, with counts.

    Parameters
    ----------
    models, items : DataFrame
        Model and item metadata, as the attributes above.
    _K, _S, _N, _T, _long, _P
        Internal: the dense count arrays, the budget, the long table and the option
        probabilities, filled by the constructors (never passed by hand).
    name, meta, report
        As the attributes above.

    See Also
    --------
    benchkit.io.read_csv, benchkit.io.read_parquet, benchkit.datasets.fetch

    Examples
    --------
    One row per (model, item) response; the dense views are items x models:

    >>> import pandas as pd
    >>> from benchkit import ResponseSet
    >>> rs = ResponseSet.from_long(pd.DataFrame({
    ...     "model": ["m1", "m1", "m2", "m2"], "item": ["q1", "q2", "q1", "q2"],
    ...     "correct": [1, 0, 1, 1]}))
    >>> rs
    ResponseSet: 2 items x 2 models, 4 responses, T=1, 0.0% cells missing
    >>> rs.accuracy().tolist()
    [0.5, 1.0]
    >>> rs.binary().tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    >>> rs.models[["family", "variant"]].shape
    (2, 2)
    """

    models: pd.DataFrame
    items: pd.DataFrame
    _K: np.ndarray
    _S: np.ndarray | None  # sum of fractional scores; None when K holds them
    _N: np.ndarray
    _T: int | np.ndarray
    _long: pd.DataFrame | None
    _P: np.ndarray | None
    name: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    report: DropReport = field(default_factory=DropReport)

    # ---------------------------------------------------------------- constructors

    @classmethod
    def from_long(
        cls,
        responses: pd.DataFrame,
        *,
        models: pd.DataFrame | None = None,
        items: pd.DataFrame | None = None,
        T: int | None = None,
        sample_budget: str = "common",
        drop_incomplete: bool = False,
        parse_names: bool = True,
        name_rules=FAMILY_RULES,
        name: str | None = None,
        meta: Mapping[str, Any] | None = None,
        strict: bool = False,
    ) -> "ResponseSet":
        """Build from long-form responses, one row per (model, item[, variant], sample).

        Parameters
        ----------
        responses : DataFrame
            Required columns ``model``, ``item`` (strings; integers are converted with ``str``)
            and ``correct`` (0/1, bool, or a score in [0, 1]). Optional: ``sample`` (int >= 0;
            without it each cell must appear once and gets sample 0), ``answer`` (the reduced
            answer state; use :data:`NO_ANSWER` for "no answer extracted"), ``option_probs`` or
            ``option_logprobs`` (a sequence of k floats per row; log-probabilities are softmaxed
            over the k options), ``principal`` (bool, exactly one per cell; default the lowest
            sample), ``variant`` (perturbation or prompt name). Other columns are rejected: put
            item and model metadata in ``items`` / ``models``.
        models, items : DataFrame, optional
            Metadata keyed by a ``model`` / ``item`` column (or index). Each must list exactly
            the ids in ``responses``; its row order is the roster order.
        T : int, optional
            The sample budget. Default: the largest number of samples of any cell.
        sample_budget : {"common", "per_model"}
            "per_model" lets each model have its own budget (the most samples it has on an item).
        drop_incomplete : bool
            Cells with fewer samples than the budget are an error unless this is True, in which
            case they become missing cells and are counted in :attr:`report`.
        parse_names : bool
            Fill ``family``, ``owner``, ``size``, ``series``, ``variant`` of models from their
            names (:func:`benchkit.model_names.parse_model_name`) where ``models`` does not
            give them.
        name_rules : tuple
            The family rules used for parsing (see :data:`benchkit.model_names.FAMILY_RULES`).
        name, meta : optional
            A label and a provenance dict kept with the data.
        strict : bool
            Rows whose ``answer`` is an option letter, on an item with an ``answer_key``, must
            agree with ``correct`` (0/1): the answer is the key exactly when correct is 1. Rows
            that contradict that are kept and counted in :attr:`report` (``findings``) unless
            True, which refuses them.

        Notes
        -----
        The dense views take about 48 bytes per (variant, item, model) cell, however few rows
        there are; a set above the memory budget (:func:`benchkit.resource_budget`) is refused
        before anything is allocated, with the estimate in the message.
        """
        return _from_long(cls, responses, models=models, items=items, T=T, sample_budget=sample_budget,
                          drop_incomplete=drop_incomplete, parse_names=parse_names, name_rules=name_rules,
                          name=name, meta=meta, strict=strict)

    @classmethod
    def _build(cls, models_frame, items_frame, long, P, T_val, name, meta, report):
        n_items, n_models = len(items_frame), len(models_frame)
        K = S = N = None
        variants = long["variant"].cat.categories if "variant" in long.columns else [None]
        if len(variants) == 1:
            mi = long["model"].cat.codes.to_numpy().astype(np.int64)
            ii = long["item"].cat.codes.to_numpy().astype(np.int64)
            flat = ii * n_models + mi
            N = np.bincount(flat, minlength=n_items * n_models).reshape(n_items, n_models)
            S = np.bincount(flat, weights=long["correct"].to_numpy(),
                            minlength=n_items * n_models).reshape(n_items, n_models)
            is_binary = bool(np.all((long["correct"].to_numpy() == 0) | (long["correct"].to_numpy() == 1)))
            K = np.rint(S).astype(np.int64) if is_binary else None
            if is_binary:
                S = None
        return cls(models=models_frame, items=items_frame, _K=K, _S=S, _N=N, _T=T_val,
                   _long=long, _P=P, name=name, meta=dict(meta or {}), report=report)

    @classmethod
    def from_counts(
        cls,
        counts: pd.DataFrame,
        *,
        models: pd.DataFrame | None = None,
        items: pd.DataFrame | None = None,
        T: int | None = None,
        sample_budget: str = "common",
        drop_incomplete: bool = False,
        parse_names: bool = True,
        name_rules=FAMILY_RULES,
        name: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> "ResponseSet":
        """Build from aggregated counts: one row per (model, item) with n_correct of n_samples.

        For sources that publish only the number of correct samples (e.g. eval-arena's
        ``pass1 * n``). There is no per-sample information, so :meth:`binary` (which needs a
        principal sample) is only available when the budget is 1, and there are no answer
        states. Options are as in :meth:`from_long`.
        """
        return _from_counts(cls, counts, models=models, items=items, T=T, sample_budget=sample_budget,
                            drop_incomplete=drop_incomplete, parse_names=parse_names, name_rules=name_rules,
                            name=name, meta=meta)

    @classmethod
    def _from_code_counts(cls, m_codes, i_codes, k, n, m_order, i_order, model_meta, item_meta, opts):
        return _from_code_counts(cls, m_codes, i_codes, k, n, m_order, i_order, model_meta, item_meta, opts)

    @classmethod
    def _from_dense_counts(cls, K, N, m_order, i_order, model_meta, item_meta, opts: _Options):
        """Build from dense integer K and N (items x models, modified in place when dropping).

        Any integer dtype is kept as given (the aggregating readers pass uint8 counts, 70 MB per
        array at 14,000 x 5,000); :meth:`counts` returns int64 copies.
        """
        return _from_dense_counts(cls, K, N, m_order, i_order, model_meta, item_meta, opts)

    @classmethod
    def from_wide(
        cls,
        matrix: pd.DataFrame,
        *,
        models: pd.DataFrame | None = None,
        items: pd.DataFrame | None = None,
        T: int = 1,
        parse_names: bool = True,
        name_rules=FAMILY_RULES,
        name: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> "ResponseSet":
        """Build from a wide items x models table (index = item ids, columns = model ids).

        With ``T=1`` values are the correctness of one sample (0/1, or a score in [0, 1]); with
        ``T > 1`` they are correct counts 0..T of T samples. NaN marks a missing cell (kept
        missing, not dropped).
        """
        return _from_wide(cls, matrix, models=models, items=items, T=T, parse_names=parse_names,
                          name_rules=name_rules, name=name, meta=meta)

    # ---------------------------------------------------------------- basic properties

    @property
    def model_ids(self) -> pd.Index:
        """The model identifiers, in roster order."""
        return self.models.index

    @property
    def item_ids(self) -> pd.Index:
        """The item identifiers, in item order."""
        return self.items.index

    @property
    def n_models(self) -> int:
        """Number of models."""
        return len(self.models)

    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self.items)

    @property
    def budget(self) -> pd.Series:
        """The sample budget of each model (a Series indexed by model)."""
        T = np.broadcast_to(np.asarray(self._T, dtype=np.int64), (self.n_models,))
        return pd.Series(T, index=self.model_ids, name="T")

    @property
    def T(self) -> int:
        """The common sample budget (an error when budgets differ: see :attr:`budget`)."""
        if np.ndim(self._T):
            raise BenchkitValueError(
                "this ResponseSet has per-model sample budgets "
                f"({', '.join(f'{m}: {t}' for m, t in list(self.budget.items())[:4])}, ...); use "
                ".budget"
            )
        return int(self._T)

    @property
    def variants(self) -> tuple[str, ...]:
        """The prompt/perturbation variants present (empty when there is no ``variant`` column)."""
        if self._long is None or "variant" not in self._long.columns:
            return ()
        return tuple(self._long["variant"].cat.categories)

    @property
    def has_answers(self) -> bool:
        """True when the responses carry answer states."""
        return self._long is not None and "answer" in self._long.columns

    @property
    def has_option_probs(self) -> bool:
        """True when option probabilities (MCQ) are present."""
        return self._P is not None

    @property
    def has_samples(self) -> bool:
        """False for a set built from aggregated counts (no per-sample rows)."""
        return self._long is not None

    @property
    def is_binary(self) -> bool:
        """True when every response is 0/1 (so correct counts are integers)."""
        self._require_single_variant("is_binary")
        return self._K is not None

    @property
    def n_responses(self) -> int:
        """Number of individual responses (samples) held."""
        return int(len(self._long)) if self._long is not None else int(self._N.sum())

    def __repr__(self) -> str:
        parts = [f"ResponseSet{' ' + repr(self.name) if self.name else ''}: "
                 f"{self.n_items:,} items x {self.n_models:,} models, {self.n_responses:,} responses"]
        if np.ndim(self._T):
            parts.append(f"T per model ({int(np.min(self._T))}-{int(np.max(self._T))})")
        else:
            parts.append(f"T={int(self._T)}")
        if self._N is not None:
            miss = float((self._N == 0).mean())
            parts.append(f"{miss:.1%} cells missing")
        extras = [n for n, ok in (("answers", self.has_answers), ("option probs", self.has_option_probs))
                  if ok]
        if extras:
            parts.append("with " + " and ".join(extras))
        if self.variants:
            parts.append(f"{len(self.variants)} variants")
        if not self.has_samples:
            parts.append("from counts")
        text = ", ".join(parts)
        if self.report:
            text += f"\n{self.report}"
        return text

    def _repr_html_(self) -> str:  # plain HTML: no Jupyter import
        import html

        body = html.escape(repr(self)).replace("\n", "<br>")
        cols = ", ".join(html.escape(str(c)) for c in self.items.columns) or "none"
        mcols = ", ".join(html.escape(str(c)) for c in self.models.columns) or "none"
        return (f"<div><b>{body}</b><br><small>item columns: {cols}<br>model columns: {mcols}"
                "</small></div>")

    # ---------------------------------------------------------------- dense views

    def _require_single_variant(self, what: str) -> None:
        if self._N is None:
            raise BenchkitValueError(
                f"{what} needs a single variant, but this ResponseSet holds {len(self.variants)} "
                f"({', '.join(map(repr, self.variants[:5]))}); pick one with .select(variant=...)"
            )

    def counts(self) -> CountMatrix:
        """Correct counts ``K`` and observed samples ``N`` (items x models, int64).

        Missing cells have ``N == 0``. Needs 0/1 correctness (use :meth:`scores` for fractional
        scores) and a single variant.
        """
        self._require_single_variant("counts()")
        if self._K is None:
            raise BenchkitValueError(
                "counts() needs 0/1 correctness, but 'correct' holds fractional scores; use "
                ".scores() for mean scores"
            )
        T = self._T if not np.ndim(self._T) else np.asarray(self._T).copy()
        return CountMatrix(K=self._K.astype(np.int64), N=self._N.astype(np.int64), T=T,
                           items=self.item_ids, models=self.model_ids)

    def scores(self) -> np.ndarray:
        """Mean correctness over samples, items x models (float64); NaN for missing cells."""
        self._require_single_variant("scores()")
        total = self._K if self._S is None else self._S
        with np.errstate(invalid="ignore", divide="ignore"):
            out = total / self._N
        out[self._N == 0] = np.nan
        return out

    def binary(self) -> np.ndarray:
        """Correctness of the principal sample, items x models (float64); NaN for missing cells.

        For a set built from counts, only available when every budget is 1.
        """
        self._require_single_variant("binary()")
        if self._long is None:
            if np.any(np.asarray(self._T) != 1):
                raise BenchkitValueError(
                    "binary() needs the principal sample, but this ResponseSet was built from "
                    "counts with more than one sample per cell; use counts() or scores()"
                )
            return self.scores()
        return self._principal_matrix(self._long["correct"].to_numpy())

    def _principal_matrix(self, values: np.ndarray, k: int | None = None) -> np.ndarray:
        long = self._long
        sel = long["principal"].to_numpy()
        ii = long["item"].cat.codes.to_numpy()[sel]
        mi = long["model"].cat.codes.to_numpy()[sel]
        shape = (self.n_items, self.n_models) if k is None else (self.n_items, self.n_models, k)
        out = np.full(shape, np.nan)
        out[ii, mi] = values[sel]
        return out

    def option_probs(self) -> np.ndarray:
        """Option probabilities of the principal sample, (items, models, k) float64; NaN missing."""
        self._require_single_variant("option_probs()")
        if self._P is None:
            raise BenchkitValueError(
                "this ResponseSet has no option probabilities; build it with an 'option_probs' or "
                "'option_logprobs' column"
            )
        k = self._P.shape[1]
        check_dense_size(self.n_items, self.n_models, len(self._P), per_cell=8.0 * k,
                         what=f"the option probabilities ({k} options)")
        return self._principal_matrix(self._P, k)

    def answer_counts(self) -> AnswerCounts:
        """Answer-state counts per item, model and state (see :class:`AnswerCounts`)."""
        self._require_single_variant("answer_counts()")
        if not self.has_answers:
            raise BenchkitValueError(
                "this ResponseSet has no answer states; build it with an 'answer' column"
            )
        long = self._long
        ii = long["item"].cat.codes.to_numpy().astype(np.int64)
        mi = long["model"].cat.codes.to_numpy().astype(np.int64)
        pair = pd.DataFrame({"i": ii, "a": long["answer"].to_numpy()})
        s_codes = pair.groupby("i", sort=False)["a"].transform(lambda s: pd.factorize(s)[0]).to_numpy()
        s_codes = s_codes.astype(np.int64)
        S = int(s_codes.max()) + 1
        check_dense_size(self.n_items, self.n_models, len(long), per_cell=8.0 * S + 16,
                         what=f"the answer-state counts ({S:,} states per item at most)")
        counts = np.zeros((self.n_items, self.n_models, S), dtype=np.int64)
        np.add.at(counts, (ii, mi, s_codes), 1)
        flat = ii * S + s_codes
        tot = np.bincount(flat, minlength=self.n_items * S)
        corr = np.bincount(flat, weights=long["correct"].to_numpy(), minlength=self.n_items * S)
        with np.errstate(invalid="ignore", divide="ignore"):
            state_correct = (corr / tot).reshape(self.n_items, S)
        state_correct[tot.reshape(self.n_items, S) == 0] = np.nan
        labels: list[list[Any]] = [[] for _ in range(self.n_items)]
        firsts = pd.DataFrame({"i": ii, "s": s_codes, "a": long["answer"].to_numpy()})
        firsts = firsts.drop_duplicates(["i", "s"]).sort_values(["i", "s"])
        for i, a in zip(firsts["i"].to_numpy(), firsts["a"].to_numpy()):
            labels[i].append(a)
        return AnswerCounts(counts=counts, states=tuple(tuple(x) for x in labels),
                            state_correct=state_correct, items=self.item_ids, models=self.model_ids)

    def accuracy(self) -> pd.Series:
        """Mean correctness per model over its observed cells (each item weighted once)."""
        self._require_single_variant("accuracy()")
        s = self.scores()
        with np.errstate(invalid="ignore"):
            acc = np.nanmean(s, axis=0) if s.size else np.array([])
        return pd.Series(acc, index=self.model_ids, name="accuracy")

    def item_stats(self) -> pd.DataFrame:
        """Per item: models observed and p-value (mean correctness over models)."""
        self._require_single_variant("item_stats()")
        s = self.scores()
        observed = (self._N > 0).sum(axis=1)
        with np.errstate(invalid="ignore"):
            p = np.nanmean(np.where(observed[:, None] > 0, s, 0.0), axis=1)
        p = np.where(observed > 0, p, np.nan)
        return pd.DataFrame({"n_models": observed, "p_value": p}, index=self.item_ids)

    # ---------------------------------------------------------------- subsetting and export

    def select(
        self,
        *,
        models: Iterable[str] | None = None,
        items: Iterable[str] | None = None,
        benchmark: str | Sequence[str] | None = None,
        variant: str | None = None,
    ) -> "ResponseSet":
        """A new ResponseSet restricted to some models, items, benchmark(s) and/or one variant.

        ``models`` / ``items`` keep the order given; every id must exist.
        """
        m_index = self.model_ids
        i_index = self.item_ids
        if models is not None:
            m_index = self._pick("models", models, self.model_ids)
        if items is not None:
            i_index = self._pick("items", items, self.item_ids)
        if benchmark is not None:
            if "benchmark" not in self.items.columns:
                raise BenchkitValueError("benchmark= needs an items column 'benchmark'; this set has none")
            if not isinstance(benchmark, (str, list, tuple, set, frozenset, pd.Index, np.ndarray)):
                raise BenchkitTypeError(
                    f"benchmark must be a name or a list of names, got {describe(benchmark)}")
            wanted = [benchmark] if isinstance(benchmark, str) else list(benchmark)
            known = pd.unique(self.items["benchmark"].dropna())
            for b in wanted:
                check_choice("benchmark", b, list(known))
            mask = self.items.loc[i_index, "benchmark"].isin(wanted).to_numpy()
            i_index = i_index[mask]
        if variant is not None:
            check_choice("variant", variant, list(self.variants))
        if len(i_index) == 0 or len(m_index) == 0:
            raise BenchkitValueError("the selection is empty: no items or no models left")
        if self._long is None:
            ii = self.item_ids.get_indexer(i_index)
            mi = self.model_ids.get_indexer(m_index)
            K = self._K[np.ix_(ii, mi)]
            N = self._N[np.ix_(ii, mi)]
            T = self._T if not np.ndim(self._T) else np.asarray(self._T)[mi]
            return ResponseSet(models=self.models.loc[m_index], items=self.items.loc[i_index],
                               _K=K, _S=None, _N=N, _T=T, _long=None, _P=None,
                               name=self.name, meta=dict(self.meta), report=self.report)
        long = self._long
        keep = long["model"].isin(m_index).to_numpy() & long["item"].isin(i_index).to_numpy()
        if variant is not None:
            keep &= (long["variant"] == variant).to_numpy()
        sub = long[keep].copy()
        sub["model"] = sub["model"].cat.set_categories(m_index)
        sub["item"] = sub["item"].cat.set_categories(i_index)
        if variant is not None:
            sub = sub.drop(columns="variant")
        P = None if self._P is None else self._P[keep]
        T = self._T
        if np.ndim(T):
            T = np.asarray(T)[self.model_ids.get_indexer(m_index)]
        return ResponseSet._build(self.models.loc[m_index], self.items.loc[i_index],
                                  sub.reset_index(drop=True), P, T, self.name, self.meta, self.report)

    @staticmethod
    def _pick(name: str, wanted: Iterable[str], index: pd.Index) -> pd.Index:
        if isinstance(wanted, str):  # one id, not its characters
            wanted = [wanted]
        if isinstance(wanted, (bytes, Mapping)) or not isinstance(wanted, Iterable):
            raise BenchkitTypeError(
                f"{name} must be an id or a list of ids, got {describe(wanted)}")
        wanted = pd.Index([str(w) for w in wanted], dtype=object)
        if wanted.has_duplicates:
            raise BenchkitValueError(f"{name} lists {wanted[wanted.duplicated()][0]!r} more than once")
        missing = wanted.difference(index)
        if len(missing):
            raise BenchkitValueError(
                f"{name} has unknown id(s) {', '.join(map(repr, missing[:5]))}; known: "
                f"{', '.join(map(repr, index[:5]))}{' ...' if len(index) > 5 else ''}"
            )
        return pd.Index(wanted, name=index.name)

    def to_long(self) -> pd.DataFrame:
        """The responses as a long DataFrame (string ids).

        For a set built from counts this is the aggregated form: model, item, n_correct,
        n_samples (one row per observed cell).
        """
        if self._long is None:
            cm = CountMatrix(self._K.astype(np.int64, copy=False), self._N.astype(np.int64, copy=False),
                             self._T, self.item_ids, self.model_ids)
            return cm.to_frame()[["model", "item", "n_correct", "n_samples"]]
        out = self._long.copy()
        out["model"] = out["model"].astype(str)
        out["item"] = out["item"].astype(str)
        if "variant" in out.columns:
            out["variant"] = out["variant"].astype(str)
        if self._P is not None:
            out["option_probs"] = list(self._P)
        cols = ["model", "item"] + (["variant"] if "variant" in out.columns else []) + ["sample", "correct"]
        cols += [c for c in ("answer", "option_probs", "principal") if c in out.columns]
        return out[cols]


def check_response_set(name: str, value: Any) -> Any:
    """``value`` must be a :class:`benchkit.ResponseSet` (a DataFrame is pointed to ``from_long``)."""
    if isinstance(value, ResponseSet):
        return value
    shown, hint = describe(value), ""
    if type(value).__name__ == "DataFrame":
        shown = f"a DataFrame ({value.shape[0]} rows x {value.shape[1]} columns)"
        hint = "; build one with ResponseSet.from_long(frame) (or from_counts / from_wide)"
    raise BenchkitTypeError(f"{name} must be a benchkit.ResponseSet, got {shown}{hint}")
