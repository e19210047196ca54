// The timeline's hover tooltip: a strip's method, start and duration at once (and its span on
// CLOCK_MONOTONIC when the trace gives the anchor, to line up with logcat and Perfetto), then
// its inclusive/exclusive times on both clocks, off-CPU time and flags from /api/call/{row}
// (a call open at the end: its duration and end labelled "≥", it had not ended).

import * as api from "../lib/api.js";
import { el, obfuscatedLine, setChildren } from "../lib/dom.js";
import { fmtDuration, fmtMonotonic, monotonicNs, plural } from "../lib/format.js";
import { label, obfuscated, state } from "../lib/state.js";

/** The line "CLOCK_MONOTONIC a → b" of a span [start, end] (µs on `trace`'s axis), or none;
 * `open`: the call had not ended when the trace did, so it ended at b or later. */
export function monotonicLine(trace, start, end, open) {
  const a = monotonicNs(trace, start);
  if (a === null) return [];
  return [el("div", { class: "tip-mono", title: "CLOCK_MONOTONIC (ns since boot), as logcat -v monotonic and Perfetto show it" }, "CLOCK_MONOTONIC " + fmtMonotonic(a) + " → " + (open ? "≥ " : "") + fmtMonotonic(monotonicNs(trace, end)))];
}

/** "start … · duration …"; `open`: still running at the trace's end, so at least that long. */
function spanLine(hit, base, open) {
  return "start " + fmtDuration(hit.start - base) + " · duration " + (open ? "≥ " : "") + fmtDuration(hit.end - hit.start) + (open ? " (still running at the end)" : "");
}

/** Fill the tooltip `box` for a hovered strip `hit` (Timeline.hitTest's): what the tile knows,
 * then /api/call/{row} (both clocks) while `current()` says the tip still shows that strip;
 * times are shown from `base` (the trace's start, µs); `src` (timeline/source.js) names the
 * method and asks for the call (default: the shown trace). */
export function fillCallTip(box, hit, base, current, src) {
  const name = src ? src.label : label;
  const get = src ? src.get : api.get;
  const trace = src && src.trace ? src.trace() : state.trace;
  if (hit.merged) {
    setChildren(
      box,
      el("div", { class: "tip-title" }, plural(hit.count, "call") + " too short to draw at this zoom"),
      el("div", null, "from " + fmtDuration(hit.start - base) + " to " + fmtDuration(hit.end - base) + "; zoom in to see them"),
      ...monotonicLine(trace, hit.start, hit.end, false),
    );
    return;
  }
  const lines = el("div", { class: "tip-grid" }, "loading…");
  const span = el("div", null, spanLine(hit, base, false));
  const mono = el("div", null, monotonicLine(trace, hit.start, hit.end, false));
  setChildren(box, el("div", { class: "tip-title" }, name(hit.method)), ...obfuscatedLine(src && src.side ? "" : obfuscated(hit.method)), span, mono, lines);
  get("/api/call/" + hit.call).then(
    (call) => {
      if (!current()) return;
      // open at the end (e.g. still running at an ANR dump): its times are lower bounds
      const open = (call.flags || []).includes("open-at-end");
      if (open) {
        setChildren(span, spanLine(hit, base, true));
        setChildren(mono, monotonicLine(trace, hit.start, hit.end, true));
      }
      const row = (name, incl, excl) =>
        incl === null || incl === undefined ? [] : [el("span", null, name), el("span", null, "incl " + (open ? "≥ " : "") + fmtDuration(incl)), el("span", null, "excl " + fmtDuration(excl))];
      const cells = [
        ...row("CPU", call.incl_cpu_us, call.excl_cpu_us),
        ...row("Real", call.incl_wall_us, call.excl_wall_us),
      ];
      if (call.off_cpu_us !== null && call.off_cpu_us !== undefined) {
        cells.push(el("span", null, "Off-CPU"), el("span", null, fmtDuration(call.off_cpu_us)), el("span"));
      }
      setChildren(lines, cells);
      if (call.flags && call.flags.length) lines.after(el("div", { class: "tip-flags" }, call.flags.join(", ")));
    },
    (err) => {
      if (!current()) return;
      // a report holds the details of some calls only: without them the tip is just shorter
      if (err instanceof api.NotPrecomputed) lines.remove();
      else setChildren(lines, api.failureNote(err));
    },
  );
}
