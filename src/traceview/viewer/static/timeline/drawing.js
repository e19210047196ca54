// The timeline's painting, one frame at a time: each thread row in view (its stripe, frame
// markers, the calls of the tiles at the zoom's level, the selected method's extents, the call
// stepped to, a capped row's own scrollbar), the range, what is missing, then the axis row.
// Each function takes the Timeline (timeline.js) it paints; painter.js draws the pieces.

import { sizedContext } from "../lib/dom.js";
import { axisName, axisNote, fmtDuration } from "../lib/format.js";
import { colors } from "../lib/theme.js";
import { AXIS_H, drawAxis, drawFrames, drawHighlight, drawMissing, drawRange, drawTile, PAD, STRIP } from "./painter.js";
import { tilesFor } from "./tiles.js";

/** Paint the timeline `tl` as it is now (nothing while it has no trace or is hidden). */
export function drawTimeline(tl) {
  if (!tl.src.trace() || !tl.root.offsetParent) return;
  const W = tl.width();
  const H = Math.max(10, tl.body.clientHeight);
  tl.canvas.style.left = tl.labelW + "px";
  const ctx = sizedContext(tl.canvas, W, H);
  const c = colors();
  ctx.fillStyle = c.bg;
  ctx.fillRect(0, 0, W, H);
  const [s, e] = tl.span();
  const level = tl.level(W);
  const [k0, k1] = tilesFor(s, e, level, tl.view[0], tl.view[1]);
  const vp = { v0: tl.view[0], v1: tl.view[1], W };
  const selected = tl.src.selected();
  const look = { selected, found: tl.src.found(), color: tl.src.color, name: tl.src.name };
  const top = tl.scroll.scrollTop;
  ctx.font = c.font;
  ctx.textBaseline = "middle";
  let missing = null;
  let cut = false;
  for (const [i, row] of tl.rows.entries()) {
    const y = row.y - top;
    // keep the thread name in view while a tall row is scrolled past its top
    const lab = tl.labels[i];
    const shift = y < 0 ? Math.min(-y, row.h - 18) : 0;
    if (lab && lab.dataset.shift !== String(shift)) {
      lab.dataset.shift = String(shift);
      lab.style.paddingTop = 2 + shift + "px";
    }
    if (y > H || y + row.h < 0) continue;
    ctx.fillStyle = i % 2 ? c.alt : c.bg;
    ctx.fillRect(0, y, W, row.h);
    drawFrames(ctx, vp, tl.src.frames(), row, y, c);
    // until a thread's whole-trace tile says how deep it is, its row's height (and so which
    // rows are in view) is not known: ask for nothing finer yet
    // (asked here, for the rows in view only: 200 threads' tiles at once took seconds)
    if (!tl.depths.has(row.thread) && !tl.tiles.failure(row.thread, 0, 0)) {
      tl.tiles.tile(row.thread, 0, 0);
      continue;
    }
    const done = new Set();
    for (let k = k0; k <= k1; k++) {
      const tile = tl.tiles.tile(row.thread, level, k);
      if (!missing) missing = tl.tiles.failure(row.thread, level, k);
      if (!tile || done.has(tile)) continue;
      done.add(tile);
      if (tile.truncated) cut = true;
      drawTile(ctx, vp, tile, row, y, c, look);
    }
    if (selected >= 0) {
      const extents = [];
      for (let k = k0; k <= k1; k++) extents.push(tl.tiles.highlight(selected, row.thread, level, k));
      drawHighlight(ctx, vp, extents, row, y, c);
    }
    const at = tl.steps.call;
    if (at && at.thread === row.thread && at.depth !== undefined) {
      const d = at.depth - row.skip;
      if (d >= 0 && d < row.depth) {
        const x0 = tl.x(at.start_us);
        ctx.strokeStyle = c.sel;
        ctx.lineWidth = 2;
        ctx.strokeRect(x0 - 1, y + PAD + d * STRIP - 1, Math.max(tl.x(at.end_us) - x0, 1) + 2, STRIP + 1);
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
  drawRange(ctx, vp, tl.shownRange(), H, c);
  if (missing) drawMissing(ctx, W, missing, c);
  else if (cut) drawMissing(ctx, W, "Some deep calls are left out at this zoom: zoom in to see them", c);
  drawAxisRow(tl, vp, c);
}

/** The axis canvas (the range being dragged, zoomed to or selected marked), the corner's
 * view length and axis name, and the label of a reconstructed axis. */
function drawAxisRow(tl, vp, c) {
  const d = tl.drag;
  const r = d && (d.mode === "zoom" || d.mode === "range") ? d.range : tl.src.range();
  const trace = tl.src.trace();
  drawAxis(sizedContext(tl.axis, vp.W, AXIS_H), vp, trace.time.start_us, r, c);
  const where = tl.said || tl.steps.where();
  tl.corner.textContent = (where ? where + " · " : "") + fmtDuration(vp.v1 - vp.v0) + " · " + axisName(trace);
  tl.corner.title = axisNote(trace);
  // a reconstructed axis is named on the axis itself, not only in the corner's few words
  const rebuilt = trace.timeline_axis === "reconstructed";
  tl.axisLabel.hidden = !rebuilt;
  tl.axisLabel.parentNode.classList.toggle("rebuilt", rebuilt); // a line of its own under the ticks
  if (rebuilt) {
    tl.axisLabel.textContent = "Axis reconstructed from record order";
    tl.axisLabel.title = axisNote(trace);
  }
}
