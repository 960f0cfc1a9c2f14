"""The explorers' static export: one self-contained HTML page that runs offline from ``file://``.

Rule 5 of :mod:`benchkit.widgets._base`: :func:`static_html` embeds the module, the JSON state
and the binary traits gzip-compressed and base64-encoded; the page inflates them with the
browser's ``DecompressionStream`` and runs the module against a small in-page model
(:data:`MOUNT_JS`, which mounts every ``data-bk-explorer`` element of a page, so the report holds
several explorers with :func:`explorer_blocks` and :func:`data_block`), loading nothing from the
network. :meth:`BenchkitWidget.to_html` calls it; re-exported by
:mod:`benchkit.widgets._base`.
"""
from __future__ import annotations

import base64
import gzip
import html
import json
from typing import Any

__all__ = ["MOUNT_JS", "data_block", "explorer_blocks", "static_html"]


def _script_json(obj: Any) -> str:
    """JSON for an inline <script>: '</' cannot close the script, U+2028/9 are escaped."""
    text = json.dumps(obj, allow_nan=False, separators=(",", ":"))
    return text.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _gz64(data: bytes) -> str:
    """Gzip (level 6, fixed mtime so exports are reproducible) then base64."""
    return base64.b64encode(gzip.compress(data, compresslevel=6, mtime=0)).decode("ascii")


# The in-page stand-in for anywidget's model in exported HTML: same methods, no kernel. Every element
# with ``data-bk-explorer="ID"`` is an explorer: its state (JSON) is in #ID-state, its binary traits
# are listed in #ID-binary-names, its module in the element named by ``data-bk-module`` (shared by
# explorers of one class); all are gzip+base64 and DecompressionStream inflates them (offline).
MOUNT_JS = r"""
const inflate = async (b64) => {
  const raw = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const stream = new Blob([raw]).stream().pipeThrough(new DecompressionStream("gzip"));
  return await new Response(stream).arrayBuffer();
};
const text = (id) => document.getElementById(id).textContent;
const modules = new Map();
const load = async (id) => {
  if (!modules.has(id)) {
    const esm = new TextDecoder().decode(await inflate(text(id)));
    modules.set(id, import(URL.createObjectURL(new Blob([esm], { type: "text/javascript" }))));
  }
  return await modules.get(id);
};
const mount = async (el) => {
  const id = el.dataset.bkExplorer;
  const state = JSON.parse(new TextDecoder().decode(await inflate(text(id + "-state"))));
  for (const [name, bid] of JSON.parse(text(id + "-binary-names"))) {
    state[name] = new DataView(await inflate(text(bid)));
  }
  const listeners = new Map();
  const model = {
    get: (name) => state[name],
    set: (name, value) => {
      const old = state[name];
      state[name] = value;
      for (const cb of listeners.get("change:" + name) || []) cb({ name, old, new: value });
    },
    on: (event, cb) => {
      if (!listeners.has(event)) listeners.set(event, []);
      listeners.get(event).push(cb);
    },
    off: (event, cb) => {
      if (!event) { listeners.clear(); return; }
      if (!cb) { listeners.delete(event); return; }
      listeners.set(event, (listeners.get(event) || []).filter((f) => f !== cb));
    },
    save_changes: () => {},
    send: () => {},
  };
  let widget = (await load(el.dataset.bkModule)).default;
  if (typeof widget === "function") widget = await widget();
  if (widget.initialize) await widget.initialize({ model });
  await widget.render({ model, el });
  el.dataset.ready = "true";
};
for (const el of document.querySelectorAll("[data-bk-explorer]")) await mount(el);
"""


def data_block(element_id: str, data: bytes) -> str:
    """``data`` gzip+base64 in an inert ``<script type="application/octet-stream">`` element."""
    return f"<script type=\"application/octet-stream\" id=\"{element_id}\">{_gz64(data)}</script>\n"


def explorer_blocks(explorer_id: str, state: dict, binary: dict[str, bytes]) -> str:
    """The data elements of one explorer for :data:`MOUNT_JS`: its JSON state and binary traits."""
    names = [[name, f"{explorer_id}-bin-{i}"] for i, name in enumerate(binary)]
    state_bytes = json.dumps(state, allow_nan=False, separators=(",", ":")).encode()
    return (data_block(f"{explorer_id}-state", state_bytes)
            + f"<script type=\"application/json\" id=\"{explorer_id}-binary-names\">{_script_json(names)}"
              "</script>\n"
            + "".join(data_block(bid, bytes(binary[name])) for name, bid in names))


def static_html(esm: str, css: str, state: dict, *, title: str = "benchkit explorer",
                root_class: str = "", binary: dict[str, bytes] | None = None) -> str:
    """A self-contained HTML page running anywidget module ``esm`` on ``state`` (no kernel).

    ``state`` (JSON values), the module text and each ``binary`` value (``bytes``; the page's model
    returns it as a ``DataView``, as anywidget does for binary traits) are gzip-compressed and
    base64-embedded in ``<script type="application/octet-stream">`` elements; the page inflates them
    with the browser's ``DecompressionStream``, imports the module from a Blob URL and runs it
    against a minimal model object (get/set/on/off/save_changes/send; :data:`MOUNT_JS`). Nothing is
    loaded from the network, so the page works offline and from ``file://``. ``#benchkit-root``
    gets ``data-ready="true"`` after ``render`` has run (tests wait for it).
    """
    css = css.replace("</", "<\\/")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html.escape(title)}</title>\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<style>\nbody {{ font-family: system-ui, sans-serif; margin: 1.5rem; }}\n"
        f"{css}\n</style>\n</head>\n<body>\n"
        f"<div id=\"benchkit-root\" class=\"{html.escape(root_class)}\" data-bk-explorer=\"benchkit\" "
        "data-bk-module=\"benchkit-esm\"></div>\n"
        f"{explorer_blocks('benchkit', state, binary or {})}"
        f"{data_block('benchkit-esm', esm.encode())}"
        f"<script type=\"module\">{MOUNT_JS}</script>\n</body>\n</html>\n"
    )
