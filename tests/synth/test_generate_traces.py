"""The generator: deterministic, valid, and shaped like real Android traces (deep stacks,
recursion, unrolls, exits without enters at start, calls open at the end, blocking calls,
long frames); the balanced and sampled modes; the bundled demo trace."""

from __future__ import annotations

import gzip
import io
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from traceview import load
from traceview.model import Clock, Trace
from traceview.synth import demo_path, generate
from traceview.synth.generate import make_demo
from traceview.writer import write

DEMO_NUMPY = "2.4"  # the numpy the committed demo trace was generated with


def _calls(trace: Trace) -> Iterator[tuple[int, int, int, int, int, bool]]:
    """(thread, method, depth, wall µs, cpu µs, recursive) per matched call; a test helper."""
    ev = trace.events
    assert ev.wall is not None and ev.cpu is not None
    stacks: dict[int, list[tuple[int, int, int]]] = {}
    cols = (ev.thread, ev.method, ev.action, ev.cpu, ev.wall)
    for t, m, a, c, w in zip(*(col.tolist() for col in cols), strict=True):
        stack = stacks.setdefault(t, [])
        if a == 0:
            stack.append((m, c, w))
        elif stack:
            m0, c0, w0 = stack.pop()
            assert m0 == m, "generated exits always match their enter"
            recursive = any(f[0] == m for f in stack)
            yield t, m, len(stack), (w - w0) // 1000, (c - c0) // 1000, recursive


def _depths(trace: Trace) -> dict[int, np.ndarray]:
    ev = trace.events
    out = {}
    for t in np.unique(ev.thread).tolist():
        acts = ev.action[ev.thread == t]
        out[t] = np.cumsum(np.where(acts == 0, 1, -1))
    return out


@pytest.fixture(scope="module")
def art() -> Trace:
    trace = generate(records=30_000, threads=10, seed=4)
    trace.validate()
    return trace


def test_deterministic() -> None:
    a, b = generate(records=5000, seed=9), generate(records=5000, seed=9)
    bufs = [io.BytesIO(), io.BytesIO()]
    write(a, bufs[0])
    write(b, bufs[1])
    assert bufs[0].getvalue() == bufs[1].getvalue()
    c = generate(records=5000, seed=10)
    assert c.events.wall is not None and a.events.wall is not None
    assert not np.array_equal(c.events.wall, a.events.wall)


@pytest.mark.parametrize("clock", ["dual", "thread-cpu", "wall", "global"])
@pytest.mark.parametrize("style", ["art", "dalvik"])
def test_valid_and_exact_size(clock: Clock, style: str) -> None:
    trace = generate(records=4000, threads=7, seed=1, clock=clock, style=style)
    trace.validate()
    assert len(trace.events) == 4000
    assert trace.header.clock == clock and trace.header.vm == style
    assert trace.header.options["num-method-calls"] == "4000"


def test_realistic_shape(art: Trace) -> None:
    ev, me, th = art.events, art.methods, art.threads
    assert ev.cpu is not None and ev.wall is not None
    names = {f"{c}.{n}" for c, n in zip(me.class_name, me.name, strict=True)}
    for expected in (
        "android.view.Choreographer.doFrame",
        "java.util.HashMap.get",
        "android.os.MessageQueue.nativePollOnce",
    ):
        assert expected in names
    assert any(n.startswith("kotlin.collections.CollectionsKt") for n in names)
    assert any(n.startswith("com.example.app.") and "Adapter.onBind" in n for n in names)
    assert any(n.startswith("androidx.recyclerview.widget.RecyclerView") for n in names)
    assert {"<init>", "<clinit>"} <= set(me.name)
    assert any("$lambda$0" in n for n in me.name) and any(n.startswith("access$") for n in me.name)
    assert all(f.endswith((".java", ".kt")) for f in me.source_file)
    assert {"main", "RenderThread", "OkHttp Dispatcher", "HeapTaskDaemon"} <= set(th.name)
    assert "kotlinx.coroutines.DefaultExecutor" in th.name
    assert any(str(n).startswith("Binder:") and str(n).endswith("_1") for n in th.name)
    assert len(np.unique(ev.thread)) == 10
    assert int(np.count_nonzero(ev.action == 2)) > 0  # exceptions unroll
    depths = _depths(art)
    assert max(int(d.max()) for d in depths.values()) >= 20
    assert any(int(d.min()) < 0 for d in depths.values())  # exits without enters at start
    open_at_end = [int(d[-1]) > int(min(d.min(), 0)) for d in depths.values()]
    assert open_at_end[0] and sum(open_at_end) >= len(open_at_end) // 2  # stop closes nothing
    for t in depths:  # every thread's CPU clock starts at 0 and never outruns the wall clock
        cpu, wall = ev.cpu[ev.thread == t], ev.wall[ev.thread == t]
        assert cpu[0] == 0
        assert np.all(np.diff(cpu) <= np.diff(wall))


def test_calls_look_like_an_app(art: Trace) -> None:
    me = art.methods
    calls = list(_calls(art))
    label = {i: f"{me.class_name[i]}.{me.name[i]}" for i in range(len(me))}
    assert any(rec for *_, rec in calls)  # recursion
    frames = [w for _, m, _, w, _, _ in calls if label[m] == "android.view.Choreographer.doFrame"]
    assert frames and max(frames) > 16_000 > min(frames)  # some frames miss 16 ms
    blocking = {label[m] for _, m, _, w, c, _ in calls if w > 1000 and w > 20 * c}
    assert "android.os.MessageQueue.nativePollOnce" in blocking
    assert "sun.misc.Unsafe.park" in blocking


def test_dalvik_style() -> None:
    trace = generate(records=3000, threads=5, seed=2, style="dalvik")
    trace.validate()
    assert all("." not in c for c in trace.methods.class_name)
    assert int(trace.methods.id.min()) >= 0x4000_0000
    assert trace.header.vm == "dalvik" and trace.header.pid is None
    for t, d in _depths(trace).items():
        first = trace.events.action[trace.events.thread == t][0]
        if t == 0:
            assert first == 1 and int(d.min()) < 0  # tracing began inside onCreate


def test_balanced() -> None:
    trace = generate(records=6000, threads=6, seed=3, balanced=True)
    trace.validate()
    assert int(trace.events.action.max()) == 1
    for d in _depths(trace).values():
        assert int(d.min()) >= 0 and int(d[-1]) == 0
    assert abs(len(trace.events) - 6000) <= 6


def test_sampled() -> None:
    trace = generate(records=5000, threads=6, seed=3, sampled=True, sampling_interval_us=1000)
    trace.validate()
    ev = trace.events
    assert ev.wall is not None
    assert trace.header.sampled and trace.header.sampling_interval_us == 1000
    assert 2500 < len(ev) <= 5000
    assert int(ev.action.max()) == 1  # no unrolls
    for t, d in _depths(trace).items():
        assert int(d.min()) >= 0
        wall = ev.wall[ev.thread == t]
        steps = np.diff(np.unique(wall))
        assert len(steps) == 0 or int(steps.min()) >= 500_000  # one time per sample
    assert any(int(d[-1]) > 0 for d in _depths(trace).values())


def test_demo_trace_is_current(tmp_path: Path) -> None:
    path = demo_path()
    assert path.is_file() and path.name.endswith(".gz")
    bundled = gzip.decompress(path.read_bytes())
    assert 300_000 < len(bundled) < 1_000_000 and path.stat().st_size < 250_000
    trace = load(path)
    trace.validate()
    h = trace.header
    assert (h.variant, h.version, h.clock, h.vm) == ("regular", 3, "dual", "art")
    assert len(trace.threads) == 10
    # the trace, not its compression (zlib builds may deflate differently), must be current
    fresh = gzip.decompress(make_demo(tmp_path / "demo.trace.gz").read_bytes())
    assert fresh == make_demo(tmp_path / "demo.trace").read_bytes()
    if fresh != bundled and not np.__version__.startswith(DEMO_NUMPY):
        pytest.skip(f"demo made with numpy {DEMO_NUMPY}.x; random streams may differ")
    assert fresh == bundled, "run python -m traceview.synth --demo"


def test_chunked_order_like_art_2023() -> None:
    """order="chunks": each thread's records come in runs of chunk_records (the last shorter)."""
    timed = generate(records=20_000, threads=6, seed=5)
    trace = generate(records=20_000, threads=6, seed=5, order="chunks", chunk_records=1000)
    trace.validate()
    th = trace.events.thread
    cuts = np.flatnonzero(th[1:] != th[:-1]) + 1
    runs = np.diff(np.r_[0, cuts, len(th)])
    tail = len(trace.threads)  # the partial chunks flushed at the stop, one per thread
    assert all(r % 1000 == 0 for r in runs[:-tail].tolist())
    assert len(set(th[cuts[-tail + 1 :]].tolist())) == tail - 1
    assert len(runs) < 40
    # the same records per thread as the time-ordered trace, in the same order
    for row in range(len(trace.threads)):
        a = timed.events.method[timed.events.thread == row]
        b = trace.events.method[trace.events.thread == row]
        assert np.array_equal(timed.methods.id[a], trace.methods.id[b])
    with pytest.raises(ValueError, match="order"):
        generate(records=10, order="random")
    with pytest.raises(ValueError, match="cannot hold"):
        generate(records=10, clock="wall", version=3)


def test_thread_ids() -> None:
    """ART >= 2023 numbers threads 1..N in first-seen order; ART <= 13 used tids (main = pid)."""
    encoded = generate(records=3000, threads=6, seed=1)
    first_seen = list(dict.fromkeys(encoded.threads.id[encoded.events.thread].tolist()))
    assert first_seen == list(range(1, 7))
    tid = generate(records=3000, threads=6, seed=1, thread_ids="tid")
    tid.validate()
    assert tid.threads.id[0] == tid.header.pid and tid.threads.name[0] == "main"
    assert bool(np.all(np.diff(tid.threads.id) > 0)) and int(tid.threads.id.max()) < 0x10000
    with pytest.raises(ValueError, match="thread_ids"):
        generate(records=10, thread_ids="pthread")
    with pytest.raises(ValueError, match="never balanced"):
        generate(records=10, balanced=True, sampled=True)


def test_overflow_like_art_2023() -> None:
    """A full trace buffer drops a whole chunk and stops: data-file-overflow, a mid-thread gap
    (exits that do not match the open call), fewer records than the buffer holds."""
    trace = generate(records=20_000, threads=6, seed=3, overflow_records=12_500, chunk_records=1000)
    trace.validate()
    assert trace.header.overflow and trace.header.options["data-file-overflow"] == "true"
    assert 10_000 < len(trace.events) <= 12_500
    assert trace.header.options["num-method-calls"] == str(len(trace.events))
    mismatched = 0
    for row in range(len(trace.threads)):
        sel = trace.events.thread == row
        stack: list[int] = []
        for a, m in zip(
            trace.events.action[sel].tolist(), trace.events.method[sel].tolist(), strict=True
        ):
            if a == 0:
                stack.append(m)
            elif stack:
                mismatched += stack.pop() != m
    assert mismatched > 0
    roomy = generate(records=20_000, threads=6, seed=3, overflow_records=10**6, chunk_records=1000)
    assert not roomy.header.overflow and len(roomy.events) == 20_000


def test_benchmark_shapes_one_dominant_thread_and_many_methods() -> None:
    """`main_share` gives the main thread that share of the records, `methods` widens the app's
    code to about that many methods (copies in packages of their own), and the trace stays
    valid and balanced; the defaults leave the trace as it was."""
    plain = generate(records=50_000, threads=12, seed=3, balanced=True)
    wide = generate(records=50_000, threads=12, seed=3, balanced=True, main_share=0.45, methods=800)
    wide.validate()
    share = np.bincount(wide.events.thread, minlength=12) / len(wide.events)
    assert abs(share[0] - 0.45) < 0.01
    assert len(wide.methods) > 1.5 * len(plain.methods)
    copies = [c for c in wide.methods.class_name if re.search(r"\.v\d+\.", c)]
    assert copies and all(c.startswith("com.example.") for c in copies)
    assert list(_calls(wide))  # every exit still matches its enter (checked by _calls)
    again = generate(records=50_000, threads=12, seed=3, balanced=True)
    assert np.array_equal(again.events.method, plain.events.method)
    with pytest.raises(ValueError, match="main_share"):
        generate(records=1000, main_share=1.5)
