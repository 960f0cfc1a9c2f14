"""benchkit.notebook: storing executed notebooks as reports and exporting them offline (issue 24).

Oracles: hand-built notebooks whose outputs are known, nbformat's own reader, the MathML that
latex2mathml gives for the same TeX, and the HTML escaping rules (text from a notebook never
becomes markup).
"""
from __future__ import annotations

import base64
import re
from html.parser import HTMLParser

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbconvert")

from benchkit.notebook import CSP  # noqa: E402 (after the importorskip)
from benchkit.notebook import WIDGET_VIEW  # noqa: E402
from benchkit.notebook import OfflineHTMLExporter  # noqa: E402
from benchkit.notebook import drop_live_views  # noqa: E402
from benchkit.notebook import execute_notebook  # noqa: E402
from benchkit.notebook import notebook_to_html  # noqa: E402
from jupyter_harness import REPO_ROOT  # noqa: E402

# a 1x1 white PNG
PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415408d763f8ffff3f0005"
    "fe02fea7d6a2b90000000049454e44ae426082")).decode()


class _Tags(HTMLParser):
    """Every start tag of a page as ``(tag, {attribute: value})``, attribute values unescaped."""

    def __init__(self, page):
        super().__init__()
        self.tags = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def find(self, tag):
        return [a for t, a in self.tags if t == tag]


def _notebook(outputs, markdown="# Title"):
    nb = nbformat.v4.new_notebook()
    code = nbformat.v4.new_code_cell("x", execution_count=1)
    code.outputs = outputs
    nb.cells = [nbformat.v4.new_markdown_cell(markdown), code]
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    return nb


def _display(data, metadata=None):
    return nbformat.v4.new_output("display_data", data=data, metadata=metadata or {})


def test_drop_live_views_keeps_the_image_and_caption_of_each_output():
    view = {"model_id": "ab" * 16, "version_major": 2, "version_minor": 1}
    chart = _display({WIDGET_VIEW: view, "image/png": PNG, "text/plain": "Chart: bars."},
                     {"image/png": {"width": 1, "height": 1, "alt": "Chart: bars."}})
    slider = _display({WIDGET_VIEW: view, "text/plain": "IntSlider(value=0)"})
    text = nbformat.v4.new_output("stream", name="stdout", text="hello\n")
    nb = _notebook([chart, slider, text])
    assert drop_live_views(nb) == 2
    outs = nb.cells[1].outputs
    assert dict(outs[0].data) == {"image/png": PNG, "text/plain": "Chart: bars."}
    assert outs[0].metadata["image/png"]["alt"] == "Chart: bars."
    assert dict(outs[1].data) == {"text/plain": "IntSlider(value=0)"}
    assert outs[2].text == "hello\n"
    assert "widgets" not in nb.metadata  # no saved widget state either
    assert drop_live_views(nb) == 0  # idempotent
    nbformat.validate(nb)
    with pytest.raises(TypeError, match="nb must be a notebook"):
        drop_live_views([1, 2])


def test_offline_html_has_no_script_no_network_and_escapes_notebook_text():
    evil = '"><img src=x onerror=alert(1)>'
    image = _display({"image/png": PNG, "text/plain": evil},
                     {"image/png": {"width": 1, "height": 1, "alt": evil}})
    view = _display({WIDGET_VIEW: {"model_id": "cd" * 16, "version_major": 2, "version_minor": 1},
                     "application/javascript": "alert(2)", "text/plain": "widget"})
    md = ("TeX: $\\sigma(\\theta_j - b_i)$ and $$W_1(\\nu_B, \\text{uniform})$$, "
          "an unknown one $\\frac{1}{$ and one that tries markup $\\text{</math><script>alert(3)</script>}$.")
    nb = _notebook([image, view], markdown=md)
    html, _ = OfflineHTMLExporter().from_notebook_node(nb)
    assert "<script" not in html  # no require.js, MathJax, widget manager or JavaScript output
    assert re.findall(r'(?:src|href)="(?:https?:)?//', html) == []
    tags = _Tags(html)
    csp = [m["content"] for m in tags.find("meta") if m.get("http-equiv") == "Content-Security-Policy"]
    assert csp == [CSP]
    assert "default-src 'none'" in CSP
    # the one image, with its CSS size and the alt text as text: the markup in it stays text
    (img,) = tags.find("img")
    assert img == {"src": f"data:image/png;base64,{PNG}", "width": "1", "height": "1", "alt": evil}
    assert [t for t, a in tags.tags if "onerror" in a] == []
    # TeX as MathML (latex2mathml's output for the same TeX); unknown or unsafe TeX as escaped code
    from latex2mathml.converter import convert

    for tex, display in (("\\sigma(\\theta_j - b_i)", "inline"), ("W_1(\\nu_B, \\text{uniform})", "block")):
        want = _Tags(convert(tex, display=display)).tags  # the same elements, as a run of the page's
        assert any(tags.tags[k:k + len(want)] == want for k in range(len(tags.tags))), tex
    assert len(tags.find("math")) == 2
    assert '<code class="bk-tex">\\frac{1}{</code>' in html
    assert "&lt;/math&gt;&lt;script&gt;alert(3)" in html
    assert "widget" in html  # the widget output falls back to its text
    assert drop_live_views(nb) == 1  # the exporter worked on a copy: the caller's notebook is intact


def test_notebook_to_html_writes_the_page_and_checks_its_input(tmp_path):
    nb = _notebook([_display({"image/png": PNG, "text/plain": "Chart."},
                             {"image/png": {"width": 1, "height": 1, "alt": "Chart."}})])
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, path)
    out = tmp_path / "n.html"
    html = notebook_to_html(path, out=out)
    assert out.read_text(encoding="utf-8") == html
    assert 'alt="Chart."' in html
    with pytest.raises(ValueError, match=r"path='.*missing.ipynb' is not an existing .ipynb notebook"):
        notebook_to_html(tmp_path / "missing.ipynb")
    with pytest.raises(ValueError, match="is not an existing .ipynb notebook"):
        execute_notebook(out)


@pytest.mark.slow
def test_execute_notebook_stores_each_chart_as_its_png_and_caption(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in (
        "import altair as alt\nimport pandas as pd\n\nimport benchkit\nfrom benchkit import charts\n\n"
        "charts.enable_offline_rendering()\nprint(benchkit.__file__)",
        "alt.Chart(pd.DataFrame({'x': [1, 2]}), title='two bars').mark_bar().encode(x='x:O', y='x:Q')",
    )]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "run.ipynb"
    nbformat.write(nb, path)
    execute_notebook(path, pythonpath=REPO_ROOT, timeout=300)
    saved = nbformat.read(path, as_version=4)
    first, chart = saved.cells
    assert first.execution_count == 1
    assert first.outputs[0].text.startswith(str(REPO_ROOT / "benchkit"))  # this checkout's benchkit
    (out,) = chart.outputs
    assert sorted(out.data) == ["image/png", "text/plain"]  # the widget view was dropped
    assert out.data["text/plain"] == "two bars: bar chart; x: x; y: x."
    assert out.metadata["image/png"]["alt"] == out.data["text/plain"]
    assert "execution" not in chart.metadata  # no timing metadata: reruns diff only in outputs
    # a failing cell stops the run and leaves the file as it was
    saved.cells.append(nbformat.v4.new_code_cell("1 / 0"))
    nbformat.write(saved, path)
    before = path.read_bytes()
    from nbclient.exceptions import CellExecutionError

    with pytest.raises(CellExecutionError, match="ZeroDivisionError"):
        execute_notebook(path, pythonpath=REPO_ROOT, timeout=300)
    assert path.read_bytes() == before
