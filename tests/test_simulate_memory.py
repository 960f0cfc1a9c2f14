"""The simulators' memory estimates (checked against the budget before allocating) are honest.

Oracle: tracemalloc's peak of the same call. Each estimate must cover the measured peak (a budget of
95% of the peak refuses the call, naming the estimate) without refusing what fits (a budget of twice
the peak lets it run). Sizes are large enough that per-cell costs dominate fixed overheads.
"""
from __future__ import annotations

import tracemalloc

import pytest

from benchkit import resource_budget
from benchkit import simulate
from benchkit._validation import BenchkitValueError
from benchkit.dif.steps import simulate_family_dif

CALLS = {
    "mirt_2pl": lambda: simulate.mirt_2pl(n_items=1500, n_models=400, rng=1),
    "binary_matrix": lambda: simulate.binary_matrix(n_items=20_000, n_models=600, rng=1),
    "mcq_probabilities": lambda: simulate.mcq_probabilities(n_items=800, n_models=150, rng=1),
    "repeated_sampling": lambda: simulate.repeated_sampling(n_items=1000, T=20, rng=1),
    "simulate_family_dif": lambda: simulate_family_dif(n_items=2000, n_models=1500, n_owners=200,
                                                       rng=5),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_memory_estimate_covers_the_measured_peak_and_at_most_twice_it(name):
    call = CALLS[name]
    tracemalloc.start()
    call()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    with resource_budget(memory=int(0.95 * peak)), pytest.raises(BenchkitValueError, match="needs about"):
        call()
    with resource_budget(memory=int(2.0 * peak)):
        call()
