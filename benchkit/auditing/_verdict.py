"""What each method's adapter hands to the audit: a per-item verdict, or the reason it did not run."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import describe

#: The methods of the audit, in the order they run and appear in the tables.
AUDIT_METHODS: tuple[str, ...] = ("labels", "boundary", "dif", "landscape", "quality", "measure")
#: The methods whose scores and flags are item verdicts (measure's are not: paper 002 judges coverage).
ITEM_VERDICTS: frozenset[str] = frozenset(AUDIT_METHODS) - {"measure"}


class NotRun(Exception):
    """Raised by an adapter when the data cannot support its method; the message is the reason."""


@dataclass(frozen=True)
class Context:
    """The audit's settings, as each adapter reads them."""

    families: Any
    axis: Any
    n_resamples: int
    n_jobs: Any
    options: Mapping[str, Mapping[str, Any]]
    seeds: Mapping[str, np.random.SeedSequence] = field(default_factory=dict)

    def kwargs(self, method: str, **defaults) -> dict:
        """The adapter's keyword arguments: its defaults, then the user's ``options[method]``."""
        return {**defaults, **dict(self.options.get(method, {}))}


@dataclass(frozen=True)
class Verdict:
    """One method's per-item verdict, aligned with the audited items."""

    score: np.ndarray
    flag: np.ndarray
    reason: np.ndarray
    result: Any
    note: str = ""
    item_verdict: bool = True
    models: pd.DataFrame | None = None


def empty_reasons(n: int) -> np.ndarray:
    return np.full(n, "", dtype=object)


def family_members(rs, families) -> dict[str, list[str]]:
    """Family name -> model ids, largest first where sizes are known, from the audit's ``families``.

    ``families`` is a models column (str) or a mapping name -> model ids; ``None`` is not handled
    here (each method then uses its own default).
    """
    if isinstance(families, str):
        if families not in rs.models.columns:
            raise BenchkitValueError(f"families={families!r} is not a models column; columns are "
                                     f"{list(rs.models.columns)}")
        col = rs.models[families]
        groups: dict[str, list[str]] = {}
        for m, f in zip(rs.model_ids, col.to_numpy(dtype=object)):
            if f is not None and not (isinstance(f, float) and np.isnan(f)) and f is not pd.NA:
                groups.setdefault(str(f), []).append(str(m))
    elif isinstance(families, Mapping):
        groups = {}
        known = set(map(str, rs.model_ids))
        for name, members in families.items():
            if isinstance(members, str):
                raise BenchkitTypeError(f"families[{name!r}] must be a list of model ids, not the string "
                                        f"{members!r}")
            members = [str(m) for m in members]
            unknown = [m for m in members if m not in known]
            if unknown:
                raise BenchkitValueError(f"families[{name!r}] names model(s) not in rs: {describe(unknown)}")
            groups[str(name)] = members
    else:
        raise BenchkitTypeError(f"families must be None, a models column name or a mapping family -> "
                                f"model ids; got {describe(families)}")
    if "size" in rs.models.columns:
        size = rs.models["size"].astype("float64")
        size.index = size.index.astype(str)
        for name, members in groups.items():
            groups[name] = sorted(members, key=lambda m: -np.nan_to_num(size.get(m, np.nan), nan=-np.inf))
    return groups
