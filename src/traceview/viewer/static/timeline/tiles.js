// Level-of-detail tiles of the timeline (/api/timeline, /api/highlight): which tiles cover a
// viewport at a bucket of about one pixel, a cache of loaded tiles, and coarser fallbacks.
// The tiling (buckets per tile, deepest level) is the server's: /api/trace `tiles`.

import * as api from "../lib/api.js";

/** The level whose bucket is at most one pixel for a `viewUs`-wide view over `px` pixels of a
 * `spanUs` trace; `tiling` is /api/trace's `tiles` ({buckets, max_level}). */
export function levelFor(tiling, spanUs, viewUs, px) {
  if (spanUs <= 0 || viewUs <= 0) return 0;
  const want = (spanUs * Math.max(px, 1)) / (tiling.buckets * viewUs);
  return Math.max(0, Math.min(tiling.max_level, Math.ceil(Math.log2(Math.max(want, 1)))));
}

/** The tile indices [first, last] of `level` covering [v0, v1] inside [start, end), always
 * tiles that exist (a view past either end of the trace gets the tile at that end). */
export function tilesFor(start, end, level, v0, v1) {
  const n = Math.pow(2, level);
  const ts = (end - start) / n;
  const at = (v) => Math.min(n - 1, Math.max(0, Math.floor((v - start) / ts)));
  return [at(v0), at(v1)];
}

const TIMELINE = "/api/timeline";

/** Cache of tiles for one trace, by request key (`api.keyOf`); `onLoad(path, params,
 * answer|null)` runs when a request settles; `get(path, params)` asks for an answer (the API
 * client's by default). */
export class TileCache {
  constructor(onLoad, get = api.get) {
    this.onLoad = onLoad;
    this.get = get;
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
    this.get(path, params).then(
      (answer) => {
        if (gen !== this.gen) return;
        this.pending.delete(key);
        this.data.set(key, answer);
        if (this.data.size > 3000) this.data.delete(this.data.keys().next().value);
        this.onLoad(path, params, answer);
      },
      (err) => {
        if (gen !== this.gen) return;
        this.pending.delete(key);
        this.failed.set(key, api.failureNote(err));
        this.onLoad(path, params, null);
      },
    );
  }

  /** Tile (thread, level, k) if loaded; otherwise request it and return the nearest coarser
   * loaded tile covering it (or null). */
  tile(thread, level, k) {
    const params = { thread, level, tile: k };
    const key = api.keyOf(TIMELINE, params);
    const hit = this.data.get(key);
    if (hit) return hit;
    this._request(key, TIMELINE, params);
    for (let l = level - 1; l >= 0; l--) {
      const up = this.data.get(api.keyOf(TIMELINE, { thread, level: l, tile: Math.floor(k / Math.pow(2, level - l)) }));
      if (up) return up;
    }
    return null;
  }

  /** Highlight extents of `method` in one tile, or null while loading. */
  highlight(method, thread, level, k) {
    const path = "/api/highlight/" + method;
    const params = { thread, level, tile: k };
    const key = api.keyOf(path, params);
    const hit = this.data.get(key);
    if (hit) return hit;
    this._request(key, path, params);
    return null;
  }

  /** Why tile (thread, level, k) could not be loaded, or null. */
  failure(thread, level, k) {
    return this.failed.get(api.keyOf(TIMELINE, { thread, level, tile: k })) || null;
  }
}
