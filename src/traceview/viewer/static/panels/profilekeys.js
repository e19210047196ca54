// The profile table by keyboard and by hand: a cursor over every row that leads somewhere
// (methods, their parents and children), Enter to open or jump, and columns resized by
// dragging their header's grip. Each function takes the ProfileTable (profile.js).

import { select, state } from "../lib/state.js";

const ROW_H = 20;

/** Resize column `key` by dragging its header's grip. */
export function dragColumn(t, e, key, cell) {
  e.preventDefault();
  e.stopPropagation();
  const x0 = e.clientX;
  const w0 = cell.getBoundingClientRect().width;
  const move = (ev) => {
    t.colW[key] = Math.max(40, Math.round(w0 + ev.clientX - x0));
    t.template = t.columns().map((c) => (t.colW[c[0]] ? t.colW[c[0]] + "px" : c[2])).join(" ");
    t.head.style.gridTemplateColumns = t.template;
    t.render();
  };
  const up = () => {
    window.removeEventListener("mousemove", move);
    window.removeEventListener("mouseup", up);
  };
  window.addEventListener("mousemove", move);
  window.addEventListener("mouseup", up);
}

/** Put the cursor on item `k` (a method row selects its method) and keep it in view. */
export function moveTo(t, k) {
  if (k < 0 || k >= t.items.length) return;
  t.cursor = k;
  const it = t.items[k];
  const y = k * ROW_H + t.head.offsetHeight;
  const s = t.scroll;
  if (y < s.scrollTop + t.head.offsetHeight) s.scrollTop = y - t.head.offsetHeight;
  else if (y + ROW_H > s.scrollTop + s.clientHeight) s.scrollTop = y + ROW_H - s.clientHeight;
  if (it.type === "method") select(it.m);
  t.render();
}

/** The next row from `k` in direction `dir` that a key can land on (methods, parents, children). */
export function step(t, k, dir) {
  for (let j = k + dir; j >= 0 && j < t.items.length; j += dir) if (t.items[j].type === "method" || t.items[j].type === "rel") return j;
  return k;
}

export function onKey(t, e) {
  if (t.cursor === undefined || t.items[t.cursor] === undefined || (t.items[t.cursor].type === "method" && t.items[t.cursor].m !== state.selected)) {
    t.cursor = t.items.findIndex((it) => it.type === "method" && it.m === state.selected);
  }
  const k = t.cursor;
  const it = t.items[k];
  if (e.key === "ArrowDown") moveTo(t, k < 0 ? step(t, -1, 1) : step(t, k, 1));
  else if (e.key === "ArrowUp") moveTo(t, k < 0 ? step(t, -1, 1) : step(t, k, -1));
  else if (e.key === "Home") moveTo(t, step(t, -1, 1));
  else if (e.key === "End") moveTo(t, step(t, t.items.length, -1));
  else if (it && it.type === "rel" && e.key === "Enter") it.r.method >= 0 && !it.self && t.jump(it.r.method);
  else if (it && it.type === "rel" && e.key === "ArrowLeft") moveTo(t, t.items.findIndex((x) => x.type === "method" && x.i === it.of));
  else if (it && it.type === "method" && (e.key === "ArrowRight" || e.key === "Enter") && !t.expanded.has(it.m)) t.toggle(it.m);
  else if (it && it.type === "method" && e.key === "ArrowRight") moveTo(t, step(t, k, 1));
  else if (it && it.type === "method" && (e.key === "ArrowLeft" || e.key === "Enter") && t.expanded.has(it.m)) t.toggle(it.m);
  else if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
    // typing in the table goes to the find box (traceview behaviour)
    const find = document.getElementById("find");
    if (find) {
      find.focus();
      find.value += e.key;
      find.dispatchEvent(new Event("input"));
    }
  } else return;
  e.preventDefault();
}
