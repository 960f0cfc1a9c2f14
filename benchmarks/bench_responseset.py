"""ResponseSet construction: count matrices from a long frame vs the pandas pivot a user would write.

``ResponseSet.from_long(...).counts()`` validates the frame (ids, 0/1 values, one row per sample,
a common budget) and builds K (correct counts) and N (observed samples), items x models. The
alternative is ``pivot_table(index="item", columns="model", values="correct", aggfunc=["sum",
"count"])``, which does no validation. Inputs rotate between two frames of the same shape.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from benchmarks._runner import Case

_FRAMES: dict[str, list[pd.DataFrame]] = {}


def _make(key: str, n_items: int, n_models: int, T: int) -> None:
    if key in _FRAMES:
        return
    frames = []
    for seed in (11, 12):
        rng = np.random.default_rng(seed)
        p = rng.uniform(0.05, 0.95, size=(n_items, 1)) * rng.uniform(0.5, 1.0, size=(1, n_models))
        k = rng.binomial(1, np.repeat(p[:, :, None], T, axis=2))  # items x models x T
        ii, mm, ss = np.meshgrid(np.arange(n_items), np.arange(n_models), np.arange(T), indexing="ij")
        frames.append(pd.DataFrame({
            "model": pd.Index([f"model-{j:03d}" for j in range(n_models)])[mm.ravel()],
            "item": pd.Index([f"item-{i:05d}" for i in range(n_items)])[ii.ravel()],
            "sample": ss.ravel(),
            "correct": k.ravel().astype(np.int8),
        }))
    _FRAMES[key] = frames


def _kit(key: str):
    from benchkit import ResponseSet

    return [ResponseSet.from_long(f, parse_names=False).counts() for f in _FRAMES[key]]


def _pivot(key: str):
    out = []
    for f in _FRAMES[key]:
        t = f.pivot_table(index="item", columns="model", values="correct", aggfunc=["sum", "count"])
        out.append((t["sum"].to_numpy(np.int64), t["count"].to_numpy(np.int64)))
    return out


def cases() -> list[Case]:
    shapes = [("repeated", 2000, 50, 10), ("binary", 5000, 100, 1)]
    result = []
    for key, n_items, n_models, T in shapes:
        rows = n_items * n_models * T
        result.append(Case(
            name=f"from_long counts {key} {n_items}x{n_models} T={T}",
            kit=lambda key=key: _kit(key),
            alternative=lambda key=key: _pivot(key),
            alternative_name="pandas pivot_table sum+count",
            setup=lambda key=key, a=(n_items, n_models, T): _make(key, *a),
            repeat=5,
            note=f"{rows:,} rows per frame, 2 frames rotated; kit validates, pivot does not",
        ))
    return result
