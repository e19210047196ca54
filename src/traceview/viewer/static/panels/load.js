// The load cycle every data panel shares: ask for the panel's answer when its selection
// changes (now when shown, else when next shown), mark the panel busy meanwhile, and drop the
// answers of requests overtaken by a newer one.

import * as api from "../lib/api.js";

export class PanelLoad {
  /** `root`: the panel's element (class "busy" while loading; loads wait while it is hidden,
   * `offsetParent` null); `request()`: the [path, params] of the panel's answer now (null:
   * nothing to ask yet, no trace); `started()` (optional, e.g. a "loading…" note), `loaded(answer)`
   * and `failed(error)`: what the panel does as the latest request goes;
   * `get(path, params)`: the API client's by default. */
  constructor(root, request, { started = () => {}, loaded, failed, get = api.get }) {
    this.root = root;
    this.request = request;
    this.started = started;
    this.loaded = loaded;
    this.failed = failed;
    this.get = get;
    this.gen = 0; // bumped by every load: answers to older ones are dropped
    this.dirty = true;
  }

  /** The panel's selection changed: load now if it shows, else when `show` is next called. */
  invalidate() {
    this.dirty = true;
    if (this.root.offsetParent) this.load();
  }

  /** The panel is shown: true when it loads (the answer paints it), false when its answer
   * is current (the caller paints). */
  show() {
    if (!this.dirty || !this.request()) return false;
    this.load();
    return true;
  }

  /** True while this load is the latest (a panel's follow-up requests check it). */
  current(gen) {
    return gen === this.gen;
  }

  /** Ask for the answer now; resolves when the panel has been given the outcome (or the
   * request was overtaken). */
  load() {
    const req = this.request();
    if (!req) return Promise.resolve();
    this.dirty = false;
    const gen = ++this.gen;
    this.root.classList.add("busy");
    this.started();
    return this.get(req[0], req[1]).then(
      (answer) => {
        if (gen !== this.gen) return;
        this.root.classList.remove("busy");
        this.loaded(answer);
      },
      (err) => {
        if (gen !== this.gen) return;
        this.root.classList.remove("busy");
        this.failed(err);
      },
    );
  }
}
