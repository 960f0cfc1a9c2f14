"""The docs site (issue 20, item 3): it builds with warnings as errors and works offline.

One build per module, as ``./dev docs`` runs it (``sphinx-build -b html -W --keep-going -n``) but into
a temporary folder. Then:

- every built page is parsed: no tag that loads something (script, stylesheet, image, frame, ...)
  points outside the site;
- key pages are opened from ``file://`` in headless chromium with every request that leaves the
  built folder aborted and recorded: none may happen, no request may fail, the API reference is
  there, each notebook page shows as many loaded images (``naturalWidth > 0``) as its notebook
  stores static outputs (the charts' and explorers' figures), and MathJax typesets the formulas.

And every Python example of the getting-started and user-guide pages runs as written (fast, not
marked slow), so a renamed function fails here rather than in a reader's session.

The build writes its generated sources (``docs/api/``, ``docs/notebooks/``, git-ignored) into the
checkout, as ``./dev docs`` does.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
IMAGES = ("image/svg+xml", "image/png", "image/jpeg", "image/gif")
METHODS = ("boundary", "dif", "measure", "landscape", "quality", "labels", "audit")

@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The built site's folder (a fresh build: no cached doctrees)."""
    out = tmp_path_factory.mktemp("docs") / "html"
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-n", "-q",
         str(REPO / "docs"), str(out)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"sphinx-build failed:\n{proc.stdout[-5000:]}\n{proc.stderr[-10000:]}"
    return out


def _pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts)


@pytest.mark.slow
def test_docs_build_with_warnings_as_errors(site):
    names = {p.relative_to(site).as_posix() for p in _pages(site)}
    expected = {"index.html", "getting-started.html", "cli.html", "bad-inputs.html", "changelog.html",
                "api/index.html", "api/benchkit.html"}
    expected |= {f"guide/{m}.html" for m in METHODS}
    expected |= {f"notebooks/{nb.stem}.html" for nb in NOTEBOOKS}
    assert expected - names == set()


class _Loads(HTMLParser):
    """URLs a page loads by itself (not the links a reader may follow)."""

    ATTRS = {"script": "src", "img": "src", "iframe": "src", "source": "src", "video": "src",
             "audio": "src", "embed": "src", "object": "data", "input": "src"}

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "link" and a.get("href") and a.get("rel") not in ("canonical", "index", "search",
                                                                     "next", "prev"):
            self.urls.append(a["href"])
        elif tag in self.ATTRS and a.get(self.ATTRS[tag]):
            self.urls.append(a[self.ATTRS[tag]])
        if a.get("srcset"):
            self.urls += [part.split()[0] for part in a["srcset"].split(",") if part.strip()]


def _outside(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.scheme and parts.scheme not in ("data", "blob")) or url.startswith("//")


@pytest.mark.slow
def test_no_page_loads_anything_from_outside(site):
    found = {}
    for page in _pages(site):
        parser = _Loads()
        parser.feed(page.read_text(encoding="utf-8"))
        bad = [u for u in parser.urls if _outside(u)]
        if bad:
            found[page.relative_to(site).as_posix()] = bad
    assert found == {}
    css = [p for p in site.rglob("*.css") if "url(http" in p.read_text(encoding="utf-8", errors="replace")
           or "url(//" in p.read_text(encoding="utf-8", errors="replace")]
    assert css == []


def _static_images(path: Path) -> int:
    """Outputs of the notebook that a saved copy shows as an image."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    return sum(any(k in out.get("data", {}) for k in IMAGES)
               for cell in nb["cells"] for out in cell.get("outputs", []))


@pytest.mark.slow
@pytest.mark.browser
def test_pages_work_offline_in_chromium(site, lab_browser):
    # the session's chromium (conftest): Playwright's sync API allows one running instance per thread
    root = site.resolve().as_uri() + "/"
    outside, failed, seen = [], [], {}
    context = lab_browser.new_context()

    def route(r):
        if r.request.url.startswith(root) or r.request.url.startswith(("data:", "blob:")):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("requestfailed", lambda req: failed.append(req.url))

    def visit(rel: str) -> None:
        page.goto(root + rel, wait_until="load")
        seen[rel] = page.evaluate("""() => ({
            functions: document.querySelectorAll('dl.py.function, dl.py.method').length,
            classes: document.querySelectorAll('dl.py.class, dl.py.exception').length,
            images: Array.from(document.querySelectorAll('.cell_output img')).map(
                i => i.complete && i.naturalWidth > 0),
            text: document.body.innerText})""")

    for rel in ["index.html", "api/index.html", "api/benchkit.html", "api/benchkit.boundary.html",
                "cli.html", "search.html", *[f"notebooks/{nb.stem}.html" for nb in NOTEBOOKS]]:
        visit(rel)
    page.goto(root + "api/benchkit.measure.html", wait_until="load")
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise",
                           timeout=30_000)
    typeset = page.evaluate("() => MathJax.startup.promise.then("
                            "() => document.querySelectorAll('mjx-container svg').length)")
    context.close()

    assert outside == []
    assert failed == []
    # the API reference: the container's page documents ResponseSet, a method's page its functions
    assert seen["api/benchkit.html"]["classes"] >= 1
    assert "ResponseSet" in seen["api/benchkit.html"]["text"]
    assert seen["api/benchkit.boundary.html"]["functions"] >= 5
    assert "benchkit.boundary" in seen["api/index.html"]["text"]
    assert "usage: benchkit" in seen["cli.html"]["text"]
    for nb in NOTEBOOKS:
        images = seen[f"notebooks/{nb.stem}.html"]["images"]
        assert len(images) == _static_images(nb) > 0, nb.name
        assert all(images), f"{nb.name}: {images.count(False)} of {len(images)} images did not load"
    assert typeset > 0


PAGES_WITH_CODE = ["getting-started.md", *[f"guide/{m}.md" for m in METHODS]]


def _python_blocks(path: Path) -> list[str]:
    """The fenced ```python blocks of a Markdown page, in order."""
    blocks, current = [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        if current is None and line.strip() == "```python":
            current = []
        elif current is not None and line.strip() == "```":
            blocks.append("\n".join(current))
            current = None
        elif current is not None:
            current.append(line)
    return blocks


@pytest.mark.parametrize("page", PAGES_WITH_CODE)
def test_code_on_the_page_runs(page):
    """Every Python example of the getting-started and user-guide pages runs as written, in order
    (a renamed function fails here, not in a reader's session)."""
    blocks = _python_blocks(REPO / "docs" / page)
    assert blocks, f"{page} has no python example"
    namespace: dict = {}
    for i, code in enumerate(blocks):
        exec(compile(code, f"docs/{page} (python block {i + 1})", "exec"), namespace)
