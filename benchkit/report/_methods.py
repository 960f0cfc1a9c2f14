"""What the report says about each method: its question, reference, figure and explorer.

Numbers never come from here: a section shows the method's result (its headline numbers, its main
table, the explorer built from it). The figure of a method with an explorer is the explorer's own
static view (:meth:`benchkit.widgets._base.BenchkitWidget.static_chart`, aggregated for big data),
so the report and a saved notebook show the same picture.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchkit._results import result


@result
class MethodInfo:
    """A method's description in the report."""

    key: str
    title: str
    question: str
    reference: str
    explorer: Callable[[Any, Any], Any] | None = None  # (result, rs) -> explorer widget
    figure: Callable[[Any], Any] | None = None  # result -> Altair chart (methods without explorer)


def _trajectory(result, rs):
    from benchkit.widgets import TrajectoryExplorer

    return TrajectoryExplorer(result)


def _dif(result, rs):
    from benchkit.widgets import DIFExplorer

    return DIFExplorer(result)


def _ecdf(result, rs):
    from benchkit.widgets import ECDFGapExplorer

    return ECDFGapExplorer(result)


def _landscape(result, rs):
    from benchkit.widgets import LandscapeExplorer

    return LandscapeExplorer(result, items=rs.items)


def _quality(result, rs):
    from benchkit.widgets import QualityDashboard

    return QualityDashboard(result)


def _audit_explorer(result, rs):
    from benchkit.widgets import AuditExplorer

    return AuditExplorer(result, rs)


def _key_issues_chart(result):
    from benchkit.charts.labels import key_issues_chart

    return key_issues_chart(result)


def _neighbours_chart(result):
    from benchkit.charts.paired import neighbours_chart

    return neighbours_chart(result)


METHODS = {m.key: m for m in (
    MethodInfo(
        "labels", "Answer keys (Dawid-Skene, confident learning)",
        "Do the models' chosen options contradict an item's answer key, so that the key is wrong or "
        "the item ambiguous?",
        "A. P. Dawid and A. M. Skene (1979), Applied Statistics 28(1), 20-28; C. G. Northcutt, L. Jiang "
        "and I. L. Chuang (2021), Confident learning, JAIR 70, 1373-1411.",
        figure=_key_issues_chart),
    MethodInfo(
        "boundary", "Capability boundaries (BSDProbe, paper 000)",
        "Along an ordered axis of models, where does each item's correctness rise, how sharply, and "
        "does it rise in order (order-consistency test o)?",
        "Are Benchmarks Reliable? Toward Structural Diagnosis via Item-Level Capability Boundaries, "
        "arXiv:2609.33196.", explorer=_trajectory),
    MethodInfo(
        "dif", "Family DIF and near-tie rankings (paper 001)",
        "Do some items favour one model family, and would leaderboard near-ties reverse if the "
        "benchmark were recomposed without them?",
        "Q. Zheng, Y. Yang et al., Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark "
        "Recomposition? (ETH Zurich).", explorer=_dif),
    MethodInfo(
        "landscape", "Probability landscapes (paper 003)",
        "How confident and how spread are the models' option probabilities (P_top1, normalized "
        "residual entropy), and which items does every model fail?",
        "Auditing MCQA Benchmarks through Probability Landscapes.", explorer=_landscape),
    MethodInfo(
        "quality", "Benchmark quality (Benchmark², paper 004)",
        "Do benchmarks rank models consistently (CBRC), separate them (DS) and keep stronger models of "
        "a family ahead (CAD)?",
        "Q. Qian, C. Huang et al. (2026), Benchmark²: Systematic Evaluation of LLM Benchmarks, "
        "arXiv:2601.03986.", explorer=_quality),
    MethodInfo(
        "measure", "Difficulty coverage (empirical measure, paper 002)",
        "How evenly do the items cover the difficulty axis (DDM, the widest gaps), and where would new "
        "items help most?",
        "Your Benchmark Is an Empirical Measure over Difficulty.", explorer=_ecdf),
)}

AUDIT = MethodInfo(
    "audit", "Audit summary",
    "Which items do several methods flag, and how far do the methods agree on their flags?",
    "The cross-method audit of benchkit: each method's item verdict joined by item; agreement by "
    "Cohen's kappa (J. Cohen (1960), Educational and Psychological Measurement 20(1), 37-46), "
    "Jaccard and Kendall's tau_b.", explorer=_audit_explorer)

COMPARE = MethodInfo(
    "compare", "Per-model results and paired comparisons",
    "Which models are distinguishable from their leaderboard neighbours on the same items?",
    "Q. McNemar (1947), Psychometrika 12(2), 153-157; E. Miller (2024), Adding error bars to evals, "
    "arXiv:2411.00640; S. Holm (1979), Scand. J. Statistics 6(2), 65-70.", figure=_neighbours_chart)
