"""Scale check: a simulated 14,000 x 5,000 long Parquet file (70M rows) -> ResponseSet -> counts.

Run on demand (not part of the test suite)::

    .venv/bin/python -m benchmarks.scale_load [--items 14000] [--models 5000] [--dir /tmp] \
        [--rounds 3] [--with-pandas]

Writes the file with :func:`benchkit.simulate.write_long_parquet` (model, item as dictionary-encoded
strings, correct int8, model-major), then runs every reader in a fresh subprocess, ``--rounds``
times interleaved (kit, alternative, reference, kit, ...), and prints medians of wall time, CPU
time and the subprocess's peak resident memory (``ru_maxrss``: imports included):

* kit: ``benchkit.io.read_parquet(path)`` (the pyarrow engine: dictionary pages mapped to codes
  once, each batch scatter-added into uint8 counts), and the same with ``engine="duckdb"``;
* alternative: plain DuckDB -- ``SELECT item, model, sum(correct), count(*) ... GROUP BY item,
  model`` fetched as Arrow and pivoted to dense items x models arrays with numpy;
* limit reference: pyarrow reading the three columns (dictionary-encoded) and nothing else -- the
  decoding floor of any reader of this file;
* with ``--with-pandas``: ``pandas.read_parquet`` + ``pivot_table`` (needs ~10 GB).

Every reader reports the total of correct responses and the matrix shape, which must agree.
Targets (issue 25): kit >= 5x the DuckDB alternative, kit peak RSS <= 1 GiB.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_CHILD = r"""
import json, resource, sys, time
path, mode = sys.argv[1], sys.argv[2]
t0, c0 = time.perf_counter(), time.process_time()
if mode.startswith("benchkit"):
    from benchkit.io import read_parquet
    rs = read_parquet(path, engine=mode.split("-")[1])
    load = time.perf_counter() - t0
    peak_load = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    total, shape = int(rs._K.sum()), list(rs._K.shape)
elif mode == "duckdb-groupby":
    import duckdb, numpy as np
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    tab = con.sql(f"SELECT item, model, sum(correct)::INTEGER AS k, count(*)::INTEGER AS n "
                     f"FROM read_parquet('{path}') GROUP BY item, model").arrow()
    if hasattr(tab, "read_all"):
        tab = tab.read_all()
    tab = tab.combine_chunks()
    items = tab.column("item").dictionary_encode().combine_chunks()
    models = tab.column("model").dictionary_encode().combine_chunks()
    ii = items.indices.to_numpy()
    mi = models.indices.to_numpy()
    K = np.zeros((len(items.dictionary), len(models.dictionary)), dtype=np.int64)
    N = np.zeros_like(K)
    K[ii, mi] = tab.column("k").to_numpy()
    N[ii, mi] = tab.column("n").to_numpy()
    load = time.perf_counter() - t0
    peak_load = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    total, shape = int(K.sum()), list(K.shape)
elif mode == "pyarrow-read":
    import pyarrow.parquet as pq
    t = pq.read_table(path, columns=["model", "item", "correct"], read_dictionary=["model", "item"])
    load = time.perf_counter() - t0
    peak_load = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    total, shape = int(t.column("correct").to_numpy().sum()), [None, None]
else:
    import pandas as pd
    df = pd.read_parquet(path)
    piv = df.pivot_table(index="item", columns="model", values="correct", aggfunc="sum", observed=True)
    load = time.perf_counter() - t0
    peak_load = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    total, shape = int(piv.to_numpy().sum()), list(piv.shape)
cpu = time.process_time() - c0
out = {"load_s": load, "cpu_s": cpu, "peak_gib": peak_load, "total": total, "shape": shape}
if mode.startswith("benchkit"):
    t1 = time.perf_counter()
    cm = rs.counts()  # int64 copies of K and N (the CountMatrix contract)
    out["counts_s"] = time.perf_counter() - t1
    out["peak_with_counts_gib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
print(json.dumps(out))
"""

_LABELS = {
    "benchkit-pyarrow": "kit: benchkit.io.read_parquet (pyarrow engine)",
    "benchkit-duckdb": "kit: benchkit.io.read_parquet(engine='duckdb')",
    "duckdb-groupby": "alternative: DuckDB GROUP BY + numpy pivot",
    "pyarrow-read": "limit reference: pyarrow reads the 3 columns",
    "pandas": "pandas read_parquet + pivot_table",
}


def _child(path: Path, mode: str) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(path), mode], capture_output=True,
                         text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{mode}: failed\n{out.stderr[-2000:]}")
    return json.loads([ln for ln in out.stdout.splitlines() if ln.startswith("{")][-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=14_000)
    ap.add_argument("--models", type=int, default=5_000)
    ap.add_argument("--dir", default=None, help="where to write the Parquet file (default: a temp dir)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--with-pandas", action="store_true", help="also time pandas read_parquet + pivot_table")
    args = ap.parse_args(argv)
    from benchkit.simulate import write_long_parquet

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = Path(tmp) / "long.parquet"
        t = time.perf_counter()
        write_long_parquet(path, args.items, args.models, rng=0)
        rows = args.items * args.models
        size = path.stat().st_size / 2**20
        print(f"wrote {rows:,} rows ({size:.0f} MiB) in {time.perf_counter() - t:.1f} s")
        modes = ["benchkit-pyarrow", "duckdb-groupby", "pyarrow-read", "benchkit-duckdb"]
        modes += ["pandas"] if args.with_pandas else []
        runs: dict[str, list[dict]] = {m: [] for m in modes}
        for r in range(args.rounds):
            for mode in modes:
                res = _child(path, mode)
                runs[mode].append(res)
                print(f"round {r + 1} {mode:16s} wall {res['load_s']:6.2f} s  cpu {res['cpu_s']:6.2f} s  "
                      f"peak RSS {res['peak_gib']:5.2f} GiB  total {res['total']:,}  shape {res['shape']}",
                      flush=True)
    med = {m: {k: statistics.median(x[k] for x in runs[m]) for k in ("load_s", "cpu_s", "peak_gib")}
           for m in modes}
    print(f"\n{rows:,}-row long Parquet -> dense counts, medians of {args.rounds} interleaved rounds")
    for m in modes:
        print(f"  {_LABELS[m]:52s} wall {med[m]['load_s']:6.2f} s  CPU {med[m]['cpu_s']:6.2f} s  "
              f"peak RSS {med[m]['peak_gib']:.2f} GiB")
    kit = med["benchkit-pyarrow"]
    for m in modes[1:]:
        print(f"  ratio {m} / kit: wall {med[m]['load_s'] / kit['load_s']:.2f}x, "
              f"CPU {med[m]['cpu_s'] / kit['cpu_s']:.2f}x")
    last = runs["benchkit-pyarrow"][-1]
    print(f"  kit then rs.counts() (int64 copies): {last['counts_s']:.2f} s, peak RSS "
          f"{last['peak_with_counts_gib']:.2f} GiB")
    totals = {m: runs[m][0]["total"] for m in modes}
    if len(set(totals.values())) != 1:
        print(f"  TOTALS DIFFER: {totals}")
        return 1
    print(f"  every reader counts {totals[modes[0]]:,} correct responses; targets: kit >= 5x the "
          "DuckDB alternative, kit peak RSS <= 1 GiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
