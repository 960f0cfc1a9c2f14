// benchkit probability-landscape explorer (paper 003): plain ESM, inline SVG, no imports.
//
// State (synced traitlets of benchkit.widgets.LandscapeExplorer): title, models, groups, variants,
// option_labels, group_name, label_name, max_list, max_arrows; the view model, group, variant,
// compare ("" = none); mode ("points" | "density"), xy [[x, y, row, correct]], density {bins,
// counts[x][y], max}, stats / compare_stats {n_points, mpd, mean_h_norm, mean_p_top1, accuracy},
// compare_xy, arrows [[x0, y0, x1, y1, row]], arrows_info {n_pairs, n_shown}; brush [x0, x1, y0, y1]
// or [], selected [{row, model, item, ..., probs, text, options, label}], n_selected; static_mode
// and, in exported pages only, bundle {models, groups, variants, rows (columnar), items, views
// (stats per view key), density (per dense view key), threshold, sep}.
// Live, every number comes from Python (benchkit.landscape); this module draws and sends the
// user's picks and brush back. In an exported page the same traits are filled locally from the
// bundle (MPD and histograms were computed in Python; only filtering happens here).

const W = 640, H = 440;
const M = { l: 54, r: 16, t: 16, b: 46 };
const PW = W - M.l - M.r, PH = H - M.t - M.b;
const X = (v) => M.l + v * PW;
const Y = (v) => M.t + (1 - v) * PH;
const ALL = "(all)";

const fmt = (v, d = 3) => (v === null || v === undefined || Number.isNaN(v) ? "–" : Number(v).toFixed(d));

// ---------------------------------------------------------------- static (no kernel) views
function staticView(B, model, group, variant) {
  const mi = model === ALL ? -1 : B.models.indexOf(model);
  const gi = group === ALL ? -1 : B.groups.indexOf(group);
  const vi = B.variants.indexOf(variant);
  const R = B.rows;
  const out = [];
  for (let r = 0; r < R.x.length; r++) {
    if (R.v[r] !== vi) continue;
    if (mi >= 0 && R.m[r] !== mi) continue;
    if (gi >= 0 && R.g[r] !== gi) continue;
    out.push(r);
  }
  return out;
}
const corrCode = (c) => (c === null || c === undefined ? -1 : c ? 1 : 0);

function staticDetails(B, labels, rows, partner) {
  const R = B.rows, I = B.items;
  return rows.map((r) => {
    const i = R.i[r];
    const c = R.c[r];
    const d = {
      row: r, model: B.models[R.m[r]], item: I.id[i], variant: B.variants[R.v[r]],
      group: B.groups[R.g[r]], p_top1: R.x[r], h_norm: R.y[r], pred: labels[R.pred[r]],
      answer: I.answer[i], correct: c === null || c === undefined ? null : !!c, probs: R.p[r],
      text: I.text[i], options: I.options[i], label: I.label[i],
    };
    if (partner && partner.has(r)) {
      const a = partner.get(r);
      d.p_top1_after = R.x[a]; d.h_norm_after = R.y[a]; d.pred_after = labels[R.pred[a]];
    }
    return d;
  });
}

function render({ model, el }) {
  const root = h("div", { class: "bk-land" });
  el.appendChild(root);
  let pending = false;
  let drag = null; // brush being drawn: {x0, y0, x1, y1} in svg units
  let partner = null; // static mode: Map row_before -> row_after

  const get = (name, fallback) => {
    const v = model.get(name);
    return v === undefined || v === null ? fallback : v;
  };
  const isStatic = () => !!get("static_mode", false);
  const commit = () => model.save_changes();

  // ---- exported page: recompute the view traits locally from the bundle
  const staticLoad = () => {
    const B = get("bundle", null);
    if (!B) return;
    const m = get("model", ALL), g = get("group", ALL), v = get("variant", "");
    const cmp = get("compare", "");
    const R = B.rows, sep = B.sep;
    const rows = staticView(B, m, g, v);
    const dense = rows.length > B.threshold;
    const key = [m, g, v].join(sep);
    model.set("mode", dense ? "density" : "points");
    model.set("xy", dense ? [] : rows.map((r) => [R.x[r], R.y[r], r, corrCode(R.c[r])]));
    model.set("density", dense ? (B.density[key] || {}) : {});
    model.set("stats", B.views[key] || {});
    partner = null;
    if (cmp) {
      const crow = staticView(B, m, g, cmp);
      const ckey = [m, g, cmp].join(sep);
      const byKey = new Map();
      for (const r of crow) byKey.set(R.m[r] + ":" + R.i[r], r);
      const moves = [];
      partner = new Map();
      for (const r of rows) {
        const a = byKey.get(R.m[r] + ":" + R.i[r]);
        if (a === undefined) continue;
        partner.set(r, a);
        moves.push([R.x[r], R.y[r], R.x[a], R.y[a], r, Math.hypot(R.x[a] - R.x[r], R.y[a] - R.y[r]), moves.length]);
      }
      const maxA = get("max_arrows", 400);
      let shown = moves;
      if (moves.length > maxA) {
        // the longest moves, ties in row order (as LandscapeData.moves(...).largest), shown in row order
        shown = moves.slice().sort((p, q) => q[5] - p[5] || p[6] - q[6]).slice(0, maxA).sort((p, q) => p[6] - q[6]);
      }
      model.set("compare_stats", B.views[ckey] || {});
      model.set("compare_xy", crow.length > B.threshold ? [] : crow.map((r) => [R.x[r], R.y[r], r, corrCode(R.c[r])]));
      model.set("arrows", shown.map((a) => a.slice(0, 5)));
      model.set("arrows_info", { n_pairs: moves.length, n_shown: shown.length });
    } else {
      model.set("compare_stats", {}); model.set("compare_xy", []); model.set("arrows", []);
      model.set("arrows_info", {});
    }
    staticSelect(rows);
  };
  const staticSelect = (rowsIn) => {
    const B = get("bundle", null);
    if (!B) return;
    const box = get("brush", []);
    if (!box.length) { model.set("selected", []); model.set("n_selected", 0); return; }
    const rows = rowsIn || staticView(B, get("model", ALL), get("group", ALL), get("variant", ""));
    const R = B.rows;
    const sel = rows.filter((r) => R.x[r] >= box[0] && R.x[r] <= box[1] && R.y[r] >= box[2] && R.y[r] <= box[3]);
    model.set("n_selected", sel.length);
    model.set("selected", staticDetails(B, get("option_labels", []), sel.slice(0, get("max_list", 200)), partner));
  };

  const pick = (name, value) => {
    if (value === get(name, "")) return;
    model.set(name, value);
    if (isStatic()) staticLoad();
    commit();
  };
  const setBrush = (box) => {
    model.set("brush", box);
    if (isStatic()) staticSelect(null);
    commit();
  };

  function pickers() {
    const sel = (label, name, values, extra = []) => {
      const cur = get(name, "");
      const opts = [...extra, ...values].map((v) => h("option", { value: v[0], selected: v[0] === cur }, v[1]));
      return h("label", { class: "bk-picker-label" }, [label + " ",
        h("select", { class: "bk-picker", "data-name": name, "aria-label": label,
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

  function statsLine() {
    const st = get("stats", {}), cs = get("compare_stats", {});
    const has = get("compare", "") !== "" && cs.n_points !== undefined;
    const cell = (label, key, d = 3) => h("span", { class: "bk-metric", "data-metric": key }, [
      h("b", {}, label + " "), h("span", { class: "bk-value" }, key === "n_points" ? String(st[key] ?? "–") : fmt(st[key], d)),
      has ? h("span", { class: "bk-after", "data-after": key }, ` → ${key === "n_points" ? cs[key] : fmt(cs[key], d)}`) : null,
    ]);
    return h("div", { class: "bk-metrics" }, [cell("MPD", "mpd", 4), cell("mean H_norm", "mean_h_norm"),
      cell("mean P_top1", "mean_p_top1"), cell("accuracy", "accuracy"), cell("N", "n_points")]);
  }

  function chart() {
    const svg = s("svg", { class: "bk-chart", viewBox: `0 0 ${W} ${H}`, width: W, height: H,
      role: "img", "aria-label": "P_top1 versus H_norm landscape" });
    const defs = s("defs", {}, svg);
    const mk = s("marker", { id: "bk-land-head", viewBox: "0 0 10 10", refX: 9, refY: 5,
      markerWidth: 5, markerHeight: 5, orient: "auto-start-reverse" }, defs);
    s("path", { d: "M0,0L10,5L0,10z", class: "bk-arrowhead" }, mk);
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

    const mode = get("mode", "points");
    if (mode === "density") {
      const D = get("density", {});
      const g = s("g", { class: "bk-density" }, svg);
      const nb = D.bins || 1, mx = Math.max(D.max || 1, 1), w = PW / nb, hh = PH / nb;
      (D.counts || []).forEach((col, i) => col.forEach((cnt, j) => {
        if (!cnt) return;
        const op = 0.12 + 0.88 * Math.log1p(cnt) / Math.log1p(mx);
        const r = s("rect", { x: M.l + i * w, y: M.t + PH - (j + 1) * hh, width: w + 0.3, height: hh + 0.3,
          class: "bk-bin", "fill-opacity": op.toFixed(3), "data-count": cnt }, g);
        s("title", {}, r, `P_top1 [${(i / nb).toFixed(3)}, ${((i + 1) / nb).toFixed(3)}), H_norm [${(j / nb).toFixed(3)}, ${((j + 1) / nb).toFixed(3)}): ${cnt} points`);
      }));
    }
    const cmp = get("compare", "");
    if (cmp) {
      const g = s("g", { class: "bk-after-points" }, svg);
      for (const p of get("compare_xy", [])) s("circle", { cx: X(p[0]), cy: Y(p[1]), r: 2, class: "bk-pt-after" }, g);
      const ga = s("g", { class: "bk-arrows" }, svg);
      for (const a of get("arrows", [])) {
        s("line", { x1: X(a[0]), y1: Y(a[1]), x2: X(a[2]), y2: Y(a[3]), class: "bk-arrow",
          "marker-end": "url(#bk-land-head)", "data-row": a[4] }, ga);
      }
    }
    if (mode === "points") {
      const g = s("g", { class: "bk-points" }, svg);
      for (const p of get("xy", [])) {
        const cls = p[3] === 1 ? "bk-pt bk-ok" : p[3] === 0 ? "bk-pt bk-wrong" : "bk-pt";
        s("circle", { cx: X(p[0]), cy: Y(p[1]), r: 2.4, class: cls, "data-row": p[2] }, g);
      }
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
    // the overlay that takes the drag
    const overlay = s("rect", { x: M.l, y: M.t, width: PW, height: PH, class: "bk-overlay" }, svg);
    const toSvg = (evt) => {
      const b = svg.getBoundingClientRect();
      return [Math.min(M.l + PW, Math.max(M.l, (evt.clientX - b.left) * (W / b.width))),
        Math.min(M.t + PH, Math.max(M.t, (evt.clientY - b.top) * (H / b.height)))];
    };
    overlay.addEventListener("pointerdown", (evt) => {
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
    // legend
    const lg = s("g", { class: "bk-legend", transform: `translate(${X(0.02)},${Y(0.3)})` }, svg); // P_top1 < 1/k is empty for k >= 4
    const entries = mode === "points" ? [["bk-pt bk-ok", "correct"], ["bk-pt bk-wrong", "wrong"]]
      : [["bk-bin", "point density (log)"]];
    if (cmp) entries.push(["bk-pt-after", `under ${cmp}`], ["bk-arrow", "move per item"]);
    entries.forEach(([cls, label], i) => {
      const gy = i * 15;
      if (cls === "bk-arrow") s("line", { x1: 0, x2: 14, y1: gy, y2: gy, class: cls }, lg);
      else if (cls === "bk-bin") s("rect", { x: 2, y: gy - 5, width: 10, height: 10, class: cls }, lg);
      else s("circle", { cx: 7, cy: gy, r: 3, class: cls }, lg);
      s("text", { x: 20, y: gy + 4, class: "bk-legendlabel" }, lg, label);
    });
    return svg;
  }

  function note() {
    const info = get("arrows_info", {});
    const parts = [];
    if (get("mode", "points") === "density") parts.push(`${get("stats", {}).n_points} points drawn as a 2-D histogram (bin counts from Python).`);
    if (get("compare", "") && info.n_pairs !== undefined) {
      parts.push(info.n_shown < info.n_pairs
        ? `Arrows: the ${info.n_shown} longest of ${info.n_pairs} moves from ${get("variant", "")} to ${get("compare", "")}.`
        : `Arrows: all ${info.n_pairs} moves from ${get("variant", "")} to ${get("compare", "")}.`);
    }
    parts.push("Drag a rectangle over the plot to list the items inside; click to clear.");
    return h("p", { class: "bk-note" }, parts.join(" "));
  }

  function selectedPanel() {
    const rows = get("selected", []);
    const n = get("n_selected", 0);
    const box = h("div", { class: "bk-selected", "data-n": n });
    const b = get("brush", []);
    if (!b.length) {
      box.appendChild(h("p", { class: "bk-hint" }, "No brush yet."));
      return box;
    }
    box.appendChild(h("p", { class: "bk-seltitle" }, [h("b", {}, `${n} points`),
      ` with P_top1 in [${fmt(b[0])}, ${fmt(b[1])}] and H_norm in [${fmt(b[2])}, ${fmt(b[3])}]` +
      (rows.length < n ? ` (first ${rows.length} listed)` : "")]));
    if (!rows.length) return box;
    const labels = get("option_labels", []);
    const hasLabel = get("label_name", "") !== "";
    const hasAfter = rows.some((r) => r.p_top1_after !== undefined);
    const head = ["item", "model", "P_top1", "H_norm", "pred", "key", "probabilities"];
    if (hasAfter) head.push(`after (${get("compare", "")})`);
    if (hasLabel) head.push(get("label_name", "label"));
    const body = [];
    for (const r of rows) {
      const bars = h("span", { class: "bk-probs" }, (r.probs || []).map((p, j) => h("span", {
        class: "bk-prob" + (labels[j] === r.answer ? " bk-key" : "") + (labels[j] === r.pred ? " bk-predopt" : ""),
        "data-option": labels[j], title: `${labels[j]}: ${fmt(p, 4)}` }, [
        h("span", { class: "bk-problabel" }, labels[j]),
        h("span", { class: "bk-bar", style: `width:${Math.round(Math.max(0, Math.min(1, p)) * 40)}px` }),
        h("span", { class: "bk-probval" }, fmt(p, 3)),
      ])));
      const cells = [
        h("td", { class: "bk-itemid" }, r.item), h("td", {}, r.model),
        h("td", { "data-col": "p_top1" }, fmt(r.p_top1, 4)), h("td", { "data-col": "h_norm" }, fmt(r.h_norm, 4)),
        h("td", { class: r.correct === true ? "bk-ok-text" : r.correct === false ? "bk-wrong-text" : "" }, r.pred),
        h("td", {}, r.answer ?? "–"), h("td", {}, bars),
      ];
      if (hasAfter) cells.push(h("td", { class: "bk-aftercell" }, r.p_top1_after === undefined ? "–"
        : `${fmt(r.p_top1_after)}, ${fmt(r.h_norm_after)} (${r.pred_after})`));
      if (hasLabel) cells.push(h("td", { class: "bk-label" + (r.label && r.label !== "ok" ? " bk-flag" : "") }, r.label ?? "–"));
      body.push(h("tr", { class: "bk-sel", "data-item": r.item, "data-row": r.row }, cells));
      if (r.text || (r.options && r.options.length)) {
        const opts = (r.options || []).map((o, j) => h("li", { class: labels[j] === r.answer ? "bk-key" : "" },
          `${labels[j] ?? j}. ${o}`));
        body.push(h("tr", { class: "bk-seltext", "data-item": r.item }, [h("td", { colspan: cells.length }, [
          r.text ? h("div", { class: "bk-text" }, r.text) : null,
          opts.length ? h("ol", { class: "bk-options" }, opts) : null,
        ])]));
      }
    }
    box.appendChild(h("table", {}, [h("thead", {}, h("tr", {}, head.map((c) => h("th", {}, c)))), h("tbody", {}, body)]));
    return box;
  }

  function draw() {
    pending = false;
    root.replaceChildren(
      h("div", { class: "bk-head" }, [h("b", { class: "bk-title" }, get("title", "")), pickers()]),
      statsLine(), chart(), note(), selectedPanel(),
    );
  }
  const schedule = () => {
    if (pending) return;
    pending = true;
    Promise.resolve().then(draw);
  };
  const names = ["title", "models", "groups", "variants", "model", "group", "variant", "compare", "mode",
    "xy", "density", "stats", "compare_stats", "compare_xy", "arrows", "arrows_info", "brush",
    "selected", "n_selected", "static_mode"];
  for (const name of names) model.on(`change:${name}`, schedule);
  if (isStatic()) staticLoad();
  draw();
  return () => { for (const name of names) model.off(`change:${name}`, schedule); };
}

export default { render };
