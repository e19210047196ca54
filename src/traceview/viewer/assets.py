"""The viewer's static UI as shipped: which files of `viewer/static` the browser gets, served by
the live server and the service (`viewer/app.py` `static_files`) and packed into the report
(`viewer/page.py`).

`static/` may have folders; every file in it is an asset except the JavaScript unit tests
(`*.test.js`) and the `package.json` that lets `node --test` load the modules as ES modules:
those are never served, packed or put in the wheel (pyproject.toml).
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path, PurePosixPath

TEST_SUFFIX = ".test.js"
NODE_ONLY = ("package.json",)  # at the top of static/


def static_dir() -> Path:
    """The viewer's static UI (package data), read as files: served live and packed."""
    return Path(str(resources.files("traceview") / "viewer" / "static"))


def shipped(name: str) -> bool:
    """True for a path under `static/` the browser may get (not a unit test, not node's)."""
    path = PurePosixPath(name.lstrip("/"))
    return not path.name.endswith(TEST_SUFFIX) and path.as_posix() not in NODE_ONLY


def modules(folder: Path) -> Iterator[tuple[str, str]]:
    """Every shipped JS module under `folder` as (path relative to it, with `/`; source), in
    path order."""
    for path in sorted(folder.rglob("*.js")):
        name = path.relative_to(folder).as_posix()
        if shipped(name):
            yield name, path.read_text(encoding="utf-8")
