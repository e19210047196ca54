"""The engine: a loaded `Trace` -> call table -> statistics, merged trees, layouts (pure
functions, no I/O), served to every front end by one `Session` per trace and a `Query` (which
`Session.resolve` makes from what a user asked, an `Ask`).
Semantics and policies: docs/engine.md; shape: docs/architecture.md.

The submodules are imported by name (`traceview.analysis.profile` stays the module).
"""

from __future__ import annotations

from traceview.analysis.ask import Ask, Resolved
from traceview.analysis.calls import CallTable, build_calls
from traceview.analysis.calltree import CallTree
from traceview.analysis.layout.flame import FlameLayout
from traceview.analysis.profile import Profile
from traceview.analysis.query import Clock, Query, Rename, TimeRange
from traceview.analysis.session import Session
from traceview.analysis.threads import ThreadPick, UnknownThread
from traceview.analysis.view import View

__all__ = [
    "Ask",
    "CallTable",
    "CallTree",
    "Clock",
    "FlameLayout",
    "Profile",
    "Query",
    "Rename",
    "Resolved",
    "Session",
    "ThreadPick",
    "TimeRange",
    "UnknownThread",
    "View",
    "build_calls",
]
