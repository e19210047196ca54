"""Load on `traceview serve`: concurrent uploads while clients browse, then kill -9 and restart.

    python benchmarks/bench_serve.py [--uploads 50] [--size-mb 10] [--browsers 20]
                                     [--think 1.0] [--wave 10] [--browse-mb 10]
                                     [--max-seconds 600]

Loopback only, bounded in count and time. Generates distinct regular v3 traces of about
`--size-mb` MB (cached in benchmarks/out/serve/), starts `python -m traceview serve` on a free
127.0.0.1 port with a fresh data folder, uploads 3 traces for browsing and asks each page
once (cold), then starts every upload at once while `--browsers` clients loop over the
requests a person's page makes (start page, listing, a viewer page and its first API
answers, a flame SVG), reading each page `--think` seconds before the next, until the
uploads end. Then kill -9, restart, a second wave of 10 uploads killed with SIGKILL after 3
are acknowledged, restart, and the check that every acknowledged upload is listed and opens.
Prints upload throughput, latency percentiles per request kind while uploads ran, and the
peak memory of the server process and of server + its analysis children.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import OUT, machine

ROOT = Path(__file__).resolve().parents[1]
WRITE = {"X-Traceview": "1"}
RECORDS_PER_MB = 71_000  # regular v3 dual: 14 bytes a record


def make_traces(seeds: range, size_mb: float) -> list[Path]:
    """Distinct traces of about `size_mb` MB, one per seed (written once, in a child process)."""
    folder = OUT / "serve"
    folder.mkdir(parents=True, exist_ok=True)
    records = int(size_mb * RECORDS_PER_MB)
    paths = [folder / f"serve-{records}-s{seed}.trace" for seed in seeds]
    todo = [p for p in paths if not p.is_file()]
    if todo:
        code = (
            "import sys\nfrom traceview.synth import generate\nfrom traceview.writer import write\n"
            "for arg in sys.argv[1:]:\n"
            "    seed = int(arg.rsplit('-s', 1)[1].split('.')[0])\n"
            f"    write(generate(records={records}, threads=8, seed=seed), arg)\n"
        )
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        subprocess.run([sys.executable, "-c", code, *map(str, todo)], env=env, check=True)
    return paths


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(data: Path, port: int) -> subprocess.Popen[bytes]:
    """The service in a child process, once it answers."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    cmd = [sys.executable, "-m", "traceview", "serve", "--port", str(port), "--data", str(data)]
    with (data.parent / "server.log").open("ab") as log:  # a pipe nobody reads would fill
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/traces", timeout=2).status_code == 200:
                return proc
        except httpx.TransportError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the service did not start")


def rss(pid: int) -> int:
    """Resident bytes of `pid` (0 once gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def children(pid: int) -> list[int]:
    """Child processes of `pid`, whichever of its threads started them."""
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError, ValueError):
            out.extend(int(x) for x in (task / "children").read_text().split())
    return out


class Sampler(threading.Thread):
    """Peak RSS of the server and of the server plus its children, every 0.1 s."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_server = 0
        self.peak_tree = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            own = rss(self.pid)
            tree = own + sum(rss(c) for c in children(self.pid))
            self.peak_server = max(self.peak_server, own)
            self.peak_tree = max(self.peak_tree, tree)
            self.stop.wait(0.1)


def page_requests(tid: str) -> list[tuple[str, str]]:
    """(kind, path) of what a person's browser asks when it opens a trace's page."""
    base = f"/t/{tid}"
    return [
        ("start page", "/"),
        ("list", "/api/traces"),
        ("viewer page", base + "/"),
        ("api/trace", base + "/api/trace"),
        ("api/methods", base + "/api/methods"),
        ("api/profile", base + "/api/profile?clock=cpu"),
        ("api/flame", base + "/api/flame?clock=cpu&kind=graph"),
        ("api/timeline", base + "/api/timeline?level=0&thread=0&tile=0"),
        ("flame svg", base + "/flame/0.svg"),
    ]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def load_phase(
    port: int,
    uploads: list[Path],
    browse: list[str],
    browsers: int,
    max_seconds: float,
    think: float,
) -> tuple[dict[str, list[float]], list[float], list[str], int, float]:
    """Every upload at once while `browsers` clients loop over the page requests of the
    `browse` traces; (latencies per kind in ms, upload seconds, acknowledged ids, errors,
    wall seconds of the uploads). Plain `http.client` in threads with keep-alive: the load
    generator shares the 2 cores with the server, so it must cost little."""
    latencies: dict[str, list[float]] = {}
    upload_s: list[float] = []
    acked: list[str] = []
    errors: list[str] = []
    lock = threading.Lock()
    done = threading.Event()

    def upload(path: Path, n: int) -> None:
        t0 = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=max_seconds, blocksize=1 << 20)
        try:
            with path.open("rb") as body:
                headers = {**WRITE, "X-Filename": f"upload-{n}.trace"}
                headers["Content-Length"] = str(path.stat().st_size)
                conn.request("POST", "/api/traces", body=body, headers=headers)
                r = conn.getresponse()
                text = r.read()
        except OSError as exc:
            with lock:
                errors.append(f"upload {n}: {exc!r}")
            return
        finally:
            conn.close()
        with lock:
            upload_s.append(time.perf_counter() - t0)
            if r.status in (200, 201):
                acked.append(json.loads(text)["id"])
            else:
                errors.append(f"upload {n}: {r.status} {text[:200]!r}")

    def browser(k: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=max_seconds)
        i = k
        mine: dict[str, list[float]] = {}
        while not done.is_set():
            tid = browse[i % len(browse)]
            for kind, path in page_requests(tid):
                t0 = time.perf_counter()
                try:
                    conn.request("GET", path)
                    r = conn.getresponse()
                    r.read()
                except OSError as exc:  # counted, then a new connection
                    with lock:
                        errors.append(f"{path}: {exc!r}")
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=max_seconds)
                    continue
                mine.setdefault(kind, []).append(1000 * (time.perf_counter() - t0))
                if r.status != 200:
                    with lock:
                        errors.append(f"{path}: {r.status}")
            i += 1
            done.wait(think)
        conn.close()
        with lock:
            for kind, values in mine.items():
                latencies.setdefault(kind, []).extend(values)

    readers = [threading.Thread(target=browser, args=(k,)) for k in range(browsers)]
    for t in readers:
        t.start()
    time.sleep(0.5)  # browsing under way before the uploads start
    started = time.perf_counter()
    senders = [threading.Thread(target=upload, args=(p, n)) for n, p in enumerate(uploads)]
    for t in senders:
        t.start()
    for t in senders:
        t.join(max(1.0, max_seconds - (time.perf_counter() - started)))
    wall = time.perf_counter() - started
    done.set()
    for t in readers:
        t.join(60)
    for line in errors[:20]:
        print(line, file=sys.stderr)
    return latencies, upload_s, acked, len(errors), wall


def kill_wave(url: str, proc: subprocess.Popen[bytes], bodies: list[bytes]) -> list[str]:
    """Start `bodies` uploading at once; SIGKILL the server after 3 are acknowledged."""
    acked: list[str] = []
    lock = threading.Lock()

    def send(body: bytes) -> None:
        try:
            r = httpx.post(url + "/api/traces", content=body, headers=WRITE, timeout=120)
        except httpx.TransportError:
            return
        if r.status_code in (200, 201):
            with lock:
                acked.append(r.json()["id"])

    threads = [threading.Thread(target=send, args=(b,)) for b in bodies]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 120
    while len(acked) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    for t in threads:
        t.join(120)
    return acked


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uploads", type=int, default=50)
    ap.add_argument("--size-mb", type=float, default=10)
    ap.add_argument("--browsers", type=int, default=20)
    ap.add_argument("--max-seconds", type=float, default=600)
    ap.add_argument("--wave", type=int, default=10, help="uploads of the wave killed with -9")
    ap.add_argument("--browse-mb", type=float, default=10, help="size of the 3 browsed traces")
    ap.add_argument(
        "--think", type=float, default=1.0, help="seconds a client reads a page before the next"
    )
    args = ap.parse_args()
    wave2 = args.wave
    browse_paths = make_traces(range(3), args.browse_mb)
    paths = make_traces(range(3, 3 + args.uploads), args.size_mb)
    wave_paths = make_traces(range(3 + args.uploads, 3 + args.uploads + wave2), args.size_mb)
    sizes = [p.stat().st_size for p in paths]
    print(f"machine: {machine()}")
    print(
        f"{len(paths)} uploads of {statistics.mean(sizes) / 1e6:.1f} MB "
        f"while {args.browsers} clients browse 3 traces ({args.think:g} s between pages)"
    )
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        data = Path(tmp) / "data"
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        proc = start(data, port)
        sampler = Sampler(proc.pid)
        sampler.start()
        browse = []
        for p in browse_paths:
            r = httpx.post(url + "/api/traces", content=p.read_bytes(), headers=WRITE, timeout=120)
            r.raise_for_status()
            browse.append(r.json()["id"])
        cold: dict[str, float] = {}
        for tid in browse:
            for kind, path in page_requests(tid):
                t0 = time.perf_counter()
                httpx.get(url + path, timeout=120).raise_for_status()
                cold[kind] = max(cold.get(kind, 0), 1000 * (time.perf_counter() - t0))
        print(
            "cold (first ask, worst of 3 traces): "
            + ", ".join(f"{k} {v:.0f} ms" for k, v in cold.items())
        )
        lat, up, acked, errors, wall = load_phase(
            port, paths, browse, args.browsers, args.max_seconds, args.think
        )
        total_mb = sum(sizes) / 1e6
        print(
            f"uploads: {len(acked)}/{len(paths)} acknowledged in {wall:.1f} s = "
            f"{len(acked) / wall:.2f} uploads/s, {total_mb / wall:.1f} MB/s; per upload p50 "
            f"{pct(up, 0.5):.2f} s, p95 {pct(up, 0.95):.2f} s, max {max(up):.2f} s"
        )
        every = [v for vs in lat.values() for v in vs]
        print(
            f"page answers while uploading: n={len(every)}, p50 {pct(every, 0.5):.1f} ms, "
            f"p95 {pct(every, 0.95):.1f} ms, p99 {pct(every, 0.99):.1f} ms, max {max(every):.1f} ms"
        )
        for kind, vs in lat.items():
            print(
                f"  {kind:>13}: n={len(vs):5d} p50 {pct(vs, 0.5):6.1f} ms, "
                f"p95 {pct(vs, 0.95):6.1f} ms, max {max(vs):7.1f} ms"
            )
        print(f"errors: {errors}")
        if errors:
            print((data.parent / "server.log").read_text()[-3000:], file=sys.stderr)
        os.kill(proc.pid, signal.SIGKILL)  # then kill -9 with everything acknowledged
        proc.wait()
        sampler.stop.set()
        print(
            f"peak RSS: server {sampler.peak_server / 2**20:.0f} MiB, server + analysis "
            f"children {sampler.peak_tree / 2**20:.0f} MiB"
        )
        proc = start(data, port)
        wave_acked: list[str] = []
        if wave_paths:
            wave_acked = kill_wave(url, proc, [p.read_bytes() for p in wave_paths])
            proc = start(data, port)
        try:
            listed = {t["id"] for t in httpx.get(url + "/api/traces").json()["traces"]}
            everything = set(acked) | set(wave_acked) | set(browse)
            missing = everything - listed
            opened = 0
            for tid in sorted(listed):
                if httpx.get(f"{url}/t/{tid}/api/trace", timeout=120).status_code == 200:
                    opened += 1
            wave = (
                f" and kill -9 during a wave of {wave2} uploads ({len(wave_acked)} acknowledged "
                "before the kill)"
                if wave2
                else ""
            )
            print(
                f"after kill -9 (idle){wave} and restarts: {len(everything)} acknowledged, "
                f"{len(listed)} listed, {len(missing)} missing, {opened}/{len(listed)} open"
            )
            staged = list((data / "staging").iterdir())
            print(f"staged leftovers after restart: {len(staged)}")
        finally:
            proc.terminate()
            proc.wait(10)
    ok = not errors and not missing and opened == len(listed)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
