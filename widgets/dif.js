// Family-DIF explorer (benchkit.widgets.DIFExplorer). Shared helpers (s, h, unpackArrays, busyGuard,
// fitText, thinLabels) come from _dom.js. Heatmap: canvas overview of every item (ordered by D_i)
// plus a clickable SVG window; signature, Figure 1 curve, Figure 2 forest and near-tie pairs.

const fmt = (v, d = 2) => (v === null || v === undefined || Number.isNaN(v) ? "–" : Number(v).toFixed(d));

// diverging colour for an effect v scaled by m: blue (negative) - white - red (positive)
function divColor(v, m) {
  const t = Math.max(-1, Math.min(1, m > 0 ? v / m : 0));
  const a = Math.abs(t);
  const base = t >= 0 ? [178, 24, 43] : [33, 102, 172];
  const c = base.map((b) => Math.round(255 + (b - 255) * a));
  return [c[0], c[1], c[2]];
}

function render({ model, el }) {
  const root = h("div", { class: "bk-dif" });
  el.appendChild(root);
  const guard = busyGuard(model, root);
  const fams = model.get("families");
  const F = fams.length;
  const items = model.get("items");
  const sources = model.get("sources");
  const texts = model.get("texts");
  const N = items.length;
  const A = unpackArrays(model.get("heat"));
  const index = new Map(items.map((id, k) => [id, k]));
  // colour scale: 99th percentile of |delta| over both halves
  const scale = (() => {
    const v = [];
    for (const d of [A.delta0, A.delta1]) for (let k = 0; k < d.length; k += Math.max(1, Math.floor(d.length / 20000))) v.push(Math.abs(d[k]));
    v.sort((a, b) => a - b);
    return v.length ? Math.max(1e-9, v[Math.floor(0.99 * (v.length - 1))]) : 1;
  })();
  const isStatic = !!model.get("static_mode");
  let local = { half: model.get("half"), offset: model.get("offset"), selected: model.get("selected"),
    epsilon: model.get("epsilon"), reversalsOnly: model.get("reversals_only") };
  const setTrait = (name, key, value, label) => {
    local[key] = value;
    if (isStatic) { model.set(name, value); draw(); return; }
    if (label) guard.pending(label);
    model.set(name, value); model.save_changes(); draw();
  };

  const arr = (name) => A[name + local.half];
  // exported page: the largest threshold's pairs (binary columns), filtered by gap per threshold
  const staticPairs = (() => {
    if (!isStatic || !model.get("pair_bin")) return null;
    const B = unpackArrays(model.get("pair_bin")), M = model.get("pair_models") || [];
    const out = [];
    for (let k = 0; k < (B.fold ? B.fold.length : 0); k++) out.push({ fold: B.fold[k], model_a: M[B.a[k]], model_b: M[B.b[k]],
      full_a: B.full_a[k], full_b: B.full_b[k], anchor_a: B.anchor_a[k], anchor_b: B.anchor_b[k], gap_pp: B.gap_pp[k],
      anchor_tie: !!B.anchor_tie[k], reversed: !!B.reversed[k] });
    return out;
  })();

  // ----------------------------------------------------------- summary
  const summary = () => {
    const S = model.get("summary");
    const cell = (k, label, d) => h("span", { class: "bk-metric", "data-metric": k }, `${label} ${typeof S[k] === "number" ? fmt(S[k], d) : (S[k] ?? "–")}`);
    return h("div", { class: "bk-summary" }, [
      h("strong", {}, "Family-DIF audit"), cell("K", "K"), cell("tau_b", "τb", 3), cell("close_n", "close pairs", 0),
      cell("low_dif_pct", "low-DIF reversal %", 1), cell("random_pct", "random %", 1), cell("excess_pp", "excess pp", 1),
      cell("p_rand", "p", 3),
      h("label", {}, ["half ", h("select", { class: "bk-half", "data-queue": "", onchange: (e) => setTrait("half", "half", Number(e.target.value), "switching half") },
        [0, 1].map((v) => h("option", { value: v, selected: v === local.half ? "" : null }, `${v} (fit on owner half ${v})`)))]),
    ]);
  };

  // ----------------------------------------------------------- heatmap
  const W = 64, OH = 360, colW = Math.max(18, Math.min(46, Math.floor(280 / Math.max(1, F))));
  const heatmap = () => {
    const order = arr("order"), D = arr("D"), anc = arr("anchor"), del = arr("delta");
    const win = Math.min(model.get("window"), N);
    const off = Math.max(0, Math.min(local.offset, N - win));
    // overview: one pixel row per ~N/360 items: per family the effect of largest |delta| in the row
    // (means wash out at 14,000 items); anchor share on the right
    const cv = h("canvas", { class: "bk-overview", width: F * 8 + 6, height: OH, title: "all items ordered by D (click to move the window)" });
    const ctx = cv.getContext("2d");
    const img = ctx.createImageData(F * 8 + 6, OH);
    for (let y = 0; y < OH; y++) {
      const a = Math.floor((y * N) / OH), b = Math.max(a + 1, Math.floor(((y + 1) * N) / OH));
      let share = 0;
      const mean = new Float64Array(F);
      for (let r = a; r < b && r < N; r++) {
        const i = order[r];
        for (let f = 0; f < F; f++) { const v = del[i * F + f]; if (Math.abs(v) > Math.abs(mean[f])) mean[f] = v; }
        share += anc[i];
      }
      const n = Math.min(b, N) - a;
      for (let x = 0; x < F * 8 + 6; x++) {
        let c;
        if (x < F * 8) c = divColor(mean[Math.floor(x / 8)], scale);
        else if (x < F * 8 + 2) c = [255, 255, 255];
        else { const g = Math.round(255 - 200 * (share / Math.max(1, n))); c = [g, g, g]; }
        const p = 4 * (y * (F * 8 + 6) + x);
        img.data[p] = c[0]; img.data[p + 1] = c[1]; img.data[p + 2] = c[2]; img.data[p + 3] = 255;
      }
    }
    ctx.putImageData(img, 0, 0);
    ctx.strokeStyle = "#000"; ctx.lineWidth = 1.5;
    ctx.strokeRect(0.75, (off / N) * OH, F * 8 + 4.5, Math.max(2, (win / N) * OH));
    cv.addEventListener("click", (e) => {
      const r = cv.getBoundingClientRect();
      const at = Math.floor(((e.clientY - r.top) / r.height) * N);
      setTrait("offset", "offset", Math.max(0, Math.min(N - win, at - Math.floor(win / 2))), null);
    });
    // detail window: SVG rows, clickable
    const rowH = 12, top = 34, left = 120;
    const svg = s("svg", { class: "bk-heat", width: left + F * colW + 70, height: top + win * rowH + 4 });
    fams.forEach((f, j) => {
      const ft = fitText(f, colW + 20, 10);
      const t = s("text", { x: left + j * colW + colW / 2, y: top - 6, "text-anchor": "start", class: "bk-axis",
        transform: `rotate(-35 ${left + j * colW + colW / 2} ${top - 6})` }, svg, ft.text);
      if (ft.cut) s("title", {}, t, ft.full);
    });
    s("text", { x: left + F * colW + 8, y: top - 6, class: "bk-axis" }, svg, "D");
    for (let r = 0; r < win; r++) {
      const i = order[off + r];
      const g = s("g", { class: "bk-row" + (items[i] === local.selected ? " bk-picked" : ""), "data-item": items[i],
        "data-rank": off + r, transform: `translate(0 ${top + r * rowH})` }, svg);
      const lab = fitText(items[i], left - 16, 10);
      s("text", { x: left - 14, y: rowH - 3, "text-anchor": "end", class: "bk-label" }, g, lab.text);
      if (anc[i]) s("circle", { cx: left - 7, cy: rowH / 2, r: 3, class: "bk-anchor" }, g);
      for (let f = 0; f < F; f++) {
        const c = divColor(del[i * F + f], scale);
        s("rect", { x: left + f * colW, y: 0, width: colW - 1, height: rowH - 1, fill: `rgb(${c[0]},${c[1]},${c[2]})` }, g);
      }
      s("text", { x: left + F * colW + 8, y: rowH - 3, class: "bk-label" }, g, fmt(D[i], 2));
      s("title", {}, g, `${items[i]} (${sources[i]}) D=${fmt(D[i], 3)}${anc[i] ? " anchor" : ""}`);
      g.addEventListener("click", () => setTrait("selected", "selected", items[i], null));
    }
    const nav = h("div", { class: "bk-nav" }, [
      h("button", { class: "bk-prev", onclick: () => setTrait("offset", "offset", Math.max(0, off - win), null) }, "▲ higher D"),
      h("span", {}, ` rows ${off + 1}–${off + win} of ${N} `),
      h("button", { class: "bk-next", onclick: () => setTrait("offset", "offset", Math.min(N - win, off + win), null) }, "lower D ▼"),
    ]);
    const legend = h("div", { class: "bk-legend" }, [
      h("span", { class: "bk-swatch", style: `background:rgb(${divColor(-scale, scale).join(",")})` }), ` −${fmt(scale, 2)} `,
      h("span", { class: "bk-swatch", style: "background:#fff" }), " 0 ",
      h("span", { class: "bk-swatch", style: `background:rgb(${divColor(scale, scale).join(",")})` }), ` +${fmt(scale, 2)} family effect δ (logit); ● anchor. Overview (left, click to move): strongest δ per pixel row, grey strip = anchor share`,
    ]);
    return h("div", { class: "bk-panel bk-heatmap" }, [h("h4", {}, "Item × family effects, ordered by D_i"), legend,
      h("div", { class: "bk-heat-wrap" }, [cv, h("div", {}, [nav, svg])])]);
  };

  // ----------------------------------------------------------- signature
  const signature = () => {
    const box = h("div", { class: "bk-panel bk-signature" }, [h("h4", {}, "Item signature (both halves)")]);
    const i = index.get(local.selected);
    if (i === undefined) { box.appendChild(h("p", { class: "bk-hint" }, "Click a heatmap row to see that item's signature.")); return box; }
    const w = 330, rowH = 22, left = 90, top = 20;
    let lo = 0, hi = 0;
    for (const d of [A.delta0, A.delta1]) for (let f = 0; f < F; f++) { lo = Math.min(lo, d[i * F + f]); hi = Math.max(hi, d[i * F + f]); }
    const pad = Math.max(0.1, 0.08 * (hi - lo)); lo -= pad; hi += pad;
    const x = (v) => left + ((v - lo) / (hi - lo)) * (w - left - 10);
    const svg = s("svg", { class: "bk-sig", width: w, height: top + F * rowH + 26, "data-item": local.selected });
    s("line", { x1: x(0), x2: x(0), y1: top - 6, y2: top + F * rowH, class: "bk-zero" }, svg);
    fams.forEach((f, j) => {
      const y = top + j * rowH + rowH / 2;
      s("text", { x: left - 8, y: y + 4, "text-anchor": "end", class: "bk-label" }, svg, fitText(f, left - 10, 11).text);
      s("line", { x1: x(A.delta0[i * F + j]), x2: x(A.delta1[i * F + j]), y1: y, y2: y, class: "bk-link" }, svg);
      for (const hf of [0, 1]) {
        const v = A["delta" + hf][i * F + j];
        const c = s("circle", { cx: x(v), cy: y, r: 5, class: `bk-dot bk-h${hf}`, "data-family": f, "data-half": hf, "data-delta": v }, svg);
        s("title", {}, c, `${f}, half ${hf}: δ = ${fmt(v, 3)}`);
      }
    });
    for (const t of [lo, 0, hi]) s("text", { x: x(t), y: top + F * rowH + 16, "text-anchor": "middle", class: "bk-axis" }, svg, fmt(t, 2));
    s("text", { x: w - 4, y: 12, "text-anchor": "end", class: "bk-axis" }, svg, "● half 0   ○ half 1");
    box.append(
      h("div", { class: "bk-sig-head" }, [h("strong", { class: "bk-sig-id" }, local.selected), ` · ${sources[i]} · D = ${fmt(A.D0[i], 2)} / ${fmt(A.D1[i], 2)}`
        + ` · anchor: ${A.anchor0[i] ? "yes" : "no"} / ${A.anchor1[i] ? "yes" : "no"}`]),
      svg,
      h("div", { class: "bk-text" }, texts[i] || "(no text given)"));
    return box;
  };

  // ----------------------------------------------------------- Figure 1
  const curvePanel = () => {
    const C = model.get("curve");
    const w = 380, hgt = 230, l = 46, r = 12, t = 14, b = 40;
    const svg = s("svg", { class: "bk-curve", width: w, height: hgt });
    const n = C.length;
    const x = (k) => l + (n > 1 ? (k / (n - 1)) * (w - l - r) : (w - l - r) / 2);
    let ymax = 0;
    for (const c of C) ymax = Math.max(ymax, c.low_dif_rate ?? 0, c.random_high ?? 0);
    const step = ymax > 0.6 ? 0.2 : ymax > 0.25 ? 0.1 : 0.05;
    ymax = Math.max(step, Math.ceil((ymax * 1.05) / step) * step);
    const y = (v) => t + (1 - v / ymax) * (hgt - t - b);
    for (let g = 0; g <= Math.round(ymax / step); g++) {
      const v = g * step;
      s("line", { x1: l, x2: w - r, y1: y(v), y2: y(v), class: "bk-grid" }, svg);
      s("text", { x: l - 5, y: y(v) + 4, "text-anchor": "end", class: "bk-axis" }, svg, `${Math.round(v * 100)}%`);
    }
    const band = C.map((c, k) => `${x(k)},${y(c.random_high ?? 0)}`).concat(C.map((c, k) => `${x(k)},${y(c.random_low ?? 0)}`).reverse());
    s("polygon", { points: band.join(" "), class: "bk-band" }, svg);
    s("polyline", { points: C.map((c, k) => `${x(k)},${y(c.random_median ?? 0)}`).join(" "), class: "bk-median" }, svg);
    s("polyline", { points: C.map((c, k) => `${x(k)},${y(c.low_dif_rate ?? 0)}`).join(" "), class: "bk-observed" }, svg);
    C.forEach((c, k) => {
      const on = Math.abs(c.threshold_pp - local.epsilon) < 1e-9;
      const m = s("circle", { cx: x(k), cy: y(c.low_dif_rate ?? 0), r: on ? 6.5 : 5,
        class: "bk-point" + (c.filled ? " bk-filled" : "") + (on ? " bk-on" : ""), "data-threshold": c.threshold_pp }, svg);
      s("title", {}, m, `≤ ${c.threshold_pp} pp: low-DIF ${fmt(100 * c.low_dif_rate, 1)}%, random median ${fmt(100 * c.random_median, 1)}% `
        + `[${fmt(100 * c.random_low, 1)}, ${fmt(100 * c.random_high, 1)}], excess ${fmt(c.excess_pp, 1)} pp, p = ${fmt(c.p_value, 3)}, ${c.eligible} pairs (click: list pairs)`);
      m.addEventListener("click", () => setTrait("epsilon", "epsilon", c.threshold_pp, `pairs within ${c.threshold_pp} pp`));
      s("text", { x: x(k), y: hgt - b + 16, "text-anchor": "middle", class: "bk-axis" }, svg, `${c.threshold_pp}`);
    });
    s("text", { x: (l + w - r) / 2, y: hgt - 6, "text-anchor": "middle", class: "bk-axis" }, svg, "near-tie threshold (pp)");
    return h("div", { class: "bk-panel bk-fig1" }, [h("h4", {}, "Reversal rate vs threshold (Figure 1)"),
      h("div", { class: "bk-legend" }, "— low-DIF (anchor) scoring, filled if p ≤ .05 · - - matched-random median · band: random 95% range · click a point to list its pairs"), svg]);
  };

  // ----------------------------------------------------------- Figure 2
  const forestPanel = () => {
    const R = model.get("forest");
    const box = h("div", { class: "bk-panel bk-fig2" }, [h("h4", {}, "Population robustness (Figure 2)")]);
    if (!R.length) { box.appendChild(h("p", { class: "bk-hint" }, "No robustness table given (pass robustness=benchkit.dif.robustness(...)).")); return box; }
    const w = 380, rowH = 18, l = 170, r = 14, t = 8;
    const svg = s("svg", { class: "bk-forest", width: w, height: t + R.length * rowH + 44 });
    let lo = 0, hi = 0;
    for (const q of R) { lo = Math.min(lo, q.excess_pp ?? 0); hi = Math.max(hi, q.excess_pp ?? 0); }
    const pad = Math.max(0.5, 0.08 * (hi - lo)); lo -= pad; hi += pad;
    const x = (v) => l + ((v - lo) / (hi - lo)) * (w - l - r);
    s("line", { x1: x(0), x2: x(0), y1: t, y2: t + R.length * rowH, class: "bk-zero" }, svg);
    R.forEach((q, k) => {
      const y = t + k * rowH + rowH / 2;
      const name = (q.benchmark ? q.benchmark + ": " : "") + q.variant;
      const ft = fitText(name, l - 10, 11);
      const lab = s("text", { x: l - 8, y: y + 4, "text-anchor": "end", class: "bk-label" + (q.primary ? " bk-primary" : "") }, svg, ft.text);
      if (ft.cut) s("title", {}, lab, ft.full);
      const m = s("circle", { cx: x(q.excess_pp), cy: y, r: 4.5, class: "bk-point" + (q.filled ? " bk-filled" : ""), "data-variant": q.variant }, svg);
      s("title", {}, m, `${name}: excess ${fmt(q.excess_pp, 2)} pp, p = ${fmt(q.p_value, 3)}, ${q.close_n} close pairs`);
    });
    // tick labels at the range ends and 0; an end label closer than 30 px to 0 is left out (they
    // overlapped as "-1.0" over "0.0")
    for (const v of [lo, 0, hi]) {
      if (v !== 0 && Math.abs(x(v) - x(0)) < 30) continue;
      s("text", { x: x(v), y: t + R.length * rowH + 16, "text-anchor": "middle", class: "bk-axis" }, svg, fmt(v, 1));
    }
    // the axis title on two lines, right-aligned to the plot (one centred line ran past the panel)
    s("text", { x: w - r, y: t + R.length * rowH + 29, "text-anchor": "end", class: "bk-axis" }, svg, "excess reversal over matched random (pp)");
    s("text", { x: w - r, y: t + R.length * rowH + 41, "text-anchor": "end", class: "bk-axis" }, svg, "filled: p ≤ .05");
    box.appendChild(svg);
    return box;
  };

  // ----------------------------------------------------------- pair table
  const pairPanel = () => {
    let P = model.get("pairs");
    if (isStatic && staticPairs) P = staticPairs.filter((p) => p.gap_pp <= local.epsilon * (1 + 1e-9));
    const nRev = P.filter((p) => p.reversed).length;
    const nTie = P.filter((p) => p.anchor_tie).length;
    const shown = local.reversalsOnly ? P.filter((p) => p.reversed) : P;
    const cap = 400;
    const rows = shown.slice(0, cap).map((p) => h("tr", { class: "bk-pair" + (p.reversed ? " bk-rev" : "") + (p.anchor_tie ? " bk-tie" : ""),
      "data-a": p.model_a, "data-b": p.model_b, "data-fold": p.fold, "data-reversed": p.reversed ? "1" : "0" }, [
      h("td", {}, String(p.fold)), h("td", { class: "bk-model" }, p.model_a), h("td", { class: "bk-model" }, p.model_b),
      h("td", {}, `${fmt(100 * p.full_a, 2)} / ${fmt(100 * p.full_b, 2)}`),
      h("td", {}, `${fmt(100 * p.anchor_a, 2)} / ${fmt(100 * p.anchor_b, 2)}`),
      h("td", {}, fmt(p.gap_pp, 2)), h("td", {}, p.reversed ? "flips" : (p.anchor_tie ? "tie (excluded)" : "kept")),
    ]));
    const cb = h("input", { type: "checkbox", class: "bk-revonly", checked: local.reversalsOnly ? "" : null,
      onchange: (e) => setTrait("reversals_only", "reversalsOnly", e.target.checked, null) });
    return h("div", { class: "bk-panel bk-pairs" }, [
      // the header's "close pairs" (the rate's denominator) leaves out pairs tied under anchor
      // scoring (Eq. 38-39); say so, so the two counts do not look inconsistent
      h("h4", {}, `Near-tie pairs within ${local.epsilon} pp: ${P.length} pairs, ${nRev} flip under anchor scoring` +
        (nTie ? ` (${nTie} tied under anchors, left out of the rate: ${P.length - nTie} eligible)` : "")),
      h("label", {}, [cb, " reversals only"]),
      shown.length > cap ? h("p", { class: "bk-hint" }, `showing the first ${cap} of ${shown.length} rows (reversals first)`) : null,
      h("div", { class: "bk-table-wrap" }, h("table", {}, [
        h("thead", {}, h("tr", {}, ["fold", "model a", "model b", "full a / b (%)", "anchor a / b (%)", "gap (pp)", "under anchors"].map((c) => h("th", {}, c)))),
        h("tbody", {}, rows)])),
    ]);
  };

  function draw() {
    local.half = model.get("half"); local.selected = model.get("selected"); local.offset = model.get("offset");
    local.epsilon = model.get("epsilon"); local.reversalsOnly = model.get("reversals_only");
    root.replaceChildren(summary(), h("div", { class: "bk-grid2" }, [heatmap(), signature()]),
      h("div", { class: "bk-grid2" }, [curvePanel(), forestPanel()]), pairPanel());
    guard.apply();
  }
  for (const ev of ["change:revision", "change:half", "change:selected", "change:offset", "change:reversals_only", "change:pairs"]) model.on(ev, draw);
  if (isStatic) model.on("change:epsilon", draw);
  draw();
}
export default { render };
