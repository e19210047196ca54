// Header panel and banners: every key/summary option, the header fields, the threads and the
// reader's diagnostics, shown plainly (overflow, truncation, sampled = estimates).

import { el, setChildren } from "../lib/dom.js";
import { axisName, fmtDuration, fmtMonotonic } from "../lib/format.js";
import { on, state } from "../lib/state.js";

const FIELDS = [
  ["source", "File"],
  ["variant", "Variant"],
  ["version", "Version"],
  ["clock", "Clock"],
  ["vm", "VM"],
  ["pid", "Process id"],
  ["start_time_us", "Start time (µs)"],
  ["elapsed_us", "Elapsed"],
  ["overflow", "Buffer overflow"],
  ["sampled", "Sampled"],
  ["sampling_interval_us", "Sampling interval"],
  ["entry_format", "V2 entry format"],
  ["record_size", "Record size (bytes)"],
];

function show(key, v) {
  if (v === null || v === undefined || v === "") return "–";
  if (key === "elapsed_us" || key === "sampling_interval_us") return fmtDuration(v);
  if (typeof v === "boolean") return v ? "yes" : "no";
  return String(v);
}

function table(head, rows, cls) {
  return el(
    "table",
    { class: "kv " + (cls || "") },
    el("thead", null, el("tr", null, head.map((h) => el("th", null, h)))),
    el("tbody", null, rows.map((r) => el("tr", null, r.map((c) => el("td", null, c))))),
  );
}

export class HeaderPanel {
  constructor(root, banners) {
    this.root = root;
    this.banners = banners;
    root.classList.add("header-panel");
    on("trace", () => this.render());
  }

  render() {
    const t = state.trace;
    const h = t.header;
    const fields = FIELDS.map(([k, name]) => [name, show(k, k === "source" ? t.source : h[k])]);
    const span = t.time.end_us - t.time.start_us;
    const elapsed = fields.find(([name]) => name === "Elapsed");
    if (elapsed && h.elapsed_us && Math.abs(h.elapsed_us - span) > 0.01 * span) {
      // the header's own figure (the recording's length) vs the records' span on the timeline
      elapsed[1] += " (as the header says: the whole recording; the timeline spans the records, " + fmtDuration(span) + ")";
    }
    fields.push(["Clocks", t.clocks.join(", ") || "–"], ["Timeline clock", t.timeline_axis === "reconstructed" ? "thread CPU, axis " + axisName(t) : t.timeline_clock], [t.timeline_axis === "reconstructed" ? "Span (reconstructed axis)" : "Duration", fmtDuration(t.time.end_us - t.time.start_us)]);
    // where the axis sits on CLOCK_MONOTONIC (an Android 16 dump's summary, an ART header's start)
    if (t.time.monotonic_ns !== null && t.time.monotonic_ns !== undefined) fields.push(["Start on CLOCK_MONOTONIC", fmtMonotonic(t.time.monotonic_ns) + " (" + t.time.monotonic_ns + " ns)"]);
    const opts = Object.entries(h.options || {}).map(([k, v]) => [k, String(v)]);
    const threads = t.threads.map((th) => [
      String(th.row),
      String(th.id),
      String(th.name) + (th.main ? "  (main)" : ""),
      String(th.records),
      String(th.calls),
      fmtDuration(th.cpu_us),
      fmtDuration(th.wall_us),
    ]);
    const diags = t.diagnostics.map((d) => [d.code, d.message, d.offset === null || d.offset === undefined ? "" : String(d.offset), d.count === null || d.count === undefined ? "" : String(d.count)]);
    setChildren(
      this.root,
      el("section", null, el("h3", null, "Trace"), table(["Field", "Value"], fields)),
      el("section", null, el("h3", null, "Options (key / summary section)"), opts.length ? table(["Key", "Value"], opts) : el("p", { class: "muted" }, "No options.")),
      el("section", null, el("h3", null, "Diagnostics"), diags.length ? table(["Code", "Message", "Offset", "Count"], diags, "diag") : el("p", { class: "muted" }, "None: the file read cleanly.")),
      el("section", { class: "wide" }, el("h3", null, "Threads"), table(["Row", "Id", "Name", "Records", "Calls", "CPU", "Wall"], threads)),
    );
    this.renderBanners();
  }

  renderBanners() {
    const t = state.trace;
    const h = t.header;
    const out = [];
    if (h.axis === "order") out.push(["info", "Order of events — this file has no times (an Android 16 all-methods dump): the axis counts the calls entered, so widths are call counts; no duration exists."]);
    if (h.overflow) out.push(["warn", "The trace buffer overflowed (data-file-overflow=true): recording stopped early, later activity is missing."]);
    if (t.estimates || h.sampled) {
      const iv = h.sampling_interval_us ? " (interval ≈ " + fmtDuration(h.sampling_interval_us) + ")" : "";
      out.push(["info", "Sampled trace" + iv + ": times and call counts are estimates, not exact."]);
    }
    const n = t.diagnostics.length;
    if (n) {
      const first = t.diagnostics[0];
      out.push(["warn", n + " reader diagnostic" + (n > 1 ? "s" : "") + ": " + first.message + (n > 1 ? " (see Header tab for all)" : "")]);
    }
    setChildren(this.banners, out.map(([cls, text]) => el("div", { class: "banner " + cls }, text)));
  }
}
