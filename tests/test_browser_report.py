"""The report in headless chromium from file://, every request aborted (issue 24, judged).

One report holds all six explorers (the audit, trajectories, DIF, ECDF gaps, landscape,
Benchmark²), the answer-key figure and the leaderboard neighbours. Checked: zero requests, zero
console errors, every explorer ready and answering a click (its view changes), figures whose text
stays inside them, the --static report without any
script element, the print layout (explorers hidden, a PDF comes out), and a report whose model and
item names hold ``</script>``, ``<img onerror=...>`` and terminal escapes runs no injected code and
shows the names as text.
"""
from __future__ import annotations

import contextlib
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from jupyter_harness import click_at
from jupyter_harness import drag

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # chromium and six explorers: ~50 s

EXPLORERS = 6


def _run(result, call: str):
    return SimpleNamespace(result=result, call=call, headline={"see": "the main table"})


def _quietly(fn, *args, **kwargs):
    # 20 replicates: Benchmark² warns that its intervals cannot be trusted (tested in
    # test_quality_intervals.py); this module tests the report in a browser, not the intervals
    import warnings

    from benchkit._validation import UntrustedIntervalWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UntrustedIntervalWarning)
        return fn(*args, **kwargs)


@pytest.fixture(scope="module")
def report_files(tmp_path_factory):
    """A live and a static report with every explorer (results of the data samples each method needs)."""
    import benchkit
    from benchkit import boundary
    from benchkit import dif
    from benchkit import labels
    from benchkit import landscape
    from benchkit import measure
    from benchkit import quality
    from benchkit.report import build_report
    from benchkit.simulate import load_sample

    mcq, suite = load_sample("mcq"), load_sample("suite")
    runs = {
        "labels": _run(labels.key_issues(mcq), "benchkit.labels.key_issues(mcq)"),
        "boundary": _run(boundary.profile(load_sample("ladder"), axis="size"), "profile(ladder)"),
        "dif": _run(dif.audit_rankings(load_sample("dif"), n_controls=20, n_bootstrap=20,
                                       n_owner_bootstrap=20, n_permutations=20, sensitivity_fractions=(),
                                       progress=False, rng=0),
                    "audit_rankings(dif)"),
        "landscape": _run(landscape.map_points(mcq), "map_points(mcq)"),
        "quality": _run(_quietly(quality.assess, suite, family_by="family", n_resamples=20, progress=False,
                                 rng=0), "assess(suite)"),
        "measure": _run(measure.measure_benchmarks(suite, by="benchmark"), "measure_benchmarks(suite)"),
    }
    comparisons = benchkit.compare_all(suite, n_resamples=20, rng=0)
    audit = benchkit.audit(mcq, methods=["labels", "landscape", "measure"], n_resamples=20, rng=0,
                           progress=False)
    tmp = tmp_path_factory.mktemp("browser_report")
    out = {}
    for name, static in (("live", False), ("static", True)):
        path = tmp / f"{name}.html"
        path.write_text(build_report(mcq, runs, comparisons=comparisons, audit=audit, static=static, rng=0,
                                     command="benchkit report ...", python="..."), encoding="utf-8")
        out[name] = path
    return out


@contextlib.contextmanager
def offline(browser, path: Path):
    """``path`` opened from file:// with every other request aborted; yields (page, requests, errors)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    requests, errors = [], []
    url = path.as_uri()

    def route(r):
        if r.request.url == url or r.request.url.startswith(("blob:", "data:")):
            r.continue_()
        else:
            requests.append(r.request.url)
            r.abort()

    try:
        context.route("**/*", route)
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("dialog", lambda d: (errors.append(f"dialog: {d.message}"), d.dismiss()))
        page.on("request", lambda r: None if r.url == url or r.url.startswith(("blob:", "data:"))
                else requests.append(r.url))
        page.goto(url)
        yield page, requests, errors
    finally:
        context.close()


def _all_ready(page, n: int, timeout: float = 90_000) -> None:
    """Wait until ``n`` explorers are rendered (the CSP forbids eval: no wait_for_function)."""
    page.wait_for_selector("[data-bk-explorer]", state="attached", timeout=timeout)
    page.wait_for_selector("[data-bk-explorer]:not([data-ready='true'])", state="detached", timeout=timeout)
    assert page.locator("[data-bk-explorer][data-ready='true']").count() == n


def _changes(page, root: str, action) -> None:
    """``action()`` changes what the explorer at ``root`` shows (polled: the CSP forbids eval)."""
    before = page.locator(root).inner_html()
    action()
    deadline = time.monotonic() + 15
    while page.locator(root).inner_html() == before:
        assert time.monotonic() < deadline, f"{root} did not answer"
        page.wait_for_timeout(100)


def _clipped_texts(page) -> list[str]:
    """Texts of the figures drawn outside their figure's box (cut, or over the page's edge)."""
    out = []
    for fig in page.locator("figure").all():
        box = fig.bounding_box()
        for t in fig.locator("svg text").all():
            b = t.bounding_box()
            if b and (b["x"] < box["x"] - 0.5 or b["x"] + b["width"] > box["x"] + box["width"] + 0.5):
                out.append(t.text_content())
    return out


def _explorer(page, css: str) -> str:
    """The id selector of the explorer root holding ``css``."""
    return "#" + page.locator(f"[data-bk-explorer]:has({css})").first.get_attribute("id")


def test_report_opens_offline_with_every_explorer_ready_and_answering_a_click(lab_browser, report_files):
    with offline(lab_browser, report_files["live"]) as (page, requests, errors):
        _all_ready(page, EXPLORERS)
        assert page.locator("[data-bk-explorer]").count() == EXPLORERS
        # trajectories: clicking another item redraws its trajectory
        root = _explorer(page, ".bk-traj")
        _changes(page, root, lambda: page.locator(f"{root} .bk-item").nth(3).click())
        # DIF: clicking a heatmap row shows that item's signature
        root = _explorer(page, ".bk-dif")
        _changes(page, root, lambda: page.locator(f"{root} .bk-row[data-rank='3']").click())
        # ECDF gaps: clicking the widest gap lists its neighbouring items
        root = _explorer(page, ".bk-ecdf")
        _changes(page, root, lambda: page.locator(f"{root} .bk-gap[data-rank='1']").first.click(force=True))
        # landscape: brushing a rectangle lists the points inside
        root = _explorer(page, ".bk-land")
        _changes(page, root, lambda: drag(page, page.locator(f"{root} .bk-overlay"), 0.2, 0.05, 0.95, 0.9))
        assert page.locator(f"{root} .bk-selected .bk-sel").count() > 0
        # audit: clicking an item lists every method's verdict on it
        root = _explorer(page, ".bk-audit")
        _changes(page, root, lambda: page.locator(f"{root} tr.bk-item").nth(1).click())
        assert page.locator(f"{root} .bk-detail tr.bk-verdict").count() == 3
        # Benchmark² dashboard: clicking a benchmark's row selects it
        root = _explorer(page, ".bk-quality")
        rows = page.locator(f"{root} .bk-row")
        _changes(page, root, lambda: click_at(page, rows.nth(rows.count() - 1)))
        # the figures are inline SVG, one per method and the leaderboard, none cutting its text
        assert page.locator("figure > svg[role='img']").count() >= 7
        assert _clipped_texts(page) == []
        assert requests == []
        assert errors == []


def test_report_prints_without_the_explorers(lab_browser, report_files):
    with offline(lab_browser, report_files["live"]) as (page, requests, errors):
        _all_ready(page, EXPLORERS)
        page.emulate_media(media="print")
        assert not page.locator(".explorer").first.is_visible()
        assert page.locator("figure > svg").first.is_visible()
        pdf = page.pdf(format="A4")
        assert pdf.startswith(b"%PDF")
        assert pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages") > 3
        assert requests == []
        assert errors == []


def test_static_report_runs_no_script(lab_browser, report_files):
    assert "<script" not in report_files["static"].read_text(encoding="utf-8").lower()
    with offline(lab_browser, report_files["static"]) as (page, requests, errors):
        page.wait_for_selector("#reproduce")
        assert page.evaluate("document.scripts.length") == 0
        assert page.locator("[data-bk-explorer]").count() == 0
        assert page.locator("figure > svg[role='img']").count() >= 7
        assert requests == []
        assert errors == []


def test_names_with_markup_and_escapes_run_nothing_and_show_as_text(lab_browser, tmp_path):
    import test_report

    code, page_text, _ = test_report._report(tmp_path)
    assert code == 0
    path = tmp_path / "r.html"
    with offline(lab_browser, path) as (page, requests, errors):
        _all_ready(page, 3)  # landscape, ECDF gaps, audit
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert page.locator("img[src='x']").count() == 0
        assert page.locator("svg[onload]").count() == 0
        body = page.locator("main").inner_text()
        for name in test_report.EVIL_MODELS[:2]:
            assert name in body
        assert "\\x1b[2J" in body
        assert test_report.EVIL_ITEM in body
        assert requests == []
        assert errors == []


def test_notebook_report_opens_offline_with_every_image(lab_browser, tmp_path):
    import io

    from benchkit.cli import main

    nb = Path(__file__).resolve().parents[1] / "notebooks" / "02_family_dif.ipynb"
    path = tmp_path / "nb.html"
    assert main(["report", "--notebook", str(nb), "--out", str(path)], out=io.StringIO()) == 0
    with offline(lab_browser, path) as (page, requests, errors):
        page.wait_for_selector("img")
        assert page.evaluate("document.scripts.length") == 0
        images = page.locator("img")
        assert images.count() >= 5
        for i in range(images.count()):  # every image decoded (drawn), none broken
            assert images.nth(i).evaluate("img => img.complete && img.naturalWidth > 0")
        assert "object at 0x" not in page.locator("body").inner_text()
        assert requests == []
        assert errors == []
