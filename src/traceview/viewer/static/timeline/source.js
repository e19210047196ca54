// Where a timeline's data comes from: the shown trace (the page's state, the API as is) or,
// in compare mode, the candidate's trace (`side=cand` on every request, its own trace and
// method answers, the selection mapped to its method rows). The Timeline reads only this.

import * as api from "../lib/api.js";
import { isMatch, label, methodColor, select, shortName, state } from "../lib/state.js";

/** The page's own trace: every answer as the state holds it; drags select ranges. */
export function shownSource() {
  return {
    side: "",
    trace: () => state.trace,
    get: api.get,
    selected: () => state.selected,
    select,
    found: () => (state.matches !== null ? isMatch : null),
    color: methodColor,
    name: shortName,
    label,
    frames: () => state.frames,
    range: () => state.range,
    threads: () => state.threads,
    ranges: () => Boolean(state.trace && state.trace.live),
  };
}

/** The other side of a comparison (`cmp`: compare/state.js's): its trace and methods, the
 * API with `side` added, the shown selection mapped to its rows, the shown trace's colours
 * for the same methods; no ranges, frames or thread picks of its own. */
export function sideSource(side, cmp) {
  const own = (m) => (cmp.methods && m >= 0 ? cmp.methods : null);
  return {
    side,
    trace: () => cmp.trace,
    get: (path, params) => api.get(path, { ...(params || {}), side }),
    selected: () => cmp.selected(),
    select: (m) => cmp.selectOther(m),
    found: () => null,
    color: (m) => cmp.color(m),
    name: (m) => {
      const t = own(m);
      if (!t) return "";
      const cls = String(t.class[m] || "");
      const simple = cls.slice(Math.max(cls.lastIndexOf("."), cls.lastIndexOf("/")) + 1);
      return simple ? simple + "." + t.name[m] : String(t.name[m] || t.label[m]);
    },
    label: (m) => (own(m) ? String(cmp.methods.label[m]) : ""),
    frames: () => null,
    range: () => null,
    threads: () => null,
    ranges: () => false,
  };
}
