"""The tree a maintainer would keep (issue 20 item 4): no import cycle hidden behind a function-level
import, and no module over 700 lines except generated kernels.

Every line counts, docstrings included. Each module that was over 700 lines was split by concern
into private modules named for what they do, the public module re-exporting what it exposed (see
the CHANGELOG's "Files split by concern"); a hand-written module that grows past the limit fails
here with its name and length. Only the generated kernel (``GENERATED``) is exempt: it is never
read or edited by hand.

A function-level import of a benchkit module is allowed when it only defers a cost (numba kernels,
Jupyter pieces, a package loaded on first use); it is a defect when it exists because the import at
the top of the file would close a cycle. The test builds benchkit's module graph from the
*top-level* imports (what Python runs at import time: the named module and each parent package that
is not already initializing), and for every import inside a function asks whether the imported
module reaches the importing one in that graph: if it does, moving the import to the top would be a
cycle, so the function-level import is dodging one.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "benchkit"

MAX_LINES = 700
# Files allowed over MAX_LINES, with the reason. Generated code: it is never read or edited by
# hand, so its length costs a maintainer nothing.
GENERATED = {
    "_kernels/boundary_unrolled.py": "written by _kernels/boundary_codegen.py (one unrolled kernel per "
                                     "n = 2..8; tests/test_kernels_pava.py checks it is current)",
}


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules(package: Path) -> dict[str, Path]:
    return {_module_name(p, package.parent): p for p in package.rglob("*.py")}


def _targets(importer: str, node: ast.Import | ast.ImportFrom, modules: dict[str, Path]) -> list[str]:
    """The benchkit modules an import statement runs: the module named (for ``from x import y`` the
    submodule ``x.y`` when it is one) and its parent packages that are not ancestors of the importer
    (an ancestor package is already initializing when the importer runs)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = importer.split(".")
            if modules[importer].name != "__init__.py":
                package = package[:-1]
            package = package[:len(package) - (node.level - 1)]
            base = ".".join(package + ([base] if base else []))
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
    out = []
    for name in names:
        parts = name.split(".")
        if parts[0] != importer.split(".")[0]:
            continue  # another distribution
        while parts and ".".join(parts) not in modules:
            parts.pop()
        for i in range(1, len(parts) + 1):
            prefix = ".".join(parts[:i])
            own_ancestor = importer == prefix or importer.startswith(prefix + ".")
            if prefix in modules and prefix != importer and (i == len(parts) or not own_ancestor):
                out.append(prefix)
    return out


def import_graph(package: Path) -> tuple[dict[str, set[str]], list[tuple[str, int, str]]]:
    """(top-level edges, [(importer, line, imported)] of imports inside functions)."""
    modules = _modules(package)
    top: dict[str, set[str]] = {}
    inner: list[tuple[str, int, str]] = []
    for name, path in modules.items():
        edges: set[str] = set()

        def walk(node, in_function, name=name, edges=edges):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    walk(child, True)
                elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                    continue  # never runs
                elif isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in _targets(name, child, modules):
                        if in_function:
                            inner.append((name, child.lineno, target))
                        else:
                            edges.add(target)
                else:
                    walk(child, in_function)

        walk(ast.parse(path.read_text(encoding="utf-8")), False)
        top[name] = edges
    return top, inner


def _reaches(top: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, stack = set(), [start]
    while stack:
        node = stack.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            stack.extend(top.get(node, ()))
    return False


def cycle_dodges(package: Path) -> list[str]:
    top, inner = import_graph(package)
    return sorted(f"{importer}:{line} imports {target} inside a function, and {target} imports "
                  f"{importer} at the top (directly or through other modules)"
                  for importer, line, target in inner if _reaches(top, target, importer))


def test_no_function_level_import_dodges_a_cycle():
    found = cycle_dodges(PACKAGE)
    assert found == [], "\n".join(found)


def test_the_top_level_import_graph_has_no_cycle():
    top, _ = import_graph(PACKAGE)
    cyclic = sorted(m for m in top for n in top[m] if _reaches(top, n, m))
    assert cyclic == []


@pytest.mark.parametrize(("files", "expected"), [
    # a cycle dodged inside a function (the shape _validation <-> response_set had)
    ({"a.py": "from pkg.b import x\n", "b.py": "x = 1\ndef f():\n    from pkg.a import y\n"},
     {"pkg.b:3 imports pkg.a"}),
    # a deferred import that closes no cycle (a kernel loaded on first use) is fine
    ({"a.py": "def f():\n    from pkg.b import x\n", "b.py": "x = 1\n"}, set()),
    # through a package __init__ that imports its submodules: pkg.m runs pkg.m.c, which imports pkg.d
    ({"m/__init__.py": "from pkg.m.c import z\n", "m/c.py": "from pkg.d import w\nz = 1\n",
      "d.py": "w = 1\ndef f():\n    from pkg.m.c import z\n"},
     {"pkg.d:3 imports pkg.m", "pkg.d:3 imports pkg.m.c"}),
])
def test_the_check_finds_a_dodged_cycle(tmp_path, files, expected):
    for name, text in {"__init__.py": "", **files}.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert {f.split(" inside")[0] for f in cycle_dodges(tmp_path / "pkg")} == expected


def long_files(package: Path, limit: int = MAX_LINES) -> list[str]:
    """Every module of ``package`` over ``limit`` lines that is not a generated kernel."""
    out = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > limit and rel not in GENERATED:
            out.append(f"{package.name}/{rel}: {n} lines")
    return out


def test_no_module_over_700_lines_except_generated_kernels():
    found = long_files(PACKAGE)
    assert found == [], (f"split these by concern (over {MAX_LINES} lines):\n" + "\n".join(found))


def test_the_generated_exceptions_exist_and_say_so():
    # an exception that no longer exists, or a hand-written file listed as generated, is stale
    for rel in GENERATED:
        assert (PACKAGE / rel).read_text(encoding="utf-8").startswith('"""GENERATED by '), rel


def test_the_length_check_names_each_offender_with_its_length(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "short.py").write_text("x = 1\n" * 5)
    (pkg / "sub" / "long.py").write_text("x = 1\n" * 6)
    (pkg / "sub" / "longer.py").write_text("x = 1\n" * 8)
    assert long_files(pkg, limit=5) == ["pkg/sub/long.py: 6 lines", "pkg/sub/longer.py: 8 lines"]
    assert long_files(pkg, limit=6) == ["pkg/sub/longer.py: 8 lines"]
