"""The service's dataset kept in step with its store (docs/serve.md): each stored run is in the
dataset with the labels and ProGuard/R8 mapping it is stored with now, a deleted one is not.

One rule, `Feed.sync`: what a run is stored with (its labels, by `dataset/labels.py`, and its
mapping file, named by the file's identity: a mapping is only ever put in place by renaming a
new file over it) is compared with what was last published for it, recorded in
`DATASET/_published/<id>` only after that publication is on disk; when they differ (or no
record exists) the run is added again, its old rows replaced in one publication
(`dataset.add`); a run no longer stored leaves the dataset (`dataset.remove`). Each change
(upload, labels, mapping given or removed, deletion) syncs its run once answered; `start`
syncs every run in the background, so a stop between a stored change and its publication is
made good on the next start, in one publication and one pass over the dataset (a run the
dataset holds without a record, from a service before this one, is kept when its rows carry
its labels and it has no mapping). The methods pages wait for it (`settled`).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sys
import threading
from collections.abc import Collection
from pathlib import Path

import anyio

from traceview.dataset import labels as labelling
from traceview.dataset.publish import fsync_dir, write_atomic
from traceview.model import printable
from traceview.readers.files import stamp
from traceview.service.staging import clean_name
from traceview.service.store import Store, TraceRecord, valid_id

PATIENCE = 10.0  # seconds a methods page waits for the start's sync before answering 503
RECORDS = "_published"  # what each run was last published with
LINKS = "_uploads"  # the dataset names a trace by its file: a link named as the upload


class Feed:
    """The dataset at `root` of the traces of `store`; `ready` is set once the start's sync
    is done (failed or not)."""

    def __init__(self, root: Path, store: Store) -> None:
        self.root = root
        self.store = store
        self.lock = threading.Lock()  # one sync at a time
        self.ready = threading.Event()
        self.patience = PATIENCE

    def start(self) -> None:
        """Sync every run, and drop the rows of runs no longer stored, in the background."""

        def every() -> None:
            try:
                with self.lock:
                    self._sync(None)
            except Exception as exc:  # the dataset is a by-product: never fail the service
                _note(exc)
            finally:
                self.ready.set()

        threading.Thread(target=every, name="traceview-dataset", daemon=True).start()

    def sync(self, trace_id: str) -> None:
        """Bring the run `trace_id` to what it is stored with now (after the start's sync); a
        failure is a line on stderr (the next change or start tries again)."""
        self.ready.wait()
        try:
            with self.lock:
                self._sync([trace_id])
        except Exception as exc:  # the dataset is a by-product: never fail the service
            _note(exc)

    async def settled(self) -> bool:
        """True once the start's sync is done; False after waiting `patience` seconds."""
        waited = 0.0
        while not self.ready.is_set():
            if waited >= self.patience:
                return False
            await anyio.sleep(0.05)
            waited += 0.05
        return True

    def _sync(self, ids: Collection[str] | None) -> None:
        """`ids` (None: every run, the stored and the dataset's) as they are stored."""
        from traceview.dataset.remove import remove

        if ids is None:
            runs = {r.id: r for r in self.store.records()}
        else:
            runs = {i: r for i in ids if (r := self.store.get(i)) is not None}
        had = self._recorded(ids)
        want = {}
        for i in runs:
            try:
                want[i] = self._state(i)
            except ValueError as exc:  # labels stored under an older rule: left as they are
                _note(exc)
        todo = sorted(i for i in want if had.get(i) != _text(*want[i]))
        unstored = (set(had) | set(ids or ())) - set(runs)
        if ids is not None and not todo and not unstored:
            return  # published as it is stored: not a part read
        present = self._present()
        if ids is None:
            todo = sorted(i for i in want if had.get(i) != _text(*want[i]) or i not in present)
            todo = self._adopt(todo, had, want, present)
            unstored |= present - set(runs)
        gone = sorted(unstored & present)
        if gone:
            remove(self.root, gone)
        for i in unstored:
            (self.root / RECORDS / i).unlink(missing_ok=True)
        if todo:
            self._add([runs[i] for i in todo], want, bool(present.intersection(todo)))

    def _state(self, trace_id: str) -> tuple[dict[str, str], list[int] | None]:
        """The run's labels and its mapping file's identity (None: no mapping) now."""
        labels = dict(labelling.check(self.store.labels(trace_id)))
        mapping = stamp(self.store.mapping_path(trace_id))
        return labels, list(mapping) if mapping is not None else None

    def _add(
        self,
        records: list[TraceRecord],
        want: dict[str, tuple[dict[str, str], list[int] | None]],
        replacing: bool,
    ) -> None:
        """The runs `records` added with the state read before (a later change syncs again)
        in one publication, then each one's record."""
        from traceview.dataset.add import Source, add

        links = self.root / LINKS
        shutil.rmtree(links, ignore_errors=True)  # a stop's leftovers
        sources = []
        for r in records:
            link = links / r.id / clean_name(r.name)  # (a store's older names too)
            link.parent.mkdir(parents=True)
            link.symlink_to(self.store.path(r.id))
            labels, mapping = want[r.id]
            sources.append(Source(link, labels, self.store.mapping_path(r.id) if mapping else None))
        try:
            report = add(self.root, sources, workers=1, replacing=replacing)
        finally:
            shutil.rmtree(links, ignore_errors=True)
        done = {t for t, *_ in (*report.added, *report.failed)}
        self._record({r.id: _text(*want[r.id]) for r in records if r.id in done})
        for folder, why in report.unmerged:  # the runs are in; their small parts stay apart
            print(
                f"traceview serve: dataset: {folder}: small parts left unmerged: {why}",
                file=sys.stderr,
            )

    def _adopt(
        self,
        todo: list[str],
        had: dict[str, str],
        want: dict[str, tuple[dict[str, str], list[int] | None]],
        present: set[str],
    ) -> list[str]:
        """`todo` without the runs a service before this one published (no record) whose
        rows carry the labels they have and that have no mapping: recorded as they are."""
        from traceview.api.traces import Origin
        from traceview.dataset.read import sql

        maybe = {i for i in todo if i not in had and i in present and want[i][1] is None}
        if not maybe:
            return todo
        query = "SELECT trace_id, app, build, branch, device, labels FROM traces"
        rows = {r[0]: tuple(r[1:]) for r in sql(self.root, query).rows if r[0] in maybe}
        kept = {}
        for i in maybe:
            o = Origin(i, labels=labelling.check(want[i][0]))
            if rows.get(i) == (o.app, o.build, o.label("branch"), o.label("device"), o.others()):
                kept[i] = _text(*want[i])
        self._record(kept)
        return [i for i in todo if i not in kept]

    def _present(self) -> set[str]:
        """The runs the dataset holds (none when there is no dataset yet)."""
        from traceview.dataset.layout import MARKER
        from traceview.dataset.read import published_ids, settle

        if not (self.root / MARKER).is_file():
            return set()
        settle(self.root)  # a publication a stop cut short is finished first
        return published_ids(self.root)

    def _recorded(self, ids: Collection[str] | None) -> dict[str, str]:
        """What the runs `ids` (None: all) were last published with."""
        folder = self.root / RECORDS
        if ids is None:
            files = list(folder.iterdir()) if folder.is_dir() else []
        else:
            files = [folder / i for i in ids if valid_id(i)]
        out = {}
        for f in files:
            if not valid_id(f.name):  # a record being written when the service stopped
                f.unlink(missing_ok=True)
                continue
            with contextlib.suppress(FileNotFoundError):
                out[f.name] = f.read_text()
        return out

    def _record(self, texts: dict[str, str]) -> None:
        """Record what each run was published with (after the publication: on disk by
        then), each file whole or not at all."""
        if not texts:
            return
        folder = self.root / RECORDS
        folder.mkdir(exist_ok=True)
        for trace_id, text in texts.items():
            write_atomic(folder / trace_id, text)
        fsync_dir(folder)


def _text(labels: dict[str, str], mapping: list[int] | None) -> str:
    return json.dumps({"labels": labels, "mapping": mapping}, sort_keys=True)


def _note(exc: Exception) -> None:
    print(f"traceview serve: dataset: {printable(str(exc))}", file=sys.stderr)


__all__ = ["PATIENCE", "Feed"]
