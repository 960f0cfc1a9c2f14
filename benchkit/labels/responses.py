"""Answer-key checks on a :class:`benchkit.ResponseSet`: :func:`key_issues`."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import describe
from benchkit.labels._keys import KeyIssues
from benchkit.labels._keys import score_keys
from benchkit.response_set import NO_ANSWER
from benchkit.response_set import check_response_set

__all__ = ["key_issues"]

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def key_issues(rs: Any, *, key: Any = None, probabilities: Any = None, min_models: int = 5,
               ambiguity: float = 0.5) -> KeyIssues:
    r"""Check every item's answer key against the options the models chose.

    Parameters
    ----------
    rs : ResponseSet
        Multiple-choice responses with an ``answer`` column (option letters; :data:`benchkit.NO_ANSWER`
        or a missing value for no answer) or option probabilities; one variant.
    key : Series or mapping, optional
        The answer key by item id (option letters). Default: the items column ``answer_key``.
        Items whose key is missing are not checked.
    probabilities : array_like (items, models, k), False or None
        Option probabilities in ``rs``'s item and model order (NaN rows: no response). ``None``
        (default) uses ``rs``'s own option probabilities when it has them, else the answers;
        ``False`` uses the answers even when probabilities are present.
    min_models : int, default 5
        Items with fewer models giving a valid answer are not checked (``score`` NaN, a reason).
    ambiguity : float, default 0.5
        Share of the confident-learning threshold that the key and an alternative must each keep for
        an ``ambiguous`` flag (see Notes).

    Returns
    -------
    KeyIssues
        ``to_frame()``: one row per item with ``score`` (higher = more suspect), ``alternative``,
        ``share`` and ``weighted_share`` choosing it, ``flag``, ``issue`` and ``reason``;
        ``.models``: per model, its weight and how often it picks suspect keys (a contamination
        hint, with the caveat in :class:`KeyIssues`).

    Notes
    -----
    Votes: with answers, each model's choice is one-hot (with repeated samples, the share of its
    samples choosing each option); with option probabilities, the probability vector. No answer,
    and a letter beyond the item's options (from the items column ``options``), is no vote (counted
    in ``n_no_answer``).

    Score: the Dawid-Skene (1979) posterior log-odds that the key is wrong, from the models'
    choices alone (the key is never used in the fit): each model has a confusion matrix over
    options, so a model that is usually right, and one whose letter preferences are known, counts
    by its reliability. Flag: confident learning (Northcutt et al. 2021) on the ability-weighted
    shares :math:`\hat p_{ij} = \sum_m w_m V_{imj} / \sum_m w_m` with weighted-majority weights
    :math:`w_m = \max(0, \log \frac{a_m (k-1)}{1-a_m})` of the models' Dawid-Skene accuracies
    :math:`a_m`: ``wrong_key`` when the confident class (an option whose weighted share reaches its
    per-option threshold, the mean weighted share of keyed options) is not the key; ``ambiguous``
    when the key misses its threshold but it and the alternative each keep ``ambiguity`` (0.5) of
    theirs and together reach the key's.

    Readings chosen: the "classifier" of confident learning is the ensemble of evaluated models
    (out-of-sample by construction: no model saw the key while answering); an option that no item
    is keyed with gets the pooled threshold (cleanlab would never count it confident, but answer
    letters are exchangeable positions); ``ambiguous`` is only flagged when the votes are graded
    (option probabilities or repeated samples): with one answer per model, a split between two
    options cannot be told from a hard item whose wrong answers share one distractor.

    Calibration (measured; nothing was tuned on evaluation labels). The flag threshold is
    confident learning's own per-option threshold. Scaling it by 0.8 / 0.9 / 1.0 / 1.1 on the
    simulator (14 models, 1,000 items, 4 seeds, answers only) recovers 82 / 76 / 63 / 56 % of the
    planted miskeyed items and flags 4.3 / 2.7 / 1.6 / 1.0 % of clean ones; on MMLU-Redux it
    flags 353 / 277 / 214 / 158 items holding 66 / 63 / 59 / 55 of the 107 ``wrong_groundtruth``
    items. The unscaled threshold (1.0) is kept. With option probabilities the ``ambiguous`` flag
    recovers 76 % of planted ambiguous items and flags 4 % of clean items (hard items whose top
    distractor takes half the probability look the same). On MMLU-Redux (14 HELM models, 5,700
    expert-labelled items) the score ranks the 107 ``wrong_groundtruth`` items with AUROC 0.914,
    above the plain share of models disagreeing with the key (0.909) measured in the same run.
    The flag rate depends on the ensemble: with weak models (low thresholds) hard items with a
    shared misconception are flagged too, so read flagged items as candidates for review.

    References
    ----------
    A. P. Dawid and A. M. Skene (1979), Applied Statistics 28(1), 20-28. C. G. Northcutt, L. Jiang
    and I. L. Chuang (2021), JAIR 70, 1373-1411. S. Nitzan and J. Paroush (1982), International
    Economic Review 23(2), 289-297. A. P. Gema et al. (2024), "Are We Done with MMLU?",
    arXiv:2406.04127 (the MMLU-Redux labels).

    Examples
    --------
    >>> import benchkit
    >>> from benchkit.labels import key_issues
    >>> sim = benchkit.simulate.mcq_probabilities(rng=0)
    >>> res = key_issues(sim.responses)
    >>> res.votes_from
    'option probabilities'
    >>> int(res.items["flag"].sum()) > 0
    True
    """
    rs = check_response_set("rs", rs)
    if rs.variants:
        raise BenchkitValueError(
            f"key_issues needs a single variant, but rs holds {len(rs.variants)} "
            f"({', '.join(map(repr, rs.variants[:5]))}); pick one with rs.select(variant=...)")
    keys = _keys(rs, key)
    n_opts = _n_options(rs)
    V, responded, votes_from, K = _votes(rs, probabilities, n_opts, keys)
    n_opts = np.full(rs.n_items, K) if n_opts is None else n_opts
    bad_key = (keys >= n_opts) & (keys >= 0)
    if bad_key.any():
        i = int(np.flatnonzero(bad_key)[0])
        raise BenchkitValueError(
            f"item {rs.item_ids[i]!r} has key {_LETTERS[keys[i]]!r}, which is not among its "
            f"{int(n_opts[i])} options")
    valid = np.arange(K)[None, :] < n_opts[:, None]
    res = score_keys(V, keys, valid=valid, min_models=min_models, ambiguity=ambiguity,
                     items=rs.item_ids, models=rs.model_ids,
                     options=tuple(_LETTERS[:K]), votes_from=votes_from)
    answered = V.sum(axis=2) > 0
    no_answer = responded & ~answered
    res.items.insert(res.items.columns.get_loc("n_models") + 1, "n_no_answer", no_answer.sum(axis=1))
    res.models.insert(1, "n_no_answer", no_answer.sum(axis=0))
    return res


def _keys(rs, key) -> np.ndarray:
    if key is None:
        if "answer_key" not in rs.items.columns:
            raise BenchkitValueError(
                "rs has no items column 'answer_key'; pass key= (a Series of option letters by item)")
        series = rs.items["answer_key"]
        where = "items column 'answer_key'"
    else:
        if isinstance(key, Mapping):
            key = pd.Series(dict(key))
        if not isinstance(key, pd.Series):
            raise BenchkitTypeError(f"key must be a Series or mapping from item id to option letter; got "
                                    f"{describe(key)}")
        index = key.index.astype(str)
        if index.has_duplicates:
            raise BenchkitValueError(f"key lists item {index[index.duplicated()][0]!r} more than once")
        unknown = index.difference(rs.item_ids.astype(str))
        if len(unknown):
            raise BenchkitValueError(f"key has item id(s) not in rs: {', '.join(map(repr, unknown[:5]))}")
        missing = rs.item_ids.astype(str).difference(index)
        if len(missing):
            raise BenchkitValueError(
                f"key has no entry for {len(missing)} item(s) of rs, e.g. {', '.join(map(repr, missing[:5]))}"
                "; give every item (None for an item without a key)")
        series = pd.Series(key.to_numpy(dtype=object), index=index).reindex(rs.item_ids.astype(str))
        where = "key"
    out = np.full(rs.n_items, -1, dtype=np.int64)
    for i, v in enumerate(series.to_numpy(dtype=object)):
        if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)):
            continue
        if not isinstance(v, str) or len(v) != 1 or v not in _LETTERS:
            raise BenchkitValueError(
                f"{where} for item {rs.item_ids[i]!r} is {describe(v)}; it must be a capital option "
                "letter A-Z (or missing)")
        out[i] = _LETTERS.index(v)
    if (out < 0).all():
        raise BenchkitValueError(f"{where} holds no answer key for any item")
    return out


def _n_options(rs) -> np.ndarray | None:
    if "options" not in rs.items.columns:
        return None
    return rs.items["options"].map(lambda o: len(o) if isinstance(o, (list, tuple, np.ndarray)) else 0
                                   ).to_numpy(dtype=np.int64)


def _votes(rs, probabilities, n_opts, keys):
    if probabilities is None and rs.has_option_probs:
        P = rs.option_probs()
        return (*_from_probabilities(P, n_opts, "rs.option_probs()"), "option probabilities",
                P.shape[2])
    if probabilities is not None and probabilities is not False:
        P = check_array("probabilities", probabilities, ndim=3, dtype="float", finite=False,
                        shape=(rs.n_items, rs.n_models, None))
        V, responded = _from_probabilities(P, n_opts, "probabilities")
        return V, responded, "option probabilities", P.shape[2]
    if not rs.has_answers:
        raise BenchkitValueError(
            "key_issues needs the models' chosen options: rs has no 'answer' column and no option "
            "probabilities (pass probabilities=...)")
    return _from_answers(rs, n_opts, keys)


def _from_probabilities(P: np.ndarray, n_opts, name: str):
    n, M, k = P.shape
    if k < 2:
        raise BenchkitValueError(f"{name} must have at least 2 options (axis 2); got {k}")
    if n_opts is not None and (n_opts > k).any():
        i = int(np.flatnonzero(n_opts > k)[0])
        raise BenchkitValueError(f"{name} has {k} options but item {i} has {int(n_opts[i])}")
    present = ~np.isnan(P).any(axis=2)
    partly = np.isnan(P).any(axis=2) & ~np.isnan(P).all(axis=2)
    if partly.any():
        i, m = np.argwhere(partly)[0]
        raise BenchkitValueError(f"{name}[{i}, {m}] mixes NaN and numbers; a missing response is all NaN")
    V = np.where(present[:, :, None], P, 0.0)
    if np.any(V < 0):
        raise BenchkitValueError(f"{name} must be >= 0")
    sums = V.sum(axis=2)
    off = present & (np.abs(sums - 1.0) > 1e-6)
    if off.any():
        i, m = np.argwhere(off)[0]
        raise BenchkitValueError(f"{name}[{i}, {m}] sums to {sums[i, m]:.6g}; option probabilities sum to 1")
    if n_opts is not None:
        V = np.where(np.arange(k)[None, None, :] < n_opts[:, None, None], V, 0.0)
        mass = V.sum(axis=2, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            V = np.where(mass > 0, V / mass, 0.0)
    return V, present


def _from_answers(rs, n_opts, keys):
    long = rs.to_long()
    ans = long["answer"].astype(object).to_numpy()
    missing = pd.isna(ans) | (ans == NO_ANSWER)
    vals = pd.unique(ans[~missing])
    bad = [v for v in vals if not (isinstance(v, str) and len(v) == 1 and v in _LETTERS)]
    if bad:
        raise BenchkitValueError(
            f"the 'answer' column must hold option letters A-Z or benchkit.NO_ANSWER; found "
            f"{', '.join(describe(b) for b in bad[:5])}{' ...' if len(bad) > 5 else ''}")
    code = np.full(ans.size, -1, dtype=np.int64)
    code[~missing] = [_LETTERS.index(a) for a in ans[~missing]]
    ii = rs.item_ids.get_indexer(long["item"].to_numpy())
    mi = rs.model_ids.get_indexer(long["model"].to_numpy())
    if n_opts is None:
        K = int(max(code.max(), keys.max())) + 1
        limit = np.full(rs.n_items, K)
    else:
        K = int(n_opts.max())
        limit = n_opts
    K = max(K, 2)
    code[code >= limit[ii]] = -1  # a letter the item does not have: no vote
    responded = np.zeros((rs.n_items, rs.n_models), dtype=bool)
    responded[ii, mi] = True
    V = np.zeros((rs.n_items, rs.n_models, K))
    ok = code >= 0
    np.add.at(V, (ii[ok], mi[ok], code[ok]), 1.0)
    tot = V.sum(axis=2, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        V = np.where(tot > 0, V / tot, 0.0)
    samples = np.bincount(ii * rs.n_models + mi, minlength=rs.n_items * rs.n_models)
    votes_from = "answer samples" if samples.max() > 1 else "answers"
    return V, responded, votes_from, K
