"""The real simpleperf recordings of ../shared/corpus: totals as the corpus README counts them,
and every number checked against an independent plain-Python reading (support/
simpleperf_oracle.py, Firefox Profiler's importer rules; no npm package ships that importer,
so it cannot be run here): per-method CPU (self and total) from cpu-clock event counts, the
per-function sample counts, and every thread's enter/exit sequence. That reading is itself
held to Google's: the NDK's `simpleperf report-sample --dump-protobuf-report` reads every
sample, thread and file the same (support/simpleperf_google.py; skipped without the tool)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import traceview
from support import simpleperf_google as google
from support import simpleperf_oracle as oracle
from support.corpus import corpus_path
from traceview.analysis import Session

FIREFOX = "firefox-profiler/simpleperf-cpu-clock.trace"
STUDIO = "grishberg-simpleperf-parser/simpleperf_callchain.trace"
MALFORMED = "grishberg-simpleperf-parser/simpleperf_malformed.trace"

# file: (samples, threads, files, symbols, event types), from the corpus README
TOTALS = {
    FIREFOX: (1234, 15, 64, 1829, ("cpu-clock", "sched:sched_switch")),
    STUDIO: (3147, 26, 26, 336, ("cpu-clock", "sched:sched_switch")),
}


def _load(rel: str, salvage: bool = False) -> tuple[traceview.Trace, oracle.Recording]:
    path = corpus_path(rel)
    trace = traceview.load(path, salvage=salvage)
    trace.validate()
    return trace, oracle.read(path.read_bytes())


def sequence(trace: traceview.Trace, row: int) -> list[tuple[int, str]]:
    """The (action, method label) events of one thread row, in order."""
    ev = trace.events
    mine = np.flatnonzero(ev.thread == row)
    return [(int(ev.action[i]), trace.methods.label(int(ev.method[i]))) for i in mine]


@pytest.mark.skipif(not google.available(), reason="the NDK's simpleperf is not installed")
@pytest.mark.parametrize("rel", sorted(TOTALS))
def test_the_oracle_reads_what_simpleperf_itself_reads(rel: str) -> None:
    """Every sample (thread, time, event, count, each frame's file, symbol and address),
    thread and file as Google's simpleperf dumps them; our reader's samples and CPU per
    method are then checked against the oracle below."""
    path = corpus_path(rel)
    ours, theirs = oracle.read(path.read_bytes()), google.dump(path)
    assert ours.events == theirs.events
    assert ours.threads == theirs.threads
    assert ours.files == theirs.files
    assert len(ours.samples) == len(theirs.samples) == TOTALS[rel][0]
    for a, b in zip(ours.samples, theirs.samples, strict=True):
        assert (a.tid, a.time, a.event, a.count) == (b.tid, b.time, b.event, b.count)
        assert [f[:3] for f in a.frames] == [f[:3] for f in b.frames]
    trace = traceview.load(path)
    assert trace.header.options["samples"] == str(len(theirs.samples))


@pytest.mark.parametrize("rel", sorted(TOTALS))
def test_totals(rel: str) -> None:
    trace, rec = _load(rel)
    samples, threads, files, symbols, events = TOTALS[rel]
    h = trace.header
    assert (h.variant, h.version, h.clock, h.sampled) == ("simpleperf", 1, "dual", True)
    assert h.event_types == events
    assert h.options["samples"] == str(samples) == str(len(rec.samples))
    assert len(trace.threads) == threads == len(rec.threads)
    assert (h.options["files"], h.options["symbols"]) == (str(files), str(symbols))
    assert (len(rec.files), rec.symbols()) == (files, symbols)
    assert [d.code for d in trace.diagnostics] == []


def test_meta_info_and_main_thread() -> None:
    trace, _ = _load(FIREFOX)
    h = trace.header
    assert h.options["app"] == "com.example.sampleapplication"
    assert (h.options["android-sdk"], h.options["trace-offcpu"]) == ("31", "true")
    assert h.pid == 7657 and h.sampling_interval_us == 250.0
    s = Session(trace)
    assert trace.threads.label(s.main_thread()) == "com.example.sampleapplication"
    studio = Session(_load(STUDIO)[0])
    assert studio.trace.header.sampling_interval_us == 1000.0
    # the NDK game's pid thread has no samples: the thread with most is its game loop
    assert studio.trace.threads.label(studio.main_thread()) == "e.sample.tunnel"


@pytest.mark.parametrize("rel", sorted(TOTALS))
def test_cpu_per_method_equals_the_event_counts(rel: str) -> None:
    trace, rec = _load(rel)
    s = Session(trace)
    prof = s.profile(s.query(threads=range(len(trace.threads)), clock="cpu"))
    labels = [trace.methods.label(m) for m in range(len(trace.methods))]
    own, total = oracle.cpu_weights(rec)
    got_own = {labels[m]: int(prof.excl["cpu"][m]) for m in range(len(labels))}
    got_total = {labels[m]: int(prof.incl["cpu"][m]) for m in range(len(labels))}
    assert {k: v for k, v in got_own.items() if v} == dict(own)
    assert {k: v for k, v in got_total.items() if v} == dict(total)


def test_firefox_sample_counts() -> None:
    """Firefox's per-function leaf counts of cpu-clock samples (250 µs each) are our exclusive
    CPU / 250 µs, once its functions (name, file) are merged into our methods."""
    trace, rec = _load(FIREFOX)
    s = Session(trace)
    prof = s.profile(s.query(threads=range(len(trace.threads)), clock="cpu"))
    cpu_only = oracle.Recording(
        [x for x in rec.samples if x.event == "cpu-clock"], rec.threads, rec.files, rec.events
    )
    by_label: Counter[str] = Counter()
    to_label = {f: lab for x in cpu_only.samples for f, lab in zip(x.funcs, x.labels, strict=True)}
    for func, n in oracle.firefox_counts(cpu_only).items():
        by_label[to_label[func]] += n
    got = {
        trace.methods.label(int(m)): int(prof.excl["cpu"][m]) // 250_000
        for m in np.flatnonzero(prof.excl["cpu"])
    }
    assert got == dict(by_label)
    assert sum(by_label.values()) == 927


@pytest.mark.parametrize("rel", sorted(TOTALS))
def test_events_per_thread(rel: str) -> None:
    trace, rec = _load(rel)
    want = oracle.events(rec)
    for row in range(len(trace.threads)):
        got = sequence(trace, row)
        assert got == want.get(int(trace.threads.id[row]), []), trace.threads.label(row)


def test_java_and_native_names() -> None:
    trace, _ = _load(FIREFOX)
    labels = {trace.methods.label(m) for m in range(len(trace.methods))}
    assert "android.app.ActivityThread.performLaunchActivity" in labels
    assert "android.os.Parcel.readInt" in labels  # in framework.jar and the JIT cache: one row
    invoke = "art::ArtMethod::Invoke(art::Thread*, unsigned int*, unsigned int, art::JValue*, "
    assert invoke + "char const*) (libart.so)" in labels
    assert any(label.startswith("[kernel.kallsyms]+0x") for label in labels)
    assert sum(label == "android.os.Parcel.readInt" for label in labels) == 1


def test_headerless_is_refused_then_salvaged() -> None:
    path = corpus_path(MALFORMED)
    with pytest.raises(traceview.TraceError) as err:
        traceview.load(path)
    assert isinstance(err.value, traceview.TraceFormatError)  # the kind that has .line()
    line = err.value.line()
    assert line.startswith(f"{path}: at byte 0: this is a simpleperf recording without its")
    assert "--salvage" in line and "\n" not in line
    trace, rec = _load(MALFORMED, salvage=True)
    codes = {d.code for d in trace.diagnostics}
    assert {"missing-header", "no-meta-info", "no-thread-records", "lost-samples"} <= codes
    assert "estimated-weights" in codes
    assert trace.header.options["samples"] == "1887" == str(len(rec.samples))
    assert trace.header.options["files"] == "38"
    lost = next(d for d in trace.diagnostics if d.code == "lost-samples")
    assert lost.count == 7
    want = oracle.events(rec)
    for row in range(len(trace.threads)):
        assert sequence(trace, row) == want[int(trace.threads.id[row])]
