// The view kept in the page's URL as it changes (lib/urlstate.js writes it), put back from the
// URL when the page opens, and the "Copy link" button: a link reopens what its sender saw.

import { decodeView, encodeView } from "../lib/urlstate.js";
import { on, select, setClock, setRange, setThreads, state } from "../lib/state.js";

export class ViewLink {
  /** `views`: the panels (timeline, flame); `tabs`: the tab names; `tab()`: the tab shown. */
  constructor(views, tabs, tab) {
    this.views = views;
    this.tabs = tabs;
    this.tab = tab;
    this.ready = false; // nothing is written before the URL's view is put back
    this.timer = 0;
    for (const ev of ["filter", "select", "trace"]) on(ev, () => this.changed());
    const before = views.timeline.onView; // compare mode links the two timelines through it
    views.timeline.onView = (v) => {
      if (before) before(v);
      this.changed();
    };
    views.flame.onZoom = () => this.changed();
  }

  /** Put back the view the URL holds; returns the tab it names (or null). */
  restore() {
    const trace = state.trace;
    const v = decodeView(location.hash, { clocks: trace.clocks, threads: trace.threads.length, methods: state.methods.label.length, tabs: this.tabs });
    if (v.clock) setClock(v.clock);
    if (v.threads) setThreads(new Set(v.threads));
    if (v.range) setRange(v.range);
    if (v.method !== null) select(v.method);
    if (v.view) this.views.timeline.setView(v.view[0], v.view[1]);
    if (v.flame) this.views.flame.zoomWhenLoaded(v.flame);
    this.ready = true;
    return v.tab;
  }

  /** The view now, as the URL writes it. */
  current() {
    const tl = this.views.timeline;
    const [s, e] = tl.span ? tl.span() : [0, 0];
    const whole = tl.view[0] <= s && tl.view[1] >= e;
    return {
      clock: state.clock,
      threads: state.threads ? [...state.threads] : null,
      range: state.range,
      tab: this.tab(),
      method: state.selected,
      view: whole ? null : tl.view,
      flame: this.views.flame.zoom,
    };
  }

  /** Write the view into the URL soon (a zoom sends many changes; one write covers them). */
  changed() {
    if (!this.ready || !state.trace) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.write(), 150);
  }

  write() {
    const hash = "#" + encodeView(this.current());
    if (hash !== location.hash) history.replaceState(null, "", hash === "#" ? location.pathname + location.search : hash);
  }

  /** Copy the link of the view now; `done(text)` says how it went. */
  async copy(done) {
    this.write();
    try {
      await navigator.clipboard.writeText(location.href);
      done("Link copied");
    } catch (_e) {
      window.prompt("Copy this link:", location.href); // no clipboard (file://, permissions)
      done("");
    }
  }
}
