"""An upload's body streamed into its staged file (service/store.py `staging_file`) with the
SHA-256 of its bytes, raw or the first file part of a multipart form; the upload routes
(service/upload_routes.py) check and store it from there."""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import unquote

import anyio.to_thread
from starlette.datastructures import UploadFile
from starlette.requests import Request

from traceview.model import printable

CHUNK = 1 << 20


class NoFile(Exception):
    """A multipart upload without a file part."""


class NoMultipart(Exception):
    """A multipart upload, and python-multipart (Starlette's form parser) is not installed."""


class _Sink:
    """An upload's staged file and its SHA-256, fed in batches of about CHUNK bytes in a
    worker thread: a write can block when the kernel throttles dirty pages under many
    uploads, and that must not stall the event loop answering pages."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.digest = hashlib.sha256()
        self.size = 0
        self._batch: list[bytes] = []
        self._pending = 0

    async def feed(self, chunk: bytes) -> None:
        self._batch.append(chunk)
        self._pending += len(chunk)
        if self._pending >= CHUNK:
            await self.flush()

    async def flush(self) -> None:
        data = b"".join(self._batch)
        self._batch, self._pending = [], 0
        if data:
            await anyio.to_thread.run_sync(self._write, data)

    def _write(self, data: bytes) -> None:
        self.digest.update(data)  # hashlib and write release the GIL for large buffers
        self.out.write(data)
        self.size += len(data)


async def receive(request: Request, staged: Path) -> tuple[Any, int, str]:
    """Stream the upload into `staged`: (sha256 of the bytes, size, name). Multipart takes
    the first file part; any other body is the file itself."""
    name = _upload_name(request)
    with staged.open("wb") as out:
        sink = _Sink(out)
        if request.headers.get("content-type", "").startswith("multipart/form-data"):
            if importlib.util.find_spec("python_multipart") is None:
                raise NoMultipart
            form = await request.form(max_files=1, max_fields=8)
            part = next((v for v in form.values() if isinstance(v, UploadFile)), None)
            if part is None:
                await form.close()
                raise NoFile
            name = clean_name(part.filename or name)
            while chunk := await part.read(CHUNK):
                await sink.feed(chunk)
            await form.close()
        else:
            async for chunk in request.stream():
                await sink.feed(chunk)
        await sink.flush()
    return sink.digest, sink.size, name


def fsync(path: Path) -> None:
    """Flush a staged file to disk before it is checked and stored."""
    with path.open("rb+") as f:
        os.fsync(f.fileno())


def _upload_name(request: Request) -> str:
    raw = request.headers.get("x-filename") or request.query_params.get("name") or ""
    return clean_name(unquote(raw))


def clean_name(raw: str) -> str:
    """An upload's name as it is kept: the last part of a path, printable, at most 200
    characters; `upload.trace` for none, or for `.` and `..` (a name, never a folder)."""
    name = printable(raw.replace("\\", "/").rsplit("/", 1)[-1]).strip()[:200]
    return name if name.strip(".") else "upload.trace"


__all__ = ["CHUNK", "NoFile", "NoMultipart", "clean_name", "fsync", "receive"]
