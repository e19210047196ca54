"""The event formats (chrome, speedscope) written by the compiled kernel: speedscope's event
order equals the nesting order a sort gives (property test over random call trees), every
Chrome time is the exact ns of its call in µs (negative ones too), and the bytes are the same
whether they reach a text stream decoded or straight through its buffer, on one worker or
several, in one chunk or many."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from traceview.analysis import Session
from traceview.analysis.kernels import jsonbytes
from traceview.analysis.view import View
from traceview.exporters import chrome, get
from traceview.exporters.speedscope import event_order
from traceview.exporters.stacks import Spans, ThreadCalls, origins, thread_calls
from traceview.synth import generate


@pytest.fixture(scope="module")
def session() -> Session:
    return Session(generate(records=8000, threads=3, seed=11))


def part_of(depths: list[int]) -> ThreadCalls:
    """A thread's calls in pre-order from their depths (each at most one deeper than the last)."""
    n = len(depths)
    parent = np.full(n, -1, dtype=np.int64)
    end = np.arange(1, n + 1, dtype=np.int64)
    stack: list[int] = []
    for i, d in enumerate(depths):
        while len(stack) > d:
            stack.pop()
        parent[i] = stack[-1] if stack else -1
        for a in stack:
            end[a] = i + 1
        stack.append(i)
    empty = np.zeros(n, dtype=np.int64)
    spans = Spans({"wall": empty}, {"wall": empty})
    depth = np.array(depths, dtype=np.int32)
    return ThreadCalls(
        0, np.zeros(n, dtype=np.int32), depth, parent, end, spans, np.zeros(n, dtype=np.uint8)
    )


def sorted_order(part: ThreadCalls) -> tuple[list[int], list[bool]]:
    """The reference: a close of call i sits just before the entry of row subtree_end[i],
    after the closes there that are deeper; one lexsort of all 2n events."""
    n = len(part)
    rows = np.arange(n, dtype=np.int64)
    primary = np.concatenate((rows, part.subtree_end))
    closing = np.concatenate((np.zeros(n, dtype=np.int8), np.ones(n, dtype=np.int8)))
    tertiary = np.concatenate((np.zeros(n, dtype=np.int64), -part.depth.astype(np.int64)))
    order = np.lexsort((tertiary, 1 - closing, primary))
    return np.concatenate((rows, rows))[order].tolist(), closing[order].astype(bool).tolist()


depth_steps = st.lists(st.integers(-6, 1), min_size=1, max_size=300)


@settings(max_examples=300)
@given(depth_steps)
def test_speedscope_order_is_the_sorted_nesting_order(steps: list[int]) -> None:
    depths = [0]
    for s in steps[1:]:
        depths.append(max(0, depths[-1] + s))
    part = part_of(depths)
    call, closing = event_order(part)
    assert (call.tolist(), closing.tolist()) == sorted_order(part)


def test_speedscope_order_of_generated_threads(session: Session) -> None:
    span = session.end - session.origin
    for q in (session.query(), session.query(time_range=session.time_range(span // 3, span))):
        for part in thread_calls(View(session, q)):
            call, closing = event_order(part)
            assert (call.tolist(), closing.tolist()) == sorted_order(part)


def render(view: View, name: str, direct: bool) -> bytes:
    """The export as bytes, through a StringIO (decoded) or a UTF-8 TextIOWrapper (direct)."""
    if not direct:
        text = io.StringIO()
        get(name).export(view, text, get(name).options(title="tïtle"))
        return text.getvalue().encode()
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8")
    get(name).export(view, out, get(name).options(title="tïtle"))
    out.flush()
    return raw.getvalue()


@pytest.mark.parametrize("name", ["chrome", "speedscope"])
def test_same_bytes_on_every_path(
    session: Session, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    span = session.end - session.origin
    queries = [
        session.query(),
        session.query(clock="cpu", time_range=session.time_range(span // 4, span // 2)),
    ]
    for q in queries:
        view = View(session, q)
        monkeypatch.setenv("TRACEVIEW_WORKERS", "1")
        want = render(view, name, False)
        json.loads(want)
        for workers, chunk, direct in [("1", 3, True), ("2", 5, False), ("3", 1 << 16, True)]:
            monkeypatch.setenv("TRACEVIEW_WORKERS", workers)
            monkeypatch.setattr(jsonbytes, "CHUNK", chunk)
            assert render(view, name, direct) == want, (workers, chunk, direct)


def x_events(data: bytes) -> list[dict[str, Any]]:
    doc = json.loads(data, parse_float=Decimal)
    return [e for e in doc["traceEvents"] if e["ph"] == "X"]


@pytest.mark.parametrize("shift", ["none", "one ns", "far"])
def test_chrome_times_are_the_exact_ns_even_below_zero(
    session: Session, shift: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Times before the origin (none today; a clipped range could make some) keep their sign
    and their digits: -1 ns is -0.001 µs (once written -1.999)."""
    calls = session.calls
    first = int(calls.start("wall").min())
    zero = dict(origins(View(session, session.query())))
    moved = {"none": zero["wall"], "one ns": first + 1, "far": first + 123_456_789_012}
    zero["wall"] = moved[shift]
    monkeypatch.setattr(chrome, "origins", lambda view: zero)
    view = View(session, session.query(clock="wall"))
    data = render(view, "chrome", True)
    events = x_events(data)  # in call-table order: threads in row order, calls in pre-order
    assert len(events) == len(calls)
    want_ts = [Decimal(int(v) - zero["wall"]) / 1000 for v in calls.start("wall")]
    assert [e["ts"] for e in events] == want_ts
    for clock in session.clocks:
        want = [Decimal(int(v)) / 1000 for v in calls.incl(clock)]
        assert [e["args"][f"{clock}_us"] for e in events] == want
    assert [e["dur"] for e in events] == [e["args"]["wall_us"] for e in events]
    assert (b'"ts":-0.001,' in data) == (shift == "one ns")
