"""Reads simpleperf's report-sample files (Android Studio's "Callstack sample" `.trace`) into
the same tables as a sampled ART trace.

`SIMPLEPERF`, a u16 version, then length-prefixed `Record` messages (`records.py`): samples
with call chains and event counts (`samples.py`, vectorised), files with their symbol tables,
threads and the meta info (`meta.py`). Frames become method rows (`names.py`), samples enter
and exit events on two clocks (`stacks.py`, weights from `weights.py`). A file whose first 12
bytes are missing (records from byte 0) is recognised; `load` refuses it unless salvage.
"""

from __future__ import annotations

import struct
from collections.abc import Collection

import numpy as np

from traceview.model import (
    Diagnostic,
    EventTable,
    Trace,
    TraceFormatError,
    thread_index_dtype,
)
from traceview.readers.assemble import About, assemble, method_table, thread_table
from traceview.readers.simpleperf import meta, names, records, samples, stacks, weights
from traceview.readers.source import Source

MISSING_HEADER = "missing-header"
_KEYS = frozenset(kind << 3 | 2 for kind in records.KINDS)
_MAX_TIME = 1 << 62


def sniff(head: bytes) -> bool:
    """`SIMPLEPERF`, or records from byte 0: a u32 length and one Record field filling it."""
    return head.startswith(records.MAGIC) or headerless(head)


def headerless(head: bytes) -> bool:
    """The first record (and the next length, when `head` holds it) of a file whose magic and
    version are missing."""
    at = 0
    for _ in range(2):
        if at + 4 > len(head):
            return at > 0
        (n,) = struct.unpack_from("<I", head, at)
        if at > 0 and n == 0:
            return True
        if n < 2 or n > 1 << 26 or head[at + 4 : at + 5] not in [bytes([k]) for k in _KEYS]:
            return False
        inner, width, i = 0, 0, at + 5
        while i < min(len(head), at + 10):
            inner |= (head[i] & 0x7F) << (7 * width)
            width += 1
            i += 1
            if head[i - 1] < 0x80:
                break
        else:
            return False
        if 1 + width + inner != n:
            return False
        at += 4 + n
    return True


def read(src: Source, *, source: str | None = None, clocks: Collection[str] | None = None) -> Trace:
    """Decode a whole report-sample file (`clocks`: the readers' contract; `load` drops the
    columns not wanted)."""
    buf = src.whole()
    diags: list[Diagnostic] = []
    if buf.startswith(records.MAGIC):
        if len(buf) < records.HEADER:
            raise TraceFormatError(
                "the header is cut short", offset=len(buf), expected="a u16 version", found="EOF"
            )
        (version,) = struct.unpack_from("<H", buf, len(records.MAGIC))
        if version != 1:
            raise TraceFormatError(
                "unsupported simpleperf report-sample version",
                offset=len(records.MAGIC),
                expected="1",
                found=f"{version} (0x{version:x})",
            )
        at = records.HEADER
    else:
        version, at = 1, 0
        what = (
            "this is a simpleperf recording without its SIMPLEPERF magic and version (its "
            "first 12 bytes are missing; records start at byte 0)"
        )
        diags.append(Diagnostic(MISSING_HEADER, what, offset=0))
    frames = records.frame(buf, at)
    diags += frames.diagnostics
    facts = meta.read(buf, frames)
    diags += facts.diagnostics
    which = frames.of(records.SAMPLE)
    namer = names.Namer(facts.files)
    got, notes = samples.decode(
        buf, which.astype(np.int64), frames.start[which], frames.stop[which], namer
    )
    diags += notes
    fields = namer.finish()
    ids, labels, row_of_sample, pid = _threads(facts, got.tid, diags)
    time = np.minimum(got.time, np.uint64(_MAX_TIME)).astype(np.int64)
    order = np.lexsort((got.record, time, row_of_sample))
    th, t = row_of_sample[order], time[order]
    by_thread = np.argsort(row_of_sample, kind="stable")
    same = row_of_sample[by_thread][1:] == row_of_sample[by_thread][:-1]
    late = int(np.count_nonzero((np.diff(time[by_thread]) < 0) & same))
    if late:
        what = f"{late} samples were out of time order within their thread: sorted by time"
        diags.append(Diagnostic("samples-reordered", what, count=late))
    weight, interval, wnotes = weights.weigh(
        facts.event_types, got.event[order], got.count[order], got.has_count[order], th, t
    )
    diags += wnotes
    depth = got.first[1:] - got.first[:-1]
    chain = (got.first[:-1][order], depth[order])
    ev = stacks.events(th, t, weight, chain, got.row, thread_index_dtype(len(ids)))
    diags += _notes(facts, len(got), namer.unknown_files)
    options = {"event-types": ",".join(facts.event_types), **facts.meta}
    if pid is not None:
        options["pid"] = str(pid)
    options["samples"] = str(len(got))
    options["files"] = str(len(facts.files))
    options["symbols"] = str(sum(len(symbols) for _, symbols in facts.files.values()))
    if facts.switches:
        options["context-switches"] = str(facts.switches)
    # wall times from the first slice (as ART's are from tracing's start): a conversion to a
    # V1 file (u4 µs) keeps them; adding `monotonic_offset_ns` gives CLOCK_MONOTONIC back
    origin = int(ev.wall.min()) if len(ev.wall) else 0
    ev.wall -= origin
    about = About(
        variant="simpleperf",
        version=version,
        clock="dual",
        start_time_us=origin // 1000,
        monotonic_offset_ns=origin,
        options=options,
        sampled=True,
        sampling_interval_us=interval,
        event_types=tuple(facts.event_types),
    )
    events = EventTable(
        thread=ev.thread,
        method=ev.method,
        action=ev.action,
        cpu=ev.cpu,
        wall=ev.wall,
    )
    # ids as ART writes them (multiples of 4: the action bits clear), so a conversion keeps them
    ids4 = (np.arange(len(fields.name), dtype=np.uint64) + np.uint64(1)) << np.uint64(2)
    methods = method_table(ids4, fields, [])
    return assemble(about, thread_table(ids, labels), methods, events, diags, source)


def _threads(
    facts: meta.Facts, tid: np.ndarray, diags: list[Diagnostic]
) -> tuple[list[int], list[str | None], np.ndarray, int | None]:
    """Thread rows (the thread records in file order, then tids only samples name), each
    sample's row, and the pid of the sampled process (the one with most samples)."""
    ids: list[int] = []
    labels: list[str | None] = []
    pids: dict[int, int] = {}
    for t in facts.threads:
        if t.tid not in pids:
            ids.append(t.tid)
            labels.append(t.name)
            pids[t.tid] = t.pid
    seen, first = np.unique(tid, return_index=True)
    extra = seen[~np.isin(seen, np.array(ids, dtype=np.int64))]
    extra = extra[np.argsort(first[np.isin(seen, extra)], kind="stable")]
    if len(extra) and facts.threads:
        what = f"{len(extra)} threads have samples but no thread record (shown as [tid])"
        diags.append(Diagnostic("unknown-thread", what, count=len(extra)))
    ids += extra.tolist()
    labels += [None] * len(extra)
    table = np.array(ids, dtype=np.int64)
    sort = np.argsort(table, kind="stable")
    row = sort[np.searchsorted(table[sort], tid)].astype(np.int64)
    per_pid: dict[int, int] = {}
    for r, n in zip(*np.unique(row, return_counts=True), strict=True):
        p = pids.get(ids[int(r)], 0)
        if p > 0:
            per_pid[p] = per_pid.get(p, 0) + int(n)
    pid = max(sorted(per_pid), key=lambda p: per_pid[p]) if per_pid else None
    return ids, labels, row, pid


def _notes(facts: meta.Facts, read_samples: int, unknown_files: int) -> list[Diagnostic]:
    out = []
    if facts.lost_count:
        kept = facts.sample_count if facts.sample_count is not None else read_samples
        what = (
            f"simpleperf lost {facts.lost_count} samples (kept {kept}): the stacks and "
            "times around them are missing"
        )
        out.append(Diagnostic("lost-samples", what, count=facts.lost_count))
    if facts.sample_count is not None and facts.sample_count != read_samples:
        what = f"the lost record counts {facts.sample_count} samples; {read_samples} were read"
        out.append(Diagnostic("sample-count-mismatch", what))
    if not facts.has_meta:
        what = "no meta-info record (an old simpleperf): the event types are unknown"
        out.append(Diagnostic("no-meta-info", what))
    if not facts.threads and read_samples:
        out.append(Diagnostic("no-thread-records", "no thread records: threads are unnamed"))
    if unknown_files:
        what = f"{unknown_files} frames name a file id no file record gives"
        out.append(Diagnostic("unknown-file", what, count=unknown_files))
    return out
