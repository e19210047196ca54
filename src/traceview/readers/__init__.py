"""Readers: detect the variant from the bytes and dispatch to one module per on-disk variant.

(Skeleton: the readers helper replaces this with the real sniffing and dispatch.)
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from traceview.model import Trace


def load(source: str | Path | bytes | BinaryIO) -> Trace:
    """Read a trace from a path, bytes or a binary file object."""
    raise NotImplementedError
