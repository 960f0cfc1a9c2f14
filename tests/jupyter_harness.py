"""Drive a real JupyterLab in headless Debian chromium from pytest (Playwright, no browser download).

Typical use in a test (mark it ``@pytest.mark.browser``; ``tests/conftest.py`` skips such tests
when ``/usr/bin/chromium`` is absent)::

    from jupyter_harness import jupyterlab_page, run_all_cells, error_outputs, chart_views

    def test_quickstart():
        with jupyterlab_page("notebooks/00_quickstart.ipynb") as page:
            run_all_cells(page)                 # "Run All" through JupyterLab's command registry
            assert error_outputs(page) == []    # error outputs read from the notebook model
            chart_views(page).first.wait_for()  # a canvas/svg drawn by vega-embed in an output

``page`` is a plain Playwright :class:`~playwright.sync_api.Page`, so later tests can click, type,
drag (``page.mouse``) and brush in explorer views, then call :func:`wait_for_idle` to let the
kernel finish the callbacks those interactions trigger.

What the harness guarantees

- JupyterLab runs as ``python -m jupyterlab --no-browser --ServerApp.ip=127.0.0.1 --port=<free port>
  --ServerApp.token=<random> --allow-root`` with temporary ``JUPYTER_CONFIG_DIR``,
  ``JUPYTER_DATA_DIR``, ``JUPYTER_RUNTIME_DIR``, ``JUPYTERLAB_SETTINGS_DIR``,
  ``JUPYTERLAB_WORKSPACES_DIR`` and ``IPYTHONDIR``, so the user's Jupyter set-up is neither read
  nor touched; checkpoints are kept there too. ``PYTHONPATH`` starts with the repository root, so
  kernels import this checkout's ``benchkit`` (a git worktree's, not the venv's editable install).
  The app is exposed as ``window.jupyterapp``
  (``LabApp.expose_app_in_browser``),
  news and update checks are off, and document autosave is off, so running a committed notebook
  never rewrites it on disk.
- The browser is Debian's ``/usr/bin/chromium`` launched by Playwright with
  ``executable_path`` (:data:`CHROMIUM_ARGS`); Playwright never downloads a browser.
- Everything has a timeout, and the server (with its kernels), the browser and the temporary
  folders are always cleaned up, also when the test fails.
"""
from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
REPO_ROOT = Path(__file__).resolve().parents[1]

#: Seconds allowed for the server to answer, the notebook to open with a ready kernel, and a
#: "Run All" to finish. Each call takes its own ``timeout`` too.
SERVER_TIMEOUT = 120.0
OPEN_TIMEOUT = 180.0
RUN_TIMEOUT = 300.0

__all__ = [
    "CHROMIUM", "CHROMIUM_ARGS", "chromium_missing_reason", "JupyterLabServer", "jupyterlab_server",
    "chromium", "jupyterlab_page", "run_all_cells", "wait_for_idle", "output_elements",
    "error_outputs", "cell_outputs", "chart_views", "widget_views", "browser_errors", "visible_box",
    "click_at", "drag",
]


def chromium_missing_reason() -> str | None:
    """Why browser tests cannot run here (``None`` when ``/usr/bin/chromium`` exists)."""
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        return (f"browser test needs Debian chromium at {CHROMIUM} (absent); "
                "`./dev test` installs it with apt-get install chromium")
    return None


# ----------------------------------------------------------------------------------- server


@dataclass(frozen=True)
class JupyterLabServer:
    """A running JupyterLab started by :func:`jupyterlab_server`."""

    url: str  # "http://127.0.0.1:<port>/"
    token: str
    root_dir: Path
    runtime_dir: Path
    log_path: Path
    process: subprocess.Popen

    def lab_url(self, path: str | Path) -> str:
        """URL that opens ``path`` (relative to ``root_dir``) in JupyterLab, logged in."""
        rel = Path(path).resolve().relative_to(self.root_dir) if Path(path).is_absolute() else Path(path)
        quoted = urllib.parse.quote(rel.as_posix())
        return f"{self.url}lab/tree/{quoted}?reset&token={self.token}"

    def api(self, method: str, endpoint: str, body: dict | None = None, *, timeout: float = 10.0):
        """Call the Jupyter server REST API (``endpoint`` like ``"api/sessions"``); JSON or None."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"{self.url}{endpoint}", data=data, method=method,
                                     headers={"Authorization": f"token {self.token}",
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def log(self, tail: int = 4000) -> str:
        """The last ``tail`` characters of the server's combined stdout/stderr."""
        try:
            return self.log_path.read_text(errors="replace")[-tail:]
        except OSError:
            return "(no server log)"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1))


def _processes_mentioning(text: str) -> list[int]:
    """PIDs of live processes whose command line contains ``text`` (our kernels' runtime dir)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmdline:
            pids.append(int(entry.name))
    return pids


def _kill(pids: list[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


@contextlib.contextmanager
def jupyterlab_server(root_dir: str | Path = REPO_ROOT, *, timeout: float = SERVER_TIMEOUT,
                      env: dict[str, str] | None = None,
                      settings: dict[str, dict] | None = None) -> Iterator[JupyterLabServer]:
    """Start JupyterLab serving ``root_dir`` on a free localhost port; stop it (and its kernels) on exit.

    Parameters
    ----------
    root_dir : path
        Folder served (notebook paths are relative to it). Default: the repository root.
    timeout : float
        Seconds to wait for the server to answer ``/api/status``.
    env : dict, optional
        Extra environment variables for the server and its kernels.
    settings : dict, optional
        JupyterLab user settings, ``{"<extension>:<plugin>": {name: value}}`` (for example
        ``{"@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"}}``).
    """
    root = Path(root_dir).resolve()
    tmp = Path(tempfile.mkdtemp(prefix="benchkit-jlab-"))
    dirs = {name: tmp / name
            for name in ("config", "data", "runtime", "settings", "workspaces", "ipython", "checkpoints")}
    for d in dirs.values():
        d.mkdir()
    _write_json(dirs["config"] / "jupyter_server_config.json", {
        "LabApp": {"expose_app_in_browser": True, "news_url": None,
                   "check_for_updates_class": "jupyterlab.NeverCheckForUpdate"},
        # Checkpoints go to the temporary folder, not .ipynb_checkpoints/ next to the notebook.
        "FileCheckpoints": {"root_dir": str(dirs["checkpoints"])},
    })
    # No autosave: running a committed notebook must not rewrite it on disk.
    _write_json(dirs["settings"] / "@jupyterlab" / "docmanager-extension" / "plugin.jupyterlab-settings",
                {"autosave": False})
    _write_json(dirs["settings"] / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings",
                {"fetchNews": "false", "checkForUpdates": False})
    for plugin_id, values in (settings or {}).items():
        extension, plugin = plugin_id.rsplit(":", 1)
        _write_json(dirs["settings"] / extension / f"{plugin}.jupyterlab-settings", values)
    token = secrets.token_hex(24)
    port = _free_port()
    full_env = dict(os.environ)
    full_env.update({
        "JUPYTER_CONFIG_DIR": str(dirs["config"]),
        "JUPYTER_DATA_DIR": str(dirs["data"]),
        "JUPYTER_RUNTIME_DIR": str(dirs["runtime"]),
        "JUPYTERLAB_SETTINGS_DIR": str(dirs["settings"]),
        "JUPYTERLAB_WORKSPACES_DIR": str(dirs["workspaces"]),
        "IPYTHONDIR": str(dirs["ipython"]),
        "JUPYTER_PLATFORM_DIRS": "1",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        # kernels import THIS checkout's benchkit (and its widgets/*.js), not whatever copy is
        # installed editable in the venv: without it a worktree's browser tests ran the main tree
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    })
    full_env.pop("JUPYTER_TOKEN", None)
    if env:
        full_env.update(env)
    cmd = [
        sys.executable, "-m", "jupyterlab", "--no-browser",
        f"--ServerApp.token={token}", f"--port={port}", "--ServerApp.ip=127.0.0.1",
        "--ServerApp.port_retries=0", f"--ServerApp.root_dir={root}", "--allow-root",
    ]
    log_path = tmp / "server.log"
    log = open(log_path, "wb")
    proc = subprocess.Popen(cmd, cwd=root, env=full_env, stdin=subprocess.DEVNULL, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    server = JupyterLabServer(url=f"http://127.0.0.1:{port}/", token=token, root_dir=root,
                              runtime_dir=dirs["runtime"], log_path=log_path, process=proc)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with code {proc.returncode}:\n{server.log()}")
            try:
                server.api("GET", "api/status", timeout=2.0)
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"JupyterLab did not answer within {timeout:.0f} s:\n{server.log()}")
            time.sleep(0.25)
        yield server
    finally:
        _stop_server(server)
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)


def _stop_server(server: JupyterLabServer) -> None:
    proc = server.process
    if proc.poll() is None:
        with contextlib.suppress(Exception):  # polite: shut kernels down through the API first
            for kernel in server.api("GET", "api/kernels", timeout=5.0) or []:
                server.api("DELETE", f"api/kernels/{kernel['id']}", timeout=10.0)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
    # Kernels run in their own sessions; any survivor still names our private runtime dir.
    leftovers = _processes_mentioning(str(server.runtime_dir))
    _kill(leftovers, signal.SIGTERM)
    deadline = time.monotonic() + 5
    while leftovers and time.monotonic() < deadline:
        time.sleep(0.1)
        leftovers = [p for p in leftovers if Path(f"/proc/{p}").exists()]
    _kill(leftovers, signal.SIGKILL)


# ---------------------------------------------------------------------------------- browser


@contextlib.contextmanager
def chromium(*, timeout: float = 60.0):
    """Launch Debian's chromium headless through Playwright; yields a Playwright ``Browser``."""
    reason = chromium_missing_reason()
    if reason:
        raise RuntimeError(reason)
    from playwright.sync_api import sync_playwright

    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True,
                                     timeout=timeout * 1000)
        try:
            yield browser
        finally:
            with contextlib.suppress(Exception):
                browser.close()


_CONSOLE: dict[int, list[str]] = {}


def browser_errors(page) -> list[str]:
    """Console errors and uncaught page exceptions seen so far on ``page`` (opened by the harness)."""
    return list(_CONSOLE.get(id(page), []))


_READY_JS = """() => {
  const app = window.jupyterapp;
  if (!app || !app.shell) return false;
  const w = app.shell.currentWidget;
  if (!w || !w.content || !w.sessionContext || !w.context || !w.context.isReady) return false;
  const kernel = w.sessionContext.session && w.sessionContext.session.kernel;
  return !!kernel && kernel.connectionStatus === 'connected' && kernel.status === 'idle'
    && w.content.widgets.length > 0;
}"""


@contextlib.contextmanager
def jupyterlab_page(notebook: str | Path, *, root_dir: str | Path | None = None,
                    server: JupyterLabServer | None = None, browser=None,
                    timeout: float = OPEN_TIMEOUT, viewport: tuple[int, int] = (1400, 1000)):
    """Open ``notebook`` in JupyterLab in headless chromium; yields a Playwright ``Page``.

    On entry the notebook is open, its kernel connected and idle. Nothing has run yet: call
    :func:`run_all_cells`. On exit the notebook's kernel is shut down, and the server and browser
    are stopped when this call started them.

    Parameters
    ----------
    notebook : path
        Absolute, or relative to ``root_dir`` (default: the repository root).
    root_dir : path, optional
        Folder the server serves; ignored when ``server`` is given.
    server : JupyterLabServer, optional
        Reuse a running server (see :func:`jupyterlab_server`).
    browser : playwright Browser, optional
        Reuse a launched browser (see :func:`chromium`).
    timeout : float
        Seconds for the notebook to open with a ready kernel; also the page's default timeout for
        Playwright actions.
    """
    with contextlib.ExitStack() as stack:
        if server is None:
            server = stack.enter_context(jupyterlab_server(root_dir or REPO_ROOT))
        path = Path(notebook)
        if not path.is_absolute():
            path = server.root_dir / path
        if not path.is_file():
            raise FileNotFoundError(f"notebook {path} does not exist")
        rel = path.resolve().relative_to(server.root_dir)
        if browser is None:
            browser = stack.enter_context(chromium())
        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        stack.callback(lambda: _suppress(context.close))
        page = context.new_page()
        page.set_default_timeout(timeout * 1000)
        messages = _CONSOLE.setdefault(id(page), [])
        stack.callback(lambda: _CONSOLE.pop(id(page), None))
        page.on("console",
                lambda m: messages.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: messages.append(f"pageerror: {e}"))
        stack.callback(lambda: _shutdown_sessions(server, rel))
        page.goto(server.lab_url(rel), timeout=timeout * 1000)
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            page.wait_for_function(_READY_JS, timeout=timeout * 1000, polling=250)
        except PlaywrightTimeout as exc:
            raise TimeoutError(
                f"notebook {rel} did not open with an idle kernel within {timeout:.0f} s "
                f"(browser errors: {browser_errors(page)}); server log:\n{server.log()}"
            ) from exc
        yield page


def _suppress(fn) -> None:
    with contextlib.suppress(Exception):
        fn()


def _shutdown_sessions(server: JupyterLabServer, rel: Path) -> None:
    with contextlib.suppress(Exception):
        for session in server.api("GET", "api/sessions", timeout=5.0) or []:
            if session.get("path") == rel.as_posix():
                server.api("DELETE", f"api/sessions/{session['id']}", timeout=10.0)


# ---------------------------------------------------------------------------- notebook actions

_RUN_ALL_JS = """() => {
  const app = window.jupyterapp;
  window.__benchkitRunAll = {done: false, ok: null, error: null};
  app.commands.execute('notebook:run-all-cells').then(
    (ok) => { window.__benchkitRunAll = {done: true, ok: ok !== false, error: null}; },
    (err) => { window.__benchkitRunAll = {done: true, ok: false, error: String(err)}; });
  return true;
}"""

_IDLE_JS = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  if (!w || !w.content || !w.sessionContext) return false;
  const kernel = w.sessionContext.session && w.sessionContext.session.kernel;
  if (!kernel || kernel.status !== 'idle') return false;
  for (const cell of w.content.widgets) {
    const prompt = cell.node.querySelector('.jp-InputPrompt');
    if (prompt && prompt.textContent.includes('*')) return false;
  }
  return true;
}"""


def wait_for_idle(page, *, timeout: float = RUN_TIMEOUT, settle: float = 0.5) -> None:
    """Wait until the kernel is idle and no cell shows ``[*]``, twice ``settle`` seconds apart.

    Call after interactions (clicks, brushes) whose callbacks run in the kernel.
    """
    deadline = time.monotonic() + timeout
    while True:
        remaining = max(deadline - time.monotonic(), 0.001)
        page.wait_for_function(_IDLE_JS, timeout=remaining * 1000, polling=100)
        page.wait_for_timeout(settle * 1000)
        if page.evaluate(_IDLE_JS):
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"kernel did not become idle within {timeout:.0f} s")


def run_all_cells(page, *, timeout: float = RUN_TIMEOUT) -> bool:
    """Run all cells with JupyterLab's "Run All" command; wait until done and the kernel is idle.

    Returns True when every cell ran, False when execution stopped at an error (inspect
    :func:`error_outputs`). Raises TimeoutError after ``timeout`` seconds.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    start = time.monotonic()
    page.evaluate(_RUN_ALL_JS)
    try:
        page.wait_for_function("() => window.__benchkitRunAll && window.__benchkitRunAll.done",
                               timeout=timeout * 1000, polling=200)
    except PlaywrightTimeout as exc:
        raise TimeoutError(f"'Run All' did not finish within {timeout:.0f} s; "
                           f"browser errors: {browser_errors(page)}") from exc
    state = page.evaluate("() => window.__benchkitRunAll")
    if state.get("error"):
        raise RuntimeError(f"JupyterLab 'Run All' failed: {state['error']}")
    wait_for_idle(page, timeout=max(timeout - (time.monotonic() - start), 5.0))
    return bool(state.get("ok"))


def output_elements(page, selector: str | None = None):
    """Playwright ``Locator`` of rendered output areas (``.jp-OutputArea-output``), or of the
    elements matching CSS ``selector`` inside them."""
    base = ".jp-OutputArea-output"
    return page.locator(base if selector is None else f"{base} {selector}")


def cell_outputs(page, index: int) -> list[dict]:
    """The nbformat outputs (JSON) of code/markdown cell ``index`` as the notebook model holds them."""
    return page.evaluate(
        """(i) => {
          const w = window.jupyterapp.shell.currentWidget;
          const cell = w.content.widgets[i];
          return cell && cell.model.outputs ? cell.model.outputs.toJSON() : [];
        }""",
        index,
    )


def error_outputs(page) -> list[dict]:
    """Every error output in the open notebook: ``[{"cell": i, "ename": ..., "evalue": ...}]``."""
    return page.evaluate(
        """() => {
          const w = window.jupyterapp.shell.currentWidget;
          const found = [];
          w.content.widgets.forEach((cell, i) => {
            if (!cell.model.outputs) return;
            for (const out of cell.model.outputs.toJSON()) {
              if (out.output_type === 'error') found.push({cell: i, ename: out.ename, evalue: out.evalue});
            }
          });
          return found;
        }"""
    )


def chart_views(page):
    """``Locator`` of drawn Vega charts in outputs: the ``canvas``/``svg`` vega-embed renders."""
    return page.locator(".jp-OutputArea-output .vega-embed canvas, "
                        ".jp-OutputArea-output .vega-embed svg.marks")


def widget_views(page):
    """``Locator`` of the view elements of rendered widget outputs.

    A ``application/vnd.jupyter.widget-view+json`` output is rendered by ipywidgets'
    ``WidgetRenderer``, a Lumino panel (``.jp-OutputArea-output.lm-Panel``, no ``data-mime-type``)
    holding the widget's view element; for an anywidget such as ``alt.JupyterChart`` that element is
    the ``el`` its ESM ``render`` draws into (``.vega-embed`` for charts).
    """
    return page.locator(".jp-OutputArea-output.lm-Panel > .lm-Widget")


@dataclass
class OfflinePage:
    """A page opened from a ``file://`` URL with every other request blocked (see :func:`offline_page`)."""

    page: object
    requests: list[str]  # URLs the page tried to fetch outside file:, blob: and data: (all aborted)
    errors: list[str]  # page errors and console errors


@contextlib.contextmanager
def offline_page(browser, path: str | Path, *, ready: str = "#benchkit-root[data-ready='true']",
                 timeout: float = 20_000, **context_options) -> Iterator[OfflinePage]:
    """Open a static HTML export from ``file://`` in a new context of ``browser``, network blocked.

    Waits for ``ready``; the caller asserts ``requests == [] and errors == []`` when done. The
    context is always closed.
    """
    context = browser.new_context(**context_options)
    out = OfflinePage(page=None, requests=[], errors=[])

    def route(r):
        if r.request.url.startswith(("file:", "blob:", "data:")):
            r.continue_()
        else:
            out.requests.append(r.request.url)
            r.abort()

    try:
        context.route("**/*", route)
        page = context.new_page()
        page.on("pageerror", lambda e: out.errors.append(str(e)))
        page.on("console", lambda m: out.errors.append(m.text) if m.type == "error" else None)
        out.page = page
        page.goto(Path(path).as_uri())
        page.wait_for_selector(ready, timeout=timeout)
        yield out
    finally:
        context.close()


def visible_box(page, locator) -> dict:
    """``locator``'s bounding box after scrolling it into view; fails when it is still off-screen.

    ``page.mouse`` acts at viewport coordinates: a point below the fold hits nothing (no error), so
    every raw mouse action in the tests goes through this (the ECDF what-if strip sat 4 px below a
    1000 px viewport after the explorer grew a row of gap labels, and the click silently missed).
    """
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    vp = page.viewport_size
    if box is None or box["y"] < 0 or box["y"] + box["height"] > vp["height"] \
            or box["x"] < 0 or box["x"] + box["width"] > vp["width"]:
        raise AssertionError(f"element box {box} is not inside the {vp} viewport after scrolling")
    return box


def click_at(page, locator, fx: float = 0.5, fy: float = 0.5) -> None:
    """A real mouse click at fractions (fx, fy) of ``locator``'s box (scrolled into view first)."""
    box = visible_box(page, locator)
    page.mouse.click(box["x"] + box["width"] * fx, box["y"] + box["height"] * fy)


def drag(page, overlay, fx0, fy0, fx1, fy1) -> None:
    """Drag the mouse over ``overlay`` from (fx0, fy0) to (fx1, fy1), in fractions of its box."""
    box = visible_box(page, overlay)
    page.mouse.move(box["x"] + box["width"] * fx0, box["y"] + box["height"] * fy0)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * fx1, box["y"] + box["height"] * fy1, steps=6)
    page.mouse.up()


def exported_state(page: str) -> tuple[dict, str]:
    """The state and the module of a ``to_html()`` page, inflated as the page does it.

    The page embeds the JSON state, each binary trait and the module gzip-compressed and
    base64-encoded; binary traits come back as ``unpack_arrays`` dicts of numpy arrays.
    """
    import base64
    import gzip
    import re

    from benchkit.widgets._base import unpack_arrays

    def blob(id_: str) -> bytes:
        m = re.search(rf'<script type="application/octet-stream" id="{id_}">(.*?)</script>', page, re.S)
        return gzip.decompress(base64.b64decode(m.group(1)))

    state = json.loads(blob("benchkit-state"))
    names = json.loads(re.search(r'id="benchkit-binary-names">(.*?)</script>', page, re.S).group(1))
    for name, id_ in names:
        state[name] = unpack_arrays(blob(id_))
    return state, blob("benchkit-esm").decode()


def assert_exported(widget, path: str | Path | None = None,
                    module: str | None = None) -> tuple[str, dict, str]:
    """Export ``widget`` with ``to_html(path)`` and check what every static export promises.

    The page written to ``path`` (when given) is the page returned; it loads nothing from the
    network (no ``<script src``, no ``https://``); the embedded state is in static mode while the
    live widget is not; with ``module`` the embedded module is that explorer's module
    (``benchkit.widgets._base.explorer_module(module)``). Returns ``(page, state, esm)``.
    """
    from benchkit.widgets._base import explorer_module

    page = widget.to_html(path)
    if path is not None:
        assert Path(path).read_text(encoding="utf-8") == page
    assert "<script src" not in page
    assert "https://" not in page
    state, esm = exported_state(page)
    if module is not None:
        assert esm == explorer_module(module)
    assert state["static_mode"] is True
    assert widget.static_mode is False
    return page, state, esm


@contextlib.contextmanager
def notebook_run(opened, *, unchanged: str | Path | None = None):
    """``with notebook_run(jupyterlab_page(...)) as page:``: the page after Run All, checked.

    Entering opens ``opened`` (a :func:`jupyterlab_page` context), runs every cell and asserts
    that all ran and none left an error output; leaving without an exception asserts that the page
    raised no uncaught JavaScript error (``pageerror``). With ``unchanged`` (a file, usually the
    notebook) its bytes must be the same after the page is closed as before it was opened.
    """
    import hashlib

    def digest():
        return hashlib.sha256(Path(unchanged).read_bytes()).hexdigest()

    before = digest() if unchanged is not None else None
    with opened as page:
        assert run_all_cells(page)
        assert error_outputs(page) == []
        yield page
        assert [e for e in browser_errors(page) if "pageerror" in e] == []
    if unchanged is not None:
        assert digest() == before, f"{unchanged} was changed"


def printed_json(page, index: int, marker: str = "EXPECTED") -> dict:
    """The JSON object code cell ``index`` printed after ``marker`` (``print(marker, json.dumps(...))``)."""
    import re

    text = "".join(o.get("text", "") for o in cell_outputs(page, index))
    return json.loads(re.search(re.escape(marker) + r" (\{.*\})", text).group(1))


def rerun_cell(page, index: int, marker: str = "EXPECTED", *, until: str | None = None,
               timeout: float = 30_000) -> dict:
    """Run code cell ``index`` again (the kernel reports its state) and return its ``printed_json``.

    ``until`` is a JavaScript condition on ``text`` (the cell's new output text) to wait for after
    the kernel is idle, for outputs that arrive later than the idle state.
    """
    page.evaluate(f"""() => {{
        const w = window.jupyterapp.shell.currentWidget;
        w.content.activeCellIndex = {index};
        return window.jupyterapp.commands.execute('notebook:run-cell');
    }}""")
    wait_for_idle(page)
    if until is not None:
        page.wait_for_function(f"""() => {{
            const w = window.jupyterapp.shell.currentWidget;
            const text = w.content.widgets[{index}].model.outputs.toJSON().map(o => o.text || '').join('');
            return {until};
        }}""", timeout=timeout)
    return printed_json(page, index, marker)


def write_notebook(path: str | Path, cells, *, title: str | None = None) -> Path:
    """Write the code ``cells`` (strings) as a python3 notebook at ``path``; returns ``path``.

    With ``title`` a markdown cell holding it comes first (so code cell i is notebook cell i + 1).
    """
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = ([nbformat.v4.new_markdown_cell(title)] if title is not None else []) + [
        nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    nbformat.write(nb, path)
    return Path(path)
