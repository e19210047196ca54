"""`Ask`: what a user asked for, in their own words, before anything is checked against a trace —
and `Resolved`, the `Query` those words select plus the notes a user should read.

Every front end only fills an `Ask`: the CLI from its arguments (`cli/options.py`), the viewer
from URL parameters (`viewer/params.py`), the Python API from keywords (`api/`). One session
method, `Session.resolve(ask)`, holds the rules that turn the words into a `Query` (which
threads a name selects, the main thread by default, a range from the trace's start on the range
clock, "my code" prefixes), so the same words give the same query everywhere. The one parser of
durations (`1.5s`, `300ms`) lives here too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from traceview.analysis.query import Query, Rename

Time = str | int | None  # a point from the trace's start: "1.5s", "300ms", or int ns

_UNITS = {"ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
_DURATION = re.compile(r"^\s*([0-9]{1,15}(?:\.[0-9]{1,9})?)\s*(ns|us|µs|ms|s)\s*$")


@dataclass(frozen=True)
class Ask:
    """A selection as the user wrote it. `threads`: names or ids (a shared name selects every
    thread of that name); `rows`: thread rows (what the viewer drew), added to them; `main`:
    with no thread named, the main thread instead of every thread; `clock`: "cpu" or "wall",
    None for the trace's default; `start`/`end`: from the trace's start on the timeline clock
    (`Time`), None for the trace's ends; `my_code`: package prefixes (`com.a`, `org/b/`, or
    several joined by commas); `rename`: the renaming of a mapping the front end has read;
    `time`: "trace" or "monotonic", the time base of the times shown and of `start`/`end`
    (with "monotonic" they are points on CLOCK_MONOTONIC, e.g. `86400.5s`; None: the query
    narrowed's, else "trace")."""

    threads: tuple[str, ...] = ()
    rows: tuple[int, ...] = ()
    main: bool = False
    clock: str | None = None
    start: Time = None
    end: Time = None
    my_code: tuple[str, ...] = ()
    rename: Rename | None = None
    time: str | None = None


@dataclass(frozen=True)
class Resolved:
    """The checked `Query` of an `Ask` and the notes on it (one per thread name that selected
    several threads); each front end shows the notes its own way."""

    query: Query
    notes: tuple[str, ...] = ()


def duration_ns(text: str) -> int:
    """`1.5s`, `300ms`, `20us`, `800ns` -> ns (a unit is required, except for 0); ValueError
    otherwise. The one parser of durations: `--from`/`--to`, URL `from`/`to`, the Python API."""
    if text.strip() == "0":
        return 0
    m = _DURATION.match(text)
    if m is None:
        raise ValueError(
            f"bad duration {text!r}: a number with a unit (s, ms, us, ns), e.g. 1.5s or 300ms"
        )
    whole, _, frac = m.group(1).partition(".")
    unit = _UNITS[m.group(2)]
    return (
        int(whole) * unit + int(frac.ljust(9, "0")) * unit // 10**9 if frac else int(whole) * unit
    )


def offset_ns(value: Time, what: str) -> int | None:
    """A `Time` as ns from the trace's start (None stays None); TypeError for anything but a
    duration text or an int (`what` names the end in the message)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TypeError(f"range {what}: a duration like '1.5s' or int ns, not {value!r}")
    return duration_ns(value) if isinstance(value, str) else int(value)
