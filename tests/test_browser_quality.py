"""The Benchmark² dashboard in a real JupyterLab and as an exported page (headless chromium).

In JupyterLab: dragging the ratio line of the selection-ratio curve sends the new ratio to the
kernel, and the listed subset is then exactly the Python-computed selective benchmark at that
ratio (:func:`benchkit.quality.steps.select_items`, recomputed here in the test process) with the
readout of :meth:`QualityDashboard.subset_for`. The page from ``to_html()`` is opened from
file:// with the network blocked: no request, no console error, and its ratio (snapped to the
grid) lists the same subsets.

The test notebook is written to a temporary folder served by its own JupyterLab (no repository
file is touched).
"""
from __future__ import annotations

import pytest

from jupyter_harness import REPO_ROOT
from jupyter_harness import offline_page
from jupyter_harness import output_elements
from jupyter_harness import wait_for_idle

SETUP = '''\
import numpy as np, pandas as pd
from benchkit import ResponseSet
from benchkit.quality import assess
from benchkit.widgets import QualityDashboard

MODELS = ["Qwen2.5-72B-Instruct", "Qwen2.5-32B-Instruct", "Qwen2.5-7B-Instruct",
          "gemma-2-27b-it", "gemma-2-9b-it", "gemma-2-2b-it", "phi-2"]

def bench(seed, n_items, name):
    rng = np.random.default_rng(seed)
    ability = np.linspace(1.5, -1.0, len(MODELS)) + rng.normal(0, 0.3, len(MODELS))
    p = 1 / (1 + np.exp(-(ability[None, :] - rng.normal(0, 1, n_items)[:, None])))
    Y = (rng.random(p.shape) < p).astype(float)
    frame = pd.DataFrame(Y, index=[f"{name}-{i}" for i in range(n_items)], columns=MODELS)
    items = pd.DataFrame({"text": [f"question {i} of {name}" for i in range(n_items)]},
                         index=frame.index).rename_axis("item").reset_index()
    return ResponseSet.from_wide(frame, items=items, name=name)

def make_result():
    sets = {"A": bench(1, 60, "A"), "B": bench(2, 45, "B"), "C": bench(3, 50, "C")}
    return assess(sets, domains={"A": "math", "B": "math", "C": "code"}, n_resamples=50, rng=0,
                  progress=False)
'''
SHOW = '''\
result = make_result()
dashboard = QualityDashboard(result, n_rep=20)
dashboard'''


def _setup_namespace():
    ns: dict = {}
    exec(SETUP, ns)  # noqa: S102 - the same code the notebook runs
    return ns


def _expected(result, b, ratio):
    from benchkit.quality.steps import select_items

    Y = result.matrices[b]
    idx = select_items(Y.to_numpy(), result.families[b].indices(list(Y.columns)), ratio=ratio,
                       method="cad+ds")
    return list(Y.index[idx])


def _drag_ratio(page, loc, frac):
    """Drag the ratio line of the curve from its position to ``frac`` of the plot width."""
    svg = loc("svg.bk-curve").first
    svg.scroll_into_view_if_needed()
    box = svg.bounding_box()
    sx = box["width"] / 520  # viewBox width 520, plot from x=44 to x=504
    def x_of(r):
        return box["x"] + (44 + r * 460) * sx
    y = box["y"] + box["height"] * 0.45
    r0 = float(loc(".bk-ratio-handle").first.get_attribute("data-ratio"))
    page.mouse.move(x_of(r0), y)
    page.mouse.down()
    page.mouse.move(x_of((r0 + frac) / 2), y, steps=5)
    page.mouse.move(x_of(frac), y, steps=5)
    page.mouse.up()


@pytest.mark.browser
def test_dashboard_in_jupyterlab_drag_ratio_lists_python_subset(temp_notebook):
    ns = _setup_namespace()
    result = ns["make_result"]()
    from benchkit.widgets import QualityDashboard

    local = QualityDashboard(result, n_rep=20)
    # the kernel runs in tmp_path: make it import this checkout's benchkit
    with temp_notebook("quality_dashboard.ipynb", [SETUP, SHOW], env={"PYTHONPATH": str(REPO_ROOT)},
                       title="QualityDashboard browser test (temporary).") as page:
        def out(sel):
            return output_elements(page, sel)
        out(".bk-quality").first.wait_for(state="visible", timeout=60_000)
        assert out(".bk-quality .bk-row").count() == 3
        readout = out(".bk-quality .bk-readout").first
        assert readout.get_attribute("data-n") == str(len(_expected(result, "A", 0.35)))

        for frac in (0.62, 0.18):
            _drag_ratio(page, out, frac)
            page.wait_for_function(
                """(r) => [...document.querySelectorAll('.bk-quality .bk-readout')]
                      .some(e => Math.abs(Number(e.dataset.ratio) - r) < 0.011)""",
                arg=frac, timeout=30_000)
            wait_for_idle(page)
            ratio = float(out(".bk-quality .bk-readout").first.get_attribute("data-ratio"))
            assert abs(ratio - frac) <= 0.011
            assert ratio == round(ratio, 2)
            want = _expected(result, "A", ratio)
            got = out(".bk-quality .bk-sub-item").evaluate_all("els => els.map(e => e.dataset.item)")
            assert got == want
            assert out(".bk-quality .bk-subset").first.get_attribute("data-count") == str(len(want))
            ref = local.subset_for("A", ratio)
            for key in ("tau", "stability", "ds"):
                shown = out(f".bk-quality .bk-readout [data-metric='{key}']").first.inner_text()
                assert shown.split()[-1] == f"{ref[key]:.3f}"
        # picking another benchmark reloads its views and keeps the ratio
        out(".bk-quality .bk-row[data-name='B']").first.click()
        page.wait_for_function(
            """() => [...document.querySelectorAll('.bk-quality .bk-sub-item')]
                  .some(e => e.dataset.item.startsWith('B-'))""", timeout=30_000)
        wait_for_idle(page)
        got = out(".bk-quality .bk-sub-item").evaluate_all("els => els.map(e => e.dataset.item)")
        assert got == _expected(result, "B", ratio)


@pytest.mark.browser
def test_exported_dashboard_opens_offline_and_drags_on_the_grid(lab_browser, tmp_path):
    from benchkit.widgets import QualityDashboard

    result = _setup_namespace()["make_result"]()
    d = QualityDashboard(result, n_rep=20)
    path = tmp_path / "quality.html"
    d.to_html(path)
    with offline_page(lab_browser, path, viewport={"width": 1100, "height": 1400}) as off:
        page, requests, errors = off.page, off.requests, off.errors
        assert page.locator(".bk-row").count() == 3
        assert page.locator(".bk-hcell").count() == 4  # math: A, B
        assert page.locator(".bk-bar").count() == len(d.families)
        _drag_ratio(page, page.locator, 0.61)
        page.wait_for_selector(".bk-readout[data-ratio='0.6']", timeout=10_000)
        got = page.locator(".bk-sub-item").evaluate_all("els => els.map(e => e.dataset.item)")
        assert got == _expected(result, "A", 0.6)
        ref = d.subset_for("A", 0.6)
        assert page.locator(".bk-readout [data-metric='tau']").inner_text().split()[-1] == f"{ref['tau']:.3f}"
        page.locator(".bk-row[data-name='C']").click()
        got = page.locator(".bk-sub-item").evaluate_all("els => els.map(e => e.dataset.item)")
        assert got == _expected(result, "C", 0.6)
        assert page.locator(".bk-hcell").count() == 0  # code has one benchmark
        assert requests == []
        assert errors == []
