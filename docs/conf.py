"""Sphinx configuration of the benchkit documentation (``./dev docs`` builds it into docs/_build/html).

The site works offline: every page, opened from ``file://``, loads only files inside the built
folder (tests/test_docs.py checks it in headless chromium). MathJax comes from the installed
``sphinx-mathjax-offline`` package, no notebook widget script or CDN is linked, and the stored
notebook outputs are shown by their static images. The API reference, the notebook pages and the
command-line page are generated at build time by ``_ext/benchkit_docs.py`` from the code itself.
"""
from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

import benchkit  # noqa: E402

project = "benchkit"
author = "the benchkit authors"
copyright = "the benchkit authors, BSD-3-Clause"
release = version = benchkit.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
    "benchkit_docs",
]

exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]
# Every cross-reference must resolve (-n in ./dev docs and the test): a stale name fails the build.
nitpicky = True
suppress_warnings = []

# ----------------------------------------------------------------------------------- API reference
# One page per public module, generated from its __all__ (benchkit_docs.write_api_pages): the
# reference follows renames with no edit here.
autodoc_typehints = "none"            # the numpydoc Parameters section states each type
autodoc_member_order = "bysource"
autosummary_generate = False          # tables only; the pages themselves are written by benchkit_docs
numpydoc_show_class_members = False   # autodoc's :members: lists methods once
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False      # types stay text: "array_like, shape (items, models)"
numpydoc_attributes_as_param_list = True
# No numpydoc validation at build time (the docstring rules are checked by the test suite, and
# numpydoc's validator crashes on properties built with property(lambda ...)). What would spoil a
# page fails the build instead: docutils errors (-W) and a section numpydoc does not know, which
# it would drop from the page silently (benchkit_docs.check_sections makes that a warning).
numpydoc_validation_checks = set()

# ------------------------------------------------------------------------------------------ MyST
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "off"             # notebooks are committed executed; their stored outputs are shown
nb_ipywidgets_js = {}                 # no require.js / widget manager from a CDN
nb_merge_streams = True
# Static images first: a chart or explorer output is shown by its stored SVG/PNG, never by the live
# widget view (which needs a kernel) or by scripts.
nb_mime_priority_overrides = [
    ("*", "application/vnd.jupyter.widget-view+json", None),
    ("*", "application/javascript", None),
    ("html", "image/svg+xml", 10),
    ("html", "image/png", 11),
    ("html", "image/jpeg", 12),
    ("html", "text/html", 20),
]

# ------------------------------------------------------------------------------------------ HTML
html_theme = "pydata_sphinx_theme"
html_title = f"benchkit {release}"
html_static_path = ["_static"]
html_css_files = ["benchkit.css"]
html_show_sourcelink = False
html_copy_source = False
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 7,
    "navbar_end": ["theme-switcher"],
    "footer_start": ["copyright"],
    "footer_end": [],
    "secondary_sidebar_items": ["page-toc"],
}
html_sidebars = {"changelog": [], "bad-inputs": []}
html_context = {"default_mode": "light"}
# MathJax from the installed package, copied into _static by benchkit_docs (no CDN).
mathjax_path = "mathjax/tex-svg-full.js"
