"""Leaderboard-scale simulator for the family-DIF audit (paper 001's setting).

:func:`simulate_family_dif` draws a binary items x models matrix from a compensatory MIRT model with
planted item x family effects, model ids of the form ``"owner/Family-3-7B-instruct-12"`` (so the
paper's family patterns and the uploader rule apply), Zipf-distributed owners that each work on one
or two families, native sources (subjects) and a few ids that match no family, two families or a
lineage term (so every exclusion path of the population rules is exercised).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from benchkit._budget import check_memory
from benchkit._random import generator
from benchkit._random import seed_sequence
from benchkit._results import result
from benchkit._validation import check_float
from benchkit._validation import check_int

__all__ = ["FamilyDIFSimulation", "simulate_family_dif"]

_NAMES = {"gemma": ("gemma-2", "Gemma-7b"), "llama": ("Llama-3", "llama-2"),
          "mistral": ("Mistral-7B", "Mixtral-8x7B"), "phi": ("Phi-3", "phi-2"),
          "qwen": ("Qwen2", "Qwen1.5")}
_OTHER = ("Yi-1.5", "falcon", "olmo", "internlm2")
_LINEAGE = ("dpo", "merge", "lora", "distill", "uncensored")


@result
class FamilyDIFSimulation:
    """A simulated audit matrix with its truth.

    A leaderboard-like 0/1 matrix with known item x family effects: the audit's steps can be
    checked against the planted ``delta`` and ``dif_items``.

    Parameters
    ----------
    Y, model_ids, owners, family, source, delta, dif_items, families, easiness, theta, loadings
        The fields described under Attributes (built by :func:`simulate_family_dif`).
    rng_entropy
        The field described under Attributes.

    Attributes
    ----------
    Y : ndarray of uint8 (items, models)
        The simulated responses (1 = correct).
    model_ids : ndarray of str (models,)
        Ids ``"ownerNNNN/<Family name>-<size>B[-<lineage>]-v<m>"``, so the paper's family patterns
        and uploader rule apply.
    owners : ndarray of str (models,)
        The uploader of each model.
    family : ndarray of object (models,)
        True family label (None for models of no audited family).
    source : ndarray of str (items,)
        The native source (subject) of each item.
    delta : ndarray (items, families)
        Planted item x family effects (centered within item; zero for non-DIF items).
    dif_items : ndarray of bool (items,)
        Items with planted family effects.
    families : tuple of str
        The audited families, sorted (the columns of ``delta``).
    easiness : ndarray (items,)
        Item intercepts :math:`b_i`.
    theta : ndarray (models, dims)
        Model abilities.
    loadings : ndarray (items, dims)
        Item loadings :math:`a_i`.
    rng_entropy : int or None
        Entropy of the root seed of ``rng``: ``simulate_family_dif(..., rng=rng_entropy)`` draws
        the same matrix.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.1-3.2 (the setting simulated), App. C.1 (families and owners).

    Examples
    --------
    >>> from benchkit.dif.steps import simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> sim.Y.shape, sim.families, int(sim.dif_items.sum())
    ((120, 300), ('gemma', 'llama', 'mistral', 'phi', 'qwen'), 14)
    """

    Y: np.ndarray
    model_ids: np.ndarray
    owners: np.ndarray
    family: np.ndarray
    source: np.ndarray
    delta: np.ndarray
    dif_items: np.ndarray
    families: tuple
    easiness: np.ndarray
    theta: np.ndarray
    loadings: np.ndarray
    rng_entropy: Any = None


def simulate_family_dif(*, n_items: int = 14_042, n_models: int = 5_000, n_sources: int = 57,
                        n_owners: int = 690, n_dims: int = 6, dif_fraction: float = 0.1,
                        dif_sd: float = 1.0, dif_source_sd: float = 0.0, family_sd: float = 0.4,
                        owner_sd: float = 0.4,
                        model_sd: float = 0.6, second_family: float = 0.3, owner_zipf: float = 1.0,
                        other_fraction: float = 0.06, double_fraction: float = 0.01,
                        lineage_fraction: float = 0.05, easiness_sd: float = 1.2,
                        rng: Any = None) -> FamilyDIFSimulation:
    r"""Simulate a leaderboard response matrix with planted item x family effects.

    Parameters
    ----------
    n_items, n_models : int
        Matrix size (MMLU-sized by default: 14,042 x 5,000).
    n_sources : int
        Native sources (subjects); items are spread evenly (sizes differ by at most one).
    n_owners : int
        Uploaders; model counts follow Zipf weights ``1 / rank**owner_zipf``. The default 690 with
        ``second_family=0.3`` gives about 650-700 owner-family pairs at the default size (the
        paper's MMLU population has 673 representatives).
    owner_zipf : float, default 1.0
        Exponent of the Zipf weights of the owners' model counts (0: equal counts).
    n_dims : int
        Ability dimensions of the compensatory MIRT model.
    dif_fraction, dif_sd : float
        Fraction of items with planted family effects, drawn N(0, dif_sd^2) per family then centered
        within the item (Eq. 4).
    dif_source_sd : float
        SD of a source x family mean added to the planted effects of the DIF items of that source
        (then centered within item): systematic family advantages on some sources, which move
        family scores when DIF items are down-weighted (0: effects average out across items).
    family_sd, owner_sd, model_sd : float
        SDs of the family ability means (per dimension), owner offsets and model residuals.
    second_family : float
        Probability that an owner also uploads checkpoints of a second family.
    other_fraction, double_fraction, lineage_fraction : float
        Fractions of ids matching no family, two families, or a lineage term (D.2 filter).
    easiness_sd : float
        SD of item easiness (intercepts).
    rng : None, int, SeedSequence or Generator
        Seeds every draw (one generator from the root of ``rng``).

    Returns
    -------
    FamilyDIFSimulation
        The matrix, ids, owners, families, sources and the planted truth.

    Notes
    -----
    :math:`\mathrm{logit}\,P(Y_{im}=1) = a_i^\top\theta_m + b_i + \delta_{i,f(m)}`, loadings
    :math:`a_i = (0.3 + |N(0, 0.2)|)\, \pi_{s(i)}` where :math:`\pi_s` is a Dirichlet(1) mix over
    dimensions per source (times :math:`\sqrt{D}`), abilities :math:`\theta_m = \mu_{f} + u_o +
    e_m`. Models of no audited family (and those with two family names) get :math:`\delta = 0`.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.1 (RouterEval-scale matrices: 14,042 MMLU items, 5,000 models), Sec. 3.2
    (compensatory MIRT with residual family effects, Eq. 1-2), App. C.1 (family and owner
    rules). M. D. Reckase (2006), "Multidimensional item response theory", Handbook of
    Statistics 26, 607-642.

    Examples
    --------
    >>> from benchkit.dif.steps import simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> sim.model_ids[0], round(float(sim.Y.mean()), 3)
    ('owner0008/phi-2-13B-v0', 0.593)
    >>> again = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40,
    ...                             rng=sim.rng_entropy)
    >>> bool((again.Y == sim.Y).all())
    True
    """
    n_items = check_int("n_items", n_items, min=8)
    n_models = check_int("n_models", n_models, min=4)
    n_sources = check_int("n_sources", n_sources, min=1, max=n_items)
    n_owners = check_int("n_owners", n_owners, min=1)
    n_dims = check_int("n_dims", n_dims, min=1)
    # Y is uint8 (1 byte per cell); each block of 1,024 items holds ~5 float64 (block, n_models)
    # temporaries (eta, uniforms, exp, the probability, the comparison): measured peak 4.3 bytes per
    # cell at 10,000 x 5,000 (tracemalloc), this estimate 5.1
    check_memory(f"simulate_family_dif of {n_items:,} items x {n_models:,} models",
                 float(n_items) * n_models + 40.0 * min(n_items, 1024) * n_models,
                 hint="simulate fewer items or models")
    for nm, v in (("dif_fraction", dif_fraction), ("second_family", second_family),
                  ("other_fraction", other_fraction), ("double_fraction", double_fraction),
                  ("lineage_fraction", lineage_fraction)):
        check_float(nm, v, min=0.0, max=1.0)
    root = seed_sequence(rng)
    g = generator(root)
    fams = tuple(sorted(_NAMES))
    F = len(fams)
    # owners and their families
    owner_names = np.array([f"owner{o:04d}" for o in range(n_owners)], dtype=object)
    w = 1.0 / np.arange(1, n_owners + 1) ** owner_zipf
    own_idx = g.choice(n_owners, size=n_models, p=w / w.sum())
    prim = g.integers(0, F, n_owners)
    sec = np.where(g.random(n_owners) < second_family, (prim + g.integers(1, F, n_owners)) % F, prim)
    pick_sec = g.random(n_models) < 0.5
    fam_idx = np.where(pick_sec, sec[own_idx], prim[own_idx])
    kind = g.random(n_models)
    other = kind < other_fraction
    double = (kind >= other_fraction) & (kind < other_fraction + double_fraction)
    lineage = g.random(n_models) < lineage_fraction
    ids, family = [], np.empty(n_models, dtype=object)
    sizes = np.array([1, 2, 3, 7, 8, 9, 13, 14, 27, 70])
    for m in range(n_models):
        f = fams[fam_idx[m]]
        base = _NAMES[f][int(g.integers(0, 2))]
        if other[m]:
            base, family[m] = _OTHER[int(g.integers(0, len(_OTHER)))], None
        elif double[m]:
            f2 = fams[(fam_idx[m] + 1) % F]
            base, family[m] = f"{base}-{_NAMES[f2][0]}", None
        else:
            family[m] = f
        tag = f"-{_LINEAGE[int(g.integers(0, len(_LINEAGE)))]}" if lineage[m] else ""
        ids.append(f"{owner_names[own_idx[m]]}/{base}-{int(sizes[g.integers(0, sizes.size)])}B"
                   f"{tag}-v{m}")
    model_ids = np.array(ids, dtype=object)
    owners = owner_names[own_idx]
    # items
    source_idx = np.repeat(np.arange(n_sources), np.diff(np.linspace(0, n_items, n_sources + 1)
                                                         .round().astype(int)))
    source = np.array([f"source{s:02d}" for s in range(n_sources)], dtype=object)[source_idx]
    mix = g.dirichlet(np.ones(n_dims), size=n_sources) * np.sqrt(n_dims)
    loadings = (0.3 + np.abs(g.normal(0, 0.2, n_items)))[:, None] * mix[source_idx]
    easiness = g.normal(0.3, easiness_sd, n_items)
    dif_items = g.random(n_items) < dif_fraction
    src_mean = g.normal(0.0, dif_source_sd, (n_sources, F)) if dif_source_sd > 0 else \
        np.zeros((n_sources, F))
    delta = (g.normal(0.0, dif_sd, (n_items, F)) + src_mean[source_idx]) * dif_items[:, None]
    delta -= delta.mean(1, keepdims=True)
    # abilities
    mu = g.normal(0.0, family_sd, (F, n_dims))
    u = g.normal(0.0, owner_sd, n_owners)
    theta = mu[fam_idx] + u[own_idx, None] + g.normal(0.0, model_sd, (n_models, n_dims))
    fcode = np.array([fams.index(f) if f is not None else -1 for f in family])
    dcols = np.concatenate([delta, np.zeros((n_items, 1))], axis=1)  # column -1 = no family
    Y = np.empty((n_items, n_models), dtype=np.uint8)
    for a in range(0, n_items, 1024):
        b = min(n_items, a + 1024)
        eta = loadings[a:b] @ theta.T + easiness[a:b, None] + dcols[a:b][:, fcode]
        Y[a:b] = g.random(eta.shape) < 1.0 / (1.0 + np.exp(-eta))
    return FamilyDIFSimulation(Y=Y, model_ids=model_ids, owners=owners, family=family,
                               source=source, delta=delta, dif_items=dif_items, families=fams,
                               easiness=easiness, theta=theta, loadings=loadings,
                               rng_entropy=root.entropy)
