"""The family-DIF explorer in a real JupyterLab and as an exported page (headless chromium).

In JupyterLab: clicking a heatmap row shows that item's signature (the item Python's
heatmap_view puts at that rank, with its family effects), the kernel learns the selection, and
the pair table's reversals are exactly benchkit.dif.explore.near_tie_view's; clicking another
threshold on the Figure 1 curve makes the kernel recompute the pairs. The page from ``to_html()``
opens from file:// with the network blocked, with no request and no console error, and does the
same without a kernel.
"""
from __future__ import annotations

import pandas as pd
import pytest

from jupyter_harness import REPO_ROOT
from jupyter_harness import notebook_run
from jupyter_harness import offline_page
from jupyter_harness import output_elements
from jupyter_harness import printed_json
from jupyter_harness import rerun_cell
from jupyter_harness import wait_for_idle

NOTEBOOK = REPO_ROOT / "tests" / "notebooks" / "dif_explorer.ipynb"


def _pairs(loc) -> list[list[str]]:
    return loc.evaluate_all("els => els.map(e => [e.dataset.a, e.dataset.b])")


@pytest.mark.browser
def test_explorer_in_jupyterlab_row_click_and_reversals(open_notebook):
    with notebook_run(open_notebook(NOTEBOOK.relative_to(REPO_ROOT)), unchanged=NOTEBOOK) as page:
        expected = printed_json(page, 2)
        output_elements(page, ".bk-dif").first.wait_for(state="visible", timeout=60_000)
        assert output_elements(page, ".bk-dif .bk-row").count() == 60

        # click the heatmap row at rank 3: the signature panel shows that item and its effects
        output_elements(page, ".bk-dif .bk-row[data-rank='3']").first.click()
        sig = output_elements(page, ".bk-dif svg.bk-sig").first
        sig.wait_for(state="visible", timeout=30_000)
        assert sig.get_attribute("data-item") == expected["item3"]
        dots = output_elements(page, ".bk-dif svg.bk-sig .bk-dot[data-half='0']")
        got = dots.evaluate_all("els => els.map(e => [e.dataset.family, Number(e.dataset.delta)])")
        assert [g[0] for g in got] == expected["families"]
        assert [g[1] for g in got] == pytest.approx(expected["delta3"], rel=1e-6)  # float32 state
        shown = output_elements(page, ".bk-dif .bk-text").first.inner_text()
        assert f"text of item {expected['item3']}" in shown

        # reversals only: exactly the Python-computed reversals at the primary 1 pp
        output_elements(page, ".bk-dif input.bk-revonly").first.check()
        assert _pairs(output_elements(page, ".bk-dif tr.bk-pair")) == expected["reversals"]["1.0"]

        # click the 0.5 pp point of Figure 1: the kernel recomputes the pair table
        output_elements(page, ".bk-dif .bk-curve .bk-point[data-threshold='0.5']").first.click(force=True)
        page.wait_for_function(
            """() => [...document.querySelectorAll('.bk-pairs h4')]
                       .some(e => e.textContent.includes('within 0.5 pp'))""", timeout=30_000)
        wait_for_idle(page)
        assert _pairs(output_elements(page, ".bk-dif tr.bk-pair")) == expected["reversals"]["0.5"]
        kernel = rerun_cell(page, 3, "KERNEL")
        n_rev = len(expected["reversals"]["0.5"])
        assert kernel == {"selected": expected["item3"], "epsilon": 0.5, "rows": n_rev}


@pytest.mark.browser
def test_to_html_page_works_offline_from_file_url(lab_browser, tmp_path, dif_small_options):
    from benchkit import ResponseSet
    from benchkit.dif import audit_rankings
    from benchkit.dif.explore import heatmap_view
    from benchkit.dif.explore import near_tie_view
    from benchkit.dif.steps import simulate_family_dif
    from benchkit.widgets import DIFExplorer

    s = simulate_family_dif(n_items=300, n_models=600, n_owners=100, n_sources=5, dif_source_sd=1.0,
                            dif_fraction=0.2, rng=5)
    wide = pd.DataFrame(s.Y, index=[f"i{i}" for i in range(300)], columns=list(s.model_ids))
    rs = ResponseSet.from_wide(wide, items=pd.DataFrame({"item": wide.index, "source": s.source}))
    res = audit_rankings(rs, min_family_size=10, K=(3, 3), rng=1, **dif_small_options)
    w = DIFExplorer(res, texts={"i1": "<b>bold?</b>"})
    w.selected = "i1"
    path = tmp_path / "dif.html"
    w.to_html(path)
    with offline_page(lab_browser, path) as off:
        page, requests, errors = off.page, off.requests, off.errors
        # the selection made in Python is exported; the item text is shown as text, not as HTML
        assert page.locator("svg.bk-sig").get_attribute("data-item") == "i1"
        assert page.locator(".bk-text").inner_text() == "<b>bold?</b>"
        assert page.locator(".bk-text b").count() == 0
        hv = heatmap_view(res, half=1)
        page.locator("select.bk-half").select_option("1")
        page.locator(".bk-row[data-rank='0']").click()
        assert page.locator("svg.bk-sig").get_attribute("data-item") == hv["item"][0]
        page.locator("input.bk-revonly").check()
        for eps in (1.0, 3.0, 0.25):
            page.locator(f".bk-curve .bk-point[data-threshold='{eps:g}']").click(force=True)
            ref = near_tie_view(res, epsilon=eps / 100).query("reversed")
            assert _pairs(page.locator("tr.bk-pair")) == ref[["model_a", "model_b"]].values.tolist()
        assert requests == []
        assert errors == []
