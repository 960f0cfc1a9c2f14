// Shared DOM helpers of benchkit's explorers. benchkit.widgets._base prepends this file to every
// explorer's module (live widget and to_html export alike), so each explorer's .js uses s(), h()
// and SVG_NS without defining them. Plain script text: no imports, no exports.
const SVG_NS = "http://www.w3.org/2000/svg";

// an SVG element with attributes, optionally appended to parent and given text
function s(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

// an HTML element: "class" sets className, "on<event>" adds a listener, null/false attrs are skipped
function h(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, String(v));
  }
  for (const c of [].concat(children)) {
    if (c === null || c === undefined) continue;
    node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return node;
}

// ---------------------------------------------------------------- binary state
// The arrays of a benchkit.widgets._base.pack_arrays buffer: {name: TypedArray} (each with .shape).
// Accepts what anywidget gives for a bytes trait (DataView) and ArrayBuffer / typed arrays.
const _BK_TYPES = { u1: Uint8Array, i1: Int8Array, u2: Uint16Array, i2: Int16Array, u4: Uint32Array,
  i4: Int32Array, f4: Float32Array, f8: Float64Array };
function unpackArrays(value) {
  if (!value) return {};
  let buf, off = 0, len;
  if (value instanceof ArrayBuffer) { buf = value; len = value.byteLength; }
  else if (ArrayBuffer.isView(value)) { buf = value.buffer; off = value.byteOffset; len = value.byteLength; }
  else return {};
  if (len < 8) return {};
  const dv = new DataView(buf, off, len);
  const magic = String.fromCharCode(dv.getUint8(0), dv.getUint8(1), dv.getUint8(2), dv.getUint8(3));
  if (magic !== "BKA1") throw new Error("not a benchkit binary buffer");
  const n = dv.getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, off + 8, n)));
  let base = 8 + n; base += (8 - (base % 8)) % 8;
  // typed arrays need aligned offsets: copy once if the buffer itself is not 8-aligned
  if ((off + base) % 8 !== 0) { buf = buf.slice(off, off + len); off = 0; }
  const out = {};
  for (const [name, [code, shape, o]] of Object.entries(header)) {
    const T = _BK_TYPES[code];
    const count = shape.reduce((a, b) => a * b, 1);
    const arr = new T(buf, off + base + o, count);
    arr.shape = shape;
    out[name] = arr;
  }
  return out;
}

// ---------------------------------------------------------------- traits
// get(name, fallback): the model's trait `name`, or `fallback` when it is undefined or null.
function traitGetter(model) {
  return (name, fallback) => model.get(name) ?? fallback;
}

// ---------------------------------------------------------------- redrawing
// An explorer's redraw loop: `build()` rebuilds root's children, then root's data-revision is set
// to the model's `revision` and the busy guard is applied. `schedule()` coalesces any number of
// calls in one task into one rebuild on the next microtask; `start(names)` schedules it on every
// `change:<name>`, draws once now and returns the clean-up (what render returns).
function redrawer(model, root, guard, build) {
  let pending = false;
  const draw = () => {
    pending = false;
    build();
    root.dataset.revision = String(model.get("revision") ?? 0);
    guard.apply();
  };
  const schedule = () => {
    if (pending) return;
    pending = true;
    Promise.resolve().then(draw);
  };
  const start = (names) => {
    for (const name of names) model.on(`change:${name}`, schedule);
    draw();
    return () => { for (const name of names) model.off(`change:${name}`, schedule); };
  };
  return { draw, schedule, start };
}

// ---------------------------------------------------------------- busy state
// Marks `root` stale (class bk-stale, data-busy) and disables its controls marked data-queue from
// the moment the user acts (guard.pending(label)) or Python says it is busy, until the next
// `revision` arrives from Python. In exported pages (static_mode) work is local and synchronous.
//
// Timing (milliseconds since the user's action, on the root's dataset, for tests and benchmarks):
// data-sync-ms when Python's new state (revision) arrives, data-draw-ms when the explorer has
// rebuilt its DOM (its draw ends with guard.apply()), data-paint-ms after the next frame was painted.
function busyGuard(model, root) {
  let waiting = false;
  let label = "";
  let t0 = null;          // performance.now() of the pending user action
  let awaitingDraw = false;
  const apply = () => {
    const busy = waiting || !!model.get("busy");
    root.classList.toggle("bk-stale", busy);
    if (busy) root.dataset.busy = label || model.get("busy_label") || "updating"; else delete root.dataset.busy;
    for (const c of root.querySelectorAll("[data-queue]")) c.disabled = busy;
    if (awaitingDraw && !busy) {
      awaitingDraw = false;
      const start = t0;
      t0 = null;
      root.dataset.drawMs = (performance.now() - start).toFixed(1);
      requestAnimationFrame(() => setTimeout(() => {
        root.dataset.paintMs = (performance.now() - start).toFixed(1);
      }, 0));
    }
  };
  const done = () => {
    waiting = false; label = "";
    apply();
    if (t0 !== null) { root.dataset.syncMs = (performance.now() - t0).toFixed(1); awaitingDraw = true; }
  };
  model.on("change:busy", apply);
  model.on("change:revision", done);
  return {
    pending(what = "updating") {
      if (model.get("static_mode")) return;
      waiting = true; label = what; t0 = performance.now();
      for (const k of ["syncMs", "drawMs", "paintMs"]) delete root.dataset[k];
      apply();
    },
    apply,
    get busy() { return waiting || !!model.get("busy"); },
  };
}

// ---------------------------------------------------------------- label layout
// Approximate text width in px (system-ui); good enough to decide truncation and thinning.
function textWidth(text, fontPx = 11) { return String(text).length * fontPx * 0.58; }

// `text` cut with "…" to fit `maxPx`: {text, full, cut}. Put `full` in a <title> when cut.
function fitText(text, maxPx, fontPx = 11) {
  const full = String(text);
  if (textWidth(full, fontPx) <= maxPx) return { text: full, full, cut: false };
  const n = Math.max(1, Math.floor(maxPx / (fontPx * 0.58)) - 1);
  return { text: full.slice(0, n) + "…", full, cut: true };
}

// Indices of labels to draw so that labels of `size` px at `positions` (ascending px) do not overlap:
// every k-th label with the smallest k that fits (first and, if it fits, last kept).
function thinLabels(positions, size, gap = 2) {
  const n = positions.length;
  if (n === 0) return [];
  let k = 1;
  const fits = (step) => {
    for (let i = step; i < n; i += step) if (Math.abs(positions[i] - positions[i - step]) < size + gap) return false;
    return true;
  };
  while (k < n && !fits(k)) k++;
  const keep = [];
  for (let i = 0; i < n; i += k) keep.push(i);
  return keep;
}

// Spread 1-D label positions so neighbours are at least `size` px apart (sizes may be an array),
// staying within [lo, hi]; keeps the order of the wanted positions. Returns new positions.
function dodge(wanted, size, lo = -Infinity, hi = Infinity) {
  const n = wanted.length;
  const sz = (i) => (Array.isArray(size) ? size[i] : size);
  const order = wanted.map((v, i) => [v, i]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((p) => p[1]);
  // clusters of overlapping labels are centred on their mean wanted position (Tufte/d3-style dodge)
  let blocks = order.map((i) => ({ idx: [i], start: wanted[i] - sz(i) / 2, width: sz(i), want: wanted[i] }));
  let merged = true;
  while (merged) {
    merged = false;
    const out = [];
    for (const b of blocks) {
      const prev = out[out.length - 1];
      if (prev && prev.start + prev.width > b.start) {
        const idx = prev.idx.concat(b.idx);
        const width = prev.width + b.width;
        const want = idx.reduce((a, i) => a + wanted[i], 0) / idx.length;
        // centre of the block at the mean of its members' wanted centres
        let offs = 0, centreSum = 0;
        for (const i of idx) { centreSum += offs + sz(i) / 2; offs += sz(i); }
        out[out.length - 1] = { idx, width, want, start: want - centreSum / idx.length };
        merged = true;
      } else out.push({ ...b });
    }
    for (const b of out) {
      if (b.start < lo) b.start = lo;
      if (b.start + b.width > hi) b.start = Math.max(lo, hi - b.width);
    }
    blocks = out;
  }
  const pos = new Array(n);
  for (const b of blocks) {
    let x = b.start;
    for (const i of b.idx) { pos[i] = x + sz(i) / 2; x += sz(i); }
  }
  return pos;
}

// ---------------------------------------------------------------- colour
// viridis (perceptually uniform), t in [0, 1] -> "rgb(...)"; 9 anchor colours, linear between.
const _VIRIDIS = [[68, 1, 84], [71, 44, 122], [59, 81, 139], [44, 113, 142], [33, 144, 141],
  [39, 173, 129], [92, 200, 99], [170, 220, 50], [253, 231, 37]];
function viridis(t) {
  const u = Math.min(1, Math.max(0, t)) * (_VIRIDIS.length - 1);
  const i = Math.min(_VIRIDIS.length - 2, Math.floor(u)), f = u - i;
  const c = _VIRIDIS[i].map((a, j) => Math.round(a + f * (_VIRIDIS[i + 1][j] - a)));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

// Upper bounds of `k` quantile classes of the positive values (ascending, distinct): a value v gets
// class = first index with v <= breaks[index]. Colouring by class shows structure at any density.
function quantileBreaks(values, k = 7) {
  const pos = Array.from(values).filter((v) => v > 0).sort((a, b) => a - b);
  if (!pos.length) return [];
  const out = [];
  for (let q = 1; q <= k; q++) {
    const v = pos[Math.min(pos.length - 1, Math.ceil((q / k) * pos.length) - 1)];
    if (!out.length || v > out[out.length - 1]) out.push(v);
  }
  return out;
}
function classOf(v, breaks) {
  for (let i = 0; i < breaks.length; i++) if (v <= breaks[i]) return i;
  return breaks.length - 1;
}
