// benchkit ECDF gap explorer (paper 002): plain ESM, inline SVG, no imports.
//
// State (synced traitlets of benchkit.widgets.ECDFGapExplorer): benchmarks, table, thresholds,
// benchmark, z (binary: z, the sorted normalized difficulties), metrics {ddm, max_gap, top_sum, n_items, k},
// gaps [{rank, left, right, width, midpoint}], gap_items [[{side, order, item, z, distance, text}]],
// selected_gap, added [z...], after {ddm, max_gap, top_sum, n_items, k, gaps}, busy, revision,
// static_mode and, in exported pages only, bundle {name: {offset, n, metrics, gaps, gap_items}} with
// every benchmark's z in bundle_z (binary, float32, concatenated).
// Every number shown comes from Python (benchkit.measure); this module only draws and sends
// the user's actions back (benchmark picked, gap clicked, items added).

const W = 700, H = 420;
const M = { l: 52, r: 18, t: 54, b: 64 };
// adjacent gap bands alternate between two hues (and keep a white edge) so they stay distinguishable
const GAP_FILL = ["#5e60ce", "#2a9d8f"];  // blue-violet and teal: distinct from the orange DDM area
const PW = W - M.l - M.r, PH = H - M.t - M.b;
const x = (v) => M.l + v * PW;
const y = (v) => M.t + (1 - v) * PH;

const fmt = (v, d = 3) => (v === null || v === undefined ? "–" : Number(v).toFixed(d));

// ECDF of sorted values as a step path's points, from (0, 0) to (1, 1).
function stepPoints(sorted) {
  const n = sorted.length;
  const pts = [[0, 0]];
  for (let i = 0; i < n; i++) {
    pts.push([sorted[i], i / n]);
    pts.push([sorted[i], (i + 1) / n]);
  }
  pts.push([1, 1]);
  return pts;
}

const toPath = (pts) => "M" + pts.map(([a, b]) => `${x(a).toFixed(2)},${y(b).toFixed(2)}`).join("L");

function render({ model, el }) {
  const root = h("div", { class: "bk-ecdf" });
  el.appendChild(root);
  const guard = busyGuard(model, root);
  const zArray = () => {
    const v = model.get("z");
    if (Array.isArray(v) || (v && v.BYTES_PER_ELEMENT)) return v;
    return unpackArrays(v).z || [];
  };
  let tableOpen = null; // keep the Table 1 <details> open/closed across redraws

  const get = traitGetter(model);
  const commit = () => model.save_changes();

  // exported page: switch benchmarks from the embedded bundle (no kernel)
  const loadStatic = (name) => {
    const view = (get("bundle", {}) || {})[name];
    if (!view) return;
    const Z = unpackArrays(model.get("bundle_z")).z;
    model.set("selected_gap", -1);
    model.set("added", []);
    model.set("after", {});
    model.set("z", Z.subarray(view.offset, view.offset + view.n));
    model.set("metrics", view.metrics);
    model.set("gaps", view.gaps);
    model.set("gap_items", view.gap_items);
  };

  const pick = (name) => {
    if (name === get("benchmark", "")) return;
    guard.pending(`loading ${name}`);
    model.set("benchmark", name);
    if (get("static_mode", false)) loadStatic(name);
    commit();
  };

  const selectGap = (i) => {
    model.set("selected_gap", i === get("selected_gap", -1) ? -1 : i);
    commit();
  };

  const addItem = (zv) => {
    if (get("static_mode", false)) return;
    guard.pending("recomputing the metrics");
    model.set("added", [...get("added", []), zv]);
    commit();
  };

  function picker() {
    const names = get("benchmarks", []);
    const current = get("benchmark", "");
    const sel = h("select", { class: "bk-picker", "aria-label": "benchmark", "data-queue": "",
      onchange: (e) => pick(e.target.value) },
      names.map((n) => h("option", { value: n, selected: n === current }, n)));
    return h("label", { class: "bk-picker-label" }, ["Benchmark ", sel]);
  }

  function table1() {
    const rows = get("table", []);
    const th = get("thresholds", [0.1, 0.1, 0.3]);
    const current = get("benchmark", "");
    const k = (get("metrics", {}) || {}).k || 5;
    const head = h("tr", {}, ["Benchmark", "DDM", "Max Gap", `Top-${k} Sum`, "#"].map((c) => h("th", {}, c)));
    const body = rows.map((r) => h("tr", {
      class: "bk-row" + (r.name === current ? " bk-current" : ""), "data-name": r.name,
      title: "show in the explorer", onclick: () => pick(r.name),
    }, [
      h("td", {}, r.name),
      h("td", { class: r.ddm_high ? "bk-high" : "" }, fmt(r.ddm)),
      h("td", { class: r.gap_high ? "bk-high" : "" }, fmt(r.max_gap)),
      h("td", { class: r.top_high ? "bk-high" : "" }, fmt(r.top_sum)),
      h("td", {}, String(r.n_items)),
    ]));
    const det = h("details", { class: "bk-table1", open: tableOpen === null ? rows.length <= 30 : tableOpen,
      ontoggle: (e) => { tableOpen = e.target.open; } }, [
      h("summary", {}, `Table 1 layout: ${rows.length} benchmarks (highlight: DDM ≥ ${th[0]}, ` +
        `Max Gap ≥ ${th[1]}, Top-${k} Sum ≥ ${th[2]}; click a row)`),
      h("table", {}, [h("thead", {}, head), h("tbody", {}, body)]),
    ]);
    return det;
  }

  function metricsLine() {
    const m = get("metrics", {});
    const a = get("after", {});
    const th = get("thresholds", [0.1, 0.1, 0.3]);
    const has = a && a.n_items !== undefined;
    const cell = (label, key, t) => h("span", { class: "bk-metric" + (m[key] >= t ? " bk-high" : ""),
      "data-metric": key }, [
      h("b", {}, label + " "), fmt(m[key]),
      has ? h("span", { class: "bk-after" + (a[key] >= t ? " bk-high" : ""), "data-after": key },
        ` → ${fmt(a[key])}`) : null,
    ]);
    return h("div", { class: "bk-metrics" }, [
      cell("DDM", "ddm", th[0]), cell("Max Gap", "max_gap", th[1]),
      cell(`Top-${m.k || 5} Sum`, "top_sum", th[2]),
      h("span", { class: "bk-metric", "data-metric": "n_items" }, [h("b", {}, "# "), String(m.n_items),
        has ? h("span", { class: "bk-after", "data-after": "n_items" }, ` → ${a.n_items}`) : null]),
    ]);
  }

  function chart() {
    const z = zArray();
    const n = z.length;
    const gaps = get("gaps", []);
    const sel = get("selected_gap", -1);
    const added = get("added", []);
    const after = get("after", {});
    const svg = s("svg", { class: "bk-chart", viewBox: `0 0 ${W} ${H}`, width: W, height: H,
      role: "img", "aria-label": "ECDF of normalized item difficulty" });
    // frame and grid
    s("rect", { x: M.l, y: M.t, width: PW, height: PH, class: "bk-frame" }, svg);
    for (let i = 0; i <= 5; i++) {
      const v = i / 5;
      s("line", { x1: x(v), x2: x(v), y1: y(0), y2: y(0) + 5, class: "bk-tick" }, svg);
      s("text", { x: x(v), y: y(0) + 17, class: "bk-ticklabel", "text-anchor": "middle" }, svg, v.toFixed(1));
      s("line", { x1: M.l - 5, x2: M.l, y1: y(v), y2: y(v), class: "bk-tick" }, svg);
      s("text", { x: M.l - 8, y: y(v) + 4, class: "bk-ticklabel", "text-anchor": "end" }, svg, v.toFixed(1));
    }
    s("text", { x: 14, y: M.t + PH / 2, class: "bk-axislabel", "text-anchor": "middle",
      transform: `rotate(-90 14 ${M.t + PH / 2})` }, svg, "cumulative fraction of items");
    s("text", { x: M.l + PW / 2, y: H - 4, class: "bk-axislabel", "text-anchor": "middle" }, svg,
      "normalized difficulty z");
    if (n === 0) return svg;
    // gap bands (behind the curves): in left-to-right order they alternate two hues with a white
    // edge, so adjacent gaps never merge into one band; labels "#rank width" sit in one row above
    // the plot, spread apart (dodge) and joined to their band by a leader line (never stacked)
    const bands = s("g", { class: "bk-gaps" }, svg);
    const byPos = gaps.map((g, i) => i).sort((a, b) => gaps[a].left - gaps[b].left);
    const texts = gaps.map((g) => `#${g.rank} ${fmt(g.width)}`);
    const centres = gaps.map((g) => (x(g.left) + x(g.right)) / 2);
    const placed = dodge(byPos.map((i) => centres[i]), byPos.map((i) => textWidth(texts[i], 11) + 6), M.l, W - M.r);
    byPos.forEach((i, k) => {
      const g = gaps[i];
      const x0 = x(g.left), x1 = x(g.right);
      const wpx = Math.max(x1 - x0, 3);
      const cx = centres[i];
      const band = s("rect", { x: cx - wpx / 2, y: M.t, width: wpx, height: PH, fill: GAP_FILL[k % 2],
        class: "bk-gap" + (i === sel ? " bk-selected" : ""), "data-rank": g.rank, "data-index": i }, bands);
      s("title", {}, band, `gap #${g.rank}: [${fmt(g.left)}, ${fmt(g.right)}], width ${fmt(g.width)}; click to list its neighbouring items`);
      band.addEventListener("click", () => selectGap(i));
      s("path", { d: `M${cx},${M.t}L${placed[k]},${M.t - 13}`, class: "bk-leader" }, bands);
      const label = s("text", { x: placed[k], y: M.t - 16, class: "bk-gaplabel" + (i === sel ? " bk-selected" : ""),
        "text-anchor": "middle", "data-rank": g.rank, fill: GAP_FILL[k % 2] }, bands, texts[i]);
      label.addEventListener("click", () => selectGap(i));
    });
    // reference and the DDM area between the two ECDFs
    const ref = Array.from({ length: n }, (_, i) => (i + 0.5) / n);
    const pb = stepPoints(z), pr = stepPoints(ref);
    s("path", { d: toPath(pb) + "L" + pr.slice().reverse().map(([a, b]) => `${x(a).toFixed(2)},${y(b).toFixed(2)}`).join("L") + "Z",
      class: "bk-area" }, svg);
    s("path", { d: toPath(pr), class: "bk-ref" }, svg);
    s("path", { d: toPath(pb), class: "bk-ecdf-line" }, svg);
    if (added.length) {
      const merged = Array.from(z).concat(added).sort((a, b) => a - b);
      s("path", { d: toPath(stepPoints(merged)), class: "bk-after-line" }, svg);
      for (const a of added) {
        s("path", { d: `M${x(a)},${y(0) - 1}l-5,-9h10z`, class: "bk-added", "data-z": a }, svg);
      }
      for (const g of (after.gaps || [])) {
        s("rect", { x: x(g.left), y: M.t, width: Math.max(x(g.right) - x(g.left), 1), height: PH,
          class: "bk-gap-after" }, svg);
      }
    }
    // what-if strip under the axis
    const stripY = y(0) + 23;
    const strip = s("rect", { x: M.l, y: stripY, width: PW, height: 16,
      class: "bk-strip" + (get("static_mode", false) ? " bk-disabled" : "") }, svg);
    s("text", { x: M.l + PW / 2, y: stripY + 12, class: "bk-striplabel", "text-anchor": "middle" }, svg,
      get("static_mode", false) ? "what-if (adding items) needs a running kernel"
        : "click here to add an item at that difficulty (what-if)");
    strip.addEventListener("click", (evt) => {
      const box = svg.getBoundingClientRect();
      const px = (evt.clientX - box.left) * (W / box.width);
      const zv = Math.min(1, Math.max(0, (px - M.l) / PW));
      addItem(Math.round(zv * 1e4) / 1e4);
    });
    // legend in the emptier of two corners: top-left is covered when the ECDF rises early
    // (F(0.35) > 0.5, easy items), bottom-right when it rises late; the ECDF there decides
    const lgH = 15 * (added.length ? 5 : 4) + 4, lgW = 215;
    let below = 0;
    for (let i = 0; i < n; i++) if (z[i] <= 0.35) below++;
    const corner = below / n > 0.5
      ? [M.l + PW - lgW - 4, M.t + PH - lgH + 4]    // bottom-right (under the reference line)
      : [M.l + 10, M.t + 12];                         // top-left
    const lg = s("g", { class: "bk-legend", transform: `translate(${corner[0]},${corner[1]})`,
      "data-corner": below / n > 0.5 ? "bottom-right" : "top-left" }, svg);
    s("rect", { x: -6, y: -10, width: lgW, height: lgH, class: "bk-legendbg" }, lg);
    const entries = [["bk-ecdf-line", "benchmark ECDF"], ["bk-ref", "uniform reference (same n)"],
      ["bk-area-key", "area = DDM"], ["bk-gap-key", `top-${gaps.length} gaps (alternating hues)`]];
    if (added.length) entries.push(["bk-after-line", `after adding ${added.length}`]);
    entries.forEach(([cls, label], i) => {
      const gy = i * 15;
      if (cls === "bk-gap-key") {  // the two alternating band hues
        s("rect", { x: 0, y: gy - 6, width: 9, height: 9, fill: GAP_FILL[0], "fill-opacity": 0.5 }, lg);
        s("rect", { x: 9, y: gy - 6, width: 9, height: 9, fill: GAP_FILL[1], "fill-opacity": 0.5 }, lg);
      } else if (cls.endsWith("-key")) s("rect", { x: 0, y: gy - 6, width: 18, height: 9, class: cls }, lg);
      else s("line", { x1: 0, x2: 18, y1: gy, y2: gy, class: cls }, lg);
      s("text", { x: 24, y: gy + 4, class: "bk-legendlabel" }, lg, label);
    });
    return svg;
  }

  function controls() {
    const added = get("added", []);
    const isStatic = get("static_mode", false);
    return h("div", { class: "bk-controls" }, [
      h("button", { class: "bk-undo", disabled: isStatic || !added.length,
        onclick: () => { model.set("added", added.slice(0, -1)); commit(); } }, "Undo last added"),
      h("button", { class: "bk-clear", disabled: isStatic || !added.length,
        onclick: () => { model.set("added", []); commit(); } }, "Clear added"),
      h("span", { class: "bk-added-list" }, added.length ? `added at z = ${added.map((a) => fmt(a)).join(", ")}` : ""),
    ]);
  }

  function itemsPanel() {
    const gaps = get("gaps", []);
    const sel = get("selected_gap", -1);
    const box = h("div", { class: "bk-items", "data-selected": sel });
    if (sel < 0 || sel >= gaps.length) {
      box.appendChild(h("p", { class: "bk-hint" }, "Click a gap band (or its width label) to list the items next to it."));
      return box;
    }
    const g = gaps[sel];
    const rows = (get("gap_items", [])[sel]) || [];
    box.appendChild(h("p", { class: "bk-gaptitle" }, [
      h("b", {}, `Gap #${g.rank}`), ` [${fmt(g.left)}, ${fmt(g.right)}], width ${fmt(g.width)}; ` +
        `gap-filling target z* = ${fmt(g.midpoint)}`]));
    const head = h("tr", {}, ["side", "#", "item", "z", "|z − z*|", "text"].map((c) => h("th", {}, c)));
    const body = rows.map((r) => h("tr", { class: "bk-item", "data-item": r.item, "data-side": r.side }, [
      h("td", {}, r.side === "lower" ? "below" : "above"), h("td", {}, String(r.order)),
      h("td", { class: "bk-itemid" }, r.item), h("td", {}, fmt(r.z)), h("td", {}, fmt(r.distance)),
      h("td", { class: "bk-text", title: r.text || "" }, r.text || "–"),
    ]));
    box.appendChild(h("table", {}, [h("thead", {}, head), h("tbody", {}, body)]));
    return box;
  }

  const redraw = redrawer(model, root, guard, () => root.replaceChildren(
    h("div", { class: "bk-top" }, [picker(), metricsLine()]),
    chart(), controls(), itemsPanel(), table1(),
  ));
  return redraw.start(["benchmarks", "table", "thresholds", "benchmark", "z", "metrics", "gaps",
    "gap_items", "selected_gap", "added", "after", "static_mode", "revision"]);
}

export default { render };
