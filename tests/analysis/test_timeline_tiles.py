"""Timeline LOD tiles against a brute-force reference on random call trees (pre-order arrays)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from traceview.analysis.kernels.tiling import BUCKETS
from traceview.analysis.layout import timeline
from traceview.analysis.layout.timeline import Timeline


def random_calls(n: int, seed: int, threads: int = 2) -> SimpleNamespace:
    """A pre-order call table of `threads` random trees, with gaps and zero-length calls."""
    rng = np.random.default_rng(seed)
    start: list[int] = []
    end: list[int] = []
    depth: list[int] = []
    parent: list[int] = []
    ranges = []
    for _ in range(threads):
        first = len(start)
        now = int(rng.integers(0, 50))
        stack: list[int] = []
        for _ in range(n):
            while stack and rng.random() < 0.45:
                now += int(rng.integers(0, 4) ** 3)
                end[stack.pop()] = now
            now += int(rng.integers(0, 3) ** 4)
            row = len(start)
            start.append(now)
            end.append(now)
            depth.append(len(stack))
            parent.append(stack[-1] if stack else -1)
            stack.append(row)
        while stack:
            now += int(rng.integers(1, 5000))
            end[stack.pop()] = now
        ranges.append((first, len(start)))
    return SimpleNamespace(
        start=np.array(start, dtype=np.int64),
        end=np.array(end, dtype=np.int64),
        depth=np.array(depth, dtype=np.int32),
        parent=np.array(parent, dtype=np.int64),
        method=rng.integers(0, 7, len(start)).astype(np.int32),
        thread_ranges=np.array(ranges, dtype=np.int64),
        # the "events" are the starts, then the ends
        enter_event=np.arange(len(start), dtype=np.int32),
        exit_event=np.arange(len(start), 2 * len(start), dtype=np.int32),
        times=np.array(start + end, dtype=np.int64),
    )


def make(calls: SimpleNamespace) -> Timeline:
    return Timeline(calls, calls.times, int(calls.start.min()), int(calls.end.max()))


def reference(
    calls: SimpleNamespace, tl: Timeline, thread: int, level: int, tile: int
) -> tuple[set[int], set[tuple[int, int]], int]:
    """Brute force: rect rows, busy (depth, bucket) pairs and the narrow-call count."""
    lo, hi = calls.thread_ranges[thread]
    t0, t1, width = tl.bounds(level, tile)
    rows = np.arange(lo, hi)
    s, e = calls.start[rows], calls.end[rows]
    wide = (e - s) >= width
    rects = set(rows[wide & (s < t1) & ((e > t0) | (s >= t0))].tolist())
    busy = set()
    narrow = rows[~wide & (s >= t0) & (s < t1)]
    for r in narrow.tolist():
        g0 = int((calls.start[r] - tl.span_start) / width) - tile * BUCKETS
        g1 = int((max(calls.end[r] - 1, calls.start[r]) - tl.span_start) / width) - tile * BUCKETS
        g0 = min(max(g0, 0), BUCKETS - 1)
        g1 = min(max(g1, g0), BUCKETS - 1)
        busy.add((int(calls.depth[r]), g0))
        busy.add((int(calls.depth[r]), g1))
    return rects, busy, len(narrow)


def answered(
    tl: Timeline, thread: int, level: int, tile: int
) -> tuple[set[int], set[tuple[int, int]], int]:
    t = tl.tile(thread, level, tile)
    t0, _, width = tl.bounds(level, tile)
    busy = set()
    base = tile * BUCKETS * width - (t0 - tl.span_start)  # bucket 0, relative to t0
    for d, a, b in zip(t.merged_depth, t.merged_start, t.merged_end, strict=True):
        first = round((max(a, base) - base) / width)
        last = round((b - base) / width) - 1
        busy |= {(int(d), k) for k in range(first, last + 1)}
    assert np.all(t.rect_end - t.rect_start >= width)
    assert np.all(np.diff(t.rect_call) > 0)  # pre-order, no duplicates
    assert not t.truncated
    assert t.t0 == t0
    return set(t.rect_call.tolist()), busy, int(t.merged_count.sum())


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("direct_limit", [65_536, 0])
def test_tiles_match_brute_force(
    seed: int, direct_limit: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(timeline, "DIRECT_LIMIT", direct_limit)  # 0 forces the level indexes
    calls = random_calls(400, seed)
    tl = make(calls)
    for thread in range(2):
        for level in (0, 1, 3, 6, 9):
            for tile in sorted({0, (1 << level) // 3, (1 << level) - 1}):
                assert answered(tl, thread, level, tile) == reference(
                    calls, tl, thread, level, tile
                )


def test_level_indexes_and_direct_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = random_calls(600, 7, threads=1)
    tl_direct = make(calls)
    monkeypatch.setattr(timeline, "DIRECT_LIMIT", 0)
    tl_level = make(calls)
    tl_level.prepare(0)
    for level, tile in [(0, 0), (2, 1), (5, 17), (8, 200)]:
        a, b = tl_direct.tile(0, level, tile), tl_level.tile(0, level, tile)
        assert np.array_equal(a.rect_call, b.rect_call)
        assert np.array_equal(a.merged_count, b.merged_count)
        assert np.allclose(a.merged_start, b.merged_start)


def test_levels_built_together_or_alone_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """`prepare` builds a thread's levels in one pass; a level built alone later (after
    clearing) answers the same tiles."""
    monkeypatch.setattr(timeline, "DIRECT_LIMIT", 0)
    calls = random_calls(600, 3, threads=1)
    tl = make(calls)
    tl.prepare(0)
    lane = tl._lanes[0]
    assert lane.levels
    before = {lv: tl.tile(0, lv, 1 << lv >> 1) for lv in (0, 3, 6)}
    lane.levels.clear()
    for lv, tile in before.items():
        again = tl.tile(0, lv, 1 << lv >> 1)
        assert np.array_equal(again.rect_call, tile.rect_call)
        assert np.array_equal(again.merged_count, tile.merged_count)


def test_highlight_covers_exactly_the_method_calls() -> None:
    calls = random_calls(300, 11, threads=1)
    tl = make(calls)
    for level, tile in [(0, 0), (3, 5), (7, 100)]:
        t0, t1, width = tl.bounds(level, tile)
        starts, ends = tl.highlight(3, 0, level, tile)
        starts, ends = starts + t0, ends + t0
        assert np.all(np.diff(starts) > 0) and np.all(ends > starts)
        assert np.all(starts[1:] > ends[:-1])  # merged: no two extents touch
        hits = np.flatnonzero(
            (calls.method == 3) & (calls.start < t1) & ((calls.end > t0) | (calls.start >= t0))
        )
        for r in hits:
            mid = min(max((calls.start[r] + calls.end[r]) / 2, t0), t1 - 1e-9)
            assert np.any((starts <= mid + width) & (ends >= mid - width))


def test_highlight_rows_kept_are_bounded_in_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The method rows kept for highlights stay under their byte budget (least recently used
    go first) and answers do not change when they have to be found again."""
    calls = random_calls(2000, 8, threads=2)
    tl = make(calls)
    first = {m: tl.highlight(m, 0, 2, 1) for m in range(8)}
    monkeypatch.setattr(timeline, "HIGHLIGHT_BYTES", 24 * 300)
    fresh = make(calls)
    for _ in range(2):
        for m in range(8):
            got = fresh.highlight(m, 0, 2, 1)
            assert [a.tolist() for a in got] == [a.tolist() for a in first[m]]
            assert fresh._method_bytes <= 24 * 300 or len(fresh._method_rows) == 1
            assert fresh._method_bytes == sum(24 * len(v[0]) for v in fresh._method_rows.values())


def test_bad_tile_requests_raise() -> None:
    tl = make(random_calls(20, 1, threads=1))
    for level, tile in [(-1, 0), (0, 1), (3, 8), (41, 0)]:
        with pytest.raises(ValueError):
            tl.tile(0, level, tile)
    with pytest.raises(ValueError):
        tl.tile(5, 0, 0)


def test_tile_size_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(timeline, "MAX_ITEMS", 50)
    tl = make(random_calls(2000, 5, threads=1))
    t = tl.tile(0, 0, 0)
    assert len(t.rect_call) <= 50 and len(t.merged_depth) <= 50 and t.truncated


def test_tiles_of_a_generated_trace(monkeypatch: pytest.MonkeyPatch) -> None:
    from traceview.analysis.session import Session
    from traceview.synth import generate

    trace = generate(records=20_000, threads=2, seed=9)
    trace.validate()
    session = Session(trace)
    session.calls.validate()
    tl = session.timeline()
    clock = session.timeline_clock
    cols = SimpleNamespace(
        start=session.calls.start(clock),
        end=session.calls.end(clock),
        depth=session.calls.depth,
        thread_ranges=session.calls.thread_ranges,
    )
    for thread in range(tl.threads):
        for level, tile in [(0, 0), (4, 7), (10, 513)]:
            got = answered(tl, thread, level, tile)
            assert got == reference(cols, tl, thread, level, tile)
            assert got[2] + len(got[0]) >= 0
