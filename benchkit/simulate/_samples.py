"""The small samples committed in ``data_samples/``: their specs, writer and loader."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pandas as pd

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit.simulate._common import Simulation
from benchkit.simulate._common import SimulationTruth
from benchkit.simulate._common import _freeze
from benchkit.simulate._ladder import repeated_sampling
from benchkit.simulate._mcq import mcq_probabilities
from benchkit.simulate._mirt import mirt_2pl

# --------------------------------------------------------------------------------------------------
# committed samples (data_samples/)
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SampleSpec:
    """A committed sample: generator, its arguments and its integer ``rng``.

    ``data_samples/make_samples.py`` writes every entry of :data:`SAMPLES` to
    ``data_samples/<name>/`` and :func:`load_sample` reads it back.

    Parameters
    ----------
    name : str
        The sample's name (a key of :data:`SAMPLES`).
    generator : str
        The generating function of :mod:`benchkit.simulate` (``"mirt_2pl"``,
        ``"repeated_sampling"`` or ``"mcq_probabilities"``).
    params : Mapping[str, Any]
        Its keyword arguments, except ``rng``.
    rng : int
        The seed.
    description : str
        What the sample holds and which flaws are planted.

    Examples
    --------
    >>> from benchkit.simulate import SAMPLES
    >>> SAMPLES["mcq"].call()
    "benchkit.simulate.mcq_probabilities(n_items=300, n_models=8, n_options=4, ..., rng=20260603)"
    """

    name: str
    generator: str
    params: Mapping[str, Any]
    rng: int
    description: str

    def generate(self) -> Simulation:
        """Run the generator with the recorded arguments and ``rng``."""
        fn = {"mirt_2pl": mirt_2pl, "repeated_sampling": repeated_sampling,
              "mcq_probabilities": mcq_probabilities}[self.generator]
        return fn(**dict(self.params), rng=self.rng)

    def call(self) -> str:
        """The generating call as Python source."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"benchkit.simulate.{self.generator}({args}, rng={self.rng})"


def _spec(name, generator, rng, description, **params) -> tuple[str, SampleSpec]:
    return name, SampleSpec(name, generator, MappingProxyType(params), rng, description)


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
          n_items=300, n_models=8, n_options=4, flawed={"miskeyed": 0.03, "ambiguous": 0.03}),
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
    """Names accepted by :func:`load_sample`.

    Returns
    -------
    tuple of str
        The keys of :data:`SAMPLES`, in their documented order.

    References
    ----------
    benchkit's own samples, drawn by the generators of :mod:`benchkit.simulate` (see
    ``data_samples/README.md`` in the repository); each generator's docstring cites the paper
    whose data it imitates.

    Examples
    --------
    >>> from benchkit.simulate import sample_names
    >>> sample_names()
    ('ladder', 'mirt', 'mcq', 'dif', 'suite')
    """
    return tuple(SAMPLES)


def samples_dir() -> Path:
    """The ``data_samples/`` folder of a repository checkout (it may not exist in an install).

    Returns
    -------
    pathlib.Path
        ``<repository>/data_samples``; :func:`load_sample` regenerates a sample when its folder
        is absent.

    References
    ----------
    benchkit's own samples, drawn by the generators of :mod:`benchkit.simulate` (see
    ``data_samples/README.md`` in the repository); each generator's docstring cites the paper
    whose data it imitates.

    Examples
    --------
    >>> from benchkit.simulate import samples_dir
    >>> samples_dir().name
    'data_samples'
    """
    return Path(__file__).resolve().parent.parent.parent / "data_samples"


def sample_tables(sim: Simulation) -> dict[str, pd.DataFrame]:
    """The tables :func:`load_sample` stores for a simulation (used by ``make_samples.py``).

    Parameters
    ----------
    sim : Simulation
        A simulation with its tables (``matrix_only=False``).

    Returns
    -------
    dict of str to DataFrame
        ``responses``, ``models``, ``items`` (what :meth:`benchkit.ResponseSet.from_long` reads)
        and ``truth_items``, ``truth_models``, ``truth_flaws``.

    References
    ----------
    benchkit's own samples, drawn by the generators of :mod:`benchkit.simulate` (see
    ``data_samples/README.md`` in the repository); each generator's docstring cites the paper
    whose data it imitates.

    Examples
    --------
    >>> from benchkit.simulate import mcq_probabilities, sample_tables
    >>> tables = sample_tables(mcq_probabilities(n_items=30, n_models=3, rng=0))
    >>> sorted(tables)
    ['items', 'models', 'responses', 'truth_flaws', 'truth_items', 'truth_models']
    """
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


def write_sample(name: str, *, folder: str | Path | None = None) -> list[Path]:
    """Generate sample ``name`` and write its Parquet files to ``folder/<name>/``.

    Parameters
    ----------
    name : str
        One of :func:`sample_names`.
    folder : str or Path, optional
        Where to write (default :func:`samples_dir`); ``folder/<name>/`` is created.

    Returns
    -------
    list of pathlib.Path
        The Parquet files written, one per table of :func:`sample_tables`.

    References
    ----------
    benchkit's own samples, drawn by the generators of :mod:`benchkit.simulate` (see
    ``data_samples/README.md`` in the repository); each generator's docstring cites the paper
    whose data it imitates.

    Examples
    --------
    >>> import tempfile
    >>> from benchkit.simulate import load_sample, write_sample
    >>> folder = tempfile.mkdtemp()
    >>> [p.name for p in write_sample("mcq", folder=folder)][:3]
    ['responses.parquet', 'models.parquet', 'items.parquet']
    >>> load_sample("mcq", folder=folder).n_items
    300
    """
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

    Returns
    -------
    ResponseSet or Simulation
        The responses; with ``with_truth=True`` the :class:`Simulation`, whose ``truth`` says
        which items were planted as flawed (``rng_entropy`` is the sample's seed).

    Notes
    -----
    ``data_samples/`` is part of repository checkouts, not of the installed wheel. When the
    sample's folder is absent the sample is regenerated from its recorded generator, arguments
    and ``rng``, which gives the same responses (the test suite checks the committed files
    against regeneration). A sample read from files has ``truth.p_correct = None``.

    References
    ----------
    benchkit's own samples, drawn by the generators of :mod:`benchkit.simulate` (see
    ``data_samples/README.md`` in the repository); each generator's docstring cites the paper
    whose data it imitates.

    Examples
    --------
    >>> from benchkit.simulate import load_sample
    >>> load_sample("mcq")
    ResponseSet 'sample-mcq': 300 items x 8 models, 2,400 responses, T=1, 0.0% cells missing, ...
    >>> sim = load_sample("ladder", with_truth=True)
    >>> sim.truth
    SimulationTruth(300 items, 6 models, planted flaws: flat: 30, non_monotone: 15)
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
                      params=_freeze({**dict(spec.params), "rng": spec.rng}),
                      tables=MappingProxyType({k: frames[k] for k in ("responses", "models", "items")}),
                      rng_entropy=spec.rng)
