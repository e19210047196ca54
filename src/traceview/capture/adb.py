"""`adb` as the recorder uses it: find the binary, pick the device, run a device shell
command, and recognise the refusals of `adb` and `am` so each becomes one sentence.

Nothing here prints: failures raise `CaptureError` (the CLI turns it into one line, exit 2).
The texts recognised are the ones `adb` and the framework print: `adb: no devices/emulators
found` (older: `error: no devices/emulators found`), `more than one device/emulator`,
`device 'X' not found`; from `am`: `java.lang.IllegalArgumentException: Unknown process: P`
(ActivityManagerService.profileControl / findProcessLOSP), `Process not running: P`,
`java.lang.SecurityException: Process not debuggable: P` (enforceDebuggable),
`PROFILE FAILED on process P`, and `am start`'s `Error: ...` / `Error type N` lines.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Adb", "CaptureError", "Device", "am_failure", "find_adb", "pick_device"]

_NAME = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_.:$/]*$")  # package, process, activity: no shell
_COMMAND_TIMEOUT = 60.0  # seconds for one adb command (pulling a large trace included)


class CaptureError(Exception):
    """A recording cannot go on: one sentence saying why and what to do."""


@dataclass(frozen=True)
class Device:
    """One line of `adb devices`: its serial and state (device, unauthorized, offline...)."""

    serial: str
    state: str


def find_adb() -> str:
    """The adb to run: $ADB when set, else `adb` on PATH."""
    found = os.environ.get("ADB") or shutil.which("adb")
    if not found:
        raise CaptureError(
            "adb not found: install the Android platform tools (Debian/Ubuntu: apt install "
            "adb) or put adb on PATH (or set ADB=/path/to/adb)"
        )
    return found


def parse_devices(text: str) -> list[Device]:
    """The devices `adb devices` lists (its header and daemon notes skipped)."""
    out = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and not line.startswith(("List of devices", "*")):
            out.append(Device(parts[0], parts[1]))
    return out


def pick_device(devices: Sequence[Device], serial: str | None) -> Device:
    """The device to record on: `serial`'s, or the only one; else a CaptureError."""
    if serial is not None:
        match = [d for d in devices if d.serial == serial]
        if not match:
            listed = ", ".join(d.serial for d in devices) or "none"
            raise CaptureError(f"no device with serial {serial} (adb devices lists: {listed})")
        device = match[0]
    elif not devices:
        raise CaptureError(
            "no device: connect one with USB debugging on, or start an emulator "
            "(adb devices lists none)"
        )
    elif len(devices) > 1:
        listed = ", ".join(d.serial for d in devices)
        raise CaptureError(f"several devices ({listed}): pick one with --serial")
    else:
        device = devices[0]
    if device.state == "unauthorized":
        raise CaptureError(
            f"device {device.serial} is unauthorized: accept the USB debugging prompt on it"
        )
    if device.state != "device":
        raise CaptureError(f"device {device.serial} is {device.state}, not ready")
    return device


def check_name(name: str, what: str) -> str:
    """`name` if it is a plain package/process/activity name (it goes into a device shell)."""
    if not _NAME.match(name):
        raise CaptureError(f"{what} {name!r} is not a package, process or activity name")
    return name


def am_failure(output: str, package: str) -> str | None:
    """The sentence for an `am` refusal in `output`, or None when `am` accepted."""
    text = output.strip()
    if "not debuggable" in text:
        return (
            f"{package} is not debuggable: record a debuggable build (a debug variant, or "
            "android:debuggable / profileable in the manifest) or use a userdebug device"
        )
    if "Unknown process" in text or "Process not running" in text:
        return f"{package} is not running: start the app, or record its start with --cold-start"
    if "PROFILE FAILED" in text:
        return f"am could not start the profiler in {package} ({_first(text, 'PROFILE FAILED')})"
    for marker in ("Error:", "Error type", "Exception", "Security exception"):
        if marker in text:
            return f"am refused: {_first(text, marker)}"
    return None


def _first(text: str, marker: str) -> str:
    """The first line of `text` holding `marker`, stripped."""
    for line in text.splitlines():
        if marker in line:
            return line.strip()
    return text.splitlines()[0].strip() if text else ""


class Adb:
    """Runs adb commands against one device (`-s SERIAL` once a device is picked)."""

    def __init__(self, binary: str, serial: str | None = None) -> None:
        self.binary = binary
        self.serial = serial

    def run(self, *args: str, timeout: float = _COMMAND_TIMEOUT) -> str:
        """Run `adb [-s SERIAL] ARGS...`; its stdout and stderr together (adb's own failures
        become a CaptureError)."""
        argv = [self.binary, *(["-s", self.serial] if self.serial else []), *args]
        try:
            done = subprocess.run(
                argv,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except FileNotFoundError:
            raise CaptureError(f"adb not found at {self.binary}") from None
        except subprocess.TimeoutExpired:
            raise CaptureError(
                f"adb {' '.join(args[:3])} did not answer in {timeout:.0f} s"
            ) from None
        output = done.stdout + done.stderr
        problem = _adb_failure(output)
        if problem is not None:
            raise CaptureError(problem)
        return output

    def shell(self, *args: str, timeout: float = _COMMAND_TIMEOUT) -> str:
        """Run a command in the device shell (arguments must be shell-safe: see check_name)."""
        return self.run("shell", *args, timeout=timeout)

    def devices(self) -> list[Device]:
        """The devices adb sees."""
        return parse_devices(Adb(self.binary).run("devices"))


def _adb_failure(output: str) -> str | None:
    """adb's own refusals (not the device command's)."""
    low = output.lower()
    if "no devices/emulators found" in low:
        return "no device: connect one with USB debugging on, or start an emulator"
    if "more than one device" in low:
        return "several devices: pick one with --serial"
    m = re.search(r"device '([^']*)' not found", output)
    if m:
        return f"no device with serial {m.group(1)}"
    if "device unauthorized" in low:
        return "the device is unauthorized: accept the USB debugging prompt on it"
    if "device offline" in low:
        return "the device is offline: reconnect it (adb reconnect)"
    return None
