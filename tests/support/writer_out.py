"""`written(trace, ...)`: the bytes `traceview.writer.write` produces, for the writer tests."""

from __future__ import annotations

import io
from typing import Any

from traceview.model import Trace
from traceview.writer import write


def written(trace: Trace, variant: str | None = None, **options: Any) -> bytes:
    """Write `trace` to memory (`variant` and `options` as for `write`) and return the bytes."""
    buf = io.BytesIO()
    assert write(trace, buf, variant=variant, **options) == []  # type: ignore[arg-type]
    return buf.getvalue()
