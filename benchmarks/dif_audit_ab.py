"""A/B timing of the family-DIF primary audit (paper 001) between source trees, interleaved.

Run on demand (not part of the test suite)::

    .venv/bin/python -m benchmarks.dif_audit_ab TREE_A TREE_B [--rounds 3] [--n-jobs 2] \
        [--items 14042] [--models 5000]

Each tree is a checkout of benchkit (for example a ``git worktree`` of commit e599a3b and the
current branch). Every round runs the same child script once per tree, in a fresh subprocess with
``PYTHONPATH=<tree>``, in the order A B A B ...: the child simulates the paper-scale matrix
(``simulate_family_dif``, 14,042 x 5,000, ~690 owners, rng 2026), runs a small untimed audit (numba
cache loading, imports), then times ``run_audit(Y, ids, source=..., rng=0, n_jobs=...)`` and reports
its wall time and CPU time (all threads of the process and of its joblib worker processes, with
psutil), the per-stage timings, the
peak RSS and the load average before and after. The medians over rounds are printed per tree with
the ratios A / B, and the first round's results of the two trees are compared array by array
(anchor sets, weights, signatures, controls, bootstraps, tables).

On a shared machine quote the CPU times next to the wall times and the load averages printed.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

_CHILD = r"""
import json, os, resource, sys, time
import numpy as np
import psutil
n_items, n_models, n_owners = (int(a) for a in sys.argv[1:4])
n_jobs, out = (None if sys.argv[4] == "none" else int(sys.argv[4])), sys.argv[5]
me = psutil.Process()

def cpu_tree():  # this process and its worker processes (loky keeps them alive between calls)
    tot = sum(me.cpu_times()[:2])
    for ch in me.children(recursive=True):
        try:
            tot += sum(ch.cpu_times()[:2])
        except psutil.Error:
            pass
    return tot

try:  # the two-tier API (benchkit.dif.steps) or an older tree (everything in benchkit.dif)
    from benchkit.dif.steps import run_audit, simulate_family_dif
except ImportError:
    from benchkit.dif import run_audit, simulate_family_dif
w = simulate_family_dif(n_items=400, n_models=600, n_owners=90, rng=1)
run_audit(w.Y, w.model_ids, source=w.source, min_family_size=5, rng=0, progress=False, n_jobs=n_jobs,
          n_controls=20, n_bootstrap=20, n_owner_bootstrap=20, n_permutations=20)
s = simulate_family_dif(n_items=n_items, n_models=n_models, n_owners=n_owners, dif_source_sd=1.0,
                        dif_fraction=0.2, rng=2026)
load0 = os.getloadavg()
c0, t0 = cpu_tree(), time.perf_counter()
res = run_audit(s.Y, s.model_ids, source=s.source, rng=0, progress=False, n_jobs=n_jobs)
wall, cpu = time.perf_counter() - t0, cpu_tree() - c0
arrays = {"selected": np.array([a.selected for a in res.anchors]),
          "weights": np.array([a.weights for a in res.anchors]),
          "delta": np.array([a.delta for a in res.anchors]),
          "round_D": np.array([a.round_D for a in res.anchors]),
          "controls": res.controls.replicates, "controls_flips": res.controls.flips,
          "bootstrap": res.bootstrap.replicates, "owner": res.owner_shifts.replicates,
          "alpha_sensitivity": res.alpha_sensitivity.to_numpy(float),
          "replication_null": np.asarray(res.replication.null, dtype=float),
          "rate": res.ranking.rate, "K": np.array(res.K)}
for h, sel in enumerate(res.selection):
    if sel is not None:
        arrays[f"mean_loss{h}"] = sel.mean_loss
np.savez(out, **arrays)
import benchkit
print(json.dumps({"module": benchkit.__file__, "wall": wall, "cpu": cpu, "timings": res.timings,
                  "load_before": load0, "load_after": os.getloadavg(), "K": list(res.K),
                  "row": {k: float(v) if not isinstance(v, str) else v
                          for k, v in res.to_frame().iloc[0].items()},
                  "peak_rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""


def _run(tree: str, args, out: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
    cmd = [sys.executable, "-c", _CHILD, str(args.items), str(args.models), str(args.owners),
           "none" if args.n_jobs is None else str(args.n_jobs), out]
    # cwd = the tree: ``python -c`` puts the working directory first on sys.path
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tree, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{tree}: child failed\n{proc.stderr[-3000:]}")
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    if not Path(res["module"]).resolve().is_relative_to(Path(tree).resolve()):
        raise RuntimeError(f"{tree}: the child imported benchkit from {res['module']}")
    return res


def _compare(a: str, b: str) -> list[str]:
    import numpy as np

    A, B = np.load(a), np.load(b)
    lines = []
    for k in sorted(set(A.files) | set(B.files)):
        if k not in A.files or k not in B.files:
            lines.append(f"  {k:18s} only in {'A' if k in A.files else 'B'}")
            continue
        x, y = A[k], B[k]
        if x.shape != y.shape:
            lines.append(f"  {k:18s} shapes differ {x.shape} vs {y.shape}")
        elif np.array_equal(x, y, equal_nan=True):
            lines.append(f"  {k:18s} identical")
        else:
            diff = np.nanmax(np.abs(x.astype(float) - y.astype(float)))
            lines.append(f"  {k:18s} max |A - B| = {diff:.3g} ({np.sum(x != y)} of {x.size} differ)")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trees", nargs=2, help="two benchkit checkouts, A (e.g. the baseline) and B")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n-jobs", type=int, default=None, help="run_audit's n_jobs (default None)")
    ap.add_argument("--items", type=int, default=14_042)
    ap.add_argument("--models", type=int, default=5_000)
    ap.add_argument("--owners", type=int, default=690)
    args = ap.parse_args(argv)
    names = ["A", "B"]
    runs: dict[str, list[dict]] = {n: [] for n in names}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for n, tree in zip(names, args.trees):
                res = _run(tree, args, os.path.join(tmp, f"{n}{r}.npz"))
                runs[n].append(res)
                print(f"round {r + 1} {n}: wall {res['wall']:7.1f} s  cpu {res['cpu']:7.1f} s  "
                      f"load {res['load_before'][0]:.2f} -> {res['load_after'][0]:.2f}  "
                      f"peak RSS {res['peak_rss_gib']:.2f} GiB  K {res['K']}", flush=True)
        print(f"\nfamily-DIF primary audit {args.items} x {args.models}, n_jobs={args.n_jobs}, "
              f"{args.rounds} interleaved rounds")
        med = {n: {k: statistics.median(x[k] for x in runs[n]) for k in ("wall", "cpu")} for n in names}
        for n, tree in zip(names, args.trees):
            print(f"  {n} {tree}: median wall {med[n]['wall']:.1f} s, median CPU {med[n]['cpu']:.1f} s")
        print(f"  ratio A/B: wall {med['A']['wall'] / med['B']['wall']:.2f}x, "
              f"CPU {med['A']['cpu'] / med['B']['cpu']:.2f}x")
        for n in names:
            print(f"  {n} stages (median s):")
            for stage in runs[n][0]["timings"]:
                print(f"    {statistics.median(x['timings'][stage] for x in runs[n]):7.2f}  {stage}")
            print(f"  {n} Table 1 row: {runs[n][0]['row']}")
        print("  results, round 1, A vs B:")
        print("\n".join(_compare(os.path.join(tmp, "A0.npz"), os.path.join(tmp, "B0.npz"))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
