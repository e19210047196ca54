"""The interchange exporters (folded, svg, chrome, speedscope, pprof) against the session's own
numbers: totals equal the profile's thread totals minus toplevel (also with a time range and
on both clocks), one event per call, nesting, names kept exactly and escaped per format.
Real consumers reading the files: test_interchange_consumers.py."""

from __future__ import annotations

import gzip
import io
import json
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from support.tracebuild import make_trace
from traceview.analysis import Session
from traceview.analysis.view import View
from traceview.exporters import get
from traceview.exporters.stacks import selected_threads, thread_label
from traceview.model import visible
from traceview.synth import generate


@pytest.fixture(scope="module")
def session() -> Session:
    return Session(generate(records=6000, threads=3, seed=7))


def render(view: View, name: str, **options: Any) -> Any:
    exporter = get(name)
    buf: Any = io.BytesIO() if exporter.binary else io.StringIO()
    exporter.export(view, buf, exporter.options(**options))
    return buf.getvalue()


def expected_total(session: Session, view: View, threads: list[int], clock: str) -> int:
    """Σ thread totals − toplevel of `threads` in the view's selection."""
    q = session.query(
        threads=threads, clock=clock, time_range=view.query.time_range, my_code=view.query.my_code
    )
    prof = session.profile(q)
    return int(prof.thread_total[clock].sum()) - int(prof.toplevel[clock])


def folded_totals(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for line in text.splitlines():
        path, _, value = line.rpartition(" ")
        assert path and value.isdigit(), line
        root = path.split(";", 1)[0]
        out[root] = out.get(root, 0) + int(value)
    return out


def views(session: Session) -> list[View]:
    span = session.end - session.origin
    out = []
    for clock in session.clocks:
        out.append(View(session, session.query(clock=clock)))
        rng = session.time_range(span // 5, span // 2)
        out.append(View(session, session.query(clock=clock, time_range=rng)))
        out.append(View(session, session.query(clock=clock, time_range=rng, my_code="android")))
    return out


def test_folded_per_thread_totals_equal_the_profile(session: Session) -> None:
    for view in views(session):
        got = folded_totals(render(view, "folded"))
        for t in selected_threads(view):
            want = expected_total(session, view, [t], view.query.clock)
            assert got.get(thread_label(view, t), 0) == want, (view.query, t)


def test_folded_merged_total_equals_the_profile(session: Session) -> None:
    for view in views(session):
        text = render(view, "folded", merge_threads=True)
        total = sum(folded_totals(text).values())
        rows = selected_threads(view)
        assert total == expected_total(session, view, rows, view.query.clock)
        assert not any(line.startswith("main [") for line in text.splitlines())


def test_folded_paths_follow_the_tree(session: Session) -> None:
    view = View(session, session.query(threads=[session.main_thread()]))
    tree = view.top_down()
    lines = render(view, "folded").splitlines()
    assert len(lines) == int((tree.excl[view.query.clock] > 0).sum())
    depth = max(line.rpartition(" ")[0].count(";") for line in lines)
    assert depth == int(tree.depth.max()) + 1  # + the thread's root frame


def chrome_events(text: str) -> list[dict[str, Any]]:
    doc = json.loads(text)
    assert doc["displayTimeUnit"] == "ns"
    events: list[dict[str, Any]] = doc["traceEvents"]
    return events


def test_chrome_one_complete_event_per_call_nested_per_thread(session: Session) -> None:
    view = View(session, session.query(clock="wall"))
    events = chrome_events(render(view, "chrome"))
    complete = [e for e in events if e["ph"] == "X"]
    assert len(complete) == len(session.calls)
    meta = {e["tid"]: e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    th = session.trace.threads
    assert meta == {int(th.id[t]): th.label(t) for t in range(len(th)) if int(th.id[t]) in meta}
    per_thread: dict[int, list[dict[str, Any]]] = {}
    for e in complete:
        assert set(e["args"]) == {"cpu_us", "wall_us"}
        assert e["args"]["wall_us"] == e["dur"]
        per_thread.setdefault(e["tid"], []).append(e)
    for evs in per_thread.values():
        stack: list[float] = []  # end times of the open events
        for e in evs:  # pre-order: each event starts inside every open one that holds it
            while stack and e["ts"] >= stack[-1] and not e["dur"] == 0 == e["ts"] - stack[-1]:
                stack.pop()
            if stack:
                assert e["ts"] + e["dur"] <= stack[-1] + 1e-6
            stack.append(e["ts"] + e["dur"])


def test_chrome_roots_sum_to_the_profile_with_a_range(session: Session) -> None:
    for view in views(session):
        events = [e for e in chrome_events(render(view, "chrome")) if e["ph"] == "X"]
        by_tid: dict[int, float] = {}
        ends: dict[int, float] = {}
        for e in events:
            tid = e["tid"]
            if e["ts"] >= ends.get(tid, -1.0) and (e["dur"] > 0 or e["ts"] > ends.get(tid, -1)):
                by_tid[tid] = by_tid.get(tid, 0.0) + e["dur"]
                ends[tid] = e["ts"] + e["dur"]
        th = session.trace.threads
        for t in selected_threads(view):
            want = expected_total(session, view, [t], view.query.clock) / 1000
            assert by_tid.get(int(th.id[t]), 0.0) == pytest.approx(want, abs=0.01)


def speedscope_doc(view: View) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(render(view, "speedscope"))
    assert doc["$schema"] == "https://www.speedscope.app/file-format-schema.json"
    return doc


def test_speedscope_events_balance_and_sum_to_the_profile(session: Session) -> None:
    for view in views(session):
        doc = speedscope_doc(view)
        names = [f["name"] for f in doc["shared"]["frames"]]
        assert names == [visible(view.methods.label(i)) for i in range(len(view.methods))]
        rows = selected_threads(view)
        assert len(doc["profiles"]) <= len(rows)
        for prof in doc["profiles"]:
            assert prof["type"] == "evented" and prof["unit"] == "nanoseconds"
            stack: list[tuple[int, int]] = []
            last = prof["startValue"]
            roots = 0
            for ev in prof["events"]:
                assert ev["at"] >= last
                last = ev["at"]
                if ev["type"] == "O":
                    stack.append((ev["frame"], ev["at"]))
                else:
                    frame, at = stack.pop()
                    assert frame == ev["frame"]
                    if not stack:
                        roots += ev["at"] - at
            assert not stack and last == prof["endValue"]
            t = next(r for r in rows if prof["name"].startswith(view.trace.threads.label(r)))
            assert roots == expected_total(session, view, [t], view.query.clock)


def pprof_totals(blob: bytes) -> tuple[list[str], list[int]]:
    """A small protobuf reader for the test: the sample types and the Σ of each value."""

    def varint(buf: bytes, i: int) -> tuple[int, int]:
        shift = out = 0
        while True:
            b = buf[i]
            i += 1
            out |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return out, i

    def fields(buf: bytes) -> list[tuple[int, Any]]:
        i = 0
        out: list[tuple[int, Any]] = []
        while i < len(buf):
            k, i = varint(buf, i)
            if k & 7 == 0:
                v, i = varint(buf, i)
                out.append((k >> 3, v))
            else:
                n, i = varint(buf, i)
                out.append((k >> 3, buf[i : i + n]))
                i += n
        return out

    top = fields(gzip.decompress(blob))
    strings = [v.decode() for f, v in top if f == 6]
    types = [strings[dict(fields(v)).get(1, 0)] for f, v in top if f == 1]
    sums = [0] * len(types)
    for f, v in top:
        if f == 2:
            vals = dict(fields(v))[2]
            i = k = 0
            while i < len(vals):
                x, i = varint(vals, i)
                sums[k] += x
                k += 1
    return types, sums


def test_pprof_sample_types_and_totals(session: Session) -> None:
    for view in views(session):
        types, sums = pprof_totals(render(view, "pprof"))
        assert types == ["calls", *session.clocks]
        rows = selected_threads(view)
        for clock, total in zip(session.clocks, sums[1:], strict=True):
            assert total == expected_total(session, view, rows, clock)
        assert sums[0] == int(view.top_down().calls.sum())


def test_pprof_is_deterministic(session: Session) -> None:
    view = View(session, session.query())
    assert render(view, "pprof") == render(view, "pprof")


# names no format may break on: JVM `;`, XML/HTML specials, a newline, an undecodable byte
ODD = [
    "com.a.B.<init>(Ljava/lang/String;)V",
    "com.a.B.x<&>\"'(I)V",
    "com.a.B.nl\nx",
    "com.a.B.b\udcff",
]


@pytest.fixture(scope="module")
def odd() -> View:
    events = []
    t = 0
    for name in ODD:
        events.append((1, "enter", name, t, t))
        events.append((1, "exit", name, t + 5, t + 6))
        t += 10
    s = Session(make_trace(events, names={1: "main<&>\n"}))
    return View(s, s.query())


def test_names_escaped_for_each_format(odd: View) -> None:
    labels = [visible(odd.methods.label(i)) for i in range(len(odd.methods))]
    lines = render(odd, "folded").splitlines()
    assert len(lines) == len(ODD)
    assert "\\x3b" in lines[0] and "\n" not in "".join(lines)
    events = [e for e in chrome_events(render(odd, "chrome")) if e["ph"] == "X"]
    assert [e["name"] for e in events] == labels
    doc = speedscope_doc(odd)
    assert [f["name"] for f in doc["shared"]["frames"]] == labels
    svg = render(odd, "svg")
    root = ET.fromstring(svg.encode())  # well-formed XML whatever the names
    ns = "{http://www.w3.org/2000/svg}"
    titles = [el.text for el in root.iter(f"{ns}title")]
    assert "com.a.B.x<&>\"' (I)V" in titles
    data = root.find(f".//{ns}script[@id='flame-data']")
    assert data is not None and "<" not in (data.text or "")
    assert set(labels) <= set(json.loads(data.text or "")["names"])
    assert b"com.a.B.x<&>" in gzip.decompress(render(odd, "pprof"))


def test_svg_frames_cover_the_total(session: Session) -> None:
    from traceview.exporters.svg import frames_data

    for view in views(session):
        data = frames_data(view, merge=False)
        rows = selected_threads(view)
        assert data["total"] == expected_total(session, view, rows, view.query.clock)
        roots = [w for w, d in zip(data["w"], data["d"], strict=True) if d == 0]
        assert sum(roots) == data["total"]
        merged = frames_data(view, merge=True)
        assert merged["total"] == data["total"] and not any(merged["t"])


def test_a_single_clock_trace_exports_that_clock_only() -> None:
    events = [
        (1, "enter", "com.a.B.run()V", None, 0),
        (1, "enter", "com.a.B.inner()V", None, 2),
        (1, "exit", "com.a.B.inner()V", None, 7),
        (1, "exit", "com.a.B.run()V", None, 10),
    ]
    s = Session(make_trace(events, clock="wall"))
    view = View(s, s.query())
    assert folded_totals(render(view, "folded")) == {"thread-1 [1]": 10_000}
    x = [e for e in chrome_events(render(view, "chrome")) if e["ph"] == "X"]
    assert [e["args"] for e in x] == [{"wall_us": 10.0}, {"wall_us": 5.0}]
    assert pprof_totals(render(view, "pprof")) == (["calls", "wall"], [2, 10_000])
    assert len(speedscope_doc(view)["profiles"][0]["events"]) == 4
    ET.fromstring(render(view, "svg").encode())


def test_deep_recursion_folds_frames_below_the_cap() -> None:
    from traceview.exporters.stacks import DEEPER, MAX_DEPTH

    depth = MAX_DEPTH + 500
    names = [f"com.a.R.f{k % 7}()V" for k in range(depth)]
    events = [(1, "enter", n, k, k) for k, n in enumerate(names)]
    events += [(1, "exit", n, depth + k, depth + k) for k, n in enumerate(reversed(names))]
    s = Session(make_trace(events))
    view = View(s, s.query())
    want = expected_total(s, view, [0], "cpu")
    lines = render(view, "folded").splitlines()
    assert sum(int(line.rpartition(" ")[2]) for line in lines) == want
    frames = [line.rpartition(" ")[0].split(";") for line in lines]
    assert max(len(f) for f in frames) == MAX_DEPTH + 2  # thread root + kept frames + DEEPER
    assert sum(f[-1] == DEEPER for f in frames) == 1
    _, sums = pprof_totals(render(view, "pprof"))
    assert sums[1] == want and sums[0] == depth
    assert DEEPER.encode() in gzip.decompress(render(view, "pprof"))
    from traceview.exporters.svg import frames_data

    data = frames_data(view, merge=False)
    assert max(data["d"]) == MAX_DEPTH - 1 and data["deep"] == depth + 1 - MAX_DEPTH
    assert data["total"] == want
