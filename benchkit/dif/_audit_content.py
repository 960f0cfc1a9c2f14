"""Blinded content-audit support (paper 001, Sec. 4.3, App. D.4).

:func:`content_sample` builds the matched stable-high-DIF / control sample with blinded ids (no
annotator is called); :func:`analyze_annotations` analyses two annotators' labels supplied as
tables: Cohen's kappa, Spearman, exact McNemar, BH, Wilcoxon and the four confirmatory criteria
(Figure 3's numbers).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from benchkit._parallel import check_n_jobs
from benchkit._random import generator
from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_columns
from benchkit._validation import check_int
from benchkit.stats import benjamini_hochberg
from benchkit.stats import cohen_kappa

__all__ = [
    "BINARY_AXES",
    "ORDINAL_AXES",
    "ContentAudit",
    "analyze_annotations",
    "content_sample",
    "family_direction_tests",
]

#: The ten confirmatory binary axes and three ordinal axes of App. D.4.
BINARY_AXES: tuple[str, ...] = (
    "quantitative", "formal_rule", "factual_knowledge", "contextual_reading", "commonsense",
    "spatial_temporal", "wordplay", "negation", "code_structured", "distractor_discrimination",
)
ORDINAL_AXES: tuple[str, ...] = ("reasoning_steps", "context_burden", "ambiguity")


def content_sample(high_D, high_V, cells, item_ids, *, texts=None, benchmark: str | None = None,
                   advantaged_D=None, advantaged_V=None, n_pairs: int = 50,
                   rng: Any = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Matched stable-high-DIF / control sample with blinded identifiers (App. D.4).

    Parameters
    ----------
    high_D, high_V : array_like of bool (items,)
        Within-cell top-20% DIF sets of the two owner halves (:class:`Replication`).
    cells : array_like (items,)
        Common source x easiness cells.
    item_ids : array_like (items,)
        The item ids (kept in ``key`` only).
    texts : array_like (items,), optional
        Question texts (the only content the annotators see).
    benchmark : str, optional
        Benchmark name written in every ``key`` row (concatenate the keys of several benchmarks).
    advantaged_D, advantaged_V : array_like (items,), optional
        The most advantaged family of every item in each half (for
        :func:`family_direction_tests`); copied into ``key``.
    n_pairs : int
        Stable high-DIF items sampled (50 per benchmark); each is matched without replacement to a
        control (outside both top sets) of the same cell. High items whose cell has no unused
        control are skipped.
    rng : None, int, SeedSequence or Generator
        Seeds the order of the high items, the control draws and the blinded ids.

    Returns
    -------
    (sheet, key)
        ``sheet``: ``blinded_id, text`` in random order (what annotators receive); ``key``:
        ``blinded_id, item, group ("high"/"control"), pair, cell, benchmark, advantaged_D,
        advantaged_V`` (stored separately).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 4.3; App. D.4 ("Matched item sample").

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.dif.steps import content_sample
    >>> high_D = np.array([1, 1, 0, 0, 1, 0, 0, 0], bool)       # top-DIF sets of the two halves
    >>> high_V = np.array([1, 0, 0, 0, 1, 0, 0, 1], bool)
    >>> cells = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    >>> sheet, key = content_sample(high_D, high_V, cells, [f"i{k}" for k in range(8)],
    ...                             texts=[f"question {k}" for k in range(8)], n_pairs=2, rng=0)
    >>> list(sheet.columns), len(sheet)                         # what the annotators see
    (['blinded_id', 'text'], 4)
    >>> key[["item", "group", "pair", "cell"]]
      item    group  pair  cell
    0   i0     high     0     0
    1   i3  control     0     0
    2   i4     high     1     1
    3   i6  control     1     1
    """
    hD, hV = np.asarray(high_D, dtype=bool), np.asarray(high_V, dtype=bool)
    cells = np.asarray(cells)
    ids = np.asarray(item_ids, dtype=object)
    n_pairs = check_int("n_pairs", n_pairs, min=1)
    g = generator(rng)
    stable = np.flatnonzero(hD & hV)
    control = ~hD & ~hV
    used = np.zeros(ids.size, dtype=bool)
    rows = []
    for i in g.permutation(stable):
        if len(rows) // 2 >= n_pairs:
            break
        pool = np.flatnonzero(control & ~used & (cells == cells[i]))
        if pool.size == 0:
            continue
        c = int(g.choice(pool))
        used[c] = True
        p = len(rows) // 2
        rows.append((i, "high", p))
        rows.append((c, "control", p))
    if not rows:
        raise BenchkitValueError("no stable high-DIF item has a same-cell control")
    idx = np.array([r[0] for r in rows])
    codes = set()
    while len(codes) < idx.size:  # random 48-bit ids: unique here, collisions across samples ~0
        codes.add(int(g.integers(0, 2**48)))
    blinded = [f"item-{k:012x}" for k in g.permutation(sorted(codes))]
    key = pd.DataFrame({"blinded_id": blinded, "item": ids[idx], "group": [r[1] for r in rows],
                        "pair": [r[2] for r in rows], "cell": cells[idx],
                        "benchmark": benchmark})
    if advantaged_D is not None:
        key["advantaged_D"] = np.asarray(advantaged_D, dtype=object)[idx]
        key["advantaged_V"] = np.asarray(advantaged_V, dtype=object)[idx]
    txt = np.asarray(texts, dtype=object)[idx] if texts is not None else [None] * idx.size
    sheet = pd.DataFrame({"blinded_id": blinded, "text": txt})
    sheet = sheet.iloc[g.permutation(len(sheet))].reset_index(drop=True)
    return sheet, key


def _mcnemar_exact(x_high: np.ndarray, x_ctrl: np.ndarray) -> float:
    from scipy.stats import binomtest

    b = int(np.sum((x_high == 1) & (x_ctrl == 0)))
    c = int(np.sum((x_high == 0) & (x_ctrl == 1)))
    return 1.0 if b + c == 0 else float(binomtest(b, b + c, 0.5).pvalue)


@result
class ContentAudit:
    """Analysis of two annotators' labels (App. D.4, Eq. 58-60; Figure 3).

    Whether the stable high-DIF items differ in content from their matched controls in a way both
    annotators confirm (the paper finds no axis that does).

    Parameters
    ----------
    reliability, reliability_passes, binary, ordinal, criteria, passes
        The fields described under Attributes (built by :func:`analyze_annotations`).

    Attributes
    ----------
    reliability : DataFrame
        Per axis: ``kappa`` (binary) or ``spearman`` (ordinal).
    reliability_passes : bool
        Eq. 58: median kappa >= 0.45 and median Spearman >= 0.50.
    binary : DataFrame
        Per annotator and binary axis: ``d`` (Eq. 60), discordant counts, exact McNemar ``p``,
        BH ``q``, benchmarks sharing the pooled direction.
    ordinal : DataFrame
        Per annotator and ordinal axis: mean paired difference, Wilcoxon ``p``, BH ``q``.
    criteria : DataFrame
        The four confirmatory conditions per binary axis and ``confirmed``.
    passes : bool
        At least one axis meets all four.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 4.3, Sec. 5.5; App. D.4, Eq. 58-60.

    Examples
    --------
    Four matched pairs labelled on two axes; the high-DIF items show negation more often, but four
    pairs cannot make that significant (criterion 2 fails):

    >>> import pandas as pd
    >>> from benchkit.dif.steps import analyze_annotations
    >>> key = pd.DataFrame({"blinded_id": range(8), "group": ["high", "control"] * 4,
    ...                     "pair": [0, 0, 1, 1, 2, 2, 3, 3], "benchmark": "mmlu"})
    >>> labels = pd.DataFrame({"blinded_id": range(8), "negation": [1, 0, 1, 0, 1, 0, 0, 0],
    ...                        "ambiguity": [3, 1, 2, 1, 3, 0, 1, 1]})
    >>> res = analyze_annotations(key, labels, labels, binary_axes=["negation"],
    ...                           ordinal_axes=["ambiguity"], min_benchmarks=1)
    >>> res.reliability_passes, res.passes
    (True, False)
    >>> res.to_frame()[["axis", "d_A", "same_direction", "significant", "large", "confirmed"]]
           axis   d_A  same_direction  significant  large  confirmed
    0  negation  0.75            True        False   True      False
    """

    reliability: pd.DataFrame
    reliability_passes: bool
    binary: pd.DataFrame
    ordinal: pd.DataFrame
    criteria: pd.DataFrame
    passes: bool

    def to_frame(self) -> pd.DataFrame:
        """The criteria table (:attr:`criteria`), a copy."""
        return self.criteria.copy()


def _paired(key: pd.DataFrame, ann: pd.DataFrame, axis: str):
    lab = key.merge(ann[["blinded_id", axis]], on="blinded_id", how="left")
    if lab[axis].isna().any():
        miss = lab.loc[lab[axis].isna(), "blinded_id"].iloc[0]
        raise BenchkitValueError(f"annotation column {axis!r} has no label for {miss!r}")
    hi = lab[lab.group == "high"].set_index("pair").sort_index()
    lo = lab[lab.group == "control"].set_index("pair").sort_index()
    return hi[axis].to_numpy(float), lo[axis].to_numpy(float), hi["benchmark"].to_numpy(object)


def analyze_annotations(key: pd.DataFrame, annotator_a: pd.DataFrame, annotator_b: pd.DataFrame,
                        *, binary_axes: Sequence[str] = BINARY_AXES,
                        ordinal_axes: Sequence[str] = ORDINAL_AXES, q_level: float = 0.05,
                        min_difference: float = 0.08, min_benchmarks: int = 3,
                        min_kappa: float = 0.45, min_spearman: float = 0.50) -> ContentAudit:
    """Analyse two annotators' labels of the blinded sample (App. D.4).

    Parameters
    ----------
    key : DataFrame
        From :func:`content_sample` (``blinded_id, group, pair, benchmark``); concatenate the keys
        of several benchmarks with distinct ``pair`` numbers.
    annotator_a, annotator_b : DataFrame
        ``blinded_id`` plus one column per axis (binary 0/1, ordinal 0-3).
    binary_axes : sequence of str, default :data:`BINARY_AXES`
        The ten confirmatory binary axes.
    ordinal_axes : sequence of str, default :data:`ORDINAL_AXES`
        The three ordinal axes (analysed, not confirmatory).
    q_level : float, default 0.05
        Criterion 2: BH-adjusted q at most this for both annotators.
    min_difference : float, default 0.08
        Criterion 3: absolute pooled difference at least this (eight percentage points).
    min_benchmarks : int
        Criterion 4: the pooled direction in at least this many benchmarks (3 of the paper's 5).
    min_kappa : float, default 0.45
        Reliability: median Cohen's kappa over the binary axes (Eq. 58).
    min_spearman : float, default 0.50
        Reliability: median Spearman rho over the ordinal axes (Eq. 58).

    Returns
    -------
    ContentAudit
        Reliability, per-annotator paired tests and the four criteria per axis.

    Notes
    -----
    Each annotator is analysed separately. Exact two-sided McNemar = exact binomial test on the
    discordant pairs; BH over the binary axes per annotator; ordinal axes by paired Wilcoxon
    signed-rank tests (``scipy.stats.wilcoxon``, zero differences dropped; p = 1 when all are
    zero), BH-corrected separately and not part of the criteria.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 4.3, Sec. 5.5; App. D.4, Eq. 58-60. Q. McNemar (1947), "Note on the sampling
    error of the difference between correlated proportions or percentages", Psychometrika 12(2),
    153-157. Y. Benjamini and Y. Hochberg (1995), J. R. Stat. Soc. B 57(1), 289-300.
    F. Wilcoxon (1945), "Individual comparisons by ranking methods", Biometrics Bulletin 1(6),
    80-83.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from benchkit.dif import BINARY_AXES, ORDINAL_AXES
    >>> n = 40                                                    # matched pairs
    >>> key = pd.DataFrame({"blinded_id": [f"b{k}" for k in range(2 * n)],
    ...                     "group": ["high", "control"] * n, "pair": np.repeat(np.arange(n), 2),
    ...                     "benchmark": np.repeat(["mmlu", "bbh", "arc", "hellaswag"], n // 2)})
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.random((2 * n, 13)) < 0.3                     # what the items show
    >>> def annotator(noise):                                     # each annotator errs a little
    ...     labels = truth ^ (rng.random(truth.shape) < noise)
    ...     frame = pd.DataFrame(labels[:, :10].astype(int), columns=list(BINARY_AXES))
    ...     frame[list(ORDINAL_AXES)] = labels[:, 10:].astype(int) * 3
    ...     return frame.assign(blinded_id=key["blinded_id"])
    >>> a, b = annotator(0.05), annotator(0.05)
    >>> from benchkit.dif.steps import analyze_annotations
    >>> res = analyze_annotations(key, a, b)
    >>> res.to_frame()[["axis", "d_A", "d_B", "confirmed"]].head(2)
               axis    d_A   d_B  confirmed
    0  quantitative  0.125  0.05      False
    1   formal_rule  0.000  0.00      False
    """
    from scipy.stats import spearmanr
    from scipy.stats import wilcoxon

    check_columns("key", key.columns, required=("blinded_id", "group", "pair", "benchmark"))
    for nm, ann in (("annotator_a", annotator_a), ("annotator_b", annotator_b)):
        check_columns(nm, ann.columns, required=("blinded_id", *binary_axes, *ordinal_axes))
    key = key.assign(benchmark=key["benchmark"].fillna("benchmark"))
    rel = []
    for ax in binary_axes:
        ma = key[["blinded_id"]].merge(annotator_a, on="blinded_id")[ax].to_numpy()
        mb = key[["blinded_id"]].merge(annotator_b, on="blinded_id")[ax].to_numpy()
        rel.append({"axis": ax, "kind": "binary", "kappa": cohen_kappa(ma, mb),
                    "spearman": np.nan})
    for ax in ordinal_axes:
        ma = key[["blinded_id"]].merge(annotator_a, on="blinded_id")[ax].to_numpy(float)
        mb = key[["blinded_id"]].merge(annotator_b, on="blinded_id")[ax].to_numpy(float)
        rel.append({"axis": ax, "kind": "ordinal", "kappa": np.nan,
                    "spearman": float(spearmanr(ma, mb).statistic)})
    rel = pd.DataFrame(rel)
    kap = rel.loc[rel.kind == "binary", "kappa"].dropna()
    rho = rel.loc[rel.kind == "ordinal", "spearman"].dropna()
    rel_pass = bool((kap.median() >= min_kappa if kap.size else False)
                    and (rho.median() >= min_spearman if rho.size else True))
    brows, orows = [], []
    for name, ann in (("A", annotator_a), ("B", annotator_b)):
        block = []
        for ax in binary_axes:
            hi, lo, bench = _paired(key, ann, ax)
            d = hi - lo
            dhat = float(d.mean())
            per = pd.Series(d).groupby(bench).mean()
            block.append({"annotator": name, "axis": ax, "d": dhat,
                          "n_pairs": int(d.size), "high_only": int(np.sum(d > 0)),
                          "control_only": int(np.sum(d < 0)), "p": _mcnemar_exact(hi, lo),
                          "benchmarks_same_direction": int(np.sum(np.sign(per) == np.sign(dhat))
                                                           if dhat != 0 else 0)})
        qs = benjamini_hochberg([r["p"] for r in block])
        for r, q in zip(block, qs):
            r["q"] = float(q)
        brows += block
        oblock = []
        for ax in ordinal_axes:
            hi, lo, _ = _paired(key, ann, ax)
            d = hi - lo
            p = 1.0 if np.all(d == 0) else float(wilcoxon(hi, lo).pvalue)
            oblock.append({"annotator": name, "axis": ax, "mean_difference": float(d.mean()),
                           "p": p})
        if oblock:
            qs = benjamini_hochberg([r["p"] for r in oblock])
            for r, q in zip(oblock, qs):
                r["q"] = float(q)
        orows += oblock
    binary = pd.DataFrame(brows)
    crit = []
    for ax in binary_axes:
        a = binary[(binary.annotator == "A") & (binary.axis == ax)].iloc[0]
        b = binary[(binary.annotator == "B") & (binary.axis == ax)].iloc[0]
        c1 = bool(np.sign(a.d) == np.sign(b.d) and a.d != 0)
        c2 = bool(a.q <= q_level and b.q <= q_level)
        c3 = bool(abs(a.d) >= min_difference and abs(b.d) >= min_difference)
        c4 = bool(a.benchmarks_same_direction >= min_benchmarks
                  and b.benchmarks_same_direction >= min_benchmarks)
        crit.append({"axis": ax, "d_A": a.d, "d_B": b.d, "q_A": a.q, "q_B": b.q,
                     "same_direction": c1, "significant": c2, "large": c3,
                     "benchmarks": c4, "confirmed": c1 and c2 and c3 and c4})
    crit = pd.DataFrame(crit)
    return ContentAudit(reliability=rel, reliability_passes=rel_pass, binary=binary,
                        ordinal=pd.DataFrame(orows), criteria=crit,
                        passes=bool(crit["confirmed"].any()))


def _family_stat(X: np.ndarray, fam: np.ndarray, bench: np.ndarray, n_fam: int) -> np.ndarray:
    """Sum over benchmarks of the between-family sum of squares of axis prevalences (per axis)."""
    out = np.zeros(X.shape[1])
    for b in np.unique(bench):
        m = bench == b
        Xb, fb = X[m], fam[m]
        cnt = np.bincount(fb, minlength=n_fam).astype(float)
        mean = Xb.mean(0)
        for f in np.flatnonzero(cnt):
            out += cnt[f] * (Xb[fb == f].mean(0) - mean) ** 2
    return out


def _family_perm_block(seed, start, stop, X, fam, bench, n_fam):
    g = np.random.default_rng(seed)
    groups = [np.flatnonzero(bench == b) for b in np.unique(bench)]
    out = np.empty((stop - start, X.shape[1]))
    for r in range(stop - start):
        perm = fam.copy()
        for idx in groups:
            perm[idx] = fam[g.permutation(idx)]
        out[r] = _family_stat(X, perm, bench, n_fam)
    return out


def family_direction_tests(key: pd.DataFrame, annotations: pd.DataFrame, *,
                           binary_axes: Sequence[str] = BINARY_AXES, n_resamples: int = 10_000,
                           rng: Any = None, n_jobs: Any = None) -> pd.DataFrame:
    """Post-confirmatory family-direction analysis of one annotator (App. D.4, exploratory).

    Restricted to high-DIF items whose advantaged family agrees across halves (``advantaged_D ==
    advantaged_V`` in ``key``). Per binary axis, the statistic is the between-family sum of squares
    of axis prevalences, summed over benchmarks; its null shuffles the family labels within each
    benchmark (``n_resamples`` = 10,000 label permutations through the blocked parallel map);
    one-sided p = (1 + #null >= observed - 1e-12) / (R + 1) (the tolerance keeps float ties
    as ties), BH across axes.

    Parameters
    ----------
    key : DataFrame
        From :func:`content_sample` with ``advantaged_D`` and ``advantaged_V``.
    annotations : DataFrame
        One annotator's labels: ``blinded_id`` and the binary axes.
    binary_axes : sequence of str, default :data:`BINARY_AXES`
        The axes tested.
    n_resamples : int, default 10,000
        Label permutations (App. D.4).
    rng : None, int, SeedSequence or Generator
        Seeds the permutations (blocks of 500, one child seed each).
    n_jobs : int, optional
        Workers over the blocks; results are identical for any value.

    Returns
    -------
    DataFrame
        One row per axis: ``statistic``, ``p``, ``q`` (BH) and ``n_items``.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 5.5; App. D.4 ("Post-confirmatory family analysis"). Y. Benjamini and
    Y. Hochberg (1995), J. R. Stat. Soc. B 57(1), 289-300.

    Examples
    --------
    Three stable high-DIF items (advantaged family agrees in both halves) and one unstable one:

    >>> import pandas as pd
    >>> from benchkit.dif.steps import family_direction_tests
    >>> key = pd.DataFrame({"blinded_id": range(8), "group": ["high", "control"] * 4, "benchmark": "mmlu",
    ...                     "advantaged_D": ["llama", "", "llama", "", "qwen", "", "qwen", ""],
    ...                     "advantaged_V": ["llama", "", "llama", "", "qwen", "", "phi", ""]})
    >>> labels = pd.DataFrame({"blinded_id": range(8), "negation": [1, 0, 1, 0, 0, 0, 0, 0],
    ...                        "wordplay": [0, 0, 0, 0, 1, 0, 1, 0]})
    >>> tests = family_direction_tests(key, labels, binary_axes=["negation", "wordplay"],
    ...                                n_resamples=999, rng=0)
    >>> tests.round(3)
           axis  statistic      p      q  n_items
    0  negation      0.667  0.313  0.313        3
    1  wordplay      0.667  0.313  0.313        3
    """
    n_jobs = check_n_jobs(n_jobs)
    from benchkit._parallel import blocked_map

    check_columns("key", key.columns, required=("blinded_id", "group", "benchmark",
                                                "advantaged_D", "advantaged_V"))
    R = check_int("n_resamples", n_resamples, min=1)
    k = key[(key.group == "high") & (key.advantaged_D == key.advantaged_V)]
    if len(k) < 2:
        raise BenchkitValueError("fewer than 2 high-DIF items with a stable advantaged family")
    lab = k.merge(annotations[["blinded_id", *binary_axes]], on="blinded_id", how="left")
    X = lab[list(binary_axes)].to_numpy(float)
    fam, fams = pd.factorize(lab["advantaged_D"].astype(str), sort=True)
    bench = pd.factorize(lab["benchmark"].fillna("benchmark").astype(str))[0]
    obs = _family_stat(X, fam, bench, len(fams))
    null = np.concatenate(blocked_map(_family_perm_block, R, rng=rng, block_size=500,
                                      args=(X, fam, bench, len(fams)), n_jobs=n_jobs))
    p = (1 + np.sum(null >= obs[None, :] - 1e-12, axis=0)) / (R + 1)
    return pd.DataFrame({"axis": list(binary_axes), "statistic": obs, "p": p,
                         "q": benjamini_hochberg(p), "n_items": len(lab)})
