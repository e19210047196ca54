// Unit tests of the timeline's thread rows: order, heights, folded stems (run by `node --test`).

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { PAD, STRIP } from "./painter.js";
import { busyOn, COLLAPSED_DEPTH, layoutRows, stemOf, tileDepth } from "./threadrows.js";

const THREADS = [
  { row: 0, label: "b", main: false, cpu_us: 5, wall_us: 50 },
  { row: 1, label: "a", main: false, cpu_us: 9, wall_us: null },
  { row: 2, label: "main", main: true, cpu_us: 1, wall_us: 10 },
];
const none = () => ({ depths: new Map(), stems: new Map(), expanded: new Map() });

describe("layoutRows", () => {
  it("orders the main thread first, then by busy time on the clock, by name, or as in the file", () => {
    const order = (sort, clock) => layoutRows(THREADS, sort, busyOn(clock), none(), () => false).rows.map((r) => r.thread);
    assert.deepEqual(order("busy", "cpu"), [2, 1, 0]);
    assert.deepEqual(order("busy", "wall"), [2, 0, 1]); // thread 1 has no wall clock: its CPU time
    assert.deepEqual(order("name", "cpu"), [1, 0, 2]);
    assert.deepEqual(order("row", "cpu"), [0, 1, 2]);
  });

  it("stacks rows as tall as the levels they show, compact ones at most COLLAPSED_DEPTH", () => {
    const shape = none();
    shape.depths.set(0, 7).set(1, 7);
    const { rows, height } = layoutRows(THREADS.slice(0, 2), "row", busyOn("cpu"), shape, (t) => t.row === 0);
    assert.deepEqual(rows.map((r) => [r.depth, r.full, r.compact]), [[7, 7, false], [COLLAPSED_DEPTH, 7, true]]);
    assert.equal(rows[1].y, rows[0].h);
    assert.equal(rows[0].h - rows[1].h, (7 - COLLAPSED_DEPTH) * STRIP);
    assert.equal(height, rows[0].h + rows[1].h);
    assert.ok(rows[0].h > PAD + 7 * STRIP);
  });

  it("starts a row below a stem deeper than two levels unless every level is asked for", () => {
    const shape = none();
    shape.depths.set(2, 10);
    shape.stems.set(2, 4);
    const one = () => layoutRows([THREADS[2]], "row", busyOn("cpu"), shape, () => true).rows[0];
    assert.deepEqual([one().skip, one().full], [3, 7]);
    shape.expanded.set(2, true);
    assert.deepEqual([one().skip, one().full], [0, 10]);
  });

  it("caps a deep open row at `cap` levels, scrolled inside itself, its twisty open", () => {
    const shape = none();
    shape.depths.set(2, 88);
    shape.cap = 20;
    shape.offsets = new Map([[2, 100]]);
    const row = layoutRows([THREADS[2]], "row", busyOn("cpu"), shape, () => true).rows[0];
    assert.deepEqual([row.depth, row.full, row.capped, row.offset, row.skip, row.compact], [20, 88, true, 68, 68, false]);
    assert.equal(row.h, PAD + 20 * STRIP + 5 + 2);
    shape.offsets.set(2, 5);
    assert.equal(layoutRows([THREADS[2]], "row", busyOn("cpu"), shape, () => true).rows[0].skip, 5);
    const closed = layoutRows([THREADS[2]], "row", busyOn("cpu"), shape, () => false).rows[0];
    assert.deepEqual([closed.depth, closed.capped, closed.compact], [COLLAPSED_DEPTH, false, true]);
  });
});

describe("a whole-thread tile", () => {
  const tile = { rects: { depth: [0, 1, 2, 2] }, merged: { depth: [3] } };

  it("says how deep the thread goes", () => {
    assert.equal(tileDepth(tile), 4);
    assert.equal(tileDepth({ rects: { depth: [] }, merged: { depth: [] } }), 0);
  });

  it("has a stem of the outer levels holding one call and no runs", () => {
    assert.equal(stemOf(tile, 4), 2);
    assert.equal(stemOf({ rects: { depth: [0, 1, 2] }, merged: { depth: [] } }, 3), 2); // the deepest level stays
    assert.equal(stemOf({ rects: { depth: [0, 0, 1] }, merged: { depth: [] } }, 2), 0);
  });
});
