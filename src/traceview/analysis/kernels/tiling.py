"""The timeline's tiling, defined once: the compiled level passes (levels.py) and the timeline
layout (layout/timeline.py) read it, and the viewer sends it to the browser in /api/trace.
Imports no numba, so the layout reads it without compiling anything."""

from __future__ import annotations

BUCKETS = 1024  # buckets per tile
SHIFT = 10  # log2(BUCKETS): a packed run's bucket is `first << SHIFT | last - first`
MAX_LEVEL = 40  # 2**40 tiles: far below one ns per bucket for any real trace
