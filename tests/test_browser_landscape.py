"""The landscape explorer in a real JupyterLab and as an exported page (headless chromium).

In JupyterLab: dragging a rectangle over the plot lists the items inside (Python computes the list
with LandscapeView.brush; the ids are checked against the kernel's own list), and picking a
comparison variant draws the before/after arrows sent back from the kernel. The notebook is written
to a temporary folder served by its own JupyterLab, so nothing in the repository is touched. The
static page from ``to_html()`` is opened from file:// with the network blocked and brushes there too.
"""
from __future__ import annotations

import json
import re

import pytest

from jupyter_harness import drag
from jupyter_harness import offline_page
from jupyter_harness import output_elements
from jupyter_harness import rerun_cell
from jupyter_harness import wait_for_idle

SETUP = """\
import json
from benchkit.datasets import fetch
from benchkit.widgets import LandscapeExplorer
rs = fetch("conformal-llm", subjects=["anatomy", "business_ethics"])
explorer = LandscapeExplorer(rs, by="source", page_size=500)
explorer"""
REPORT = """\
print("EXPECTED " + json.dumps({"items": [r["item"] for r in explorer.selected],
                                "n": explorer.n_selected, "brush": explorer.brush,
                                "arrows": explorer.moves_info.get("n_arrows", 0)}))"""


@pytest.mark.browser
def test_brush_in_jupyterlab_lists_items_from_python(temp_notebook):
    with temp_notebook("landscape.ipynb", [SETUP, REPORT]) as page:
        view = output_elements(page, ".bk-land")
        view.first.wait_for(state="visible", timeout=60_000)
        assert output_elements(page, ".bk-land .bk-points circle").count() == 150 + 112
        assert output_elements(page, ".bk-selected .bk-sel").count() == 0

        # drag a rectangle over the upper-right part: Python lists the items inside
        overlay = output_elements(page, ".bk-land .bk-overlay").first
        drag(page, overlay, 0.4, 0.02, 0.95, 0.6)
        rows = output_elements(page, ".bk-selected .bk-sel")
        rows.first.wait_for(state="visible", timeout=30_000)
        wait_for_idle(page)
        ids = rows.evaluate_all("els => els.map(e => e.dataset.item)")

        # pick a comparison variant: arrows come back from the kernel
        picker = output_elements(page, ".bk-land select.bk-picker[data-name='compare']").first
        picker.select_option("prompt_5")
        output_elements(page, ".bk-land .bk-arrows line").first.wait_for(state="attached", timeout=30_000)
        wait_for_idle(page)
        n_arrows = output_elements(page, ".bk-land .bk-arrows line").count()

        # ask the kernel what it computed (run the report cell again)
        arrows_in = """text.includes('"arrows": ') && !text.includes('"arrows": 0}')"""
        expected = rerun_cell(page, 1, until=arrows_in)
        assert expected["n"] > 0
        assert len(expected["brush"]) == 4
        assert ids == expected["items"]
        assert len(ids) == expected["n"]
        assert n_arrows == expected["arrows"] == 150 + 112
        title = output_elements(page, ".bk-seltitle").first.inner_text()
        assert title.startswith(f"{expected['n']} points")


@pytest.mark.browser
def test_to_html_page_brushes_offline_from_file_url(lab_browser, tmp_path):
    from benchkit.datasets import fetch
    from benchkit.widgets import LandscapeExplorer

    rs = fetch("conformal-llm", subjects=["anatomy"])
    w = LandscapeExplorer(rs, variant="prompt_1", page_size=1000)
    path = tmp_path / "landscape.html"
    w.to_html(path)
    with offline_page(lab_browser, path) as off:
        page, requests, errors = off.page, off.requests, off.errors
        assert page.locator(".bk-points circle").count() == 150
        mpd_text = page.locator(".bk-metric[data-metric='mpd'] .bk-value").inner_text()
        assert mpd_text == f"{w.stats['mpd']:.4f}"
        drag(page, page.locator(".bk-overlay"), 0.3, 0.05, 0.9, 0.7)
        page.wait_for_selector(".bk-selected .bk-sel")
        ids = page.locator(".bk-selected .bk-sel").evaluate_all("els => els.map(e => e.dataset.item)")
        box = json.loads(page.evaluate(
            "() => JSON.stringify([...document.querySelectorAll('.bk-seltitle')]"
            ".map(e => e.textContent))"))[0]
        ranges = re.findall(r"\[([\d.]+), ([\d.]+)\]", box)
        lo_x, hi_x, lo_y, hi_y = map(float, ranges[0] + ranges[1])
        # the same rectangle brushed in Python (3-decimal title rounding: compare within it)
        P = w.view_points()
        x, y = P["x"].astype(float), P["y"].astype(float)
        items = [w.result.frame.at[int(r), "item"] for r in P["row"]]
        inside = [it for it, a, b in zip(items, x, y)
                  if lo_x + 5e-4 <= a <= hi_x - 5e-4 and lo_y + 5e-4 <= b <= hi_y - 5e-4]
        maybe = [it for it, a, b in zip(items, x, y)
                 if lo_x - 5e-4 <= a <= hi_x + 5e-4 and lo_y - 5e-4 <= b <= hi_y + 5e-4]
        assert set(inside) <= set(ids) <= set(maybe)
        assert len(ids) > 0
        # before/after from the embedded bundle, no kernel
        page.locator("select.bk-picker[data-name='compare']").select_option("prompt_2")
        page.wait_for_selector(".bk-arrows line", state="attached")
        assert page.locator(".bk-arrows line").count() == 150
        after = page.locator(".bk-after[data-after='mpd']").inner_text()
        w.compare = "prompt_2"
        assert after.strip() == f"→ {w.compare_stats['mpd']:.4f}"
        assert requests == []
        assert errors == []
