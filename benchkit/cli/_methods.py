"""One command per method, and ``compare``: each calls one public entry point on PATH....

The commands ``profile``, ``dif``, ``measure``, ``landscape``, ``quality``, ``labels`` and
``compare`` call the entry points named in :data:`COMMANDS` with the ResponseSet read from PATH....

A :class:`Command` says which entry point a command calls, how its options become keyword
arguments, its headline numbers and what it flags (for ``--fail-on``). The report
(:mod:`benchkit.report`) runs the same commands, so a method section holds the numbers the
command prints.
"""
from __future__ import annotations

import argparse
import importlib
import json
from collections.abc import Callable
from typing import Any

import numpy as np

from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit.cli._inputs import existing_file
from benchkit.cli._inputs import side_table


@result
class Command:
    """An analysis command: the entry point it calls and how its results are read."""

    name: str  # the command
    entry: str  # "benchkit.boundary.profile"
    help: str
    example: str
    add_options: Callable[[argparse.ArgumentParser], None]
    keywords: Callable[[argparse.Namespace], dict]  # the command's own options -> keyword arguments
    headline: Callable[[Any], dict]  # result -> headline numbers (JSON-ready)
    flagged: Callable[[Any], int] | None = None  # result -> count for --fail-on (None: no flags)
    flags: str = ""  # what a flag is, for --fail-on's help

    @property
    def function(self):
        module, _, name = self.entry.rpartition(".")
        return getattr(importlib.import_module(module), name)


def _by(text: str | None):
    return None if text is None or text.lower() == "none" else text


def _axis(text: str | None):
    if text is None or text in ("accuracy", "size"):
        return text
    return [m.strip() for m in text.split(",") if m.strip()]


def _json_file(path: str | None, what: str):
    if path is None:
        return None
    p = existing_file(path, what)
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BenchkitValueError(f"{what} {path!r} is not UTF-8 JSON: {exc}") from None


def _put(out: dict, key: str, value) -> dict:
    if value is not None:
        out[key] = value
    return out


def _f(x) -> float | None:
    x = float(x)
    return None if np.isnan(x) else round(x, 6)


# ----------------------------------------------------------------------------- profile (BSDProbe)
def _profile_options(p):
    p.add_argument("--axis", default=None, metavar="accuracy|size|A,B,...",
                   help="the ordered model axis: 'accuracy' (default, App. F), 'size' (parsed sizes) "
                        "or model ids weakest first, comma-separated")
    p.add_argument("--by", default="benchmark", metavar="COLUMN",
                   help="items column naming the benchmarks (default 'benchmark'; 'none': one)")
    p.add_argument("--alpha-o", type=float, default=0.05, help="screening level of the order test")


def _profile_headline(res):
    p = res.profile
    return {"axis": [str(m) for m in res.axis.models], "T": int(res.T), "items": int(len(p.flagged)),
            "flagged": int(np.sum(p.flagged)), "items_without_T": int(res.n_dropped),
            "median_validity": _f(np.nanmedian(p.v)), "median_position": _f(np.nanmedian(p.x))}


PROFILE = Command(
    name="profile", entry="benchkit.boundary.profile",
    help="BSDProbe profiles of each item along an ordered model axis (paper 000)",
    example="benchkit profile runs/ --axis size --out profiles.parquet",
    add_options=_profile_options,
    keywords=lambda a: _put(_put({}, "axis", _axis(a.axis)), "by", _by(a.by)) | {"alpha_o": a.alpha_o},
    headline=_profile_headline, flagged=lambda r: int(np.sum(r.profile.flagged)),
    flags="items fail the order-consistency test (o <= alpha_o)")


# ----------------------------------------------------------------------------- dif
def _dif_options(p):
    p.add_argument("--owners", default="uploader", metavar="COLUMN|uploader",
                   help="owner of each model: a models column, or 'uploader' (the name's prefix)")
    p.add_argument("--source", default=None, metavar="COLUMN", help="items column of the item's source")
    p.add_argument("--families", default=None, metavar="FILE",
                   help="JSON file {family: regular expression over model ids} (default the paper's five)")
    p.add_argument("--min-family-size", type=int, default=20, help="smallest family audited (default 20)")
    p.add_argument("--resamples", type=int, default=None, metavar="N",
                   help="n_controls, n_bootstrap, n_owner_bootstrap and n_permutations at once "
                        "(default the paper's 1000/2000/2000/500)")


def _dif_keywords(a):
    kw = {"owners": a.owners, "min_family_size": a.min_family_size}
    _put(kw, "source", a.source)
    _put(kw, "families", _json_file(a.families, "--families"))
    if a.resamples is not None:
        kw.update(n_controls=a.resamples, n_bootstrap=a.resamples, n_owner_bootstrap=a.resamples,
                  n_permutations=a.resamples)
    return kw


def _dif_flags(res) -> np.ndarray:
    return np.asarray(res.replication.high_D & res.replication.high_V, dtype=bool)


def _dif_headline(res):
    frame = res.thresholds_frame()
    return {"families": [str(f) for f in res.families], "K": [int(k) for k in res.K],
            "models_retained": int(res.population.retained.size), "items": int(len(res.item_ids)),
            "stable_high_dif_items": int(_dif_flags(res).sum()),
            "reversal_rate": {str(k): _f(v) for k, v in zip(frame.iloc[:, 0], frame["rate"])}
            if "rate" in frame.columns else {}}


DIF = Command(
    name="dif", entry="benchkit.dif.audit_rankings",
    help="family DIF: does a leaderboard's ranking depend on items that favour a model family (paper 001)",
    example="benchkit dif leaderboard.parquet --families families.json --resamples 200 -j 2 --out dif/",
    add_options=_dif_options, keywords=_dif_keywords, headline=_dif_headline,
    flagged=lambda r: int(_dif_flags(r).sum()),
    flags="items show stable high DIF (top fifth of D in both owner halves)")


# ----------------------------------------------------------------------------- measure
def _measure_options(p):
    p.add_argument("--by", default=None, metavar="COLUMN",
                   help="items column splitting the items into benchmarks (default: one benchmark)")


def _measure_headline(res):
    t = res.to_frame().set_index("Benchmark")
    cols = [c for c in ("DDM", "Max Gap", "Top-5 Sum", "#") if c in t.columns]
    return {"benchmarks": {str(k): {c: _f(v[c]) for c in cols} for k, v in t.iterrows()}}


MEASURE = Command(
    name="measure", entry="benchkit.measure.measure_benchmarks",
    help="a benchmark as an empirical measure over difficulty: DDM, gaps (paper 002)",
    example="benchkit measure results.csv --by benchmark --out measure.csv",
    add_options=_measure_options, keywords=lambda a: _put({}, "by", _by(a.by)), headline=_measure_headline)


# ----------------------------------------------------------------------------- landscape
def _landscape_options(p):
    p.add_argument("--variant", action="append", default=None, metavar="NAME",
                   help="the variant(s) to map (repeat; default all)")


def _landscape_flagged(res) -> int | None:
    from benchkit.landscape.steps import noise_failures

    frame = res.to_frame()
    variants = set(frame["variant"]) if "variant" in frame.columns else set()
    if variants and "noise" not in variants and len(variants) > 1:
        return None
    fails = noise_failures(frame, variant="noise" if "noise" in variants else None)
    return int(fails.table["flagged"].sum())


def _landscape_headline(res):
    frame = res.to_frame()
    out = {"points": int(len(frame)), "mean_p_top1": _f(frame["p_top1"].mean()),
           "mean_h_norm": _f(frame["h_norm"].mean()), "accuracy": _f(frame["correct"].mean())}
    return _put(out, "cross_model_failures", _landscape_flagged(res))


LANDSCAPE = Command(
    name="landscape", entry="benchkit.landscape.map_points",
    help="probability landscapes of multiple-choice answers: P_top1, normalized entropy (paper 003)",
    example="benchkit landscape logits.parquet --variant baseline --variant noise --out points.parquet",
    add_options=_landscape_options,
    keywords=lambda a: _put({}, "variant", a.variant[0] if a.variant and len(a.variant) == 1 else a.variant),
    headline=_landscape_headline, flagged=lambda r: _landscape_flagged(r) or 0,
    flags="items every model gets wrong (under the 'noise' variant if there is one)")


# ----------------------------------------------------------------------------- quality
def _quality_options(p):
    p.add_argument("--by", default="benchmark", metavar="COLUMN",
                   help="items column naming the benchmarks compared (default 'benchmark')")
    p.add_argument("--family-by", default=None, metavar="COLUMN[,COLUMN]",
                   help="models columns defining a family for CAD (default 'series,variant')")
    p.add_argument("--resamples", type=int, default=1000, metavar="N",
                   help="bootstrap replicates of the intervals (n_resamples; default 1000, 0: none)")


def _quality_headline(res):
    t = res.to_frame()
    cols = [c for c in ("cbrc", "ds", "cad", "bqs") if c in t.columns]
    return {"benchmarks": {str(k): {c: _f(v[c]) for c in cols} for k, v in t.iterrows()}}


def _quality_keywords(a):
    kw = {"by": a.by, "n_resamples": a.resamples}
    if a.family_by:
        kw["family_by"] = tuple(c.strip() for c in a.family_by.split(",") if c.strip())
    return kw


QUALITY = Command(
    name="quality", entry="benchkit.quality.assess",
    help="Benchmark²: cross-benchmark ranking consistency, discriminability, CAD, BQS (paper 004)",
    example="benchkit quality suite.parquet --family-by family --resamples 200 --out quality/",
    add_options=_quality_options, keywords=_quality_keywords, headline=_quality_headline)


# ----------------------------------------------------------------------------- labels
def _labels_options(p):
    p.add_argument("--min-models", type=int, default=5, help="fewest models voting on an item (default 5)")


LABELS = Command(
    name="labels", entry="benchkit.labels.key_issues",
    help="answer-key checks: items whose key the models' answers contradict (wrong or ambiguous key)",
    example="benchkit labels mmlu_answers.parquet --out key_issues.csv --fail-on 1",
    add_options=_labels_options, keywords=lambda a: {"min_models": a.min_models},
    headline=lambda r: {"items": int(len(r.items)), "flagged": int(r.n_flagged),
                        "votes_from": str(r.votes_from)},
    flagged=lambda r: int(r.n_flagged), flags="items have a suspect answer key")


# ----------------------------------------------------------------------------- compare
def _compare_options(p):
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--models", nargs=2, metavar=("A", "B"), help="compare these two models")
    g.add_argument("--all", action="store_true", dest="all_pairs",
                   help="every pair, Holm-adjusted, with the leaderboard's distinguishable neighbours")
    p.add_argument("--resamples", type=int, default=2000, metavar="N",
                   help="bootstrap replicates where the test needs them (n_resamples; default 2000)")
    p.add_argument("--method", default="auto", help="the paired test (default 'auto')")


def _compare_headline(res):
    if hasattr(res, "pairs"):
        t = res.to_frame()
        return {"pairs": int(len(t)), "significant": int(t["significant"].sum()),
                "leaderboard": [str(m) for m in res.leaderboard["model"]]}
    return {"a": str(res.a), "b": str(res.b), "difference": _f(res.difference), "p_value": _f(res.p_value),
            "ci": [_f(res.ci[0]), _f(res.ci[1])], "method": str(res.method), "n_items": int(res.n_items)}


def _compare_flagged(res) -> int:
    if hasattr(res, "pairs"):
        return int(res.to_frame()["significant"].sum())
    return int(res.p_value < 0.05)


COMPARE = Command(
    name="compare", entry="benchkit.compare",
    help="paired comparison of models on the same items (McNemar / paired t, with intervals)",
    example="benchkit compare runs/ --models gpt-4o claude-3-5-sonnet\n  benchkit compare runs/ --all --json",
    add_options=_compare_options,
    keywords=lambda a: {"method": a.method, "n_resamples": a.resamples},
    headline=_compare_headline, flagged=_compare_flagged,
    flags="pairs differ significantly (p < 0.05; Holm-adjusted with --all)")

# ----------------------------------------------------------------------------- audit (all methods)
AUDIT_METHODS = ("labels", "boundary", "dif", "landscape", "quality", "measure")


def _audit_options(p):
    p.add_argument("--methods", default=None, metavar="M[,M]",
                   help="only these methods (default: every one the data support; "
                        f"{','.join(AUDIT_METHODS)})")
    p.add_argument("--families", default=None, metavar="COLUMN|FILE.json",
                   help="model families for family DIF and CAD: a models column, or a JSON file "
                        "{family: [model ids]} (default each method's own)")
    p.add_argument("--axis", default=None, metavar="accuracy|size|A,B,...",
                   help="BSDProbe's model axis (default: every size ladder in the data)")
    p.add_argument("--reference", default=None, metavar="FILE",
                   help="items known to be flawed (one id per line, or a CSV/Parquet table with an 'item' "
                        "column): adds precision, recall and AUROC per method")
    p.add_argument("--resamples", type=int, default=200, metavar="N",
                   help="replicates of the resampling stages (n_resamples; default 200)")


def _methods_list(text: str | None):
    if text is None:
        return None
    return [m.strip() for m in text.split(",") if m.strip()]


def _families(text: str | None):
    if text is None or not text.lower().endswith(".json"):
        return text
    return _json_file(text, "--families")


def _reference(path: str | None):
    if path is None:
        return None
    p = existing_file(path, "--reference")
    if p.suffix.lower() in (".csv", ".parquet", ".pq"):
        return [str(i) for i in side_table(path, "item", "--reference")["item"]]
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise BenchkitValueError(f"--reference {path!r} is not UTF-8 text: {exc}") from None
    return [line.strip() for line in lines if line.strip()]


def _audit_keywords(a):
    kw = {}
    _put(kw, "methods", _methods_list(a.methods))
    _put(kw, "families", _families(a.families))
    _put(kw, "axis", _axis(a.axis))
    _put(kw, "reference", _reference(a.reference))
    kw["n_resamples"] = a.resamples
    return kw


def _audit_headline(res):
    ap, items = res.applicability, res.items
    out = {"ran": [str(m) for m in ap.index[ap["ran"].to_numpy(dtype=bool)]],
           "not_run": {str(m): str(ap.at[m, "reason"]) for m in ap.index if not ap.at[m, "ran"]},
           "items_flagged": int((items["n_flags"] >= 1).sum()),
           "items_flagged_by_two_or_more": int((items["n_flags"] >= 2).sum())}
    if res.validation is not None:
        t = res.validation.table
        out["validation"] = {str(m): {c: _f(t.at[m, c]) for c in t.columns
                                      if np.issubdtype(t[c].dtype, np.number)} for m in t.index}
    return out


AUDIT = Command(
    name="audit", entry="benchkit.audit",
    help="the cross-method audit: every method the data support, joined item by item",
    example="benchkit audit runs/ --out audit.parquet --fail-on 1\n"
            "  benchkit audit dataset:mmlu-redux --reference flawed.txt --json",
    add_options=_audit_options, keywords=_audit_keywords, headline=_audit_headline,
    flagged=lambda r: int((r.items["n_flags"] >= 1).sum()),
    flags="items are flagged by at least one method")

COMMANDS = {c.name: c for c in (AUDIT, PROFILE, DIF, MEASURE, LANDSCAPE, QUALITY, LABELS, COMPARE)}
