"""Off-CPU time (wall - CPU) is never negative: the two clocks tick at different
granularities, so a short call can read more CPU than wall time (the viewer showed -0.001 ms)."""

from __future__ import annotations

from support.tracebuild import make_trace
from traceview.analysis.session import Session
from traceview.viewer import answers as viewer


def test_off_cpu_is_never_negative() -> None:
    trace = make_trace(
        [
            (1, "enter", "com.app.A.run", 0, 0),
            (1, "enter", "com.app.A.tick", 1, 1),
            (1, "exit", "com.app.A.tick", 11, 9),  # 10 µs CPU in 8 µs wall
            (1, "exit", "com.app.A.run", 30, 40),
        ]
    )
    s = Session(trace)
    p = s.profile(s.query())
    off = p.off_cpu()
    assert off is not None and off.min() >= 0
    rows = viewer.profile_answer(s, s.query())["methods"]
    assert min(rows["off_cpu_us"]) >= 0
    assert viewer.call_answer(s, 1)["off_cpu_us"] == 0.0
    assert viewer.call_answer(s, 0)["off_cpu_us"] == 10.0
