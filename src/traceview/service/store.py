"""The service's storage (`traceview serve`): uploaded traces, content addressed, plus an index.

`Store` is the small interface the service talks to; `SqliteStore` is the embedded default:
raw files under `DATA/traces/ab/<sha256>` and an SQLite index `DATA/index.sqlite` (WAL,
one transaction per change). A file is written to `DATA/staging/`, fsynced, then renamed into
place before its index row commits, so a reader never sees half a file and a crash at any
point loses only what was never acknowledged; opening the store clears what such a crash left
behind: staged files are removed, files without a row are moved to `DATA/orphans/`, mappings
without a trace are removed. Each change (add, delete, set a mapping) checks and changes the
row and its files as one step under the store's lock, so concurrent requests see one order.
"""

from __future__ import annotations

import fcntl
import os
import re
import sqlite3
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from traceview.dataset.labels import check
from traceview.dataset.publish import fsync_dir

ID = re.compile(r"[0-9a-f]{64}")  # a SHA-256 in hex: the only form an id takes
SCHEMA = """
CREATE TABLE IF NOT EXISTS traces (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    size INTEGER NOT NULL,
    variant TEXT NOT NULL,
    threads INTEGER NOT NULL,
    records INTEGER NOT NULL,
    duration_us REAL NOT NULL,
    uploaded REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS traces_uploaded ON traces (uploaded);
CREATE TABLE IF NOT EXISTS labels (
    id TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (id, key)
);
CREATE INDEX IF NOT EXISTS labels_value ON labels (key, value);
"""
LABELS = ("app", "build", "branch", "device")  # what an upload may be labelled with


def check_labels(labels: dict[str, str]) -> dict[str, str]:
    """`labels` when every key is one of `LABELS` and every value follows the one rule of
    labels (`dataset/labels.py`: no path separator, control character or `..`, bounded
    length; app and build name folders) and has no comma (label sets are written
    `build:100,app:x`); ValueError naming the bad one."""
    for key, value in labels.items():
        if key not in LABELS:
            raise ValueError(f"unknown label {key[:40]!r} (labels: {', '.join(LABELS)})")
        if "," in value:
            raise ValueError(f"bad label {key}: no ',' (label sets are written key:value,...)")
    check(labels)
    return labels


class StoreBusy(OSError):
    """Another process serves from the same data folder."""


def valid_id(text: str) -> bool:
    """True when `text` is a trace id (64 lowercase hex digits), never a path."""
    return ID.fullmatch(text) is not None


def default_data_dir() -> Path:
    """The user's data directory: `$XDG_DATA_HOME/traceview` or `~/.local/share/traceview`."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "traceview"


@dataclass(frozen=True)
class TraceRecord:
    """One stored trace as the index lists it (`name` is the upload's, unescaped)."""

    id: str
    name: str
    size: int
    variant: str
    threads: int
    records: int
    duration_us: float
    uploaded: float

    def json(self) -> dict[str, Any]:
        """The record as plain JSON values."""
        return asdict(self)


class Store(Protocol):
    """What the service needs from storage."""

    def staging_file(self) -> Path:
        """A new empty file on the store's file system for an upload in progress."""

    def path(self, trace_id: str) -> Path:
        """Where the raw bytes of `trace_id` live (whether or not it is stored)."""

    def get(self, trace_id: str) -> TraceRecord | None:
        """The record of `trace_id`, or None."""

    def recent(self, limit: int = 100) -> list[TraceRecord]:
        """The last `limit` uploads, newest first."""

    def records(self) -> list[TraceRecord]:
        """Every stored trace, oldest first (the dataset's check at start, service/feed.py)."""

    def add(self, staged: Path, record: TraceRecord) -> tuple[TraceRecord, bool]:
        """Move the fsynced `staged` file into place and index it: (the stored record, True),
        or (the earlier record, False) when the same bytes were stored before — True once
        however many identical uploads race."""

    def delete(self, trace_id: str) -> bool:
        """Forget `trace_id` and remove its file; False when it was not stored."""

    def set_labels(self, trace_id: str, labels: dict[str, str]) -> None:
        """Label a stored trace (`check_labels`; a key given again replaces its value)."""

    def labels(self, trace_id: str) -> dict[str, str]:
        """The labels of `trace_id` (empty when none)."""

    def find(self, labels: dict[str, str], limit: int) -> list[str]:
        """Ids of the traces carrying all of `labels`, most recent first, at most `limit`."""

    def mapping_path(self, trace_id: str) -> Path:
        """Where the ProGuard/R8 mapping given for `trace_id` lives (whether or not it has one)."""

    def set_mapping(self, trace_id: str, staged: Path) -> bool:
        """Move the fsynced `staged` mapping into place for `trace_id` (replacing any); False
        (nothing kept) when the trace is not stored, e.g. deleted while the mapping came."""

    def delete_mapping(self, trace_id: str) -> bool:
        """Forget the mapping of `trace_id`; False when it had none."""


class SqliteStore:
    """The embedded store: files under `root/traces`, index in `root/index.sqlite`."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.traces = self.root / "traces"
        self.staging = self.root / "staging"
        self.mappings = self.root / "mappings"
        for d in (self.root, self.traces, self.staging, self.mappings):
            d.mkdir(parents=True, exist_ok=True)
        self._owner = (self.root / "lock").open("a")
        try:  # one service per folder: recovery removes what another one is writing
            fcntl.flock(self._owner, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._owner.close()
            raise StoreBusy(f"{self.root} is used by another traceview serve") from None
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            self.root / "index.sqlite", check_same_thread=False, isolation_level=None
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # an acknowledged row survives power loss
        self._db.executescript(SCHEMA)
        self._recover()

    def _recover(self) -> None:
        """Drop what a crash left: staged uploads, files without a row, rows without a file,
        mappings without a trace."""
        for f in self.staging.iterdir():
            f.unlink(missing_ok=True)
        known = {row[0] for row in self._db.execute("SELECT id FROM traces")}
        for f in self.traces.glob("*/*"):
            if f.name not in known or not valid_id(f.name):
                # renamed but never committed (never acknowledged) — or an index that was
                # lost: set aside rather than deleted, so no upload is destroyed by accident
                orphans = self.root / "orphans"
                orphans.mkdir(exist_ok=True)
                os.replace(f, orphans / f.name)
        missing = [i for i in known if not self.path(i).is_file()]
        kept = known.difference(missing)
        for f in self.mappings.iterdir():  # a delete cut short: no trace for it to rename
            if f.name.removesuffix(".txt") not in kept:
                f.unlink(missing_ok=True)
        with self._change() as db:
            db.executemany("DELETE FROM traces WHERE id = ?", [(i,) for i in missing])

    @contextmanager
    def _change(self) -> Iterator[sqlite3.Connection]:
        """One change as one step: the store's lock and an IMMEDIATE transaction, committed
        when the block ends, rolled back when it raises. What a change checks (is the trace
        stored?) holds until its files and row are changed."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def close(self) -> None:
        """Close the index and let another process use the folder."""
        with self._lock:
            self._db.close()
        self._owner.close()

    def staging_file(self) -> Path:
        fd, name = tempfile.mkstemp(dir=self.staging, prefix="upload-")
        os.close(fd)
        return Path(name)

    def path(self, trace_id: str) -> Path:
        if not valid_id(trace_id):
            raise ValueError("not a trace id")
        return self.traces / trace_id[:2] / trace_id

    def get(self, trace_id: str) -> TraceRecord | None:
        if not valid_id(trace_id):
            return None
        with self._lock:
            row = self._db.execute("SELECT * FROM traces WHERE id = ?", (trace_id,)).fetchone()
        return TraceRecord(*row) if row else None

    def recent(self, limit: int = 100) -> list[TraceRecord]:
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM traces ORDER BY uploaded DESC, id LIMIT ?", (limit,)
            ).fetchall()
        return [TraceRecord(*r) for r in rows]

    def records(self) -> list[TraceRecord]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM traces ORDER BY uploaded, id").fetchall()
        return [TraceRecord(*r) for r in rows]

    def add(self, staged: Path, record: TraceRecord) -> tuple[TraceRecord, bool]:
        target = self.path(record.id)
        target.parent.mkdir(exist_ok=True)
        # the check, the rename and the row in one step: identical uploads racing each other
        # all saw "new" (and answered 201), and a delete racing the rename could unlink the
        # file of a row committed after it
        with self._change() as db:
            row = db.execute("SELECT * FROM traces WHERE id = ?", (record.id,)).fetchone()
            if row is not None:
                staged.unlink(missing_ok=True)
                return TraceRecord(*row), False
            os.replace(staged, target)
            fsync_dir(target.parent)
            self.mapping_path(record.id).unlink(missing_ok=True)  # nobody sent it for this one
            # a plain INSERT: the id is the primary key, a second row for it is an error
            db.execute(
                "INSERT INTO traces VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (*asdict(record).values(),)
            )
        return record, True

    def delete(self, trace_id: str) -> bool:
        if not valid_id(trace_id):
            return False
        with self._change() as db:  # no add or mapping of this id comes in between
            gone = db.execute("DELETE FROM traces WHERE id = ?", (trace_id,)).rowcount
            db.execute("DELETE FROM labels WHERE id = ?", (trace_id,))
            if gone:  # a crash before the commit leaves a row without a file: dropped on open
                self.path(trace_id).unlink(missing_ok=True)
                self.mapping_path(trace_id).unlink(missing_ok=True)
        return bool(gone)

    def set_labels(self, trace_id: str, labels: dict[str, str]) -> None:
        if not valid_id(trace_id):
            raise ValueError("not a trace id")
        check_labels(labels)
        with self._change() as db:  # a delete in between leaves no labels without a trace
            if db.execute("SELECT 1 FROM traces WHERE id = ?", (trace_id,)).fetchone() is None:
                return
            db.executemany(
                "INSERT OR REPLACE INTO labels VALUES (?, ?, ?)",
                [(trace_id, k, v) for k, v in sorted(labels.items())],
            )

    def labels(self, trace_id: str) -> dict[str, str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT key, value FROM labels WHERE id = ? ORDER BY key", (trace_id,)
            ).fetchall()
        return {k: v for k, v in rows}

    def find(self, labels: dict[str, str], limit: int) -> list[str]:
        check_labels(labels)
        if not labels:
            return []
        where = " AND ".join(
            "EXISTS (SELECT 1 FROM labels l WHERE l.id = t.id AND l.key = ? AND l.value = ?)"
            for _ in labels
        )
        args = [x for kv in sorted(labels.items()) for x in kv]
        with self._lock:
            rows = self._db.execute(
                f"SELECT t.id FROM traces t WHERE {where} ORDER BY t.uploaded DESC, t.id LIMIT ?",
                (*args, limit),
            ).fetchall()
        return [r[0] for r in rows]

    def mapping_path(self, trace_id: str) -> Path:
        if not valid_id(trace_id):
            raise ValueError("not a trace id")
        return self.mappings / f"{trace_id}.txt"

    def set_mapping(self, trace_id: str, staged: Path) -> bool:
        target = self.mapping_path(trace_id)
        with self._change() as db:  # a delete removes the row and the mapping in one change
            if db.execute("SELECT 1 FROM traces WHERE id = ?", (trace_id,)).fetchone() is None:
                staged.unlink(missing_ok=True)
                return False
            os.replace(staged, target)
            fsync_dir(target.parent)
        return True

    def delete_mapping(self, trace_id: str) -> bool:
        target = self.mapping_path(trace_id)
        with self._change():  # one order with set_mapping and delete
            if not target.is_file():
                return False
            target.unlink()
            fsync_dir(target.parent)
        return True


def now() -> float:
    """Upload time stamps: seconds since the epoch."""
    return time.time()
