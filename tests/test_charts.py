"""Tests of benchkit.charts: chart specs carry the values computed independently of the kit."""
from __future__ import annotations

import base64
import io
import re
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

alt = pytest.importorskip("altair")
vlc = pytest.importorskip("vl_convert")

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
        assert alt.renderers.active == "benchkit"
        charts.enable_offline_rendering(static=True)
        assert alt.renderers.active == "benchkit-static"
        with pytest.raises(TypeError, match="static must be True or False, got 'yes'"):
            charts.enable_offline_rendering(static="yes")
    finally:
        alt.renderers.enable(before)


def _png_pixels(b64):
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(base64.b64decode(b64))).convert("RGB"))


def test_static_rendering_stores_the_chart_as_one_png_with_alt_text(toy):
    # the saved output holds the drawing itself, in a mimetype an untrusted JupyterLab renders
    # (no widget reference, no SVG, no script): a 2x PNG whose metadata gives its CSS size and alt
    before = alt.renderers.active
    try:
        charts.enable_offline_rendering(static=True)
        chart = charts.accuracy_chart(toy)
        data, meta = chart._repr_mimebundle_()
    finally:
        alt.renderers.enable(before)
    assert sorted(data) == ["image/png", "text/plain"]
    px = _png_pixels(data["image/png"])
    # oracle: vl-convert's own SVG of the chart gives its size in CSS px; the PNG is that plus
    # 12 px of padding on each side (instead of Vega's 5), at 2x
    svg = vlc.vegalite_to_svg(chart.to_dict())
    w, h = (float(v) for v in re.search(r'<svg[^>]*width="([\d.]+)" height="([\d.]+)"', svg).groups())
    assert meta["image/png"]["width"] == px.shape[1] / 2
    assert meta["image/png"]["height"] == px.shape[0] / 2
    assert meta["image/png"]["width"] == pytest.approx(w + 2 * (12 - 5), abs=1)
    assert meta["image/png"]["height"] == pytest.approx(h + 2 * (12 - 5), abs=1)
    alt_text = meta["image/png"]["alt"]
    assert alt_text == "Accuracy per model (toy): bar chart; x: accuracy; colour: family."
    assert data["text/plain"] == alt_text
    # bars in the two families' colours (Vega's tableau10: a, b), no third, on opaque white
    assert tuple(px[0, 0]) == (255, 255, 255)
    colours = np.unique(px.reshape(-1, 3), axis=0).astype(int)

    def near(hexa):
        rgb = np.array([int(hexa[k:k + 2], 16) for k in (1, 3, 5)])
        return int(np.abs(colours - rgb).sum(axis=1).min()) <= 6

    assert [near(c) for c in ("#4c78a8", "#f58518", "#e45756")] == [True, True, False]


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


def test_show_displays_one_output_with_the_live_chart_and_its_png(toy, monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display",
                        lambda obj, **kw: shown.append((obj, kw)))
    before = alt.renderers.active
    try:
        chart = charts.accuracy_chart(toy)
        charts.enable_offline_rendering()
        charts.show(chart)
        assert len(shown) == 1  # one output: the chart is never shown twice
        data, kw = shown[0]
        assert kw["raw"] is True
        assert sorted(data) == ["application/vnd.jupyter.widget-view+json", "image/png", "text/plain"]
        assert data["text/plain"] == kw["metadata"]["image/png"]["alt"]
        assert "object at" not in data["text/plain"]
        # the same bundle as displaying the chart itself under the renderer
        rdata, rmeta = chart._repr_mimebundle_()
        assert rdata["image/png"] == data["image/png"]
        assert rmeta == kw["metadata"]
        shown.clear()
        charts.show(chart, alt="Three bars.")
        assert shown[0][1]["metadata"]["image/png"]["alt"] == "Three bars."
        shown.clear()
        charts.enable_offline_rendering(static=True)  # no live view at all
        charts.show(chart)
        assert sorted(shown[0][0]) == ["image/png", "text/plain"]
        with pytest.raises(TypeError, match="alt must be a string, got int"):
            charts.show(chart, alt=3)
    finally:
        alt.renderers.enable(before)
    with pytest.raises(TypeError, match="chart must be an Altair chart, got int"):
        charts.to_svg(3)


def test_describe_names_title_marks_panels_and_channels():
    from benchkit.charts._display import describe

    base = alt.Chart(pd.DataFrame({"a": [1], "b": [2], "g": ["x"]}))
    spec = alt.hconcat(base.mark_point().encode(x=alt.X("a:Q", title="A axis"), y="b:Q", color="g:N"),
                       base.mark_bar().encode(x="a:Q", y="b:Q")).properties(title="Two views").to_dict()
    assert describe(spec) == "Two views: scatter and bar chart in 2 panels; x: A axis; y: b; colour: g."
    facet = base.mark_line().encode(x="a:Q", y="b:Q").facet(column="g:N").to_dict()
    assert describe(facet) == "line chart; columns: g; x: a; y: b."
