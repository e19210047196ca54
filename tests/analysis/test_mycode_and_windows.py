"""The viewer's call-table filters: "my code" folding, time windows and frame budgets."""

from __future__ import annotations

import numpy as np
import pytest

from support.tracebuild import make_trace
from traceview.analysis.calls import build_calls
from traceview.analysis.layout.budget import frame_calls
from traceview.analysis.mycode import keep_packages, method_mask
from traceview.analysis.profile import profile
from traceview.analysis.query import normalise_prefixes as parse_prefixes
from traceview.analysis.session import Session
from traceview.model import Trace
from traceview.synth import generate


def folded_trace() -> Trace:
    return make_trace(
        [
            (1, "enter", "com.app.Main.run", 0, 0),
            (1, "enter", "android.os.Handler.dispatch", 1, 1),
            (1, "enter", "com.app.Foo.cb", 2, 2),
            (1, "enter", "java.util.List.get", 3, 3),
            (1, "exit", "java.util.List.get", 4, 4),
            (1, "exit", "com.app.Foo.cb", 6, 6),
            (1, "exit", "android.os.Handler.dispatch", 8, 9),
            (1, "exit", "com.app.Main.run", 10, 12),
            (2, "enter", "java.lang.Thread.run", 0, 0),
            (2, "enter", "com.app.Worker.go", 1, 1),
            (2, "exit", "com.app.Worker.go", 5, 5),
            (2, "exit", "java.lang.Thread.run", 6, 6),
        ]
    )


def test_prefixes_and_mask() -> None:
    assert parse_prefixes(" com/app/ ,org.x,, ") == ("com.app", "org.x")
    trace = folded_trace()
    trace.validate()
    mask = method_mask(trace.methods, ["com.app"])
    assert mask.tolist() == [True, False, True, False, False, True]
    assert not method_mask(trace.methods, ["com.ap"]).any()  # whole package names only


def test_library_frames_fold_into_their_caller() -> None:
    trace = folded_trace()
    trace.validate()
    calls = build_calls(trace)
    mine = keep_packages(calls, ["com.app"])
    mine.validate()
    assert mine.method.tolist() == [0, 2, 5]
    assert mine.parent.tolist() == [-1, 0, -1] and mine.depth.tolist() == [0, 1, 0]
    assert mine.thread_ranges.tolist() == [[0, 2], [2, 3]]
    # Main.run keeps its inclusive time; the dispatcher's own time becomes Main.run's
    assert mine.incl("cpu").tolist() == [10_000, 4_000, 4_000]
    assert mine.excl("cpu").tolist() == [6_000, 4_000, 4_000]
    p = profile(mine)
    assert p.total("cpu") == profile(calls).total("cpu")


def test_fold_on_a_generated_trace_keeps_invariants() -> None:
    trace = generate(records=30_000, threads=3, seed=2)
    trace.validate()
    calls = build_calls(trace)
    prefix = trace.methods.class_name[int(calls.method[0])].rsplit(".", 1)[0]
    mine = keep_packages(calls, [prefix])
    mine.validate()
    assert 0 < len(mine) <= len(calls)
    assert int(mine.excl("wall").sum()) <= int(calls.excl("wall").sum())


@pytest.mark.parametrize("threads", [None, [0, 2]])
def test_time_window_profiles_equal_full_profiles(threads: list[int] | None) -> None:
    trace = generate(records=40_000, threads=3, seed=3)
    trace.validate()
    s = Session(trace)
    rng = np.random.default_rng(0)
    span = (s.end - s.origin) / 1000
    for _ in range(8):
        a = rng.uniform(0, span)
        b = a + rng.uniform(0, span / 5)
        tr = s.time_range(round(a * 1000), round(b * 1000))
        q = s.query(clock="cpu", threads=threads, time_range=tr)
        window = s.selection(q)
        window.validate()
        assert tr is not None
        full = profile(s.calls, threads=q.threads, time_range=(tr.lo, tr.hi))
        part = profile(window, threads=q.threads, time_range=(tr.lo, tr.hi))
        for c in ("cpu", "wall"):
            assert np.array_equal(full.incl[c], part.incl[c])
            assert np.array_equal(full.excl[c], part.excl[c])
            assert np.array_equal(full.thread_total[c], part.thread_total[c])
        assert np.array_equal(full.calls, part.calls)


def test_frames_fall_back_to_dispatch_then_toplevel() -> None:
    trace = make_trace(
        [
            (1, "enter", "android.os.Handler.dispatchMessage", 0, 0),
            (1, "enter", "android.os.Handler.dispatchMessage", 1, 1),
            (1, "exit", "android.os.Handler.dispatchMessage", 2, 20_000),
            (1, "exit", "android.os.Handler.dispatchMessage", 3, 30_000),
            (1, "enter", "a.B.c", 4, 30_001),
            (1, "exit", "a.B.c", 5, 30_002),
        ]
    )
    trace.validate()
    calls = build_calls(trace)
    fc = frame_calls(calls, 0, 16_000_000, "wall")
    assert fc.kind == "dispatch" and fc.frames == 1 and fc.rows.tolist() == [0]
    plain = make_trace([(1, "enter", "a.B.c", 0, 0), (1, "exit", "a.B.c", 1, 17_000)])
    plain.validate()
    fc2 = frame_calls(build_calls(plain), 0, 16_000_000, "wall")
    assert fc2.kind == "toplevel" and fc2.rows.tolist() == [0]
