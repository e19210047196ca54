"""The viewer's URL parameters (docs/web-api.md) written as the user's words (`Ask`), which
`Session.resolve` turns into a checked `Query` as it does every front end's.

Only known parameters count: they are normalised (threads sorted, empty values dropped) into
the request's cache key, so junk parameters can neither grow the answer cache nor change an
answer. The selection is the CLI's (`--thread`, `--clock`, `--from`/`--to`, `--my-code`), in
the UI's spelling (`threads=` thread rows, `t0`/`t1` µs from the start on the timeline clock)
or the CLI's (`thread=NAME|ID,...` through the same rule as `--thread`, `from`/`to` with units
such as `1.5s`), so a selection can be written into a URL by hand.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from traceview.analysis.ask import Ask, Time
from traceview.analysis.query import Query, Rename
from traceview.analysis.session import Session

SELECTION = ("clock", "threads", "thread", "t0", "t1", "from", "to", "mycode")
WINDOW = ("x0", "x1", "px")  # a flame graph's zoomed window (µs on its axis) and its width
MAX_VALUE = 4096  # characters of one parameter value


def known(params: Mapping[str, str], names: tuple[str, ...]) -> dict[str, str]:
    """The parameters among `names`, non-empty, bounded, threads normalised."""
    out: dict[str, str] = {}
    for name in names:
        value = params.get(name, "")
        if not value:
            continue
        if len(value) > MAX_VALUE:
            raise ValueError(f"parameter {name} is too long")
        if name == "threads":
            rows = sorted({int(x) for x in value.split(",") if x.strip()})
            value = ",".join(str(r) for r in rows)
        out[name] = value
    return out


def ask(p: Mapping[str, str], rename: Rename | None = None) -> Ask:
    """The selection of a request's known parameters as words (ValueError on a bad number);
    `rename` is the app's (a `--mapping` given to `traceview view`), not a request parameter."""
    return Ask(
        threads=tuple(s for s in p.get("thread", "").split(",") if s.strip()),
        rows=tuple(int(x) for x in p.get("threads", "").split(",") if x.strip()),
        clock=p.get("clock") or None,
        start=_time(p.get("from"), p.get("t0")),
        end=_time(p.get("to"), p.get("t1")),
        my_code=(p["mycode"],) if p.get("mycode") else (),
        rename=rename,
    )


def query(session: Session, p: Mapping[str, str], rename: Rename | None = None) -> Query:
    """The checked selection of a request (ValueError on a bad value; the viewer shows no
    notes: it lists the threads selected)."""
    return session.resolve(ask(p, rename)).query


def _time(words: str | None, us: str | None) -> Time:
    """A range end: `from`/`to` words as written (`1.5s`), else `t0`/`t1` µs as int ns."""
    if words:
        return words
    if not us:
        return None
    value = float(us)
    if not math.isfinite(value) or abs(value) > 1e15:
        raise ValueError(f"bad time {us!r}")
    return round(value * 1000)


def window(p: Mapping[str, str]) -> tuple[float | None, float | None, int]:
    """A flame request's window: `x0`/`x1` µs (None: the graph's edge) and `px` (default 2000)."""
    ends: list[float | None] = []
    for name in ("x0", "x1"):
        value = float(p[name]) if p.get(name) else None
        if value is not None and (not math.isfinite(value) or abs(value) > 1e15):
            raise ValueError(f"bad {name} {p[name]!r}")
        ends.append(value)
    return ends[0], ends[1], int(p.get("px") or 2000)
