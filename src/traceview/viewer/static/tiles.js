// Level-of-detail tiles of the timeline (/api/timeline, /api/highlight): which tiles cover a
// viewport at a bucket of about one pixel, a cache of loaded tiles, and coarser fallbacks.

import * as api from "./api.js";

export const BUCKETS = 1024; // buckets per tile (docs/web-api.md)
const MAX_LEVEL = 40;

/** The level whose bucket is at most one pixel for a `viewUs`-wide view over `px` pixels. */
export function levelFor(spanUs, viewUs, px) {
  if (spanUs <= 0 || viewUs <= 0) return 0;
  const want = (spanUs * Math.max(px, 1)) / (BUCKETS * viewUs);
  return Math.max(0, Math.min(MAX_LEVEL, Math.ceil(Math.log2(Math.max(want, 1)))));
}

/** The tile indices [first, last] of `level` covering [v0, v1] inside [start, end). */
export function tilesFor(start, end, level, v0, v1) {
  const n = Math.pow(2, level);
  const ts = (end - start) / n;
  const first = Math.max(0, Math.floor((v0 - start) / ts));
  const last = Math.min(n - 1, Math.floor((v1 - start) / ts));
  return [first, last];
}

/** Cache of tiles for one trace; `onLoad(key, answer|null)` runs when a request settles. */
export class TileCache {
  constructor(onLoad) {
    this.onLoad = onLoad;
    this.data = new Map(); // key -> answer
    this.pending = new Set();
    this.failed = new Map(); // key -> message
    this.gen = 0; // bumped by clear(): answers to older requests are dropped
  }

  clear() {
    this.gen++;
    this.data.clear();
    this.pending.clear();
    this.failed.clear();
  }

  _request(key, path, params) {
    if (this.data.has(key) || this.pending.has(key) || this.failed.has(key)) return;
    this.pending.add(key);
    const gen = this.gen;
    api.get(path, params).then(
      (answer) => {
        if (gen !== this.gen) return;
        this.pending.delete(key);
        this.data.set(key, answer);
        if (this.data.size > 3000) this.data.delete(this.data.keys().next().value);
        this.onLoad(key, answer);
      },
      (err) => {
        if (gen !== this.gen) return;
        this.pending.delete(key);
        this.failed.set(key, api.failureNote(err));
        this.onLoad(key, null);
      },
    );
  }

  /** Tile (thread, level, k) if loaded; otherwise request it and return the nearest coarser
   * loaded tile covering it (or null). */
  tile(thread, level, k) {
    const key = "t" + thread + "/" + level + "/" + k;
    const hit = this.data.get(key);
    if (hit) return hit;
    this._request(key, "/api/timeline", { thread, level, tile: k });
    for (let l = level - 1; l >= 0; l--) {
      const up = this.data.get("t" + thread + "/" + l + "/" + Math.floor(k / Math.pow(2, level - l)));
      if (up) return up;
    }
    return null;
  }

  /** Highlight extents of `method` in one tile, or null while loading. */
  highlight(method, thread, level, k) {
    const key = "h" + method + "/" + thread + "/" + level + "/" + k;
    const hit = this.data.get(key);
    if (hit) return hit;
    this._request(key, "/api/highlight/" + method, { thread, level, tile: k });
    return null;
  }

  failure(thread, level, k) {
    return this.failed.get("t" + thread + "/" + level + "/" + k) || null;
  }
}
