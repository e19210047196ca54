"""The two SVG flame graphs (`svg`, `diff-svg`) are one document shell (exporters/flamesvg.py):
the same styles, buttons and details line, one script element holding the shared interaction
(`flamesvg.js`) once, followed by the format's own part, with `]]>` unable to end it."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET

import pytest

from support.tracebuild import make_trace
from traceview.analysis import Session
from traceview.analysis.compare import compare
from traceview.analysis.view import View
from traceview.exporters import get
from traceview.exporters.flamesvg import STYLE

NS = "{http://www.w3.org/2000/svg}"
NAME = "com.x.Y.<b>]]></script>(I)V"


@pytest.fixture(scope="module")
def documents() -> dict[str, str]:
    a = make_trace([(1, "enter", NAME, 0, 0), (1, "exit", NAME, 5000, 6000)], names={1: "main"})
    b = make_trace([(1, "enter", NAME, 0, 0), (1, "exit", NAME, 9000, 9900)], names={1: "main"})
    plain, diff = io.StringIO(), io.StringIO()
    s = Session(a)
    get("svg").export(View(s, s.query()), plain, get("svg").options())
    get("diff-svg").export(compare([s], [Session(b)]), diff, get("diff-svg").options())
    return {"svg": plain.getvalue(), "diff-svg": diff.getvalue()}


@pytest.mark.parametrize("name", ["svg", "diff-svg"])
def test_one_shell_and_one_shared_script(documents: dict[str, str], name: str) -> None:
    root = ET.fromstring(documents[name].encode())
    style = root.find(f"{NS}style")
    assert style is not None and (style.text or "").startswith(STYLE)
    ids = {el.get("id") for el in root.iter(f"{NS}text")}
    assert {"title", "subtitle", "reset", "search", "clear", "matched", "details"} <= ids
    scripts = list(root.iter(f"{NS}script"))
    assert len(scripts) == 2  # the data and the code
    code = scripts[1].text or ""
    assert len(re.findall(r"function flameSvg\(", code)) == 1
    own = "flamegraph" if name == "svg" else "diffflame"
    assert f"document.documentElement.{own} = " in code
    assert NAME not in code and "]]>" not in (scripts[0].text or "")
