// Unit tests of the view in the URL (run by `node --test`).

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { decodeView, encodeView } from "./urlstate.js";

const LIMITS = { clocks: ["cpu", "wall"], threads: 12, methods: 900, tabs: ["profile", "flame", "topdown"] };

describe("encodeView / decodeView", () => {
  it("round-trips a whole view", () => {
    const v = { clock: "wall", threads: [3, 0], range: [1.5, 20.25], tab: "topdown", method: 42, view: [0, 100.0004], flame: [10, 20] };
    const text = encodeView(v);
    assert.equal(text, "clock=wall&threads=0,3&range=1.5,20.25&tab=topdown&m=42&view=0,100&flame=10,20");
    assert.deepEqual(decodeView("#" + text, LIMITS), { clock: "wall", threads: [0, 3], range: [1.5, 20.25], tab: "topdown", method: 42, view: [0, 100], flame: [10, 20] });
  });
  it("leaves out what the view does not have", () => {
    assert.equal(encodeView({ clock: "cpu", threads: null, range: null, tab: "profile", method: -1 }), "clock=cpu&tab=profile");
    assert.deepEqual(decodeView("", LIMITS), { clock: null, threads: null, range: null, tab: null, method: null, view: null, flame: null });
  });
  it("reads a bad or foreign part as absent", () => {
    const v = decodeView("clock=gpu&threads=1,99&range=5,2&tab=<script>&m=-3&view=a,b&flame=1", LIMITS);
    assert.deepEqual(v, { clock: null, threads: null, range: null, tab: null, method: null, view: null, flame: null });
    assert.equal(decodeView("m=900", LIMITS).method, null);
    assert.equal(decodeView("m=899", LIMITS).method, 899);
    assert.deepEqual(decodeView("threads=2,2,1", LIMITS).threads, [1, 2]);
  });
});
