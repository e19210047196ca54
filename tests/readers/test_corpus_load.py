"""Every real trace in ../shared/corpus loads with the numbers worked out from its bytes.

Counts come from the format, not from this reader: records = (file size − data start) //
record size (the data start is after `*end\\n` + the header's offset-to-data); threads = key
threads + ids used by records but missing from the key; methods likewise. The streaming file
was counted by walking its packets by hand (7700 records, 15 thread packets + 27 summary
threads with overlap → 27, 1832 method packets + 1 undeclared id used by a record).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import traceview
from support.corpus import CORPUS, corpus_files, corpus_path
from traceview.model import TraceFormatError

# file: (variant, version, clock, records, threads, methods, sampled, diagnostic codes)
LOADS: dict[str, tuple[str, int, str, int, int, int, bool, set[str]]] = {
    "aosp-perflib/basic-api10.trace": ("regular", 1, "thread-cpu", 10, 8, 7, False, set()),
    "aosp-perflib/basic.trace": ("regular", 3, "dual", 9, 11, 7, False, set()),
    "aosp-perflib/exception.trace": ("regular", 3, "dual", 23, 11, 14, False, set()),
    "aosp-perflib/mismatched.trace": ("regular", 3, "dual", 9, 11, 8, False, set()),
    # The binary part went through a cp1252 -> UTF-8 text conversion (its header reads a
    # record size of 1186); undoing it gives back basic.trace's 9 records byte for byte.
    "aosp-perflib-studio/basic-special_char.trace": (
        "regular", 3, "dual", 9, 11, 7, False, {"text-mangled-data"},
    ),
    "aosp-perflib-studio/char_2_bytes.trace": ("regular", 3, "dual", 70341, 70, 2507, False, set()),
    "chanjin-traceviewlog/SNS_Tracing_2_Refresh.trace": (
        "regular", 1, "thread-cpu", 319259, 11, 3749, False, set(),
    ),
    "easternhong-methodtrace/test.trace": ("regular", 3, "dual", 62867, 12, 2582, False, set()),
    "firefox-profiler/art-trace-regular.trace.gz": (
        "regular", 3, "dual", 13295, 66, 2067 + 18, True, {"unknown-method"},
    ),
    "forever001-launcher/app.trace": ("regular", 3, "dual", 144, 11, 48, False, set()),
    "grigory-rylov-amp/legacy.trace": ("regular", 3, "dual", 16472, 14, 287, True, set()),
    "jagormley-jagandroidframework/dmtrace.trace": (
        "regular", 3, "dual", 4115, 12, 101, False, set(),
    ),
    "lilong9898-androidtracedataanalyzer/example_dmtrace.trace": (
        "regular", 3, "dual", 48054, 53, 4374, True, set(),
    ),
    "pmadishetti9-profilertester/cpu-art-new.trace": (
        "streaming", 0xF3, "dual", 7700, 27, 1832 + 1, True, {"unknown-method"},
    ),
    # Enters only, every thread's records share one time: one sample of each stack, then full.
    "sentry-vroom-specto/data_file_overflow.trace": (
        "regular", 3, "dual", 70, 24, 58, True, {"data-file-overflow"},
    ),
    "sentry-vroom-specto/method_id_max.trace": (
        "regular", 3, "dual", 334, 22, 144, True, {"truncated-record"},
    ),
    "sentry-vroom-specto/minified.trace": ("regular", 3, "dual", 173, 24, 85, True, set()),
    "sentry-vroom-specto/nexus_5x_api_29_emulator_startup_4s_delay.trace": (
        "regular", 3, "dual", 334, 22, 143, True, {"truncated-record"},
    ),
    # A valid file with zero records: a Trace (empty tables), not an error.
    "sentry-vroom-specto/no_methods_no_records.trace": (
        "regular", 3, "dual", 0, 29, 0, False, set(),
    ),
    "zhkl0228-tracereader/test1.trace": (
        "regular", 3, "dual", 247266, 15, 3370 + 2, False, {"unknown-method"},
    ),
    # simpleperf report-sample files (Studio's "Callstack sample"): events from stack diffs
    # (tests/readers/test_simpleperf_corpus.py checks them against an independent reading)
    "firefox-profiler/simpleperf-cpu-clock.trace": (
        "simpleperf", 1, "dual", 17820, 15, 2212, True, set(),
    ),
    "grishberg-simpleperf-parser/simpleperf_callchain.trace": (
        "simpleperf", 1, "dual", 31902, 26, 509, True, set(),
    ),
}  # fmt: skip

# Nothing usable: no record can be read, so these raise (one line naming the problem).
ERRORS: dict[str, str] = {
    # The key is fine but what follows `SLOW` is text ("\ndata section follows.."): the
    # version field reads 0x640a, so there is no record layout and no event to salvage.
    "aosp-perflib/header.trace": "at byte 561: unsupported data version",
    # `*version\n3\n` and nothing else: no key end, no data header.
    "sentry-vroom-specto/malformed.trace": "at byte 11: the key section has no *end line",
    # A complete (empty) key and no data header at all.
    "sentry-vroom-specto/version_2.trace": "at byte 16: no data section after the key",
    # simpleperf records without the SIMPLEPERF magic and version (read with --salvage)
    "grishberg-simpleperf-parser/simpleperf_malformed.trace": "at byte 0: this is a simpleperf",
    # Perfetto traces: named, with what to do with them
    "sidky-nowinandroid/trace.perfetto-trace": "at byte 0: this is a Perfetto system trace",
    "aosp-studio-tpd/unity.heapprofd": "at byte 0: this is a Perfetto system trace",
}


def test_table_covers_the_corpus(corpus: Path) -> None:
    names = {p.relative_to(CORPUS).as_posix() for p in corpus_files()}
    assert names == set(LOADS) | set(ERRORS)


@pytest.mark.parametrize("rel", sorted(LOADS))
def test_corpus_file_loads(rel: str) -> None:
    path = corpus_path(rel)
    variant, version, clock, records, threads, methods, sampled, diags = LOADS[rel]
    trace = traceview.load(path)
    trace.validate()
    h = trace.header
    assert (h.variant, h.version, h.clock) == (variant, version, clock)
    assert (len(trace.events), len(trace.threads), len(trace.methods)) == (
        records,
        threads,
        methods,
    )
    assert h.sampled is sampled
    assert {d.code for d in trace.diagnostics} == diags
    assert trace.source == str(path)


@pytest.mark.parametrize("rel", sorted(ERRORS))
def test_corpus_file_errors(rel: str) -> None:
    path = corpus_path(rel)
    with pytest.raises(TraceFormatError) as err:
        traceview.load(path)
    line = err.value.line()
    assert line == f"{path}: " + line.split(": ", 1)[1]
    assert ERRORS[rel] in line
    assert "\n" not in line


def test_streaming_names_from_packets_and_summary() -> None:
    trace = traceview.load(corpus_path("pmadishetti9-profilertester/cpu-art-new.trace"))
    h = trace.header
    assert h.key_version == 3 and h.pid == 26330 and h.elapsed_ns == 4559013 * 1000
    assert "main" in trace.threads.name and None not in trace.threads.name
    assert h.sampling_interval_us is not None and 1000 < h.sampling_interval_us < 1600


def test_non_ascii_names() -> None:
    trace = traceview.load(corpus_path("aosp-perflib-studio/char_2_bytes.trace"))
    assert any(not n.isascii() for n in trace.methods.class_name + trace.methods.name)
    assert not any("\udc80" <= ch <= "\udcff" for n in trace.methods.name for ch in n)
