// Timeline thread rows: each row's label (checkbox, twisty, name, "only", busy time) and the
// stem of a deep thread (outer levels holding one call each), which a row starts below.

import { el } from "./dom.js";
import { fmtDuration } from "./format.js";
import { setThreads, state } from "./state.js";

export const COLLAPSED_DEPTH = 2; // levels shown by a compact thread row: 40 px, so 25 rows fit on 1000 px

/** The label of a laid-out row (`row`: {thread, y, h, full, skip, compact}); `busy(t)` is the
 * thread's time shown; `onTwisty(t)` opens or folds the row. */
export function threadLabel(row, busy, onTwisty) {
  const t = state.trace.threads[row.thread];
  const box = el("input", {
    type: "checkbox",
    title: "Include this thread in the profile, trees and flame graph",
    checked: !state.threads || state.threads.has(t.row),
    onchange: (e) => toggleThread(t.row, e.target.checked),
  });
  box.dataset.thread = String(t.row);
  let full = (t.name ?? t.label) + " (tid " + t.id + ")" + (t.main ? " · main thread" : "");
  if (row.skip) full += "\n" + row.skip + " outer levels with one call each are folded; ▸/▾ shows every level";
  const only = el("button", { class: "tl-only live-only", title: "Only this thread: aggregate the profile, trees and charts over it alone", onclick: () => setThreads(new Set([t.row])) }, "only");
  only.dataset.thread = String(t.row);
  return el(
    "div",
    { class: "tl-label" + (t.main ? " main" : "") + (state.threads && !state.threads.has(t.row) ? " off" : ""), style: `top:${row.y}px;height:${row.h}px`, title: full },
    box,
    el(
      "span",
      {
        class: "tl-twisty",
        title: row.full > COLLAPSED_DEPTH ? "Show every call level / only the outer ones" : "",
        onclick: () => onTwisty(t),
      },
      row.full > COLLAPSED_DEPTH || row.skip ? (row.compact || row.skip ? "▸" : "▾") : "",
    ),
    el("span", { class: "tl-name" }, String(t.label)),
    only,
    el("span", { class: "tl-busy" }, fmtDuration(busy(t))),
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
