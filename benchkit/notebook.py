"""Notebooks as reports: execute and store them, export them as one offline HTML file.

A benchkit notebook is committed executed, and must read as a report wherever it is opened:
JupyterLab with or without a kernel, trusted or not, nbconvert HTML, a code host's viewer. Every
chart and explorer output is one MIME bundle (live view, PNG at 2x with alt text, caption; see
:mod:`benchkit.charts._display`). This module holds the two steps that turn such a notebook into a
report:

- :func:`execute_notebook` runs a notebook top to bottom with nbclient in its own folder and stores
  it in place with :func:`drop_live_views` applied: every widget view is removed from the stored
  outputs (ipywidgets cannot draw a view whose kernel is gone: "Error displaying widget: model not
  found"), so each chart and explorer is stored as its PNG and caption. ``scripts/execute_notebooks.py``
  is the command that does this for the repository's notebooks.
- :class:`OfflineHTMLExporter` (``jupyter nbconvert --to benchkit.notebook.OfflineHTMLExporter``)
  and :func:`notebook_to_html`: nbconvert's JupyterLab HTML with no request leaving the file. The
  template ``benchkit_offline`` (shipped in ``benchkit/templates/``) drops require.js, MathJax,
  mermaid and the widget manager (all loaded from CDNs by nbconvert's default template), forbids
  every load with a Content-Security-Policy (images from ``data:`` only, no script), gives each
  PNG its alt text and CSS size, and TeX in markdown is converted to MathML (latex2mathml), which
  browsers draw natively; TeX it cannot convert is shown as its source, in a ``<code>`` element.

This module needs the Jupyter extra (nbformat, nbclient, nbconvert).
"""
from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError

_INSTALL_HINT = ("benchkit.notebook needs nbformat, nbclient, nbconvert and latex2mathml; install them "
                 "with: pip install 'benchkit[jupyter]'")
try:
    import nbformat
    from jinja2 import pass_context
    from nbconvert.exporters import HTMLExporter
    from nbconvert.filters.markdown_mistune import IPythonRenderer
    from nbconvert.filters.markdown_mistune import MarkdownWithMath
    from nbconvert.preprocessors import Preprocessor
    from traitlets import default
except ImportError as _exc:  # pragma: no cover - exercised without the extra
    raise ImportError(_INSTALL_HINT) from _exc

__all__ = ["OfflineHTMLExporter", "WIDGET_VIEW", "drop_live_views", "execute_notebook", "notebook_to_html"]

#: the mimetype of a live widget view in an output bundle
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
TEMPLATES = Path(__file__).resolve().parent / "templates"
#: the Content-Security-Policy of exported pages: nothing is loaded, no script runs
CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; "
       "base-uri 'none'; form-action 'none'")


def drop_live_views(nb: Any) -> int:
    """Remove every widget view from ``nb``'s outputs and its saved widget state, in place.

    An output that held a widget view keeps its other mimetypes: the PNG and caption of a benchkit
    chart or explorer, or the ``text/plain`` of any other widget.

    Parameters
    ----------
    nb : nbformat.NotebookNode or dict
        A notebook (version 4), changed in place.

    Returns
    -------
    int
        The number of widget views removed.

    References
    ----------
    The Jupyter widgets message and MIME specification (``application/vnd.jupyter.widget-view+json``),
    https://github.com/jupyter-widgets/ipywidgets/blob/main/packages/schema/messages.md; the notebook
    format, https://nbformat.readthedocs.io/en/latest/format_description.html.

    Examples
    --------
    >>> import nbformat
    >>> from benchkit.notebook import WIDGET_VIEW, drop_live_views
    >>> nb = nbformat.v4.new_notebook()
    >>> out = nbformat.v4.new_output("display_data", data={
    ...     WIDGET_VIEW: {"model_id": "ab" * 16, "version_major": 2, "version_minor": 1},
    ...     "image/png": "iVBORw0KGgo=", "text/plain": "Accuracy per model."})
    >>> nb.cells.append(nbformat.v4.new_code_cell("show(chart)", outputs=[out]))
    >>> drop_live_views(nb)
    1
    >>> sorted(nb.cells[0].outputs[0].data)
    ['image/png', 'text/plain']
    """
    if not isinstance(nb, dict) or "cells" not in nb:
        raise BenchkitTypeError(f"nb must be a notebook (nbformat.NotebookNode), got {type(nb).__name__}")
    removed = 0
    for cell in nb["cells"]:
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            data = out.get("data", {})
            if WIDGET_VIEW in data:
                del data[WIDGET_VIEW]
                out.get("metadata", {}).pop(WIDGET_VIEW, None)
                removed += 1
    nb.get("metadata", {}).pop("widgets", None)
    return removed


def execute_notebook(path: str | Path, *, timeout: int = 1800, kernel_name: str = "python3",
                     pythonpath: str | Path | None = None) -> Any:
    """Run the notebook at ``path`` top to bottom and store it in place as a report.

    Parameters
    ----------
    path : str or Path
        An ``.ipynb`` file; it runs in its own folder (relative paths in it work as in JupyterLab).
    timeout : int
        Seconds allowed per cell.
    kernel_name : str
        Jupyter kernel to run it with.
    pythonpath : str or Path, optional
        Put first on the kernel's ``PYTHONPATH`` (a checkout whose ``benchkit`` the kernel must
        import).

    Returns
    -------
    nbformat.NotebookNode
        The executed notebook as written: widget views dropped (:func:`drop_live_views`), no
        per-cell timing metadata. A cell error stops the run and raises nbclient's
        ``CellExecutionError``; the file is then left unchanged.

    References
    ----------
    nbclient, "Executing notebooks", https://nbclient.readthedocs.io/en/latest/client.html.

    Examples
    --------
    The repository's notebooks are refreshed this way (``scripts/execute_notebooks.py``); it starts a
    kernel and runs every cell, so it is not run here:

    >>> from benchkit.notebook import execute_notebook
    >>> nb = execute_notebook("notebooks/00_quickstart.ipynb")  # doctest: +SKIP
    """
    from nbclient import NotebookClient

    path = Path(path)
    if path.suffix != ".ipynb" or not path.is_file():
        raise BenchkitValueError(f"path={str(path)!r} is not an existing .ipynb notebook")
    nb = nbformat.read(path, as_version=4)
    env_before = os.environ.get("PYTHONPATH")
    if pythonpath is not None:
        os.environ["PYTHONPATH"] = os.pathsep.join([str(pythonpath), *filter(None, [env_before])])
    try:
        client = NotebookClient(nb, timeout=timeout, kernel_name=kernel_name, record_timing=False,
                                resources={"metadata": {"path": str(path.resolve().parent)}})
        client.execute()
    finally:
        if pythonpath is not None:
            if env_before is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = env_before
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    drop_live_views(nb)
    nbformat.validate(nb)
    nbformat.write(nb, path)
    return nb


_MATHML_NS = "{http://www.w3.org/1998/Math/MathML}"
_MATHML_TAGS = frozenset((
    "math mrow mi mn mo mtext mspace ms mfrac msqrt mroot mstyle merror mpadded mphantom mfenced "
    "menclose msub msup msubsup munder mover munderover mmultiscripts mprescripts none mtable mtr "
    "mtd mlabeledtr semantics annotation maligngroup malignmark mlongdiv mstack msgroup msrow "
    "mscarries mscarry msline").split())


def _safe_mathml(markup: str) -> bool:
    r"""True when ``markup`` is one well-formed tree of MathML elements with no risky attribute.

    No event-handler, link, source or style attribute either. latex2mathml copies ``\text{...}``
    into the markup unescaped, so TeX from a notebook could otherwise close the element and inject
    HTML.
    """
    import xml.etree.ElementTree as ET

    try:
        root = ET.fromstring(markup)
    except ET.ParseError:
        return False
    for el in root.iter():
        if not el.tag.startswith(_MATHML_NS) or el.tag[len(_MATHML_NS):] not in _MATHML_TAGS:
            return False
        if any(a.lower().startswith("on") or a.rpartition("}")[2].lower() in ("href", "src", "style")
               for a in el.attrib):
            return False
    return True


def _math(tex: str, display: str) -> str:
    """TeX as MathML (latex2mathml), else its escaped source in a <code> element.

    The source is shown when latex2mathml cannot convert the TeX or its conversion is not plain
    MathML (:func:`_safe_mathml`).
    """
    try:
        from latex2mathml.converter import convert
    except ImportError:  # pragma: no cover - latex2mathml is in the jupyter extra
        raise ImportError(_INSTALL_HINT) from None
    try:
        markup = convert(tex, display=display)
    except Exception:  # latex2mathml raises assorted errors on TeX it does not know
        markup = ""
    if markup and _safe_mathml(markup):
        return markup
    return f'<code class="bk-tex">{html.escape(tex)}</code>'


class _MathMLRenderer(IPythonRenderer):
    """nbconvert's markdown renderer with TeX drawn as MathML instead of left for MathJax."""

    def block_math(self, body: str) -> str:
        return _math(body, "block")

    def inline_math(self, body: str) -> str:
        return _math(body, "inline")

    def latex_environment(self, name: str, body: str) -> str:
        return _math(f"\\begin{{{name}}}{body}\\end{{{name}}}", "block")


class _DropLiveViews(Preprocessor):
    """The export step of :func:`drop_live_views`, on nbconvert's copy of the notebook.

    It also hands the template its Content-Security-Policy (``resources["benchkit_csp"]``).
    """

    def preprocess(self, nb, resources):
        drop_live_views(nb)
        resources["benchkit_csp"] = CSP
        return nb, resources


class OfflineHTMLExporter(HTMLExporter):
    """nbconvert's JupyterLab HTML with nothing loaded from the network (template ``benchkit_offline``).

    ``jupyter nbconvert --to benchkit.notebook.OfflineHTMLExporter notebook.ipynb`` writes
    ``notebook.html``; :func:`notebook_to_html` does the same from Python. See the module
    docstring for what the template changes.

    Parameters
    ----------
    config : traitlets.config.Config, optional
        nbconvert configuration, as for any exporter.
    **kw
        Other exporter traits (``embed_images``, ``exclude_input``, ...).

    References
    ----------
    nbconvert, "Customizing exporters" and the ``lab`` HTML template,
    https://nbconvert.readthedocs.io/en/latest/external_exporters.html.

    Examples
    --------
    >>> import nbformat
    >>> from benchkit.notebook import OfflineHTMLExporter
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A report")])
    >>> body, _ = OfflineHTMLExporter().from_notebook_node(nb)
    >>> "<script" in body, "Content-Security-Policy" in body
    (False, True)
    """

    export_from_notebook = "benchkit offline HTML"

    def _template_name_default(self):
        return "benchkit_offline"

    def _init_preprocessors(self):
        super()._init_preprocessors()
        self.register_preprocessor(_DropLiveViews, enabled=True)

    @default("extra_template_basedirs")
    def _benchkit_template_basedirs(self):
        return [str(TEMPLATES), os.getcwd()]

    @pass_context
    def markdown2html(self, context, source):
        """Markdown to HTML with TeX as MathML (no MathJax)."""
        cell = context.get("cell", {})
        path = context.get("resources", {}).get("metadata", {}).get("path", "")
        renderer = _MathMLRenderer(escape=False, attachments=cell.get("attachments", {}),
                                   embed_images=self.embed_images, path=path,
                                   anchor_link_text=self.anchor_link_text,
                                   exclude_anchor_links=self.exclude_anchor_links, **self.lexer_options)
        return MarkdownWithMath(renderer=renderer).render(source)


def notebook_to_html(path: str | Path, *, out: str | Path | None = None) -> str:
    """One self-contained, offline HTML file of an executed notebook (:class:`OfflineHTMLExporter`).

    Parameters
    ----------
    path : str or Path
        An executed ``.ipynb`` file (see :func:`execute_notebook`).
    out : str or Path, optional
        Also write the page there (UTF-8).

    Returns
    -------
    str
        The HTML: the notebook's inputs and outputs with JupyterLab's styles inlined, every image
        embedded, TeX as MathML, a Content-Security-Policy that forbids any request (``CSP``)
        and no script.

    References
    ----------
    nbconvert, "Using as a library", https://nbconvert.readthedocs.io/en/latest/nbconvert_library.html.

    Examples
    --------
    >>> import tempfile, pathlib, nbformat
    >>> from benchkit.notebook import notebook_to_html
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("Accuracy $p = k / T$")])
    >>> nbformat.write(nb, folder / "report.ipynb")
    >>> page = notebook_to_html(folder / "report.ipynb", out=folder / "report.html")
    >>> "<math" in page, (folder / "report.html").exists()
    (True, True)
    """
    path = Path(path)
    if path.suffix != ".ipynb" or not path.is_file():
        raise BenchkitValueError(f"path={str(path)!r} is not an existing .ipynb notebook")
    body, _ = OfflineHTMLExporter().from_filename(str(path))
    if out is not None:
        Path(out).write_text(body, encoding="utf-8")
    return body
