"""The audit explorer in a real JupyterLab and as an exported page (headless chromium).

In JupyterLab: filtering by method and by agreement count lists exactly the items of
benchkit.auditing.explore.items_view (in its order), the kernel learns the filters; clicking an
item shows its text as text (markup in it is not rendered), its key and which models chose each
option, as item_view computes them. The page from ``to_html()`` opens from file:// with the
network blocked, with no request and no console error, filters and shows embedded items without
a kernel.
"""
from __future__ import annotations

import pytest

from jupyter_harness import REPO_ROOT
from jupyter_harness import notebook_run
from jupyter_harness import offline_page
from jupyter_harness import output_elements
from jupyter_harness import printed_json
from jupyter_harness import rerun_cell
from jupyter_harness import wait_for_idle

NOTEBOOK = REPO_ROOT / "tests" / "notebooks" / "audit_explorer.ipynb"


def _rows(loc) -> list[str]:
    return loc.evaluate_all("els => els.map(e => e.dataset.item)")


@pytest.mark.browser
def test_explorer_in_jupyterlab_filters_and_item_detail(open_notebook):
    with notebook_run(open_notebook(NOTEBOOK.relative_to(REPO_ROOT)), unchanged=NOTEBOOK) as page:
        expected = printed_json(page, 2)
        output_elements(page, ".bk-audit").first.wait_for(state="visible", timeout=60_000)
        assert _rows(output_elements(page, ".bk-audit tr.bk-item")) == expected["all"][:200]

        output_elements(page, ".bk-audit select.bk-method").first.select_option("quality")
        output_elements(page, ".bk-audit select.bk-minflags").first.select_option("2")
        assert _rows(output_elements(page, ".bk-audit tr.bk-item")) == expected["quality2"]

        output_elements(page, ".bk-audit select.bk-method").first.select_option("")
        output_elements(page, ".bk-audit select.bk-minflags").first.select_option("0")
        output_elements(page, f".bk-audit tr.bk-item[data-item='{expected['first']}']").first.click()
        detail = output_elements(page, f".bk-audit .bk-detail[data-item='{expected['first']}']").first
        detail.wait_for(state="visible", timeout=30_000)
        wait_for_idle(page)
        text = output_elements(page, ".bk-audit .bk-detail .bk-text").first
        assert text.inner_text() == "<b>bold?</b> x < 3"
        assert output_elements(page, ".bk-audit .bk-detail .bk-text b").count() == 0
        opts = output_elements(page, ".bk-audit .bk-detail tr.bk-option")
        got = dict(opts.evaluate_all("els => els.map(e => [e.dataset.option, Number(e.dataset.n)])"))
        assert got == expected["options"]
        key_row = output_elements(page, ".bk-audit .bk-detail tr.bk-key").first
        assert key_row.get_attribute("data-option") == expected["key"]
        kernel = rerun_cell(page, 3, "KERNEL")
        assert kernel == {"selected": expected["first"], "method": "", "min_flags": 0,
                          "shown": len(expected["all"])}


@pytest.mark.browser
def test_to_html_page_works_offline_from_file_url(lab_browser, tmp_path):
    import benchkit
    from benchkit.auditing.explore import items_view
    from benchkit.widgets import AuditExplorer

    sim = benchkit.simulate.audit_suite(n_items=20, n_models=40, ladder=(1.0, 4.0, 16.0), T=2, rng=2)
    rs = sim.responses
    res = benchkit.audit(rs, methods=["labels", "landscape", "quality"], n_resamples=0, rng=0, progress=False)
    w = AuditExplorer(res, rs, static_details=10)
    path = tmp_path / "audit.html"
    w.to_html(path)
    with offline_page(lab_browser, path) as off:
        page, requests, errors = off.page, off.requests, off.errors
        page.locator("select.bk-method").select_option("labels")
        ref = [str(i) for i in items_view(res, method="labels").index]
        assert _rows(page.locator("tr.bk-item")) == ref
        page.locator("select.bk-method").select_option("")
        top = [str(i) for i in items_view(res).index]
        page.locator(f"tr.bk-item[data-item='{top[0]}']").click()
        assert page.locator(".bk-detail").get_attribute("data-item") == top[0]
        ran = int(res.applicability["ran"].sum())
        assert page.locator(".bk-detail tr.bk-verdict").count() == ran
        page.locator(f"tr.bk-item[data-item='{top[-1]}']").click()  # not embedded: says it needs a kernel
        assert "with a kernel" in page.locator(".bk-detail").inner_text()
        assert requests == []
        assert errors == []
