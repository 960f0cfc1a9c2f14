"""Generative models of item-level LLM evaluation data, with planted flaws and the ground truth.

Every generator draws a realistic :class:`benchkit.ResponseSet` from a documented model and returns a
:class:`Simulation`: the responses, the generating parameters (:class:`SimulationTruth`: item
parameters, model abilities, which items were planted as flawed and how) and the arguments used.
Detectors can then be checked against what was planted.

:func:`mirt_2pl`
    Hundreds of models from named families / owners / sizes answering a benchmark with a
    multidimensional structure; miskeyed, non-monotone and family- or owner-biased (DIF) items
    (family-DIF, empirical measure, Benchmark²).
:func:`repeated_sampling`
    T repeated responses with answer states along an ordered size ladder; logistic correctness
    trajectories with a boundary position and width per item; non-monotone and flat items
    (BSDProbe).
:func:`mcq_probabilities`
    Option probabilities of k-option multiple-choice items; miskeyed and ambiguous items
    (probability landscapes).
:func:`binary_matrix`
    A lean 2PL binary items x models matrix at any scale (14,000 x 5,000 in ~1.5 s, 70 MB).
:func:`write_long_parquet`
    The same responses streamed to a long Parquet file, chunk by chunk.

Reproducibility: each generator turns ``seed`` into one root :class:`numpy.random.SeedSequence`
and spawns children for the item parameters, the model parameters, the flaw assignment and one
child *per model* for the responses. Responses of model ``m`` are therefore drawn from model
``m``'s own generator, so chunked generation gives identical output for every chunk size and the
output does not depend on how the work is split.

:func:`load_sample` reads the small samples committed in the repository's ``data_samples/`` folder
(written by ``data_samples/make_samples.py`` from :data:`SAMPLES`); on an installed package without
that folder it regenerates the sample from its recorded generator, parameters and seed.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from benchkit._validation import (
    BenchkitTypeError,
    BenchkitValueError,
    check_array,
    check_choice,
    check_float,
    check_int,
    check_probability,
    check_seed,
    describe,
)

__all__ = [
    "Simulation",
    "SimulationTruth",
    "ParquetWriteResult",
    "SampleSpec",
    "SAMPLES",
    "FLAW_KINDS",
    "mirt_2pl",
    "repeated_sampling",
    "mcq_probabilities",
    "binary_matrix",
    "write_long_parquet",
    "load_sample",
    "sample_names",
    "samples_dir",
    "sample_tables",
    "write_sample",
    "normalized_entropy",
]

NO_FLAW = "none"

#: The flaw kinds each generator can plant (keys of its ``flawed`` argument), in the order in which
#: items are assigned to them.
FLAW_KINDS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "mirt_2pl": ("miskeyed", "non_monotone", "family_biased", "owner_biased"),
    "repeated_sampling": ("non_monotone", "flat"),
    "mcq_probabilities": ("miskeyed", "ambiguous"),
})

_LN3 = math.log(3.0)


# --------------------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SimulationTruth:
    """The generating parameters of a simulated response set.

    Attributes
    ----------
    items : pandas.DataFrame
        One row per item (index ``item``): the item parameters of the generator, ``flaw`` (the
        planted flaw kind or ``"none"``), ``flaw_detail`` (e.g. the biased family) and ``p_mean``
        (the item's generating correctness probability averaged over models).
    models : pandas.DataFrame
        One row per model (index ``model``): family / owner / size where the generator has them,
        the abilities, and ``p_mean`` (expected accuracy).
    flaws : pandas.DataFrame
        One row per planted flawed item: ``item``, ``flaw``, ``flaw_detail`` and the kind's
        parameters (``group``, ``effect``, ...); empty when nothing was planted.
    p_correct : numpy.ndarray or None
        Generating probability of a correct response, float64 (n_items, n_models) in roster
        order; ``None`` for the scale generators, which never hold it whole.
    arrays : Mapping[str, Any]
        Further generating arrays or tables (e.g. ``"state_probs"`` (n_items, n_models, n_states) of
        :func:`repeated_sampling`, ``"option_probs"`` of :func:`mcq_probabilities`).
    """

    items: pd.DataFrame
    models: pd.DataFrame
    flaws: pd.DataFrame
    p_correct: np.ndarray | None = None
    arrays: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def flawed_items(self) -> pd.Index:
        """Ids of the items planted as flawed (any kind)."""
        return self.items.index[self.items["flaw"] != NO_FLAW]

    def items_with(self, flaw: str) -> pd.Index:
        """Ids of the items planted with flaw kind ``flaw``."""
        return self.items.index[self.items["flaw"] == flaw]

    def to_frame(self) -> pd.DataFrame:
        """The item-level truth table (a copy of :attr:`items`)."""
        return self.items.copy()

    def __repr__(self) -> str:
        kinds = self.items["flaw"].value_counts()
        planted = ", ".join(f"{k}: {int(v)}" for k, v in kinds.items() if k != NO_FLAW) or "none"
        return (f"SimulationTruth({len(self.items)} items, {len(self.models)} models, "
                f"planted flaws: {planted})")


@dataclass(frozen=True)
class Simulation:
    """A simulated response set and the truth it was drawn from.

    Attributes
    ----------
    responses : benchkit.ResponseSet or None
        The simulated data; ``None`` when only the matrix was requested (``matrix_only=True`` or
        :func:`binary_matrix`): call :meth:`to_response_set` to build it.
    truth : SimulationTruth
        Item parameters, model abilities and planted flaws.
    generator : str
        Name of the generating function.
    params : Mapping[str, Any]
        The arguments of the call (read-only), including ``seed``.
    matrix : numpy.ndarray or None
        Binary items x models matrix (principal sample) for the matrix-emitting generators.
    tables : Mapping[str, pandas.DataFrame] or None
        The long ``responses`` table and the ``models`` / ``items`` tables that
        :meth:`benchkit.ResponseSet.from_long` was given (e.g. to write them to files);
        ``None`` when only the matrix was generated.
    """

    responses: Any
    truth: SimulationTruth
    generator: str
    params: Mapping[str, Any]
    matrix: np.ndarray | None = None
    tables: Mapping[str, pd.DataFrame] | None = None

    def to_frame(self) -> pd.DataFrame:
        """Item-level truth table: one row per item with its parameters and planted flaw."""
        return self.truth.to_frame()

    def __repr__(self) -> str:
        held = "ResponseSet" if self.responses is not None else "matrix only"
        return f"Simulation({self.generator}, {held}, {self.truth!r}, seed={self.params.get('seed')!r})"

    def to_response_set(self):
        """The :class:`benchkit.ResponseSet` (built from :attr:`matrix` if not held already)."""
        if self.responses is not None:
            return self.responses
        from benchkit.response_set import ResponseSet

        wide = pd.DataFrame(
            self.matrix, index=self.truth.items.index, columns=self.truth.models.index
        )
        return ResponseSet.from_wide(
            wide,
            models=_roster_table(self.truth.models),
            items=_item_table(self.truth.items),
            T=1,
            parse_names=False,
            name=f"simulated-{self.generator}",
            meta=_meta(self.generator, self.params),
        )


@dataclass(frozen=True)
class ParquetWriteResult:
    """What :func:`write_long_parquet` wrote.

    Attributes
    ----------
    path : pathlib.Path
    n_rows, n_row_groups : int
    n_bytes : int
        Size of the written file.
    truth : SimulationTruth
        Item and model parameters (``p_correct`` is ``None``).
    """

    path: Path
    n_rows: int
    n_row_groups: int
    n_bytes: int
    truth: SimulationTruth

    def to_frame(self) -> pd.DataFrame:
        """One-row summary of the written file."""
        return pd.DataFrame(
            {"path": [str(self.path)], "n_rows": [self.n_rows],
             "n_row_groups": [self.n_row_groups], "n_bytes": [self.n_bytes]}
        )


# --------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------


def _expit(x: np.ndarray) -> np.ndarray:
    from scipy.special import expit

    return expit(x)


def _root_seed(seed: Any) -> np.random.SeedSequence:
    """One root SeedSequence from ``seed`` (int, None, SeedSequence or Generator)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
        return np.random.SeedSequence(int(seed))
    rng = check_seed("seed", seed)  # validates; a Generator or None becomes entropy here
    return np.random.SeedSequence(rng.integers(0, 2**63, size=4, dtype=np.uint64).tolist())


def _children(seed: Any, n: int) -> list[np.random.SeedSequence]:
    """``n`` independent child seeds of the root of ``seed``, always spawned the same way."""
    root = _root_seed(seed)
    # spawn from a fresh copy so the same SeedSequence object passed twice gives the same output
    root = np.random.SeedSequence(root.entropy, spawn_key=root.spawn_key, pool_size=root.pool_size)
    return root.spawn(n)


def _model_generators(ss: np.random.SeedSequence, start: int, stop: int):
    """Generators of models ``start..stop-1``: child ``m`` of ``ss`` belongs to model ``m``."""
    for m in range(start, stop):
        yield np.random.default_rng(
            np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, m), pool_size=ss.pool_size)
        )


def _check_flawed(flawed: Any, kinds: Sequence[str], n_items: int) -> dict[str, int]:
    """``flawed`` maps kind -> count (int) or fraction of n_items (float in [0, 1))."""
    if flawed is None:
        return {k: 0 for k in kinds}
    if not isinstance(flawed, Mapping):
        raise BenchkitTypeError(
            f"flawed must be a mapping of flaw kind to a count (int) or a fraction of n_items "
            f"(float), e.g. {{{kinds[0]!r}: 0.05}}; got {describe(flawed)}"
        )
    counts = {k: 0 for k in kinds}
    for kind, value in flawed.items():
        check_choice("flawed key", kind, kinds)
        if isinstance(value, (float, np.floating)):
            frac = check_float(f"flawed[{kind!r}]", value, min=0.0, max=1.0, max_inclusive=False)
            counts[kind] = int(round(frac * n_items))
        else:
            counts[kind] = check_int(f"flawed[{kind!r}]", value, min=0, max=n_items)
    total = sum(counts.values())
    if total > n_items:
        raise BenchkitValueError(
            f"flawed asks for {total} flawed items ({', '.join(f'{k}: {v}' for k, v in counts.items() if v)}) "
            f"but n_items={n_items}; the kinds are planted on disjoint items"
        )
    return counts


def _assign_flaws(rng: np.random.Generator, counts: dict[str, int], n_items: int) -> np.ndarray:
    """Item -> flaw kind (object array of str), disjoint, drawn without replacement."""
    flaw = np.full(n_items, NO_FLAW, dtype=object)
    order = rng.permutation(n_items)
    pos = 0
    for kind, count in counts.items():  # kinds in their documented order
        flaw[order[pos:pos + count]] = kind
        pos += count
    return flaw


def _check_names(name: str, value: Any, *, min_len: int = 1) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise BenchkitTypeError(f"{name} must be a sequence of names (str); got {describe(value)}")
    out = tuple(value)
    if len(out) < min_len:
        raise BenchkitValueError(f"{name} must hold at least {min_len} name(s); got {len(out)}")
    for v in out:
        if not isinstance(v, str) or not v:
            raise BenchkitTypeError(f"{name} must hold non-empty strings; found {describe(v)}")
    if len(set(out)) != len(out):
        dup = next(v for v in out if out.count(v) > 1)
        raise BenchkitValueError(f"{name} holds {dup!r} more than once; names must be distinct")
    return out


def _check_sizes(name: str, value: Any, *, increasing: bool) -> np.ndarray:
    arr = check_array(name, value, ndim=1, dtype="float", min_size=1)
    if np.any(arr <= 0):
        bad = arr[arr <= 0][0]
        raise BenchkitValueError(f"{name} must hold positive sizes (billions of parameters); found {bad:g}")
    if increasing and np.any(np.diff(arr) <= 0):
        i = int(np.argmax(np.diff(arr) <= 0))
        raise BenchkitValueError(
            f"{name} must be strictly increasing (an ordered size ladder); "
            f"{arr[i]:g} is followed by {arr[i + 1]:g}"
        )
    return arr


def _fmt_size(size_b: float) -> str:
    return f"{size_b:g}b"


def _item_ids(n: int, prefix: str = "q") -> list[str]:
    width = max(4, len(str(n - 1)))
    return [f"{prefix}{i:0{width}d}" for i in range(n)]


def _freeze(params: dict[str, Any]) -> Mapping[str, Any]:
    def conv(v):
        if isinstance(v, np.ndarray):
            return tuple(v.tolist())
        if isinstance(v, list):
            return tuple(v)
        if isinstance(v, Mapping):
            return MappingProxyType(dict(v))
        return v

    return MappingProxyType({k: conv(v) for k, v in params.items()})


def _meta(generator: str, params: Mapping[str, Any]) -> dict[str, Any]:
    shown = {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in params.items()}
    return {
        "source": f"benchkit.simulate.{generator}",
        "notes": f"simulated with benchkit.simulate.{generator}({shown!r})",
    }


_ROSTER_COLUMNS = ("family", "owner", "size", "order")
_ITEM_COLUMNS = ("benchmark", "source", "answer_key")


def _roster_table(models: pd.DataFrame) -> pd.DataFrame:
    cols = [c for c in _ROSTER_COLUMNS if c in models.columns]
    return models[cols].rename_axis("model").reset_index()


def _item_table(items: pd.DataFrame) -> pd.DataFrame:
    cols = [c for c in _ITEM_COLUMNS if c in items.columns]
    return items[cols].rename_axis("item").reset_index()


def _with_means(truth_items: pd.DataFrame, truth_models: pd.DataFrame, p: np.ndarray):
    truth_items = truth_items.assign(p_mean=p.mean(axis=1))
    truth_models = truth_models.assign(p_mean=p.mean(axis=0))
    return truth_items, truth_models


def _flaw_table(items: pd.DataFrame, extra: Sequence[str]) -> pd.DataFrame:
    cols = ["flaw", "flaw_detail", *[c for c in extra if c in items.columns]]
    out = items.loc[items["flaw"] != NO_FLAW, cols].rename_axis("item").reset_index()
    return out


def normalized_entropy(probs: np.ndarray, *, n_states: int | None = None, axis: int = -1) -> np.ndarray:
    """Shannon entropy of distributions along ``axis`` divided by ``log(n_states)``.

    ``n_states`` defaults to the length of ``axis``; ``0 log 0 = 0``; the result is 0 when
    ``n_states <= 1`` (BSDProbe Eq. 2's convention for M_q = 1).
    """
    p = np.asarray(probs, dtype=np.float64)
    m = p.shape[axis] if n_states is None else int(n_states)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), axis=axis)
    if m <= 1:
        return np.zeros_like(h)
    return h / math.log(m)


def _build_response_set(tables: Mapping[str, pd.DataFrame], *, T: int, name: str,
                        meta: dict[str, Any]):
    from benchkit.response_set import ResponseSet

    return ResponseSet.from_long(
        tables["responses"], models=tables["models"], items=tables["items"], T=T,
        parse_names=False, name=name, meta=meta,
    )


def _finish(generator: str, truth: SimulationTruth, params: Mapping[str, Any],
            responses: pd.DataFrame, models: pd.DataFrame, items: pd.DataFrame, *, T: int,
            matrix: np.ndarray | None = None) -> Simulation:
    tables = MappingProxyType({
        "responses": responses, "models": _roster_table(models), "items": _item_table(items),
    })
    rs = _build_response_set(tables, T=T, name=f"simulated-{generator}", meta=_meta(generator, params))
    return Simulation(responses=rs, truth=truth, generator=generator, params=params, matrix=matrix,
                      tables=tables)


# --------------------------------------------------------------------------------------------------
# binary responses, chunked and reproducible (shared by mirt_2pl, binary_matrix, write_long_parquet)
# --------------------------------------------------------------------------------------------------


def _draw_binary_block(p_block: np.ndarray, gens) -> np.ndarray:
    """Bernoulli draws for a (n_items, chunk) probability block, one generator per column."""
    n_items, width = p_block.shape
    u = np.empty((width, n_items), dtype=np.float32)
    for j, g in enumerate(gens):
        g.random(n_items, dtype=np.float32, out=u[j])
    return (u.T < p_block)


def _binary_matrix_from(prob_block: Callable[[int, int], np.ndarray], n_items: int, n_models: int,
                        ss: np.random.SeedSequence, chunk: int, dtype) -> np.ndarray:
    out = np.empty((n_items, n_models), dtype=dtype)
    for start in range(0, n_models, chunk):
        stop = min(start + chunk, n_models)
        p = prob_block(start, stop)
        out[:, start:stop] = _draw_binary_block(p, _model_generators(ss, start, stop))
    return out


# --------------------------------------------------------------------------------------------------
# 1. multidimensional 2PL with families, owners, sizes
# --------------------------------------------------------------------------------------------------

_DEFAULT_FAMILIES = ("llama", "qwen", "gemma", "mistral", "phi")
_DEFAULT_SIZES = (0.5, 1.5, 3.0, 7.0, 8.0, 14.0, 32.0, 70.0)


def mirt_2pl(
    n_items: int = 500,
    n_models: int = 60,
    *,
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
    seed: Any = None,
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
    seed : None, int, SeedSequence or Generator

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
    """
    n_items = check_int("n_items", n_items, min=1)
    n_models = check_int("n_models", n_models, min=2)
    n_dims = check_int("n_dims", n_dims, min=1)
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
        matrix_only=bool(matrix_only), seed=seed if isinstance(seed, (int, type(None))) else repr(seed),
    )

    ss_models, ss_items, ss_flaws, ss_resp = _children(seed, 4)
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
        return Simulation(responses=None, truth=truth, generator="mirt_2pl", params=frozen, matrix=Y)
    responses = pd.DataFrame({
        "model": pd.array(np.repeat(np.asarray(model_ids, dtype=object), n_items), dtype="string"),
        "item": pd.array(np.tile(np.asarray(item_ids, dtype=object), n_models), dtype="string"),
        "correct": Y.T.ravel().astype(np.int8),
    })
    return _finish("mirt_2pl", truth, frozen, responses, models, items, T=1, matrix=Y)


# --------------------------------------------------------------------------------------------------
# 2. repeated sampling along an ordered size ladder (BSDProbe)
# --------------------------------------------------------------------------------------------------

_DEFAULT_LADDER = (0.6, 1.7, 4.0, 8.0, 14.0, 32.0)  # the Qwen3 axis of the BSDProbe paper


def _state_labels(n_states: int) -> list[str]:
    if n_states <= 26:
        return [chr(ord("A") + j) for j in range(n_states)]
    width = len(str(n_states - 1))
    return [f"s{j:0{width}d}" for j in range(n_states)]


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
    n_items: int = 300,
    ladder: int | Sequence[float] = _DEFAULT_LADDER,
    *,
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
    seed: Any = None,
) -> Simulation:
    r"""T repeated responses with answer states along an ordered model axis (a size ladder).

    Parameters
    ----------
    n_items : int
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
    seed : None, int, SeedSequence or Generator

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
    item) averages 0.35-0.55 over all cells (0.45-0.46 for seeds 2 and 3); about 0.1-0.15 where
    :math:`\theta \ge 0.9` (concentrated high side), about 0.5 where :math:`\theta < 0.1`
    (wrong answers spread over 3-4 states) and about 0.6 in between. Checked in the tests.
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
            f"floor={floor} and ceiling={ceiling} overlap; the highest floor must not exceed the lowest ceiling"
        )
    flat_beta = _check_range("flat_beta", flat_beta, lo=1e-6, hi=1e6)
    anomaly_width = check_float("anomaly_width", anomaly_width, min=0.0, min_inclusive=False)
    item_concentration = check_float("item_concentration", item_concentration, min=0.0, min_inclusive=False)
    model_concentration = check_float("model_concentration", model_concentration, min=0.0, min_inclusive=False)
    no_answer = check_float("no_answer", no_answer, min=0.0, max=1.0, max_inclusive=False)
    params = _freeze(dict(
        n_items=n_items, ladder=n_models if np.isnan(size_b).any() else tuple(size_b.tolist()), T=T,
        n_states=n_states, flawed=dict(flawed), family=family, owner=owner, axis=axis,
        boundary_loc=boundary_loc, boundary_sd=boundary_sd, width=width, width_sd=width_sd,
        floor=floor, ceiling=ceiling, flat_beta=flat_beta, anomaly_width=anomaly_width,
        item_concentration=item_concentration, model_concentration=model_concentration,
        no_answer=no_answer, seed=seed if isinstance(seed, (int, type(None))) else repr(seed),
    ))

    ss_items, ss_flaws, ss_resp = _children(seed, 3)
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
    for i, g in enumerate(_model_generators(ss_resp, 0, n)):
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
    return _finish("repeated_sampling", truth, params, responses, models, items, T=T)


# --------------------------------------------------------------------------------------------------
# 3. option probabilities of multiple-choice items (probability landscapes)
# --------------------------------------------------------------------------------------------------


def mcq_probabilities(
    n_items: int = 300,
    n_models: int = 8,
    *,
    k: int = 4,
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
    seed: Any = None,
) -> Simulation:
    r"""Option probabilities of k-option multiple-choice items for several models.

    Parameters
    ----------
    n_items, n_models : int
    k : int
        Options per item (2-26), lettered ``A``, ``B``, ...
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
    seed : None, int, SeedSequence or Generator

    Returns
    -------
    Simulation
        ``responses`` in long form (``model, item, correct, answer, option_probs``; ``answer`` is
        the top option's letter and ``correct = (answer == answer_key)``); ``truth.items`` has
        ``answer_key, true_answer, difficulty, discrimination, partner, gap (the logit gap
        :math:`\delta_q` of ambiguous items), flaw, flaw_detail, p_mean``; ``truth.models`` has ``ability, sharpness, p_mean``; ``truth.arrays["option_probs"]``
        is (n_items, n_models, k) in letter order and ``truth.p_correct`` the probability on the
        keyed option.

    Notes
    -----
    For model m and item q, in canonical option order (true answer first):

    .. math:: z_{mq0} = a_q(\theta_m - \beta_q) + \epsilon_{mq0}, \qquad
              z_{mqj} = \log \rho_{qj} + \epsilon_{mqj} \ (j = 1..k-1),

    :math:`\epsilon \sim N(0, \sigma^2)` (``logit_noise``) and
    :math:`P_{mq} = \mathrm{softmax}(\tau_m z_{mq})`, a logistic-normal around the item's
    difficulty and the model's ability. The options are then shuffled by an item-specific
    permutation (``true_answer`` is the letter of option 0). With the defaults (seed 3) model
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
    """
    n_items = check_int("n_items", n_items, min=1)
    n_models = check_int("n_models", n_models, min=1)
    k = check_int("k", k, min=2, max=26)
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
        n_items=n_items, n_models=n_models, k=k, flawed=dict(flawed), ability_sd=ability_sd,
        difficulty_loc=difficulty_loc, difficulty_sd=difficulty_sd, discrimination=discrimination,
        discrimination_sd=discrimination_sd, distractor_concentration=distractor_concentration,
        logit_noise=logit_noise, sharpness=sharpness, sharpness_slope=sharpness_slope,
        ambiguity_sd=ambiguity_sd, model_prefix=model_prefix,
        seed=seed if isinstance(seed, (int, type(None))) else repr(seed),
    ))
    ss_models, ss_items, ss_flaws, ss_resp = _children(seed, 4)

    rm = np.random.default_rng(ss_models)
    ability = np.sort(rm.normal(0.0, ability_sd, size=n_models))
    tau = sharpness * np.exp(sharpness_slope * ability)

    ri = np.random.default_rng(ss_items)
    beta = ri.normal(difficulty_loc, difficulty_sd, size=n_items)
    a = discrimination * np.exp(ri.normal(0.0, discrimination_sd, size=n_items))
    rho = ri.dirichlet(np.full(k - 1, distractor_concentration), size=n_items)
    perm = np.argsort(ri.random((n_items, k)), axis=1)  # perm[q, c] = letter of canonical option c
    log_rho = np.log(np.maximum(rho, 1e-300))

    rf = np.random.default_rng(ss_flaws)
    flaw = _assign_flaws(rf, counts, n_items)
    delta = rf.normal(0.0, ambiguity_sd, size=n_items)
    top_distractor = 1 + np.argmax(rho, axis=1)  # canonical index of the most attractive distractor
    letters = _state_labels(k)
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

    P = np.empty((n_items, n_models, k))
    amb_rows = np.flatnonzero(ambiguous)
    for m, g in enumerate(_model_generators(ss_resp, 0, n_models)):
        eps = g.normal(0.0, logit_noise, size=(n_items, k))
        z = np.empty((n_items, k))
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
        "option_probs": list(PT.reshape(-1, k)),
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
    return _finish("mcq_probabilities", truth, params, responses, models, items, T=1)


# --------------------------------------------------------------------------------------------------
# 4. binary matrix at scale, and a streaming long Parquet writer
# --------------------------------------------------------------------------------------------------

_MATRIX_DTYPES = ("int8", "uint8", "bool", "int16", "int32", "int64", "float32", "float64")


@dataclass(frozen=True)
class _BinaryModel:
    a: np.ndarray  # float32 (n_items,)
    b: np.ndarray  # float32 (n_items,)
    theta: np.ndarray  # float32 (n_models,)
    guessing: float
    ss_resp: np.random.SeedSequence
    truth: SimulationTruth

    def prob_block(self, start: int, stop: int) -> np.ndarray:
        eta = self.b[:, None] + self.a[:, None] * self.theta[None, start:stop]
        np.negative(eta, out=eta)
        np.exp(eta, out=eta)
        eta += 1.0
        np.reciprocal(eta, out=eta)  # logistic, float32, in place
        if self.guessing:
            eta *= np.float32(1.0 - self.guessing)
            eta += np.float32(self.guessing)
        return eta


def _binary_model(n_items, n_models, seed, ability_sd, easiness_loc, easiness_sd, discrimination,
                  discrimination_sd, guessing) -> tuple[_BinaryModel, dict[str, Any]]:
    n_items = check_int("n_items", n_items, min=1)
    n_models = check_int("n_models", n_models, min=1)
    ability_sd = check_float("ability_sd", ability_sd, min=0.0)
    easiness_loc = check_float("easiness_loc", easiness_loc)
    easiness_sd = check_float("easiness_sd", easiness_sd, min=0.0)
    discrimination = check_float("discrimination", discrimination, min=0.0, min_inclusive=False)
    discrimination_sd = check_float("discrimination_sd", discrimination_sd, min=0.0)
    guessing = check_float("guessing", guessing, min=0.0, max=1.0, max_inclusive=False)
    ss_models, ss_items, ss_resp = _children(seed, 3)
    theta = np.random.default_rng(ss_models).normal(0.0, ability_sd, size=n_models)
    ri = np.random.default_rng(ss_items)
    b = ri.normal(easiness_loc, easiness_sd, size=n_items)
    a = discrimination * np.exp(ri.normal(0.0, discrimination_sd, size=n_items))
    model_ids = pd.Index(_item_ids(n_models, "m"), name="model", dtype="string")
    item_ids = pd.Index(_item_ids(n_items, "q"), name="item", dtype="string")
    items = pd.DataFrame(
        {"discrimination": a, "easiness": b,
         "flaw": pd.array([NO_FLAW] * n_items, dtype="string"),
         "flaw_detail": pd.array([""] * n_items, dtype="string")},
        index=item_ids,
    )
    models = pd.DataFrame({"order": np.arange(n_models), "theta": theta}, index=model_ids)
    truth = SimulationTruth(items=items, models=models, flaws=_flaw_table(items, ()))
    params = dict(n_items=n_items, n_models=n_models, ability_sd=ability_sd, easiness_loc=easiness_loc,
                  easiness_sd=easiness_sd, discrimination=discrimination,
                  discrimination_sd=discrimination_sd, guessing=guessing,
                  seed=seed if isinstance(seed, (int, type(None))) else repr(seed))
    bm = _BinaryModel(a=a.astype(np.float32), b=b.astype(np.float32),
                      theta=theta.astype(np.float32), guessing=guessing, ss_resp=ss_resp, truth=truth)
    return bm, params


def binary_matrix(
    n_items: int,
    n_models: int,
    *,
    seed: Any,
    dtype: Any = np.int8,
    chunk: int = 256,
    ability_sd: float = 1.0,
    easiness_loc: float = 0.5,
    easiness_sd: float = 1.5,
    discrimination: float = 1.0,
    discrimination_sd: float = 0.3,
    guessing: float = 0.0,
) -> Simulation:
    r"""A binary items x models response matrix from a 2PL model, fast and memory-lean at scale.

    Parameters
    ----------
    n_items, n_models : int
    seed : None, int, SeedSequence or Generator
        Required (keyword) so that large benchmark inputs are always reproducible.
    dtype : numpy dtype
        Of the returned matrix: int8 (default, 1 byte per response), uint8, bool, int16, int32,
        int64, float32 or float64.
    chunk : int
        Models generated at once (memory ~ 8 bytes x n_items x chunk); the result does not depend
        on it.
    ability_sd, easiness_loc, easiness_sd, discrimination, discrimination_sd, guessing : float
        Model parameters (see Notes).

    Returns
    -------
    Simulation
        ``matrix`` (n_items, n_models) of 0/1, ``responses`` None (build one with
        :meth:`Simulation.to_response_set`), ``truth.items`` (``discrimination, easiness``) and
        ``truth.models`` (``theta``); no flaws are planted and ``truth.p_correct`` is None.

    Notes
    -----
    :math:`\theta_m \sim N(0, \sigma_\theta^2)`, :math:`b_i \sim N(b_0, \sigma_b^2)`,
    :math:`a_i = a_0 e^{N(0, s_a^2)}` and independently

    .. math:: Y_{im} \sim \mathrm{Bernoulli}\big(g + (1 - g)\,\sigma(a_i \theta_m + b_i)\big),

    computed in float32 (probabilities to ~1e-7, immaterial next to sampling noise) and drawn as
    ``U < p`` with float32 uniforms from model m's own generator (SeedSequence child m), so any
    ``chunk`` gives the same matrix; and the first m models of a call with more models equal a
    call with m models (abilities are one sequential normal stream). For 14,000 x 5,000 (70M responses) the int8 output takes 70 MB
    and the working memory ~ n_items x chunk x 12 bytes (43 MB at the default chunk).
    :func:`write_long_parquet` with the same seed and parameters writes exactly these responses.
    """
    try:
        dt = np.dtype(dtype)
    except TypeError as exc:
        raise BenchkitTypeError(f"dtype={describe(dtype)} is not a numpy dtype") from exc
    check_choice("dtype", dt.name, _MATRIX_DTYPES)
    chunk = check_int("chunk", chunk, min=1)
    bm, params = _binary_model(n_items, n_models, seed, ability_sd, easiness_loc, easiness_sd,
                               discrimination, discrimination_sd, guessing)
    params["dtype"] = dt.name
    Y = _binary_matrix_from(bm.prob_block, bm.a.size, bm.theta.size, bm.ss_resp, chunk, dt)
    return Simulation(responses=None, truth=bm.truth, generator="binary_matrix",
                      params=_freeze(params), matrix=Y)


def write_long_parquet(
    path: str | Path,
    n_items: int,
    n_models: int,
    *,
    seed: Any,
    row_group_size: int = 1_048_576,
    compression: str = "snappy",
    ability_sd: float = 1.0,
    easiness_loc: float = 0.5,
    easiness_sd: float = 1.5,
    discrimination: float = 1.0,
    discrimination_sd: float = 0.3,
    guessing: float = 0.0,
) -> ParquetWriteResult:
    """Stream the responses of :func:`binary_matrix` to a long Parquet file, chunk by chunk.

    Parameters
    ----------
    path : str or Path
        File to (over)write; its folder must exist.
    n_items, n_models, seed, ability_sd, easiness_loc, easiness_sd, discrimination, \
discrimination_sd, guessing
        As in :func:`binary_matrix`; the same values give exactly the same responses.
    row_group_size : int
        Upper bound on rows per row group. Whole models are written together:
        ``max(1, row_group_size // n_items)`` models per row group.
    compression : {"snappy", "zstd", "gzip", "none"}
        Snappy (pyarrow's default) writes ~2x faster than zstd; zstd files are ~25% smaller.

    Returns
    -------
    ParquetWriteResult

    Notes
    -----
    Columns: ``model`` (string), ``item`` (string), ``correct`` (int8), rows ordered by model then
    item (model-major, as a per-model evaluation log would be). Each chunk is built directly as
    Arrow dictionary arrays (indices into the id lists) and written with
    :class:`pyarrow.parquet.ParquetWriter`; no pandas frame of the whole file is ever built and
    the memory in use is that of one row group. Column statistics are written for ``model``
    (row groups can be skipped by model) and ``correct``, not for ``item`` (every row group holds
    all items; string min/max statistics would double the write time).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    if not path.parent.is_dir():
        raise BenchkitValueError(f"path={str(path)!r}: folder {str(path.parent)!r} does not exist")
    row_group_size = check_int("row_group_size", row_group_size, min=1)
    compression = check_choice("compression", compression, ("snappy", "zstd", "gzip", "none"))
    bm, _ = _binary_model(n_items, n_models, seed, ability_sd, easiness_loc, easiness_sd,
                          discrimination, discrimination_sd, guessing)
    n_items, n_models = bm.a.size, bm.theta.size
    per_group = max(1, row_group_size // n_items)
    item_dict = pa.array(bm.truth.items.index.to_numpy(dtype=object), type=pa.string())
    model_dict = pa.array(bm.truth.models.index.to_numpy(dtype=object), type=pa.string())
    # dictionary-encoded ids are written as Parquet dictionary pages; store_schema=False makes
    # readers (pyarrow, pandas, DuckDB) see plain strings
    schema = pa.schema([("model", pa.dictionary(pa.int32(), pa.string())),
                        ("item", pa.dictionary(pa.int32(), pa.string())), ("correct", pa.int8())])
    item_idx = np.arange(n_items, dtype=np.int32)
    n_rows = n_groups = 0
    with pq.ParquetWriter(path, schema, compression=compression, store_schema=False,
                          write_statistics=["model", "correct"]) as writer:
        for start in range(0, n_models, per_group):
            stop = min(start + per_group, n_models)
            y = _draw_binary_block(bm.prob_block(start, stop), _model_generators(bm.ss_resp, start, stop))
            width = stop - start
            m_idx = np.repeat(np.arange(start, stop, dtype=np.int32), n_items)
            model_col = pa.DictionaryArray.from_arrays(pa.array(m_idx), model_dict)
            item_col = pa.DictionaryArray.from_arrays(pa.array(np.tile(item_idx, width)), item_dict)
            correct = pa.array(np.ascontiguousarray(y.T).ravel().astype(np.int8))
            table = pa.Table.from_arrays([model_col, item_col, correct], schema=schema)
            writer.write_table(table, row_group_size=table.num_rows)
            n_rows += table.num_rows
            n_groups += 1
    return ParquetWriteResult(path=path, n_rows=n_rows, n_row_groups=n_groups,
                              n_bytes=path.stat().st_size, truth=bm.truth)


# --------------------------------------------------------------------------------------------------
# committed samples (data_samples/)
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SampleSpec:
    """A committed sample: generator, its arguments and the seed.

    ``data_samples/make_samples.py`` writes every entry of :data:`SAMPLES` to
    ``data_samples/<name>/`` and :func:`load_sample` reads it back.
    """

    name: str
    generator: str
    params: Mapping[str, Any]
    seed: int
    description: str

    def generate(self) -> Simulation:
        """Run the generator with the recorded arguments and seed."""
        fn = {"mirt_2pl": mirt_2pl, "repeated_sampling": repeated_sampling,
              "mcq_probabilities": mcq_probabilities}[self.generator]
        return fn(**dict(self.params), seed=self.seed)

    def call(self) -> str:
        """The generating call as Python source."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"benchkit.simulate.{self.generator}({args}, seed={self.seed})"


def _spec(name, generator, seed, description, **params) -> tuple[str, SampleSpec]:
    return name, SampleSpec(name, generator, MappingProxyType(params), seed, description)


#: The samples committed in ``data_samples/`` (see ``data_samples/README.md``).
SAMPLES: Mapping[str, SampleSpec] = MappingProxyType(dict([
    _spec("ladder", "repeated_sampling", 20260601,
          "BSDProbe-style: 300 items x a 6-model size ladder (0.6B-32B), T=10 repeated responses "
          "with answer states A-D and NO_ANSWER; 15 non-monotone and 30 flat items planted",
          n_items=300, ladder=(0.6, 1.7, 4.0, 8.0, 14.0, 32.0), T=10, n_states=4,
          flawed={"non_monotone": 0.05, "flat": 0.10}),
    _spec("mirt", "mirt_2pl", 20260602,
          "500 items x 60 models from 5 families and 12 owners under a 3-dimensional 2PL; "
          "10 miskeyed, 10 non-monotone and 20 family-biased items planted",
          n_items=500, n_models=60, n_dims=3, owners=12,
          flawed={"miskeyed": 0.02, "non_monotone": 0.02, "family_biased": 0.04}),
    _spec("mcq", "mcq_probabilities", 20260603,
          "300 four-option items x 8 models with option probabilities; 9 miskeyed and 9 "
          "ambiguous items planted",
          n_items=300, n_models=8, k=4, flawed={"miskeyed": 0.03, "ambiguous": 0.03}),
    _spec("dif", "mirt_2pl", 20260604,
          "family-DIF scale: 400 items x 300 models from 5 families and 40 owners (3-dimensional "
          "2PL, 4-option guessing floor 0.25); 24 family-biased, 8 owner-biased and 8 miskeyed items",
          n_items=400, n_models=300, n_dims=3, owners=40, guessing=0.25,
          flawed={"family_biased": 0.06, "owner_biased": 0.02, "miskeyed": 0.02}),
    _spec("suite", "mirt_2pl", 20260605,
          "Benchmark²-style: 6 benchmarks x 100 items, 24 models from 4 families; each benchmark "
          "weights the 4 ability dimensions differently; 12 miskeyed and 12 non-monotone items",
          n_items=600, n_models=24, n_dims=4, families=("llama", "qwen", "gemma", "mistral"),
          owners=8, benchmarks=("math", "code", "reasoning", "knowledge", "reading", "science"),
          flawed={"miskeyed": 0.02, "non_monotone": 0.02}),
]))

_SAMPLE_FILES = ("responses", "models", "items", "truth_items", "truth_models", "truth_flaws")


def sample_names() -> tuple[str, ...]:
    """Names accepted by :func:`load_sample`."""
    return tuple(SAMPLES)


def samples_dir() -> Path:
    """The ``data_samples/`` folder of a repository checkout (it may not exist in an install)."""
    return Path(__file__).resolve().parent.parent / "data_samples"


def sample_tables(sim: Simulation) -> dict[str, pd.DataFrame]:
    """The tables :func:`load_sample` stores for a simulation (used by ``make_samples.py``)."""
    if sim.tables is None:
        raise BenchkitValueError("this simulation holds only a matrix; generate it with matrix_only=False")
    return {
        "responses": sim.tables["responses"],
        "models": sim.tables["models"],
        "items": sim.tables["items"],
        "truth_items": sim.truth.items.reset_index(),
        "truth_models": sim.truth.models.reset_index(),
        "truth_flaws": sim.truth.flaws,
    }


def write_sample(name: str, folder: str | Path | None = None) -> list[Path]:
    """Generate sample ``name`` and write its Parquet files to ``folder/<name>/``."""
    spec = SAMPLES[check_choice("name", name, tuple(SAMPLES))]
    out = Path(folder) if folder is not None else samples_dir()
    target = out / name
    target.mkdir(parents=True, exist_ok=True)
    paths = []
    for key, frame in sample_tables(spec.generate()).items():
        path = target / f"{key}.parquet"
        frame.to_parquet(path, index=False, compression="zstd")
        paths.append(path)
    return paths


def load_sample(name: str, *, with_truth: bool = False, regenerate: bool = False,
                folder: str | Path | None = None):
    """Load a small simulated sample as a :class:`benchkit.ResponseSet`.

    Parameters
    ----------
    name : str
        One of :func:`sample_names`: ``"ladder"`` (repeated sampling along a 6-model ladder),
        ``"mirt"`` (500 items x 60 models with families / owners), ``"mcq"`` (option
        probabilities), ``"dif"`` (300 models, 40 owners), ``"suite"`` (6 benchmarks).
    with_truth : bool
        Return the :class:`Simulation` (responses and truth) instead of the ResponseSet.
    regenerate : bool
        Generate the sample from :data:`SAMPLES` instead of reading the files.
    folder : path, optional
        Where the samples live (default: ``data_samples/`` of the repository checkout).

    Notes
    -----
    ``data_samples/`` is part of repository checkouts, not of the installed wheel. When the
    sample's folder is absent the sample is regenerated from its recorded generator, arguments
    and seed, which gives the same responses (the test suite checks the committed files
    against regeneration). A sample read from files has ``truth.p_correct = None``.
    """
    name = check_choice("name", name, tuple(SAMPLES))
    spec = SAMPLES[name]
    base = Path(folder) if folder is not None else samples_dir()
    target = base / name
    if regenerate or not all((target / f"{f}.parquet").is_file() for f in _SAMPLE_FILES):
        if folder is not None and not regenerate:
            raise BenchkitValueError(
                f"folder={str(folder)!r} has no complete sample {name!r} "
                f"(expected {', '.join(f + '.parquet' for f in _SAMPLE_FILES)} in {str(target)!r})"
            )
        sim = spec.generate()
        return sim if with_truth else sim.responses
    from benchkit.response_set import ResponseSet

    frames = {f: pd.read_parquet(target / f"{f}.parquet") for f in _SAMPLE_FILES}
    T = int(dict(spec.params).get("T", 1))
    rs = ResponseSet.from_long(
        frames["responses"], models=frames["models"], items=frames["items"], T=T,
        parse_names=False, name=f"sample-{name}",
        meta={"source": f"benchkit.simulate.load_sample({name!r})", "notes": spec.call(),
              "description": spec.description},
    )
    if not with_truth:
        return rs
    truth = SimulationTruth(
        items=frames["truth_items"].set_index("item"),
        models=frames["truth_models"].set_index("model"),
        flaws=frames["truth_flaws"],
    )
    return Simulation(responses=rs, truth=truth, generator=spec.generator,
                      params=_freeze({**dict(spec.params), "seed": spec.seed}),
                      tables=MappingProxyType({k: frames[k] for k in ("responses", "models", "items")}))
