"""A simulation of ART recording a low-overhead trace (format.md §1.8), step by step as its
sources do, so tests get the dumps a device would write (no real one is public).

All methods: a ring of 2048 words per thread, written top-down by the arm64 stubs (the method
on entry, 1 on exit); past slot 0 the stub stores one word out of bounds (lost) and wraps to
slot 2046; the dump reads slots 2047 -> 1 and stops at a 0 word, ignoring the write position.
Long-running methods: entries store (time, method), an exit erases its entry when the call was
shorter than the era's threshold; frames on the stack at the start are entered first, then a
placeholder word 1; a full buffer flushes what precedes the newest exit into the process's
buffer (`flushed`), or everything when over half the buffer would remain. The dump writes each
thread's current block to the file first, then the summary packet, the flushed blocks and the
infos; into an ANR report (no file) the summary comes first. Timestamps are counter ticks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from traceview.writer.lowoverhead import encode
from traceview.writer.lowoverhead.eras import ERAS, Era

__all__ = ["ArtRun", "Method"]

SLOTS = 2048  # kAlwaysOnTraceBufSize
PLACEHOLDER = 1


@dataclass(frozen=True)
class Method:
    """A method as ART names it: an (8-aligned) `ArtMethod*` and its info line fields."""

    ptr: int
    cls: str
    name: str
    signature: str = "()V"
    source: str = "A.java"

    def line(self) -> str:
        return f"{self.cls}\t{self.name}\t{self.signature}\t{self.source}\n"


@dataclass
class _Thread:
    tid: int
    name: str
    words: list[int] = field(default_factory=lambda: [0] * SLOTS)
    index: int = SLOTS  # the write position (the next word goes below it)


@dataclass
class ArtRun:
    """One traced process. Feed events in time order (`enter`, `exit`, ticks never decreasing
    per thread), then `dump`. `counter_hz` is the timestamp counter's frequency."""

    mode: str = "long-running"
    era: Era = ERAS["newest"]
    counter_hz: int = 24_576_000
    monotonic_offset_ns: int = 1_234_567
    threads: dict[int, _Thread] = field(default_factory=dict)
    methods: dict[int, Method] = field(default_factory=dict)
    flushed: list[bytes] = field(default_factory=list)

    def start(self, tid: int, name: str, on_stack: list[Method], tick: int) -> None:
        """A thread present when tracing starts, with its stack (outermost first)."""
        thread = self.threads.setdefault(tid, _Thread(tid, name))
        if self.mode == "long-running":
            for method in on_stack:
                self._record(thread, method, True, tick)
            self._record(thread, None, False, tick, placeholder=True)

    def enter(self, tid: int, method: Method, tick: int) -> None:
        self._event(tid, method, True, tick)

    def exit(self, tid: int, tick: int) -> None:
        self._event(tid, None, False, tick)

    def _event(self, tid: int, method: Method | None, entry: bool, tick: int) -> None:
        thread = self.threads.setdefault(tid, _Thread(tid, f"Thread-{tid}"))
        if method is not None:
            self.methods[method.ptr] = method
        if self.mode == "all":
            self._ring(thread, method.ptr if method is not None else 1)
        elif (entry and thread.index < 2) or (not entry and thread.index < 1):
            self._record(thread, method, entry, tick)  # the runtime's slow path
        elif entry:
            assert method is not None
            thread.words[thread.index - 1] = method.ptr
            thread.words[thread.index - 2] = tick & ~1
            thread.index -= 2
        else:
            self._exit(thread, tick)

    def _ring(self, thread: _Thread, word: int) -> None:
        """The all-methods stub: store below the write position; past slot 0 the word lands
        out of bounds (lost) and the next goes to slot 2046."""
        if thread.index < 0:
            thread.index = SLOTS - 1
        thread.index -= 1
        if thread.index >= 0:
            thread.words[thread.index] = word

    def _exit(self, thread: _Thread, tick: int) -> None:
        """The long-running exit stub: keep the exit after an exit; after an entry, erase both
        when the call was short."""
        prev = thread.words[thread.index]
        if not prev & 1 and tick - prev < self.era.threshold:
            thread.index += 2
            return
        thread.index -= 1
        thread.words[thread.index] = tick | 1

    def _record(
        self,
        thread: _Thread,
        method: Method | None,
        entry: bool,
        tick: int,
        placeholder: bool = False,
    ) -> None:
        """`TraceProfiler::RecordTraceEvent`: flush when fewer than 2 slots are free; then the
        event (an exit without method at the start is the placeholder word)."""
        words = thread.words
        if thread.index < 2:
            at = thread.index
            while at < SLOTS and not words[at] & 1:
                at += 2
            processed = at + 1 if at < SLOTS else None
            if processed is None or processed - thread.index > SLOTS // 2:
                self.flushed.append(self._block(thread, thread.index))
                thread.index = SLOTS - 1
                words[thread.index] = PLACEHOLDER
            else:
                self.flushed.append(self._block(thread, processed))
                keep = words[thread.index : processed]
                thread.index = SLOTS - len(keep)
                words[thread.index :] = keep
        if entry:
            assert method is not None
            self.methods[method.ptr] = method
            words[thread.index - 1] = method.ptr
            words[thread.index - 2] = tick & ~1
            thread.index -= 2
        elif placeholder:
            thread.index -= 1
            words[thread.index] = PLACEHOLDER
        else:
            self._exit(thread, tick)

    def _block(self, thread: _Thread, end: int) -> bytes:
        """`DumpLongRunningMethodBuffer`: slots 2047 down to `end`, placeholders skipped."""
        times, exits, methods = [], [], []
        i = SLOTS
        while i > end:
            i -= 1
            word = thread.words[i]
            if word == PLACEHOLDER and not self.era.method_first:  # skipped since 2025-02-25
                continue
            if word & 1:
                times.append(word & ~1)
                exits.append(True)
                methods.append(0)
            else:
                i -= 1
                times.append(thread.words[i] & ~1)
                exits.append(False)
                methods.append(word)
        return self._encode_timed(thread.tid, times, exits, methods)

    def _ns(self, ticks: int) -> int:
        """`TimestampCounter::GetNanoTime` (ticks as is before March 2025; the scale bug)."""
        if self.era.unit == "ticks":
            return ticks
        scale = (10**9 if self.era.unit == "ns" else 10**6) / self.counter_hz
        return int(scale * ticks)

    def _encode_timed(
        self, tid: int, times: list[int], exits: list[bool], methods: list[int]
    ) -> bytes:
        era = self.era
        t = np.array([self._ns(x) for x in times], dtype=np.int64)
        is_exit = np.array(exits, dtype=bool)
        ta = t & ~1 if era.method_first else (t << 1) | is_exit.astype(np.int64)
        block = np.zeros(len(t), dtype=np.int64)
        values = encode.timed_lebs(block, ta, is_exit, np.array(methods, dtype=np.uint64), era)
        value_block = np.zeros(len(values), dtype=np.int64)
        return encode.blocks([tid], [len(t)], value_block, values, era.header, None)

    def _ring_block(self, thread: _Thread, garbage: bytes) -> bytes:
        """`DumpBuffer`: slots 2047 down to 1, stopping at a 0 word."""
        words = []
        for i in range(SLOTS - 1, 0, -1):
            if thread.words[i] == 0:
                break
            words.append(thread.words[i])
        w = np.array(words, dtype=np.uint64)
        values = encode.timeless_lebs(np.zeros(len(w), dtype=np.int64), w)
        block = np.zeros(len(values), dtype=np.int64)
        return encode.blocks([thread.tid], [len(w)], block, values, self.era.header, garbage)

    def dump(self, tick: int, *, to: str = "file", garbage: bytes = b"\xa5\x5a\xc3\x3c") -> bytes:
        """The dump at `tick`: to a file, or (`to="anr"`) the bytes an ANR report encodes."""
        if self.mode == "all":
            current = [self._ring_block(t, garbage) for t in self.threads.values()]
        else:
            current = [self._block(t, t.index) for t in self.threads.values()]
        head = b""
        if self.era.summary:
            end = self._ns(tick)
            head = encode.summary(end, end + self.monotonic_offset_ns)
        names = self.mode == "all" or self.era.long_running_threads
        threads = [(t.tid, t.name) for t in self.threads.values()] if names else []
        lines = [(m.ptr, m.line()) for m in self.methods.values()]
        infos = encode.infos(threads, lines, self.era)
        if to == "anr":
            return head + b"".join(self.flushed) + b"".join(current) + infos
        return b"".join(current) + head + b"".join(self.flushed) + infos
