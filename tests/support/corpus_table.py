"""What the readers do with every file of ../shared/corpus: one table, `EXPECTED`, read by
the reader tests (tests/readers/test_corpus_load.py: the numbers of each file read, the words
of each refusal), the golden summaries and the every-command test
(tests/cli/test_every_command_on_corpus.py: a refused file gets the same one-line refusal,
exit status 2, from every command). A new file of the corpus, or a file a new reader starts
reading, is one entry changed here (and its golden summary rewritten with
`pytest --update-golden`).

Counts come from the format, not from this reader: records = (file size − data start) //
record size (the data start is after `*end\\n` + the header's offset-to-data); threads = key
threads + ids used by records but missing from the key; methods likewise. The streaming file
was counted by walking its packets by hand (7700 records, 15 thread packets + 27 summary
threads with overlap → 27, 1832 method packets + 1 undeclared id used by a record).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reads:
    """A file the readers read: its header and counts, and the diagnostics it gets."""

    variant: str
    version: int
    clock: str
    records: int
    threads: int
    methods: int
    sampled: bool
    diagnostics: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Refused:
    """A file the readers refuse in one line holding `words` (nothing usable in it)."""

    words: str


def _reads(
    variant: str,
    version: int,
    clock: str,
    records: int,
    threads: int,
    methods: int,
    sampled: bool,
    codes: set[str],
) -> Reads:
    return Reads(variant, version, clock, records, threads, methods, sampled, frozenset(codes))


EXPECTED: dict[str, Reads | Refused] = {
    # file: _reads(variant, version, clock, records, threads, methods, sampled, diagnostics)
    "aosp-perflib/basic-api10.trace": _reads("regular", 1, "thread-cpu", 10, 8, 7, False, set()),
    "aosp-perflib/basic.trace": _reads("regular", 3, "dual", 9, 11, 7, False, set()),
    "aosp-perflib/exception.trace": _reads("regular", 3, "dual", 23, 11, 14, False, set()),
    "aosp-perflib/mismatched.trace": _reads("regular", 3, "dual", 9, 11, 8, False, set()),
    # The binary part went through a cp1252 -> UTF-8 text conversion (its header reads a
    # record size of 1186); undoing it gives back basic.trace's 9 records byte for byte.
    "aosp-perflib-studio/basic-special_char.trace": _reads(
        "regular", 3, "dual", 9, 11, 7, False, {"text-mangled-data"},
    ),
    "aosp-perflib-studio/char_2_bytes.trace": _reads(
        "regular", 3, "dual", 70341, 70, 2507, False, set(),
    ),
    "chanjin-traceviewlog/SNS_Tracing_2_Refresh.trace": _reads(
        "regular", 1, "thread-cpu", 319259, 11, 3749, False, set(),
    ),
    "easternhong-methodtrace/test.trace": _reads(
        "regular", 3, "dual", 62867, 12, 2582, False, set(),
    ),
    "firefox-profiler/art-trace-regular.trace.gz": _reads(
        "regular", 3, "dual", 13295, 66, 2067 + 18, True, {"unknown-method"},
    ),
    "forever001-launcher/app.trace": _reads("regular", 3, "dual", 144, 11, 48, False, set()),
    "grigory-rylov-amp/legacy.trace": _reads("regular", 3, "dual", 16472, 14, 287, True, set()),
    "jagormley-jagandroidframework/dmtrace.trace": _reads(
        "regular", 3, "dual", 4115, 12, 101, False, set(),
    ),
    "lilong9898-androidtracedataanalyzer/example_dmtrace.trace": _reads(
        "regular", 3, "dual", 48054, 53, 4374, True, set(),
    ),
    "pmadishetti9-profilertester/cpu-art-new.trace": _reads(
        "streaming", 0xF3, "dual", 7700, 27, 1832 + 1, True, {"unknown-method"},
    ),
    # Enters only, every thread's records share one time: one sample of each stack, then full.
    "sentry-vroom-specto/data_file_overflow.trace": _reads(
        "regular", 3, "dual", 70, 24, 58, True, {"data-file-overflow"},
    ),
    "sentry-vroom-specto/method_id_max.trace": _reads(
        "regular", 3, "dual", 334, 22, 144, True, {"truncated-record"},
    ),
    "sentry-vroom-specto/minified.trace": _reads("regular", 3, "dual", 173, 24, 85, True, set()),
    "sentry-vroom-specto/nexus_5x_api_29_emulator_startup_4s_delay.trace": _reads(
        "regular", 3, "dual", 334, 22, 143, True, {"truncated-record"},
    ),
    # A valid file with zero records: a Trace (empty tables), not an error.
    "sentry-vroom-specto/no_methods_no_records.trace": _reads(
        "regular", 3, "dual", 0, 29, 0, False, set(),
    ),
    "zhkl0228-tracereader/test1.trace": _reads(
        "regular", 3, "dual", 247266, 15, 3370 + 2, False, {"unknown-method"},
    ),
    # Nothing usable: no record can be read, so these raise (one line naming the problem).
    # The key is fine but what follows `SLOW` is text ("\ndata section follows.."): the
    # version field reads 0x640a, so there is no record layout and no event to salvage.
    "aosp-perflib/header.trace": Refused("at byte 561: unsupported data version"),
    # `*version\n3\n` and nothing else: no key end, no data header.
    "sentry-vroom-specto/malformed.trace": Refused("at byte 11: the key section has no *end line"),
    # A complete (empty) key and no data header at all.
    "sentry-vroom-specto/version_2.trace": Refused("at byte 16: no data section after the key"),
    # simpleperf report-sample files (Studio's "Callstack sample"): events from stack diffs
    # (tests/readers/test_simpleperf_corpus.py checks them against an independent reading)
    "firefox-profiler/simpleperf-cpu-clock.trace": _reads(
        "simpleperf", 1, "dual", 17820, 15, 2212, True, set(),
    ),
    "grishberg-simpleperf-parser/simpleperf_callchain.trace": _reads(
        "simpleperf", 1, "dual", 31902, 26, 509, True, set(),
    ),
    # simpleperf records without the SIMPLEPERF magic and version (read with --salvage)
    "grishberg-simpleperf-parser/simpleperf_malformed.trace": Refused(
        "at byte 0: this is a simpleperf"
    ),
    # Perfetto traces: named, with what to do with them
    "sidky-nowinandroid/trace.perfetto-trace": Refused(
        "at byte 0: this is a Perfetto system trace"
    ),
    "aosp-studio-tpd/unity.heapprofd": Refused("at byte 0: this is a Perfetto system trace"),
}  # fmt: skip


def refused(rel: str) -> str | None:
    """The words of corpus file `rel`'s refusal, or None when the readers read it."""
    entry = EXPECTED[rel]
    return entry.words if isinstance(entry, Refused) else None
