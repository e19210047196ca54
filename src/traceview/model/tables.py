"""The columnar tables at the centre of the package: threads, methods and events.

Each table is a set of equal-length columns; references between tables are integer row
indices (never ids). Readers build them, analyses read them. Times are **int64 nanoseconds**
everywhere in the package (V1 files store microseconds, which are multiplied by 1000 exactly;
V2 files since 2025 store nanoseconds). A clock the file does not record is `None`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
U8 = npt.NDArray[np.uint8]
U64 = npt.NDArray[np.uint64]
Index = npt.NDArray[np.unsignedinteger] | npt.NDArray[np.signedinteger]


class Action(IntEnum):
    """What one event record does; the values are the file's two low bits."""

    ENTER = 0
    EXIT = 1
    UNROLL = 2  # a frame popped by an exception: an exit for every analysis


def thread_index_dtype(rows: int) -> np.dtype[np.unsignedinteger]:
    """The smallest unsigned dtype for thread row indices: uint8 up to 256 rows (a byte a record
    less in every loaded trace of an ordinary app), uint16 up to 65,536, else uint32."""
    if rows <= 0x100:
        return np.dtype(np.uint8)
    return np.dtype(np.uint16) if rows <= 0x10000 else np.dtype(np.uint32)


def method_dtype(rows: int) -> np.dtype[np.signedinteger]:
    """The dtype of method row indices in the events: int16 below 32,768 method rows (two
    bytes a record less in a loaded trace), else int32."""
    return np.dtype(np.int16) if rows < 0x8000 else np.dtype(np.int32)


@dataclass(frozen=True, eq=False)
class ThreadTable:
    """Threads of a trace, one row each.

    `id[i]` is the thread id as found in the file (a Dalvik id, a Linux tid, or ART's
    per-trace encoding). `name[i]` is the name from the key section or a thread packet, or
    None when the file never named it (shown as `[id]`). Ids are unique except where the file
    shows the VM reusing one: a streaming or V2 thread packet giving an id that already has
    records a new name, with records after it, starts a new row with the same id (rows in
    order of first appearance; rows sharing an id have different names). Select by id with
    `rows_of`; link by row index only.
    """

    id: I64
    name: tuple[str | None, ...]

    def __len__(self) -> int:
        return len(self.id)

    def label(self, row: int) -> str:
        """The name to show for row `row`: the name, or `[id]` when unnamed."""
        name = self.name[row]
        return name if name is not None else f"[{int(self.id[row])}]"

    def row_of(self, thread_id: int) -> int | None:
        """The first row holding `thread_id` (the earliest, for a reused id), or None."""
        hits = np.flatnonzero(self.id == thread_id)
        return int(hits[0]) if len(hits) else None

    def rows_of(self, thread_id: int) -> list[int]:
        """Every row holding `thread_id` (more than one when the VM reused the id)."""
        return [int(r) for r in np.flatnonzero(self.id == thread_id)]


@dataclass(frozen=True, eq=False)
class MethodTable:
    """Methods of a trace, one row each.

    `id[i]` is the method id as found (uint64: V1 ids are 32-bit values with the two action
    bits clear, V2 ids are `ArtMethod*` pointers). Ids are unique. `class_name` is as written
    (dotted for ART, slash form for Dalvik); `signature` is the JVM descriptor or "";
    `source_file` is "" when unknown; `line[i]` is the line number or -1. `declared[i]` is
    False for rows a reader added for ids used by records but never declared (their names
    read `(0x…)`). `obfuscated` is None for names as the file wrote them; a renamed table
    (deobfuscated through a mapping) holds there, per row, the label as the file wrote it, or
    "" for rows the renaming left unchanged. `key_line` is None, or per row the key line
    after its id and tab as the file wrote it (None for rows without one): dmtracedump splits
    it its own way (analysis/dmtracedump/numbers.py), so its report can match the file byte
    for byte.
    """

    id: U64
    class_name: tuple[str, ...]
    name: tuple[str, ...]
    signature: tuple[str, ...]
    source_file: tuple[str, ...]
    line: I32
    declared: npt.NDArray[np.bool_]
    obfuscated: tuple[str, ...] | None = None
    key_line: tuple[str | None, ...] | None = None

    def __len__(self) -> int:
        return len(self.id)

    def full_name(self, row: int) -> str:
        """`class.method` as traceview prints it (no signature)."""
        cls, name = self.class_name[row], self.name[row]
        return f"{cls}.{name}" if name else cls

    def label(self, row: int) -> str:
        """`class.method signature`, traceview's method label."""
        sig = self.signature[row]
        return f"{self.full_name(row)} {sig}" if sig else self.full_name(row)


@dataclass(frozen=True, eq=False)
class EventTable:
    """The method enter/exit records, one row each, in file order.

    Invariants (checked by `Trace.validate`): all columns have the same length; `method` is
    int32, or int16 when the rows fit (`method_dtype`: the V1 readers);
    `thread[i] < len(threads)`; `method[i] < len(methods)`; `action[i]` in {0, 1, 2};
    within one thread, rows are in that thread's chronological order (file order may
    interleave threads or hold per-thread chunks, never reorders one thread's records);
    `cpu`/`wall` are int64 ns, already unwrapped past the 32-bit wrap and non-decreasing per
    thread (readers clamp backwards steps and say so); a clock the file lacks is None.
    """

    thread: Index
    method: I32
    action: U8
    cpu: I64 | None
    wall: I64 | None

    def __len__(self) -> int:
        return len(self.method)

    @property
    def clocks(self) -> tuple[str, ...]:
        """The clocks present, of ("cpu", "wall")."""
        return tuple(
            name for name, col in (("cpu", self.cpu), ("wall", self.wall)) if col is not None
        )

    def time(self, clock: str) -> I64:
        """The column for `clock` ("cpu" or "wall"); KeyError if the trace lacks it."""
        col = self.cpu if clock == "cpu" else self.wall if clock == "wall" else None
        if col is None:
            raise KeyError(f"this trace has no {clock} clock")
        return col
