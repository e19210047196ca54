"""The `diff-junit` format: a comparison of runs (`analysis.diff.DiffView`) as JUnit XML for
CI (GitHub, GitLab, Jenkins, Azure read it): one `<testcase>` per gated method, a `<failure>`
for each regression. Written with ElementTree (which escapes `&`, `<`, `"`); names pass
through `model.printable` first, because XML 1.0 cannot hold control characters at all.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import IO, Any

from traceview.analysis.diff import DiffView
from traceview.exporters.diff import METRIC_WORDS, gate_text, summary, verdict
from traceview.model import printable

NAME = "diff-junit"
SUFFIXES = (".xml",)
BINARY = False
SUBJECT = "runs"

_NOT_XML = re.compile("[\ufffe\uffff]")  # the only characters printable() lets through


@dataclass(frozen=True)
class Options:
    """`diff-junit` takes no options: one testcase per gated method."""


def xml_text(text: str) -> str:
    """`text` as characters XML 1.0 allows (control characters and undecodable bytes as
    `\\xNN`); ElementTree escapes the markup characters."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", printable(text))


def junit(dv: DiffView) -> ET.Element:
    """The `<testsuites>` element: one suite, one testcase per gated method (display order),
    `time` = the candidate's median of the gated metric in seconds."""
    m, th = dv.methods, dv.thresholds
    ch = m.change(th.metric)
    rows = [i for i in dv.order() if m.gated[i]]
    failures = sum(1 for i in rows if m.status[i] == "regression")
    name = f"traceview diff ({METRIC_WORDS[th.metric]} {dv.clock} time)"
    top = ET.Element("testsuites", name="traceview diff", tests=str(len(rows)))
    top.set("failures", str(failures))
    top.set("errors", "0")
    suite = ET.SubElement(top, "testsuite", name=name, tests=str(len(rows)))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    suite.set("skipped", "0")
    props = ET.SubElement(suite, "properties")
    for key, value in (
        ("gate", gate_text(dv)),
        ("summary", summary(dv)),
        ("baseline", " ".join(dv.baseline)),
        ("candidate", " ".join(dv.candidate)),
    ):
        ET.SubElement(props, "property", name=key, value=xml_text(value))
    for i in rows:
        cls = m.class_name[i] or "(no class)"
        case = ET.SubElement(suite, "testcase", classname=xml_text(cls))
        case.set("name", xml_text(f"{m.name[i]}{m.signature[i]}"))
        case.set("time", f"{max(float(ch.cand[i]), 0.0) / 1e9:.6f}")
        if m.status[i] == "regression":
            line = xml_text(verdict(dv, i))
            fail = ET.SubElement(case, "failure", message=line, type="regression")
            fail.text = xml_text(f"{m.full_name(i)} {m.signature[i]}: {verdict(dv, i)}")
    for note in dv.notes:
        ET.SubElement(suite, "system-out").text = xml_text(note)
    return top


def export(dv: DiffView, out: IO[Any], options: Options) -> None:
    """`diff --junit FILE`: UTF-8 JUnit XML."""
    root = junit(dv)
    ET.indent(root)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(root, encoding="unicode") + "\n")
