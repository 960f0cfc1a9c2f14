"""Tests of benchkit.charts: chart specs carry the values computed independently of the kit."""
from __future__ import annotations

import re
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

alt = pytest.importorskip("altair")

from benchkit import ResponseSet  # noqa: E402 (after the importorskip)
from benchkit import charts  # noqa: E402 (after the importorskip)


def _dataset(spec: dict) -> list[dict]:
    (values,) = spec["datasets"].values()
    return values


@pytest.fixture
def toy():
    # Hand-worked case: 3 models x 4 items, one sample each.
    #            q1 q2 q3 q4   accuracy
    #   alpha     1  1  1  0   3/4
    #   beta      1  0  0  0   1/4
    #   gamma     1  1  0  0   2/4
    #   item p:   1 2/3 1/3 0
    table = {"alpha": [1, 1, 1, 0], "beta": [1, 0, 0, 0], "gamma": [1, 1, 0, 0]}
    long = pd.DataFrame(
        [(m, f"q{i + 1}", v) for m, row in table.items() for i, v in enumerate(row)],
        columns=["model", "item", "correct"],
    )
    models = pd.DataFrame({"model": ["alpha", "beta", "gamma"], "family": ["a", "b", "a"]})
    return ResponseSet.from_long(long, models=models, parse_names=False, name="toy")


def test_accuracy_chart_hand_worked(toy):
    spec = charts.accuracy_chart(toy).to_dict()
    rows = _dataset(spec)
    assert [r["model"] for r in rows] == ["alpha", "gamma", "beta"]  # sorted, most accurate first
    assert [r["accuracy"] for r in rows] == [0.75, 0.5, 0.25]
    assert [r["family"] for r in rows] == ["a", "a", "b"]
    assert [r["rank"] for r in rows] == [1, 2, 3]
    assert spec["mark"]["type"] == "bar"
    assert spec["encoding"]["y"]["sort"] == ["alpha", "gamma", "beta"]
    assert spec["encoding"]["x"]["field"] == "accuracy"
    assert spec["title"] == "Accuracy per model (toy)"


def test_difficulty_histogram_hand_worked(toy):
    # p-values 1, 2/3, 1/3, 0 in 4 bins [0,.25) [.25,.5) [.5,.75) [.75,1]: one item each.
    spec = charts.difficulty_histogram(toy, bins=4).to_dict()
    rows = _dataset(spec)
    assert [(r["bin_start"], r["bin_end"], r["n_items"]) for r in rows] == [
        (0.0, 0.25, 1), (0.25, 0.5, 1), (0.5, 0.75, 1), (0.75, 1.0, 1)]
    assert spec["encoding"]["x"]["bin"] == "binned"
    assert spec["encoding"]["x2"]["field"] == "bin_end"
    assert spec["encoding"]["y"]["field"] == "n_items"
    # 3 bins: 0 -> [0,1/3); 1/3 -> [1/3,2/3); 2/3 and 1 -> [2/3,1] (edges belong to the upper bin)
    rows3 = _dataset(charts.difficulty_histogram(toy, bins=3).to_dict())
    assert [r["n_items"] for r in rows3] == [1, 1, 2]


@pytest.fixture
def sampled():
    # 6 models x 40 items x 10 samples with some missing cells: the oracle below recomputes everything
    # from the long frame with pandas and exact fractions, independently of ResponseSet.
    rng = np.random.default_rng(7)
    rows = []
    for j in range(6):
        skill = 0.15 + 0.14 * j
        for i in range(40):
            if (i + j) % 11 == 0:
                continue  # missing cell
            ease = i / 40
            for s in range(10):
                rows.append((f"model-{j}", f"item-{i:02d}", s, int(rng.random() < 0.5 * skill + 0.5 * ease)))
    return pd.DataFrame(rows, columns=["model", "item", "sample", "correct"])


def test_charts_match_independent_oracle(sampled):
    rs = ResponseSet.from_long(sampled, parse_names=False)
    cell = sampled.groupby(["model", "item"])["correct"].agg(["sum", "count"])
    cell["frac"] = [Fraction(int(k), int(n)) for k, n in zip(cell["sum"], cell["count"])]

    acc = cell.groupby(level="model")["frac"].apply(lambda f: sum(f, Fraction(0)) / len(f))
    rows = _dataset(charts.accuracy_chart(rs).to_dict())
    expected = sorted(acc.items(), key=lambda kv: -kv[1])
    assert [r["model"] for r in rows] == [m for m, _ in expected]
    np.testing.assert_allclose([r["accuracy"] for r in rows], [float(a) for _, a in expected],
                               rtol=0, atol=1e-12)

    p = cell.groupby(level="item")["frac"].apply(lambda f: sum(f, Fraction(0)) / len(f))
    for bins in (20, 10, 7):
        want = [0] * bins
        for value in p:
            k = int(value * bins)  # exact floor of a Fraction
            want[min(k, bins - 1)] += 1
        got = _dataset(charts.difficulty_histogram(rs, bins=bins).to_dict())
        assert [r["n_items"] for r in got] == want
        assert [r["bin_start"] for r in got] == [k / bins for k in range(bins)]
        assert sum(want) == sampled["item"].nunique()


def test_bad_arguments(toy):
    with pytest.raises(ValueError, match="bins"):
        charts.difficulty_histogram(toy, bins=0)
    with pytest.raises(TypeError, match="rs must be a benchkit.ResponseSet, got DataFrame"):
        charts.accuracy_chart(pd.DataFrame())


def test_enable_offline_rendering():
    before = alt.renderers.active
    try:
        charts.enable_offline_rendering()
        assert alt.renderers.active == "jupyter"
        charts.enable_offline_rendering(static=True)
        assert alt.renderers.active == "svg"
        with pytest.raises(TypeError, match="static must be True or False, got 'yes'"):
            charts.enable_offline_rendering(static="yes")
    finally:
        alt.renderers.enable(before)


def test_static_rendering_stores_the_chart_as_svg(toy):
    # the saved output must hold the drawing itself (no widget reference, no script, no CDN), so a
    # notebook shows it without a kernel; oracle: the chart's own data drawn as SVG marks
    before = alt.renderers.active
    try:
        charts.enable_offline_rendering(static=True)
        bundle = charts.accuracy_chart(toy)._repr_mimebundle_()
    finally:
        alt.renderers.enable(before)
    assert "application/vnd.jupyter.widget-view+json" not in bundle
    svg = bundle["image/svg+xml"]
    assert svg.lstrip().startswith("<svg")
    assert "<script" not in svg
    assert "http" not in svg.split(">", 1)[1]
    # one bar per model, labelled with the hand-worked accuracies of the toy fixture
    bars = re.findall(r'aria-label="accuracy: ([0-9.]+); model: (\w+);', svg)
    assert [(m, round(float(a), 6)) for a, m in bars] == [("alpha", 0.75), ("gamma", 0.5), ("beta", 0.25)]


def test_imports_without_altair_and_says_how_to_install():
    code = (
        "import sys; sys.modules['altair'] = None\n"
        "import benchkit.charts as c\n"
        "try:\n"
        "    c.accuracy_chart(None)\n"
        "except ImportError as e:\n"
        "    print('IMPORTERROR', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "IMPORTERROR" in out.stdout
    assert "pip install 'benchkit[jupyter]'" in out.stdout
    # the per-method chart modules share the one loader, so they give the same hint
    for mod, call in (("boundary", "rate_chart(None, category='k')"), ("measure", "ecdf_chart([0.5])"),
                      ("landscape", "mpd_heatmap(None)")):
        code = ("import sys; sys.modules['altair'] = None\n"
                f"from benchkit.charts import {mod} as m\n"
                "try:\n"
                f"    m.{call}\n"
                "except ImportError as e:\n"
                "    print('IMPORTERROR', e)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert "pip install 'benchkit[jupyter]'" in out.stdout, mod


def test_method_chart_modules_load_lazily_from_the_package():
    import importlib

    for name in ("boundary", "measure", "landscape"):
        assert getattr(charts, name) is importlib.import_module(f"benchkit.charts.{name}")
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        _ = charts.nope


def test_show_stores_a_static_svg_beside_the_interactive_chart(toy, monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj))
    before = alt.renderers.active
    try:
        chart = charts.accuracy_chart(toy)
        charts.enable_offline_rendering()
        charts.show(chart)
        assert [type(o).__name__ for o in shown] == ["Chart", "SVG"]
        assert shown[1].data == charts.to_svg(chart)
        assert shown[1].data.lstrip().startswith("<svg")
        shown.clear()
        charts.enable_offline_rendering(static=True)  # already an SVG: shown once
        charts.show(chart)
        assert [type(o).__name__ for o in shown] == ["Chart"]
    finally:
        alt.renderers.enable(before)
    with pytest.raises(TypeError, match="chart must be an Altair chart, got int"):
        charts.to_svg(3)
