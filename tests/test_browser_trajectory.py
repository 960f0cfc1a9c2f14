"""The trajectory explorer in a real JupyterLab and as an exported page (headless chromium).

In JupyterLab: clicking an item in the list redraws its trajectory (C, the isotonic fit and the
crossings drawn are the numbers benchkit.boundary.steps.profiles computed), and dragging across the x
histogram brushes a range, after which the kernel's filtered list is what pandas filtering of
``to_frame()`` gives. The page from ``to_html()`` does the same without a kernel (the front end's
own filter rule), opened from file:// with the network blocked.

The test notebook is written to a temporary folder served by its own JupyterLab (so no file of
the repository is touched).
"""
from __future__ import annotations

import numpy as np
import pytest

from jupyter_harness import offline_page
from jupyter_harness import output_elements
from jupyter_harness import visible_box
from jupyter_harness import wait_for_idle

SETUP = """\
from benchkit.simulate import load_sample
from benchkit.boundary.steps import profiles
from benchkit.widgets import TrajectoryExplorer
rs = load_sample("ladder")
prof = profiles(rs.counts().K, rs.T, items=rs.item_ids)
explorer = TrajectoryExplorer(prof, responses=rs)
explorer"""


def _reference():
    from benchkit.boundary.steps import profiles
    from benchkit.simulate import load_sample

    rs = load_sample("ladder")
    prof = profiles(rs.counts().K, rs.T, items=rs.item_ids)
    df = prof.to_frame()
    df.index = df.index.astype(str)
    return rs, prof, df


def _expected_list(df, lo, hi):
    """pandas: Delta > 0 items with x in [lo, hi], sorted by o (stable), as row positions."""
    sub = df.reset_index()
    sub = sub[sub["x"].between(lo, hi) & ~sub["flat"]]
    return sub.sort_values("o", kind="stable").index.tolist()


def _chart_numbers(loc, attr):
    return [float(v) for v in loc.get_attribute(attr).split(",")]


def _brush_x(page, loc_prefix, frac0, frac1):
    """Drag across the x histogram's plot area from frac0 to frac1 of its width."""
    overlay = loc_prefix("svg.bk-hist[data-var='x'] .bk-overlay").first
    box = visible_box(page, overlay)
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] * frac0, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * (frac0 + frac1) / 2, y, steps=4)
    page.mouse.move(box["x"] + box["width"] * frac1, y, steps=4)
    page.mouse.up()


@pytest.mark.browser
def test_explorer_in_jupyterlab_pick_item_and_brush_histogram(temp_notebook):
    rs, prof, df = _reference()
    with temp_notebook("trajectory_explorer.ipynb", [SETUP],
                       title="TrajectoryExplorer browser test (temporary).") as page:
        out = lambda sel: output_elements(page, sel)  # noqa: E731
        out(".bk-traj").first.wait_for(state="visible", timeout=60_000)
        first = int(np.argsort(df["o"].to_numpy(), kind="stable")[0])
        chart = out(".bk-traj svg.bk-trajchart").first
        assert chart.get_attribute("data-item") == df.index[first]
        assert out(".bk-traj .bk-item").count() == 200  # first page of 300

        # choose an item with a positive fitted gain: its trajectory is redrawn from Python
        pick = int(np.flatnonzero(~df["flat"].to_numpy())[10])
        out(f".bk-traj .bk-item[data-index='{pick}']").first.click()
        page.wait_for_function(
            "(item) => [...document.querySelectorAll('.bk-trajchart')]"
            ".some(e => e.dataset.item === item)",
            arg=df.index[pick], timeout=30_000)
        chart = out(f".bk-traj svg.bk-trajchart[data-item='{df.index[pick]}']").first
        np.testing.assert_allclose(_chart_numbers(chart.locator("path.bk-c-line"), "data-c"), prof.c[pick],
                                   atol=1e-12)
        np.testing.assert_allclose(_chart_numbers(chart.locator("path.bk-fit-line"), "data-fit"),
                                   prof.fit[pick], atol=1e-12)
        q = {k: float(chart.locator(f".bk-cross[data-q='{k}']").get_attribute("data-value"))
             for k in ("q25", "q50", "q75")}
        assert q == pytest.approx({"q25": prof.q25[pick], "q50": prof.q50[pick], "q75": prof.q75[pick]},
                                  abs=1e-12)
        assert chart.locator(".bk-highside").count() == 1
        assert out(".bk-traj .bk-answers .bk-state").count() >= 6  # sample answers of 6 models
        wait_for_idle(page)

        # brush the x histogram: the kernel filters the list; compare with pandas
        _brush_x(page, out, 0.25, 0.55)
        tag = out(".bk-traj .bk-brushtag[data-var='x']").first
        tag.wait_for(state="visible", timeout=30_000)
        lo, hi = float(tag.get_attribute("data-lo")), float(tag.get_attribute("data-hi"))
        assert 0.1 < lo < hi < 0.7
        expected = _expected_list(df, lo, hi)
        assert 0 < len(expected) < 300
        page.wait_for_function(
            "(n) => [...document.querySelectorAll('.bk-traj .bk-count')]"
            ".some(e => e.dataset.visible === String(n))",
            arg=len(expected), timeout=30_000)
        wait_for_idle(page)
        ids = out(".bk-traj .bk-item").evaluate_all("els => els.map(e => Number(e.dataset.index))")
        assert ids == expected[:200]


@pytest.mark.browser
def test_to_html_page_picks_items_and_brushes_offline(lab_browser, tmp_path):
    from benchkit.widgets import TrajectoryExplorer

    rs, prof, df = _reference()
    w = TrajectoryExplorer(prof, responses=rs)
    path = tmp_path / "trajectory.html"
    w.to_html(path)
    with offline_page(lab_browser, path, viewport={"width": 1400, "height": 1000}) as off:
        page, requests, errors = off.page, off.requests, off.errors
        flagged = int(np.flatnonzero(df["flagged"].to_numpy())[0])
        page.locator(f".bk-item[data-index='{flagged}']").click()
        chart = page.locator(f"svg.bk-trajchart[data-item='{df.index[flagged]}']")
        chart.wait_for(timeout=10_000)
        np.testing.assert_allclose(_chart_numbers(chart.locator("path.bk-c-line"), "data-c"), prof.c[flagged],
                                   atol=1e-12)
        assert "flagged" in page.locator(".bk-numbers tr[data-num='flagged']").inner_text()

        _brush_x(page, page.locator, 0.3, 0.7)
        tag = page.locator(".bk-brushtag[data-var='x']")
        tag.wait_for(timeout=10_000)
        lo, hi = float(tag.get_attribute("data-lo")), float(tag.get_attribute("data-hi"))
        expected = _expected_list(df, lo, hi)
        ids = page.locator(".bk-item").evaluate_all("els => els.map(e => Number(e.dataset.index))")
        assert ids == expected[:200]
        assert len(expected) > 0
        assert page.locator(".bk-count").get_attribute("data-visible") == str(len(expected))
        # linked histogram: the selected counts of the v histogram are numpy's on the listed items
        sel = np.zeros(len(df), bool)
        sel[expected] = True
        ref = np.histogram(df["v"].to_numpy()[sel], bins=np.linspace(0, 1, 21))[0]
        got = page.locator("svg.bk-hist[data-var='v'] .bk-bar-sel").evaluate_all(
            "els => els.map(e => Number(e.dataset.count))")
        assert got == ref.tolist()
        # flag filter on top of the brush
        page.locator("select.bk-flag_filter").select_option("unflagged")
        sub = df.reset_index()
        keep = sub["x"].between(lo, hi) & ~sub["flat"] & ~sub["flagged"]
        n = int(keep.sum())
        assert page.locator(".bk-count").get_attribute("data-visible") == str(n)
        assert requests == []
        assert errors == []
