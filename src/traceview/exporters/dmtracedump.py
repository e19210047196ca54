"""The `dmtracedump` format, its report (format.md d.3): the exclusive profile, the inclusive
profile with parents, children and the recursion groups, the class profile and the
method-name profile, line for line as Debian's `dmtracedump` prints them;
`exporters.dmtracedump_html` writes the same report with its HTML markup.

Numbers and orders come from `analysis/dmtracedump` (`numbers`, `order`); this module only
prints. The text form writes names as the trace's bytes, as dmtracedump does, unless a
name holds a control character (`model.terminal_bytes`: then it is escaped as the other
commands escape it); the HTML form shows them with `model.visible`, control characters
escaped too, and escapes them for HTML.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from typing import IO, Any, Literal

from traceview.analysis.dmtracedump.numbers import LegacyProfile, legacy_profile
from traceview.analysis.dmtracedump.order import LegacyOrder, Relatives, legacy_order
from traceview.analysis.view import View
from traceview.model import terminal_bytes, terminal_text, visible

NAME = "dmtracedump"
SUFFIXES = (".dmtrace.txt",)
BINARY = True
SUBJECT = "view"

Policy = Literal["dmtracedump", "traceview"]
SEPARATOR = b"=" * 70
DASHES = b"-" * 52
CLASS_DASHES = b"-" * 45
PLUSES = b"               " + b"+" * 25 + b"\n"

Escape = Callable[[bytes], bytes]
Label = Callable[[int], bytes]


@dataclass(frozen=True)
class Options:
    """`policy`: unbalanced stacks handled as dmtracedump does (`dmtracedump`) or as the engine
    does (`traceview`, docs/engine.md)."""

    policy: Policy = "dmtracedump"


def compute(view: View, policy: str) -> tuple[LegacyProfile, LegacyOrder]:
    """The dmtracedump numbers of the view under a stack `policy`."""
    lp = legacy_profile(view.session, view.query, policy)
    return lp, legacy_order(lp)


def ratio(num: float, den: float) -> float:
    """`100.0 * num / den` as C computes it (a zero denominator gives inf or NaN)."""
    if den == 0:
        return float("inf") if num > 0 else float("nan")
    return 100.0 * num / den


def fixed(value: float, width: int, prec: int) -> bytes:
    """printf's `%W.Pf`, with glibc's spelling of a NaN from 0/0 (`-nan`)."""
    if value != value:
        return b"-nan".rjust(width)
    if value == float("inf"):
        return b"inf".rjust(width)
    return b"%*.*f" % (width, prec, value)


class Report:
    """Writes the four sections; `html` adds dmtracedump's anchors and markup."""

    def __init__(self, lp: LegacyProfile, order: LegacyOrder, out: IO[bytes], html: bool):
        self.lp, self.order, self.out, self.html = lp, order, out, html
        self.esc: Escape = _once(_html_escape if html else terminal_bytes)
        self.n_all = (lp.calls + lp.recursive).tolist()  # once: per row block it was quadratic
        self.names: dict[int, bytes] = {}  # each entry's label escaped once, not once a line

    def write(self) -> None:
        """All four sections."""
        self.exclusive()
        self.inclusive()
        self.classes()
        self.methods()

    def name(self, e: int) -> bytes:
        label = self.names.get(e)
        if label is None:
            lp, esc = self.lp, self.esc
            method = lp.name[e]
            label = esc(lp.class_name[e])
            if method is not None:
                label += b"." + esc(method) + b" " + esc(lp.signature[e])
            self.names[e] = label
        return label

    def section(self, anchor: bytes) -> None:
        if self.html:
            self.out.write(b'<a name="%s"></a>\n<hr>\n' % anchor + NAV)
        else:
            self.out.write(b"\n" + SEPARATOR + b"\n")

    def exclusive(self) -> None:
        lp, out, index = self.lp, self.out, self.order.index
        self.section(b"exclusive")
        out.write(b"Total cycles: %d\n\n" % lp.total)
        if self.html:
            out.write(b"<br><br>\n")
        out.write(b"Exclusive elapsed times for each method, not including time spent in\n")
        out.write(b"children, sorted by exclusive time.\n\n")
        if self.html:
            out.write(b"<br><br>\n<pre>\n")
        out.write(b"    Usecs  self %  sum %  Method\n")
        total = float(lp.total)
        acc = 0.0
        excl = lp.excl.tolist()
        for e in self.order.by_excl:
            if excl[e] == 0:
                break
            acc += excl[e]
            link, close = (b'<a href="#m%d">' % index[e], b"</a>") if self.html else (b"", b"")
            out.write(
                b"%9d  %s %s  %s[%d]%s %s\n"
                % (
                    excl[e],
                    fixed(ratio(excl[e], total), 6, 2),
                    fixed(ratio(acc, total), 6, 2),
                    link,
                    index[e],
                    close,
                    self.name(e),
                )
            )
        if self.html:
            out.write(b"</pre>\n")

    def relatives(self, side: Relatives, e: int, rec: bool, method_total: int, calls: int) -> None:
        """The parent or child rows of entry `e` on side `rec` (no percentage when `rec`)."""
        out, index, n_all = self.out, self.order.index, self.n_all
        entries, times, counts = side.entry, side.time, side.calls
        for i in side.rows(e, rec):
            entry, time = entries[i], times[i]
            if self.html:
                tag = b"[%d]" % index[entry]
                pad = b" " * (6 - min(len(tag), 6))
                ref = pad + b'<a href="#m%d">[%d]</a>' % (index[entry], index[entry])
            else:
                ref = b"%6s" % (b"[%d]" % index[entry])
            n = calls or n_all[entry]
            pct = b"%6s" % b"" if rec else fixed(ratio(time, method_total), 5, 1) + b"%"
            out.write(
                b"%6s %5s   %s %s %6d/%-6d %9d %s\n"
                % (b"", b"", pct, ref, counts[i], n, time, self.name(entry))
            )

    def inclusive(self) -> None:
        lp, out, order = self.lp, self.out, self.order
        self.section(b"inclusive")
        out.write(b"\nInclusive elapsed times for each method and its parents and children,\n")
        out.write(b"sorted by inclusive time.\n\n")
        if self.html:
            out.write(b"<br><br>\n<pre>\n")
        out.write(b"index  %/total %/self  index     calls         usecs name\n")
        total = float(lp.total)
        incl, top = lp.incl.tolist(), lp.top.tolist()
        calls, rec = lp.calls.tolist(), lp.recursive.tolist()
        for ii, e in enumerate(order.by_incl):
            if incl[e] == 0:
                break
            if self.html:
                out.write(b'<a name="m%d"></a>' % order.index[e])
            out.write(DASHES + b"\n")
            n = calls[e] + rec[e]
            self.relatives(order.parents, e, False, incl[e], n)
            if order.parents.rows(e, True):
                out.write(PLUSES)
                self.relatives(order.parents, e, True, incl[e], n)
            out.write(
                b"%-6s %s%%   %5s %6s %6d+%-6d %9d %s\n"
                % (
                    b"[%d]" % ii,
                    fixed(ratio(incl[e], total), 5, 1),
                    b"",
                    b"",
                    calls[e],
                    rec[e],
                    incl[e],
                    self.name(e),
                )
            )
            out.write(
                b"%6s %5s   %s%% %6s %6s %6s %9d\n"
                % (b"", b"", fixed(ratio(top[e], incl[e]), 5, 1), b"excl", b"", b"", top[e])
            )
            self.relatives(order.children, e, False, incl[e], 0)
            if order.children.rows(e, True):
                out.write(PLUSES)
                self.relatives(order.children, e, True, incl[e], 0)
        if self.html:
            out.write(b"</pre>\n")

    def classes(self) -> None:
        lp, out, esc = self.lp, self.out, self.esc
        self.section(b"class")
        if not self.order.classes:
            out.write(b"\nNo classes.\n")
            if self.html:
                out.write(b"<br><br>\n")
            return
        out.write(b"\nExclusive elapsed time for each class, summed over all the methods\n")
        out.write(b"in the class.\n\n")
        if self.html:
            out.write(b"<br><br>\n")
        self.groups(self.order.classes, b"Class", b"d", lambda e: esc(lp.name[e] or b""))

    def methods(self) -> None:
        lp, out, esc = self.lp, self.out, self.esc
        if not self.order.names:
            return
        self.section(b"method")
        out.write(b"\nExclusive elapsed time for each method, summed over all the classes\n")
        out.write(b"that contain a method with the same name.\n\n")
        if self.html:
            out.write(b"<br><br>\n")
        self.groups(
            self.order.names,
            b"Method",
            b"e",
            lambda e: esc(lp.class_name[e]) + b"." + esc(lp.name[e] or b""),
        )

    def groups(self, groups: list[Any], what: bytes, prefix: bytes, label: Label) -> None:
        lp, out, esc, index = self.lp, self.out, self.esc, self.order.index
        if self.html:
            out.write(
                b'<div class="header"><span class="parent">&nbsp;</span>&nbsp;&nbsp;&nbsp;'
                b"Cycles %%/total Cumul.%% &nbsp;Calls+Recur&nbsp; %s</div>\n" % what
            )
        else:
            out.write(b"   Cycles %%/total Cumul.%%  Calls+Recur  %s\n" % what)
        excl, incl = lp.excl.tolist(), lp.incl.tolist()
        calls, rec = lp.calls.tolist(), lp.recursive.tolist()
        total = float(lp.total)
        acc = 0.0
        for gi, g in enumerate(groups):
            if g.excl == 0:
                break
            acc += g.excl
            per, cum = ratio(g.excl, total), ratio(acc, total)
            if self.html:
                out.write(
                    b'<div class="link" onClick="javascript:toggle(\'%s%d\')" '
                    b'onMouseOver="javascript:onMouseOver(this)" '
                    b'onMouseOut="javascript:onMouseOut(this)"><span class="parent" '
                    b'id="x%s%d">+</span>' % (prefix, gi, prefix, gi)
                )
                out.write(
                    _field(b"%d" % g.excl, 9)
                    + b" "
                    + _field(fixed(per, 0, 1), 7)
                    + b" "
                    + _field(fixed(cum, 0, 1), 7)
                    + b" "
                    + _field(b"%d" % g.calls, 6)
                    + b"+"
                    + _field(b"%d" % g.recursive, -6)
                    + b" "
                    + esc(g.title)
                    + b"</div>\n"
                )
                out.write(b'<div class="parent" id="%s%d">\n' % (prefix, gi))
            else:
                out.write(CLASS_DASHES + b"\n")
                out.write(
                    b"%9d %s %s %6d+%-6d %s\n"
                    % (
                        g.excl,
                        fixed(per, 7, 1),
                        fixed(cum, 7, 1),
                        g.calls,
                        g.recursive,
                        esc(g.title),
                    )
                )
            inner = 0.0
            for e in g.entries:
                inner += excl[e]
                p, c = ratio(excl[e], float(g.excl)), ratio(inner, float(g.excl))
                sig = esc(lp.signature[e])
                if self.html:
                    out.write(
                        b'<div class="leaf"><span class="leaf">&nbsp;</span>'
                        + _field(b"%d" % excl[e], 9)
                        + b"&nbsp;"
                        + _field(b"%d" % incl[e], 9)
                        + b"&nbsp;"
                        + _field(fixed(p, 0, 1), 7)
                        + b"&nbsp;"
                        + _field(fixed(c, 0, 1), 7)
                        + b"&nbsp;"
                        + _field(b"%d" % calls[e], 6)
                        + b"+"
                        + _field(b"%d" % rec[e], -6)
                        + b"&nbsp;"
                        + b'<a href="#m%d">[%d]</a>&nbsp;%s&nbsp;%s</div>\n'
                        % (index[e], index[e], label(e), sig)
                    )
                else:
                    out.write(
                        b"%9d %9d %s %s %6d+%-6d [%d] %s %s\n"
                        % (
                            excl[e],
                            incl[e],
                            fixed(p, 7, 1),
                            fixed(c, 7, 1),
                            calls[e],
                            rec[e],
                            index[e],
                            label(e),
                            sig,
                        )
                    )
            if self.html:
                out.write(b"</div>\n")


NAV = (
    b'<a href="#contents">[Top]</a>\n'
    b'<a href="#exclusive">[Exclusive]</a>\n'
    b'<a href="#inclusive">[Inclusive]</a>\n'
    b'<a href="#class">[Class]</a>\n'
    b'<a href="#method">[Method]</a>\n'
    b"<br><br>\n"
)


def _once(esc: Escape) -> Escape:
    """`esc` remembering its answers: a class, name or signature is printed on many lines."""
    seen: dict[bytes, bytes] = {}

    def escaped(text: bytes) -> bytes:
        done = seen.get(text)
        if done is None:
            done = seen[text] = esc(text)
        return done

    return escaped


def _field(text: bytes, width: int) -> bytes:
    """dmtracedump's printHtmlField: pad to |width| with `&nbsp;` (left when width > 0)."""
    pad = b"&nbsp;" * max(0, abs(width) - len(text))
    return pad + text if width > 0 else text + pad


def _html_escape(text: bytes) -> bytes:
    """A name for HTML: undecodable bytes shown as \\xNN (`model.visible`), control characters
    too (`model.terminal_text`, tabs kept), then escaped (dmtracedump escapes only <, >, &; quotes
    too here, so a name never ends an attribute)."""
    shown = visible(terminal_text(text.decode("utf-8", "surrogateescape")))
    return escape(shown, quote=True).encode("utf-8")


def export(view: View, out: IO[bytes], options: Options) -> None:
    """dmtracedump's text report of the view."""
    lp, order = compute(view, options.policy)
    Report(lp, order, out, html=False).write()


__all__ = ["Options", "Report", "compute", "export", "fixed", "ratio"]
