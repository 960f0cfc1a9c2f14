"""Multidimensional 2PL responses of model families, owners and sizes (family-DIF, measure, Benchmark²)."""
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
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit._validation import check_probability
from benchkit._validation import describe
from benchkit.simulate._common import FLAW_KINDS
from benchkit.simulate._common import Simulation
from benchkit.simulate._common import SimulationTruth
from benchkit.simulate._common import _assign_flaws
from benchkit.simulate._common import _binary_matrix_from
from benchkit.simulate._common import _check_flawed
from benchkit.simulate._common import _check_names
from benchkit.simulate._common import _check_sizes
from benchkit.simulate._common import _expit
from benchkit.simulate._common import _finish
from benchkit.simulate._common import _flaw_table
from benchkit.simulate._common import _fmt_size
from benchkit.simulate._common import _freeze
from benchkit.simulate._common import _item_ids
from benchkit.simulate._common import _refuse_oversized
from benchkit.simulate._common import _with_means

# --------------------------------------------------------------------------------------------------
# 1. multidimensional 2PL with families, owners, sizes
# --------------------------------------------------------------------------------------------------

_DEFAULT_FAMILIES = ("llama", "qwen", "gemma", "mistral", "phi")
_DEFAULT_SIZES = (0.5, 1.5, 3.0, 7.0, 8.0, 14.0, 32.0, 70.0)


def mirt_2pl(
    *,
    n_items: int = 500,
    n_models: int = 60,
    n_dims: int = 3,
    families: Sequence[str] = _DEFAULT_FAMILIES,
    owners: int | Sequence[str] = 12,
    sizes: Sequence[float] = _DEFAULT_SIZES,
    benchmarks: int | Sequence[str] = 1,
    flawed: Mapping[str, int | float] | None = None,
    family_sd: float = 0.5,
    owner_sd: float = 0.25,
    model_sd: float = 0.5,
    size_slope: float = 0.3,
    dim_correlation: float = 0.6,
    owner_zipf: float = 1.0,
    discrimination: float = 1.0,
    discrimination_sd: float = 0.3,
    cross_loading: float = 0.3,
    easiness_loc: float = 0.5,
    easiness_sd: float = 1.3,
    easiness: Any = None,
    benchmark_sd: float = 0.5,
    guessing: float = 0.0,
    miskey_rate: float = 0.6,
    bump_peak: float = 0.9,
    bump_width: float = 0.6,
    dif_effect: float = 1.5,
    matrix_only: bool = False,
    chunk: int = 256,
    rng: Any = None,
) -> Simulation:
    r"""Binary responses of models from families, owners and sizes under a multidimensional 2PL.

    Parameters
    ----------
    n_items, n_models : int
        Benchmark size and number of models (``n_models >= 2``).
    n_dims : int
        Number of latent ability dimensions D (compensatory MIRT); 1 gives a unidimensional 2PL.
    families : sequence of str
        Family names; each model's family is drawn uniformly.
    owners : int or sequence of str
        Owners (uploaders), or their number (named ``owner000``, ...). Owners are drawn with
        Zipf weights ``1 / rank**owner_zipf`` so that a few owners hold many checkpoints.
    sizes : sequence of float
        Sizes in billions of parameters; each model's size is drawn uniformly from them.
    benchmarks : int or sequence of str
        Benchmarks the items belong to (a single ``"sim"`` by default); each has its own mixture
        over the dimensions and its own easiness offset, so rankings differ between benchmarks.
    flawed : mapping, optional
        Flaw kind -> number of items (int) or fraction of ``n_items`` (float in [0, 1)). Kinds:
        ``"miskeyed"``, ``"non_monotone"``, ``"family_biased"``, ``"owner_biased"``. Default
        ``{"miskeyed": 0.02, "non_monotone": 0.02, "family_biased": 0.04}``; pass ``{}`` for none.
    family_sd, owner_sd, model_sd : float
        Standard deviations of the family ability offsets (per dimension), the owner offsets
        (shared by all dimensions) and the model residuals.
    size_slope : float
        Ability gain per doubling of parameters within a family.
    dim_correlation : float
        Correlation of a model's residual abilities across dimensions, in [0, 1).
    owner_zipf : float
        Zipf exponent of the owner weights (0 = uniform).
    discrimination, discrimination_sd : float
        Item discrimination norms are log-normal with median ``discrimination`` and log-sd
        ``discrimination_sd`` (0 gives equal discriminations: with ``n_dims=1`` a 1PL / Rasch model).
    cross_loading : float
        Secondary loadings are uniform on [0, cross_loading] relative to the primary loading 1.
    easiness_loc, easiness_sd : float
        Item easiness b is normal (before the benchmark offset).
    easiness : array-like, optional
        Explicit item easiness values (length n_items), e.g. with a planted coverage gap; replaces
        the normal draw and the benchmark offsets.
    benchmark_sd : float
        Standard deviation of the benchmark easiness offsets (only with several benchmarks).
    guessing : float
        Lower asymptote g in [0, 1) (e.g. 0.25 for 4-option multiple choice).
    miskey_rate : float
        For miskeyed items, the chance that a model which does not know the answer picks the
        (wrong) keyed option.
    bump_peak, bump_width : float
        Peak probability of a non-monotone item and its width in units of the item's logit sd
        across models.
    dif_effect : float
        Magnitude (logits) of the DIF effect of family- and owner-biased items; the sign is random.
    matrix_only : bool
        Return only the binary matrix (``.matrix``, int8) and the truth, without the generating
        probability matrix or a ResponseSet: for large scales (see :meth:`Simulation.to_response_set`).
    chunk : int
        Models generated at once; the result does not depend on it.
    rng : None, int, SeedSequence or Generator
        The randomness (:mod:`benchkit._random`): the same int always gives the same data; the
        result records the root's entropy in ``rng_entropy``.

    Returns
    -------
    Simulation
        ``responses`` (one row per model and item, ``T = 1``), ``matrix`` (int8 items x models),
        ``truth`` with items (``benchmark, source, primary_dim, discrimination, a_1..a_D,
        easiness, flaw, flaw_detail, group, effect, p_mean``) and models (``family, owner, size,
        order, size_b, theta_1..theta_D, p_mean``); ``truth.arrays["family_offsets"]`` (DataFrame
        family x dimension, :math:`\mu_f`) and ``truth.arrays["owner_offsets"]`` (Series, :math:`u_o`).

    Notes
    -----
    Abilities. Model m of family f, owner o and size S (billions) has ability vector

    .. math:: \theta_m = \mu_f + u_o \mathbf 1 + \beta \log_2(S / 8)\, \mathbf 1 + \varepsilon_m,

    with family offsets :math:`\mu_f \sim N(0, \sigma_f^2 I_D)` (family-specific ability
    profiles: the multidimensional structure a family-blind MIRT adjustment must absorb), owner
    offsets :math:`u_o \sim N(0, \sigma_o^2)`, slope :math:`\beta` = ``size_slope`` and residuals
    :math:`\varepsilon_m \sim N(0, \sigma_m^2[(1-\rho) I + \rho \mathbf 1 \mathbf 1^\top])`.

    Items. Item i belongs to benchmark j(i) (contiguous blocks) and has a primary dimension d(i)
    drawn from the benchmark's mixture :math:`w_j \sim \mathrm{Dirichlet}(\mathbf 1_D)` (uniform
    with one benchmark); ``source`` is ``"dim<d>"``. Its discrimination vector is
    :math:`a_i = \alpha_i \lambda_i / \lVert\lambda_i\rVert` with :math:`\lambda_{i,d(i)} = 1`,
    other loadings :math:`U(0, c)`, :math:`\alpha_i \sim \mathrm{LogNormal}(\log \alpha_0, s_\alpha)`;
    easiness :math:`b_i \sim N(b_0 + \nu_{j(i)}, \sigma_b^2)`, :math:`\nu_j \sim N(0, \sigma_\nu^2)`.
    The family-DIF paper's Eqs. 1-2 with :math:`\eta^{(K)}_{im} = a_i^\top\theta_m`:

    .. math:: \eta_{im} = a_i^\top \theta_m + b_i + \delta_{im}, \qquad
              p_{im} = g + (1-g)\,\sigma(\eta_{im}),

    where :math:`\delta_{im} = 0` except for biased items. Responses
    :math:`Y_{im} \sim \mathrm{Bernoulli}(p_{im})` independently.

    Planted flaws (on disjoint random items; ``truth.flaws`` lists them):

    * ``miskeyed``: the key marks a distractor, so a model is scored correct only when it does not
      know the answer and picks that distractor: :math:`p_{im} = r\,(1 - p^{\mathrm{2PL}}_{im})`,
      decreasing in ability (negative item-rest correlation), ``r`` = ``miskey_rate``.
    * ``non_monotone``: :math:`p_{im} = p_{\max} \exp(-(\eta_{im} - \tilde\eta_i)^2 / (2 (h s_i)^2))`,
      a bump at the median :math:`\tilde\eta_i` of the item's logits over models with width
      ``bump_width`` times their sd :math:`s_i`: weak and strong models fail, middle models succeed.
    * ``family_biased`` / ``owner_biased``: :math:`\delta_{im} = \pm` ``dif_effect`` for the models
      of one random family / owner (``group``; signed ``effect``), 0 otherwise. This is the raw
      effect; the paper's :math:`\delta_{if}` is its within-item centring across families.

    Reading chosen: sizes enter through :math:`\log_2` relative to 8B, so ``size_slope`` is the
    gain per doubling; the default scale puts model accuracies roughly between 0.3 and 0.85.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.2, Eq. (1)-(2). M. D. Reckase (2009), Multidimensional Item Response
    Theory, Springer (the compensatory MIRT model).

    Examples
    --------
    >>> from benchkit.simulate import mirt_2pl
    >>> sim = mirt_2pl(n_items=40, n_models=12, rng=0)
    >>> sim.truth.flaws[["item", "flaw", "group"]]
        item           flaw    group
    0  q0019  family_biased  mistral
    1  q0020       miskeyed
    2  q0024  family_biased      phi
    3  q0035   non_monotone
    >>> sim.responses.models[["family", "owner"]].nunique().tolist()
    [5, 8]
    """
    n_items = check_int("n_items", n_items, min=1)
    n_models = check_int("n_models", n_models, min=2)
    n_dims = check_int("n_dims", n_dims, min=1)
    _refuse_oversized("mirt_2pl", f"{n_items:,} items x {n_models:,} models", float(n_items) * n_models, 200)
    families = _check_names("families", families)
    if isinstance(owners, (int, np.integer)) and not isinstance(owners, bool):
        n_owners = check_int("owners", owners, min=1)
        width = max(3, len(str(n_owners - 1)))
        owner_names = tuple(f"owner{i:0{width}d}" for i in range(n_owners))
    else:
        owner_names = _check_names("owners", owners)
    size_grid = _check_sizes("sizes", sizes, increasing=False)
    if isinstance(benchmarks, (int, np.integer)) and not isinstance(benchmarks, bool):
        n_bench = check_int("benchmarks", benchmarks, min=1)
        bench_names = ("sim",) if n_bench == 1 else tuple(f"sim{j}" for j in range(n_bench))
    else:
        bench_names = _check_names("benchmarks", benchmarks)
    if len(bench_names) > n_items:
        raise BenchkitValueError(
            f"benchmarks={len(bench_names)} is more than n_items={n_items}; every benchmark needs an item"
        )
    if flawed is None:
        flawed = {"miskeyed": 0.02, "non_monotone": 0.02, "family_biased": 0.04}
    counts = _check_flawed(flawed, FLAW_KINDS["mirt_2pl"], n_items)
    family_sd = check_float("family_sd", family_sd, min=0.0)
    owner_sd = check_float("owner_sd", owner_sd, min=0.0)
    model_sd = check_float("model_sd", model_sd, min=0.0)
    size_slope = check_float("size_slope", size_slope)
    dim_correlation = check_float("dim_correlation", dim_correlation, min=0.0, max=1.0, max_inclusive=False)
    owner_zipf = check_float("owner_zipf", owner_zipf, min=0.0)
    discrimination = check_float("discrimination", discrimination, min=0.0, min_inclusive=False)
    discrimination_sd = check_float("discrimination_sd", discrimination_sd, min=0.0)
    cross_loading = check_float("cross_loading", cross_loading, min=0.0, max=1.0)
    easiness_loc = check_float("easiness_loc", easiness_loc)
    easiness_sd = check_float("easiness_sd", easiness_sd, min=0.0)
    if easiness is not None:
        easiness = check_array("easiness", easiness, ndim=1, dtype="float", shape=(n_items,))
    benchmark_sd = check_float("benchmark_sd", benchmark_sd, min=0.0)
    guessing = check_float("guessing", guessing, min=0.0, max=1.0, max_inclusive=False)
    miskey_rate = check_probability("miskey_rate", miskey_rate)
    bump_peak = check_probability("bump_peak", bump_peak)
    bump_width = check_float("bump_width", bump_width, min=0.0, min_inclusive=False)
    dif_effect = check_float("dif_effect", dif_effect, min=0.0)
    if not isinstance(matrix_only, (bool, np.bool_)):
        raise BenchkitTypeError(f"matrix_only must be True or False, got {describe(matrix_only)}")
    chunk = check_int("chunk", chunk, min=1)
    params = dict(
        n_items=n_items, n_models=n_models, n_dims=n_dims, families=families, owners=owner_names,
        sizes=tuple(size_grid.tolist()), benchmarks=bench_names, flawed=dict(flawed),
        family_sd=family_sd, owner_sd=owner_sd, model_sd=model_sd, size_slope=size_slope,
        dim_correlation=dim_correlation, owner_zipf=owner_zipf, discrimination=discrimination,
        discrimination_sd=discrimination_sd, cross_loading=cross_loading, easiness_loc=easiness_loc,
        easiness_sd=easiness_sd, easiness=None if easiness is None else tuple(easiness.tolist()),
        benchmark_sd=benchmark_sd, guessing=guessing, miskey_rate=miskey_rate,
        bump_peak=bump_peak, bump_width=bump_width, dif_effect=dif_effect,
        matrix_only=bool(matrix_only), rng=rng if isinstance(rng, (int, type(None))) else repr(rng),
    )

    root = seed_sequence(rng)
    ss_models, ss_items, ss_flaws, ss_resp = spawn(root, 4)
    D = n_dims

    # ---- models
    rm = np.random.default_rng(ss_models)
    fam_idx = rm.integers(0, len(families), size=n_models)
    w_owner = 1.0 / np.arange(1, len(owner_names) + 1) ** owner_zipf
    own_idx = rm.choice(len(owner_names), size=n_models, p=w_owner / w_owner.sum())
    size_b = size_grid[rm.integers(0, len(size_grid), size=n_models)]
    mu_f = rm.normal(0.0, family_sd, size=(len(families), D))
    u_o = rm.normal(0.0, owner_sd, size=len(owner_names))
    cov = model_sd**2 * ((1 - dim_correlation) * np.eye(D) + dim_correlation * np.ones((D, D)))
    eps = rm.multivariate_normal(np.zeros(D), cov, size=n_models, method="cholesky")
    theta = mu_f[fam_idx] + (u_o[own_idx] + size_slope * np.log2(size_b / 8.0))[:, None] + eps

    model_ids = []
    seen: dict[str, int] = {}
    for m in range(n_models):
        base = f"{owner_names[own_idx[m]]}/{families[fam_idx[m]]}-{_fmt_size(size_b[m])}"
        seen[base] = seen.get(base, 0) + 1
        model_ids.append(f"{base}-v{seen[base]}")
    models = pd.DataFrame(
        {
            "family": pd.array([families[i] for i in fam_idx], dtype="string"),
            "owner": pd.array([owner_names[i] for i in own_idx], dtype="string"),
            "size": size_b * 1e9,
            "order": np.arange(n_models),
            "size_b": size_b,
            **{f"theta_{d + 1}": theta[:, d] for d in range(D)},
        },
        index=pd.Index(model_ids, name="model", dtype="string"),
    )

    # ---- items
    ri = np.random.default_rng(ss_items)
    nb = len(bench_names)
    bench_idx = np.minimum(np.arange(n_items) * nb // n_items, nb - 1)
    mix = np.full((nb, D), 1.0 / D) if nb == 1 else ri.dirichlet(np.ones(D), size=nb)
    u = ri.random(n_items)
    cum = np.cumsum(mix[bench_idx], axis=1)
    primary = np.minimum((u[:, None] > cum).sum(axis=1), D - 1)
    lam = ri.uniform(0.0, cross_loading, size=(n_items, D))
    lam[np.arange(n_items), primary] = 1.0
    lam /= np.linalg.norm(lam, axis=1, keepdims=True)
    alpha = discrimination * np.exp(ri.normal(0.0, discrimination_sd, size=n_items))
    A = alpha[:, None] * lam
    nu = ri.normal(0.0, benchmark_sd, size=nb) if nb > 1 else np.zeros(1)
    b_draw = ri.normal(easiness_loc, easiness_sd, size=n_items) + nu[bench_idx]
    b = b_draw if easiness is None else easiness.copy()

    # ---- flaws
    rf = np.random.default_rng(ss_flaws)
    flaw = _assign_flaws(rf, counts, n_items)
    sign = rf.choice([-1.0, 1.0], size=n_items)
    fam_target = rf.integers(0, len(families), size=n_items)
    own_target = rf.integers(0, len(owner_names), size=n_items)
    group = np.full(n_items, "", dtype=object)
    effect = np.zeros(n_items)
    fam_biased = flaw == "family_biased"
    own_biased = flaw == "owner_biased"
    group[fam_biased] = [families[i] for i in fam_target[fam_biased]]
    group[own_biased] = [owner_names[i] for i in own_target[own_biased]]
    effect[fam_biased | own_biased] = dif_effect * sign[fam_biased | own_biased]
    detail = np.full(n_items, "", dtype=object)
    detail[fam_biased] = [f"family={g} effect={e:+g}" for g, e in zip(group[fam_biased], effect[fam_biased])]
    detail[own_biased] = [f"owner={g} effect={e:+g}" for g, e in zip(group[own_biased], effect[own_biased])]
    detail[flaw == "miskeyed"] = f"p = {miskey_rate:g} * (1 - p_2pl)"
    bump_rows = np.flatnonzero(flaw == "non_monotone")
    bump_center = np.full(n_items, np.nan)
    bump_sd = np.full(n_items, np.nan)
    if bump_rows.size:
        eta_b = A[bump_rows] @ theta.T + b[bump_rows, None]
        bump_center[bump_rows] = np.median(eta_b, axis=1)
        sd = eta_b.std(axis=1)
        bump_sd[bump_rows] = bump_width * np.where(sd > 0, sd, 1.0)
    detail[bump_rows] = [f"peak {bump_peak:g} at logit {c:.3f}" for c in bump_center[bump_rows]]

    miskey_rows = np.flatnonzero(flaw == "miskeyed")
    fam_rows = np.flatnonzero(fam_biased)
    own_rows = np.flatnonzero(own_biased)

    def prob_block(start: int, stop: int) -> np.ndarray:
        eta = A @ theta[start:stop].T + b[:, None]
        if fam_rows.size:
            hit = fam_target[fam_rows][:, None] == fam_idx[None, start:stop]
            eta[fam_rows] += np.where(hit, effect[fam_rows, None], 0.0)
        if own_rows.size:
            hit = own_target[own_rows][:, None] == own_idx[None, start:stop]
            eta[own_rows] += np.where(hit, effect[own_rows, None], 0.0)
        p = _expit(eta)
        if guessing:
            p = guessing + (1.0 - guessing) * p
        if miskey_rows.size:
            p[miskey_rows] = miskey_rate * (1.0 - p[miskey_rows])
        if bump_rows.size:
            z = (eta[bump_rows] - bump_center[bump_rows, None]) / bump_sd[bump_rows, None]
            p[bump_rows] = bump_peak * np.exp(-0.5 * z * z)
        return p

    Y = _binary_matrix_from(prob_block, n_items, n_models, ss_resp, chunk, np.int8)

    item_ids = _item_ids(n_items)
    items = pd.DataFrame(
        {
            "benchmark": pd.array([bench_names[j] for j in bench_idx], dtype="string"),
            "source": pd.array([f"dim{d + 1}" for d in primary], dtype="string"),
            "primary_dim": primary + 1,
            "discrimination": alpha,
            **{f"a_{d + 1}": A[:, d] for d in range(D)},
            "easiness": b,
            "flaw": pd.array(flaw.tolist(), dtype="string"),
            "flaw_detail": pd.array(detail.tolist(), dtype="string"),
            "group": pd.array(group.tolist(), dtype="string"),
            "effect": effect,
        },
        index=pd.Index(item_ids, name="item", dtype="string"),
    )
    p_full = None
    if not matrix_only:
        p_full = prob_block(0, n_models)
        items, models = _with_means(items, models, p_full)
    truth = SimulationTruth(
        items=items, models=models, flaws=_flaw_table(items, ("group", "effect")), p_correct=p_full,
        arrays=MappingProxyType({
            "family_offsets": pd.DataFrame(mu_f, index=pd.Index(families, name="family"),
                                           columns=[f"theta_{d + 1}" for d in range(D)]),
            "owner_offsets": pd.Series(u_o, index=pd.Index(owner_names, name="owner"), name="offset"),
        }),
    )
    frozen = _freeze(params)
    if matrix_only:
        return Simulation(responses=None, truth=truth, generator="mirt_2pl", params=frozen, matrix=Y,
                          rng_entropy=root.entropy)
    responses = pd.DataFrame({
        "model": pd.array(np.repeat(np.asarray(model_ids, dtype=object), n_items), dtype="string"),
        "item": pd.array(np.tile(np.asarray(item_ids, dtype=object), n_models), dtype="string"),
        "correct": Y.T.ravel().astype(np.int8),
    })
    return _finish("mirt_2pl", truth, frozen, responses, models, items, T=1, matrix=Y,
                   rng_entropy=root.entropy)
