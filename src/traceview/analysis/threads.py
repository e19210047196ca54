"""What `--thread NAME|ID` (and the service's and Python API's thread choices) select.

One rule for every front end: an id always selects its thread; a name selects every thread of
that name and says so when there are several; anything else is an `UnknownThread` error that
lists the closest names.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from traceview.model import ThreadTable


class UnknownThread(ValueError):
    """A thread name or id that matches no thread of the trace (the message lists close ones)."""


@dataclass(frozen=True)
class ThreadPick:
    """The thread rows selected (sorted, distinct) and one note per name that matched several."""

    rows: tuple[int, ...]
    notes: tuple[str, ...]


def pick_threads(threads: ThreadTable, specs: Sequence[str]) -> ThreadPick:
    """Rows for `specs`: a decimal number is an id first (then a name spelled that way); a
    name selects every thread that has it."""
    rows: set[int] = set()
    notes: list[str] = []
    names = threads.name
    for spec in specs:
        text = spec.strip()
        hits = [i for i, n in enumerate(names) if n == text]
        if _is_id(text):
            by_id = [int(i) for i in (threads.id == int(text)).nonzero()[0]]
            hits = by_id or hits
        if not hits:
            raise UnknownThread(_unknown(text, threads))
        if len(hits) > 1:
            ids = ", ".join(str(int(threads.id[i])) for i in hits)
            notes.append(f"{text!r} names {len(hits)} threads (ids {ids}): all selected")
        rows.update(hits)
    return ThreadPick(tuple(sorted(rows)), tuple(notes))


def _is_id(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= 20


def _unknown(spec: str, threads: ThreadTable) -> str:
    labels = sorted({threads.label(i) for i in range(len(threads))})
    close = difflib.get_close_matches(spec, labels, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    return f"no thread named or numbered {spec!r}{hint}"
