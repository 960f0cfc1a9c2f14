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

#: eval-arena spells one model differently per benchmark file; canonical names (lower case).
EVAL_ARENA_ALIASES = {
    # LiveCodeBench
    "DSCoder-33b-Ins": "deepseek-coder-33b-instruct", "DSCoder-6.7b-Ins": "deepseek-coder-6.7b-instruct",
    "DSCoder-1.3b-Ins": "deepseek-coder-1.3b-instruct", "DSCoder-33b-Base": "deepseek-coder-33b-base",
    "DSCoder-6.7b-Base": "deepseek-coder-6.7b-base", "DSCoder-1.3b-Base": "deepseek-coder-1.3b-base",
    "CodeLlama-34b-Base": "codellama-34b", "CodeLlama-13b-Base": "codellama-13b",
    "CodeLlama-7b-Base": "codellama-7b", "Cllama-34b-Ins": "codellama-34b-instruct",
    "Cllama-13b-Ins": "codellama-13b-instruct", "Cllama-7b-Ins": "codellama-7b-instruct",
    "StarCoder2-15b": "starcoder2-15b", "StarCoder2-7b": "starcoder2-7b", "StarCoder2-3b": "starcoder2-3b",
    "LLama3-70b-Ins": "llama-3-70b-instruct", "LLama3-8b-Ins": "llama-3-8b-instruct",
    "LLama3-70b-Base": "llama-3-70b", "LLama3-8b-Base": "llama-3-8b",
    "Mixtral-8x22B-Ins": "mixtral-8x22b-instruct", "Mixtral-8x7B-Ins": "mixtral-8x7b-instruct",
    "Claude-3-Opus": "claude-3-opus", "Claude-3-Sonnet": "claude-3-sonnet",
    "Claude-3-Haiku": "claude-3-haiku", "Mistral-Large": "mistral-large", "DBRX-Ins": "dbrx-instruct",
    "Command-R+": "command-r-plus", "Qwen-1.5-72B-Chat": "qwen1.5-72b-chat",
    "GPT-4-Turbo-1106": "gpt-4-turbo-1106", "GPT-4-0613": "gpt-4-0613",
    "GPT-4-Turbo-2024-04-09": "gpt-4-turbo-2024-04-09", "GPT-4O-2024-05-13": "gpt-4o",
    "CodeGemma-7b-Base": "codegemma-7b", "CodeGemma-2b-Base": "codegemma-2b",
    "Gemma-7b-Base": "gemma-7b", "Gemma-2b-Base": "gemma-2b", "StableCode-3B": "stable-code-3b",
    "OC-DS-33B": "opencodeinterpreter-ds-33b", "OC-DS-6.7B": "opencodeinterpreter-ds-6.7b",
    "OC-DS-1.3B": "opencodeinterpreter-ds-1.3b",
    # HumanEval(+) / MBPP(+)
    "deepseek-coder-33b": "deepseek-coder-33b-base", "code-llama-13b": "codellama-13b",
    "code-llama-34b": "codellama-34b", "code-llama-70b-instruct": "codellama-70b-instruct",
    "claude-3-opus-20240229": "claude-3-opus", "claude-3-sonnet-20240229": "claude-3-sonnet",
    "claude-3-haiku-20240307": "claude-3-haiku", "mixtral-8x22b-instruct-v0.1": "mixtral-8x22b-instruct",
    "meta-llama-3-70b-instruct": "llama-3-70b-instruct", "gpt-4-1106-preview": "gpt-4-turbo-1106",
    "mistral-large-latest": "mistral-large", "databricks--dbrx-instruct": "dbrx-instruct",
    "CohereForAI--c4ai-command-r-plus": "command-r-plus", "Qwen--Qwen1.5-72B-Chat": "qwen1.5-72b-chat",
    # CRUXEval (the +cot entries are a different prompt, kept apart)
    "deepseek-base-33b": "deepseek-coder-33b-base", "deepseek-base-6.7b": "deepseek-coder-6.7b-base",
    "deepseek-base-1.3b": "deepseek-coder-1.3b-base", "deepseek-instruct-33b": "deepseek-coder-33b-instruct",
    "deepseek-instruct-6.7b": "deepseek-coder-6.7b-instruct",
    "deepseek-instruct-1.3b": "deepseek-coder-1.3b-instruct",
    # humaneval_hf (base models)
    "Meta-Llama-3-70B": "llama-3-70b", "Meta-Llama-3-8B": "llama-3-8b",
    "Mixtral-8x7B-v0.1": "mixtral-8x7b", "Mixtral-8x22B-v0.1": "mixtral-8x22b",
    "Mistral-7B-v0.1": "mistral-7b",
}

#: Explicit code families (strongest first), canonical names. Phi: phi-1.5 and phi-1 have the same
#: size (1.3B), ordered by release (phi-2 > phi-1.5 > phi-1), a stated judgement.
EVAL_ARENA_FAMILIES = {
    "DeepSeek-Coder-Instruct": ["deepseek-coder-33b-instruct", "deepseek-coder-6.7b-instruct",
                                "deepseek-coder-1.3b-instruct"],
    "DeepSeek-Coder-Base": ["deepseek-coder-33b-base", "deepseek-coder-6.7b-base",
                            "deepseek-coder-1.3b-base"],
    "CodeLlama": ["codellama-34b", "codellama-13b", "codellama-7b"],
    "CodeLlama-Instruct": ["codellama-70b-instruct", "codellama-34b-instruct",
                           "codellama-13b-instruct", "codellama-7b-instruct"],
    "CodeLlama-multi": ["code-llama-multi-34b", "code-llama-multi-13b", "code-llama-multi-7b"],
    "CodeLlama-Python": ["codellama-python-34b", "codellama-python-13b", "codellama-python-7b"],
    "StarCoder2": ["starcoder2-15b", "starcoder2-7b", "starcoder2-3b"],
    "StarCoderBase": ["starcoderbase-16b", "starcoderbase-7b"],
    "Phi": ["phi-2", "phi-1.5", "phi-1"],
    "Qwen1.5": ["Qwen1.5-110B", "Qwen1.5-72B", "Qwen1.5-32B", "Qwen1.5-14B", "Qwen1.5-7B",
                "Qwen1.5-4B", "Qwen1.5-1.8B", "Qwen1.5-0.5B"],
    "Llama-3": ["llama-3-70b", "llama-3-8b"],
    "Llama-3-Instruct": ["llama-3-70b-instruct", "llama-3-8b-instruct"],
    "Llama-2": ["llama2_70B", "llama2_13B", "llama2_07B"],
    "LLaMA": ["llama_65B", "llama_33B", "llama_13B", "llama_07B"],
    "Mixtral": ["mixtral-8x22b", "mixtral-8x7b"],
    "Mixtral-Instruct": ["mixtral-8x22b-instruct", "mixtral-8x7b-instruct"],
    "CodeGemma": ["codegemma-7b", "codegemma-2b"],
    "Gemma": ["gemma-7b", "gemma-2b"],
    "DeepSeek-LLM": ["deepseek-llm-67b-base", "deepseek-llm-7b-base"],
    "OpenCodeInterpreter-DS": ["opencodeinterpreter-ds-33b", "opencodeinterpreter-ds-6.7b",
                               "opencodeinterpreter-ds-1.3b"],
    "CodeGen": ["codegen-16b", "codegen-6b", "codegen-2b"],
    "CodeT5+": ["codet5p-16b", "codet5p-6b", "codet5p-2b"],
}

CODE = ["humaneval", "humaneval+", "mbpp", "mbpp+", "lcb_codegen", "cruxeval_input",
        "cruxeval_output", "humaneval_hf"]


def real_data():
    """(sets, domains, families, aliases) of the three real domains (needs the data mirror)."""
    if "real" in _state:
        return _state["real"]
    from benchkit import datasets
    from benchkit.quality import families_from_models

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
    fams = dict(EVAL_ARENA_FAMILIES)
    taken = {m for ms in fams.values() for m in ms}
    for rs in (mp, ze["crux"]):
        f = families_from_models(rs.models)
        for n, ms in zip(f.names, f.members):
            ms = [EVAL_ARENA_ALIASES.get(m, m) for m in ms]  # the aliases apply to every source
            if not taken.intersection(ms):  # e.g. MMLU-Pro's Llama-3 base is the "Llama-3" family
                fams[n] = ms
                taken.update(ms)
    _state["real"] = (sets, domains, fams, EVAL_ARENA_ALIASES)
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
    from benchkit.quality import cad

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


def _kit_assess():
    return assess_real(n_resamples=1000, rng=0, n_jobs=1)


def cases():
    return [
        Case("cad-14000x100", _kit_cad, _loop_cad, "loop over family pairs (numpy)",
             setup=_cad_inputs, repeat=15,
             note=f"{N_ITEMS} items x {N_MODELS} models, {N_FAM} families of 5, per-item + "
                  "per-family counts, 3 rotating inputs"),
        Case("assess-notebook", _kit_assess, None, "", setup=real_data, repeat=1,
             note="24 real benchmarks (eval-arena code x8, MMLU-Pro categories x14, ZeroEval x2), "
                  "1,000 bootstraps, n_jobs=1 (data loading untimed)"),
    ]


if __name__ == "__main__":  # pragma: no cover - report helper
    import pandas as pd

    from benchkit.quality import selective_scores

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
