// The view in the page's URL (its fragment, so a link works for the viewer, a trace of the
// service and a report alike): clock, threads, range, tab, selected method, timeline and
// flame zoom. Pure: `encodeView` writes the fragment, `decodeView` reads one back, checked
// against the trace (anything out of bounds is left out, never trusted).

const ORDER = ["clock", "threads", "range", "tab", "m", "view", "flame"];

const num = (v) => String(Math.round(v * 1000) / 1000);

/** The fragment (without "#") of a view `{clock, threads: [rows] | null, range: [t0, t1] |
 * null, tab, method, view: [v0, v1] | null, flame: [x0, x1] | null}`; absent parts left out. */
export function encodeView(v) {
  const p = new URLSearchParams();
  if (v.clock) p.set("clock", v.clock);
  if (v.threads && v.threads.length) p.set("threads", [...v.threads].sort((a, b) => a - b).join(","));
  if (v.range) p.set("range", v.range.map(num).join(","));
  if (v.tab) p.set("tab", v.tab);
  if (v.method !== undefined && v.method !== null && v.method >= 0) p.set("m", String(v.method));
  if (v.view) p.set("view", v.view.map(num).join(","));
  if (v.flame) p.set("flame", v.flame.map(num).join(","));
  const out = [];
  for (const k of ORDER) if (p.has(k)) out.push(k + "=" + p.get(k).replace(/%2C/gi, ","));
  return out.join("&");
}

function pair(text) {
  if (!text) return null;
  const parts = text.split(",").map(Number);
  if (parts.length !== 2 || !parts.every(Number.isFinite) || parts[1] <= parts[0]) return null;
  return parts;
}

function index(text, n) {
  if (!/^\d+$/.test(text || "")) return null;
  const i = Number(text);
  return i < n ? i : null;
}

/** The view a fragment (with or without "#") holds, each part checked against `limits`
 * (`{clocks, threads: count, methods: count, tabs}`): a bad part reads as absent (null). */
export function decodeView(text, limits) {
  const p = new URLSearchParams(String(text || "").replace(/^#/, ""));
  const clock = p.get("clock");
  let threads = null;
  if (p.get("threads")) {
    const rows = p.get("threads").split(",").map((s) => index(s, limits.threads));
    threads = rows.length && rows.every((r) => r !== null) ? [...new Set(rows)].sort((a, b) => a - b) : null;
  }
  return {
    clock: limits.clocks.includes(clock) ? clock : null,
    threads,
    range: pair(p.get("range")),
    tab: limits.tabs.includes(p.get("tab")) ? p.get("tab") : null,
    method: index(p.get("m"), limits.methods),
    view: pair(p.get("view")),
    flame: pair(p.get("flame")),
  };
}
