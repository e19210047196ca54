// Timeline panel: one canvas row per thread, calls as nested strips by depth drawn from LOD
// tiles, with zoom/pan/range selection, method highlight, find matches and frame markers.

import { el, setChildren, sizedContext } from "../lib/dom.js";
import { axisName, axisNote, fmtDuration } from "../lib/format.js";
import { on, setRange, setThreads, state } from "../lib/state.js";
import { colors } from "../lib/theme.js";
import { fillCallTip } from "./calltip.js";
import { AXIS_H, drawAxis, drawFrames, drawHighlight, drawMissing, drawRange, drawTile, PAD, STRIP } from "./painter.js";
import { busyOn, layoutRows, stemOf, threadLabel, tileDepth } from "./threadrows.js";
import { shownSource } from "./source.js";
import { levelFor, TileCache, tilesFor } from "./tiles.js";
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
    this.canvas.addEventListener("wheel", (e) => this.onWheel(e), { passive: false });
    this.canvas.addEventListener("mousedown", (e) => this.onDown(e, "canvas"));
    this.axis.addEventListener("mousedown", (e) => this.onDown(e, "axis"));
    this.axis.addEventListener("dblclick", () => this.resetView());
    this.canvas.addEventListener("mousemove", (e) => this.onHover(e));
    this.canvas.addEventListener("mouseleave", () => this.hideTip());
    window.addEventListener("mousemove", (e) => this.onDrag(e));
    window.addEventListener("mouseup", (e) => this.onUp(e));
    document.addEventListener("keydown", (e) => this.onKey(e));
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
    if (!this.src.trace() || !this.root.offsetParent) return;
    const W = this.width();
    const H = Math.max(10, this.body.clientHeight);
    this.canvas.style.left = this.labelW + "px";
    const ctx = sizedContext(this.canvas, W, H);
    const c = colors();
    ctx.fillStyle = c.bg;
    ctx.fillRect(0, 0, W, H);
    const [s, e] = this.span();
    const level = this.level(W);
    const [k0, k1] = tilesFor(s, e, level, this.view[0], this.view[1]);
    const vp = { v0: this.view[0], v1: this.view[1], W };
    const selected = this.src.selected();
    const look = { selected, found: this.src.found(), color: this.src.color, name: this.src.name };
    const top = this.scroll.scrollTop;
    ctx.font = c.font;
    ctx.textBaseline = "middle";
    let missing = null;
    let cut = false;
    for (const [i, row] of this.rows.entries()) {
      const y = row.y - top;
      // keep the thread name in view while a tall row is scrolled past its top
      const lab = this.labels[i];
      const shift = y < 0 ? Math.min(-y, row.h - 18) : 0;
      if (lab && lab.dataset.shift !== String(shift)) {
        lab.dataset.shift = String(shift);
        lab.style.paddingTop = 2 + shift + "px";
      }
      if (y > H || y + row.h < 0) continue;
      ctx.fillStyle = i % 2 ? c.alt : c.bg;
      ctx.fillRect(0, y, W, row.h);
      drawFrames(ctx, vp, this.src.frames(), row, y, c);
      // until a thread's whole-trace tile says how deep it is, its row's height (and so which
      // rows are in view) is not known: ask for nothing finer yet
      // (asked here, for the rows in view only: 200 threads' tiles at once took seconds)
      if (!this.depths.has(row.thread) && !this.tiles.failure(row.thread, 0, 0)) {
        this.tiles.tile(row.thread, 0, 0);
        continue;
      }
      const done = new Set();
      for (let k = k0; k <= k1; k++) {
        const tile = this.tiles.tile(row.thread, level, k);
        if (!missing) missing = this.tiles.failure(row.thread, level, k);
        if (!tile || done.has(tile)) continue;
        done.add(tile);
        if (tile.truncated) cut = true;
        drawTile(ctx, vp, tile, row, y, c, look);
      }
      if (selected >= 0) {
        const extents = [];
        for (let k = k0; k <= k1; k++) extents.push(this.tiles.highlight(selected, row.thread, level, k));
        drawHighlight(ctx, vp, extents, row, y, c);
      }
      const at = this.steps.call;
      if (at && at.thread === row.thread && at.depth !== undefined) {
        const d = at.depth - row.skip;
        if (d >= 0 && d < row.depth) {
          const x0 = this.x(at.start_us);
          ctx.strokeStyle = c.sel;
          ctx.lineWidth = 2;
          ctx.strokeRect(x0 - 1, y + PAD + d * STRIP - 1, Math.max(this.x(at.end_us) - x0, 1) + 2, STRIP + 1);
        }
      }
      if (row.capped) {
        // a capped row's own scrollbar: which of its levels show
        const track = row.depth * STRIP;
        ctx.fillStyle = c.grid;
        ctx.fillRect(W - 5, y + PAD, 4, track);
        ctx.fillStyle = c.dimText;
        ctx.fillRect(W - 5, y + PAD + (row.offset / row.full) * track, 4, Math.max(6, (row.depth / row.full) * track));
      }
      ctx.fillStyle = c.grid;
      ctx.fillRect(0, y + row.h - 1, W, 1);
    }
    drawRange(ctx, vp, this.shownRange(), H, c);
    if (missing) drawMissing(ctx, W, missing, c);
    else if (cut) drawMissing(ctx, W, "Some deep calls are left out at this zoom: zoom in to see them", c);
    this.drawAxisRow(vp, c);
  }

  /** The axis canvas (the range being dragged, zoomed to or selected marked), the corner's
   * view length and axis name, and the label of a reconstructed axis. */
  drawAxisRow(vp, c) {
    const d = this.drag;
    const r = d && (d.mode === "zoom" || d.mode === "range") ? d.range : this.src.range();
    const trace = this.src.trace();
    drawAxis(sizedContext(this.axis, vp.W, AXIS_H), vp, trace.time.start_us, r, c);
    const where = this.said || this.steps.where();
    this.corner.textContent = (where ? where + " · " : "") + fmtDuration(vp.v1 - vp.v0) + " · " + axisName(trace);
    this.corner.title = axisNote(trace);
    // a reconstructed axis is named on the axis itself, not only in the corner's few words
    const rebuilt = trace.timeline_axis === "reconstructed";
    this.axisLabel.hidden = !rebuilt;
    this.axisLabel.parentNode.classList.toggle("rebuilt", rebuilt); // a line of its own under the ticks
    if (rebuilt) {
      this.axisLabel.textContent = "Axis reconstructed from record order";
      this.axisLabel.title = axisNote(trace);
    }
  }

  /** As in Perfetto and Android Studio: the wheel scrolls the rows, Ctrl/⌘+wheel (and a
   * trackpad pinch, which arrives as Ctrl+wheel) zooms at the pointer, Shift+wheel or a
   * sideways wheel pans. */
  onWheel(e) {
    e.preventDefault();
    const rect = this.canvas.getBoundingClientRect();
    const x = e.clientX - rect.left;
    const px = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? this.scroll.clientHeight : 1;
    if (!e.ctrlKey && !e.metaKey) {
      const sideways = e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY);
      if (sideways) {
        const d = ((e.deltaX || e.deltaY) * px * (this.view[1] - this.view[0])) / this.width();
        this.setView(this.view[0] + d, this.view[1] + d);
      } else if (!((e.altKey || x > this.width() - 12) && rowtools.scrollRow(this, e.clientY - rect.top, e.deltaY * px))) {
        this.scroll.scrollTop += e.deltaY * px;
        this.hideTip();
      }
      return;
    }
    const f = Math.exp(e.deltaY * px * 0.0025);
    const t = this.t(x);
    this.setView(t - (t - this.view[0]) * f, t + (this.view[1] - t) * f);
  }

  onDown(e, where) {
    if (e.button !== 0) return;
    const rect = (where === "axis" ? this.axis : this.canvas).getBoundingClientRect();
    const x = e.clientX - rect.left;
    const t = this.t(x);
    // drag selects a range (Android Studio, Perfetto); Shift+drag pans. A report has no
    // ranges (it holds whole-trace answers only), so there a drag pans.
    let mode = this.src.ranges() && !e.shiftKey ? "range" : "pan";
    if (where === "axis") mode = "zoom";
    this.drag = { mode, x0: e.clientX, y0: e.clientY, t0: t, view: this.view.slice(), moved: false, range: null, rect, alt: e.altKey };
    if (where === "canvas") this.canvas.focus();
    e.preventDefault();
  }

  onDrag(e) {
    const d = this.drag;
    if (!d) return;
    const dx = e.clientX - d.x0;
    if (Math.abs(dx) > 3 || Math.abs(e.clientY - d.y0) > 3) d.moved = true;
    if (!d.moved) return;
    if (d.mode === "pan") {
      const dt = (dx * (d.view[1] - d.view[0])) / this.width();
      this.setView(d.view[0] - dt, d.view[1] - dt);
      this.scroll.scrollTop -= e.movementY || 0;
    } else {
      const t = this.t(e.clientX - d.rect.left);
      d.range = [Math.min(d.t0, t), Math.max(d.t0, t)];
      this.invalidate();
    }
  }

  onUp(e) {
    const d = this.drag;
    if (!d) return;
    this.drag = null;
    if (d.mode === "zoom" && d.moved && d.range) this.setView(d.range[0], d.range[1]);
    else if (d.mode === "range" && d.moved && d.range) {
      if (d.alt) setThreads(new Set(rowtools.rowsBetween(this, d.y0 - d.rect.top, e.clientY - d.rect.top)));
      setRange(d.range);
    }
    else if (!d.moved && d.mode !== "zoom") {
      const hit = this.hitTest(e.clientX - d.rect.left, e.clientY - d.rect.top);
      this.src.select(hit && hit.method !== undefined ? hit.method : -1);
      this.steps.pick(hit);
    }
    this.invalidate();
  }

  onKey(e) {
    if (!this.root.offsetParent || e.ctrlKey || e.metaKey || e.altKey) return;
    const tag = e.target && e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    if (this.single !== null && document.activeElement !== this.canvas) return;
    const active = document.activeElement;
    if (active && active.closest && active.closest(".pt-scroll")) return; // keys of a table
    if (active === this.spacer) return; // keys of the thread list
    if (this.single === null && active && active.classList.contains("tl-canvas") && active !== this.canvas) return;
    const [v0, v1] = this.view;
    const w = v1 - v0;
    const k = e.key.toLowerCase();
    const mid = this.hover ? this.hover.t : (v0 + v1) / 2;
    if (k === "w" || k === "arrowup") this.setView(mid - (mid - v0) * 0.7, mid + (v1 - mid) * 0.7);
    else if (k === "s" || k === "arrowdown") this.setView(mid - (mid - v0) / 0.7, mid + (v1 - mid) / 0.7);
    else if (k === "a" || k === "arrowleft") this.setView(v0 - w * 0.15, v1 - w * 0.15);
    else if (k === "d" || k === "arrowright") this.setView(v0 + w * 0.15, v1 + w * 0.15);
    else if (k === "0") this.resetView();
    else if (k === "enter" && (active === this.canvas || active === document.body)) this.steps.step(e.shiftKey ? -1 : 1).then((why) => this.say(why));
    else if (k === "f") this.steps.zoom();
    else if (k === "r") this.steps.toRange();
    else if (k === "escape" && this.src.range()) setRange(null);
    else return;
    e.preventDefault();
  }

  /** The strip under canvas point (x, y): {call, method, start, end} or {merged, count}. */
  hitTest(x, y) {
    const yy = y + this.scroll.scrollTop;
    const row = this.rows.find((r) => yy >= r.y && yy < r.y + r.h);
    if (!row) return null;
    const shown = Math.floor((yy - row.y - PAD) / STRIP);
    if (shown < 0 || shown >= row.depth) return null;
    const depth = shown + row.skip;
    const [s, e] = this.span();
    const W = this.width();
    const level = this.level(W);
    const t = this.t(x);
    const slack = (this.view[1] - this.view[0]) / W;
    const [k] = tilesFor(s, e, level, t, t);
    const tile = this.tiles.tile(row.thread, level, k);
    if (!tile) return null;
    const r = tile.rects;
    let best = null;
    for (let i = 0; i < r.start.length; i++) {
      if (r.depth[i] !== depth || r.start[i] > t + slack || r.end[i] < t - slack) continue;
      if (!best || r.end[i] - r.start[i] < best.end - best.start) {
        best = { call: r.call[i], method: r.method[i], start: r.start[i], end: r.end[i], thread: row.thread, depth };
      }
    }
    if (best) return best;
    const m = tile.merged;
    for (let i = 0; i < m.start.length; i++) {
      if (m.depth[i] === depth && m.start[i] <= t + slack && m.end[i] >= t - slack) {
        return { merged: true, count: m.count[i], start: m.start[i], end: m.end[i], thread: row.thread };
      }
    }
    return null;
  }

  onHover(e) {
    if (this.drag) return;
    const rect = this.canvas.getBoundingClientRect();
    const x = e.clientX - rect.left;
    const hit = this.hitTest(x, e.clientY - rect.top);
    this.hover = { t: this.t(x) };
    if (!hit) return this.hideTip();
    const key = hit.merged ? "m" + hit.start : "c" + hit.call;
    if (this.tipKey !== key) {
      this.tipKey = key;
      const gen = ++this.tipGen;
      fillCallTip(this.tip, hit, this.src.trace().time.start_us, () => gen === this.tipGen, this.src);
    }
    const rootRect = this.root.getBoundingClientRect();
    let left = e.clientX - rootRect.left + 14;
    if (left + 340 > rootRect.width) left = Math.max(0, e.clientX - rootRect.left - 350);
    this.tip.style.left = left + "px";
    this.tip.style.top = e.clientY - rootRect.top + 16 + "px";
    this.tip.hidden = false;
  }

  hideTip() {
    this.tip.hidden = true;
    this.tipKey = null;
    this.tipGen++; // a detail still loading is for a tip no longer shown
  }
}
