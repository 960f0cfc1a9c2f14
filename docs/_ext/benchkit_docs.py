"""Sphinx extension of the benchkit docs: the pages that are generated from the code at build time.

- ``api/``: one page per public module (every module of the package with no ``_`` in its dotted
  path, except the command line ``benchkit.cli``), listing exactly the names of its ``__all__``.
  Each object is documented once, on the shallowest module that exports it (``benchkit.boundary``
  rather than ``benchkit.boundary.responses``); a module that only re-exports gets no page. So a
  renamed, added or removed name, or a new module (``benchkit.<method>.steps``), needs no edit in
  the docs.
- ``notebooks/``: copies of ``../notebooks/*.ipynb`` with their stored outputs (each chart and
  explorer stored as its PNG; a live widget view, which needs a kernel, is dropped).
- the ``benchkit-cli`` directive: ``benchkit --help`` and each subcommand's help, from the argparse
  parser itself.
- MathJax 3 (SVG output, one file, no font requests) copied from the installed
  ``sphinx-mathjax-offline`` package into ``_static/mathjax``.

Generated files are rewritten only when their text changes, so incremental builds stay quick;
``docs/api/`` and ``docs/notebooks/`` are build products (git-ignored).
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import json
import os
import pkgutil
import shutil
import warnings
from pathlib import Path

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import make_refnode

from benchkit.notebook import drop_live_views

LOGGER = logging.getLogger(__name__)
DOCS = Path(__file__).resolve().parents[1]
REPO = DOCS.parent
API_DIR = DOCS / "api"
NOTEBOOK_DIR = DOCS / "notebooks"
MATHJAX_FILE = "tex-svg-full.js"

# Sections of the API index: top-level module name -> section. A top-level module not listed here
# (a new method) lands in "Across methods", so no edit is needed to have it documented.
API_SECTIONS = {
    "The data container": ["benchkit", "benchkit.response_set"],
    "Methods (one per paper)": ["benchkit.boundary", "benchkit.dif", "benchkit.measure",
                                "benchkit.landscape", "benchkit.quality"],
    "Across methods": [],
    "Reading and simulating data": ["benchkit.io", "benchkit.datasets", "benchkit.simulate"],
    "Shared layers": ["benchkit.stats", "benchkit.irt", "benchkit.subsets", "benchkit.model_names"],
    "Charts and explorers (Jupyter extra)": ["benchkit.charts", "benchkit.widgets"],
}
OTHER_SECTION = "Across methods"


# ---------------------------------------------------------------------------------- helpers

def _write_if_changed(path: Path, text: str) -> None:
    """Write ``text`` unless the file already holds it (Sphinx then keeps its cached reading)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _remove_stale(folder: Path, keep: set[str], pattern: str) -> None:
    """Delete the generated files of ``folder`` that are no longer generated (a removed module)."""
    for old in folder.glob(pattern):
        if old.name not in keep:
            old.unlink()


# ---------------------------------------------------------------------------------- API pages

def public_modules() -> list[str]:
    """Every public module of benchkit, parents before children (the rule of test_public_api)."""
    import benchkit

    names = ["benchkit"]
    for info in pkgutil.walk_packages(benchkit.__path__, prefix="benchkit."):
        if not any(part.startswith("_") for part in info.name.split(".")) and info.name != "benchkit.cli":
            names.append(info.name)
    return sorted(names)


def _kind(obj) -> str:
    """``"class"``, ``"function"`` (any other callable) or ``"data"``."""
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "data"


#: (name, id(object)) -> the module that documents it; filled by :func:`api_contents`.
OWNERS: dict[tuple[str, int], str] = {}


def api_contents() -> dict[str, dict[str, list[str]]]:
    """What each public module's page lists: module -> kind -> names.

    Kinds ``"function"``, ``"class"`` and ``"data"`` hold the names the module documents;
    ``"reexport"`` the full names of what it exports but a shallower module (or, at one depth, an
    alphabetically earlier one) documents, so each object is documented once. Fills :data:`OWNERS`.
    """
    OWNERS.clear()
    contents: dict[str, dict[str, list[str]]] = {}
    for modname in sorted(public_modules(), key=lambda m: (m.count("."), m)):
        module = importlib.import_module(modname)
        kinds: dict[str, list[str]] = {"function": [], "class": [], "data": [], "reexport": []}
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.ismodule(obj):
                continue
            key = (name, id(obj))
            if key in OWNERS:
                kinds["reexport"].append(f"{OWNERS[key]}.{name}")
                continue
            OWNERS[key] = modname
            kinds[_kind(obj)].append(name)
        contents[modname] = kinds
    return dict(sorted(contents.items()))


def _children(modname: str, pages: list[str]) -> list[str]:
    """The direct sub-modules of ``modname`` among ``pages``."""
    depth = modname.count(".") + 1
    return [m for m in pages if m.startswith(modname + ".") and m.count(".") == depth]


def _module_page(modname: str, kinds: dict[str, list[str]], children: list[str]) -> str:
    """The reStructuredText of one module's page: its docstring, sub-modules, summary tables, entries."""
    title = f"``{modname}``"
    lines = [title, "=" * len(title), "", f".. automodule:: {modname}", "",
             f".. currentmodule:: {modname}", ""]
    if children:
        short = [c.rpartition(".")[2] for c in children]  # autosummary wants them relative
        lines += [".. rubric:: Sub-modules", "", ".. autosummary::", "", *[f"   {c}" for c in short], "",
                  ".. toctree::", "   :hidden:", "", *[f"   {c}" for c in children], ""]
    headings = {"function": "Functions", "class": "Classes", "data": "Constants",
                "reexport": "Also exported here (documented where shown)"}
    listed = [(kind, sorted(kinds[kind], key=str.lower)) for kind in headings]
    listed = [(kind, names) for kind, names in listed if names]
    for kind, names in listed:
        lines += [f".. rubric:: {headings[kind]}", "", ".. autosummary::", "",
                  *[f"   {n}" for n in names], ""]
    for kind, names in listed:
        for name in names:
            if kind == "function":
                lines += [f".. autofunction:: {name}", ""]
            elif kind == "class":
                lines += [f".. autoclass:: {name}", "   :members:", ""]
            elif kind == "data":
                lines += [f".. autodata:: {name}", "   :no-value:", ""]
    return "\n".join(lines)


def write_api_pages(app=None) -> None:
    """Write ``api/<module>.rst`` for every public module and ``api/index.rst`` (builder-inited)."""
    contents = api_contents()
    pages = list(contents)
    top = [m for m in pages if m.count(".") <= 1]
    written = set()
    for modname in pages:
        children = _children(modname, pages) if modname != "benchkit" else []
        _write_if_changed(API_DIR / f"{modname}.rst", _module_page(modname, contents[modname], children))
        written.add(f"{modname}.rst")
    sections = {title: [m for m in mods if m in top] for title, mods in API_SECTIONS.items()}
    known = {m for mods in API_SECTIONS.values() for m in mods}
    sections[OTHER_SECTION] += [m for m in top if m not in known]
    lines = ["API reference", "=============", "",
             "Generated at build time from each public module's ``__all__``: every public name, "
             "documented once, on the shallowest module that exports it (a module that re-exports "
             "a name links to it). A method's page lists what a user calls on a ResponseSet; its "
             "sub-modules hold the rest (the array-level steps, the explorers' view models). The "
             "compute packages import nothing from Jupyter; :mod:`benchkit.charts` and "
             ":mod:`benchkit.widgets` need the ``jupyter`` extra.", ""]
    for title, mods in sections.items():
        if not mods:
            continue
        lines += [title, "-" * len(title), "", ".. autosummary::", "", *[f"   {m}" for m in mods], "",
                  ".. toctree::", "   :hidden:", "", *[f"   {m}" for m in mods], ""]
    _write_if_changed(API_DIR / "index.rst", "\n".join(lines))
    written.add("index.rst")
    _remove_stale(API_DIR, written, "*.rst")


# ---------------------------------------------------------------------------------- notebooks

def copy_notebooks(app=None) -> None:
    """Copy ``../notebooks/*.ipynb`` into ``notebooks/``, live widget views dropped.

    The committed notebooks hold none (``scripts/execute_notebooks.py`` stores each chart and explorer
    as its PNG); :func:`benchkit.notebook.drop_live_views` guards a notebook saved from a live session.
    """
    written = set()
    for src in sorted((REPO / "notebooks").glob("*.ipynb")):
        nb = json.loads(src.read_text(encoding="utf-8"))
        drop_live_views(nb)
        _write_if_changed(NOTEBOOK_DIR / src.name, json.dumps(nb, indent=1) + "\n")
        written.add(src.name)
    _remove_stale(NOTEBOOK_DIR, written, "*.ipynb")


# ---------------------------------------------------------------------------------- command line

@contextlib.contextmanager
def _columns(n: int):
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(n)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old


def cli_helps() -> list[tuple[str, str]]:
    """``(command, help text)`` for ``benchkit`` and each subcommand, from the parser itself."""
    import argparse

    from benchkit.cli import build_parser

    parser = build_parser()
    with _columns(100):
        out = [(parser.prog, parser.format_help())]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                out += [(sub.prog, sub.format_help()) for sub in action.choices.values()]
    return out


class CliHelp(SphinxDirective):
    """``benchkit-cli``: one section per command with its ``--help`` text."""

    has_content = False

    def run(self):
        """One section per command: its title and its help as a literal block."""
        out = []
        for prog, text in cli_helps():
            section = nodes.section(ids=[nodes.make_id(prog)], names=[nodes.fully_normalize_name(prog)])
            command = f"{prog} --help"
            section += nodes.title("", "", nodes.literal(command, command))  # literal: no smart dashes
            section += nodes.literal_block(text, text, language="text")
            self.state.document.note_implicit_target(section)
            out.append(section)
        return out


# ---------------------------------------------------------------------------------- MathJax

def mathjax_source() -> Path:
    """The MathJax file of the installed sphinx-mathjax-offline package (with an install hint)."""
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or spec.origin is None:
        raise RuntimeError("the docs need the sphinx-mathjax-offline package (MathJax without a CDN): "
                           "pip install 'benchkit[docs]'")
    path = Path(spec.origin).parent / "static" / "mathjax" / MATHJAX_FILE
    if not path.is_file():
        raise RuntimeError(f"{path} is missing from the installed sphinx-mathjax-offline package")
    return path


def copy_mathjax(app, exc) -> None:
    """Copy MathJax into the built ``_static/mathjax`` (build-finished; ``mathjax_path`` in conf.py)."""
    if exc is None and app.builder.format == "html":
        dest = Path(app.outdir) / "_static" / "mathjax"
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(mathjax_source(), dest / MATHJAX_FILE)


# ---------------------------------------------------------------------------------- docstrings

def check_sections(app, what, name, obj, options, lines) -> None:
    """Warn about a docstring section numpydoc does not know (autodoc-process-docstring).

    numpydoc drops such a section from the page with only a Python warning; here it is a Sphinx
    warning naming the object, so ``-W`` fails the build. Runs before numpydoc (priority 400).
    Module docstrings are free-form and not checked.
    """
    if what == "module":
        return
    from numpydoc.docscrape import NumpyDocString

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        NumpyDocString("\n".join(lines))
    for w in caught:
        if "Unknown section" in str(w.message):
            LOGGER.warning("%s: %s; numpydoc would drop it from the page (use Notes or another "
                           "numpydoc section)", name, str(w.message).split(" in the docstring")[0])


# ---------------------------------------------------------------------------------- references

def _external_or_private(target: str) -> bool:
    """Whether ``target`` names another library's object or a private benchkit one.

    Another library: ``numpy.histogram``, ``zipfile``; private: ``benchkit._random``.
    """
    parts = target.split(".")
    if parts[0] == "benchkit":
        return any(p.startswith("_") for p in parts)
    with contextlib.suppress(ImportError, ValueError):
        return importlib.util.find_spec(parts[0]) is not None
    return False


def _distinct(matches):
    """Matches of one object once (Sphinx also records it under its defining module's name)."""
    seen = {}
    for fullname, obj in matches:
        if (obj.docname, obj.node_id) not in seen or not obj.aliased:
            seen[obj.docname, obj.node_id] = (obj.node_id, obj)
    return list(seen.values())


def _documented_name(target: str) -> str | None:
    """The full name a dotted path through a public module is documented under.

    ``benchkit.landscape.explore.LandscapeView.flow`` -> its owner module's name (:data:`OWNERS`)
    followed by the rest of the path, found by importing the longest module prefix.
    """
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        name = parts[cut]
        owner = OWNERS.get((name, id(getattr(obj, name, None))))
        return ".".join([owner, *parts[cut:]]) if owner else None
    return None


def _class_of_attribute(domain, env, node, target: str) -> str | None:
    """The documented class that has ``target``'s last part as an attribute.

    A dataclass field, a traitlet or a property: ``:attr:`report``` inside ResponseSet's
    docstrings, ``:attr:`RunResult.records```.
    """
    *head, attr = target.split(".")
    if head:
        found = domain.find_obj(env, node.get("py:module"), None, ".".join(head), "class", 1)
    else:
        found = domain.find_obj(env, node.get("py:module"), None, node.get("py:class") or "", "class", 1)
    found = _distinct(found)
    if len(found) != 1:
        return None
    fullname = found[0][0]
    modname, _, clsname = fullname.rpartition(".")
    cls = getattr(importlib.import_module(modname), clsname, None)
    fields = getattr(cls, "__dataclass_fields__", {})
    return fullname if cls is not None and (attr in fields or hasattr(cls, attr)) else None


def resolve_reference(app, env, node, contnode):
    """Resolve what Python's domain leaves unresolved, or leave the warning.

    A stale name then fails the build (``-n -W``).

    In order: a short name resolves to the one documented object whose full name ends with it (as
    a leading ``.`` would: ``:meth:`ResponseSet.from_long```, a property named with ``:meth:``); a
    full dotted path through any public module (``benchkit.boundary.steps.x``) to where the
    object is documented; an attribute (a dataclass field, a traitlet) to its documented class. A
    reference to another library or to a private benchkit name is shown as code without a link:
    the site has no network, hence no intersphinx, and private names are not documented.
    """
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip(".~")
    domain = env.get_domain("py")

    def link(fullname: str):
        obj = domain.objects[fullname]
        return make_refnode(app.builder, node["refdoc"], obj.docname, obj.node_id, contnode, fullname)

    for objtype in (node["reftype"], None):  # the role's object types, then any
        matches = domain.find_obj(env, node.get("py:module"), node.get("py:class"), target, objtype, 1)
        matches = _distinct(matches)
        if len(matches) == 1:
            return link(matches[0][0])
    fullname = _documented_name(target) if target.startswith("benchkit.") else None
    if fullname in domain.objects:
        return link(fullname)
    if node["reftype"] in ("attr", "meth", "obj"):
        fullname = _class_of_attribute(domain, env, node, target)
        if fullname:
            return link(fullname)
    if _external_or_private(target):
        return contnode
    return None


def generate(app) -> None:
    """Write the generated pages before Sphinx reads the sources (builder-inited)."""
    write_api_pages(app)
    copy_notebooks(app)
    mathjax_source()  # fail early, not after the whole build


def setup(app):
    """Register the extension's event handlers and the ``benchkit-cli`` directive."""
    app.connect("builder-inited", generate)
    app.connect("build-finished", copy_mathjax)
    app.add_directive("benchkit-cli", CliHelp)
    app.connect("missing-reference", resolve_reference)
    app.connect("autodoc-process-docstring", check_sections, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
