"""The viewer's JavaScript unit tests (`node --test` over static/**/*.test.js) run with the suite.

They get report pages written by Python (`TRACEVIEW_REPORTS`): `lib/api.test.js` checks that the
requests the UI makes find their answers there, so the page's key rule and the report agree on
real requests. Skipped only when `node` is not installed (`.ci/run` installs it).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from support.corpus import CORPUS
from support.viewer_trace import viewer_trace
from traceview.analysis.session import Session
from traceview.readers import load
from traceview.viewer import page, report

STATIC = Path(__file__).resolve().parents[2] / "src" / "traceview" / "viewer" / "static"
NODE = shutil.which("node")
# real traces the reports are also written from when the corpus is there: a real app with
# non-ASCII names on both clocks, and an old Dalvik CPU-only one (one clock, rebuilt axis)
CORPUS_TRACES = ("aosp-perflib-studio/char_2_bytes.trace", "aosp-perflib/basic-api10.trace")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (apt install nodejs)")


def js_tests(static: Path = STATIC) -> list[str]:
    """The unit test files, relative to `static`."""
    return sorted(p.relative_to(static).as_posix() for p in static.rglob("*.test.js"))


def run_node(static: Path, reports: list[Path]) -> subprocess.CompletedProcess[str]:
    """`node --test` over the unit tests under `static` (run there), given report pages."""
    assert NODE is not None
    env = {**os.environ, "TRACEVIEW_REPORTS": os.pathsep.join(str(p) for p in reports)}
    return subprocess.run(
        [NODE, "--test", "--test-reporter=tap", *js_tests(static)],
        cwd=static,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def write_report(session: Session, out: Path, budget: int) -> Path:
    buf = io.StringIO()
    buf.write(page.render(page.static_dir(), report.precompute(session, budget)))
    out.write_text(buf.getvalue(), encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Report pages of the viewer's hostile test trace and of the corpus traces present."""
    folder = tmp_path_factory.mktemp("reports")
    trace = viewer_trace()
    trace.validate()
    pages = [write_report(Session(trace), folder / "viewer.html", 200_000)]
    for name in CORPUS_TRACES:
        if (CORPUS / name).is_file():
            real = Session(load(CORPUS / name))
            pages.append(write_report(real, folder / (Path(name).name + ".html"), 1 << 20))
    return pages


def test_node_unit_tests_pass(reports: list[Path]) -> None:
    assert {"lib/api.test.js", "timeline/tiles.test.js"} <= set(js_tests())
    done = run_node(STATIC, reports)
    assert done.returncode == 0, f"node --test failed:\n{done.stdout}\n{done.stderr}"
    assert "# skipped 0" in done.stdout  # the report pages were found and read
    assert "# fail 0" in done.stdout


def test_node_unit_tests_catch_a_broken_key(tmp_path: Path) -> None:
    """A key rule that stops sorting its parameters fails the units (they guard the rule)."""
    static = tmp_path / "static"
    shutil.copytree(STATIC, static)
    api = static / "lib" / "api.js"
    text = api.read_text(encoding="utf-8")
    broken = text.replace("const names = Object.keys(p).sort();", "const names = Object.keys(p);")
    assert broken != text
    api.write_text(broken, encoding="utf-8")
    done = run_node(static, [])
    assert done.returncode != 0
    assert "keyOf" in done.stdout
