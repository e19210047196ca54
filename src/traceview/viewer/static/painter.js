// Canvas painting of the timeline: strips and merged runs of LOD tiles, method highlight
// extents, frame-budget marks, the selected range and the time axis (no state of its own).

import { sizedContext } from "./dom.js";
import { fmtDuration, fmtTick, niceStep } from "./format.js";
import { isMatch, methodColor, shortName, state } from "./state.js";
import { faded, textColorOn } from "./theme.js";

export const STRIP = 15; // px per depth level
export const PAD = 3; // px above the strips
export const AXIS_H = 24;

export function drawFrames(tl, ctx, row, y, c) {
  const f = state.frames;
  if (!f || f.thread !== row.thread) return;
  const calls = f.calls;
  for (let i = 0; i < calls.start_us.length; i++) {
    const x0 = tl.x(calls.start_us[i]);
    const x1 = tl.x(calls.end_us[i]);
    if (x1 < 0 || x0 > tl.width()) continue;
    ctx.fillStyle = c.frameBg;
    ctx.fillRect(x0, y, Math.max(x1 - x0, 2), row.h);
    ctx.fillStyle = c.frame;
    ctx.fillRect(x0, y, Math.max(x1 - x0, 2), 2);
  }
}

export function drawTile(tl, ctx, tile, row, y, c, W) {
  const scale = W / (tl.view[1] - tl.view[0]);
  const v0 = tl.view[0];
  const m = tile.merged;
  ctx.fillStyle = c.merged;
  for (let i = 0; i < m.start.length; i++) {
    const md = m.depth[i] - row.skip;
    if (md < 0 || md >= row.depth) continue;
    const x0 = (m.start[i] - v0) * scale;
    const x1 = (m.end[i] - v0) * scale;
    if (x1 < 0 || x0 > W) continue;
    ctx.fillRect(x0, y + PAD + md * STRIP + 2, Math.max(x1 - x0, 1), STRIP - 5);
  }
  const r = tile.rects;
  const searching = state.matches !== null;
  const charW = c.charW;
  const hidden = []; // calls below a compact row's last level that are selected or found
  for (let i = 0; i < r.start.length; i++) {
    const d = r.depth[i] - row.skip; // the row's first level is below its folded stem
    if (d < 0) continue;
    if (d >= row.depth) {
      if (r.method[i] === state.selected || (searching && isMatch(r.method[i]))) hidden.push(i);
      continue;
    }
    let x0 = (r.start[i] - v0) * scale;
    let x1 = (r.end[i] - v0) * scale;
    if (x1 < 0 || x0 > W) continue;
    x0 = Math.max(x0, -2);
    x1 = Math.min(x1, W + 2);
    const w = Math.max(x1 - x0, 1);
    const yy = y + PAD + d * STRIP;
    const method = r.method[i];
    const col = methodColor(method);
    const dim = searching && !isMatch(method);
    ctx.fillStyle = dim ? faded(col) : col;
    ctx.fillRect(x0, yy, w, STRIP - 1);
    if (w > 3 && !dim) {
      ctx.fillStyle = c.edge;
      ctx.fillRect(x0 + w - 1, yy, 1, STRIP - 1);
    }
    if (method === state.selected) {
      ctx.strokeStyle = c.sel;
      ctx.lineWidth = 2;
      ctx.strokeRect(x0 + 1, yy + 1, Math.max(w - 2, 1), STRIP - 3);
    }
    if (w > 24) {
      const n = Math.floor((w - 6) / charW);
      if (n >= 3) {
        let text = shortName(method);
        if (text.length > n) text = text.slice(0, n - 1) + "…";
        ctx.fillStyle = dim ? c.dimText : textColorOn(col);
        ctx.fillText(text, Math.max(x0, 0) + 3, yy + STRIP / 2);
      }
    }
  }
  // marks on the last shown level: the hidden levels still say where the hits are
  const yy = y + PAD + row.depth * STRIP - 4;
  for (const i of hidden) {
    const x0 = (r.start[i] - v0) * scale;
    const x1 = (r.end[i] - v0) * scale;
    if (x1 < 0 || x0 > W) continue;
    ctx.fillStyle = r.method[i] === state.selected ? c.sel : c.found;
    ctx.fillRect(x0, yy, Math.max(x1 - x0, 2), 3);
  }
}

export function drawHighlight(tl, ctx, row, y, level, k0, k1, c) {
  ctx.fillStyle = c.sel;
  const yy = y + PAD + row.depth * STRIP + 1;
  for (let k = k0; k <= k1; k++) {
    const h = tl.tiles.highlight(state.selected, row.thread, level, k);
    if (!h) continue;
    for (let i = 0; i < h.start.length; i++) {
      const x0 = tl.x(h.start[i]);
      const x1 = tl.x(h.end[i]);
      if (x1 < 0 || x0 > tl.width()) continue;
      ctx.fillRect(x0, yy, Math.max(x1 - x0, 1.5), 3);
    }
  }
}

export function drawRange(tl, ctx, H, c) {
  const r = tl.drag && tl.drag.mode === "range" ? tl.drag.range : state.range;
  if (!r) return;
  const x0 = tl.x(r[0]);
  const x1 = tl.x(r[1]);
  ctx.fillStyle = c.shade;
  ctx.fillRect(0, 0, Math.max(0, x0), H);
  ctx.fillRect(x1, 0, Math.max(0, tl.width() - x1), H);
  ctx.fillStyle = c.rangeEdge;
  ctx.fillRect(x0, 0, 1, H);
  ctx.fillRect(x1, 0, 1, H);
}

export function drawAxis(tl, c) {
  const W = tl.width();
  const ctx = sizedContext(tl.axis, W, AXIS_H);
  ctx.fillStyle = c.axisBg;
  ctx.fillRect(0, 0, W, AXIS_H);
  const base = state.trace.time.start_us;
  const usPerPx = (tl.view[1] - tl.view[0]) / W;
  const step = niceStep(usPerPx, 100);
  ctx.font = c.font;
  ctx.textBaseline = "middle";
  ctx.fillStyle = c.text;
  const first = Math.ceil((tl.view[0] - base) / step) * step;
  for (let v = first; base + v <= tl.view[1]; v += step) {
    const x = Math.round(tl.x(base + v)) + 0.5;
    ctx.fillRect(x, AXIS_H - 7, 1, 7);
    ctx.fillText(fmtTick(v, step), x + 3, AXIS_H / 2 - 2);
  }
  const d = tl.drag;
  const r = d && (d.mode === "zoom" || d.mode === "range") ? d.range : state.range;
  if (r) {
    ctx.fillStyle = c.rangeFill;
    ctx.fillRect(tl.x(r[0]), 0, tl.x(r[1]) - tl.x(r[0]), AXIS_H);
  }
  tl.corner.textContent = fmtDuration(tl.view[1] - tl.view[0]) + " · " + axisName(state.trace);
  tl.corner.title = axisNote(state.trace);
  // a reconstructed axis is named on the axis itself, not only in the corner's few words
  const rebuilt = state.trace.timeline_axis === "reconstructed";
  tl.axisLabel.hidden = !rebuilt;
  if (rebuilt) {
    tl.axisLabel.textContent = "Axis reconstructed from record order";
    tl.axisLabel.title = axisNote(state.trace);
  }
}

/** A short note when tiles of this zoom are not available (a report holds only some). */
export function drawMissing(tl, ctx, W, note, c) {
  const text = note.startsWith("Not available") ? "Finer detail at this zoom is not precomputed in this report" : note;
  ctx.font = c.font;
  const w = ctx.measureText(text).width + 12;
  ctx.fillStyle = c.axisBg;
  ctx.globalAlpha = 0.92;
  ctx.fillRect(W - w - 6, 4, w, 18);
  ctx.globalAlpha = 1;
  ctx.fillStyle = c.text;
  ctx.fillText(text, W - w, 13);
}

/** What the time axis measures, in a few words. */
export function axisName(trace) {
  if (trace.timeline_axis === "reconstructed") return "reconstructed";
  if (trace.timeline_clock !== "cpu") return "wall";
  return "thread CPU";
}

/** The axis explained (the corner's tooltip). */
export function axisNote(trace) {
  if (trace.timeline_axis === "reconstructed") return "This trace records thread CPU time only (clock=thread-cpu). The axis is reconstructed from the order of records in the file: each record advances it by its own thread's CPU time since that thread's previous record, so threads line up in record order. Time off the CPU does not show; call times and ranges are measured on each thread's CPU clock.";
  if (trace.timeline_clock !== "cpu") return "Wall-clock time since the trace started";
  return "Thread CPU time";
}
