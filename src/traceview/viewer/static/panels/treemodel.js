// The loaded part of a call tree (/api/tree answers merged by node id) and its visible rows:
// no statistic is computed here, only which nodes are known, which are open, and the "N more"
// rows: a node keeps the count its first answer gave, less the children loaded since.

/** A row is a node's local index (>= 0), the "N more" row of node `p` (-(p + 2)) or the roots'
 * "N more" row (-1). */
export const ROOTS_MORE = -1;
export const moreRow = (p) => -(p + 2);
export const moreOf = (row) => (row === ROOTS_MORE ? -1 : -row - 2);

export class TreeModel {
  constructor() {
    this.clear();
  }

  clear() {
    this.total = 0;
    this.local = new Map(); // node id -> local index
    this.N = { id: [], method: [], depth: [], parent: [], width: [], self: [], calls: [], more: [], moreWidth: [] };
    this.kids = [];
    this.roots = [];
    this.rootsMore = 0;
    this.rootsMoreWidth = 0;
    this.open = new Set();
  }

  get size() {
    return this.N.id.length;
  }

  /** Add an /api/tree answer's nodes: a new node takes the answer's "more" count (its
   * children loaded are the answer's); a known parent given a new child counts one fewer
   * (that child was among its "more"); a known node keeps its own. Returns the local indexes
   * of the parents whose children changed. */
  merge(answer) {
    const A = answer.nodes;
    const N = this.N;
    this.total = answer.total;
    const touched = new Set();
    const first = this.size === 0; // the roots' "more" of the first answer; later ones count down
    if (first) {
      this.rootsMore = answer.roots_more;
      this.rootsMoreWidth = answer.roots_more_width;
    }
    const fresh = new Set();
    for (let k = 0; k < A.id.length; k++) {
      const id = A.id[k];
      if (this.local.has(id)) continue;
      const i = N.id.length;
      this.local.set(id, i);
      fresh.add(i);
      const p = A.parent[k] < 0 ? -1 : this.local.get(A.parent[k]);
      N.id.push(id);
      N.method.push(A.method[k]);
      N.depth.push(A.depth[k]);
      N.parent.push(p === undefined ? -1 : p);
      N.width.push(A.width[k]);
      N.self.push(A.self[k]);
      N.calls.push(A.calls[k]);
      N.more.push(A.more[k]);
      N.moreWidth.push(A.more_width[k]);
      this.kids.push([]);
      if (p === undefined || p < 0) this.roots.push(i);
      else this.kids[p].push(i);
      touched.add(p === undefined ? -1 : p);
      if (p >= 0 && !fresh.has(p)) {
        N.more[p] -= 1;
        N.moreWidth[p] -= A.width[k];
      } else if (p < 0 && !first) {
        this.rootsMore -= 1;
        this.rootsMoreWidth -= A.width[k];
      }
    }
    const byWidth = (a, b) => N.width[b] - N.width[a] || N.id[a] - N.id[b];
    for (const p of touched) (p < 0 ? this.roots : this.kids[p]).sort(byWidth);
    return touched;
  }

  /** True when node `i` has children (loaded or not). */
  hasKids(i) {
    return this.kids[i].length > 0 || this.N.more[i] > 0;
  }

  /** True when opening node `i` needs its children from the server first. */
  needsLoad(i) {
    return this.kids[i].length === 0 && this.N.more[i] > 0;
  }

  /** The visible rows in order: open nodes' children, each level's "N more" row last. */
  rows() {
    const out = [];
    const walk = (list, parent) => {
      for (const i of list) {
        out.push(i);
        if (this.open.has(i)) walk(this.kids[i], i);
      }
      const more = parent < 0 ? this.rootsMore : this.N.more[parent];
      if (more > 0) out.push(parent < 0 ? ROOTS_MORE : moreRow(parent));
    };
    walk(this.roots, -1);
    return out;
  }

  /** Open every loaded node at least `limit` wide (under `from`, default every root) down to
   * `maxDepth`. */
  openHeavy(limit, maxDepth, from) {
    const stack = from === undefined ? [...this.roots] : [from];
    while (stack.length) {
      const i = stack.pop();
      if (this.N.width[i] >= limit && this.kids[i].length && this.N.depth[i] < maxDepth) {
        this.open.add(i);
        stack.push(...this.kids[i]);
      }
    }
  }

  /** Open the ancestors of node `i` so it shows. */
  reveal(i) {
    for (let p = this.N.parent[i]; p >= 0; p = this.N.parent[p]) this.open.add(p);
  }

  /** The next loaded node after `i` in the tree's pre-order (node ids), `dir` 1 or -1, whose
   * method passes `match`; -1 when none. */
  nextMatch(i, dir, match) {
    const order = [...this.local.values()].sort((a, b) => this.N.id[a] - this.N.id[b]);
    const at = i >= 0 ? order.indexOf(i) : dir > 0 ? -1 : order.length;
    for (let k = 1; k <= order.length; k++) {
      const j = order[(((at + dir * k) % order.length) + order.length) % order.length];
      if (match(this.N.method[j])) return j;
    }
    return -1;
  }
}
