// Profile panel: traceview's method table (incl/excl × CPU/real, calls+recursive, per call),
// sortable, virtualised, with Parents / Children / recursive groups under an expanded method.

import * as api from "../lib/api.js";
import { el, marked, monoCharW, setChildren, visibleBand } from "../lib/dom.js";
import { elideName } from "../lib/names.js";
import { fmtCount, fmtDuration, fmtMs, fmtPct } from "../lib/format.js";
import { emit, isMatch, label, methodColor, on, queryParams, scopeName, select, state, tooltip } from "../lib/state.js";
import { PanelLoad } from "./load.js";
import * as keys from "./profilekeys.js";

const ROW_H = 20;
const GROUPS = [
  ["parents", "Parents", "g-parents"],
  ["children", "Children", "g-children"],
  ["parents_recursive", "Parents while recursive", "g-prec"],
  ["children_recursive", "Children while recursive", "g-crec"],
];

// key, title, width, clock needed ("cpu" | "wall" | "both" | null), profile column
const COLUMNS = [
  ["name", "Name", "minmax(380px, 1fr)", null, null],
  ["incl_cpu_pct", "Incl CPU %", "62px", "cpu", "incl_cpu_us"],
  ["incl_cpu", "Incl CPU ms", "86px", "cpu", "incl_cpu_us"],
  ["excl_cpu_pct", "Excl CPU %", "62px", "cpu", "excl_cpu_us"],
  ["excl_cpu", "Excl CPU ms", "86px", "cpu", "excl_cpu_us"],
  ["incl_wall_pct", "Incl Real %", "62px", "wall", "incl_wall_us"],
  ["incl_wall", "Incl Real ms", "86px", "wall", "incl_wall_us"],
  ["excl_wall_pct", "Excl Real %", "62px", "wall", "excl_wall_us"],
  ["excl_wall", "Excl Real ms", "86px", "wall", "excl_wall_us"],
  ["off_cpu", "Incl off-CPU ms", "96px", "both", "off_cpu_us"],
  ["excl_off_cpu", "Excl off-CPU ms", "96px", "both", "excl_off_cpu_us"],
  ["calls", "Calls+Rec, Calls/Total", "136px", null, "calls"],
  ["cpu_per_call", "CPU/Call ms", "86px", "cpu", "cpu_per_call_us"],
  ["wall_per_call", "Real/Call ms", "86px", "wall", "wall_per_call_us"],
];

export class ProfileTable {
  constructor(root) {
    this.root = root;
    this.data = null;
    this.expanded = new Map(); // method row -> relations answer | "loading" | Error
    this.sortKey = null;
    this.sortDir = -1;
    this.items = [];
    // the table loads even while hidden: the selection bar shows the selected method's line
    this.loader = new PanelLoad(root, () => (state.trace ? ["/api/profile", queryParams()] : null), {
      started: () => (this.banner.hidden = true),
      loaded: (data) => {
        this.data = data;
        this.rank = new Map(data.methods.method.map((m, i) => [m, i]));
        for (const m of this.expanded.keys()) this.fetchRelations(m);
        // a sampled trace's "estimates" banner is shown once, at the top of the page
        this.rebuild();
        emit("profile");
      },
      failed: (err) => {
        this.data = null;
        this.banner.hidden = false;
        this.banner.textContent = api.failureNote(err);
        this.rebuild();
        emit("profile");
      },
    });
    root.classList.add("ptable");
    this.head = el("div", { class: "pt-head" });
    this.inner = el("div", { class: "pt-inner" });
    this.banner = el("div", { class: "pt-banner", hidden: true });
    this.base = el("div", { class: "subbar muted pt-base" });
    this.scroll = el("div", { class: "pt-scroll", tabindex: "0", "aria-label": "Profile table" }, this.head, this.inner);
    setChildren(root, this.banner, this.base, this.scroll);
    this.scroll.addEventListener("scroll", () => this.render(false));
    this.scroll.addEventListener("keydown", (e) => this.onKey(e));
    new ResizeObserver(() => this.render()).observe(this.scroll);
    on("trace", () => this.reload(true));
    on("filter", () => this.reload(false));
    on("search", () => this.rebuild());
    on("select", (m) => {
      this.render();
      this.reveal(m);
    });
  }

  columns() {
    const clocks = state.trace ? state.trace.clocks : [];
    return COLUMNS.filter(([, , , need]) => !need || (need === "both" ? clocks.length > 1 : clocks.includes(need)));
  }

  reload(fresh) {
    if (!state.trace) return;
    if (fresh) {
      this.expanded.clear();
      this.sortKey = null;
      this.data = null; // another trace: nothing of the old table (rows, scroll) stays
      this.scroll.scrollTop = 0;
      this.rebuild();
    }
    this.loader.load();
  }

  fetchRelations(m) {
    this.expanded.set(m, "loading");
    const gen = this.loader.gen; // relations for the table's selection, dropped when it changes
    api.get("/api/relations/" + m, queryParams()).then(
      (rel) => {
        if (!this.loader.current(gen) || !this.expanded.has(m)) return;
        this.expanded.set(m, rel);
        this.rebuild();
      },
      (err) => {
        if (!this.loader.current(gen) || !this.expanded.has(m)) return;
        this.expanded.set(m, err);
        this.rebuild();
      },
    );
  }

  toggle(m) {
    if (!this.expanded.has(m) && !api.has("/api/relations/" + m, queryParams())) return; // not in this report
    if (this.expanded.has(m)) this.expanded.delete(m);
    else this.fetchRelations(m);
    this.rebuild();
  }

  /** `order` (profile indices) sorted by column `col` in direction `dir`, ties by server rank. */
  sorted(order, col, dir) {
    const M = this.data.methods;
    if (col === "name") {
      const names = state.lowerLabels;
      return order.sort((a, b) => {
        const x = names[M.method[a]];
        const y = names[M.method[b]];
        return (x < y ? -1 : x > y ? 1 : 0) * dir || a - b;
      });
    }
    const n = M.method.length;
    const v = new Float64Array(n);
    if (col === "calls") for (let i = 0; i < n; i++) v[i] = M.calls[i] + M.recursive_calls[i];
    else {
      const src = M[COLUMNS.find((c) => c[0] === col)[4]];
      for (let i = 0; i < n; i++) v[i] = src[i] ?? -Infinity;
    }
    const idx = Int32Array.from(order);
    idx.sort((a, b) => (v[a] - v[b]) * dir || a - b);
    return Array.from(idx);
  }

  sortBy(col) {
    if (this.sortKey === col) this.sortDir = -this.sortDir;
    else {
      this.sortKey = col;
      this.sortDir = col === "name" ? 1 : -1;
    }
    this.rebuild();
  }

  /** Rebuild the flat list of displayed rows (methods, groups, relations). */
  rebuild() {
    this.renderHead();
    const items = [];
    if (this.data) {
      const M = this.data.methods;
      // the selected method stays listed when the find text hides it (a parent/child jumped to)
      let order = M.method.map((_, i) => i).filter((i) => isMatch(M.method[i]) || M.method[i] === state.selected);
      if (this.sortKey) order = this.sorted(order, this.sortKey, this.sortDir);
      for (const i of order) {
        const m = M.method[i];
        items.push({ type: "method", i, m });
        if (this.expanded.has(m)) this.pushRelations(items, i, m, this.expanded.get(m));
      }
      if (this.data.truncated) items.push({ type: "note", text: "(list cut by the server: methods with the least time are not shown)" });
    }
    // the find count is of the table's rows (methods with time in this selection)
    this.found = this.data && state.search ? items.filter((it) => it.type === "method" && isMatch(it.m)).length : null;
    emit("found", this.found);
    this.items = items;
    this.inner.style.height = Math.max(items.length * ROW_H, 48) + "px";
    this.render();
  }

  pushRelations(items, i, m, rel) {
    if (rel === "loading") return items.push({ type: "note", text: "loading…" });
    if (rel instanceof Error) return items.push({ type: "note", text: api.failureNote(rel) });
    for (const [key, title, cls] of GROUPS) {
      const rows = rel[key] || [];
      if (!rows.length && key.endsWith("recursive")) continue;
      items.push({ type: "group", title, cls });
      if (key === "children" && rel.self) items.push({ type: "rel", r: rel.self, of: i, cls, rel, self: true });
      for (const r of rows) items.push({ type: "rel", r, of: i, cls, rel });
    }
    if (rel.truncated) items.push({ type: "note", text: "(lists cut by the server: the smallest rows are not shown)" });
  }

  /** What each percentage is of: the totals of the selection, per clock. */
  baseLine() {
    const t = this.data && this.data.total;
    if (!t) return "";
    const parts = [];
    if (t.cpu_us !== null) parts.push("CPU % of " + fmtDuration(t.cpu_us) + " Thread CPU");
    if (t.wall_us !== null) parts.push("Real % of " + fmtDuration(t.wall_us) + " Wall (waits included)");
    return "100 %: " + parts.join(" · ") + ", " + scopeName() + "; parents/children: % of the expanded method";
  }

  renderHead() {
    setChildren(this.base, this.baseLine());
    const cols = this.columns();
    this.colW = this.colW || {}; // widths the user dragged columns to, by key
    this.template = cols.map((c) => (this.colW[c[0]] ? this.colW[c[0]] + "px" : c[2])).join(" ");
    this.head.style.gridTemplateColumns = this.template;
    setChildren(
      this.head,
      cols.map(([key, title]) => {
        const arrow = this.sortKey === key ? (this.sortDir > 0 ? " ▲" : " ▼") : "";
        const base = key.endsWith("_pct") ? " (" + this.baseLine() + ")" : key.includes("off_cpu") ? " (wall − CPU, never negative" + (key === "excl_off_cpu" ? ", in the method's own code" : ", callees included") + ")" : "";
        const cell = el("div", { class: "pt-hcell" + (key === "name" ? " name" : ""), title: "Sort by " + title + base, dataset: { col: key }, onclick: () => this.sortBy(key) }, title + arrow);
        cell.style.position = "relative";
        cell.appendChild(el("span", { class: "col-grip", title: "Drag to resize the column", onclick: (e) => e.stopPropagation(), onmousedown: (e) => keys.dragColumn(this, e, key, cell) }));
        return cell;
      }),
    );
  }

  /** Re-render the visible rows (`force` = false: only when scrolled out of the rendered band). */
  render(force = true) {
    if (!this.template) return;
    const band = visibleBand(this.scroll, this.head, this.items.length, ROW_H, this.band, force);
    if (!band) return;
    this.band = band;
    const [first, last] = band;
    const nameCell = this.head.firstChild;
    this.nameChars = Math.max(12, Math.floor(((nameCell ? nameCell.offsetWidth : 380) - 70) / monoCharW()));
    const rows = [];
    for (let k = first; k < last; k++) rows.push(this.renderRow(this.items[k], k));
    if (!this.items.length) {
      const why = !this.data ? "" : state.search ? "No method matches the find text." : "No method has time in this selection.";
      if (why) rows.push(el("div", { class: "pt-empty" }, why));
    }
    setChildren(this.inner, rows);
  }

  renderRow(item, k) {
    const cols = this.columns();
    const style = `top:${k * ROW_H}px;grid-template-columns:${this.template}`;
    if (item.type === "note") return el("div", { class: "pt-row note", style }, el("div", { class: "pt-name sub" }, item.text));
    if (item.type === "group") {
      return el("div", { class: "pt-row group " + item.cls, style }, el("div", { class: "pt-name sub" }, item.title));
    }
    const M = this.data.methods;
    const cells = [];
    if (item.type === "method") {
      const m = item.m;
      const open = this.expanded.has(m);
      // a report holds the parents/children of its heaviest methods only: no twisty elsewhere
      const can = open || api.has("/api/relations/" + m, queryParams());
      const name = el(
        "div",
        { class: "pt-name", title: tooltip(m) },
        el("span", { class: "twisty" + (can ? "" : " leaf"), title: can ? "Parents and children" : "Not in this report: open the trace with `traceview FILE`", onclick: (e) => (e.stopPropagation(), can && this.toggle(m)) }, can ? (open ? "▾" : "▸") : "·"),
        el("span", { class: "swatch", style: "background:" + methodColor(m) }),
        el("span", { class: "rank" }, String(this.rank.get(m))),
        el("span", { class: "lbl", dataset: { full: label(m) } }, marked(elideName(label(m), this.nameChars), state.search)),
      );
      cells.push(name);
      const total = this.data.total;
      for (const [key, , , , src] of cols.slice(1)) {
        let text = "";
        if (key === "calls") text = M.calls[item.i] + "+" + M.recursive_calls[item.i];
        else if (key.endsWith("_pct")) text = fmtPct(M[src][item.i], key.includes("cpu") ? total.cpu_us : total.wall_us);
        else text = fmtMs(M[src][item.i]);
        cells.push(el("div", { class: "num" }, text));
      }
      const cls = "pt-row method" + (m === state.selected ? " selected" : "") + (open ? " open" : "") + (k === this.cursor ? " cursor" : "") + (isMatch(m) ? "" : " unmatched");
      return el("div", { class: cls, style, dataset: { method: m }, title: isMatch(m) ? null : "Shown although the find text does not match it: it is selected", onclick: () => ((this.cursor = k), select(m)), ondblclick: () => can && this.toggle(m) }, cells);
    }
    // a parent / child / self row: % of the expanded method's inclusive time
    const r = item.r;
    const top = r.method < 0;
    let name;
    if (item.self) name = el("div", { class: "pt-name rel" }, el("span", { class: "selfname" }, "self"));
    else if (top) name = el("div", { class: "pt-name rel" }, el("span", { class: "selfname" }, "(toplevel)"));
    else {
      name = el(
        "div",
        { class: "pt-name rel", title: tooltip(r.method) },
        el("span", { class: "swatch", style: "background:" + methodColor(r.method) }),
        el("span", { class: "rank" }, this.rank.has(r.method) ? String(this.rank.get(r.method)) : ""),
        el("span", { class: "lbl", dataset: { full: label(r.method) } }, marked(elideName(label(r.method), this.nameChars - 2), state.search)),
      );
    }
    cells.push(name);
    for (const [key] of cols.slice(1)) {
      let text = "";
      if (key === "incl_cpu_pct") text = fmtPct(r.incl_cpu_us, item.rel.incl_cpu_us ?? M.incl_cpu_us[item.of]);
      else if (key === "incl_cpu") text = fmtMs(r.incl_cpu_us);
      else if (key === "incl_wall_pct") text = fmtPct(r.incl_wall_us, item.rel.incl_wall_us ?? M.incl_wall_us[item.of]);
      else if (key === "incl_wall") text = fmtMs(r.incl_wall_us);
      else if (key === "calls") text = item.self ? "" : fmtCount(r.calls) + "/" + fmtCount(r.total_calls);
      cells.push(el("div", { class: "num" }, text));
    }
    const jump = item.self || top ? null : () => this.jump(r.method);
    return el("div", { class: "pt-row rel " + item.cls + (jump ? "" : " nojump") + (k === this.cursor ? " cursor" : ""), style, onclick: jump }, cells);
  }

  /** Select `m`, expand it and scroll to its row (a parent/child row was clicked). */
  jump(m) {
    if (!this.expanded.has(m) && api.has("/api/relations/" + m, queryParams())) this.fetchRelations(m);
    select(m);
    this.rebuild();
    this.reveal(m);
    this.cursor = this.items.findIndex((it) => it.type === "method" && it.m === m);
    this.render();
  }

  reveal(m) {
    const k = this.items.findIndex((it) => it.type === "method" && it.m === m);
    if (k < 0) return;
    const y = k * ROW_H + this.head.offsetHeight;
    const view = this.scroll.clientHeight;
    if (y < this.scroll.scrollTop + this.head.offsetHeight || y + ROW_H > this.scroll.scrollTop + view) {
      this.scroll.scrollTop = Math.max(0, y - view / 3);
    }
    this.render();
  }

  /** Select the next method row matching the find text after the current selection. */
  nextMatch(dir) {
    const ms = this.items.filter((it) => it.type === "method").map((it) => it.m);
    if (!ms.length) return;
    const at = ms.indexOf(state.selected);
    const next = ms[(at + (dir || 1) + ms.length) % ms.length];
    select(next);
  }

  moveTo(k) {
    keys.moveTo(this, k);
  }

  onKey(e) {
    keys.onKey(this, e);
  }
}
