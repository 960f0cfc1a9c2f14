"""Benchmarks of benchkit.measure against the scipy / numpy computations a user would write."""
from __future__ import annotations

import numpy as np
from scipy import stats

from benchmarks._runner import Case

_rng = np.random.default_rng(3)
# rotate several inputs so a single repeated array does not train the branch predictor
_Z = [np.clip(_rng.beta(2, 3, 14_000), 0, 1) for _ in range(4)]
_BENCHES = {f"b{i}": _rng.normal(size=int(n)) for i, n in enumerate(_rng.integers(30, 14_000, 25))}


def _ddm_kit():
    from benchkit import measure

    return [measure.steps.ddm(z) for z in _Z]


def _ddm_scipy():
    return [stats.wasserstein_distance(z, (np.arange(z.size) + 0.5) / z.size) for z in _Z]


def _gaps_kit():
    from benchkit import measure

    return [measure.steps.top_gaps(z, k=5).total for z in _Z]


def _gaps_numpy():
    return [np.sort(np.diff(np.concatenate([[0.0], np.sort(z), [1.0]])))[-5:].sum() for z in _Z]


def _table_kit():
    from benchkit import measure

    return measure.steps.tabulate_measures(_BENCHES).to_frame()


def _table_plain():
    rows = []
    for name, b in _BENCHES.items():
        z = (b - b.min()) / (b.max() - b.min())
        n = z.size
        g = np.diff(np.concatenate([[0.0], np.sort(z), [1.0]]))
        rows.append((name, stats.wasserstein_distance(z, (np.arange(n) + 0.5) / n), g.max(),
                     np.sort(g)[-5:].sum(), n))
    return rows


def _power_kit():
    from benchkit import measure

    return measure.steps.detection_power(_Z[0][:500], np.linspace(0.005, 0.05, 10), n_samples=(1, 10, 100))


def _power_score(n_jobs):
    from benchkit import measure

    # a baseline varying with z: 200 distinct success probabilities, so the draws cannot be pooled
    z = _Z[1][:200]
    return measure.steps.detection_power(z, [0.01, 0.2], n_samples=(1, 10), test="score", n_resamples=20_000,
                                         baseline=lambda x: 0.2 + 0.6 * x, rng=5, n_jobs=n_jobs).to_frame()


def cases() -> list[Case]:
    return [
        Case("ddm 4 x 14000", kit=_ddm_kit, alternative=_ddm_scipy,
             alternative_name="scipy.stats.wasserstein_distance", repeat=7),
        Case("top_gaps 4 x 14000", kit=_gaps_kit, alternative=_gaps_numpy,
             alternative_name="numpy sort + diff", repeat=7),
        Case("tabulate_measures 25 benchmarks", kit=_table_kit, alternative=_table_plain,
             alternative_name="numpy/scipy loop", repeat=5),
        Case("detection_power exact 500 items, 10 widths x 3 k", kit=_power_kit, alternative=None,
             alternative_name="", repeat=3),
        Case("detection_power score 200 items, 2 widths x 2 k, 20,000 draws", kit=lambda: _power_score(2),
             alternative=lambda: _power_score(1), alternative_name="the same call with n_jobs=1",
             repeat=3, note="16 seeded blocks of 5,000 draws; identical tables for any n_jobs"),
    ]
