// Unit tests of the shared viewer state: the selection's request parameters and its events
// (run by `node --test`).

import assert from "node:assert/strict";
import { beforeEach, describe, it } from "node:test";

import { isMatch, methodColor, on, queryParams, setRange, setSearch, setThreads, setTrace, shortName, state } from "./state.js";

const TRACE = {
  default_clock: "wall",
  palette: ["#111111", "#222222"],
  threads: [{ row: 0 }, { row: 1 }, { row: 2 }],
};
const METHODS = {
  label: ["a.b.C.run ()V", "a/b/D.go ()V", "<init>"],
  class: ["a.b.C", "a/b/D", ""],
  name: ["run", "go", "<init>"],
  color: [1, 0, -1],
};

describe("the selection's request parameters", () => {
  beforeEach(() => {
    setTrace(TRACE, METHODS);
    state.mycode = "";
  });

  it("always name the clock, and nothing else for the whole trace", () => {
    assert.deepEqual(queryParams(), { clock: "wall" });
    assert.deepEqual(queryParams({ kind: "graph" }), { clock: "wall", kind: "graph" });
  });

  it("list the threads in order, and leave them out when all are selected", () => {
    setThreads(new Set([2, 0]));
    assert.equal(queryParams().threads, "0,2");
    setThreads(new Set([0, 1, 2]));
    assert.equal(queryParams().threads, undefined);
  });

  it("round a range to the ns, and drop an empty one", () => {
    setRange([1.23456, 7.0000004]);
    assert.deepEqual([queryParams().t0, queryParams().t1], [1.235, 7]);
    setRange([5, 5]);
    assert.equal(queryParams().t0, undefined);
  });

  it("send my-code prefixes as one comma-separated list", () => {
    state.mycode = " com.a,  org.b;net.c ";
    assert.equal(queryParams().mycode, "com.a,org.b,net.c");
  });

  it("tell the views when the selection changes", () => {
    let filters = 0;
    on("filter", () => filters++);
    setRange([1, 2]);
    setThreads(null);
    assert.equal(filters, 2);
  });
});

describe("how methods look", () => {
  beforeEach(() => setTrace(TRACE, METHODS));

  it("take their palette colour, grey when never called", () => {
    assert.equal(methodColor(0), "#222222");
    assert.equal(methodColor(1), "#111111");
    assert.equal(methodColor(2), "#9a9a9a");
    assert.equal(methodColor(-1), "#9a9a9a");
  });

  it("are named Class.method on strips, also for Dalvik's slashes", () => {
    assert.equal(shortName(0), "C.run");
    assert.equal(shortName(1), "D.go");
    assert.equal(shortName(2), "<init>");
    assert.equal(shortName(-1), "");
  });

  it("match the find text case-insensitively", () => {
    setSearch("  RUN ");
    assert.deepEqual([isMatch(0), isMatch(1), isMatch(-1)], [true, false, false]);
    setSearch("");
    assert.equal(isMatch(1), true);
  });
});
