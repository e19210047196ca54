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
    """`path value` for every node of `tree` with self time on `clock`, in pre-order. A node's
    path is its parent's path plus its frame, built once per merged node (never per call);
    frames deeper than `MAX_DEPTH` are summed into one `[deeper frames]` line per path."""
    rows, deep = fold_deep(tree)
    parent = tree.parent.tolist()
    method = tree.method.tolist()
    excl = tree.excl[clock]
    emit = (excl > 0).tolist()
    values = excl.tolist()
    paths: list[str] = [""] * len(parent)
    prefix = frame_text(root) + ";" if root is not None else ""
    for i in rows.tolist():
        p = parent[i]
        path = (paths[p] + ";" if p >= 0 else prefix) + names[method[i]]
        paths[i] = path
        if emit[i]:
            yield f"{path} {values[i]}\n"
    for top, value in zip(deep.top.tolist(), deep.excl[clock].tolist(), strict=True):
        if value > 0:
            yield f"{paths[top]};{DEEPER} {value}\n"


def export(view: View, out: IO[Any], options: Options) -> None:
    """One line per call path with self time, thread by thread (or merged)."""
    names = [frame_text(n) for n in frame_names(view)]
    clock = view.query.clock
    for part in forest(view, options.merge_threads):
        lines = folded_lines(part.tree, names, clock, part.label)
        while True:
            chunk = "".join(line for _, line in zip(range(65536), lines, strict=False))
            if not chunk:
                break
            out.write(chunk)


__all__ = ["Options", "export", "folded_lines", "frame_text"]
