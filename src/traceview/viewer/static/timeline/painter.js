// Canvas painting of the timeline: strips and merged runs of LOD tiles, method highlight
// extents, frame-budget marks, the selected range and the time axis. Pure painting: each
// function draws what its arguments say on `ctx` (no DOM, no shared state). `vp` is the
// viewport {v0, v1, W}: the µs shown from x = 0 to x = W px; `c` the theme's colours.

import { fmtTick, niceStep } from "../lib/format.js";
import { faded, textColorOn } from "../lib/theme.js";

export const STRIP = 15; // px per depth level
export const PAD = 3; // px above the strips
export const AXIS_H = 24;

/** The x (px) of time `t` (µs) in viewport `vp`. */
export function xOf(vp, t) {
  return ((t - vp.v0) * vp.W) / (vp.v1 - vp.v0);
}

/** The frame-budget marks (`frames`: the /api/frames answer, or null) on `row` at `y`. */
export function drawFrames(ctx, vp, frames, row, y, c) {
  if (!frames || frames.thread !== row.thread) return;
  const calls = frames.calls;
  for (let i = 0; i < calls.start_us.length; i++) {
    const x0 = xOf(vp, calls.start_us[i]);
    const x1 = xOf(vp, calls.end_us[i]);
    if (x1 < 0 || x0 > vp.W) continue;
    ctx.fillStyle = c.frameBg;
    ctx.fillRect(x0, y, Math.max(x1 - x0, 2), row.h);
    ctx.fillStyle = c.frame;
    ctx.fillRect(x0, y, Math.max(x1 - x0, 2), 2);
  }
}

/** One tile's strips and runs on `row` at `y`. `look` says how methods look: `{selected}`
 * (a method row, -1 for none), `found(m)` (null when nothing is searched: no method is
 * dimmed), `color(m)` and `name(m)` (the strip's text). */
export function drawTile(ctx, vp, tile, row, y, c, look) {
  const W = vp.W;
  const scale = W / (vp.v1 - vp.v0);
  const v0 = vp.v0;
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
  const searching = look.found !== null;
  const charW = c.charW;
  const hidden = []; // calls below a compact row's last level that are selected or found
  for (let i = 0; i < r.start.length; i++) {
    const d = r.depth[i] - row.skip; // the row's first level is below its folded stem
    if (d < 0) continue;
    if (d >= row.depth) {
      if (r.method[i] === look.selected || (searching && look.found(r.method[i]))) hidden.push(i);
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
    const col = look.color(method);
    const dim = searching && !look.found(method);
    ctx.fillStyle = dim ? faded(col, c.bg) : col;
    ctx.fillRect(x0, yy, w, STRIP - 1);
    if (w > 3 && !dim) {
      ctx.fillStyle = c.edge;
      ctx.fillRect(x0 + w - 1, yy, 1, STRIP - 1);
    }
    if (method === look.selected) {
      ctx.strokeStyle = c.sel;
      ctx.lineWidth = 2;
      ctx.strokeRect(x0 + 1, yy + 1, Math.max(w - 2, 1), STRIP - 3);
    }
    if (w > 24) {
      const n = Math.floor((w - 6) / charW);
      if (n >= 3) {
        let text = look.name(method);
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
    ctx.fillStyle = r.method[i] === look.selected ? c.sel : c.found;
    ctx.fillRect(x0, yy, Math.max(x1 - x0, 2), 3);
  }
}

/** The selected method's extents (/api/highlight answers, null while loading) under `row`. */
export function drawHighlight(ctx, vp, extents, row, y, c) {
  ctx.fillStyle = c.sel;
  const yy = y + PAD + row.depth * STRIP + 1;
  for (const h of extents) {
    if (!h) continue;
    for (let i = 0; i < h.start.length; i++) {
      const x0 = xOf(vp, h.start[i]);
      const x1 = xOf(vp, h.end[i]);
      if (x1 < 0 || x0 > vp.W) continue;
      ctx.fillRect(x0, yy, Math.max(x1 - x0, 1.5), 3);
    }
  }
}

/** The time range `r` ([t0, t1] µs, or null): the rest shaded over the `H` px high rows. */
export function drawRange(ctx, vp, r, H, c) {
  if (!r) return;
  const x0 = xOf(vp, r[0]);
  const x1 = xOf(vp, r[1]);
  ctx.fillStyle = c.shade;
  ctx.fillRect(0, 0, Math.max(0, x0), H);
  ctx.fillRect(x1, 0, Math.max(0, vp.W - x1), H);
  ctx.fillStyle = c.rangeEdge;
  ctx.fillRect(x0, 0, 1, H);
  ctx.fillRect(x1, 0, 1, H);
}

/** The time axis: ticks labelled from `base` (the trace's start, µs) and the range `r` (or
 * null) marked, on an axis canvas `vp.W` × AXIS_H px. */
export function drawAxis(ctx, vp, base, r, c) {
  const W = vp.W;
  ctx.fillStyle = c.axisBg;
  ctx.fillRect(0, 0, W, AXIS_H);
  const usPerPx = (vp.v1 - vp.v0) / W;
  const step = niceStep(usPerPx, 100);
  ctx.font = c.font;
  ctx.textBaseline = "middle";
  ctx.fillStyle = c.text;
  const first = Math.ceil((vp.v0 - base) / step) * step;
  for (let v = first; base + v <= vp.v1; v += step) {
    const x = Math.round(xOf(vp, base + v)) + 0.5;
    ctx.fillRect(x, AXIS_H - 7, 1, 7);
    ctx.fillText(fmtTick(v, step), x + 3, AXIS_H / 2 - 2);
  }
  if (r) {
    ctx.fillStyle = c.rangeFill;
    ctx.fillRect(xOf(vp, r[0]), 0, xOf(vp, r[1]) - xOf(vp, r[0]), AXIS_H);
  }
}

/** A short note when tiles of this zoom are not available (a report holds only some). */
export function drawMissing(ctx, W, note, c) {
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
