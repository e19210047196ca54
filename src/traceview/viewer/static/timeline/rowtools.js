// The timeline's thread rows by keyboard and by hand: the thread list as one Tab stop walked
// with the arrows, a capped deep row scrolled inside itself (Alt+wheel, or the wheel over its
// scrollbar at the right edge, or to show a call's level), the names' column widened by its grip, and the rows an Alt+drag crosses. Each
// function takes the Timeline (timeline.js) it acts on.

import { STRIP } from "./painter.js";

/** Scroll a capped row's levels so level `depth` of thread `thread` shows. */
export function showDepth(tl, thread, depth) {
  const row = tl.rows.find((r) => r.thread === thread);
  if (!row || !row.capped) return;
  const d = depth - row.fold;
  if (d >= row.offset && d < row.offset + row.depth) return;
  tl.offsets.set(thread, Math.max(0, d - Math.floor(row.depth / 2)));
  tl.layout();
}


/** The thread rows a drag from canvas y `a` to `b` crossed (Alt+drag: a range on them). */
export function rowsBetween(tl, a, b) {
  const top = Math.min(a, b) + tl.scroll.scrollTop;
  const bottom = Math.max(a, b) + tl.scroll.scrollTop;
  return tl.rows.filter((r) => r.y < bottom + 1 && r.y + r.h > top).map((r) => r.thread);
}

/** Scroll the levels of the capped row under canvas y by `dy` px; false when that row is
 * not capped or already at its end (the rows list scrolls instead). */
export function scrollRow(tl, y, dy) {
  const yy = y + tl.scroll.scrollTop;
  const row = tl.rows.find((r) => yy >= r.y && yy < r.y + r.h);
  if (!row || !row.capped || !dy) return false;
  const step = Math.sign(dy) * Math.max(1, Math.round(Math.abs(dy) / STRIP));
  const next = Math.max(0, Math.min(row.full - row.depth, row.offset + step));
  if (next === row.offset) return false;
  tl.offsets.set(row.thread, next);
  tl.hideTip();
  tl.layout();
  return true;
}

/** Keys of the thread list (one Tab stop): ↑/↓ move, Space includes or leaves out, O or
 * Enter keeps only this thread, → / ← show every level or fold the row. */
export function onListKey(tl, e) {
  if (!tl.rows.length) return;
  const n = tl.rows.length;
  let k = Math.min(tl.focusRow, n - 1);
  const t = tl.src.trace().threads[tl.rows[k].thread];
  const lab = tl.labels[k];
  if (e.key === "ArrowDown") k = Math.min(n - 1, k + 1);
  else if (e.key === "ArrowUp") k = Math.max(0, k - 1);
  else if (e.key === "Home") k = 0;
  else if (e.key === "End") k = n - 1;
  else if (e.key === " " || e.key === "o" || e.key === "O" || e.key === "Enter") {
    const control = lab.querySelector(e.key === " " ? "input" : ".tl-only"); // none on a compared side
    if (control && (e.key === " " || tl.src.ranges())) control.click();
  }
  else if (e.key === "ArrowRight" && !tl.isOpen(t)) tl.toggleOpen(t);
  else if (e.key === "ArrowLeft" && tl.isOpen(t)) tl.toggleOpen(t);
  else return;
  e.preventDefault();
  tl.focusRow = k;
  markFocus(tl);
  const row = tl.rows[k];
  const s = tl.scroll;
  if (row.y < s.scrollTop) s.scrollTop = row.y;
  else if (row.y + Math.min(row.h, s.clientHeight) > s.scrollTop + s.clientHeight) s.scrollTop = row.y + Math.min(row.h, s.clientHeight) - s.clientHeight;
}

/** The keyboard's row in the thread list, marked while the list has the focus. */
export function markFocus(tl) {
  const on = document.activeElement === tl.spacer;
  (tl.labels || []).forEach((lab, i) => lab.classList.toggle("focus", on && i === tl.focusRow));
}

/** Drag the grip at the names' right edge to widen or narrow them. */
export function dragLabels(tl, e) {
  e.preventDefault();
  const x0 = e.clientX;
  const w0 = tl.labelW;
  const move = (ev) => {
    tl.labelW = Math.max(120, Math.min(640, w0 + ev.clientX - x0));
    tl.spacer.style.width = tl.labelW + "px";
    tl.grip.style.left = tl.labelW - 3 + "px";
    tl.invalidate();
  };
  const up = () => {
    window.removeEventListener("mousemove", move);
    window.removeEventListener("mouseup", up);
  };
  window.addEventListener("mousemove", move);
  window.addEventListener("mouseup", up);
}
