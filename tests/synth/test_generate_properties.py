"""Property test: every combination of generator options gives a valid trace that survives
write -> read -> write (regular and streaming) byte for byte."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from support.writer_out import written
from traceview import load
from traceview.synth import generate

OPTIONS = st.fixed_dictionaries(
    {
        "records": st.sampled_from([0, 1, 7, 60, 800, 4000]),
        "threads": st.integers(1, 14),
        "seed": st.integers(0, 3),
        "clock": st.sampled_from(["dual", "thread-cpu", "wall", "global"]),
        "style": st.sampled_from(["art", "dalvik"]),
        "order": st.sampled_from(["time", "chunks"]),
        "thread_ids": st.sampled_from(["encoded", "tid"]),
        "mode": st.sampled_from(["plain", "balanced", "sampled", "overflow"]),
    }
)


@settings(max_examples=40, deadline=None)
@given(options=OPTIONS)
def test_any_options(options: dict[str, Any]) -> None:
    mode = options.pop("mode")
    if mode == "overflow":
        options["overflow_records"] = max(options["records"] // 2, 1)
        options["chunk_records"] = max(options["records"] // 20, 1)
    elif mode != "plain":
        options[mode] = True
    trace = generate(**options)
    trace.validate()
    assert len(trace.events) <= options["records"]
    for variant in ("regular", "streaming"):
        first = written(trace, variant)
        back = load(first)
        back.validate()
        assert written(back, variant) == first
