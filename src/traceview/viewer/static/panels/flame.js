// Flame graph view: the merged call tree from /api/flame?kind=graph painted as an icicle
// (roots on top), for the selected threads or one thread; click selects, double-click zooms.

import * as api from "../lib/api.js";
import { el, note, obfuscatedLine, setChildren, sizedContext } from "../lib/dom.js";
import { fmtDuration, fmtPct } from "../lib/format.js";
import { isMatch, label, methodColor, obfuscated, on, queryParams, select, shortName, state } from "../lib/state.js";
import { colors, faded, textColorOn } from "../lib/theme.js";
import { flameHeight, hitFlame, paintFlame } from "./flamepaint.js";
import { PanelLoad } from "./load.js";

export class FlameGraph {
  constructor(root) {
    this.root = root;
    this.data = null;
    this.zoom = null; // [x0, x1] µs
    this.thread = "sel"; // "sel" = the selected threads, or a thread row
    this.loader = new PanelLoad(root, () => this.request(), {
      started: () => setChildren(this.msg, note("loading…")),
      loaded: (data) => {
        this.data = data;
        this.zoom = null;
        setChildren(this.msg);
        const n = data.nodes.method.length;
        this.info.textContent = n + " frames, total " + fmtDuration(data.total) + (data.dropped ? ", " + data.dropped + " narrow frames not drawn" : "") + (data.truncated ? ", deepest levels cut" : "");
        this.draw();
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
      select(n >= 0 ? this.data.nodes.method[n] : -1);
    });
    this.canvas.addEventListener("dblclick", (e) => {
      const n = this.hit(e);
      if (n >= 0) this.setZoom([this.data.nodes.x[n], this.data.nodes.x[n] + this.data.nodes.width[n]]);
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

  setZoom(z) {
    this.zoom = z;
    this.draw();
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
    const N = this.data ? this.data.nodes : null;
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
      text: (i) => shortName(N.method[i]),
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
    return hitFlame(this.data.nodes, this.view(), rect.width, e.clientX - rect.left, e.clientY - rect.top);
  }

  onHover(e) {
    const n = this.hit(e);
    if (n < 0) {
      this.tip.hidden = true;
      return;
    }
    const N = this.data.nodes;
    const clock = state.clock === "cpu" ? "CPU" : "real";
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
