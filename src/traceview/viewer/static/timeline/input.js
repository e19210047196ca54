// The timeline's input, as in Perfetto and Android Studio: the wheel (scroll the rows, zoom,
// pan), drags (a range, a pan, a zoom on the axis), a click (select the method, the call to
// step from), keys (W/A/S/D, 0, Enter, F, R, Esc) and hover (the call's tooltip). Each function
// takes the Timeline (timeline.js) it acts on; `listen` wires them to its canvases.

import { setRange, setThreads } from "../lib/state.js";
import { fillCallTip } from "./calltip.js";
import { PAD, STRIP } from "./painter.js";
import * as rowtools from "./rowtools.js";
import { tilesFor } from "./tiles.js";

/** Wire the timeline `tl`'s canvases, the window's drags and the document's keys to it. */
export function listen(tl) {
  tl.canvas.addEventListener("wheel", (e) => onWheel(tl, e), { passive: false });
  tl.canvas.addEventListener("mousedown", (e) => onDown(tl, e, "canvas"));
  tl.axis.addEventListener("mousedown", (e) => onDown(tl, e, "axis"));
  tl.axis.addEventListener("dblclick", () => tl.resetView());
  tl.canvas.addEventListener("mousemove", (e) => onHover(tl, e));
  tl.canvas.addEventListener("mouseleave", () => tl.hideTip());
  window.addEventListener("mousemove", (e) => onDrag(tl, e));
  window.addEventListener("mouseup", (e) => onUp(tl, e));
  document.addEventListener("keydown", (e) => onKey(tl, e));
}

/** As in Perfetto and Android Studio: the wheel scrolls the rows, Ctrl/⌘+wheel (and a
 * trackpad pinch, which arrives as Ctrl+wheel) zooms at the pointer, Shift+wheel or a
 * sideways wheel pans. */
function onWheel(tl, e) {
  e.preventDefault();
  const rect = tl.canvas.getBoundingClientRect();
  const x = e.clientX - rect.left;
  const px = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? tl.scroll.clientHeight : 1;
  if (!e.ctrlKey && !e.metaKey) {
    const sideways = e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY);
    if (sideways) {
      const d = ((e.deltaX || e.deltaY) * px * (tl.view[1] - tl.view[0])) / tl.width();
      tl.setView(tl.view[0] + d, tl.view[1] + d);
    } else if (!((e.altKey || x > tl.width() - 12) && rowtools.scrollRow(tl, e.clientY - rect.top, e.deltaY * px))) {
      tl.scroll.scrollTop += e.deltaY * px;
      tl.hideTip();
    }
    return;
  }
  const f = Math.exp(e.deltaY * px * 0.0025);
  const t = tl.t(x);
  tl.setView(t - (t - tl.view[0]) * f, t + (tl.view[1] - t) * f);
}

function onDown(tl, e, where) {
  if (e.button !== 0) return;
  const rect = (where === "axis" ? tl.axis : tl.canvas).getBoundingClientRect();
  const x = e.clientX - rect.left;
  const t = tl.t(x);
  // drag selects a range (Android Studio, Perfetto); Shift+drag pans. A report has no
  // ranges (it holds whole-trace answers only), so there a drag pans.
  let mode = tl.src.ranges() && !e.shiftKey ? "range" : "pan";
  if (where === "axis") mode = "zoom";
  tl.drag = { mode, x0: e.clientX, y0: e.clientY, t0: t, view: tl.view.slice(), moved: false, range: null, rect, alt: e.altKey };
  if (where === "canvas") tl.canvas.focus();
  e.preventDefault();
}

function onDrag(tl, e) {
  const d = tl.drag;
  if (!d) return;
  const dx = e.clientX - d.x0;
  if (Math.abs(dx) > 3 || Math.abs(e.clientY - d.y0) > 3) d.moved = true;
  if (!d.moved) return;
  if (d.mode === "pan") {
    const dt = (dx * (d.view[1] - d.view[0])) / tl.width();
    tl.setView(d.view[0] - dt, d.view[1] - dt);
    tl.scroll.scrollTop -= e.movementY || 0;
  } else {
    const t = tl.t(e.clientX - d.rect.left);
    d.range = [Math.min(d.t0, t), Math.max(d.t0, t)];
    tl.invalidate();
  }
}

function onUp(tl, e) {
  const d = tl.drag;
  if (!d) return;
  tl.drag = null;
  if (d.mode === "zoom" && d.moved && d.range) tl.setView(d.range[0], d.range[1]);
  else if (d.mode === "range" && d.moved && d.range) {
    if (d.alt) setThreads(new Set(rowtools.rowsBetween(tl, d.y0 - d.rect.top, e.clientY - d.rect.top)));
    setRange(d.range);
  }
  else if (!d.moved && d.mode !== "zoom") {
    const hit = hitTest(tl, e.clientX - d.rect.left, e.clientY - d.rect.top);
    tl.src.select(hit && hit.method !== undefined ? hit.method : -1);
    tl.steps.pick(hit);
  }
  tl.invalidate();
}

function onKey(tl, e) {
  if (!tl.root.offsetParent || e.ctrlKey || e.metaKey || e.altKey) return;
  const tag = e.target && e.target.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
  if (tl.single !== null && document.activeElement !== tl.canvas) return;
  const active = document.activeElement;
  if (active && active.closest && active.closest(".pt-scroll")) return; // keys of a table
  if (active === tl.spacer) return; // keys of the thread list
  if (tl.single === null && active && active.classList.contains("tl-canvas") && active !== tl.canvas) return;
  const [v0, v1] = tl.view;
  const w = v1 - v0;
  const k = e.key.toLowerCase();
  const mid = tl.hover ? tl.hover.t : (v0 + v1) / 2;
  if (k === "w" || k === "arrowup") tl.setView(mid - (mid - v0) * 0.7, mid + (v1 - mid) * 0.7);
  else if (k === "s" || k === "arrowdown") tl.setView(mid - (mid - v0) / 0.7, mid + (v1 - mid) / 0.7);
  else if (k === "a" || k === "arrowleft") tl.setView(v0 - w * 0.15, v1 - w * 0.15);
  else if (k === "d" || k === "arrowright") tl.setView(v0 + w * 0.15, v1 + w * 0.15);
  else if (k === "0") tl.resetView();
  else if (k === "enter" && (active === tl.canvas || active === document.body)) tl.steps.step(e.shiftKey ? -1 : 1).then((why) => tl.say(why));
  else if (k === "f") tl.steps.zoom();
  else if (k === "r") tl.steps.toRange();
  else if (k === "escape" && tl.src.range()) setRange(null);
  else return;
  e.preventDefault();
}

/** The strip under canvas point (x, y): {call, method, start, end} or {merged, count}. */
export function hitTest(tl, x, y) {
  const yy = y + tl.scroll.scrollTop;
  const row = tl.rows.find((r) => yy >= r.y && yy < r.y + r.h);
  if (!row) return null;
  const shown = Math.floor((yy - row.y - PAD) / STRIP);
  if (shown < 0 || shown >= row.depth) return null;
  const depth = shown + row.skip;
  const [s, e] = tl.span();
  const W = tl.width();
  const level = tl.level(W);
  const t = tl.t(x);
  const slack = (tl.view[1] - tl.view[0]) / W;
  const [k] = tilesFor(s, e, level, t, t);
  const tile = tl.tiles.tile(row.thread, level, k);
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

function onHover(tl, e) {
  if (tl.drag) return;
  const rect = tl.canvas.getBoundingClientRect();
  const x = e.clientX - rect.left;
  const hit = hitTest(tl, x, e.clientY - rect.top);
  tl.hover = { t: tl.t(x) };
  if (!hit) return tl.hideTip();
  const key = hit.merged ? "m" + hit.start : "c" + hit.call;
  if (tl.tipKey !== key) {
    tl.tipKey = key;
    const gen = ++tl.tipGen;
    fillCallTip(tl.tip, hit, tl.src.trace().time.start_us, () => gen === tl.tipGen, tl.src);
  }
  const rootRect = tl.root.getBoundingClientRect();
  let left = e.clientX - rootRect.left + 14;
  if (left + 340 > rootRect.width) left = Math.max(0, e.clientX - rootRect.left - 350);
  tl.tip.style.left = left + "px";
  tl.tip.style.top = e.clientY - rootRect.top + 16 + "px";
  tl.tip.hidden = false;
}
