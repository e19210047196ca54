// Unit tests of the display formatting (run by `node --test`).

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { axisName, axisNote, fmtCount, fmtDuration, fmtMonotonic, fmtMs, fmtPct, fmtTick, monotonicNs, niceStep, plural } from "./format.js";

describe("fmtDuration", () => {
  it("picks the unit by size", () => {
    assert.equal(fmtDuration(0.25), "0.25 µs");
    assert.equal(fmtDuration(7.25), "7.3 µs");
    assert.equal(fmtDuration(850), "850 µs");
    assert.equal(fmtDuration(1234), "1.23 ms");
    assert.equal(fmtDuration(12345), "12.3 ms");
    assert.equal(fmtDuration(1.24e6), "1.240 s");
    assert.equal(fmtDuration(12.5e6), "12.50 s");
  });

  it("shows a missing value as a dash and keeps the sign", () => {
    for (const v of [null, undefined, NaN]) assert.equal(fmtDuration(v), "–");
    assert.equal(fmtDuration(-1500), "-1.50 ms");
  });
});

describe("table cells", () => {
  it("shows µs as ms with three decimals, blank when missing", () => {
    assert.equal(fmtMs(1234.5678), "1.235");
    assert.equal(fmtMs(0), "0.000");
    assert.equal(fmtMs(null), "");
  });

  it("shows a percentage of a whole, blank without one", () => {
    assert.equal(fmtPct(1, 3), "33.3%");
    assert.equal(fmtPct(5, 0), "");
    assert.equal(fmtPct(null, 10), "");
  });

  it("counts", () => {
    assert.equal(plural(1, "call"), "1 call");
    assert.equal(plural(0, "call"), "0 calls");
    assert.equal(fmtCount(0), "0");
    assert.equal(fmtCount(undefined), "");
  });
});

describe("the time axis", () => {
  it("steps 1, 2 or 5 × 10^k µs, at least the wanted spacing", () => {
    assert.equal(niceStep(1, 100), 100);
    assert.equal(niceStep(1.3, 100), 200);
    assert.equal(niceStep(3, 100), 500);
    assert.equal(niceStep(7, 100), 1000);
    assert.equal(niceStep(0.004, 100), 0.5);
  });

  it("labels a tick with the unit of its value and the decimals of the step", () => {
    assert.equal(fmtTick(0, 100), "0 µs");
    assert.equal(fmtTick(1500, 500), "1.5 ms");
    assert.equal(fmtTick(2000, 1000), "2 ms");
    assert.equal(fmtTick(2.5e6, 5e5), "2.5 s");
    assert.equal(fmtTick(1.25, 0.05), "1.25 µs");
  });

  it("names the axis of the trace", () => {
    assert.equal(axisName({ timeline_axis: "wall", timeline_clock: "wall" }), "wall");
    assert.equal(axisName({ timeline_axis: "reconstructed", timeline_clock: "cpu" }), "reconstructed");
    assert.equal(axisName({ timeline_axis: "cpu", timeline_clock: "cpu" }), "thread CPU");
    assert.match(axisNote({ timeline_axis: "reconstructed", timeline_clock: "cpu" }), /order of records/);
  });
});

describe("CLOCK_MONOTONIC", () => {
  const trace = { time: { start_us: 0, monotonic_ns: 86_400_000_000_007 } };

  it("puts a time of the axis on CLOCK_MONOTONIC when the trace gives the anchor", () => {
    assert.equal(monotonicNs(trace, 0), 86_400_000_000_007);
    assert.equal(monotonicNs(trace, 1500.25), 86_400_001_500_257);
    assert.equal(monotonicNs({ time: { monotonic_ns: null } }, 1), null);
    assert.equal(monotonicNs(trace, null), null);
  });

  it("shows every ns digit as seconds", () => {
    assert.equal(fmtMonotonic(86_400_001_500_257), "86400.001500257 s");
    assert.equal(fmtMonotonic(5), "0.000000005 s");
    assert.equal(fmtMonotonic(null), "–");
  });
});
