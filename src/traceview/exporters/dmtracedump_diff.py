"""dmtracedump's two-trace comparison (`-d`) as text or HTML: the matched methods by
exclusive and by inclusive difference, then the methods found in one run only
(`analysis.legacy_diff` computes; this module prints).

It takes two views (Run 1 = the `-d` trace, Run 2 = the other), so it is called directly
rather than through the one-view registry. The text form prints dmtracedump's rows as it
does (three lines per matched method; names HTML-escaped even in text; a negative
difference as its unsigned 64-bit value).
"""

from __future__ import annotations

from html import escape
from typing import IO

from traceview.analysis.compat import LegacyProfile
from traceview.analysis.legacy_diff import LegacyDiff, legacy_diff
from traceview.analysis.view import View
from traceview.exporters import Options
from traceview.exporters.dmtracedump import compute
from traceview.exporters.dmtracedump_html import head
from traceview.model import terminal_bytes, terminal_text, visible

TABLE = (
    "<table class='sortable' id='%s'><tr>\n<th>Method</th>\n<th>Run 1 (us)</th>\n"
    "<th>Run 2 (us)</th>\n<th>Diff (us)</th>\n<th>Diff (%%)</th>\n<th>1: # calls</th>\n"
    "<th>2: # calls</th>\n</tr>\n"
)
MISSING = (
    "<table class='sortable' id='%s'><tr>\n<th>Method</th>\n<th>Exclusive</th>\n"
    "<th>Inclusive</th>\n<th># calls</th>\n</tr>\n"
)


def _text_name(lp: LegacyProfile, e: int) -> bytes:
    """`class.method` with dmtracedump's escaping of <, >, & (a pseudo-method's missing
    name prints as glibc prints a null string), control characters escaped when present."""

    def esc(b: bytes) -> bytes:
        return (
            terminal_bytes(b).replace(b"&", b"&amp;").replace(b"<", b"&lt;").replace(b">", b"&gt;")
        )

    name = lp.name[e]
    return esc(lp.class_name[e]) + b"." + (esc(name) if name is not None else b"(null)")


def _html_name(lp: LegacyProfile, e: int) -> str:
    name = lp.name[e]
    cls = visible(terminal_text(lp.class_name[e].decode("utf-8", "surrogateescape")))
    meth = "(null)"
    if name is not None:
        meth = visible(terminal_text(name.decode("utf-8", "surrogateescape")))
    return escape(f"{cls}.{meth}", quote=True)


def export_diff(
    run1: View, run2: View, out: IO[bytes], options: Options, html: bool = False
) -> None:
    """Write the comparison of `run1` (the `-d` trace) with `run2`."""
    lp1, order1 = compute(run1, options)
    lp2, order2 = compute(run2, options)
    diff = legacy_diff(lp1, order1, lp2, order2)
    if html:
        _html(run1, run2, lp1, lp2, diff, out, options)
    else:
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


def _html(
    run1: View,
    run2: View,
    lp1: LegacyProfile,
    lp2: LegacyProfile,
    diff: LegacyDiff,
    out: IO[bytes],
    options: Options,
) -> None:
    parts = [head(options).decode("utf-8")]
    src1 = escape(visible(run1.trace.source or "run 1"))
    src2 = escape(visible(run2.trace.source or "run 2"))
    parts.append(
        "<h3>Table of Contents</h3>\n<ul>\n<li><a href='#exclusive'>Exclusive</a>\n"
        "<li><a href='#inclusive'>Inclusive</a>\n</ul>\n"
        f"Run 1: {src1}<br>\nRun 2: {src2}<br>\n"
    )
    for anchor, title, rows, incl in (
        ("exclusive", "Exclusive", diff.by_excl, False),
        ("inclusive", "Inclusive", diff.by_incl, True),
    ):
        parts.append(f'<a name="{anchor}"></a><h3 id="{anchor}">{title}</h3>\n')
        parts.append(TABLE % f"{anchor}_table")
        for m in rows:
            v1 = int((lp1.incl if incl else lp1.excl)[m.run1])
            v2 = int((lp2.incl if incl else lp2.excl)[m.run2])
            d, pct = (m.diff_incl, m.pct_incl) if incl else (m.diff_excl, m.pct_excl)
            parts.append(
                f"<tr><td>{_html_name(lp1, m.run1)}</td><td>{v1}</td><td>{v2}</td>"
                f"<td>{d}</td><td>{pct:.2f}</td><td>{int(lp1.calls[m.run1])}</td>"
                f"<td>{int(lp2.calls[m.run2])}</td></tr>\n"
            )
        parts.append("</table>\n")
    for title, table, lp, only in (
        ("Run 1 methods not found in Run 2", "only_run1", lp1, diff.only1),
        ("Run 2 methods not found in Run 1", "only_run2", lp2, diff.only2),
    ):
        parts.append(f"<h3>{title}</h3>\n" + MISSING % table)
        for e in only:
            parts.append(
                f"<tr><td>{_html_name(lp, e)}</td><td>{int(lp.excl[e])}</td>"
                f"<td>{int(lp.incl[e])}</td><td>{int(lp.calls[e])}</td></tr>\n"
            )
        parts.append("</table>\n")
    parts.append("</body></html>\n")
    out.write("".join(parts).encode("utf-8"))
