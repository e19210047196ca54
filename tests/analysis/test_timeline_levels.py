"""The timeline's level indexes (native passes, kernels/levels.py) of a whole thread against
those of a tile's own calls (what a tile of few calls takes), a brute-force oracle and the
numpy rule such tiles once took (support/tile_runs.py), on call trees hypothesis invents:
equal timestamps, zero-length calls, calls on tile edges and at the very end, deep levels;
plus what the index keeps."""

from __future__ import annotations

import tracemalloc
from types import SimpleNamespace
from unittest import mock

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support import tile_runs
from traceview.analysis.kernels.tiling import BUCKETS, MAX_LEVEL
from traceview.analysis.layout import timeline
from traceview.analysis.layout.timeline import Tile, Timeline


def tree(steps: list[tuple[bool, int]], threads: int, seed: int) -> SimpleNamespace:
    """Pre-order calls from (enter?, time step) pairs, dealt round-robin to `threads`; the
    events (one per start and end) are shuffled, so ends are gathered from anywhere."""
    start: list[int] = []
    end: list[int] = []
    depth: list[int] = []
    parent: list[int] = []
    ranges = []
    per = max(1, len(steps) // threads)
    for t in range(threads):
        first = len(start)
        now = 1_000 * t
        stack: list[int] = []
        for enter, dt in steps[t * per : (t + 1) * per]:
            now += dt
            if enter or not stack:
                stack.append(len(start))
                parent.append(stack[-2] if len(stack) > 1 else -1)
                depth.append(len(stack) - 1)
                start.append(now)
                end.append(now)
            else:
                end[stack.pop()] = now
        while stack:
            end[stack.pop()] = now
        ranges.append((first, len(start)))
    n = len(start)
    order = np.random.default_rng(seed).permutation(2 * n)
    times = np.empty(2 * n, dtype=np.int64)
    times[order] = np.concatenate([start, end])
    return SimpleNamespace(
        start=np.array(start, dtype=np.int64),
        end=np.array(end, dtype=np.int64),
        depth=np.array(depth, dtype=np.int32),
        parent=np.array(parent, dtype=np.int32),
        method=(np.arange(n) % 5).astype(np.int32),
        thread_ranges=np.array(ranges, dtype=np.int64).reshape(-1, 2),
        enter_event=order[:n].astype(np.int32),
        exit_event=order[n:].astype(np.int32),
        times=times,
    )


def make(calls: SimpleNamespace, pad: int) -> Timeline:
    lo = int(calls.start.min()) if len(calls.start) else 0
    hi = int(calls.end.max()) if len(calls.end) else 0
    return Timeline(calls, calls.times, lo, hi + pad)


def tile_of(tl: Timeline, level: int, t: int) -> int:
    """The tile whose [t0, t1) holds time `t` (the last one for t past the end)."""
    lo, hi = 0, (1 << level) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if tl.bounds(level, mid)[0] <= t:
            lo = mid
        else:
            hi = mid - 1
    return lo


def oracle(
    calls: SimpleNamespace, tl: Timeline, thread: int, level: int, tile: int
) -> tuple[list[int], list[tuple[int, ...]]]:
    """Rect rows, then per depth the busy buckets' runs with the calls starting in each."""
    lo, hi = (int(x) for x in calls.thread_ranges[thread])
    t0, t1, width = tl.bounds(level, tile)
    rects = []
    busy: dict[tuple[int, int], int] = {}
    for r in range(lo, hi):
        s, e, d = int(calls.start[r]), int(calls.end[r]), int(calls.depth[r])
        if e - s >= width:
            if s < t1 and (e > t0 or s >= t0):
                rects.append(r)
        elif t0 <= s < t1:
            f = int((s - tl.span_start) / width) - tile * BUCKETS
            g = int((max(e - 1, s) - tl.span_start) / width) - tile * BUCKETS
            f = min(max(f, 0), BUCKETS - 1)
            g = min(max(g, f), BUCKETS - 1)
            busy[(d, f)] = busy.get((d, f), 0) + 1
            busy.setdefault((d, g), 0)
    runs: list[list[int]] = []
    for d, b in sorted(busy):
        if runs and runs[-1][0] == d and runs[-1][2] == b - 1:
            runs[-1][2] = b
            runs[-1][3] += busy[(d, b)]
        else:
            runs.append([d, b, b, busy[(d, b)]])
    return rects, [tuple(r) for r in runs]


def numpy_runs(
    calls: SimpleNamespace, tl: Timeline, thread: int, level: int, tile: int
) -> list[tuple[int, int, int, int]]:
    """The tile's runs by the numpy rule tiles of few calls once took (support/tile_runs.py):
    its narrow calls, those starting in it."""
    lo, hi = (int(x) for x in calls.thread_ranges[thread])
    t0, t1, width = tl.bounds(level, tile)
    s, e = calls.start[lo:hi], calls.end[lo:hi]
    mine = (s >= t0) & (s < t1) & (e - s < width)
    found = tile_runs.runs(
        s[mine], e[mine], calls.depth[lo:hi][mine], tl.span_start, tile * BUCKETS, width
    )
    return sorted((int(d), int(f), int(g), int(c)) for d, f, g, c in zip(*found, strict=True))


def as_oracle(tl: Timeline, t: Tile) -> tuple[list[int], list[tuple[int, ...]]]:
    _, _, width = tl.bounds(t.level, t.tile)
    base = t.tile * BUCKETS * width - (t.t0 - tl.span_start)
    runs = []
    for d, a, b, c in zip(
        t.merged_depth, t.merged_start, t.merged_end, t.merged_count, strict=True
    ):
        first = round((max(a, base) - base) / width)
        last = round((min(b, base + BUCKETS * width) - base) / width) - 1
        runs.append((int(d), first, last, int(c)))
    return t.rect_call.tolist(), sorted(runs)


def same(a: Tile, b: Tile) -> None:
    for name in ("rect_call", "rect_method", "rect_depth", "rect_start", "rect_end"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    for name in ("merged_depth", "merged_start", "merged_end", "merged_count"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert (a.t0, a.t1, a.truncated) == (b.t0, b.t1, b.truncated)


steps = st.lists(
    st.tuples(
        st.booleans(),
        st.one_of(st.just(0), st.integers(0, 3), st.integers(0, 5_000), st.integers(0, 10**9)),
    ),
    min_size=1,
    max_size=300,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps=steps,
    threads=st.integers(1, 3),
    pad=st.sampled_from([0, 1, 7, 10**6]),
    levels=st.lists(st.integers(0, MAX_LEVEL), min_size=1, max_size=4),
    picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=4),
    seed=st.integers(0, 3),
    together=st.booleans(),
)
def test_level_indexes_match_direct_path_and_oracle(
    steps: list[tuple[bool, int]],
    threads: int,
    pad: int,
    levels: list[int],
    picks: list[int],
    seed: int,
    together: bool,
) -> None:
    calls = tree(steps, threads, seed)
    direct = make(calls, pad)
    indexed = make(calls, pad)
    if together:  # every level up to 20 in one pass (else each level alone, when asked)
        with mock.patch.object(timeline, "DIRECT_LIMIT", 0):
            indexed.prepare_all(workers=1)
    for thread in range(indexed.threads):
        lo, hi = (int(x) for x in calls.thread_ranges[thread])
        if hi == lo:
            continue
        for level in levels:
            # tiles where calls start or end (edges included), and the last one
            times = [int(calls.start[lo + p % (hi - lo)]) for p in picks]
            times += [int(calls.end[lo + p % (hi - lo)]) for p in picks] + [indexed.span_end]
            for tile in sorted({tile_of(indexed, level, t) for t in times}):
                with mock.patch.object(timeline, "DIRECT_LIMIT", 10**9):
                    a = direct.tile(thread, level, tile)
                with mock.patch.object(timeline, "DIRECT_LIMIT", 0):
                    b = indexed.tile(thread, level, tile)
                same(a, b)
                if indexed.bounds(level, tile)[2] >= 1:
                    # below 1 ns per bucket a tile's integer [t0, t1) and its fractional
                    # bucket grid disagree by under a nanosecond (runs are clamped to
                    # [t0, t1)): the oracle's bucket numbers are compared from 1 ns up
                    assert as_oracle(indexed, b) == oracle(calls, indexed, thread, level, tile)
                    assert as_oracle(direct, a)[1] == numpy_runs(calls, direct, thread, level, tile)


@settings(max_examples=300, deadline=None)
@given(
    span=st.one_of(st.integers(1, 2**20), st.integers(1, 2**62)),
    level=st.integers(0, MAX_LEVEL),
    k=st.integers(0, 2**40),
)
def test_compiled_tile_start_is_exact(span: int, level: int, k: int) -> None:
    from traceview.analysis.kernels.levels import tile_start

    k %= 1 << level
    assert tile_start(span, k, level) == span * k >> level


def big_calls(n: int) -> SimpleNamespace:
    rng = np.random.default_rng(5)
    steps = list(zip((rng.random(n) < 0.5).tolist(), rng.integers(0, 900, n).tolist(), strict=True))
    return tree(steps, 2, 1)


def test_two_workers_build_the_same_indexes() -> None:
    calls = big_calls(40_000)
    with mock.patch.object(timeline, "DIRECT_LIMIT", 500):
        one, two = make(calls, 0), make(calls, 0)
        one.prepare_all(workers=1)
        two.prepare_all(workers=2)
        for thread in range(2):
            assert one._lanes[thread].levels.keys() == two._lanes[thread].levels.keys()
            for level in (0, 2, 5):
                for tile in (0, (1 << level) // 2, (1 << level) - 1):
                    same(one.tile(thread, level, tile), two.tile(thread, level, tile))


def test_the_index_keeps_no_per_call_copies() -> None:
    """Lanes are views into the shared columns (ends gathered on demand): building the
    timeline allocates nothing per call, and a level index holds 4-byte rows and compact
    runs (no depth-sorted copy, no int64 row or bucket columns)."""
    calls = big_calls(200_000)
    n = len(calls.start)
    tracemalloc.start()
    tl = make(calls, 0)
    made, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert made < 64 * 1024, made  # a few small objects, not 8 bytes x calls
    lane = tl._lanes[0]
    assert np.shares_memory(lane.enter_event, calls.enter_event)
    assert np.shares_memory(lane.exit_event, calls.exit_event)
    with mock.patch.object(timeline, "DIRECT_LIMIT", 4000):
        tl.prepare(0, 1)  # compile outside the measurement
        tracemalloc.start()
        tl.prepare(0)
        kept, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    levels = list(lane.levels.values())
    assert len(levels) > 3
    for lv in levels:
        assert lv.wide.dtype == np.int32 and lv.run_first.dtype == np.int32
        assert lv.run_last.dtype == np.uint16 and lv.run_count.dtype == np.int32
    # transients: the lane's starts while its pass runs (8 bytes a call), the closed runs and
    # wide rows before they are sorted by depth and level (16 and 8 bytes each, in buffers
    # that grow by doubling); never the old depth-sorted copy (24 bytes a call)
    entries = sum(len(lv.wide) + len(lv.run_first) for lv in levels)
    assert peak - kept < 8 * n + 32 * entries + 65536, (peak, kept, entries, n)
