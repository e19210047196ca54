"""ART's V2 method traces (`SLOW` 4/5 in file mode, 0xF4/0xF5 streaming): sniff and read.

`sniff` is all `readers/sniff.py` needs; the reader modules (`reader.py`: header, packet walk
in `packets.py`/`walk.py`/`resync.py`, entry blocks in `blocks.py`/`gamma.py`/`leb128.py`,
units in `units.py`, infos in `infos.py`) are imported on the first V2 file.
"""

from __future__ import annotations

import struct
from collections.abc import Collection

from traceview.model import Trace
from traceview.readers.source import Source

VERSIONS = (4, 5, 0xF4, 0xF5)


def sniff(head: bytes) -> bool:
    """`SLOW` with version 4, 5, 0xF4 or 0xF5, or (the earliest V2 file mode, 2024) summary
    text up to `*end` followed by such a header."""
    at = 0
    if head.startswith(b"*version"):
        end = head.find(b"*end\n")
        if end < 0:
            return False
        at = end + 5
    if head[at : at + 4] != b"SLOW" or len(head) < at + 6:
        return False
    (version,) = struct.unpack_from("<H", head, at + 4)
    return version in VERSIONS


def read(
    data: Source | bytes | memoryview,
    *,
    source: str | None = None,
    clocks: Collection[str] | None = None,
) -> Trace:
    """Read one V2 trace (the whole file, gzip already removed). Every clock is read:
    `clocks` is the readers' contract (`load` drops the columns not wanted)."""
    from traceview.readers.v2.reader import read_bytes

    buf = data.whole() if isinstance(data, Source) else data
    return read_bytes(buf, source=source)
