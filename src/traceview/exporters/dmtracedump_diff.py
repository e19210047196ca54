"""The `dmtracedump-diff` format, dmtracedump's two-trace comparison (`-d`) as text: the
matched methods by exclusive and by inclusive difference, then the methods found in one run
only (`analysis/dmtracedump/diff.py` computes; this module prints; `dmtracedump_diff_html`
writes the same as a page).

Its subject is a `Pair` of views (Run 1 = the `-d` trace, Run 2 = the other). The rows print
as dmtracedump prints them (three lines per matched method; names HTML-escaped even in text;
a negative difference as its unsigned 64-bit value).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from traceview.analysis.dmtracedump.diff import LegacyDiff, legacy_diff
from traceview.analysis.dmtracedump.numbers import LegacyProfile
from traceview.exporters import Pair
from traceview.exporters.dmtracedump import Policy, compute
from traceview.model import terminal_bytes

NAME = "dmtracedump-diff"
SUFFIXES: tuple[str, ...] = ()
BINARY = True
SUBJECT = "pair"


@dataclass(frozen=True)
class Options:
    """`policy`: unbalanced stacks as dmtracedump handles them or as traceview does."""

    policy: Policy = "dmtracedump"


@dataclass(frozen=True)
class Compared:
    """Both runs' dmtracedump numbers and their matching (`legacy_diff`)."""

    lp1: LegacyProfile
    lp2: LegacyProfile
    diff: LegacyDiff


def compare(pair: Pair, policy: str) -> Compared:
    """Run 1's and Run 2's numbers under `policy`, matched method by method."""
    lp1, order1 = compute(pair.run1, policy)
    lp2, order2 = compute(pair.run2, policy)
    return Compared(lp1, lp2, legacy_diff(lp1, order1, lp2, order2))


def _text_name(lp: LegacyProfile, e: int) -> bytes:
    """`class.method` with dmtracedump's escaping of <, >, & (a pseudo-method's missing
    name prints as glibc prints a null string), control characters escaped when present."""

    def esc(b: bytes) -> bytes:
        return (
            terminal_bytes(b).replace(b"&", b"&amp;").replace(b"<", b"&lt;").replace(b">", b"&gt;")
        )

    name = lp.name[e]
    return esc(lp.class_name[e]) + b"." + (esc(name) if name is not None else b"(null)")


def export(pair: Pair, out: IO[bytes], options: Options) -> None:
    """Write the comparison of Run 1 (the `-d` trace) with Run 2 as dmtracedump's text."""
    c = compare(pair, options.policy)
    lp1, lp2, diff = c.lp1, c.lp2, c.diff
    for rows, incl in ((diff.by_excl, False), (diff.by_incl, True)):
        for m in rows:
            v1 = int((lp1.incl if incl else lp1.excl)[m.run1])
            v2 = int((lp2.incl if incl else lp2.excl)[m.run2])
            d, pct = (m.diff_incl, m.pct_incl) if incl else (m.diff_excl, m.pct_excl)
            out.write(
                b"%s %d %d %d %.2f\n%d\n%d\n"
                % (
                    _text_name(lp1, m.run1),
                    v1,
                    v2,
                    d % (1 << 64),
                    pct,
                    int(lp1.calls[m.run1]),
                    int(lp2.calls[m.run2]),
                )
            )
    for lp, only in ((lp1, diff.only1), (lp2, diff.only2)):
        for e in only:
            out.write(
                b"%s %d %d %d\n"
                % (_text_name(lp, e), int(lp.excl[e]), int(lp.incl[e]), int(lp.calls[e]))
            )
