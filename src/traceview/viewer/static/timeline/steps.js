// Stepping through the selected method's calls on a timeline (Enter / Shift+Enter, as in
// Android Studio's "next occurrence"), F to zoom to the call reached or clicked, R to make it
// the range: the server finds the calls (/api/step), this module keeps the one reached.

import * as api from "../lib/api.js";
import { on, setRange } from "../lib/state.js";

export class CallSteps {
  /** `timeline`: the Timeline whose view follows the calls (setView, zoomTo, view, rows). */
  constructor(timeline) {
    this.tl = timeline;
    this.call = null; // {row, method, thread, depth, start_us, end_us, index, count}
    this.gen = 0;
    on("select", () => {
      if (this.call && this.call.method !== this.tl.src.selected()) this.call = null;
    });
    on("trace", () => (this.call = null));
    on("filter", () => this.call && (this.call.index = null)); // other threads: count again
  }

  /** The call a click hit (`hit` of Timeline.hitTest) becomes the one to step from. */
  pick(hit) {
    this.call = hit && hit.call !== undefined ? { row: hit.call, method: hit.method, thread: hit.thread, depth: hit.depth, start_us: hit.start, end_us: hit.end, index: null, count: null } : null;
  }

  /** Go to the next (`dir` 1) or previous (-1) call of the selected method. */
  async step(dir) {
    const src = this.tl.src; // the shown trace, or a compared side (its own rows and API)
    const m = src.selected();
    if (m < 0) return "select a method first";
    const params = { dir };
    const mine = this.call && this.call.method === m;
    if (mine && this.call.index !== null) params.index = this.call.index;
    else params.at = mine ? this.call.start_us : dir > 0 ? this.tl.view[0] : this.tl.view[1];
    const threads = src.threads();
    if (threads) params.threads = [...threads].sort((a, b) => a - b).join(",");
    const gen = ++this.gen;
    let answer;
    try {
      answer = await src.get("/api/step/" + m, params);
    } catch (err) {
      return api.failureNote(err);
    }
    if (gen !== this.gen) return null;
    if (!answer.call) return dir > 0 ? "no later call" : "no earlier call";
    this.call = { ...answer.call, method: m, count: answer.count };
    this.reveal();
    return null;
  }

  /** Keep the view's zoom and bring the call into it (centred when it was out of view). */
  reveal() {
    const c = this.call;
    const [v0, v1] = this.tl.view;
    const w = v1 - v0;
    this.tl.showDepth(c.thread, c.depth);
    if (c.end_us - c.start_us > w) return this.tl.zoomTo(c.start_us, c.end_us, c.thread);
    const a = c.start_us < v0 || c.end_us > v1 ? (c.start_us + c.end_us) / 2 - w / 2 : v0;
    this.tl.setView(a, a + w);
    this.tl.showThread(c.thread);
    this.tl.showDepth(c.thread, c.depth);
  }

  /** F: zoom to the call. */
  zoom() {
    if (this.call) this.tl.zoomTo(this.call.start_us, this.call.end_us, this.call.thread);
  }

  /** R: the call's time becomes the range every view covers. */
  toRange() {
    if (this.call && this.tl.src.ranges()) setRange([this.call.start_us, this.call.end_us]);
  }

  /** A few words on where the steps are ("call 3 of 12"), "" with none. */
  where() {
    const c = this.call;
    return c && c.index !== null && c.count ? "call " + (c.index + 1) + " of " + c.count : c ? "call picked" : "";
  }
}
