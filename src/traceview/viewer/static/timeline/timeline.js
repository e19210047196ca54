// Timeline panel: one canvas row per thread, calls as nested strips by depth drawn from LOD
// tiles, with zoom/pan/range selection, method highlight, find matches and frame markers. This
// holds the panel's state (rows, view, tiles) and its view maths; drawing.js paints it,
// input.js handles the wheel, drags, keys and hover, rowtools.js the thread list.

import { el, setChildren } from "../lib/dom.js";
import { on, state } from "../lib/state.js";
import { drawTimeline } from "./drawing.js";
import { listen } from "./input.js";
import { STRIP } from "./painter.js";
import { busyOn, layoutRows, stemOf, threadLabel, tileDepth } from "./threadrows.js";
import { shownSource } from "./source.js";
import { levelFor, TileCache } from "./tiles.js";
import * as rowtools from "./rowtools.js";
import { CallSteps } from "./steps.js";

const LABEL_W = 210; // px of the thread names' column at first (its grip resizes it)
const ROW_SHARE = 0.6; // an open row takes at most this share of the pane; deeper ones scroll

export class Timeline {
  /** `single`: show only that thread row (the flame chart); otherwise every thread.
   * `source`: where the data comes from (timeline/source.js; default the shown trace);
   * `onView(view)`: called when the user moves the view (compare mode links two timelines). */
  constructor(root, opts) {
    this.root = root;
    this.single = opts && opts.single !== undefined ? opts.single : null;
    this.src = (opts && opts.source) || shownSource();
    this.onView = (opts && opts.onView) || null;
    this.tiles = new TileCache((path, params, answer) => {
      // a thread's whole-trace tile says how deep its row is
      if (answer && path === "/api/timeline" && params.level === 0) this.learnDepth(params.thread, answer);
      this.invalidate();
    }, this.src.get);
    this.depths = new Map(); // thread row -> depth levels seen at level 0
    this.stems = new Map(); // thread row -> outer levels holding one call each (ZygoteInit.main …)
    this.expanded = new Map(); // thread row -> true (every level) / false (compact), set by hand
    this.offsets = new Map(); // thread row -> first level shown of a capped row (its own scroll)
    this.labelW = LABEL_W;
    this.focusRow = 0; // index into this.rows of the thread list's keyboard focus
    this.rows = [];
    this.view = [0, 1];
    this.sort = "busy";
    this.drag = null;
    this.hover = null;
    this.tipGen = 0;
    this.pending = false;
    this.steps = new CallSteps(this);
    this.build();
    on("trace", () => this.reset());
    for (const ev of ["select", "search", "frames", "theme"]) on(ev, () => this.invalidate());
    on("filter", () => {
      // busy times and order follow the clock; selected threads open
      if (this.clock !== state.clock || this.src.threads()) this.layout();
      this.syncChecks();
      this.invalidate();
    });
  }

  build() {
    this.root.classList.add("timeline");
    this.axis = el("canvas", { class: "tl-axis", title: "Drag to zoom to a range; double-click to show the whole trace" });
    this.canvas = el("canvas", { class: "tl-canvas", tabindex: "0" });
    this.spacer = el("div", { class: "tl-spacer", tabindex: "0", role: "listbox", "aria-label": "Threads: ↑/↓ move, Space includes, O only, →/← levels" });
    this.spacer.addEventListener("keydown", (e) => rowtools.onListKey(this, e));
    this.spacer.addEventListener("focus", () => rowtools.markFocus(this));
    this.grip = el("div", { class: "tl-grip", title: "Drag to widen the thread names" });
    this.grip.addEventListener("mousedown", (e) => rowtools.dragLabels(this, e));
    this.scroll = el("div", { class: "tl-scroll" }, this.spacer);
    this.tip = el("div", { class: "tooltip", hidden: true });
    this.corner = el("div", { class: "tl-corner" });
    this.axisLabel = el("span", { class: "tl-axislabel", hidden: true });
    this.body = el("div", { class: "tl-body" }, this.scroll, this.canvas, this.grip);
    setChildren(this.root, el("div", { class: "tl-axisrow" }, this.corner, this.axis, this.axisLabel), this.body, this.tip);
    this.scroll.addEventListener("scroll", () => this.invalidate());
    new ResizeObserver(() => (this.rowCap() !== this.cap && this.src.trace() ? this.layout() : this.invalidate())).observe(this.body);
    listen(this);
  }

  reset() {
    this.tiles.clear();
    this.depths.clear();
    this.stems.clear();
    this.expanded.clear();
    this.offsets.clear();
    this.scroll.scrollTop = 0;
    this.hideTip();
    this.resetView();
    this.layout();
  }

  setThread(row) {
    this.single = row;
    this.layout();
  }

  setSort(mode) {
    this.sort = mode;
    this.layout();
  }

  span() {
    const t = this.src.trace().time;
    return [t.start_us, Math.max(t.end_us, t.start_us + 1)];
  }

  resetView() {
    if (!this.src.trace()) return;
    this.view = this.span();
    this.invalidate();
    if (this.onView) this.onView(this.view);
  }

  /** Zoom to [t0, t1] (with a margin); with `thread`, scroll that thread's row into view. */
  zoomTo(t0, t1, thread) {
    const pad = (t1 - t0) * 0.05 || 1;
    this.setView(t0 - pad, t1 + pad);
    this.showThread(thread);
  }

  /** Scroll a capped row's levels so level `depth` of thread `thread` shows. */
  showDepth(thread, depth) {
    rowtools.showDepth(this, thread, depth);
  }

  /** A short note in the corner (why a step went nowhere), until the next change of view. */
  say(text) {
    this.said = text || "";
    this.invalidate();
  }

  /** Scroll thread `thread`'s row into view (when it is not). */
  showThread(thread) {
    const row = this.rows.find((r) => r.thread === thread);
    if (row) {
      const top = this.scroll.scrollTop;
      const h = this.scroll.clientHeight;
      if (row.y < top || row.y + Math.min(row.h, h) > top + h) this.scroll.scrollTop = row.y;
    }
  }

  setView(v0, v1) {
    this.hideTip();
    this.said = ""; // the strip under the pointer moves: a kept tooltip would describe another
    const [s, e] = this.span();
    const total = e - s;
    let w = Math.max(v1 - v0, Math.min(0.5, total));
    w = Math.min(w, total * 1.1);
    let a = v0 + (v1 - v0 - w) / 2;
    a = Math.max(s - total * 0.05, Math.min(a, e + total * 0.05 - w));
    this.view = [a, a + w];
    this.invalidate();
    if (this.onView) this.onView(this.view);
  }

  /** Show [v0, v1] as another timeline asks (no call back, no clamping to this trace). */
  follow(v0, v1) {
    this.hideTip();
    this.view = [v0, v1];
    this.invalidate();
  }

  /** Thread rows in display order with their y offset and height. */
  layout() {
    const trace = this.src.trace();
    if (!trace) return;
    this.clock = state.clock;
    const threads = trace.threads.filter((t) => this.single === null || t.row === this.single);
    const busy = busyOn(state.clock);
    const cap = (this.cap = this.rowCap());
    const shape = { depths: this.depths, stems: this.stems, expanded: this.expanded, offsets: this.offsets, cap };
    const { rows, height } = layoutRows(threads, this.sort, busy, shape, (t) => this.isOpen(t));
    this.rows = rows;
    this.spacer.style.height = height + "px";
    this.spacer.style.width = this.labelW + "px";
    this.grip.style.left = this.labelW - 3 + "px";
    this.labels = this.rows.map((r) => threadLabel(r, busy, (t, all) => this.toggleOpen(t, all), trace, this.src.side));
    setChildren(this.spacer, this.labels);
    rowtools.markFocus(this);
    this.invalidate(); // the rows in view ask for their whole-trace tile as they are drawn
  }

  /** The levels an open row shows at most: a share of the pane (a deeper row scrolls). */
  rowCap() {
    return Math.max(6, Math.floor(((this.body.clientHeight || 350) * ROW_SHARE) / STRIP));
  }

  /** A row shows every level when expanded, or by default for the main thread, the flame
   * chart's thread and threads picked with "only"/checkboxes (where the time goes). */
  isOpen(t) {
    if (this.expanded.has(t.row)) return this.expanded.get(t.row) !== false;
    if (this.single !== null) return true;
    const picked = this.src.threads();
    if (picked && picked.size <= 3) return picked.has(t.row);
    return Boolean(t.main);
  }

  /** The twisty: an open row folds to its outer levels, a compact one opens (its stem still
   * folded); `all` (Shift+click): every level, the stem too. */
  toggleOpen(t, all = false) {
    const stem = (this.stems.get(t.row) || 0) > 2;
    let next;
    if (all) next = true;
    else if (this.isOpen(t)) next = false;
    else next = stem ? "open" : true;
    this.expanded.set(t.row, next);
    this.layout();
  }

  syncChecks() {
    for (const lab of this.labels || []) {
      const box = lab.querySelector("input");
      if (!box) continue;
      box.checked = !state.threads || state.threads.has(Number(box.dataset.thread));
      lab.classList.toggle("off", !box.checked);
    }
  }

  learnDepth(thread, tile) {
    const d = tileDepth(tile);
    const stem = stemOf(tile, d);
    if (d !== (this.depths.get(thread) || 0) || stem !== (this.stems.get(thread) || 0)) {
      this.depths.set(thread, Math.max(d, 1));
      this.stems.set(thread, stem);
      this.layout();
    }
  }

  invalidate() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.draw();
    });
  }

  /** Canvas-area width in CSS px (the scroller's scrollbar stays uncovered). */
  width() {
    return Math.max(10, this.scroll.clientWidth - this.labelW);
  }

  x(t) {
    return ((t - this.view[0]) * this.width()) / (this.view[1] - this.view[0]);
  }

  /** The tiling level drawn at the current zoom over `W` px. */
  level(W) {
    const [s, e] = this.span();
    return levelFor(this.src.trace().tiles, e - s, this.view[1] - this.view[0], W);
  }

  /** The range shown: the one being dragged out, else the selection's. */
  shownRange() {
    const d = this.drag;
    return d && d.mode === "range" ? d.range : this.src.range();
  }

  t(x) {
    return this.view[0] + (x * (this.view[1] - this.view[0])) / this.width();
  }

  draw() {
    drawTimeline(this);
  }

  hideTip() {
    this.tip.hidden = true;
    this.tipKey = null;
    this.tipGen++; // a detail still loading is for a tip no longer shown
  }
}
