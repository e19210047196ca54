// Compare mode's state: the candidate's trace and method answers, the maps between the two
// sides' method rows (by label: class, name and signature as shown), the candidate's
// selection, the selection words the compare answers take, and the timelines' alignment.

import * as api from "../lib/api.js";
import { emit, methodColor, mycodeList, state } from "../lib/state.js";

export const cmp = {
  on: false,
  sides: null, // /api/trace "compare": {side, baseline: [names], candidate: [names]}
  trace: null, // the candidate's /api/trace
  methods: null, // the candidate's /api/methods
  toCand: new Map(), // base method row -> candidate row
  toBase: new Map(),
  pin: null, // {base, cand}: a selection made on both sides at once (Diff tab, diff flame)
  align: "start", // "start" | "method"
  metric: "excl", // the gated time the compare answers judge on: "excl" | "incl"
  shift: 0, // µs from the baseline's timeline to the candidate's

  /** The candidate's row of the selected method (-1 for none). */
  selected() {
    if (this.pin && this.pin.base === state.selected) return this.pin.cand;
    return this.candOf(state.selected);
  },
  candOf(base) {
    return base >= 0 && this.toCand.has(base) ? this.toCand.get(base) : -1;
  },
  baseOf(cand) {
    return cand >= 0 && this.toBase.has(cand) ? this.toBase.get(cand) : -1;
  },
  /** A click on the candidate's timeline: select the method on both sides. */
  selectOther(cand) {
    selectPair(this.baseOf(cand), cand);
  },
  /** The candidate's colour of a method: the baseline's for the same method, else its own. */
  color(cand) {
    const b = this.baseOf(cand);
    if (b >= 0) return methodColor(b);
    const idx = cand >= 0 && this.methods ? this.methods.color[cand] : -1;
    const pal = state.trace ? state.trace.palette : [];
    return idx >= 0 && pal.length ? pal[idx % pal.length] : "#9a9a9a";
  },
};

/** Judge the changes on `metric` ("excl" or "incl"): the compare views reload ("metric"). */
export function setMetric(metric) {
  if (metric === cmp.metric) return;
  cmp.metric = metric;
  emit("metric", metric);
}

/** Select a method on both sides (-1: none on that side). */
export function selectPair(base, cand) {
  cmp.pin = { base, cand };
  state.selected = base;
  emit("select", base);
}

/** Enter compare mode for the shown trace's answer (`trace.compare` set), or leave it. */
export async function loadCompare(trace) {
  cmp.on = Boolean(trace && trace.compare);
  cmp.sides = cmp.on ? trace.compare : null;
  cmp.metric = cmp.on && trace.compare.metric === "incl" ? "incl" : "excl";
  cmp.pin = null;
  cmp.shift = 0;
  cmp.toCand = new Map();
  cmp.toBase = new Map();
  if (!cmp.on) {
    cmp.trace = cmp.methods = null;
    return;
  }
  const [candTrace, candMethods, baseMethods] = await Promise.all([
    api.get("/api/trace", { side: "cand" }),
    api.get("/api/methods", { side: "cand" }),
    api.get("/api/methods"),
  ]);
  cmp.trace = candTrace;
  cmp.methods = candMethods;
  const rows = new Map();
  candMethods.label.forEach((s, i) => rows.set(String(s), i));
  baseMethods.label.forEach((s, b) => {
    const c = rows.get(String(s));
    if (c !== undefined) {
      cmp.toCand.set(b, c);
      cmp.toBase.set(c, b);
    }
  });
}

/** The selection words of the compare answers: the clock, the metric, the picked threads by
 * name (each trace numbers its own), "my code", and `extra`. */
export function compareParams(extra) {
  const p = { clock: state.clock, metric: cmp.metric };
  if (state.threads && state.trace) {
    const names = [...state.threads].sort((a, b) => a - b).map((r) => {
      const t = state.trace.threads[r];
      return t.name !== null && t.name !== undefined ? String(t.name) : String(t.id);
    });
    p.thread = [...new Set(names)].join(",");
  }
  const mc = mycodeList();
  if (mc) p.mycode = mc;
  return Object.assign(p, extra || {});
}
