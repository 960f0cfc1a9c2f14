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
