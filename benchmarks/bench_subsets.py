"""Benchmarks of the measurement-utility code (benchkit.subsets, benchkit.boundary.measure_utility).

* ``kmedoids-correlation``: Anchor Points' k-medoids on 4,000 items x 6 models, k = 100, with
  benchkit's O(n k) memory / O(n d) medoid update (within-cluster correlation-distance sums as
  ``|G| - z_i . sum_G z``) against the same alternating algorithm on a dense 1 - corrcoef matrix
  (what the Anchor Points reimplementations build; 128 MB here, 1.6 GB at MMLU's 14,042 items).
  Both start from the same medoids, so they do identical iterations.
* ``kendall-tau-b``: batched tau_b of 20,000 subset rankings of 6 models against the full one vs a
  loop over ``scipy.stats.kendalltau``.
* ``subset-utility-12k``: the whole experiment at MMLU-Pro scale (12,000 items, 6-model axis,
  T = 10, Random + TinyBenchmarks + Anchor Points + BSDProbe, 100-item subsets, 5 repetitions,
  one worker); no alternative.

Set ``BENCHKIT_BENCH_SMALL=1`` for a quick check.
"""
from __future__ import annotations

import os

import numpy as np

from benchmarks._runner import Case
from benchmarks._runner import load_naive

SMALL = os.environ.get("BENCHKIT_BENCH_SMALL", "") not in ("", "0")
N_KM = 1_000 if SMALL else 4_000
_state: dict = {}


def _conf():
    if "C" not in _state:
        rng = np.random.default_rng(3)
        C = rng.beta(0.7, 0.7, (N_KM, 1)) + rng.normal(0, 0.15, (N_KM, 6)) * np.linspace(0.5, 1, 6)
        _state["C"] = np.clip(C, 0, 1)
        from benchkit._clustering import _CorrelationDistance
        from benchkit._clustering import _plusplus

        d = _CorrelationDistance(_state["C"])
        _state["init"] = _plusplus(np.random.default_rng(0), lambda i: d.to(np.array([i]))[:, 0],
                                   N_KM, 100)
    return _state["C"], _state["init"]


def _kit_kmedoids():
    from benchkit.subsets import kmedoids

    C, med = _conf()
    return kmedoids(C, med.size, init=med).medoids


def _dense_kmedoids():
    C, med = _conf()
    naive = load_naive()
    return naive.kmedoids_dense(naive.correlation_distance(C), med)


def _ranks():
    if "X" not in _state:
        rng = np.random.default_rng(5)
        _state["X"] = rng.integers(0, 30, (2_000 if SMALL else 20_000, 6)) / 30.0
        _state["F"] = np.array([0.2, 0.3, 0.35, 0.5, 0.6, 0.7])
    return _state["X"], _state["F"]


def _kit_tau():
    from benchkit.stats import kendall_tau_b

    X, F = _ranks()
    return kendall_tau_b(X, F)


def _scipy_tau():
    import scipy.stats

    X, F = _ranks()
    return np.array([scipy.stats.kendalltau(x, F).statistic for x in X])


def _setup_utility():
    if "rs" not in _state:
        from benchkit.simulate import repeated_sampling

        _state["rs"] = repeated_sampling(n_items=1_200 if SMALL else 12_000, T=10, rng=4).to_response_set()


def _kit_utility():
    from benchkit.boundary import measure_utility

    rs = _state["rs"]
    return measure_utility(rs, reference_axis=list(rs.model_ids), sizes=(100,), n_repeats=5,
                           rng=0)


def cases() -> list[Case]:
    return [
        Case("kmedoids-correlation", _kit_kmedoids, _dense_kmedoids, "dense 1-corrcoef matrix",
             setup=_conf, repeat=3,
             note=f"{N_KM} items x 6 models, k=100, same start; memory O(nk) vs O(n^2)"),
        Case("kendall-tau-b", _kit_tau, _scipy_tau, "loop over scipy.stats.kendalltau",
             setup=_ranks, repeat=3, note="rankings of 6 models, with ties"),
        Case("subset-utility-12k", _kit_utility, None, "", setup=_setup_utility, repeat=1,
             note="12,000 items, 4 methods x 5 repetitions, 100-item subsets, n_jobs=1"),
    ]
