"""A slow, obvious, stack-walking reference for the engine: calls and profile in plain Python.

Used by the engine's property tests to check the vectorised `build_calls` / `profile` on
event sequences nobody would write by hand. Same policies as `traceview.analysis.calls`:
exit on an empty stack -> call with entry at the thread's first time, adopting the calls
finished so far at the top level; exit of a deeper method -> frames above closed (forced);
exit of a method not on a non-empty stack -> dropped; open at the end -> closed at the
thread's last time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from traceview.model import Trace

RECURSIVE, SYNTH_ENTRY, OPEN, UNROLL, FORCED_EXIT = 1, 2, 4, 8, 16


@dataclass
class Node:
    method: int
    start: int  # event row of the entry
    end: int = -1  # event row of the exit
    flags: int = 0
    children: list[Node] = field(default_factory=list)


@dataclass
class RefCall:
    thread: int
    method: int
    depth: int
    parent: int
    enter_event: int
    exit_event: int
    flags: int


def reference_calls(trace: Trace) -> list[RefCall]:
    """Every call of `trace`, threads in row order, each thread in depth-first pre-order."""
    ev = trace.events
    out: list[RefCall] = []
    for t in range(len(trace.threads)):
        rows = [i for i in range(len(ev)) if int(ev.thread[i]) == t]
        if not rows:
            continue
        roots: list[Node] = []
        stack: list[Node] = []
        for r in rows:
            action, method = int(ev.action[r]), int(ev.method[r])
            if action == 0:
                node = Node(method, r)
                (stack[-1].children if stack else roots).append(node)
                stack.append(node)
                continue
            unroll = UNROLL if action == 2 else 0
            if not stack:
                node = Node(method, rows[0], r, SYNTH_ENTRY | unroll, roots)
                roots = [node]
                continue
            hits = [k for k, f in enumerate(stack) if f.method == method]
            if not hits:
                continue  # dropped
            at = hits[-1]
            for f in stack[at + 1 :]:
                f.end, f.flags = r, f.flags | FORCED_EXIT
            stack[at].end = r
            stack[at].flags |= unroll
            del stack[at:]
        for f in stack:
            f.end, f.flags = rows[-1], f.flags | OPEN
        base = len(out)

        def walk(node: Node, depth: int, parent: int, path: list[int], t: int = t) -> None:
            flags = node.flags | (RECURSIVE if node.method in path else 0)
            me = len(out)
            out.append(RefCall(t, node.method, depth, parent, node.start, node.end, flags))
            path.append(node.method)
            for child in node.children:
                walk(child, depth + 1, me, path)
            path.pop()

        for root in roots:
            walk(root, 0, -1, [])
        assert all(c.parent < len(out) for c in out[base:])
    return out


def reference_profile(trace: Trace, calls: list[RefCall], clock: str) -> dict[str, object]:
    """Per-method excl/incl/top-excl/n/r and the edge table on `clock`, as dicts."""
    col = trace.events.time(clock)
    incl = [int(col[c.exit_event]) - int(col[c.enter_event]) for c in calls]
    child = [0] * len(calls)
    for i, c in enumerate(calls):
        if c.parent >= 0:
            child[c.parent] += incl[i]
    excl: dict[int, int] = {}
    inc: dict[int, int] = {}
    top: dict[int, int] = {}
    n: dict[int, int] = {}
    r: dict[int, int] = {}
    edges: dict[tuple[int, int, bool, bool], list[int]] = {}
    for i, c in enumerate(calls):
        rec = bool(c.flags & RECURSIVE)
        e = incl[i] - child[i]
        excl[c.method] = excl.get(c.method, 0) + e
        if rec:
            r[c.method] = r.get(c.method, 0) + 1
        else:
            n[c.method] = n.get(c.method, 0) + 1
            inc[c.method] = inc.get(c.method, 0) + incl[i]
            top[c.method] = top.get(c.method, 0) + e
        p = calls[c.parent] if c.parent >= 0 else None
        key = (
            p.method if p else -1,
            c.method,
            bool(p.flags & RECURSIVE) if p else False,
            rec,
        )
        slot = edges.setdefault(key, [0, 0])
        slot[0] += 1
        slot[1] += incl[i]
    return {"excl": excl, "incl": inc, "top": top, "n": n, "r": r, "edges": edges}
