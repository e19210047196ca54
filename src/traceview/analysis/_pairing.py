"""Pairing one thread's enter/exit records into calls, vectorised; used by `calls.build_calls`.

The stack depth of every record comes from a cumulative sum of +1 (enter) / -1 (exit). Exits
that would take the depth below zero close frames that were open when tracing began: the
depth is shifted up by their number `S`, and the first exit at each level below `S` becomes a
call with a synthesised entry. A stable sort by level then puts, at every level, enters and
exits in strict alternation, so each enter pairs with the next record of its level (or stays
open). Rows are numbered in entry order (synthesised calls first, outermost first), which is
depth-first pre-order. Only when a pair's methods differ is the slow path
(`repair_sequence`, a Python stack walk over that thread) used to rewrite the sequence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

Arr = npt.NDArray[Any]

_RECURSIVE, SYNTH_ENTRY, OPEN, UNROLL, FORCED_EXIT = 1, 2, 4, 8, 16
ENTER, UNROLL_ACTION = 0, 2


@dataclass
class Paired:
    """The calls of one thread with thread-local row numbers (columns as in CallTable)."""

    method: Arr | None
    depth: Arr | None
    parent: Arr | None
    subtree_end: Arr | None
    enter_event: Arr | None
    exit_event: Arr | None
    flags: Arr | None
    synth: int = 0
    open: int = 0
    unroll: int = 0
    forced: int = 0
    mismatched: bool = False

    @staticmethod
    def empty() -> Paired:
        """A thread without records."""
        z32 = np.zeros(0, dtype=np.int32)
        return Paired(z32, z32, z32, z32, z32, z32, np.zeros(0, dtype=np.uint8))


@dataclass(frozen=True)
class Repaired:
    """A thread's record sequence rewritten so that every exit matches: `positions` index the
    original sequence (a forced close repeats the mismatched exit's position)."""

    positions: npt.NDArray[np.int64]
    is_enter: npt.NDArray[np.bool_]
    forced: npt.NDArray[np.bool_]
    dropped: int


def pair_thread(
    rows: Arr,
    act: Arr,
    meth: Arr,
    *,
    enter_mask: Arr | None = None,
    forced: Arr | None = None,
    first: int | None = None,
    last: int | None = None,
) -> Paired:
    """Pair the records of one thread (event rows `rows`, chronological) into calls.

    Without `enter_mask` the exits are checked against their enters and a mismatch returns
    `Paired(..., mismatched=True)` with no columns; with it (a repaired sequence) no check is
    made and `forced` marks the exits that close a frame early.
    """
    m = len(rows)
    first_row = int(rows[0]) if first is None else first
    last_row = int(rows[-1]) if last is None else last
    is_enter = (act == ENTER) if enter_mask is None else enter_mask
    level = np.cumsum(is_enter, dtype=np.int32)
    level *= 2
    level -= np.arange(1, m + 1, dtype=np.int32)  # running depth after each record
    s = max(0, -int(level.min()))
    level += s
    level -= is_enter  # enter: depth of the new frame; exit: depth of the closed frame
    top = int(level.max())
    key = level.astype(np.uint16) if top <= 0xFFFF else level
    perm = np.argsort(key, kind="stable")
    del key
    lv_s = level[perm]
    del level
    en_s = is_enter[perm]
    same_next = lv_s[1:] == lv_s[:-1]
    j_enter = np.flatnonzero(en_s)
    matched = np.zeros(len(j_enter), dtype=bool)
    inner = j_enter < m - 1
    matched[inner] = same_next[j_enter[inner]]
    if enter_mask is None:
        jm = j_enter[matched]
        if bool(np.any(meth[perm[jm]] != meth[perm[jm + 1]])):
            return Paired(None, None, None, None, None, None, None, mismatched=True)
        del jm
    # synthesised calls: the first record of each level below s (always an exit)
    group_start = np.flatnonzero(np.concatenate(([True], ~same_next)))
    del same_next
    j_synth = group_start[: min(s, len(group_start))]
    j_synth = j_synth[lv_s[j_synth] < s]
    n_enter = len(j_enter)
    n = s + n_enter
    ce = np.cumsum(is_enter, dtype=np.int32)  # enters up to and including each position

    depth = np.empty(n, dtype=np.int32)
    method = np.empty(n, dtype=np.int32)
    enter_event = np.empty(n, dtype=rows.dtype)
    exit_event = np.empty(n, dtype=rows.dtype)
    subtree_end = np.empty(n, dtype=np.int32 if n < 2**31 - 1 else np.int64)
    flags = np.zeros(n, dtype=np.uint8)

    # calls opened by a recorded enter: rows s .. n-1 in position order
    pos = perm[j_enter]
    row = ce[pos].astype(np.int64)
    row += s - 1
    depth[row] = lv_s[j_enter]
    method[row] = meth[pos]
    enter_event[row] = rows[pos]
    del pos
    xpos = perm[j_enter[matched] + 1]
    mrow = row[matched]
    exit_event[mrow] = rows[xpos]
    subtree_end[mrow] = ce[xpos] + s
    flags[mrow] = _exit_flags(act, forced, xpos)
    orow = row[~matched]
    exit_event[orow] = last_row
    subtree_end[orow] = n
    flags[orow] = OPEN
    del row, mrow, xpos
    # synthesised calls: rows 0 .. s-1, row = level
    if s:
        xs = perm[j_synth]
        srow = lv_s[j_synth].astype(np.int64)
        depth[srow] = srow
        method[srow] = meth[xs]
        enter_event[srow] = first_row
        exit_event[srow] = rows[xs]
        subtree_end[srow] = ce[xs] + s
        flags[srow] = _exit_flags(act, forced, xs) | SYNTH_ENTRY
    # calls in (level, row) order for the parent search
    is_call = en_s.copy()
    is_call[j_synth] = True
    call_j = np.flatnonzero(is_call)
    del is_call
    ise = en_s[call_j]
    rows_sorted = np.empty(len(call_j), dtype=np.int64)
    rows_sorted[ise] = ce[perm[call_j[ise]]]
    rows_sorted[ise] += s - 1
    rows_sorted[~ise] = lv_s[call_j[~ise]]
    del ce, perm
    parent = _parents(rows_sorted, lv_s[call_j], n)
    del rows_sorted, call_j
    n_forced = int(np.count_nonzero(flags & FORCED_EXIT))
    return Paired(
        method=method,
        depth=depth,
        parent=parent,
        subtree_end=subtree_end,
        enter_event=enter_event,
        exit_event=exit_event,
        flags=flags,
        synth=s,
        open=int(np.count_nonzero(~matched)),
        unroll=int(np.count_nonzero(flags & UNROLL)),
        forced=n_forced,
    )


def _exit_flags(act: Arr, forced: Arr | None, xpos: Arr) -> Arr:
    """UNROLL / FORCED_EXIT flags of the calls closed by the records at `xpos`."""
    out = np.where(act[xpos] == UNROLL_ACTION, UNROLL, 0).astype(np.uint8)
    if forced is not None:
        f = forced[xpos]
        out[f] = FORCED_EXIT
    return out


def _parents(rows_sorted: Arr, lv_calls: Arr, n: int) -> Arr:
    """Parent row of every call: the last call one level up that starts before it.

    `rows_sorted`/`lv_calls` list the calls sorted by (level, row).
    """
    parent = np.full(n, -1, dtype=np.int32 if n < 2**31 - 1 else np.int64)
    if not len(lv_calls):
        return parent
    bounds = np.searchsorted(lv_calls, np.arange(int(lv_calls[-1]) + 2))
    for d in range(1, len(bounds) - 1):
        prev = rows_sorted[bounds[d - 1] : bounds[d]]
        cur = rows_sorted[bounds[d] : bounds[d + 1]]
        if len(cur) and len(prev):
            parent[cur] = prev[np.searchsorted(prev, cur) - 1]
    return parent


def repair_sequence(act: Arr, meth: Arr) -> Repaired:
    """Walk one thread's records with a stack and rewrite them so every exit matches.

    Exit of the top frame: kept. Exit with an empty stack: kept (becomes a synthesised call).
    Exit of a method deeper in the stack: one forced exit per frame above it, then kept. Exit
    of a method not on a non-empty stack: dropped. Python loop: only for threads whose
    vectorised pairing found a mismatch.
    """
    positions: list[int] = []
    enters: list[bool] = []
    forced: list[bool] = []
    stack: list[int] = []
    dropped = 0
    for k, (a, mm) in enumerate(zip(act.tolist(), meth.tolist(), strict=True)):
        if a == ENTER:
            stack.append(mm)
            positions.append(k)
            enters.append(True)
            forced.append(False)
            continue
        if not stack or stack[-1] == mm:
            if stack:
                stack.pop()
            positions.append(k)
            enters.append(False)
            forced.append(False)
            continue
        try:
            at = len(stack) - 1 - stack[::-1].index(mm)
        except ValueError:
            dropped += 1
            continue
        extra = len(stack) - 1 - at
        positions.extend([k] * (extra + 1))
        enters.extend([False] * (extra + 1))
        forced.extend([True] * extra + [False])
        del stack[at:]
    return Repaired(
        positions=np.array(positions, dtype=np.int64),
        is_enter=np.array(enters, dtype=bool),
        forced=np.array(forced, dtype=bool),
        dropped=dropped,
    )
