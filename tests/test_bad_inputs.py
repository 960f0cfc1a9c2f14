"""Bad inputs of issue 12: each is refused with a benchkit error or handled correctly.

Every test here failed on the code before issue 12 (c09903a); docs/bad-inputs.md names them.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import optimize
from scipy import special

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
    ("kind", "content", "message"),
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


# ------------------------------------------------------------ cases 4, 5, 8, 10: ResponseSet inputs
def _long(**extra):
    import pandas as pd

    base = {"model": ["a", "a"], "item": ["i", "j"], "correct": [1, 0]}
    base.update(extra)
    return pd.DataFrame(base)


def test_all_minus_inf_logprobs_are_refused():
    # case 4: before, the row became NaN probabilities with no error
    from benchkit import ResponseSet
    from benchkit._validation import BenchkitValueError

    frame = _long(option_logprobs=[[-np.inf, -np.inf], [-1.0, -2.0]])
    with pytest.raises(BenchkitValueError, match=r"-inf for every option at row 0 \(model 'a', item 'i'\)"):
        ResponseSet.from_long(frame)


def test_some_minus_inf_logprobs_are_fine():
    from benchkit import ResponseSet

    rs = ResponseSet.from_long(_long(option_logprobs=[[-np.inf, 0.0], [np.log(0.25), np.log(0.75)]]))
    # hand-worked: softmax over the offered options
    np.testing.assert_allclose(rs.option_probs()[:, 0, :], [[0.0, 1.0], [0.25, 0.75]])


@pytest.mark.parametrize("column", ["model", "item"])
def test_int_and_str_ids_that_collide_are_refused(column):
    # case 5: before, model 1 and model "1" silently became one model
    import pandas as pd

    from benchkit import ResponseSet
    from benchkit._validation import BenchkitValueError

    frame = pd.DataFrame({"model": ["a", "b"], "item": ["i", "j"], "correct": [1, 0]})
    frame[column] = pd.Series([1, "1"], dtype=object)
    with pytest.raises(BenchkitValueError, match=rf"column '{column}' holds 1 and '1'"):
        ResponseSet.from_long(frame)


def test_int_ids_of_mixed_numpy_and_python_types_still_merge():
    import pandas as pd

    from benchkit import ResponseSet

    frame = pd.DataFrame({"model": pd.Series([np.int64(1), 1, "a"], dtype=object),
                          "item": ["i", "j", "i"], "correct": [1, 0, 1]})
    assert list(ResponseSet.from_long(frame).model_ids) == ["1", "a"]


def test_option_probabilities_as_strings_are_refused():
    # case 8: before, "0.5" strings were silently parsed as numbers
    from benchkit import ResponseSet
    from benchkit._validation import BenchkitTypeError

    with pytest.raises(BenchkitTypeError, match="'option_probs' must hold numbers; row 0"):
        ResponseSet.from_long(_long(option_probs=[["0.5", "0.5"], ["0.2", "0.8"]]))


def test_nullable_int_sample_with_na_is_refused():
    # case 8: before, a raw pandas ValueError
    import pandas as pd

    from benchkit import ResponseSet
    from benchkit._validation import BenchkitValueError

    with pytest.raises(BenchkitValueError, match="'sample' has a missing value at row 1"):
        ResponseSet.from_long(_long(sample=pd.array([0, None], dtype="Int64")))


def test_sample_numbers_above_2_62_are_kept_apart():
    # case 8: before, cell * (max sample + 1) overflowed int64 in the duplicate check: with span
    # 2**62 + 6, cell 4 sample 0 wrapped onto cell 0 sample 24 (a false "duplicate rows" error)
    import pandas as pd

    from benchkit import ResponseSet

    big = 2**62 + 5
    models = ["a", "a", "b", "b", "c", "c", "d", "d", "e", "e"]
    samples = [24, big, 0, 1, 0, 1, 0, 1, 0, 1]
    frame = pd.DataFrame({"model": models, "item": "i", "correct": [1, 0] * 5, "sample": samples})
    rs = ResponseSet.from_long(frame)
    assert rs.counts().N.tolist() == [[2, 2, 2, 2, 2]]
    assert rs.counts().K.tolist() == [[1, 1, 1, 1, 1]]
    assert sorted(rs.to_long()["sample"].tolist()) == sorted(samples)


def test_sample_numbers_above_int64_are_refused():
    from benchkit import ResponseSet
    from benchkit._validation import BenchkitValueError

    with pytest.raises(BenchkitValueError, match=r"'sample' must be at most 2\*\*63 - 1; row 1"):
        ResponseSet.from_long(_long(item=["i", "i"], sample=np.array([0, 2**63 + 5], dtype=np.uint64)))


def test_model_size_that_is_not_a_number_is_refused():
    # case 8: before, a raw pandas ValueError
    import pandas as pd

    from benchkit import ResponseSet
    from benchkit._validation import BenchkitValueError

    with pytest.raises(BenchkitValueError, match="models column 'size' must be a number.*'big'"):
        ResponseSet.from_long(_long(), models=pd.DataFrame({"model": ["a"], "size": ["big"]}))


def test_a_set_with_every_cell_dropped_is_refused():
    # case 10: before, an empty set (100% missing) was returned
    import pandas as pd

    from benchkit import ResponseSet
    from benchkit._validation import BenchkitValueError

    frame = pd.DataFrame({"model": ["a", "a", "b"], "item": ["i", "i", "i"], "correct": [1, 0, 1],
                          "sample": [0, 1, 0]})
    with pytest.raises(BenchkitValueError, match="would drop every cell"):
        ResponseSet.from_long(frame, T=3, drop_incomplete=True)
    counts = pd.DataFrame({"model": ["a"], "item": ["i"], "n_correct": [1], "n_samples": [1]})
    with pytest.raises(BenchkitValueError, match="would drop every cell"):
        ResponseSet.from_counts(counts, T=3, drop_incomplete=True)


# --------------------------------------------------------------- cases 6, 8: the Parquet readers
def _parquet(tmp_path, frame, name="r.parquet"):
    path = tmp_path / name
    frame.to_parquet(path)
    return path


@pytest.mark.parametrize("engine", ["pyarrow", "duckdb"])
def test_aggregating_parquet_refuses_float_model_ids(tmp_path, engine):
    # case 6: before, model 1.0 became the id "1.0" with no error (aggregate=False refused it)
    import pandas as pd

    from benchkit._validation import BenchkitTypeError
    from benchkit.io import read_parquet

    path = _parquet(tmp_path, pd.DataFrame({"model": [1.0, 2.5], "item": ["i", "i"], "correct": [1, 0]}))
    with pytest.raises(BenchkitTypeError, match=r"'model' must hold strings \(or integers\), got type"):
        read_parquet(path, aggregate=True, engine=engine)


@pytest.mark.parametrize("engine", ["pyarrow", "duckdb"])
def test_aggregating_parquet_refuses_float_samples(tmp_path, engine):
    # case 6: before, sample 1.7 was truncated to 1
    import pandas as pd

    from benchkit._validation import BenchkitTypeError
    from benchkit.io import read_parquet

    frame = pd.DataFrame({"model": ["a", "a"], "item": ["i", "i"], "correct": [1, 0], "sample": [0.0, 1.7]})
    with pytest.raises(BenchkitTypeError, match="column 'sample' must hold integers, got type double"):
        read_parquet(_parquet(tmp_path, frame), aggregate=True, engine=engine)


@pytest.mark.parametrize("engine", ["pyarrow", "duckdb"])
def test_aggregating_parquet_refuses_string_correct(tmp_path, engine):
    # case 8: before, a raw AttributeError
    import pandas as pd

    from benchkit._validation import BenchkitTypeError
    from benchkit.io import read_parquet

    frame = pd.DataFrame({"model": ["a", "a"], "item": ["i", "j"], "correct": ["1", "0"]})
    with pytest.raises(BenchkitTypeError, match="column 'correct' must hold 0/1 or bool"):
        read_parquet(_parquet(tmp_path, frame), engine=engine)


@pytest.mark.parametrize("aggregate", [True, False])
def test_csv_renamed_parquet_is_a_benchkit_error(tmp_path, aggregate):
    # case 8: before, a raw pyarrow ArrowInvalid / duckdb InvalidInputException
    from benchkit._validation import BenchkitValueError
    from benchkit.io import read_parquet

    path = tmp_path / "fake.parquet"
    path.write_text("model,item,correct\na,i,1\n")
    with pytest.raises(BenchkitValueError, match=r"could not be read as Parquet.*read_csv") as info:
        read_parquet(path, aggregate=aggregate)
    assert repr(str(path)) in str(info.value)


def test_wide_parquet_with_a_quote_in_a_model_name(tmp_path):
    # case 8: before, a raw duckdb BinderException
    import pandas as pd

    from benchkit.io import read_parquet

    path = _parquet(tmp_path, pd.DataFrame({"item": ["i", "j"], 'm"x': [1, 0], "b": [0, 1]}))
    rs = read_parquet(path, layout="wide")
    assert list(rs.model_ids) == ['m"x', "b"]
    assert rs.counts().K.tolist() == [[1, 0], [0, 1]]


@pytest.mark.parametrize("engine", ["pyarrow", "duckdb"])
def test_aggregating_parquet_samples_above_2_62(tmp_path, engine):
    # case 8: before, cell * span wrapped around int64 (a false duplicate error)
    import pandas as pd

    from benchkit.io import read_parquet

    frame = pd.DataFrame({"model": list("aabbccddee"), "item": "i", "correct": [1, 0] * 5,
                          "sample": [24, 2**62 + 5, 0, 1, 0, 1, 0, 1, 0, 1]})
    rs = read_parquet(_parquet(tmp_path, frame), aggregate=True, engine=engine)
    assert rs.counts().N.tolist() == [[2, 2, 2, 2, 2]]


# ---------------------------------------------------------------------------- case 8: n_jobs=0
def _public_functions_with_n_jobs():
    import importlib
    import inspect
    import pkgutil

    import benchkit

    found = {}
    for info in pkgutil.walk_packages(benchkit.__path__, "benchkit."):
        parts = info.name.split(".")[1:]
        if any(p.startswith("_") for p in parts) or parts[0] in ("widgets", "charts"):
            continue
        mod = importlib.import_module(info.name)
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if callable(obj) and not inspect.isclass(obj):
                try:
                    params = inspect.signature(obj).parameters
                except (TypeError, ValueError):
                    continue
                if "n_jobs" in params:
                    found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


def test_every_public_n_jobs_goes_through_check_n_jobs():
    # case 8: n_jobs=0 was accepted by functions that check it only on their parallel path
    import inspect

    from benchkit._validation import BenchkitValueError

    funcs = _public_functions_with_n_jobs()
    assert len(funcs) >= 15
    for qualname, fn in funcs.items():
        assert "check_n_jobs(n_jobs)" in inspect.getsource(fn), qualname
        required = [p for p in inspect.signature(fn).parameters.values()
                    if p.default is inspect.Parameter.empty and p.kind == p.POSITIONAL_OR_KEYWORD]
        if "n_jobs = check_n_jobs(n_jobs)" in inspect.getsource(fn).split('"""')[2][:200]:
            # checked before anything else: even absurd data cannot hide the bad n_jobs
            keyword_only = {p.name: object() for p in inspect.signature(fn).parameters.values()
                            if p.default is inspect.Parameter.empty and p.kind == p.KEYWORD_ONLY}
            with pytest.raises(BenchkitValueError, match="n_jobs=0 is not allowed"):
                fn(*[object()] * len(required), n_jobs=0, **keyword_only)


def test_cached_calibration_table_refuses_n_jobs_0():
    from benchkit._validation import BenchkitValueError
    from benchkit.boundary.steps import get_calibration

    with pytest.raises(BenchkitValueError, match="n_jobs=0 is not allowed"):
        get_calibration(20, 5, n_jobs=0)


# ------------------------------------------------------ case 8: a corrupted cached calibration table
@pytest.mark.parametrize("content", [b"", b"PK\x03\x04 not really a zip", b"\x00" * 64])
def test_corrupted_cached_calibration_table(tmp_path, monkeypatch, content):
    # before: a raw zipfile.BadZipFile / EOFError / ValueError
    from benchkit._validation import BenchkitValueError
    from benchkit.boundary import _calibration_lookup

    monkeypatch.setenv("BENCHKIT_CACHE", str(tmp_path))
    monkeypatch.setattr(_calibration_lookup, "_MEMO", {})
    path = _calibration_lookup._cache_dir() / _calibration_lookup.table_path(3, 7, 50, 123)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    with pytest.raises(BenchkitValueError, match="is corrupted or not a benchkit table.*delete it") as info:
        _calibration_lookup.get_calibration(3, 7, n_resamples=50, rng=123)
    assert repr(str(path)) in str(info.value)


# ------------------------------------------------------------ case 10: a mirror that lacks the file
def test_empty_mirror_names_the_missing_file(tmp_path, monkeypatch):
    # before: "could not download ... Set BENCHKIT_DATA_MIRROR" although it was set
    from benchkit._validation import BenchkitValueError
    from benchkit.datasets._fetch import Source
    from benchkit.datasets._fetch import SourceFile
    from benchkit.datasets._fetch import fetch_file

    mirror = tmp_path / "mirror"
    mirror.mkdir()
    monkeypatch.setenv("BENCHKIT_DATA_MIRROR", str(mirror))
    monkeypatch.setenv("BENCHKIT_CACHE", str(tmp_path / "cache"))
    source = Source(name="toy", repo="o/r", commit="0" * 40, license="MIT",
                    files=(SourceFile("data/x.csv", "0" * 64, 1, url="http://127.0.0.1:9/x.csv"),))
    with pytest.raises(BenchkitValueError) as info:
        fetch_file(source, "data/x.csv")
    text = str(info.value)
    assert "toy/data/x.csv is missing from the mirror" in text
    assert repr(str(mirror / "toy" / "data" / "x.csv")) in text
    assert "Set BENCHKIT_DATA_MIRROR" not in text


# ------------------------------------------------------------------------------------ case 9: CLI
def test_cli_any_error_exits_2_with_one_line(monkeypatch, capsys):
    # before: a non-benchkit exception escaped main() (a traceback, exit code 1)
    import benchkit.datasets
    from benchkit.cli import main

    def boom(name, **options):
        raise RuntimeError("parser broke\non two lines")

    monkeypatch.setattr(benchkit.datasets, "fetch", boom)
    assert main(["fetch", "eval-arena"]) == 2
    err = capsys.readouterr().err
    assert err == "benchkit: error: RuntimeError: parser broke on two lines\n"
    assert main(["--debug", "fetch", "eval-arena"]) == 2
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err
    assert err.endswith("benchkit: error: RuntimeError: parser broke on two lines\n")


def test_cli_options_are_converted_to_the_loaders_annotated_types(monkeypatch, capsys):
    # before: every -o value reached the loader as a str (max_budget='3' was refused)
    import benchkit.datasets
    from benchkit.cli import main

    seen = {}

    def fake_fetch(name, **options):
        seen.update(options)
        return "ok"

    monkeypatch.setattr(benchkit.datasets, "fetch", fake_fetch)
    assert main(["fetch", "eval-arena", "-o", "max_budget=3", "-o", "benchmark=mbpp",
                 "-o", 'budgets={"mbpp": 2}']) == 0
    assert seen == {"max_budget": 3, "benchmark": "mbpp", "budgets": {"mbpp": 2}}
    seen.clear()
    assert main(["fetch", "eval-arena", "-o", "benchmark=None"]) == 0
    assert seen == {"benchmark": None}
    assert main(["fetch", "eval-arena", "-o", "max_budget=three"]) == 2
    assert "--option max_budget='three' must be an int" in capsys.readouterr().err
    assert main(["fetch", "eval-arena", "-o", "nope=1"]) == 2
    assert "not an option of dataset 'eval-arena'; its options: benchmark, max_budget, budgets" in (
        capsys.readouterr().err)


# ------------------------------------------------ the shared validators (rows of docs/bad-inputs.md)
def test_check_int_rules():
    from benchkit._validation import BenchkitTypeError
    from benchkit._validation import BenchkitValueError
    from benchkit._validation import check_int

    assert check_int("T", np.int64(3), min=1) == 3
    with pytest.raises(BenchkitTypeError, match="T must be an integer, got"):
        check_int("T", 2.5)
    with pytest.raises(BenchkitTypeError, match="T must be an integer"):
        check_int("T", True)
    with pytest.raises(BenchkitValueError, match="T=0 is too small; it must be >= 1"):
        check_int("T", 0, min=1)
    with pytest.raises(BenchkitValueError, match="T=9 is too large; it must be <= 5"):
        check_int("T", 9, max=5)


def test_check_float_rules():
    from benchkit._validation import BenchkitTypeError
    from benchkit._validation import BenchkitValueError
    from benchkit._validation import check_float
    from benchkit._validation import check_probability

    with pytest.raises(BenchkitTypeError, match="alpha must be a real number"):
        check_float("alpha", "0.05")
    with pytest.raises(BenchkitValueError, match="alpha=nan must be finite"):
        check_float("alpha", float("nan"))
    with pytest.raises(BenchkitValueError, match="alpha=2.0 is out of range"):
        check_probability("alpha", 2.0)


def test_check_choice_rules():
    from benchkit._validation import BenchkitValueError
    from benchkit._validation import check_choice

    with pytest.raises(BenchkitValueError, match="layout='tall' is not allowed"):
        check_choice("layout", "tall", ("long", "wide"))


def test_check_array_rules():
    from benchkit._validation import BenchkitTypeError
    from benchkit._validation import BenchkitValueError
    from benchkit._validation import check_array

    with pytest.raises(BenchkitValueError, match="must have at least 1 element"):
        check_array("Y", np.zeros((0, 2)), ndim=2, min_size=1)
    with pytest.raises(BenchkitTypeError, match="Y must be numeric"):
        check_array("Y", np.array([["a", "b"]]), ndim=2, dtype="float")
    with pytest.raises(BenchkitValueError, match="Y must hold integers"):
        check_array("Y", np.array([[0.5, 1.0]]), ndim=2, dtype="int")


def test_check_columns_rules():
    from benchkit._validation import BenchkitValueError
    from benchkit._validation import check_columns

    with pytest.raises(BenchkitValueError, match="responses has duplicate column"):
        check_columns("responses", ["model", "model", "item"])
    with pytest.raises(BenchkitValueError, match="'correct'"):
        check_columns("responses", ["model", "item"], required=("model", "item", "correct"))


# ------------------------------------------------------------------ docs/bad-inputs.md is checked
def test_docs_table_tests_exist():
    import importlib.util
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "bad-inputs.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| Input")]
    named = [re.search(r"`(tests/[\w/]+\.py)::(\w+)`\s*\|\s*$", row) for row in rows]
    assert all(m is not None for m in named), [r for r, m in zip(rows, named) if m is None]
    assert len(named) >= 60
    modules = {}
    for m in named:
        path, name = m.group(1), m.group(2)
        if path not in modules:
            spec = importlib.util.spec_from_file_location(f"_doc_{Path(path).stem}", root / path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            modules[path] = module
        assert callable(getattr(modules[path], name, None)), f"{path}::{name} does not exist"
        assert name.startswith("test_")


# ------------------------------------------- a fresh probe of further inputs (issue 12, "40 more")
def test_counts_with_missing_or_huge_values_are_refused():
    import pandas as pd

    from benchkit import ResponseSet
    from benchkit._validation import BenchkitValueError

    frame = pd.DataFrame({"model": ["a", "b"], "item": ["i", "i"],
                          "n_correct": pd.array([1, None], dtype="Int64"), "n_samples": [2, 2]})
    with pytest.raises(BenchkitValueError, match="'n_correct' has a missing value at row 1"):
        ResponseSet.from_counts(frame)
    frame = pd.DataFrame({"model": ["a"], "item": ["i"], "n_correct": [1],
                          "n_samples": np.array([2**63 + 1], dtype=np.uint64)})
    # the row and its value are named, as for 'sample' (2**63 + 1 = 9223372036854775809)
    with pytest.raises(BenchkitValueError, match=r"'n_samples' must be at most 2\*\*63 - 1; row 0 "
                                                 r"\(model 'a', item 'i'\) has 9223372036854775809"):
        ResponseSet.from_counts(frame)


def test_nested_option_probabilities_are_refused():
    # before: a (rows, 2, 1) array was accepted as option probabilities
    from benchkit import ResponseSet
    from benchkit._validation import BenchkitValueError

    with pytest.raises(BenchkitValueError, match="flat sequence of k numbers per row"):
        ResponseSet.from_long(_long(option_probs=[[[0.5], [0.5]], [[0.5], [0.5]]]))


def test_answer_that_is_a_list_is_refused():
    # before: a raw "unhashable type: 'list'"
    from benchkit import ResponseSet
    from benchkit._validation import BenchkitTypeError

    with pytest.raises(BenchkitTypeError, match="'answer' must hold one answer state"):
        ResponseSet.from_long(_long(answer=[["A"], ["B"]]))


def test_negative_or_infinite_model_size_is_refused():
    import pandas as pd

    from benchkit import ResponseSet
    from benchkit._validation import BenchkitValueError

    for size in (-7.0, np.inf):
        with pytest.raises(BenchkitValueError, match="models column 'size' must be a finite number >= 0"):
            ResponseSet.from_long(_long(), models=pd.DataFrame({"model": ["a"], "size": [size]}))


def test_select_with_one_id_as_a_string():
    # before: select(models="ab") looked up the ids 'a' and 'b'
    import pandas as pd

    from benchkit import ResponseSet

    rs = ResponseSet.from_long(pd.DataFrame({"model": ["ab", "a", "b"], "item": "i", "correct": [1, 0, 1]}))
    assert list(rs.select(models="ab").model_ids) == ["ab"]


def test_read_csv_unknown_option_is_a_benchkit_error(tmp_path):
    # before: Python's bare TypeError from the constructor
    from benchkit._validation import BenchkitTypeError
    from benchkit.io import read_csv

    path = tmp_path / "r.csv"
    path.write_text("model,item,correct\na,i,1\n")
    with pytest.raises(BenchkitTypeError, match=r"unexpected option\(s\) \['Tee'\] for layout='long'"):
        read_csv(path, Tee=1)


def test_read_csv_duplicate_header_names_are_refused(tmp_path):
    # before: pandas renamed the second model 'm' to 'm.1' silently
    from benchkit._validation import BenchkitValueError
    from benchkit.io import read_csv

    path = tmp_path / "w.csv"
    path.write_text("item,m,m\ni,1,0\n")
    with pytest.raises(BenchkitValueError, match=r"duplicate column name\(s\) \['m'\]"):
        read_csv(path, layout="wide")
