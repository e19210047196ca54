"""The viewer's detail answers at scale and the tree's scrolling in Chromium (issue 22).

    python benchmarks/bench_viewer_answers.py [--records 10000000] [--requests 200]
        [--shape even|dominant|many|sampled] [--trace FILE] [--no-browser]

In one process, on a generated trace (`make_traces.trace_path`, cached in benchmarks/out/) or
`--trace`: builds the session and the views the UI opens first (profile, both trees, the flame
graph; their cold seconds printed), then times distinct requests of each kind the way the
server answers them (the answer computed and JSON-encoded; the server's answer cache never
hit, since every request differs): Top Down / Bottom Up first answers, node subtrees and
"more" children, flame windows of zoomed frames at 1600 px, steps through a method's calls,
timeline tiles (cold, then at any zoom once the viewer's warm-up has run), call look-ups and
relations; prints p50/p95/max ms and mean KB per kind.
Then (unless --no-browser) headless Chromium scrolls a Top Down tree of 100 000 rows (the
viewer's own tree panel fed a synthetic answer: 100 roots x 999 children, all open) for 300
animation frames and prints the frame times (requestAnimationFrame deltas). Targets
(issue 22): every answer p95 <= 50 ms at 10M records; a zoomed flame or call-chart detail
answer <= 100 ms p95 at 70M; the 10^5-row tree at 60 fps. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import machine
from make_traces import SHAPES, shape_path, trace_path
from traceview.exporters.jsonshape import encode

SCROLL = """async () => {
  const t = window.traceview.views.topdown;
  const roots = 100, kids = 999, n = roots * (kids + 1);
  const col = (f) => Array.from({ length: n }, (_, i) => f(i));
  const parentOf = (i) => (i % (kids + 1) === 0 ? -1 : i - (i % (kids + 1)));
  const methods = Math.max(1, Math.min(50, window.traceview.state.methods.label.length));
  const answer = { node: -1, total: n, roots_more: 0, roots_more_width: 0, size: n,
    clock: "cpu", nodes: { id: col((i) => i), method: col((i) => i % methods),
      depth: col((i) => (parentOf(i) < 0 ? 0 : 1)), parent: col(parentOf),
      width: col((i) => (parentOf(i) < 0 ? kids + 1 : 1)), self: col(() => 1),
      calls: col(() => 1), more: col(() => 0), more_width: col(() => 0) } };
  t.loaded(answer);
  for (let i = 0; i < t.tree.size; i++) t.tree.open.add(i);
  t.flatten();
  const rows = t.rows.length;
  const deltas = [];
  await new Promise((done) => {
    let last = performance.now(), k = 0;
    const step = (now) => {
      deltas.push(now - last);
      last = now;
      t.scroll.scrollTop += 60;
      if (++k < 300) requestAnimationFrame(step);
      else done();
    };
    requestAnimationFrame(step);
  });
  return { rows, deltas: deltas.slice(1) };
}"""


def timed(fn: Callable[[], Any]) -> tuple[float, int]:
    """ms to compute and encode one answer, and its bytes."""
    t0 = time.perf_counter()
    data = encode(fn())
    return (time.perf_counter() - t0) * 1000, len(data)


def report(kind: str, runs: list[tuple[float, int]]) -> None:
    ms = sorted(r[0] for r in runs)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    kb = statistics.mean(r[1] for r in runs) / 1024
    print(
        f"  {kind:<28} n={len(ms):>4}  p50 {statistics.median(ms):7.1f}  p95 {p95:7.1f}"
        f"  max {ms[-1]:7.1f} ms  {kb:8.1f} KB"
    )


def answers(path: Path, requests: int, seed: int) -> None:
    import traceview
    from traceview.analysis.session import Session
    from traceview.viewer import answers as api
    from traceview.viewer.steps import step_answer

    rnd = random.Random(seed)
    t0 = time.perf_counter()
    s = Session(traceview.load(str(path)))
    print(f"load {time.perf_counter() - t0:.1f} s, {len(s.trace.events):,} records")
    q = s.query()
    for what, fn in (
        ("profile", lambda: api.profile_answer(s, q)),
        ("tree topdown", lambda: api.tree_answer(s, "topdown", q)),
        ("tree bottomup", lambda: api.tree_answer(s, "bottomup", q)),
        ("flame graph", lambda: api.flame_answer(s, "graph", q)),
        (
            "timeline index",
            lambda: [api.timeline_answer(s, t, 0, 0) for t in range(len(s.trace.threads))],
        ),
        ("call details", lambda: api.call_answer(s, 0)),
        ("step index", lambda: step_answer(s, 0, 0, 1, None)),
    ):
        t1 = time.perf_counter()
        fn()
        print(f"cold {what:<14} {time.perf_counter() - t1:6.2f} s")
    runs: dict[str, list[tuple[float, int]]] = {}
    top = s.top_down(q)
    bottom = s.bottom_up(q)
    print(f"tree nodes: top-down {len(top):,}, bottom-up {len(bottom):,}")
    clock = q.clock
    for kind, tree in (("topdown", top), ("bottomup", bottom)):
        rows = [i for i in range(len(tree)) if tree.incl[clock][i] > 0]
        for node in rnd.sample(rows, min(requests, len(rows))):
            runs.setdefault(f"tree {kind} node", []).append(
                timed(lambda n=node, k=kind: api.tree_answer(s, k, q, n))
            )
            runs.setdefault(f"tree {kind} children", []).append(
                timed(lambda n=node, k=kind: api.tree_answer(s, k, q, n, children=True))
            )
    from traceview.viewer.trees import full_layout

    fl = full_layout(s, "graph", q)
    wide = [i for i in range(len(fl.width)) if fl.width[i] * 20_000 >= fl.total]
    for i in rnd.sample(wide, min(requests, len(wide))):
        x0, x1 = fl.x[i] / 1000, (fl.x[i] + fl.width[i]) / 1000
        runs.setdefault("flame window 1600 px", []).append(
            timed(lambda a=x0, b=x1: api.flame_answer(s, "graph", q, a, b, 1600))
        )
    prof = api.profile_answer(s, q)["methods"]
    methods = prof["method"][: max(1, requests // 4)]
    end = s.end - s.origin
    for m in methods:
        runs.setdefault("step", []).append(
            timed(lambda m=m: step_answer(s, m, rnd.uniform(0, end / 1000), 1, None))
        )
        runs.setdefault("relations", []).append(timed(lambda m=m: api.relations_answer(s, m, q)))
    threads = [t for t in range(len(s.trace.threads)) if s.thread_records[t]]
    for _ in range(requests):
        t, level = rnd.choice(threads), rnd.randint(0, 12)
        tile = rnd.randrange(1 << level)
        runs.setdefault("timeline tile", []).append(
            timed(lambda t=t, lv=level, k=tile: api.timeline_answer(s, t, lv, k))
        )
        row = rnd.randrange(len(s.calls))
        runs.setdefault("call", []).append(timed(lambda r=row: api.call_answer(s, r)))
    # the viewer warms the timeline's levels in the background once it is ready (a zoom a few
    # seconds later finds them built): the same tiles' cost then, at any zoom (levels 0-20)
    from traceview.analysis.warmup import warm

    t1 = time.perf_counter()
    warm(s)
    print(f"warm-up {time.perf_counter() - t1:.1f} s (the viewer runs it once ready)")
    for _ in range(requests):
        t, level = rnd.choice(threads), rnd.randint(0, 20)
        tile = rnd.randrange(1 << level)
        runs.setdefault("timeline tile, warmed", []).append(
            timed(lambda t=t, lv=level, k=tile: api.timeline_answer(s, t, lv, k))
        )
    print("answers (computed + JSON-encoded, distinct requests):")
    for kind, r in runs.items():
        report(kind, r)


def scroll(path: Path) -> None:
    """Frame times of a 10^5-row tree scrolled in Chromium (the viewer on `path`)."""
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from support.browserkit import ARGS, CHROMIUM, serving

    with serving(path) as viewer, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1600, "height": 1000}, bypass_csp=True)
        page.goto(viewer.url)
        page.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
        page.click('.tabs button[data-tab="topdown"]')
        page.wait_for_selector("#tab-topdown .ct-row", timeout=120_000)
        out = page.evaluate(SCROLL)
        browser.close()
    d = sorted(out["deltas"])
    p95 = d[int(0.95 * len(d))]
    print(
        f"tree scroll: {out['rows']:,} rows, {len(d)} frames: p50 {statistics.median(d):.1f}"
        f"  p95 {p95:.1f}  max {d[-1]:.1f} ms  ({1000 / statistics.mean(d):.0f} fps mean)"
    )


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", type=int, default=10_000_000)
    p.add_argument("--requests", type=int, default=200)
    p.add_argument("--trace", type=Path, help="a trace to use instead of a generated one")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-browser", action="store_true")
    p.add_argument("--shape", choices=sorted(SHAPES), help="a shape of make_traces.py")
    args = p.parse_args(argv)
    print(machine())
    path = args.trace or (
        shape_path(args.shape, args.records) if args.shape else trace_path(args.records)
    )
    answers(path, args.requests, args.seed)
    if not args.no_browser:
        scroll(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
