"""The layouts ART wrote low-overhead dumps in, by the change that began each (format.md §1.8),
so tests can write every one of them: block header size, how infos are written, the unit of
long-running times, the threshold, whether long-running dumps name their threads, the order
of an entry's LEBs, and the summary packet.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ERAS", "Era"]


@dataclass(frozen=True)
class Era:
    """One layout. `unit` is what long-running times count: "ticks" (raw counter), "us" (ART's
    ns with the 10^6 scale bug) or "ns"; `threshold` in counter ticks; `method_first` the
    February 2025 entry order (method LEB, then the time without an exit flag); `ids` how the
    text trailer prints method ids ("hex" or "decimal")."""

    name: str
    header: int
    trailer: str  # "text" or "binary"
    unit: str
    threshold: int
    long_running_threads: bool
    summary: bool = False
    method_first: bool = False
    ids: str = "hex"


ERAS: dict[str, Era] = {
    era.name: era
    for era in (
        # all-methods dumps only (long-running mode arrived in December 2024, as text)
        Era("2024-09-26", 8, "text", "ticks", 1 << 22, True, ids="decimal"),
        Era("2025-02-07", 8, "text", "ticks", 1 << 22, True, method_first=True),
        Era("2025-02-25", 12, "text", "ticks", 1 << 22, True),
        Era("2025-02-26", 12, "binary", "ticks", 1 << 22, True),
        Era("2025-03-04", 12, "binary", "us", 1 << 22, False),
        Era("2025-03-14", 12, "binary", "us", 1 << 23, False),
        Era("2025-06-11", 12, "binary", "ns", 1 << 23, False),
        Era("newest", 12, "binary", "ns", 1 << 23, False, summary=True),
    )
}
