"""Execute the repository's notebooks and store them as reports: the one way to refresh them.

    python scripts/execute_notebooks.py                          # every notebooks/*.ipynb, in order
    python scripts/execute_notebooks.py notebooks/02_family_dif.ipynb   # just these

Each notebook runs top to bottom in a fresh kernel (nbclient, in the notebook's folder), one at a
time, with this checkout first on the kernel's PYTHONPATH and BENCHKIT_DATA_MIRROR defaulting to
../shared/data when that folder exists. It is then written in place with every widget view
dropped from its outputs (benchkit.notebook.execute_notebook): each chart and explorer is stored
as one output holding its PNG (2x, with alt text) and caption, which JupyterLab shows trusted or
not, with or without a kernel, and nbconvert and code hosts show too. A cell error stops the run
and leaves that notebook's file unchanged.

Do not save a notebook from a live JupyterLab session to commit it: the saved file keeps the live
widget views, which read "Error displaying widget: model not found" once the kernel is gone
(tests/test_notebooks_reports.py fails on them).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("notebooks", nargs="*", type=Path,
                        help="notebooks to run (default: every notebooks/*.ipynb)")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds allowed per cell (default 1800)")
    parser.add_argument("--kernel", default="python3", help="Jupyter kernel name (default python3)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from benchkit.notebook import execute_notebook

    mirror = ROOT.parent / "shared" / "data"
    if not os.environ.get("BENCHKIT_DATA_MIRROR") and mirror.is_dir():
        os.environ["BENCHKIT_DATA_MIRROR"] = str(mirror)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        start = time.monotonic()
        before = path.stat().st_size
        print(f"[execute_notebooks] {path} ...", file=sys.stderr, flush=True)
        execute_notebook(path, timeout=args.timeout, kernel_name=args.kernel, pythonpath=ROOT)
        print(f"[execute_notebooks] {path}: {time.monotonic() - start:.0f} s, "
              f"{before / 1e3:.0f} kB -> {path.stat().st_size / 1e3:.0f} kB", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
