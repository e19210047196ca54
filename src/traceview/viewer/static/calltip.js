// The timeline's hover tooltip: a strip's method, start and duration at once, then its
// inclusive/exclusive times on both clocks, off-CPU time and flags from /api/call/{row}.

import * as api from "./api.js";
import { el, setChildren } from "./dom.js";
import { fmtDuration, plural } from "./format.js";
import { label, obfuscatedLine, state } from "./state.js";

/** Fill `tl.tip` for a hovered strip: what the tile knows, then /api/call/{row} (both clocks). */
export function fillCallTip(tl, hit) {
  const gen = ++tl.tipGen;
  const base = state.trace.time.start_us;
  if (hit.merged) {
    setChildren(
      tl.tip,
      el("div", { class: "tip-title" }, plural(hit.count, "call") + " too short to draw at this zoom"),
      el("div", null, "from " + fmtDuration(hit.start - base) + " to " + fmtDuration(hit.end - base) + "; zoom in to see them"),
    );
    return;
  }
  const lines = el("div", { class: "tip-grid" }, "loading…");
  setChildren(
    tl.tip,
    el("div", { class: "tip-title" }, label(hit.method)),
    ...obfuscatedLine(hit.method),
    el("div", null, "start " + fmtDuration(hit.start - base) + " · duration " + fmtDuration(hit.end - hit.start)),
    lines,
  );
  api.get("/api/call/" + hit.call).then(
    (call) => {
      if (gen !== tl.tipGen) return;
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
      if (gen !== tl.tipGen) return;
      // a report holds the details of some calls only: without them the tip is just shorter
      if (err instanceof api.NotPrecomputed) lines.remove();
      else setChildren(lines, api.failureNote(err));
    },
  );
}
