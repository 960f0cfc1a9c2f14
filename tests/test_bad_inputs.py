"""Bad inputs of issue 12: each is refused with a benchkit error or handled correctly.

Every test here failed on the code before issue 12 (c09903a); docs/bad-inputs.md names them.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import optimize, special

from benchkit.irt import fit_1pl


# -------------------------------------------------------------------------------- case 7: IRT grid
def _collapsed_oracle(Y: np.ndarray, prec: float) -> np.ndarray:
    """Item difficulties when every ability is 0 (the MML limit sigma -> 0), by scipy.

    Penalized log likelihood sum_ij [y_ij (-b_i) - softplus(-b_i)] - prec/2 sum_i (b_i - mean b)^2,
    maximized with scipy.optimize.minimize (an independent optimizer).
    """
    s = Y.sum(axis=1)
    m = Y.shape[1]

    def nll(b):
        return float(np.sum(s * b + m * np.logaddexp(0.0, -b)) + prec / 2 * np.sum((b - b.mean()) ** 2))

    def grad(b):
        return s - m * special.expit(-b) + prec * (b - b.mean())

    res = optimize.minimize(nll, np.zeros(Y.shape[0]), jac=grad, method="BFGS", options={"gtol": 1e-10})
    return res.x


def test_fit_1pl_fits_when_ability_spread_collapses():
    # issue 12 case 7: before, 20 of these 60 matrices raised ZeroDivisionError in _grid
    n_collapsed = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        Y = (rng.random((40, 8)) < 0.5).astype(int)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            fit = fit_1pl(Y)
        assert np.isfinite(fit.difficulty).all()
        assert np.isfinite(fit.ability).all()
        if fit.ability_sd < 1e-2:
            n_collapsed += 1
            # sigma -> 0: every ability is the mean 0 and difficulties are the penalized
            # item-wise fit with theta = 0 (oracle: scipy BFGS)
            np.testing.assert_allclose(fit.ability, 0.0, atol=1e-2)
            np.testing.assert_allclose(fit.difficulty, _collapsed_oracle(Y, 1 / 9), atol=1e-2)
    assert n_collapsed >= 15  # the cases that crashed before are exercised


# -------------------------------------------------------------------------------- case 1: CSV ids
def test_read_csv_keeps_item_ids_as_strings(tmp_path):
    from benchkit.io import read_csv

    path = tmp_path / "r.csv"
    path.write_text("model,item,correct\nm1,001,1\nm1,01,0\nm2,001,0\nm2,01,1\n")
    rs = read_csv(path)
    assert list(rs.item_ids) == ["001", "01"]
    assert rs.counts().K.tolist() == [[1, 0], [0, 1]]


def test_read_csv_wide_keeps_item_ids_as_strings(tmp_path):
    from benchkit.io import read_csv

    path = tmp_path / "w.csv"
    path.write_text("item,m1,m2\n001,1,0\n01,0,1\n")
    rs = read_csv(path, layout="wide")
    assert list(rs.item_ids) == ["001", "01"]


def test_cli_info_keeps_item_ids_as_strings(tmp_path):
    import io

    from benchkit.cli import main

    path = tmp_path / "r.csv"
    path.write_text("model,item,correct\nm1,001,1\nm1,01,0\n")
    out = io.StringIO()
    assert main(["info", str(path)], out=out) == 0
    assert "2 items" in out.getvalue()


# ------------------------------------------------------------------- case 8: unreadable CSV files
@pytest.mark.parametrize(
    "kind, content, message",
    [
        ("utf16", "model,item,correct\nm,i,1\n".encode("utf-16"), "UTF-16"),
        ("binary", bytes(range(256)) * 4, "binary"),
        ("latin1", "model,item,correct\nm,caf\xe9,1\n".encode("latin-1"), "not UTF-8"),
        ("ragged", b"model,item,correct\nm,i,1\nm,j,1,7,8\n", "well-formed"),
        ("empty", b"", "empty"),
        ("header_only", b"model,item,correct\n", "no data rows"),
    ],
)
def test_read_csv_bad_file_is_a_benchkit_error(tmp_path, kind, content, message):
    from benchkit._validation import BenchkitError
    from benchkit.io import read_csv

    path = tmp_path / f"{kind}.csv"
    path.write_bytes(content)
    with pytest.raises(BenchkitError, match=message) as info:
        read_csv(path)
    assert repr(str(path)) in str(info.value)
