"""View models of the audit explorer (:class:`benchkit.widgets.AuditExplorer`); no Jupyter import.

:func:`items_view` is the item table the explorer lists (filtered by method and by how many methods
flag an item, most flags first); :func:`item_view` is what it shows for one item: its text, key and
options, which models chose each option, and every method's verdict.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.response_set import NO_ANSWER
from benchkit.response_set import check_response_set

__all__ = ["ItemView", "items_view", "item_view"]

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _check_result(res: Any):
    from benchkit.auditing._result import AuditResult

    if not isinstance(res, AuditResult):
        raise BenchkitTypeError(f"result must be a benchkit.AuditResult (from benchkit.audit); got "
                                f"{type(res).__name__}")
    return res


def items_view(res: Any, *, method: str | None = None, min_flags: int = 0) -> pd.DataFrame:
    """The audit's items as the explorer lists them: filtered, most flags first.

    Parameters
    ----------
    res : AuditResult
        From :func:`benchkit.audit`.
    method : str, optional
        Keep the items this method flags (one of ``res.methods``); default any.
    min_flags : int, default 0
        Keep the items flagged by at least this many methods (0: every item).

    Returns
    -------
    DataFrame
        Index ``item``; ``benchmark`` (empty when the set has none), ``n_flags``, ``flagged_by``,
        ``consensus`` and each method's ``<method>_flag`` and ``<method>_score``; sorted by
        ``n_flags`` then ``consensus`` (descending; ties keep item order).

    References
    ----------
    The audit's methods and their papers: :func:`benchkit.audit` (References).

    Examples
    --------
    >>> import benchkit
    >>> from benchkit.auditing.explore import items_view
    >>> sim = benchkit.simulate.audit_suite(n_items=20, benchmarks=2, n_models=40, T=5, rng=0)
    >>> res = benchkit.audit(sim.responses, methods=["labels", "landscape"], n_resamples=0,
    ...                      progress=False, rng=0)
    >>> items_view(res, min_flags=1)[["benchmark", "n_flags", "flagged_by"]].head(3)
               benchmark  n_flags         flagged_by
    item
    sim2/q0000      sim2        2  labels, landscape
    sim2/q0015      sim2        1             labels
    sim2/q0001      sim2        1             labels
    >>> len(items_view(res, method="landscape"))      # the items the landscape flags
    1
    """
    res = _check_result(res)
    min_flags = check_int("min_flags", min_flags, min=0)
    it = res.items
    keep = it["n_flags"].to_numpy() >= min_flags
    if method is not None:
        check_choice("method", method, list(res.methods))
        keep &= it[f"{method}_flag"].to_numpy(bool)
    cols = ["n_flags", "flagged_by", "consensus"]
    for m in res.methods:
        cols += [f"{m}_flag", f"{m}_score"]
    out = it.loc[keep, cols].copy()
    out.insert(0, "benchmark", it.loc[keep, "benchmark"].astype(str) if "benchmark" in it.columns else "")
    return out.sort_values(["n_flags", "consensus"], ascending=False, kind="stable")


@result
class ItemView:
    """One item as the audit explorer shows it (:func:`item_view`).

    Attributes
    ----------
    item, benchmark, text, key : str
        The item id, its benchmark, question text and answer key ("" where the set has none).
    options : DataFrame
        One row per option (``option`` letter, ``text``, ``is_key``, ``n_models`` choosing it,
        ``models``: their ids, comma-separated); plus a row ``"(no answer)"`` when some model gave
        none. Empty when the set records no chosen answers.
    models : DataFrame
        One row per model that answered (index ``model``): ``answer`` (its principal answer, or
        "" without answers), ``correct`` (of that answer), ``p_key`` (its probability on the key,
        NaN without option probabilities).
    verdicts : DataFrame
        One row per method that ran (index ``method``): ``flag``, ``score``, ``reason``.

    Examples
    --------
    >>> import benchkit
    >>> from benchkit.auditing.explore import item_view
    >>> sim = benchkit.simulate.audit_suite(n_items=20, benchmarks=2, n_models=40, T=5, rng=0)
    >>> res = benchkit.audit(sim.responses, methods=["labels", "landscape"], n_resamples=0,
    ...                      progress=False, rng=0)
    >>> view = item_view(res, sim.responses, "sim2/q0000")
    >>> view.key, view.options["n_models"].tolist()     # every model's (first) answer is D
    ('A', [0, 0, 0, 46])
    >>> print(view.verdicts.loc["labels", "reason"])
    wrong key? 95% of 46 models (weighted 0.97, threshold 0.79) choose D, 2% the key A
    """

    item: str
    benchmark: str
    text: str
    key: str
    options: pd.DataFrame
    models: pd.DataFrame
    verdicts: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """The per-method verdicts (:attr:`verdicts`)."""
        return self.verdicts.copy()


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return ""
    return str(value)


def item_view(res: Any, rs: Any, item: str) -> ItemView:
    """What the audit explorer shows for one item: text, key, options, who chose what, verdicts.

    Parameters
    ----------
    res : AuditResult
        From :func:`benchkit.audit`.
    rs : ResponseSet
        The set that was audited (its items' ``text``, ``options`` and ``answer_key`` and the
        models' answers are shown; with variants, the variant the audit read).
    item : str
        An item id of the audit.

    Returns
    -------
    ItemView
        ``text``, ``key``, ``options`` (who chose each option), ``models`` (each model's answer
        and its probability on the key) and ``verdicts`` (each method's flag, score and reason).

    References
    ----------
    The audit's methods and their papers: :func:`benchkit.audit` (References).

    Examples
    --------
    The item the two methods both flag in a simulated suite, where the key was planted wrong:

    >>> import benchkit
    >>> from benchkit.auditing.explore import item_view
    >>> sim = benchkit.simulate.audit_suite(n_items=20, benchmarks=2, n_models=40, T=5, rng=0)
    >>> res = benchkit.audit(sim.responses, methods=["labels", "landscape"], n_resamples=0,
    ...                      progress=False, rng=0)
    >>> view = item_view(res, sim.responses, "sim2/q0000")

    Each model counts once, with its principal answer (a ladder model's first of its ``T``):
    all 46 choose D, none the key A.

    >>> view.options[["option", "is_key", "n_models"]]
      option  is_key  n_models
    0      A    True         0
    1      B   False         0
    2      C   False         0
    3      D   False        46
    >>> view.verdicts["flag"].to_dict()
    {'labels': True, 'landscape': True}
    """
    res = _check_result(res)
    rs = check_response_set("rs", rs)
    if str(item) not in set(res.items.index.astype(str)):
        raise BenchkitValueError(f"item={describe(item)} is not an audited item")
    ids = rs.item_ids.astype(str)
    if str(item) not in set(ids) or rs.n_items != len(res.items):
        raise BenchkitValueError(f"rs is not the ResponseSet that was audited: it has {rs.n_items} items, "
                                 f"the audit {len(res.items)} (item {describe(item)})")
    variant = res.settings.get("variant")
    if rs.variants:
        rs = rs.select(variant=variant)
    q = int(np.flatnonzero(ids == str(item))[0])
    meta = rs.items.iloc[q]
    key = _text(meta.get("answer_key")) if "answer_key" in rs.items.columns else ""
    opts = meta.get("options") if "options" in rs.items.columns else None
    opts = list(opts) if isinstance(opts, (list, tuple, np.ndarray)) else []
    models = _answers(rs, q, key)
    options = _options(models, opts, key) if rs.has_answers or rs.has_option_probs else pd.DataFrame(
        columns=["option", "text", "is_key", "n_models", "models"])
    rows = []
    for m in res.applicability.index[res.applicability["ran"]]:
        it = res.items.iloc[q]
        rows.append((m, bool(it[f"{m}_flag"]), float(it[f"{m}_score"]), str(it[f"{m}_reason"])))
    verdicts = pd.DataFrame(rows, columns=["method", "flag", "score", "reason"]).set_index("method")
    return ItemView(item=str(item), benchmark=_text(meta.get("benchmark")), text=_text(meta.get("text")),
                    key=key, options=options, models=models, verdicts=verdicts)


def _answers(rs, q: int, key: str) -> pd.DataFrame:
    long = rs.select(items=[rs.item_ids[q]]).to_long()
    if "principal" in long.columns:
        long = long[long["principal"].astype(bool)]
    out = pd.DataFrame({"answer": long["answer"].astype(str).to_numpy() if "answer" in long.columns else "",
                        "correct": long["correct"].to_numpy(dtype=float)},
                       index=pd.Index(long["model"].astype(str).to_numpy(), name="model"))
    p_key = np.full(len(long), np.nan)
    if "option_probs" in long.columns and key and key in _LETTERS:
        j = _LETTERS.index(key)
        P = np.stack(long["option_probs"].to_numpy())
        if j < P.shape[1]:
            p_key = P[:, j]
    if "answer" not in long.columns and "option_probs" in long.columns:  # the top option stands in
        P = np.stack(long["option_probs"].to_numpy())
        out["answer"] = [_LETTERS[int(k)] for k in P.argmax(axis=1)]
    out["p_key"] = p_key
    return out.reindex([str(m) for m in rs.model_ids if str(m) in set(out.index)])


def _options(models: pd.DataFrame, texts: list, key: str) -> pd.DataFrame:
    letters = list(_LETTERS[:len(texts)])
    seen = [a for a in dict.fromkeys(models["answer"]) if a not in letters]
    rows = []
    for a in letters + sorted(s for s in seen if s != NO_ANSWER) + ([NO_ANSWER] if NO_ANSWER in seen else []):
        who = models.index[models["answer"] == a]
        j = letters.index(a) if a in letters else -1
        label = "(no answer)" if a == NO_ANSWER else a
        rows.append((label, str(texts[j]) if j >= 0 else "", a == key, len(who), ", ".join(who)))
    return pd.DataFrame(rows, columns=["option", "text", "is_key", "n_models", "models"])
