"""The report's page: the viewer's static UI and its precomputed answers in one HTML file.

Packages the `viewer/static` assets as docs/web-api.md "Report packaging" says: CSS inlined,
every JS module (in any folder; unit tests left out) a `data:` URL in an import map under its
path, and the precomputed answers (from `viewer/report.py`) in one `<script
type="application/gzip" id="traceview-data" data-encoding="gzip+base64">` block: their JSON
gzipped and base64-encoded (an eighth of the JSON's size; the page unpacks it with the
browser's `DecompressionStream`), so no trace name can ever close the script element.
Takes plain data; `viewer/report.py` computes it."""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path
from typing import Any

from traceview.viewer.assets import SPECIFIER, asset_path, modules, resolve, static_dir

__all__ = ["package", "packed_json", "render", "script_json", "static_dir"]

_ASSET = r"""["'](?:/static/|\./)?([A-Za-z0-9_][A-Za-z0-9_./-]*\.{ext})["']"""
_LINK = re.compile(r"""<link\b[^>]*\bhref=""" + _ASSET.format(ext="css") + r"""[^>]*>""")
_MODULE = re.compile(
    r"""<script\b[^>]*\btype=["']module["'][^>]*\bsrc="""
    + _ASSET.format(ext="js")
    + r"""[^>]*>\s*</script>"""
)
_MODULE_SRC_FIRST = re.compile(
    r"""<script\b[^>]*\bsrc=""" + _ASSET.format(ext="js") + r"""[^>]*\btype=["']module["']"""
    r"""[^>]*>\s*</script>"""
)


def module_key(name: str) -> str:
    """The import-map key of the module at `name` (relative to static/): `traceview:NAME`, one
    key per file however a module is spelled where it is imported."""
    return "traceview:" + asset_path(name)


def _rewrite(name: str, text: str, known: set[str]) -> str:
    """Module `name`'s source with each relative specifier resolved against the module's own
    folder and replaced by that module's key (a data: URL cannot resolve relative paths)."""

    def spec(m: re.Match[str]) -> str:
        target = resolve(name, m.group(3))
        if target not in known:
            raise ValueError(f"{name}: imports {m.group(3)}, which is not a module of static/")
        return f'{m.group(1)}"{module_key(target)}"'

    return SPECIFIER.sub(spec, text)


def package(html: str, folder: Path, data: object) -> str:
    """index.html with the CSS, JS modules (import map of data: URLs) and answers inlined;
    ValueError when a module imports one that is not there."""

    def css(match: re.Match[str]) -> str:
        path = folder / asset_path(match.group(1))
        if not path.is_file():
            return ""
        text = re.sub("</(style)", r"<\\/\1", path.read_text(encoding="utf-8"), flags=re.I)
        return "<style>\n" + text + "\n</style>"

    html = _LINK.sub(css, html)
    sources = dict(modules(folder))
    imports = {}
    for name, text in sources.items():
        text = _rewrite(name, text, set(sources))
        encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
        imports[module_key(name)] = f"data:text/javascript;base64,{encoded}"

    def entry(match: re.Match[str]) -> str:
        return f'<script type="module">import "{module_key(match.group(1))}";</script>'

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
    if isinstance(obj, list | tuple):
        if obj and isinstance(obj[0], float):
            return [int(x) if isinstance(x, float) and x.is_integer() else x for x in obj]
        return [_integral(v) for v in obj]
    return obj


def render(static: Path, data: object) -> str:
    """The report page: `static/index.html` (a bare page if absent) with everything inlined."""
    index = static / "index.html"
    html = (
        index.read_text(encoding="utf-8")
        if index.is_file()
        else "<!doctype html><meta charset=utf-8><title>traceview report</title><body></body>"
    )
    return package(html, static, data)
