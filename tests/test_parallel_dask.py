"""Resampling on a local dask.distributed cluster gives bit-identical results to the serial run.

The README's recipe (``Client()``; ``with joblib.parallel_config("dask"): f(..., n_jobs=-1)``) on a
``LocalCluster`` of two single-threaded worker processes. Three resampling computations, each run
serially and on the cluster with the same ``rng``: the shared blocked map itself
(:func:`benchkit._parallel.blocked_map`, whose blocks report the worker process that ran them),
BSDProbe's split-half reliability bootstrap and permutation test (App. G), the Monte Carlo
score test of the empirical-measure detection boundary (paper 002, Theorem 2.3), and the family-DIF
matched-random controls, composition bootstrap and owner bootstrap (paper 001, App. C.6-C.7, D.1).
Dask's task stream shows that the work ran on the cluster.
"""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")  # the [dask] extra (in [dev])
from joblib import parallel_config  # noqa: E402

from benchkit._parallel import blocked_map  # noqa: E402
from benchkit.boundary.steps import split_half_reliability  # noqa: E402
from benchkit.dif._controls import bootstrap_units  # noqa: E402
from benchkit.dif._controls import composition_bootstrap  # noqa: E402
from benchkit.dif._controls import matched_random  # noqa: E402
from benchkit.dif._controls import owner_bootstrap  # noqa: E402
from benchkit.dif._ranking import observed_ranking  # noqa: E402
from benchkit.dif._ranking import pair_set  # noqa: E402
from benchkit.measure.steps import detection_power  # noqa: E402

pytestmark = pytest.mark.slow  # a local Dask cluster of two worker processes

TESTS = Path(__file__).resolve().parent


def bootstrap_means(seed, start, stop, x):
    """One block of the blocked map: bootstrap means of ``x`` for replicates start..stop-1."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, x.size, size=(stop - start, x.size))
    return os.getpid(), x[idx].mean(axis=1)


@pytest.fixture(scope="module")
def client():
    # the workers unpickle this module's block function by reference: put tests/ on their path
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(TESTS), *([old] if old else [])])
    try:
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=40)
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = old
    with cluster, distributed.Client(cluster) as c:
        yield c


def _assert_identical(a, b, path="result"):
    """Field by field, exactly (NaN equal to NaN)."""
    if dataclasses.is_dataclass(a):
        assert type(a) is type(b), path
        for f in dataclasses.fields(a):
            _assert_identical(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    elif isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, check_exact=True, obj=path)
    elif isinstance(a, (pd.Series, pd.Index)):
        assert a.equals(b), path
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=path)
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_identical(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b), path
    else:
        assert a == b, path


def _on_cluster(client, fn):
    with distributed.get_task_stream(client) as ts, parallel_config("dask"):
        out = fn()
    assert len(ts.data) > 0, "nothing ran on the dask cluster"
    return out


def test_blocked_map_on_dask_equals_serial(client):
    x = np.random.default_rng(0).normal(size=200)
    serial = blocked_map(bootstrap_means, 2_000, rng=42, block_size=250, args=(x,), n_jobs=1)
    dask = _on_cluster(client, lambda: blocked_map(bootstrap_means, 2_000, rng=42, block_size=250,
                                                   args=(x,), n_jobs=-1))
    np.testing.assert_array_equal(np.concatenate([v for _, v in dask]),
                                  np.concatenate([v for _, v in serial]))
    assert len(dask) == 8
    assert {pid for pid, _ in dask}.isdisjoint({os.getpid()})  # every block ran in a worker process
    assert len({pid for pid, _ in dask}) >= 1


def test_split_half_reliability_on_dask_equals_serial(client):
    rng = np.random.default_rng(3)
    pr = rng.dirichlet([0.3, 0.3, 0.3], 30)
    roles = np.array([rng.choice(3, 20, p=p) for p in pr])
    states = np.where(roles == 0, 0, np.where(roles == 2, 1, 2 + rng.integers(0, 3, (30, 20))))
    kw = dict(block_sizes=(5,), t=5, n_resamples=1_200, n_permutations=1_100, rng=11)
    serial = split_half_reliability(states, roles, **kw)
    dask = _on_cluster(client, lambda: split_half_reliability(states, roles, n_jobs=-1, **kw))
    _assert_identical(dask, serial)


def test_detection_power_score_test_on_dask_equals_serial(client):
    z = np.sort(np.random.default_rng(5).beta(2, 3, 60))
    kw = dict(n_samples=(1, 10), test="score", n_resamples=12_000, rng=7)
    serial = detection_power(z, [0.1, 0.3], **kw)
    dask = _on_cluster(client, lambda: detection_power(z, [0.1, 0.3], n_jobs=-1, **kw))
    _assert_identical(dask, serial)
    assert serial.to_frame()["power"].between(0, 1).all()


def test_dif_controls_and_bootstraps_on_dask_equal_serial(client, dif_cross_fit):
    # issue 10: "Controls and bootstraps are reproducible with rng and identical for any n_jobs and
    # on a local Dask cluster"
    s, _pop, cf = dif_cross_fit(12)
    folds = list(cf.folds)
    pairs = [pair_set(f, max_gap=0.05) for f in folds]
    obs = observed_ranking(folds, pairs, s.model_ids)
    units = bootstrap_units(s.source)
    rng = np.random.default_rng(4)
    n = 300
    values, family, owner = rng.normal(size=(n, 2)), rng.choice(list("abc"), n), rng.integers(0, 60, n)
    runs = {
        "matched_random": lambda **kw: matched_random(folds, pairs, obs.rate, n_resamples=120, rng=5,
                                                      **kw),
        "composition_bootstrap": lambda **kw: composition_bootstrap(folds, pairs, units, obs.rate,
                                                                    n_resamples=150, rng=1, **kw),
        "owner_bootstrap": lambda **kw: owner_bootstrap(values, family, owner, names=("x", "y"),
                                                        n_resamples=3_000, rng=2, **kw),
    }
    for name, run in runs.items():
        serial = run(n_jobs=1)
        dask = _on_cluster(client, lambda run=run: run(n_jobs=-1))
        _assert_identical(dask, serial, name)
