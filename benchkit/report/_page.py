"""HTML pieces of the report: escaping, tables, inline SVG, the page with its CSP and print CSS.

Every string that can come from a user's file goes through :func:`text` (control and format
characters made visible by :func:`benchkit._terminal.escape`, then HTML-escaped, quotes included),
so a model called ``</script><img src=x onerror=alert(1)>`` is shown as those characters. The
Content-Security-Policy is the second wall: no request may leave the file (``default-src 'none'``;
images from ``data:``/``blob:`` only) and the only scripts that run are the report's own inline
module, allowed by its sha256, and the explorer modules it imports from ``blob:`` URLs; an injected
``<script>`` or ``onerror=`` attribute would not run even if it reached the page.
"""
from __future__ import annotations

import base64
import hashlib
import html
import re
from collections.abc import Iterable
from collections.abc import Sequence
from xml.etree import ElementTree

import numpy as np
import pandas as pd

from benchkit._terminal import escape
from benchkit._validation import BenchkitValueError


def text(value) -> str:
    """``value`` as HTML text: terminal escapes made visible, then ``& < > " '`` escaped."""
    return html.escape(escape(value), quote=True)


def preformatted(value) -> str:
    """``value`` as a ``<pre>`` block: like :func:`text`, but its line breaks kept (code, commands)."""
    return f"<pre>{html.escape(escape(value, keep_newlines=True), quote=True)}</pre>"


def _cell(value) -> str:
    if isinstance(value, (float, np.floating)):
        return "" if np.isnan(value) else f"{value:.4g}"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else ""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, (list, tuple, np.ndarray)):
        return text(", ".join(str(v) for v in value))
    return text(value)


def table(frame: pd.DataFrame, *, max_rows: int | None = None, index: bool = False,
          caption: str | None = None) -> str:
    """``frame`` as an escaped HTML table (numbers to 4 significant digits), at most ``max_rows`` rows."""
    shown = frame if max_rows is None else frame.head(max_rows)
    if index:
        shown = shown.reset_index()
    head = "".join(f"<th scope=\"col\">{text(c)}</th>" for c in shown.columns)
    numeric = [pd.api.types.is_numeric_dtype(shown[c]) and not pd.api.types.is_bool_dtype(shown[c])
               for c in shown.columns]
    rows = []
    for values in shown.itertuples(index=False, name=None):
        cells = "".join(f"<td class=\"num\">{_cell(v)}</td>" if num else f"<td>{_cell(v)}</td>"
                        for v, num in zip(values, numeric))
        rows.append(f"<tr>{cells}</tr>")
    more = ""
    if max_rows is not None and len(frame) > max_rows:
        more = f"<p class=\"more\">{max_rows:,} of {len(frame):,} rows shown (--max-items).</p>"
    cap = f"<caption>{text(caption)}</caption>" if caption else ""
    return (f"<div class=\"table\"><table>{cap}<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}"
            f"</tbody></table></div>{more}")


def definition_list(pairs: Iterable[tuple[str, object]]) -> str:
    """Term / value pairs; a list value is shown as a bulleted list."""
    def value(v) -> str:
        if isinstance(v, list):
            return "<ul>" + "".join(f"<li>{text(x)}</li>" for x in v) + "</ul>" if v else "nothing"
        return _cell(v)

    return "<dl>" + "".join(f"<dt>{text(k)}</dt><dd>{value(v)}</dd>" for k, v in pairs) + "</dl>"


_SVG_ACTIVE = {"script", "foreignobject", "iframe", "image", "use", "animate", "set", "handler"}


def _svg_is_inert(body: str) -> bool:
    """No element or attribute that runs code or loads something (checked on the parsed XML)."""
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError:
        return False
    for el in root.iter():
        if el.tag.rsplit("}", 1)[-1].lower() in _SVG_ACTIVE:
            return False
        for name, value in el.attrib.items():
            name = name.rsplit("}", 1)[-1].lower()
            if name.startswith("on") or (name == "href" and not value.startswith("#")) or \
                    "url(" in value.replace("url(#", ""):
                return False
    return True


#: vl-convert measures "sans-serif" text with Liberation Sans (Arial's metrics); the browser draws
#: it with these, else its own sans-serif (which may be wider: the figure leaves room, see CSS)
SVG_FONTS = "Liberation Sans, Arimo, Arial, Helvetica, sans-serif"


def _own_ids(svg: str) -> str:
    """``svg`` with its element ids renumbered under a digest of the figure.

    vl-convert numbers gradients and clip paths per process (``gradient_2``): renumbered, figures
    in one page never share an id and the same figure gets the same ids in every run.
    """
    ids = list(dict.fromkeys(re.findall(r'\sid="([^"]+)"', svg)))
    if not ids:
        return svg
    number = {old: str(k) for k, old in enumerate(ids)}
    pattern = re.compile(r'(\sid="|url\(#|href="#)(' + "|".join(re.escape(i) for i in ids) + r')(?=[")])')
    numbered = pattern.sub(lambda m: f"{m.group(1)}@{number[m.group(2)]}", svg)
    prefix = "f" + hashlib.sha256(numbered.encode()).hexdigest()[:10] + "-"
    return numbered.replace('id="@', f'id="{prefix}').replace("url(#@", f"url(#{prefix}") \
        .replace('href="#@', f'href="#{prefix}')


def inline_svg(svg: str, alt: str) -> str:
    """An SVG from vl-convert inlined as a figure image (role img, the alt text as its label).

    vl-convert escapes the text it draws; the figure is refused if it holds anything active (a
    script, an event attribute, an external reference), which no chart of benchkit's has. Its text
    is drawn in the font family vl-convert measured it with where the reader has it (Arial's
    metrics); a wider fallback font overflows the chart's box visibly, into the figure's margin,
    instead of being cut.
    """
    body = svg[svg.index("<svg"):] if "<svg" in svg else ""
    if not body or not _svg_is_inert(body):
        raise BenchkitValueError("a chart's SVG holds active content or is not SVG; not embedded")
    body = _own_ids(body)
    body = body.replace("<svg", f"<svg role=\"img\" aria-label=\"{text(alt)}\"", 1)
    body = body.replace('font-family="sans-serif"', f'font-family="{SVG_FONTS}"')
    return f"<figure>{body}<figcaption>{text(alt)}</figcaption></figure>"


def csp(script_hashes: Sequence[str]) -> str:
    """The report's Content-Security-Policy; ``script-src 'none'`` when there is no script (--static)."""
    scripts = " ".join(f"'sha256-{h}'" for h in script_hashes)
    script_src = f"{scripts} blob:" if scripts else "'none'"
    return (f"default-src 'none'; script-src {script_src}; style-src 'unsafe-inline'; img-src data: blob:; "
            "font-src data:; connect-src 'none'; media-src 'none'; object-src 'none'; frame-src 'none'; "
            "worker-src 'none'; base-uri 'none'; form-action 'none'")


def script_hash(source: str) -> str:
    return base64.b64encode(hashlib.sha256(source.encode()).digest()).decode()


CSS = """
:root { --ink: #1b1b1b; --muted: #5b5b5b; --rule: #d9d9d9; --flag: #a40000; --accent: #174ea6; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); margin: 0; }
main { max-width: 1100px; margin: 0 auto; padding: 1rem 1.5rem 4rem; }
header.report { border-bottom: 2px solid var(--ink); margin-bottom: 1rem; }
h1 { font-size: 1.7rem; margin: .5rem 0 .25rem; }
h2 { font-size: 1.3rem; border-bottom: 1px solid var(--rule); padding-bottom: .2rem; margin-top: 2.2rem; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
p.lead { color: var(--muted); margin-top: 0; }
nav.toc ol { columns: 2; padding-left: 1.2rem; }
nav.toc a, a { color: var(--accent); }
.table { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: 13px; margin: .4rem 0; }
caption { text-align: left; font-weight: 600; padding: .2rem 0; }
th, td { border-bottom: 1px solid var(--rule); padding: 2px 8px; text-align: left; vertical-align: top;
  max-width: 28rem; overflow-wrap: break-word; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; font-size: 14px; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
dd ul { margin: 0; padding-left: 1.1rem; }
figure { margin: .8rem 0; padding: 0 6%; max-width: 88%; }
figure svg { max-width: 100%; height: auto; overflow: visible; }
figcaption { color: var(--muted); font-size: 13px; }
.headline { display: flex; flex-wrap: wrap; gap: .5rem 1.6rem; margin: .5rem 0; }
.headline div { min-width: 8rem; }
.headline b { display: block; font-size: 1.15rem; font-variant-numeric: tabular-nums; }
.headline span { color: var(--muted); font-size: 13px; }
.notrun li { margin: .3rem 0; }
.more { color: var(--muted); font-size: 13px; }
pre, code { font: 13px/1.4 ui-monospace, "SFMono-Regular", Menlo, monospace; }
pre { background: #f6f6f6; padding: .6rem .8rem; overflow-x: auto; white-space: pre-wrap;
  overflow-wrap: anywhere; }
.explorer { border: 1px solid var(--rule); padding: .6rem; margin: .8rem 0; overflow-x: auto; }
.explorer > .hint { color: var(--muted); font-size: 13px; margin: 0 0 .4rem; }
.flagged { color: var(--flag); font-weight: 600; }
@media print {
  @page { margin: 16mm 14mm; }
  body { font-size: 11pt; }
  main { max-width: none; padding: 0; }
  nav.toc, .explorer, .no-print { display: none !important; }
  h2 { break-after: avoid; page-break-after: avoid; }
  h2, h3 { break-after: avoid; }
  figure, tr, dl, .headline { break-inside: avoid; page-break-inside: avoid; }
  .table { overflow: visible; }
  th, td { max-width: none; }
  a { color: inherit; text-decoration: none; }
}
"""


def page(*, title: str, body: str, head_extra: str = "", scripts: Sequence[str] = ()) -> str:
    """The whole document: CSP (hashes of ``scripts``), CSS, ``body``, then each script as a module."""
    hashes = [script_hash(s) for s in scripts]
    tags = "".join(f"<script type=\"module\">{s}</script>\n" for s in scripts)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{csp(hashes)}\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<meta name=\"referrer\" content=\"no-referrer\">\n"
            f"<title>{text(title)}</title>\n<style>{CSS}</style>\n{head_extra}</head>\n<body>\n<main>\n"
            f"{body}\n</main>\n{tags}</body>\n</html>\n")
