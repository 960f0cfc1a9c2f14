"""BSDProbe's measurement utility from a ResponseSet with named model axes (Sec. 4.4, App. J).

:func:`measure_utility` builds the selection-axis profiles, the baselines' training data and the
reference-axis scores from a :class:`benchkit.ResponseSet`, then runs the array-level experiment
:func:`benchkit.boundary.steps.subset_utility` (``_utility``).
"""
from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import numpy as np

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_choice
from benchkit._validation import describe
from benchkit.boundary._profiles import profiles as _profiles
from benchkit.boundary._trajectories import answer_entropy
from benchkit.boundary._utility import SubsetUtilityResult
from benchkit.boundary._utility import subset_utility
from benchkit.response_set import check_response_set

__all__ = ["measure_utility"]


def _empirical_order(acc: np.ndarray) -> np.ndarray:
    """App. F: ascending accuracy, ties in roster order (stable sort)."""
    return np.argsort(acc, kind="stable")


def measure_utility(rs, *, reference_axis: Sequence[str],
                    selection_axes: Mapping[str, Sequence[str]] | None = None,
                    baseline_models: Sequence[str] | None = None, order: str = "empirical",
                    score: str = "auto", alpha_o: float = 0.05, calibration="auto",
                    entropy: Any = "auto", name: str | None = None,
                    **options) -> SubsetUtilityResult:
    """Measurement utility (Sec. 4.4, App. J) from a ResponseSet with named model axes.

    Parameters
    ----------
    rs : ResponseSet
        Repeated responses of the selection-axis models and the reference models' (principal)
        answers.
    reference_axis : sequence of str
        Models of the reference axis.
    selection_axes : mapping of label -> sequence of str, optional
        Selection axes for BSDProbe columns ``"BSDProbe(<label>)"``; default
        ``{"reference": reference_axis}`` (the paper's main setting: the same axis selects and
        evaluates).
    baseline_models : sequence of str, optional
        Models whose responses the baselines fit (default: the reference axis).
    order : {"empirical", "given"}
        ``"empirical"`` (App. F): each axis ordered by accuracy on its complete items, ties in the
        given order; ``"given"``: as listed (weakest first).
    score : {"auto", "principal", "mean"}
        Reference score: principal-answer correctness (``rs.binary()``) or mean correctness over
        samples (``rs.scores()``); ``"auto"``: principal when the set has sample-level rows or a
        budget of 1, else mean.
    alpha_o, calibration
        Passed to :func:`benchkit.boundary.steps.profiles`.
    entropy : "auto" or mapping of label -> array (items, n)
        Normalized answer-state entropies per selection axis (rows = ``rs`` items, columns in the
        axis's *given* order). ``"auto"`` (default): Eq. 2 from the answer states when ``rs``
        has them (M_q = states seen on that axis's models), else the binary entropy of the
        counts (:func:`benchkit.boundary.steps.profiles`' default).
    name : str, optional
        Row label; default ``rs.name``.
    **options
        :func:`subset_utility` keywords (``sizes``, ``methods``, ``n_repeats``, ``rng``,
        ``n_jobs``, ``estimator``, ...).

    Returns
    -------
    SubsetUtilityResult

    Notes
    -----
    Selection-axis profiles use each axis's correct counts with a common budget T; items
    incomplete on any selection axis are left out of the candidate pool (they keep their place in
    Q^(a) when complete on the reference axis). The baselines' confidences are mean correctness
    k/T of ``baseline_models``; their IRT data are principal answers where available.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 4.4, Eq. (9), Tables 2-3; App. J, Tables 11-14.

    Examples
    --------
    >>> from benchkit import boundary, simulate
    >>> rs = simulate.load_sample("ladder")
    >>> u = boundary.measure_utility(rs, reference_axis=list(rs.model_ids), methods=("random",),
    ...                              sizes=(30,), n_repeats=4, rng=1)
    >>> boundary.steps.utility_table(u, formatted=True)
    method              Random BSDProbe(reference)
    benchmark
    sample-ladder  1.16 ± 0.07         1.39 ± 0.16
    """
    check_response_set("rs", rs)
    check_choice("order", order, ("empirical", "given"))
    check_choice("score", score, ("auto", "principal", "mean"))
    if score == "auto":
        budgets = np.asarray(rs.budget)
        score = "principal" if (rs.has_samples or np.all(budgets == 1)) else "mean"
    full = rs.binary() if score == "principal" else rs.scores()
    model_pos = {m: j for j, m in enumerate(rs.model_ids)}

    def cols(label, models):
        models = list(models)
        if len(models) < 2:
            raise BenchkitValueError(f"{label} needs at least 2 models; got {len(models)}")
        miss = [m for m in models if m not in model_pos]
        if miss:
            raise BenchkitValueError(f"{label}: unknown model(s) {miss[:5]}")
        return np.array([model_pos[m] for m in models], dtype=np.int64)

    ref_cols = cols("reference_axis", reference_axis)
    R = full[:, ref_cols]
    if order == "empirical":
        ok = np.isfinite(R).all(1)
        perm = _empirical_order(R[ok].mean(0))
        ref_cols, R = ref_cols[perm], R[:, perm]
    base_cols = ref_cols if baseline_models is None else cols("baseline_models", baseline_models)
    train = rs.scores()[:, base_cols]
    train_binary = None
    if score == "principal" or np.all(np.asarray(rs.budget)[base_cols] == 1):
        train_binary = rs.binary()[:, base_cols]
    sel = {"reference": list(reference_axis)} if selection_axes is None else dict(selection_axes)
    cm = rs.counts()
    pool = np.ones(rs.n_items, bool)
    prof = {}
    raw = {}
    for lab, models in sel.items():
        c = cols(f"selection_axes[{lab!r}]", models)
        K, N = cm.K[:, c], cm.N[:, c]
        budgets = np.asarray(rs.budget)[c]
        if np.unique(budgets).size != 1:
            raise BenchkitValueError(
                f"selection axis {lab!r} mixes sample budgets {sorted(set(budgets.tolist()))}; "
                "BSDProbe profiles need a common T"
            )
        T = int(budgets[0])
        comp = (N == T).all(1)
        perm = np.arange(c.size)
        if order == "empirical":
            perm = _empirical_order((full[:, c][comp]).mean(0))
        raw[lab] = (K[:, perm], comp, T, perm)
        pool &= comp
    if isinstance(entropy, str):
        check_choice("entropy", entropy, ("auto",))
    elif not isinstance(entropy, Mapping):
        raise BenchkitTypeError(f"entropy must be 'auto' or a mapping label -> array; got "
                                f"{describe(entropy)}")
    ac = rs.answer_counts() if (isinstance(entropy, str) and rs.has_answers) else None
    for lab, (K, comp, T, perm) in raw.items():
        e = None
        if ac is not None:
            c = cols(lab, sel[lab])[perm]
            e = answer_entropy(ac.counts[:, c, :])[0]
        elif isinstance(entropy, Mapping) and lab in entropy:
            e_all = check_array(f"entropy[{lab!r}]", entropy[lab], ndim=2, dtype="float",
                                finite=False)[:, perm]
            e = np.nan_to_num(e_all)
        Kp = np.where(pool[:, None], K, 0)
        prof[lab] = _profiles(Kp, T, entropy=e, alpha_o=alpha_o, calibration=calibration,
                              items=np.asarray(rs.item_ids),
                              models=[str(m) for m in np.asarray(sel[lab])[perm]])
    # rows outside the pool got dummy all-zero counts; the pool argument keeps them out
    return subset_utility(R, profiles=prof, train=train, train_binary=train_binary,
                          full_scores=R[np.isfinite(R).all(1)].mean(0), pool=pool,
                          items=rs.item_ids, models=rs.model_ids[ref_cols],
                          name=rs.name if name is None else name, **options)
