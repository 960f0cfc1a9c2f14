// benchkit trajectory explorer (paper 000, BSDProbe): plain ESM, inline SVG, no imports.
//
// State (synced traitlets of benchkit.widgets.TrajectoryExplorer): table (binary: x, w, v, o, D,
// gamma, delta, flat, flagged per item), item_ids, previews, models, T, alpha_o, entropy_source,
// summary, histograms {x|w|v|o: {edges, counts, n, population, weighted}}, brush {var: [lo, hi]},
// flag_filter, delta_filter, sort_by, sort_descending, visible (binary: idx, the listed rows),
// hist_selected {var: counts}, selected, trajectory {...}, busy, revision, static_mode and, in
// exported pages only, bundle_cols (binary per-item columns) and bundle {text, answers}.
// Every number shown comes from Python (benchkit.boundary.steps.profiles). In a kernel this module only
// sends the user's actions (pick item, sort, filter, brush) and Python recomputes `visible`,
// `hist_selected` and `trajectory`. In an exported page (static_mode) it applies the same rules
// locally (documented in TrajectoryExplorer's Notes) to the embedded rows and bundle.

const HIST_VARS = ["x", "w", "v", "o"];
const POSITIVE_ONLY = new Set(["x", "w"]);
const HIST_LABEL = { x: "position x", w: "width w", v: "validity v", o: "order cons. o" };
const COLUMNS = [["item", "item"], ["x", "x"], ["w", "w"], ["v", "v"], ["o", "o"], ["flagged", "flag"],
  ["delta", "Δ"]];
const PAGE = 200;

const fmt = (v, d = 3) => (v === null || v === undefined || Number.isNaN(v) ? "–" : Number(v).toFixed(d));
const fmtO = (v) => (v === null || v === undefined ? "–" : (v < 0.001 ? Number(v).toExponential(1) : Number(v).toFixed(3)));

// ---- the filter / sort / bin rules of TrajectoryExplorer (used only without a kernel) ----
function localVisible(rows, brush, flagFilter, deltaFilter, sortBy, desc) {
  const keep = rows.filter((r) => {
    for (const [v, [lo, hi]] of Object.entries(brush || {})) {
      const val = r[v];
      if (val === null || val === undefined || !(val >= lo && val <= hi)) return false;
      if (POSITIVE_ONLY.has(v) && r.flat) return false;
    }
    if (flagFilter === "flagged" && !r.flagged) return false;
    if (flagFilter === "unflagged" && r.flagged) return false;
    if (deltaFilter === "positive" && r.flat) return false;
    if (deltaFilter === "flat" && !r.flat) return false;
    return true;
  });
  if (sortBy === "index") {
    const idx = keep.map((r) => r.index);
    return desc ? idx.reverse() : idx;
  }
  const key = (r) => (sortBy === "flagged" ? (r.flagged ? 1 : 0) : r[sortBy]);
  const sign = desc ? -1 : 1;
  return keep.slice().sort((a, b) => {
    const ka = key(a), kb = key(b);
    const na = ka === null || ka === undefined, nb = kb === null || kb === undefined;
    if (na || nb) return na && nb ? a.index - b.index : (na ? 1 : -1);
    if (ka < kb) return -sign;
    if (ka > kb) return sign;
    return a.index - b.index;
  }).map((r) => r.index);
}

// numpy.histogram's rule on explicit edges: edges[i] <= v < edges[i+1], the last bin closed.
function binOf(edges, v) {
  const nb = edges.length - 1;
  if (v === null || v === undefined || v < edges[0] || v > edges[nb]) return -1;
  if (v === edges[nb]) return nb - 1;
  let lo = 0, hi = nb;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (v >= edges[mid]) lo = mid; else hi = mid;
  }
  return lo;
}

function localHistSelected(rows, visible, hists) {
  const out = {};
  for (const v of HIST_VARS) {
    const hg = hists[v];
    if (!hg) continue;
    const counts = new Array(hg.edges.length - 1).fill(0);
    for (const i of visible) {
      const r = rows[i];
      if (POSITIVE_ONLY.has(v) && r.flat) continue;
      const b = binOf(hg.edges, r[v]);
      if (b >= 0) counts[b] += 1;
    }
    out[v] = counts;
  }
  return out;
}

// one item's trajectory from the exported columns (the same fields as TrajectoryView.trajectory)
function trajectoryFromBundle(C, B, models, T, alpha, source, i) {
  const n = models.length;
  const row = (name) => Array.from(C[name].subarray(i * n, (i + 1) * n));
  const num = (name) => (Number.isNaN(C[name][i]) ? null : C[name][i]);
  const flat = !!C.flat[i], hs = C.high_start[i], fit = row("fit"), delta = C.delta[i];
  const counts = row("counts");
  let answers = null;
  if (B.answers) {
    answers = B.answers[i].map((cell, j) => {
      const states = cell.slice(0, -1).map(([answer, count, correct]) => ({ answer, count, correct }));
      const other = cell[cell.length - 1];
      return { model: models[j], states, other, total: states.reduce((a, st) => a + st.count, other) };
    });
  }
  return {
    index: i, item: null, models, s: models.map((_, j) => j / (n - 1)), counts, T,
    c: counts.map((k) => k / T), e: row("e"), fit, blocks: row("blocks"), delta, flat,
    q25: num("q25"), q50: num("q50"), q75: num("q75"),
    levels: flat ? null : { "0.25": fit[0] + 0.25 * delta, "0.5": fit[0] + 0.5 * delta, "0.75": fit[0] + 0.75 * delta },
    x: num("x"), w: num("w"), a: num("a"), gamma: num("gamma"), e_hi: num("e_hi"), v: num("v"), D: num("D"),
    o: num("o"), flagged: !!C.flagged[i], alpha_o: alpha, high_start: hs,
    high: models.map((_, j) => !flat && j >= hs), entropy_source: source,
    text: B.text ? B.text[i] : null, answers,
  };
}

function render({ model, el }) {
  const root = h("div", { class: "bk-traj" });
  el.appendChild(root);
  const guard = busyGuard(model, root);
  // the item table as row objects, rebuilt only when the binary table changes
  let rowsCache = { key: null, rows: [] };
  const rowsList = () => {
    const tab = model.get("table");
    if (rowsCache.key === tab) return rowsCache.rows;
    const T = unpackArrays(tab), ids = model.get("item_ids") || [], pv = model.get("previews") || [];
    const n = ids.length, rows = new Array(n);
    const val = (name, i) => (Number.isNaN(T[name][i]) ? null : T[name][i]);
    for (let i = 0; i < n; i++) {
      rows[i] = { index: i, item: ids[i], x: val("x", i), w: val("w", i), v: val("v", i), o: val("o", i),
        D: val("D", i), gamma: val("gamma", i), delta: val("delta", i), flat: !!T.flat[i], flagged: !!T.flagged[i] };
      if (pv.length) rows[i].text = pv[i];
    }
    rowsCache = { key: tab, rows };
    return rows;
  };
  const visList = () => {
    const v = model.get("visible");
    if (Array.isArray(v)) return v;
    const A = unpackArrays(v);
    return A.idx ? Array.from(A.idx) : [];
  };
  let limit = PAGE;
  let listScroll = 0;

  const get = traitGetter(model);
  const isStatic = () => get("static_mode", false);
  const commit = () => model.save_changes();

  // without a kernel: recompute the list and the linked histogram counts from the embedded rows
  const recomputeLocal = () => {
    const rows = rowsList();
    const vis = localVisible(rows, get("brush", {}), get("flag_filter", "all"), get("delta_filter", "all"),
      get("sort_by", "o"), get("sort_descending", false));
    model.set("visible", vis);
    model.set("hist_selected", localHistSelected(rows, vis, get("histograms", {})));
  };
  const setFilter = (changes) => {
    // nothing changes -> Python does not recompute (and would never publish a new revision)
    if (Object.entries(changes).every(([k, v]) => JSON.stringify(model.get(k)) === JSON.stringify(v))) return;
    guard.pending("filtering the list");
    for (const [k, v] of Object.entries(changes)) model.set(k, v);
    limit = PAGE;
    listScroll = 0;
    if (isStatic()) recomputeLocal();
    commit();
  };
  const choose = (i) => {
    if (i === get("selected", -1)) return;
    guard.pending("loading the item");
    model.set("selected", i);
    if (isStatic()) {
      const t = trajectoryFromBundle(unpackArrays(model.get("bundle_cols")), get("bundle", {}), get("models", []),
        get("T", 1), get("alpha_o", 0.05), get("entropy_source", ""), i);
      t.item = rowsList()[i].item;
      model.set("trajectory", t);
    }
    commit();
  };

  // ------------------------------------------------------------------ summary and controls
  function summaryLine() {
    const sm = get("summary", {});
    const nVis = visList().length;
    return h("div", { class: "bk-summary" }, [
      h("span", {}, [h("b", {}, `${sm.n_items}`), ` items × ${sm.n_models} models, T = ${sm.T}`]),
      h("span", { "data-summary": "flat" }, `Δ = 0: ${sm.n_flat} (${fmt(100 * (sm.flat_share || 0), 1)}%)`),
      h("span", { "data-summary": "flagged", class: sm.n_flagged ? "bk-flag" : "" },
        `flagged (o ≤ ${sm.alpha_o}): ${sm.n_flagged} (${fmt(100 * (sm.flag_rate || 0), 1)}%)`),
      h("span", {}, `mean x ${fmt(sm.mean_x)}, w ${fmt(sm.mean_w)} (Δ > 0), v ${fmt(sm.mean_v)}`),
      h("span", { class: "bk-note", "data-summary": "entropy" }, `E: ${{ binary: "binary {correct, incorrect} entropy",
        answers: "answer-state entropy (Eq. 2)" }[sm.entropy_source] || "given entropy"}`),
      h("span", { class: "bk-count", "data-visible": nVis }, `listed: ${nVis}`),
    ]);
  }

  function controls() {
    const brush = get("brush", {});
    const sel = (name, value, options, label) => h("label", {}, [label + " ",
      h("select", { class: `bk-${name}`, "aria-label": label, "data-queue": "",
        onchange: (e) => setFilter({ [name]: e.target.value }) },
        options.map(([v, t]) => h("option", { value: v, selected: v === value }, t)))]);
    const brushes = Object.entries(brush).map(([v, [lo, hi]]) => h("span", { class: "bk-brushtag", "data-var": v, "data-lo": lo, "data-hi": hi },
      [`${v} ∈ [${fmt(lo)}, ${fmt(hi)}] `, h("button", { class: "bk-unbrush", title: `clear the ${v} brush`,
        onclick: () => { const b = { ...get("brush", {}) }; delete b[v]; setFilter({ brush: b }); } }, "×")]));
    return h("div", { class: "bk-controls" }, [
      sel("flag_filter", get("flag_filter", "all"), [["all", "all"], ["flagged", "flagged only"], ["unflagged", "not flagged"]], "flag"),
      sel("delta_filter", get("delta_filter", "all"), [["all", "all"], ["positive", "Δ > 0"], ["flat", "Δ = 0"]], "Δ"),
      ...brushes,
      h("button", { class: "bk-clear", disabled: !Object.keys(brush).length && get("flag_filter", "all") === "all" && get("delta_filter", "all") === "all",
        onclick: () => setFilter({ brush: {}, flag_filter: "all", delta_filter: "all" }) }, "Clear filters"),
      h("span", { class: "bk-note" }, "drag across a histogram to filter; click it to clear"),
    ]);
  }

  // ------------------------------------------------------------------ histograms
  function histogram(v) {
    const hg = (get("histograms", {}) || {})[v];
    if (!hg) return null;
    const W = 230, H = 140, M = { l: 34, r: 8, t: 18, b: 28 };
    const PW = W - M.l - M.r, PH = H - M.t - M.b;
    const edges = hg.edges, counts = hg.counts, nb = counts.length;
    const lo0 = edges[0], hi0 = edges[nb];
    const X = (val) => M.l + ((val - lo0) / (hi0 - lo0)) * PW;
    // the scale also holds the v-weighted outline (scaled to the same total), so it stays inside
    const wmax = hg.weighted ? Math.max(...hg.weighted.map((v) => (v || 0) * hg.n)) : 0;
    const ymax = Math.max(1, ...counts, Math.ceil(wmax));
    const Y = (c) => M.t + PH - (c / ymax) * PH;
    const selCounts = (get("hist_selected", {}) || {})[v] || counts;
    const brush = (get("brush", {}) || {})[v];
    const svg = s("svg", { class: "bk-hist", "data-var": v, viewBox: `0 0 ${W} ${H}`, width: W, height: H,
      role: "img", "aria-label": `histogram of ${v}` });
    s("text", { x: M.l, y: 12, class: "bk-histtitle" }, svg, `${HIST_LABEL[v]} (${hg.population.replace(" items", "")}, n = ${hg.n})`);
    s("rect", { x: M.l, y: M.t, width: PW, height: PH, class: "bk-frame" }, svg);
    for (let i = 0; i < nb; i++) {
      const x0 = X(edges[i]), x1 = X(edges[i + 1]);
      s("rect", { x: x0 + 0.5, y: Y(counts[i]), width: Math.max(x1 - x0 - 1, 0.5), height: M.t + PH - Y(counts[i]),
        class: "bk-bar" }, svg);
      const sc = selCounts[i] || 0;
      const bar = s("rect", { x: x0 + 0.5, y: Y(sc), width: Math.max(x1 - x0 - 1, 0.5), height: M.t + PH - Y(sc),
        class: "bk-bar-sel", "data-bin": i, "data-count": sc }, svg);
      s("title", {}, bar, `[${fmt(edges[i], 2)}, ${fmt(edges[i + 1], 2)}${i === nb - 1 ? "]" : ")"}: ${sc} listed of ${counts[i]}`);
    }
    if (hg.weighted) {  // v-weighted distribution, scaled to the same total for comparison
      let d = "";
      for (let i = 0; i < nb; i++) {
        const yy = Y(hg.weighted[i] * hg.n);
        d += `${i ? "L" : "M"}${X(edges[i]).toFixed(1)},${yy.toFixed(1)}L${X(edges[i + 1]).toFixed(1)},${yy.toFixed(1)}`;
      }
      s("path", { d, class: "bk-weighted" }, svg);
    }
    if (v === "o") {
      const a = get("alpha_o", 0.05);
      s("line", { x1: X(a), x2: X(a), y1: M.t, y2: M.t + PH, class: "bk-alpha" }, svg);
      s("text", { x: X(a) + 3, y: M.t + 10, class: "bk-ticklabel" }, svg, `α = ${a}`);
    }
    for (const t of [0, 0.5, 1]) {
      const tv = lo0 + t * (hi0 - lo0);
      s("text", { x: X(tv), y: H - 14, class: "bk-ticklabel", "text-anchor": "middle" }, svg, tv.toFixed(1));
    }
    s("text", { x: M.l - 4, y: M.t + 8, class: "bk-ticklabel", "text-anchor": "end" }, svg, String(ymax));
    s("text", { x: M.l - 4, y: M.t + PH, class: "bk-ticklabel", "text-anchor": "end" }, svg, "0");
    const brushRect = s("rect", { x: 0, y: M.t, width: 0, height: PH, class: "bk-brush", visibility: "hidden" }, svg);
    if (brush) {
      const b0 = X(Math.max(lo0, brush[0])), b1 = X(Math.min(hi0, brush[1]));
      brushRect.setAttribute("x", b0);
      brushRect.setAttribute("width", Math.max(b1 - b0, 1));
      brushRect.setAttribute("visibility", "visible");
    }
    // brushing: drag over the plot area
    const overlay = s("rect", { x: M.l, y: M.t, width: PW, height: PH, class: "bk-overlay" }, svg);
    const toVal = (evt) => {
      const box = svg.getBoundingClientRect();
      const px = (evt.clientX - box.left) * (W / box.width);
      const val = lo0 + ((px - M.l) / PW) * (hi0 - lo0);
      return Math.min(hi0, Math.max(lo0, val));
    };
    let start = null;
    overlay.addEventListener("pointerdown", (evt) => {
      start = toVal(evt);
      if (overlay.setPointerCapture && evt.pointerId !== undefined) {
        try { overlay.setPointerCapture(evt.pointerId); } catch (e) { /* synthetic events */ }
      }
      evt.preventDefault();
    });
    overlay.addEventListener("pointermove", (evt) => {
      if (start === null) return;
      const cur = toVal(evt);
      const a = X(Math.min(start, cur)), b = X(Math.max(start, cur));
      brushRect.setAttribute("x", a);
      brushRect.setAttribute("width", Math.max(b - a, 1));
      brushRect.setAttribute("visibility", "visible");
    });
    const finish = (evt) => {
      if (start === null) return;
      const end = toVal(evt);
      const lo = Math.min(start, end), hi = Math.max(start, end);
      start = null;
      const b = { ...get("brush", {}) };
      if (hi - lo < 0.005 * (hi0 - lo0)) delete b[v];
      else b[v] = [Math.round(lo * 1e4) / 1e4, Math.round(hi * 1e4) / 1e4];
      setFilter({ brush: b });
    };
    overlay.addEventListener("pointerup", finish);
    overlay.addEventListener("pointercancel", () => { start = null; });
    return svg;
  }

  // ------------------------------------------------------------------ item list
  function itemList() {
    const rows = rowsList();
    const vis = visList();
    const sel = get("selected", -1);
    const sortBy = get("sort_by", "o");
    const desc = get("sort_descending", false);
    const hasText = rows.length && rows[0].text !== undefined;
    const head = h("tr", {}, COLUMNS.concat(hasText ? [["text", "text"]] : []).map(([key, label]) => {
      if (key === "text") return h("th", {}, label);
      const arrow = key === sortBy ? (desc ? " ▼" : " ▲") : "";
      return h("th", { class: "bk-sort" + (key === sortBy ? " bk-sorted" : ""), "data-key": key,
        title: `sort by ${label}`, onclick: () => setFilter(key === sortBy ? { sort_descending: !desc }
          : { sort_by: key, sort_descending: false }) }, label + arrow);
    }));
    const body = vis.slice(0, limit).map((i) => {
      const r = rows[i];
      return h("tr", { class: "bk-item" + (i === sel ? " bk-current" : "") + (r.flagged ? " bk-flagged" : ""),
        "data-index": i, "data-item": r.item, onclick: () => choose(i) }, [
        h("td", { class: "bk-itemid" }, r.item),
        h("td", {}, r.flat ? h("span", { class: "bk-assigned", title: "Δ = 0: App. B position" }, fmt(r.x)) : fmt(r.x)),
        h("td", {}, fmt(r.w)), h("td", {}, fmt(r.v)), h("td", {}, fmtO(r.o)),
        h("td", {}, r.flagged ? h("span", { class: "bk-flag" }, "⚑") : ""),
        h("td", {}, fmt(r.delta, 2)),
        hasText ? h("td", { class: "bk-textcell" }, r.text || "") : null,
      ]);
    });
    const scroller = h("div", { class: "bk-listscroll" }, [h("table", { class: "bk-list" }, [h("thead", {}, head), h("tbody", {}, body)])]);
    scroller.addEventListener("scroll", () => { listScroll = scroller.scrollTop; });
    const more = vis.length > limit ? h("button", { class: "bk-more", onclick: () => { limit += PAGE; schedule(); } },
      `show ${Math.min(PAGE, vis.length - limit)} more (${vis.length - limit} not shown)`) : null;
    const empty = vis.length === 0 ? h("p", { class: "bk-hint" }, "No item passes the filters.") : null;
    return h("div", { class: "bk-listbox" }, [scroller, empty, more]);
  }

  // ------------------------------------------------------------------ trajectory chart
  function trajectoryChart(t) {
    const W = 580, H = 380, M = { l: 46, r: 16, t: 64, b: 96 };
    const PW = W - M.l - M.r, PH = H - M.t - M.b;
    const X = (v) => M.l + v * PW, Y = (v) => M.t + (1 - v) * PH;
    const svg = s("svg", { class: "bk-trajchart", viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img",
      "aria-label": `trajectories of item ${t.item}`, "data-item": t.item });
    s("rect", { x: M.l, y: M.t, width: PW, height: PH, class: "bk-frame" }, svg);
    const n = t.s.length;
    // high-side region H = {i : s_i >= Q_0.75}
    if (!t.flat && t.q75 !== null) {
      const r = s("rect", { x: X(t.q75), y: M.t, width: X(1) - X(t.q75), height: PH, class: "bk-highside" }, svg);
      s("title", {}, r, `high-side region H (s ≥ Q0.75 = ${fmt(t.q75)}): mean entropy ${fmt(t.e_hi)}`);
    }
    for (const v of [0, 0.25, 0.5, 0.75, 1]) {
      s("line", { x1: M.l - 4, x2: M.l, y1: Y(v), y2: Y(v), class: "bk-tick" }, svg);
      s("text", { x: M.l - 7, y: Y(v) + 4, class: "bk-ticklabel", "text-anchor": "end" }, svg, v.toFixed(2));
    }
    // model labels: rotated -60°, truncated to the room below the axis (full name in the tooltip) and
    // thinned when even rotated labels (11 px line height) would overlap; every tick stays
    const room = (M.b - 22) / Math.sin(Math.PI / 3);
    const keep = new Set(thinLabels(t.s.map(X), 12, 0));
    t.s.forEach((sv, j) => {
      s("line", { x1: X(sv), x2: X(sv), y1: Y(0), y2: Y(0) + 4, class: "bk-tick" }, svg);
      if (!keep.has(j)) return;
      const ft = fitText(t.models[j], room, 10);
      const lab = s("text", { x: X(sv) + 3, y: Y(0) + 10, class: "bk-modellabel" + (t.high[j] ? " bk-inhigh" : ""),
        "text-anchor": "end", "data-model": t.models[j], transform: `rotate(-60 ${X(sv) + 3} ${Y(0) + 10})` }, svg, ft.text);
      s("title", {}, lab, `${t.models[j]}: s = ${fmt(sv)}, k = ${t.counts[j]}/${t.T}`);
    });
    s("text", { x: 12, y: M.t + PH / 2, class: "bk-axislabel", "text-anchor": "middle",
      transform: `rotate(-90 12 ${M.t + PH / 2})` }, svg, "c (correct share), e (entropy)");
    const line = (vals) => vals.map((v, j) => `${j ? "L" : "M"}${X(t.s[j]).toFixed(2)},${Y(v).toFixed(2)}`).join("");
    // crossings of the fit (Eq. 4): vertical lines at Q and the level c~1 + alpha*Delta
    // crossing annotations sit in a band above the plot, spread horizontally (dodge) so they never
    // collide, each joined to its crossing by a leader line
    if (!t.flat) {
      const qs = [["q25", "0.25", "Q.25"], ["q50", "0.5", "x = Q.5"], ["q75", "0.75", "Q.75"]].filter(([k]) => t[k] !== null);
      const texts = qs.map(([k, , label]) => `${label} = ${fmt(t[k])}`);
      const widths = texts.map((tx) => textWidth(tx, 11) + 8);
      const pos = dodge(qs.map(([k]) => X(t[k])), widths, M.l, W - M.r);
      qs.forEach(([k, lev, label], j) => {
        const q = t[k], level = t.levels[lev];
        s("line", { x1: X(q), x2: X(q), y1: M.t, y2: Y(0), class: "bk-cross" + (k === "q50" ? " bk-cross-x" : ""),
          "data-q": k, "data-value": q }, svg);
        s("line", { x1: M.l, x2: X(q), y1: Y(level), y2: Y(level), class: "bk-level" }, svg);
        s("circle", { cx: X(q), cy: Y(level), r: 3.5, class: "bk-crosspt" }, svg);
        s("path", { d: `M${X(q)},${M.t}L${pos[j]},${M.t - 12}`, class: "bk-leader" }, svg);
        s("text", { x: pos[j], y: M.t - 15, class: "bk-crosslabel", "text-anchor": "middle", "data-label": k }, svg, texts[j]);
      });
    } else if (t.x !== null) {
      s("line", { x1: X(t.x), x2: X(t.x), y1: M.t, y2: Y(0), class: "bk-assigned-x", "data-q": "x" }, svg);
      const tx = `x (assigned, App. B) = ${fmt(t.x)}`;
      const [px] = dodge([X(t.x)], [textWidth(tx, 11) + 8], M.l, W - M.r);
      s("text", { x: px, y: M.t - 15, class: "bk-crosslabel", "text-anchor": "middle" }, svg, tx);
    }
    s("path", { d: line(t.e), class: "bk-e-line" }, svg);
    s("path", { d: line(t.fit), class: "bk-fit-line", "data-fit": t.fit.join(",") }, svg);
    s("path", { d: line(t.c), class: "bk-c-line", "data-c": t.c.join(",") }, svg);
    t.e.forEach((v, j) => s("rect", { x: X(t.s[j]) - 3, y: Y(v) - 3, width: 6, height: 6, class: "bk-e-pt" }, svg));
    t.c.forEach((v, j) => {
      const p = s("circle", { cx: X(t.s[j]), cy: Y(v), r: 4, class: "bk-c-pt" + (t.high[j] ? " bk-inhigh" : ""),
        "data-model": t.models[j] }, svg);
      s("title", {}, p, `${t.models[j]}: c = ${t.counts[j]}/${t.T} = ${fmt(v)}, fit ${fmt(t.fit[j])}, e = ${fmt(t.e[j])}`);
    });
    const lg = s("g", { class: "bk-trajlegend", transform: `translate(${M.l + 8},14)` }, svg);  // legend above the plot, clear of the axis labels
    [["bk-c-line", "C (correctness)"], ["bk-fit-line", "isotonic fit"], ["bk-e-line", "E (entropy)"],
      ["bk-highside-key", "high-side H"]].forEach(([cls, label], i) => {
      const gx = i * 125;
      if (cls.endsWith("-key")) s("rect", { x: gx, y: -6, width: 18, height: 9, class: cls }, lg);
      else s("line", { x1: gx, x2: gx + 18, y1: 0, y2: 0, class: cls }, lg);
      s("text", { x: gx + 22, y: 4, class: "bk-legendlabel" }, lg, label);
    });
    return svg;
  }

  function numbers(t) {
    const cell = (label, value, key, cls = "") => h("tr", { "data-num": key, class: cls }, [h("th", {}, label), h("td", {}, value)]);
    return h("table", { class: "bk-numbers" }, [h("tbody", {}, [
      cell("Δ (fitted gain)", fmt(t.delta), "delta"),
      cell("x = Q0.5", t.flat ? `${fmt(t.x)} (assigned, Δ = 0)` : fmt(t.x), "x"),
      cell("w = Q0.75 − Q0.25", t.flat ? "1 (Δ = 0)" : fmt(t.w), "w"),
      cell("Q0.25 / Q0.75", t.flat ? "–" : `${fmt(t.q25)} / ${fmt(t.q75)}`, "q"),
      cell("γ = P(θn > θ1)", fmt(t.gamma), "gamma"),
      cell("ē high-side", fmt(t.e_hi), "e_hi"),
      cell("v = Δ γ (1 − ē)", fmt(t.v), "v"),
      cell("D (LR statistic)", fmt(t.D), "D"),
      cell("o (order consistency)", fmtO(t.o), "o", t.flagged ? "bk-flag" : ""),
      cell("flag (o ≤ α)", t.flagged ? `flagged (α = ${t.alpha_o})` : "no", "flagged", t.flagged ? "bk-flag" : ""),
      cell("a (mean correctness)", fmt(t.a), "a"),
      cell("k / T", `${t.counts.join(", ")} / ${t.T}`, "counts"),
    ])]);
  }

  function answersPanel(t) {
    if (!t.answers) return null;
    const rows = t.answers.map((m, j) => h("tr", { "data-model": m.model, class: t.high[j] ? "bk-inhigh" : "" }, [
      h("td", { class: "bk-itemid" }, m.model),
      h("td", {}, m.states.map((st) => h("span", { class: "bk-state" + (st.correct === 1 ? " bk-correct" : "") },
        `${st.answer} ×${st.count}`)).concat(m.other ? [h("span", { class: "bk-state" }, `other ×${m.other}`)] : [])),
    ]));
    return h("details", { class: "bk-answers", open: true }, [
      h("summary", {}, "sample answers (answer state × count; correct states in green)"),
      h("table", {}, [h("tbody", {}, rows)]),
    ]);
  }

  function detail() {
    const t = get("trajectory", {});
    if (!t || t.index === undefined) return h("div", { class: "bk-detail" }, [h("p", { class: "bk-hint" }, "Click an item in the list.")]);
    return h("div", { class: "bk-detail", "data-index": t.index, "data-item": t.item }, [
      h("div", { class: "bk-itemtitle" }, [h("b", {}, `item ${t.item}`),
        t.flagged ? h("span", { class: "bk-flag" }, " ⚑ flagged for review") : null,
        t.flat ? h("span", { class: "bk-note" }, " Δ = 0: no transition in the fitted trajectory") : null]),
      trajectoryChart(t),
      h("div", { class: "bk-detailcols" }, [numbers(t),
        t.text ? h("div", { class: "bk-text", "data-role": "text" }, t.text) : null]),
      answersPanel(t),
    ]);
  }

  const redraw = redrawer(model, root, guard, () => {
    root.replaceChildren(
      summaryLine(),
      h("div", { class: "bk-hists" }, HIST_VARS.map(histogram).filter(Boolean)),
      controls(),
      h("div", { class: "bk-main" }, [itemList(), detail()]),
    );
    const sc = root.querySelector(".bk-listscroll");
    if (sc) sc.scrollTop = listScroll;
  });
  const schedule = redraw.schedule;
  return redraw.start(["table", "item_ids", "models", "summary", "histograms", "brush", "flag_filter",
    "delta_filter", "sort_by", "sort_descending", "visible", "hist_selected", "selected", "trajectory",
    "static_mode", "revision"]);
}

export default { render };
