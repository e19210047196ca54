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
    ce = np.cumsum(is_enter, dtype=np.int32)  # enters up to and including each record
    level = ce * 2
    level -= np.arange(1, m + 1, dtype=np.int32)  # running depth after each record
    s = max(0, -int(level.min()))
    level += s
    level -= is_enter  # enter: depth of the new frame; exit: depth of the closed frame
    top = int(level.max())
    starts = np.zeros(top + 2, dtype=np.int64)  # level groups in sorted order
    np.cumsum(np.bincount(level, minlength=top + 1), out=starts[1:])
    key = level.astype(np.uint16) if top <= 0xFFFF else level
    perm = np.argsort(key, kind="stable")
    del key
    en_s = is_enter[perm]
    js = np.flatnonzero(en_s)  # enters in (level, position) order
    nxt = js + 1
    nxt_ok = nxt < m
    nxt[~nxt_ok] = 0
    boundary = np.zeros(m + 1, dtype=bool)
    boundary[starts] = True
    matched = nxt_ok & ~en_s[nxt] & ~boundary[nxt]
    del en_s, boundary
    sorted_rows = ce[perm[js]]  # rows of those enters: s + rank in position order
    sorted_rows += s - 1
    n_enter = len(js)
    n = s + n_enter
    exit_pos = np.full(n, -1, dtype=np.int64)
    exit_pos[sorted_rows[matched]] = perm[nxt[matched]]
    del nxt
    # synthesised calls: the first record of each level below s (always an exit)
    if s:
        exit_pos[:s] = perm[starts[:s]]
    ep = np.flatnonzero(is_enter)  # enter records in row order
    method = np.empty(n, dtype=np.int32)
    method[s:] = meth[ep]
    xp = exit_pos[s:]
    closed = xp >= 0
    if enter_mask is None and bool(np.any(method[s:][closed] != meth[xp[closed]])):
        return Paired(None, None, None, None, None, None, None, mismatched=True)
    depth = np.empty(n, dtype=np.int32)
    depth[:s] = np.arange(s, dtype=np.int32)
    depth[s:] = level[ep]
    del level
    enter_event = np.empty(n, dtype=rows.dtype)
    enter_event[:s] = first_row
    enter_event[s:] = rows[ep]
    del ep
    if s:
        method[:s] = meth[exit_pos[:s]]
    closed = exit_pos >= 0
    safe = np.where(closed, exit_pos, 0)
    exit_event = np.where(closed, rows[safe], last_row).astype(rows.dtype)
    subtree_end = np.where(closed, ce[safe] + s, n).astype(np.int32 if n < 2**31 - 1 else np.int64)
    del ce
    flags = np.where(act[safe] == UNROLL_ACTION, UNROLL, 0).astype(np.uint8)
    if forced is not None:
        flags[forced[safe] & closed] = FORCED_EXIT
    flags[~closed] = OPEN
    flags[:s] |= SYNTH_ENTRY
    del safe, exit_pos
    flags[_recursive(method, subtree_end)] |= _RECURSIVE
    parent = _parents(sorted_rows, np.searchsorted(js, starts), s, n)
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
        open=int(np.count_nonzero(~closed)),
        unroll=int(np.count_nonzero(flags & UNROLL)),
        forced=n_forced,
    )


def _recursive(method: Arr, subtree_end: Arr) -> Arr:
    """Rows inside an earlier call of the same method (this thread's rows, pre-order).

    Sorted by (method, row), a row is inside an earlier call of its group iff the running
    max of the earlier calls' subtree_end exceeds it; groups are kept apart by adding
    `group * (n + 1)` so that one running max serves them all.
    """
    n = len(method)
    if n < 2:
        return np.zeros(n, dtype=bool)
    top = int(method.max())
    order = np.argsort(method.astype(np.uint16) if top <= 0xFFFF else method, kind="stable")
    ms = method[order]
    group = np.empty(n, dtype=np.int64)
    group[0] = 0
    np.cumsum(ms[1:] != ms[:-1], out=group[1:])
    del ms
    group *= n + 1
    reach = subtree_end[order] + group
    np.maximum.accumulate(reach, out=reach)
    group += order  # the row's own key
    inside = np.zeros(n, dtype=bool)
    inside[order[1:]] = reach[:-1] > group[1:]
    return inside


def _parents(sorted_rows: Arr, bounds: Arr, s: int, n: int) -> Arr:
    """Parent row of every call: the last call one level up that starts before it.

    `sorted_rows[bounds[d]:bounds[d+1]]` are the rows (increasing) of the recorded enters at
    level d; the synthesised call of level d < s is row d, before all of them.
    """
    parent = np.full(n, -1, dtype=np.int32 if n < 2**31 - 1 else np.int64)
    prev = None
    for d in range(len(bounds) - 1):
        cur = sorted_rows[bounds[d] : bounds[d + 1]]
        if d < s:
            cur = np.concatenate((np.array([d], dtype=cur.dtype), cur))
        if prev is not None and len(cur) and len(prev):
            parent[cur] = prev[np.searchsorted(prev, cur) - 1]
        prev = cur
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
