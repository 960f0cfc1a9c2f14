r"""Answer-key checks from the models' choices: score, flag and reason per item, hints per model.

The pipeline (:func:`score_keys`):

1. :func:`~benchkit.labels.steps.dawid_skene` turns the models' choices (or option probabilities)
   into the key-free posterior of every item's true option; its confusion matrices weight each
   model by how reliable it is. ``score`` is the posterior log-odds that the key is wrong.
2. Each model gets the weight :math:`w_m = \max(0, \log\frac{a_m (k-1)}{1 - a_m})` of its
   estimated accuracy :math:`a_m` (the optimal weighted-majority weight of a "one-coin" voter,
   Nitzan and Paroush 1982); the ability-weighted share of models choosing each option is the
   ensemble probability :math:`\hat p_{ij}`.
3. Confident learning (:func:`~benchkit.labels.steps.confident_joint`) on :math:`\hat p` and the key
   flags ``wrong_key`` items: the alternative is chosen at least as confidently as a keyed option
   typically is (per-option thresholds). Items where the key and one alternative each keep at least
   ``ambiguity`` of that support, and neither reaches it, are flagged ``ambiguous``.
"""
from __future__ import annotations

from typing import Any
from typing import Sequence

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit.labels._confident import ConfidentJoint
from benchkit.labels._confident import confident_joint
from benchkit.labels._confident import confident_thresholds
from benchkit.labels._dawid_skene import DawidSkene
from benchkit.labels._dawid_skene import check_votes
from benchkit.labels._dawid_skene import dawid_skene

__all__ = ["ISSUE_KINDS", "KeyIssues", "score_keys", "model_weights"]

#: Values of the ``issue`` column ("" = no issue found).
ISSUE_KINDS: tuple[str, ...] = ("wrong_key", "ambiguous")
_FUZZ = 1e-6  # as confident learning compares p >= t - 1e-6


@result
class KeyIssues:
    """Answer-key checks of one benchmark (:func:`benchkit.labels.key_issues`).

    Which items' answer keys the models' choices contradict: per item a score (higher = more
    suspect), the likely alternative and a flag with its reason; per model its reliability weight
    and how often it picks suspect keys.

    Parameters
    ----------
    items, models, thresholds, options, votes_from, min_models, ambiguity, fit, joint
        The fields described under Attributes (built by :func:`benchkit.labels.key_issues`).

    Attributes
    ----------
    items : DataFrame
        One row per item, indexed by item, in item order. ``key`` and ``alternative`` (option
        letters; the alternative is the confident class of a ``wrong_key`` item, else the
        non-key option with the largest posterior); ``score`` (higher = more suspect: the
        posterior log-odds that the key is wrong, NaN for items not checked); ``p_key`` and
        ``p_alternative`` (posteriors); ``n_models`` (models with a valid answer); ``key_share``,
        ``share`` (plain share of those models choosing the key, the alternative),
        ``weighted_key_share``, ``weighted_share`` (ability-weighted); ``disagree_share`` (plain
        share not choosing the key, the baseline score); ``confident`` (the confident-learning
        class, "" when none); ``flag``; ``issue`` (one of :data:`ISSUE_KINDS` or ""); ``reason``
        (a sentence, also for items not checked).
    models : DataFrame
        One row per model: ``n_answered`` (items with a valid answer), ``agreement`` (share of them
        matching the key), ``ability`` (Dawid-Skene accuracy against the inferred answers),
        ``weight``; on the ``wrong_key`` items it answered: ``n_suspect``, ``picks_key``,
        ``picks_alternative``, ``peers_pick_key`` (the other models' key share on the same items)
        and ``excess_key = picks_key - peers_pick_key``. A model that picks suspect keys much more
        often than its peers may have seen the answer key (contamination hint). Caveat: a model
        also picks a suspect key when the key is a plausible distractor it shares a misconception
        about, or when the "suspect" key is right after all; ``n_suspect`` is usually small, so
        read the excess with its count, not as a test.
    thresholds : Series
        Confident-learning threshold per option (mean weighted share of the key over the items
        keyed with it; the mean over all checked items for an option no item is keyed with).
    options : tuple of str
        Option labels (letters), in column order.
    votes_from : str
        ``"answers"``, ``"answer samples"`` or ``"option probabilities"``.
    min_models : int
        The setting used: items with fewer answering models were not checked.
    ambiguity : float
        The setting used: the share of the threshold that the key and an alternative must keep
        for an ``ambiguous`` flag.
    fit : DawidSkene
        The Dawid-Skene fit on the checked items.
    joint : ConfidentJoint
        The confident joint on the checked items (rows: key, columns: confident class).

    References
    ----------
    A. P. Dawid and A. M. Skene (1979), "Maximum likelihood estimation of observer error-rates
    using the EM algorithm", Applied Statistics 28(1), 20-28. C. G. Northcutt, L. Jiang and I. L. Chuang
    (2021), "Confident learning: estimating uncertainty
    in dataset labels", Journal of Artificial Intelligence Research 70, 1373-1411.

    Examples
    --------
    >>> from benchkit.simulate import load_sample
    >>> from benchkit.labels import key_issues
    >>> res = key_issues(load_sample("mcq"))          # 300 items x 8 models, option probabilities
    >>> res.votes_from, res.n_flagged
    ('option probabilities', 65)
    >>> res.flagged_frame()[["key", "alternative", "score", "issue"]].round(2).head(3)
          key alternative  score      issue
    item
    q0066   C           D  14.71  wrong_key
    q0148   D           B  14.42  wrong_key
    q0032   A           B  13.83  wrong_key
    """

    items: pd.DataFrame
    models: pd.DataFrame
    thresholds: pd.Series
    options: tuple
    votes_from: str
    min_models: int
    ambiguity: float
    fit: DawidSkene
    joint: ConfidentJoint

    @property
    def n_flagged(self) -> int:
        """Number of flagged items."""
        return int(self.items["flag"].sum())

    def to_frame(self) -> pd.DataFrame:
        """The per-item table (:attr:`items`), one row per item."""
        return self.items.copy()

    def flagged_frame(self) -> pd.DataFrame:
        """The flagged items, most suspect first."""
        f = self.items[self.items["flag"]]
        return f.sort_values("score", ascending=False, kind="stable")


def model_weights(ability, n_options: int) -> np.ndarray:
    r"""Weighted-majority weights :math:`\max(0, \log\frac{a (k-1)}{1-a})` of accuracies ``a``.

    Parameters
    ----------
    ability : array_like (models,)
        Accuracies in [0, 1] (NaN: no answer, weight 0).
    n_options : int
        k, the number of options.

    Returns
    -------
    ndarray (models,)
        0 at or below chance (1/k); accuracies are capped at 1 - 1e-6.

    Notes
    -----
    Nitzan and Paroush (1982): for independent voters of accuracies :math:`a_m` whose errors spread
    evenly over the k - 1 wrong options, the weighted vote with these weights is the most likely
    answer.

    References
    ----------
    S. Nitzan and J. Paroush (1982), "Optimal decision rules in uncertain dichotomous choice
    situations", International Economic Review 23(2), 289-297.

    Examples
    --------
    >>> from benchkit.labels.steps import model_weights
    >>> model_weights([0.25, 0.5, 0.9], 4).round(3).tolist()
    [0.0, 1.099, 3.296]
    """
    a = check_array("ability", ability, ndim=1, dtype="float", finite=False)
    k = check_int("n_options", n_options, min=2)
    a = np.clip(np.nan_to_num(a, nan=0.0), 0.0, 1.0 - 1e-6)
    with np.errstate(divide="ignore"):
        w = np.log(a * (k - 1)) - np.log1p(-a)
    return np.maximum(np.nan_to_num(w, neginf=0.0), 0.0)


def _shares(V: np.ndarray, answered: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n_ans = answered.sum(axis=1)
    wsum = answered @ w
    with np.errstate(invalid="ignore", divide="ignore"):
        share = V.sum(axis=1) / n_ans[:, None]
        wshare = np.einsum("imv,m->iv", V, w) / wsum[:, None]
    return share, wshare


def _letters(k: int) -> tuple[str, ...]:
    return tuple(chr(ord("A") + j) for j in range(k))


def score_keys(votes, key, *, valid=None, min_models: int = 5, ambiguity: float = 0.5,
               items: Sequence[Any] | None = None,
               models: Sequence[Any] | None = None, options: Sequence[str] | None = None,
               votes_from: str = "answers") -> KeyIssues:
    r"""Check the answer keys of a benchmark from the models' (soft) choices, arrays in.

    Parameters
    ----------
    votes : array_like (items, models, k)
        Each model's choice per item as one-hot, a share of samples or option probabilities; a
        zero row for no valid answer (see :func:`benchkit.labels.steps.dawid_skene`).
    key : array_like of int (items,)
        The keyed option index, -1 where an item has no key (not checked).
    valid : array_like of bool (items, k), optional
        The options each item has.
    min_models : int, default 5
        Items with fewer models giving a valid answer are not checked.
    ambiguity : float, default 0.5
        With graded votes (probabilities or sample shares), an item is ``ambiguous`` when the key
        misses its confident-learning threshold but the key and one alternative each keep at
        least this fraction of theirs (in ability-weighted share) and together reach the key's.
    items, models, options : sequence, optional
        Labels for the rows, the models and the options (default 0.., 0.., A..).
    votes_from : str
        What the votes are (recorded in the result).

    Returns
    -------
    KeyIssues

    Notes
    -----
    Items with a key, at least two valid options and ``min_models`` answering models are checked:
    the Dawid-Skene fit (key-free) runs on them, ``score`` is
    :math:`\log \sum_{j \ne key} \text{prior}_j P(V_i \mid j) - \log \text{prior}_{key} P(V_i \mid key)`,
    the confident joint uses the ability-weighted shares :math:`\hat p` and the key. Reading chosen
    where confident learning is silent: the "classifier" is the ensemble of evaluated models, so the
    out-of-sample requirement holds by construction (no model saw the key while answering).

    References
    ----------
    A. P. Dawid and A. M. Skene (1979), "Maximum likelihood estimation of observer error-rates
    using the EM algorithm", Applied Statistics 28(1), 20-28. C. G. Northcutt, L. Jiang and I. L. Chuang
    (2021), "Confident learning: estimating uncertainty
    in dataset labels", Journal of Artificial Intelligence Research 70, 1373-1411. S. Nitzan and J. Paroush
    (1982), "Optimal decision rules in uncertain dichotomous choice
    situations", International Economic Review 23(2), 289-297.

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.labels.steps import score_keys
    >>> choices = np.array([[0] * 6, [1] * 6, [2] * 5 + [0], [3] * 6, [2] * 6, [1] * 6])
    >>> res = score_keys(np.eye(4)[choices], [0, 1, 2, 3, 0, 1])
    >>> res.items.loc[4, ["alternative", "issue"]].tolist()
    ['C', 'wrong_key']
    """
    V, ok = check_votes(votes, valid)
    n, M, K = V.shape
    y = check_array("key", key, ndim=1, dtype="int", shape=(n,))
    if np.any((y < -1) | (y >= K)):
        bad = y[(y < -1) | (y >= K)][0]
        raise BenchkitValueError(f"key must hold option indices 0..{K - 1} or -1 (no key); got {bad}")
    keyed = y >= 0
    if np.any(keyed & ~ok[np.arange(n), np.maximum(y, 0)]):
        i = int(np.flatnonzero(keyed & ~ok[np.arange(n), np.maximum(y, 0)])[0])
        raise BenchkitValueError(f"item {i}: key {y[i]} is not one of its valid options")
    min_models = check_int("min_models", min_models, min=1)
    ambiguity = check_float("ambiguity", ambiguity, min=0.0, max=1.0, min_inclusive=False)
    items = pd.Index(range(n) if items is None else list(items), name="item")
    models = pd.Index(range(M) if models is None else list(models), name="model")
    options = _letters(K) if options is None else tuple(options)
    if len(items) != n or len(models) != M or len(options) != K:
        raise BenchkitValueError(
            f"items, models and options must have {n}, {M} and {K} labels; got {len(items)}, "
            f"{len(models)} and {len(options)}")

    answered = V.sum(axis=2) > 0
    n_ans = answered.sum(axis=1)
    checked = keyed & (ok.sum(axis=1) >= 2) & (n_ans >= min_models)
    if not checked.any():
        raise BenchkitValueError(
            f"no item can be checked: an item needs an answer key, >= 2 options and >= min_models="
            f"{min_models} models with a valid answer (most answering models on one item: "
            f"{int(n_ans.max()) if n else 0})")
    idx = np.flatnonzero(checked)
    fit = dawid_skene(V[idx], valid=ok[idx])
    w = model_weights(fit.ability, K)
    share, wshare = _shares(V, answered, w)

    ys = y[idx]
    rows = np.arange(idx.size)
    with np.errstate(divide="ignore"):
        joint_ll = fit.log_likelihood + np.log(fit.prior)
    others = joint_ll.copy()
    others[rows, ys] = -np.inf
    top = others.max(axis=1)
    finite = np.isfinite(top)  # False only when every other option has prior 0
    safe = np.where(finite, top, 0.0)
    lse = np.where(finite, safe + np.log(np.exp(others - safe[:, None]).sum(axis=1)), -np.inf)
    score_c = lse - joint_ll[rows, ys]
    ws_c = np.nan_to_num(wshare[idx])
    # an option no checked item is keyed with gets the pooled threshold (cleanlab would never count
    # it confident; answer letters are exchangeable positions, so the typical key's share applies)
    t = confident_thresholds(ws_c, ys, valid=ok[idx])
    t[np.isinf(t)] = float(ws_c[rows, ys].mean())
    joint = confident_joint(ws_c, ys, valid=ok[idx], thresholds=t)
    t = joint.thresholds
    other_ok = ok[idx].copy()
    other_ok[rows, ys] = False
    dsalt = np.where(finite, others.argmax(axis=1), other_ok.argmax(axis=1))
    alt_c = np.where(joint.off_diagonal, joint.confident, dsalt)
    wk = ws_c[rows, ys]
    wa = ws_c[rows, alt_c]
    # graded votes only: with one choice per model a split between two options cannot be told
    # from a hard item whose wrong answers concentrate on one distractor
    graded = bool(np.any((V > 0) & (V < 1)))
    ambiguous = (graded & ~joint.off_diagonal & (wk < t[ys] - _FUZZ)
                 & (wk >= ambiguity * t[ys] - _FUZZ) & (wa >= ambiguity * t[alt_c] - _FUZZ)
                 & (wk + wa >= t[ys] - _FUZZ))

    letter = np.asarray(options, dtype=object)
    score = np.full(n, np.nan)
    score[idx] = score_c
    alt = np.full(n, -1)
    alt[idx] = alt_c
    p_key = np.full(n, np.nan)
    p_key[idx] = fit.posterior[rows, ys]
    p_alt = np.full(n, np.nan)
    p_alt[idx] = fit.posterior[rows, alt_c]
    confident = np.full(n, "", dtype=object)
    has_conf = joint.confident >= 0
    confident[idx[has_conf]] = letter[joint.confident[has_conf]]
    issue = np.full(n, "", dtype=object)
    issue[idx[joint.off_diagonal]] = "wrong_key"
    issue[idx[ambiguous]] = "ambiguous"

    def pick(a, cols):
        out = np.full(n, np.nan)
        sel = cols >= 0
        out[sel] = a[np.flatnonzero(sel), cols[sel]]
        return out

    yk = np.where(keyed, y, -1)
    frame = pd.DataFrame({
        "key": np.where(keyed, letter[np.maximum(y, 0)], None),
        "alternative": np.where(alt >= 0, letter[np.maximum(alt, 0)], None),
        "score": score,
        "p_key": p_key,
        "p_alternative": p_alt,
        "n_models": n_ans,
        "key_share": pick(share, yk),
        "share": pick(share, alt),
        "weighted_key_share": pick(wshare, yk),
        "weighted_share": pick(wshare, alt),
        "disagree_share": 1.0 - pick(share, yk),
        "confident": confident,
        "flag": issue != "",
        "issue": issue,
    }, index=items)
    frame["reason"] = _reasons(frame, checked, keyed, ok.sum(axis=1), min_models, t, options)
    thresholds = pd.Series(t, index=pd.Index(options, name="option"), name="threshold")
    model_frame = _model_table(V, answered, y, alt, issue == "wrong_key", fit, w, models, idx)
    return KeyIssues(items=frame, models=model_frame, thresholds=thresholds, options=options,
                     votes_from=votes_from, min_models=min_models, ambiguity=ambiguity, fit=fit,
                     joint=joint)


def _reasons(frame: pd.DataFrame, checked, keyed, n_valid, min_models: int, t, options) -> list[str]:
    pos = {o: j for j, o in enumerate(options)}
    out = []
    for i, row in enumerate(frame.itertuples(index=False)):
        if not keyed[i]:
            out.append("not checked: no answer key")
        elif n_valid[i] < 2:
            out.append("not checked: fewer than 2 options")
        elif not checked[i]:
            out.append(f"not checked: {row.n_models} models answered (min_models={min_models})")
        elif row.issue == "wrong_key":
            out.append(
                f"wrong key? {row.share:.0%} of {row.n_models} models (weighted {row.weighted_share:.2f}, "
                f"threshold {t[pos[row.alternative]]:.2f}) choose {row.alternative}, "
                f"{row.key_share:.0%} the key {row.key}")
        elif row.issue == "ambiguous":
            out.append(
                f"ambiguous: models split between the key {row.key} (weighted "
                f"{row.weighted_key_share:.2f}) and {row.alternative} ({row.weighted_share:.2f})")
        else:
            out.append("")
    return out


def _model_table(V, answered, y, alt, suspect, fit, w, models, idx) -> pd.DataFrame:
    n, M, _ = V.shape
    keyed = y >= 0
    on_key = np.zeros((n, M))
    on_key[keyed] = V[np.flatnonzero(keyed), :, y[keyed]]
    n_answered = (answered & keyed[:, None]).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        agreement = on_key.sum(axis=0) / n_answered
    ability = np.full(M, np.nan)
    ability[:] = fit.ability
    s = np.flatnonzero(suspect)
    picks_key = on_key[s]                                   # (suspect items, models)
    picks_alt = V[s, :, alt[s]] if s.size else np.zeros((0, M))
    ans = answered[s]
    n_s = ans.sum(axis=0)
    tot_key = picks_key.sum(axis=1, keepdims=True)          # per item, over models
    tot_ans = ans.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        pk = picks_key.sum(axis=0) / n_s
        pa = picks_alt.sum(axis=0) / n_s
        # the other models' key share, on the items this model answered
        peers = ((tot_key - picks_key) * ans).sum(axis=0) / ((tot_ans - ans) * ans).sum(axis=0)
    return pd.DataFrame({
        "n_answered": n_answered,
        "agreement": agreement,
        "ability": ability,
        "weight": w,
        "n_suspect": n_s,
        "picks_key": pk,
        "picks_alternative": pa,
        "peers_pick_key": peers,
        "excess_key": pk - peers,
    }, index=models)
