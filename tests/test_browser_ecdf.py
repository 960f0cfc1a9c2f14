"""The ECDF gap explorer in a real JupyterLab and as an exported page (headless chromium).

In JupyterLab: clicking a gap band lists its neighbouring items (the ids Python computed with
benchkit.measure.steps.gap_targets), clicking the axis strip adds a what-if item whose metrics come back
from the kernel, and picking another benchmark reloads it from Python. The static page from
``to_html()`` is opened from file:// with the network blocked and does the same without a kernel.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import special

from jupyter_harness import REPO_ROOT
from jupyter_harness import cell_outputs
from jupyter_harness import click_at
from jupyter_harness import notebook_run
from jupyter_harness import offline_page
from jupyter_harness import output_elements
from jupyter_harness import printed_json
from jupyter_harness import wait_for_idle

NOTEBOOK = REPO_ROOT / "tests" / "notebooks" / "ecdf_explorer.ipynb"


@pytest.mark.browser
def test_explorer_in_jupyterlab_click_gap_lists_items_and_what_if_round_trip(open_notebook):
    with notebook_run(open_notebook(NOTEBOOK.relative_to(REPO_ROOT)), unchanged=NOTEBOOK) as page:
        # the explorer's output holds the live view and a PNG (issue 24); JupyterLab renders the
        # live widget, not the image, and the notebook model (what is saved) keeps both
        view_mime = "application/vnd.jupyter.widget-view+json"
        shown = [o for o in cell_outputs(page, 1) if view_mime in o.get("data", {})]
        assert len(shown) == 1
        assert shown[0]["data"]["image/png"]
        assert shown[0]["metadata"]["image/png"]["alt"].startswith("benchkit ECDFGapExplorer")
        output_elements(page, ".bk-ecdf").first.wait_for(state="visible", timeout=60_000)
        rendered = page.evaluate("""() => {
          const cell = window.jupyterapp.shell.currentWidget.content.widgets[1];
          const area = cell.node.querySelector('.jp-OutputArea');
          return {live: area.querySelectorAll('.bk-ecdf').length,
                  images: area.querySelectorAll('.jp-RenderedSVG, .jp-RenderedImage, img').length};
        }""")
        assert rendered == {"live": 1, "images": 0}
        expected = printed_json(page, 2)

        view = output_elements(page, ".bk-ecdf")
        view.first.wait_for(state="visible", timeout=60_000)
        assert output_elements(page, ".bk-ecdf .bk-gap").count() == 5
        metric_n = output_elements(page, ".bk-metric[data-metric='n_items']")
        assert metric_n.first.inner_text().strip() == f"# {expected['n_a']}"

        # click the widest gap: its neighbours are listed (ids from Python's gap_targets)
        output_elements(page, ".bk-ecdf .bk-gap[data-rank='1']").first.click(force=True)
        rows = output_elements(page, ".bk-items .bk-item")
        rows.first.wait_for(state="visible", timeout=30_000)
        ids = rows.evaluate_all("els => els.map(e => e.dataset.item)")
        assert ids == expected["gap0_items"]
        assert output_elements(page, ".bk-items").first.inner_text().count("text of a item") == len(ids)

        # what-if: click the axis strip; the kernel recomputes and syncs `after` back
        # (a real mouse click: the strip must be scrolled into view first, see visible_box)
        click_at(page, output_elements(page, ".bk-ecdf .bk-strip").first, 0.5, 0.5)
        after_n = output_elements(page, ".bk-after[data-after='n_items']").first
        after_n.wait_for(state="visible", timeout=30_000)
        assert after_n.inner_text().strip() == f"→ {expected['n_a'] + 1}"
        assert output_elements(page, ".bk-ecdf .bk-added").count() == 1
        wait_for_idle(page)

        # pick the other benchmark: Python reloads z, metrics and gaps
        output_elements(page, ".bk-ecdf select.bk-picker").first.select_option("sim-b")
        page.wait_for_function(
            """(n) => [...document.querySelectorAll(".bk-metric[data-metric='n_items']")]
                  .some(e => e.textContent.trim() === '# ' + n)""", arg=expected["n_b"], timeout=30_000)
        assert output_elements(page, ".bk-ecdf .bk-added").count() == 0
        wait_for_idle(page)


def _result():
    from benchkit import ResponseSet
    from benchkit.measure import measure_benchmarks

    sets = {}
    for name, (n_items, n_models, T, seed) in {"one": (30, 10, 1, 3), "two": (45, 7, 4, 4)}.items():
        rng = np.random.default_rng(seed)
        P = special.expit(rng.normal(0, 1, n_models)[None, :] - rng.normal(0, 1.5, n_items)[:, None])
        items = [f"{name}/{i}" for i in range(n_items)]
        frame = pd.DataFrame(rng.binomial(T, P), index=items, columns=[f"m{j}" for j in range(n_models)])
        meta = pd.DataFrame({"item": items, "text": [f"<b>{name} {i}</b>" for i in range(n_items)]})
        sets[name] = ResponseSet.from_wide(frame, T=T, items=meta, name=name)
    return measure_benchmarks(sets)


@pytest.mark.browser
def test_to_html_page_works_offline_from_file_url(lab_browser, tmp_path):
    from benchkit.widgets import ECDFGapExplorer

    res = _result()
    w = ECDFGapExplorer(res, n_neighbors=2)
    path = tmp_path / "ecdf.html"
    w.to_html(path)
    with offline_page(lab_browser, path) as off:
        page, requests, errors = off.page, off.requests, off.errors
        assert page.locator(".bk-gap").count() == 5
        assert page.locator(".bk-strip.bk-disabled").count() == 1  # what-if needs a kernel

        # click the 2nd-widest gap: neighbours come from the embedded state
        page.locator(".bk-gap[data-rank='2']").click(force=True)
        ids = page.locator(".bk-items .bk-item").evaluate_all("els => els.map(e => e.dataset.item)")
        ref = res["one"].gap_targets(n_neighbors=2).references(2)
        assert ids == ref["item"].tolist()
        # item text is shown as text, not parsed as HTML
        assert page.locator(".bk-items .bk-text b").count() == 0
        assert "<b>one" in page.locator(".bk-items").inner_text()

        # pick the other benchmark from the embedded bundle (Table 1 row click)
        page.locator(".bk-row[data-name='two']").click()
        assert page.locator(".bk-metric[data-metric='n_items']").inner_text().strip() == "# 45"
        ddm = page.locator(".bk-metric[data-metric='ddm']").inner_text()
        assert ddm.strip() == f"DDM {res['two'].ddm:.3f}"
        page.locator(".bk-gap[data-rank='1']").click(force=True)
        ids = page.locator(".bk-items .bk-item").evaluate_all("els => els.map(e => e.dataset.item)")
        assert ids == res["two"].gap_targets(n_neighbors=2).references(1)["item"].tolist()
        assert requests == []
        assert errors == []
