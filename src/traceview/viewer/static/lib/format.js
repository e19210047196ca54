// Display formatting of times, percentages, counts and the timeline axis's name (no
// statistics: values come from Python).

/** A duration in µs with an adaptive unit: "850 µs", "12.3 ms", "1.24 s". */
export function fmtDuration(us) {
  if (us === null || us === undefined || Number.isNaN(us)) return "–";
  const a = Math.abs(us);
  if (a < 1) return us.toFixed(2) + " µs";
  if (a < 1000) return (a < 10 ? us.toFixed(1) : Math.round(us)) + " µs";
  if (a < 1e6) return (us / 1000).toFixed(a < 1e4 ? 2 : 1) + " ms";
  return (us / 1e6).toFixed(a < 1e7 ? 3 : 2) + " s";
}

/** CLOCK_MONOTONIC ns of a time `us` on the trace's axis (µs from its start), or null when the
 * trace records no anchor (`trace.time.monotonic_ns`, from the server) or `us` is missing. */
export function monotonicNs(trace, us) {
  const zero = trace && trace.time ? trace.time.monotonic_ns : null;
  if (zero === null || zero === undefined || us === null || us === undefined || Number.isNaN(us)) return null;
  return zero + Math.round(us * 1000);
}

/** A CLOCK_MONOTONIC time as seconds with every ns digit ("86400.123456789 s"), as the
 * command line prints it (analysis/timebase.py `monotonic_text`), so it matches Perfetto's ns
 * and logcat -v monotonic's seconds digit for digit. */
export function fmtMonotonic(ns) {
  if (ns === null || ns === undefined || !Number.isFinite(ns)) return "–";
  const sign = ns < 0 ? "-" : "";
  const a = Math.abs(Math.round(ns));
  const whole = Math.floor(a / 1e9);
  return sign + whole + "." + String(a - whole * 1e9).padStart(9, "0") + " s";
}

/** A table cell value: µs shown in ms with 3 decimals (traceview's default unit). */
export function fmtMs(us) {
  if (us === null || us === undefined) return "";
  return (us / 1000).toFixed(3);
}

export function fmtPct(part, whole) {
  if (part === null || part === undefined || !whole) return "";
  return ((100 * part) / whole).toFixed(1) + "%";
}

/** "1 call", "2 calls". */
export function plural(n, word) {
  return n + " " + word + (n === 1 ? "" : "s");
}

export function fmtCount(n) {
  return n === null || n === undefined ? "" : String(n);
}

/** Pick a "nice" tick step (1, 2, 5 × 10^k µs) so ticks are about `px` pixels apart. */
export function niceStep(usPerPx, px) {
  const raw = usPerPx * px;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

/** An axis label for a tick at `us`: unit by the value's size, decimals by the step. */
export function fmtTick(us, step) {
  const a = Math.abs(us);
  const [unit, name] = a >= 1e6 ? [1e6, " s"] : a >= 1000 ? [1000, " ms"] : [1, " µs"];
  const digits = Math.max(0, Math.ceil(-Math.log10(step / unit) - 1e-9));
  return trimZeros((us / unit).toFixed(Math.min(digits, 9))) + name;
}

function trimZeros(s) {
  return s.includes(".") ? s.replace(/\.?0+$/, "") : s;
}

/** What the time axis measures, in a few words. */
export function axisName(trace) {
  if (trace.timeline_axis === "reconstructed") return "reconstructed";
  if (trace.timeline_clock !== "cpu") return "wall";
  return "thread CPU";
}

/** The axis explained (the corner's tooltip). */
export function axisNote(trace) {
  if (trace.timeline_axis === "reconstructed") return "This trace records thread CPU time only (clock=thread-cpu). The axis is reconstructed from the order of records in the file: each record advances it by its own thread's CPU time since that thread's previous record, so threads line up in record order. Time off the CPU does not show; call times and ranges are measured on each thread's CPU clock.";
  if (trace.timeline_clock !== "cpu") return "Wall-clock time since the trace started";
  return "Thread CPU time";
}
