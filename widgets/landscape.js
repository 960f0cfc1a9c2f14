// benchkit probability-landscape explorer (paper 003): plain ESM, inline SVG, no imports.
//
// State (synced traitlets of benchkit.widgets.LandscapeExplorer): title, models, groups, variants,
// option_labels, group_name, label_name, max_arrows, exact_limit; the view model, group, variant,
// compare ("" = none), shown (the view the drawn state belongs to); mode ("points" | "density");
// binary (pack_arrays, read with unpackArrays): points {x, y, row, c}, density {counts[bins*bins]},
// compare_points, arrows {x0, y0, x1, y1, row}, flow {x, y, dx, dy, mean_distance, n}; stats /
// compare_stats {n_points, mpd, mpd_se, mpd_method, mean_h_norm, mean_p_top1, accuracy},
// moves_info {n_pairs, n_arrows, flow_bins}; brush [x0, x1, y0, y1] or [], list_by, list_descending,
// page, page_size, selected (the page's rows), n_selected; busy, busy_label, revision, static_mode;
// in exported pages only: bundle (names, items, views' stats, density keys), bundle_rows (binary
// columns m, g, v, i, x, y (16-bit), pred, c, p (16-bit)) and bundle_density (binary).
// Live, every number comes from Python (benchkit.landscape); this module draws and sends the
// user's picks back. In an exported page the same traits are filled locally from the bundle
// (MPD and histograms were computed in Python; filtering, the flow field's bin means and the
// brushed list's order are done here with the same rules).

const W = 760, H = 460;
const M = { l: 54, r: 150, t: 16, b: 46 };
const PW = W - M.l - M.r, PH = H - M.t - M.b;
const X = (v) => M.l + v * PW;
const Y = (v) => M.t + (1 - v) * PH;
const ALL = "(all)";
const N_CLASSES = 7;

const fmt = (v, d = 3) => (v === null || v === undefined || Number.isNaN(v) ? "–" : Number(v).toFixed(d));
const fmtInt = (v) => (v === null || v === undefined ? "–" : Number(v).toLocaleString("en-US"));

// ---------------------------------------------------------------- exported page: local views
function staticData(model) {
  const B = model.get("bundle");
  if (!B) return null;
  if (!B._cols) {
    B._cols = unpackArrays(model.get("bundle_rows"));
    const D = unpackArrays(model.get("bundle_density"));
    B._dens = new Map(B.density_keys.map((k, j) => [k, j]));
    B._densCounts = D.counts;
  }
  return B;
}
function staticRows(B, m, g, v) {
  const C = B._cols;
  const mi = m === ALL ? -1 : B.models.indexOf(m), gi = g === ALL ? -1 : B.groups.indexOf(g);
  const vi = B.variants.indexOf(v);
  const out = [];
  const n = C.x.length;
  for (let r = 0; r < n; r++) {
    if (C.v[r] !== vi || (mi >= 0 && C.m[r] !== mi) || (gi >= 0 && C.g[r] !== gi)) continue;
    out.push(r);
  }
  return out;
}
function staticPoints(B, rows) {
  const C = B._cols, q = B.quant, n = rows.length;
  const x = new Float32Array(n), y = new Float32Array(n), row = new Int32Array(n), c = new Int8Array(n);
  rows.forEach((r, k) => { x[k] = C.x[r] / q; y[k] = C.y[r] / q; row[k] = r; c[k] = C.c[r]; });
  return { x, y, row, c };
}
// binned mean displacement (same rule as LandscapeView.flow)
function flowField(x0, y0, x1, y1, bins) {
  const n = new Int32Array(bins * bins), sx = new Float64Array(bins * bins), sy = new Float64Array(bins * bins);
  const sdx = new Float64Array(bins * bins), sdy = new Float64Array(bins * bins), sd = new Float64Array(bins * bins);
  for (let k = 0; k < x0.length; k++) {
    const ix = Math.min(bins - 1, Math.max(0, Math.floor(x0[k] * bins)));
    const iy = Math.min(bins - 1, Math.max(0, Math.floor(y0[k] * bins)));
    const j = ix * bins + iy;
    n[j]++; sx[j] += x0[k]; sy[j] += y0[k];
    const dx = x1[k] - x0[k], dy = y1[k] - y0[k];
    sdx[j] += dx; sdy[j] += dy; sd[j] += Math.hypot(dx, dy);
  }
  const out = { x: [], y: [], dx: [], dy: [], mean_distance: [], n: [] };
  for (let j = 0; j < n.length; j++) {
    if (!n[j]) continue;
    out.x.push(sx[j] / n[j]); out.y.push(sy[j] / n[j]); out.dx.push(sdx[j] / n[j]); out.dy.push(sdy[j] / n[j]);
    out.mean_distance.push(sd[j] / n[j]); out.n.push(n[j]);
  }
  return out;
}
// rows in list order: "stratified" (round-robin over models, as LandscapeView.order_rows) or a column
function orderRows(B, rows, by, desc) {
  const C = B._cols;
  if (by === "stratified") {
    const seen = new Map();
    const keyed = rows.map((r) => { const m = C.m[r]; const k = seen.get(m) || 0; seen.set(m, k + 1); return [k, m, r]; });
    keyed.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const out = keyed.map((t) => t[2]);
    return desc ? out.reverse() : out;
  }
  const I = B.items, labels = B._labels;
  const val = (r) => {
    switch (by) {
      case "model": return B.models[C.m[r]];
      case "item": return I.id[C.i[r]];
      case "p_top1": return C.x[r];
      case "h_norm": return C.y[r];
      case "pred": return labels[C.pred[r]];
      case "answer": return I.answer[C.i[r]];
      case "correct": return C.c[r] < 0 ? null : C.c[r];
      case "label": return I.label[C.i[r]];
      default: return null;
    }
  };
  const keyed = rows.map((r, k) => [val(r), k, r]);
  keyed.sort((a, b) => {
    const na = a[0] === null || a[0] === undefined, nb = b[0] === null || b[0] === undefined;
    if (na || nb) return na === nb ? a[1] - b[1] : na ? 1 : -1;
    const c = a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
    return (desc ? -c : c) || a[1] - b[1];
  });
  return keyed.map((t) => t[2]);
}

function render({ model, el }) {
  const root = h("div", { class: "bk-land" });
  el.appendChild(root);
  const guard = busyGuard(model, root);
  let drag = null; // brush being drawn: {x0, y0, x1, y1} in svg units
  let local = null; // exported page: {rows, partner (Map row -> row), order}

  const get = traitGetter(model);
  const isStatic = () => !!get("static_mode", false);
  const commit = () => model.save_changes();

  // ---- exported page: fill the view traits locally from the bundle
  const staticLoad = () => {
    const B = staticData(model);
    if (!B) return;
    B._labels = get("option_labels", []);
    const m = get("model", ALL), g = get("group", ALL), v = get("variant", ""), cmp = get("compare", "");
    const rows = staticRows(B, m, g, v);
    const dense = rows.length > B.threshold;
    const key = [m, g, v].join(B.sep);
    const C = B._cols, q = B.quant;
    model.set("mode", dense ? "density" : "points");
    model.set("points", dense ? null : staticPoints(B, rows));
    const j = B._dens.get(key);
    model.set("density", dense && j !== undefined
      ? { counts: B._densCounts.subarray(j * B.bins * B.bins, (j + 1) * B.bins * B.bins) } : null);
    model.set("stats", B.views[key] || {});
    local = { rows, partner: null };
    if (cmp) {
      const crow = staticRows(B, m, g, cmp);
      const nItems = B.items.id.length;
      const byKey = new Map();
      for (const r of crow) { const k = C.m[r] * nItems + C.i[r]; if (!byKey.has(k)) byKey.set(k, r); }
      const partner = new Map();
      const x0 = [], y0 = [], x1 = [], y1 = [], rb = [];
      for (const r of rows) {
        const a = byKey.get(C.m[r] * nItems + C.i[r]);
        if (a === undefined) continue;
        partner.set(r, a);
        x0.push(C.x[r] / q); y0.push(C.y[r] / q); x1.push(C.x[a] / q); y1.push(C.y[a] / q); rb.push(r);
      }
      local.partner = partner;
      const few = x0.length <= get("max_arrows", 300);
      model.set("compare_stats", B.views[[m, g, cmp].join(B.sep)] || {});
      model.set("compare_points", crow.length > B.threshold ? null : staticPoints(B, crow));
      model.set("arrows", few ? { x0, y0, x1, y1, row: rb } : null);
      model.set("flow", flowField(x0, y0, x1, y1, B.flow_bins));
      model.set("moves_info", { n_pairs: x0.length, n_arrows: few ? x0.length : 0, flow_bins: B.flow_bins });
    } else {
      for (const n of ["compare_points", "arrows", "flow"]) model.set(n, null);
      model.set("compare_stats", {}); model.set("moves_info", {});
    }
    model.set("shown", { model: m, group: g, variant: v, compare: cmp });
    staticSelect(true);
  };
  const staticSelect = (reorder) => {
    const B = staticData(model);
    if (!B || !local) return;
    const box = get("brush", []);
    if (!box.length) { local.order = []; model.set("n_selected", 0); model.set("selected", []); return; }
    const C = B._cols, q = B.quant;
    if (reorder || !local.order) {
      const sel = local.rows.filter((r) => C.x[r] / q >= box[0] && C.x[r] / q <= box[1] && C.y[r] / q >= box[2] && C.y[r] / q <= box[3]);
      local.order = orderRows(B, sel, get("list_by", "stratified"), get("list_descending", false));
    }
    const ps = get("page_size", 25), pg = get("page", 0);
    const part = local.order.slice(pg * ps, (pg + 1) * ps);
    const I = B.items, labels = B._labels, k = labels.length;
    const det = part.map((r) => {
      const i = C.i[r], c = C.c[r];
      const probs = [];
      for (let j = 0; j < k; j++) probs.push(C.pnan && C.pnan[r * k + j] ? null : C.p[r * k + j] / q);
      const d = {
        row: r, model: B.models[C.m[r]], item: I.id[i], variant: B.variants[C.v[r]], group: B.groups[C.g[r]],
        p_top1: C.x[r] / q, h_norm: C.y[r] / q, pred: labels[C.pred[r]], answer: I.answer[i],
        correct: c < 0 ? null : c === 1, probs, text: I.text ? I.text[i] : null,
        options: I.options ? I.options[i] : null, label: I.label[i],
      };
      if (local.partner && local.partner.has(r)) {
        const a = local.partner.get(r);
        d.p_top1_after = C.x[a] / q; d.h_norm_after = C.y[a] / q; d.pred_after = labels[C.pred[a]];
      }
      return d;
    });
    model.set("n_selected", local.order.length);
    model.set("selected", det);
  };

  // ---- user actions: live -> Python (marked busy until the next revision); static -> local
  const act = (changes, label, kind) => {
    if (Object.entries(changes).every(([k, v]) => JSON.stringify(get(k, null)) === JSON.stringify(v))) return;
    guard.pending(label);
    for (const [k, v] of Object.entries(changes)) model.set(k, v);
    if (isStatic()) {
      if (kind === "view") staticLoad();
      else staticSelect(kind === "brush");
      schedule();
    }
    commit();
  };
  const pick = (name, value) => act({ [name]: value }, `loading ${name} = ${value || "(none)"}`, "view");
  const setBrush = (box) => act({ brush: box, page: 0 }, "listing the brushed items", "brush");

  function pickers() {
    const shown = get("shown", {});
    const sel = (label, name, values, extra = []) => {
      // a picker shows the value of the drawn view (the requested one only while marked busy)
      const cur = guard.busy ? get(name, "") : (shown[name] ?? get(name, ""));
      const opts = [...extra, ...values].map((v) => h("option", { value: v[0], selected: v[0] === cur }, v[1]));
      return h("label", { class: "bk-picker-label" }, [label + " ",
        h("select", { class: "bk-picker", "data-name": name, "aria-label": label, "data-queue": "",
          onchange: (e) => pick(name, e.target.value) }, opts)]);
    };
    const pair = (vs) => vs.map((v) => [v, v]);
    return h("div", { class: "bk-pickers" }, [
      sel("Model", "model", pair(get("models", []))),
      sel(get("group_name", "benchmark"), "group", pair(get("groups", []))),
      sel("Variant", "variant", pair(get("variants", []))),
      get("variants", []).length > 1
        ? sel("Compare with", "compare", pair(get("variants", [])), [["", "(none)"]]) : null,
    ]);
  }

  function mpdText(st) {
    if (st.mpd === undefined || st.mpd === null) return "–";
    return st.mpd_method === "sampled" ? `${fmt(st.mpd, 4)} ± ${fmt(st.mpd_se, 4)}` : fmt(st.mpd, 4);
  }
  function statsLine() {
    const st = get("stats", {}), cs = get("compare_stats", {});
    const has = get("compare", "") !== "" && cs.n_points !== undefined;
    const cell = (label, key, d = 3, title = null) => h("span", { class: "bk-metric", "data-metric": key, title }, [
      h("b", {}, label + " "),
      h("span", { class: "bk-value", "data-method": key === "mpd" ? st.mpd_method : null },
        key === "mpd" ? mpdText(st) : key === "n_points" ? fmtInt(st[key]) : fmt(st[key], d)),
      has ? h("span", { class: "bk-after", "data-after": key },
        ` → ${key === "mpd" ? mpdText(cs) : key === "n_points" ? fmtInt(cs[key]) : fmt(cs[key], d)}`) : null,
    ]);
    const sampled = st.mpd_method === "sampled" || (has && cs.mpd_method === "sampled");
    const mpdTitle = sampled ? "sampled-pairs estimate ± standard error (benchkit.landscape.steps.mpd, method=\"sampled\")" : "exact MPD over all pairs";
    const parts = [cell(sampled ? "MPD (sampled)" : "MPD", "mpd", 4, mpdTitle), cell("mean H_norm", "mean_h_norm"),
      cell("mean P_top1", "mean_p_top1"), cell("accuracy", "accuracy"), cell("N", "n_points")];
    if (sampled && !isStatic()) {
      parts.push(h("button", { class: "bk-exact", "data-queue": "", type: "button",
        title: "compute the exact MPD of this view (all pairs; cached)",
        onclick: () => { guard.pending("computing the exact MPD"); model.send({ action: "exact" }); } }, "exact MPD"));
    }
    return h("div", { class: "bk-metrics" }, parts);
  }

  function densityLayer(svg, legend) {
    const D = unpackArrays(model.get("density")) ;
    const counts = D.counts || (model.get("density") && model.get("density").counts);
    if (!counts) return;
    const nb = Math.round(Math.sqrt(counts.length));
    const breaks = quantileBreaks(counts, N_CLASSES);
    const g = s("g", { class: "bk-density" }, svg);
    const w = PW / nb, hh = PH / nb;
    const nc = Math.max(1, breaks.length);
    const colour = (k) => viridis(nc === 1 ? 0.6 : k / (nc - 1));
    for (let i = 0; i < nb; i++) for (let j = 0; j < nb; j++) {
      const cnt = counts[i * nb + j];
      if (!cnt) continue;
      const k = classOf(cnt, breaks);
      const r = s("rect", { x: M.l + i * w, y: M.t + PH - (j + 1) * hh, width: w + 0.3, height: hh + 0.3,
        class: "bk-bin", fill: colour(k), "data-count": cnt, "data-class": k }, g);
      s("title", {}, r, `P_top1 [${(i / nb).toFixed(3)}, ${((i + 1) / nb).toFixed(3)}), H_norm [${(j / nb).toFixed(3)}, ${((j + 1) / nb).toFixed(3)}): ${cnt} points`);
    }
    // legend: one swatch per quantile class with its count range
    legend.push({ title: "points per bin" });
    let lo = 1;
    breaks.forEach((b, k) => {
      legend.push({ swatch: colour(k), label: lo === b ? `${fmtInt(b)}` : `${fmtInt(lo)}–${fmtInt(b)}` });
      lo = b + 1;
    });
    legend.push({ note: `${nc} classes with equal numbers of non-empty bins` });
  }

  function flowLayer(svg, legend) {
    const info = get("moves_info", {});
    const A = isStatic() ? (get("arrows", null) || {}) : unpackArrays(model.get("arrows"));
    const F = isStatic() ? (get("flow", null) || {}) : unpackArrays(model.get("flow"));
    if (A.x0 && A.x0.length) {
      const ga = s("g", { class: "bk-arrows" }, svg);
      for (let k = 0; k < A.x0.length; k++) {
        s("line", { x1: X(A.x0[k]), y1: Y(A.y0[k]), x2: X(A.x1[k]), y2: Y(A.y1[k]), class: "bk-arrow",
          "marker-end": "url(#bk-land-head)", "data-row": A.row[k] }, ga);
      }
      legend.push({ line: "bk-arrow", label: "move per item" });
      return;
    }
    if (!F.x || !F.x.length) return;
    const gf = s("g", { class: "bk-flow" }, svg);
    let nmax = 1;
    for (const v of F.n) nmax = Math.max(nmax, v);
    for (let k = 0; k < F.x.length; k++) {
      const x0 = X(F.x[k]), y0 = Y(F.y[k]), x1 = X(F.x[k] + F.dx[k]), y1 = Y(F.y[k] + F.dy[k]);
      const wdt = 0.8 + 3.2 * Math.sqrt(F.n[k] / nmax);
      // a white halo under each move keeps thin arrows visible on the dark (viridis) bins
      s("line", { x1: x0, y1: y0, x2: x1, y2: y1, class: "bk-flowhalo", "stroke-width": (wdt + 2.2).toFixed(2) }, gf);
      const ln = s("line", { x1: x0, y1: y0, x2: x1, y2: y1, class: "bk-flowline", "stroke-width": wdt.toFixed(2),
        "marker-end": Math.hypot(x1 - x0, y1 - y0) > 4 ? "url(#bk-land-flowhead)" : null, "data-n": F.n[k] }, gf);
      s("title", {}, ln, `${F.n[k]} points starting here: mean move (${fmt(F.dx[k])}, ${fmt(F.dy[k])}), mean length ${fmt(F.mean_distance[k])}`);
      s("circle", { cx: x0, cy: y0, r: 1.6, class: "bk-flowdot" }, gf);
    }
    legend.push({ line: "bk-flowline", label: "mean move per cell" });
    legend.push({ note: `${info.flow_bins}×${info.flow_bins} grid over the start positions; width ∝ √points` });
  }

  function chart() {
    const svg = s("svg", { class: "bk-chart", viewBox: `0 0 ${W} ${H}`, width: W, height: H,
      role: "img", "aria-label": "P_top1 versus H_norm landscape" });
    const defs = s("defs", {}, svg);
    for (const [id, cls] of [["bk-land-head", "bk-arrowhead"], ["bk-land-flowhead", "bk-flowhead"]]) {
      const mk = s("marker", { id, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 4, markerHeight: 4,
        orient: "auto-start-reverse" }, defs);
      s("path", { d: "M0,0L10,5L0,10z", class: cls }, mk);
    }
    s("rect", { x: M.l, y: M.t, width: PW, height: PH, class: "bk-frame" }, svg);
    for (let i = 0; i <= 5; i++) {
      const v = i / 5;
      s("line", { x1: X(v), x2: X(v), y1: M.t, y2: Y(0), class: "bk-grid" }, svg);
      s("line", { x1: M.l, x2: M.l + PW, y1: Y(v), y2: Y(v), class: "bk-grid" }, svg);
      s("text", { x: X(v), y: Y(0) + 16, class: "bk-ticklabel", "text-anchor": "middle" }, svg, v.toFixed(1));
      s("text", { x: M.l - 7, y: Y(v) + 4, class: "bk-ticklabel", "text-anchor": "end" }, svg, v.toFixed(1));
    }
    s("text", { x: M.l + PW / 2, y: H - 8, class: "bk-axislabel", "text-anchor": "middle" }, svg, "P_top1 (probability of the predicted option)");
    s("text", { x: 14, y: M.t + PH / 2, class: "bk-axislabel", "text-anchor": "middle",
      transform: `rotate(-90 14 ${M.t + PH / 2})` }, svg, "H_norm (normalized residual entropy)");

    const legend = [];
    const mode = get("mode", "points");
    if (mode === "density") densityLayer(svg, legend);
    const cmp = get("compare", "");
    const pts = (name) => (isStatic() ? (get(name, null) || {}) : unpackArrays(model.get(name)));
    if (mode === "points") {
      const P = pts("points");
      const g = s("g", { class: "bk-points" }, svg);
      const n = P.x ? P.x.length : 0;
      for (let k = 0; k < n; k++) {
        const cls = P.c[k] === 1 ? "bk-pt bk-ok" : P.c[k] === 0 ? "bk-pt bk-wrong" : "bk-pt";
        s("circle", { cx: X(P.x[k]), cy: Y(P.y[k]), r: 2.4, class: cls, "data-row": P.row[k] }, g);
      }
      const anyC = n && Array.from(P.c).some((v) => v >= 0);
      if (anyC) legend.push({ dot: "bk-pt bk-ok", label: "correct" }, { dot: "bk-pt bk-wrong", label: "wrong" });
      else legend.push({ dot: "bk-pt", label: "point" });
    }
    if (cmp) {
      const CP = pts("compare_points");
      if (mode === "points" && CP.x) {
        const g = s("g", { class: "bk-after-points" }, svg);
        for (let k = 0; k < CP.x.length; k++) s("circle", { cx: X(CP.x[k]), cy: Y(CP.y[k]), r: 2, class: "bk-pt-after" }, g);
        legend.push({ dot: "bk-pt-after", label: fitText(`under ${cmp}`, M.r - 30).text });
      }
      flowLayer(svg, legend);
    }
    // brush rectangle (stored or being drawn)
    const box = get("brush", []);
    const brushRect = s("rect", { class: "bk-brush", x: 0, y: 0, width: 0, height: 0, visibility: "hidden" }, svg);
    const showBox = (x0, x1, y0, y1) => {
      brushRect.setAttribute("x", Math.min(x0, x1)); brushRect.setAttribute("width", Math.abs(x1 - x0));
      brushRect.setAttribute("y", Math.min(y0, y1)); brushRect.setAttribute("height", Math.abs(y1 - y0));
      brushRect.setAttribute("visibility", "visible");
    };
    if (box.length === 4) showBox(X(box[0]), X(box[1]), Y(box[3]), Y(box[2]));
    const overlay = s("rect", { x: M.l, y: M.t, width: PW, height: PH, class: "bk-overlay" }, svg);
    const toSvg = (evt) => {
      const b = svg.getBoundingClientRect();
      return [Math.min(M.l + PW, Math.max(M.l, (evt.clientX - b.left) * (W / b.width))),
        Math.min(M.t + PH, Math.max(M.t, (evt.clientY - b.top) * (H / b.height)))];
    };
    overlay.addEventListener("pointerdown", (evt) => {
      if (guard.busy) return;
      const [px, py] = toSvg(evt);
      drag = { x0: px, y0: py, x1: px, y1: py };
      overlay.setPointerCapture && overlay.setPointerCapture(evt.pointerId);
      evt.preventDefault();
    });
    overlay.addEventListener("pointermove", (evt) => {
      if (!drag) return;
      [drag.x1, drag.y1] = toSvg(evt);
      showBox(drag.x0, drag.x1, drag.y0, drag.y1);
    });
    const finish = (evt) => {
      if (!drag) return;
      [drag.x1, drag.y1] = toSvg(evt);
      const d = drag; drag = null;
      if (Math.abs(d.x1 - d.x0) < 3 && Math.abs(d.y1 - d.y0) < 3) { setBrush([]); return; } // a click clears
      const ix = (px) => (px - M.l) / PW, iy = (py) => 1 - (py - M.t) / PH;
      const r4 = (v) => Math.round(v * 1e6) / 1e6;
      setBrush([r4(Math.min(ix(d.x0), ix(d.x1))), r4(Math.max(ix(d.x0), ix(d.x1))),
        r4(Math.min(iy(d.y0), iy(d.y1))), r4(Math.max(iy(d.y0), iy(d.y1)))]);
    };
    overlay.addEventListener("pointerup", finish);
    overlay.addEventListener("pointercancel", () => { drag = null; });
    // legend, right of the plot (never over the data)
    const lg = s("g", { class: "bk-legend", transform: `translate(${M.l + PW + 14},${M.t + 8})` }, svg);
    let gy = 0;
    for (const e of legend) {
      if (e.title) { s("text", { x: 0, y: gy + 4, class: "bk-legendtitle" }, lg, e.title); gy += 16; continue; }
      if (e.note) {
        // wrap notes into lines that fit the legend column
        const words = e.note.split(" "); let line = "";
        const lines = [];
        for (const wd of words) { if (textWidth(line + " " + wd, 10) > M.r - 20 && line) { lines.push(line); line = wd; } else line = line ? line + " " + wd : wd; }
        if (line) lines.push(line);
        for (const ln of lines) { s("text", { x: 0, y: gy + 4, class: "bk-legendnote" }, lg, ln); gy += 12; }
        gy += 4; continue;
      }
      if (e.swatch) s("rect", { x: 0, y: gy - 5, width: 14, height: 10, fill: e.swatch, class: "bk-swatch" }, lg);
      else if (e.line) s("line", { x1: 0, x2: 14, y1: gy, y2: gy, class: e.line, "stroke-width": 2 }, lg);
      else s("circle", { cx: 7, cy: gy, r: 3, class: e.dot }, lg);
      s("text", { x: 20, y: gy + 4, class: "bk-legendlabel" }, lg, e.label);
      gy += 15;
    }
    return svg;
  }

  function note() {
    const info = get("moves_info", {}), st = get("stats", {});
    const parts = [];
    const sh = get("shown", {});
    parts.push(`Showing ${sh.model ?? get("model", "")} · ${sh.group ?? get("group", "")} · ${sh.variant ?? get("variant", "")}` +
      (sh.compare ? ` → ${sh.compare}` : "") + ".");
    if (get("mode", "points") === "density") parts.push(`${fmtInt(st.n_points)} points drawn as a 2-D histogram (bin counts from Python).`);
    if (st.mpd_method === "sampled") {
      parts.push(isStatic()
        ? `MPD of views with more than ${fmtInt(get("bundle", {}).exact_limit)} points is the sampled-pairs estimate ± its standard error (computed in Python when the page was written); smaller views are exact.`
        : "MPD is the sampled-pairs estimate ± its standard error; press “exact MPD” for the exact value (cached per view).");
    }
    if (get("compare", "") && info.n_pairs !== undefined) {
      parts.push(info.n_arrows ? `Arrows: all ${fmtInt(info.n_pairs)} moves from ${get("variant", "")} to ${get("compare", "")}.`
        : `${fmtInt(info.n_pairs)} moves from ${get("variant", "")} to ${get("compare", "")}, summarized per grid cell (mean displacement).`);
    }
    parts.push("Drag a rectangle over the plot to list the items inside; click to clear.");
    return h("p", { class: "bk-note" }, parts.join(" "));
  }

  function selectedPanel() {
    const rows = get("selected", []);
    const n = get("n_selected", 0);
    const box = h("div", { class: "bk-selected", "data-n": n });
    const b = get("brush", []);
    if (!b.length) { box.appendChild(h("p", { class: "bk-hint" }, "No brush yet.")); return box; }
    const ps = get("page_size", 25), pg = get("page", 0), npages = Math.max(1, Math.ceil(n / ps));
    const by = get("list_by", "stratified"), desc = get("list_descending", false);
    box.appendChild(h("p", { class: "bk-seltitle" }, [h("b", {}, `${fmtInt(n)} points`),
      ` with P_top1 in [${fmt(b[0])}, ${fmt(b[1])}] and H_norm in [${fmt(b[2])}, ${fmt(b[3])}]; ` +
      (by === "stratified" ? "listed round-robin across models" : `sorted by ${by}${desc ? " (descending)" : ""}`) + "."]));
    if (!rows.length) return box;
    const pager = h("div", { class: "bk-pager" }, [
      h("button", { type: "button", "data-queue": "", class: "bk-prev", disabled: pg <= 0,
        onclick: () => act({ page: pg - 1 }, "listing the brushed items", "page") }, "‹ prev"),
      h("span", { class: "bk-pageinfo" }, ` rows ${fmtInt(pg * ps + 1)}–${fmtInt(Math.min(n, (pg + 1) * ps))} of ${fmtInt(n)} (page ${pg + 1} of ${fmtInt(npages)}) `),
      h("button", { type: "button", "data-queue": "", class: "bk-next", disabled: pg >= npages - 1,
        onclick: () => act({ page: pg + 1 }, "listing the brushed items", "page") }, "next ›"),
      by !== "stratified" ? h("button", { type: "button", "data-queue": "", class: "bk-strat",
        onclick: () => act({ list_by: "stratified", list_descending: false, page: 0 }, "listing", "brush") }, "stratify by model") : null,
    ]);
    box.appendChild(pager);
    const labels = get("option_labels", []);
    // option columns that are empty (no or zero probability) for every listed row are hidden
    const used = labels.map((_, j) => rows.some((r) => r.probs && r.probs[j] !== null && r.probs[j] !== undefined && r.probs[j] > 0));
    const hasLabel = get("label_name", "") !== "" && rows.some((r) => r.label !== null && r.label !== undefined);
    const hasKey = rows.some((r) => r.answer !== null && r.answer !== undefined);
    const hasAfter = rows.some((r) => r.p_top1_after !== undefined);
    const cols = [["item", "item"], ["model", "model"], ["p_top1", "P_top1"], ["h_norm", "H_norm"], ["pred", "pred"]];
    if (hasKey) cols.push(["answer", "key"]);
    cols.push([null, "probabilities"]);
    if (hasAfter) cols.push([null, `after (${get("compare", "")})`]);
    if (hasLabel) cols.push(["label", get("label_name", "label")]);
    const head = cols.map(([key, label]) => {
      if (!key) return h("th", {}, label);
      const active = by === key;
      return h("th", { class: "bk-sortable" + (active ? " bk-sorted" : ""), "data-sort": key, "data-queue": "",
        title: `sort by ${label}`,
        onclick: () => act({ list_by: key, list_descending: active ? !desc : false, page: 0 }, `sorting by ${label}`, "brush") },
      label + (active ? (desc ? " ▼" : " ▲") : ""));
    });
    const body = [];
    for (const r of rows) {
      const bars = h("span", { class: "bk-probs" }, (r.probs || []).map((p, j) => (!used[j] ? null : h("span", {
        class: "bk-prob" + (labels[j] === r.answer ? " bk-key" : "") + (labels[j] === r.pred ? " bk-predopt" : ""),
        "data-option": labels[j], title: `${labels[j]}: ${fmt(p, 4)}` }, [
        h("span", { class: "bk-problabel" }, labels[j]),
        h("span", { class: "bk-bar", style: `width:${Math.round(Math.max(0, Math.min(1, p || 0)) * 40)}px` }),
        h("span", { class: "bk-probval" }, fmt(p, 3)),
      ]))));
      const cells = [
        h("td", { class: "bk-itemid" }, r.item), h("td", {}, r.model),
        h("td", { "data-col": "p_top1" }, fmt(r.p_top1, 4)), h("td", { "data-col": "h_norm" }, fmt(r.h_norm, 4)),
        h("td", { class: r.correct === true ? "bk-ok-text" : r.correct === false ? "bk-wrong-text" : "" }, r.pred),
      ];
      if (hasKey) cells.push(h("td", {}, r.answer ?? "–"));
      cells.push(h("td", {}, bars));
      if (hasAfter) cells.push(h("td", { class: "bk-aftercell" }, r.p_top1_after === undefined ? "–"
        : `${fmt(r.p_top1_after)}, ${fmt(r.h_norm_after)} (${r.pred_after})`));
      if (hasLabel) cells.push(h("td", { class: "bk-label" + (r.label && r.label !== "ok" ? " bk-flag" : "") }, r.label ?? "–"));
      body.push(h("tr", { class: "bk-sel", "data-item": r.item, "data-row": r.row, "data-model": r.model }, cells));
      if (r.text || (r.options && r.options.length)) {
        const opts = (r.options || []).map((o, j) => h("li", { class: labels[j] === r.answer ? "bk-key" : "" },
          `${labels[j] ?? j}. ${o}`));
        body.push(h("tr", { class: "bk-seltext", "data-item": r.item }, [h("td", { colspan: cells.length }, [
          r.text ? h("div", { class: "bk-text" }, r.text) : null,
          opts.length ? h("ol", { class: "bk-options" }, opts) : null,
        ])]));
      }
    }
    box.appendChild(h("table", {}, [h("thead", {}, h("tr", {}, head)), h("tbody", {}, body)]));
    return box;
  }

  const redraw = redrawer(model, root, guard, () => root.replaceChildren(
    h("div", { class: "bk-head" }, [h("b", { class: "bk-title" }, get("title", "")), pickers()]),
    statsLine(), h("div", { class: "bk-chartbox" }, [chart()]), note(), selectedPanel(),
  ));
  const schedule = redraw.schedule;
  if (isStatic()) staticLoad();
  // live: redraw once per published state (revision), plus title/name changes
  return redraw.start(["revision", "title", "models", "groups", "variants", "static_mode"]);
}

export default { render };
