"""benchkit.widgets._assets finds the front-end files in a checkout and in a built wheel."""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from benchkit.widgets._assets import asset
from benchkit.widgets._assets import asset_dirs
from benchkit.widgets._assets import asset_path

ROOT = Path(__file__).resolve().parents[1]


def test_checkout_reads_top_level_widgets_folder():
    expected = (ROOT / "widgets" / "README.md").read_text(encoding="utf-8")
    assert asset("README.md") == expected
    assert asset_path("README.md") == ROOT / "widgets" / "README.md"
    assert ROOT / "widgets" in asset_dirs()


@pytest.mark.parametrize("bad", ["../pyproject.toml", "/etc/passwd", "", "a\\b.js"])
def test_rejects_paths_outside_the_folder(bad):
    with pytest.raises(ValueError, match="must be a relative file name inside the widgets folder"):
        asset(bad)


def test_missing_asset_names_the_folders_and_the_available_files():
    with pytest.raises(FileNotFoundError, match=r"'no-such-explorer.js' not found in .*widgets.*README.md"):
        asset("no-such-explorer.js")
    with pytest.raises(TypeError, match="name must be a str"):
        asset(3)


def test_wheel_ships_widgets_as_package_data(tmp_path):
    pytest.importorskip("hatchling", reason="hatchling (the build backend) is needed to build the wheel")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
         str(tmp_path / "dist"), str(ROOT)],
        capture_output=True, text=True, timeout=120,
    )
    assert build.returncode == 0, build.stderr
    (wheel,) = (tmp_path / "dist").glob("benchkit-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        assert "benchkit/widgets/static/README.md" in names
        assert "benchkit/widgets/_assets.py" in names
        zf.extractall(tmp_path / "site")
    # Import benchkit from the unpacked wheel (not the checkout): asset() must read package data.
    code = ("import benchkit.widgets._assets as a, sys; print(a.asset_path('README.md')); "
            "sys.stdout.write(a.asset('README.md'))")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    first, rest = out.stdout.split("\n", 1)
    assert Path(first) == tmp_path / "site" / "benchkit" / "widgets" / "static" / "README.md"
    assert rest == (ROOT / "widgets" / "README.md").read_text(encoding="utf-8")
