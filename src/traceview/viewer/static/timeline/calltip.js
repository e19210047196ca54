// The timeline's hover tooltip: a strip's method, start and duration at once, then its
// inclusive/exclusive times on both clocks, off-CPU time and flags from /api/call/{row}.

import * as api from "../lib/api.js";
import { el, obfuscatedLine, setChildren } from "../lib/dom.js";
import { fmtDuration, plural } from "../lib/format.js";
import { label, obfuscated } from "../lib/state.js";

/** Fill the tooltip `box` for a hovered strip `hit` (Timeline.hitTest's): what the tile knows,
 * then /api/call/{row} (both clocks) while `current()` says the tip still shows that strip;
 * times are shown from `base` (the trace's start, µs); `src` (timeline/source.js) names the
 * method and asks for the call (default: the shown trace). */
export function fillCallTip(box, hit, base, current, src) {
  const name = src ? src.label : label;
  const get = src ? src.get : api.get;
  if (hit.merged) {
    setChildren(
      box,
      el("div", { class: "tip-title" }, plural(hit.count, "call") + " too short to draw at this zoom"),
      el("div", null, "from " + fmtDuration(hit.start - base) + " to " + fmtDuration(hit.end - base) + "; zoom in to see them"),
    );
    return;
  }
  const lines = el("div", { class: "tip-grid" }, "loading…");
  setChildren(
    box,
    el("div", { class: "tip-title" }, name(hit.method)),
    ...obfuscatedLine(src && src.side ? "" : obfuscated(hit.method)),
    el("div", null, "start " + fmtDuration(hit.start - base) + " · duration " + fmtDuration(hit.end - hit.start)),
    lines,
  );
  get("/api/call/" + hit.call).then(
    (call) => {
      if (!current()) return;
      const row = (name, incl, excl) =>
        incl === null || incl === undefined ? [] : [el("span", null, name), el("span", null, "incl " + fmtDuration(incl)), el("span", null, "excl " + fmtDuration(excl))];
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
