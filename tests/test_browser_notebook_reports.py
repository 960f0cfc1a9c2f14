"""The committed notebooks read as reports wherever they are opened (issue 24, items 3-4).

One JupyterLab server and one headless chromium for the whole module. Each committed notebook is
opened in JupyterLab WITHOUT a kernel (``docmanager:open`` with a kernel preference that never
starts one) and untrusted, as a fresh checkout opens; then trusted (``notebook:trust``) and still
without a kernel, as a notebook the user has trusted and reopens. Both times every stored image
must be drawn (a loaded ``<img>`` at its CSS size), with no ``object at 0x`` text and no widget
error. A control copy of the quickstart whose first image output also keeps a widget view shows
why the stored notebooks must not keep one: trusted and without a kernel, JupyterLab prints
"Error displaying widget: model not found" instead of the image (the test sees that failure).
The same files are exported with benchkit's offline nbconvert exporter and opened from
``file://`` with every request aborted (zero requests, zero console errors, every image drawn
with its alt text, TeX as MathML), and as a GitHub-like static page (nbconvert's stock HTML with
every script removed, as a code host's viewer shows it). Finally a live run: a notebook showing a
chart with ``charts.show``, a chart as a cell's value and an explorer, where each appears exactly
once, as its live view and not as an image.
"""
from __future__ import annotations

import base64
import re
import shutil

import nbformat
import pytest

from jupyter_harness import REPO_ROOT
from jupyter_harness import browser_errors
from jupyter_harness import jupyterlab_page
from jupyter_harness import jupyterlab_server
from jupyter_harness import notebook_run
from jupyter_harness import offline_page
from jupyter_harness import write_notebook

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOKS = sorted((REPO_ROOT / "notebooks").glob("*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# every cell attached to the DOM (JupyterLab's default windowing renders only the cells in view)
SETTINGS = {"@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"}}


def _stored_images(path) -> list[dict]:
    """The image/png outputs of ``path``: their metadata (CSS width, height, alt) and ``pixels``,
    the PNG's own width."""
    from benchkit.charts._display import png_size

    nb = nbformat.read(path, as_version=4)
    return [{**out.metadata["image/png"], "pixels": png_size(base64.b64decode(out.data["image/png"]))[0]}
            for cell in nb.cells if cell.cell_type == "code"
            for out in cell.get("outputs", []) if "image/png" in out.get("data", {})]


def _trusted_copy(path, dest, data_dir) -> None:
    """Write ``path`` to ``dest`` signed in the server's trust database (``data_dir``), as after
    the user trusted it: JupyterLab then opens it trusted. A metadata mark makes its content
    differ from the untrusted copy (the database holds content digests)."""
    from nbformat.sign import NotebookNotary

    nb = nbformat.read(path, as_version=4)
    nb.metadata["benchkit_test_copy"] = "trusted"
    NotebookNotary(data_dir=str(data_dir)).sign(nb)
    nbformat.write(nb, dest)


@pytest.fixture(scope="module")
def browser(lab_browser):
    """The session's one headless chromium (conftest's ``lab_browser``: Playwright's sync API allows
    one running instance per thread, so a second launch would fail after other browser tests)."""
    return lab_browser


@pytest.fixture(scope="module")
def lab(browser, tmp_path_factory):
    """``(server, page, root)``: JupyterLab rooted at ``root`` holding each notebook twice,
    ``untrusted/`` (the committed bytes) and ``trusted/`` (signed), plus a control notebook; and a
    page with JupyterLab loaded and no notebook open."""
    root = tmp_path_factory.mktemp("reports")
    (root / "untrusted").mkdir()
    (root / "trusted").mkdir()
    for path in NOTEBOOKS:
        shutil.copy(path, root / "untrusted" / path.name)
    control = nbformat.read(NOTEBOOKS[0], as_version=4)
    first = next(out for cell in control.cells if cell.cell_type == "code"
                 for out in cell.get("outputs", []) if "image/png" in out.get("data", {}))
    first["data"][WIDGET_VIEW] = {"model_id": "0" * 32, "version_major": 2, "version_minor": 1}
    nbformat.write(control, root / "untrusted" / "control_live_view.ipynb")
    with jupyterlab_server(root, settings=SETTINGS) as server:
        data_dir = server.runtime_dir.parent / "data"  # the server's JUPYTER_DATA_DIR
        for path in [*NOTEBOOKS, root / "untrusted" / "control_live_view.ipynb"]:
            _trusted_copy(path, root / "trusted" / path.name, data_dir)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{server.url}lab?reset&token={server.token}")
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell && "
                               "window.jupyterapp.commands.hasCommand('docmanager:open')", polling=250)
        yield server, page, root
        context.close()


_OPEN = """async (path) => {
  const app = window.jupyterapp;
  const w = await app.commands.execute('docmanager:open', {path, factory: 'Notebook',
      kernelPreference: {shouldStart: false, canStart: false, autoStartDefault: false}});
  window.__bkNotebook = w;
  app.shell.activateById(w.id);
  await w.context.ready;
  await w.sessionContext.ready;
  return w.context.path;
}"""

# What the open notebook shows: its loaded images (CSS size, alt), widget errors, object reprs
_SHOWN = """() => {
  const w = window.__bkNotebook;
  const imgs = [...w.content.node.querySelectorAll('.jp-OutputArea-output img')];
  const text = [...w.content.node.querySelectorAll('.jp-OutputArea-output')]
    .map((e) => e.innerText).join('\\n');
  const kernel = w.sessionContext.session ? w.sessionContext.session.kernel : null;
  return {path: w.context.path, kernel: kernel ? kernel.name : null,
          trusted: w.content.widgets.filter((c) => c.model.type === 'code' && c.model.outputs.length)
                    .map((c) => c.model.trusted),
          images: imgs.map((i) => ({loaded: i.complete && i.naturalWidth > 0, width: i.width,
                                    natural: i.naturalWidth})),
          errors: (text.match(/Error displaying widget[^\\n]*/g) || []),
          loading: (text.match(/Loading widget/g) || []).length,
          reprs: (text.match(/object at 0x[0-9a-f]+/g) || []).length};
}"""


def _shown(page, n_images: int) -> dict:
    """What the current notebook shows once ``n_images`` images are loaded (or 20 s passed)."""
    try:
        page.wait_for_function(f"""() => {{
            const w = window.__bkNotebook;
            const imgs = [...w.content.node.querySelectorAll('.jp-OutputArea-output img')];
            return imgs.length >= {n_images} && imgs.every((i) => i.complete);
        }}""", timeout=20_000, polling=200)
    except Exception:  # noqa: BLE001 - the assertions on what is shown say what is missing
        pass
    # a widget view renders "Loading widget..." and looks its model up for 2 s before it reports
    # the error (ipywidgets' manager.get_model): wait past that, then read what is shown
    page.wait_for_timeout(3_000)
    return page.evaluate(_SHOWN)


def _close_all(page) -> None:
    # close without saving (trusting marks the notebook dirty; nothing may be written back)
    page.evaluate("""() => {
        for (const w of [...window.jupyterapp.shell.widgets('main')]) {
            if (w.context) w.context.model.dirty = false;
            w.dispose();
        }
    }""")


def _expect_report(shown: dict, stored: list[dict], where: str) -> None:
    assert shown["kernel"] is None, where
    assert len(shown["images"]) == len(stored), f"{where}: {len(shown['images'])} of {len(stored)} images"
    assert all(i["loaded"] for i in shown["images"]), where
    # each image at its stored CSS size, drawn from twice as many pixels (sharp at 2x)
    assert [i["width"] for i in shown["images"]] == [m["width"] for m in stored], where
    assert [i["natural"] for i in shown["images"]] == [m["pixels"] for m in stored], where
    assert all(abs(m["pixels"] - 2 * m["width"]) <= 1 for m in stored), where
    assert shown["errors"] == [], where
    assert shown["loading"] == 0, where
    assert shown["reprs"] == 0, where


def _open_and_read(page, path: str, n_images: int) -> dict:
    try:
        assert page.evaluate(_OPEN, path) == path
        return _shown(page, n_images)
    finally:
        _close_all(page)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_notebook_shows_every_image_untrusted_and_trusted_without_a_kernel(lab, path):
    server, page, root = lab
    stored = _stored_images(path)
    assert stored, f"{path.name} stores no image"
    shown = _open_and_read(page, f"untrusted/{path.name}", len(stored))
    assert shown["trusted"], f"{path.name} has no output"
    assert not any(shown["trusted"]), "a fresh checkout's notebook opens untrusted"
    _expect_report(shown, stored, f"{path.name}, untrusted")
    shown = _open_and_read(page, f"trusted/{path.name}", len(stored))
    assert all(shown["trusted"]), "the signed copy opens trusted"
    _expect_report(shown, stored, f"{path.name}, trusted, no kernel")
    assert [e for e in browser_errors(page) if "pageerror" in e] == []
    assert (root / "untrusted" / path.name).read_bytes() == path.read_bytes()  # nothing written back
    assert server.api("GET", "api/kernels") == []


def test_control_a_kept_widget_view_fails_without_a_kernel(lab):
    # the control: the quickstart with one image output also holding a widget view (what saving a
    # live session stores). Untrusted, JupyterLab picks the PNG (a widget view is not a "safe"
    # mimetype); trusted it picks the widget view, whose model is gone, and draws no image there:
    # ipywidgets 8.1 shows "Loading widget..." for as long as its manager has not restored (with
    # no kernel at all it never does) and "Error displaying widget: model not found" after (a
    # kernel came and went). Either is the failure the test above reports.
    server, page, root = lab
    stored = _stored_images(root / "untrusted" / "control_live_view.ipynb")
    _expect_report(_open_and_read(page, "untrusted/control_live_view.ipynb", len(stored)), stored,
                   "control, untrusted")
    shown = _open_and_read(page, "trusted/control_live_view.ipynb", len(stored) - 1)
    assert len(shown["images"]) == len(stored) - 1
    assert shown["loading"] + len(shown["errors"]) == 1
    assert set(shown["errors"]) <= {"Error displaying widget: model not found"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_offline_nbconvert_report_loads_nothing_and_shows_every_image(browser, path, tmp_path):
    from benchkit.notebook import notebook_to_html

    stored = _stored_images(path)
    out = tmp_path / (path.stem + ".html")
    html = notebook_to_html(path, out=out)
    assert "<script" not in html
    n_tex = len(re.findall(r"\$[^$\n]+\$", "".join(
        c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")))
    with offline_page(browser, out, ready="main") as opened:
        page = opened.page
        page.wait_for_function("() => [...document.images].every((i) => i.complete)")
        got = page.evaluate("""() => ({
            images: [...document.querySelectorAll('.jp-OutputArea-output img')].map((i) => (
                {loaded: i.naturalWidth > 0, width: i.width, alt: i.alt})),
            math: document.querySelectorAll('math').length,
            tex: document.querySelectorAll('code.bk-tex').length,
            reprs: (document.body.innerText.match(/object at 0x/g) || []).length})""")
        assert opened.requests == []
        assert opened.errors == []
    assert [i["loaded"] for i in got["images"]] == [True] * len(stored)
    assert [i["width"] for i in got["images"]] == [m["width"] for m in stored]
    assert [i["alt"] for i in got["images"]] == [m["alt"] for m in stored]
    assert got["reprs"] == 0
    assert got["tex"] == 0  # every TeX span became MathML
    assert (got["math"] > 0) == (n_tex > 0)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_github_like_static_view_shows_every_image(browser, path, tmp_path):
    # a code host draws the stored outputs with no script of the notebook's: nbconvert's stock
    # HTML (what nbviewer serves) with every <script> removed, opened with the network blocked
    import nbconvert

    stored = _stored_images(path)
    body, _ = nbconvert.HTMLExporter().from_filename(str(path))
    body = re.sub(r"<script\b.*?</script>", "", body, flags=re.S)
    out = tmp_path / (path.stem + ".html")
    out.write_text(body, encoding="utf-8")
    with offline_page(browser, out, ready="main") as opened:
        page = opened.page
        page.wait_for_function("() => [...document.images].every((i) => i.complete)")
        got = page.evaluate("""() => ({
            loaded: [...document.querySelectorAll('.jp-OutputArea-output img')]
              .map((i) => i.naturalWidth > 0),
            reprs: (document.body.innerText.match(/object at 0x/g) || []).length})""")
        assert opened.requests == []
    assert got["loaded"] == [True] * len(stored)
    assert got["reprs"] == 0


LIVE_CELLS = [
    """import altair as alt
import pandas as pd

from benchkit import charts

charts.enable_offline_rendering()
chart = alt.Chart(pd.DataFrame({"x": [1, 2, 3], "y": [3, 1, 2]}), title="three bars").mark_bar().encode(
    x="x:O", y="y:Q")""",
    "charts.show(chart)",
    "chart",
]


def _ecdf_cell() -> str:
    """The explorer cell of tests/notebooks/ecdf_explorer.ipynb (two simulated benchmarks)."""
    nb = nbformat.read(REPO_ROOT / "tests" / "notebooks" / "ecdf_explorer.ipynb", as_version=4)
    return next(c.source for c in nb.cells if c.cell_type == "code" and "ECDFGapExplorer(" in c.source)


def test_live_run_shows_each_chart_and_explorer_once(browser, tmp_path):
    cells = [*LIVE_CELLS, _ecdf_cell()]
    path = write_notebook(tmp_path / "live.ipynb", cells)
    with jupyterlab_server(tmp_path, settings=SETTINGS) as server, \
            notebook_run(jupyterlab_page(path, server=server, browser=browser), unchanged=path) as page:
        page.locator(".jp-OutputArea-output .bk-ecdf").first.wait_for(state="visible", timeout=120_000)
        page.locator(".jp-OutputArea-output .vega-embed svg.marks, .jp-OutputArea-output .vega-embed canvas"
                     ).nth(1).wait_for(state="visible", timeout=60_000)
        per_cell = page.evaluate("""() => window.jupyterapp.shell.currentWidget.content.widgets
            .filter((c) => c.model.type === 'code').map((c) => {
              const outs = c.model.outputs.toJSON().filter((o) => o.data && o.data['image/png']);
              const area = c.node.querySelector('.jp-OutputArea');
              return {stored: outs.map((o) => Object.keys(o.data).sort()),
                      outputs: area.querySelectorAll(':scope > .jp-OutputArea-child').length,
                      charts: area.querySelectorAll('.vega-embed').length,
                      explorers: area.querySelectorAll('.bk-ecdf').length,
                      images: area.querySelectorAll('img').length};
            })""")
    bundle = ["application/vnd.jupyter.widget-view+json", "image/png", "text/plain"]
    # charts.show, the chart as a cell's value, the explorer: one output each, holding the live
    # view and the PNG; the page draws the live view once and no image
    for k, kind in ((1, "charts"), (2, "charts"), (3, "explorers")):
        assert per_cell[k]["stored"] == [bundle], per_cell[k]
        assert per_cell[k]["outputs"] == 1, per_cell[k]
        assert per_cell[k][kind] == 1, per_cell[k]
        assert per_cell[k]["images"] == 0, per_cell[k]
