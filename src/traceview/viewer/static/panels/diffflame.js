// Compare mode's differential flame graph: the merged call paths of both sides from
// /api/compare/flame, widths one side's median inclusive time (a switch picks which), each
// frame coloured by its change (red slower, blue faster, grey within noise; compare/logic.js),
// a dashed outline on frames of one side only; hover shows both sides, Δ, Δ % and the
// significance; click selects the method on both sides, double-click zooms.

import * as api from "../lib/api.js";
import { el, note, setChildren, sizedContext } from "../lib/dom.js";
import { fmtDuration } from "../lib/format.js";
import { on, state } from "../lib/state.js";
import { colors, faded } from "../lib/theme.js";
import { changeFill, fmtDelta, fmtRel } from "../compare/logic.js";
import { cmp, compareParams, selectPair } from "../compare/state.js";
import { flameHeight, hitFlame, paintFlame } from "./flamepaint.js";
import { PanelLoad } from "./load.js";

const SIDE_WORDS = { candidate: "Candidate", baseline: "Baseline" };

/** `class.method` of a frame's label (the signature and package left out). */
function shortLabel(text) {
  const name = String(text).split(" ")[0];
  const dot = name.lastIndexOf(".");
  const head = name.slice(0, dot);
  return dot > 0 ? head.slice(Math.max(head.lastIndexOf("."), head.lastIndexOf("$")) + 1) + name.slice(dot) : name;
}

export class DiffFlamePanel {
  constructor(root) {
    this.root = root;
    this.data = null;
    this.zoom = null;
    this.width = "candidate";
    root.classList.add("flame", "diffflame");
    this.loader = new PanelLoad(root, () => this.request(), {
      started: () => setChildren(this.msg, note("loading…")),
      loaded: (data) => {
        this.data = data;
        this.zoom = null;
        setChildren(this.msg);
        const n = data.nodes.depth.length;
        this.info.textContent = n + " frames, " + SIDE_WORDS[data.side].toLowerCase() + " total " + fmtDuration(data.total) + (data.dropped ? ", " + data.dropped + " narrow paths not drawn" : "");
        this.renderSides();
        this.draw();
      },
      failed: (err) => {
        this.data = null;
        setChildren(this.msg, note(api.failureNote(err)));
        this.draw();
      },
    });
    this.sides = el("span", { class: "seg", role: "group", "aria-label": "Widths" });
    this.info = el("span", { class: "muted" });
    this.canvas = el("canvas", { class: "fl-canvas" });
    this.msg = el("div", { class: "fl-msg" });
    this.tip = el("div", { class: "tooltip", hidden: true });
    this.area = el("div", { class: "fl-area" }, this.canvas, this.msg);
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
    const bar = el("div", { class: "subbar" }, el("span", { class: "muted" }, "Widths"), this.sides, el("button", { onclick: () => this.setZoom(null), title: "Show the whole graph" }, "Reset zoom"), this.info, legend);
    setChildren(root, bar, this.area, this.tip);
    this.renderSides();
    this.area.addEventListener("scroll", () => this.draw());
    new ResizeObserver(() => this.draw()).observe(this.area);
    this.canvas.addEventListener("mousemove", (e) => this.onHover(e));
    this.canvas.addEventListener("mouseleave", () => (this.tip.hidden = true));
    this.canvas.addEventListener("click", (e) => {
      const n = this.hit(e);
      if (n < 0) return selectPair(-1, -1);
      selectPair(this.data.nodes.base_method[n], this.data.nodes.cand_method[n]);
    });
    this.canvas.addEventListener("dblclick", (e) => {
      const n = this.hit(e);
      if (n >= 0) this.setZoom([this.data.nodes.x[n], this.data.nodes.x[n] + this.data.nodes.width[n]]);
    });
    on("trace", () => this.loader.invalidate());
    on("filter", () => this.loader.invalidate());
    on("metric", () => this.loader.invalidate());
    for (const ev of ["select", "theme"]) on(ev, () => this.draw());
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

  setWidth(side) {
    this.width = side;
    this.renderSides();
    this.loader.invalidate();
  }

  setZoom(z) {
    this.zoom = z;
    this.draw();
  }

  show() {
    if (!this.loader.show()) this.draw();
  }

  view() {
    return this.zoom || [0, this.data.total || 1];
  }

  draw() {
    if (!this.root.offsetParent) return;
    const W = Math.max(10, this.area.clientWidth);
    const N = this.data ? this.data.nodes : null;
    const H = N ? flameHeight(N) : 10;
    const ctx = sizedContext(this.canvas, W, H);
    const c = colors();
    ctx.fillStyle = c.bg;
    ctx.fillRect(0, 0, W, H);
    if (!N) return;
    if (!N.x.length) return setChildren(this.msg, note("No calls in this selection."));
    const names = this.data.names;
    const cand = cmp.selected();
    paintFlame(ctx, N, this.view(), W, {
      c,
      fill: (i) => changeFill(N.state[i], N.intensity[i]),
      text: (i) => shortLabel(names[N.name[i]]),
      dim: () => false,
      selected: (i) => (N.base_method[i] >= 0 && N.base_method[i] === state.selected) || (N.base_method[i] < 0 && N.cand_method[i] >= 0 && N.cand_method[i] === cand),
      dashed: (i) => N.only[i] !== 0,
      textColor: () => "#1b1b1b",
      faded: (col) => faded(col, c.bg),
    });
  }

  hit(e) {
    if (!this.data) return -1;
    const rect = this.canvas.getBoundingClientRect();
    return hitFlame(this.data.nodes, this.view(), rect.width, e.clientX - rect.left, e.clientY - rect.top);
  }

  onHover(e) {
    const n = this.hit(e);
    if (n < 0) return (this.tip.hidden = true);
    const N = this.data.nodes;
    const st = N.state[n];
    const one = N.only[n] === 1 ? ", only in the baseline" : N.only[n] === 2 ? ", only in the candidate" : "";
    const line = (what, key) => el("div", null, what + " " + fmtDuration(N[key + "_base"][n]) + " → " + fmtDuration(N[key + "_cand"][n]) + " (Δ " + fmtDelta(N[key + "_delta"][n]) + ", " + fmtRel(N[key + "_rel"][n], st) + ")");
    const t = N.t[n];
    const metric = this.data.metric === "incl" ? "inclusive" : "exclusive";
    const sig = t === null ? "no run-to-run spread known" : "t = " + t.toFixed(2) + " on " + metric + " time, " + (N[this.data.metric + "_sig"][n] ? "beyond" : "within") + " the run-to-run spread";
    setChildren(
      this.tip,
      el("div", { class: "tip-title" }, String(this.data.names[N.name[n]])),
      el("div", { class: "tip-state", dataset: { state: st } }, st + one),
      line("inclusive", "incl"),
      line("exclusive", "excl"),
      el("div", null, "calls " + (N.calls_base[n] ?? 0) + " → " + (N.calls_cand[n] ?? 0)),
      el("div", { class: "muted" }, sig),
    );
    const r = this.root.getBoundingClientRect();
    let left = e.clientX - r.left + 14;
    if (left + 360 > r.width) left = Math.max(0, e.clientX - r.left - 370);
    this.tip.style.left = left + "px";
    this.tip.style.top = e.clientY - r.top + 14 + "px";
    this.tip.hidden = false;
  }
}
