// Top-down and bottom-up call trees: /api/flame?kind=topdown|bottomup nodes shown as an
// expandable, virtualised tree table (total, self, calls); clicking a row selects the method.

import * as api from "../lib/api.js";
import { el, marked, note, setChildren, visibleBand } from "../lib/dom.js";
import { fmtMs, fmtPct } from "../lib/format.js";
import { label, methodColor, on, queryParams, select, state, tooltip } from "../lib/state.js";
import { PanelLoad } from "./load.js";

const ROW_H = 20;
const AUTO_OPEN = 0.05; // open children heavier than 5 % of the total on load

export class CallTree {
  constructor(root, kind) {
    this.root = root;
    this.kind = kind;
    this.data = null;
    this.open = new Set();
    this.cursor = -1;
    this.loader = new PanelLoad(root, () => (state.trace ? ["/api/flame", queryParams({ kind })] : null), {
      started: () => setChildren(this.msg, note("loading…")),
      loaded: (data) => this.loaded(data),
      failed: (err) => {
        this.data = null;
        setChildren(this.msg, note(api.failureNote(err)));
        this.flatten();
      },
    });
    root.classList.add("ctree");
    this.msg = el("div", { class: "fl-msg" });
    this.head = el(
      "div",
      { class: "ct-head" },
      el("div", { class: "num" }, "Total ms"),
      el("div", { class: "num" }, "Total %"),
      el("div", { class: "num" }, "Self ms"),
      el("div", { class: "num" }, "Calls"),
      el("div", null, kind === "topdown" ? "Method (callees below)" : "Method (callers below)"),
    );
    this.inner = el("div", { class: "pt-inner" });
    this.scroll = el("div", { class: "pt-scroll", tabindex: "0" }, this.head, this.inner);
    const bar = el(
      "div",
      { class: "subbar" },
      el("button", { onclick: () => this.expandAll(true) }, "Expand heavy"),
      el("button", { onclick: () => this.expandAll(false) }, "Collapse all"),
      el("span", { class: "muted hint" }, kind === "topdown" ? "Top-down: roots are the outermost calls" : "Bottom-up: roots are where self time is spent, children are their callers"),
    );
    setChildren(root, bar, this.msg, this.scroll);
    this.scroll.addEventListener("scroll", () => this.render(false));
    this.scroll.addEventListener("keydown", (e) => this.onKey(e));
    new ResizeObserver(() => this.render()).observe(this.scroll);
    on("trace", () => {
      this.scroll.scrollTop = 0; // another trace: no scroll position of the old tree
      this.invalidate();
    });
    on("filter", () => this.invalidate());
    on("search", () => this.render());
    on("select", () => this.render());
  }

  invalidate() {
    this.loader.invalidate();
  }

  show() {
    if (!this.loader.show()) this.render();
  }

  /** A new tree: children of each node by width, the heavy ones open. */
  loaded(data) {
    setChildren(this.msg);
    this.data = data;
    const N = data.nodes;
    this.kids = N.method.map(() => []);
    this.roots = [];
    N.parent.forEach((p, i) => (p < 0 ? this.roots : this.kids[p]).push(i));
    const byWidth = (a, b) => N.width[b] - N.width[a] || a - b;
    this.roots.sort(byWidth);
    for (const k of this.kids) k.sort(byWidth);
    this.expandAll(true);
  }

  expandAll(heavy) {
    this.open.clear();
    if (heavy && this.data) {
      const N = this.data.nodes;
      const limit = this.data.total * AUTO_OPEN;
      const stack = [...this.roots];
      while (stack.length) {
        const i = stack.pop();
        if (N.width[i] >= limit && this.kids[i].length && N.depth[i] < 30) {
          this.open.add(i);
          stack.push(...this.kids[i]);
        }
      }
    }
    this.flatten();
  }

  flatten() {
    const rows = [];
    if (this.data) {
      const walk = (list) => {
        for (const i of list) {
          rows.push(i);
          if (this.open.has(i)) walk(this.kids[i]);
        }
      };
      walk(this.roots);
    }
    this.rows = rows;
    this.inner.style.height = Math.max(rows.length * ROW_H, 48) + "px";
    this.render();
  }

  toggle(i) {
    if (this.open.has(i)) this.open.delete(i);
    else this.open.add(i);
    this.flatten();
  }

  /** Re-render the visible rows (`force` = false: only when scrolled out of the rendered band). */
  render(force = true) {
    if (!this.rows) return;
    const band = visibleBand(this.scroll, this.head, this.rows.length, ROW_H, this.band, force);
    if (!band) return;
    this.band = band;
    const [first, last] = band;
    const N = this.data ? this.data.nodes : null;
    const out = [];
    for (let k = first; k < last; k++) {
      const i = this.rows[k];
      const m = N.method[i];
      const has = this.kids[i].length > 0;
      const cls = "ct-row" + (m === state.selected ? " selected" : "") + (k === this.cursor ? " cursor" : "");
      out.push(
        el(
          "div",
          { class: cls, style: `top:${k * ROW_H}px`, dataset: { method: m }, onclick: () => ((this.cursor = k), select(m)), ondblclick: () => has && this.toggle(i) },
          el("div", { class: "num" }, fmtMs(N.width[i])),
          el("div", { class: "num" }, fmtPct(N.width[i], this.data.total)),
          el("div", { class: "num" }, fmtMs(N.self[i])),
          el("div", { class: "num" }, String(N.calls[i])),
          el(
            "div",
            { class: "pt-name", title: tooltip(m), style: `padding-left:${4 + N.depth[i] * 14}px` },
            el("span", { class: "twisty" + (has ? "" : " leaf"), onclick: (e) => (e.stopPropagation(), has && this.toggle(i)) }, has ? (this.open.has(i) ? "▾" : "▸") : "·"),
            el("span", { class: "swatch", style: "background:" + methodColor(m) }),
            el("span", { class: "lbl" }, marked(label(m), state.search)),
          ),
        ),
      );
    }
    if (!this.rows.length && this.data) out.push(el("div", { class: "pt-empty" }, "No calls in this selection."));
    setChildren(this.inner, out);
  }

  onKey(e) {
    if (!this.rows || !this.rows.length) return;
    let k = this.cursor;
    if (e.key === "ArrowDown") k = Math.min(this.rows.length - 1, k + 1);
    else if (e.key === "ArrowUp") k = Math.max(0, k - 1);
    else if (e.key === "ArrowRight" && k >= 0 && !this.open.has(this.rows[k])) return this.toggle(this.rows[k]);
    else if (e.key === "ArrowLeft" && k >= 0 && this.open.has(this.rows[k])) return this.toggle(this.rows[k]);
    else return;
    e.preventDefault();
    this.cursor = k;
    select(this.data.nodes.method[this.rows[k]]);
    const y = k * ROW_H;
    if (y < this.scroll.scrollTop || y > this.scroll.scrollTop + this.scroll.clientHeight - 2 * ROW_H) this.scroll.scrollTop = y - 60;
    this.render();
  }
}
