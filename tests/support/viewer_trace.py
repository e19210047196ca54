"""A small two-thread trace with hostile names, shared by the viewer, report and CLI tests."""

from __future__ import annotations

from support.tracebuild import make_trace
from traceview.model import Trace

EVIL_CLASS = "com.app.</script><script>alert`1`</script>&amp;\"q'"
EVIL_THREAD = "</script><b onmouseover='x'>&\u2028main"


def viewer_trace() -> Trace:
    """Two threads; the main one has two Choreographer frames (4 ms and 20 ms wall)."""
    ev = [
        (1, "enter", "android.os.Looper.loop", 0, 0),
        (1, "enter", "android.view.Choreographer.doFrame", 1, 1),
        (1, "enter", f"{EVIL_CLASS}.run", 2, 2),
        (1, "exit", f"{EVIL_CLASS}.run", 3, 4000),
        (1, "exit", "android.view.Choreographer.doFrame", 4, 4001),
        (1, "enter", "android.view.Choreographer.doFrame", 5, 5000),
        (1, "enter", "com.app.Foo.draw", 6, 5001),
        (1, "enter", "java.util.List.get", 7, 5002),
        (1, "exit", "java.util.List.get", 8, 15000),
        (1, "exit", "com.app.Foo.draw", 9, 24000),
        (1, "exit", "android.view.Choreographer.doFrame", 10, 25001),
        (1, "exit", "android.os.Looper.loop", 11, 26000),
        (2, "enter", "java.lang.Thread.run", 0, 10),
        (2, "enter", "com.app.Worker.go", 1, 11),
        (2, "exit", "com.app.Worker.go", 5, 900),
        (2, "exit", "java.lang.Thread.run", 6, 1000),
    ]
    return make_trace(ev, names={1: "main", 2: EVIL_THREAD})
