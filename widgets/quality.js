// benchkit Benchmark² dashboard (paper 004): plain ESM, inline SVG/DOM, no imports.
//
// State (synced traitlets of benchkit.widgets.QualityDashboard): table [{benchmark, domain, n_items,
// n_models, <metric>, <metric>_low, <metric>_high, <metric>_band}], columns [[key, header]],
// benchmarks, domains {benchmark: domain}, kendall {domain: {names, tau}}, benchmark, families
// [{family, members, inversions, comparisons, rate, score, band}], inverted [{item, inversions,
// comparisons, score, pairs, text?}], curve / mean_curve [{ratio, tau, stability, ds}], n_items,
// has_curve, ratio, ratio_grid, subset {ratio, n_items, share, tau, stability, ds, items, text},
// method, busy, revision, static_mode and, in exported pages only, bundle {benchmark: {families,
// inverted, curve, n_items, has_curve, order, text, subsets {ratio(4 d.p.): metrics}}}.
// Every number shown comes from Python (benchkit.quality); this module draws and sends back the
// user's actions (benchmark picked, ratio dragged).

const fmt = (v, d = 3) => (v === null || v === undefined || Number.isNaN(v) ? "–" : Number(v).toFixed(d));
const pct = (v) => `${Math.round(v * 100)}%`;
const BAND_CLASS = {
  high: "good", good: "good", excellent: "good",
  moderate: "mid", acceptable: "mid",
  low: "bad", minimal: "bad", "significant issues": "bad", concerning: "bad", poor: "bad",
};
const SERIES = [["tau", "Kendall τ to full", "#1f77b4"], ["stability", "stability", "#d2590b"],
  ["ds", "DS", "#2a9d8f"]];
const PAGE = 10;
const MAX_SUBSET_ROWS = 500;

function render({ model, el }) {
  const root = h("div", { class: "bk-quality" });
  el.appendChild(root);
  const guard = busyGuard(model, root);
  const get = traitGetter(model);
  const isStatic = () => !!get("static_mode", false);
  let invPage = 0;
  let dragRatio = null;  // ratio shown while dragging, before it is sent

  // ------------------------------------------------------------ exported page: local views
  const staticSubset = (b, r) => {
    const v = (get("bundle", {}) || {})[b];
    if (!v || !v.has_curve) return { ratio: r, n_items: 0, items: [], text: null };
    const m = v.subsets[r.toFixed(4)];
    const items = v.order.slice(0, m.n_items);
    return { ratio: r, ...m, items, text: v.text ? v.text.slice(0, m.n_items) : null };
  };
  const loadStatic = (b) => {
    const v = (get("bundle", {}) || {})[b];
    if (!v) return;
    for (const k of ["families", "inverted", "curve", "n_items", "has_curve"]) model.set(k, v[k]);
    model.set("subset", staticSubset(b, get("ratio", 0.35)));
  };
  const snap = (r) => {
    if (isStatic()) {
      const grid = get("ratio_grid", []);
      let best = grid[0], d = Infinity;
      for (const g of grid) if (Math.abs(g - r) < d) { d = Math.abs(g - r); best = g; }
      return best;
    }
    return Math.min(1, Math.max(0.01, Math.round(r * 100) / 100));
  };

  const pick = (b) => {
    if (b === get("benchmark", "")) return;
    invPage = 0;
    guard.pending(`loading ${b}`);
    model.set("benchmark", b);
    if (isStatic()) loadStatic(b);
    model.save_changes();
  };
  const setRatio = (r) => {
    r = snap(r);
    dragRatio = null;
    if (Math.abs(r - get("ratio", 0)) < 1e-12) { schedule(); return; }
    guard.pending(`selecting ${pct(r)} of the items`);
    model.set("ratio", r);
    if (isStatic()) model.set("subset", staticSubset(get("benchmark", ""), r));
    model.save_changes();
  };

  // ------------------------------------------------------------ header and Table 1
  function header() {
    const names = get("benchmarks", []);
    const cur = get("benchmark", "");
    const sel = h("select", { class: "bk-picker", "aria-label": "benchmark", "data-queue": "",
      onchange: (e) => pick(e.target.value) }, names.map((n) => h("option", { value: n, selected: n === cur }, n)));
    const dom = (get("domains", {}) || {})[cur] || "";
    return h("div", { class: "bk-top" }, [
      h("label", {}, ["Benchmark ", sel]), h("span", { class: "bk-domain" }, `domain: ${dom}`),
      isStatic() ? h("span", { class: "bk-static-note" }, "exported page: the ratio snaps to the precomputed grid") : null,
    ]);
  }

  function table1() {
    const rows = get("table", []);
    const cols = get("columns", []);
    const cur = get("benchmark", "");
    const head = h("tr", {}, ["benchmark", "domain", "items", "models", ...cols.map((c) => c[1])].map((c) => h("th", {}, c)));
    const body = rows.map((r) => h("tr", { class: "bk-row" + (r.benchmark === cur ? " bk-current" : ""),
      "data-name": r.benchmark, title: "show this benchmark", onclick: () => pick(r.benchmark) }, [
      h("td", { class: "bk-name" }, r.benchmark), h("td", {}, r.domain), h("td", { class: "bk-num" }, String(r.n_items)),
      h("td", { class: "bk-num" }, String(r.n_models)),
      ...cols.map(([k]) => {
        const b = r[`${k}_band`];
        const iv = r[`${k}_low`] !== null && r[`${k}_low`] !== undefined
          ? `; 95% bootstrap interval [${fmt(r[`${k}_low`])}, ${fmt(r[`${k}_high`])}]` : "";
        return h("td", { class: "bk-num bk-cell" + (b ? ` bk-band-${BAND_CLASS[b] || "none"}` : ""),
          "data-metric": k, "data-band": b || "", title: `${k} = ${fmt(r[k], 4)}${b ? ` (${b})` : ""}${iv}` }, fmt(r[k]));
      }),
    ]));
    const key = h("div", { class: "bk-key" }, [
      h("span", { class: "bk-band-good" }, "high / good / excellent"),
      h("span", { class: "bk-band-mid" }, "moderate / acceptable"),
      h("span", { class: "bk-band-bad" }, "low / minimal / significant issues / concerning / poor"),
      h("span", { class: "bk-keynote" }, "bands as named in the paper (CBRC, DS, CAD: Sec. 3; raw CAD: App. B); BQS has none; hover a cell for its interval"),
    ]);
    return h("section", { class: "bk-section" }, [h("h4", {}, "Benchmark quality (Table 1 layout)"),
      h("div", { class: "bk-tablewrap" }, h("table", { class: "bk-table1" }, [h("thead", {}, head), h("tbody", {}, body)])), key]);
  }

  // ------------------------------------------------------------ Kendall heatmap
  function heatmap() {
    const cur = get("benchmark", "");
    const dom = (get("domains", {}) || {})[cur];
    const K = (get("kendall", {}) || {})[dom];
    const sec = h("section", { class: "bk-section bk-heat" }, [h("h4", {}, `Pairwise Kendall τ_b, domain “${dom}” (Tables 15-17)`)]);
    if (!K || K.names.length < 2) { sec.appendChild(h("p", { class: "bk-hint" }, "only one benchmark in this domain")); return sec; }
    const n = K.names.length;
    const cell = Math.max(14, Math.min(34, Math.floor(380 / n)));
    // labels without the prefix the domain's names share ("mmlu-pro/"), full name in the tooltip
    const cut = K.names.every((x) => x.includes("/")) && new Set(K.names.map((x) => x.split("/")[0])).size === 1
      ? K.names[0].split("/")[0].length + 1 : 0;
    const shortNames = K.names.map((x) => x.slice(cut));
    const lab = Math.min(130, Math.max(...shortNames.map((x) => textWidth(x, 11))) + 8);
    const top = Math.min(130, lab * 0.77 + 12);
    // the colour key is at least 90 px wide, its "τ_b" label to the right of it (never between
    // the end values, where "0.80τ_b1.00" ran together)
    const kw = Math.max(90, Math.min(200, n * cell));
    const W = Math.max(lab + n * cell + top * 0.64 + 10, lab + kw + 34), Hh = top + n * cell + 40;
    const svg = s("svg", { class: "bk-chart", viewBox: `0 0 ${W} ${Hh}`, width: W, height: Hh, role: "img",
      "aria-label": "Kendall tau heatmap" });
    // colour scale from the domain's smallest tau (rounded down to 0.1) to 1, so that structure
    // among high correlations stays visible; the key states the range
    let lo = 1;
    for (const row of K.tau) for (const v of row) if (v !== null && v < lo) lo = v;
    lo = Math.floor(lo * 10) / 10;
    if (lo >= 1) lo = 0;
    const col = (v) => (v === null ? "#eee" : viridis((v - lo) / (1 - lo || 1)));
    K.names.forEach((name, i) => {
      const short = fitText(shortNames[i], lab - 6, 11);
      const isCur = name === cur;
      const t1 = s("text", { x: lab - 4, y: top + i * cell + cell / 2 + 4, "text-anchor": "end",
        class: "bk-ticklabel" + (isCur ? " bk-curlabel" : "") }, svg, short.text);
      s("title", {}, t1, name);
      const cx = lab + i * cell + cell / 2;
      const t2 = s("text", { x: cx, y: top - 4, transform: `rotate(-50 ${cx} ${top - 4})`,
        class: "bk-ticklabel" + (isCur ? " bk-curlabel" : "") }, svg, short.text);
      s("title", {}, t2, name);
      K.names.forEach((other, j) => {
        const v = K.tau[i][j];
        const r = s("rect", { x: lab + j * cell, y: top + i * cell, width: cell - 1, height: cell - 1, fill: col(v),
          class: "bk-hcell", "data-row": name, "data-col": other }, svg);
        s("title", {}, r, `${name} vs ${other}: τ_b = ${fmt(v)}`);
        if (cell >= 26 && v !== null) {
          const t = (v - lo) / (1 - lo || 1);
          s("text", { x: lab + j * cell + cell / 2 - 0.5, y: top + i * cell + cell / 2 + 3.5, "text-anchor": "middle",
            class: "bk-hval", fill: t > 0.6 ? "#222" : "#fff" }, svg, fmt(v, 2).replace(/^0\./, ".").replace(/^-0\./, "-."));
        }
      });
    });
    if (cut) s("text", { x: 4, y: 14, class: "bk-ticklabel bk-prefix" }, svg, `${K.names[0].slice(0, cut)}…`);
    // colour key
    const ky = top + n * cell + 14;
    for (let k = 0; k < 20; k++) s("rect", { x: lab + (k * kw) / 20, y: ky, width: kw / 20 + 0.5, height: 8, fill: viridis(k / 19) }, svg);
    s("text", { x: lab, y: ky + 20, class: "bk-ticklabel" }, svg, fmt(lo, 2));
    s("text", { x: lab + kw, y: ky + 20, class: "bk-ticklabel", "text-anchor": "end" }, svg, "1.00");
    s("text", { x: lab + kw + 6, y: ky + 8, class: "bk-ticklabel" }, svg, "τ_b");
    sec.appendChild(svg);
    return sec;
  }

  // ------------------------------------------------------------ per-family CAD
  function familyBars() {
    const all = get("families", []);
    const fams = all.filter((f) => f.score !== null && f.comparisons > 0);
    const sec = h("section", { class: "bk-section bk-fams" }, [h("h4", {}, `Per-family CAD of ${get("benchmark", "")} (Table 7)`)]);
    if (!fams.length) { sec.appendChild(h("p", { class: "bk-hint" }, "no family with two or more models here")); return sec; }
    const rowH = 20, lab = 150, bw = 200;
    const W = lab + bw + 120, Hh = fams.length * rowH + 28;
    const svg = s("svg", { class: "bk-chart", viewBox: `0 0 ${W} ${Hh}`, width: W, height: Hh, role: "img",
      "aria-label": "per-family CAD" });
    for (const t of [0.4, 0.6]) {
      s("line", { x1: lab + t * bw, x2: lab + t * bw, y1: 4, y2: Hh - 20, class: "bk-thresh" }, svg);
      s("text", { x: lab + t * bw, y: Hh - 8, "text-anchor": "middle", class: "bk-ticklabel" }, svg, t.toFixed(1));
    }
    s("text", { x: lab, y: Hh - 8, class: "bk-ticklabel", "text-anchor": "middle" }, svg, "0");
    s("text", { x: lab + bw, y: Hh - 8, class: "bk-ticklabel", "text-anchor": "middle" }, svg, "1");
    fams.forEach((f, i) => {
      const y0 = 4 + i * rowH;
      const name = fitText(f.family, lab - 8, 11);
      const t = s("text", { x: lab - 6, y: y0 + 13, "text-anchor": "end", class: "bk-ticklabel" }, svg, name.text);
      s("title", {}, t, `${f.family}: ${f.members}`);
      const v = f.score;
      const r = s("rect", { x: lab, y: y0 + 3, width: v === null ? 0 : Math.max(1, v * bw), height: rowH - 6,
        class: `bk-bar bk-band-${BAND_CLASS[f.band] || "none"}`, "data-family": f.family }, svg);
      s("title", {}, r, `${f.family} (${f.members}): CAD ${fmt(v)}${f.band ? ` (${f.band})` : ""}, ` +
        `${f.inversions} inversions in ${f.comparisons} comparisons (rate ${fmt(f.rate, 4)})`);
      s("text", { x: lab + bw + 6, y: y0 + 13, class: "bk-ticklabel" }, svg,
        v === null ? "n/a" : `${fmt(v)}  (${f.inversions}/${f.comparisons})`);
    });
    sec.appendChild(svg);
    const skipped = all.length - fams.length;
    sec.appendChild(h("p", { class: "bk-hint" }, "CAD = exp(−λ · inversion rate); bars coloured by the paper's CAD band (> 0.6 good, 0.4-0.6 acceptable); hover for the members, strongest first" +
      (skipped ? `; ${skipped} famil${skipped === 1 ? "y has" : "ies have"} fewer than two models here (not drawn)` : "")));
    return sec;
  }

  function invertedItems() {
    const inv = get("inverted", []);
    const sec = h("section", { class: "bk-section bk-inverted" });
    const pages = Math.max(1, Math.ceil(inv.length / PAGE));
    invPage = Math.min(invPage, pages - 1);
    const hasText = inv.some((r) => r.text);
    sec.appendChild(h("h4", {}, `Items with within-family inversions: ${inv.length}`));
    if (!inv.length) { sec.appendChild(h("p", { class: "bk-hint" }, "none: every family is ordered on every item")); return sec; }
    const head = h("tr", {}, ["item", "inversions", "comparisons", "item CAD", "stronger > weaker failed/solved", hasText ? "text" : null]
      .filter((c) => c !== null).map((c) => h("th", {}, c)));
    const body = inv.slice(invPage * PAGE, (invPage + 1) * PAGE).map((r) => h("tr", { class: "bk-inv", "data-item": r.item }, [
      h("td", { class: "bk-itemid" }, r.item), h("td", { class: "bk-num" }, String(r.inversions)),
      h("td", { class: "bk-num" }, String(r.comparisons)), h("td", { class: "bk-num" }, fmt(r.score)),
      h("td", { class: "bk-pairs", title: r.pairs }, r.pairs),
      hasText ? h("td", { class: "bk-text", title: r.text || "" }, r.text || "–") : null,
    ]));
    sec.appendChild(h("table", {}, [h("thead", {}, head), h("tbody", {}, body)]));
    sec.appendChild(h("div", { class: "bk-pager" }, [
      h("button", { disabled: invPage === 0, onclick: () => { invPage--; schedule(); } }, "‹ prev"),
      h("span", {}, ` page ${invPage + 1} of ${pages} (most inversions first) `),
      h("button", { disabled: invPage >= pages - 1, onclick: () => { invPage++; schedule(); } }, "next ›"),
    ]));
    return sec;
  }

  // ------------------------------------------------------------ selection-ratio curve
  const CW = 520, CH = 300, CM = { l: 44, r: 16, t: 16, b: 60 };
  const cx = (r) => CM.l + r * (CW - CM.l - CM.r);
  function curveChart() {
    const curve = get("curve", []);
    const mean = get("mean_curve", []);
    const ratio = dragRatio === null ? get("ratio", 0.35) : dragRatio;
    let ymax = 1;
    for (const c of curve.concat(mean)) for (const [k] of SERIES) if (c[k] !== null && c[k] > ymax) ymax = c[k];
    let ymin = 0;
    for (const c of curve.concat(mean)) for (const [k] of SERIES) if (c[k] !== null && c[k] < ymin) ymin = c[k];
    const cy = (v) => CM.t + (1 - (v - ymin) / (ymax - ymin)) * (CH - CM.t - CM.b);
    const svg = s("svg", { class: "bk-chart bk-curve", viewBox: `0 0 ${CW} ${CH}`, width: CW, height: CH, role: "img",
      "aria-label": "selection-ratio curve" });
    s("rect", { x: CM.l, y: CM.t, width: CW - CM.l - CM.r, height: CH - CM.t - CM.b, class: "bk-frame" }, svg);
    for (let i = 0; i <= 10; i += 2) {
      const r = i / 10;
      s("line", { x1: cx(r), x2: cx(r), y1: cy(ymin), y2: cy(ymin) + 4, class: "bk-tick" }, svg);
      s("text", { x: cx(r), y: cy(ymin) + 15, "text-anchor": "middle", class: "bk-ticklabel" }, svg, pct(r));
    }
    for (let v = Math.ceil(ymin * 5) / 5; v <= ymax + 1e-9; v += 0.2) {
      s("line", { x1: CM.l - 4, x2: CM.l, y1: cy(v), y2: cy(v), class: "bk-tick" }, svg);
      s("line", { x1: CM.l, x2: CW - CM.r, y1: cy(v), y2: cy(v), class: "bk-grid" }, svg);
      s("text", { x: CM.l - 6, y: cy(v) + 4, "text-anchor": "end", class: "bk-ticklabel" }, svg, v.toFixed(1));
    }
    s("text", { x: (CM.l + CW - CM.r) / 2, y: cy(ymin) + 30, "text-anchor": "middle", class: "bk-axislabel" }, svg,
      "selection ratio (share of items kept); drag the line");
    const line = (rows, key) => rows.filter((c) => c[key] !== null).map((c, i) => `${i ? "L" : "M"}${cx(c.ratio).toFixed(1)},${cy(c[key]).toFixed(1)}`).join("");
    for (const [k, , colr] of SERIES) {
      if (mean.length) s("path", { d: line(mean, k), stroke: colr, class: "bk-mean-line" }, svg);
      s("path", { d: line(curve, k), stroke: colr, class: "bk-curve-line", "data-series": k }, svg);
      for (const c of curve) if (c[k] !== null) s("circle", { cx: cx(c.ratio), cy: cy(c[k]), r: 2.2, fill: colr }, svg);
    }
    // legend
    // legend in one row under the axis title (never over the curves)
    const lg = s("g", { transform: `translate(${CM.l},${CH - 6})` }, svg);
    let lx = 0;
    SERIES.forEach(([, label, colr]) => {
      s("line", { x1: lx, x2: lx + 16, y1: -4, y2: -4, stroke: colr, "stroke-width": 2 }, lg);
      s("text", { x: lx + 20, y: 0, class: "bk-ticklabel" }, lg, label);
      lx += 26 + textWidth(label, 11);
    });
    if (mean.length) {
      s("line", { x1: lx, x2: lx + 16, y1: -4, y2: -4, stroke: "#666", class: "bk-mean-line" }, lg);
      s("text", { x: lx + 20, y: 0, class: "bk-ticklabel" }, lg, "dashed: mean over benchmarks");
    }
    // the draggable ratio
    const g = s("g", { class: "bk-ratio-handle", "data-ratio": ratio }, svg);
    s("line", { x1: cx(ratio), x2: cx(ratio), y1: CM.t, y2: cy(ymin), class: "bk-ratio-line" }, g);
    s("rect", { x: cx(ratio) - 7, y: CM.t, width: 14, height: cy(ymin) - CM.t, class: "bk-ratio-grip" }, g);
    s("text", { x: Math.min(cx(ratio) + 4, CW - CM.r - 30), y: CM.t + 12, class: "bk-ratio-label" }, g, pct(ratio));
    const toRatio = (evt) => {
      const box = svg.getBoundingClientRect();
      const px = (evt.clientX - box.left) * (CW / box.width);
      return Math.min(1, Math.max(0.01, (px - CM.l) / (CW - CM.l - CM.r)));
    };
    let dragging = false;
    svg.addEventListener("pointerdown", (evt) => {
      if (guard.busy || !get("has_curve", true)) return;
      dragging = true;
      svg.setPointerCapture(evt.pointerId);
      dragRatio = snap(toRatio(evt));
      moveHandle(g, dragRatio, cy(ymin));
    });
    svg.addEventListener("pointermove", (evt) => {
      if (!dragging) return;
      dragRatio = snap(toRatio(evt));
      moveHandle(g, dragRatio, cy(ymin));
    });
    const end = (evt) => {
      if (!dragging) return;
      dragging = false;
      setRatio(toRatio(evt));
    };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", () => { dragging = false; dragRatio = null; schedule(); });
    return svg;
  }
  function moveHandle(g, r, ybot) {
    const [ln, grip, label] = g.children;
    ln.setAttribute("x1", cx(r)); ln.setAttribute("x2", cx(r));
    grip.setAttribute("x", cx(r) - 7);
    label.setAttribute("x", Math.min(cx(r) + 4, CW - CM.r - 30));
    label.textContent = pct(r);
    g.dataset.ratio = r;
  }

  function selection() {
    const sub = get("subset", {});
    const n = get("n_items", 0);
    const sec = h("section", { class: "bk-section bk-selection" }, [
      h("h4", {}, `Selective benchmark of ${get("benchmark", "")} (Figure 2; strategy ${get("method", "")})`)]);
    if (!get("has_curve", true)) { sec.appendChild(h("p", { class: "bk-hint" }, "fewer than two complete models: no selection")); return sec; }
    const grid = get("ratio_grid", []);
    const slider = h("input", { type: "range", class: "bk-ratio", "aria-label": "selection ratio", "data-queue": "",
      min: isStatic() ? grid[0] : 0.01, max: 1, step: isStatic() ? 0.05 : 0.01, value: get("ratio", 0.35),
      onchange: (e) => setRatio(Number(e.target.value)) });
    const m = (label, key, d = 3) => h("span", { class: "bk-metric", "data-metric": key }, [h("b", {}, label + " "), fmt(sub[key], d)]);
    const readout = h("div", { class: "bk-readout", "data-ratio": sub.ratio, "data-n": sub.n_items }, [
      h("span", { class: "bk-metric", "data-metric": "ratio" }, [h("b", {}, "ratio "), pct(sub.ratio || 0)]),
      h("span", { class: "bk-metric", "data-metric": "n_items" }, [h("b", {}, "items "), `${sub.n_items} of ${n}`]),
      m("τ to full", "tau"), m("stability", "stability"), m("DS", "ds"),
    ]);
    sec.appendChild(h("div", { class: "bk-curve-row" }, [curveChart(),
      h("div", { class: "bk-side" }, [h("label", {}, ["ratio ", slider]), readout, subsetList(sub)])]));
    return sec;
  }

  function subsetList(sub) {
    const items = sub.items || [];
    const text = sub.text;
    const box = h("div", { class: "bk-subset", "data-count": items.length });
    const rows = items.slice(0, MAX_SUBSET_ROWS).map((it, i) => h("tr", { class: "bk-sub-item", "data-item": it }, [
      h("td", { class: "bk-num" }, String(i + 1)), h("td", { class: "bk-itemid" }, it),
      text ? h("td", { class: "bk-text", title: text[i] || "" }, fitText(text[i] || "–", 300, 12).text) : null,
    ]));
    box.appendChild(h("table", {}, [h("thead", {}, h("tr", {}, ["#", "item (best first)", text ? "text" : null]
      .filter((c) => c !== null).map((c) => h("th", {}, c)))), h("tbody", {}, rows)]));
    if (items.length > MAX_SUBSET_ROWS) box.appendChild(h("p", { class: "bk-hint" }, `… and ${items.length - MAX_SUBSET_ROWS} more (dashboard.subset_items in Python has all)`));
    return box;
  }

  const redraw = redrawer(model, root, guard, () => root.replaceChildren(header(), table1(),
    h("div", { class: "bk-two" }, [heatmap(), familyBars()]), invertedItems(), selection()));
  const schedule = redraw.schedule;
  return redraw.start(["table", "benchmarks", "kendall", "benchmark", "families", "inverted", "curve",
    "mean_curve", "n_items", "has_curve", "ratio", "subset", "static_mode", "revision"]);
}

export default { render };
