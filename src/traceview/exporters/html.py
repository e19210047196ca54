"""`traceview report`: the viewer as one self-contained HTML file (works from file://, offline).

The same `web/static` assets as the live viewer, packaged as docs/web-api.md "Report packaging"
says: CSS inlined, every JS module a `data:` URL in an import map, and the precomputed API
answers in one `<script type="application/json" id="traceview-data">` block whose `<`, `>`,
`&`, U+2028 and U+2029 are \\u-escaped (so trace names can never close the script element).
Timeline tiles are added level by level from the top while a byte budget lasts.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from traceview.web import answers
from traceview.web.app import request_key, static_dir
from traceview.web.payload import encode, script_json
from traceview.web.session import Session

NAME = "html"
SUFFIXES = (".html", ".htm")
BUDGET = 20 << 20  # bytes of precomputed timeline tiles
CALL_BUDGET = 4 << 20  # bytes of /api/call answers for the rects of those tiles
RELATION_METHODS = 200  # /api/relations for this many methods (most inclusive time first)
HIGHLIGHT_METHODS = 30  # /api/highlight at level 0 for this many methods

_SPEC = r"""(\bfrom\s*|\bimport\s*|\bimport\s*\(\s*)(["'])\./([A-Za-z0-9_.-]+\.js)\2"""
_LINK = re.compile(r"""<link\b[^>]*\bhref=["'](?:[^"']*/)?([A-Za-z0-9_.-]+\.css)["'][^>]*>""")
_MODULE = re.compile(
    r"""<script\b[^>]*\btype=["']module["'][^>]*\bsrc=["'](?:[^"']*/)?([A-Za-z0-9_.-]+\.js)["']"""
    r"""[^>]*>\s*</script>"""
)
_MODULE_SRC_FIRST = re.compile(
    r"""<script\b[^>]*\bsrc=["'](?:[^"']*/)?([A-Za-z0-9_.-]+\.js)["'][^>]*\btype=["']module["']"""
    r"""[^>]*>\s*</script>"""
)


def precompute(session: Session, budget: int = BUDGET) -> dict[str, Any]:
    """The answers the report holds, keyed like the UI asks for them (docs/web-api.md)."""
    out: dict[str, Any] = {}

    def put(path: str, params: dict[str, str], value: Any) -> None:
        out[request_key(path, params)] = value

    trace = answers.trace_answer(session)
    trace["live"] = False
    put("/api/trace", {}, trace)
    put("/api/methods", {}, answers.methods_answer(session))
    put("/api/frames", {"budget_ms": "16"}, answers.frames_answer(session, 16.0))
    top: list[int] = []
    for clock in session.clocks:
        q = session.query(clock)
        prof = answers.profile_answer(session, q)
        put("/api/profile", {"clock": clock}, prof)
        for kind in ("graph", "topdown", "bottomup"):
            put(
                "/api/flame", {"clock": clock, "kind": kind}, answers.flame_answer(session, kind, q)
            )
        methods: list[int] = prof["methods"]["method"]
        for m in methods[:RELATION_METHODS]:
            put(f"/api/relations/{m}", {"clock": clock}, answers.relations_answer(session, m, q))
        top = top or methods[:HIGHLIGHT_METHODS]
    for t in range(len(session.trace.threads)):
        if session.thread_has_events[t]:
            for m in top:
                params = {"thread": str(t), "level": "0", "tile": "0"}
                put(f"/api/highlight/{m}", params, answers.highlight_answer(session, m, t, 0, 0))
    levels = _add_tiles(session, out, budget)
    trace["report"] = {"timeline_levels": levels, "budget_bytes": budget}
    return out


def _add_tiles(session: Session, out: dict[str, Any], budget: int) -> int:
    """Add timeline tiles level by level (all tiles of a thread at a level, or none) and the
    calls of their rects, while the budget lasts; return the number of complete levels.

    The last level may hold only some threads: the UI draws coarser tiles where one is missing.
    """
    tl = session.timeline()
    used = 0
    call_used = 0
    level = 0
    threads = [t for t in range(tl.threads) if session.thread_has_events[t]]
    for clock in session.clocks:
        session.excl(clock)
    while level <= 40 and threads:
        done: set[int] = set()  # threads whose every call is already a rect at this level
        for t in threads:
            tiles = [answers.timeline_answer(session, t, level, k) for k in range(1 << level)]
            size = sum(len(encode(ans)) for ans in tiles)
            if used + size > budget:
                return level
            used += size
            for k, ans in enumerate(tiles):
                params = {"thread": str(t), "level": str(level), "tile": str(k)}
                out[request_key("/api/timeline", params)] = ans
                for row in ans["rects"]["call"]:
                    ck = f"/api/call/{row}"
                    if ck in out or call_used > CALL_BUDGET:
                        continue
                    call = answers.call_answer(session, int(row))
                    call_used += len(encode(call))
                    out[ck] = call
            if all(not ans["merged"]["depth"] for ans in tiles):
                done.add(t)
        threads = [t for t in threads if t not in done]  # deeper levels add nothing there
        level += 1
    return level


def _js_modules(folder: Path) -> Iterator[tuple[str, str]]:
    for path in sorted(folder.glob("*.js")):
        yield path.name, path.read_text(encoding="utf-8")


def package(html: str, folder: Path, data: dict[str, Any]) -> str:
    """index.html with the CSS, JS modules (import map of data: URLs) and answers inlined."""

    def css(match: re.Match[str]) -> str:
        path = folder / match.group(1)
        if not path.is_file():
            return ""
        text = re.sub("</(style)", r"<\\/\1", path.read_text(encoding="utf-8"), flags=re.I)
        return "<style>\n" + text + "\n</style>"

    html = _LINK.sub(css, html)
    spec = re.compile(_SPEC)
    imports = {}
    for name, text in _js_modules(folder):
        text = spec.sub(lambda m: f'{m.group(1)}"traceview:{m.group(3)}"', text)
        encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
        imports[f"traceview:{name}"] = f"data:text/javascript;base64,{encoded}"

    def entry(match: re.Match[str]) -> str:
        return f'<script type="module">import "traceview:{match.group(1)}";</script>'

    html = _MODULE.sub(entry, html)
    html = _MODULE_SRC_FIRST.sub(entry, html)
    head = (
        f'<script type="application/json" id="traceview-data">{script_json(data)}</script>\n'
        f'<script type="importmap">{script_json({"imports": imports})}</script>\n'
    )
    at = html.find('<script type="module">')
    if at < 0:
        at = html.rfind("</body>") if "</body>" in html else len(html)
    return html[:at] + head + html[at:]


def render(session: Session, budget: int = BUDGET) -> str:
    """The whole report page for `session`."""
    folder = static_dir()
    index = folder / "index.html"
    html = (
        index.read_text(encoding="utf-8")
        if index.is_file()
        else "<!doctype html><meta charset=utf-8><title>traceview report</title><body></body>"
    )
    return package(html, folder, precompute(session, budget))


def export(session: Session, out: Path, budget: int = BUDGET) -> int:
    """Write the report to `out`; return its size in bytes."""
    text = render(session, budget)
    data = text.encode("utf-8")
    out.write_bytes(data)
    return len(data)
