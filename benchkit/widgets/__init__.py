"""benchkit's interactive explorers for JupyterLab (anywidget + ipywidgets + Altair).

Each explorer is an anywidget whose state lives in Python traitlets and whose numbers all come from
benchkit results; its front end is one ES module (plus optional CSS) from the repository's
``widgets/`` folder, with no CDN imports, read through :func:`benchkit.widgets._assets.asset`.
Explorers are added here as they are built (trajectories, DIF signatures, probability landscapes,
ECDF gaps, Benchmark² dashboard, the cross-method audit); each also has a static ``to_html()`` / chart export.

This sub-package is the only part of benchkit (with :mod:`benchkit.charts`) that uses Jupyter
libraries; install them with ``pip install 'benchkit[jupyter]'``.
"""
from __future__ import annotations

import importlib
import importlib.util

# Without the Jupyter extra, fail here with the install hint (as benchkit.charts does) instead of a
# bare ModuleNotFoundError from deep inside an explorer module.
_REQUIRES = ("anywidget", "ipywidgets", "traitlets")
_INSTALL_HINT = "benchkit.widgets needs the Jupyter extra; install it with: pip install 'benchkit[jupyter]'"


def _absent(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is None
    except ImportError:
        return True


_MISSING = [name for name in _REQUIRES if _absent(name)]
if _MISSING:
    raise ImportError(f"{_INSTALL_HINT} (missing: {', '.join(_MISSING)})", name=_MISSING[0])

# Explorer name -> module, imported on first access (one line per explorer).
_LAZY = {
    "AuditExplorer": "benchkit.widgets.auditing",
    "DIFExplorer": "benchkit.widgets.dif",
    "ECDFGapExplorer": "benchkit.widgets.ecdf",
    "LandscapeExplorer": "benchkit.widgets.landscape",
    "QualityDashboard": "benchkit.widgets.quality",
    "TrajectoryExplorer": "benchkit.widgets.trajectory",
}

__all__: list[str] = [*_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'benchkit.widgets' has no attribute {name!r}")
