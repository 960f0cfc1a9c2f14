"""Write every file in data_samples/ (run from the repository root).

    .venv/bin/python data_samples/make_samples.py            # all samples
    .venv/bin/python data_samples/make_samples.py ladder mcq # some

The samples, their generators, parameters and seeds are defined once, in
``benchkit.simulate.SAMPLES``; this script only writes them. ``data_samples/README.md`` lists them.
Each sample is a folder of Parquet files (zstd):

    responses.parquet     the long table given to ResponseSet.from_long (model, item[, sample],
                          correct[, answer][, option_probs])
    models.parquet        model roster (model, family, owner, size, order where known)
    items.parquet         item table (item, benchmark, source, answer_key where known)
    truth_items.parquet   generating item parameters and planted flaws (flaw, flaw_detail, ...)
    truth_models.parquet  generating model parameters (abilities, p_mean, ...)
    truth_flaws.parquet   one row per planted flawed item
"""
from __future__ import annotations

import sys
from pathlib import Path

from benchkit.simulate import SAMPLES
from benchkit.simulate import write_sample

HERE = Path(__file__).resolve().parent


def main(names: list[str]) -> None:
    """Write the samples ``names`` (all of :data:`benchkit.simulate.SAMPLES` when empty)."""
    for name in names or list(SAMPLES):
        paths = write_sample(name, folder=HERE)
        size = sum(p.stat().st_size for p in paths)
        print(f"{name:8s} {SAMPLES[name].call()}\n         -> {len(paths)} files, {size / 1e3:.0f} kB")
    total = sum(p.stat().st_size for p in HERE.rglob("*.parquet"))
    print(f"data_samples/ Parquet total: {total / 1e6:.2f} MB")


if __name__ == "__main__":
    main(sys.argv[1:])
