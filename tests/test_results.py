"""``benchkit._results.result``: frozen dataclasses with a summarizing repr.

Oracles: hand-written expected strings (the repr rules in the module docstring) and the standard
library's own dataclass machinery (``dataclasses.fields``, ``replace``, ``FrozenInstanceError``,
pickle).
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import pickle

import numpy as np
import pandas as pd
import pytest

from benchkit._results import result
from benchkit._results import summary_repr


@result
class Small:
    """A toy result."""

    n: int
    label: str
    values: np.ndarray
    table: pd.DataFrame | None = None
    options: dict = dataclasses.field(default_factory=dict)


@result
class Own:
    """A result that writes its own repr."""

    n: int

    def __repr__(self) -> str:
        return f"<Own {self.n}>"


def test_short_values_are_printed_whole():
    r = Small(n=3, label="a", values=np.array([1.5, 2.0]))
    assert repr(r) == "Small(n=3, label='a', values=[1.5, 2.0], table=None, options={})"


def test_data_is_summarized_and_long_reprs_break_into_lines():
    r = Small(n=14042, label="mmlu", values=np.zeros((14042, 12), dtype=np.float32),
              table=pd.DataFrame({"a": range(5), "b": range(5)}),
              options={f"k{i}": i for i in range(7)})
    assert repr(r) == (
        "Small(\n"
        "    n=14042,\n"
        "    label='mmlu',\n"
        "    values=<array 14042x12 float32>,\n"
        "    table=<DataFrame 5 rows x 2 columns>,\n"
        "    options=<dict of 7>,\n"
        ")"
    )


def test_series_index_and_long_text():
    r = Small(n=1, label="x" * 200, values=pd.Series(range(9)))
    text = repr(r)
    assert "values=<Series of 9>" in text
    assert "label='" + "x" * 76 + "..." in text  # a long value is cut to 80 characters
    assert len(max(text.splitlines(), key=len)) <= 4 + len("label=") + 80 + 1


@result
class Outer:
    """A result holding another."""

    inner: Small
    note: str


def test_nested_results_are_indented():
    inner = Small(n=1, label="i", values=np.arange(20, dtype=np.int64), options={"k": 1})
    assert repr(inner) == "Small(n=1, label='i', values=<array 20 int64>, table=None, options={'k': 1})"
    assert repr(Outer(inner, "x" * 30)) == (
        "Outer(\n"
        "    inner=Small(n=1, label='i', values=<array 20 int64>, table=None, options={'k': 1}),\n"
        "    note='" + "x" * 30 + "',\n"
        ")"
    )
    wide = Small(n=2, label="y" * 70, values=np.arange(2))
    assert repr(Outer(wide, "z")) == (
        "Outer(\n"
        "    inner=Small(\n"
        "        n=2,\n"
        "        label='" + "y" * 70 + "',\n"
        "        values=[0, 1],\n"
        "        table=None,\n"
        "        options={},\n"
        "    ),\n"
        "    note='z',\n"
        ")"
    )


def test_a_repr_written_in_the_class_is_kept():
    assert repr(Own(4)) == "<Own 4>"
    assert summary_repr(Own(4)) == "Own(n=4)"


def test_it_is_a_frozen_dataclass():
    r = Small(n=3, label="a", values=np.array([1.0]))
    assert dataclasses.is_dataclass(r)
    assert [f.name for f in dataclasses.fields(r)] == ["n", "label", "values", "table", "options"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.n = 4
    assert dataclasses.replace(r, n=5).n == 5
    back = pickle.loads(pickle.dumps(r))
    assert (back.n, back.label) == (3, "a")
    np.testing.assert_array_equal(back.values, r.values)


# Records a user builds or that describe inputs, not results: plain frozen dataclasses.
INPUT_RECORDS = {"benchkit.datasets._fetch.Source", "benchkit.datasets._fetch.SourceFile",
                 "benchkit.landscape._backends.Prompt", "benchkit.model_names.ModelName",
                 "benchkit.simulate._samples.SampleSpec", "benchkit.response_set.ResponseSet"}


def _benchkit_dataclasses():
    import pkgutil

    import benchkit

    seen = {}
    for info in pkgutil.walk_packages(benchkit.__path__, "benchkit."):
        if info.name.startswith(("benchkit.widgets", "benchkit.charts", "benchkit._kernels")):
            continue
        mod = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(mod, inspect.isclass):
            if dataclasses.is_dataclass(obj) and obj.__module__.startswith("benchkit"):
                seen[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return seen


def test_every_result_class_is_declared_with_result():
    found = _benchkit_dataclasses()
    assert len(found) > 60  # the walk sees the package
    assert INPUT_RECORDS <= set(found)
    plain = sorted(name for name, cls in found.items()
                   if name not in INPUT_RECORDS and not name.rpartition(".")[2].startswith("_")
                   and cls.__repr__ is not summary_repr and "__repr__" not in vars(cls))
    assert plain == []
    frozen = [name for name, cls in found.items() if not cls.__dataclass_params__.frozen]
    assert frozen == []


def test_values_inside_short_containers_are_summarized_too():
    r = Small(n=1, label="c", values=np.arange(2), options={"a": np.zeros((50, 50)), "b": (1,)})
    assert repr(r) == ("Small(n=1, label='c', values=[0, 1], table=None, "
                       "options={'a': <array 50x50 float64>, 'b': (1,)})")
