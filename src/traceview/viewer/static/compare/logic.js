// Compare mode's pure functions: the colour of a change, the Diff table's filters and sort
// orders, the words of a change, and the maths that aligns the two timelines. No DOM.

const WORDS = ["new", "gone", "slower", "faster", "noise"]; // a row's states (significance.py)
const NOISE_GREY = "rgb(214,214,210)";
export { NOISE_GREY as GREY, WORDS as STATES };

/** The fill of a flame node or table mark by its change (as the SVG's, exporters/diffsvg.py):
 * red for slower and new, blue for faster and gone, paler for a smaller change (`intensity`
 * in [0, 1]: min(1, |log2(cand / base)|)), grey within noise. */
export function changeFill(state, intensity) {
  if (!WORDS.includes(state) || state === "noise") return NOISE_GREY;
  const k = 0.25 + 0.75 * Math.min(Math.max(Number(intensity) || 0, 0), 1);
  if (state === "slower" || state === "new") return "rgb(255," + Math.round(235 - 175 * k) + "," + Math.round(225 - 175 * k) + ")";
  return "rgb(" + Math.round(225 - 175 * k) + "," + Math.round(235 - 135 * k) + ",255)";
}

/** Row indexes of the methods columns (`/api/compare` "methods") passing `filter`: "all",
 * "changed" (not noise), or one state word. */
export function filterRows(methods, filter) {
  const out = [];
  for (let i = 0; i < methods.state.length; i++) {
    const s = methods.state[i];
    if (filter === "all" || (filter === "changed" ? s !== "noise" : s === filter)) out.push(i);
  }
  return out;
}

/** The sort value of row `i` by `key` on `metric` ("excl" or "incl"): "delta" the change
 * (µs), "rel" the relative change (a new method counts as +∞, a gone one as -∞), "sig" the
 * significance (|t|, significant rows first; unknown t as 0), "name" the label. */
export function sortValue(methods, key, metric, i) {
  if (key === "name") return String(methods.label[i]);
  if (key === "delta") return methods[metric + "_delta"][i];
  if (key === "rel") {
    const r = methods[metric + "_rel"][i];
    if (r !== null && r !== undefined) return r;
    if (methods.state[i] === "new") return Infinity;
    if (methods.state[i] === "gone") return -Infinity;
    return 0;
  }
  const t = methods[metric + "_t"][i];
  return (methods[metric + "_sig"][i] ? 1e12 : 0) + Math.abs(t || 0);
}

/** `rows` sorted by `key` (`sortValue`), descending unless `asc`; ties keep the answer's
 * order (largest absolute change first). */
export function sortRows(methods, rows, key, metric, asc) {
  const dir = asc ? 1 : -1;
  const keyed = rows.map((i, at) => [sortValue(methods, key, metric, i), at, i]);
  keyed.sort((a, b) => {
    if (a[0] === b[0]) return a[1] - b[1];
    if (typeof a[0] === "string") return dir * a[0].localeCompare(b[0]);
    return a[0] < b[0] ? -dir : dir;
  });
  return keyed.map((k) => k[2]);
}

/** A change in µs as "+1.234 ms" (signed, ms with three decimals). */
export function fmtDelta(us) {
  const ms = (Number(us) || 0) / 1000;
  return (ms >= 0 ? "+" : "−") + Math.abs(ms).toFixed(3) + " ms";
}

/** A relative change in % as "+30.0 %"; null reads "new" or "gone" by `state`, else "–". */
export function fmtRel(pct, state) {
  if (pct === null || pct === undefined) return state === "new" || state === "gone" ? state : "–";
  return (pct >= 0 ? "+" : "−") + Math.abs(pct).toFixed(1) + " %";
}

/** The shift (µs) from a time on the baseline's timeline to the same moment of the
 * candidate's: 0 when aligned at their starts ("start"); when aligned at a method's first
 * call ("method"), the candidate's first call minus the baseline's (0 when either side never
 * calls it). Both timelines count from their own trace's start. */
export function alignShift(mode, baseFirst, candFirst) {
  if (mode !== "method") return 0;
  if (!Number.isFinite(baseFirst) || !Number.isFinite(candFirst)) return 0;
  return candFirst - baseFirst;
}

/** The other side's view for a view [v0, v1] of this side: shifted by `shift` (from base to
 * candidate; `toCand` false shifts back). */
export function shiftedView(view, shift, toCand) {
  const d = toCand ? shift : -shift;
  return [view[0] + d, view[1] + d];
}
