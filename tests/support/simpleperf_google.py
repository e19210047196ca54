"""Google's own reading of a simpleperf report-sample file, a test-only consumer: the NDK's
`simpleperf report-sample --dump-protobuf-report FILE` (its Linux x86-64 binary, taken by
.ci/run from PyPI's `perftools` wheel, which bundles NDK 27's simpleperf, into
~/.cache/traceview-test-tools; `TRACEVIEW_TEST_TOOLS` names another folder). Its text dump is parsed
into the oracle's `Recording` (support/simpleperf_oracle.py), so tests can hold our oracle —
and through it the reader — to the tool that writes these files. Tests skip without it."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path

from support.simpleperf_oracle import Recording, Sample

TOOLS = Path.home() / ".cache" / "traceview-test-tools"  # .ci/run's, like the npm consumers'
TOOL = Path(os.environ.get("TRACEVIEW_TEST_TOOLS", TOOLS)) / "simpleperf"
HANG_GUARD = 300  # seconds: only stops a stuck run (the dump of a corpus file takes ~1 s)


def available() -> bool:
    """Whether the NDK's simpleperf can run here (Linux x86-64, installed)."""
    return platform.machine() == "x86_64" and os.access(TOOL, os.X_OK)


def dump(path: Path) -> Recording:
    """What `simpleperf report-sample --dump-protobuf-report path` reads, as a Recording
    (frames outermost first, as the oracle keeps them; execution types not compared)."""
    out = subprocess.run(
        [str(TOOL), "report-sample", "--dump-protobuf-report", str(path)],
        capture_output=True,
        check=True,
        timeout=HANG_GUARD,
    ).stdout.decode("utf-8", "surrogateescape")
    blocks: list[tuple[str, Block]] = []
    for line in out.splitlines():
        if not line.startswith(" "):  # a record: magic, version, meta_info, sample N, file, ...
            blocks.append((line.split(":", 1)[0].split(" ", 1)[0], Block()))
            continue
        key, _, value = line.strip().partition(": ")
        block = blocks[-1][1]
        if key == "vaddr_in_file":  # a callchain entry begins
            block.frames.append({"vaddr": int(value, 16)})
        elif key in ("file_id", "symbol_id") and block.frames:
            block.frames[-1][key] = int(value)
        elif key in ("symbol", "event_type"):
            block.values.append(value)
        else:
            block.fields[key] = value
    return _recording(blocks)


class Block:
    """One record of the dump: its fields, its repeated values, its callchain entries."""

    def __init__(self) -> None:
        self.fields: dict[str, str] = {}
        self.values: list[str] = []
        self.frames: list[dict[str, int]] = []

    def number(self, key: str) -> int:
        return int(self.fields.get(key, "0"))


def _recording(blocks: list[tuple[str, Block]]) -> Recording:
    rec = Recording()
    for kind, b in blocks:
        if kind == "meta_info":
            rec.events = b.values
        elif kind == "file":
            rec.files.setdefault(b.number("id"), (b.fields.get("path", ""), b.values))
        elif kind == "thread":
            rec.threads.setdefault(b.number("thread_id"), b.fields.get("thread_name", ""))
    for kind, b in blocks:
        if kind != "sample":
            continue
        frames: list[tuple[str, str | None, int, int]] = []
        for f in reversed(b.frames):
            fid, sym = f.get("file_id", 0), f.get("symbol_id", 0)
            path, syms = rec.files.get(fid, (f"[file {fid}]", []))
            frames.append((path, syms[sym] if 0 <= sym < len(syms) else None, f["vaddr"], 0))
        ev = b.number("event_type_id")
        rec.samples.append(
            Sample(
                tid=b.number("thread_id"),
                time=b.number("time"),
                event=rec.events[ev] if 0 <= ev < len(rec.events) else "",
                count=b.number("event_count"),
                funcs=[],
                labels=[],
                frames=frames,
            )
        )
    return rec
