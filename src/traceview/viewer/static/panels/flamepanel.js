// The flame panel both flame views are (the Flame Chart, flame.js, and compare mode's
// differential flame graph, diffflame.js): one load cycle, the canvas painted with
// flamepaint.js over a zoom window, the hover tip, click to select and double-click to zoom.
// A subclass says what to ask for and supplies what differs: its bar, how a node looks, what
// its tip says and what a click selects.

import * as api from "../lib/api.js";
import { el, note, setChildren, sizedContext } from "../lib/dom.js";
import { on } from "../lib/state.js";
import { colors, faded } from "../lib/theme.js";
import { flameHeight, hitFlame, paintFlame } from "./flamepaint.js";
import { PanelLoad } from "./load.js";

export class FlamePanel {
  /** A panel in `root`; `tipWidth`: px its tooltip takes (it goes left of the pointer when it
   * would not fit on the right). The subclass builds its bar, then calls `mount(bar)`, and
   * defines request(), loaded(data), look(N, c), tipLines(n) and selectAt(n). */
  constructor(root, tipWidth) {
    this.root = root;
    this.data = null;
    this.zoom = null; // [x0, x1] on the nodes' axis, null: the whole graph
    this.tipWidth = tipWidth;
    this.loader = new PanelLoad(root, () => this.request(), {
      started: () => setChildren(this.msg, note("loading…")),
      loaded: (data) => {
        this.data = data;
        this.zoom = null;
        setChildren(this.msg);
        this.loaded(data);
        this.draw();
      },
      failed: (err) => {
        this.data = null;
        setChildren(this.msg, note(api.failureNote(err)));
        this.draw();
      },
    });
    root.classList.add("flame");
    this.info = el("span", { class: "muted" });
    this.canvas = el("canvas", { class: "fl-canvas" });
    this.msg = el("div", { class: "fl-msg" });
    this.tip = el("div", { class: "tooltip", hidden: true });
    this.area = el("div", { class: "fl-area" }, this.canvas, this.msg);
    this.area.addEventListener("scroll", () => this.draw());
    new ResizeObserver(() => this.draw()).observe(this.area);
    this.canvas.addEventListener("mousemove", (e) => this.onHover(e));
    this.canvas.addEventListener("mouseleave", () => (this.tip.hidden = true));
    this.canvas.addEventListener("click", (e) => this.selectAt(this.hit(e)));
    this.canvas.addEventListener("mousedown", (e) => e.detail > 1 && e.preventDefault()); // no text selected
    this.canvas.addEventListener("dblclick", (e) => {
      const n = this.hit(e);
      const N = this.shown();
      if (n >= 0) this.setZoom([N.x[n], N.x[n] + N.width[n]]);
    });
    on("filter", () => this.invalidate());
    for (const ev of ["select", "theme"]) on(ev, () => this.draw());
  }

  /** Put the subclass's `bar` above the canvas. */
  mount(bar) {
    setChildren(this.root, bar, this.area, this.tip);
  }

  /** Mark the data stale; it is fetched now if shown, else when the view is next shown. */
  invalidate() {
    this.loader.invalidate();
  }

  show() {
    if (!this.loader.show()) this.draw();
  }

  /** Zoom to the window `z` ([x0, x1], null: the whole graph). */
  setZoom(z) {
    this.zoom = z;
    this.draw();
  }

  /** The nodes drawn. */
  shown() {
    return this.data.nodes;
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
    if (!N.x.length) {
      setChildren(this.msg, note("No calls in this selection."));
      return;
    }
    paintFlame(ctx, N, this.view(), W, { c, faded: (col) => faded(col, c.bg), ...this.look(N, c) });
  }

  /** The node under the pointer event `e`, or -1. */
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
    setChildren(this.tip, ...this.tipLines(n));
    const r = this.root.getBoundingClientRect();
    let left = e.clientX - r.left + 14;
    if (left + this.tipWidth > r.width) left = Math.max(0, e.clientX - r.left - this.tipWidth - 10);
    this.tip.style.left = left + "px";
    this.tip.style.top = e.clientY - r.top + 14 + "px";
    this.tip.hidden = false;
  }
}
