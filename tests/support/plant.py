"""Plant known slowdowns in a trace for the `diff` tests: scale the time a method spends on
top of its thread's stack (its exclusive time) by a factor, and jitter every other stretch of
time a little, as two runs of the same app never take exactly the same time; or move one call
under another parent (`move_call`), which changes call paths but no method's exclusive time.

`reshape(trace, seed, jitter=0.02, slower={"pkg.Class.method": 1.3})` returns a new Trace:
each gap between consecutive records of a thread is multiplied by U(1 - jitter, 1 + jitter)
(seeded), and by the factor when the method running in that gap is a planted one; times are
rebuilt by cumulative sums (rounded to whole µs, as the files hold them), so later records
shift and the trace stays well formed. Both clocks get the same factors.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from traceview.model import Trace


def running_method(methods: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """For each record of one thread, the method running after it (-1 for none)."""
    out = np.empty(len(methods), dtype=np.int64)
    stack: list[int] = []
    for i, (m, a) in enumerate(zip(methods.tolist(), actions.tolist(), strict=True)):
        if a == 0:
            stack.append(m)
        elif stack:
            stack.pop()
        out[i] = stack[-1] if stack else -1
    return out


def reshape(
    trace: Trace, seed: int, jitter: float = 0.02, slower: dict[str, float] | None = None
) -> Trace:
    """`trace` with every gap jittered and the exclusive time of `slower` methods scaled."""
    me = trace.methods
    names = [me.full_name(i) for i in range(len(me))]
    factor_of = np.ones(len(me) + 1)  # last slot: no method running
    for name, factor in (slower or {}).items():
        factor_of[names.index(name)] = factor
    rng = np.random.default_rng(seed)
    ev = trace.events
    cols = {c: ev.time(c).copy() for c in ev.clocks}
    for t in range(len(trace.threads)):
        idx = np.flatnonzero(ev.thread == t)
        if len(idx) < 2:
            continue
        run = running_method(ev.method[idx], ev.action[idx])
        scale = rng.uniform(1 - jitter, 1 + jitter, len(idx) - 1) * factor_of[run[:-1]]
        for col in cols.values():
            gaps = np.diff(col[idx]).astype(np.float64) * scale
            us = np.rint(gaps / 1000).astype(np.int64) * 1000
            col[idx] = col[idx[0]] + np.concatenate(([0], np.cumsum(us)))
    events = replace(ev, cpu=cols.get("cpu"), wall=cols.get("wall"))
    return replace(trace, events=events)


def move_call(trace: Trace, call: int, under: int) -> Trace:
    """`trace` with call row `call` (of `build_calls(trace)`) and its subtree moved to be the
    last child of call `under` (same thread, entered after `call` exits). Each record keeps
    the time before it, except that the caller's time on both sides of the moved call joins,
    and the moved call starts where `under` used to exit: every method keeps its exclusive
    time, the old parent's inclusive time shrinks by the call's and the new parent's grows."""
    from traceview.analysis.calls import build_calls

    calls = build_calls(trace)
    ev = trace.events
    t = int(calls.thread[call])
    idx = np.flatnonzero(ev.thread == t)
    pos = {int(r): i for i, r in enumerate(idx.tolist())}
    s, e = pos[int(calls.enter_event[call])], pos[int(calls.exit_event[call])]
    q = pos[int(calls.exit_event[under])]
    assert pos[int(calls.enter_event[under])] > e, "the new parent must start after the call"
    order = np.r_[np.arange(s), np.arange(e + 1, q), np.arange(s, e + 1), np.arange(q, len(idx))]
    cols = {c: ev.time(c).copy() for c in ev.clocks}
    method, action = ev.method.copy(), ev.action.copy()
    for c, col in cols.items():
        times = ev.time(c)[idx]
        gap = np.diff(times, prepend=times[0])
        gap[e + 1] += gap[s]  # the caller's time before and after the call, now one stretch
        gap[s] = gap[q]  # the moved call opens where the new parent's last stretch ended
        gap[q] = 0
        col[idx] = times[0] + np.cumsum(gap[order])
    method[idx] = ev.method[idx][order]
    action[idx] = ev.action[idx][order]
    events = replace(ev, method=method, action=action, cpu=cols.get("cpu"), wall=cols.get("wall"))
    return replace(trace, events=events)


def a_call_to_move(trace: Trace, avoid: tuple[str, ...] = ()) -> tuple[int, int]:
    """A call worth moving in a generated trace, and where to: on the thread with the most
    calls, the longest call of a method called exactly once in the trace (no `avoid` method
    in its subtree), and the first call after it one level up whose method differs from its
    caller's (so the moved path is new)."""
    from traceview.analysis.calls import build_calls

    calls = build_calls(trace)
    names = [trace.methods.full_name(int(m)) for m in calls.method]
    counts = np.bincount(calls.method, minlength=len(trace.methods))
    incl = calls.incl("wall")
    best = -1
    for i in range(len(calls)):
        if counts[calls.method[i]] != 1 or calls.parent[i] < 0:
            continue
        sub = names[i : int(calls.subtree_end[i])]
        if any(a in sub for a in avoid):
            continue
        if best < 0 or incl[i] > incl[best]:
            best = i
    caller = int(calls.parent[best])
    for j in range(int(calls.subtree_end[caller]), len(calls)):
        if calls.thread[j] != calls.thread[best]:
            break
        if calls.depth[j] == calls.depth[caller] and calls.method[j] != calls.method[caller]:
            return best, j
    raise AssertionError("no call to move under")


# The planted scenario of the diff tests, on one generated trace (balanced, so no call is left
# open at the end and a later shift changes nothing but the thread's length):
SOMETIMES = "android.widget.TextView.onDraw"  # exclusive +30 % in 3 of the 5 candidate runs
ALWAYS = "android.text.BoringLayout.isBoring"  # exclusive 2x in every candidate run
NOISY = "android.text.StaticLayout$Builder.build"  # ±50 % run to run on both sides
NOISY_BASE = (1.0, 1.4, 0.8, 1.3, 0.9)  # median 1.0
NOISY_CAND = (1.15, 0.85, 1.5, 0.75, 1.35)  # median 1.15: +15 %, well within the spread


def planted_runs(runs: int = 5, moved: bool = False) -> tuple[list[Trace], list[Trace]]:
    """`runs` baseline and `runs` candidate traces (at most 5) of the planted scenario; every
    gap jittered ±2 % with a different seed per run. With `moved`, the candidates also have
    one call moved under another parent (`a_call_to_move`: same per-method exclusive times,
    different paths)."""
    from traceview.synth import generate

    trace = generate(records=20_000, threads=3, seed=1, balanced=True)
    after = trace
    if moved:
        after = move_call(trace, *a_call_to_move(trace, avoid=(SOMETIMES, ALWAYS, NOISY)))
    base, cand = [], []
    for i in range(runs):
        base.append(reshape(trace, seed=i, slower={NOISY: NOISY_BASE[i]}))
        slower = {ALWAYS: 2.0, NOISY: NOISY_CAND[i]}
        if i < 3:
            slower[SOMETIMES] = 1.3
        cand.append(reshape(after, seed=100 + i, slower=slower))
    return base, cand


def planted_bytes(runs: int = 2) -> tuple[list[bytes], list[bytes]]:
    """`planted_runs(runs)` written as trace files' bytes (what a service receives)."""
    import io

    from traceview.writer import write

    def data(t: Trace) -> bytes:
        out = io.BytesIO()
        write(t, out)
        return out.getvalue()

    base, cand = planted_runs(runs=runs)
    return [data(t) for t in base], [data(t) for t in cand]
