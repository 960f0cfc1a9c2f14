"""Every compute module imports on its own, in a fresh interpreter where Jupyter cannot be imported.

Each module of benchkit except ``benchkit.widgets``, ``benchkit.charts`` and ``benchkit.notebook``
(the Jupyter side) is imported first thing in a new Python process whose ``sys.meta_path`` starts
with a finder that raises ImportError for altair, ipywidgets, anywidget, traitlets, IPython and
jupyter*. A module that imports a Jupyter package fails; importing each module first in its own
process also exposes import cycles (a cycle only works when some other module happened to be
imported first). The same blocker checks that ``benchkit.widgets`` fails with the install hint, and
that ``benchkit``'s lazy sub-module list names exactly the modules present.
"""
from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import benchkit

ROOT = Path(benchkit.__file__).resolve().parents[1]
JUPYTER_SIDE = ("benchkit.widgets", "benchkit.charts", "benchkit.notebook")
INSTALL_HINT = "pip install 'benchkit[jupyter]'"

BLOCKER = """
import importlib.abc
import sys

BLOCKED = {"altair", "ipywidgets", "anywidget", "traitlets", "IPython"}


class NoJupyter(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in BLOCKED or top.startswith("jupyter"):
            raise ImportError(f"{top} is blocked in this test", name=top)
        return None


sys.meta_path.insert(0, NoJupyter())
"""


def _compute_modules() -> list[str]:
    names = ["benchkit"]
    for info in pkgutil.walk_packages(benchkit.__path__, prefix="benchkit."):
        if not info.name.startswith(JUPYTER_SIDE):
            names.append(info.name)
    return sorted(names)


COMPUTE_MODULES = _compute_modules()


def _run(code: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return subprocess.run([sys.executable, "-c", BLOCKER + code], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=300)


def test_the_walk_finds_the_compute_layers():
    for name in ("benchkit.response_set", "benchkit._kernels.lrt", "benchkit.boundary", "benchkit.io.helm",
                 "benchkit.datasets._fetch", "benchkit.stats", "benchkit._parallel"):
        assert name in COMPUTE_MODULES
    assert not any(m.startswith(JUPYTER_SIDE) for m in COMPUTE_MODULES)


# The driver: one fresh interpreter with the blocker installed imports the third-party
# dependencies once, then forks one child per module; a child starts with no benchkit module loaded
# and imports just its module (a fresh benchkit import state at the cost of a fork, not of
# re-importing numpy/scipy/pandas/numba: ~70 modules in seconds instead of ~1.5 min).
DRIVER = """
import importlib, json, os, traceback
import numpy, scipy, scipy.optimize, scipy.special, scipy.stats, pandas, numba, joblib  # noqa: F401
assert not [m for m in sys.modules if m.startswith("benchkit")]
results = {}
pending = {}
def reap():
    pid, status = os.wait()
    name, path = pending.pop(pid)
    with open(path) as fh:
        err = fh.read()
    os.unlink(path)
    results[name] = err if os.waitstatus_to_exitcode(status) != 0 else ""
for name in MODULES:
    if len(pending) >= 2:
        reap()
    path = os.path.join(TMP, name + ".err")
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            importlib.import_module(name)
            leaked = sorted(m for m in sys.modules
                            if m.partition(".")[0] in BLOCKED or m.startswith("jupyter"))
            assert not leaked, f"Jupyter modules loaded: {leaked}"
        except BaseException:
            with open(path, "w") as fh:
                fh.write(traceback.format_exc())
            code = 1
        else:
            open(path, "w").close()
        os._exit(code)
    pending[pid] = (name, path)
while pending:
    reap()
print(json.dumps(results))
"""


@pytest.mark.slow  # one interpreter per module
def test_every_compute_module_imports_alone_without_jupyter(tmp_path):
    r = _run(f"MODULES = {COMPUTE_MODULES!r}\nTMP = {str(tmp_path)!r}\n" + DRIVER)
    assert r.returncode == 0, r.stderr
    results = json.loads(r.stdout.strip().splitlines()[-1])
    assert sorted(results) == COMPUTE_MODULES
    failures = {m: e.strip().splitlines()[-1] for m, e in results.items() if e}
    assert failures == {}, "\n".join(f"{m}: {e}" for m, e in failures.items())


@pytest.mark.parametrize("statement", [
    "import benchkit.widgets",
    "from benchkit.widgets import TrajectoryExplorer",
    "import benchkit.widgets.trajectory",
])
def test_widgets_without_the_jupyter_extra_give_the_install_hint(statement):
    r = _run(f"""
try:
    {statement}
except ImportError as exc:
    print(str(exc))
else:
    raise SystemExit("imported without the Jupyter extra")
""")
    assert r.returncode == 0, r.stderr
    assert INSTALL_HINT in r.stdout
    assert "missing: anywidget, ipywidgets, traitlets" in r.stdout


def test_charts_without_altair_give_the_same_hint():
    r = _run("""
import benchkit.charts as charts
try:
    charts._altair()
except ImportError as exc:
    print(str(exc))
""")
    assert r.returncode == 0, r.stderr
    assert INSTALL_HINT in r.stdout


def test_lazy_submodules_are_exactly_the_public_modules_present():
    present = {m.name for m in pkgutil.iter_modules(benchkit.__path__) if not m.name.startswith("_")}
    # widgets and notebook need the Jupyter extra (imported explicitly), cli is the command line,
    # response_set is imported eagerly (ResponseSet)
    assert set(benchkit._SUBMODULES) == present - {"widgets", "notebook", "cli", "response_set"}
    for name in benchkit._SUBMODULES:
        assert getattr(benchkit, name).__name__ == f"benchkit.{name}"
    assert not hasattr(benchkit, "boundaries")  # a name that is no module is not promised
    with pytest.raises(AttributeError, match="no attribute 'boundaries'"):
        benchkit.boundaries  # noqa: B018
    assert set(benchkit._SUBMODULES) <= set(dir(benchkit))
