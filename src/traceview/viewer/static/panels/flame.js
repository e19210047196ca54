// Flame graph view: the merged call tree from /api/flame?kind=graph painted as an icicle
// (roots on top), for the selected threads or one thread; click selects, double-click zooms,
// and a zoomed window is asked for again so every frame at least a pixel wide shows.

import * as api from "../lib/api.js";
import { el, note, obfuscatedLine, setChildren, sizedContext } from "../lib/dom.js";
import { fmtDuration, fmtPct } from "../lib/format.js";
import { elideName } from "../lib/names.js";
import { clockName, isMatch, label, methodColor, obfuscated, on, queryParams, scopeName, select, state } from "../lib/state.js";
import { colors, faded, textColorOn } from "../lib/theme.js";
import { flameHeight, hitFlame, paintFlame } from "./flamepaint.js";
import { PanelLoad } from "./load.js";

export class FlameGraph {
  constructor(root) {
    this.root = root;
    this.data = null;
    this.zoom = null; // [x0, x1] µs
    this.detail = null; // the /api/flame answer of the zoomed window, once it came
    this.detailGen = 0;
    this.thread = "sel"; // "sel" = the selected threads, or a thread row
    this.loader = new PanelLoad(root, () => this.request(), {
      started: () => setChildren(this.msg, note("loading…")),
      loaded: (data) => {
        this.data = data;
        this.zoom = null;
        this.detail = null;
        this.detailGen++;
        setChildren(this.msg);
        this.describe();
        this.draw();
        if (this.pendingZoom) this.setZoom(this.pendingZoom); // a link's zoom, once there is a graph
        this.pendingZoom = null;
      },
      failed: (err) => {
        this.data = null;
        setChildren(this.msg, note(api.failureNote(err)));
        this.draw();
      },
    });
    root.classList.add("flame");
    this.pick = el("select", { class: "thread-pick", title: "Threads aggregated", onchange: (e) => this.setThread(e.target.value) });
    this.info = el("span", { class: "muted" });
    this.canvas = el("canvas", { class: "fl-canvas" });
    this.msg = el("div", { class: "fl-msg" });
    this.tip = el("div", { class: "tooltip", hidden: true });
    this.area = el("div", { class: "fl-area" }, this.canvas, this.msg);
    const bar = el(
      "div",
      { class: "subbar" },
      el("label", { class: "live-only" }, "Threads ", this.pick),
      el("button", { onclick: () => this.setZoom(null), title: "Show the whole tree" }, "Reset zoom"),
      this.info,
      el("span", { class: "muted hint" }, "click: select method · double-click: zoom"),
    );
    setChildren(root, bar, this.area, this.tip);
    this.area.addEventListener("scroll", () => this.draw());
    new ResizeObserver(() => this.draw()).observe(this.area);
    this.canvas.addEventListener("mousemove", (e) => this.onHover(e));
    this.canvas.addEventListener("mouseleave", () => (this.tip.hidden = true));
    this.canvas.addEventListener("click", (e) => {
      const n = this.hit(e);
      select(n >= 0 ? this.shown().method[n] : -1);
    });
    this.canvas.addEventListener("mousedown", (e) => e.detail > 1 && e.preventDefault()); // no text selected
    this.canvas.addEventListener("dblclick", (e) => {
      const n = this.hit(e);
      const N = this.shown();
      if (n >= 0) this.setZoom([N.x[n], N.x[n] + N.width[n]]);
    });
    on("trace", () => {
      this.thread = "sel";
      this.fillPick();
      this.invalidate();
    });
    on("filter", () => this.invalidate());
    for (const ev of ["select", "search", "theme"]) on(ev, () => this.draw());
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

  /** Mark the data stale; it is fetched now if shown, else when the view is next shown. */
  invalidate() {
    this.loader.invalidate();
  }

  show() {
    if (!this.loader.show()) this.draw();
  }

  view() {
    return this.zoom || [0, this.data.total || 1];
  }

  draw() {
    if (!this.root.offsetParent) return;
    const W = Math.max(10, this.area.clientWidth);
    const N = this.data ? this.shown() : null;
    const H = N ? flameHeight(N) : 10;
    const ctx = sizedContext(this.canvas, W, H);
    const c = colors();
    ctx.fillStyle = c.bg;
    ctx.fillRect(0, 0, W, H);
    if (!N) return;
    if (!N.method.length) {
      setChildren(this.msg, note("No calls in this selection."));
      return;
    }
    const searching = state.matches !== null;
    paintFlame(ctx, N, this.view(), W, {
      c,
      fill: (i) => methodColor(N.method[i]),
      text: (i, n) => elideName(label(N.method[i]), n), // the method kept, the package elided
      dim: (i) => searching && !isMatch(N.method[i]),
      selected: (i) => N.method[i] === state.selected,
      dashed: () => false,
      textColor: textColorOn,
      faded: (col) => faded(col, c.bg),
    });
  }

  hit(e) {
    if (!this.data) return -1;
    const rect = this.canvas.getBoundingClientRect();
    return hitFlame(this.shown(), this.view(), rect.width, e.clientX - rect.left, e.clientY - rect.top);
  }

  onHover(e) {
    const n = this.hit(e);
    if (n < 0) {
      this.tip.hidden = true;
      return;
    }
    const N = this.shown();
    const clock = clockName(this.data.clock);
    setChildren(
      this.tip,
      el("div", { class: "tip-title" }, label(N.method[n])),
      ...obfuscatedLine(obfuscated(N.method[n])),
      el("div", null, "total " + fmtDuration(N.width[n]) + " (" + fmtPct(N.width[n], this.data.total) + ") " + clock),
      el("div", null, "self " + fmtDuration(N.self[n]) + " · calls " + N.calls[n]),
    );
    const r = this.root.getBoundingClientRect();
    let left = e.clientX - r.left + 14;
    if (left + 340 > r.width) left = Math.max(0, e.clientX - r.left - 350);
    this.tip.style.left = left + "px";
    this.tip.style.top = e.clientY - r.top + 14 + "px";
    this.tip.hidden = false;
  }
}

const round3 = (v) => Math.round(v * 1000) / 1000;
