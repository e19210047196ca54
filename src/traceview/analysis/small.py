"""Small traces: up to `SMALL` records (and `FEW` threads) every call of a thread fits one
direct timeline tile (`layout.timeline.DIRECT_LIMIT`), so a small trace's first screens run
no kernel through numba: the call table, the profiles and the exclusive times run as native
code (analysis/kernels/native.py: no numba to import) and the timeline draws its tiles from
the rows. The viewer's warm-up stops after those steps (analysis/warmup.py), the cache-filling
process is not started for such a trace (cli/precompile.py), and the streamed commands read a
file this small whole (cli/streamed.py): loading numba (half a second) or reading twice
would cost more than the work.
"""

from __future__ import annotations

SMALL = 1 << 17  # records: up to this many, a small trace
FEW = 256  # threads


def is_small(records: int, threads: int) -> bool:
    """Whether a trace (or table) of `records` records (or calls) on `threads` thread rows is
    small."""
    return records <= SMALL and threads <= FEW
