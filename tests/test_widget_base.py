"""The explorer base (issue 15 item 5): binary state, per-view cache, busy protocol, compressed
export, and the front-end helpers of widgets/_dom.js (run in node: binary decoding of a Python-packed
buffer, label thinning / dodging, quantile classes)."""
from __future__ import annotations

import base64
import gzip
import json
import re
import shutil
import subprocess

import numpy as np
import pytest
import traitlets

from benchkit._validation import BenchkitTypeError
from benchkit.charts import to_png
from benchkit.charts._display import png_size
from benchkit.widgets._assets import asset
from benchkit.widgets._base import BenchkitWidget
from benchkit.widgets._base import ViewCache
from benchkit.widgets._base import pack_arrays
from benchkit.widgets._base import unpack_arrays


def test_pack_arrays_round_trip_every_dtype():
    arrays = {"u1": np.array([0, 255], np.uint8), "i1": np.array([-3, 4], np.int8),
              "u2": np.array([65535], np.uint16), "i2": np.array([[-1, 2], [3, -4]], np.int16),
              "u4": np.array([2**32 - 1], np.uint32), "i4": np.arange(5, dtype=np.int32),
              "f4": np.array([0.5, np.nan], np.float32), "f8": np.array([1e-300]),
              "b": np.array([True, False])}
    out = unpack_arrays(pack_arrays(**arrays))
    for k, v in arrays.items():
        np.testing.assert_array_equal(out[k], v.astype(np.uint8) if k == "b" else v)
        assert out[k].shape == v.shape
    assert unpack_arrays(b"") == {}
    with pytest.raises(BenchkitTypeError, match="int64"):
        pack_arrays(x=np.arange(3, dtype=np.int64))


def test_view_cache_lru():
    c = ViewCache(2)
    calls = []
    def f(k):
        return (lambda: calls.append(k) or k * 10)
    assert c.get(1, f(1)) == 10
    assert c.get(2, f(2)) == 20
    assert c.get(1, f(1)) == 10
    c.get(3, f(3))  # evicts 2 (least recently used)
    assert calls == [1, 2, 3]
    assert 2 not in c
    assert 1 in c
    assert (c.hits, c.misses) == (1, 3)


class _Toy(BenchkitWidget):
    _esm_file = "landscape.js"
    data = traitlets.Bytes(b"").tag(sync=True)
    label = traitlets.Unicode("").tag(sync=True)


def test_working_sets_busy_then_publishes_revision_once():
    w = _Toy()
    seen = []
    w.observe(lambda ch: seen.append((ch["name"], ch["new"])), names=["busy", "revision"])
    with w.working("outer"):
        assert w.busy
        assert w.busy_label == "outer"
        with w.working("inner"):
            pass
        assert w.busy  # nested blocks publish once
    assert seen == [("busy", True), ("busy", False), ("revision", 1)]
    with pytest.raises(ZeroDivisionError), w.working():
        raise ZeroDivisionError
    assert w.busy is False
    assert w.revision == 2


def test_to_html_compresses_state_and_keeps_binary_binary():
    w = _Toy(data=pack_arrays(x=np.repeat(np.arange(100, dtype=np.int32), 1000)), label="</script>")
    page = w.to_html()
    blobs = dict(re.findall(r'<script type="application/octet-stream" id="([^"]+)">(.*?)</script>', page,
                            re.DOTALL))
    state = json.loads(gzip.decompress(base64.b64decode(blobs["benchkit-state"])))
    assert state["label"] == "</script>"
    assert state["static_mode"] is True
    assert "data" not in state
    names = json.loads(re.search(r'id="benchkit-binary-names">(.*?)</script>', page, re.DOTALL).group(1))
    assert [n for n, _ in names] == ["data"]
    x = unpack_arrays(gzip.decompress(base64.b64decode(blobs[names[0][1]])))["x"]
    np.testing.assert_array_equal(x, np.repeat(np.arange(100), 1000))
    assert len(page) < 60_000  # 400 kB of repetitive int32 codes, gzip-compressed


class _Charted(_Toy):
    """A toy explorer whose static view is a bar chart of ``label``'s letters (or a failure)."""

    mode = "chart"

    def static_chart(self):
        import altair as alt
        import pandas as pd

        if self.mode == "none":
            return None
        if self.mode == "fail":
            raise RuntimeError("chart exploded")
        frame = pd.DataFrame({"k": np.arange(3), "v": np.arange(3) % 7})
        return alt.Chart(frame).mark_bar().encode(x="k:O", y="v:Q").properties(title=f"view {self.label}")


def _bundle(w):
    data, metadata = w._repr_mimebundle_()
    assert isinstance(metadata, dict)
    return data


def test_display_bundle_holds_the_live_view_a_png_of_the_current_view_and_a_caption():
    w = _Charted(label="first")
    data, meta = w._repr_mimebundle_()
    # the live widget view is there (JupyterLab ranks it first), plus the image for static readers
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == w.model_id
    png = base64.b64decode(data["image/png"])
    w_px, h_px = png_size(png)
    assert meta["image/png"]["width"] == w_px / 2  # stored at 2x
    assert meta["image/png"]["height"] == h_px / 2
    alt = meta["image/png"]["alt"]
    assert alt.startswith("benchkit _Charted, the view at display time. view first: bar chart")
    assert data["text/plain"] == f"{alt} (interactive with a running kernel)"
    # the image is the chart's own PNG and follows the view: after a change the next display shows
    # the new one
    assert png == to_png(w.static_chart())
    w.label = "second"
    data2, meta2 = w._repr_mimebundle_()
    assert "view second" in meta2["image/png"]["alt"]
    assert base64.b64decode(data2["image/png"]) == to_png(w.static_chart())
    assert data2["image/png"] != data["image/png"]
    # static_image(): the same PNG and caption without the live view
    assert w.static_image()._repr_mimebundle_() == (
        {"image/png": data2["image/png"], "text/plain": data2["text/plain"]}, meta2)


def test_display_bundle_without_chart_failure_or_oversize_keeps_the_live_view():
    w = _Charted(label="x")
    w.mode = "none"
    data = _bundle(w)
    assert "image/png" not in data
    assert "application/vnd.jupyter.widget-view+json" in data
    assert data["text/plain"] == "benchkit _Charted (interactive; needs a running kernel)"
    with pytest.raises(ValueError, match="no static view"):
        w.static_image()
    w.mode = "fail"
    with pytest.warns(RuntimeWarning, match="chart exploded"):
        data = _bundle(w)
    assert "image/png" not in data
    assert "application/vnd.jupyter.widget-view+json" in data
    w.mode = "chart"
    w.static_max_bytes = len(to_png(w.static_chart())) - 1  # one byte too small
    with pytest.warns(RuntimeWarning, match="exceeds static_max_bytes"):
        data = _bundle(w)
    assert "image/png" not in data
    del w.static_max_bytes
    _Charted.static_images = False
    try:
        assert "image/png" not in _bundle(w)
    finally:
        _Charted.static_images = True
    assert "image/png" in _bundle(w)


def test_base_explorer_has_no_static_view():
    assert "image/png" not in _bundle(_Toy())


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_dom_helpers_in_node(tmp_path):
    buf = pack_arrays(a=np.array([1.5, -2.25], np.float32), b=np.array([[1, 2, 3]], np.uint16))
    script = asset("_dom.js") + f"""
const bytes = Buffer.from("{base64.b64encode(buf).decode()}", "base64");
const u8 = new Uint8Array(bytes.length + 3); u8.set(bytes, 3);       // deliberately unaligned view
const A = unpackArrays(new DataView(u8.buffer, 3, bytes.length));
const out = {{a: Array.from(A.a), b: Array.from(A.b), bshape: A.b.shape,
  thin: thinLabels([0, 10, 20, 30, 40, 50, 60], 15),
  dodge: dodge([10, 11, 12, 50], 8, 0, 100),
  fit: fitText("Meta-Llama-3-70B-Instruct", 60),
  breaks: quantileBreaks([1, 1, 1, 2, 5, 100, 0], 4)}};
console.log(JSON.stringify(out));
"""
    f = tmp_path / "t.js"
    f.write_text(script)
    out = json.loads(subprocess.run(["node", str(f)], capture_output=True, text=True, check=True).stdout)
    assert out["a"] == [1.5, -2.25]
    assert out["b"] == [1, 2, 3]
    assert out["bshape"] == [1, 3]
    assert out["thin"] == [0, 2, 4, 6]  # 10 px apart, 15 px labels: every second one fits
    # three 8-px labels wanted at 10, 11, 12 overlap: centred on their mean 11 -> 3, 11, 19, then
    # clamped to start at 0 -> 4, 12, 20 (hand-worked); 50 is free
    assert out["dodge"] == [4, 12, 20, 50]
    assert out["fit"]["cut"]
    assert out["fit"]["text"].endswith("…")
    assert out["fit"]["full"].startswith("Meta")
    # positive values sorted 1 1 1 2 5 100: quartile upper bounds 1, 1(dup), 5, 100 -> [1, 5, 100]
    assert out["breaks"] == [1, 5, 100]



@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_redrawer_and_trait_getter_in_node(tmp_path):
    # a fake model (get/on/off) and guard: three changes in one task give one rebuild on the next
    # microtask (hand-counted: 1 at start + 1), the root carries the model's revision, every rebuild
    # ends with guard.apply(), and the clean-up removes exactly the listeners start() added
    script = asset("_dom.js") + """
const handlers = {};
const state = {revision: 7, none: null, zero: 0};
const model = {get: (k) => state[k], on: (ev, f) => { (handlers[ev] = handlers[ev] || []).push(f); },
  off: (ev, f) => { handlers[ev] = handlers[ev].filter((g) => g !== f); }};
const root = {dataset: {}};
let builds = 0, applied = 0;
const redraw = redrawer(model, root, {apply: () => { applied++; }}, () => { builds++; });
const stop = redraw.start(["a", "revision"]);
const first = {builds, applied, revision: root.dataset.revision};
state.revision = 8;
for (const ev of ["change:a", "change:revision", "change:a"]) for (const f of handlers[ev]) f();
const sync = builds;
const get = traitGetter(model);
const got = [get("revision", -1), get("none", -1), get("missing", -1), get("zero", -1)];
Promise.resolve().then(() => Promise.resolve()).then(() => {
  stop();
  const left = Object.values(handlers).reduce((n, fs) => n + fs.length, 0);
  console.log(JSON.stringify({first, sync, builds, applied, revision: root.dataset.revision, left, got}));
});
"""
    f = tmp_path / "t.js"
    f.write_text(script)
    out = json.loads(subprocess.run(["node", str(f)], capture_output=True, text=True, check=True).stdout)
    assert out["first"] == {"builds": 1, "applied": 1, "revision": "7"}
    assert out["sync"] == 1  # nothing rebuilt synchronously
    assert out["builds"] == 2
    assert out["applied"] == 2
    assert out["revision"] == "8"
    assert out["left"] == 0
    assert out["got"] == [8, -1, -1, 0]  # traitGetter: the fallback only for undefined / null


def test_saved_output_shows_the_image_in_nbconvert_html_without_widget_state():
    # what nbviewer does with a notebook saved from a live session: nbconvert's HTML exporter drops
    # a widget view whose state was not saved (WidgetsDataTypeFilter) and falls back to the PNG
    nbformat = pytest.importorskip("nbformat")
    nbconvert = pytest.importorskip("nbconvert")
    w = _Charted(label="saved-view")
    data, metadata = w._repr_mimebundle_()
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("explorer", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("execute_result", data=data, metadata=metadata,
                                           execution_count=1)]
    nb.cells = [cell]
    body, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    imgs = re.findall(r'src="data:image/png;base64,([^"]+)"', body)
    assert imgs == [data["image/png"]]
    assert w.model_id not in body  # no dangling widget view
