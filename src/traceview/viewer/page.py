"""The report's page: the viewer's static UI and its precomputed answers in one HTML file.

Packages the `viewer/static` assets as docs/web-api.md "Report packaging" says: CSS inlined, every
JS module a `data:` URL in an import map, and the precomputed answers (from
`viewer/report.py`) in one `<script type="application/gzip" id="traceview-data"
data-encoding="gzip+base64">` block: their JSON gzipped and base64-encoded (an eighth of the
JSON's size; the page unpacks it with the browser's `DecompressionStream`), so no trace name can
ever close the script element.
Takes plain data; `viewer/report.py` computes it.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any


def static_dir() -> Path:
    """The viewer's static UI (package data), read as files: served live and packed here."""
    return Path(str(resources.files("traceview") / "viewer" / "static"))


_SPEC = re.compile(r"""(\bfrom\s*|\bimport\s*|\bimport\s*\(\s*)(["'])\./([A-Za-z0-9_.-]+\.js)\2""")
_LINK = re.compile(r"""<link\b[^>]*\bhref=["'](?:[^"']*/)?([A-Za-z0-9_.-]+\.css)["'][^>]*>""")
_MODULE = re.compile(
    r"""<script\b[^>]*\btype=["']module["'][^>]*\bsrc=["'](?:[^"']*/)?([A-Za-z0-9_.-]+\.js)["']"""
    r"""[^>]*>\s*</script>"""
)
_MODULE_SRC_FIRST = re.compile(
    r"""<script\b[^>]*\bsrc=["'](?:[^"']*/)?([A-Za-z0-9_.-]+\.js)["'][^>]*\btype=["']module["']"""
    r"""[^>]*>\s*</script>"""
)


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
    imports = {}
    for name, text in _js_modules(folder):
        text = _SPEC.sub(lambda m: f'{m.group(1)}"traceview:{m.group(3)}"', text)
        encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
        imports[f"traceview:{name}"] = f"data:text/javascript;base64,{encoded}"

    def entry(match: re.Match[str]) -> str:
        return f'<script type="module">import "traceview:{match.group(1)}";</script>'

    html = _MODULE.sub(entry, html)
    html = _MODULE_SRC_FIRST.sub(entry, html)
    head = (
        '<script type="application/gzip" id="traceview-data" data-encoding="gzip+base64">'
        f"{packed_json(data)}</script>\n"
        f'<script type="importmap">{script_json({"imports": imports})}</script>\n'
    )
    at = html.find('<script type="module">')
    if at < 0:
        at = html.rfind("</body>") if "</body>" in html else len(html)
    return html[:at] + head + html[at:]


def script_json(obj: object) -> str:
    """JSON safe inside an HTML `<script>` element: `<`, `>`, `&`, U+2028/9 as \\u escapes."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, esc in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, esc)
    return text


def packed_json(obj: object) -> str:
    """`obj` as compact JSON, gzipped (level 9, no timestamp: deterministic) and base64-encoded:
    only `A-Za-z0-9+/=`, so it is safe inside any HTML element."""
    text = json.dumps(_integral(obj), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    packed = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
    return base64.b64encode(packed).decode("ascii")


def _integral(obj: Any) -> Any:
    """`obj` with every whole float written as an int (`6229618` rather than `6229618.0`: the
    same number to JavaScript, and a tenth smaller once compressed)."""
    if isinstance(obj, float):
        return int(obj) if obj.is_integer() else obj
    if isinstance(obj, dict):
        return {k: _integral(v) for k, v in obj.items()}
    if isinstance(obj, list):
        if obj and isinstance(obj[0], float):
            return [int(x) if isinstance(x, float) and x.is_integer() else x for x in obj]
        return [_integral(v) for v in obj]
    return obj


def render(static: Path, data: dict[str, Any]) -> str:
    """The report page: `static/index.html` (a bare page if absent) with everything inlined."""
    index = static / "index.html"
    html = (
        index.read_text(encoding="utf-8")
        if index.is_file()
        else "<!doctype html><meta charset=utf-8><title>traceview report</title><body></body>"
    )
    return package(html, static, data)
