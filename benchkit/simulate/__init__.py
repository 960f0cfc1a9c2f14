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
:func:`audit_suite`
    Several multiple-choice benchmarks (one a near-duplicate of another), model families of
    named owners and sizes, a size ladder with repeated samples, option probabilities and keys:
    one response set with every flaw the cross-method audit (:func:`benchkit.audit`) looks for.
:func:`binary_matrix`
    A lean 2PL binary items x models matrix at any scale (14,000 x 5,000 in ~1.5 s, 70 MB).
:func:`write_long_parquet`
    The same responses streamed to a long Parquet file, chunk by chunk.

Reproducibility: each generator turns ``rng`` (None, an int, a SeedSequence or a Generator, which
is consumed) into one root :class:`numpy.random.SeedSequence` through :mod:`benchkit._random` and
spawns children for the item parameters, the model parameters, the flaw assignment and one child
*per model* for the responses: the same int always gives the same data. Responses of model ``m``
are therefore drawn from model ``m``'s own generator, so chunked generation gives identical output
for every chunk size and the output does not depend on how the work is split.

:func:`load_sample` reads the small samples committed in the repository's ``data_samples/`` folder
(written by ``data_samples/make_samples.py`` from :data:`SAMPLES`); on an installed package without
that folder it regenerates the sample from its recorded generator, parameters and ``rng``.

Layout: ``_mirt`` (:func:`mirt_2pl`), ``_ladder`` (:func:`repeated_sampling`), ``_mcq``
(:func:`mcq_probabilities`), ``_binary`` (:func:`binary_matrix`, :func:`write_long_parquet`),
``_samples`` (:data:`SAMPLES`, :func:`load_sample`, ...) and ``_common`` (results, flaw
bookkeeping, seeded per-model binary draws). Normalized entropy is
:func:`benchkit.stats.normalized_entropy`.
"""
from benchkit.simulate._binary import binary_matrix
from benchkit.simulate._binary import write_long_parquet
from benchkit.simulate._common import FLAW_KINDS
from benchkit.simulate._common import ParquetWriteResult
from benchkit.simulate._common import Simulation
from benchkit.simulate._common import SimulationTruth
from benchkit.simulate._ladder import repeated_sampling
from benchkit.simulate._mcq import mcq_probabilities
from benchkit.simulate._mirt import mirt_2pl
from benchkit.simulate._samples import SAMPLES
from benchkit.simulate._samples import SampleSpec
from benchkit.simulate._samples import load_sample
from benchkit.simulate._samples import sample_names
from benchkit.simulate._samples import sample_tables
from benchkit.simulate._samples import samples_dir
from benchkit.simulate._samples import write_sample
from benchkit.simulate._suite import audit_suite

__all__ = [
    "FLAW_KINDS",
    "ParquetWriteResult",
    "SAMPLES",
    "SampleSpec",
    "Simulation",
    "SimulationTruth",
    "audit_suite",
    "binary_matrix",
    "load_sample",
    "mcq_probabilities",
    "mirt_2pl",
    "repeated_sampling",
    "sample_names",
    "sample_tables",
    "samples_dir",
    "write_long_parquet",
    "write_sample",
]
