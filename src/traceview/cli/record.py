"""`traceview record PACKAGE`: record a method trace of an app over adb, pull it, check it with
the reader and print a summary (capture/ does the device side).

`traceview record com.example.app --duration 10s` profiles the running app for 10 s;
without `--duration` it records until Enter. `--cold-start .MainActivity` launches the app
with the profiler on (`am start -W -S --start-profiler`). Ctrl-C ends the recording early
(the profiler is stopped and the trace kept); a second Ctrl-C abandons it (the profiler is
stopped and the device file removed).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path

import numpy as np

from traceview.capture.adb import Adb, CaptureError, find_adb, pick_device
from traceview.capture.recording import AM_BUFFER_MB, Plan, Recording
from traceview.cli import options
from traceview.cli.options import CliError
from traceview.cli.parser import Parser
from traceview.model import TraceError, printable

TOP = 10  # methods in the summary


def parser() -> argparse.ArgumentParser:
    """The `record` options."""
    p = Parser(prog="traceview record", description=__doc__)
    p.add_argument("package", help="the app's package (its process name)")
    options.add_output(p, json=False)
    p.add_argument(
        "--duration",
        type=options.duration_ns,
        metavar="TIME",
        help="record this long (e.g. 10s); default: until Enter",
    )
    p.add_argument(
        "--sampling", type=int, metavar="MICROS", help="sample every MICROS µs (default: trace)"
    )
    p.add_argument(
        "--streaming", action="store_true", help="stream to the file (no buffer size limit)"
    )
    p.add_argument(
        "--buffer-size",
        type=int,
        metavar="MB",
        help=f"room for this many MB of records (am's buffer is {AM_BUFFER_MB} MB; more "
        "records with --streaming)",
    )
    p.add_argument(
        "--cold-start", metavar="ACTIVITY", help="launch ACTIVITY (e.g. .MainActivity) traced"
    )
    p.add_argument("--serial", default=os.environ.get("ANDROID_SERIAL"), help="device serial")
    p.add_argument("--open", action="store_true", help="open the trace in the viewer")
    p.add_argument(
        "--timeout",
        type=options.duration_ns,
        default=60 * 10**9,
        metavar="TIME",
        help="how long to wait for the app to finish writing (default 60s)",
    )
    p.add_argument(
        "--device-file", metavar="PATH", help="trace file on the device (default /data/local/tmp)"
    )
    options.add_mapping(p)
    return p


def say(text: str) -> None:
    """A progress line on stderr."""
    print(f"traceview: {text}", file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    """Run `traceview record`."""
    args = parser().parse_args(argv)
    if args.sampling is not None and args.sampling <= 0:
        raise CliError("--sampling must be a positive number of microseconds")
    streaming = args.streaming
    if args.buffer_size is not None:
        if args.buffer_size <= 0:
            raise CliError("--buffer-size must be a positive number of MB")
        if args.buffer_size > AM_BUFFER_MB and not streaming:
            say(
                f"am records into a fixed {AM_BUFFER_MB} MB buffer: recording with --streaming "
                f"for room beyond it"
            )
            streaming = True
    if args.mapping is not None and not Path(args.mapping).is_file():
        raise CliError(f"--mapping {printable(args.mapping)}: no such file")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = Path(args.output or f"{args.package}-{stamp}.trace")
    try:
        adb = Adb(find_adb())
        device = pick_device(adb.devices(), args.serial)
        adb = Adb(adb.binary, device.serial)
        plan = Plan(
            package=args.package,
            device_file=args.device_file or f"/data/local/tmp/traceview-{stamp}.trace",
            sampling_us=args.sampling,
            streaming=streaming,
            cold_start=args.cold_start,
            timeout_s=args.timeout / 1e9,
            poll_s=min(0.5, args.timeout / 4e9),
        )
        rec = Recording(adb, plan, say)
        record(rec, args.duration)
        finish(rec, out)
    except CaptureError as exc:
        raise CliError(printable(str(exc))) from None
    summary(out, rec.plan.package, device.serial, args.mapping)
    if args.open:
        from traceview.cli import view

        return view.main([str(out), *(["--mapping", args.mapping] if args.mapping else [])])
    return 0


def record(rec: Recording, duration_ns: int | None) -> None:
    """Start, wait (the duration, or until Enter), stop. Ctrl-C while waiting ends early; a
    failure or Ctrl-C after the profiler may have started still stops it."""
    try:
        rec.start()
        try:
            if duration_ns is None:
                say("press Enter to stop (Ctrl-C ends too)")
                sys.stdin.readline()
            else:
                say(f"stopping in {duration_ns / 1e9:g} s (Ctrl-C ends early)")
                time.sleep(duration_ns / 1e9)
        except KeyboardInterrupt:
            say("stopping early (Ctrl-C again abandons the recording)")
        rec.stop()
    except BaseException:
        _abandon(rec)
        raise


def finish(rec: Recording, out: Path) -> None:
    """Wait for the file, pull it next to `out`, check it with the reader, move it into
    place. Ctrl-C here abandons the recording (the device file is removed)."""
    tmp = out.with_name(f".{out.name}.part")
    try:
        size = rec.wait_written()
        say(f"pulling {size:,} bytes")
        rec.pull(tmp)
        if tmp.stat().st_size == 0:
            raise CaptureError("empty trace: the pulled file holds no bytes")
        try:
            from traceview.readers import load

            load(tmp).validate()
        except TraceError as exc:
            kept = out.with_suffix(out.suffix + ".bad")
            tmp.replace(kept)
            raise CaptureError(
                f"the recorded trace does not read ({str(exc).splitlines()[0]}); the bytes "
                f"are kept in {kept}"
            ) from None
        tmp.replace(out)
    except KeyboardInterrupt:
        _abandon(rec)
        say("abandoned: the profiler is stopped and the device file removed")
        raise
    finally:
        tmp.unlink(missing_ok=True)


def _abandon(rec: Recording) -> None:
    """Stop the profiler if it runs and remove the device file (best effort)."""
    with contextlib.suppress(CaptureError, KeyboardInterrupt):
        rec.stop()
    rec.discard()


def summary(out: Path, package: str, serial: str, mapping: str | None) -> None:
    """What was recorded: variant, duration, threads and the top methods by exclusive time."""
    session = options.open_trace(str(out))
    t = session.trace
    q = session.query(rename=options.rename(mapping, session))
    methods = session.methods(q)
    prof = session.profile(q)
    clock = q.clock
    h = t.header
    mode = "sampled" if h.sampled else "traced"
    print(
        f"recorded {printable(str(out))} ({out.stat().st_size:,} bytes) from {package} on {serial}"
    )
    print(f"  variant   {h.variant}, clock {h.clock}, {mode}")
    print(f"  duration  {(session.end - session.origin) / 1e9:.3f} s")
    names = [printable(t.threads.label(r)) for r in range(len(t.threads))]
    shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
    print(f"  threads   {len(names)}: {shown}")
    excl = prof.excl[clock]
    total = max(int(prof.thread_total[clock].sum()), 1)
    rows = np.lexsort((np.arange(len(excl)), -excl))[:TOP]
    print(f"  top methods by exclusive {clock} time:")
    for m in rows:
        if excl[m] <= 0:
            break
        pct = 100 * int(excl[m]) / total
        label = printable(methods.full_name(int(m)))
        print(f"    {int(excl[m]) / 1e6:10.3f} ms {pct:5.1f}%  {label}")
    for d in session.diagnostics():
        if d.code == "data-file-overflow":
            print(f"  note: {printable(d.message)} (--streaming records without that limit)")
