"""The `dmtracedump-html` format, dmtracedump's `-h` page: the report of
`exporters.dmtracedump` with its HTML markup (anchors `#m<index>`, navigation bar, table of
contents, collapsible class and method sections), plus the page head both the report and
the two-trace diff share.

dmtracedump loads `<-s URL>sortable.js` (and prints `(null)sortable.js` without `-s`); here a
small table sorter is inlined unless `script_url` (`-s`) names where to load one from.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import IO

from traceview.analysis.view import View
from traceview.exporters.dmtracedump import Policy, Report, compute

NAME = "dmtracedump-html"
SUFFIXES = (".dmtrace.html",)
BINARY = True
SUBJECT = "view"


@dataclass(frozen=True)
class Options:
    """`policy`: unbalanced stacks as dmtracedump handles them or as traceview does;
    `script_url`: a URL base to load `sortable.js` from instead of inlining a sorter."""

    policy: Policy = "dmtracedump"
    script_url: str | None = None


# click a header to sort by that column (numbers numerically), again to reverse
SORTABLE_JS = b"""
function sortableInit() {
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var head = table.rows[0];
    if (!head) return;
    Array.prototype.forEach.call(head.cells, function (th, col) {
      th.style.cursor = "pointer";
      th.title = "sort";
      th.addEventListener("click", function () { sortTable(table, col, th); });
    });
    stripe(table);
  });
}
function cellValue(row, col) {
  var cell = row.cells[col];
  var text = cell ? cell.textContent.trim() : "";
  var num = Number(text.replace(/%$/, ""));
  return text !== "" && !isNaN(num) ? num : text.toLowerCase();
}
function sortTable(table, col, th) {
  var rows = Array.prototype.slice.call(table.rows, 1);
  var down = th.getAttribute("data-sort") !== "desc";
  rows.sort(function (a, b) {
    var x = cellValue(a, col), y = cellValue(b, col);
    if (typeof x !== typeof y) { x = String(x); y = String(y); }
    var c = x < y ? -1 : x > y ? 1 : 0;
    return down ? -c : c;
  });
  Array.prototype.forEach.call(table.rows[0].cells, function (h) {
    h.removeAttribute("data-sort");
  });
  th.setAttribute("data-sort", down ? "desc" : "asc");
  var parent = rows.length ? rows[0].parentNode : null;
  rows.forEach(function (r) { parent.appendChild(r); });
  stripe(table);
}
function stripe(table) {
  Array.prototype.forEach.call(table.rows, function (r, i) {
    if (i) r.className = i % 2 ? "odd" : "even";
  });
}
document.addEventListener("DOMContentLoaded", sortableInit);
"""

HEAD_REST = b"""<script type="text/javascript">
function toggle(item) {
    obj=document.getElementById(item);
    visible=(obj.style.display!="none" && obj.style.display!="");
    key=document.getElementById("x" + item);
    if (visible) {
        obj.style.display="none";
        key.innerHTML="+";
    } else {
        obj.style.display="block";
        key.innerHTML="-";
    }
}
function onMouseOver(obj) {
    obj.style.background="lightblue";
}
function onMouseOut(obj) {
    obj.style.background="white";
}
</script>
<style type="text/css">
div { font-family: courier; font-size: 13px }
div.parent { margin-left: 15px; display: none }
div.leaf { margin-left: 10px }
div.header { margin-left: 10px }
div.link { margin-left: 10px; cursor: move }
span.parent { padding-right: 10px; }
span.leaf { padding-right: 10px; }
a img { border: 0;}
table.sortable th { border-width: 0px 1px 1px 1px; background-color: #ccc;}
a { text-decoration: none; }
a:hover { text-decoration: underline; }
table.sortable th, table.sortable td { text-align: left;}
table.sortable tr.odd td { background-color: #ddd; }
table.sortable tr.even td { background-color: #fff; }
</style>
</head><body>

"""

FOOTER = b"\n</body>\n</html>\n"

CONTENTS = b"""<a name="contents"></a>
<h2>Table of Contents</h2>
<ul>
  <li><a href="#exclusive">Exclusive profile</a></li>
  <li><a href="#inclusive">Inclusive profile</a></li>
  <li><a href="#class">Class/method profile</a></li>
  <li><a href="#method">Method/class profile</a></li>
</ul>

"""


def head(script_url: str | None) -> bytes:
    """`<html><head>` with the sorter (inlined, or `<script_url>sortable.js`), the toggle
    script and dmtracedump's styles."""
    out = b'<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n'
    if script_url is not None:
        src = escape(script_url + "sortable.js", quote=True).encode("utf-8")
        out += b'<script type="text/javascript" src="%s"></script>\n' % src
    else:
        out += b'<script type="text/javascript">' + SORTABLE_JS + b"</script>\n"
    return out + HEAD_REST


def export(view: View, out: IO[bytes], options: Options) -> None:
    """dmtracedump's `-h` report of the view."""
    lp, order = compute(view, options.policy)
    out.write(head(options.script_url))
    out.write(CONTENTS)
    Report(lp, order, out, html=True).write()
    out.write(FOOTER)
