"""One display per chart or explorer: the live view, a PNG a reader can read, a caption.

Every chart and explorer benchkit shows in a notebook is ONE output whose MIME bundle holds

- ``application/vnd.jupyter.widget-view+json``: the live view (an ``alt.JupyterChart`` bundled
  offline by vl-convert, or the explorer's anywidget), which JupyterLab renders while a kernel runs;
- ``image/png``: the same view drawn by vl-convert at 2x (:data:`SCALE`), with the output metadata
  ``{"image/png": {"width": w, "height": h, "alt": ...}}`` (``w`` x ``h`` CSS pixels, so the
  image shows at its natural size and stays sharp on high-density screens; ``alt`` describes the
  chart for screen readers and for pages where the image cannot load);
- ``text/plain``: a caption (the same description), never an object repr.

Why PNG and not SVG: JupyterLab renders only "safe" mimetypes (PNG, JPEG, text, markdown) in a
notebook the user has not trusted, so a stored SVG shows as text there. The PNG's text is also
drawn by vl-convert with the fonts it measured it with, so titles and labels cannot overflow the
image the way an SVG's text does when the browser substitutes a wider font.

Why one output: a live run shows each chart once (JupyterLab ranks the widget view first). A
notebook reopened without a kernel shows the PNG only once the widget view has been dropped from
the stored output: ipywidgets' renderer has no fallback and prints "Error displaying widget: model
not found" for a view whose model is gone. ``scripts/execute_notebooks.py`` (through
:func:`benchkit.notebook.drop_live_views`) therefore stores the committed notebooks with the PNG
and the caption only.
"""
from __future__ import annotations

import base64
import struct
from typing import Any

#: device pixels per CSS pixel of the stored images (sharp on 2x screens)
SCALE = 2
#: extra room (CSS px) around a static image, so that text whose measured width is a few pixels
#: short of its drawn width (rotated axis titles) stays inside the image
PADDING = 12

_MARK_NAMES = {"bar": "bar", "line": "line", "point": "scatter", "circle": "scatter", "square": "scatter",
               "area": "area", "rect": "heatmap", "rule": "rule", "text": "text", "tick": "tick",
               "boxplot": "box plot", "errorbar": "error bar", "errorband": "error band", "arc": "pie",
               "geoshape": "map", "trail": "trail", "image": "image"}
_CHANNELS = (("x", "x"), ("y", "y"), ("color", "colour"), ("fill", "fill"), ("size", "size"),
             ("shape", "shape"), ("column", "columns"), ("row", "rows"), ("facet", "panels"))
_CONCAT = ("layer", "hconcat", "vconcat", "concat")


def _title_text(title: Any) -> str:
    if isinstance(title, dict):
        title = title.get("text", "")
    if isinstance(title, (list, tuple)):
        return " ".join(str(t) for t in title if t)
    return str(title) if title else ""


def _units(spec: dict) -> list[dict]:
    """The unit specs (those with a mark) of a Vega-Lite spec, depth first."""
    if "mark" in spec:
        return [spec]
    out = []
    for key in _CONCAT:
        for child in spec.get(key, []) or []:
            out.extend(_units(child))
    for key in ("spec",):
        if isinstance(spec.get(key), dict):
            out.extend(_units(spec[key]))
    return out


def _title(spec: dict) -> str:
    """The spec's own title, else its first panel's."""
    own = _title_text(spec.get("title"))
    if own:
        return own
    for key in (*_CONCAT, "spec"):
        children = spec.get(key)
        for child in ([children] if isinstance(children, dict) else children or []):
            t = _title(child)
            if t:
                return t
    return ""


def _channel_title(enc: Any, *, explicit: bool) -> str:
    """The title an encoding channel shows; with ``explicit``, only a title given in the spec."""
    if not isinstance(enc, dict):
        return ""
    if "title" in enc:
        return _title_text(enc["title"])
    if explicit:
        return ""
    field = enc.get("field", "")
    return str(field.get("repeat", "")) if isinstance(field, dict) else str(field)


def describe(spec: dict) -> str:
    """A one-sentence description of a Vega-Lite spec: the alt text and caption of its image.

    Title, kind of chart (marks), number of panels, and what each encoding channel shows (its axis
    or legend title). Example: ``"Accuracy per model (ladder): bar chart; x: accuracy; colour:
    family."``
    """
    units = _units(spec)
    kinds = []
    for u in units:
        mark = u.get("mark")
        mark = mark.get("type") if isinstance(mark, dict) else mark
        kind = _MARK_NAMES.get(str(mark), str(mark))
        if kind not in kinds and kind not in ("rule", "text"):
            kinds.append(kind)
    encodings = [spec.get("encoding", {})] + [u.get("encoding", {}) for u in units]
    facet = spec.get("facet")
    if isinstance(facet, dict):
        encodings.insert(0, {k: v for k, v in facet.items() if k in ("row", "column")} if (
            "row" in facet or "column" in facet) else {"facet": facet})
    # each channel's first title given in the spec (an axis or legend title a reader sees), else
    # its first field name
    shown: dict[str, str] = {}
    for explicit in (True, False):
        for enc in encodings:
            for channel, name in _CHANNELS:
                t = _channel_title(enc.get(channel), explicit=explicit)
                if t and name not in shown:
                    shown[name] = t
    panels = sum(len(spec.get(k, []) or []) for k in ("hconcat", "vconcat", "concat"))
    parts = [" and ".join(kinds) + " chart" if kinds else "chart"]
    if panels > 1:
        parts[0] += f" in {panels} panels"
    parts += [f"{name}: {t}" for name, t in shown.items()]
    title = _title(spec)
    return (f"{title}: " if title else "") + "; ".join(parts) + "."


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) in device pixels, read from a PNG's IHDR chunk."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG image")
    return struct.unpack(">II", png[16:24])


def to_png(spec: dict, *, scale: int = SCALE) -> bytes:
    """A Vega-Lite spec drawn as a PNG by vl-convert (offline), with :data:`PADDING` around it.

    The background is opaque white (readable on a dark theme too) and the image is stored with a
    256-colour palette (:func:`compact_png`): a chart has few colours, so this keeps text and marks
    as drawn at a tenth of the size.
    """
    import vl_convert

    padded = dict(spec)
    padded["padding"] = PADDING
    padded["background"] = "white"
    return compact_png(vl_convert.vegalite_to_png(padded, scale=scale))


def compact_png(png: bytes) -> bytes:
    """``png`` with a 256-colour adaptive palette on white (Pillow); unchanged without Pillow."""
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow is in the jupyter extra
        return png
    import io

    with Image.open(io.BytesIO(png)) as im:
        rgba = im.convert("RGBA")
        flat = Image.new("RGB", rgba.size, (255, 255, 255))
        flat.paste(rgba, mask=rgba.getchannel("A"))
        out = io.BytesIO()
        flat.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(out, "PNG", optimize=True)
    return out.getvalue()


def image_bundle(png: bytes, alt: str, caption: str | None = None) -> tuple[dict, dict]:
    """``(data, metadata)`` of a stored image: PNG (at :data:`SCALE`), its CSS size and alt text."""
    w, h = png_size(png)
    data = {"image/png": base64.b64encode(png).decode("ascii"), "text/plain": caption or alt}
    metadata = {"image/png": {"width": round(w / SCALE), "height": round(h / SCALE), "alt": alt}}
    return data, metadata


def chart_bundle(spec: dict, *, live: bool = True, alt: str | None = None) -> tuple[dict, dict]:
    """The one display of a chart: live view (when ``live``), PNG with alt text, caption.

    ``spec`` is the chart's Vega-Lite dict (``chart.to_dict()``); ``alt`` replaces the generated
    description (:func:`describe`).
    """
    text = alt or describe(spec)
    data, metadata = image_bundle(to_png(spec), text)
    if live:
        from altair import Chart
        from altair import JupyterChart

        JupyterChart.enable_offline(offline=True)
        view = JupyterChart(chart=Chart.from_dict(spec))._repr_mimebundle_()
        view = view[0] if isinstance(view, tuple) else view
        data = {**{k: v for k, v in view.items() if k != "text/plain"}, **data}
    return data, metadata


def live_renderer(spec: dict, **_: Any) -> tuple[dict, dict]:
    """Altair renderer ``"benchkit"``: live chart + PNG + caption in one output."""
    return chart_bundle(spec, live=True)


def static_renderer(spec: dict, **_: Any) -> tuple[dict, dict]:
    """Altair renderer ``"benchkit-static"``: PNG + caption only (no kernel needed ever)."""
    return chart_bundle(spec, live=False)
