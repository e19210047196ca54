"""One method-trace recording on a device, step by step: start the profiler (`am profile start`
in a running app, or `am start -W -S --start-profiler` for a cold start), stop it (`am profile
stop`), wait until the trace file on the device stops growing, pull it and remove it.

`cli/record.py` drives the steps (timing, Ctrl-C, the summary); every refusal is a
`CaptureError` sentence. Progress goes to the `note` callback, never to a stream.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from traceview.capture.adb import Adb, CaptureError, am_failure, check_name

__all__ = ["AM_BUFFER_MB", "Plan", "Recording", "component"]

AM_BUFFER_MB = 8  # `am` traces into a fixed 8 MB buffer (ActivityThread's Profiler)
_SIZE = re.compile(r"^\s*(\d+)\s*$")


@dataclass(frozen=True)
class Plan:
    """What to record: the app's process, the trace file on the device, the profiler mode
    (`sampling_us` None for method tracing), `cold_start` the activity component to launch
    (None to profile the running process), and how long to wait for the file (s)."""

    package: str
    device_file: str
    sampling_us: int | None = None
    streaming: bool = False
    cold_start: str | None = None
    timeout_s: float = 60.0
    poll_s: float = 0.5


def component(package: str, activity: str) -> str:
    """`am start -n` form: `pkg/.Main`, `pkg/com.x.Main`; a bare `.Main` or `Main` gets the
    package."""
    if "/" in activity:
        return activity
    if activity.startswith(".") or "." not in activity:
        return f"{package}/{activity if activity.startswith('.') else '.' + activity}"
    return f"{package}/{activity}"


class Recording:
    """The device side of one recording; `started`/`stopped` say how far it got."""

    def __init__(self, adb: Adb, plan: Plan, note: Callable[[str], None] = lambda _: None):
        check_name(plan.package, "package")
        if plan.cold_start is not None:
            check_name(plan.cold_start, "activity")
        if not re.match(r"^/[A-Za-z0-9_./-]+$", plan.device_file):
            raise CaptureError(f"device file {plan.device_file!r} is not a plain absolute path")
        self.adb, self.plan, self.note = adb, plan, note
        self.started = self.stopped = False

    def _profiler_flags(self) -> list[str]:
        flags = []
        if self.plan.sampling_us is not None:
            flags += ["--sampling", str(self.plan.sampling_us)]
        if self.plan.streaming:
            flags.append("--streaming")
        return flags

    def start(self) -> None:
        """Start the profiler (a CaptureError names why `am` refused)."""
        p = self.plan
        self.adb.shell("rm", "-f", p.device_file)
        if p.cold_start is None:
            if not self.adb.shell("pidof", p.package).strip():
                raise CaptureError(
                    f"{p.package} is not running: start the app, or record its start with "
                    "--cold-start ACTIVITY"
                )
            argv = ["am", "profile", "start", *self._profiler_flags(), p.package, p.device_file]
        else:
            target = component(p.package, p.cold_start)
            argv = ["am", "start", "-W", "-S", "--start-profiler", p.device_file]
            argv += [*self._profiler_flags(), "-n", target]
        output = self.adb.shell(*argv)
        problem = am_failure(output, p.package)
        if problem is not None:
            raise CaptureError(problem)
        self.started = True
        self.note(f"recording {p.package} into {p.device_file}")

    def stop(self) -> None:
        """Stop the profiler (once; the app then writes out the rest of the trace)."""
        if not self.started or self.stopped:
            return
        self.stopped = True
        output = self.adb.shell("am", "profile", "stop", self.plan.package)
        problem = am_failure(output, self.plan.package)
        if problem is not None:
            raise CaptureError(f"stopping the profiler: {problem}")

    def size(self) -> int | None:
        """The trace file's size on the device now (None while it does not exist)."""
        out = self.adb.shell("stat", "-c", "%s", self.plan.device_file)
        m = _SIZE.match(out)
        return int(m.group(1)) if m else None

    def wait_written(self, sleep: Callable[[float], None] = time.sleep) -> int:
        """Wait until the file has a size > 0 that holds for two polls; its size. The app
        writes a non-streaming trace only when the profiler stops, and a streaming one until
        its buffers are flushed, so the size must settle before pulling."""
        p = self.plan
        deadline = time.monotonic() + p.timeout_s
        last, steady = None, 0
        while True:
            size = self.size()
            steady = steady + 1 if size is not None and size > 0 and size == last else 0
            if steady >= 2:
                return int(size or 0)
            last = size
            if time.monotonic() >= deadline:
                break
            sleep(p.poll_s)
        if not last:
            raise CaptureError(
                f"empty trace: the app wrote nothing to {p.device_file} in {p.timeout_s:g} s "
                "(did the process die, or is it not debuggable?)"
            )
        raise CaptureError(
            f"the trace file is still being written after {p.timeout_s:g} s ({last:,} bytes "
            "and growing): wait longer with --timeout"
        )

    def pull(self, local: Path) -> None:
        """Copy the trace to `local` and remove it from the device."""
        self.adb.run("pull", self.plan.device_file, str(local))
        if not local.is_file():
            raise CaptureError(f"adb pull wrote no {local}")
        self.discard()

    def discard(self) -> None:
        """Remove the device file (best effort)."""
        with contextlib.suppress(CaptureError):
            self.adb.shell("rm", "-f", self.plan.device_file)
