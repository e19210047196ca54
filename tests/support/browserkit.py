"""Helpers of the browser tests: headless Chromium through Playwright (`launch()`, used by the
`browser` fixture of tests/conftest.py), the real viewer or service served in a thread, pages
that collect their script errors, `settle()` (wait until the viewer has done what an action
started) and screenshots.

Everything skips cleanly when Playwright or /usr/bin/chromium is missing. A test that uses the
`browser` fixture carries the `browser` mark (tests/test_suite_rules.py checks it).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import traceview

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1400, "height": 900}  # a page's window unless a test asks for another
SETTLE_MS = 30_000  # how long `settle` waits at most (a bound, not a speed check)

# The viewer is quiet when no panel is loading ("busy"), no timeline has a tile request in
# flight or a draw pending, no relations are loading and no CSS transition runs; it waits a
# frame first, so the input events already sent have been handled.
SETTLED = """async (limit) => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    const quiet = () => {
        if (document.querySelector(".busy") || document.getAnimations().length) return false;
        const views = window.traceview ? window.traceview.views : {};
        for (const v of Object.values(views)) {
            if (v.pending || (v.tiles && v.tiles.pending.size)) return false;
            if (v.expanded && [...v.expanded.values()].includes("loading")) return false;
        }
        return true;
    };
    const end = performance.now() + limit;
    while (performance.now() < end) {
        await frame();
        if (quiet()) {
            await frame();
            if (quiet()) return true;
        }
    }
    return false;
}"""


@contextlib.contextmanager
def launch() -> Iterator[Any]:
    """Headless Chromium (/usr/bin/chromium) through Playwright, closed on exit; skips the
    test when either is missing."""
    if importlib.util.find_spec("playwright") is None:
        pytest.skip("playwright is not installed")
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


class Viewer:
    """A served trace: `url` of the live viewer; `stop()` shuts the server down."""

    def __init__(self, server: Any, thread: threading.Thread, url: str) -> None:
        self.server = server
        self.thread = thread
        self.url = url

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def serve(trace_path: Path, rename: Any = None) -> Viewer:
    """Start the real viewer (`traceview.viewer.app`) on `trace_path`, 127.0.0.1, a free port;
    `rename` is the app's default renaming (`traceview view --mapping`)."""
    from traceview.analysis.session import Session
    from traceview.viewer.app import create_app

    return start_app(create_app(Session(traceview.load(str(trace_path))), rename=rename))


def start_app(app: Any) -> Viewer:
    """Serve an ASGI app (the viewer, the service) with uvicorn on 127.0.0.1, a free port, in a
    thread; return once it listens (raise if it could not start)."""
    import uvicorn

    ready = threading.Event()  # set once the start-up has succeeded or failed

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            try:
                await super().startup(sockets)
            finally:
                ready.set()

    def run() -> None:
        try:
            server.run()
        finally:
            ready.set()

    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    server = Server(config)
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait(timeout=60)  # a start-up wait, not a speed check
    if not server.started:
        raise RuntimeError("the server did not start")
    port = server.servers[0].sockets[0].getsockname()[1]
    return Viewer(server, thread, f"http://127.0.0.1:{port}/")


@contextlib.contextmanager
def serving(trace_path: Path, rename: Any = None) -> Iterator[Viewer]:
    """`serve()` as a context manager."""
    viewer = serve(trace_path, rename)
    try:
        yield viewer
    finally:
        viewer.stop()


def watch(page: Any, errors: list[str], offline: bool = False) -> Any:
    """Collect the page's script errors and console errors into `errors` (and, `offline`, every
    request that leaves file://); returns the page."""
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    if offline:
        page.on("request", lambda r: None if r.url.startswith("file:") else errors.append(r.url))
    return page


def open_page(browser: Any, url: str, errors: list[str], **kw: Any) -> Any:
    """A new page on `url`, waiting until the viewer says it is ready; errors are collected.

    Playwright's `wait_for_function` polls with `eval`, which the viewer's CSP forbids, so
    pages bypass the CSP unless `bypass_csp=False` (tests/viewer/test_browser_security.py loads
    the viewer under its real CSP; `settle` works there too)."""
    kw.setdefault("bypass_csp", True)
    kw.setdefault("viewport", VIEWPORT)
    page = watch(browser.new_page(**kw), errors)
    page.goto(url)
    page.wait_for_selector("body[data-ready]", state="attached", timeout=20000)
    return page


def open_file(browser: Any, path: Path, errors: list[str], **kw: Any) -> Any:
    """A new page on the local file `path` (an SVG, a dmtracedump page) that must work offline:
    script errors and any request beyond file:// are collected in `errors`."""
    page = watch(browser.new_page(**kw), errors, offline=True)
    page.goto(path.as_uri())
    return page


def settle(page: Any, limit_ms: int = SETTLE_MS) -> None:
    """Wait until the viewer has done what the last action started: its answers arrived, its
    panels and timelines drawn (see SETTLED); raises when it is still busy after `limit_ms`."""
    if not page.evaluate(SETTLED, limit_ms):
        raise AssertionError(f"the viewer was still busy after {limit_ms} ms")


def shot(page: Any, name: str, full: bool = False) -> Path:
    """Save a screenshot (`full`: the whole page) under artifacts/screenshots/ (git-ignored)
    and return its path."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full)
    return path


def table_names(page: Any) -> list[str]:
    """The method names of the profile table's rendered method rows, top to bottom (whole, as
    `data-full` holds them where the row shows them elided)."""
    names: list[str] = page.eval_on_selector_all(
        "#tab-profile .pt-row.method",
        """rows => rows
            .map(r => [parseFloat(r.style.top), r.querySelector('.pt-name')])
            .sort((a, b) => a[0] - b[0])
            .map(([, n]) => n.querySelector('.lbl').dataset.full
                ?? Array.from(n.childNodes).slice(3).map(c => c.textContent).join(''))""",
    )
    return names


def table_cells(page: Any, row: int) -> list[str]:
    """The cell texts of the `row`-th rendered method row of the profile table."""
    cells: list[str] = page.eval_on_selector_all(
        "#tab-profile .pt-row.method",
        f"""rows => rows.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))[{row}]
            ? Array.from(rows[{row}].children).map(c => c.textContent) : []""",
    )
    return cells


def fetch_json(viewer: Viewer, path: str) -> Any:
    """One API answer straight from the server (to compare with what the page shows)."""
    import httpx

    return httpx.get(viewer.url.rstrip("/") + path, timeout=30).json()


@functools.cache
def engine_ranking(trace_path: Path, clock: str) -> list[tuple[int, int]]:
    """(method row, inclusive ns) of every method with inclusive time on `clock`, most first,
    straight from the engine (`traceview.analysis.profile`), ties by method row."""
    from traceview.analysis.calls import build_calls
    from traceview.analysis.profile import profile
    from traceview.readers import load

    trace = load(trace_path)
    trace.validate()
    prof = profile(build_calls(trace), clock=clock)
    incl = prof.incl[clock]
    rows = [(int(m), int(v)) for m, v in enumerate(incl) if v]
    rows.sort(key=lambda r: (-r[1], r[0]))
    return rows
