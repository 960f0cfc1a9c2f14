"""The committed notebooks read as reports without a kernel (issue 13, item 1).

For every notebook in notebooks/: each code cell was executed (has an execution count), each cell
whose output nbval checks (``# NBVAL_CHECK_OUTPUT``) has that output stored, nothing in the file
points at a CDN, and each Altair chart stored as an interactive widget has its static SVG beside it
in the same cell (``benchkit.charts.show``), so a code host or nbviewer shows it.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
CDNS = ("cdn.jsdelivr", "unpkg.com", "cdnjs.cloudflare", "esm.sh")


def _code_cells(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 5


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_an_executed_report(path):
    text = path.read_text(encoding="utf-8")
    assert [c for c in CDNS if c in text] == []
    for i, cell in enumerate(_code_cells(path)):
        src = "".join(cell["source"])
        assert cell.get("execution_count") is not None, f"{path.name}: code cell {i} was not executed"
        if "NBVAL_CHECK_OUTPUT" in src:
            assert cell.get("outputs"), f"{path.name}: checked cell {i} has no stored output"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_interactive_chart_has_a_static_svg(path):
    for i, cell in enumerate(_code_cells(path)):
        kinds = []
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            plain = "".join(data.get("text/plain", []))
            if "JupyterChart" in plain:
                kinds.append("chart")
            elif "image/svg+xml" in data:
                kinds.append("svg")
        assert kinds.count("svg") >= kinds.count("chart"), \
            f"{path.name}: cell {i} stores {kinds.count('chart')} interactive charts but " \
            f"{kinds.count('svg')} static images"


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _is_explorer(data: dict) -> bool:
    """A benchkit explorer's display output: the live widget view whose text names a benchkit
    explorer (``benchkit TrajectoryExplorer (...)``; before the static images: ``<benchkit.widgets.x.Y
    object at ...>``)."""
    plain = "".join(data.get("text/plain", []))
    return WIDGET_VIEW in data and (plain.startswith("benchkit ") or "benchkit.widgets." in plain)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_explorer_output_stores_a_static_image(path):
    # BenchkitWidget._repr_mimebundle_ puts an SVG of the view beside the live widget view in the
    # same output, so the saved notebook shows each explorer without a kernel (issue 13 item 1)
    for i, cell in enumerate(_code_cells(path)):
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if _is_explorer(data):
                kinds = sorted(data)
                assert "image/svg+xml" in data or "image/png" in data, \
                    f"{path.name}: cell {i} shows an explorer without a static image (mimetypes {kinds})"
