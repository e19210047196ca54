// Viewer entry point: loads /api/trace + /api/methods, builds the panels and wires the top bar
// (open / drop a trace, clock switch, my-code prefixes, find box, range chip, tabs, theme).

import * as api from "./lib/api.js";
import { el, setChildren } from "./lib/dom.js";
import { CallTree } from "./panels/tree.js";
import { FlameGraph } from "./panels/flame.js";
import { FrameBudget } from "./panels/frames.js";
import { HeaderPanel } from "./panels/header.js";
import { fmtDuration, monotonicNs, plural } from "./lib/format.js";
import { ProfileTable } from "./panels/profile.js";
import { AnrPanel } from "./panels/anr.js";
import { ViewLink } from "./panels/link.js";
import { on, select, setClock, setMycode, setRange, setSearch, setThreads, setTrace, state, tooltip } from "./lib/state.js";
import { savedTheme, setTheme } from "./lib/theme.js";
import { Timeline } from "./timeline/timeline.js";
import { busyOn, sortedThreads } from "./timeline/threadrows.js";
import { cmp, loadCompare, selectPair } from "./compare/state.js";
import { buildCompare, compareWith } from "./compare/wire.js";

const $ = (id) => document.getElementById(id);
const views = {};

function showError(text) {
  const box = $("error");
  box.hidden = !text;
  box.textContent = text || "";
}

const FIRST_ROWS = 32; // about the one-level rows a timeline pane shows at first

/** The threads with records the timeline shows on top by default (sort "busy"). */
function firstRows(trace) {
  const some = trace.threads.filter((t) => t.records);
  return sortedThreads(some, "busy", busyOn(trace.default_clock)).slice(0, FIRST_ROWS);
}

async function loadAll(traceAnswer) {
  const trace = traceAnswer || (await api.get("/api/trace"));
  // the whole-trace tiles of the rows the timeline shows first are asked for now (answers are
  // cached by key), so the server indexes them while it computes the profile the method
  // colours come from; other rows ask as they come into view (hundreds of threads: seconds)
  for (const t of firstRows(trace)) api.get("/api/timeline", { thread: t.row, level: 0, tile: 0 }).catch(() => {});
  const methods = await api.get("/api/methods");
  api.setDefaultClock(trace.default_clock);
  await loadCompare(trace); // compare mode: the candidate's trace and methods, before "trace"
  document.title = "traceview — " + (trace.source || "trace");
  $("source").textContent = trace.source || "";
  $("source").title = trace.source || "";
  setTrace(trace, methods);
  renderClock();
  document.body.classList.toggle("report", !trace.live);
  $("open-btn").hidden = trace.can_open === false; // the service: each trace has its own page
}

function renderClock() {
  const clocks = state.trace.clocks;
  const names = { cpu: "Thread CPU", wall: "Wall" };
  setChildren(
    $("clock"),
    ["cpu", "wall"].map((c) =>
      el(
        "button",
        {
          class: c === state.clock ? "on" : "",
          disabled: !clocks.includes(c),
          title: clocks.includes(c) ? "Aggregate on " + names[c] + " time" : "This trace has no " + names[c] + " clock",
          dataset: { clock: c },
          onclick: () => {
            setClock(c);
            renderClock();
          },
        },
        names[c],
      ),
    ),
  );
}

function renderRange() {
  const chip = $("range");
  if (!state.range) {
    chip.hidden = true;
    return;
  }
  const base = state.trace.time.start_us;
  chip.hidden = false;
  // the range's ends on CLOCK_MONOTONIC in ns, as Perfetto's timestamps (when the trace says)
  const mono = state.range.map((us) => monotonicNs(state.trace, us));
  setChildren(
    chip,
    "Range " + fmtDuration(state.range[0] - base) + " – " + fmtDuration(state.range[1] - base) + " (" + fmtDuration(state.range[1] - state.range[0]) + ")",
    mono[0] === null ? null : el("span", { class: "muted range-mono", title: "The range on CLOCK_MONOTONIC (ns since boot), as Perfetto and logcat -v monotonic show it" }, "CLOCK_MONOTONIC " + mono[0] + " – " + mono[1] + " ns"),
    el("button", { class: "chip-btn", title: "Zoom the timeline to the range", onclick: () => views.timeline.setView(state.range[0], state.range[1]) }, "zoom"),
    el("button", { class: "chip-btn", title: "Clear the range (whole trace)", id: "range-clear", onclick: () => setRange(null) }, "×"),
  );
}

function renderThreadsChip() {
  const chip = $("threads-chip");
  const n = state.trace.threads.length;
  chip.hidden = !state.threads;
  if (state.threads) {
    const one = state.threads.size === 1 ? state.trace.threads[[...state.threads][0]] : null;
    const what = one ? "Only " + one.label : state.threads.size + " of " + n + " threads";
    setChildren(chip, what + " (percentages of " + (one ? "this thread" : "these") + ")", el("button", { class: "chip-btn", id: "threads-all", title: "All threads again", onclick: () => setThreads(null) }, "all threads"));
  }
}

let currentTab = "profile";

function showTab(name) {
  currentTab = name;
  for (const b of document.querySelectorAll(".tabs button")) b.classList.toggle("on", b.dataset.tab === name);
  if (views.link) views.link.changed();
  for (const p of document.querySelectorAll(".tab")) p.hidden = p.id !== "tab-" + name;
  const v = views[name];
  if (v && v.show) v.show();
  if (name === "chart") views.chart.layout();
  try {
    localStorage.setItem("traceview.tab", name);
  } catch (_e) {
    /* ignore */
  }
}

async function openFile(file) {
  if (!file) return;
  showError("");
  $("source").textContent = "opening " + file.name + "…";
  try {
    const answer = await api.openTrace(file);
    await loadAll(answer);
  } catch (err) {
    $("source").textContent = state.trace ? state.trace.source || "" : "";
    showError("Could not open " + file.name + ": " + (err && err.message ? err.message : String(err)));
  }
}

function wireTop() {
  $("open-btn").addEventListener("click", () => $("open-file").click());
  $("open-file").addEventListener("change", (e) => {
    openFile(e.target.files[0]);
    e.target.value = "";
  });
  $("compare-btn").addEventListener("click", () => $("compare-file").click());
  $("compare-file").addEventListener("change", (e) => {
    compareWith(e.target.files[0], loadAll, showError, showTab);
    e.target.value = "";
  });
  let depth = 0;
  const overlay = $("drop");
  document.addEventListener("dragenter", (e) => {
    if (!e.dataTransfer || ![...e.dataTransfer.types].includes("Files")) return;
    depth++;
    overlay.hidden = false;
  });
  document.addEventListener("dragleave", () => {
    depth = Math.max(0, depth - 1);
    if (!depth) overlay.hidden = true;
  });
  document.addEventListener("dragover", (e) => e.preventDefault());
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    depth = 0;
    overlay.hidden = true;
    const f = e.dataTransfer && e.dataTransfer.files[0];
    const toCompare = e.target && e.target.closest && e.target.closest("#drop-compare");
    if (f && toCompare && state.trace) compareWith(f, loadAll, showError, showTab);
    else if (f) openFile(f);
  });
  const mycode = $("mycode");
  try {
    mycode.value = localStorage.getItem("traceview.mycode") || "";
  } catch (_e) {
    mycode.value = "";
  }
  state.mycode = mycode.value;
  mycode.addEventListener("change", () => setMycode(mycode.value));
  const find = $("find");
  find.addEventListener("input", () => setSearch(find.value));
  find.addEventListener("keydown", (e) => {
    if (e.key === "Enter") (views[currentTab] && views[currentTab].nextMatch ? views[currentTab] : views.profile).nextMatch(e.shiftKey ? -1 : 1);
    else if (e.key === "Escape") {
      find.value = "";
      setSearch("");
    }
  });
  document.addEventListener("keydown", (e) => {
    const typing = e.target && ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName);
    if (e.key === "Escape" && !help.hidden) help.hidden = true;
    else if (e.key === "Escape" && !typing) {
      if (cmp.on) selectPair(-1, -1);
      else select(-1);
    }
    if (e.key === "?" && !typing) help.hidden = !help.hidden;
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "f") {
      e.preventDefault();
      find.focus();
      find.select();
    }
  });
  $("theme").addEventListener("click", () => setTheme(document.documentElement.dataset.theme === "dark" ? "light" : "dark"));
  for (const b of document.querySelectorAll(".tabs button")) b.addEventListener("click", () => showTab(b.dataset.tab));
  $("tl-sort").addEventListener("change", (e) => views.timeline.setSort(e.target.value));
  $("tl-reset").addEventListener("click", () => views.timeline.resetView());
  $("tl-range").addEventListener("click", () => setRange(views.timeline.view.slice()));
  $("tl-main").addEventListener("click", () => {
    const main = state.trace.threads.find((t) => t.main);
    if (main) setThreads(new Set([main.row]));
  });
  const help = $("help");
  $("help-btn").addEventListener("click", () => (help.hidden = !help.hidden));
  help.addEventListener("click", () => (help.hidden = true));
  wireSplitter();
}

function wireSplitter() {
  const split = $("splitter");
  const top = $("top-pane");
  split.addEventListener("mousedown", (e) => {
    e.preventDefault();
    const y0 = e.clientY;
    const h0 = top.getBoundingClientRect().height;
    const move = (ev) => (top.style.height = Math.max(80, h0 + ev.clientY - y0) + "px");
    const up = () => {
      window.removeEventListener("mousemove", move);
      window.removeEventListener("mouseup", up);
    };
    window.addEventListener("mousemove", move);
    window.addEventListener("mouseup", up);
  });
}

function buildViews() {
  views.timeline = new Timeline($("timeline"), { onView: (v) => link(true, v) });
  const link = buildCompare(views);
  const zoomTo = (t0, t1, thread) => views.timeline.zoomTo(t0, t1, thread);
  views.profile = new ProfileTable($("tab-profile"));
  views.flame = new FlameGraph($("tab-flame"));
  views.topdown = new CallTree($("tab-topdown"), "topdown");
  views.bottomup = new CallTree($("tab-bottomup"), "bottomup");
  views.frames = new FrameBudget($("tab-frames"), zoomTo);
  views.header = new HeaderPanel($("tab-header"), $("banners"));
  views.anr = new AnrPanel($("tab-anr"), $("anr-tab"), async (pick) => loadAll(await api.pickProcess(pick)));
  const pick = $("chart-thread");
  views.chart = new Timeline($("chart"), { single: 0 });
  views.chart.root.dataset.keys = "focus";
  pick.addEventListener("change", () => views.chart.setThread(Number(pick.value)));
  on("trace", () => {
    setChildren(pick, state.trace.threads.map((t) => el("option", { value: String(t.row) }, String(t.label))));
    const main = state.trace.threads.find((t) => t.main) || state.trace.threads[0];
    if (main) {
      pick.value = String(main.row);
      views.chart.setThread(main.row);
    }
    renderRange();
    renderThreadsChip();
    renderSelection();
  });
  on("filter", () => {
    renderRange();
    renderThreadsChip();
    renderSelection();
  });
  on("found", (n) => {
    $("find-count").textContent = n === null ? "" : n + " method" + (n === 1 ? "" : "s");
    $("find-count").title = n === null ? "" : "Methods of the profile table whose name contains the find text";
  });
  on("select", () => renderSelection());
  on("frames", () => {
    const f = state.frames;
    $("tl-legend").hidden = !f || !f.calls.call.length;
    if (f) $("tl-legend").lastChild.textContent = plural(f.calls.call.length, "frame") + " over " + f.budget_us / 1000 + " ms";
  });
  on("profile", () => renderSelection()); // new numbers for the selection after a range, clock, threads or trace change
}

/** The selection bar: the selected method's line of the current profile (never older). */
function renderSelection() {
  const box = $("selection");
  const m = state.selected;
  if (m < 0 || !state.methods || m >= state.methods.label.length) return setChildren(box);
  const name = String(state.methods.label[m]);
  box.title = tooltip(m);
  // the selected method's line of the current profile; while a new one loads, no old numbers
  const data = views.profile.root.classList.contains("busy") ? null : views.profile.data;
  const i = data ? data.methods.method.indexOf(m) : -1;
  let stats = "…";
  if (i >= 0) {
    const M = data.methods;
    const incl = state.clock === "cpu" ? M.incl_cpu_us : M.incl_wall_us;
    const n = M.calls[i] + M.recursive_calls[i];
    stats = (incl ? fmtDuration(incl[i]) + " incl " + (state.clock === "cpu" ? "CPU" : "real") + " · " : "") + plural(n, "call");
  } else if (data) stats = "no time in this selection";
  setChildren(box, el("span", { class: "sel-name" }, name), el("span", { class: "sel-stats" }, stats));
}

async function main() {
  setTheme(savedTheme());
  buildViews();
  wireTop();
  let tab = "profile";
  try {
    tab = localStorage.getItem("traceview.tab") || tab;
  } catch (_e) {
    /* ignore */
  }
  if (!document.getElementById("tab-" + tab)) tab = "profile";
  if (api.isReport()) $("open-btn").title = "A static report cannot open other traces; run `traceview FILE`";
  const tabs = [...document.querySelectorAll(".tabs button")].map((b) => b.dataset.tab);
  const link = (views.link = new ViewLink(views, tabs, () => currentTab));
  $("copy-link").addEventListener("click", () => link.copy((text) => ($("copy-link").dataset.done = text)));
  try {
    await loadAll();
    tab = link.restore() || tab; // a link's view (URL fragment) before the saved tab
    renderClock();
    showTab(tab);
    document.body.dataset.ready = "1";
  } catch (err) {
    showError("Could not load the trace: " + api.failureNote(err));
    document.body.dataset.ready = "error";
  }
}

window.traceview = { state, select, views, cmp };
main();
