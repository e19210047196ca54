// Unit tests of compare/logic.js (node --test): colours by change, the Diff table's filters
// and sorts, the words of a change, and the alignment of the two timelines.

import assert from "node:assert/strict";
import { test } from "node:test";
import { alignShift, changeFill, filterRows, fmtDelta, fmtRel, GREY, shiftedView, sortRows, sortValue } from "./logic.js";

const rgb = (s) => s.match(/\d+/g).map(Number);

test("colour by change: red slower and new, blue faster and gone, grey noise, deeper with the change", () => {
  assert.equal(changeFill("noise", 1), GREY);
  assert.equal(changeFill("bogus", 1), GREY);
  const [r, g, b] = rgb(changeFill("slower", 1));
  assert.ok(r === 255 && g < 100 && b < 100);
  const [r2, g2, b2] = rgb(changeFill("faster", 1));
  assert.ok(b2 === 255 && r2 < 100 && g2 < 150);
  assert.equal(changeFill("new", 1), changeFill("slower", 1));
  assert.equal(changeFill("gone", 1), changeFill("faster", 1));
  // paler for a smaller change, clamped to [0, 1]
  assert.ok(rgb(changeFill("slower", 0.1))[1] > rgb(changeFill("slower", 0.9))[1]);
  assert.equal(changeFill("slower", 7), changeFill("slower", 1));
  assert.equal(changeFill("slower", -3), changeFill("slower", 0));
  assert.equal(changeFill("slower", null), changeFill("slower", 0));
  // the same numbers as the SVG's (exporters/diffsvg.py fill): k = 0.25 + 0.75 * intensity
  assert.equal(changeFill("slower", 1), "rgb(255,60,50)");
  assert.equal(changeFill("faster", 0), "rgb(181,201,255)");
});

const methods = {
  label: ["b.B.f ()V", "a.A.g ()V", "c.C.h ()V", "d.D.k ()V", "e.E.m ()V"],
  state: ["slower", "faster", "new", "gone", "noise"],
  excl_delta: [500, -800, 300, -200, 10],
  excl_rel: [50, -40, null, null, 1],
  excl_t: [3.1, -6.0, null, null, 0.2],
  excl_sig: [true, true, false, false, false],
  incl_delta: [1, 2, 3, 4, 5],
  incl_rel: [1, 2, 3, 4, 5],
  incl_t: [1, 2, 3, 4, 5],
  incl_sig: [false, false, false, false, false],
};

test("filters: all, changed, one state", () => {
  assert.deepEqual(filterRows(methods, "all"), [0, 1, 2, 3, 4]);
  assert.deepEqual(filterRows(methods, "changed"), [0, 1, 2, 3]);
  assert.deepEqual(filterRows(methods, "new"), [2]);
  assert.deepEqual(filterRows(methods, "gone"), [3]);
  assert.deepEqual(filterRows(methods, "slower"), [0]);
  assert.deepEqual(filterRows(methods, "faster"), [1]);
});

test("sorts: by Δ, Δ % (new +∞, gone -∞), significance, name; both directions; stable", () => {
  const all = [0, 1, 2, 3, 4];
  assert.deepEqual(sortRows(methods, all, "delta", "excl", false), [0, 2, 4, 3, 1]);
  assert.deepEqual(sortRows(methods, all, "delta", "excl", true), [1, 3, 4, 2, 0]);
  assert.deepEqual(sortRows(methods, all, "rel", "excl", false), [2, 0, 4, 1, 3]);
  assert.equal(sortValue(methods, "rel", "excl", 3), -Infinity);
  // significant rows first, then by |t|
  assert.deepEqual(sortRows(methods, all, "sig", "excl", false), [1, 0, 4, 2, 3]);
  assert.deepEqual(sortRows(methods, all, "name", "excl", true), [1, 0, 2, 3, 4]);
  // the metric picks the columns
  assert.deepEqual(sortRows(methods, all, "delta", "incl", false), [4, 3, 2, 1, 0]);
  // ties keep the given order
  const tied = { ...methods, excl_delta: [1, 1, 1, 1, 1] };
  assert.deepEqual(sortRows(tied, [3, 1, 4], "delta", "excl", false), [3, 1, 4]);
});

test("words of a change", () => {
  assert.equal(fmtDelta(1234), "+1.234 ms");
  assert.equal(fmtDelta(-500), "−0.500 ms");
  assert.equal(fmtRel(30, "slower"), "+30.0 %");
  assert.equal(fmtRel(-12.34, "faster"), "−12.3 %");
  assert.equal(fmtRel(null, "new"), "new");
  assert.equal(fmtRel(null, "gone"), "gone");
  assert.equal(fmtRel(null, "noise"), "–");
});

test("alignment: at the starts no shift; at a method's first call the difference of the first calls", () => {
  assert.equal(alignShift("start", 100, 250), 0);
  assert.equal(alignShift("method", 100, 250), 150);
  assert.equal(alignShift("method", 400, 250), -150);
  assert.equal(alignShift("method", null, 250), 0); // never called on one side: the starts
  assert.equal(alignShift("method", 100, undefined), 0);
  const base = [1000, 3000];
  const cand = shiftedView(base, 150, true);
  assert.deepEqual(cand, [1150, 3150]);
  assert.deepEqual(shiftedView(cand, 150, false), base); // and back
  // the same moment: the method's first call sits at the same x on both timelines
  const x = (view, t) => (t - view[0]) / (view[1] - view[0]);
  assert.equal(x(base, 100), x(shiftedView(base, alignShift("method", 100, 250), true), 250));
});
