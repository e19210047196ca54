"""A fake `adb` for the recorder's tests: a script on PATH that logs every command it gets and
plays one device (or none, or several) from a JSON config: whether the app runs, what `am`
answers, the trace the app writes when the profiler stops, a file that keeps growing, an
empty file. Device paths map to files under `state/device/`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

SCRIPT = r"""#!{python}
import json, os, shutil, sys
from pathlib import Path

state = Path(os.environ["FAKE_ADB_STATE"])
config = json.loads((state / "config.json").read_text())
argv = sys.argv[1:]
with (state / "log.jsonl").open("a") as log:
    log.write(json.dumps(argv) + "\n")
serial = None
if argv[:1] == ["-s"]:
    serial, argv = argv[1], argv[2:]
devices = config.get("devices", [["emulator-5554", "device"]])

def device_file(path):
    return state / "device" / path.replace("/", "_")

if argv == ["devices"]:
    print("List of devices attached")
    for s, st in devices:
        print(f"{{s}}\t{{st}}")
    print()
    sys.exit(0)
if serial is None and len(devices) > 1:
    print("adb: more than one device/emulator", file=sys.stderr)
    sys.exit(1)
if not devices:
    print("adb: no devices/emulators found", file=sys.stderr)
    sys.exit(1)
if serial is not None and serial not in [d[0] for d in devices]:
    print(f"adb: device '{{serial}}' not found", file=sys.stderr)
    sys.exit(1)
if argv[:1] == ["pull"]:
    src = device_file(argv[1])
    if not src.exists():
        print(f"adb: error: failed to stat remote object '{{argv[1]}}': "
              "No such file or directory", file=sys.stderr)
        sys.exit(1)
    shutil.copyfile(src, argv[2])
    print(f"{{argv[1]}}: 1 file pulled, 0 skipped.")
    sys.exit(0)
if argv[:1] != ["shell"]:
    print(f"fake adb: unknown command {{argv}}", file=sys.stderr)
    sys.exit(1)
cmd = argv[1:]
if cmd[:1] == ["pidof"]:
    if config.get("running", True):
        print("12345")
        sys.exit(0)
    sys.exit(1)
if cmd[:2] == ["rm", "-f"]:
    device_file(cmd[2]).unlink(missing_ok=True)
    sys.exit(0)
if cmd[:3] == ["stat", "-c", "%s"]:
    f = device_file(cmd[3])
    if not f.exists():
        print(f"stat: '{{cmd[3]}}': No such file or directory")
        sys.exit(1)
    if config.get("growing"):
        with f.open("ab") as out:
            out.write(b"x" * 100)
    print(f.stat().st_size)
    sys.exit(0)
def write_trace(path):
    target = device_file(path)
    target.parent.mkdir(exist_ok=True)
    (state / "profiling").write_text(path)
    if config.get("empty"):
        target.write_bytes(b"")
    elif config.get("growing"):
        target.write_bytes(b"SLOW")
if cmd[:3] == ["am", "profile", "start"]:
    out = config.get("profile_start_output", "")
    if out:
        print(out)
        sys.exit(0)
    write_trace(cmd[-1])
    sys.exit(0)
if cmd[:2] == ["am", "start"]:
    out = config.get("am_start_output")
    if out is not None:
        print(out)
        sys.exit(0)
    write_trace(cmd[cmd.index("--start-profiler") + 1])
    print("Starting: Intent {{ cmp=" + cmd[-1] + " }}")
    print("Status: ok\nLaunchState: COLD\nTotalTime: 812\nWaitTime: 815\nComplete")
    sys.exit(0)
if cmd[:3] == ["am", "profile", "stop"]:
    marker = state / "profiling"
    if marker.exists():
        path = marker.read_text()
        marker.unlink()
        if config.get("trace") and not config.get("empty") and not config.get("growing"):
            shutil.copyfile(config["trace"], device_file(path))
    sys.exit(0)
print(f"fake adb: unknown shell command {{cmd}}", file=sys.stderr)
sys.exit(1)
"""


class FakeAdb:
    """The installed fake: its state folder, config and command log."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.state = root / "adb-state"
        self.bin = root / "bin"

    def configure(self, **config: Any) -> None:
        (self.state / "config.json").write_text(json.dumps(config))

    def log(self) -> list[list[str]]:
        path = self.state / "log.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines()]

    def shell_commands(self) -> list[str]:
        """The device shell commands received, as one string each."""
        out = []
        for argv in self.log():
            if argv[:1] == ["-s"]:
                argv = argv[2:]
            if argv[:1] == ["shell"]:
                out.append(" ".join(argv[1:]))
        return out

    def env(self) -> dict[str, str]:
        """An environment that finds this adb first."""
        env = dict(os.environ)
        env["PATH"] = f"{self.bin}{os.pathsep}{env.get('PATH', '')}"
        env["FAKE_ADB_STATE"] = str(self.state)
        env.pop("ADB", None)
        env.pop("ANDROID_SERIAL", None)
        return env


def install(root: Path, monkeypatch: pytest.MonkeyPatch | None = None, **config: Any) -> FakeAdb:
    """Write the fake adb under `root` (and put it on PATH through `monkeypatch`)."""
    fake = FakeAdb(root)
    fake.bin.mkdir(parents=True, exist_ok=True)
    (fake.state / "device").mkdir(parents=True, exist_ok=True)
    script = fake.bin / "adb"
    script.write_text(SCRIPT.format(python=sys.executable))
    script.chmod(0o755)
    fake.configure(**config)
    if monkeypatch is not None:
        for key, value in fake.env().items():
            if os.environ.get(key) != value:
                monkeypatch.setenv(key, value)
        monkeypatch.delenv("ADB", raising=False)
        monkeypatch.delenv("ANDROID_SERIAL", raising=False)
    return fake
