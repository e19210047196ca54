"""ANR reports and bugreport zips carrying low-overhead dumps (format.md §1.8), as Android
writes them, for the tests: per process, ART's SIGQUIT dump (`----- pid N at DATE -----`,
`Cmd line:`, build lines, `LongRunningMethods: <base64>` while tracing, thread stacks, `-----
end N -----`); a bugreport keeps the ANR files under `FS/data/anr/` and repeats the last one
in its main text.
"""

from __future__ import annotations

import base64
import io
import zipfile
from dataclasses import dataclass

__all__ = ["ProcessText", "anr_report", "bugreport_zip"]

DATE = "2025-07-01 12:00:00.123456789+0000"


@dataclass(frozen=True)
class ProcessText:
    """One process of a report: its pid, command line and dump (None: it was not tracing)."""

    pid: int
    name: str
    dump: bytes | None = None


def _sigquit(proc: ProcessText) -> str:
    """`SignalCatcher::HandleSigQuit`'s text for one process (stacks abridged)."""
    out = f"\n----- pid {proc.pid} at {DATE} -----\n"
    out += f"Cmd line: {proc.name}\n"
    out += "Build fingerprint: 'google/tokay/tokay:16/BP2A.250605.031/1:user/release-keys'\n"
    out += "ABI: 'arm64'\nBuild type: optimized\nDebug Store: 1,0,1234::\n"
    if proc.dump is not None:
        out += "LongRunningMethods: " + base64.b64encode(proc.dump).decode("ascii") + "\n"
    out += "suspend all histogram:\tSum: 1.2ms 99% C.I. 2us-250us Avg: 18us Max: 300us\n"
    out += "DALVIK THREADS (2):\n"
    out += '"main" prio=5 tid=1 Native\n  | group="main" sCount=1 ucsCount=0 flags=1\n'
    out += "  native: #00 pc 000a5f88  /apex/com.android.runtime/lib64/bionic/libc.so\n"
    out += "  at android.os.MessageQueue.nativePollOnce(Native method)\n\n"
    return out + f"----- end {proc.pid} -----\n"


def anr_report(processes: list[ProcessText], subject: str = "Input dispatching timed out") -> bytes:
    """An `/data/anr/anr_*` file: a subject, then each process's dump (the one that hung
    first)."""
    text = f"Subject: {subject}\n" + "".join(_sigquit(p) for p in processes)
    return text.encode("utf-8", "surrogateescape")


def bugreport_zip(anr_files: dict[str, bytes], *, main: bool = True) -> bytes:
    """A bugreport zip holding the ANR files (by name, e.g. `anr_2025-07-01-12-00-00-123`)
    under `FS/data/anr/`, and (`main`) a main text repeating the last one."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("version.txt", "2.0")
        for name, text in sorted(anr_files.items()):
            archive.writestr(f"FS/data/anr/{name}", text)
        if main and anr_files:
            last = max(anr_files)
            head = f"== dumpstate: {DATE[:19]}\n========================================\n"
            body = f"------ VM TRACES AT LAST ANR (/data/anr/{last}: {DATE[:19]}) ------\n"
            archive.writestr(
                "bugreport-tokay-BP2A.txt", head.encode() + body.encode() + anr_files[last]
            )
        archive.writestr("proto/activity.proto", bytes(range(256)) * 4)
    return out.getvalue()
