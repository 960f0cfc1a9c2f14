"""Repeated sampling with answer states along an ordered size ladder (BSDProbe)."""
from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from benchkit._random import seed_sequence
from benchkit._random import spawn
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_choice
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.simulate._common import _LN3
from benchkit.simulate._common import FLAW_KINDS
from benchkit.simulate._common import Simulation
from benchkit.simulate._common import SimulationTruth
from benchkit.simulate._common import _assign_flaws
from benchkit.simulate._common import _check_flawed
from benchkit.simulate._common import _check_sizes
from benchkit.simulate._common import _expit
from benchkit.simulate._common import _finish
from benchkit.simulate._common import _flaw_table
from benchkit.simulate._common import _fmt_size
from benchkit.simulate._common import _freeze
from benchkit.simulate._common import _item_ids
from benchkit.simulate._common import _model_generators
from benchkit.simulate._common import _refuse_oversized
from benchkit.simulate._common import _state_labels
from benchkit.simulate._common import _with_means

# --------------------------------------------------------------------------------------------------
# 2. repeated sampling along an ordered size ladder (BSDProbe)
# --------------------------------------------------------------------------------------------------

_DEFAULT_LADDER = (0.6, 1.7, 4.0, 8.0, 14.0, 32.0)  # the Qwen3 axis of the BSDProbe paper


def _no_answer() -> str:
    try:
        from benchkit.response_set import NO_ANSWER
    except ImportError:  # pragma: no cover - the contract's value, before response_set lands
        return "<no answer>"
    return NO_ANSWER


def _check_range(name: str, value: Any, *, lo: float, hi: float) -> tuple[float, float]:
    arr = check_array(name, value, ndim=1, dtype="float", shape=(2,))
    a = check_float(f"{name}[0]", arr[0], min=lo, max=hi)
    b = check_float(f"{name}[1]", arr[1], min=lo, max=hi)
    if a > b:
        raise BenchkitValueError(f"{name}={tuple(arr.tolist())} must be (low, high) with low <= high")
    return a, b


def repeated_sampling(
    *,
    n_items: int = 300,
    ladder: int | Sequence[float] = _DEFAULT_LADDER,
    T: int = 10,
    n_states: int = 4,
    flawed: Mapping[str, int | float] | None = None,
    family: str = "sim",
    owner: str = "benchkit",
    axis: str = "index",
    boundary_loc: float = 0.5,
    boundary_sd: float = 0.35,
    width: float = 0.25,
    width_sd: float = 0.5,
    floor: tuple[float, float] = (0.0, 0.1),
    ceiling: tuple[float, float] = (0.85, 1.0),
    flat_beta: tuple[float, float] = (0.5, 0.5),
    anomaly_width: float = 0.6,
    item_concentration: float = 1.0,
    model_concentration: float = 5.0,
    no_answer: float = 0.05,
    rng: Any = None,
) -> Simulation:
    r"""T repeated responses with answer states along an ordered model axis (a size ladder).

    The data of BSDProbe (paper 000): every model of an ordered ladder answers each item T times,
    each answer reduced to a state, with planted non-monotone and flat items to check the
    profiles against.

    Parameters
    ----------
    n_items : int
        Number of items.
    ladder : int or sequence of float
        Strictly increasing model sizes in billions (default: the BSDProbe paper's Qwen3 axis
        0.6B-32B), named ``"<family>-<size>b"``; or the number of models (named
        ``"<family>-m1"``, ...; sizes unknown). At least 2 models.
    T : int
        Responses per model-item pair (the paper uses 20; 10 keeps samples small).
    n_states : int
        Distinct regular answer states per item (2-26: ``"A"``, ``"B"``, ...), one of which is correct;
        ``no_answer > 0`` adds :data:`benchkit.NO_ANSWER` as a further wrong state.
    flawed : mapping, optional
        ``"non_monotone"`` and/or ``"flat"`` -> count (int) or fraction (float). Default
        ``{"non_monotone": 0.05, "flat": 0.10}``; ``{}`` for none.
    family, owner : str
        Roster metadata and model-name prefix.
    axis : {"index", "log_size"}
        Model positions: ``s_i = (i-1)/(n-1)`` as in BSDProbe, or normalized log size.
    boundary_loc, boundary_sd : float
        Boundary positions :math:`x_q \sim N(\cdot, \cdot)` on the normalized axis (values
        outside [0, 1] give items already solved / not yet solved along the ladder).
    width, width_sd : float
        Widths :math:`w_q` are log-normal with this median and log-sd, clipped to [0.02, 3].
    floor, ceiling : (float, float)
        Ranges of the uniform lower / upper asymptotes of the trajectories.
    flat_beta : (float, float)
        Beta parameters of the constant correctness of flat items (U-shaped by default: mostly
        never or always solved).
    anomaly_width : float
        Width (in ladder steps) of the peak or dip of non-monotone items.
    item_concentration, model_concentration : float
        Dirichlet concentrations of the wrong-answer distributions (see Notes): small values
        give one dominant distractor (low entropy), large values spread wrong answers.
    no_answer : float
        Share of the wrong mass that goes to :data:`benchkit.NO_ANSWER` (extraction failures).
    rng : None, int, SeedSequence or Generator
        The randomness (:mod:`benchkit._random`): the same int always gives the same data; the
        result records the root's entropy in ``rng_entropy``.

    Returns
    -------
    Simulation
        ``responses`` has columns ``model, item, sample, correct, answer`` (T samples per cell,
        the principal answer is sample 0); ``truth.items`` has ``x, w, floor, ceiling, answer_key,
        flaw, flaw_detail, shape, anomaly_at, p_mean``; ``truth.models`` has ``family, owner, size,
        order, size_b, position, p_mean``; ``truth.p_correct`` the probabilities
        :math:`\theta_{i,q}` (n_items, n_models) and ``truth.arrays["state_probs"]``
        (n_items, n_models, S) the answer-state probabilities in the order of
        ``truth.arrays["state_labels"]`` (the key is item-specific).

    Notes
    -----
    Correctness trajectories. Model i sits at normalized position :math:`s_i` (``axis``). A
    regular item q has the logistic trajectory

    .. math:: \theta_{i,q} = l_q + (h_q - l_q)\,\sigma\!\Big(\frac{2\ln 3\,(s_i - x_q)}{w_q}\Big),

    so :math:`x_q` is where half of the gain is attained and the central 50% of the gain lies in
    :math:`[x_q - w_q/2, x_q + w_q/2]` — the continuous counterparts of BSDProbe's boundary
    position and width (Eq. 4, :math:`x = Q_{0.50}`, :math:`w = Q_{0.75} - Q_{0.25}`), which the
    empirical profile recovers up to the discreteness of a short ladder. ``truth.items`` records
    :math:`x_q` and :math:`w_q`. Trajectories are non-decreasing (the null of BSDProbe's
    order-consistency test, the set M_n before Eq. 7).

    Planted flaws (disjoint random items):

    * ``flat``: :math:`\theta_{i,q} = c_q \sim \mathrm{Beta}(\cdot)` for all i (zero gain:
      :math:`\Delta_q = 0` in the population; ``x`` and ``w`` are NaN);
    * ``non_monotone``: at a random interior position j (needs at least 3 models), a ``"peak"``
      :math:`\theta_{i,q} = l_q + (h_q - l_q) e^{-d_{ij}^2/2}` or a ``"dip"``
      :math:`\theta_{i,q} = h_q - (h_q - l_q) e^{-d_{ij}^2/2}`, with
      :math:`d_{ij} = (i - j)/` ``anomaly_width`` (``shape`` and ``anomaly_at`` in the truth).

    Answer states. Item q has ``n_states`` regular states, one of which (``answer_key``, uniform)
    is correct; the wrong states share the mass :math:`1 - \theta_{i,q}`: the share ``no_answer``
    goes to NO_ANSWER and the rest is split by :math:`\pi_{i,q} \sim \mathrm{Dirichlet}(\kappa_m
    \rho_q)` with item-level distractor attractiveness :math:`\rho_q \sim \mathrm{Dirichlet}(
    \kappa_q \mathbf 1)` (``model_concentration`` :math:`\kappa_m`, ``item_concentration``
    :math:`\kappa_q`): models share an item's attractive distractors, with model-specific
    variation. Each of the T responses is an independent draw from the state distribution
    (BSDProbe's i.i.d. sampling model); ``correct = (answer == answer_key)``.

    Entropy. With the defaults (4 states plus NO_ANSWER, T = 10, the 6-model ladder, 300 items)
    the empirical normalized entropy (BSDProbe Eq. 2, :math:`M_q` = states observed for the
    item) averages 0.35-0.55 over all cells (0.45-0.46 for ``rng`` 2 and 3); about 0.1-0.15 where
    :math:`\theta \ge 0.9` (concentrated high side), about 0.5 where :math:`\theta < 0.1`
    (wrong answers spread over 3-4 states) and about 0.6 in between. Checked in the tests.

    References
    ----------
    H. Hu et al., "Are Benchmarks Reliable? Toward Structural Diagnosis via Item-Level Capability
    Boundaries" (BSDProbe), arXiv:2609.33196, Sec. 3.1, Eq. (1)-(3) (answer states and the
    correctness trajectory) and Sec. 3.2, Eq. (4) (boundary position and width).

    Examples
    --------
    Three models of a ladder answer 20 items five times each:

    >>> from benchkit.simulate import repeated_sampling
    >>> sim = repeated_sampling(n_items=20, ladder=(0.6, 4.0, 32.0), T=5, rng=0)
    >>> sim.responses
    ResponseSet 'simulated-repeated_sampling': 20 items x 3 models, 300 responses, T=5, ...
    >>> sim.responses.counts().K.shape, sim.truth.flaws["flaw"].tolist()
    ((20, 3), ['flat', 'flat', 'non_monotone'])
    """
    n_items = check_int("n_items", n_items, min=1)
    if isinstance(ladder, (int, np.integer)) and not isinstance(ladder, bool):
        n_models = check_int("ladder", ladder, min=2)
        size_b = np.full(n_models, np.nan)
    else:
        size_b = _check_sizes("ladder", ladder, increasing=True)
        n_models = size_b.size
        if n_models < 2:
            raise BenchkitValueError(f"ladder must hold at least 2 sizes; got {n_models}")
    T = check_int("T", T, min=1)
    n_states = check_int("n_states", n_states, min=2, max=26)
    _refuse_oversized("repeated_sampling", f"{n_items:,} items x {n_models:,} models x T={T:,}",
                      float(n_items) * n_models * T, 280)
    if flawed is None:
        flawed = {"non_monotone": 0.05, "flat": 0.10}
    counts = _check_flawed(flawed, FLAW_KINDS["repeated_sampling"], n_items)
    if counts["non_monotone"] and n_models < 3:
        raise BenchkitValueError(
            f"non_monotone items need a peak or dip at an interior ladder position: at least 3 "
            f"models, got ladder of {n_models}"
        )
    if not isinstance(family, str) or not family:
        raise BenchkitTypeError(f"family must be a non-empty string, got {describe(family)}")
    if not isinstance(owner, str) or not owner:
        raise BenchkitTypeError(f"owner must be a non-empty string, got {describe(owner)}")
    axis = check_choice("axis", axis, ("index", "log_size"))
    if axis == "log_size" and np.isnan(size_b).any():
        raise BenchkitValueError("axis='log_size' needs model sizes: pass ladder as a sequence of sizes")
    boundary_loc = check_float("boundary_loc", boundary_loc)
    boundary_sd = check_float("boundary_sd", boundary_sd, min=0.0)
    width = check_float("width", width, min=0.0, min_inclusive=False)
    width_sd = check_float("width_sd", width_sd, min=0.0)
    floor = _check_range("floor", floor, lo=0.0, hi=1.0)
    ceiling = _check_range("ceiling", ceiling, lo=0.0, hi=1.0)
    if floor[1] > ceiling[0]:
        raise BenchkitValueError(
            f"floor={floor} and ceiling={ceiling} overlap; the highest floor must not exceed the "
            "lowest ceiling"
        )
    flat_beta = _check_range("flat_beta", flat_beta, lo=1e-6, hi=1e6)
    anomaly_width = check_float("anomaly_width", anomaly_width, min=0.0, min_inclusive=False)
    item_concentration = check_float("item_concentration", item_concentration, min=0.0, min_inclusive=False)
    model_concentration = check_float("model_concentration", model_concentration, min=0.0,
                                      min_inclusive=False)
    no_answer = check_float("no_answer", no_answer, min=0.0, max=1.0, max_inclusive=False)
    params = _freeze(dict(
        n_items=n_items, ladder=n_models if np.isnan(size_b).any() else tuple(size_b.tolist()), T=T,
        n_states=n_states, flawed=dict(flawed), family=family, owner=owner, axis=axis,
        boundary_loc=boundary_loc, boundary_sd=boundary_sd, width=width, width_sd=width_sd,
        floor=floor, ceiling=ceiling, flat_beta=flat_beta, anomaly_width=anomaly_width,
        item_concentration=item_concentration, model_concentration=model_concentration,
        no_answer=no_answer, rng=rng if isinstance(rng, (int, type(None))) else repr(rng),
    ))

    root = seed_sequence(rng)
    ss_items, ss_flaws, ss_resp = spawn(root, 3)
    n = n_models
    if axis == "index":
        pos = np.arange(n) / (n - 1)
    else:
        ls = np.log(size_b)
        pos = (ls - ls[0]) / (ls[-1] - ls[0])

    # ---- items
    ri = np.random.default_rng(ss_items)
    x = ri.normal(boundary_loc, boundary_sd, size=n_items)
    w = np.clip(width * np.exp(ri.normal(0.0, width_sd, size=n_items)), 0.02, 3.0)
    lo = ri.uniform(*floor, size=n_items)
    hi = ri.uniform(*ceiling, size=n_items)
    key = ri.integers(0, n_states, size=n_items)
    rho = ri.dirichlet(np.full(n_states - 1, item_concentration), size=n_items) if n_states > 2 \
        else np.ones((n_items, 1))
    theta = lo[:, None] + (hi - lo)[:, None] * _expit(2 * _LN3 * (pos[None, :] - x[:, None]) / w[:, None])

    # ---- flaws
    rf = np.random.default_rng(ss_flaws)
    flaw = _assign_flaws(rf, counts, n_items)
    c_flat = rf.beta(*flat_beta, size=n_items)
    j_anom = rf.integers(1, max(n - 1, 2), size=n_items)
    is_peak = rf.random(n_items) < 0.5
    shape = np.full(n_items, "", dtype=object)
    anomaly_at = np.full(n_items, -1, dtype=np.int64)
    model_ids = (
        [f"{family}-m{i + 1}" for i in range(n)] if np.isnan(size_b).any()
        else [f"{family}-{_fmt_size(s)}" for s in size_b]
    )
    if len(set(model_ids)) != n:
        raise BenchkitValueError(f"ladder sizes give duplicate model names: {model_ids}")
    detail = np.full(n_items, "", dtype=object)
    flat = flaw == "flat"
    theta[flat] = c_flat[flat, None]
    x[flat] = np.nan
    w[flat] = np.nan
    detail[flat] = [f"constant correctness {c:.3f}" for c in c_flat[flat]]
    for q in np.flatnonzero(flaw == "non_monotone"):
        bump = np.exp(-0.5 * ((np.arange(n) - j_anom[q]) / anomaly_width) ** 2)
        theta[q] = lo[q] + (hi[q] - lo[q]) * bump if is_peak[q] else hi[q] - (hi[q] - lo[q]) * bump
        shape[q] = "peak" if is_peak[q] else "dip"
        anomaly_at[q] = j_anom[q]
        x[q] = np.nan
        w[q] = np.nan
        detail[q] = f"{shape[q]} at ladder position {j_anom[q] + 1} ({model_ids[j_anom[q]]})"

    # ---- answer states and responses, one generator per model
    labels = _state_labels(n_states)
    na = _no_answer()
    has_na = no_answer > 0
    S = n_states + (1 if has_na else 0)
    state_labels = labels + ([na] if has_na else [])
    wrong_cols = np.array([[j for j in range(n_states) if j != key[q]] for q in range(n_items)])
    state_probs = np.zeros((n_items, n, S))
    answers = np.empty((n, n_items, T), dtype=np.int64)
    rows = np.arange(n_items)
    for i, g in enumerate(_model_generators(spawn(ss_resp, n), 0, n)):
        if n_states > 2:
            pi = np.empty_like(rho)
            for q in range(n_items):  # small alphas: numpy's dirichlet handles them exactly
                pi[q] = g.dirichlet(model_concentration * rho[q])
        else:
            pi = np.ones((n_items, 1))
        wrong = (1.0 - theta[:, i])
        sp = state_probs[:, i, :]
        sp[rows, key] = theta[:, i]
        sp[rows[:, None], wrong_cols] = (wrong * (1.0 - no_answer))[:, None] * pi
        if has_na:
            sp[:, -1] = wrong * no_answer
        cum = np.cumsum(sp, axis=1)
        cum[:, -1] = np.inf
        u = g.random((n_items, T))
        answers[i] = (u[:, :, None] >= cum[:, None, :]).sum(axis=2)

    item_ids = _item_ids(n_items)
    label_arr = np.asarray(state_labels, dtype=object)
    correct = (answers == key[None, :, None]).astype(np.int8)
    responses = pd.DataFrame({
        "model": pd.array(np.repeat(np.asarray(model_ids, dtype=object), n_items * T), dtype="string"),
        "item": pd.array(np.tile(np.repeat(np.asarray(item_ids, dtype=object), T), n), dtype="string"),
        "sample": np.tile(np.arange(T), n * n_items),
        "correct": correct.ravel(),
        "answer": pd.array(label_arr[answers.ravel()], dtype="string"),
    })
    models = pd.DataFrame(
        {
            "family": pd.array([family] * n, dtype="string"),
            "owner": pd.array([owner] * n, dtype="string"),
            "size": size_b * 1e9,
            "order": np.arange(n),
            "size_b": size_b,
            "position": pos,
        },
        index=pd.Index(model_ids, name="model", dtype="string"),
    )
    items = pd.DataFrame(
        {
            "benchmark": pd.array(["sim"] * n_items, dtype="string"),
            "answer_key": pd.array([labels[k] for k in key], dtype="string"),
            "x": x,
            "w": w,
            "floor": np.where(flat, np.nan, lo),
            "ceiling": np.where(flat, np.nan, hi),
            "flaw": pd.array(flaw.tolist(), dtype="string"),
            "flaw_detail": pd.array(detail.tolist(), dtype="string"),
            "shape": pd.array(shape.tolist(), dtype="string"),
            "anomaly_at": anomaly_at,
        },
        index=pd.Index(item_ids, name="item", dtype="string"),
    )
    items, models = _with_means(items, models, theta)
    truth = SimulationTruth(
        items=items, models=models, flaws=_flaw_table(items, ("shape", "anomaly_at")),
        p_correct=theta,
        arrays=MappingProxyType({"state_probs": state_probs,
                                 "state_labels": np.asarray(state_labels, dtype=object)}),
    )
    return _finish("repeated_sampling", truth, params, responses, models, items, T=T,
                   rng_entropy=root.entropy)
