"""Scale check: a simulated 14,000 x 5,000 long Parquet file (70M rows) -> ResponseSet -> counts.

Run on demand (not part of the test suite)::

    .venv/bin/python -m benchmarks.scale_load [--items 14000] [--models 5000] [--dir /tmp]

Writes the file with :func:`benchkit.simulate.write_long_parquet`, then loads it in a fresh
subprocess (so peak memory is the loader's alone) with :func:`benchkit.io.read_parquet`, and prints
write time, load time, count-matrix time and the loader's peak resident memory, for both
aggregation engines (pyarrow and DuckDB). The alternative a
user would write, ``pandas.read_parquet(...).pivot_table(...)``, is timed too when
``--with-pandas`` is given (it needs far more memory).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
mode = sys.argv[2]
if mode.startswith("benchkit"):
    from benchkit.io import read_parquet
    rs = read_parquet(sys.argv[1], engine=mode.split("-")[1])
    t1 = time.perf_counter()
    cm = rs.counts()
    t2 = time.perf_counter()
    total = int(cm.K.sum()); shape = list(cm.K.shape)
else:
    import pandas as pd
    df = pd.read_parquet(sys.argv[1])
    t1 = time.perf_counter()
    piv = df.pivot_table(index="item", columns="model", values="correct", aggfunc="sum", observed=True)
    t2 = time.perf_counter()
    total = int(piv.to_numpy().sum()); shape = list(piv.shape)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(json.dumps({"load_s": t1 - t0, "counts_s": t2 - t1, "peak_gib": peak, "total": total, "shape": shape}))
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=14_000)
    ap.add_argument("--models", type=int, default=5_000)
    ap.add_argument("--dir", default=None, help="where to write the Parquet file (default: a temp dir)")
    ap.add_argument("--with-pandas", action="store_true", help="also time pandas read_parquet + pivot_table")
    args = ap.parse_args(argv)
    from benchkit.simulate import write_long_parquet

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = Path(tmp) / "long.parquet"
        t = time.perf_counter()
        write_long_parquet(path, args.items, args.models, rng=0)
        write_s = time.perf_counter() - t
        rows = args.items * args.models
        print(f"wrote {rows:,} rows ({path.stat().st_size / 2**20:.0f} MiB) in {write_s:.1f} s")
        modes = ["benchkit-pyarrow", "benchkit-duckdb"] + (["pandas"] if args.with_pandas else [])
        results = {}
        for mode in modes:
            out = subprocess.run([sys.executable, "-c", _CHILD, str(path), mode], capture_output=True,
                                 text=True, check=False)
            if out.returncode != 0:
                print(f"{mode}: failed\n{out.stderr[-2000:]}")
                continue
            results[mode] = json.loads(out.stdout.strip().splitlines()[-1])
            r = results[mode]
            print(f"{mode:16s} load {r['load_s']:7.1f} s  counts {r['counts_s']:6.2f} s  "
                  f"peak RSS {r['peak_gib']:5.2f} GiB  shape {r['shape']}  sum {r['total']:,}")
        if "pandas" in results:
            b = results["pandas"]
            for mode in modes[:2]:
                if mode in results:
                    a = results[mode]
                    ratio = (b["load_s"] + b["counts_s"]) / (a["load_s"] + a["counts_s"])
                    print(f"ratio pandas/{mode} (load + counts): {ratio:.1f}x; "
                          f"memory {b['peak_gib'] / a['peak_gib']:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
