// Top-down and bottom-up call trees: /api/tree answers (heaviest nodes first, the rest as
// explicit "N more (x ms)" rows that load on demand) shown as a virtualised tree table (total,
// self, calls); clicking a row selects the method; the keyboard reaches every row.

import * as api from "../lib/api.js";
import { resizableColumns } from "../lib/columns.js";
import { el, marked, monoCharW, note, setChildren } from "../lib/dom.js";
import { fmtDuration, fmtMs, fmtPct, plural } from "../lib/format.js";
import { elideName } from "../lib/names.js";
import { clockName, isMatch, label, methodColor, on, queryParams, scopeName, select, state, tooltip } from "../lib/state.js";
import { PanelLoad } from "./load.js";
import { ROOTS_MORE, TreeModel, moreOf } from "./treemodel.js";

const ROW_H = 20;
const AUTO_OPEN = 0.05; // open children heavier than 5 % of the total on load (top-down)
const INDENT = 14;
const FIRST = 2000; // nodes of a tree's first answer (the heaviest; a report holds this one)
const MAX_MATCH = 400; // methods a find sends the server at most (else: the loaded nodes)

export class CallTree {
  constructor(root, kind) {
    this.root = root;
    this.kind = kind;
    this.tree = new TreeModel();
    this.data = null; // the first answer of the current selection
    this.rows = [];
    this.cursor = -1; // row index
    this.gen = 0;
    this.loader = new PanelLoad(root, () => (state.trace ? ["/api/tree", queryParams({ kind, limit: FIRST })] : null), {
      started: () => setChildren(this.msg, note("loading…")),
      loaded: (data) => this.loaded(data),
      failed: (err) => {
        this.data = null;
        this.tree.clear();
        setChildren(this.msg, note(api.failureNote(err)));
        this.flatten();
      },
    });
    root.classList.add("ctree");
    this.msg = el("div", { class: "fl-msg" });
    this.totalHead = el("div", { class: "num" }, "Total ms");
    this.head = el(
      "div",
      { class: "ct-head" },
      this.totalHead,
      el("div", { class: "num", title: "Percent of the tree's total: the time of the selected threads (and range) on this clock" }, "% of total"),
      el("div", { class: "num" }, "Self ms"),
      el("div", { class: "num" }, "Calls"),
      el("div", null, kind === "topdown" ? "Method (callees below)" : "Method (callers below)"),
    );
    this.widths = [96, 74, 84, 70];
    resizableColumns(root, this.head, this.widths, "minmax(300px, 1fr)", () => this.render());
    this.inner = el("div", { class: "pt-inner" });
    this.scroll = el("div", { class: "pt-scroll", tabindex: "0", role: "tree", "aria-label": kind === "topdown" ? "Top Down tree" : "Bottom Up tree" }, this.head, this.inner);
    this.info = el("span", { class: "muted ct-info" });
    const bar = el(
      "div",
      { class: "subbar" },
      el("button", { onclick: () => this.expandHeavy(), title: kind === "topdown" ? "Open every node over 5 % of the total" : "Open the heavy callers of the row at the cursor (the first root without one)" }, "Expand heavy"),
      el("button", { onclick: () => this.collapseAll() }, "Collapse all"),
      this.info,
      el("span", { class: "muted hint" }, "↑↓ rows · → open · ← close/parent · Enter: load “more” · Find + Enter searches the tree"),
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
    this.gen++;
    this.loader.invalidate();
  }

  show() {
    if (!this.loader.show()) this.render();
  }

  /** A new tree: the first answer of the selection; top-down opens its heavy nodes. */
  loaded(data) {
    setChildren(this.msg);
    this.data = data;
    this.tree.clear();
    this.tree.merge(data);
    this.cursor = -1;
    const clock = clockName(data.clock);
    this.totalHead.textContent = "Total " + (data.clock === "wall" ? "wall" : "CPU") + " ms";
    this.totalHead.title = "Inclusive " + clock + " time";
    this.info.textContent = "100 % = " + fmtDuration(data.total) + " of " + clock + " time, " + scopeName() + " · " + plural(data.size, "node");
    if (this.kind === "topdown") this.tree.openHeavy(this.tree.total * AUTO_OPEN, 30);
    this.flatten();
  }

  expandHeavy() {
    const T = this.tree;
    if (this.kind === "topdown") {
      T.open.clear();
      T.openHeavy(T.total * AUTO_OPEN, 30);
    } else {
      // bottom-up: only under the cursor's row (or the first root), so the next roots stay near
      const row = this.rows[this.cursor];
      const i = row >= 0 ? row : T.roots[0];
      if (i === undefined) return;
      T.openHeavy(T.N.width[i] * AUTO_OPEN * 4, 30, i);
    }
    this.flatten();
  }

  collapseAll() {
    this.tree.open.clear();
    this.flatten();
  }

  flatten() {
    const keep = this.rows[this.cursor];
    this.rows = this.tree.size ? this.tree.rows() : [];
    if (keep !== undefined) this.cursor = this.rows.indexOf(keep);
    this.inner.style.height = Math.max(this.rows.length * ROW_H, 48) + "px";
    this.render();
  }

  /** Open or close node `i`, asking for its subtree first when none of it is loaded. */
  async toggle(i) {
    const T = this.tree;
    if (T.open.has(i)) {
      T.open.delete(i);
      return this.flatten();
    }
    if (T.needsLoad(i)) await this.load(T.N.id[i], false);
    T.open.add(i);
    this.flatten();
  }

  /** Load the children a "more" row stands for (`p` -1: the roots). */
  async loadMore(p) {
    const k = this.cursor;
    await this.load(p < 0 ? -1 : this.tree.N.id[p], true);
    this.flatten();
    if (k >= 0 && this.rows[k] >= 0) this.moveTo(k); // the cursor on the first row loaded
  }

  async load(node, children) {
    const gen = this.gen;
    this.root.classList.add("busy");
    try {
      const extra = { kind: this.kind, node };
      if (children) extra.children = 1;
      const answer = await api.get("/api/tree", queryParams(extra));
      if (gen === this.gen) this.tree.merge(answer);
    } catch (err) {
      setChildren(this.msg, note(api.failureNote(err)));
    } finally {
      this.root.classList.remove("busy");
    }
  }

  /** Render the rows in view (and 10 each side): `force` rebuilds them all (the tree or the
   * selection changed); a scroll only adds the rows coming into view and drops those leaving,
   * so a frame builds a few rows, whatever the tree's size. */
  render(force = true) {
    if (!this.rows) return;
    const s = this.scroll;
    const top = Math.max(0, s.scrollTop - this.head.offsetHeight);
    const first = Math.max(0, Math.floor(top / ROW_H) - 10);
    const last = Math.min(this.rows.length, Math.floor(top / ROW_H) + Math.ceil(s.clientHeight / ROW_H) + 11);
    if (force || !this.shown) {
      this.shown = new Map();
      this.nameW = s.clientWidth - this.widths.reduce((a, b) => a + b, 0);
      setChildren(this.inner);
      if (!this.rows.length && this.data) this.inner.appendChild(el("div", { class: "pt-empty" }, "No calls in this selection."));
    }
    for (const [k, node] of this.shown) {
      if (k < first || k >= last) {
        node.remove();
        this.shown.delete(k);
      }
    }
    const charW = monoCharW();
    for (let k = first; k < last; k++) {
      if (this.shown.has(k)) continue;
      const node = this.rows[k] >= 0 ? this.nodeRow(k, this.nameW, charW) : this.moreRow(k);
      this.inner.appendChild(node);
      this.shown.set(k, node);
    }
  }

  nodeRow(k, nameW, charW) {
    const T = this.tree;
    const N = T.N;
    const i = this.rows[k];
    const m = N.method[i];
    const has = T.hasKids(i);
    const open = T.open.has(i);
    const cls = "ct-row" + (m === state.selected ? " selected" : "") + (k === this.cursor ? " cursor" : "");
    const pad = 4 + N.depth[i] * INDENT;
    const chars = Math.floor((nameW - pad - 40) / charW);
    return el(
      "div",
      { class: cls, style: `top:${k * ROW_H}px`, role: "treeitem", "aria-expanded": has ? String(open) : null, dataset: { method: m, node: N.id[i] }, onclick: () => this.moveTo(k), ondblclick: () => has && this.toggle(i) },
      el("div", { class: "num" }, fmtMs(N.width[i])),
      el("div", { class: "num" }, fmtPct(N.width[i], T.total)),
      el("div", { class: "num" }, fmtMs(N.self[i])),
      el("div", { class: "num" }, String(N.calls[i])),
      el(
        "div",
        { class: "pt-name", title: tooltip(m), style: `padding-left:${pad}px` },
        el("span", { class: "twisty" + (has ? "" : " leaf"), onclick: (e) => (e.stopPropagation(), has && this.toggle(i)) }, has ? (open ? "▾" : "▸") : "·"),
        el("span", { class: "swatch", style: "background:" + methodColor(m) }),
        el("span", { class: "lbl" }, marked(elideName(label(m), Math.max(chars, 8)), state.search)),
      ),
    );
  }

  moreRow(k) {
    const T = this.tree;
    const p = moreOf(this.rows[k]);
    const n = p < 0 ? T.rootsMore : T.N.more[p];
    const w = p < 0 ? T.rootsMoreWidth : T.N.moreWidth[p];
    const depth = p < 0 ? 0 : T.N.depth[p] + 1;
    const what = n + " more " + (p < 0 ? "roots" : this.kind === "topdown" ? "callees" : "callers");
    return el(
      "div",
      { class: "ct-row ct-more" + (k === this.cursor ? " cursor" : ""), style: `top:${k * ROW_H}px`, role: "treeitem", title: "Not loaded yet: click or Enter to list them", onclick: () => ((this.cursor = k), this.loadMore(p)) },
      el("div", { class: "num" }, fmtMs(w)),
      el("div", { class: "num" }, fmtPct(w, T.total)),
      el("div", { class: "num" }),
      el("div", { class: "num" }),
      el("div", { class: "pt-name", style: `padding-left:${4 + depth * INDENT}px` }, el("span", { class: "twisty" }, "⋯"), what + " (" + fmtDuration(w) + ")"),
    );
  }

  /** Put the cursor on row `k` (selecting its method) and keep it in view. */
  moveTo(k) {
    if (k < 0 || k >= this.rows.length) return;
    this.cursor = k;
    const row = this.rows[k];
    if (row >= 0) select(this.tree.N.method[row]);
    const y = k * ROW_H + this.head.offsetHeight;
    const s = this.scroll;
    if (y < s.scrollTop + this.head.offsetHeight) s.scrollTop = y - this.head.offsetHeight;
    else if (y + ROW_H > s.scrollTop + s.clientHeight) s.scrollTop = y + ROW_H - s.clientHeight;
    this.render();
  }

  /** The next node (`dir` 1 or -1) whose method matches the find box, opened to and selected:
   * the server finds it in the whole tree (with its path, merged in); a report, or a find
   * text matching very many methods, searches the loaded nodes. */
  async nextMatch(dir) {
    const T = this.tree;
    if (!state.search || !T.size) return;
    const row = this.rows[this.cursor];
    const here = row >= 0 ? row : -1;
    const methods = [];
    if (state.matches) for (let m = 0; m < state.matches.length && methods.length <= MAX_MATCH; m++) if (state.matches[m]) methods.push(m);
    let j = -1;
    const gen = this.gen;
    try {
      if (methods.length > MAX_MATCH || !state.trace.live) throw new Error("search the loaded nodes");
      const extra = { kind: this.kind, match: methods.join(","), after: here >= 0 ? T.N.id[here] : -1, dir };
      const answer = await api.get("/api/tree", queryParams(extra));
      if (gen !== this.gen) return;
      T.merge(answer);
      j = answer.found >= 0 ? T.local.get(answer.found) : -1;
    } catch (_err) {
      j = T.nextMatch(here, dir, (m) => isMatch(m));
    }
    if (j === undefined || j < 0) return;
    T.reveal(j);
    this.flatten();
    this.moveTo(this.rows.indexOf(j));
    this.scroll.focus({ preventScroll: true });
  }

  onKey(e) {
    if (!this.rows.length) return;
    const k = this.cursor;
    const row = this.rows[k];
    const T = this.tree;
    const page = Math.max(1, Math.floor(this.scroll.clientHeight / ROW_H) - 2);
    const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (e.key in moves) this.moveTo(Math.min(this.rows.length - 1, Math.max(0, (k < 0 ? 0 : k + moves[e.key]))));
    else if (e.key === "Home") this.moveTo(0);
    else if (e.key === "End") this.moveTo(this.rows.length - 1);
    else if (k < 0) return;
    else if (e.key === "Enter" || e.key === " ") row === ROOTS_MORE || row < -1 ? this.loadMore(moreOf(row)) : T.hasKids(row) && this.toggle(row);
    else if (e.key === "ArrowRight" && row >= 0 && T.hasKids(row)) T.open.has(row) ? this.moveTo(k + 1) : this.toggle(row);
    else if (e.key === "ArrowLeft" && row >= 0 && T.open.has(row)) this.toggle(row);
    else if (e.key === "ArrowLeft") {
      const p = row >= 0 ? T.N.parent[row] : moreOf(row);
      if (p >= 0) this.moveTo(this.rows.indexOf(p));
    } else return;
    e.preventDefault();
  }
}
