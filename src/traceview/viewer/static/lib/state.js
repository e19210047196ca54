// Shared viewer state (trace, selection, time range, clock, threads, my-code, search) and a
// tiny event bus: views subscribe to the events they repaint on. No DOM: views build that.

const listeners = new Map();

export const state = {
  trace: null, // /api/trace answer
  methods: null, // /api/methods answer
  lowerLabels: [], // method labels in lower case, for the find box
  clock: "cpu",
  threads: null, // Set of thread rows included, or null = all
  range: null, // [t0, t1] µs on the timeline clock, or null = whole trace
  mycode: "",
  search: "", // lower-cased find text
  matches: null, // Uint8Array per method row (1 = matches the find text) or null
  selected: -1, // selected method row
  budgetMs: 16,
  frames: null, // /api/frames answer (for the timeline markers)
};

/** Subscribe to an event: "trace", "filter", "select", "search", "frames", "theme". */
export function on(event, fn) {
  if (!listeners.has(event)) listeners.set(event, []);
  listeners.get(event).push(fn);
}

export function emit(event, detail) {
  for (const fn of listeners.get(event) || []) {
    try {
      fn(detail);
    } catch (err) {
      console.error(err);
    }
  }
}

export function setTrace(trace, methods) {
  state.trace = trace;
  state.methods = methods;
  state.lowerLabels = methods.label.map((s) => String(s).toLowerCase());
  state.clock = trace.default_clock;
  state.threads = null;
  state.range = null;
  state.selected = -1;
  state.frames = null;
  recomputeMatches();
  emit("trace");
}

/** Query parameters shared by the aggregated views (profile, relations, flame, trees). */
export function queryParams(extra) {
  const p = { clock: state.clock };
  if (state.threads) p.threads = [...state.threads].sort((a, b) => a - b).join(",");
  if (state.range) {
    p.t0 = roundUs(state.range[0]);
    p.t1 = roundUs(state.range[1]);
  }
  const mc = mycodeList();
  if (mc) p.mycode = mc;
  return Object.assign(p, extra || {});
}

function roundUs(v) {
  return Math.round(v * 1000) / 1000;
}

/** The my-code prefixes as the comma-separated list sent to the server. */
export function mycodeList() {
  return state.mycode
    .split(/[\s,;]+/)
    .map((s) => s.trim())
    .filter(Boolean)
    .join(",");
}

export function setClock(clock) {
  if (clock === state.clock) return;
  state.clock = clock;
  emit("filter");
}

export function setThreads(set) {
  const n = state.trace ? state.trace.threads.length : 0;
  state.threads = set && set.size < n ? set : null;
  emit("filter");
}

export function setRange(range) {
  state.range = range && range[1] > range[0] ? range : null;
  emit("filter");
}

export function setMycode(text) {
  state.mycode = text;
  try {
    localStorage.setItem("traceview.mycode", text);
  } catch (_e) {
    /* storage may be unavailable (file://, private mode) */
  }
  emit("filter");
}

export function select(method) {
  if (method === state.selected) return;
  state.selected = method;
  emit("select", method);
}

export function setSearch(text) {
  state.search = text.trim().toLowerCase();
  recomputeMatches();
  emit("search");
}

function recomputeMatches() {
  const q = state.search;
  if (!q) {
    state.matches = null;
    return;
  }
  const m = new Uint8Array(state.lowerLabels.length);
  state.lowerLabels.forEach((s, i) => {
    if (s.includes(q)) m[i] = 1;
  });
  state.matches = m;
}

/** True when the method row passes the find box (always true with an empty box). */
export function isMatch(method) {
  return !state.matches || (method >= 0 && state.matches[method] === 1);
}

/** Thread record by row. */
export function thread(row) {
  return state.trace.threads[row];
}

/** The palette colour of a method row (grey for never-called methods). */
export function methodColor(method) {
  const idx = method >= 0 && state.methods ? state.methods.color[method] : -1;
  const pal = state.trace ? state.trace.palette : [];
  return idx >= 0 && pal.length ? pal[idx % pal.length] : "#9a9a9a";
}

/** A short name for strips: "Class.method" without the package and signature. */
export function shortName(method) {
  const m = state.methods;
  if (!m || method < 0) return "";
  const cls = String(m.class[method] || "");
  const simple = cls.slice(Math.max(cls.lastIndexOf("."), cls.lastIndexOf("/")) + 1); // Dalvik: a/b/C
  return simple ? simple + "." + m.name[method] : String(m.name[method] || m.label[method]);
}

export function label(method) {
  return state.methods && method >= 0 ? String(state.methods.label[method]) : "";
}

// The name as the trace wrote it, when a mapping renamed it (--mapping), else "".
export function obfuscated(method) {
  const o = state.methods && state.methods.obfuscated;
  return o && method >= 0 ? String(o[method] || "") : "";
}

// A method's tooltip: its label, and the obfuscated name it was renamed from.
export function tooltip(method) {
  const o = obfuscated(method);
  return o ? label(method) + "\nobfuscated: " + o : label(method);
}

/** A clock's name as the header and hints say it. */
export function clockName(clock) {
  return clock === "wall" ? "Wall" : "Thread CPU";
}

/** What the aggregated views cover now (the base of their percentages), in a few words. */
export function scopeName() {
  const n = state.trace ? state.trace.threads.length : 0;
  let what = "all " + n + " threads";
  if (state.threads && state.threads.size === 1) what = "thread " + state.trace.threads[[...state.threads][0]].label + " only";
  else if (state.threads) what = state.threads.size + " of " + n + " threads";
  return what + (state.range ? ", inside the range" : "");
}
