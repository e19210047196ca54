"""The SVG document both flame graph formats write (`svg`, `diff-svg`): the header, the styles,
the title lines and buttons, every frame as a rectangle with its fitted label, the data the
script reads and the script (`flamesvg.js`, the interaction both share, then the format's own
part). A format supplies only what differs: its frames' places, colours, classes and hover
titles, extra buttons, a legend line and its data.

Names are XML-escaped (and control characters `\\xNN`) in the markup; the data is JSON with
`<`, `>` and `&` as `\\u` escapes, so no name can end the script element or inject markup.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from importlib.resources import files
from typing import IO, Any

from traceview.exporters.stacks import MAX_DEPTH
from traceview.model import printable

WIDTH = 1200  # px of the graph area
FRAME = 17  # px per level
TOP = 56  # px above the graph (title, buttons)
PAD = 10
RESOLUTION = 12_000  # frames narrower than 1/12000 of the total (0.1 px) are left out
CHAR_PX = 7.0  # average width of a 12 px monospace-ish character
LINE = 19  # px from the graph's bottom edge to the details line's baseline

STYLE = (
    "text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}"
    "#frames text{pointer-events:none}#frames g{cursor:pointer}"
    "#frames g:hover rect{stroke:#000;stroke-width:0.5}"
    ".hidden{display:none}.faded rect{opacity:0.55}"
    ".button{cursor:pointer;fill:#204080}.button:hover{text-decoration:underline}"
    "#title{font-size:17px}#subtitle{fill:#555}"
)


@dataclass(frozen=True)
class Frames:
    """Each frame as equal-length columns: `x` and `width` in px from the graph's left edge,
    `level` its row from the top, `name` the label fitted into it, `title` its hover text,
    `fill` its colour and `classes` its class attribute ("" for none)."""

    x: Sequence[float]
    width: Sequence[float]
    level: Sequence[int]
    name: Sequence[str]
    title: Sequence[str]
    fill: Sequence[str]
    classes: Sequence[str]


@dataclass(frozen=True)
class Shell:
    """What a format says of its document: `script` its part of the script (a file next to
    this module, run after `flamesvg.js`), `data_id` the id of the data's script element,
    `background` the page colour, `style` CSS after the shared rules, `attrs` extra attributes
    of the root element, `buttons` (id, x px, text) after "Reset zoom", `legend` a line below
    the details (the match count then goes on it), `deep` how many frames deeper than
    `stacks.MAX_DEPTH` were left out (said after the subtitle)."""

    title: str
    subtitle: str
    script: str
    data_id: str
    background: str
    style: str = ""
    attrs: dict[str, str] = field(default_factory=dict)
    buttons: tuple[tuple[str, float, str], ...] = ()
    legend: str | None = None
    deep: int = 0


def write(out: IO[Any], shell: Shell, depth: int, frames: Frames, data: object) -> None:
    """The flame graph `depth` levels deep as one SVG document."""
    bottom = TOP + depth * FRAME
    height = bottom + (28 if shell.legend is None else 44)
    full = WIDTH + 2 * PAD
    sub = shell.subtitle
    if shell.deep:
        sub += f" ({shell.deep} frames deeper than {MAX_DEPTH} left out)"
    extra = "".join(f' {k}="{xml(v)}"' for k, v in shell.attrs.items())
    w = out.write
    w('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n')
    w(
        f'<svg version="1.1" xmlns="http://www.w3.org/2000/svg" width="{full}" '
        f'height="{height}" viewBox="0 0 {full} {height}" data-width="{WIDTH}" '
        f'data-frame="{FRAME}" data-top="{TOP}" data-pad="{PAD}" data-char="{CHAR_PX}"{extra}>\n'
    )
    w(f"<style>{STYLE}{shell.style}</style>\n")
    w(f'<rect x="0" y="0" width="{full}" height="{height}" fill="{shell.background}"/>\n')
    for ident, y, text in (("title", 22, shell.title), ("subtitle", 40, sub)):
        w(f'<text id="{ident}" x="{full / 2}" y="{y}" text-anchor="middle">{xml(text)}</text>\n')
    w(f'<text id="reset" class="button hidden" x="{PAD}" y="22">Reset zoom</text>\n')
    for ident, x, text in shell.buttons:
        w(f'<text id="{ident}" class="button" x="{x}" y="22">{xml(text)}</text>\n')
    w(f'<text id="search" class="button" x="{full - PAD}" y="22" text-anchor="end">Search</text>\n')
    w(
        f'<text id="clear" class="button hidden" x="{full - PAD - 60}" y="22" '
        'text-anchor="end">Clear</text>\n'
    )
    lower = height - 8 if shell.legend is not None else bottom + LINE
    w(f'<text id="matched" x="{full - PAD}" y="{lower}" text-anchor="end"></text>\n')
    w(f'<text id="details" x="{PAD}" y="{bottom + LINE}"> </text>\n')
    if shell.legend is not None:
        w(f'<text id="legend" x="{PAD}" y="{lower}">{xml(shell.legend)}</text>\n')
    w('<g id="frames">\n')
    _write_frames(out, frames)
    w("</g>\n")
    w(f'<script type="application/json" id="{shell.data_id}">{json_for_xml(data)}</script>\n')
    script = _script(shell.script).replace("]]>", "]]]]><![CDATA[>")
    w(f"<script><![CDATA[\n{script}\n]]></script>\n")
    w("</svg>\n")


def _write_frames(out: IO[Any], f: Frames) -> None:
    """Each frame as `<g data-i>` holding its title, rectangle and label, 4096 to a write."""
    chunk: list[str] = []
    for k in range(len(f.x)):
        x = PAD + f.x[k]
        width = f.width[k]
        y = TOP + f.level[k] * FRAME
        cls = f' class="{f.classes[k]}"' if f.classes[k] else ""
        chunk.append(
            f'<g data-i="{k}"{cls}><title>{xml(f.title[k])}</title>'
            f'<rect x="{x:.2f}" y="{y}" width="{width:.2f}" height="{FRAME - 1}" '
            f'fill="{f.fill[k]}" rx="2"/><text x="{x + 3:.2f}" y="{y + FRAME - 5}">'
            f"{xml(fit(f.name[k], width))}</text></g>\n"
        )
        if len(chunk) >= 4096:
            out.write("".join(chunk))
            chunk.clear()
    out.write("".join(chunk))


def _script(name: str) -> str:
    """The shared interaction and the format's part, in one function scope (no globals)."""
    here = files("traceview.exporters")
    core = here.joinpath("flamesvg.js").read_text(encoding="utf-8")
    own = here.joinpath(name).read_text(encoding="utf-8")
    return f'(function () {{\n"use strict";\n{core}\n{own}\n}})();'


def xml(text: str) -> str:
    """Text safe in XML character data and attributes (control characters as \\xNN)."""
    return escape(printable(text), quote=True)


def json_for_xml(obj: object) -> str:
    """Compact JSON that no name can end the script element with or inject markup into."""
    text = json.dumps(obj, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def fit(name: str, width: float) -> str:
    """The label that fits `width` px (cut with `..`), or "" when not even 3 characters do."""
    chars = int((width - 6) / CHAR_PX)
    if chars < 3:
        return ""
    return name if len(name) <= chars else name[: chars - 2] + ".."


__all__ = ["CHAR_PX", "FRAME", "RESOLUTION", "WIDTH", "Frames", "Shell", "fit", "write", "xml"]
