// Compare mode's Diff tab: every method of both sides from /api/compare with its state, both
// sides' medians, Δ, Δ % and significance; filters (all, changed, new, gone, slower, faster),
// sortable columns (Δ, Δ %, significance, name), the gated metric's switch, and a click that
// selects the method on both sides (timelines, flame graphs).

import * as api from "../lib/api.js";
import { el, note, setChildren } from "../lib/dom.js";
import { fmtDuration } from "../lib/format.js";
import { on, state } from "../lib/state.js";
import { changeFill, filterRows, fmtDelta, fmtRel, sortRows } from "../compare/logic.js";
import { cmp, compareParams, selectPair, setMetric } from "../compare/state.js";
import { PanelLoad } from "./load.js";

const SHOWN = 1000; // rows drawn at most (the filters and sorts narrow the rest)
const FILTERS = ["all", "changed", "new", "gone", "slower", "faster"];
const COLUMNS = [
  // [key, heading, sort key or null, title]
  ["state", "State", null, "new / gone: on one side only; slower / faster: beyond the threshold and the run-to-run spread"],
  ["name", "Method", "name", "class.method signature"],
  ["base", "Base", null, "baseline median"],
  ["cand", "Cand", null, "candidate median"],
  ["delta", "Δ", "delta", "candidate − baseline"],
  ["rel", "Δ %", "rel", "relative change"],
  ["sig", "t", "sig", "t of the change (significant: beyond the run-to-run spread)"],
  ["calls", "Calls", null, "median calls, baseline → candidate"],
];

/** A relative change in % as the flame graph's intensity: min(1, |log2(1 + pct/100)|). */
function intensityOf(pct) {
  if (pct === null || pct === undefined) return 1;
  return Math.min(1, Math.abs(Math.log2(Math.max(1 + pct / 100, 1e-9))));
}

export class DiffPanel {
  constructor(root) {
    this.root = root;
    this.data = null;
    this.filter = "all";
    this.sort = "delta";
    this.asc = false;
    root.classList.add("diff");
    this.loader = new PanelLoad(root, () => this.request(), {
      started: () => setChildren(this.body, note("loading…")),
      loaded: (data) => {
        this.data = data;
        this.render();
      },
      failed: (err) => {
        this.data = null;
        setChildren(this.body, note(api.failureNote(err)));
      },
    });
    this.filters = el("span", { class: "seg", role: "group", "aria-label": "Filter" });
    this.metrics = el("span", { class: "seg", role: "group", "aria-label": "Metric" });
    this.summary = el("span", { class: "muted diff-summary" });
    this.body = el("div", { class: "diff-body" });
    setChildren(root, el("div", { class: "subbar" }, this.filters, this.metrics, this.summary), this.body);
    on("trace", () => this.invalidate());
    on("filter", () => this.invalidate());
    on("select", () => this.markSelected());
    on("metric", () => this.invalidate());
  }

  request() {
    if (!cmp.on || !state.trace) return null;
    return ["/api/compare", compareParams()];
  }

  invalidate() {
    this.loader.invalidate();
  }

  show() {
    if (!this.loader.show() && this.data) this.render();
  }

  setFilter(f) {
    this.filter = f;
    this.render();
  }

  setSort(key) {
    if (this.sort === key) this.asc = !this.asc;
    else [this.sort, this.asc] = [key, key === "name"];
    this.render();
  }

  render() {
    const d = this.data;
    if (!d) return;
    const M = d.methods;
    const count = (f) => (f === "all" ? M.state.length : filterRows(M, f).length);
    setChildren(
      this.filters,
      FILTERS.map((f) => el("button", { class: f === this.filter ? "on" : "", dataset: { filter: f }, onclick: () => this.setFilter(f) }, f + " " + count(f))),
    );
    const words = { excl: "Exclusive", incl: "Inclusive" };
    setChildren(
      this.metrics,
      ["excl", "incl"].map((m) => el("button", { class: m === cmp.metric ? "on" : "", dataset: { metric: m }, title: "Compare " + words[m].toLowerCase() + " time", onclick: () => setMetric(m) }, words[m])),
    );
    const runs = d.baseline.length + " vs " + d.candidate.length + " run" + (d.candidate.length > 1 ? "s" : "");
    const spread = d.spread_known ? ["significant beyond t = " + d.critical_t.toFixed(2)] : [];
    this.summary.textContent = [runs, d.clock + " clock", ...spread, ...d.notes].join(" · ");
    this.summary.title = this.summary.textContent;
    const rows = sortRows(M, filterRows(M, this.filter), this.sort, d.metric, this.asc);
    const head = el(
      "tr",
      null,
      COLUMNS.map(([key, text, sortKey, title]) => {
        const arrow = sortKey && sortKey === this.sort ? (this.asc ? " ▲" : " ▼") : "";
        const attrs = { title, class: sortKey ? "sortable" : "", dataset: { col: key } };
        if (sortKey) {
          attrs.dataset.sort = sortKey;
          attrs.onclick = () => this.setSort(sortKey);
        }
        return el("th", attrs, text + arrow);
      }),
    );
    const m = d.metric;
    const body = rows.slice(0, SHOWN).map((i) => {
      const st = M.state[i];
      const t = M[m + "_t"][i];
      const tr = el(
        "tr",
        { dataset: { row: String(i), state: st }, onclick: () => selectPair(M.base_method[i], M.cand_method[i]) },
        el("td", null, el("span", { class: "diff-state", style: "background:" + changeFill(st, intensityOf(M[m + "_rel"][i])) }, st)),
        el("td", { class: "diff-name", title: String(M.label[i]) }, String(M.label[i])),
        el("td", { class: "num" }, M.state[i] === "new" ? "–" : fmtDuration(M[m + "_base"][i])),
        el("td", { class: "num" }, M.state[i] === "gone" ? "–" : fmtDuration(M[m + "_cand"][i])),
        el("td", { class: "num" }, fmtDelta(M[m + "_delta"][i])),
        el("td", { class: "num" }, fmtRel(M[m + "_rel"][i], st)),
        el("td", { class: "num" + (M[m + "_sig"][i] ? " sig" : "") }, t === null ? "–" : t.toFixed(1)),
        el("td", { class: "num" }, (M.calls_base[i] ?? 0) + " → " + (M.calls_cand[i] ?? 0)),
      );
      return tr;
    });
    const more = rows.length > SHOWN ? note(rows.length - SHOWN + " more rows: filter or sort to see them") : null;
    const empty = rows.length ? null : note("No method is " + this.filter + ".");
    this.table = el("table", { class: "diff-table" }, el("thead", null, head), el("tbody", null, body));
    setChildren(this.body, el("div", { class: "diff-scroll" }, this.table, empty, more));
    this.markSelected();
  }

  markSelected() {
    if (!this.table || !this.data) return;
    const M = this.data.methods;
    const cand = cmp.selected();
    for (const tr of this.table.tBodies[0].rows) {
      const i = Number(tr.dataset.row);
      const b = M.base_method[i];
      const c = M.cand_method[i];
      tr.classList.toggle("on", (b >= 0 && b === state.selected) || (b < 0 && c >= 0 && c === cand));
    }
  }
}
