"""The viewer's static UI as shipped: which files of `viewer/static` the browser gets, served by
the live server and the service (`viewer/served.py`) and packed into the report
(`viewer/page.py`).

`static/` may have folders; every file in it is an asset except the JavaScript unit tests
(`*.test.js`) and the `package.json` that lets `node --test` load the modules as ES modules:
those are never served, packed or put in the wheel (pyproject.toml).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from importlib import resources
from pathlib import Path, PurePosixPath

TEST_SUFFIX = ".test.js"
NODE_ONLY = ("package.json",)  # at the top of static/
# a module specifier written literally: `from "./x.js"`, `import "../a/x.js"`, `import("./x.js")`
SPECIFIER = re.compile(
    r"""(\bfrom\s*|\bimport\s*|\bimport\s*\(\s*)(["'])(\.{1,2}/[A-Za-z0-9_./-]+\.js)\2"""
)


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


def asset_path(name: str) -> str:
    """`name` (relative to static/) normalised; ValueError when it leaves the folder."""
    path = posixpath.normpath(name)
    if path.startswith("../") or path == ".." or path.startswith("/"):
        raise ValueError(f"{name}: outside the viewer's static folder")
    return path


def resolve(module: str, specifier: str) -> str:
    """The path (relative to static/) that `module` means by the relative `specifier`."""
    return asset_path(posixpath.join(posixpath.dirname(module), specifier))


def imported(module: str, text: str) -> list[str]:
    """The modules the source `text` of `module` imports (paths relative to static/)."""
    return [resolve(module, m.group(3)) for m in SPECIFIER.finditer(text)]
