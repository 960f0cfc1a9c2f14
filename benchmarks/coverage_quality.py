"""Coverage of the Benchmark² bootstrap intervals (App. E, Table 14) by simulation.

Run on demand (not part of the test suite; ~20 minutes on 2 cores at the defaults)::

    .venv/bin/python -m benchmarks.coverage_quality [--sims 200] [--resamples 1000] [--seed 0]

**What is measured.** The share of simulated datasets whose nominal 95% interval from
:func:`benchkit.quality.assess` contains the *population* value of the metric: CBRC, DS and CAD
computed from the models' true mean scores and true inversion probabilities over the item
population the benchmark's items are drawn from (the quantity an item bootstrap is about). Each
dataset is one draw of items and responses; the interval is read from 1,000 item-bootstrap
replicates by the percentile, basic and BCa methods (the same replicates for all), and as
``assess`` reports it: basic with a bound moved to the estimate where the basic interval leaves it
out ("basic+estimate", the default; BCa is extended the same way). The Monte Carlo standard error
of a coverage p from n datasets is ``sqrt(p (1 - p) / n)`` (about 0.015 at p = 0.95, n = 200).
Also reported: how often the estimate lies inside its own interval, and the coverage of the
intervals that had to be extended.

**The simulator** (parameters fixed here, drawn once per scenario with ``--seed``): 12 models in
three families of four (family ``m % 3``, ordered by ability: the family's size order is its
ability order); six benchmarks in one domain, "base" (164 items) and "plus" (the same 164 item
ids, each pass kept with a model-specific probability ``q_m ~ U(0.85, 0.98)``: HumanEval /
HumanEval+), and four benchmarks of 200, 300, 400 and 500 items of their own. Model m's ability on
benchmark b is ``theta_m + dev * u_mb``; an item has difficulty ``delta ~ N(0, 1.5^2)`` and
``P(correct) = logistic(ability - delta)``. Population values by 120-point Gauss-Hermite
quadrature over ``delta``. Scenarios: ``separated`` (``theta ~ N(0, 1)``, ``dev = 0.2``) and
``close`` (``theta ~ N(0, 0.35^2)``, ``dev = 0.1``: many near ties, as among MMLU-Pro's
checkpoints). The ``separated`` datasets are assessed a second time with the plus benchmark's item
ids renamed, so that base and plus are resampled independently (the behaviour before joint
resampling), to show what joint resampling changes.

**Measured** (``--sims 200 --resamples 1000 --seed 0``, 22 minutes on the shared 2-core
machine, before the extension; coverage of the population value, nominal 0.95, Monte Carlo SE
~0.015; BCa without extension):

==========================  =======  =====  =====  ==========
scenario, resampling        metric   basic  BCa    percentile
==========================  =======  =====  =====  ==========
separated, joint            CAD      0.947  0.958  0.956
separated, joint            DS       0.944  0.938  0.911
separated, joint            CBRC     0.846  0.632  0.317
separated, independent      CBRC     0.810  0.492  0.229
close, joint                CAD      0.942  0.938  0.941
close, joint                DS       0.898  0.774  0.472
close, joint                CBRC     0.658  0.448  0.113
==========================  =======  =====  =====  ==========

With the extension (``--sims 100 --resamples 1000 --seed 0``, 6 minutes; BCa extended too):

==========================  =======  =====  ==============  =====  ==========
scenario, resampling        metric   basic  basic+estimate  BCa    percentile
==========================  =======  =====  ==============  =====  ==========
separated, joint            CAD      0.943  0.943           0.952  0.953
separated, joint            DS       0.942  0.942           0.943  0.910
separated, joint            CBRC     0.833  0.842           0.637  0.333
separated, independent      CBRC     0.797  0.820           0.518  0.248
close, joint                CAD      0.942  0.942           0.923  0.927
close, joint                DS       0.888  0.888           0.772  0.485
close, joint                CBRC     0.680  0.685           0.473  0.120
==========================  =======  =====  ==============  =====  ==========

The estimate lies inside its own plain basic CBRC interval in 91.0% (separated) and 94.7%
(close) of the datasets with joint resampling, 81.7% when the shared items are resampled
independently; inside the extended one always. The extended CBRC intervals (54 of 600 and 32 of
600) covered 0.593 and 0.250, against 0.866 and 0.710 for the others: extending brings the
estimate in and raises coverage a little (0.833 -> 0.842, 0.680 -> 0.685), but such an interval
is still not to be trusted, so ``assess`` names it in its warning. CBRC of the two benchmarks
sharing item ids: basic 0.845 (joint) vs 0.815 (independent). Reading: CAD intervals are right
with any method; DS and CBRC replicates are biased (DS up, CBRC down: Kendall tau of re-estimated
means shrinks), the basic interval corrects that best, and CBRC intervals still under-cover (a
non-smooth statistic: pairs of models near a tie flip), so ``assess`` uses basic by default and
CBRC intervals are a lower bound on the uncertainty.
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

N_MODELS = 12
SIZES = {"base": 164, "plus": 164, "b200": 200, "b300": 300, "b400": 400, "b500": 500}
SCENARIOS = {"separated": (1.0, 0.2), "close": (0.35, 0.1)}
METHODS = ("percentile", "basic", "basic+estimate", "bca")
METRICS = ("cbrc", "ds", "cad")
MODELS = [f"model-{m:02d}" for m in range(N_MODELS)]


def _logistic(x):
    return 1.0 / (1.0 + np.exp(-x))


def truth(seed: int, spread: float, dev: float) -> dict:
    """The scenario's fixed parameters and the population values of CBRC, DS and CAD."""
    from benchkit.quality.steps import cbrc_all
    from benchkit.quality.steps import ds

    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, spread, N_MODELS)
    ability = {b: theta + dev * rng.normal(size=N_MODELS) for b in SIZES}
    ability["plus"] = ability["base"]  # the same items, stricter tests
    q = rng.uniform(0.85, 0.98, N_MODELS)
    # families: m % 3, strongest (highest theta) first
    fams = [sorted([m for m in range(N_MODELS) if m % 3 == f], key=lambda m: -theta[m]) for f in range(3)]
    x, w = np.polynomial.hermite_e.hermegauss(120)
    w = w / w.sum()
    P = {b: _logistic(ability[b][:, None] - 1.5 * x[None, :]) for b in SIZES}  # models x nodes
    P["plus"] = q[:, None] * P["base"]
    mean = np.array([P[b] @ w for b in SIZES])
    out = {"theta": theta, "ability": ability, "q": q, "families": fams, "mean": mean}
    out["cbrc"] = cbrc_all(mean)
    out["ds"] = np.array([ds(m) for m in mean])
    cad = []
    for b in SIZES:
        inv = comp = 0.0
        for f in fams:
            for j in range(len(f)):
                for k in range(j + 1, len(f)):
                    inv += ((1 - P[b][f[j]]) * P[b][f[k]]) @ w
                    comp += 1.0
        cad.append(np.exp(-12.0 * inv / comp))
    out["cad"] = np.array(cad)
    return out


def dataset(tr: dict, rng: np.random.Generator, *, rename_plus: bool = False) -> dict:
    """One draw of items and responses: a dict name -> ResponseSet."""
    from benchkit import ResponseSet

    sets, base = {}, None
    for b, n in SIZES.items():
        if b == "plus":
            keep = rng.random(base.shape) < tr["q"][None, :]
            Y = base * keep
            ids = [f"{'plus' if rename_plus else 'base'}/{i}" for i in range(n)]
        else:
            delta = 1.5 * rng.normal(size=n)
            Y = (rng.random((n, N_MODELS)) < _logistic(tr["ability"][b][None, :] - delta[:, None])
                 ).astype(float)
            ids = [f"{b}/{i}" for i in range(n)]
            if b == "base":
                base = Y
        sets[b] = ResponseSet.from_wide(pd.DataFrame(Y, index=ids, columns=MODELS), name=b)
    return sets


def assess_intervals(sets: dict, tr: dict, *, n_resamples: int, rng) -> pd.DataFrame:
    """Per benchmark, metric and method: estimate, bounds, covered, inside, extended.

    One :func:`~benchkit.quality.assess` call (``interval_method="bca"``, so that the jackknife
    is computed) gives the replicates and the BCa intervals as ``assess`` reports them (extended
    to their estimate where needed); the percentile and basic intervals, plain and extended
    (``assess``'s default), are read from the same replicates.
    """
    from benchkit.quality import assess
    from benchkit.stats import bootstrap_interval

    fams = {f"fam{f}": [MODELS[m] for m in members] for f, members in enumerate(tr["families"])}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # untrusted intervals are counted, not reported
        res = assess(sets, families=fams, n_resamples=n_resamples, interval_method="bca", rng=rng,
                     progress=False)
        rows = []
        iv = res.intervals_frame().set_index(["benchmark", "metric"])
        for j, m in enumerate(METRICS):
            est = res.table[m].to_numpy(dtype=float)
            for method in METHODS:
                if method == "bca":
                    d = iv.xs(m, level="metric")
                    lo, hi = d["low"].to_numpy(dtype=float), d["high"].to_numpy(dtype=float)
                    ext = d["extended"].to_numpy(dtype=bool)
                else:
                    b = bootstrap_interval(res.replicates[:, :, j], est, method=method.split("+")[0],
                                           contain_estimate=method.endswith("+estimate"))
                    lo, hi, ext = b.low, b.high, b.extended
                for k, name in enumerate(SIZES):
                    t = tr[m][k]
                    rows.append(dict(benchmark=name, metric=m, method=method, estimate=est[k],
                                     truth=t, low=lo[k], high=hi[k], covered=lo[k] <= t <= hi[k],
                                     inside=lo[k] <= est[k] <= hi[k], extended=bool(ext[k])))
    return pd.DataFrame(rows)


def run(n_sims: int = 200, n_resamples: int = 1000, seed: int = 0, progress: bool = True) -> pd.DataFrame:
    """All scenarios: one row per (scenario, dataset, benchmark, metric, method)."""
    frames = []
    for s, (scenario, (spread, dev)) in enumerate(SCENARIOS.items()):
        tr = truth(seed + s, spread, dev)
        gen = np.random.default_rng([seed, s, 1])
        variants = [("joint", False)]
        if scenario == "separated":
            variants.append(("independent", True))
        t0 = time.perf_counter()
        for i in range(n_sims):
            state = gen.bit_generator.state
            for variant, rename in variants:
                gen.bit_generator.state = state  # the same dataset for both variants
                sets = dataset(tr, gen, rename_plus=rename)
                f = assess_intervals(sets, tr, n_resamples=n_resamples,
                                     rng=np.random.SeedSequence([seed, s, i]))
                f.insert(0, "dataset", i)
                f.insert(0, "resampling", variant)
                f.insert(0, "scenario", scenario)
                frames.append(f)
            if progress and (i + 1) % 20 == 0:
                print(f"  {scenario}: {i + 1}/{n_sims} datasets, {time.perf_counter() - t0:.0f} s",
                      flush=True)
    return pd.concat(frames, ignore_index=True)


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Coverage and estimate-inside shares per scenario, resampling, metric and method."""
    g = frame.groupby(["scenario", "resampling", "metric", "method"], sort=False)
    out = g.agg(coverage=("covered", "mean"), inside=("inside", "mean"), n=("covered", "size"))
    out["mc_se"] = np.sqrt(out["coverage"] * (1 - out["coverage"]) / (out["n"] / len(SIZES)))
    return out.reset_index()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.coverage_quality",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=200)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--csv", default=None, help="also write every row to this CSV file")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    frame = run(args.sims, args.resamples, args.seed)
    if args.csv:
        frame.to_csv(args.csv, index=False)
    pd.set_option("display.width", 160)
    s = summary(frame)
    print(f"\nnominal 95% intervals; coverage of the population value over {args.sims} datasets per "
          f"scenario ({args.resamples} resamples each); mc_se for one benchmark's coverage\n")
    print(s.pivot_table(index=["scenario", "resampling", "metric"], columns="method",
                        values="coverage", sort=False).round(3).to_string())
    print("\nestimate inside its own interval:")
    print(s.pivot_table(index=["scenario", "resampling", "metric"], columns="method",
                        values="inside", sort=False).round(3).to_string())
    cb = frame[frame["metric"] == "cbrc"]
    print("\nCBRC coverage given whether the method's interval had to be extended to the estimate:")
    print(cb[cb["method"] == "basic+estimate"].groupby(["scenario", "resampling", "extended"], sort=False)
          ["covered"].agg(["mean", "size"]).round(3).to_string())
    shared = frame[frame["benchmark"].isin(["base", "plus"]) & (frame["metric"] == "cbrc")]
    print("\nCBRC of the two benchmarks sharing item ids (base, plus), coverage:")
    print(shared.groupby(["scenario", "resampling", "method"], sort=False)["covered"].mean()
          .unstack().round(3).to_string())
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
