"""The paper's MPD tables and readings: MPD of a landscape frame grouped by benchmark, variant, model.

Paper 003, Sec. 5 (Tables 1-4), App. A (Tables 7-8), App. D (Tables 11-12), App. E (Table 13),
App. G (Table 15): each table is :func:`~benchkit.landscape._mpd.mpd` (or
:func:`~benchkit.landscape._mpd.pairwise_distance_sum`) of the (P_top1, H_norm) points of a
landscape frame, per group; :func:`mpd_readings` gives the three readings of MPD the paper uses
(pooled, item-averaged, mean per model). Public through :mod:`benchkit.landscape.steps`.
"""
from __future__ import annotations

from typing import Any
from typing import Sequence

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_columns
from benchkit.landscape._mpd import mpd
from benchkit.landscape._points import LandscapePoints

__all__ = [
    "benchmark_table",
    "variant_table",
    "model_table",
    "rank_table",
    "summary_table",
    "score_spread_table",
    "average_over_models",
    "MPDReadings",
    "mpd_readings",
]


# ----------------------------------------------------------------------------- tables
def _check_frame(frame: Any, required: Sequence[str]) -> pd.DataFrame:
    if isinstance(frame, LandscapePoints):
        frame = frame.to_frame()
    if not isinstance(frame, pd.DataFrame):
        raise BenchkitTypeError(
            f"expected a DataFrame (e.g. LandscapePoints.to_frame()); got {type(frame).__name__}"
        )
    check_columns("frame", frame.columns, required=list(required))
    return frame


def _mpd_by(frame: pd.DataFrame, by: list[str], block: int) -> pd.Series:
    res = mpd(frame, by=by, block=block)
    t = res.to_frame().set_index(by)["mpd"]
    return t


def benchmark_table(frame: Any, *, by: str = "benchmark", block: int = 512) -> pd.DataFrame:
    """Table 1 (and Table 15): per benchmark, mean H_norm and pooled MPD over all its points.

    The paper's benchmark-level comparison: mean ``H_norm`` says how much residual option
    competition the models see, MPD how heterogeneous the landscape is (Sec. 5.1-5.2).

    Parameters
    ----------
    frame : LandscapePoints or DataFrame
        One row per (item, model) point with the ``by`` column, ``p_top1`` and ``h_norm`` (e.g.
        ``map_points(rs).to_frame()``).
    by : str, default "benchmark"
        The split: one row of the table per value of this column.
    block : int, default 512
        Tile size of the exact MPD kernel (:func:`pairwise_distance_sum`).

    Returns
    -------
    DataFrame
        Indexed by ``by``: ``points`` (N, the pooled (item, model) points), ``mean_h_norm`` and
        ``mpd`` (pooled over all points of the group, within- and cross-model pairs, Sec. 3.3).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.3, Sec. 5.1, Table 1;
    App. G, Table 15 (GPQA).

    Examples
    --------
    The 2,400 (item, model) points of the MCQ sample, its items split into two "benchmarks":

    >>> import benchkit
    >>> frame = benchkit.landscape.map_points(benchkit.simulate.load_sample("mcq")).to_frame()
    >>> frame["benchmark"] = frame["item"].map(lambda i: "first" if i < "q0150" else "second")
    >>> from benchkit.landscape.steps import benchmark_table
    >>> benchmark_table(frame).round(3)
               points  mean_h_norm    mpd
    benchmark
    first        1200        0.553  0.431
    second       1200        0.558  0.429
    """
    f = _check_frame(frame, [by, "p_top1", "h_norm"])
    out = pd.DataFrame({
        "points": f.groupby(by, sort=True).size(),
        "mean_h_norm": f.groupby(by, sort=True)["h_norm"].mean(),
    })
    out["mpd"] = _mpd_by(f, [by], block)
    out.index.name = by
    return out


def variant_table(
    frame: Any,
    *,
    variants: Sequence[str] | None = None,
    baseline_variant: str = "baseline",
    stat: str = "mpd",
    variant_column: str = "variant",
    benchmark_column: str = "benchmark",
    block: int = 512,
) -> pd.DataFrame:
    """Tables 2, 3 and 4: a statistic per benchmark and variant, with the change from baseline.

    How a perturbation moves the landscape (MPD, Tables 2 and 4) or the accuracy (Table 3): masking
    and No-Answer should lower accuracy, noise injection raise it towards 100 %, score bias change
    little (Sec. 5.3-5.4).

    Parameters
    ----------
    frame : LandscapePoints or DataFrame
        One row per (item, model, variant) point with the variant and benchmark columns,
        ``p_top1``, ``h_norm`` and, for ``stat="accuracy"``, ``correct``.
    variants : sequence of str, optional
        The variants to show, in column order (default: the baseline, then the others in order of
        appearance). The baseline is always included.
    baseline_variant : str, default "baseline"
        The reference variant of the deltas.
    stat : {"mpd", "accuracy", "mean_h_norm"}
        ``"mpd"`` (Tables 2, 4: pooled MPD of each benchmark x variant), ``"accuracy"`` (Table 3,
        in percent) or ``"mean_h_norm"``.
    variant_column, benchmark_column : str
        The columns holding the variant and the benchmark (default ``"variant"``,
        ``"benchmark"``).
    block : int, default 512
        Tile size of the exact MPD kernel (:func:`pairwise_distance_sum`).

    Returns
    -------
    DataFrame
        Indexed by benchmark: the baseline, then for each other variant its value and
        ``"<variant> delta"`` (value - baseline), in ``variants`` order.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.4 (perturbations),
    Sec. 5.3-5.4, Tables 2, 3 and 4.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import variant_table
    >>> frame = pd.DataFrame({
    ...     "benchmark": ["arc"] * 4 + ["mmlu"] * 4,
    ...     "variant": ["baseline", "baseline", "noise", "noise"] * 2,
    ...     "p_top1": [0.9, 0.6, 1.0, 0.98, 0.5, 0.7, 0.9, 0.99],
    ...     "h_norm": [0.5, 0.8, 0.2, 0.1, 0.9, 0.6, 0.3, 0.2],
    ...     "correct": [True, False, True, True, False, True, True, True]})
    >>> variant_table(frame).round(3)
               baseline  noise  noise delta
    benchmark
    arc           0.424  0.102       -0.322
    mmlu          0.361  0.135       -0.226
    >>> variant_table(frame, stat="accuracy")
               baseline  noise  noise delta
    benchmark
    arc            50.0  100.0         50.0
    mmlu           50.0  100.0         50.0
    """
    check_choice("stat", stat, ("mpd", "accuracy", "mean_h_norm"))
    need = [variant_column, benchmark_column, "p_top1", "h_norm"]
    need += ["correct"] if stat == "accuracy" else []
    f = _check_frame(frame, need)
    present = list(pd.unique(f[variant_column]))
    if variants is None:
        variants = [baseline_variant] + [v for v in present if v != baseline_variant]
    variants = list(variants)
    if baseline_variant not in variants:
        variants = [baseline_variant] + variants
    missing = [v for v in variants if v not in present]
    if missing:
        raise BenchkitValueError(
            f"variant(s) {missing} not found in column {variant_column!r}; present: {present}"
        )
    f = f[f[variant_column].isin(variants)]
    if stat == "mpd":
        val = _mpd_by(f, [benchmark_column, variant_column], block)
    elif stat == "accuracy":
        val = f.groupby([benchmark_column, variant_column])["correct"].mean() * 100.0
    else:
        val = f.groupby([benchmark_column, variant_column])["h_norm"].mean()
    wide = val.unstack(variant_column)
    out = pd.DataFrame(index=wide.index)
    out[baseline_variant] = wide[baseline_variant]
    for v in variants:
        if v == baseline_variant:
            continue
        out[v] = wide[v]
        out[f"{v} delta"] = wide[v] - wide[baseline_variant]
    return out


def model_table(
    frame: Any,
    *,
    models: Sequence[str] | None = None,
    benchmarks: Sequence[str] | None = None,
    model_column: str = "model",
    benchmark_column: str = "benchmark",
    orient: str = "model",
    block: int = 512,
) -> pd.DataFrame:
    """MPD of each model's own points per benchmark (Tables 7, 11-12).

    Whether the benchmark ordering of MPD holds model by model (App. A), and how MPD moves with
    model size within a family (App. D: larger models tend to give lower MPD).

    Parameters
    ----------
    frame : LandscapePoints or DataFrame
        One row per (item, model) point with the model and benchmark columns, ``p_top1`` and
        ``h_norm``.
    models, benchmarks : sequence of str, optional
        Keep these models / benchmarks, in this order (default: all, sorted).
    model_column, benchmark_column : str
        The columns holding the model and the benchmark (default ``"model"``, ``"benchmark"``).
    orient : {"model", "benchmark"}
        ``"model"``: models x benchmarks (Table 7); ``"benchmark"``: benchmarks x models (Tables
        11-12, the models of one family).
    block : int, default 512
        Tile size of the exact MPD kernel (:func:`pairwise_distance_sum`).

    Returns
    -------
    DataFrame
        Per-model MPD (each model's own points only), models x benchmarks or its transpose.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. A, Table 7; App. D,
    Tables 11-12.

    Examples
    --------
    Each model's own MPD on each half of the MCQ sample's items:

    >>> import benchkit
    >>> frame = benchkit.landscape.map_points(benchkit.simulate.load_sample("mcq")).to_frame()
    >>> frame["benchmark"] = frame["item"].map(lambda i: "first" if i < "q0150" else "second")
    >>> from benchkit.landscape.steps import model_table
    >>> model_table(frame).round(3).head(3)
    benchmark  first  second
    model
    sim-mcq-1  0.280   0.284
    sim-mcq-2  0.343   0.320
    sim-mcq-3  0.412   0.399
    """
    check_choice("orient", orient, ("model", "benchmark"))
    f = _check_frame(frame, [model_column, benchmark_column, "p_top1", "h_norm"])
    if models is not None:
        f = f[f[model_column].isin(list(models))]
    if benchmarks is not None:
        f = f[f[benchmark_column].isin(list(benchmarks))]
    wide = _mpd_by(f, [model_column, benchmark_column], block).unstack(benchmark_column)
    if models is not None:
        wide = wide.reindex([m for m in models if m in wide.index])
    if benchmarks is not None:
        wide = wide[[b for b in benchmarks if b in wide.columns]]
    return wide if orient == "model" else wide.T


def rank_table(frame: Any, *, model_column: str = "model", benchmark_column: str = "benchmark",
               models: Sequence[str] | None = None, block: int = 512) -> pd.DataFrame:
    """Table 8: per model, the benchmarks ordered by decreasing per-model MPD (ties: name order).

    Parameters
    ----------
    frame : LandscapePoints or DataFrame
        One row per (item, model) point with the model and benchmark columns, ``p_top1`` and
        ``h_norm``.
    model_column, benchmark_column : str
        The columns holding the model and the benchmark (default ``"model"``, ``"benchmark"``).
    models : sequence of str, optional
        Keep these models, in this order (default: all, sorted).
    block : int, default 512
        Tile size of the exact MPD kernel (:func:`pairwise_distance_sum`).

    Returns
    -------
    DataFrame
        One row per model, columns ``1st, 2nd, ...``: the benchmark names from the most to the
        least dispersed landscape (None where a model lacks a benchmark).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. A, Table 8.

    Examples
    --------
    The halves of the MCQ sample ranked model by model (most dispersed first):

    >>> import benchkit
    >>> frame = benchkit.landscape.map_points(benchkit.simulate.load_sample("mcq")).to_frame()
    >>> frame["benchmark"] = frame["item"].map(lambda i: "first" if i < "q0150" else "second")
    >>> from benchkit.landscape.steps import rank_table
    >>> rank_table(frame).head(3)
                  1st     2nd
    model
    sim-mcq-1  second   first
    sim-mcq-2   first  second
    sim-mcq-3   first  second
    """
    wide = model_table(frame, model_column=model_column, benchmark_column=benchmark_column, models=models,
                       block=block)
    ords = {1: "1st", 2: "2nd", 3: "3rd"}
    rows = {}
    for m, r in wide.iterrows():
        r = r.dropna()
        order = sorted(r.index, key=lambda b: (-r[b], str(b)))
        rows[m] = order
    width = max((len(v) for v in rows.values()), default=0)
    cols = [ords.get(i, f"{i}th") for i in range(1, width + 1)]
    return pd.DataFrame([v + [None] * (width - len(v)) for v in rows.values()],
                        index=pd.Index(list(rows), name=model_column), columns=cols)


def summary_table(frame: Any, *, by: str | Sequence[str] = ("model", "variant"),
                  block: int = 512) -> pd.DataFrame:
    """Table 13 layout (and a general summary) per group.

    Parameters
    ----------
    frame : LandscapePoints or DataFrame
        One row per point with the ``by`` columns, ``p_top1``, ``h_norm`` and optionally
        ``correct``.
    by : str or sequence of str, default ("model", "variant")
        The split: one row per combination (Table 13: model x 4- or 5-choice format).
    block : int, default 512
        Tile size of the exact MPD kernel (:func:`pairwise_distance_sum`).

    Returns
    -------
    DataFrame
        Indexed by ``by``: ``n`` (points), ``accuracy`` (%; NaN when ``frame`` has no
        ``correct`` column), ``mean_h_norm``, ``mean_p_top1`` and ``mpd``.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. E, Table 13.

    Examples
    --------
    Per model of the MCQ sample (the weakest models are the least confident):

    >>> import benchkit
    >>> frame = benchkit.landscape.map_points(benchkit.simulate.load_sample("mcq")).to_frame()
    >>> frame["benchmark"] = frame["item"].map(lambda i: "first" if i < "q0150" else "second")
    >>> from benchkit.landscape.steps import summary_table
    >>> summary_table(frame, by="model").round(3).head(3)
                 n  accuracy  mean_h_norm  mean_p_top1    mpd
    model
    sim-mcq-1  300     4.667        0.733        0.552  0.282
    sim-mcq-2  300    29.333        0.691        0.625  0.331
    sim-mcq-3  300    66.000        0.538        0.765  0.405
    """
    by_cols = [by] if isinstance(by, str) else list(by)
    f = _check_frame(frame, by_cols + ["p_top1", "h_norm"])
    g = f.groupby(by_cols, sort=True)
    out = pd.DataFrame({"n": g.size()})
    out["accuracy"] = (g["correct"].mean() * 100.0) if "correct" in f.columns else np.nan
    out["mean_h_norm"] = g["h_norm"].mean()
    out["mean_p_top1"] = g["p_top1"].mean()
    out["mpd"] = _mpd_by(f, by_cols, block)
    return out


def score_spread_table(
    frame: Any,
    *,
    variants: Sequence[str] = ("score_bias_1/10", "score_bias", "score_bias_100/100"),
    variant_column: str = "variant",
    model_column: str = "model",
    benchmark_column: str = "benchmark",
) -> pd.DataFrame:
    """Table 9 evidence (App. B): accuracy (%) under each score value, per model x benchmark.

    Columns: one per entry of ``variants`` (default: the score-bias builder's names for 1/10,
    10/10 and 100/100), ``complete`` (all values present) and ``spread_pp`` = max - min accuracy
    in percentage points over the values present. The paper's summary rows are
    ``t.complete.sum()`` (complete comparisons), ``t.loc[t.complete, "spread_pp"].max()``
    (maximum spread) and its typical value.

    Parameters
    ----------
    frame : LandscapePoints or DataFrame
        One row per (item, model, variant) response with the variant, model and benchmark columns
        and ``correct``.
    variants : sequence of str
        The score-value variants compared (default the names :func:`score_bias` gives to
        ``value="1/10"``, ``"10/10"`` and ``"100/100"``).
    variant_column, model_column, benchmark_column : str
        The columns holding the variant, the model and the benchmark.

    Returns
    -------
    DataFrame
        Indexed by (model, benchmark): accuracy (%) per variant, ``complete`` and ``spread_pp``.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. B, Table 9 (20 complete
    comparisons, maximum spread 1.10 pp).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import score_spread_table
    >>> frame = pd.DataFrame({
    ...     "model": "m1", "benchmark": "mmlu",
    ...     "variant": ["score_bias_1/10", "score_bias_1/10", "score_bias", "score_bias",
    ...                 "score_bias_100/100", "score_bias_100/100"],
    ...     "correct": [True, False, True, True, True, False]})
    >>> t = score_spread_table(frame)
    >>> t[["score_bias", "complete", "spread_pp"]]
                     score_bias  complete  spread_pp
    model benchmark
    m1    mmlu            100.0      True       50.0
    """
    f = _check_frame(frame, [variant_column, model_column, benchmark_column, "correct"])
    variants = list(variants)
    f = f[f[variant_column].isin(variants)]
    if len(f) == 0:
        raise BenchkitValueError(
            f"frame has no rows with variant in {variants}; pass variants= with your names"
        )
    acc = f.groupby([model_column, benchmark_column, variant_column])["correct"].mean() * 100.0
    acc = acc.unstack(variant_column)
    acc = acc.reindex(columns=variants)
    out = acc.copy()
    out["complete"] = acc.notna().all(axis=1)
    out["spread_pp"] = acc.max(axis=1) - acc.min(axis=1)
    out.columns.name = None
    return out


def _as_list(by) -> list[str]:
    if by is None:
        return []
    return [by] if isinstance(by, str) else list(by)


def average_over_models(frame: Any, *, by: str | Sequence[str] | None = "benchmark",
                        item_column: str = "item", model_column: str = "model",
                        columns: Sequence[str] = ("p_top1", "h_norm")) -> pd.DataFrame:
    """Figure 2's landscape: each item's coordinates averaged over the models.

    Parameters
    ----------
    frame : LandscapePoints or DataFrame
        One row per (item, model) point with ``item``, ``model``, the ``columns`` and ``by``.
    by : str or list of str, optional
        Columns kept as groups (default ``"benchmark"``; None: items are identified by ``item``
        alone).
    item_column, model_column : str
        The columns holding the item and the model (default ``"item"``, ``"model"``).
    columns : pair of str
        The coordinates averaged (default P_top1 and H_norm).

    Returns
    -------
    DataFrame
        One row per (by..., item): the mean of each coordinate over the models that answered the
        item, and ``n_models`` (how many did). Paper 003 Fig. 2: "coordinates averaged across
        three models".

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Fig. 2 (Sec. 4.1).

    Examples
    --------
    Fig. 2's points for the MCQ sample: one per item, averaged over its eight models:

    >>> import benchkit
    >>> frame = benchkit.landscape.map_points(benchkit.simulate.load_sample("mcq")).to_frame()
    >>> frame["benchmark"] = frame["item"].map(lambda i: "first" if i < "q0150" else "second")
    >>> from benchkit.landscape.steps import average_over_models
    >>> average_over_models(frame).round(3).head(3)
      benchmark   item  p_top1  h_norm  n_models
    0     first  q0000   0.894   0.802         8
    1     first  q0001   0.625   0.787         8
    2     first  q0002   0.832   0.705         8
    """
    keys = _as_list(by) + [item_column]
    f = _check_frame(frame, keys + [model_column] + list(columns))
    g = f.groupby(keys, sort=True, observed=True)
    out = g[list(columns)].mean()
    out["n_models"] = g[model_column].nunique()
    return out.reset_index()


@result
class MPDReadings:
    """The three readings of MPD (paper 003 Sec. 3.3, Table 1, Fig. 2 and App. A) per group.

    The paper uses MPD in three ways that give different numbers: pooled over all (item, model)
    points (Table 1), over the per-item points averaged across models (Fig. 2), and as the mean of
    each model's own MPD (App. A). Built by :func:`mpd_readings`.

    Parameters
    ----------
    table, per_model
        The fields described under Attributes.

    Attributes
    ----------
    table : DataFrame
        Indexed by the group (``by``), columns:

        * ``pooled`` -- MPD over all (item, model) points, within- and cross-model pairs (Sec. 3.3,
          Table 1: N = 3,000 for 1,000 items x 3 models);
        * ``item_averaged`` -- MPD over the per-item points averaged across models (the landscape
          of Fig. 2);
        * ``mean_per_model`` -- the mean over models of each model's own MPD (App. A, Table 7);
        * ``points``, ``items``, ``models`` -- N of the pooled reading, number of items, models.
    per_model : DataFrame
        Each model's own MPD (groups x models), the terms of ``mean_per_model``.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372: pooled MPD, Sec. 3.3
    and Table 1; item-averaged landscape, Fig. 2; per-model MPD, App. A and Table 7.

    Examples
    --------
    Averaging over models shrinks the cloud; pooling adds the cross-model pairs:

    >>> import benchkit
    >>> frame = benchkit.landscape.map_points(benchkit.simulate.load_sample("mcq")).to_frame()
    >>> frame["benchmark"] = frame["item"].map(lambda i: "first" if i < "q0150" else "second")
    >>> from benchkit.landscape.steps import mpd_readings
    >>> mpd_readings(frame).table[["pooled", "item_averaged", "mean_per_model"]].round(3)
               pooled  item_averaged  mean_per_model
    benchmark
    first       0.431          0.258           0.381
    second      0.429          0.247           0.383
    """

    table: pd.DataFrame
    per_model: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """The readings table (:attr:`table`), a copy."""
        return self.table.copy()


def mpd_readings(frame: Any, *, by: str | Sequence[str] | None = "benchmark",
                 item_column: str = "item", model_column: str = "model",
                 columns: Sequence[str] = ("p_top1", "h_norm"), block: int = 512) -> MPDReadings:
    """All three readings of MPD side by side (pooled, per-item averaged, mean of per-model MPDs).

    Parameters
    ----------
    frame : LandscapePoints or DataFrame
        One row per (item, model) point with ``item``, ``model``, the ``columns`` and ``by``.
    by : str or list of str, optional
        Group columns (default ``"benchmark"``); None: one group.
    item_column, model_column, columns, block
        The item and model columns, the coordinate columns and the exact kernel's block size
        (:func:`mpd`).

    Returns
    -------
    MPDReadings
        ``table`` (per group: ``pooled``, ``item_averaged``, ``mean_per_model``, counts) and
        ``per_model`` (each model's own MPD).

    Notes
    -----
    Sec. 3.3 defines MPD = 2 / (N (N - 1)) sum_{i<j} ||z_i - z_j|| and states that the pooled
    value over item x model points "differs from the mean of the independently computed per-model
    MPDs in Appendix A"; Fig. 2 plots the per-item average over models. The three are different
    statistics: averaging shrinks the cloud (item_averaged <= pooled typically), and pooling adds
    the cross-model pairs. All three use exact pair sums.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.3, Table 1, Fig. 2,
    App. A (Table 7).

    Examples
    --------
    The three readings of the MCQ sample's two halves, and the per-model terms:

    >>> import benchkit
    >>> frame = benchkit.landscape.map_points(benchkit.simulate.load_sample("mcq")).to_frame()
    >>> frame["benchmark"] = frame["item"].map(lambda i: "first" if i < "q0150" else "second")
    >>> from benchkit.landscape.steps import mpd_readings
    >>> r = mpd_readings(frame)
    >>> r.table[["points", "items", "models"]]
               points  items  models
    benchmark
    first        1200    150       8
    second       1200    150       8
    >>> r.per_model.iloc[:, :3].round(3)
    model      sim-mcq-1  sim-mcq-2  sim-mcq-3
    benchmark
    first          0.280      0.343      0.412
    second         0.284      0.320      0.399
    """
    groups = _as_list(by)
    f = _check_frame(frame, groups + [item_column, model_column] + list(columns))
    cols = list(columns)
    key = groups if groups else None
    pooled = mpd(f, by=key, columns=cols, block=block)
    avg = average_over_models(f, by=by, item_column=item_column, model_column=model_column,
                              columns=cols)
    averaged = mpd(avg, by=key, columns=cols, block=block)
    per = mpd(f, by=groups + [model_column], columns=cols, block=block).to_frame()
    if groups:
        pooled_s = pooled.to_frame().set_index(groups)["mpd"]
        avg_s = averaged.to_frame().set_index(groups)["mpd"]
        per_model = per.set_index(groups + [model_column])["mpd"].unstack(model_column)
        gb = f.groupby(groups, sort=True, observed=True)
        table = pd.DataFrame({
            "pooled": pooled_s,
            "item_averaged": avg_s,
            "mean_per_model": per_model.mean(axis=1),
            "points": gb.size(),
            "items": gb[item_column].nunique(),
            "models": gb[model_column].nunique(),
        })
    else:
        per_model = per.set_index(model_column)["mpd"].to_frame().T
        per_model.index = pd.Index(["all"], name="group")
        table = pd.DataFrame({
            "pooled": [pooled.mpd], "item_averaged": [averaged.mpd],
            "mean_per_model": [float(per_model.iloc[0].mean())], "points": [len(f)],
            "items": [f[item_column].nunique()], "models": [f[model_column].nunique()],
        }, index=pd.Index(["all"], name="group"))
    return MPDReadings(table=table, per_model=per_model)

