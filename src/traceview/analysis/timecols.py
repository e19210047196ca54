"""The events reduced to their time columns, for a session that keeps its call table for long
(the viewer): the table says everything the record columns said — each call's thread (its
rows' thread range), method, and the event rows of its enter and exit — so once it is built
the thread, method and action columns (7 bytes a record, 470 MB at 70M records) can go.

`TimeColumns` is an `EventTable` whose time columns (and the reconstructed axis of a trace
without a wall clock, analysis/axis.py) stay readable, and whose record columns raise
`RecordsReleased` when read, so nothing can silently read an empty column.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from traceview.analysis.axis import AXIS, AxisEvents
from traceview.model import EventTable

I64 = npt.NDArray[np.int64]


class RecordsReleased(AttributeError):
    """A record column (thread, method, action) was read after the session released it (an
    AttributeError: the column is gone, and `getattr(events, name, None)` says so)."""


class TimeColumns(EventTable):
    """`len(events)` records of which only the time columns are kept (`time(clock)`,
    `cpu`, `wall`, and `axis` when the events had one)."""

    def __init__(self, events: EventTable) -> None:
        axis = events.axis if isinstance(events, AxisEvents) else None
        object.__setattr__(self, "cpu", events.cpu)
        object.__setattr__(self, "wall", events.wall)
        object.__setattr__(self, "_axis", axis)
        object.__setattr__(self, "_size", len(events))
        object.__setattr__(self, "_thread_dtype", events.thread.dtype)

    def __len__(self) -> int:
        return int(self._size)

    def __getattribute__(self, name: str) -> Any:
        if name in ("thread", "method", "action"):
            raise RecordsReleased(
                f"the events' {name} column was released once the call table was built"
            )
        return super().__getattribute__(name)

    @property
    def thread_dtype(self) -> np.dtype[Any]:
        """The dtype the released thread column had (thread rows in derived columns)."""
        dtype: np.dtype[Any] = self._thread_dtype
        return dtype

    def time(self, clock: str) -> I64:
        """The column for `clock` ("cpu", "wall" or, when kept, "axis"); KeyError if none."""
        if clock == AXIS and self._axis is not None:
            axis: I64 = self._axis
            return axis
        return super().time(clock)


def thread_dtype(events: EventTable) -> np.dtype[Any]:
    """The dtype of `events`' thread column, released or not."""
    if isinstance(events, TimeColumns):
        return events.thread_dtype
    return events.thread.dtype
