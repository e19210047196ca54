"""The `traces` table: one row per trace — who it is (`Origin`: the SHA-256 of its bytes, its
file's name, size and date, the labels it was added with) and what its header and the engine
say about it (variant, clocks, sampled, overflow, pid, start, duration, records, calls).

The front end that holds the bytes makes the `Origin` (`traceview export`, `dataset add`, the
Spark ingest, the service); this module only lays it out. Labels `app`, `build`, `branch`
and `device` are columns (`app` and `build` default to `unknown`, the others to null);
any other label goes into `labels`, a JSON object with sorted keys ("{}" without one), so
every column stays a plain string (docs/dataset.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from traceview.analysis.view import View
from traceview.api.schema import LAYOUT
from traceview.api.table import Column, Table

DEFAULT = "unknown"  # app and build when not given
KNOWN = ("app", "build", "branch", "device")  # the labels with a column of their own


@dataclass(frozen=True)
class Origin:
    """Where a trace came from: `trace_id` (hex SHA-256 of its bytes; None when unknown),
    `name` (its file's
    name, no folders), `size` (bytes), `date` (yyyy-mm-dd) and `labels` (name, value) pairs,
    sorted by name."""

    trace_id: str | None
    name: str = ""
    size: int | None = None
    date: str = "1970-01-01"
    labels: tuple[tuple[str, str], ...] = field(default=())

    def label(self, name: str) -> str | None:
        """The value of label `name`, None when not given."""
        return dict(self.labels).get(name)

    @property
    def app(self) -> str:
        """The app label (a partition of the dataset)."""
        return self.label("app") or DEFAULT

    @property
    def build(self) -> str:
        """The build label (a partition of the dataset)."""
        return self.label("build") or DEFAULT

    def others(self) -> str:
        """The labels without a column, as a JSON object with sorted keys."""
        rest: Mapping[str, str] = {k: v for k, v in self.labels if k not in KNOWN}
        return json.dumps(dict(sorted(rest.items())), ensure_ascii=False, separators=(",", ":"))


def traces_table(view: View, origin: Origin) -> Table:
    """The one row of the trace of `view` (always the whole trace's facts, whatever the
    selection)."""
    session = view.session
    header = view.trace.header
    timed = header.axis == "time"
    start = header.start_time_us * 1000 if header.start_time_us is not None else None
    cols: dict[str, Column] = {
        "trace_id": _text(origin.trace_id),
        "name": _text(origin.name),
        "app": _text(origin.app),
        "build": _text(origin.build),
        "date": _text(origin.date),
        "branch": _text(origin.label("branch")),
        "device": _text(origin.label("device")),
        "labels": _text(origin.others()),
        "variant": _text(str(header.variant)),
        "version": np.array([header.version], dtype=np.int32),
        "clocks": _text(",".join(session.clocks)),
        "clock": _text(session.default_clock),
        "sampled": np.array([bool(header.sampled)]),
        "overflow": np.array([bool(header.overflow)]),
        "pid": None if header.pid is None else np.array([header.pid], dtype=np.int64),
        "start_ns": None if start is None else np.array([start], dtype=np.int64),
        "duration_ns": (
            np.array([session.end - session.origin], dtype=np.int64) if timed else None
        ),
        "records": np.array([len(view.trace.events)], dtype=np.int64),
        "calls": np.array([len(session.calls)], dtype=np.int64),
        "size": None if origin.size is None else np.array([origin.size], dtype=np.int64),
        "layout": np.array([LAYOUT], dtype=np.int32),
    }
    return Table(cols, 1)


def _text(value: str | None) -> Column:
    out = np.empty(1, dtype=object)
    out[0] = value
    return out


__all__ = ["DEFAULT", "KNOWN", "Origin", "traces_table"]
