"""Issue 23, the sibling probe: each case of the issue tried on the other readers, fields and sizes.

Three tables, generated rather than listed, over the real files the tools wrote
(``tests/tool_mutations.py``; the HELM run is in HELM's layout with consistent aggregate files):

* every field of a record of every format (lm-eval samples and results, an Inspect log, HELM
  scenario state, per-instance stats and stats.json, EvalScope reviews and report, Every Eval
  Ever records and aggregate; the record files also alone, without the tool's aggregate files)
  replaced by null, a list, an object, a string, numbers, a boolean, an ESC sequence, or
  removed: the reader must refuse with a benchkit error naming the file, or return the clean
  read's responses (ids may change: the record says so), never raise a raw exception;
* every whole-file corruption (a Latin-1 byte, UTF-16, a BOM, CRLF, NUL bytes appended or a
  100 MB sparse NUL tail, cut in half, empty, a line twice, a copy beside it, a backup folder,
  symlink loops) of every format: refused, or read unchanged where the file is equivalent or not
  read; never more than 50 MB of Python memory;
* sizes: the resource cases at other sizes than the issue's (T, sparse dense views, answer
  states, simulations, CSV and JSON sizes).

The probe found, beyond the issue's instances (each fixed, see docs/bad-inputs.md): lm-eval
``filtered_resps`` of mixed shapes and positive log-likelihoods reached ResponseSet without the
file named; records of one task listing different ``metrics`` silently switched the metric; a
results file whose ``n-samples`` entry lacks ``effective`` raised KeyError; an Inspect metric
without ``value`` raised KeyError; a HELM ``stats.json`` split that is a list raised TypeError; a
HELM state without request states was refused without the file; an Every Eval Ever result id
changed on one record silently switched the result read (or made two "samples" of acc and
acc_norm); an empty EvalScope or Every Eval Ever record file silently dropped its model; a
renamed copy of an EvalScope review file added its items again.
"""
from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest
import tool_mutations as tm
from tool_mutations import resource_budget

from benchkit import BenchkitError
from benchkit import BenchkitValueError
from benchkit import ResponseSet

VALUES = (*tm.VALUES, tm.DELETE)



def _clean(fmt, tmp_path):
    root, target = fmt.build(tmp_path / "clean")
    return tm.responses(fmt.read(root)), tm.load_record(fmt, target)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", tm.FORMATS, ids=[f.name for f in tm.FORMATS])
def test_every_field_of_every_record(tmp_path, fmt):
    clean, record = _clean(fmt, tmp_path)
    failures, outcomes = [], {}
    for k, path in enumerate(tm.field_paths(record)):
        for j, value in enumerate(VALUES):
            root, target = fmt.build(tmp_path / f"m{k}_{j}")
            tm.save_record(fmt, target, tm.set_path(record, path, value))
            kind, detail = tm.outcome(fmt, root, target, clean)
            outcomes[kind] = outcomes.get(kind, 0) + 1
            if kind not in tm.allowed(fmt, path):
                failures.append((path, "removed" if value is tm.DELETE else value, kind, detail))
    assert failures == [], f"{fmt.name}: {outcomes}"
    assert outcomes.get("refused", 0) > 0  # the probe did reach the schema checks


@pytest.mark.slow
@pytest.mark.parametrize("corruption", list(tm.CORRUPTIONS))
@pytest.mark.parametrize("fmt", tm.FORMATS, ids=[f.name for f in tm.FORMATS])
def test_every_file_corruption_of_every_format(tmp_path, fmt, corruption):
    clean, _ = _clean(fmt, tmp_path)
    root, target = fmt.build(tmp_path / "bad")
    tm.CORRUPTIONS[corruption](target)
    tracemalloc.start()
    try:
        kind, detail = tm.outcome(fmt, root, target, clean)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert kind in tm.expected(fmt, corruption), detail
    assert peak < 50e6  # a 100 MB NUL tail is never read whole


# ------------------------------------------------------------------------------------------ sizes
@pytest.mark.parametrize("T", [200, 1000, 100_000])
def test_endpoint_gamma_at_other_sizes_matches_quadrature(T):
    # oracle: P(theta_n > theta_1) for independent Beta(k1 + 1, T - k1 + 1), Beta(kn + 1, T - kn + 1)
    # by scipy's adaptive quadrature of f_1(x) (1 - F_n(x))
    from scipy import integrate
    from scipy.stats import beta

    from benchkit.boundary.steps import endpoint_gamma

    k1 = np.array([0, T // 3, T // 2, T])
    kn = np.array([T, T // 2, T // 2 + 1, 0])
    tracemalloc.start()
    got = endpoint_gamma(k1, kn, T)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 100e6  # was 48 (T+1)^3 bytes: 44.8 GiB at T = 1000
    for a, b, g in zip(k1, kn, got):
        b1, bn = beta(a + 1, T - a + 1), beta(b + 1, T - b + 1)
        lo, hi = b1.ppf(1e-12), b1.isf(1e-12)
        ref, _ = integrate.quad(lambda x: b1.pdf(x) * bn.sf(x), lo, hi, epsabs=1e-13, limit=500,
                                points=[b1.mean()])
        assert g == pytest.approx(ref, abs=1e-9)


@pytest.mark.parametrize(("n_items", "n_models"), [(40_000, 40_000), (100_000, 20_000), (100_000, 100_000)])
def test_sparse_long_data_of_other_sizes_is_refused_before_allocating(n_items, n_models):
    # one row per model and item index along a diagonal: the rows are few, the dense views are not
    n = max(n_items, n_models)
    rows = pd.DataFrame({"model": [f"m{i % n_models}" for i in range(n)],
                         "item": [f"i{i % n_items}" for i in range(n)], "correct": np.ones(n)})
    tracemalloc.start()
    with resource_budget(memory="8GiB"), pytest.raises(BenchkitValueError,
                                                       match=r"dense count matrices of .* needs about "):
        ResponseSet.from_long(rows)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2e9


@pytest.mark.parametrize("n_states", [4, 50, 5_000])
def test_answer_counts_with_many_states_are_checked(n_states):
    rows = pd.DataFrame({"model": "m", "item": "i", "sample": np.arange(n_states), "correct": 0.0,
                         "answer": [f"a{s}" for s in range(n_states)]})
    rs = ResponseSet.from_long(rows)
    with resource_budget(memory=8 * 8 + 16):  # one cell, room for 8 states
        if n_states <= 8:
            assert rs.answer_counts().counts.shape == (1, 1, n_states)
        else:
            with pytest.raises(BenchkitValueError, match=rf"answer-state counts \({n_states:,} states"):
                rs.answer_counts()


@pytest.mark.parametrize(("call", "kwargs"), [
    ("binary_matrix", {"n_items": 1_000_000, "n_models": 100_000, "rng": 0}),
    ("mcq_probabilities", {"n_items": 200_000, "n_models": 10_000}),
    ("repeated_sampling", {"n_items": 100_000, "ladder": 10_000, "T": 100}),
    ("mirt_2pl", {"n_items": 1_000_000, "n_models": 100_000}),
])
def test_simulations_of_other_sizes_are_refused(call, kwargs):
    from benchkit import simulate

    with resource_budget(memory="4GiB"), pytest.raises(BenchkitValueError,
                                                       match=r"needs about .* of memory"):
        getattr(simulate, call)(**kwargs)


@pytest.mark.parametrize("size", [5_000, 1 << 20, 1 << 30])
@pytest.mark.parametrize("reader", ["read_csv", "read_lm_eval", "read_helm", "read_inspect", "detect"])
def test_nul_tails_of_other_sizes_are_refused_at_the_first_nul(tmp_path, size, reader):
    from benchkit import io
    from benchkit.io.detect import detect_format

    name, head = {
        "read_csv": ("r.csv", b"model,item,correct\n" + b"m,i,1\n" * 10),
        "read_lm_eval": ("samples_t_2024-01-01T00-00-00.000001.jsonl",
                         b'{"doc_id": 0, "target": "x", "filtered_resps": ["x"], "exact_match": 1}\n'),
        "read_helm": ("h.json",
                      b'{"adapter_spec": {"method": "generation", "model": "m"}, "request_states": []}'),
        "read_inspect": ("log.json", b'{"version": 2, "eval": {"task": "t", "model": "m"}, "samples": []}'),
        "detect": ("x.data", b"model,item,correct\nm,i,1\n"),
    }[reader]
    path = tmp_path / name
    path.write_bytes(head)
    with open(path, "r+b") as fh:
        fh.truncate(len(head) + size)  # a sparse tail of NUL bytes
    tracemalloc.start()
    try:
        if reader == "detect":
            with pytest.raises(BenchkitValueError, match=r"format not recognized"):
                detect_format(path)
        else:
            kwargs = {"model": "m"} if reader == "read_lm_eval" else {}
            with pytest.raises(BenchkitValueError, match=rf"NUL byte at byte {len(head):,}"):
                getattr(io, reader)(path, **kwargs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10e6


@pytest.mark.parametrize("megabytes", [2, 20])
def test_json_documents_over_the_budget_are_refused_before_reading(tmp_path, megabytes):
    from benchkit.io import read_helm

    path = tmp_path / "h.json"
    path.write_text('{"adapter_spec": {"method": "generation", "model": "m"}, "request_states": ["'
                    + "x" * (megabytes << 20) + '"]}')
    with resource_budget(memory="10MiB"), pytest.raises(BenchkitValueError, match=r"h\.json.*needs about"):
        read_helm(path)
    with pytest.raises(BenchkitError, match=r"request_states\[0\]' is 'xxx"):  # under the default budget
        read_helm(path)
