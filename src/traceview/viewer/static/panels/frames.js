// Frame-budget view: main-thread calls longer than the budget (/api/frames), listed worst
// first or by time; clicking one zooms the timeline to it. Also feeds the timeline markers.

import * as api from "../lib/api.js";
import { el, monoCharW, note, setChildren } from "../lib/dom.js";
import { elideName } from "../lib/names.js";
import { fmtDuration, fmtMs } from "../lib/format.js";
import { emit, label, methodColor, on, select, shortName, state } from "../lib/state.js";
import { PanelLoad } from "./load.js";

export class FrameBudget {
  constructor(root, zoomTo) {
    this.root = root;
    this.zoomTo = zoomTo;
    this.byTime = true;
    // loaded even while hidden: the timeline marks the frames over budget
    this.loader = new PanelLoad(root, () => (state.trace ? ["/api/frames", { budget_ms: state.budgetMs }] : null), {
      started: () => setChildren(this.list, note("loading…")),
      loaded: (data) => {
        this.data = data;
        state.frames = data;
        emit("frames");
        this.render();
      },
      failed: (err) => {
        this.data = null;
        state.frames = null;
        emit("frames");
        setChildren(this.list, note(api.failureNote(err)));
      },
    });
    root.classList.add("frames");
    this.input = el("input", { type: "number", min: "1", step: "1", value: String(state.budgetMs), class: "budget", title: "Frame budget in ms" });
    this.input.addEventListener("change", () => {
      const v = Number(this.input.value);
      if (v > 0) {
        state.budgetMs = v;
        this.load();
      }
    });
    this.sortBtn = el("button", { onclick: () => ((this.byTime = !this.byTime), this.render()) }, "Sort: by time");
    this.info = el("span", { class: "muted" });
    this.list = el("div", { class: "fr-list" });
    setChildren(
      root,
      el("div", { class: "subbar" }, el("label", { class: "live-only" }, "Budget ", this.input, " ms"), this.sortBtn, this.info),
      this.list,
    );
    on("trace", () => this.load());
  }

  load() {
    this.loader.load();
  }

  /** Shown: names are fitted to the columns' widths, known only now. */
  show() {
    this.render();
  }

  render() {
    const d = this.data;
    if (!d) return;
    this.sortBtn.textContent = this.byTime ? "Sort: by time" : "Sort: longest first";
    const c = d.calls;
    const n = c.call.length;
    const t = d.thread !== null && d.thread !== undefined ? state.trace.threads[d.thread] : null;
    const kinds = { doFrame: "Choreographer.doFrame calls", dispatch: "message dispatches", toplevel: "top-level calls" };
    const of = d.frames !== undefined ? " of " + d.frames + " " + (kinds[d.kind] || "calls") : "";
    this.info.textContent = t
      ? n + of + " over " + fmtDuration(d.budget_us) + " on " + t.label + (d.clock ? " (" + (d.clock === "cpu" ? "thread CPU" : "wall") + ")" : "") + (d.truncated ? " (list cut)" : "")
      : "No main thread found in this trace.";
    const idx = [...Array(n).keys()];
    // a clock the trace lacks is a null column: the length is the one present
    const len = c.wall_us || c.cpu_us || c.end_us.map((e, i) => e - c.start_us[i]);
    if (!this.byTime) idx.sort((a, b) => len[b] - len[a] || a - b);
    const base = state.trace.time.start_us;
    const head = el("div", { class: "fr-row head" }, el("div", { class: "num" }, "Start"), el("div", { class: "num" }, "Wall ms"), el("div", { class: "num" }, "CPU ms"), el("div", { class: "num" }, "Over budget"), el("div", null, "Method"), el("div", { title: "The calls down to the method with the most self time inside the frame, and that time" }, "Why: heaviest self time (" + (d.clock === "cpu" ? "thread CPU" : "wall") + ")"));
    setChildren(this.list, head);
    const cell = head.children[4];
    const chars = Math.max(12, Math.floor(((cell && cell.offsetWidth) || 300) / monoCharW()) - 4);
    const rows = idx.map((i) =>
      el(
        "div",
        {
          class: "fr-row" + (c.method[i] === state.selected ? " selected" : ""),
          title: "Click to zoom the timeline to this call",
          onclick: () => {
            select(c.method[i]);
            this.zoomTo(c.start_us[i], c.end_us[i], d.thread);
          },
        },
        el("div", { class: "num" }, fmtDuration(c.start_us[i] - base)),
        el("div", { class: "num" }, c.wall_us ? fmtMs(c.wall_us[i]) : "–"),
        el("div", { class: "num" }, c.cpu_us ? fmtMs(c.cpu_us[i]) : "–"),
        el("div", { class: "num over" }, "+" + fmtDuration(len[i] - d.budget_us)),
        el("div", { class: "pt-name", title: label(c.method[i]) }, el("span", { class: "swatch", style: "background:" + methodColor(c.method[i]) }), el("span", { class: "lbl" }, elideName(label(c.method[i]), chars))),
        this.why(c, i),
      ),
    );
    setChildren(this.list, head, rows.length ? rows : note("No main-thread call exceeds the budget."));
  }

  /** "A.b › C.d › E.f  12.3 ms self": the path to the heaviest self time (full path on hover). */
  why(c, i) {
    const path = c.path ? c.path[i] : null;
    if (!path) return el("div");
    const last = path.length ? path[path.length - 1] : c.method[i];
    // the way down shrinks (cut at its end), the culprit itself always shows whole
    const shown = path.slice(-3, -1).map(shortName);
    const text = shown.length ? (path.length > 3 ? "… › " : "") + shown.join(" › ") + " › " : "";
    const full = [c.method[i], ...path].map(label).join("\n  › ");
    return el(
      "div",
      { class: "pt-name", title: full + "\n" + fmtDuration(c.self_us[i]) + " self in " + label(last) },
      el("span", { class: "swatch", style: "background:" + methodColor(last) }),
      text ? el("span", { class: "lbl why-path" }, text) : null,
      el("span", { class: "why-culprit" }, shortName(last)),
      el("span", { class: "why-self" }, fmtDuration(c.self_us[i]) + " self"),
    );
  }
}
