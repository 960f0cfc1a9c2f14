"""One response set with every planted flaw the cross-method audit looks for (:func:`audit_suite`)."""
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
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit._validation import check_probability
from benchkit._validation import describe
from benchkit.simulate._common import FLAW_KINDS
from benchkit.simulate._common import NO_FLAW
from benchkit.simulate._common import Simulation
from benchkit.simulate._common import SimulationTruth
from benchkit.simulate._common import _assign_flaws
from benchkit.simulate._common import _check_flawed
from benchkit.simulate._common import _check_names
from benchkit.simulate._common import _check_sizes
from benchkit.simulate._common import _flaw_table
from benchkit.simulate._common import _fmt_size
from benchkit.simulate._common import _freeze
from benchkit.simulate._common import _meta
from benchkit.simulate._common import _state_labels

_FAMILIES = ("llama", "qwen", "gemma", "mistral", "phi")
_SIZES = (1.0, 3.0, 7.0, 14.0, 32.0, 70.0)
_LADDER = (0.5, 1.5, 4.0, 8.0, 14.0, 32.0)


def audit_suite(
    *,
    n_items: int = 80,
    benchmarks: int | Sequence[str] = 3,
    near_duplicate: bool = True,
    n_models: int = 150,
    families: Sequence[str] = _FAMILIES,
    owners: int = 60,
    sizes: Sequence[float] = _SIZES,
    ladder: Sequence[float] = _LADDER,
    ladder_family: str = "qwen",
    T: int = 10,
    n_options: int = 4,
    flawed: Mapping[str, int | float] | None = None,
    n_dims: int = 2,
    family_sd: float = 0.4,
    model_sd: float = 0.5,
    size_slope: float = 0.35,
    discrimination: float = 0.6,
    easiness_loc: float = 0.75,
    easiness_sd: float = 0.6,
    distractor_concentration: float = 2.0,
    logit_noise: float = 0.3,
    sharpness: float = 2.0,
    dif_effect: float = 1.5,
    bump_peak: float = 0.95,
    bump_width: float = 0.5,
    ambiguity_sd: float = 0.1,
    duplicate_noise: float = 0.3,
    rng: Any = None,
) -> Simulation:
    r"""Several multiple-choice benchmarks, model families, a size ladder and every audit flaw.

    One :class:`benchkit.ResponseSet` that every method of :func:`benchkit.audit` can read: option
    probabilities and chosen letters with answer keys (answer-key checks, probability landscapes),
    families of named owners and sizes (family DIF, Benchmark²'s CAD), a size ladder answering
    each item ``T`` times (BSDProbe), several benchmarks, one of them a near-duplicate of another
    (Benchmark²'s cross-benchmark view), with the planted flaws in ``truth``. The defaults are
    small enough for fast tests: 320 items, 156 models, 67,200 responses. Use it to see what each
    method of the audit finds, and to check the audit's flags against the planted ones
    (:meth:`benchkit.AuditResult.validate` with ``truth.flawed_items``).

    Parameters
    ----------
    n_items : int, default 80
        Items per original benchmark.
    benchmarks : int or sequence of str, default 3
        The original benchmarks (``"sim1"``, ``"sim2"``, ... for an int); each has its own mixture
        over the ability dimensions, so model rankings differ somewhat between them.
    near_duplicate : bool, default True
        Add the benchmark ``"<first>-copy"``: a noisy copy of every item of the first benchmark
        (see Notes).
    n_models : int, default 150
        Models of the families (named ``"<owner>/<family>-<size>b-v<k>"``), each answering every
        item once.
    families : sequence of str
        Family names (each model's family is drawn uniformly); the default names match
        :data:`benchkit.dif.PAPER_FAMILIES`.
    owners : int, default 60
        Number of owners (uploaders ``owner000``, ...), drawn uniformly, so that the family-DIF
        owner cap (5 per owner and family) rarely binds.
    sizes : sequence of float
        Sizes (billions of parameters) of the family models, drawn uniformly.
    ladder : sequence of float
        The size ladder: strictly increasing sizes of ``len(ladder)`` further models of family
        ``ladder_family`` (owner ``"ladder"``, named ``"ladder/<family>-<size>b"``) that answer
        every item ``T`` times; ``()`` for none.
    ladder_family : str, default "qwen"
        Family of the ladder models (added to ``families`` if it is not among them).
    T : int, default 10
        Samples per item of each ladder model (the other models answer once).
    n_options : int, default 4
        Options per item (letters ``A``, ``B``, ...).
    flawed : mapping, optional
        Flaw kind -> count (int) or fraction (float) of the original items, planted on disjoint
        items: ``"miskeyed"``, ``"ambiguous"``, ``"non_monotone"``, ``"family_biased"``.
        Default 5 % each (12 items of 240); ``{}`` for none.
    n_dims, family_sd, model_sd, size_slope : int, float, float, float
        Ability model (as :func:`mirt_2pl`): ``n_dims`` dimensions, family offsets, model
        residuals (dimension correlation 0.5) and the gain per doubling of size. Ladder models
        have no residual: they differ only by size.
    discrimination, easiness_loc, easiness_sd : float
        Item discrimination norm (log-sd 0.3 around it) and easiness :math:`b_i \sim N`.
    distractor_concentration : float
        Distractor attractiveness :math:`\rho_i \sim \mathrm{Dirichlet}(\cdot \mathbf 1_{k-1})`.
    logit_noise : float
        Sd of the model-item noise on every option logit.
    sharpness : float, default 2.0
        Inverse temperature: every option logit is multiplied by it before the softmax (larger:
        more confident models, option probabilities closer to 0 and 1).
    dif_effect : float
        Logit shift of a family-biased item for the models of one family (random sign).
    bump_peak, bump_width : float
        Non-monotone items: peak probability of the true answer and the bump's width in units
        of the sd of the item's logits over the ladder.
    ambiguity_sd : float
        Sd of the logit gap between the true answer and its near-equal partner (ambiguous items).
    duplicate_noise : float
        Sd of the logit noise that separates a copied item from its original (a rephrasing).
    rng : None, int, SeedSequence or Generator
        The randomness (:mod:`benchkit._random`): the models, items, flaws and responses draw
        from four children of one root, each model's responses from its own grandchild, so the
        same int always gives the same set; the result records the root's entropy in
        ``rng_entropy`` (``rng=sim.rng_entropy`` draws the same set again).

    Returns
    -------
    Simulation
        ``responses``: a ResponseSet (``sample_budget="per_model"``: budget ``T`` for the ladder,
        1 for the others) with ``answer`` (the sampled letter), ``correct`` (answer == key) and
        ``option_probs``; items with ``benchmark``, ``source`` (``"dim<d>"``), ``text``,
        ``options`` and ``answer_key``; models with ``family``, ``owner``, ``size``, ``order``.
        ``truth.items``: ``benchmark, source, easiness, discrimination, answer_key, true_answer,
        partner, group, effect, copy_of, flaw, flaw_detail, p_mean``; flaw kinds are those of
        ``flawed`` and ``"near_duplicate"`` (every item of the copy). ``truth.models``:
        ``family, owner, size_b, ladder, theta_1..theta_D, p_mean``. ``truth.p_correct``: the
        probability of choosing the keyed option; ``truth.arrays["option_probs"]``.

    Notes
    -----
    Model m and item i (canonical options: 0 the true answer) have the option logits

    .. math:: z_{mi0} = a_i^\top\theta_m + b_i + \delta_{mi} + \epsilon_{mi0}, \qquad
              z_{mij} = \log\rho_{ij} + \epsilon_{mij}\ (j \ge 1),

    :math:`\epsilon \sim N(0, \sigma^2)`, and option probabilities
    :math:`P_{mi} = \mathrm{softmax}(\tau z_{mi})` (:math:`\tau` = ``sharpness``), so the chance
    of choosing the true answer rises with :math:`a_i^\top\theta_m + b_i`: a multidimensional
    2PL (:func:`mirt_2pl`'s abilities, family offsets and size slope). Every response is an
    answer *sampled* from :math:`P_{mi}` (one per family model, ``T`` per ladder model; uniforms
    from each model's own generator), and ``correct`` scores it against the key.

    Planted flaws (on disjoint original items):

    * ``miskeyed``: the key is the most attractive distractor (strong models choose the true
      answer and are scored wrong);
    * ``ambiguous``: the most attractive distractor ``partner`` gets the true answer's logit plus
      a gap :math:`\sim N(0, \cdot)`: two near-equal options, the key still the true answer;
    * ``non_monotone``: the true answer's probability is a bump
      :math:`p_{\max} \exp(-(\eta - \tilde\eta)^2 / (2 (h s)^2))` in the item's 2PL logit
      :math:`\eta`, centred at the median :math:`\tilde\eta` of the ladder's logits with width
      ``bump_width`` times their sd :math:`s`: along the ladder correctness rises, then falls
      (an order violation); weak and strong family models fail too;
    * ``family_biased``: :math:`\delta_{mi} = \pm` ``dif_effect`` for the models of one family
      (``group``, signed ``effect``);
    * ``near_duplicate``: item ``c`` of the copy repeats item ``i`` of the first benchmark
      (``copy_of``): the same parameters, key and options, logits
      :math:`z_{mi} + N(0, \cdot)` (``duplicate_noise``) and the same sampling uniform, so a
      model mostly answers the copy as it answered the original. A copied flawed item keeps its
      generating flaw (``flaw_detail`` says so) but is labelled ``near_duplicate``.

    References
    ----------
    M. D. Reckase (2009), Multidimensional Item Response Theory, Springer (the compensatory MIRT
    model of the abilities). The planted flaws are those the audit's methods look for: wrong keys
    (C. G. Northcutt, L. Jiang and I. L. Chuang (2021), "Confident learning: estimating
    uncertainty in dataset labels", Journal of Artificial Intelligence Research 70, 1373-1411;
    A. P. Dawid and A. M. Skene (1979), Applied Statistics 28(1), 20-28); order violations along a
    size ladder (H. Hu et al., BSDProbe, arXiv:2609.33196, Sec. 3.2, order consistency); items
    that favour one family (Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to
    Family-DIF-Guided Benchmark Recomposition?", Sec. 3.2, Eq. (5)); items every model fails,
    e.g. from ambiguity or a wrong key ("Auditing MCQA Benchmarks through Probability
    Landscapes", arXiv:2608.30372, Sec. 3.4); items where bigger models of a family fail (Q. Qian
    et al., "Benchmark²: Systematic Evaluation of LLM Benchmarks", arXiv:2601.03986, Sec. 3.3,
    CAD) and a benchmark that repeats another (its cross-benchmark view, Sec. 3.1).

    Examples
    --------
    Two benchmarks of 20 items, a copy of the first, 40 family models and a six-model ladder
    answering each item 5 times:

    >>> import benchkit
    >>> sim = benchkit.simulate.audit_suite(n_items=20, benchmarks=2, n_models=40, T=5, rng=0)
    >>> rs = sim.responses
    >>> rs.n_items, rs.n_models                   # 2 x 20 + 20 copies; 40 + 6 ladder models
    (60, 46)
    >>> dict(sorted(sim.truth.items["flaw"].value_counts().items()))   # 5 % of 40 items per kind
    {'ambiguous': 2, 'family_biased': 2, 'miskeyed': 2, 'near_duplicate': 20, 'non_monotone': 2, 'none': 32}
    >>> len(sim.truth.flawed_items)               # the reference set to validate an audit against
    28
    """
    n_items = check_int("n_items", n_items, min=2)
    if isinstance(benchmarks, (int, np.integer)) and not isinstance(benchmarks, bool):
        nb = check_int("benchmarks", benchmarks, min=1)
        bench_names = tuple(f"sim{j + 1}" for j in range(nb))
    else:
        bench_names = _check_names("benchmarks", benchmarks)
    if not isinstance(near_duplicate, (bool, np.bool_)):
        raise BenchkitTypeError(f"near_duplicate must be True or False, got {describe(near_duplicate)}")
    n_models = check_int("n_models", n_models, min=2)
    families = _check_names("families", families)
    n_owners = check_int("owners", owners, min=1)
    size_grid = _check_sizes("sizes", sizes, increasing=False)
    ladder_sizes = (np.array([], dtype=np.float64) if len(ladder) == 0
                    else _check_sizes("ladder", ladder, increasing=True))
    if ladder_sizes.size == 1:
        raise BenchkitValueError("ladder must hold at least 2 sizes (or none: ())")
    if not isinstance(ladder_family, str) or not ladder_family:
        raise BenchkitTypeError(f"ladder_family must be a non-empty string, got {describe(ladder_family)}")
    T = check_int("T", T, min=1)
    k = check_int("n_options", n_options, min=2, max=26)
    n_orig = n_items * len(bench_names)
    if flawed is None:
        flawed = {kind: 0.05 for kind in FLAW_KINDS["audit_suite"]}
    counts = _check_flawed(flawed, FLAW_KINDS["audit_suite"], n_orig)
    if counts["non_monotone"] and ladder_sizes.size == 0:
        raise BenchkitValueError("non_monotone items are centred on the ladder; give ladder sizes or "
                                 "plant none (flawed={'non_monotone': 0, ...})")
    D = check_int("n_dims", n_dims, min=1)
    family_sd = check_float("family_sd", family_sd, min=0.0)
    model_sd = check_float("model_sd", model_sd, min=0.0)
    size_slope = check_float("size_slope", size_slope)
    discrimination = check_float("discrimination", discrimination, min=0.0, min_inclusive=False)
    easiness_loc = check_float("easiness_loc", easiness_loc)
    easiness_sd = check_float("easiness_sd", easiness_sd, min=0.0)
    distractor_concentration = check_float("distractor_concentration", distractor_concentration,
                                           min=0.0, min_inclusive=False)
    logit_noise = check_float("logit_noise", logit_noise, min=0.0)
    sharpness = check_float("sharpness", sharpness, min=0.0, min_inclusive=False)
    dif_effect = check_float("dif_effect", dif_effect, min=0.0)
    bump_peak = check_probability("bump_peak", bump_peak)
    bump_width = check_float("bump_width", bump_width, min=0.0, min_inclusive=False)
    ambiguity_sd = check_float("ambiguity_sd", ambiguity_sd, min=0.0)
    duplicate_noise = check_float("duplicate_noise", duplicate_noise, min=0.0)
    params = _freeze(dict(
        n_items=n_items, benchmarks=bench_names, near_duplicate=bool(near_duplicate),
        n_models=n_models, families=families, owners=n_owners, sizes=tuple(size_grid.tolist()),
        ladder=tuple(ladder_sizes.tolist()), ladder_family=ladder_family, T=T, n_options=k,
        flawed=dict(flawed), n_dims=D, family_sd=family_sd, model_sd=model_sd,
        size_slope=size_slope, discrimination=discrimination, easiness_loc=easiness_loc,
        easiness_sd=easiness_sd, distractor_concentration=distractor_concentration,
        logit_noise=logit_noise, sharpness=sharpness, dif_effect=dif_effect, bump_peak=bump_peak,
        bump_width=bump_width, ambiguity_sd=ambiguity_sd, duplicate_noise=duplicate_noise,
        rng=rng if isinstance(rng, (int, type(None))) else repr(rng),
    ))
    root = seed_sequence(rng)
    ss_models, ss_items, ss_flaws, ss_resp = spawn(root, 4)

    # ---- models: families of owners and sizes, then the ladder
    rm = np.random.default_rng(ss_models)
    n_lad = ladder_sizes.size
    fam_idx = rm.integers(0, len(families), size=n_models)
    own_idx = rm.integers(0, n_owners, size=n_models)
    size_b = size_grid[rm.integers(0, size_grid.size, size=n_models)]
    all_fams = families if ladder_family in families or not n_lad else (*families, ladder_family)
    mu_f = rm.normal(0.0, family_sd, size=(len(all_fams), D))
    cov = model_sd**2 * (0.5 * np.eye(D) + 0.5 * np.ones((D, D)))
    eps = rm.multivariate_normal(np.zeros(D), cov, size=n_models, method="cholesky")
    lad_f = all_fams.index(ladder_family) if n_lad else 0
    theta = np.vstack([
        mu_f[fam_idx] + (size_slope * np.log2(size_b / 8.0))[:, None] + eps,
        mu_f[lad_f] + (size_slope * np.log2(ladder_sizes / 8.0))[:, None] + np.zeros((n_lad, D)),
    ])
    width = max(3, len(str(n_owners - 1)))
    owner_names = [f"owner{i:0{width}d}" for i in own_idx] + ["ladder"] * n_lad
    fam_names = [families[i] for i in fam_idx] + [ladder_family] * n_lad
    sizes_all = np.r_[size_b, ladder_sizes]
    model_ids, seen = [], {}
    for m in range(n_models):
        base = f"{owner_names[m]}/{fam_names[m]}-{_fmt_size(sizes_all[m])}"
        seen[base] = seen.get(base, 0) + 1
        model_ids.append(f"{base}-v{seen[base]}")
    model_ids += [f"ladder/{ladder_family}-{_fmt_size(s)}" for s in ladder_sizes]
    n_all = n_models + n_lad
    is_ladder = np.r_[np.zeros(n_models, bool), np.ones(n_lad, bool)]
    budget = np.where(is_ladder, T, 1)

    # ---- original items
    ri = np.random.default_rng(ss_items)
    nb = len(bench_names)
    bench_idx = np.repeat(np.arange(nb), n_items)
    mix = np.full((nb, D), 1.0 / D) if nb == 1 else ri.dirichlet(np.full(D, 2.0), size=nb)
    cum = np.cumsum(mix[bench_idx], axis=1)
    primary = np.minimum((ri.random(n_orig)[:, None] > cum).sum(axis=1), D - 1)
    lam = ri.uniform(0.0, 0.3, size=(n_orig, D))
    lam[np.arange(n_orig), primary] = 1.0
    lam /= np.linalg.norm(lam, axis=1, keepdims=True)
    alpha = discrimination * np.exp(ri.normal(0.0, 0.3, size=n_orig))
    A = alpha[:, None] * lam
    b = ri.normal(easiness_loc, easiness_sd, size=n_orig)
    rho = ri.dirichlet(np.full(k - 1, distractor_concentration), size=n_orig)
    perm = np.argsort(ri.random((n_orig, k)), axis=1)  # perm[i, c] = letter of canonical option c

    # ---- flaws
    rf = np.random.default_rng(ss_flaws)
    flaw = _assign_flaws(rf, counts, n_orig)
    sign = rf.choice([-1.0, 1.0], size=n_orig)
    fam_target = rf.integers(0, len(families), size=n_orig)
    gap = rf.normal(0.0, ambiguity_sd, size=n_orig)
    rows = np.arange(n_orig)
    top_d = 1 + np.argmax(rho, axis=1)  # canonical index of the most attractive distractor
    letters = _state_labels(k)
    true_letter = perm[:, 0]
    key_letter = true_letter.copy()
    miskeyed, ambiguous = flaw == "miskeyed", flaw == "ambiguous"
    biased, bump = flaw == "family_biased", flaw == "non_monotone"
    key_letter[miskeyed] = perm[rows, top_d][miskeyed]
    group = np.where(biased, np.asarray(families, dtype=object)[fam_target], "")
    effect = np.where(biased, dif_effect * sign, 0.0)
    eta = A @ theta.T + b[:, None]  # (items, models): the 2PL logit
    eta = eta + np.where(biased[:, None] & (np.asarray(fam_names)[None, :] == group[:, None]),
                         effect[:, None], 0.0)
    if bump.any():
        lad = eta[bump][:, is_ladder]
        centre = np.median(lad, axis=1, keepdims=True)
        s = lad.std(axis=1, keepdims=True)
        z = (eta[bump] - centre) / (bump_width * np.where(s > 0, s, 1.0))
        p = np.clip(bump_peak * np.exp(-0.5 * z * z), 1e-6, 1 - 1e-6)
        eta[bump] = np.log(p) - np.log1p(-p)
    detail = np.full(n_orig, "", dtype=object)
    detail[miskeyed] = [f"key {letters[kl]} marks a distractor; true answer {letters[tl]}"
                        for kl, tl in zip(key_letter[miskeyed], true_letter[miskeyed])]
    partner = np.full(n_orig, "", dtype=object)
    partner[ambiguous] = [letters[j] for j in perm[rows, top_d][ambiguous]]
    detail[ambiguous] = [f"options {letters[tl]} and {p} near-equal (logit gap {g:+.3f})"
                         for tl, p, g in zip(true_letter[ambiguous], partner[ambiguous], gap[ambiguous])]
    detail[biased] = [f"family={g} effect={e:+g}" for g, e in zip(group[biased], effect[biased])]
    detail[bump] = f"correctness peaks ({bump_peak:g}) in the middle of the ladder"

    # ---- the near-duplicate benchmark: copies of the first benchmark's items
    src = np.flatnonzero(bench_idx == 0) if near_duplicate else np.array([], dtype=np.int64)
    n_copy = src.size
    item_of = np.r_[rows, src]  # generating original of every item (copies point to theirs)
    n_tot = n_orig + n_copy

    # ---- responses: option probabilities and sampled answers, one generator per model
    P = np.empty((n_tot, n_all, k))
    ans = [None] * n_all
    log_rho = np.log(np.maximum(rho, 1e-300))
    for m, g in enumerate(np.random.default_rng(c) for c in spawn(ss_resp, n_all)):
        e = g.normal(0.0, logit_noise, size=(n_orig, k))
        u = g.random((n_orig, int(budget[m])))
        zc = np.empty((n_orig, k))
        zc[:, 0] = eta[:, m] + e[:, 0]
        zc[:, 1:] = log_rho + e[:, 1:]
        zc[ambiguous, top_d[ambiguous]] = zc[ambiguous, 0] + gap[ambiguous]
        zc = np.vstack([zc, zc[src] + g.normal(0.0, duplicate_noise, size=(n_copy, k))]) * sharpness
        zc -= zc.max(axis=1, keepdims=True)
        pc = np.exp(zc)
        pc /= pc.sum(axis=1, keepdims=True)
        P[np.arange(n_tot)[:, None], m, perm[item_of]] = pc  # canonical -> letter order
        cdf = np.cumsum(P[:, m, :], axis=1)
        uu = u[item_of]  # a copy reuses its original's uniforms
        ans[m] = np.minimum((uu[:, :, None] > cdf[:, None, :]).sum(axis=2), k - 1)  # (items, T_m)

    item_ids = [f"{bench_names[j]}/q{i:04d}" for j in range(nb) for i in range(n_items)]
    copy_name = f"{bench_names[0]}-copy"
    item_ids += [f"{copy_name}/q{i:04d}" for i in range(n_copy)]
    bench_all = [bench_names[j] for j in bench_idx] + [copy_name] * n_copy
    key_all = key_letter[item_of]
    letter_arr = np.asarray(letters, dtype=object)
    frames = []
    for m in range(n_all):
        a_m = ans[m]
        n_s = a_m.shape[1]
        frames.append(pd.DataFrame({
            "model": model_ids[m],
            "item": np.repeat(np.asarray(item_ids, dtype=object), n_s),
            "sample": np.tile(np.arange(n_s), n_tot),
            "answer": letter_arr[a_m.ravel()],
            "correct": (a_m == key_all[:, None]).ravel().astype(np.int8),
            "option_probs": list(np.repeat(P[:, m, :], n_s, axis=0)),
        }))
    responses = pd.concat(frames, ignore_index=True)

    texts = [f"{bench_all[i]} item {i}: which option holds when x < {i % 7 + 2}?" for i in range(n_orig)]
    texts += [f"{copy_name} item {c} (rephrased from {item_ids[s]}): which option holds when "
              f"x < {s % 7 + 2}?" for c, s in enumerate(src)]
    options = [[f"option {letters[j]} of {item_ids[item_of[i]]}" for j in range(k)] for i in range(n_tot)]
    items = pd.DataFrame({
        "item": item_ids,
        "benchmark": bench_all,
        "source": [f"dim{d + 1}" for d in primary[item_of]],
        "text": texts,
        "options": options,
        "answer_key": [letters[j] for j in key_all],
    })
    models = pd.DataFrame({
        "model": model_ids, "family": fam_names, "owner": owner_names, "size": sizes_all * 1e9,
        "order": np.arange(n_all),
    })
    from benchkit.response_set import ResponseSet

    rs = ResponseSet.from_long(responses, models=models, items=items, sample_budget="per_model",
                               parse_names=False, name="simulated-audit_suite",
                               meta=_meta("audit_suite", params))

    flaw_all = np.r_[flaw, np.full(n_copy, "near_duplicate", dtype=object)]
    detail_all = np.r_[detail, [f"copy of {item_ids[s]}" + (f" (generated as {flaw[s]})" if flaw[s] != NO_FLAW
                                                           else "") for s in src]]
    p_key = P[np.arange(n_tot), :, key_all]
    t_items = pd.DataFrame(
        {
            "benchmark": pd.array(bench_all, dtype="string"),
            "source": pd.array(items["source"].tolist(), dtype="string"),
            "easiness": b[item_of], "discrimination": alpha[item_of],
            "answer_key": pd.array([letters[j] for j in key_all], dtype="string"),
            "true_answer": pd.array([letters[j] for j in true_letter[item_of]], dtype="string"),
            "partner": pd.array(partner[item_of].tolist(), dtype="string"),
            "group": pd.array(group[item_of].tolist(), dtype="string"),
            "effect": effect[item_of],
            "copy_of": pd.array([""] * n_orig + [item_ids[s] for s in src], dtype="string"),
            "flaw": pd.array(flaw_all.tolist(), dtype="string"),
            "flaw_detail": pd.array(detail_all.tolist(), dtype="string"),
            "p_mean": p_key.mean(axis=1),
        },
        index=pd.Index(item_ids, name="item", dtype="string"),
    )
    t_models = pd.DataFrame(
        {
            "family": pd.array(fam_names, dtype="string"),
            "owner": pd.array(owner_names, dtype="string"),
            "size_b": sizes_all, "ladder": is_ladder,
            **{f"theta_{d + 1}": theta[:, d] for d in range(D)},
            "p_mean": p_key.mean(axis=0),
        },
        index=pd.Index(model_ids, name="model", dtype="string"),
    )
    truth = SimulationTruth(
        items=t_items, models=t_models,
        flaws=_flaw_table(t_items, ("answer_key", "true_answer", "partner", "group", "effect", "copy_of")),
        p_correct=p_key, arrays=MappingProxyType({"option_probs": P}),
    )
    tables = MappingProxyType({"responses": responses, "models": models, "items": items})
    return Simulation(responses=rs, truth=truth, generator="audit_suite", params=params, tables=tables,
                      rng_entropy=root.entropy)
