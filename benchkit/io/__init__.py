"""Readers that turn what users have into a :class:`benchkit.ResponseSet`.

* :func:`read_csv`, :func:`read_parquet`, :func:`read_duckdb` -- long, counts or wide tables;
  DuckDB aggregates large long files to counts without loading their rows into pandas.
* :meth:`benchkit.ResponseSet.from_long`, ``from_counts``, ``from_wide`` -- in-memory frames.
* :func:`read_inspect`, :func:`read_lm_eval`, :func:`read_helm`, :func:`read_evalscope` -- the
  files the evaluation tools write; :func:`read_every_eval_ever` / :func:`write_every_eval_ever`
  -- the Every Eval Ever instance-level store.
* :func:`benchkit.datasets.fetch` -- the public sources, by name.
"""
from benchkit.io.evalscope import read_evalscope
from benchkit.io.every_eval_ever import read_every_eval_ever
from benchkit.io.every_eval_ever import write_every_eval_ever
from benchkit.io.helm import read_helm
from benchkit.io.inspect_logs import read_inspect
from benchkit.io.lm_eval import read_lm_eval
from benchkit.io.tabular import read_csv
from benchkit.io.tabular import read_duckdb
from benchkit.io.tabular import read_parquet

__all__ = [
    "read_csv",
    "read_duckdb",
    "read_evalscope",
    "read_every_eval_ever",
    "read_helm",
    "read_inspect",
    "read_lm_eval",
    "read_parquet",
    "write_every_eval_ever",
]
