"""benchkit.boundary.steps.profiles against a straightforward implementation of the paper's equations."""
import numpy as np
import pytest
from scipy import integrate
from scipy import stats
from scipy.optimize import isotonic_regression

from benchkit.boundary.steps import endpoint_gamma
from benchkit.boundary.steps import get_calibration
from benchkit.boundary.steps import profiles


@pytest.fixture(scope="module")
def table():
    return get_calibration(6, 20)  # shipped table: lookup only, no simulation


def oracle(k, T, e=None):
    """Eq. 2-7, 11-14 written out with floats, scipy's isotonic fit and quadrature for gamma."""
    k = np.asarray(k)
    m, n = k.shape
    c = k / T
    s = np.arange(n) / (n - 1)
    if e is None:
        e = np.zeros((m, n))
        for q in range(m):
            if 0 < k[q].sum() < n * T:
                with np.errstate(divide="ignore", invalid="ignore"):
                    ent = -(np.nan_to_num(c[q] * np.log(c[q])) + np.nan_to_num((1 - c[q]) * np.log(1 - c[q])))
                e[q] = ent / np.log(2)
    out = []
    for q in range(m):
        fit = isotonic_regression(c[q]).x
        delta = fit[-1] - fit[0]
        flat = abs(delta) < 1e-12
        # gamma by quadrature of P(theta_n > theta_1) (Eq. 14)
        b1 = stats.beta(k[q, 0] + 1, T - k[q, 0] + 1)
        bn = stats.beta(k[q, -1] + 1, T - k[q, -1] + 1)
        gamma = integrate.quad(lambda t: bn.pdf(t) * b1.cdf(t), 0, 1, epsabs=1e-13, epsrel=1e-13)[0]

        def Q(alpha):
            level = fit[0] + alpha * delta
            for i in range(1, n):
                if fit[i] >= level - 1e-12:
                    return s[i - 1] + (level - fit[i - 1]) / (fit[i] - fit[i - 1]) * (s[i] - s[i - 1])
        with np.errstate(divide="ignore", invalid="ignore"):
            kl = (np.nan_to_num(c[q] * np.log(c[q] / fit))
                  + np.nan_to_num((1 - c[q]) * np.log((1 - c[q]) / (1 - fit))))
        D = max(0.0, 2 * T * kl.sum())
        if flat:
            out.append(dict(delta=0.0, x=np.nan, w=1.0, gamma=gamma, v=0.0, D=D, a=c[q].mean(), q50=np.nan))
        else:
            q25, q50, q75 = Q(0.25), Q(0.5), Q(0.75)
            H = s >= q75 - 1e-12
            v = delta * gamma * (1 - e[q][H].mean())
            out.append(dict(delta=delta, x=q50, w=q75 - q25, gamma=gamma, v=v, D=D, a=c[q].mean(), q50=q50))
    # App. B positioning (Eq. 11-12)
    refs = [r for r in out if r["delta"] > 0]
    u = sorted({round(r["a"], 12) for r in refs})
    b = [np.median([r["q50"] for r in refs if round(r["a"], 12) == uu]) for uu in u]
    for r in out:
        if r["delta"] == 0:
            r["x"] = np.interp(r["a"], [0.0] + u + [1.0], [1.0] + b + [0.0])
    return out


def edge_cases(T=20):
    return np.array([
        [0] * 6, [T] * 6, [7] * 6, [0, 2, 5, 10, 15, 20], [3, 5, 4, 9, 12, 15],  # single reversal
        [10, 2, 10, 2, 10, 2], [20, 0, 0, 0, 0, 0],  # Delta = 0 with reversals
        [0, 0, 0, 20, 20, 20], [0, 20, 0, 0, 0, 20], [5, 5, 5, 5, 5, 6],
    ])


def compare(res, ora):
    df = res.to_frame()
    for col in ("delta", "x", "w", "gamma", "v", "D"):
        np.testing.assert_allclose(df[col].to_numpy(), [r[col] for r in ora], rtol=0, atol=1e-9,
                                   err_msg=col)


def test_edge_cases_match_oracle(table):
    k = edge_cases()
    res = profiles(k, 20, calibration=table)
    compare(res, oracle(k, 20))
    df = res.to_frame()
    assert df.loc[0, "x"] == pytest.approx(1.0)
    assert df.loc[1, "x"] == pytest.approx(0.0)
    assert df.loc[5, "delta"] == 0
    assert df.loc[5, "D"] > 0
    assert (df["o"][df["D"] == 0] == 1.0).all()  # D = 0 gives o = 1


@pytest.mark.parametrize("seed", [0, 1])
def test_random_match_oracle(table, seed):
    rng = np.random.default_rng(seed)
    theta = np.sort(rng.random((60, 6)), axis=1)
    theta[::3] = rng.random((20, 6))  # non-monotone truth too
    k = rng.binomial(20, theta)
    e = rng.random(k.shape)
    compare(profiles(k, 20, entropy=e, calibration=table), oracle(k, 20, e))
    compare(profiles(k, 20, calibration=table), oracle(k, 20))


def test_gamma_hand_values():
    # Equal endpoint counts give identical posteriors and gamma = 0.5 (App. C).
    assert endpoint_gamma([3], [3], 10)[0] == pytest.approx(0.5, abs=1e-14)
    # k1 = 0, kn = T = 1: P(Beta(2,1) > Beta(1,2)) = 1 - int 2t * (1-(1-t)^2)... = 5/6 by hand
    assert endpoint_gamma([0], [1], 1)[0] == pytest.approx(5 / 6, abs=1e-14)


def test_flagging_and_groups(table):
    k = edge_cases()
    res = profiles(k, 20, calibration=table, alpha_o=0.05, by=["a"] * 5 + ["b"] * 5,
                   items=[f"q{i}" for i in range(10)])
    df = res.to_frame()
    np.testing.assert_array_equal(df["flagged"], df["o"] <= 0.05)
    assert df.index.name == "item"
    assert list(df["group"].unique()) == ["a", "b"]
    assert df["o"].min() >= 1 / (table.n_resamples + 1)


def test_errors(table):
    with pytest.raises(ValueError, match=r"counts must lie in \[0, T=20\]; found 21"):
        profiles([[21, 0, 0, 0, 0, 0]], 20, calibration=table)
    with pytest.raises(ValueError, match="at least 2 models"):
        profiles([[1], [2]], 20, calibration=table)
    with pytest.raises(ValueError, match="calibration table is for n=6, T=20"):
        profiles([[1, 2, 3]], 20, calibration=table)
    with pytest.raises(ValueError, match="calibration='bogus' is not allowed"):
        profiles([[1, 2, 3, 4, 5, 6]], 20, calibration="bogus")
    with pytest.raises(ValueError, match="entropy must have shape"):
        profiles([[1, 2, 3, 4, 5, 6]], 20, entropy=[[0.1]], calibration=table)
    with pytest.raises(ValueError, match="entropy must be normalized"):
        profiles([[1, 2, 3, 4, 5, 6]], 20, entropy=[[2.0] * 6], calibration=table)


def _former_positions(a_num, q50, flat, n, T, groups):
    """The former App. B code: a median per distinct total count, in a loop (oracle)."""
    x = np.full(a_num.shape[0], np.nan)
    info = {}
    for g in ([None] if groups is None else list(dict.fromkeys(groups.tolist()))):
        sel = np.ones(a_num.shape[0], bool) if g is None else (groups == g)
        ref = sel & ~flat
        ut, inv = np.unique(a_num[ref], return_inverse=True)
        b = np.array([np.median(q50[ref][inv == j]) for j in range(ut.size)])
        uu = np.concatenate(([0.0], ut / (n * T), [1.0]))
        bb = np.concatenate(([1.0], b, [0.0]))
        x[sel & flat] = np.interp(a_num[sel & flat] / (n * T), uu, bb)
        info[g] = (uu, bb)
    return x, info


@pytest.mark.parametrize("with_groups", [False, True])
def test_positions_from_one_sort_equal_former_medians(with_groups):
    from benchkit.boundary._profiles import _positions

    rng = np.random.default_rng(4)
    m, n, T = 3000, 6, 5
    a_num = rng.integers(0, n * T + 1, m)
    q50 = np.round(rng.random(m), 2)  # ties inside a total's group
    flat = rng.random(m) < 0.2
    groups = rng.choice(["x", "y", "z"], m) if with_groups else None
    got, info = _positions(a_num, q50, flat, n, T, groups)
    want, winfo = _former_positions(a_num, q50, flat, n, T, groups)
    np.testing.assert_array_equal(got, want)
    assert info.keys() == winfo.keys()
    for g in info:
        for a, b in zip(info[g], winfo[g]):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("T", [1, 3, 20])
def test_default_entropy_equals_answer_entropy(table, T):
    # the binary entropies come from a table of the T + 1 cells inside the row kernel; oracle:
    # answer_entropy on the binary state counts (the former code path), bit for bit
    from benchkit.boundary._trajectories import binary_state_counts
    from benchkit.boundary.steps import answer_entropy

    rng = np.random.default_rng(T)
    k = rng.binomial(T, rng.random((500, 6)))
    k[:5] = 0
    k[5:10] = T
    want = answer_entropy(binary_state_counts(k, T)[0], T=T)[0]
    got = profiles(k, T, calibration=table if T == 20 else "exact").entropy
    np.testing.assert_array_equal(got, want)
