"""Viewer latency on a generated trace of one shape: start-up, first views, warm-up, zoom/pan
and ranges.

    python benchmarks/bench_viewer.py [--records 10000000] [--shape even] [--requests 400]
                                      [--no-browser] [--no-report]

Runs `traceview TRACE --no-browser` as a child process and times: (unless --no-browser)
start -> URL printed -> the UI's ready flag -> the first screen's timeline tiles received,
with headless Chromium opening the page as soon as it serves (the timeline is painted by
the later of the two); then, in a second run, start -> URL printed (server ready), and at
once, while the warm-up runs, the first answer of every view the UI opens (profile, flame
graph, top-down and bottom-up on both clocks, all threads and the main thread; the call
chart's level-0 tile of the rows a screen shows (`SCREEN_ROWS`, as the UI asks); the frame
budget; the top method's relations); then
waits for the warm-up to end (the server's CPU time stops growing) and prints its CPU
seconds and the server's peak RSS against the file. Then sends random zoom/pan tile
requests, method highlights, call look-ups, range profiles and range flame graphs (random
ranges, on 1-4 random threads and on all threads), and prints p50/p95 ms and mean/max bytes
per kind; last, times `traceview report` on the same trace (seconds, size, peak RSS; skipped
with --no-report). Debian's dmtracedump on the same trace, timed first, is the run's speed
anchor. The shapes are those of make_traces.py. Targets (issue 23): 1 GB ready
<= 5 s, every first view <= 2 s whenever asked, peak RSS <= 2.5x the file through ready,
warm-up and the first screens; zoom/pan/range <= 50 ms p95. The load average is printed
beside the times: on a shared machine wall times grow with it. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import anchor, load, machine
from make_traces import SHAPES, shape_path

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def start_viewer(trace: Path) -> tuple[subprocess.Popen[str], str, float]:
    """Start the viewer; return the process, its URL and the seconds until it printed it."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "traceview", str(trace), "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        m = re.search(r"serving at (http://\S+)", line)
        if m:
            return proc, m.group(1), time.perf_counter() - t0
    raise SystemExit("the viewer exited before serving")


def peak_rss(pid: int) -> float:
    """The peak resident set of a live process in MB (Linux VmHWM), NaN when unknown."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


SCREEN_ROWS = 48  # a 720 px timeline pane of one-level (15 px) rows: what the UI asks first


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) of `values`, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def timed(client: httpx.Client, url: str) -> tuple[float, int]:
    """(ms, bytes) of one GET, which must succeed."""
    t = time.perf_counter()
    r = client.get(url)
    ms = (time.perf_counter() - t) * 1000
    r.raise_for_status()
    return ms, len(r.content)


def first_paint(trace: Path) -> tuple[float, float, float] | None:
    """Like a user with a browser already open: start the viewer, load its page in headless
    Chromium as soon as it serves; return seconds from start to (server ready, the UI's ready
    flag, the last /api/timeline answer of the first screen), or None without playwright."""
    try:
        from playwright.sync_api import Response, sync_playwright
    except ImportError:
        return None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        tiles: list[float] = []

        def seen(resp: Response) -> None:
            if "/api/timeline" in resp.url:
                tiles.append(time.perf_counter())

        page.on("response", seen)
        t0 = time.perf_counter()
        proc, url, ready = start_viewer(trace)
        try:
            page.goto(url)
            # a selector wait, not wait_for_function: the page's CSP forbids eval
            page.wait_for_selector("body[data-ready='1']", state="attached", timeout=120_000)
            flag = time.perf_counter() - t0
            page.wait_for_load_state("networkidle", timeout=120_000)
            painted = (max(tiles) - t0) if tiles else float("nan")
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        browser.close()
    return ready, flag, painted


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live process so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def settle(pid: int, quiet: float = 3.0) -> float:
    """Wait until the process has used no CPU for `quiet` seconds (the warm-up is over);
    return its CPU seconds."""
    last, since = cpu_seconds(pid), time.perf_counter()
    while time.perf_counter() - since < quiet:
        time.sleep(0.25)
        now = cpu_seconds(pid)
        if now - last > 0.02:
            last, since = now, time.perf_counter()
    return last


def first_views(
    client: httpx.Client, info: dict[str, Any], threads: list[dict[str, Any]], ready: float
) -> None:
    """Ask, one after the other from the moment the server is ready (the warm-up running), the
    first answer of every view the UI opens; print each one's ms, when it was asked and its
    size."""
    main = next((th["row"] for th in info["threads"] if th["main"]), 0)
    asks = []
    for clock in info["clocks"]:
        for who in ("", f"&threads={main}"):
            asks.append(f"/api/profile?clock={clock}{who}")
            for kind in ("graph", "topdown", "bottomup"):
                asks.append(f"/api/flame?clock={clock}&kind={kind}{who}")
    asks.insert(1, "/api/methods")
    asks.append("/api/frames?budget_ms=16")
    t0 = time.perf_counter() - ready
    slowest = 0.0
    for what in asks:
        at = time.perf_counter() - t0
        ms, size = timed(client, what)
        slowest = max(slowest, ms)
        print(f"first {what}: {ms:.0f} ms (asked at {at:.1f} s), {size / 1024:.0f} KiB")
        if what.startswith("/api/profile?") and "threads" not in what:
            top = client.get(what).json()["methods"]["method"][:1]
            for m in top:
                ms, size = timed(client, f"/api/relations/{m}?{what.split('?')[1]}")
                print(f"first /api/relations/{m}: {ms:.0f} ms, {size / 1024:.0f} KiB")
    at = time.perf_counter() - t0
    t = time.perf_counter()
    from concurrent.futures import ThreadPoolExecutor

    def tile(row: int) -> None:  # six at a time, as a browser asks over its connections
        with httpx.Client(base_url=str(client.base_url), trust_env=False, timeout=600) as c:
            c.get("/api/timeline", params={"thread": row, "level": 0, "tile": 0})

    # the UI asks the whole-trace tile of the rows in view (main first, then the busiest),
    # each one level high (15 px) until its tile tells its depth: at most a pane's worth
    clock = "wall" if any(th.get("wall_us") is not None for th in threads) else "cpu"
    busiest = sorted(threads, key=lambda th: (not th["main"], -(th[f"{clock}_us"] or 0)))
    shown = busiest[:SCREEN_ROWS]
    with ThreadPoolExecutor(6) as pool:
        list(pool.map(tile, [th["row"] for th in shown]))
    ms = (time.perf_counter() - t) * 1000
    n = len(shown)
    what = f"first call chart (level-0 tiles of {n} rows in view, of {len(threads)}; 6 at a time)"
    print(f"{what}: {ms:.0f} ms (asked at {at:.1f} s)")
    print(f"slowest first view: {max(slowest, ms):.0f} ms, {load()}")


def main(argv: list[str]) -> int:
    """Run the benchmark and print one line per measurement."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, default=10_000_000)
    ap.add_argument("--shape", default="even", choices=sorted(SHAPES))
    ap.add_argument("--requests", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-browser", action="store_true", help="skip the Chromium first paint")
    ap.add_argument("--no-report", action="store_true", help="skip `traceview report`")
    args = ap.parse_args(argv)
    trace = shape_path(args.shape, args.records)
    print(f"machine: {machine()}")
    print(f"trace: {trace.name}, {trace.stat().st_size / 1e6:.0f} MB, {load()}")
    print(anchor(trace))
    paint = None if args.no_browser else first_paint(trace)
    if paint is not None:
        ready, flag, painted = paint
        print(
            f"headless Chromium opened at once: start -> server ready {ready:.2f} s -> "
            f"UI ready {flag:.2f} s, first-screen tiles received {painted:.2f} s "
            f"(first painted timeline {max(flag, painted):.2f} s)"
        )
    proc, url, ready = start_viewer(trace)
    rng = random.Random(args.seed)
    try:
        client = httpx.Client(base_url=url, trust_env=False, timeout=600)
        print(f"start -> server ready: {ready:.2f} s (server CPU {cpu_seconds(proc.pid):.2f} s)")
        info = client.get("/api/trace").json()
        threads = [t for t in info["threads"] if t["calls"]]
        first_views(client, info, threads, ready)
        warm = settle(proc.pid)
        mb = peak_rss(proc.pid)
        file_mb = trace.stat().st_size / 2**20
        print(
            f"warm-up over: server CPU {warm:.2f} s in all, peak RSS {mb:.0f} MB "
            f"({mb / file_mb:.2f}x the file) through ready, warm-up and first views, {load()}"
        )
        span = info["time"]["end_us"]
        n_methods = len(client.get("/api/methods").json()["label"])
        weights = [th["calls"] for th in threads]
        results: dict[str, list[tuple[float, int]]] = {
            "tile": [],
            "highlight": [],
            "call": [],
            "range profile": [],
            "range flame": [],
            "range profile, all": [],
            "range flame, all": [],
        }
        for _ in range(args.requests):
            th = rng.choices(threads, weights)[0]["row"]
            level = rng.randint(0, 20)
            tile = rng.randrange(1 << level)
            results["tile"].append(
                timed(client, f"/api/timeline?thread={th}&level={level}&tile={tile}")
            )
            m = rng.randrange(n_methods)
            q = f"thread={th}&level={level}&tile={tile}"
            results["highlight"].append(timed(client, f"/api/highlight/{m}?{q}"))
        for _ in range(max(20, args.requests // 4)):
            row = rng.randrange(sum(weights))
            results["call"].append(timed(client, f"/api/call/{row}"))
            a = rng.uniform(0, span)
            b = min(span, a + span * 10 ** rng.uniform(-4, -1))
            sel = ",".join(str(th["row"]) for th in rng.sample(threads, rng.randint(1, 4)))
            for who, rq in (
                ("", f"clock=wall&threads={sel}&t0={a:.3f}&t1={b:.3f}"),
                (", all", f"clock=wall&t0={a:.3f}&t1={b:.3f}"),  # the UI's default
            ):
                results["range profile" + who].append(timed(client, f"/api/profile?{rq}"))
                results["range flame" + who].append(timed(client, f"/api/flame?kind=graph&{rq}"))
        for kind, rows in results.items():
            lat = [r[0] for r in rows]
            sizes = [r[1] for r in rows]
            print(
                f"{kind:>18}: n={len(rows)} p50 {percentile(lat, 50):.1f} ms, "
                f"p95 {percentile(lat, 95):.1f} ms, max {max(lat):.1f} ms; "
                f"bytes mean {statistics.mean(sizes) / 1024:.1f} KiB, "
                f"max {max(sizes) / 1024:.1f} KiB"
            )
        mb = peak_rss(proc.pid)
        file_mb = trace.stat().st_size / 2**20
        print(f"server peak RSS: {mb:.0f} MB ({mb / file_mb:.1f}x the file)")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    if not args.no_report:
        report(trace)
    return 0


def report(trace: Path) -> None:
    """Time `traceview report TRACE` (default budget) as a child; print seconds, size, peak RSS."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.html"
        t = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "traceview", "report", str(trace), "-o", str(out)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            print(f"report: failed ({proc.returncode})")
            return
        size = out.stat().st_size / 1e6
        rss = usage.ru_maxrss / 1024
        print(f"report: {seconds:.2f} s, {size:.1f} MB, peak RSS {rss:.0f} MB")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
