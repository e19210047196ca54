"""The test oracle of `readers.simpleperf.records.lengths`: the length chain walked one record
at a time in Python (the product's walk is the compiled `kernels.framing.chain`)."""

from __future__ import annotations

import struct

from traceview.model import Diagnostic

_U32 = struct.Struct("<I")


def lengths(buf: bytes, at: int) -> tuple[list[int], list[int], list[Diagnostic]]:
    """Walk the u32 length chain from `at`: the record offsets and sizes, and what ended it."""
    starts: list[int] = []
    sizes: list[int] = []
    end = len(buf)
    while at + 4 <= end:
        (n,) = _U32.unpack_from(buf, at)
        if n == 0:
            at += 4
            if at < end:
                what = f"{end - at} bytes after the end marker (a zero length) were ignored"
                return starts, sizes, [Diagnostic("trailing-bytes", what, offset=at)]
            return starts, sizes, []
        if n > end - at - 4:
            what = f"the last record declares {n} bytes but only {end - at - 4} remain: dropped"
            return starts, sizes, [Diagnostic("truncated-record", what, offset=at)]
        starts.append(at + 4)
        sizes.append(n)
        at += 4 + n
    what = "the file ends without the end marker (a zero length): it was cut short"
    if at < end:
        what += f"; {end - at} bytes of a record length were dropped"
    return starts, sizes, [Diagnostic("no-end-marker", what, offset=at)]
