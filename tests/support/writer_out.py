"""`written(trace, ...)`: the bytes `traceview.writer.write` produces, for the writer tests;
`WriteOptions` / `WriteArgs`: `write`'s keyword arguments, for helpers that forward them."""

from __future__ import annotations

import io
from typing import TypedDict, Unpack

from traceview.model import Clock, Trace, Variant
from traceview.writer import Style, write


class WriteOptions(TypedDict, total=False):
    """`write`'s keyword arguments but `variant`."""

    version: int | None
    clock: Clock | None
    style: Style | None
    record_size: int | None
    data_offset: int
    overflow: bool | None
    renumber: bool | None
    generation: str


class WriteArgs(WriteOptions, total=False):
    """Every keyword argument of `write`."""

    variant: Variant | None


def written(trace: Trace, variant: Variant | None = None, **options: Unpack[WriteOptions]) -> bytes:
    """Write `trace` to memory (`variant` and `options` as for `write`) and return the bytes."""
    buf = io.BytesIO()
    assert write(trace, buf, variant=variant, **options) == []
    return buf.getvalue()
