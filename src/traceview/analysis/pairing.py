"""Pairing one thread's enter/exit records into calls, vectorised (numpy only): used by
`direct_profile` (`traceview -r`, `stats`, `info`: no numba), and by `calls.build_calls` for the
threads its compiled pairing (analysis/kernels/pairing.py) leaves to the repair.

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
    size: int = 0  # records paired

    @property
    def rows(self) -> int:
        """Number of calls (0 when the columns were handed over or never made)."""
        return 0 if self.method is None else len(self.method)

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
    rows: Arr | None,
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
    made and `forced` marks the exits that close a frame early. `rows=None` numbers the
    records 0..m-1 (`enter_event`/`exit_event` are then positions in `act`).
    """
    m = len(act)
    if rows is None:
        first_row, last_row = (0, m - 1) if first is None else (first, last or 0)
    else:
        first_row = int(rows[0]) if first is None else first
        last_row = int(rows[-1]) if last is None else last
    is_enter = (act == ENTER) if enter_mask is None else enter_mask
    ix: Any = np.int32 if 2 * m + 2 < 2**31 else np.int64  # positions in this thread
    ep = np.flatnonzero(is_enter).astype(ix, copy=False)  # enter records = rows s.. in order
    xq = np.flatnonzero(~is_enter).astype(ix, copy=False)  # exit records
    # the depth needs no running sum: before the k-th enter (at position p) come p - k exits,
    # so its frame is at depth k - (p - k); after the j-th exit (at q), q + 1 - (j + 1)
    # enters and j + 1 exits leave depth q - 2j - 1, the depth of the frame it closed.
    # Exits below depth 0 close frames open when tracing began: s of them, shifted up.
    lv_e = np.arange(0, 2 * len(ep), 2, dtype=ix)
    lv_e -= ep
    lv_x = xq - np.arange(1, 2 * len(xq) + 1, 2, dtype=ix)
    s = max(0, -int(lv_x.min())) if len(xq) else 0
    if s:
        lv_e += s
        lv_x += s
    n = s + len(ep)
    top = max(int(lv_e.max()) if len(ep) else 0, int(lv_x.max()) if len(xq) else 0)
    small = top <= 0xFFFF
    perm_e: Arr = np.argsort(lv_e.astype(np.uint16) if small else lv_e, kind="stable").astype(
        ix, copy=False
    )
    perm_x: Arr = np.argsort(lv_x.astype(np.uint16) if small else lv_x, kind="stable").astype(
        ix, copy=False
    )
    start_e: Arr = np.zeros(top + 2, dtype=ix)
    np.cumsum(np.bincount(lv_e, minlength=top + 1), out=start_e[1:])
    start_x: Arr = np.zeros(top + 2, dtype=ix)
    np.cumsum(np.bincount(lv_x, minlength=top + 1), out=start_x[1:])
    del lv_x
    # level by level, enters and exits alternate: the k-th enter of a level closes with the
    # k-th exit of that level, or the (k+1)-th below s (whose first exit is synthesised)
    lvl = np.repeat(np.arange(top + 1, dtype=np.int32), np.diff(start_e))
    shift = start_x[:-1] - start_e[:-1]  # sorted enter index -> sorted exit index, by level
    shift[:s] += 1
    idx: Arr = np.arange(len(ep), dtype=ix)
    idx += shift[lvl].astype(ix, copy=False)
    ok = idx < start_x[1:][lvl]
    every = bool(ok.all())  # no call open at the end
    if not every:
        idx[~ok] = 0
    exit_pos: Arr = np.full(n, -1, dtype=ix)  # exit record of each row, -1 = open
    sorted_rows: Arr = perm_e  # rows of the enters in (level, row) order
    sorted_rows += s
    del perm_e
    found: Arr = xq[perm_x[idx]] if len(xq) else np.zeros(len(idx), dtype=ix)
    if not every:
        found[~ok] = -1
    exit_pos[sorted_rows] = found
    del idx, ok, found
    if s:
        exit_pos[:s] = xq[perm_x[start_x[:s]]]
    del perm_x, xq
    method = np.empty(n, dtype=np.int32)
    method[s:] = meth[ep]
    closed = exit_pos >= 0
    every = every or bool(closed.all())
    safe = exit_pos if every else np.where(closed, exit_pos, 0)
    if s:
        method[:s] = meth[safe[:s]]
    if enter_mask is None:
        differ = method != meth[safe]
        if not every:
            differ &= closed
        if bool(differ.any()):
            return Paired(None, None, None, None, None, None, None, mismatched=True)
        del differ
    depth = np.empty(n, dtype=np.int32)
    depth[:s] = np.arange(s, dtype=np.int32)
    depth[s:] = lv_e
    del lv_e
    enter_event = np.empty(n, dtype=ix if rows is None else rows.dtype)
    enter_event[:s] = first_row
    enter_event[s:] = ep if rows is None else rows[ep]
    del ep
    exit_event = safe.astype(ix) if rows is None else rows[safe]
    # the subtree of a call ends at the row of the first enter after its exit: enters up to
    # the exit at position q of a call at depth d number (q + 1 + d - s) / 2 (records up to
    # q minus the exits, which outnumber the enters by the depth left, d, less the s exits
    # of synthesised calls), plus the s synthesised rows
    subtree_end: Arr = depth.astype(np.int64 if 2 * m + s + 2 >= 2**31 else np.int32)
    subtree_end += safe
    subtree_end += 1 + s
    subtree_end >>= 1
    flags = (act[safe] == UNROLL_ACTION).view(np.uint8) * np.uint8(UNROLL)
    if forced is not None:
        flags[forced[safe] & closed] = FORCED_EXIT
    if not every:
        exit_event[~closed] = last_row
        subtree_end[~closed] = n
        flags[~closed] = OPEN
    flags[:s] |= SYNTH_ENTRY
    del safe, exit_pos
    parent = _parents(sorted_rows, lvl, depth, s, n)
    del sorted_rows, lvl
    may = _may_recurse(method, parent)
    if may is None:
        flags[_recursive(method, subtree_end, n)] |= _RECURSIVE
    elif len(may):
        cand = np.zeros(int(method.max()) + 1, dtype=bool)
        cand[may] = True
        sub = np.flatnonzero(cand[method])
        flags[sub[_recursive(method[sub], subtree_end[sub], n, sub)]] |= _RECURSIVE
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
        forced=int(np.count_nonzero(flags & FORCED_EXIT)),
        size=m,
    )


def _parents(sorted_rows: Arr, lvl: Arr, depth: Arr, s: int, n: int) -> Arr:
    """Parent row of every call, from the recorded enters in (level, row) order.

    A row whose previous row is one level up is its first child (parent = previous row);
    any other row has the parent of the previous call of its level. That forward fill is one
    running max, levels kept apart by adding `level * (n + 1)`; the synthesised call of level
    d < s (row d, parent d - 1) seeds its level.
    """
    parent = np.full(n, -1, dtype=np.int32 if n < 2**31 - 1 else np.int64)
    if s > 1:
        parent[1:s] = np.arange(s - 1)
    if not len(sorted_rows):
        return parent
    prev = sorted_rows - 1
    if s == 0:
        # a row one level below the row before it is that row's first child
        step = np.empty(n, dtype=bool)
        step[0] = False
        np.equal(depth[1:] - depth[:-1], 1, out=step[1:])
        first_child = step[sorted_rows]
        del step
        # every level starts with a first child, so the running max of the sorted position
        # of the last first child (increasing across levels) finds each call's nearest
        # first-child sibling at or before it: the row before that one is the parent (roots,
        # at the front, keep position 0 whose previous row is -1)
        at = np.where(first_child, np.arange(len(prev), dtype=prev.dtype), 0)
        del first_child
        np.maximum.accumulate(at, out=at)
        parent[sorted_rows] = prev[at]
        return parent
    first_child = depth[prev] == lvl - 1
    seed = np.zeros(int(lvl[-1]) + 1 if len(lvl) else 1, dtype=sorted_rows.dtype)
    seed[1 : min(s, len(seed))] = np.arange(1, min(s, len(seed)))
    wide = (int(lvl[-1]) + 1) * (n + 1) >= 2**31
    block: Arr = lvl.astype(np.int64 if wide else np.int32)
    block *= n + 1
    val = np.where(first_child, sorted_rows, seed[lvl]).astype(block.dtype, copy=False)
    val += block
    np.maximum.accumulate(val, out=val)
    val -= block
    val -= 1
    parent[sorted_rows] = val
    return parent


def _may_recurse(method: Arr, parent: Arr) -> Arr | None:
    """Methods on a cycle of this thread's caller -> callee method graph (only their calls
    can be recursive: an ancestor of the same method closes a cycle through the calls in
    between), or None when the graph is too big to walk."""
    inner = parent >= 0
    callee = method[inner]
    if not len(callee):
        return np.zeros(0, dtype=np.intp)
    caller = method[parent[inner]]
    top = int(method.max()) + 1
    key = caller.astype(np.int64)
    key *= top
    key += callee
    del caller, callee, inner
    if top * top <= 4 * len(key) + 4096:
        pairs = np.flatnonzero(np.bincount(key, minlength=top * top))
    else:
        pairs = np.unique(key)
    if len(pairs) > 200_000:
        return None
    src, dst = np.divmod(pairs, top)
    return np.array(sorted(_on_cycles(src.tolist(), dst.tolist())), dtype=np.intp)


def _on_cycles(src: list[int], dst: list[int]) -> set[int]:
    """Nodes of a small directed graph that lie on a cycle (self-loops included): the
    strongly connected components of more than one node, by an iterative Tarjan walk."""
    out: set[int] = {a for a, b in zip(src, dst, strict=True) if a == b}
    succ: dict[int, list[int]] = {}
    for a, b in zip(src, dst, strict=True):
        succ.setdefault(a, []).append(b)
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    stack: list[int] = []
    on_stack: set[int] = set()
    for root in succ:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = len(index)
                stack.append(v)
                on_stack.add(v)
            nxt = succ.get(v, [])
            if i < len(nxt):
                work.append((v, i + 1))
                w = nxt[i]
                if w not in index:
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.update(comp)
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    return out


def _recursive(method: Arr, subtree_end: Arr, n_rows: int, rows: Arr | None = None) -> Arr:
    """Which of the given calls lie inside an earlier call of the same method (`rows`: their
    rows in this thread's pre-order, default 0..; `n_rows` bounds every row and subtree_end;
    the calls of a method must all be given).

    Sorted by (method, row), a row is inside an earlier call of its group iff the running
    max of the earlier calls' subtree_end exceeds it; groups are kept apart by adding
    `group * (n_rows + 1)` so that one running max serves them all.
    """
    n = len(method)
    if n < 2:
        return np.zeros(n, dtype=bool)
    top = int(method.max())
    order: Arr = np.argsort(method.astype(np.uint16) if top <= 0xFFFF else method, kind="stable")
    order = order.astype(np.int32 if n < 2**31 - 1 else np.int64)
    ms = method[order]
    change = ms[1:] != ms[:-1]
    del ms
    wide = (int(np.count_nonzero(change)) + 1) * (n_rows + 1) >= 2**31
    group: Arr = np.empty(n, dtype=np.int64 if wide else np.int32)
    group[0] = 0
    np.cumsum(change, out=group[1:])
    del change
    group *= n_rows + 1
    reach = subtree_end[order] + group
    np.maximum.accumulate(reach, out=reach)
    group += order if rows is None else rows[order]  # the row's own key
    inside = np.zeros(n, dtype=bool)
    inside[order[1:]] = reach[:-1] > group[1:]
    return inside


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
