"""First run: `traceview demo` from process start to its first screen drawn in Chromium, with
numba's cache empty (as after a fresh install) and then warm.

    python benchmarks/bench_firstrun.py [--rounds 3] [--trace PATH] [--python PY]

Each round starts `traceview demo --no-browser` (or `traceview PATH`) and headless Chromium at
the same moment (Chromium's start counts, as when the command opens the browser itself),
opens the page as soon as the server prints its URL and waits until the timeline and the
profile are drawn: the UI's ready flag, then every first-screen request answered (network
idle). Prints seconds from start to: server ready, the last /api/timeline answer, the
/api/profile answer, and drawn; the cold rounds use a fresh empty NUMBA_CACHE_DIR each, the
warm ones a cache filled by a first run. `--python` runs the traceview of another install: a
fresh `pip install .` in a virtual environment, whose wheel holds the native objects the
install built (setup.py), is what a cold round of a user's first run is. Also prints the
installed size of numba and llvmlite, and first Debian's dmtracedump on the same trace (the
run's speed anchor). Targets (issue 23): drawn <= 3 s cold, <= 1.5 s warm. Not part of the
test suite.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.resources import files
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_viewer import CHROMIUM_ARGS
from harness import anchor, load, machine


def one(python: str, cache: str, trace: str | None) -> dict[str, float]:
    """One first screen; seconds from start to each milestone."""
    from playwright.sync_api import Response, sync_playwright

    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    cmd = [python, "-m", "traceview", *([trace] if trace else ["demo"]), "--no-browser"]
    seen: dict[str, float] = {}
    with sync_playwright() as p:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
        )
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1000})

            def answered(resp: Response) -> None:
                for kind in ("timeline", "profile"):
                    if f"/api/{kind}" in resp.url:
                        seen[kind] = time.perf_counter() - t0

            page.on("response", answered)
            assert proc.stdout is not None
            url = ""
            for line in proc.stdout:
                m = re.search(r"serving at (http://\S+)", line)
                if m:
                    url = m.group(1)
                    break
            seen["ready"] = time.perf_counter() - t0
            page.goto(url)
            page.wait_for_selector("body[data-ready='1']", state="attached", timeout=300_000)
            flag = time.perf_counter() - t0
            page.wait_for_load_state("networkidle", timeout=300_000)
            seen["drawn"] = max(flag, seen.get("timeline", 0.0), seen.get("profile", 0.0))
        finally:
            browser.close()
            proc.terminate()
            proc.wait(timeout=30)
    return seen


def settle() -> None:
    """Wait (up to 5 min) until no process filling numba's cache is left from a round (the
    viewer's `cli/precompile.py` outlives it), so that rounds do not overlap."""
    end = time.perf_counter() + 300
    while time.perf_counter() < end:
        found = subprocess.run(["pgrep", "-f", "traceview.cli.precompile"], capture_output=True)
        if found.returncode != 0:
            return
        time.sleep(0.5)


def installed(python: str, package: str) -> float:
    """MB of a package's folder in the install of `python`."""
    where = subprocess.run(
        [python, "-c", f"import importlib.util as u; print(u.find_spec({package!r}).origin)"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    if not where:
        return float("nan")
    root = Path(where).parent
    return sum(f.stat().st_size for f in root.rglob("*") if f.is_file()) / 1e6


def main(argv: list[str]) -> int:
    """Run cold and warm rounds; print one line each and the medians."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--trace", default=None, help="a trace instead of the bundled demo")
    ap.add_argument("--python", default=sys.executable, help="the install's interpreter")
    args = ap.parse_args(argv)
    print(machine())
    demo = Path(args.trace) if args.trace else files("traceview") / "data" / "demo.trace.gz"
    print(anchor(Path(str(demo)), rounds=5))
    print(f"install: {args.python}")
    sizes = {p: installed(args.python, p) for p in ("numba", "llvmlite", "numpy", "traceview")}
    print("installed: " + ", ".join(f"{p} {mb:.0f} MB" for p, mb in sizes.items()))
    results: dict[str, list[dict[str, float]]] = {"cold": [], "warm": []}
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as warm_cache:
        for _ in range(args.rounds):
            with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as cold_cache:
                results["cold"].append(one(args.python, cold_cache, args.trace))
                settle()
            if not results["warm"]:
                one(args.python, warm_cache, args.trace)  # fills the cache
                settle()
            results["warm"].append(one(args.python, warm_cache, args.trace))
            settle()
            for kind in ("cold", "warm"):
                r = results[kind][-1]
                tl, pr = r.get("timeline", 0.0), r.get("profile", 0.0)
                print(
                    f"{kind}: server ready {r['ready']:.2f} s, timeline {tl:.2f} s,"
                    f" profile {pr:.2f} s, drawn {r['drawn']:.2f} s, {load()}"
                )
    for kind, runs in results.items():
        print(f"{kind} median drawn: {statistics.median(r['drawn'] for r in runs):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
