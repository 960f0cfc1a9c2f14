"""Explorers at leaderboard scale in a real JupyterLab and as exported pages (issue 15).

- a view change on the 479,760-point landscape (llm-uncertainty-bench MMLU x 3 templates): Python's
  new state reaches the browser within 0.5 s of the pick (in-page timing by ``busyGuard``:
  ``data-sync-ms``), and the browser's own drawing (``data-draw-ms``, ``data-paint-ms``) is
  measured separately and printed with Python's part;
- the busy state: while a deliberately slow exact MPD runs (test hook ``_exact_delay``), the explorer
  is marked stale and its controls are disabled; afterwards it shows the exact value;
- the exported 799,600-point page opens offline from file:// and its brush lists rows from more than
  one model (stratified list).

The inputs are built as ``benchmarks/bench_explorers.py`` builds them (notebook 04's recipe).
"""
from __future__ import annotations

import sys
import time

import numpy as np
import pytest

from jupyter_harness import REPO_ROOT
from jupyter_harness import drag
from jupyter_harness import offline_page
from jupyter_harness import output_elements
from jupyter_harness import rerun_cell
from jupyter_harness import wait_for_idle

SETUP = f"""\
import sys, time, json
sys.path.insert(0, {str(REPO_ROOT)!r})
from benchmarks.bench_explorers import landscape_input
from benchkit.datasets import fetch
from benchkit.widgets import LandscapeExplorer
import benchkit.landscape.explore as lx
lx.PAIR_CACHE_LIMIT = 0  # no cached cell-pair sums: small's views keep the exact-on-request button
big = LandscapeExplorer(landscape_input("480k"))
small = LandscapeExplorer(fetch("conformal-llm", subjects=["anatomy"]), exact_limit=10)
small._exact_delay = 4.0
py_seconds = []  # Python's part of each view change (the explorer's _load)
_load = big._load
def _timed_load():
    t = time.perf_counter()
    _load()
    py_seconds.append(time.perf_counter() - t)
big._load = _timed_load
big"""
SMALL = "small"
REPORT = """print("EXPECTED " + json.dumps({"model": big.model, "revision": big.revision, "py": py_seconds,
                                "mpd": big.stats["mpd"], "method": big.stats["mpd_method"],
                                "small": small.stats["mpd_method"]}))"""


@pytest.mark.browser
def test_480k_view_change_and_busy_state_in_jupyterlab(temp_notebook):
    with temp_notebook("scale.ipynb", [SETUP, SMALL, REPORT]) as page:
        roots = output_elements(page, ".bk-land")
        roots.first.wait_for(state="visible", timeout=120_000)
        wait_for_idle(page)
        big = roots.nth(0)
        assert big.locator(".bk-density rect.bk-bin").count() > 100  # 479,760 points: a density view
        # view changes: pick three models in turn (each an uncached view); the drawn state
        # (data-revision) changes when Python's arrives. The budget is judged on the median of the
        # three, so one scheduling hiccup of a shared machine does not decide it; all are reported.
        picker = big.locator("select.bk-picker[data-name='model']")
        timings = []
        for option in (3, 4, 5):
            target = picker.locator("option").nth(option).get_attribute("value")
            rev0 = int(big.get_attribute("data-revision"))
            t0 = time.perf_counter()
            picker.select_option(target)
            page.wait_for_function(
                "([el, rev]) => Number(el.dataset.revision) > rev && !el.classList.contains('bk-stale')"
                " && el.dataset.paintMs !== undefined",
                arg=[big.element_handle(), rev0], timeout=30_000, polling="raf")
            elapsed = time.perf_counter() - t0
            assert f"Showing {target}" in big.locator(".bk-note").inner_text()
            # in-page timings from the user's action (busyGuard): Python's new state in the
            # browser, the explorer's DOM rebuilt, the next frame painted
            ms = big.evaluate(
                "el => ({sync: +el.dataset.syncMs, draw: +el.dataset.drawMs, paint: +el.dataset.paintMs})")
            print(f"\n[timing] 480k landscape view change to {target} in JupyterLab: state synced from "
                  f"Python {ms['sync']:.0f} ms, DOM drawn {ms['draw']:.0f} ms, painted {ms['paint']:.0f} ms "
                  f"after the pick; Playwright round trip {elapsed * 1e3:.0f} ms")
            assert 0 < ms["sync"] <= ms["draw"] <= ms["paint"]
            timings.append(ms)
        sync = float(np.median([ms["sync"] for ms in timings]))
        assert sync < 500, f"the new state took {sync:.0f} ms (median of 3) to reach the browser (budget 500)"
        drawing = float(np.median([ms["paint"] - ms["sync"] for ms in timings]))
        assert drawing < 1000, f"drawing took {drawing:.0f} ms (median of 3)"

        # busy state: the exact MPD of the small explorer sleeps 4 s (test hook)
        small = roots.nth(1)
        small.locator("button.bk-exact").click()
        page.wait_for_function("el => el.classList.contains('bk-stale') && el.dataset.busy",
                               arg=small.element_handle(), timeout=3_000)
        assert small.locator("select.bk-picker[data-name='variant']").is_disabled()
        assert "exact MPD" in small.get_attribute("data-busy")
        page.wait_for_timeout(2_000)  # still marked while Python works (4 s), not just on the click
        assert "bk-stale" in small.get_attribute("class")
        page.wait_for_function("el => !el.classList.contains('bk-stale')", arg=small.element_handle(),
                               timeout=30_000)
        mpd = small.locator(".bk-metric[data-metric='mpd'] .bk-value")
        assert mpd.get_attribute("data-method") == "exact"
        assert not small.locator("select.bk-picker[data-name='variant']").is_disabled()
        wait_for_idle(page)

        expected = rerun_cell(page, 2, until="text.includes('EXPECTED')")
        assert expected["model"] == target
        print(f"[timing] Python's part of those view changes (LandscapeExplorer._load): "
              f"{', '.join(f'{t * 1e3:.0f}' for t in expected['py'][-3:])} ms")
        assert float(np.median(expected["py"][-3:])) < 0.5
        assert expected["small"] == "exact"
        assert expected["method"] == "exact"  # one model, one template: 9,995 points <= EXACT_LIMIT


@pytest.fixture(scope="module")
def page_800k(tmp_path_factory):
    """The exported 799,600-point page (built once per session; about 20 s)."""
    sys.path.insert(0, str(REPO_ROOT))
    from benchkit.widgets import LandscapeExplorer
    from benchmarks.bench_explorers import landscape_input

    w = LandscapeExplorer(landscape_input("800k"))
    path = tmp_path_factory.mktemp("export") / "landscape_800k.html"
    t0 = time.perf_counter()
    w.to_html(path)
    print(f"\n[timing] 800k export {time.perf_counter() - t0:.2f} s, {path.stat().st_size / 1e6:.2f} MB")
    return w, path


@pytest.mark.browser
def test_exported_800k_page_opens_offline_and_brush_lists_several_models(lab_browser, page_800k):
    _, path = page_800k
    assert path.stat().st_size < 15e6
    t0 = time.perf_counter()
    with offline_page(lab_browser, path, timeout=60_000) as off:
        page = off.page
        print(f"\n[timing] 800k page open (inflate + first draw): {time.perf_counter() - t0:.2f} s")
        assert page.locator(".bk-density rect.bk-bin").count() > 100
        legend = page.locator(".bk-legend").text_content()
        assert "points per bin" in legend
        assert "sampled-pairs estimate" in page.locator(".bk-note").inner_text()
        drag(page, page.locator(".bk-overlay"), 0.45, 0.15, 0.75, 0.5)
        page.wait_for_selector(".bk-selected .bk-sel")
        models = page.locator(".bk-selected .bk-sel").evaluate_all("els => els.map(e => e.dataset.model)")
        assert len(set(models)) > 1, models
        # sort by H_norm descending from the header, still listed (paged) without a kernel
        page.locator("th[data-sort='h_norm']").click()
        page.locator("th[data-sort='h_norm']").click()
        vals = page.locator(".bk-selected td[data-col='h_norm']").evaluate_all(
            "els => els.map(e => Number(e.textContent))")
        assert vals == sorted(vals, reverse=True)
        assert len(vals) > 1
        page.locator("button.bk-next").click()
        assert "rows 26–50" in page.locator(".bk-pageinfo").inner_text()
        assert off.requests == []
        assert off.errors == []
