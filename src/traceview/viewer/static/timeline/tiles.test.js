// Unit tests of the timeline's tile maths and tile cache (run by `node --test`).

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { keyOf } from "../lib/api.js";
import { levelFor, TileCache, tilesFor } from "./tiles.js";

const TILING = { buckets: 1024, max_level: 40 }; // as /api/trace sends it

describe("levelFor", () => {
  it("draws the whole trace from level 0 while a bucket is at most a pixel", () => {
    assert.equal(levelFor(TILING, 5000, 5000, 1024), 0);
    assert.equal(levelFor(TILING, 5000, 5000, 800), 0);
    assert.equal(levelFor(TILING, 5000, 5000, 1025), 1);
  });

  it("goes one level finer for each halving of the view", () => {
    assert.equal(levelFor(TILING, 1e6, 1e6 / 2, 1024), 1);
    assert.equal(levelFor(TILING, 1e6, 1e6 / 8, 1024), 3);
    assert.equal(levelFor(TILING, 1e6, 1e6 / 8, 1000), 3);
    assert.equal(levelFor(TILING, 1e6, 1e6 / 9, 1024), 4);
  });

  it("follows the server's tiling, not a copy", () => {
    assert.equal(levelFor({ buckets: 256, max_level: 40 }, 5000, 5000, 1024), 2);
    assert.equal(levelFor({ buckets: 1024, max_level: 3 }, 1e9, 1, 1024), 3);
  });

  it("stays within [0, max_level] for any view", () => {
    assert.equal(levelFor(TILING, 1e12, 1e-6, 4000), 40);
    assert.equal(levelFor(TILING, 0, 10, 1024), 0);
    assert.equal(levelFor(TILING, 10, 0, 1024), 0);
    assert.equal(levelFor(TILING, 10, 1e9, 1024), 0);
  });
});

describe("tilesFor", () => {
  it("covers the view with the tiles of a level", () => {
    assert.deepEqual(tilesFor(0, 1000, 0, 0, 1000), [0, 0]);
    assert.deepEqual(tilesFor(0, 1000, 2, 260, 740), [1, 2]);
    assert.deepEqual(tilesFor(100, 1100, 2, 350, 350), [1, 1]);
  });

  it("clips a view reaching past the trace to its tiles", () => {
    assert.deepEqual(tilesFor(0, 1000, 3, -500, 5000), [0, 7]);
    // a pointer at or past the end (the view has a margin) still names a tile that exists
    assert.deepEqual(tilesFor(0, 1000, 1, 1000, 1000), [1, 1]);
    assert.deepEqual(tilesFor(0, 1000, 2, 1040, 1040), [3, 3]);
    assert.deepEqual(tilesFor(0, 1000, 2, -40, -10), [0, 0]);
  });
});

/** A get whose answers the test settles by hand: `pending[key]` = {resolve, reject}. */
function manualGet() {
  const pending = new Map();
  const asked = [];
  const get = (path, params) => {
    asked.push(keyOf(path, params));
    return new Promise((resolve, reject) => pending.set(keyOf(path, params), { resolve, reject }));
  };
  return { get, pending, asked };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("TileCache", () => {
  it("asks once per tile and hands out the nearest coarser tile meanwhile", async () => {
    const { get, pending, asked } = manualGet();
    const loads = [];
    const cache = new TileCache((path, params, answer) => loads.push([path, params.level, answer]), get);
    assert.equal(cache.tile(0, 0, 0), null);
    assert.equal(cache.tile(0, 0, 0), null);
    assert.deepEqual(asked, ["/api/timeline?level=0&thread=0&tile=0"]);
    pending.get(asked[0]).resolve("whole");
    await tick();
    assert.deepEqual(loads, [["/api/timeline", 0, "whole"]]);
    assert.equal(cache.tile(0, 3, 5), "whole"); // level 3 asked for, level 0 drawn meanwhile
    assert.equal(asked[1], "/api/timeline?level=3&thread=0&tile=5");
    pending.get(asked[1]).resolve("fine");
    await tick();
    assert.equal(cache.tile(0, 3, 5), "fine");
    assert.equal(cache.tile(1, 3, 5), null); // another thread has nothing loaded
  });

  it("remembers why a tile failed and does not ask again", async () => {
    const { get, pending, asked } = manualGet();
    const cache = new TileCache(() => {}, get);
    cache.tile(2, 1, 1);
    pending.get(asked[0]).reject(new Error("boom"));
    await tick();
    assert.match(cache.failure(2, 1, 1), /boom/);
    assert.equal(cache.failure(2, 1, 0), null);
    cache.tile(2, 1, 1);
    assert.equal(asked.length, 1);
  });

  it("drops answers to requests made before clear()", async () => {
    const { get, pending, asked } = manualGet();
    const loads = [];
    const cache = new TileCache((...a) => loads.push(a), get);
    cache.tile(0, 0, 0);
    cache.clear();
    pending.get(asked[0]).resolve("old trace");
    await tick();
    assert.deepEqual(loads, []);
    assert.equal(cache.tile(0, 0, 0), null);
  });

  it("keeps a method's highlight extents per tile", async () => {
    const { get, pending, asked } = manualGet();
    const cache = new TileCache(() => {}, get);
    assert.equal(cache.highlight(7, 0, 2, 1), null);
    assert.deepEqual(asked, ["/api/highlight/7?level=2&thread=0&tile=1"]);
    pending.get(asked[0]).resolve({ start: [1], end: [2] });
    await tick();
    assert.deepEqual(cache.highlight(7, 0, 2, 1), { start: [1], end: [2] });
  });
});
