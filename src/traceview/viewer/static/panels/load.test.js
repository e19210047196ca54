// Unit tests of the panels' one load cycle (run by `node --test`).

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { PanelLoad } from "./load.js";

/** A panel's root element: shown or hidden, with a class list. */
function root(shown) {
  const classes = new Set();
  return {
    offsetParent: shown ? {} : null,
    classList: { add: (c) => classes.add(c), remove: (c) => classes.delete(c), contains: (c) => classes.has(c) },
  };
}

/** A get the test settles by hand, in any order. */
function manualGet() {
  const asked = [];
  const get = (path, params) => new Promise((resolve, reject) => asked.push({ path, params, resolve, reject }));
  return { get, asked };
}

function panel(shown, request = () => ["/api/flame", { kind: "graph" }]) {
  const { get, asked } = manualGet();
  const seen = [];
  const el = root(shown);
  const load = new PanelLoad(el, request, {
    started: () => seen.push("started"),
    loaded: (a) => seen.push(["loaded", a]),
    failed: (e) => seen.push(["failed", e.message]),
    get,
  });
  return { load, el, asked, seen };
}

describe("PanelLoad", () => {
  it("loads a shown panel at once, busy until the answer comes", async () => {
    const { load, el, asked, seen } = panel(true);
    load.invalidate();
    assert.equal(asked.length, 1);
    assert.deepEqual([asked[0].path, asked[0].params], ["/api/flame", { kind: "graph" }]);
    assert.ok(el.classList.contains("busy"));
    asked[0].resolve("tree");
    await Promise.resolve();
    await Promise.resolve();
    assert.deepEqual(seen, ["started", ["loaded", "tree"]]);
    assert.ok(!el.classList.contains("busy"));
    assert.equal(load.show(), false); // current: the caller just paints
  });

  it("waits while hidden and loads once when shown", () => {
    const { load, asked } = panel(false);
    load.invalidate();
    load.invalidate();
    assert.equal(asked.length, 0);
    assert.equal(load.show(), true);
    assert.equal(load.show(), false);
    assert.equal(asked.length, 1);
  });

  it("gives the panel only the latest request's outcome", async () => {
    const { load, asked, seen } = panel(true);
    const first = load.load();
    const gen = load.gen;
    const second = load.load();
    assert.equal(load.current(gen), false);
    asked[1].reject(new Error("bad clock"));
    asked[0].resolve("stale");
    await Promise.all([first, second]);
    assert.deepEqual(seen, ["started", "started", ["failed", "bad clock"]]);
  });

  it("asks for nothing before there is a trace, and stays stale", () => {
    let trace = null;
    const { load, asked } = panel(true, () => (trace ? ["/api/profile", {}] : null));
    load.invalidate();
    assert.equal(asked.length, 0);
    trace = {};
    assert.equal(load.show(), true);
    assert.equal(asked.length, 1);
  });
});
