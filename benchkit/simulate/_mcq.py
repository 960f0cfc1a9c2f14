"""Option probabilities of multiple-choice items (probability landscapes)."""
from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from benchkit._random import seed_sequence
from benchkit._random import spawn
from benchkit._validation import BenchkitTypeError
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.simulate._common import FLAW_KINDS
from benchkit.simulate._common import Simulation
from benchkit.simulate._common import SimulationTruth
from benchkit.simulate._common import _assign_flaws
from benchkit.simulate._common import _check_flawed
from benchkit.simulate._common import _finish
from benchkit.simulate._common import _flaw_table
from benchkit.simulate._common import _freeze
from benchkit.simulate._common import _item_ids
from benchkit.simulate._common import _model_generators
from benchkit.simulate._common import _refuse_oversized
from benchkit.simulate._common import _state_labels
from benchkit.simulate._common import _with_means

# --------------------------------------------------------------------------------------------------
# 3. option probabilities of multiple-choice items (probability landscapes)
# --------------------------------------------------------------------------------------------------


def mcq_probabilities(
    *,
    n_items: int = 300,
    n_models: int = 8,
    n_options: int = 4,
    flawed: Mapping[str, int | float] | None = None,
    ability_sd: float = 1.0,
    difficulty_loc: float = -0.5,
    difficulty_sd: float = 1.0,
    discrimination: float = 1.5,
    discrimination_sd: float = 0.3,
    distractor_concentration: float = 1.0,
    logit_noise: float = 0.5,
    sharpness: float = 2.0,
    sharpness_slope: float = 0.3,
    ambiguity_sd: float = 0.1,
    model_prefix: str = "sim-mcq",
    rng: Any = None,
) -> Simulation:
    r"""Option probabilities of k-option multiple-choice items for several models.

    The data of the probability-landscape paper (003): per item and model, the probability of
    each option, with planted miskeyed and ambiguous items to check its diagnostics against.

    Parameters
    ----------
    n_items : int
        Number of items.
    n_models : int
        Number of models.
    n_options : int
        Options per item, k (2-26), lettered ``A``, ``B``, ...
    flawed : mapping, optional
        ``"miskeyed"`` and/or ``"ambiguous"`` -> count (int) or fraction (float). Default
        ``{"miskeyed": 0.03, "ambiguous": 0.03}``; ``{}`` for none.
    ability_sd : float
        Model abilities :math:`\theta_m \sim N(0, \cdot)`, sorted so that models are numbered
        from weakest to strongest.
    difficulty_loc, difficulty_sd, discrimination, discrimination_sd : float
        Item difficulty :math:`\beta_q \sim N(\cdot, \cdot)` and log-normal discrimination
        :math:`a_q` (median, log-sd).
    distractor_concentration : float
        Distractor attractiveness :math:`\rho_q \sim \mathrm{Dirichlet}(\cdot \mathbf 1_{k-1})`.
    logit_noise : float
        Sd of the model-item noise on every option logit.
    sharpness, sharpness_slope : float
        Model m's inverse temperature :math:`\tau_m = \tau_0 e^{s \theta_m}` (stronger models
        are more confident).
    ambiguity_sd : float
        Sd of the item-level logit gap between the two near-equal options of ambiguous items.
    model_prefix : str
        Models are named ``"<prefix>-1"`` (weakest) ... ``"<prefix>-<n_models>"``.
    rng : None, int, SeedSequence or Generator
        The randomness (:mod:`benchkit._random`): the same int always gives the same data; the
        result records the root's entropy in ``rng_entropy``.

    Returns
    -------
    Simulation
        ``responses`` in long form (``model, item, correct, answer, option_probs``; ``answer`` is
        the top option's letter and ``correct = (answer == answer_key)``); ``truth.items`` has
        ``answer_key, true_answer, difficulty, discrimination, partner, gap (the logit gap
        :math:`\delta_q` of ambiguous items), flaw, flaw_detail, p_mean``; ``truth.models`` has
        ``ability, sharpness, p_mean``; ``truth.arrays["option_probs"]`` is (n_items, n_models, k)
        in letter order and ``truth.p_correct`` the probability on the
        keyed option.

    Notes
    -----
    For model m and item q, in canonical option order (true answer first):

    .. math:: z_{mq0} = a_q(\theta_m - \beta_q) + \epsilon_{mq0}, \qquad
              z_{mqj} = \log \rho_{qj} + \epsilon_{mqj} \ (j = 1..k-1),

    :math:`\epsilon \sim N(0, \sigma^2)` (``logit_noise``) and
    :math:`P_{mq} = \mathrm{softmax}(\tau_m z_{mq})`, a logistic-normal around the item's
    difficulty and the model's ability. The options are then shuffled by an item-specific
    permutation (``true_answer`` is the letter of option 0). With the defaults (``rng=3``) model
    accuracies range from 0.64 to 0.96 (mean 0.80), the mean top probability :math:`P_{top1}` is
    0.87 and the mean normalized residual entropy :math:`H_{norm}` 0.44, close to the
    small models of the probability-landscape paper (Table 1: mean H_norm 0.49-0.57; Table 13:
    accuracy 0.79-0.87 with P_top1 0.95-0.99).

    Planted flaws (disjoint random items):

    * ``miskeyed``: ``answer_key`` is the most attractive distractor (largest :math:`\rho_{qj}`), not
      the true answer; strong models are scored wrong, weak models often right.
    * ``ambiguous``: the most attractive distractor ``partner`` gets the true answer's logit plus
      an item-level gap :math:`\delta_q \sim N(0, \cdot)` (``ambiguity_sd``): two near-equal
      options; ``answer_key`` stays the true answer.

    ``truth.p_correct`` is :math:`P_{mq}` at the key (the probability of a correct response when
    answers are sampled); the ``correct`` column scores the top option (argmax), as in the paper.

    References
    ----------
    Song and Park, "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372,
    Sec. 3.1 (the option-probability representation), Table 1 and Table 13 (the scales matched).

    Examples
    --------
    >>> from benchkit.simulate import mcq_probabilities
    >>> sim = mcq_probabilities(n_items=30, n_models=3, rng=0)
    >>> sim.responses.option_probs().shape  # items x models x options
    (30, 3, 4)
    >>> sim.truth.flaws[["item", "flaw"]]
        item       flaw
    0  q0018   miskeyed
    1  q0019  ambiguous
    """
    n_items = check_int("n_items", n_items, min=1)
    n_models = check_int("n_models", n_models, min=1)
    n_options = check_int("n_options", n_options, min=2, max=26)
    # rows of the long table (a list of n_options probabilities each) and the dense views
    _refuse_oversized("mcq_probabilities", f"{n_items:,} items x {n_models:,} models",
                      float(n_items) * n_models, 360 + 40 * n_options)
    if flawed is None:
        flawed = {"miskeyed": 0.03, "ambiguous": 0.03}
    counts = _check_flawed(flawed, FLAW_KINDS["mcq_probabilities"], n_items)
    ability_sd = check_float("ability_sd", ability_sd, min=0.0)
    difficulty_loc = check_float("difficulty_loc", difficulty_loc)
    difficulty_sd = check_float("difficulty_sd", difficulty_sd, min=0.0)
    discrimination = check_float("discrimination", discrimination, min=0.0, min_inclusive=False)
    discrimination_sd = check_float("discrimination_sd", discrimination_sd, min=0.0)
    distractor_concentration = check_float(
        "distractor_concentration", distractor_concentration, min=0.0, min_inclusive=False)
    logit_noise = check_float("logit_noise", logit_noise, min=0.0)
    sharpness = check_float("sharpness", sharpness, min=0.0, min_inclusive=False)
    sharpness_slope = check_float("sharpness_slope", sharpness_slope)
    ambiguity_sd = check_float("ambiguity_sd", ambiguity_sd, min=0.0)
    if not isinstance(model_prefix, str) or not model_prefix:
        raise BenchkitTypeError(f"model_prefix must be a non-empty string, got {describe(model_prefix)}")
    params = _freeze(dict(
        n_items=n_items, n_models=n_models, n_options=n_options, flawed=dict(flawed),
        ability_sd=ability_sd,
        difficulty_loc=difficulty_loc, difficulty_sd=difficulty_sd, discrimination=discrimination,
        discrimination_sd=discrimination_sd, distractor_concentration=distractor_concentration,
        logit_noise=logit_noise, sharpness=sharpness, sharpness_slope=sharpness_slope,
        ambiguity_sd=ambiguity_sd, model_prefix=model_prefix,
        rng=rng if isinstance(rng, (int, type(None))) else repr(rng),
    ))
    root = seed_sequence(rng)
    ss_models, ss_items, ss_flaws, ss_resp = spawn(root, 4)

    rm = np.random.default_rng(ss_models)
    ability = np.sort(rm.normal(0.0, ability_sd, size=n_models))
    tau = sharpness * np.exp(sharpness_slope * ability)

    ri = np.random.default_rng(ss_items)
    beta = ri.normal(difficulty_loc, difficulty_sd, size=n_items)
    a = discrimination * np.exp(ri.normal(0.0, discrimination_sd, size=n_items))
    rho = ri.dirichlet(np.full(n_options - 1, distractor_concentration), size=n_items)
    # perm[q, c] = letter of canonical option c
    perm = np.argsort(ri.random((n_items, n_options)), axis=1)
    log_rho = np.log(np.maximum(rho, 1e-300))

    rf = np.random.default_rng(ss_flaws)
    flaw = _assign_flaws(rf, counts, n_items)
    delta = rf.normal(0.0, ambiguity_sd, size=n_items)
    top_distractor = 1 + np.argmax(rho, axis=1)  # canonical index of the most attractive distractor
    letters = _state_labels(n_options)
    rows = np.arange(n_items)
    true_letter = perm[:, 0]
    key_letter = true_letter.copy()
    miskeyed = flaw == "miskeyed"
    ambiguous = flaw == "ambiguous"
    key_letter[miskeyed] = perm[rows, top_distractor][miskeyed]
    partner = np.full(n_items, "", dtype=object)
    partner[ambiguous] = [letters[j] for j in perm[rows, top_distractor][ambiguous]]
    detail = np.full(n_items, "", dtype=object)
    detail[miskeyed] = [f"key {letters[kl]} marks a distractor; true answer {letters[tl]}"
                        for kl, tl in zip(key_letter[miskeyed], true_letter[miskeyed])]
    detail[ambiguous] = [f"options {letters[tl]} and {p} near-equal (logit gap {d:+.3f})"
                         for tl, p, d in zip(true_letter[ambiguous], partner[ambiguous], delta[ambiguous])]

    P = np.empty((n_items, n_models, n_options))
    amb_rows = np.flatnonzero(ambiguous)
    for m, g in enumerate(_model_generators(spawn(ss_resp, n_models), 0, n_models)):
        eps = g.normal(0.0, logit_noise, size=(n_items, n_options))
        z = np.empty((n_items, n_options))
        z[:, 0] = a * (ability[m] - beta) + eps[:, 0]
        z[:, 1:] = log_rho + eps[:, 1:]
        z[amb_rows, top_distractor[amb_rows]] = z[amb_rows, 0] + delta[amb_rows]
        z *= tau[m]
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        pc = e / e.sum(axis=1, keepdims=True)
        P[rows[:, None], m, perm] = pc  # canonical -> letter order

    top = P.argmax(axis=2)  # (n_items, n_models)
    correct = (top == key_letter[:, None]).astype(np.int8)
    item_ids = _item_ids(n_items)
    model_ids = [f"{model_prefix}-{m + 1}" for m in range(n_models)]
    letter_arr = np.asarray(letters, dtype=object)
    PT = P.transpose(1, 0, 2)  # model-major rows
    responses = pd.DataFrame({
        "model": pd.array(np.repeat(np.asarray(model_ids, dtype=object), n_items), dtype="string"),
        "item": pd.array(np.tile(np.asarray(item_ids, dtype=object), n_models), dtype="string"),
        "correct": correct.T.ravel(),
        "answer": pd.array(letter_arr[top.T.ravel()], dtype="string"),
        "option_probs": list(PT.reshape(-1, n_options)),
    })
    p_key = P[rows, :, key_letter]
    models = pd.DataFrame(
        {"order": np.arange(n_models), "ability": ability, "sharpness": tau},
        index=pd.Index(model_ids, name="model", dtype="string"),
    )
    items = pd.DataFrame(
        {
            "benchmark": pd.array(["sim"] * n_items, dtype="string"),
            "answer_key": pd.array([letters[j] for j in key_letter], dtype="string"),
            "true_answer": pd.array([letters[j] for j in true_letter], dtype="string"),
            "difficulty": beta,
            "discrimination": a,
            "partner": pd.array(partner.tolist(), dtype="string"),
            "gap": np.where(ambiguous, delta, np.nan),
            "flaw": pd.array(flaw.tolist(), dtype="string"),
            "flaw_detail": pd.array(detail.tolist(), dtype="string"),
        },
        index=pd.Index(item_ids, name="item", dtype="string"),
    )
    items, models = _with_means(items, models, p_key)
    truth = SimulationTruth(
        items=items, models=models,
        flaws=_flaw_table(items, ("answer_key", "true_answer", "partner", "gap")),
        p_correct=p_key, arrays=MappingProxyType({"option_probs": P}),
    )
    return _finish("mcq_probabilities", truth, params, responses, models, items, T=1,
                   rng_entropy=root.entropy)
