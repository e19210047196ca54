// Compare mode's differential flame graph: the merged call paths of both sides from
// /api/compare/flame, widths one side's median inclusive time (a switch picks which), each
// frame coloured by its change (red slower, blue faster, grey within noise; compare/logic.js),
// a dashed outline on frames of one side only; hover shows both sides, Δ, Δ % and the
// significance; click selects the method on both sides, double-click zooms. The panel itself
// (canvas, tip, zoom) is flamepanel.js; this supplies the colours, labels and tips.

import { el, setChildren } from "../lib/dom.js";
import { fmtDuration } from "../lib/format.js";
import { on, state } from "../lib/state.js";
import { changeFill, fmtDelta, fmtRel } from "../compare/logic.js";
import { cmp, compareParams, selectPair } from "../compare/state.js";
import { FlamePanel } from "./flamepanel.js";

const SIDE_WORDS = { candidate: "Candidate", baseline: "Baseline" };

/** `class.method` of a frame's label (the signature and package left out). */
function shortLabel(text) {
  const name = String(text).split(" ")[0];
  const dot = name.lastIndexOf(".");
  const head = name.slice(0, dot);
  return dot > 0 ? head.slice(Math.max(head.lastIndexOf("."), head.lastIndexOf("$")) + 1) + name.slice(dot) : name;
}

export class DiffFlamePanel extends FlamePanel {
  constructor(root) {
    super(root, 360);
    this.width = "candidate";
    root.classList.add("diffflame");
    this.sides = el("span", { class: "seg", role: "group", "aria-label": "Widths" });
    const legend = el(
      "span",
      { class: "muted hint diff-legend" },
      el("span", { class: "swatch", style: "background:" + changeFill("slower", 1) }),
      "slower / new ",
      el("span", { class: "swatch", style: "background:" + changeFill("faster", 1) }),
      "faster / gone ",
      el("span", { class: "swatch", style: "background:" + changeFill("noise", 0) }),
      "within noise · dashed: one side only · click: select · double-click: zoom",
    );
    this.mount(el("div", { class: "subbar" }, el("span", { class: "muted" }, "Widths"), this.sides, el("button", { onclick: () => this.setZoom(null), title: "Show the whole graph" }, "Reset zoom"), this.info, legend));
    this.renderSides();
    on("trace", () => this.invalidate());
    on("metric", () => this.invalidate());
  }

  renderSides() {
    setChildren(
      this.sides,
      ["candidate", "baseline"].map((s) => el("button", { class: s === this.width ? "on" : "", dataset: { width: s }, title: "Frame widths: the " + s + "'s median inclusive time", onclick: () => this.setWidth(s) }, SIDE_WORDS[s])),
    );
  }

  request() {
    if (!cmp.on || !state.trace) return null;
    return ["/api/compare/flame", compareParams({ width: this.width })];
  }

  loaded(data) {
    const n = data.nodes.depth.length;
    this.info.textContent = n + " frames, " + SIDE_WORDS[data.side].toLowerCase() + " total " + fmtDuration(data.total) + (data.dropped ? ", " + data.dropped + " narrow paths not drawn" : "");
    this.renderSides();
  }

  setWidth(side) {
    this.width = side;
    this.renderSides();
    this.invalidate();
  }

  /** How node i looks: coloured by its change, dashed when on one side only. */
  look(N) {
    const names = this.data.names;
    const cand = cmp.selected();
    return {
      fill: (i) => changeFill(N.state[i], N.intensity[i]),
      text: (i) => shortLabel(names[N.name[i]]),
      dim: () => false,
      selected: (i) => (N.base_method[i] >= 0 && N.base_method[i] === state.selected) || (N.base_method[i] < 0 && N.cand_method[i] >= 0 && N.cand_method[i] === cand),
      dashed: (i) => N.only[i] !== 0,
      textColor: () => "#1b1b1b",
    };
  }

  /** The tip of node n: its state, both sides' times with the change, calls, significance. */
  tipLines(n) {
    const N = this.data.nodes;
    const st = N.state[n];
    const one = N.only[n] === 1 ? ", only in the baseline" : N.only[n] === 2 ? ", only in the candidate" : "";
    const line = (what, key) => el("div", null, what + " " + fmtDuration(N[key + "_base"][n]) + " → " + fmtDuration(N[key + "_cand"][n]) + " (Δ " + fmtDelta(N[key + "_delta"][n]) + ", " + fmtRel(N[key + "_rel"][n], st) + ")");
    const t = N.t[n];
    const metric = this.data.metric === "incl" ? "inclusive" : "exclusive";
    const sig = t === null ? "no run-to-run spread known" : "t = " + t.toFixed(2) + " on " + metric + " time, " + (N[this.data.metric + "_sig"][n] ? "beyond" : "within") + " the run-to-run spread";
    return [
      el("div", { class: "tip-title" }, String(this.data.names[N.name[n]])),
      el("div", { class: "tip-state", dataset: { state: st } }, st + one),
      line("inclusive", "incl"),
      line("exclusive", "excl"),
      el("div", null, "calls " + (N.calls_base[n] ?? 0) + " → " + (N.calls_cand[n] ?? 0)),
      el("div", { class: "muted" }, sig),
    ];
  }

  /** A click selects node n's method on both sides (nothing: none). */
  selectAt(n) {
    if (n < 0) return selectPair(-1, -1);
    selectPair(this.data.nodes.base_method[n], this.data.nodes.cand_method[n]);
  }
}
