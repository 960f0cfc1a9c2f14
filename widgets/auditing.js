// Audit explorer (benchkit.widgets.AuditExplorer). Shared helpers (s, h, unpackArrays, busyGuard,
// redrawer) come from _dom.js. The item table (each method's flag and score per item) is filtered
// and sorted here; a click asks Python for the item's full view (text, key, options, who chose
// what, every verdict). Text from the data goes into text nodes only, never into HTML.

const fmtNum = (v, d = 2) => (v === null || v === undefined || Number.isNaN(v) ? "–" : Number(v).toFixed(d));

function render({ model, el }) {
  const root = h("div", { class: "bk-audit" });
  el.appendChild(root);
  const guard = busyGuard(model, root);
  const isStatic = !!model.get("static_mode");
  const methods = model.get("methods");
  const M = methods.length;
  const items = model.get("items");
  const benches = model.get("benchmarks");
  const N = items.length;
  const T = unpackArrays(model.get("table"));
  // default order: most flags first, then consensus (NaN last), ties in item order
  const order = Array.from({ length: N }, (_, i) => i).sort((a, b) => {
    const d = T.n_flags[b] - T.n_flags[a];
    if (d) return d;
    const ca = Number.isNaN(T.consensus[a]) ? -1 : T.consensus[a];
    const cb = Number.isNaN(T.consensus[b]) ? -1 : T.consensus[b];
    return cb - ca || a - b;
  });
  const local = { method: model.get("method"), minFlags: model.get("min_flags"), selected: model.get("selected") };
  const setTrait = (name, key, value, label) => {
    local[key] = value;
    model.set(name, value);
    if (!isStatic) {
      if (label) guard.pending(label);
      model.save_changes();
    }
    draw.schedule();
  };

  const header = () => {
    const A = model.get("applicability");
    const chips = A.map((a) => {
      const chip = h("span", { class: "bk-chip" + (a.ran ? " bk-ran" : " bk-skipped"), "data-method": a.method },
        a.ran ? (a.item_verdict ? `${a.method}: ${a.n_flagged} flagged` : `${a.method}: no item verdict`) : `${a.method}: not run`);
      chip.title = a.reason;
      return chip;
    });
    const skipped = A.filter((a) => !a.ran).map((a) => h("li", { "data-method": a.method }, [h("strong", {}, a.method), ": ", a.reason]));
    return h("div", { class: "bk-head" }, [
      h("h4", {}, `Cross-method audit: ${N} items, ${M} methods with item verdicts`),
      h("div", { class: "bk-chips" }, chips),
      skipped.length ? h("details", { class: "bk-skipped-list" }, [h("summary", {}, `${skipped.length} method(s) not run: why`), h("ul", {}, skipped)]) : null,
    ]);
  };

  const shownRows = () => {
    const j = local.method ? methods.indexOf(local.method) : -1;
    return order.filter((i) => T.n_flags[i] >= local.minFlags && (j < 0 || T.flags[i * M + j]));
  };

  const controls = (n) => h("div", { class: "bk-controls" }, [
    h("label", {}, ["flagged by ", h("select", { class: "bk-method", onchange: (e) => setTrait("method", "method", e.target.value, null) },
      [h("option", { value: "", selected: local.method === "" ? "" : null }, "any method")].concat(
        methods.map((m) => h("option", { value: m, selected: local.method === m ? "" : null }, m))))]),
    h("label", {}, [" at least ", h("select", { class: "bk-minflags", onchange: (e) => setTrait("min_flags", "minFlags", Number(e.target.value), null) },
      Array.from({ length: M + 1 }, (_, k) => h("option", { value: k, selected: k === local.minFlags ? "" : null }, String(k)))), " method(s)"]),
    h("span", { class: "bk-count" }, ` ${n} of ${N} items`),
  ]);

  const tablePanel = (rows) => {
    const cap = model.get("max_rows");
    const body = rows.slice(0, cap).map((i) => {
      const tr = h("tr", { class: "bk-item" + (items[i] === local.selected ? " bk-picked" : ""), "data-item": items[i],
        "data-flags": T.n_flags[i] }, [
        h("td", { class: "bk-id" }, items[i]), h("td", { class: "bk-bench" }, benches[i]), h("td", {}, String(T.n_flags[i])),
      ].concat(methods.map((m, j) => {
        const f = T.flags[i * M + j], sc = T.scores[i * M + j];
        const td = h("td", { class: f ? "bk-flag" : (Number.isNaN(sc) ? "bk-none" : "bk-ok"), "data-method": m }, f ? "●" : (Number.isNaN(sc) ? "–" : "·"));
        td.title = `${m}: score ${fmtNum(sc, 3)}${f ? " (flagged)" : ""}`;
        return td;
      })));
      tr.addEventListener("click", () => setTrait("selected", "selected", items[i], `item ${items[i]}`));
      return tr;
    });
    return h("div", { class: "bk-panel bk-table" }, [
      rows.length > cap ? h("p", { class: "bk-hint" }, `showing the first ${cap} of ${rows.length} items`) : null,
      h("div", { class: "bk-table-wrap" }, h("table", {}, [
        h("thead", {}, h("tr", {}, ["item", "benchmark", "flags"].concat(methods).map((c) => h("th", {}, c)))),
        h("tbody", {}, body)])),
    ]);
  };

  const detailPanel = () => {
    const box = h("div", { class: "bk-panel bk-detail" });
    if (!local.selected) { box.appendChild(h("p", { class: "bk-hint" }, "Click an item to see its text, key, options and which models chose what.")); return box; }
    let D = model.get("detail");
    if (isStatic) D = (model.get("details") || {})[local.selected];
    if (!D || D.item !== local.selected) {
      box.appendChild(h("p", { class: "bk-hint" }, isStatic ? `The exported page holds the full view of the first items only; open ${local.selected} with a kernel.` : "loading…"));
      return box;
    }
    box.dataset.item = D.item;
    box.append(
      h("h4", {}, [h("span", { class: "bk-detail-id" }, D.item), D.benchmark ? ` · ${D.benchmark}` : "", D.key ? ` · key ${D.key}` : ""]),
      h("div", { class: "bk-text" }, D.text || "(no text in the data)"));
    if (D.options.length) {
      box.appendChild(h("table", { class: "bk-options" }, [
        h("thead", {}, h("tr", {}, ["option", "text", "models", "who"].map((c) => h("th", {}, c)))),
        h("tbody", {}, D.options.map((o) => h("tr", { class: "bk-option" + (o.is_key ? " bk-key" : ""), "data-option": o.option, "data-n": o.n_models }, [
          h("td", {}, o.option + (o.is_key ? " (key)" : "")), h("td", { class: "bk-opt-text" }, o.text), h("td", {}, String(o.n_models)),
          h("td", { class: "bk-who" }, o.models)])))]));
    } else box.appendChild(h("p", { class: "bk-hint" }, `No chosen answers in the data (${D.n_models} models answered).`));
    box.appendChild(h("table", { class: "bk-verdicts" }, [
      h("thead", {}, h("tr", {}, ["method", "flag", "score", "reason"].map((c) => h("th", {}, c)))),
      h("tbody", {}, D.verdicts.map((v) => h("tr", { class: "bk-verdict" + (v.flag ? " bk-flagged" : ""), "data-method": v.method }, [
        h("td", {}, v.method), h("td", {}, v.flag ? "●" : ""), h("td", {}, fmtNum(v.score, 3)), h("td", { class: "bk-reason" }, v.reason)])))]));
    return box;
  };

  const build = () => {
    local.method = model.get("method"); local.minFlags = model.get("min_flags"); local.selected = model.get("selected");
    const rows = shownRows();
    root.replaceChildren(header(), controls(rows.length), h("div", { class: "bk-grid2" }, [tablePanel(rows), detailPanel()]));
  };
  const draw = redrawer(model, root, guard, build);
  return draw.start(["revision", "method", "min_flags", "selected", "detail", "max_rows"]);
}
export default { render };
