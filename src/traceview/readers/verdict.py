"""The verdict on a trace read from data damaged beyond use: refuse it, naming the likely cause.

`load` calls `judge` on every trace it read. A file whose binary part went through a text
conversion (invalid UTF-8 replaced by U+FFFD = `EF BF BD`, or LF expanded to CR LF) still
"reads", as thousands of invented threads and undeclared methods over millions of seconds;
such a trace is refused with one error line, unless `salvage=True` asks for the best-effort
reading (then the verdict is a diagnostic). Either sign refuses: the fingerprint of a text
conversion in the binary bytes, or records mostly on ids the file never declares, with more
invented ids than declared ones. Thresholds were set on every corpus trace (the worst real
one, a sampled Firefox trace, has 0.5 % of its records on 13 undeclared methods).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from traceview.model import Diagnostic, Trace, TraceFormatError

SAMPLE = 4 << 20  # the bytes read for a cause (a key part of up to a few MiB comes first)
CAUSE_BYTES = 1 << 20  # the binary bytes counted: a text conversion changed all of them
_NONSENSE = 0.5  # share of records on undeclared methods or threads that is "mostly"
_MIN_RECORDS = 1000  # fewer records are too few to judge by their ids alone
_INVENTED = 64  # undeclared ids used beyond this many (and beyond the declared methods)
_FFFD = b"\xef\xbf\xbd"
_FFFD_SHARE = 0.01  # replacement sequences covering 1 % of binary bytes: a text conversion
_CRLF_SHARE = 0.9  # LF bytes preceded by CR: binary data has ~1/256, a CR LF expansion all
_MIN_LF = 32


REFUSED = frozenset({"missing-header"})  # a reader read it, but only salvage may use it


class Seen(NamedTuple):
    """What the file's first bytes show: the likely cause of damage and its offset."""

    cause: str | None
    offset: int | None


NOTHING = Seen(None, None)


def look(sample: bytes) -> Seen:
    """The cause of damage `sample` (the start of the file's bytes, decompressed) shows, if
    any, and its offset: looked at before the records are decoded, so the sample and its
    temporaries never sit beside the decoded columns."""
    binary, base = _binary_part(sample)
    cause, at = _cause(binary)
    return Seen(cause, base + at if at is not None else None)


def judge(trace: Trace, salvage: bool, seen: Seen = NOTHING) -> Trace:
    """`trace`, or a TraceFormatError when its records are mostly nonsense or a reader flagged
    it (`REFUSED`); `seen`: what the file's first bytes show (`look`)."""
    flagged = next((d for d in trace.diagnostics if d.code in REFUSED), None)
    if flagged is not None and not salvage:
        raise TraceFormatError(
            f"{flagged.message}; read it anyway with salvage (--salvage)", offset=flagged.offset
        )
    why = _nonsense(trace)
    cause, offset = seen
    if why is None and cause is None:
        return trace
    what = why or "the binary data is damaged"
    if cause is not None:
        what += f"; likely cause: {cause}"
    if salvage:
        trace.diagnostics.insert(
            0,
            Diagnostic(
                "damaged-beyond-use",
                f"{what}; read anyway (salvage): the numbers below are not to be trusted",
                offset=offset,
            ),
        )
        return trace
    raise TraceFormatError(
        f"{what}; transfer the file as binary (e.g. adb pull), or read it anyway with "
        "salvage (--salvage)",
        offset=offset,
    )


def _binary_part(sample: bytes) -> tuple[bytes, int]:
    """The bytes after a leading key text (`*version` … `*end`), and where they start."""
    if sample.startswith((b"*version", b"\xef\xbb\xbf*version")):
        end = sample.find(b"*end")
        if end >= 0:
            nl = sample.find(b"\n", end)
            start = nl + 1 if nl >= 0 else len(sample)
            return sample[start:], start
    return sample, 0


def _nonsense(trace: Trace) -> str | None:
    """Why the records are mostly nonsense, judged by the ids the file itself declares."""
    ev, n = trace.events, len(trace.events)
    if n < _MIN_RECORDS or trace.header.variant == "simpleperf":  # frames, not declared ids
        return None
    known = trace.methods.declared
    named = np.array([name is not None for name in trace.threads.name], dtype=bool)
    # only records of an undeclared method or unnamed thread can be nonsense: none, no pass
    odd_methods = known.any() and not known.all()
    odd_threads = named.any() and not named.all()
    if not odd_methods and not odd_threads:
        return None
    bad = np.zeros(n, dtype=bool)
    if odd_methods:
        bad |= ~known[ev.method]
    if odd_threads:
        bad |= ~named[ev.thread]
    share = float(bad.mean())
    if share <= _NONSENSE:
        return None
    new_threads = int(np.count_nonzero(~named)) if named.any() else 0
    new_methods = int(np.count_nonzero(~trace.methods.declared))
    declared = len(trace.methods) - new_methods
    if new_threads < _INVENTED and new_methods < max(_INVENTED, declared):
        return None  # a few ids missing from a key (hand-made or cut traces), not nonsense
    return (
        f"the records are mostly nonsense ({share:.0%} of {n} name methods or threads the "
        f"file never declares; {len(trace.threads)} threads, {len(trace.methods)} methods)"
    )


def _cause(binary: bytes) -> tuple[str | None, int | None]:
    """A text conversion's fingerprint in binary bytes, and the offset of its first trace."""
    binary = binary[:CAUSE_BYTES]
    if not binary:
        return None, None
    replaced = binary.count(_FFFD)
    if replaced >= 8 and 3 * replaced >= _FFFD_SHARE * len(binary):
        return (
            f"a text-mode transfer or text editor replaced bytes that are not UTF-8 by U+FFFD "
            f"({replaced} EF BF BD sequences in the binary data)",
            binary.find(_FFFD),
        )
    lf = binary.count(b"\n")
    crlf = binary.count(b"\r\n")
    if lf >= _MIN_LF and crlf >= _CRLF_SHARE * lf:
        return (
            f"a text-mode transfer expanded LF to CR LF ({crlf} of {lf} LF bytes in the binary "
            "data follow a CR)",
            binary.find(b"\r\n"),
        )
    return None, None
