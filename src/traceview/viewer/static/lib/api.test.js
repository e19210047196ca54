// Unit tests of the data API client (run by `node --test`, tests/viewer/test_js_units.py): the
// request key, a report's index and look-ups, HTTP answers and errors, and, given report pages
// written by Python (TRACEVIEW_REPORTS), that the UI's own requests find their answers there.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { delimiter } from "node:path";
import { describe, it } from "node:test";
import { gzipSync } from "node:zlib";

import { TileCache } from "../timeline/tiles.js";
import { Client, indexAnswers, keyOf, lookup, NotPrecomputed, unpackTile } from "./api.js";
import { queryParams, setClock, setTrace, state } from "./state.js";

/** A report's data block as the page holds it: JSON, gzipped, base64. */
function block(entries) {
  return { text: gzipSync(JSON.stringify(entries)).toString("base64"), encoding: "gzip+base64" };
}

/** A fetch answering from `routes` (url -> [status, body]) and counting its calls. */
function fakeFetch(routes) {
  const calls = [];
  const fetch = async (url, init) => {
    calls.push([url, init]);
    const [status, body] = routes[url] || [404, { error: "no route " + url }];
    return { ok: status < 400, status, statusText: "S" + status, json: async () => body };
  };
  return { fetch, calls };
}

describe("keyOf", () => {
  it("is the path alone without parameters", () => {
    assert.equal(keyOf("/api/trace"), "/api/trace");
    assert.equal(keyOf("/api/trace", {}), "/api/trace");
    assert.equal(keyOf("/api/trace", { clock: "", t0: null, t1: undefined }), "/api/trace");
  });

  it("sorts parameters by name and writes values as plain text", () => {
    const key = keyOf("/api/profile", { threads: "0,2", clock: "wall", mycode: "a b&c" });
    assert.equal(key, "/api/profile?clock=wall&mycode=a b&c&threads=0,2");
  });

  it("names numbers and their strings alike", () => {
    assert.equal(keyOf("/api/timeline", { thread: 1, level: 0, tile: 3 }), keyOf("/api/timeline", { tile: "3", level: "0", thread: "1" }));
    assert.equal(keyOf("/api/frames", { budget_ms: 16 }), "/api/frames?budget_ms=16");
  });
});

describe("a report's answers", () => {
  const tile = (level, k, complete) => ({ level, tile: k, complete, rects: { call: [], start: [], end: [] }, merged: { depth: [] } });

  it("restores a packed tile's rects", () => {
    const t = unpackTile({ packed: true, rects: { call: [5, 2, 1], start: [1000, 500, 250], end: [100, 2000, 0] } });
    assert.deepEqual(t.rects, { call: [5, 7, 8], start: [1, 1.5, 1.75], end: [1.1, 3.5, 1.75] });
    assert.equal(t.packed, undefined);
  });

  it("finds an answer by its request, with the default clock left out or not", () => {
    const index = indexAnswers([
      ["/api/profile", { clock: "cpu" }, "cpu profile"],
      ["/api/flame", { kind: "graph" }, "flame, default clock"],
    ]);
    assert.equal(lookup(index, "/api/profile", { clock: "cpu" }, "wall"), "cpu profile");
    assert.equal(lookup(index, "/api/profile", { clock: "wall" }, "wall"), undefined);
    assert.equal(lookup(index, "/api/flame", { kind: "graph", clock: "wall" }, "wall"), "flame, default clock");
    assert.equal(lookup(index, "/api/flame", { kind: "graph", clock: "cpu" }, "wall"), undefined);
  });

  it("answers a finer tile with the complete tile above it, never an incomplete one", () => {
    const index = indexAnswers([
      ["/api/timeline", { thread: 0, level: 0, tile: 0 }, tile(0, 0, false)],
      ["/api/timeline", { thread: 0, level: 1, tile: 1 }, tile(1, 1, true)],
    ]);
    assert.equal(lookup(index, "/api/timeline", { thread: 0, level: 3, tile: 6 }).tile, 1);
    assert.equal(lookup(index, "/api/timeline", { thread: 0, level: 3, tile: 1 }), undefined);
    assert.equal(lookup(index, "/api/timeline", { thread: 1, level: 1, tile: 0 }), undefined);
  });

  it("answers a compare report's candidate tile from the candidate's tiles only (side kept)", () => {
    const base = tile(1, 1, true);
    const cand = { ...tile(1, 1, true), which: "cand" };
    const index = indexAnswers([
      ["/api/timeline", { thread: 0, level: 1, tile: 1 }, base],
      ["/api/timeline", { thread: 0, level: 0, tile: 0, side: "cand" }, { ...tile(0, 0, true), which: "cand-root" }],
      ["/api/timeline", { thread: 0, level: 1, tile: 0, side: "cand" }, cand],
    ]);
    assert.equal(lookup(index, "/api/timeline", { thread: 0, level: 3, tile: 6 }), base);
    // the candidate's finer tile: its own complete root, never the baseline's tile
    assert.equal(lookup(index, "/api/timeline", { thread: 0, level: 3, tile: 6, side: "cand" }).which, "cand-root");
    assert.equal(lookup(index, "/api/timeline", { thread: 0, level: 2, tile: 1, side: "cand" }).which, "cand");
  });

  it("is read from the page's gzip+base64 block; missing answers reject with NotPrecomputed", async () => {
    const c = new Client({ block: block([["/api/trace", {}, { live: false }], ["/api/call/3", {}, { row: 3 }]]) });
    assert.equal(c.isReport, true);
    assert.equal(c.has("/api/trace"), false); // not read yet: no control is offered
    assert.deepEqual(await c.get("/api/trace"), { live: false });
    assert.equal(c.has("/api/trace"), true);
    assert.equal(c.has("/api/call/4"), false);
    assert.deepEqual(await c.get("/api/call/3"), { row: 3 });
    await assert.rejects(c.get("/api/call/4"), NotPrecomputed);
    await assert.rejects(c.openTrace({ name: "x" }), /static report/);
  });
});

describe("the live client", () => {
  it("asks under its base, once per key, with the parameters URL-encoded", async () => {
    const { fetch, calls } = fakeFetch({ "/t/ab/api/profile?mycode=a%2Cb&clock=cpu": [200, { rows: 1 }] });
    const c = new Client({ fetch, base: "/t/ab" });
    assert.equal(c.isReport, false);
    assert.equal(c.has("/api/anything"), true);
    const a = await c.get("/api/profile", { mycode: "a,b", clock: "cpu", t0: "" });
    const b = await c.get("/api/profile", { clock: "cpu", mycode: "a,b" });
    assert.deepEqual(a, { rows: 1 });
    assert.equal(a, b);
    assert.equal(calls.length, 1);
  });

  it("rejects with the server's one-line error, and asks again after a failure", async () => {
    const { fetch, calls } = fakeFetch({ "/api/profile?clock=nope": [400, { error: "bad clock 'nope'" }] });
    const c = new Client({ fetch });
    await assert.rejects(c.get("/api/profile", { clock: "nope" }), /^Error: bad clock 'nope'$/);
    await assert.rejects(c.get("/api/profile", { clock: "nope" }), /bad clock/);
    assert.equal(calls.length, 2);
  });

  it("posts a trace with its percent-encoded name and forgets the old answers", async () => {
    const { fetch, calls } = fakeFetch({ "/api/open": [200, { source: "é.trace" }], "/api/trace": [200, { source: "old" }] });
    const c = new Client({ fetch });
    await c.get("/api/trace");
    const file = { name: "é.trace", arrayBuffer: async () => new ArrayBuffer(3) };
    assert.deepEqual(await c.openTrace(file), { source: "é.trace" });
    const [url, init] = calls[1];
    assert.equal(url, "/api/open");
    assert.equal(init.method, "POST");
    assert.equal(init.headers["X-Filename"], "%C3%A9.trace");
    assert.equal(init.headers["X-Traceview"], "1");
    await c.get("/api/trace");
    assert.equal(calls.length, 3);
  });
});

/** The data block of a report page written by `traceview report`. */
function pageBlock(html) {
  const m = /<script type="application\/gzip" id="traceview-data" data-encoding="(gzip\+base64)">([A-Za-z0-9+/=]*)<\/script>/.exec(html);
  assert.ok(m, "no traceview-data block");
  return { text: m[2], encoding: m[1] };
}

const reports = (process.env.TRACEVIEW_REPORTS || "").split(delimiter).filter(Boolean);

describe("report pages written by Python", { skip: reports.length ? false : "TRACEVIEW_REPORTS not set (tests/viewer/test_js_units.py sets it)" }, () => {
  for (const path of reports) {
    it("answer the UI's first requests: " + path.split(/[\\/]/).pop(), async () => {
      const c = new Client({ block: pageBlock(readFileSync(path, "utf8")) });
      const trace = await c.get("/api/trace");
      c.defaultClock = trace.default_clock;
      setTrace(trace, await c.get("/api/methods"));
      assert.ok(Number.isInteger(trace.tiles.buckets) && Number.isInteger(trace.tiles.max_level));
      await c.get("/api/frames", { budget_ms: state.budgetMs });
      // each thread's whole-trace tile, as the timeline asks for it
      const threads = trace.threads.filter((t) => t.records);
      const tiles = await new Promise((resolve, reject) => {
        const got = new Map();
        const cache = new TileCache((path, params, answer) => {
          if (!answer) return reject(new Error("no tile " + keyOf(path, params)));
          got.set(params.thread, answer);
          if (got.size === threads.length) resolve(got);
        }, (path, params) => c.get(path, params));
        for (const t of threads) cache.tile(t.row, 0, 0);
        if (!threads.length) resolve(got);
      });
      // the hover details of the first thread's whole-trace strips
      if (threads.length) for (const row of tiles.get(threads[0].row).rects.call.slice(0, 50)) await c.get("/api/call/" + row);
      for (const clock of trace.clocks) {
        setClock(clock);
        const profile = await c.get("/api/profile", queryParams());
        await c.get("/api/flame", queryParams({ kind: "graph" }));
        for (const kind of ["topdown", "bottomup"]) await c.get("/api/tree", queryParams({ kind, limit: 2000 }));
        const top = profile.methods.method.slice(0, 5);
        for (const m of top) assert.ok(c.has("/api/relations/" + m, queryParams()), "relations of " + m);
        for (const m of top) await c.get("/api/relations/" + m, queryParams());
        if (clock === trace.default_clock && top.length) {
          for (const t of threads) await c.get("/api/highlight/" + top[0], { thread: t.row, level: 0, tile: 0 });
        }
      }
    });
  }
});
