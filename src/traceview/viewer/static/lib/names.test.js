// Unit tests of the name elision (run by `node --test`).

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { charsIn, elideName, nameParts } from "./names.js";

const L = "android.support.v7.app.AppCompatActivity.onCreate (Landroid/os/Bundle;)V";

describe("nameParts", () => {
  it("splits package, class, method and signature", () => {
    assert.deepEqual(nameParts(L), ["android.support.v7.app.", "AppCompatActivity", "onCreate", " (Landroid/os/Bundle;)V"]);
    assert.deepEqual(nameParts("main"), ["", "", "main", ""]);
    assert.deepEqual(nameParts("a/b/C.run ()V"), ["a/b/", "C", "run", " ()V"]);
  });
});

describe("elideName", () => {
  it("keeps a name that fits", () => {
    assert.equal(elideName(L, 200), L);
  });
  it("drops the signature first", () => {
    assert.equal(elideName(L, 60), "android.support.v7.app.AppCompatActivity.onCreate …");
    assert.equal(elideName(L, 50), "android.support.v7.app.AppCompatActivity.onCreate");
  });
  it("elides the middle of the package, never the method", () => {
    const out = elideName(L, 40);
    assert.equal(out, "android.…app.AppCompatActivity.onCreate");
    assert.ok(out.length <= 40);
    assert.equal(elideName(L, 30), "…AppCompatActivity.onCreate");
    for (let n = 8; n < 80; n++) {
      const s = elideName(L, n);
      assert.ok(s.length <= n, n + ": " + s);
      assert.ok(s.includes("onCreate"), n + ": " + s);
    }
  });
  it("tells identical ends apart by the method", () => {
    const a = elideName("com.facebook.imagepipeline.producers.DecodeProducer.produceResults ()V", 36);
    const b = elideName("com.facebook.imagepipeline.producers.DecodeProducer.onNewResultImpl ()V", 36);
    assert.ok(a.endsWith("DecodeProducer.produceResults"), a);
    assert.ok(b.endsWith("DecodeProducer.onNewResultImpl"), b);
  });
  it("cuts the class's start, then the method's end, when even less fits", () => {
    assert.equal(elideName(L, 14), "…vity.onCreate");
    assert.equal(elideName(L, 8), "onCreate");
    assert.equal(elideName(L, 5), "onCr…");
  });
});

describe("charsIn", () => {
  it("counts whole characters", () => {
    assert.equal(charsIn(70, 7), 10);
    assert.equal(charsIn(-5, 7), 0);
  });
});
