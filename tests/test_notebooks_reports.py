"""The committed notebooks read as reports wherever they are opened (issues 13 and 24).

For every notebook in notebooks/ (stored by ``scripts/execute_notebooks.py``): each code cell was
executed (has an execution count) and each cell whose output nbval checks (``# NBVAL_CHECK_OUTPUT``)
has that output stored; nothing in the file points at a CDN; no output keeps a live widget view
(JupyterLab prints "Error displaying widget: model not found" for it once the kernel is gone) or
saved widget state; no output is an SVG (an untrusted JupyterLab shows it as text) or an object
repr (``<... object at 0x...>``); every chart and explorer is one PNG at 2x whose output metadata
gives its CSS size and alt text, whose caption is that alt text, and which a reader can read:
no wider than :data:`MAX_WIDTH` CSS pixels and no text cut by its edges (:func:`clipped_edges`).
tests/test_browser_notebook_reports.py opens the same files in JupyterLab, nbconvert HTML and a
GitHub-like static page.
"""
from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
CDNS = ("cdn.jsdelivr", "unpkg.com", "cdnjs.cloudflare", "esm.sh")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
#: widest stored image (CSS px): JupyterLab's output area in a 1,400 px window (968 px), so no image
#: is shown scaled down there (JupyterLab shrinks wider images to fit: max-width 100%)
MAX_WIDTH = 960
#: device pixels along each edge that must be pure background (see clipped_edges)
EDGE = 8
OBJECT_REPR = re.compile(r"<[\w.]+ object at 0x[0-9a-f]+>|<IPython\.core\.display\.\w+ object>")


def _code_cells(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def _outputs(path):
    for i, cell in enumerate(_code_cells(path)):
        for out in cell.get("outputs", []):
            yield i, out


def images(path):
    """``(cell, png bytes, output metadata, text/plain)`` of every PNG output of ``path``."""
    for i, out in _outputs(path):
        data = out.get("data", {})
        if "image/png" in data:
            png = base64.b64decode("".join(data["image/png"]))
            yield i, png, out.get("metadata", {}).get("image/png", {}), "".join(data.get("text/plain", ""))


def clipped_edges(png: bytes, edge: int = EDGE) -> list[str]:
    """The edges (``top``, ``bottom``, ``left``, ``right``) of ``png`` that something is drawn on.

    The clipping check for stored images. Text (or any mark) that runs past an image's bounds is
    cut by them, so glyph pixels reach the outermost pixel rows or columns. benchkit draws every
    stored image with 12 CSS px (24 device px at 2x) of white padding around the chart's own
    bounds (``benchkit.charts._display.PADDING``), so in an image whose every text element lies
    inside, the outermost ``edge`` device pixels on every side are pure background. vl-convert draws
    the PNG's text with the same fonts it measured it with, so a text element cannot be wider in
    the image than in the layout (the failure of the earlier SVGs, whose text the browser drew
    with other fonts); what remains to catch is layout that leaves text outside the chart's
    bounds (e.g. a rotated axis title longer than its axis), and this check sees exactly that.
    """
    from PIL import Image

    im = np.asarray(Image.open(io.BytesIO(png)).convert("L"))
    strips = {"top": im[:edge], "bottom": im[-edge:], "left": im[:, :edge], "right": im[:, -edge:]}
    return [side for side, px in strips.items() if (px < 250).any()]


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 5


def test_the_edge_check_sees_text_cut_by_an_edge():
    # oracle: an image with a glyph-like dark block touching its right edge, and one without
    from PIL import Image

    def png(draw_at):
        im = Image.new("RGB", (200, 100), "white")
        im.paste((0, 0, 0), draw_at)
        out = io.BytesIO()
        im.save(out, "PNG")
        return out.getvalue()

    assert clipped_edges(png((40, 40, 60, 60))) == []
    assert clipped_edges(png((190, 40, 200, 60))) == ["right"]
    assert clipped_edges(png((0, 0, 10, 10))) == ["top", "left"]


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
def test_no_live_view_svg_or_object_repr_is_stored(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert "widgets" not in nb["metadata"], f"{path.name} stores widget state"
    for i, out in _outputs(path):
        data = out.get("data", {})
        where = f"{path.name}: code cell {i}"
        assert WIDGET_VIEW not in data, f"{where} keeps a live widget view (use scripts/execute_notebooks.py)"
        assert "image/svg+xml" not in data, f"{where} stores an SVG (text in an untrusted JupyterLab)"
        text = "".join(data.get("text/plain", "")) + "".join(out.get("text", ""))
        assert OBJECT_REPR.search(text) is None, f"{where} shows an object repr: {text[:120]!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_image_is_readable(path):
    from benchkit.charts._display import SCALE
    from benchkit.charts._display import png_size

    found = list(images(path))
    assert found, f"{path.name} stores no image"
    for i, png, meta, caption in found:
        where = f"{path.name}: code cell {i}"
        w, h = png_size(png)
        assert (meta.get("width"), meta.get("height")) == (round(w / SCALE), round(h / SCALE)), where
        assert meta["width"] <= MAX_WIDTH, f"{where}: image {meta['width']} px wide (at most {MAX_WIDTH})"
        assert len(meta.get("alt", "")) > 20, f"{where}: no alt text"
        assert caption.startswith(meta["alt"]), f"{where}: caption {caption[:80]!r} is not the alt text"
        assert clipped_edges(png) == [], f"{where}: something is cut by the image's edges"
