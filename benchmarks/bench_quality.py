"""Benchmarks of benchkit.quality (Benchmark², paper 004).

* ``cad-14000x100``: CAD with per-item and per-family contributions on 14,000 items x 100 models
  in 20 families of 5 (cumulative-sum form, one pass per family) against a loop over the
  family's ordered pairs with numpy (``sum_q (1 - Y_qj) Y_qk`` per pair), three rotating inputs.
* ``assess-notebook``: the notebook-scale assessment on the real data (eval-arena's 8 code
  benchmarks, MMLU-Pro's 14 categories, ZeroEval's CRUXEval-O / MATH-L5: 24 benchmarks in 3
  domains) with 1,000 bootstrap resamples, one worker; no alternative. Skipped (reported as
  failed) when the data mirror is missing.

``python -m benchmarks.bench_quality`` prints the real-data Table 1 and Table 2 analogues.
Set ``BENCHKIT_BENCH_SMALL=1`` for a quick check.
"""
from __future__ import annotations

import os

import numpy as np

from benchmarks._runner import Case

SMALL = os.environ.get("BENCHKIT_BENCH_SMALL", "") not in ("", "0")
N_ITEMS = 2_000 if SMALL else 14_000
N_MODELS, N_FAM = 100, 20
_state: dict = {}

# ------------------------------------------------------------------------------- real data

CODE = ["humaneval", "humaneval+", "mbpp", "mbpp+", "lcb_codegen", "cruxeval_input",
        "cruxeval_output", "humaneval_hf"]


def real_data():
    """(sets, domains, families, aliases) of the three real domains (needs the data mirror)."""
    if "real" in _state:
        return _state["real"]
    from benchkit import datasets
    from benchkit.datasets.eval_arena import MODEL_ALIASES
    from benchkit.datasets.eval_arena import MODEL_FAMILIES
    from benchkit.quality.steps import families_from_models

    ea = datasets.fetch("eval-arena")
    sets = {f"code/{b}": ea[b] for b in CODE}
    domains = {k: "code" for k in sets}
    mp = datasets.fetch("mmlu-pro")
    for cat in sorted(mp.items["category"].unique()):
        sets[f"mmlu-pro/{cat}"] = mp.select(items=mp.items.index[mp.items["category"] == cat])
        domains[f"mmlu-pro/{cat}"] = "knowledge"
    ze = datasets.fetch("zeroeval")
    for b, rs in ze.items():
        sets[f"zeroeval/{b}"] = rs
        domains[f"zeroeval/{b}"] = "reasoning"
    # families: explicit for the code domain; parsed (series, variant, size) for MMLU-Pro / ZeroEval
    fams = {name: list(members) for name, members in MODEL_FAMILIES.items()}
    taken = {m for ms in fams.values() for m in ms}
    for rs in (mp, ze["crux"]):
        f = families_from_models(rs.models)
        for n, ms in zip(f.names, f.members):
            ms = [MODEL_ALIASES.get(m, m) for m in ms]  # the aliases apply to every source
            if not taken.intersection(ms):  # e.g. MMLU-Pro's Llama-3 base is the "Llama-3" family
                fams[n] = ms
                taken.update(ms)
    _state["real"] = (sets, domains, fams, dict(MODEL_ALIASES))
    return _state["real"]


def assess_real(n_resamples=1000, rng=0, n_jobs=1, progress=False):
    from benchkit.quality import assess

    sets, domains, fams, aliases = real_data()
    return assess(sets, domains=domains, families=fams, aliases=aliases, align="pairwise",
                  min_models=5, nan_policy="omit", n_resamples=n_resamples, rng=rng,
                  n_jobs=n_jobs, progress=progress)


# ---------------------------------------------------------------------------------- CAD case

def _cad_inputs():
    if "cad" not in _state:
        rng = np.random.default_rng(0)
        ability = np.sort(rng.normal(0, 1, N_MODELS))[::-1]
        Ys = []
        for k in range(3):
            diff = rng.normal(0, 1.2, N_ITEMS)
            p = 1 / (1 + np.exp(-(ability[None, :] - diff[:, None])))
            Ys.append((rng.random(p.shape) < p).astype(np.float64))
        perm = rng.permutation(N_MODELS)
        fams = [sorted(perm[5 * f:5 * f + 5].tolist()) for f in range(N_FAM)]  # index order = strength
        _state["cad"] = (Ys, fams)
        _state["i"] = 0
    return _state["cad"]


def _kit_cad():
    from benchkit.quality.steps import cad

    Ys, fams = _cad_inputs()
    _state["i"] += 1
    r = cad(Ys[_state["i"] % 3], fams)
    return r.item_inversions


def _loop_cad():
    Ys, fams = _cad_inputs()
    _state["i"] += 1
    Y = Ys[_state["i"] % 3]
    inv = np.zeros(Y.shape[0])
    comp = np.zeros(Y.shape[0])
    fam_inv = []
    for f in fams:
        fi = 0.0
        for a in range(len(f)):
            for b in range(a + 1, len(f)):
                x = (1.0 - Y[:, f[a]]) * Y[:, f[b]]
                inv += x
                comp += 1
                fi += x.sum()
        fam_inv.append(fi)
    return inv


def _cad_kernel_alone():
    """The limit reference of cad: its numba kernel on ready CSR families, no input checks."""
    from benchkit._kernels.quality import cad_counts

    Ys, fams = _cad_inputs()
    members = np.concatenate([np.asarray(f, dtype=np.int64) for f in fams])
    ptr = np.concatenate([[0], np.cumsum([len(f) for f in fams])]).astype(np.int64)
    n = Ys[0].shape[0]
    out = [np.empty(n), np.empty(n), np.empty(len(fams)), np.empty(len(fams))]

    def run():
        _state["i"] += 1
        cad_counts(Ys[_state["i"] % 3], members, ptr, *out)
        return out[0]
    return run


def _kit_assess():
    return assess_real(n_resamples=1000, rng=0, n_jobs=1)


def cases():
    return [
        Case("cad-14000x100", _kit_cad, _loop_cad, "loop over family pairs (numpy)",
             setup=_cad_inputs, repeat=15,
             note=f"{N_ITEMS} items x {N_MODELS} models, {N_FAM} families of 5, per-item + "
                  "per-family counts, 3 rotating inputs"),
        Case("cad-14000x100 vs its kernel alone", _kit_cad, _cad_kernel_alone(),
             "the numba kernel on prepared inputs (limit reference)", setup=_cad_inputs, repeat=31,
             note="need cad within 2x of the kernel (ratio >= 0.5): validation fused into the kernel"),
        Case("assess-notebook", _kit_assess, None, "", setup=real_data, repeat=1,
             note="24 real benchmarks (eval-arena code x8, MMLU-Pro categories x14, ZeroEval x2), "
                  "1,000 bootstraps, n_jobs=1 (data loading untimed)"),
    ]


if __name__ == "__main__":  # pragma: no cover - report helper
    import pandas as pd

    from benchkit.quality.steps import selective_scores

    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    pd.set_option("display.max_rows", 300)
    res = assess_real(progress=True)
    cols = ["domain", "n_items", "n_models", "n_peers", "cbrc", "ds", "min", "max", "raw_cad", "cad",
            "bqs", "cbrc_low", "cbrc_high", "ds_low", "ds_high", "cad_low", "cad_high"]
    print(res.table[cols].round(3).to_string())
    sel = selective_scores(res, ratio=0.35, rng=0)
    print(sel.domains.round(3).to_string())
    print(sel.models.round(3).to_string())
