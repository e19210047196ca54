// ANR panel: for an Android 16 dump (or an ANR report), each thread's calls still running at
// the dump (main first; their times "≥": they had not ended) and the calls over ART's
// threshold with their callers, from /api/anr, each with its start — on CLOCK_MONOTONIC when
// the dump says where it sits there (to line up with logcat and Perfetto); a process picker
// switches to another dump of the same report (POST /api/process).

import * as api from "../lib/api.js";
import { el, note, setChildren } from "../lib/dom.js";
import { fmtDuration, fmtMonotonic } from "../lib/format.js";
import { on, state } from "../lib/state.js";

/** Whether the trace is one the panel has something to say about. */
export function hasAnr(trace) {
  return !!trace && (trace.header.variant === "low-overhead" || (trace.header.processes || []).length > 0);
}

/** "name [id]", or "[id]" for a thread the dump does not name. */
function threadName(t) {
  const bare = "[" + t.id + "]";
  return t.name === bare ? bare : t.name + " " + bare;
}

function dur(us, atLeast) {
  return us === null || us === undefined ? "–" : (atLeast ? "≥ " : "") + fmtDuration(us);
}

const known = (v) => v !== null && v !== undefined;

/** Where a call began: on CLOCK_MONOTONIC when known, else from the trace's start; "≤" when it
 * was already running as tracing began (it began then or earlier). */
function since(us, monoNs, before) {
  if (!known(us)) return "–";
  return (before ? "≤ " : "") + (known(monoNs) ? fmtMonotonic(monoNs) : fmtDuration(us));
}

export class AnrPanel {
  constructor(root, button, reload) {
    this.root = root;
    this.button = button;
    this.reload = reload;
    this.gen = 0;
    root.classList.add("anr");
    on("trace", () => this.refresh());
  }

  refresh() {
    const t = state.trace;
    this.button.hidden = !hasAnr(t);
    this.data = null;
    if (!this.root.hidden) this.load();
  }

  show() {
    if (!this.data) this.load();
  }

  load() {
    if (!hasAnr(state.trace)) return setChildren(this.root, note("Not an Android 16 dump or ANR report."));
    const gen = ++this.gen;
    setChildren(this.root, note("loading…"));
    api.get("/api/anr", {}).then(
      (data) => {
        if (gen !== this.gen) return;
        this.data = data;
        this.render();
      },
      (err) => gen === this.gen && setChildren(this.root, note(api.failureNote(err))),
    );
  }

  picker() {
    const h = state.trace.header;
    const list = h.processes || [];
    if (list.length < 2) return null;
    const select = el(
      "select",
      { class: "anr-process", title: "Another process's dump of this report" },
      list.map((p, i) => el("option", { value: String(i), selected: i === h.process }, (p.name || "(unnamed)") + " (pid " + p.pid + ", " + p.where + ")")),
    );
    select.addEventListener("change", async () => {
      select.disabled = true;
      try {
        await this.reload(Number(select.value));
      } catch (err) {
        select.disabled = false;
        setChildren(this.root, note("Could not switch: " + (err && err.message ? err.message : String(err))));
      }
    });
    if (!state.trace.live) select.disabled = true;
    return el("label", null, "Process ", select);
  }

  render() {
    const d = this.data;
    const mono = d.times && known(d.dump_monotonic_ns);
    const head = [];
    if (d.process) head.push(el("strong", null, d.process.name + " (pid " + d.process.pid + ")"));
    let when = " order of events — this file has no times";
    if (d.times) when = (known(d.dump_us) ? " dump at " + fmtDuration(d.dump_us) : "") + (mono ? " · CLOCK_MONOTONIC " + fmtMonotonic(d.dump_monotonic_ns) : "");
    head.push(el("span", { class: "muted" }, when));
    const fromHead = "from" + (mono ? " (CLOCK_MONOTONIC)" : "");
    const stacks = d.open.map((s) =>
      el(
        "section",
        { class: "anr-stack" },
        el("h4", null, threadName(s.thread) + (s.thread.main ? " (main)" : "")),
        el(
          "table",
          { class: "anr-frames" },
          d.times ? el("thead", null, el("tr", null, el("th", { class: "num" }, "ran"), el("th", null, fromHead), el("th", null, "method"))) : null,
          el(
            "tbody",
            null,
            s.frames.map((f, depth) =>
              el(
                "tr",
                { class: "anr-open", title: "Still running at the dump: it had run at least this long" + (f.before_tracing ? "; already running when tracing began" : "") },
                el("td", { class: "num" }, dur(f.open_us, f.at_least)),
                d.times ? el("td", { class: "num anr-since" }, since(f.start_us, f.start_monotonic_ns, f.before_tracing)) : null,
                el("td", { style: "padding-left:" + depth + "em" }, f.method),
              ),
            ),
          ),
        ),
      ),
    );
    const slow = d.times
      ? el(
          "section",
          { class: "anr-slow" },
          el("h4", null, "Calls of " + fmtDuration(d.threshold_us) + " or more: " + d.slow_total + (d.slow.length < d.slow_total ? " (the " + d.slow.length + " longest)" : "")),
          d.slow.map((c) => el("details", null, el("summary", null, dur(c.duration_us, c.at_least) + " · from " + since(c.start_us, c.start_monotonic_ns, c.at_least) + " · " + threadName(c.thread) + " · " + c.method), el("ul", null, c.callers.map((m) => el("li", null, "at " + m))))),
        )
      : null;
    setChildren(
      this.root,
      el("div", { class: "subbar" }, this.picker(), head),
      el("h3", null, "Still running at the dump (outermost first; ≥: each had run at least this long, it had not ended)"),
      stacks.length ? stacks : note("No call was open."),
      slow,
    );
  }
}
