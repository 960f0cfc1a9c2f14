"""Eval-Arena's example-level results on code benchmarks, as count-based response sets.

The source is ``data/*.jsonl`` of Wang et al.'s Eval-Arena (repository ``crux-eval/eval-arena``) at
commit ``012edd75`` (2024-10-29; later commits no longer hold the data): one JSON row per (model,
example) ``{"benchmark_id", "model", "example_id", "pass1"[, "hyperparams"]}``, where ``pass1`` is
the fraction of the model's samples on that example that passed. Only that fraction is published,
so each benchmark becomes a :class:`benchkit.ResponseSet` built with
:meth:`~benchkit.ResponseSet.from_counts` from ``n_correct = pass1 * n`` of ``n`` samples, with the
per-model sample budget ``n`` derived from the data (see :func:`derive_budgets`).

Counts (measured on the pinned files and checked in the tests; models x examples, all cells
present): CRUXEval-input 37 x 800, CRUXEval-output 37 x 800, HumanEval 49 x 164, HumanEval+ 49 x
164, humaneval_hf (base models) 29 x 164, LiveCodeBench codegen 58 x 400, MBPP 59 x 378, MBPP+
59 x 378. Budgets: 10 samples for most CRUXEval and LiveCodeBench models; 1 for EvalPlus and
humaneval_hf, for ``claude-3-opus-20240229`` on CRUXEval and for the LiveCodeBench entries marked
``(n=1)``; 3 or 6 for the GPT-4-turbo / GPT-4o entries on CRUXEval (their pass1 values are thirds
and sixths).

Model names are Eval-Arena's own (``codellama-13b+cot``, ``DSCoder-33b-Ins``,
``Qwen--Qwen1.5-72B-Chat``): they rarely carry the owner, so ``owner`` (and often ``family`` and
``size``) are parsed from the name with a few Eval-Arena abbreviations added to
:data:`benchkit.model_names.FAMILY_RULES` (:data:`NAME_RULES`) and are missing (None / NaN) where
the name does not say; ``rs.meta["models_without_owner"]`` lists them. Override with your own table
via ``rs.models`` joins if you know better.
"""
from __future__ import annotations

import functools
import json
import math
import re
from importlib import resources
from types import MappingProxyType
from typing import Mapping

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_int
from benchkit.datasets._fetch import fetch_file
from benchkit.datasets._fetch import load_source
from benchkit.io._files import iter_json_lines
from benchkit.model_names import FAMILY_RULES
from benchkit.model_names import parse_model_names
from benchkit.response_set import ResponseSet

__all__ = ["SOURCE", "BENCHMARKS", "NAME_RULES", "MODEL_ALIASES", "MODEL_FAMILIES", "load", "derive_budgets",
           "counts_from_pass1"]


#: benchmark name (file stem) -> path inside the repository, in upstream file-listing order.
BENCHMARKS: dict[str, str] = {
    "cruxeval_input": "data/cruxeval_input.jsonl",
    "cruxeval_output": "data/cruxeval_output.jsonl",
    "humaneval": "data/humaneval.jsonl",
    "humaneval+": "data/humaneval+.jsonl",
    "humaneval_hf": "data/humaneval_hf.jsonl",
    "lcb_codegen": "data/lcb_codegen.jsonl",
    "mbpp": "data/mbpp.jsonl",
    "mbpp+": "data/mbpp+.jsonl",
}

SOURCE = load_source("eval-arena", repo="crux-eval/eval-arena",
                     commit="012edd758d9ae7ef3d47a56a462e75ab2c659828")



def _model_tables() -> tuple[tuple[tuple[str, str, str], ...], Mapping[str, str],
                            Mapping[str, tuple[str, ...]]]:
    ref = resources.files("benchkit.datasets").joinpath("eval_arena_models.json")
    doc = json.loads(ref.read_text(encoding="utf-8"))
    rules = tuple((str(p), str(f), str(o)) for p, f, o in doc["name_rules"])
    families = {name: tuple(members) for name, members in doc["families"].items()}
    return rules, MappingProxyType(dict(doc["aliases"])), MappingProxyType(families)


#: Eval-Arena spells one model differently per benchmark file: each spelling -> one canonical name
#: (lower case), e.g. ``"DSCoder-33b-Ins"`` -> ``"deepseek-coder-33b-instruct"``. CRUXEval's
#: ``+cot`` entries are a different prompt and are kept apart. :data:`MODEL_FAMILIES`: explicit
#: code-model families, strongest first, in canonical names (Phi: phi-1.5 and phi-1 have the same
#: size, ordered by release, a stated judgement). Both are package data
#: (``benchkit/datasets/eval_arena_models.json``), for ``benchkit.quality.assess(aliases=...,
#: families=...)``.
_NAME_RULES, MODEL_ALIASES, MODEL_FAMILIES = _model_tables()

#: (pattern, family, owner) rules for Eval-Arena's names: its abbreviations (``dscoder``, ``cllama``,
#: ``oc-ds``, ...; package data ``eval_arena_models.json``), tried before
#: :data:`benchkit.model_names.FAMILY_RULES` on the cleaned, lower-cased name.
NAME_RULES: tuple[tuple[str, str, str], ...] = _NAME_RULES + FAMILY_RULES

# absolute tolerance on pass1 * n being a whole number (the files store thirds as 0.3333333333)
_TOL = 1e-6


@functools.lru_cache(maxsize=16)
def _parse(local_path: str) -> pd.DataFrame:
    """The rows of one JSONL file as a DataFrame (columns as in the file, file order)."""
    rows = []
    for lineno, rec in iter_json_lines(local_path, what="an eval-arena JSON Lines file"):
        for key in ("benchmark_id", "model", "example_id", "pass1"):
            if key not in rec:
                raise BenchkitValueError(f"{local_path}: line {lineno} has no {key!r} field")
        rows.append((rec["benchmark_id"], rec["model"], rec["example_id"], rec["pass1"],
                     rec.get("hyperparams")))
    frame = pd.DataFrame(rows, columns=["benchmark_id", "model", "example_id", "pass1", "hyperparams"])
    frame["pass1"] = frame["pass1"].astype(np.float64)
    return frame


def _denominator(v: float, max_budget: int) -> int | None:
    """The smallest n <= max_budget with v * n a whole number (within the tolerance), or None."""
    for n in range(1, max_budget + 1):
        if abs(v * n - round(v * n)) <= _TOL:
            return n
    return None


def derive_budgets(frame: pd.DataFrame, *, max_budget: int = 10,
                   budgets: Mapping[str, int] | None = None) -> pd.Series:
    """The sample budget n of each model: the smallest n for which all its pass1 are multiples of 1/n.

    Parameters
    ----------
    frame : DataFrame
        Columns ``model``, ``example_id``, ``pass1`` (one row per model and example).
    max_budget : int, default 10
        The largest budget considered (Eval-Arena's CRUXEval and LiveCodeBench runs use 10).
    budgets : mapping of model -> int, optional
        Budgets given explicitly for some models; their pass1 must then be multiples of 1/n.

    Returns
    -------
    pandas.Series
        int64 budget per model, indexed by model in order of first appearance.

    Raises
    ------
    BenchkitValueError
        When a pass1 is outside [0, 1], or is not a multiple of 1/n for any n <= ``max_budget``
        (no budget fits), or when the values of one model need a common denominator above
        ``max_budget``, or do not fit the budget given in ``budgets``. The message names the model,
        the example and the value; nothing is rounded silently.

    Notes
    -----
    A value ``v`` "is a multiple of 1/n" when ``|v n - round(v n)| <= 1e-6`` (the files store
    thirds as ``0.3333333333``). The derived budget is the least common multiple of the smallest
    denominators of the model's values. A model whose samples always all passed or all failed
    gets n = 1: the data cannot tell it from a single-sample run (Eval-Arena runs
    ``claude-3-opus-20240229`` on CRUXEval, and the LiveCodeBench entries tagged ``(n=1)``, are
    such cases).

    References
    ----------
    S. I. Wang et al., Eval-Arena (repository ``crux-eval/eval-arena``, pinned commit
    ``012edd75``), https://crux-eval.github.io/eval-arena/ (example-level ``pass1``).

    Examples
    --------
    Model ``a`` stores thirds (3 samples per example), model ``b`` halves:

    >>> import pandas as pd
    >>> from benchkit.datasets.eval_arena import derive_budgets
    >>> frame = pd.DataFrame({"model": ["a"] * 3 + ["b"] * 3, "example_id": ["x", "y", "z"] * 2,
    ...                       "pass1": [0.3333333333, 1.0, 0.0, 0.5, 0.0, 1.0]})
    >>> derive_budgets(frame).to_dict()
    {'a': 3, 'b': 2}
    """
    max_budget = check_int("max_budget", max_budget, min=1)
    budgets = dict(budgets or {})
    for m, n in budgets.items():
        check_int(f"budgets[{m!r}]", n, min=1)
    out: dict[str, int] = {}
    models = pd.unique(frame["model"])
    unknown = [m for m in budgets if m not in set(models)]
    if unknown:
        raise BenchkitValueError(
            f"budgets names model(s) not in the data: {', '.join(map(repr, unknown[:5]))}; "
            f"known models include {', '.join(map(repr, list(models)[:5]))}"
        )
    for model, grp in frame.groupby("model", sort=False):
        values = grp["pass1"].to_numpy(dtype=np.float64)
        examples = grp["example_id"].to_numpy()
        bad = ~np.isfinite(values) | (values < 0) | (values > 1)
        if bad.any():
            j = int(np.nonzero(bad)[0][0])
            raise BenchkitValueError(
                f"pass1 must be in [0, 1]; model {model!r}, example {examples[j]!r} has {values[j]!r}"
            )
        if model in budgets:
            n = int(budgets[model])
            k = values * n
            off = np.abs(k - np.round(k)) > _TOL
            if off.any():
                j = int(np.nonzero(off)[0][0])
                raise BenchkitValueError(
                    f"pass1 of model {model!r} on example {examples[j]!r} is {values[j]!r}, which "
                    f"is not a multiple of 1/{n} (the budget given for it): pass1 * n = "
                    f"{k[j]:.6g} is not a whole number"
                )
            out[model] = n
            continue
        lcm = 1
        uniq, first = np.unique(values, return_index=True)
        for v, j in zip(uniq, first):
            d = _denominator(float(v), max_budget)
            if d is None:
                raise BenchkitValueError(
                    f"pass1 of model {model!r} on example {examples[j]!r} is {float(v)!r}, which is "
                    f"not a multiple of 1/n for any sample budget n <= max_budget={max_budget}; "
                    "pass max_budget=... or budgets={model: n} if the model had more samples"
                )
            new = lcm * d // math.gcd(lcm, d)
            if new > max_budget:
                raise BenchkitValueError(
                    f"pass1 values of model {model!r} need a sample budget of {new} (example "
                    f"{examples[j]!r} has {float(v)!r}, a multiple of 1/{d}, while earlier values "
                    f"need 1/{lcm}), more than max_budget={max_budget}; pass max_budget=... or "
                    "budgets={model: n}"
                )
            lcm = new
        out[model] = lcm
    return pd.Series(out, dtype=np.int64, name="budget").rename_axis("model")


def counts_from_pass1(frame: pd.DataFrame, *, max_budget: int = 10,
                      budgets: Mapping[str, int] | None = None) -> pd.DataFrame:
    """Turn (model, example_id, pass1) rows into (model, item, n_correct, n_samples) counts.

    ``n_samples`` is the model's budget from :func:`derive_budgets` and
    ``n_correct = round(pass1 * n_samples)``, which :func:`derive_budgets` has checked to be a
    whole number within 1e-6 for every row (the rounding only removes float noise).

    Parameters
    ----------
    frame : DataFrame
        Columns ``model``, ``example_id``, ``pass1`` (one row per model and example).
    max_budget : int, default 10
        As in :func:`derive_budgets`.
    budgets : mapping of model -> int, optional
        As in :func:`derive_budgets`.

    Returns
    -------
    DataFrame
        Columns ``model``, ``item`` (the example id), ``n_correct``, ``n_samples``: the input of
        :meth:`benchkit.ResponseSet.from_counts`.

    References
    ----------
    S. I. Wang et al., Eval-Arena (repository ``crux-eval/eval-arena``, pinned commit
    ``012edd75``), https://crux-eval.github.io/eval-arena/ (example-level ``pass1``).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.datasets.eval_arena import counts_from_pass1
    >>> frame = pd.DataFrame({"model": ["a", "a"], "example_id": ["x", "y"],
    ...                       "pass1": [0.3333333333, 1.0]})
    >>> counts_from_pass1(frame)
      model item  n_correct  n_samples
    0     a    x          1          3
    1     a    y          3          3
    """
    budget = derive_budgets(frame, max_budget=max_budget, budgets=budgets)
    n = budget.reindex(frame["model"]).to_numpy(dtype=np.int64)
    k = np.rint(frame["pass1"].to_numpy(dtype=np.float64) * n).astype(np.int64)
    return pd.DataFrame({"model": frame["model"].to_numpy(dtype=object),
                         "item": frame["example_id"].to_numpy(dtype=object),
                         "n_correct": k, "n_samples": n})


def _clean_name(name: str) -> str:
    """The name used for parsing: no ``(n=1)``-style tag, no ``+cot``, ``Org--name`` as ``Org/name``."""
    clean = re.sub(r"\s*\([^)]*\)\s*$", "", name)
    clean = re.sub(r"\+cot$", "", clean)
    return clean.replace("--", "/", 1)


def _models_table(frame: pd.DataFrame, budget: pd.Series) -> pd.DataFrame:
    roster = list(budget.index)
    clean = [_clean_name(m) for m in roster]
    parsed = parse_model_names(clean, rules=NAME_RULES)
    variant = parsed["variant"].to_numpy(dtype=object).copy()
    for i, c in enumerate(clean):
        if re.search(r"-ins(\b|$)", c.lower()):
            variant[i] = "instruct"
    hyper = frame.groupby("model", sort=False)["hyperparams"].agg(
        lambda s: ";".join(sorted({str(v) for v in s if v is not None})) or None)
    return pd.DataFrame({
        "model": roster,
        "family": parsed["family"].to_numpy(dtype=object),
        "owner": parsed["owner"].to_numpy(dtype=object),
        "size": parsed["size"].to_numpy(dtype=float),
        "series": parsed["series"].to_numpy(dtype=object),
        "variant": variant,
        "prompting": ["cot" if m.endswith("+cot") else "direct" for m in roster],
        "budget": budget.to_numpy(dtype=np.int64),
        "hyperparams": hyper.reindex(roster).to_numpy(dtype=object),
        "parsed_name": clean,
    })


def _load_one(benchmark: str, max_budget: int, budgets, strict: bool) -> ResponseSet:
    path = BENCHMARKS[benchmark]
    frame = _parse(str(fetch_file(SOURCE, path)))
    dup = frame.duplicated(["model", "example_id"])
    if dup.any():
        r = frame[dup].iloc[0]
        raise BenchkitValueError(
            f"{SOURCE.name}/{path} has more than one row for model {r['model']!r}, example "
            f"{r['example_id']!r}"
        )
    if budgets and not strict:
        present = set(frame["model"])
        budgets = {m: n for m, n in budgets.items() if m in present}
    counts = counts_from_pass1(frame, max_budget=max_budget, budgets=budgets)
    budget = counts.groupby("model", sort=False)["n_samples"].first()
    models = _models_table(frame, budget)
    first = frame.drop_duplicates("example_id")
    items = pd.DataFrame({
        "item": first["example_id"].to_numpy(dtype=object),
        "benchmark": benchmark,
        "benchmark_id": first["benchmark_id"].to_numpy(dtype=object),
        "example_id": first["example_id"].to_numpy(dtype=object),
    })
    common = budget.nunique() == 1
    no_owner = [m for m, o in zip(models["model"], models["owner"]) if pd.isna(o)]
    meta = {
        "source": SOURCE.name, "url": f"{SOURCE.repo_url}/blob/{SOURCE.commit}/{path}",
        "commit": SOURCE.commit, "file": path, "budgets": budget.to_dict(),
        "models_without_owner": no_owner,
        "notes": (
            "n_correct = pass1 * n with n the per-model sample budget derived from the data "
            "(smallest n making every pass1 a multiple of 1/n); model owners parsed from names "
            "where the name says"
        ),
    }
    return ResponseSet.from_counts(
        counts, models=models, items=items,
        T=int(budget.iloc[0]) if common else None,
        sample_budget="common" if common else "per_model",
        parse_names=False, name=f"eval-arena/{benchmark}", meta=meta,
    )


def load(*, benchmark: str | None = None, max_budget: int = 10,
         budgets: Mapping[str, int] | None = None):
    """Load Eval-Arena benchmark results as count-based response sets.

    Parameters
    ----------
    benchmark : str, optional
        One of :data:`BENCHMARKS` (``"cruxeval_input"``, ``"cruxeval_output"``, ``"humaneval"``,
        ``"humaneval+"``, ``"humaneval_hf"``, ``"lcb_codegen"``, ``"mbpp"``, ``"mbpp+"``: the
        upstream file names). Default: all of them.
    max_budget : int, default 10
        The largest per-model sample budget :func:`derive_budgets` may infer.
    budgets : mapping of model -> int, optional
        Explicit budgets for some models (applied in every benchmark the model appears in); their
        pass1 values must be multiples of 1/n.

    Returns
    -------
    ResponseSet or dict of str -> ResponseSet
        With ``benchmark`` given, one :class:`benchkit.ResponseSet` (built by
        :meth:`~benchkit.ResponseSet.from_counts`, name ``"eval-arena/<benchmark>"``); otherwise a
        dict benchmark -> ResponseSet in :data:`BENCHMARKS` order. In each:

        - items (index = Eval-Arena's ``example_id``, e.g. ``"CRUXEval-output/17"``,
          ``"HumanEval/4"``, ``"Mbpp/2"``, ``"1873_A"``; file order): ``benchmark`` (the file
          stem), ``benchmark_id`` (as in the file: ``humaneval_hf`` rows say ``"humaneval"``),
          ``example_id``;
        - models (roster = order of first appearance in the file): ``family``, ``owner``,
          ``size``, ``series``, ``variant`` parsed from ``parsed_name`` (the name without an
          ``(n=1)`` tag or ``+cot`` suffix, ``Org--name`` read as ``Org/name``) with
          :data:`NAME_RULES`; ``prompting`` (``"cot"`` for ``+cot`` entries, else ``"direct"``),
          ``budget`` (samples per example), ``hyperparams`` (as in the file, e.g. ``"temp0.2"``);
        - counts: ``K = pass1 * budget`` correct samples of ``N = budget`` per cell; no answer
          states. ``T`` is the common budget when all models share it (HumanEval, MBPP: 1), else
          ``sample_budget="per_model"`` and ``rs.budget`` holds each model's (CRUXEval: 10 for
          most, 1, 3 or 6 for API models; LiveCodeBench: 10, 1 for three entries).

    Notes
    -----
    Reproduces Eval-Arena's semantics: its ``pass1`` per (model, example) is the mean of the
    model's per-sample pass/fail, so ``pass1 * n`` is the number of passing samples and
    ``rs.scores()`` / ``rs.accuracy()`` give back Eval-Arena's pass1 and per-model accuracy.
    The budget of each model is inferred as described in :func:`derive_budgets`; a pass1 that is
    not a multiple of 1/n is an error naming model and example, never rounded. ``meta`` holds the
    file URL at the pinned commit, the budgets and ``models_without_owner``.

    References
    ----------
    S. I. Wang et al., Eval-Arena (repository ``crux-eval/eval-arena``, pinned commit
    ``012edd75``), https://crux-eval.github.io/eval-arena/ (example-level ``pass1``).

    Examples
    --------
    Not run as a doctest (doctests read no data files): it needs the source's files from the
    local mirror, the cache or a download. The output shown was produced on the pinned files.

    >>> from benchkit.datasets import eval_arena
    >>> eval_arena.load(benchmark="humaneval")  # doctest: +SKIP
    ResponseSet 'eval-arena/humaneval': 164 items x 49 models, 8,036 responses, T=1, ...
    >>> eval_arena.load(benchmark="cruxeval_output").budget.value_counts().to_dict()  # doctest: +SKIP
    {10: 31, 3: 3, 1: 2, 6: 1}
    """
    max_budget = check_int("max_budget", max_budget, min=1)
    if budgets is not None and not isinstance(budgets, Mapping):
        raise BenchkitTypeError(
            f"budgets must be a mapping of model name -> sample budget, got {type(budgets).__name__}"
        )
    if benchmark is not None:
        check_choice("benchmark", benchmark, tuple(BENCHMARKS))
        return _load_one(benchmark, max_budget, budgets, True)
    if budgets:
        seen: set[str] = set()
        for name in BENCHMARKS:
            seen.update(_parse(str(fetch_file(SOURCE, BENCHMARKS[name])))["model"])
        unknown = [m for m in budgets if m not in seen]
        if unknown:
            raise BenchkitValueError(
                f"budgets names model(s) in no Eval-Arena benchmark: {', '.join(map(repr, unknown[:5]))}"
            )
    return {name: _load_one(name, max_budget, budgets, False) for name in BENCHMARKS}
