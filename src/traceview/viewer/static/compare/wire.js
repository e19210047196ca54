// Compare mode's wiring of the page: the candidate's timeline under the baseline's (linked
// views, aligned at their starts or at the selected method's first call), the Diff and diff
// flame tabs, the side names, and "Compare with…" (a file picked or dropped is POSTed to
// /api/compare/open and the page reloads its answers).

import * as api from "../lib/api.js";
import { on, state } from "../lib/state.js";
import { DiffPanel } from "../panels/diff.js";
import { DiffFlamePanel } from "../panels/diffflame.js";
import { sideSource } from "../timeline/source.js";
import { Timeline } from "../timeline/timeline.js";
import { alignShift, shiftedView } from "./logic.js";
import { cmp } from "./state.js";

const $ = (id) => document.getElementById(id);

/** Build compare mode's views into `views` (the baseline's timeline is `views.timeline`);
 * returns `link(fromBase, view)`, which the baseline's timeline calls when its view moves. */
export function buildCompare(views) {
  const link = (fromBase, view) => {
    if (!cmp.on || !cmp.trace) return;
    const other = fromBase ? views.cand : views.timeline;
    if (other) other.follow(...shiftedView(view, cmp.shift, fromBase));
  };
  views.cand = new Timeline($("timeline-cand"), { source: sideSource("cand", cmp), onView: (v) => link(false, v) });
  views.diff = new DiffPanel($("tab-diff"));
  views.diffflame = new DiffFlamePanel($("tab-diffflame"));
  const realign = async () => {
    cmp.align = $("align").value;
    let shift = 0;
    let text = "";
    if (cmp.align === "method") {
      const b = state.selected;
      const c = cmp.selected();
      if (b < 0 || c < 0) text = "select a method called on both sides";
      else {
        const [fb, fc] = await Promise.all([api.get("/api/first/" + b), api.get("/api/first/" + c, { side: "cand" })]);
        shift = alignShift("method", fb.start_us, fc.start_us);
        text = fb.start_us === null || fc.start_us === null ? "not called on both sides: aligned at the starts" : "shifted by " + (shift / 1000).toFixed(3) + " ms";
      }
    }
    cmp.shift = shift;
    $("align-note").textContent = text;
    link(true, views.timeline.view);
  };
  $("align").addEventListener("change", () => realign().catch((e) => ($("align-note").textContent = api.failureNote(e))));
  on("select", () => {
    if (cmp.on && cmp.align === "method") realign().catch(() => {});
  });
  on("trace", () => {
    document.body.classList.toggle("comparing", cmp.on);
    if (!cmp.on) return;
    const names = (xs) => xs[0] + (xs.length > 1 ? " (+" + (xs.length - 1) + " runs)" : "");
    $("base-name").textContent = "Baseline: " + names(cmp.sides.baseline);
    $("cand-name").textContent = names(cmp.sides.candidate);
    $("base-name").title = cmp.sides.baseline.join("\n");
    $("cand-name").title = cmp.sides.candidate.join("\n");
    $("align").value = cmp.align = "start";
    $("align-note").textContent = "";
    views.timeline.resetView(); // the baseline's whole trace; the candidate follows
    views.cand.layout();
  });
  return link;
}

/** "Compare with…": POST `file` and reload the page's answers in compare mode; errors go to
 * `showError`. */
export async function compareWith(file, loadAll, showError, showTab) {
  if (!file) return;
  showError("");
  $("cand-name").textContent = "opening " + file.name + "…";
  try {
    const answer = await api.openCompare(file);
    // the service stores the trace and answers the shareable page comparing the two
    if (answer && typeof answer.redirect === "string" && answer.redirect.startsWith("/compare/")) {
      location.assign(answer.redirect);
      return;
    }
    await loadAll();
    showTab("diff");
  } catch (err) {
    showError("Could not compare with " + file.name + ": " + (err && err.message ? err.message : String(err)));
  }
}
