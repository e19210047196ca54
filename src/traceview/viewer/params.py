"""The viewer's URL parameters (docs/web-api.md) turned into a checked `Query`.

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

from traceview.analysis.query import Query, Rename, duration_ns
from traceview.analysis.session import Session

SELECTION = ("clock", "threads", "thread", "t0", "t1", "from", "to", "mycode")
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


def query(session: Session, p: Mapping[str, str], rename: Rename | None = None) -> Query:
    """The selection of a request (ValueError on a bad value); `rename` is the app's
    (a `--mapping` given to `traceview view`), not a request parameter."""
    threads: set[int] | None = None
    if p.get("threads"):
        threads = {int(x) for x in p["threads"].split(",") if x.strip()}
    if p.get("thread"):
        picked = session.pick_threads([s for s in p["thread"].split(",") if s.strip()]).rows
        threads = (threads or set()) | set(picked)
    t0 = duration_ns(p["from"]) if p.get("from") else _us_to_ns(p.get("t0"))
    t1 = duration_ns(p["to"]) if p.get("to") else _us_to_ns(p.get("t1"))
    return session.query(
        threads=threads,
        clock=p.get("clock") or None,
        time_range=session.time_range(t0, t1),
        my_code=p.get("mycode"),
        rename=rename,
    )


def _us_to_ns(value: str | None) -> int | None:
    if not value:
        return None
    us = float(value)
    if not math.isfinite(us) or abs(us) > 1e15:
        raise ValueError(f"bad time {value!r}")
    return round(us * 1000)
