"""Each interchange format read by a real consumer installed from the registries:

- speedscope (npm `speedscope`, its bundled app in headless Chromium): imports our speedscope,
  folded and Chrome files; its own Export gives back what it understood, whose totals we check;
- pprof: `go tool pprof -raw` (Debian's golang-go) and the npm `pprof-format` decoder;
- Parquet: pyarrow and DuckDB read the tables back.

Every test skips when its consumer is missing. The npm packages live outside the repository,
in $TRACEVIEW_TEST_NODE (default ~/.cache/traceview-test-node; `.ci/run` installs them there:
`npm install --prefix DIR speedscope@1.25.0 pprof-format@2.3.2`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from traceview.analysis import Session
from traceview.analysis.view import View
from traceview.exporters import get
from traceview.exporters.stacks import selected_threads, thread_label
from traceview.synth import generate

NODE_DIR = Path(os.environ.get("TRACEVIEW_TEST_NODE", Path.home() / ".cache/traceview-test-node"))
SPEEDSCOPE = NODE_DIR / "node_modules/speedscope/dist/release/index.html"
PPROF_FORMAT = NODE_DIR / "node_modules/pprof-format"


@pytest.fixture(scope="module")
def session() -> Session:
    return Session(generate(records=8000, threads=3, seed=11))


def write(view: View, name: str, path: Path, **options: Any) -> Path:
    exporter = get(name)
    with path.open(
        "wb" if exporter.binary else "w", encoding=None if exporter.binary else "utf-8"
    ) as f:
        exporter.export(view, f, exporter.options(**options))
    return path


def expected(session: Session, view: View, threads: list[int], clock: str) -> int:
    q = session.query(
        threads=threads, clock=clock, time_range=view.query.time_range, my_code=view.query.my_code
    )
    prof = session.profile(q)
    return int(prof.thread_total[clock].sum()) - int(prof.toplevel[clock])


def ranged(session: Session, clock: str) -> View:
    span = session.end - session.origin
    return View(
        session, session.query(clock=clock, time_range=session.time_range(span // 4, span // 2))
    )


# -- speedscope ------------------------------------------------------------------------------


def speedscope_import(browser: Any, path: Path) -> dict[str, Any]:
    """Load `path` into speedscope's app and return the JSON its Export button writes."""
    if not SPEEDSCOPE.exists():
        pytest.skip(f"speedscope is not installed in {NODE_DIR}")
    page = browser.new_page(accept_downloads=True)
    problems: list[str] = []

    def dismiss(d: Any) -> None:
        problems.append(d.message)
        d.dismiss()

    page.on("dialog", dismiss)
    page.on("pageerror", lambda e: problems.append(str(e)))
    try:
        page.goto(SPEEDSCOPE.as_uri())
        page.set_input_files("#file", str(path))
        page.wait_for_selector("text=Export", timeout=20000)
        assert "Something went wrong" not in page.inner_text("body")
        with page.expect_download(timeout=20000) as download:
            page.click("text=Export")
        doc: dict[str, Any] = json.loads(Path(download.value.path()).read_text())
    finally:
        page.close()
    assert not problems, problems
    return doc


def evented_roots(profile: dict[str, Any]) -> int:
    """Σ of the outermost frames' durations of one evented profile."""
    depth = 0
    opened = 0
    total = 0
    for ev in profile["events"]:
        if ev["type"] == "O":
            if depth == 0:
                opened = ev["at"]
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                total += ev["at"] - opened
    assert depth == 0
    return total


@pytest.mark.browser
def test_speedscope_imports_our_speedscope_file(
    browser: Any, session: Session, tmp_path: Path
) -> None:
    view = ranged(session, "wall")
    doc = speedscope_import(browser, write(view, "speedscope", tmp_path / "t.speedscope.json"))
    th = session.trace.threads
    got = {p["name"]: p for p in doc["profiles"]}
    rows = selected_threads(view)
    assert len(got) == len(rows)
    for t in rows:
        prof = got[f"{th.label(t)} (wall)"]
        assert prof["unit"] == "nanoseconds"
        assert evented_roots(prof) == expected(session, view, [t], "wall")


@pytest.mark.browser
def test_speedscope_imports_our_folded_file(browser: Any, session: Session, tmp_path: Path) -> None:
    view = View(session, session.query(clock="cpu"))
    doc = speedscope_import(browser, write(view, "folded", tmp_path / "t.folded"))
    (prof,) = doc["profiles"]
    total = prof["endValue"] - prof["startValue"]
    assert total == expected(session, view, selected_threads(view), "cpu")
    names = {f["name"] for f in doc["shared"]["frames"]}
    assert {thread_label(view, t) for t in selected_threads(view)} <= names


@pytest.mark.browser
def test_speedscope_imports_our_chrome_file(browser: Any, session: Session, tmp_path: Path) -> None:
    view = ranged(session, "cpu")
    doc = speedscope_import(browser, write(view, "chrome", tmp_path / "t.json"))
    th = session.trace.threads
    rows = selected_threads(view)
    assert len(doc["profiles"]) == len(rows)
    for t in rows:
        (prof,) = [
            p for p in doc["profiles"] if p["name"].endswith(f"{th.label(t)} (tid {int(th.id[t])})")
        ]
        assert prof["unit"] == "microseconds"
        want = expected(session, view, [t], "cpu") / 1000
        assert evented_roots(prof) == pytest.approx(want, abs=0.01)


# -- pprof -----------------------------------------------------------------------------------


def go_pprof_raw(path: Path) -> tuple[list[str], list[int]]:
    """`go tool pprof -raw`: the sample types and the Σ of each value over the samples."""
    if shutil.which("go") is None:
        pytest.skip("go (Debian golang-go) is not installed")
    env = {**os.environ, "HOME": os.environ.get("HOME", "/tmp")}
    run = subprocess.run(
        ["go", "tool", "pprof", "-raw", str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    at = lines.index("Samples:")
    types = [t.split("/")[0].removesuffix("[dflt]") for t in lines[at + 1].split()]
    sums = [0] * len(types)
    for line in lines[at + 2 :]:
        head, sep, _ = line.partition(":")
        if not sep or not head.strip() or not head.split()[0].isdigit():
            if line.startswith("Locations"):
                break
            continue
        for k, v in enumerate(head.split()):
            sums[k] += int(v)
    return types, sums


def test_go_pprof_reads_the_totals(session: Session, tmp_path: Path) -> None:
    for view in (View(session, session.query(clock="wall")), ranged(session, "cpu")):
        types, sums = go_pprof_raw(write(view, "pprof", tmp_path / "t.pb.gz"))
        assert types == ["calls", "cpu", "wall"]
        rows = selected_threads(view)
        assert sums[1] == expected(session, view, rows, "cpu")
        assert sums[2] == expected(session, view, rows, "wall")
        assert sums[0] == int(view.top_down().calls.sum())


def test_pprof_format_npm_decoder_reads_the_totals(session: Session, tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None or not PPROF_FORMAT.exists():
        pytest.skip(f"node or pprof-format (in {NODE_DIR}) is not installed")
    view = View(session, session.query())
    path = write(view, "pprof", tmp_path / "t.pb.gz", merge_threads=True)
    script = (
        "const {Profile}=require(process.argv[1]);const z=require('zlib'),fs=require('fs');"
        "const p=Profile.decode(z.gunzipSync(fs.readFileSync(process.argv[2])));"
        "const s=p.stringTable.strings;const sums=p.sampleType.map(()=>0n);"
        "for(const x of p.sample)x.value.forEach((v,i)=>{sums[i]+=BigInt(v)});"
        "console.log(JSON.stringify({types:p.sampleType.map(t=>s[Number(t.type)]),"
        "sums:sums.map(String),dflt:s[Number(p.defaultSampleType)],"
        "names:p.function.map(f=>s[Number(f.name)])}))"
    )
    run = subprocess.run(
        [node, "-e", script, str(PPROF_FORMAT), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert got["types"] == ["calls", "cpu", "wall"]
    assert got["dflt"] == view.query.clock
    rows = selected_threads(view)
    assert [int(x) for x in got["sums"][1:]] == [
        expected(session, view, rows, c) for c in ("cpu", "wall")
    ]
    labels = {view.methods.label(int(m)) for m in view.top_down().method}
    assert set(got["names"]) == labels


# -- Parquet ---------------------------------------------------------------------------------


def test_parquet_reads_back_in_pyarrow_and_duckdb(session: Session, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    duckdb = pytest.importorskip("duckdb")
    from traceview.exporters.parquet import write_directory

    view = ranged(session, "wall")
    out = tmp_path / "t.parquet"
    write_directory(view, out)
    (part,) = (out / "calls").glob("*.parquet")
    assert pq.ParquetFile(part).metadata.metadata[b"traceview.clock"] == b"wall"
    methods = pq.read_table(out / "methods").to_pydict()
    assert methods["label"] == [view.methods.label(i) for i in range(len(view.methods))]
    con = duckdb.connect()
    rows = con.execute(
        f"""select c.thread, sum(c.incl_wall_ns) filter (where c.depth = 0),
                   sum(c.incl_cpu_ns) filter (where c.depth = 0), sum(c.excl_wall_ns)
            from '{out}/calls/*.parquet' c group by c.thread order by c.thread"""
    ).fetchall()
    threads = selected_threads(view)
    assert [r[0] for r in rows] == threads
    for t, wall, cpu, excl in rows:
        assert wall == excl == expected(session, view, [t], "wall")
        assert cpu == expected(session, view, [t], "cpu")
    # the parent column joins: a child's span lies inside its parent's
    bad = con.execute(
        f"""select count(*) from '{out}/calls/*.parquet' c join '{out}/calls/*.parquet' p
            on c.thread = p.thread and c.parent = p.call
            where c.start_wall_ns < p.start_wall_ns or c.end_wall_ns > p.end_wall_ns
               or c.depth != p.depth + 1"""
    ).fetchone()
    assert bad == (0,)
    top = con.execute(
        f"""select m.label from '{out}/calls/*.parquet' c
            join '{out}/methods/*.parquet' m using (method)
            group by m.label order by sum(c.incl_wall_ns) desc limit 1"""
    ).fetchone()
    assert top is not None and top[0] in methods["label"]
    totals = con.execute(
        f"select thread, total_wall_ns from '{out}/threads/*.parquet' "
        "where selected order by thread"
    ).fetchall()
    prof = view.profile()
    assert [r[1] for r in totals] == [int(x) for x in prof.thread_total["wall"]]
