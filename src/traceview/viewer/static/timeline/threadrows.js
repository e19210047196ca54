// Timeline thread rows: their order and heights (`layoutRows`), each row's label (checkbox,
// twisty, name, "only", busy time) and the stem of a deep thread (outer levels holding one
// call each), which a row starts below.

import { el } from "../lib/dom.js";
import { fmtDuration } from "../lib/format.js";
import { setThreads, state } from "../lib/state.js";
import { PAD, STRIP } from "./painter.js";

export const COLLAPSED_DEPTH = 2; // levels shown by a compact thread row: 40 px, so 25 rows fit on 1000 px
const HL = 5; // px under the strips for the highlight extents
const MAX_DEPTH = 200; // levels a row shows at most

/** A thread's busy time shown on its row (µs of `clock`, else of the clock it has). */
export function busyOn(clock) {
  return (t) => (clock === "cpu" ? t.cpu_us : t.wall_us) ?? t.wall_us ?? t.cpu_us ?? 0;
}

/** `threads` (/api/trace threads) in `sort` order ("name", "busy": the main thread, then by
 * `busy(t)`; else as in the file), a new array. */
export function sortedThreads(threads, sort, busy) {
  const order = [...threads];
  if (sort === "name") order.sort((a, b) => String(a.label).localeCompare(String(b.label)) || a.row - b.row);
  else if (sort === "busy") order.sort((a, b) => Number(b.main) - Number(a.main) || busy(b) - busy(a) || a.row - b.row);
  return order;
}

/** The rows of `threads` (/api/trace threads) in `sort` order ("name", "busy": the main
 * thread, then by `busy(t)`; else as in the file), stacked from y = 0: `{rows: [{thread, y, h,
 * depth, full, skip, compact, capped, offset}], height}`. `shape` holds what is known per
 * thread row (`depths`: levels seen, `stems`: the stem's levels, `expanded`: the twisty's
 * setting, `offsets`: the first level a capped row is scrolled to) and `cap`, the levels an
 * open row shows at most (a deeper row scrolls inside itself); `open(t)`: true when the row
 * shows every level rather than COLLAPSED_DEPTH. `skip` is the first level drawn (the folded
 * stem and the row's own scroll). */
export function layoutRows(threads, sort, busy, shape, open) {
  const order = sortedThreads(threads, sort, busy);
  const cap = Math.max(COLLAPSED_DEPTH, shape.cap || MAX_DEPTH);
  let y = 0;
  const rows = order.map((t) => {
    // a row starts below its stem (keeping the stem's last frame) unless opened by hand,
    // so the first levels shown are where the thread's time splits
    const stem = shape.stems.get(t.row) || 0;
    const fold = stem > 2 && shape.expanded.get(t.row) !== true ? stem - 1 : 0;
    const full = Math.max(1, Math.min(shape.depths.get(t.row) || 1, MAX_DEPTH) - fold);
    const depth = open(t) ? Math.min(full, cap) : Math.min(full, COLLAPSED_DEPTH);
    const capped = open(t) && full > cap;
    const offset = capped ? Math.max(0, Math.min((shape.offsets && shape.offsets.get(t.row)) || 0, full - depth)) : 0;
    const h = PAD + depth * STRIP + HL + 2;
    const row = { thread: t.row, y, h, depth, full, skip: fold + offset, fold, compact: !open(t) && depth < full, capped, offset };
    y += h;
    return row;
  });
  return { rows, height: y };
}

/** The number of depth levels a tile holds (rects and runs). */
export function tileDepth(tile) {
  let d = 0;
  for (const v of tile.rects.depth) if (v + 1 > d) d = v + 1;
  for (const v of tile.merged.depth) if (v + 1 > d) d = v + 1;
  return d;
}

/** The label of a laid-out row (`row`: {thread, y, h, full, skip, compact}); `busy(t)` is the
 * thread's time shown; `onTwisty(t, all)` opens or folds the row (`all`: Shift held, every
 * level, the folded stem too); `trace` the row's trace (default the shown one); `side` set
 * for the other side of a comparison (no thread picks there). */
export function threadLabel(row, busy, onTwisty, trace, side) {
  const t = (trace || state.trace).threads[row.thread];
  const box = side ? null : el("input", {
    type: "checkbox",
    title: "Include this thread in the profile, trees and flame graph",
    checked: !state.threads || state.threads.has(t.row),
    onchange: (e) => toggleThread(t.row, e.target.checked),
  });
  if (box) box.dataset.thread = String(t.row);
  let full = (t.name ?? t.label) + " (tid " + t.id + ")" + (t.main ? " · main thread" : "");
  if (row.fold) full += "\n" + row.fold + " outer levels with one call each are folded; the twisty shows every level";
  if (row.capped) full += "\n" + row.full + " levels: Alt+wheel (or the wheel at its right edge) scrolls its levels";
  if (box) box.tabIndex = -1; // the list is one Tab stop: arrows move inside it (timeline.js)
  const only = side ? null : el("button", { class: "tl-only live-only", tabindex: "-1", title: "Only this thread: aggregate the profile, trees and charts over it alone (key O)", onclick: () => setThreads(new Set([t.row])) }, "only");
  if (only) only.dataset.thread = String(t.row);
  return el(
    "div",
    { class: "tl-label" + (t.main ? " main" : "") + (!side && state.threads && !state.threads.has(t.row) ? " off" : ""), style: `top:${row.y}px;height:${row.h}px`, title: full },
    box,
    el(
      "span",
      {
        class: "tl-twisty",
        title: row.full > COLLAPSED_DEPTH || row.fold ? "Show every call level / only the outer ones (keys → / ←); Shift+click: the folded outer levels too" : "",
        onclick: (e) => onTwisty(t, e.shiftKey),
      },
      row.full > COLLAPSED_DEPTH || row.fold ? (row.compact ? "▸" : "▾") : "",
    ),
    el("span", { class: "tl-name" }, String(t.label)),
    only,
    el("span", { class: "tl-busy", title: "Busy time: " + (busy(t) ? fmtDuration(busy(t)) : "no calls") }, busy(t) ? fmtDuration(busy(t)) : "idle"),
  );
}

/** Include or leave out one thread (its checkbox). */
function toggleThread(row, on) {
  const all = state.trace.threads.map((t) => t.row);
  const set = new Set(state.threads || all);
  if (on) set.add(row);
  else set.delete(row);
  setThreads(set);
}

/** The number of outer levels of a whole-thread tile that hold exactly one call and no run
 * of short calls (the stem every Android main thread has: ZygoteInit.main … Looper.loop …),
 * stopping before the deepest level. */
export function stemOf(tile, depth) {
  const per = new Int32Array(depth + 1);
  for (const v of tile.rects.depth) per[v]++;
  for (const v of tile.merged.depth) per[v] += 2;
  let d = 0;
  while (d + 1 < depth && per[d] === 1) d++;
  return d;
}
