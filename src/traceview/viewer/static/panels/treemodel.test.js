// Unit tests of the call tree's loaded part (run by `node --test`).

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ROOTS_MORE, TreeModel, moreOf, moreRow } from "./treemodel.js";

// a tree 0(1(2), 3), 4 and root 5 left out; the first answer holds 0, 1, 3, 4
const first = {
  node: -1,
  total: 100,
  roots_more: 1,
  roots_more_width: 5,
  nodes: {
    id: [0, 1, 3, 4],
    method: [10, 11, 13, 14],
    depth: [0, 1, 1, 0],
    parent: [-1, 0, 0, -1],
    width: [80, 50, 20, 15],
    self: [10, 40, 20, 15],
    calls: [1, 2, 3, 4],
    more: [0, 1, 0, 0],
    more_width: [0, 10, 0, 0],
  },
};
const below1 = {
  node: 1,
  total: 100,
  roots_more: 0,
  roots_more_width: 0,
  nodes: { id: [1, 2], method: [11, 12], depth: [1, 2], parent: [0, 1], width: [50, 10], self: [40, 10], calls: [2, 1], more: [0, 0], more_width: [0, 0] },
};

describe("TreeModel", () => {
  it("lists rows with the 'more' rows each level's last", () => {
    const t = new TreeModel();
    t.merge(first);
    assert.deepEqual(t.rows(), [0, 3, ROOTS_MORE]); // local 3 is node 4
    t.open.add(0);
    assert.deepEqual(t.rows(), [0, 1, 2, 3, ROOTS_MORE]);
    t.open.add(1);
    assert.deepEqual(t.rows(), [0, 1, moreRow(1), 2, 3, ROOTS_MORE]);
    assert.equal(moreOf(moreRow(1)), 1);
    assert.ok(t.needsLoad(1));
  });
  it("merges a node's subtree, counting down the 'more' of a known parent", () => {
    const t = new TreeModel();
    t.merge(first);
    t.merge(below1);
    t.open.add(0);
    t.open.add(1);
    const local2 = t.local.get(2);
    assert.deepEqual(t.rows(), [0, 1, local2, 2, 3, ROOTS_MORE]);
    assert.equal(t.N.more[1], 0);
    t.merge(first); // an older, smaller answer again: nothing is forgotten
    assert.equal(t.N.more[1], 0);
    assert.equal(t.rootsMore, 1);
  });

  it("counts down the roots' and a path's 'more' when a found node's path comes in", () => {
    const t = new TreeModel();
    t.merge(first);
    // a path to node 7 under the left-out root 5: 5 (2 children, 1 answered) > 7
    t.merge({
      node: -1,
      total: 100,
      roots_more: 99,
      roots_more_width: 99,
      nodes: { id: [5, 7], method: [15, 17], depth: [0, 1], parent: [-1, 5], width: [5, 3], self: [0, 3], calls: [1, 1], more: [1, 0], more_width: [2, 0] },
    });
    assert.equal(t.rootsMore, 0);
    assert.equal(t.rootsMoreWidth, 0);
    assert.equal(t.N.more[t.local.get(5)], 1);
    // and a known parent's children loaded later count its "more" down
    t.merge({ node: 5, total: 100, roots_more: 0, roots_more_width: 0, nodes: { id: [5, 6, 7], method: [15, 16, 17], depth: [0, 1, 1], parent: [-1, 5, 5], width: [5, 2, 3], self: [0, 2, 3], calls: [1, 1, 1], more: [0, 0, 0], more_width: [0, 0, 0] } });
    assert.equal(t.N.more[t.local.get(5)], 0);
    assert.equal(t.N.moreWidth[t.local.get(5)], 0);
  });
  it("opens heavy nodes and finds matches in pre-order", () => {
    const t = new TreeModel();
    t.merge(first);
    t.merge(below1);
    t.openHeavy(30, 30);
    assert.ok(t.open.has(0) && t.open.has(1));
    const n2 = t.local.get(2);
    assert.equal(t.nextMatch(-1, 1, (m) => m === 12), n2);
    assert.equal(t.nextMatch(n2, 1, (m) => m >= 13), t.local.get(3));
    assert.equal(t.nextMatch(t.local.get(3), -1, (m) => m === 10), 0);
    t.open.clear();
    t.reveal(n2);
    assert.ok(t.open.has(0) && t.open.has(1));
  });
});
