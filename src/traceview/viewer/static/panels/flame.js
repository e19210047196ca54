// Flame graph view: the merged call tree from /api/flame?kind=graph painted as an icicle
// (roots on top), for the selected threads or one thread; click selects, double-click zooms,
// and a zoomed window is asked for again so every frame at least a pixel wide shows. The
// panel itself (canvas, tip, zoom) is flamepanel.js; this says what is asked and shown.

import * as api from "../lib/api.js";
import { el, note, obfuscatedLine, setChildren } from "../lib/dom.js";
import { fmtDuration, fmtPct } from "../lib/format.js";
import { elideName } from "../lib/names.js";
import { clockName, isMatch, label, methodColor, obfuscated, on, queryParams, scopeName, select, state } from "../lib/state.js";
import { textColorOn } from "../lib/theme.js";
import { FlamePanel } from "./flamepanel.js";

export class FlameGraph extends FlamePanel {
  constructor(root) {
    super(root, 340);
    this.detail = null; // the /api/flame answer of the zoomed window, once it came
    this.detailGen = 0;
    this.thread = "sel"; // "sel" = the selected threads, or a thread row
    this.pick = el("select", { class: "thread-pick", title: "Threads aggregated", onchange: (e) => this.setThread(e.target.value) });
    this.mount(
      el(
        "div",
        { class: "subbar" },
        el("label", { class: "live-only" }, "Threads ", this.pick),
        el("button", { onclick: () => this.setZoom(null), title: "Show the whole tree" }, "Reset zoom"),
        this.info,
        el("span", { class: "muted hint" }, "click: select method · double-click: zoom"),
      ),
    );
    on("trace", () => {
      this.thread = "sel";
      this.fillPick();
      this.invalidate();
    });
    on("search", () => this.draw());
  }

  fillPick() {
    const opts = [el("option", { value: "sel" }, "Selected threads")];
    for (const t of state.trace.threads) opts.push(el("option", { value: String(t.row) }, String(t.label)));
    setChildren(this.pick, opts);
  }

  setThread(v) {
    this.thread = v;
    this.invalidate();
  }

  /** A new answer for the whole graph: the zoomed window's detail is gone. */
  loaded() {
    this.detail = null;
    this.detailGen++;
    this.describe();
    if (this.pendingZoom) this.setZoom(this.pendingZoom); // a link's zoom, once there is a graph
    this.pendingZoom = null;
  }

  /** Zoom to `z` as soon as the graph is loaded (a link's zoom). */
  zoomWhenLoaded(z) {
    if (this.data) this.setZoom(z);
    else this.pendingZoom = z;
  }

  /** Zoom to the window `z` ([x0, x1] µs, null: the whole graph) and ask for its detail. */
  async setZoom(z) {
    this.zoom = z;
    if (this.onZoom) this.onZoom();
    this.detail = null;
    const gen = ++this.detailGen;
    this.draw();
    this.describe();
    if (!z || !this.data) return;
    const px = Math.max(100, Math.round(this.area.clientWidth));
    const extra = { kind: "graph", x0: round3(z[0]), x1: round3(z[1]), px };
    if (this.thread !== "sel") extra.threads = this.thread;
    try {
      const answer = await api.get("/api/flame", queryParams(extra));
      if (gen !== this.detailGen) return;
      this.detail = answer;
    } catch (err) {
      if (gen === this.detailGen) setChildren(this.msg, note(api.failureNote(err)));
    }
    this.describe();
    this.draw();
  }

  /** The nodes drawn: the zoomed window's detail once it came, else the whole graph's. */
  shown() {
    return (this.detail || this.data).nodes;
  }

  /** The bar's line: frames, the clock, what 100 % is, what is not drawn. */
  describe() {
    const data = this.detail || this.data;
    if (!data) return;
    const n = data.nodes.method.length;
    const what = this.zoom ? "zoomed: " + n + " frames ≥ 1 px" : n + " frames";
    this.info.textContent = clockName(data.clock) + " · 100 % = " + fmtDuration(this.data.total) + ", " + (this.thread === "sel" ? scopeName() : "one thread") + " · " + what + (data.dropped ? ", " + data.dropped + " narrower than a pixel not drawn" : "") + (data.truncated ? ", deepest levels cut" : "");
  }

  /** The flame graph's request for the current selection (null without a trace). */
  request() {
    if (!state.trace) return null;
    const extra = { kind: "graph" };
    if (this.thread !== "sel") extra.threads = this.thread;
    return ["/api/flame", queryParams(extra)];
  }

  /** How node i looks: its method's colour and name, faded when a search passes it over. */
  look(N) {
    const searching = state.matches !== null;
    return {
      fill: (i) => methodColor(N.method[i]),
      text: (i, n) => elideName(label(N.method[i]), n), // the method kept, the package elided
      dim: (i) => searching && !isMatch(N.method[i]),
      selected: (i) => N.method[i] === state.selected,
      dashed: () => false,
      textColor: textColorOn,
    };
  }

  /** The tip of node n: its method, time, share, self time and calls. */
  tipLines(n) {
    const N = this.shown();
    return [
      el("div", { class: "tip-title" }, label(N.method[n])),
      ...obfuscatedLine(obfuscated(N.method[n])),
      el("div", null, "total " + fmtDuration(N.width[n]) + " (" + fmtPct(N.width[n], this.data.total) + ") " + clockName(this.data.clock)),
      el("div", null, "self " + fmtDuration(N.self[n]) + " · calls " + N.calls[n]),
    ];
  }

  /** A click selects node n's method (nothing: none). */
  selectAt(n) {
    select(n >= 0 ? this.shown().method[n] : -1);
  }
}

const round3 = (v) => Math.round(v * 1000) / 1000;
