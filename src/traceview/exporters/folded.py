"""The `folded` format: collapsed stacks, one line `frame;frame;frame value` per call path,
the input of flamegraph.pl, inferno and speedscope.

The value is the path's self (exclusive) time in integer **nanoseconds** on the query's clock,
clipped to the time range: the merged top-down tree's exclusive times, so the lines of a thread
sum to the profile's thread total minus its toplevel time. Paths with no self time are left
out; frames deeper than 1024 (`stacks.MAX_DEPTH`) are summed into one `[deeper frames]`
frame. By default every path starts with a root frame naming its thread (`main [1234]`);
with `merge_threads` the selected threads are merged and paths start at the outermost
method.

The format has no escapes, so a frame's `;` (JVM signatures hold them) is written `\\x3b`,
and control characters (a newline would break the line) as `\\xNN`, like undecodable bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from traceview.analysis.calltree import CallTree
from traceview.analysis.view import View
from traceview.exporters.stacks import DEEPER, fold_deep, forest, frame_names
from traceview.model import printable

NAME = "folded"
SUFFIXES = (".folded", ".collapsed", ".folded.txt")
BINARY = False
SUBJECT = "view"


@dataclass(frozen=True)
class Options:
    """`merge_threads`: one tree for all the selected threads (paths start at the outermost
    method) instead of one per thread (paths start with a frame naming the thread)."""

    merge_threads: bool = False


def frame_text(name: str) -> str:
    """A frame name safe inside a folded line."""
    return printable(name).replace(";", "\\x3b")


def folded_lines(tree: CallTree, names: list[str], clock: str, root: str | None) -> Iterator[str]:
    """`path value` for every node of `tree` with self time on `clock`, in pre-order; frames
    deeper than `MAX_DEPTH` are summed into one `[deeper frames]` line per path, after the
    others. Only the current node's frames are held (a stack of references to `names`), and
    a path is joined only for a line written: memory is one line, not every path at once (a
    long name repeated on each line of its subtree is the format's size, not ours)."""
    rows, deep = fold_deep(tree)
    parent = tree.parent.tolist()
    method = tree.method.tolist()
    depth = tree.depth.tolist()
    excl = tree.excl[clock]
    emit = (excl > 0).tolist()
    values = excl.tolist()
    prefix = frame_text(root) + ";" if root is not None else ""
    frames: list[str] = []
    for i in rows.tolist():
        del frames[depth[i] :]
        frames.append(names[method[i]])
        if emit[i]:
            yield f"{prefix}{';'.join(frames)} {values[i]}\n"
    for top, value in zip(deep.top.tolist(), deep.excl[clock].tolist(), strict=True):
        if value > 0:
            path: list[str] = [DEEPER]
            while top >= 0:  # a few such lines, each as long as its path: walk up once
                path.append(names[method[top]])
                top = parent[top]
            yield f"{prefix}{';'.join(reversed(path))} {value}\n"


CHUNK = 1 << 20  # characters written at a time: lines are joined up to this, never more


def export(view: View, out: IO[Any], options: Options) -> None:
    """One line per call path with self time, thread by thread (or merged), written in
    chunks of about `CHUNK` characters (a line longer than that alone)."""
    names = [frame_text(n) for n in frame_names(view)]
    clock = view.query.clock
    for part in forest(view, options.merge_threads):
        buf: list[str] = []
        size = 0
        for line in folded_lines(part.tree, names, clock, part.label):
            buf.append(line)
            size += len(line)
            if size >= CHUNK:
                out.write("".join(buf))
                buf.clear()
                size = 0
        out.write("".join(buf))


__all__ = ["Options", "export", "folded_lines", "frame_text"]
