"""The `dmtracedump-diff-html` format, dmtracedump's two-trace comparison as a page (`-d -h`):
sortable tables of the matched methods by exclusive and by inclusive difference, then of the
methods found in one run only, under the head of `dmtracedump_html` (numbers from
`dmtracedump_diff.compare`). Names are shown with `model.visible` and HTML-escaped, control
characters escaped when present (`model.terminal_text`).
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import IO

from traceview.analysis.dmtracedump.numbers import LegacyProfile
from traceview.exporters import Pair
from traceview.exporters.dmtracedump import Policy
from traceview.exporters.dmtracedump_diff import compare
from traceview.exporters.dmtracedump_html import head
from traceview.model import terminal_text, visible

NAME = "dmtracedump-diff-html"
SUFFIXES: tuple[str, ...] = ()
BINARY = True
SUBJECT = "pair"

TABLE = (
    "<table class='sortable' id='%s'><tr>\n<th>Method</th>\n<th>Run 1 (us)</th>\n"
    "<th>Run 2 (us)</th>\n<th>Diff (us)</th>\n<th>Diff (%%)</th>\n<th>1: # calls</th>\n"
    "<th>2: # calls</th>\n</tr>\n"
)
MISSING = (
    "<table class='sortable' id='%s'><tr>\n<th>Method</th>\n<th>Exclusive</th>\n"
    "<th>Inclusive</th>\n<th># calls</th>\n</tr>\n"
)


@dataclass(frozen=True)
class Options:
    """`policy`: unbalanced stacks as dmtracedump handles them or as traceview does;
    `script_url`: a URL base to load `sortable.js` from instead of inlining a sorter."""

    policy: Policy = "dmtracedump"
    script_url: str | None = None


def _html_name(lp: LegacyProfile, e: int) -> str:
    name = lp.name[e]
    cls = visible(terminal_text(lp.class_name[e].decode("utf-8", "surrogateescape")))
    meth = "(null)"
    if name is not None:
        meth = visible(terminal_text(name.decode("utf-8", "surrogateescape")))
    return escape(f"{cls}.{meth}", quote=True)


def export(pair: Pair, out: IO[bytes], options: Options) -> None:
    """Write the comparison of Run 1 (the `-d` trace) with Run 2 as dmtracedump's page."""
    c = compare(pair, options.policy)
    lp1, lp2, diff = c.lp1, c.lp2, c.diff
    parts = [head(options.script_url).decode("utf-8")]
    src1 = escape(visible(pair.run1.trace.source or "run 1"))
    src2 = escape(visible(pair.run2.trace.source or "run 2"))
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
