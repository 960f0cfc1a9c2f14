"""Shared pieces of the simulators: results, flaw bookkeeping, tables, seeded binary draws."""
from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from benchkit._budget import check_memory
from benchkit._random import spawn
from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_array
from benchkit._validation import check_choice
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit._validation import describe

NO_FLAW = "none"

#: The flaw kinds each generator can plant (keys of its ``flawed`` argument), in the order in which
#: items are assigned to them.
FLAW_KINDS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "mirt_2pl": ("miskeyed", "non_monotone", "family_biased", "owner_biased"),
    "repeated_sampling": ("non_monotone", "flat"),
    "mcq_probabilities": ("miskeyed", "ambiguous"),
    "audit_suite": ("miskeyed", "ambiguous", "non_monotone", "family_biased"),
})

_LN3 = math.log(3.0)



# --------------------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------------------


@result
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

    Parameters
    ----------
    items, models, flaws, p_correct, arrays
        As the attributes above, filled by the generator.

    Examples
    --------
    Which items were planted as flawed, to check a detector against:

    >>> from benchkit.simulate import mcq_probabilities
    >>> truth = mcq_probabilities(n_items=30, n_models=3, rng=0).truth
    >>> truth
    SimulationTruth(30 items, 3 models, planted flaws: miskeyed: 1, ambiguous: 1)
    >>> truth.items_with("miskeyed").tolist(), truth.flawed_items.tolist()
    (['q0018'], ['q0018', 'q0019'])
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


@result
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
        The arguments of the call (read-only), including ``rng``.
    matrix : numpy.ndarray or None
        Binary items x models matrix (principal sample) for the matrix-emitting generators.
    tables : Mapping[str, pandas.DataFrame] or None
        The long ``responses`` table and the ``models`` / ``items`` tables that
        :meth:`benchkit.ResponseSet.from_long` was given (e.g. to write them to files);
        ``None`` when only the matrix was generated.
    rng_entropy : int
        Entropy of the root seed the data were drawn from (:mod:`benchkit._random`): calling the
        generator with the same arguments and ``rng=rng_entropy`` draws the same data, also when
        ``rng`` was None or a Generator.

    Parameters
    ----------
    responses, truth, generator, params, matrix, tables, rng_entropy
        As the attributes above, filled by the generator.

    Examples
    --------
    >>> from benchkit.simulate import mirt_2pl
    >>> sim = mirt_2pl(n_items=40, n_models=12, rng=0)
    >>> sim.generator, sim.rng_entropy
    ('mirt_2pl', 0)
    >>> sim.truth
    SimulationTruth(40 items, 12 models, planted flaws: family_biased: 2, miskeyed: 1, non_monotone: 1)
    >>> sim.responses
    ResponseSet 'simulated-mirt_2pl': 40 items x 12 models, 480 responses, T=1, 0.0% cells missing
    >>> sim.to_frame().loc[sim.truth.flawed_items, ["flaw", "flaw_detail"]].shape
    (4, 2)
    """

    responses: Any
    truth: SimulationTruth
    generator: str
    params: Mapping[str, Any]
    matrix: np.ndarray | None = None
    tables: Mapping[str, pd.DataFrame] | None = None
    rng_entropy: Any = None

    def to_frame(self) -> pd.DataFrame:
        """Item-level truth table: one row per item with its parameters and planted flaw."""
        return self.truth.to_frame()

    def __repr__(self) -> str:
        held = "ResponseSet" if self.responses is not None else "matrix only"
        return f"Simulation({self.generator}, {held}, {self.truth!r}, rng={self.params.get('rng')!r})"

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


@result
class ParquetWriteResult:
    """What :func:`write_long_parquet` wrote.

    Parameters
    ----------
    path, n_rows, n_row_groups, n_bytes, truth, rng_entropy
        The fields below, filled by :func:`write_long_parquet`.

    Attributes
    ----------
    path : pathlib.Path
        The written file.
    n_rows : int
        Rows written: one per (model, item) response.
    n_row_groups : int
        Parquet row groups written (whole models per group).
    n_bytes : int
        Size of the written file.
    truth : SimulationTruth
        Item and model parameters (``p_correct`` is ``None``).
    rng_entropy : int
        Entropy of the root seed: the same arguments with ``rng=rng_entropy`` write the same
        responses (and :func:`binary_matrix` with it returns them as a matrix).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from benchkit.simulate import write_long_parquet
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "responses.parquet"
    >>> res = write_long_parquet(path, 30, 8, rng=4)
    >>> res.n_rows, res.n_row_groups, res.to_frame().columns.tolist()
    (240, 1, ['path', 'n_rows', 'n_row_groups', 'n_bytes'])
    """

    path: Path
    n_rows: int
    n_row_groups: int
    n_bytes: int
    truth: SimulationTruth
    rng_entropy: Any = None

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
            f"flawed asks for {total} flawed items "
            f"({', '.join(f'{k}: {v}' for k, v in counts.items() if v)}) "
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


def _state_labels(n_states: int) -> list[str]:
    if n_states <= 26:
        return [chr(ord("A") + j) for j in range(n_states)]
    width = len(str(n_states - 1))
    return [f"s{j:0{width}d}" for j in range(n_states)]


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


def _build_response_set(tables: Mapping[str, pd.DataFrame], *, T: int, name: str,
                        meta: dict[str, Any]):
    from benchkit.response_set import ResponseSet

    return ResponseSet.from_long(
        tables["responses"], models=tables["models"], items=tables["items"], T=T,
        parse_names=False, name=name, meta=meta,
    )


def _finish(generator: str, truth: SimulationTruth, params: Mapping[str, Any],
            responses: pd.DataFrame, models: pd.DataFrame, items: pd.DataFrame, *, T: int,
            rng_entropy: Any, matrix: np.ndarray | None = None) -> Simulation:
    tables = MappingProxyType({
        "responses": responses, "models": _roster_table(models), "items": _item_table(items),
    })
    rs = _build_response_set(tables, T=T, name=f"simulated-{generator}", meta=_meta(generator, params))
    return Simulation(responses=rs, truth=truth, generator=generator, params=params, matrix=matrix,
                      tables=tables, rng_entropy=rng_entropy)




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


def _refuse_oversized(generator: str, shape: str, n_cells: float, bytes_per_cell: float,
                      working: float = 0.0) -> None:
    """Refuse a simulation whose estimated memory exceeds the budget.

    The estimate is ``n_cells`` cells of ``bytes_per_cell`` plus ``working`` bytes of temporaries;
    the per-cell figures are each generator's measured peak (tracemalloc) rounded up, and
    tests/test_simulate_memory.py keeps them between 1x and 2x of it.
    """
    check_memory(f"{generator} of {shape} ({n_cells:,.0f} cells)", n_cells * bytes_per_cell + working,
                 hint="simulate fewer items or models (or write_long_parquet, which streams)")


def _binary_matrix_from(prob_block: Callable[[int, int], np.ndarray], n_items: int, n_models: int,
                        ss: np.random.SeedSequence, chunk: int, dtype) -> np.ndarray:
    out = np.empty((n_items, n_models), dtype=dtype)
    children = spawn(ss, n_models)  # child m of ss draws model m's responses
    for start in range(0, n_models, chunk):
        stop = min(start + chunk, n_models)
        p = prob_block(start, stop)
        out[:, start:stop] = _draw_binary_block(p, _model_generators(children, start, stop))
    return out



def _model_generators(children: list[np.random.SeedSequence], start: int, stop: int):
    """Generators of models ``start..stop-1``, from their SeedSequence children."""
    return (np.random.default_rng(c) for c in children[start:stop])
