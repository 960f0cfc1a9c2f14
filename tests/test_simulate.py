"""Tests of benchkit.simulate: generative models with planted flaws and their ground truth.

Statistical checks use fixed seeds (stated in each call) and tolerances of 4-5 binomial standard
errors, so they are deterministic and would fail if the generator drifted from its documented
model. Oracles: scipy (expit, entropy, chisquare, pointbiserialr, spearmanr), statsmodels OLS,
recomputation of the documented equations from the truth tables, hand-worked cases.
"""
from __future__ import annotations

import math
import re
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import scipy.special
import scipy.stats
import statsmodels.formula.api as smf

from benchkit import simulate as sim
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit.response_set import NO_ANSWER
from benchkit.response_set import ResponseSet
from benchkit.stats import normalized_entropy
from naive import lr_statistic_float  # the slow twin of D (Eq. 7) for real-valued counts

REPO = Path(__file__).resolve().parents[1]


def binomial_z(y, p, n=1):
    """(sum y - sum np) / sqrt(sum np(1-p)): standardized total of independent Binomial(n, p)."""
    y = np.asarray(y, dtype=float).ravel()
    p = np.asarray(p, dtype=float).ravel()
    return (y.sum() - n * p.sum()) / math.sqrt(max(n * (p * (1 - p)).sum(), 1e-300))


def calibration_z(y, p, bins=10):
    """Binomial z of each decile bin of p (Bernoulli responses vs generating probabilities)."""
    y = np.asarray(y, dtype=float).ravel()
    p = np.asarray(p, dtype=float).ravel()
    edges = np.quantile(p, np.linspace(0, 1, bins + 1))
    idx = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, bins - 1)
    return np.array([binomial_z(y[idx == b], p[idx == b]) for b in range(bins) if (idx == b).any()])


def recompute_mirt_p(s, *, with_dif=True):
    """The documented mirt_2pl equations, recomputed from the truth tables only."""
    items, models, prm = s.truth.items, s.truth.models, s.params
    D = prm["n_dims"]
    A = items[[f"a_{d + 1}" for d in range(D)]].to_numpy()
    theta = models[[f"theta_{d + 1}" for d in range(D)]].to_numpy()
    eta = A @ theta.T + items["easiness"].to_numpy()[:, None]
    if with_dif:
        for col, kind in (("family", "family_biased"), ("owner", "owner_biased")):
            for i in np.flatnonzero(items["flaw"].to_numpy() == kind):
                hit = models[col].to_numpy() == items["group"].iloc[i]
                eta[i, hit] += items["effect"].iloc[i]
    g = prm["guessing"]
    p = g + (1 - g) * scipy.special.expit(eta)
    flaw = items["flaw"].to_numpy()
    mk = flaw == "miskeyed"
    p[mk] = prm["miskey_rate"] * (1 - p[mk])
    for i in np.flatnonzero(flaw == "non_monotone"):
        c, sd = np.median(eta[i]), prm["bump_width"] * eta[i].std()
        p[i] = prm["bump_peak"] * np.exp(-0.5 * ((eta[i] - c) / sd) ** 2)
    return p, eta


# ---------------------------------------------------------------------------------------------
# binary_matrix and write_long_parquet
# ---------------------------------------------------------------------------------------------


def test_binary_matrix_matches_2pl_probabilities():
    s = sim.binary_matrix(400, 300, rng=11)
    a = s.truth.items["discrimination"].to_numpy()
    b = s.truth.items["easiness"].to_numpy()
    th = s.truth.models["theta"].to_numpy()
    p = scipy.special.expit(a[:, None] * th[None, :] + b[:, None])  # float64 oracle
    Y = s.matrix
    assert Y.shape == (400, 300)
    assert Y.dtype == np.int8
    assert set(np.unique(Y)) <= {0, 1}
    assert abs(binomial_z(Y, p)) < 4
    assert np.all(np.abs(calibration_z(Y, p)) < 4)
    # per model: accuracy within 5 binomial sd of its expectation, for every one of 300 models
    z_m = (Y.sum(0) - p.sum(0)) / np.sqrt((p * (1 - p)).sum(0))
    assert np.all(np.abs(z_m) < 5)
    assert s.responses is None
    assert s.truth.p_correct is None


def test_binary_matrix_reproducible_chunk_invariant_and_prefix_stable():
    ref = sim.binary_matrix(150, 40, rng=5).matrix
    for chunk in (1, 7, 40, 1000):
        assert np.array_equal(sim.binary_matrix(150, 40, rng=5, chunk=chunk).matrix, ref)
    assert not np.array_equal(sim.binary_matrix(150, 40, rng=6).matrix, ref)
    # adding models leaves the first ones unchanged (one generator per model)
    assert np.array_equal(sim.binary_matrix(150, 55, rng=5).matrix[:, :40], ref)
    # the same SeedSequence object twice gives the same matrix
    ss = np.random.SeedSequence(99)
    assert np.array_equal(sim.binary_matrix(20, 9, rng=ss).matrix, sim.binary_matrix(20, 9, rng=ss).matrix)
    # a Generator is consumed (as in scipy): a second call with it gives new data; a fresh
    # Generator in the same state gives the first data again
    g = np.random.default_rng(3)
    first = sim.binary_matrix(20, 9, rng=g).matrix
    assert first.shape == (20, 9)
    assert not np.array_equal(sim.binary_matrix(20, 9, rng=g).matrix, first)
    assert np.array_equal(sim.binary_matrix(20, 9, rng=np.random.default_rng(3)).matrix, first)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, bool, np.float32, "float64"])
def test_binary_matrix_dtype(dtype):
    s = sim.binary_matrix(30, 10, rng=1, dtype=dtype)
    assert s.matrix.dtype == np.dtype(dtype)
    assert np.array_equal(s.matrix.astype(np.int8), sim.binary_matrix(30, 10, rng=1).matrix)


def test_binary_matrix_memory_is_chunk_bounded():
    # 3000 x 2000: int8 output 6 MB; a float64 matrix would be 48 MB. Chunk 50 needs
    # ~3000 x 50 x (4 + 4 + 1) bytes of work arrays on top of the output.
    tracemalloc.start()
    try:
        s = sim.binary_matrix(3000, 2000, rng=2, chunk=50)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert s.matrix.nbytes == 6_000_000
    assert peak < 12_000_000, peak


def test_binary_matrix_to_response_set():
    s = sim.binary_matrix(25, 12, rng=4)
    rs = s.to_response_set()
    assert isinstance(rs, ResponseSet)
    assert rs.n_items == 25
    assert rs.n_models == 12
    assert rs.T == 1
    assert np.array_equal(rs.binary(), s.matrix.astype(float))
    assert list(rs.model_ids) == list(s.truth.models.index)


def test_write_long_parquet_repeats_binary_matrix_parameters_and_defaults():
    # the two public signatures both spell out the 2PL parameters (each shows its defaults); "the
    # same values give exactly the same responses" needs them to stay equal: every parameter of
    # binary_matrix except the matrix-only dtype/chunk, same kind and default
    import inspect

    bm = inspect.signature(sim.binary_matrix).parameters
    wl = inspect.signature(sim.write_long_parquet).parameters
    shared = [n for n in bm if n not in ("dtype", "chunk")]
    assert len(shared) == 9  # n_items, n_models, rng and the six model parameters
    for name in shared:
        assert (wl[name].kind, wl[name].default) == (bm[name].kind, bm[name].default), name


def test_write_long_parquet_streams_the_binary_matrix(tmp_path):
    path = tmp_path / "long.parquet"
    out = sim.write_long_parquet(path, 300, 20, rng=8, row_group_size=1000)
    meta = pq.ParquetFile(path).metadata
    assert out.n_rows == 6000 == meta.num_rows
    assert out.n_row_groups == math.ceil(20 / 3) == meta.num_row_groups  # 3 models per group
    assert all(meta.row_group(g).num_rows <= 1000 for g in range(meta.num_row_groups))
    table = pq.read_table(path)
    assert [str(t) for t in table.schema.types] == ["string", "string", "int8"]
    assert table.schema.names == ["model", "item", "correct"]
    df = table.to_pandas()
    wide = df.pivot(index="item", columns="model", values="correct")
    ref = sim.binary_matrix(300, 20, rng=8)
    wide = wide.loc[ref.truth.items.index, ref.truth.models.index]
    assert np.array_equal(wide.to_numpy(), ref.matrix)
    # model-major row order, as documented
    assert df["model"].iloc[0] == df["model"].iloc[299] != df["model"].iloc[300]
    assert out.n_bytes == path.stat().st_size
    assert out.to_frame()["n_rows"].item() == 6000


def test_write_long_parquet_errors(tmp_path):
    with pytest.raises(BenchkitValueError, match="does not exist"):
        sim.write_long_parquet(tmp_path / "nope" / "x.parquet", 5, 5, rng=1)
    with pytest.raises(BenchkitValueError, match=r"row_group_size=0 is too small"):
        sim.write_long_parquet(tmp_path / "x.parquet", 5, 5, rng=1, row_group_size=0)
    with pytest.raises(BenchkitValueError, match=r"compression=.lz77. is not allowed"):
        sim.write_long_parquet(tmp_path / "x.parquet", 5, 5, rng=1, compression="lz77")


def test_binary_matrix_errors():
    with pytest.raises(BenchkitValueError, match=r"dtype='complex128' is not allowed"):
        sim.binary_matrix(5, 5, rng=1, dtype=np.complex128)
    with pytest.raises(BenchkitTypeError, match="not a numpy dtype"):
        sim.binary_matrix(5, 5, rng=1, dtype="no-such-type")
    with pytest.raises(BenchkitValueError, match=r"chunk=0 is too small; it must be >= 1"):
        sim.binary_matrix(5, 5, rng=1, chunk=0)
    with pytest.raises(BenchkitTypeError, match="n_items must be an integer, got 5.0"):
        sim.binary_matrix(5.0, 5, rng=1)
    with pytest.raises(BenchkitValueError, match=r"rng=-1 must be a non-negative integer"):
        sim.binary_matrix(5, 5, rng=-1)
    with pytest.raises(BenchkitTypeError, match="rng must be None, a non-negative int"):
        sim.binary_matrix(5, 5, rng="abc")
    with pytest.raises(BenchkitValueError, match=r"guessing=1.0 is out of range; it must be < 1.0"):
        sim.binary_matrix(5, 5, rng=1, guessing=1.0)


# ---------------------------------------------------------------------------------------------
# mirt_2pl
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mirt_big():
    # many models so that flaw behaviour shows in the responses; seed 21
    return sim.mirt_2pl(n_items=400, n_models=400, n_dims=3, owners=30, rng=21, matrix_only=True,
        flawed={"miskeyed": 20, "non_monotone": 20, "family_biased": 30, "owner_biased": 10},
    )


def test_mirt_truth_probabilities_follow_the_documented_model(mirt_big):
    s = sim.mirt_2pl(n_items=120, n_models=50, n_dims=2, guessing=0.2, rng=3,
                     flawed={"miskeyed": 5, "non_monotone": 5, "family_biased": 5, "owner_biased": 5})
    p, _ = recompute_mirt_p(s)
    np.testing.assert_allclose(s.truth.p_correct, p, rtol=1e-12, atol=1e-15)
    assert p.min() >= 0
    assert p.max() <= 1
    # the long responses, the matrix and the ResponseSet agree
    assert np.array_equal(s.responses.binary(), s.matrix.astype(float))
    np.testing.assert_allclose(s.truth.items["p_mean"], p.mean(1))
    np.testing.assert_allclose(s.truth.models["p_mean"], p.mean(0))


def test_mirt_responses_match_probabilities(mirt_big):
    p, _ = recompute_mirt_p(mirt_big)
    Y = mirt_big.matrix
    assert abs(binomial_z(Y, p)) < 4
    assert np.all(np.abs(calibration_z(Y, p)) < 4)


def test_mirt_miskeyed_items_have_negative_point_biserial(mirt_big):
    Y = mirt_big.matrix.astype(float)
    flaw = mirt_big.truth.items["flaw"].to_numpy()
    rest = Y.sum(0)[None, :] - Y
    yc, rc = Y - Y.mean(1, keepdims=True), rest - rest.mean(1, keepdims=True)
    r = (yc * rc).sum(1) / np.sqrt((yc**2).sum(1) * (rc**2).sum(1))  # item-rest correlations
    for i in np.flatnonzero(flaw == "miskeyed")[:3]:  # oracle: scipy's point-biserial
        assert r[i] == pytest.approx(scipy.stats.pointbiserialr(Y[i], rest[i])[0], abs=1e-12)
    assert np.all(r[flaw == "miskeyed"] < 0)
    assert r[flaw == "miskeyed"].mean() < -0.2
    assert r[flaw == "none"].mean() > 0.3


def test_mirt_non_monotone_items_peak_in_the_middle(mirt_big):
    p, eta = recompute_mirt_p(mirt_big)
    Y = mirt_big.matrix
    rows = np.flatnonzero(mirt_big.truth.items["flaw"].to_numpy() == "non_monotone")
    assert rows.size == 20
    mid_minus_ends = []
    for i in rows:
        order = np.argsort(eta[i])
        lo, mid, hi = order[:40], order[180:220], order[-40:]
        assert p[i, mid].mean() > p[i, lo].mean() + 0.3
        assert p[i, mid].mean() > p[i, hi].mean() + 0.3
        mid_minus_ends.append(Y[i, mid].mean() - max(Y[i, lo].mean(), Y[i, hi].mean()))
    # empirically: the middle models beat both extremes on almost every planted item
    assert np.mean(np.array(mid_minus_ends) > 0) >= 0.9


def test_mirt_biased_items_shift_their_group(mirt_big):
    items, models = mirt_big.truth.items, mirt_big.truth.models
    p_dif, _ = recompute_mirt_p(mirt_big)
    p0, _ = recompute_mirt_p(mirt_big, with_dif=False)
    Y = mirt_big.matrix
    for col, kind in (("family", "family_biased"), ("owner", "owner_biased")):
        rows = np.flatnonzero(items["flaw"].to_numpy() == kind)
        signs, zs = [], []
        for i in rows:
            hit = models[col].to_numpy() == items["group"].iloc[i]
            eff = items["effect"].iloc[i]
            assert abs(eff) == 1.5
            # generating probabilities move in the direction of the effect, others unchanged
            assert np.all(np.sign(p_dif[i, hit] - p0[i, hit]) == np.sign(eff))
            assert np.array_equal(p_dif[i, ~hit], p0[i, ~hit])
            resid = Y[i, hit] - p0[i, hit]
            signs.append(np.sign(resid.sum()) == np.sign(eff))
            zs.append(np.sign(eff) * binomial_z(Y[i, hit], p0[i, hit]))
        assert np.mean(signs) >= 0.8, (kind, signs)
        assert np.sum(zs) / math.sqrt(len(zs)) > 5  # pooled standardized shift
    flaws = mirt_big.truth.flaws
    assert set(flaws["flaw"]) == {"miskeyed", "non_monotone", "family_biased", "owner_biased"}
    assert len(flaws) == 80
    assert flaws["item"].is_unique


def test_mirt_abilities_grow_with_log_size_and_family_offsets():
    s = sim.mirt_2pl(n_items=10, n_models=600, n_dims=2, owners=20, rng=33, flawed={}, matrix_only=True)
    m = s.truth.models.assign(log2s=np.log2(s.truth.models["size_b"] / 8.0))
    fam = s.truth.arrays["family_offsets"]
    own = s.truth.arrays["owner_offsets"]
    for d in (1, 2):
        # oracle: statsmodels OLS with family and owner fixed effects; slope = size_slope (0.3)
        data = m.astype({"family": object, "owner": object})
        fit = smf.ols(f"theta_{d} ~ log2s + C(family) + C(owner)", data=data).fit()
        assert abs(fit.params["log2s"] - 0.3) < 4 * fit.bse["log2s"]
        # family means net of size and owner match the generating family offsets (differences)
        resid = m[f"theta_{d}"] - 0.3 * m["log2s"] - own.loc[m["owner"]].to_numpy()
        est = resid.groupby(m["family"]).mean()
        diff = (est - est.mean()) - (fam[f"theta_{d}"] - fam[f"theta_{d}"].mean())
        assert np.all(np.abs(diff) < 0.15)  # 4 sd of a mean of ~120 models with residual sd 0.5
    # residual correlation across dimensions ~ dim_correlation = 0.6
    r = np.corrcoef((m["theta_1"] - 0.3 * m["log2s"]), (m["theta_2"] - 0.3 * m["log2s"]))[0, 1]
    assert 0.45 < r < 0.8
    # Zipf owners: the first owner holds the most checkpoints
    counts = s.truth.models["owner"].value_counts()
    assert counts.index[0] == "owner000"


def test_mirt_reproducible_and_chunk_invariant():
    kw = dict(n_dims=2, rng=7, flawed={"miskeyed": 3, "non_monotone": 3, "family_biased": 3})
    full = sim.mirt_2pl(n_items=80, n_models=30, **kw)
    for chunk in (1, 4, 1000):
        m = sim.mirt_2pl(n_items=80, n_models=30, matrix_only=True, chunk=chunk, **kw)
        assert np.array_equal(m.matrix, full.matrix)
        assert m.responses is None
        assert m.truth.p_correct is None
    again = sim.mirt_2pl(n_items=80, n_models=30, **kw)
    pd.testing.assert_frame_equal(again.truth.items, full.truth.items)
    pd.testing.assert_frame_equal(again.tables["responses"], full.tables["responses"])
    other = sim.mirt_2pl(n_items=80, n_models=30, **{**kw, "rng": 8})
    assert not np.array_equal(other.matrix, full.matrix)


def test_mirt_roster_and_response_set():
    s = sim.mirt_2pl(n_items=60, n_models=40, rng=2, families=("llama", "qwen"), owners=("a", "b", "c"),
                     sizes=(1.0, 7.0), benchmarks=("x", "y", "z"), flawed={})
    rs = s.responses
    assert rs.n_items == 60
    assert rs.n_models == 40
    assert set(rs.models["family"]) <= {"llama", "qwen"}
    assert set(rs.models["owner"]) <= {"a", "b", "c"}
    assert set(rs.models["size"]) <= {1e9, 7e9}
    assert list(rs.items["benchmark"].unique()) == ["x", "y", "z"]
    assert (rs.items["benchmark"].value_counts() == 20).all()
    assert rs.model_ids[0].startswith(rs.models["owner"].iloc[0] + "/")
    assert (s.truth.items["flaw"] == "none").all()
    assert s.truth.flaws.empty
    assert s.to_frame().equals(s.truth.items)
    assert "mirt_2pl" in repr(s)
    assert "planted flaws: none" in repr(s)


def test_mirt_rasch_and_explicit_easiness():
    b = np.linspace(-3, 3, 50)
    s = sim.mirt_2pl(n_items=50, n_models=20, n_dims=1, discrimination_sd=0.0, easiness=b, rng=1, flawed={})
    assert np.allclose(s.truth.items["discrimination"], 1.0)
    assert np.allclose(s.truth.items["a_1"], 1.0)
    np.testing.assert_array_equal(s.truth.items["easiness"], b)


def test_mirt_flawed_counts_and_fractions():
    s = sim.mirt_2pl(n_items=200, n_models=10, rng=1, matrix_only=True,
                     flawed={"miskeyed": 0.05, "family_biased": 7})
    vc = s.truth.items["flaw"].value_counts()
    assert vc["miskeyed"] == 10
    assert vc["family_biased"] == 7
    assert vc["none"] == 183


@pytest.mark.parametrize(
    ("kwargs", "exc", "message"),
    [
        (dict(n_models=1), BenchkitValueError, r"n_models=1 is too small; it must be >= 2"),
        (dict(flawed={"mislabelled": 2}), BenchkitValueError,
         r"flawed key='mislabelled' is not allowed; choose one of 'miskeyed', 'non_monotone'"),
        (dict(flawed={"miskeyed": 400, "non_monotone": 200}), BenchkitValueError,
         r"flawed asks for 600 flawed items .* but n_items=500"),
        (dict(flawed={"miskeyed": 1.5}), BenchkitValueError, r"flawed\['miskeyed'\]=1.5 is out of range"),
        (dict(flawed={"miskeyed": -1}), BenchkitValueError, r"flawed\['miskeyed'\]=-1 is too small"),
        (dict(flawed=["miskeyed"]), BenchkitTypeError, "flawed must be a mapping of flaw kind"),
        (dict(families=("llama", "llama")), BenchkitValueError, "families holds 'llama' more than once"),
        (dict(families="llama"), BenchkitTypeError, "families must be a sequence of names"),
        (dict(sizes=(7, -1)), BenchkitValueError, "sizes must hold positive sizes"),
        (dict(dim_correlation=1.0), BenchkitValueError,
         r"dim_correlation=1.0 is out of range; it must be < 1.0"),
        (dict(easiness=[0.0, 1.0]), BenchkitValueError, r"easiness must have shape \(500\); got \(2,\)"),
        (dict(benchmarks=501), BenchkitValueError, "benchmarks=501 is more than n_items=500"),
        (dict(matrix_only="yes"), BenchkitTypeError, "matrix_only must be True or False"),
        (dict(miskey_rate=2), BenchkitValueError, r"miskey_rate=2.0 is out of range; it must be <= 1.0"),
    ],
)
def test_mirt_errors(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        sim.mirt_2pl(**{"rng": 0, "matrix_only": True, **kwargs})


# ---------------------------------------------------------------------------------------------
# repeated_sampling
# ---------------------------------------------------------------------------------------------


def _cell_state_counts(s):
    """(n_items, n_models, S) empirical state counts from the long responses."""
    tab = s.tables["responses"]
    labels = list(s.truth.arrays["state_labels"])
    n_items, n_models = s.truth.p_correct.shape
    T = s.params["T"]
    code = pd.Categorical(tab["answer"].astype(str), categories=labels).codes
    assert (code >= 0).all()
    code = code.reshape(n_models, n_items, T)  # rows are model-major, then item, then sample
    return np.stack([(code == j).sum(2).T for j in range(len(labels))], axis=2)


def empirical_entropy(counts):
    """BSDProbe Eq. 2 with M_q = states observed for the item across all models (oracle: scipy)."""
    n_items, n_models, _ = counts.shape
    out = np.zeros((n_items, n_models))
    for q in range(n_items):
        seen = counts[q].sum(0) > 0
        M = int(seen.sum())
        if M > 1:
            out[q] = scipy.stats.entropy(counts[q][:, seen], axis=1) / math.log(M)
    return out


@pytest.fixture(scope="module")
def ladder():
    return sim.repeated_sampling(rng=2)  # the documented defaults: 300 items, 6 models, T=10


def test_repeated_sampling_trajectories_as_planted(ladder):
    th = ladder.truth.p_correct
    items = ladder.truth.items
    flaw = items["flaw"].to_numpy()
    assert (flaw == "non_monotone").sum() == 15
    assert (flaw == "flat").sum() == 30
    reg = flaw == "none"
    assert np.all(np.diff(th[reg], axis=1) >= 0)  # monotone items: nondecreasing along the ladder
    assert np.all(np.diff(th[flaw == "flat"], axis=1) == 0)
    for q in np.flatnonzero(flaw == "non_monotone"):
        j = items["anomaly_at"].iloc[q]
        assert 1 <= j <= 4
        nb = th[q, [j - 1, j + 1]]
        if items["shape"].iloc[q] == "peak":
            assert np.all(th[q, j] > nb + 0.3)
        else:
            assert np.all(th[q, j] < nb - 0.3)
    # hand-worked: the logistic trajectory at the item's x is halfway between floor and ceiling
    q = np.flatnonzero(reg)[0]
    r = items.iloc[q]
    pos = ladder.truth.models["position"].to_numpy()
    logit = 2 * math.log(3) * (pos - r["x"]) / r["w"]
    expect = r["floor"] + (r["ceiling"] - r["floor"]) / (1 + np.exp(-logit))
    np.testing.assert_allclose(th[q], expect, rtol=1e-12)


def test_repeated_sampling_states_and_correctness(ladder):
    sp = ladder.truth.arrays["state_probs"]
    th = ladder.truth.p_correct
    labels = list(ladder.truth.arrays["state_labels"])
    assert labels == ["A", "B", "C", "D", NO_ANSWER]
    np.testing.assert_allclose(sp.sum(2), 1.0, atol=1e-12)
    key = ladder.truth.items["answer_key"].map(labels.index).to_numpy()
    np.testing.assert_allclose(sp[np.arange(300), :, key], th, rtol=1e-12)
    np.testing.assert_allclose(sp[..., -1], 0.05 * (1 - th), rtol=1e-12)
    tab = ladder.tables["responses"]
    key_of = ladder.truth.items["answer_key"].reindex(tab["item"]).to_numpy()
    assert np.array_equal(tab["correct"].to_numpy(), (tab["answer"].to_numpy() == key_of).astype(np.int8))
    counts = _cell_state_counts(ladder)
    K = counts[np.arange(300)[:, None], np.arange(6)[None, :], key[:, None]]
    assert abs(binomial_z(K, th, n=10)) < 4  # K ~ Binomial(10, theta): same mean
    rs = ladder.responses
    assert rs.T == 10
    assert rs.has_answers
    assert list(rs.model_ids) == [f"sim-{s}b" for s in ("0.6", "1.7", "4", "8", "14", "32")]
    np.testing.assert_array_equal(rs.counts().K, K)
    np.testing.assert_array_equal(rs.counts().N, 10)
    # the principal answer is sample 0
    s0 = tab[tab["sample"] == 0].pivot(index="item", columns="model", values="correct")
    np.testing.assert_array_equal(rs.binary(), s0.loc[rs.item_ids, rs.model_ids].to_numpy())


def test_repeated_sampling_state_frequencies_chisquare():
    # many samples per cell: each cell's state counts fit its generating distribution (scipy chisquare)
    s = sim.repeated_sampling(n_items=4, ladder=(1.0, 2.0, 4.0), T=4000, n_states=4, flawed={}, rng=12)
    counts = _cell_state_counts(s)
    sp = s.truth.arrays["state_probs"]
    pvals = []
    for q in range(4):
        for i in range(3):
            keep = sp[q, i] > 1e-3
            exp = 4000 * sp[q, i, keep]
            obs = counts[q, i, keep]
            pvals.append(scipy.stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue)
    assert min(pvals) > 1e-4, pvals


def test_repeated_sampling_entropy_in_documented_range(ladder):
    counts = _cell_state_counts(ladder)
    e = empirical_entropy(counts)
    th = ladder.truth.p_correct
    assert 0.35 <= e.mean() <= 0.55  # Notes: mean 0.35-0.55 over all cells
    assert e[th >= 0.9].mean() < 0.25
    assert 0.35 < e[th < 0.1].mean() < 0.7
    assert 0.45 < e[(th >= 0.1) & (th < 0.9)].mean() < 0.75
    # benchkit.stats.normalized_entropy (the one shared copy) agrees with scipy at fixed n_states
    p = counts[:5] / 10.0
    np.testing.assert_allclose(
        normalized_entropy(p), scipy.stats.entropy(p, axis=2) / math.log(5), atol=1e-12)
    assert normalized_entropy(np.array([1.0]))[()] == 0.0


def test_repeated_sampling_dense_ladder_recovers_boundary_position_and_width():
    # On a dense ladder the BSDProbe profile of the population trajectory (Eq. 4: first crossing of
    # the linear interpolant at c1 + alpha * Delta) equals the planted x and w up to endpoint
    # truncation; items whose transition lies well inside [0, 1] are checked.
    s = sim.repeated_sampling(n_items=150, ladder=201, T=1, n_states=2, flawed={}, boundary_sd=0.15,
                              width=0.15,
                              width_sd=0.3, rng=4)
    th = s.truth.p_correct
    pos = s.truth.models["position"].to_numpy()
    x, w = s.truth.items["x"].to_numpy(), s.truth.items["w"].to_numpy()
    inside = (x - 2 * w > 0) & (x + 2 * w < 1)
    assert inside.sum() > 50

    def q_alpha(c, alpha):
        target = c[0] + alpha * (c[-1] - c[0])
        k = int(np.argmax(c >= target))
        return pos[k - 1] + (target - c[k - 1]) / (c[k] - c[k - 1]) * (pos[k] - pos[k - 1])

    for q in np.flatnonzero(inside):
        xq = q_alpha(th[q], 0.5)
        wq = q_alpha(th[q], 0.75) - q_alpha(th[q], 0.25)
        assert abs(xq - x[q]) < 0.01, (q, xq, x[q])
        assert abs(wq - w[q]) < 0.05 * w[q] + 1e-3, (q, wq, w[q])


def test_repeated_sampling_axis_and_int_ladder():
    s = sim.repeated_sampling(n_items=5, ladder=(1.0, 10.0, 100.0), axis="log_size", flawed={}, rng=1)
    np.testing.assert_allclose(s.truth.models["position"], [0.0, 0.5, 1.0])
    s = sim.repeated_sampling(n_items=5, ladder=4, T=2, flawed={}, no_answer=0.0, rng=1)
    assert list(s.truth.models.index) == ["sim-m1", "sim-m2", "sim-m3", "sim-m4"]
    assert s.truth.models["size"].isna().all()
    assert list(s.truth.arrays["state_labels"]) == ["A", "B", "C", "D"]
    np.testing.assert_allclose(s.truth.models["position"], [0, 1 / 3, 2 / 3, 1])


def test_repeated_sampling_reproducible():
    a = sim.repeated_sampling(n_items=40, rng=9)
    b = sim.repeated_sampling(n_items=40, rng=9)
    c = sim.repeated_sampling(n_items=40, rng=10)
    pd.testing.assert_frame_equal(a.tables["responses"], b.tables["responses"])
    pd.testing.assert_frame_equal(a.truth.items, b.truth.items)
    assert not a.tables["responses"]["answer"].equals(c.tables["responses"]["answer"])


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "message"),
    [
        ((10, (1.0, 4.0, 2.0)), {}, BenchkitValueError,
         "ladder must be strictly increasing .* 4 is followed by 2"),
        ((10, (1.0, 2.0)), dict(flawed={"non_monotone": 1}), BenchkitValueError,
         "non_monotone items need a peak or dip .* at least 3"),
        ((10, 1), {}, BenchkitValueError, r"ladder=1 is too small; it must be >= 2"),
        ((10, 4), dict(axis="log_size"), BenchkitValueError, "axis='log_size' needs model sizes"),
        ((10,), dict(axis="rank"), BenchkitValueError,
         r"axis='rank' is not allowed; choose one of 'index', 'log_size'"),
        ((10,), dict(floor=(0.0, 0.9), ceiling=(0.8, 1.0)), BenchkitValueError,
         "floor=.* and ceiling=.* overlap"),
        ((10,), dict(floor=(0.3, 0.1)), BenchkitValueError, r"floor=\(0.3, 0.1\) must be \(low, high\)"),
        ((10,), dict(n_states=1), BenchkitValueError, r"n_states=1 is too small; it must be >= 2"),
        ((10,), dict(T=0), BenchkitValueError, r"T=0 is too small; it must be >= 1"),
        ((10,), dict(flawed={"flat": 11}), BenchkitValueError,
         r"flawed\['flat'\]=11 is too large; it must be <= 10"),
        ((10,), dict(no_answer=1.0), BenchkitValueError, r"no_answer=1.0 is out of range; it must be < 1.0"),
    ],
)
def test_repeated_sampling_errors(args, kwargs, exc, message):
    with pytest.raises(exc, match=message):
        sim.repeated_sampling(**dict(zip(("n_items", "ladder"), args)), **{"rng": 0, **kwargs})


# ---------------------------------------------------------------------------------------------
# mcq_probabilities
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mcq_many():
    return sim.mcq_probabilities(n_items=300, n_models=40, rng=31, flawed={"miskeyed": 20, "ambiguous": 20})


def test_mcq_probabilities_are_distributions_and_scored_by_argmax(mcq_many):
    P = mcq_many.truth.arrays["option_probs"]
    assert P.shape == (300, 40, 4)
    np.testing.assert_allclose(P.sum(2), 1.0, atol=1e-12)
    assert P.min() >= 0
    rs = mcq_many.responses
    assert rs.has_option_probs
    np.testing.assert_allclose(rs.option_probs(), P, rtol=1e-12)
    keys = mcq_many.truth.items["answer_key"].map("ABCD".index).to_numpy()
    np.testing.assert_array_equal(rs.binary(), (P.argmax(2) == keys[:, None]).astype(float))
    np.testing.assert_allclose(mcq_many.truth.p_correct, P[np.arange(300), :, keys])
    long = mcq_many.tables["responses"]
    assert np.all(long["option_probs"].map(len) == 4)


def test_mcq_miskeyed_items_invert(mcq_many):
    items = mcq_many.truth.items
    ability = mcq_many.truth.models["ability"].to_numpy()
    assert np.all(np.diff(ability) >= 0)  # models numbered weakest to strongest
    Y = mcq_many.responses.binary()
    mk = items["flaw"].to_numpy() == "miskeyed"
    assert np.all(items.loc[mk, "answer_key"] != items.loc[mk, "true_answer"])
    assert np.all(items.loc[~mk, "answer_key"] == items.loc[~mk, "true_answer"])
    r = np.array([scipy.stats.pointbiserialr(Y[q], ability)[0] if Y[q].std() > 0 else np.nan
                  for q in range(300)])
    assert np.nanmean(r[mk]) < -0.2
    assert np.nanmean(r[items["flaw"].to_numpy() == "none"]) > 0.1
    assert Y[mk, -1].mean() < 0.2  # the strongest model is scored wrong on miskeyed items
    assert Y[mk, 0].mean() > Y[mk, -1].mean()


def test_mcq_ambiguous_items_have_two_near_equal_options(mcq_many):
    items = mcq_many.truth.items
    P = mcq_many.truth.arrays["option_probs"]
    tau = mcq_many.truth.models["sharpness"].to_numpy()
    amb = np.flatnonzero(items["flaw"].to_numpy() == "ambiguous")
    for q in amb:
        t = "ABCD".index(items["true_answer"].iloc[q])
        p = "ABCD".index(items["partner"].iloc[q])
        assert t != p
        # exact: log(P_partner / P_true) = tau_m * delta_q (the documented logit gap)
        np.testing.assert_allclose(np.log(P[q, :, p] / P[q, :, t]), tau * items["gap"].iloc[q], atol=1e-9)
    top2 = np.sort(P, axis=2)[..., -2:]
    strong = P[amb][:, -10:]  # the ten strongest models share their mass between the two options
    assert np.median(top2[amb][:, -10:, 0] / top2[amb][:, -10:, 1]) > 0.6
    assert np.median(strong.max(2)) < 0.75


def test_mcq_accuracy_grows_with_ability_and_reproducible():
    s = sim.mcq_probabilities(n_items=400, n_models=20, rng=5, flawed={})
    rho = scipy.stats.spearmanr(s.truth.models["ability"], s.truth.models["p_mean"]).statistic
    assert rho > 0.9
    again = sim.mcq_probabilities(n_items=400, n_models=20, rng=5, flawed={})
    np.testing.assert_array_equal(again.truth.arrays["option_probs"], s.truth.arrays["option_probs"])
    other = sim.mcq_probabilities(n_items=400, n_models=20, rng=6, flawed={})
    assert not np.array_equal(other.truth.arrays["option_probs"], s.truth.arrays["option_probs"])


@pytest.mark.parametrize(
    ("kwargs", "exc", "message"),
    [
        (dict(n_options=1), BenchkitValueError, r"n_options=1 is too small; it must be >= 2"),
        (dict(n_options=27), BenchkitValueError, r"n_options=27 is too large; it must be <= 26"),
        (dict(flawed={"non_monotone": 1}), BenchkitValueError,
         r"flawed key='non_monotone' is not allowed; choose one of 'miskeyed', 'ambiguous'"),
        (dict(sharpness=0), BenchkitValueError, r"sharpness=0.0 is out of range; it must be > 0.0"),
        (dict(model_prefix=""), BenchkitTypeError, "model_prefix must be a non-empty string"),
    ],
)
def test_mcq_errors(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        sim.mcq_probabilities(n_items=10, n_models=3, **{"rng": 0, **kwargs})


# ---------------------------------------------------------------------------------------------
# committed samples
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sim.sample_names())
def test_committed_sample_equals_regeneration(name):
    if not (REPO / "data_samples" / name).is_dir():
        pytest.skip("data_samples/ is only in repository checkouts")
    loaded = sim.load_sample(name, with_truth=True)
    fresh = sim.SAMPLES[name].generate()
    for key, frame in sim.sample_tables(fresh).items():
        stored = pd.read_parquet(REPO / "data_samples" / name / f"{key}.parquet")
        if "option_probs" in frame.columns:
            # floats, like the other columns to rtol 1e-12: numpy's SIMD exp/log differ by 1 ulp
            # between CPUs (3.3e-16 measured between the machine that wrote the files and another)
            np.testing.assert_allclose(np.stack(stored["option_probs"]), np.stack(frame["option_probs"]),
                                       rtol=1e-12, atol=0)
            stored, frame = stored.drop(columns="option_probs"), frame.drop(columns="option_probs")
        pd.testing.assert_frame_equal(stored, frame, check_dtype=False, rtol=1e-12)
    np.testing.assert_array_equal(loaded.responses.binary(), fresh.responses.binary())
    pd.testing.assert_frame_equal(loaded.truth.items, fresh.truth.items, check_dtype=False,
                                  check_index_type=False, rtol=1e-12)


def test_load_sample_contents():
    rs = sim.load_sample("ladder")
    assert isinstance(rs, ResponseSet)
    assert (rs.n_items, rs.n_models, rs.T) == (300, 6, 10)
    assert rs.has_answers
    assert rs.name == "sample-ladder"
    assert "repeated_sampling" in rs.meta["notes"]
    rs = sim.load_sample("mirt")
    assert (rs.n_items, rs.n_models) == (500, 60)
    assert rs.models["family"].nunique() == 5
    assert rs.models["owner"].nunique() > 5
    rs = sim.load_sample("mcq")
    assert (rs.n_items, rs.n_models) == (300, 8)
    assert rs.has_option_probs
    s = sim.load_sample("dif", with_truth=True)
    assert s.responses.n_models == 300
    assert s.truth.p_correct is None
    assert set(s.truth.flaws["flaw"]) == {"family_biased", "owner_biased", "miskeyed"}
    assert sim.load_sample("suite").items["benchmark"].nunique() == 6


def test_load_sample_errors_and_regeneration(tmp_path):
    with pytest.raises(BenchkitValueError,
                       match=r"name='nope' is not allowed; choose one of 'ladder', 'mirt', 'mcq'"):
        sim.load_sample("nope")
    with pytest.raises(BenchkitValueError, match="has no complete sample 'mcq'"):
        sim.load_sample("mcq", folder=tmp_path)
    sim.write_sample("mcq", folder=tmp_path)
    a = sim.load_sample("mcq", folder=tmp_path)
    b = sim.load_sample("mcq", regenerate=True)
    np.testing.assert_allclose(a.option_probs(), b.option_probs(), rtol=1e-15)


def test_samples_readme_and_size():
    folder = REPO / "data_samples"
    if not folder.is_dir():
        pytest.skip("data_samples/ is only in repository checkouts")
    readme = (folder / "README.md").read_text()
    for name, spec in sim.SAMPLES.items():
        assert re.search(rf"`{name}`", readme), name
        assert str(spec.rng) in readme, (name, spec.rng)
        assert spec.generator in readme
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert total < 3_000_000


# ---------------------------------------------------------------------------------------------
# rule 5: every generator records the entropy of its root seed
# ---------------------------------------------------------------------------------------------
# (call(rng) -> Simulation, what to compare, the int-seeded value printed by the code of commit
# d7d702c, before the generators recorded rng_entropy: an int rng must still give it bit for bit)
_RNG_CASES = {
    "binary_matrix": (lambda r: sim.binary_matrix(30, 8, rng=r),
                      lambda s: s.matrix[:, 0].tolist(),
                      [1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 0, 0, 0,
                       0, 0, 1, 1]),
    "mirt_2pl": (lambda r: sim.mirt_2pl(n_items=30, n_models=12, rng=r),
                 lambda s: [s.truth.flaws["item"].tolist(), s.matrix[:, 0].tolist()],
                 [["q0000", "q0017", "q0018"],
                  [1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1,
                   0, 0, 0]]),
    "repeated_sampling": (lambda r: sim.repeated_sampling(n_items=20, rng=r),
                          lambda s: [s.truth.flaws["item"].tolist(),
                                     s.responses.counts().K[:, 0].tolist()],
                          [["q0012", "q0016", "q0018"],
                           [3, 2, 0, 2, 0, 0, 1, 0, 3, 2, 0, 1, 7, 1, 0, 0, 5, 9, 1, 1]]),
    "mcq_probabilities": (lambda r: sim.mcq_probabilities(n_items=20, n_models=3, rng=r),
                          lambda s: [s.truth.flaws["item"].tolist(),
                                     s.truth.arrays["option_probs"].ravel()[:4].round(12).tolist()],
                          [["q0000", "q0015"],
                           [0.545987862159, 0.45298529991, 7.5515312e-05, 0.000951322618]]),
    # printed by the code of commit ab140e4, before audit_suite recorded rng_entropy
    "audit_suite": (lambda r: sim.audit_suite(n_items=40, benchmarks=1, n_models=20, T=3,
                                              near_duplicate=False, rng=r),
                    lambda s: [s.truth.flaws["item"].tolist(),
                               s.responses.counts().K[:, -1].tolist(),
                               s.truth.arrays["option_probs"].ravel()[:4].round(12).tolist()],
                    [["sim1/q0000", "sim1/q0002", "sim1/q0005", "sim1/q0007", "sim1/q0012",
                      "sim1/q0020", "sim1/q0028", "sim1/q0032"],
                     [3, 3, 1, 3, 3, 0, 3, 3, 3, 3, 3, 3, 0, 3, 3, 3, 3, 2, 2, 3, 0, 2, 3, 3, 3, 3,
                      3, 3, 0, 3, 2, 3, 2, 3, 3, 3, 3, 3, 3, 3],
                     [0.99544533426, 0.001905247323, 0.002174216135, 0.000475202282]]),
}


@pytest.mark.parametrize("name", sorted(_RNG_CASES))
def test_generators_record_rng_entropy(name):
    call, value, before = _RNG_CASES[name]
    s = call(4)
    assert value(s) == before  # an int rng: the same data as before the change
    assert s.rng_entropy == 4
    first = call(np.random.default_rng(9))  # a Generator: its root gets an int entropy
    assert isinstance(first.rng_entropy, int)
    assert value(call(first.rng_entropy)) == value(first)
    fresh = call(None)  # fresh OS entropy, recorded, so even this run can be repeated
    assert value(call(fresh.rng_entropy)) == value(fresh)


def test_write_long_parquet_records_rng_entropy(tmp_path):
    res = sim.write_long_parquet(tmp_path / "a.parquet", 30, 8, rng=4)
    assert res.rng_entropy == 4
    correct = pd.read_parquet(res.path)["correct"]
    # before the change (commit d7d702c): 130 correct, the first model's column as below
    assert int(correct.sum()) == 130
    assert correct.tolist()[:30] == _RNG_CASES["binary_matrix"][2]
    first = sim.write_long_parquet(tmp_path / "b.parquet", 30, 8, rng=np.random.default_rng(9))
    again = sim.write_long_parquet(tmp_path / "c.parquet", 30, 8, rng=first.rng_entropy)
    pd.testing.assert_frame_equal(pd.read_parquet(again.path), pd.read_parquet(first.path))
    assert sim.load_sample("mcq", with_truth=True).rng_entropy == sim.SAMPLES["mcq"].rng


def test_repeated_sampling_non_monotone_items_fail_order_consistency(ladder):
    # population trajectories: D = 0 for monotone and flat items, large for planted peaks/dips;
    # sampled counts (T = 10): planted items have much larger D than regular ones
    th = ladder.truth.p_correct
    flaw = ladder.truth.items["flaw"].to_numpy()
    K = ladder.responses.counts().K
    D_pop = np.array([lr_statistic_float(th[q] * 10, 10) for q in range(300)])
    D_obs = np.array([lr_statistic_float(K[q].astype(float), 10) for q in range(300)])
    assert np.all(D_pop[flaw != "non_monotone"] < 1e-9)
    assert np.all(D_pop[flaw == "non_monotone"] > 3)
    assert np.median(D_obs[flaw == "non_monotone"]) > 4 * np.median(D_obs[flaw == "none"]) + 2


# ---------------------------------------------------------------------------------------------
# audit_suite: one response set with every flaw the cross-method audit looks for
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def suite():
    return sim.audit_suite(n_items=40, n_models=80, T=6, rng=7)


def test_audit_suite_layout(suite):
    rs, truth = suite.responses, suite.truth
    assert rs.n_items == 3 * 40 + 40  # three benchmarks and the copy of the first
    assert rs.n_models == 80 + 6
    assert list(pd.unique(rs.items["benchmark"])) == ["sim1", "sim2", "sim3", "sim1-copy"]
    budget = rs.budget
    ladder = [m for m in rs.model_ids if m.startswith("ladder/")]
    assert ladder == ["ladder/qwen-0.5b", "ladder/qwen-1.5b", "ladder/qwen-4b", "ladder/qwen-8b",
                      "ladder/qwen-14b", "ladder/qwen-32b"]
    assert (budget[ladder] == 6).all()
    assert (budget.drop(ladder) == 1).all()
    counts = truth.items["flaw"].value_counts()
    assert counts["near_duplicate"] == 40
    for kind in sim.FLAW_KINDS["audit_suite"]:
        assert counts[kind] == 6  # 5 % of the 120 original items
    # every option vector is a distribution; answers are letters; correct = answer == key
    P = truth.arrays["option_probs"]
    np.testing.assert_allclose(P.sum(axis=2), 1.0, atol=1e-12)
    long = rs.to_long()
    key = rs.items["answer_key"].reindex(long["item"]).to_numpy()
    np.testing.assert_array_equal(long["correct"].to_numpy() == 1, long["answer"].to_numpy() == key)
    assert rs.items["text"].str.contains("<").all()  # text for the escaping checks of the explorer


def test_audit_suite_answers_follow_the_option_probabilities(suite):
    # sampled answers: the number choosing the key ~ Binomial with the generating probabilities
    rs, truth = suite.responses, suite.truth
    K = rs.counts().K
    N = rs.counts().N
    p = truth.p_correct
    z = (K.sum() - (N * p).sum()) / math.sqrt((N * p * (1 - p)).sum())
    assert abs(z) < 5


def test_audit_suite_planted_flaws_as_documented(suite):
    rs, truth = suite.responses, suite.truth
    items, models = truth.items, truth.models
    P = truth.arrays["option_probs"]
    letters = "ABCD"
    idx = {m: j for j, m in enumerate(rs.model_ids)}
    rows = {q: i for i, q in enumerate(rs.item_ids)}
    strong = models.index[~models["ladder"] & (models["p_mean"] > models["p_mean"].median())]
    for q, r in items[items["flaw"] == "miskeyed"].iterrows():
        # the key is a distractor: strong models put more probability on the true answer
        p = P[rows[q]][[idx[m] for m in strong]]
        assert p[:, letters.index(r["true_answer"])].mean() > p[:, letters.index(r["answer_key"])].mean()
    for q, r in items[items["flaw"] == "ambiguous"].iterrows():
        p = P[rows[q]].mean(axis=0)
        pair = [letters.index(r["true_answer"]), letters.index(r["partner"])]
        assert sorted(np.argsort(p)[-2:]) == sorted(pair)
    lad = [idx[m] for m in models.index[models["ladder"]]]
    for q in items.index[items["flaw"] == "non_monotone"]:
        c = truth.p_correct[rows[q], lad]
        assert c[2:4].max() > c[0] + 0.3
        assert c[2:4].max() > c[-1] + 0.3  # rises, then falls along the ladder
    fam = models["family"].to_numpy()
    for q, r in items[items["flaw"] == "family_biased"].iterrows():
        inside = truth.p_correct[rows[q], fam == r["group"]].mean()
        outside = truth.p_correct[rows[q], fam != r["group"]].mean()
        assert np.sign(inside - outside) == np.sign(r["effect"])
    # copies: same key and mostly the same answers as their originals
    copies = items[items["flaw"] == "near_duplicate"]
    B = rs.binary()
    same = [np.mean(B[rows[c]] == B[rows[o]]) for c, o in copies["copy_of"].items()]
    assert np.mean(same) > 0.85
    assert (copies["answer_key"].to_numpy() == items.loc[copies["copy_of"], "answer_key"].to_numpy()).all()


def test_audit_suite_reproducible_and_options():
    a = sim.audit_suite(n_items=10, n_models=20, ladder=(), flawed={}, near_duplicate=False, rng=3)
    b = sim.audit_suite(n_items=10, n_models=20, ladder=(), flawed={}, near_duplicate=False, rng=3)
    pd.testing.assert_frame_equal(a.tables["responses"].drop(columns="option_probs"),
                                  b.tables["responses"].drop(columns="option_probs"))
    np.testing.assert_array_equal(a.truth.arrays["option_probs"], b.truth.arrays["option_probs"])
    assert a.responses.n_items == 30
    assert (a.truth.items["flaw"] == "none").all()
    assert (a.responses.budget == 1).all()
    c = sim.audit_suite(n_items=10, n_models=20, benchmarks=["x", "y"], rng=4, flawed={"miskeyed": 2})
    assert list(pd.unique(c.responses.items["benchmark"])) == ["x", "y", "x-copy"]
    assert (c.truth.items["flaw"] == "miskeyed").sum() == 2


@pytest.mark.parametrize(
    ("kwargs", "exc", "message"),
    [
        (dict(n_items=1), BenchkitValueError, r"n_items=1 is too small"),
        (dict(near_duplicate="yes"), BenchkitTypeError, "near_duplicate must be True or False"),
        (dict(ladder=(4.0,)), BenchkitValueError, "ladder must hold at least 2 sizes"),
        (dict(ladder=(4.0, 2.0)), BenchkitValueError, "ladder must be strictly increasing"),
        (dict(ladder=(), flawed={"non_monotone": 2}), BenchkitValueError,
         "non_monotone items are centred on the ladder"),
        (dict(flawed={"owner_biased": 1}), BenchkitValueError, "flawed key='owner_biased' is not allowed"),
        (dict(ladder_family=""), BenchkitTypeError, "ladder_family must be a non-empty string"),
        (dict(n_options=1), BenchkitValueError, r"n_options=1 is too small"),
        (dict(sharpness=0), BenchkitValueError, r"sharpness=0.0 is out of range"),
    ],
)
def test_audit_suite_errors(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        sim.audit_suite(**{"n_items": 10, "n_models": 20, "rng": 0, **kwargs})
