"""The cross-method audit: :func:`audit` runs every applicable method and joins their item verdicts."""
from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from benchkit._parallel import check_n_jobs
from benchkit._random import seed_sequence
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_choices
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.auditing._boundary import run_boundary
from benchkit.auditing._dif import run_dif
from benchkit.auditing._labels import run_labels
from benchkit.auditing._landscape import run_landscape
from benchkit.auditing._measure import run_measure
from benchkit.auditing._quality import run_quality
from benchkit.auditing._result import AuditResult
from benchkit.auditing._result import pairwise_agreement
from benchkit.auditing._result import percentiles
from benchkit.auditing._verdict import AUDIT_METHODS
from benchkit.auditing._verdict import ITEM_VERDICTS
from benchkit.auditing._verdict import Context
from benchkit.auditing._verdict import NotRun
from benchkit.auditing._verdict import Verdict
from benchkit.auditing._verdict import family_members
from benchkit.response_set import check_response_set

_ADAPTERS = {"labels": run_labels, "boundary": run_boundary, "dif": run_dif, "landscape": run_landscape,
             "quality": run_quality, "measure": run_measure}
_BASELINE = "baseline"


def audit(rs: Any, *, methods: Any = "auto", families: Any = None, axis: Any = None,
          reference: Any = None, variant: str | None = None, n_resamples: int = 200,
          options: Mapping[str, Mapping[str, Any]] | None = None, rng: Any = None,
          n_jobs: int | None = None, progress: bool = True) -> AuditResult:
    r"""Run every method the data support on a ResponseSet and join their verdicts item by item.

    Parameters
    ----------
    rs : ResponseSet
        Item-level responses: any mix of answers, option probabilities, answer keys, repeated
        samples, model families and benchmarks; each method runs where the data allow it.
    methods : "auto" or sequence of str
        ``"auto"`` (default) tries all of :data:`AUDIT_METHODS`; a list tries those only. A method
        the data cannot support is not an error: ``applicability`` says why it did not run.
    families : None, str or mapping family -> model ids
        Model families for family DIF and Benchmark²'s CAD: a models column (e.g. ``"family"``)
        or explicit lists. Default: each method's own (DIF: the paper's name patterns
        :data:`benchkit.dif.PAPER_FAMILIES`; CAD: series and variant parsed from the names, else
        the ``family`` column), members ordered by size.
    axis : None, "accuracy", "size", list of model ids or mapping name -> axis
        BSDProbe's model axes (anything :func:`benchkit.boundary.profile` accepts as ``axis``).
        Default: every size ladder in the data (a family with three or more models of distinct
        known sizes answering each item several times with one budget).
    reference : set, list or boolean Series of item ids, optional
        A reference flag set (e.g. expert labels): the result's ``validation`` is
        :meth:`AuditResult.validate` against it.
    variant : str, optional
        With several variants (prompts, perturbations), the one the single-variant methods read;
        default ``"baseline"`` if present, else the first. The probability landscape reads all.
    n_resamples : int, default 200
        Replicates of the resampling stages of family DIF (matched-random controls, composition
        and owner bootstraps, permutations) and of Benchmark²'s bootstrap intervals. The item flags
        do not depend on them; the methods' own results (``results``) report them.
    options : mapping method -> mapping, optional
        Keyword arguments passed to a method's entry point, overriding the audit's (e.g.
        ``{"dif": {"min_family_size": 10}, "labels": {"min_models": 3}}``).
    rng : None, int, SeedSequence or Generator
        One root seed; each method gets its own spawned child (in :data:`AUDIT_METHODS` order), so
        a method's result does not depend on which others ran.
    n_jobs : int, optional
        Workers for the resampling stages; results do not depend on it.
    progress : bool, default True
        A tqdm bar over the methods on stderr.

    Returns
    -------
    AuditResult
        ``items`` (per item each method's score, flag and reason, and ``n_flags``), ``models``,
        ``applicability``, ``agreement``, the methods' own ``results`` and ``validate()``.

    Notes
    -----
    Each method runs through its public entry point and becomes three columns per item:

    ============ ========================================== ==========================================
    method       score (higher = more suspect)              flag
    ============ ========================================== ==========================================
    labels       Dawid-Skene posterior log-odds that the    ``key_issues`` flag: ``wrong_key``
                 key is wrong (``labels.key_issues``)       (confident learning) or ``ambiguous``
    boundary     :math:`-\log_{10} o`, o the order-         :math:`o \le \alpha_o` (0.05) on any
                 consistency score (paper 000, Eq. 19),     axis: an order violation (App. D)
                 maximum over the axes
    dif          :math:`D_i = \max_f \hat\delta_{if} -      stable high DIF: top 20 % of D within its
                 \min_f \hat\delta_{if}` (paper 001,        source x easiness cell in both owner
                 Eq. 5), mean of the two owner halves       halves (App. D.3-D.4)
    landscape    mean probability off the key over the      every response wrong (the noise variant if
                 responses (paper 003)                      any): cross-model failure (Sec. 6.1)
    quality      within-family inversion rate (paper 004,   item CAD :math:`e^{-12\,rate} \le 0.15`
                 Eq. 4-5 per item)                          (Sec. 5.4), or a near-copy of an item of
                                                            another benchmark (see below)
    measure      none: a benchmark-level method             none; the reason names the items
                 (paper 002)                                bordering the top-5 gaps
    ============ ========================================== ==========================================

    Readings chosen. DIF's flag is relative (the top fifth of each cell in both halves): it marks
    about 4 % of items even without DIF, but planted family-biased items rank at the top.
    Benchmark² compares benchmarks by their model rankings (App. F, Kendall tau_b); the audit goes
    one step further for near-duplicates: two benchmarks are near-duplicates when at least half
    of the smaller one's items are *mutual best matches* of an item of the other by the
    correlation of their responses over the shared models, and those items are flagged (an item
    has one best match; unrelated benchmarks pair up about a quarter of their items by chance).
    The landscape paper's flag is "every model fails under noise injection"; without a
    ``"noise"`` variant the audit applies it to all responses. The measure paper has no item
    verdict: it appears in ``items`` (reasons) but not in agreement or validation.
    Agreement is computed over the items both methods scored; Cohen's kappa is NaN when neither
    flags anything. Results are identical for any ``n_jobs``: every random stage draws from its
    method's seed child in fixed blocks (:mod:`benchkit._parallel`).

    References
    ----------
    Each method's paper, for its score and flag (see the table above):

    - ``boundary``: H. Hu et al., "Are Benchmarks Reliable? Toward Structural Diagnosis via
      Item-Level Capability Boundaries" (BSDProbe), arXiv:2609.33196, Sec. 3.2 and App. D.3,
      Eq. (19) (the order-consistency score), Sec. 4.1 (the 0.05 screening level).
    - ``dif``: Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided
      Benchmark Recomposition?", Sec. 3.2, Eq. (5) (:math:`D_i`) and App. D.4 (stable high-DIF
      items: the within-cell top 20 % in both owner halves).
    - ``measure``: Y. Sun, N. Yu, J. Gong, J. Shen and H. Zhang, "Your Benchmark Is an Empirical
      Measure Over Difficulty", arXiv:2610.29927.
    - ``landscape``: "Auditing MCQA Benchmarks through Probability Landscapes",
      arXiv:2608.30372, Sec. 3.4 and Sec. 6.1 (cross-model failures).
    - ``quality``: Q. Qian, C. Huang, J. Xu et al., "Benchmark²: Systematic Evaluation of LLM
      Benchmarks", arXiv:2601.03986, Sec. 3.3, Eq. (4) (CAD) and Sec. 5.4 (the 0.15 threshold).
    - ``labels``: A. P. Dawid and A. M. Skene (1979), "Maximum likelihood estimation of observer
      error-rates using the EM algorithm", Applied Statistics 28(1), 20-28; C. G. Northcutt,
      L. Jiang and I. L. Chuang (2021), "Confident learning: estimating uncertainty in dataset
      labels", Journal of Artificial Intelligence Research 70, 1373-1411.
    - Agreement: J. Cohen (1960), "A coefficient of agreement for nominal scales", Educational
      and Psychological Measurement 20(1), 37-46 (kappa); P. Jaccard (1912), New Phytologist
      11(2), 37-50; M. G. Kendall (1945), "The treatment of ties in ranking problems",
      Biometrika 33(3), 239-251 (tau_b).

    Examples
    --------
    A simulated suite with every flaw planted (:func:`benchkit.simulate.audit_suite`), audited
    by the two fastest methods, the answer-key check and the probability landscape:

    >>> import benchkit
    >>> sim = benchkit.simulate.audit_suite(n_items=20, benchmarks=2, n_models=40, T=5, rng=0)
    >>> res = benchkit.audit(sim.responses, methods=["labels", "landscape"], n_resamples=0,
    ...                      progress=False, rng=0)
    >>> res
    AuditResult(60 items, 46 models; ran: labels, landscape; not run: none;
                flagged by >= 1 method: 6, by >= 2: 1; rng_entropy=0)

    The item both methods flag, why, and what was planted there:

    >>> res.flagged_frame(min_flags=2)["flagged_by"].to_dict()
    {'sim2/q0000': 'labels, landscape'}
    >>> print(res.items.loc["sim2/q0000", "labels_reason"])
    wrong key? 95% of 46 models (weighted 0.97, threshold 0.79) choose D, 2% the key A
    >>> sim.truth.items.loc["sim2/q0000", "flaw"]
    'miskeyed'

    Every method the data support (not run as a doctest: BSDProbe's calibration of the ladder
    takes about 2 s, beyond the doctest budget). Family DIF needs families of 20+ models; the
    reason says so and how to proceed:

    >>> res = benchkit.audit(sim.responses, n_resamples=0, progress=False, rng=0)  # doctest: +SKIP
    >>> res.applicability[["ran", "n_flagged"]]  # doctest: +SKIP
                 ran  n_flagged
    method
    labels      True          6
    boundary    True          5
    dif        False          0
    landscape   True          1
    quality     True         42
    measure     True          0
    >>> res.flagged_frame(min_flags=3)["flagged_by"].to_dict()  # doctest: +SKIP
    {'sim2/q0001': 'labels, boundary, quality'}
    """
    rs = check_response_set("rs", rs)
    if isinstance(methods, str):
        if methods != "auto":
            raise BenchkitValueError(f"methods={methods!r} is not allowed; use 'auto' or a list of some of "
                                     f"{list(AUDIT_METHODS)}")
        chosen = list(AUDIT_METHODS)
    else:
        chosen = check_choices("methods", methods, AUDIT_METHODS)
        if not chosen:
            raise BenchkitValueError(f"methods is empty; choose 'auto' or some of {list(AUDIT_METHODS)}")
    n_resamples = check_int("n_resamples", n_resamples, min=0)
    n_jobs = check_n_jobs(n_jobs)
    if not isinstance(progress, (bool, np.bool_)):
        raise BenchkitTypeError(f"progress must be True or False, got {describe(progress)}")
    options = _check_options(options)
    root = seed_sequence(rng)
    seeds = dict(zip(AUDIT_METHODS, root.spawn(len(AUDIT_METHODS))))
    single, used_variant = _single_variant(rs, variant)
    ctx = Context(families=families, axis=axis, n_resamples=n_resamples, n_jobs=n_jobs,
                  options=options, seeds=seeds)
    if families is not None:
        family_members(single, families)  # the audit's own argument: checked here, not per method

    from tqdm.auto import tqdm

    verdicts: dict[str, Verdict] = {}
    rows = []
    bar = tqdm(total=len(chosen), desc="audit", unit="method", disable=not progress)
    try:
        for m in chosen:
            bar.set_postfix_str(m)
            t0 = time.perf_counter()
            try:
                v = _ADAPTERS[m](rs if m == "landscape" else single, ctx)
            except NotRun as exc:
                rows.append((m, False, m in ITEM_VERDICTS, str(exc), 0, 0, time.perf_counter() - t0))
            except BenchkitValueError as exc:  # the method's own refusal names what is missing
                rows.append((m, False, m in ITEM_VERDICTS, f"the method refused the data: {exc}", 0, 0,
                             time.perf_counter() - t0))
            else:
                verdicts[m] = v
                rows.append((m, True, v.item_verdict, v.note, int(np.sum(~np.isnan(v.score))),
                             int(v.flag.sum()), time.perf_counter() - t0))
            bar.update(1)
    finally:
        bar.close()
    applicability = pd.DataFrame(rows, columns=["method", "ran", "item_verdict", "reason", "n_scored",
                                                "n_flagged", "seconds"]).set_index("method")
    items = _items_table(rs, verdicts)
    models = _models_table(single, verdicts)
    with_verdict = [m for m, v in verdicts.items() if v.item_verdict]
    settings = dict(methods=tuple(chosen), variant=used_variant, n_resamples=n_resamples,
                    families=families, axis=axis, options={k: dict(v) for k, v in options.items()})
    res = AuditResult(items=items, models=models, applicability=applicability,
                      agreement=pairwise_agreement(items, with_verdict),
                      results=MappingProxyType({m: v.result for m, v in verdicts.items()}),
                      rng_entropy=root.entropy, settings=settings)
    if reference is not None:
        res = replace(res, validation=res.validate(reference))
    return res


def _check_options(options) -> dict:
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise BenchkitTypeError(f"options must be a mapping method -> keyword arguments; got "
                                f"{describe(options)}")
    out = {}
    for m, kw in options.items():
        check_choice("options key", m, AUDIT_METHODS)
        if not isinstance(kw, Mapping):
            raise BenchkitTypeError(f"options[{m!r}] must be a mapping of keyword arguments; got "
                                    f"{describe(kw)}")
        out[m] = dict(kw)
    return out


def _single_variant(rs, variant):
    if not rs.variants:
        if variant is not None:
            raise BenchkitValueError(f"variant={variant!r} was given but rs has no variants")
        return rs, None
    if variant is None:
        variant = _BASELINE if _BASELINE in rs.variants else rs.variants[0]
    check_choice("variant", variant, list(rs.variants))
    return rs.select(variant=variant), variant


def _items_table(rs, verdicts: Mapping[str, Verdict]) -> pd.DataFrame:
    out = pd.DataFrame(index=pd.Index(rs.item_ids, name="item"))
    for c in ("benchmark", "source"):
        if c in rs.items.columns:
            out[c] = rs.items[c].to_numpy(dtype=object)
    flags, pcts, names = [], [], []
    for m, v in verdicts.items():
        out[f"{m}_score"] = v.score
        out[f"{m}_flag"] = v.flag
        out[f"{m}_reason"] = v.reason
        if v.item_verdict:
            flags.append(v.flag)
            pcts.append(percentiles(v.score))
            names.append(m)
    F = np.column_stack(flags) if flags else np.zeros((rs.n_items, 0), dtype=bool)
    out["n_flags"] = F.sum(axis=1).astype(np.int64)
    out["flagged_by"] = [", ".join(n for n, f in zip(names, row) if f) for row in F]
    P = np.column_stack(pcts) if pcts else np.full((rs.n_items, 1), np.nan)
    n_scored = (~np.isnan(P)).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):  # an item no method scored: NaN
        out["consensus"] = np.where(n_scored > 0, np.nansum(P, axis=1) / n_scored, np.nan)
    return out


def _models_table(rs, verdicts: Mapping[str, Verdict]) -> pd.DataFrame:
    out = pd.DataFrame(index=pd.Index(rs.model_ids, name="model"))
    for c in ("family", "owner", "size"):
        if c in rs.models.columns:
            out[c] = rs.models[c].to_numpy()
    out["budget"] = np.asarray(rs.budget)
    try:
        out["accuracy"] = rs.accuracy().to_numpy()
    except BenchkitValueError:  # pragma: no cover - accuracy is defined for every single-variant set
        out["accuracy"] = np.nan
    for v in verdicts.values():
        if v.models is not None:
            for c in v.models.columns:
                out[c] = v.models[c].to_numpy()
    return out
