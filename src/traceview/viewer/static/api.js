// Data API client: answers inlined in a report (<script id="traceview-data">) first, then HTTP.
// Keys follow docs/web-api.md: path + "?" + name=value pairs sorted by name, values unencoded.

let inlined; // undefined = not looked yet, null = live server, Promise of the report's answers
let unpacked = null; // the report's answers once unpacked (for `has`)
const cache = new Map();
const CACHE_MAX = 4000;
let defaultClock = null;

/** Where the data API lives: "/api/..." under the page's folder, so the same UI works at
 * "/" (`traceview view`) and under a prefix ("/t/<id>/" in `traceview serve`). Report keys
 * stay the bare "/api/..." paths. */
export function apiUrl(path) {
  return location.pathname.replace(/\/[^/]*$/, "") + path;
}

/** Raised when a report does not hold the answer to a request. */
export class NotPrecomputed extends Error {
  constructor(key) {
    super("not precomputed in this report");
    this.key = key;
  }
}

function report() {
  if (inlined === undefined) {
    const el = document.getElementById("traceview-data");
    inlined = el ? readInlined(el) : null;
  }
  return inlined;
}

/** The report's answers: JSON, gzipped and base64-encoded when `data-encoding="gzip+base64"`
 * (docs/web-api.md "Report packaging"), unpacked by the browser's DecompressionStream. */
async function readInlined(el) {
  const text = (el.textContent || "").trim();
  if (el.dataset.encoding !== "gzip+base64") return JSON.parse(text || "{}");
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const data = JSON.parse(await new Response(stream).text());
  for (const [key, tile] of Object.entries(data)) if (key.startsWith("/api/timeline") && tile.packed) unpackTile(tile);
  unpacked = data;
  return data;
}

/** Undo a report tile's delta coding (viewer/report.py `_packed`): call and start ns as
 * running sums, end = start + length, times back to µs. */
function unpackTile(tile) {
  const r = tile.rects;
  let call = 0;
  let start = 0;
  for (let i = 0; i < r.call.length; i++) {
    call += r.call[i];
    start += r.start[i];
    r.call[i] = call;
    r.end[i] = (start + r.end[i]) / 1000;
    r.start[i] = start / 1000;
  }
  delete tile.packed;
}

/** True when the page is a self-contained report (no server behind it). */
export function isReport() {
  return report() !== null;
}

export function setDefaultClock(clock) {
  defaultClock = clock;
}

function cleanParams(params) {
  const out = {};
  for (const [k, v] of Object.entries(params || {})) {
    if (v === undefined || v === null || v === "") continue;
    out[k] = String(v);
  }
  return out;
}

/** The report key of a request. */
export function keyOf(path, params) {
  const p = cleanParams(params);
  const names = Object.keys(p).sort();
  if (!names.length) return path;
  return path + "?" + names.map((k) => k + "=" + p[k]).join("&");
}

/** The key under which a report holds the answer to a request, or null. */
function heldKey(data, path, params) {
  const key = keyOf(path, params);
  if (Object.prototype.hasOwnProperty.call(data, key)) return key;
  if (params && params.clock !== undefined && params.clock === defaultClock) {
    const rest = { ...params };
    delete rest.clock;
    const key2 = keyOf(path, rest);
    if (Object.prototype.hasOwnProperty.call(data, key2)) return key2;
  }
  return null;
}

/** False when this is a report that does not hold the answer (a control that would ask for
 * it is then not shown); true on the live server. */
export function has(path, params) {
  if (report() === null) return true;
  return unpacked !== null && heldKey(unpacked, path, params) !== null;
}

async function fromReport(path, params) {
  const data = await report();
  const held = heldKey(data, path, params);
  if (held !== null) return data[held];
  const key = keyOf(path, params);
  if (path === "/api/timeline") {
    const tile = completeAncestor(data, params);
    if (tile) return tile;
  }
  throw new NotPrecomputed(key);
}

/** A report leaves out the finer tiles under a tile marked `complete` (every call of its span
 * drawn as at any finer level), so that tile answers for them. */
function completeAncestor(data, params) {
  const thread = Number(params.thread);
  let level = Number(params.level);
  let k = Number(params.tile);
  while (level > 0) {
    level -= 1;
    k = Math.floor(k / 2);
    const tile = data[keyOf("/api/timeline", { thread, level, tile: k })];
    if (tile) return tile.complete ? tile : null;
  }
  return null;
}

async function fromServer(path, params) {
  const p = cleanParams(params);
  const qs = new URLSearchParams(p).toString();
  const resp = await fetch(apiUrl(qs ? path + "?" + qs : path));
  if (!resp.ok) {
    let msg = resp.status + " " + resp.statusText;
    try {
      const body = await resp.json();
      if (body && body.error) msg = body.error;
    } catch (_e) {
      /* keep the status line */
    }
    throw new Error(msg);
  }
  return resp.json();
}

/** GET one API answer (cached); rejects with NotPrecomputed in a report that lacks it. */
export function get(path, params) {
  const key = keyOf(path, params);
  let hit = cache.get(key);
  if (hit) return hit;
  hit = report() !== null ? fromReport(path, params) : fromServer(path, params);
  hit.catch(() => cache.delete(key));
  cache.set(key, hit);
  if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value);
  return hit;
}

/** POST a trace file's raw bytes to /api/open; resolves to the new /api/trace answer. */
export async function openTrace(file) {
  if (isReport()) throw new Error("this is a static report: open another trace with `traceview FILE`");
  const bytes = await file.arrayBuffer();
  const resp = await fetch(apiUrl("/api/open"), {
    method: "POST",
    headers: {
      "Content-Type": "application/octet-stream",
      "X-Filename": encodeURIComponent(file.name),
      "X-Traceview": "1",
    },
    body: bytes,
  });
  let body = null;
  try {
    body = await resp.json();
  } catch (_e) {
    body = null;
  }
  if (!resp.ok) throw new Error((body && body.error) || resp.status + " " + resp.statusText);
  cache.clear();
  return body;
}

/** A short human note for a failed request (used by every view). */
export function failureNote(err) {
  if (err instanceof NotPrecomputed) {
    return "Not available in this static report (it holds only precomputed views); open the trace with `traceview FILE` for this.";
  }
  return "Request failed: " + (err && err.message ? err.message : String(err));
}
