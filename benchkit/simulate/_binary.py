"""Binary items x models matrices at scale, and a streaming long Parquet writer."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from benchkit._random import seed_sequence
from benchkit._random import spawn
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.simulate._common import NO_FLAW
from benchkit.simulate._common import ParquetWriteResult
from benchkit.simulate._common import Simulation
from benchkit.simulate._common import SimulationTruth
from benchkit.simulate._common import _binary_matrix_from
from benchkit.simulate._common import _draw_binary_block
from benchkit.simulate._common import _flaw_table
from benchkit.simulate._common import _freeze
from benchkit.simulate._common import _item_ids
from benchkit.simulate._common import _model_generators
from benchkit.simulate._common import _refuse_oversized

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
    rng_entropy: Any

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


def _binary_model(n_items, n_models, rng, ability_sd, easiness_loc, easiness_sd, discrimination,
                  discrimination_sd, guessing) -> tuple[_BinaryModel, dict[str, Any]]:
    n_items = check_int("n_items", n_items, min=1)
    n_models = check_int("n_models", n_models, min=1)
    ability_sd = check_float("ability_sd", ability_sd, min=0.0)
    easiness_loc = check_float("easiness_loc", easiness_loc)
    easiness_sd = check_float("easiness_sd", easiness_sd, min=0.0)
    discrimination = check_float("discrimination", discrimination, min=0.0, min_inclusive=False)
    discrimination_sd = check_float("discrimination_sd", discrimination_sd, min=0.0)
    guessing = check_float("guessing", guessing, min=0.0, max=1.0, max_inclusive=False)
    root = seed_sequence(rng)
    ss_models, ss_items, ss_resp = spawn(root, 3)
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
                  rng=rng if isinstance(rng, (int, type(None))) else repr(rng))
    bm = _BinaryModel(a=a.astype(np.float32), b=b.astype(np.float32),
                      theta=theta.astype(np.float32), guessing=guessing, ss_resp=ss_resp, truth=truth,
                      rng_entropy=root.entropy)
    return bm, params


def binary_matrix(
    n_items: int,
    n_models: int,
    *,
    rng: Any,
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
    n_items : int
        Number of items (rows).
    n_models : int
        Number of models (columns).
    rng : None, int, SeedSequence or Generator
        Required (keyword) so that large benchmark inputs are always reproducible; the result
        records the root's entropy in ``rng_entropy``.
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
    call with m models (abilities are one sequential normal stream). For 14,000 x 5,000 (70M
    responses) the int8 output takes 70 MB and the working memory ~ n_items x chunk x 12 bytes
    (43 MB at the default chunk).
    :func:`write_long_parquet` with the same ``rng`` and parameters writes exactly these responses.

    References
    ----------
    A. Birnbaum (1968), "Some latent trait models and their use in inferring an examinee's
    ability", in F. M. Lord and M. R. Novick, Statistical Theories of Mental Test Scores,
    Addison-Wesley (the 2PL and its guessing floor).

    Examples
    --------
    >>> from benchkit.simulate import binary_matrix
    >>> sim = binary_matrix(1000, 50, rng=0)
    >>> sim.matrix.shape, sim.matrix.dtype, round(float(sim.matrix.mean()), 3)
    ((1000, 50), dtype('int8'), 0.62)
    >>> sim.truth.items.columns.tolist()[:2], sim.responses is None
    (['discrimination', 'easiness'], True)
    """
    try:
        dt = np.dtype(dtype)
    except TypeError as exc:
        raise BenchkitTypeError(f"dtype={describe(dtype)} is not a numpy dtype") from exc
    check_choice("dtype", dt.name, _MATRIX_DTYPES)
    chunk = check_int("chunk", chunk, min=1)
    n_i, n_m = check_int("n_items", n_items, min=1), check_int("n_models", n_models, min=1)
    _refuse_oversized("binary_matrix", f"{n_i:,} items x {n_m:,} models", float(n_i) * n_m,
                      dt.itemsize, working=13.0 * n_i * min(chunk, n_m))
    bm, params = _binary_model(n_items, n_models, rng, ability_sd, easiness_loc, easiness_sd,
                               discrimination, discrimination_sd, guessing)
    params["dtype"] = dt.name
    Y = _binary_matrix_from(bm.prob_block, bm.a.size, bm.theta.size, bm.ss_resp, chunk, dt)
    return Simulation(responses=None, truth=bm.truth, generator="binary_matrix",
                      params=_freeze(params), matrix=Y, rng_entropy=bm.rng_entropy)


def write_long_parquet(
    path: str | Path,
    n_items: int,
    n_models: int,
    *,
    rng: Any,
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
    n_items, n_models, rng, ability_sd, easiness_loc, easiness_sd, discrimination, \
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
        The file's path, rows, row groups and size, and the truth (item and model parameters).

    Notes
    -----
    Columns: ``model`` (string), ``item`` (string), ``correct`` (int8), rows ordered by model then
    item (model-major, as a per-model evaluation log would be). Each chunk is built directly as
    Arrow dictionary arrays (indices into the id lists) and written with
    :class:`pyarrow.parquet.ParquetWriter`; no pandas frame of the whole file is ever built and
    the memory in use is that of one row group. Column statistics are written for ``model``
    (row groups can be skipped by model) and ``correct``, not for ``item`` (every row group holds
    all items; string min/max statistics would double the write time).

    References
    ----------
    A. Birnbaum (1968), "Some latent trait models and their use in inferring an examinee's
    ability", in F. M. Lord and M. R. Novick, Statistical Theories of Mental Test Scores,
    Addison-Wesley (the 2PL and its guessing floor). The Apache Parquet file format, https://parquet.apache.org/docs/
    (row groups, dictionary encoding, column statistics).

    Examples
    --------
    The file holds exactly the responses of :func:`binary_matrix` with the same arguments:

    >>> import tempfile, pathlib
    >>> import pandas as pd
    >>> from benchkit.simulate import binary_matrix, write_long_parquet
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "responses.parquet"
    >>> res = write_long_parquet(path, 30, 8, rng=4)
    >>> long = pd.read_parquet(path)
    >>> res.n_rows, long.columns.tolist()
    (240, ['model', 'item', 'correct'])
    >>> int(long["correct"].sum()) == int(binary_matrix(30, 8, rng=4).matrix.sum())
    True
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    if not path.parent.is_dir():
        raise BenchkitValueError(f"path={str(path)!r}: folder {str(path.parent)!r} does not exist")
    row_group_size = check_int("row_group_size", row_group_size, min=1)
    compression = check_choice("compression", compression, ("snappy", "zstd", "gzip", "none"))
    bm, _ = _binary_model(n_items, n_models, rng, ability_sd, easiness_loc, easiness_sd,
                          discrimination, discrimination_sd, guessing)
    n_items, n_models = bm.a.size, bm.theta.size
    children = spawn(bm.ss_resp, n_models)  # child m of ss_resp draws model m's responses
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
            y = _draw_binary_block(bm.prob_block(start, stop), _model_generators(children, start, stop))
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
                              n_bytes=path.stat().st_size, truth=bm.truth, rng_entropy=bm.rng_entropy)
