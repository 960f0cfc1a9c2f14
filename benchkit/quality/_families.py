"""Model families and their strength order (Eq. 3) from model metadata.

A family is a group of models with a shared lineage ordered by parameter count, largest first.
By default the group key is ``(series, variant)`` of :mod:`benchkit.model_names` ("qwen2.5" +
"instruct"), so base and instruct versions of one series, or CodeLlama and Llama, are different
families (the paper's families are "Qwen2.5-Instruct", "Llama-3.1-Instruct", ...).
"""
from __future__ import annotations

from typing import Any
from typing import Mapping
from typing import Sequence

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_columns
from benchkit._validation import describe
from benchkit.model_names import parse_model_names

__all__ = ["Families", "families_from_models"]


@result
class Families:
    """Families of models, each strongest first, and the models left out.

    CAD compares models only within a family, where parameter count gives the expected capability
    order (Eq. 3); this records that order and every model that could not take part, with why.

    Parameters
    ----------
    names, members, sizes, left_out
        The fields below (see Attributes); built by :func:`~benchkit.quality.steps.families_from_models`.

    Attributes
    ----------
    names : tuple of str
        One name per family (the grouping key, e.g. "qwen2.5/instruct").
    members : tuple of tuple of str
        Model ids of each family, largest (strongest) first.
    sizes : tuple of tuple of float
        Parameter count of each member, in the order of ``members`` (decreasing).
    left_out : DataFrame
        One row per model not in any family: ``model``, ``family`` (the key, if any), ``size`` and
        ``reason`` ("no family", "no size", "single-model family", "size tie with <model>").

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation of
       LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 3.3, Eq. (3) (the within-family ordering by
       parameter count); Sec. 4.2.

    Examples
    --------
    >>> from benchkit.quality.steps import families_from_models
    >>> names = ["Qwen2.5-72B-Instruct", "Qwen2.5-7B-Instruct", "Llama-3.1-8B-Instruct",
    ...          "Llama-3.1-70B-Instruct", "phi-2"]
    >>> fam = families_from_models(names)
    >>> fam.to_frame()[["family", "rank", "model"]]
                   family  rank                   model
    0    qwen2.5/instruct     0    Qwen2.5-72B-Instruct
    1    qwen2.5/instruct     1     Qwen2.5-7B-Instruct
    2  llama-3.1/instruct     0  Llama-3.1-70B-Instruct
    3  llama-3.1/instruct     1   Llama-3.1-8B-Instruct
    """

    names: tuple[str, ...]
    members: tuple[tuple[str, ...], ...]
    sizes: tuple[tuple[float, ...], ...]
    left_out: pd.DataFrame

    def indices(self, models: Sequence[str]) -> list[list[int]]:
        """Families as column-index lists into ``models`` (members absent from it are skipped)."""
        pos = {str(m): i for i, m in enumerate(models)}
        return [[pos[m] for m in fam if m in pos] for fam in self.members]

    @property
    def n_pairs(self) -> int:
        return sum(len(f) * (len(f) - 1) // 2 for f in self.members)

    def to_frame(self) -> pd.DataFrame:
        """One row per family member: family, rank (0 = strongest), model, size."""
        rows = [(n, r, m, s) for n, fam, sz in zip(self.names, self.members, self.sizes)
                for r, (m, s) in enumerate(zip(fam, sz))]
        return pd.DataFrame(rows, columns=["family", "rank", "model", "size"])


def _key(row: pd.Series, by: Sequence[str]) -> str | None:
    vals = [row[c] for c in by]
    if any(v is None or (isinstance(v, float) and np.isnan(v)) for v in vals):
        return None
    return "/".join(str(v) for v in vals)


def families_from_models(models: Any, *, by: str | Sequence[str] = ("series", "variant"),
                         size_column: str = "size", overrides: Mapping[str, Any] | None = None,
                         families: Mapping[str, Sequence[str]] | None = None) -> Families:
    """Group models into families ordered by size (Eq. 3), reporting every model left out.

    Parameters
    ----------
    models : DataFrame or sequence of str
        A models table indexed by model id (``ResponseSet.models``: ``family``, ``series``,
        ``variant``, ``size``), or model names to parse with :func:`benchkit.model_names.parse_model_names`.
    by : str or sequence of str, default ("series", "variant")
        Column(s) whose joint value is the family key.
    size_column : str, default "size"
        Column with the parameter count (the strength order: larger is stronger).
    overrides : mapping of model -> dict, optional
        Per-model corrections, e.g. ``{"phi-1": {"series": "phi", "size": 1.3e9}}``, applied before
        grouping (keys are column names; a model absent from ``models`` is an error).
    families : mapping of name -> list of model ids, optional
        Explicit families, strongest first; skips grouping entirely (sizes are reported as NaN
        where the table has none).

    Returns
    -------
    Families
        The families (strongest first) and ``left_out``: one row per model not used, with the reason.

    Notes
    -----
    Left out, with the reason: models whose key is missing ("no family"), whose size is NaN ("no
    size"), that tie in size with a stronger-listed member of their family ("size tie with X":
    the order between them is undefined, and Eq. 5 needs a strict order; the first in table order
    is kept), and families left with one model ("single-model family").

    References
    ----------
    .. [1] Qian, Q., Huang, C., Xu, J., Lv, C., Wu, M. et al. "Benchmark²: Systematic Evaluation of
       LLM Benchmarks." arXiv:2601.03986, 2026. Sec. 3.3, Eq. (3); Sec. 4.2 (four families with 1-3
       comparison pairs each).

    Examples
    --------
    >>> from benchkit.quality.steps import families_from_models
    >>> names = ["Qwen2.5-72B-Instruct", "Qwen2.5-7B-Instruct", "Llama-3.1-8B-Instruct",
    ...          "Llama-3.1-70B-Instruct", "phi-2"]
    >>> fam = families_from_models(names)
    >>> fam.names, fam.n_pairs
    (('qwen2.5/instruct', 'llama-3.1/instruct'), 2)
    >>> fam.left_out[["model", "reason"]]
       model               reason
    0  phi-2  single-model family
    """
    if isinstance(models, pd.DataFrame):
        table = models.copy()
    elif isinstance(models, (list, tuple, pd.Index, np.ndarray)):
        table = parse_model_names([str(m) for m in models])
    else:
        raise BenchkitTypeError(f"models must be a models DataFrame or a list of names; got "
                                f"{describe(models)}")
    table.index = table.index.map(str)
    if families is not None:
        names, members, sizes = [], [], []
        for name, fam in families.items():
            fam = [str(m) for m in fam]
            unknown = [m for m in fam if m not in table.index]
            if unknown:
                raise BenchkitValueError(f"families[{name!r}] names unknown model(s) {unknown[:5]}")
            names.append(str(name))
            members.append(tuple(fam))
            sizes.append(tuple(float(table.at[m, size_column]) if size_column in table.columns else np.nan
                               for m in fam))
        inside = {m for f in members for m in f}
        left = pd.DataFrame({"model": [m for m in table.index if m not in inside]})
        left["family"] = None
        left["size"] = [float(table.at[m, size_column]) if size_column in table.columns else np.nan
                        for m in left["model"]]
        left["reason"] = "not listed"
        return Families(tuple(names), tuple(members), tuple(sizes), left)
    by = [by] if isinstance(by, str) else list(by)
    check_columns("models", table.columns, required=[*by, size_column])
    for m, fix in (overrides or {}).items():
        if str(m) not in table.index:
            raise BenchkitValueError(f"overrides names unknown model {m!r}")
        for col, val in dict(fix).items():
            if col not in table.columns:
                table[col] = None
            table.loc[str(m), col] = val
    table[size_column] = pd.to_numeric(table[size_column], errors="coerce")
    left_rows = []
    groups: dict[str, list[tuple[str, float]]] = {}
    for m, row in table.iterrows():
        k = _key(row, by)
        s = float(row[size_column])
        if k is None:
            left_rows.append((m, None, s, "no family"))
        elif np.isnan(s):
            left_rows.append((m, k, s, "no size"))
        else:
            groups.setdefault(k, []).append((m, s))
    names, members, sizes = [], [], []
    for k, ms in groups.items():
        ordered = sorted(ms, key=lambda t: -t[1])  # stable: ties keep table order
        kept: list[tuple[str, float]] = []
        for m, s in ordered:
            if kept and kept[-1][1] == s:
                left_rows.append((m, k, s, f"size tie with {kept[-1][0]}"))
            else:
                kept.append((m, s))
        if len(kept) < 2:
            left_rows.extend((m, k, s, "single-model family") for m, s in kept)
            continue
        names.append(k)
        members.append(tuple(m for m, _ in kept))
        sizes.append(tuple(s for _, s in kept))
    left = pd.DataFrame(left_rows, columns=["model", "family", "size", "reason"])
    return Families(tuple(names), tuple(members), tuple(sizes), left)
