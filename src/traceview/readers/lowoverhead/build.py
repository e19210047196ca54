"""From decoded low-overhead events to the model's tables (both modes): threads in order of
appearance, each thread's blocks in order, exits paired with the entries they close by stack
level (exits carry no method), and the method table with a row per undeclared id.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from traceview.model import Diagnostic, MethodTable, ThreadTable
from traceview.readers.assemble import MethodFields, method_table, thread_table
from traceview.readers.lowoverhead.packets import Packets

__all__ = [
    "UNKNOWN_METHOD",
    "event_methods",
    "methods_of",
    "pair_exits",
    "threads_of",
    "with_unknown",
]

I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
UNKNOWN_METHOD = "[entered before the dump]"


def threads_of(found: Packets) -> tuple[ThreadTable, I64]:
    """The thread table (blocks' threads in order of first appearance, then named threads
    without a block) and each block's thread row."""
    tids = np.array([b.tid for b in found.blocks], dtype=np.int64)
    seen = np.r_[tids, np.array(list(found.thread_names), dtype=np.int64)]
    unique, first_at = np.unique(seen, return_index=True)
    ids = seen[np.sort(first_at)]
    table = thread_table(ids.tolist(), [found.thread_names.get(int(t)) for t in ids])
    rank = np.empty(len(unique), dtype=np.int64)
    rank[np.argsort(first_at)] = np.arange(len(unique))
    return table, rank[np.searchsorted(unique, tids)]


def methods_of(found: Packets, used: U64, diags: list[Diagnostic]) -> MethodTable:
    """Declared infos (the first of a repeated id), then a `(0x…)` row per id used by events
    but never declared."""
    fields, declared, seen = MethodFields(), [], set()
    for ident, raw in zip(found.method_ids, found.method_texts, strict=True):
        if ident in seen:
            continue
        seen.add(ident)
        parts = raw.decode("utf-8", "surrogateescape").rstrip("\n").split("\t")
        parts += [""] * (4 - len(parts))
        fields.add(parts[0], parts[1], parts[2], parts[3], -1)
        declared.append(ident)
    unknown = np.setdiff1d(np.unique(used), np.array(declared, dtype=np.uint64))
    if len(unknown):
        diags.append(
            Diagnostic(
                "unknown-method",
                f"{len(unknown)} method id(s) are used by events but have no method info "
                "(a dump cut before its method infos)",
                count=len(unknown),
            )
        )
    return method_table(declared, fields, unknown)


def pair_exits(segment: I64, is_exit: npt.NDArray[np.bool_]) -> I64:
    """For each event (grouped by segment: a thread, or a piece of a wrapped ring), the index
    of the entry an exit closes, -1 for exits without one (and for entries). An entry opens
    level d (the depth after it), an exit closes level d (the depth before it); the exit
    closes the latest earlier event of its level when that is an entry."""
    n = len(segment)
    match = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return match
    step = np.where(is_exit, -1, 1).astype(np.int64)
    starts = np.flatnonzero(np.r_[True, segment[1:] != segment[:-1]])
    depth_after = np.cumsum(step)
    base = np.repeat(depth_after[starts] - step[starts], np.diff(np.r_[starts, n]))
    depth_after = depth_after - base
    level = np.where(is_exit, depth_after + 1, depth_after)
    order = np.lexsort((np.arange(n), level, segment))
    prev = np.r_[-1, order[:-1]]
    same = np.r_[False, (segment[order][1:] == segment[order][:-1])]
    same &= np.r_[False, (level[order][1:] == level[order][:-1])]
    closes = same & is_exit[order] & ~is_exit[np.maximum(prev, 0)]
    match[order[closes]] = prev[closes]
    return match


def event_methods(
    methods: MethodTable,
    method_id: U64,
    is_exit: npt.NDArray[np.bool_],
    segment: I64,
    diags: list[Diagnostic],
    what: str,
) -> tuple[MethodTable, npt.NDArray[np.int32]]:
    """Each event's method row (events in their final order): an entry's by its id, an
    exit's from the entry it closes; orphan exits get one added row, `UNKNOWN_METHOD` (`what`
    says why they exist)."""
    sorter = np.argsort(methods.id)
    method = np.zeros(len(method_id), dtype=np.int32)
    if len(sorter):
        found = np.searchsorted(methods.id, method_id, sorter=sorter)
        method = sorter[np.minimum(found, len(sorter) - 1)].astype(np.int32)
    match = pair_exits(segment, is_exit)
    closed = match >= 0
    method[closed] = method[match[closed]]
    orphans = is_exit & ~closed
    if orphans.any():
        methods = with_unknown(methods)
        method[orphans] = len(methods) - 1
        count = int(orphans.sum())
        diags.append(
            Diagnostic(
                "exit-without-entry",
                f"{count} exit(s) close calls whose entry is not in the dump ({what}); they "
                f"are shown as {UNKNOWN_METHOD}",
                count=count,
            )
        )
    return methods, method


def _free_id(ids: U64) -> int:
    """An id no row has: above the largest, else the first gap (ids are any u64 values)."""
    if not len(ids):
        return 1
    ordered = np.sort(ids)
    if int(ordered[-1]) < (1 << 64) - 1:
        return int(ordered[-1]) + 1
    if int(ordered[0]) > 0:
        return 0
    gaps = np.flatnonzero(np.diff(ordered) > 1)
    return int(ordered[gaps[0]]) + 1  # 2^64 ids would not fit in memory: a gap exists


def with_unknown(methods: MethodTable) -> MethodTable:
    """The table plus one undeclared row standing for the methods of orphan exits."""
    new_id = _free_id(methods.id)
    return MethodTable(
        id=np.r_[methods.id, np.uint64(new_id)].astype(np.uint64),
        class_name=(*methods.class_name, UNKNOWN_METHOD),
        name=(*methods.name, ""),
        signature=(*methods.signature, ""),
        source_file=(*methods.source_file, ""),
        line=np.r_[methods.line, np.int32(-1)].astype(np.int32),
        declared=np.r_[methods.declared, False].astype(bool),
    )
