"""Regenerate the shipped BSDProbe calibration tables (benchkit/boundary/data/).

Usage: python scripts/build_calibration_tables.py [--n 3 4 ...] [--T 5 10 ...] [--n-jobs N]

Each table: default reference family (``benchkit.boundary.steps.reference_family``),
n_resamples = B = 200,000, rng = seed 42, table version ``TABLE_VERSION``. Tables are
deterministic: rerunning reproduces the files' contents exactly, whatever the number of workers.
"""
from __future__ import annotations

import argparse
import time

from benchkit.boundary._calibration import DEFAULT_B
from benchkit.boundary._calibration import DEFAULT_SEED
from benchkit.boundary._calibration import build_calibration
from benchkit.boundary._calibration_lookup import _DATA
from benchkit.boundary._calibration_lookup import SHIPPED_N
from benchkit.boundary._calibration_lookup import SHIPPED_T
from benchkit.boundary._calibration_lookup import table_path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, nargs="*", default=list(SHIPPED_N))
    ap.add_argument("--T", type=int, nargs="*", default=list(SHIPPED_T))
    ap.add_argument("--n-jobs", type=int, default=None)
    ap.add_argument("--skip-existing", action="store_true")
    args = ap.parse_args()
    for T in args.T:
        for n in args.n:
            path = _DATA / table_path(n, T, DEFAULT_B, DEFAULT_SEED)
            if args.skip_existing and path.is_file():
                continue
            t0 = time.perf_counter()
            table = build_calibration(n, T, n_resamples=DEFAULT_B, rng=DEFAULT_SEED, n_jobs=args.n_jobs)
            table.save(path)
            print(f"n={n} T={T}: {table.reference.shape[0]} vectors, {table.atoms.size} atoms, "
                  f"{path.stat().st_size / 1e3:.0f} kB, {time.perf_counter() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
