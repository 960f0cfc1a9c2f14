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
