// Unit tests of the timeline's painting (run by `node --test`): a recording 2D context shows
// what each function draws from its arguments alone.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { AXIS_H, drawAxis, drawHighlight, drawRange, drawTile, PAD, STRIP, xOf } from "./painter.js";

const C = { bg: "#ffffff", merged: "merged", edge: "edge", sel: "sel", found: "found", dimText: "dim", shade: "shade", rangeEdge: "edge2", rangeFill: "fill", axisBg: "axis", text: "text", font: "11px x", charW: 6 };

/** A 2D context that records fillRect / strokeRect / fillText with the fill style then. */
function recorder() {
  const ops = [];
  const ctx = {
    fillStyle: "",
    strokeStyle: "",
    fillRect: (x, y, w, h) => ops.push(["rect", ctx.fillStyle, x, y, w, h]),
    strokeRect: (x, y, w, h) => ops.push(["stroke", ctx.strokeStyle, x, y, w, h]),
    fillText: (text, x, y) => ops.push(["text", ctx.fillStyle, text, x, y]),
  };
  return { ctx, ops };
}

const VP = { v0: 100, v1: 200, W: 1000 }; // 10 px per µs
const ROW = { thread: 0, depth: 2, skip: 0, h: 40 };
const LOOK = { selected: -1, found: null, color: (m) => ["#ff0000", "#00ff00", "#0000ff"][m], name: (m) => "M" + m };

function tile(rects, merged) {
  return { rects: { call: [], method: [], depth: [], start: [], end: [], ...rects }, merged: { depth: [], start: [], end: [], count: [], ...merged } };
}

describe("drawTile", () => {
  it("puts a call's strip at its time and depth, in its method's colour, with its name", () => {
    const { ctx, ops } = recorder();
    const t = tile({ method: [1], depth: [1], start: [110], end: [150] });
    drawTile(ctx, VP, t, ROW, 50, C, LOOK);
    assert.deepEqual(ops[0], ["rect", "#00ff00", 100, 50 + PAD + STRIP, 400, STRIP - 1]);
    assert.ok(ops.some((op) => op[0] === "text" && op[2] === "M1"));
  });

  it("draws merged runs in the runs' colour and skips levels of a folded stem", () => {
    const { ctx, ops } = recorder();
    const t = tile({ method: [0, 2], depth: [0, 3], start: [100, 120], end: [200, 130] }, { depth: [3], start: [140], end: [141], count: [5] });
    drawTile(ctx, VP, t, { ...ROW, skip: 2, depth: 2 }, 0, C, LOOK);
    const rects = ops.filter((op) => op[0] === "rect");
    assert.deepEqual(rects[0], ["rect", "merged", 400, PAD + STRIP + 2, 10, STRIP - 5]);
    assert.deepEqual(rects[1].slice(0, 3), ["rect", "#0000ff", 200]); // depth 3 shown as level 1
    assert.equal(rects.length, 3); // depth 0 is above the row's first level; + the strip's edge
  });

  it("fades what the find text does not match and marks matches below a compact row", () => {
    const { ctx, ops } = recorder();
    const t = tile({ method: [0, 1, 1], depth: [0, 0, 5], start: [100, 150, 160], end: [140, 190, 170] });
    drawTile(ctx, VP, t, ROW, 0, C, { ...LOOK, found: (m) => m === 1 });
    const fills = ops.filter((op) => op[0] === "rect").map((op) => op[1]);
    assert.equal(fills[0], "rgb(255,191,191)"); // method 0, faded toward the background
    assert.ok(fills.includes("#00ff00"));
    assert.deepEqual(ops.at(-1), ["rect", "found", 600, PAD + 2 * STRIP - 4, 100, 3]);
  });

  it("outlines the selected method", () => {
    const { ctx, ops } = recorder();
    drawTile(ctx, VP, tile({ method: [2], depth: [0], start: [120], end: [130] }), ROW, 0, C, { ...LOOK, selected: 2 });
    assert.deepEqual(ops.find((op) => op[0] === "stroke").slice(0, 3), ["stroke", "sel", 201]);
  });
});

describe("the other layers", () => {
  it("maps time to x through the viewport", () => {
    assert.equal(xOf(VP, 100), 0);
    assert.equal(xOf(VP, 150), 500);
    assert.equal(xOf(VP, 250), 1500);
  });

  it("shades outside the range and draws highlight extents under the row", () => {
    const { ctx, ops } = recorder();
    drawRange(ctx, VP, [120, 180], 300, C);
    assert.deepEqual(ops.slice(0, 2), [["rect", "shade", 0, 0, 200, 300], ["rect", "shade", 800, 0, 200, 300]]);
    const h = recorder();
    drawHighlight(h.ctx, VP, [null, { start: [130], end: [140] }], ROW, 10, C);
    assert.deepEqual(h.ops, [["rect", "sel", 300, 10 + PAD + 2 * STRIP + 1, 100, 3]]);
    const none = recorder();
    drawRange(none.ctx, VP, null, 300, C);
    assert.deepEqual(none.ops, []);
  });

  it("labels axis ticks from the trace's start", () => {
    const { ctx, ops } = recorder();
    drawAxis(ctx, VP, 0, null, C);
    assert.deepEqual(ops[0], ["rect", "axis", 0, 0, 1000, AXIS_H]);
    const labels = ops.filter((op) => op[0] === "text").map((op) => op[2]);
    assert.deepEqual(labels, ["100 µs", "110 µs", "120 µs", "130 µs", "140 µs", "150 µs", "160 µs", "170 µs", "180 µs", "190 µs", "200 µs"]);
  });
});
