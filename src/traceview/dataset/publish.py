"""Several writers on one dataset at once (`dataset add` in many processes, `dataset rm`):
each writes in its own staging folder and makes its work visible in one short step under the
dataset's lock, so a reader never sees a part half written and a trace is never added twice.

* `Writer(root)`: a writer's folder `ROOT/_staging/<writer>/`, with a lock file held while the
  writer lives (the kernel drops it when the process dies, so a crash is told from a writer
  at work without trusting process ids).
* `claim(ids)`, under the dataset lock: the trace ids no one has added (the traces and
  errors tables) and no live writer is adding (`ROOT/_claims/<trace_id>`) become this
  writer's; a dead writer's claims are taken over.
* `publish(moves, deletes)`, under the lock: a journal listing every rename is written
  first (atomically), then each staged part is renamed into its place (one atomic rename per
  file), emptied parts are deleted and the claims dropped. A writer killed in the middle
  leaves its journal: the next writer to take the lock finishes those renames (`recover`),
  so a publication is all or nothing once its journal exists, and before that nothing of
  it is visible; once `publish` returns its renames are on disk (the folders fsynced), so
  what is recorded after it (the service's `_published`) never outlives it in a power
  loss. A dead writer's folder without a journal is removed.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import shutil
import socket
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

STAGING = "_staging"
CLAIMS = "_claims"
LOCK = "_lock"
JOURNAL = "JOURNAL"
ALIVE = ".alive"


@contextlib.contextmanager
def locked(root: Path) -> Iterator[None]:
    """The dataset's lock (an exclusive `flock` on ROOT/_lock), held briefly by writers."""
    with (root / LOCK).open("a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


class Writer:
    """One writer's staging folder and liveness lock; a context manager that removes the
    folder when done (published or not)."""

    def __init__(self, root: Path) -> None:
        host = "".join(c for c in socket.gethostname() if c.isalnum() or c in "-.")[:40]
        self.root = root
        self.name = f"{host or 'host'}-{os.getpid()}-{secrets.token_hex(4)}"
        self.staging = root / STAGING / self.name
        self._alive: IO[str] | None = None

    def __enter__(self) -> Writer:
        self.staging.mkdir(parents=True)
        self._alive = (self.staging / ALIVE).open("w")
        fcntl.flock(self._alive, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return self

    def __exit__(self, *exc: object) -> None:
        # a publication stopped half-way keeps its folder: the next writer finishes it
        if not (self.staging / JOURNAL).exists():
            shutil.rmtree(self.staging, ignore_errors=True)
        if self._alive is not None:
            self._alive.close()

    def claim(self, ids: Iterable[str], known: set[str]) -> list[str]:
        """Of `ids`, those not in `known` (published) nor claimed by a live writer, claimed
        for this one (call under `locked`)."""
        folder = self.root / CLAIMS
        folder.mkdir(exist_ok=True)
        mine = []
        for tid in ids:
            if tid in known:
                continue
            claim = folder / tid
            with contextlib.suppress(FileNotFoundError):
                owner = claim.read_text().strip()
                if owner != self.name and alive(self.root, owner):
                    continue
            write_atomic(claim, self.name)
            mine.append(tid)
        return mine

    def release(self, ids: Iterable[str]) -> None:
        """Drop this writer's claims on `ids` (call under `locked`)."""
        for tid in ids:
            _drop_claim(self.root, tid, self.name)

    def publish(
        self, moves: list[tuple[Path, Path]], deletes: Iterable[Path], claims: Iterable[str]
    ) -> None:
        """Rename each staged file (relative to the staging folder) over its place (relative
        to ROOT), delete `deletes` (relative to ROOT) and drop `claims`: journal first (call
        under `locked`)."""
        journal = {
            "moves": [[str(a), str(b)] for a, b in moves],
            "deletes": [str(d) for d in deletes],
            "claims": list(claims),
            "writer": self.name,
        }
        write_atomic(self.staging / JOURNAL, json.dumps(journal))
        _apply(self.root, self.staging)


def alive(root: Path, writer: str) -> bool:
    """True while the writer `writer` runs (its liveness lock is held)."""
    try:
        f = (root / STAGING / writer / ALIVE).open("a")
    except OSError:
        return False
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(f, fcntl.LOCK_UN)
        return False


def recover(root: Path) -> None:
    """Finish the publications of dead writers, remove their staging folders and their
    claims (call under `locked`)."""
    staging = root / STAGING
    if staging.is_dir():
        for folder in sorted(staging.iterdir()):
            if not folder.is_dir() or alive(root, folder.name):
                continue
            if (folder / JOURNAL).is_file():
                _apply(root, folder)
            shutil.rmtree(folder, ignore_errors=True)
    claims = root / CLAIMS
    if claims.is_dir():
        for claim in claims.iterdir():
            with contextlib.suppress(OSError):
                if not alive(root, claim.read_text().strip()):
                    claim.unlink()


def _apply(root: Path, folder: Path) -> None:
    """Carry out the journal in `folder` (again, after a crash: every step can be
    repeated), then remove it."""
    journal = json.loads((folder / JOURNAL).read_text())
    touched: set[Path] = set()
    for src, dst in journal["moves"]:
        source, target = folder / src, root / dst
        if source.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
        touched.add(target.parent)
    for gone in journal["deletes"]:
        (root / gone).unlink(missing_ok=True)
        touched.add((root / gone).parent)
    for where in sorted(touched):  # the renames on disk before anything counts on them
        with contextlib.suppress(FileNotFoundError):
            fsync_dir(where)
    for tid in journal["claims"]:
        _drop_claim(root, tid, journal["writer"])
    (folder / JOURNAL).unlink()


def _drop_claim(root: Path, tid: str, writer: str) -> None:
    claim = root / CLAIMS / tid
    with contextlib.suppress(FileNotFoundError):
        if claim.read_text().strip() == writer:
            claim.unlink()


def fsync_dir(path: Path) -> None:
    """Make the names in folder `path` (a rename into it) durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, text: str) -> None:
    """`path` holds `text`, whole or not at all, on disk (its folder's entry: `fsync_dir`)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


__all__ = ["Writer", "alive", "fsync_dir", "locked", "recover", "write_atomic"]
