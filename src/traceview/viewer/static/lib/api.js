// Data API client: a report's inlined answers (<script id="traceview-data">) first, else HTTP.
// `keyOf` is the one rule naming a request: the client's cache and a report's index use it
// (a report holds each answer with its request, docs/web-api.md "Report packaging").

const CACHE_MAX = 4000;

/** A request's parameters without the empty ones, as strings. */
function cleanParams(params) {
  const out = {};
  for (const [k, v] of Object.entries(params || {})) {
    if (v === undefined || v === null || v === "") continue;
    out[k] = String(v);
  }
  return out;
}

/** The key of a request: the path, then (when there are parameters) "?" and `name=value`
 * pairs sorted by name joined by "&", values as plain text; empty values left out. */
export function keyOf(path, params) {
  const p = cleanParams(params);
  const names = Object.keys(p).sort();
  if (!names.length) return path;
  return path + "?" + names.map((k) => k + "=" + p[k]).join("&");
}

/** Raised when a report does not hold the answer to a request. */
export class NotPrecomputed extends Error {
  constructor(key) {
    super("not precomputed in this report: " + key);
    this.key = key;
  }
}

/** Undo a report tile's delta coding (viewer/report.py `_packed`): call and start ns as
 * running sums, end = start + length, times back to µs. */
export function unpackTile(tile) {
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
  return tile;
}

/** The text of a report's data block as its list of `[path, params, answer]`: JSON, gzipped
 * and base64-encoded when `encoding` is "gzip+base64" (unpacked by DecompressionStream). */
export async function readEntries(text, encoding) {
  text = (text || "").trim();
  if (encoding !== "gzip+base64") return JSON.parse(text || "[]");
  const bin = atob(text);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

/** A report's answers by request key, timeline tiles unpacked. */
export function indexAnswers(entries) {
  const index = new Map();
  for (const [path, params, answer] of entries) {
    if (path === "/api/timeline" && answer.packed) unpackTile(answer);
    index.set(keyOf(path, params), answer);
  }
  return index;
}

/** The answer `index` holds for a request, or undefined: the request's own key; else, when
 * `clock` is the default clock, the key without it; else for a timeline tile the nearest
 * coarser tile marked `complete` (a report leaves out the finer tiles under it, since it
 * draws every call of its span as they would). */
export function lookup(index, path, params, defaultClock) {
  const hit = index.get(keyOf(path, params));
  if (hit !== undefined) return hit;
  if (params && params.clock !== undefined && params.clock === defaultClock) {
    const rest = { ...params };
    delete rest.clock;
    const bare = index.get(keyOf(path, rest));
    if (bare !== undefined) return bare;
  }
  if (path === "/api/timeline" && params) {
    const thread = Number(params.thread);
    let level = Number(params.level);
    let k = Number(params.tile);
    while (level > 0) {
      level -= 1;
      k = Math.floor(k / 2);
      const tile = index.get(keyOf(path, { ...params, thread, level, tile: k })); // side kept
      if (tile) return tile.complete ? tile : undefined;
    }
  }
  return undefined;
}

/** One trace's data: from a report's data block (`block`: {text, encoding}) or, without one,
 * over HTTP with `fetch` under `base` (the page's folder: "" at "/", "/t/<id>" in the service). */
export class Client {
  constructor({ block = null, fetch = null, base = "" } = {}) {
    this.fetch = fetch;
    this.base = base;
    this.index = null; // the report's answers once read
    this.reading = block ? readEntries(block.text, block.encoding).then((e) => (this.index = indexAnswers(e))) : null;
    this.cache = new Map();
    this.defaultClock = null;
  }

  /** True when the answers come from a report (no server behind the page). */
  get isReport() {
    return this.reading !== null;
  }

  /** Where the data API lives for `path` ("/api/..."). */
  url(path) {
    return this.base + path;
  }

  /** False when this is a report that does not hold the answer (a control that would ask for
   * it is then not shown); true on the live server. */
  has(path, params) {
    if (!this.isReport) return true;
    return this.index !== null && lookup(this.index, path, params, this.defaultClock) !== undefined;
  }

  /** One API answer (a promise, cached by key); rejects with NotPrecomputed in a report that
   * lacks it, with the server's one-line error otherwise. */
  get(path, params) {
    const key = keyOf(path, params);
    let hit = this.cache.get(key);
    if (hit) return hit;
    hit = this.isReport ? this.fromReport(path, params) : this.fromServer(path, params);
    hit.catch(() => this.cache.delete(key));
    this.cache.set(key, hit);
    if (this.cache.size > CACHE_MAX) this.cache.delete(this.cache.keys().next().value);
    return hit;
  }

  async fromReport(path, params) {
    await this.reading;
    const answer = lookup(this.index, path, params, this.defaultClock);
    if (answer === undefined) throw new NotPrecomputed(keyOf(path, params));
    return answer;
  }

  async fromServer(path, params) {
    const qs = new URLSearchParams(cleanParams(params)).toString();
    const resp = await this.fetch(this.url(qs ? path + "?" + qs : path));
    if (!resp.ok) throw new Error(await errorOf(resp));
    return resp.json();
  }

  /** POST a trace file's raw bytes to /api/open; resolves to the new /api/trace answer. */
  openTrace(file) {
    return this.upload("/api/open", file);
  }

  /** POST a trace file to /api/compare/open: the shown trace is compared with it; resolves
   * to the candidate's /api/trace answer. */
  openCompare(file) {
    return this.upload("/api/compare/open", file);
  }

  async upload(path, file) {
    if (this.isReport) throw new Error("this is a static report: open another trace with `traceview FILE`");
    const resp = await this.fetch(this.url(path), {
      method: "POST",
      headers: {
        "Content-Type": "application/octet-stream",
        "X-Filename": encodeURIComponent(file.name),
        "X-Traceview": "1",
      },
      body: await file.arrayBuffer(),
    });
    if (!resp.ok) throw new Error(await errorOf(resp));
    const body = await resp.json();
    this.cache.clear();
    return body;
  }

  /** POST /api/process: read the `pick`-th dump of the same ANR report; resolves to the new
   * /api/trace answer. */
  async pickProcess(pick) {
    if (this.isReport) throw new Error("this is a static report: open the ANR report with `traceview FILE --process`");
    const resp = await this.fetch(this.url("/api/process?pick=" + encodeURIComponent(String(pick))), {
      method: "POST",
      headers: { "X-Traceview": "1" },
    });
    if (!resp.ok) throw new Error(await errorOf(resp));
    const body = await resp.json();
    this.cache.clear();
    return body;
  }
}

/** The one line an error answer gives (`{"error": ...}`), else its status line. */
async function errorOf(resp) {
  try {
    const body = await resp.json();
    if (body && body.error) return body.error;
  } catch (_e) {
    /* keep the status line */
  }
  return resp.status + " " + resp.statusText;
}

let page = null; // the page's client, made on first use

function client() {
  if (!page) {
    const el = document.getElementById("traceview-data");
    page = new Client({
      block: el ? { text: el.textContent, encoding: el.dataset.encoding } : null,
      fetch: (url, init) => fetch(url, init),
      // "/api/..." under the page's folder: "/" (`traceview view`) or "/t/<id>/" (`traceview serve`)
      base: location.pathname.replace(/\/[^/]*$/, ""),
    });
  }
  return page;
}

/** True when the page is a self-contained report (no server behind it). */
export const isReport = () => client().isReport;
export const setDefaultClock = (clock) => (client().defaultClock = clock);
export const has = (path, params) => client().has(path, params);
export const get = (path, params) => client().get(path, params);
export const openTrace = (file) => client().openTrace(file);
export const openCompare = (file) => client().openCompare(file);
export const pickProcess = (pick) => client().pickProcess(pick);

/** A short human note for a failed request (used by every view). */
export function failureNote(err) {
  if (err instanceof NotPrecomputed) {
    return "Not available in this static report (it holds only precomputed views); open the trace with `traceview FILE` for this.";
  }
  return "Request failed: " + (err && err.message ? err.message : String(err));
}
