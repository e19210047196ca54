// Tiny DOM helpers: every string goes in as text (trace names are untrusted, never innerHTML),
// plus the virtual-scroll band of the tables and canvas sizing at the device pixel ratio.

/** Create an element: el("div", {class: "x", title: "t", onclick: fn}, child, "text", ...). */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "style") node.style.cssText = v;
    else if (k === "dataset") Object.assign(node.dataset, v);
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k in node && typeof v !== "string") node[k] = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(node, c);
    else node.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replace all children of `node`. */
export function setChildren(node, ...children) {
  node.replaceChildren();
  append(node, children);
}

/** `text` as nodes with every case-insensitive occurrence of `needle` wrapped in <mark>. */
export function marked(text, needle) {
  if (!needle) return [document.createTextNode(text)];
  const out = [];
  const low = text.toLowerCase();
  let i = 0;
  for (;;) {
    const j = low.indexOf(needle, i);
    if (j < 0) break;
    if (j > i) out.push(document.createTextNode(text.slice(i, j)));
    out.push(el("mark", null, text.slice(j, j + needle.length)));
    i = j + needle.length;
  }
  if (i < text.length) out.push(document.createTextNode(text.slice(i)));
  return out;
}

/** The rows [first, last) a virtualised list of `n` rows `rowH` high renders: the ones visible
 * below the sticky `head` in `scroll`, 15 more each side. Null when `band` (the rendered rows)
 * still covers the view and `force` is false. */
export function visibleBand(scroll, head, n, rowH, band, force) {
  const top = Math.max(0, scroll.scrollTop - head.offsetHeight);
  const want0 = Math.floor(top / rowH);
  const want1 = want0 + Math.ceil(scroll.clientHeight / rowH) + 1;
  if (!force && band && want0 >= band[0] && Math.min(want1, n) <= band[1]) return null;
  return [Math.max(0, want0 - 15), Math.min(n, want1 + 15)];
}

/** `canvas` sized to w × h CSS px at the device pixel ratio (resized only when that changed),
 * and its 2D context scaled to CSS px. */
export function sizedContext(canvas, w, h) {
  const dpr = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    canvas.style.width = w + "px";
    canvas.style.height = h + "px";
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}

/** A muted one-line note (loading, not precomputed, errors). */
export function note(text, cls) {
  return el("div", { class: "note " + (cls || "") }, text);
}

/** A tooltip's extra line naming the name a method had in the trace (`name`, "" when no
 * mapping renamed it), as a list to spread in: empty when there is nothing to say. */
export function obfuscatedLine(name) {
  return name ? [el("div", { class: "tip-obf" }, "obfuscated: " + name)] : [];
}

let monoW = 0;

/** The width of one character of the tables' monospace names (11.5px `--mono`), in CSS px. */
export function monoCharW() {
  if (!monoW) {
    const mono = getComputedStyle(document.documentElement).getPropertyValue("--mono").trim() || "monospace";
    const probe = document.createElement("canvas").getContext("2d");
    probe.font = "11.5px " + mono;
    monoW = probe.measureText("abcdefghijklmnopqrstuvwxyz.ABCDEFGHIJ").width / 37 || 7;
  }
  return monoW;
}
