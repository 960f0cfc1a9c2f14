"""The quickstart notebook runs in a real JupyterLab and draws its charts (headless chromium)."""
from __future__ import annotations

import hashlib

import nbformat
import pytest

from jupyter_harness import REPO_ROOT
from jupyter_harness import browser_errors
from jupyter_harness import chart_views
from jupyter_harness import error_outputs
from jupyter_harness import output_elements
from jupyter_harness import run_all_cells
from jupyter_harness import widget_views

NOTEBOOK = REPO_ROOT / "notebooks" / "00_quickstart.ipynb"
CHECKPOINTS = NOTEBOOK.parent / ".ipynb_checkpoints"


def _folder_digest(folder):
    """``{relative path: sha256}`` of every file under ``folder``; None when it does not exist."""
    if not folder.exists():
        return None
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.browser
def test_quickstart_runs_and_renders_charts(open_notebook):
    before = hashlib.sha256(NOTEBOOK.read_bytes()).hexdigest()
    # `./dev lab` may have left checkpoints in notebooks/: they must be left as they were.
    checkpoints_before = _folder_digest(CHECKPOINTS)
    saved = nbformat.read(NOTEBOOK, as_version=4)
    n_charts = sum("charts.accuracy_chart(" in c.source or "charts.difficulty_histogram(" in c.source
                   for c in saved.cells if c.cell_type == "code")
    assert n_charts >= 2, "the quickstart should show an accuracy chart and a difficulty histogram"

    with open_notebook(NOTEBOOK.relative_to(REPO_ROOT)) as page:
        completed = run_all_cells(page)
        errors = error_outputs(page)
        assert errors == [], f"error outputs: {errors}"
        assert completed, "Run All stopped before the last cell"
        # Every chart cell must have drawn a Vega view: an SVG/canvas inside .vega-embed (the
        # JupyterChart widget's view element), not the text/plain fallback of an unrendered chart.
        views = chart_views(page)
        views.nth(n_charts - 1).wait_for(state="visible", timeout=120_000)
        assert views.count() == n_charts
        assert widget_views(page).count() >= n_charts
        # ... and the views hold drawn bars (Vega's SVG renderer: one path per bar in g.mark-rect).
        assert output_elements(page, ".vega-embed svg.marks g.mark-rect path").count() >= 2 * n_charts
        # No fallback text of an unrendered Altair chart, and no JavaScript errors from the views.
        assert output_elements(page).filter(has_text="renderer has not been properly enabled").count() == 0
        assert output_elements(page).filter(has_text="Error loading script").count() == 0
        # each chart is shown once, live: no stored PNG copy is drawn beside it (issue 24)
        assert output_elements(page, "img").count() == 0
        js_errors = [e for e in browser_errors(page) if "pageerror" in e or "vega" in e.lower()]
        assert js_errors == []
    # Running in the browser must not rewrite the committed notebook.
    assert hashlib.sha256(NOTEBOOK.read_bytes()).hexdigest() == before
    assert _folder_digest(CHECKPOINTS) == checkpoints_before


@pytest.mark.slow  # starts and stops a JupyterLab server
def test_server_and_kernels_are_stopped_even_on_failure(tmp_path):
    # The harness must not leave JupyterLab or its kernels running when the test body raises.
    from jupyter_harness import _processes_mentioning
    from jupyter_harness import jupyterlab_server

    class Boom(Exception):
        pass

    seen = {}

    def start_kernel_then_fail():
        with jupyterlab_server(tmp_path) as server:
            seen["server"] = server
            kernel = server.api("POST", "api/kernels", {"name": "python3"}, timeout=60)
            assert kernel["id"] in {k["id"] for k in server.api("GET", "api/kernels")}
            raise Boom

    with pytest.raises(Boom):
        start_kernel_then_fail()
    server = seen["server"]
    assert server.process.poll() is not None
    assert _processes_mentioning(str(server.runtime_dir)) == []
    assert not server.runtime_dir.exists()  # temporary Jupyter dirs removed
