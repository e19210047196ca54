"""`traceview serve [--host H] [--port P] [--data DIR] [--max-upload SIZE] [--token T]`: the
trace service (service/routes.py) under uvicorn, on 127.0.0.1:8192 unless told otherwise.

Storage lives under `--data` (default: the user's data directory, service/store.py); sizes are
bytes or a number with K/M/G (`500M`, `2G`); `--token` (or `TRACEVIEW_TOKEN`) guards upload
and delete; `--client-timeout` and `--min-rate` bound how long a client may stall.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
from pathlib import Path

from traceview.cli import options
from traceview.cli.memory import release_freed_memory
from traceview.cli.view import allowed_hosts, bind, url_for
from traceview.service.probe import Limits
from traceview.service.sessions import BUDGET
from traceview.service.store import default_data_dir
from traceview.viewer.guard import Timeouts, head_deadline


def parser() -> argparse.ArgumentParser:
    """The argument parser of `traceview serve`."""
    p = argparse.ArgumentParser(
        prog="traceview serve",
        description="Run a trace service: upload traces, share a viewer page for each.",
    )
    options.add_listening(p, 8192, "default 8192")
    p.add_argument(
        "--data", default=None, metavar="DIR", help="storage folder (default: the user data dir)"
    )
    p.add_argument(
        "--max-upload", default="2G", metavar="SIZE", help="largest upload, e.g. 500M (default 2G)"
    )
    p.add_argument(
        "--token",
        default=None,
        metavar="T",
        help="token required to upload and delete (or TRACEVIEW_TOKEN)",
    )
    p.add_argument(
        "--memory",
        default=None,
        metavar="SIZE",
        help="memory for open traces, e.g. 4G (default 4G)",
    )
    p.add_argument(
        "--analysis-timeout",
        type=float,
        default=120.0,
        metavar="S",
        help="seconds one upload may analyse",
    )
    p.add_argument(
        "--analysis-memory",
        default="6G",
        metavar="SIZE",
        help="address space one upload's check may use",
    )
    p.add_argument(
        "--client-timeout",
        type=float,
        default=Timeouts().head,
        metavar="S",
        help="seconds a request head may take, and an upload may pause (default 30)",
    )
    p.add_argument(
        "--min-rate",
        default="10K",
        metavar="SIZE",
        help="bytes per second an upload must average once paused that long (default 10K)",
    )
    return p


def main(argv: list[str]) -> int:
    """Run the service until Ctrl-C; 0 on a clean stop."""
    args = parser().parse_args(argv)
    release_freed_memory()  # a server: big temporaries leave the process once freed
    import uvicorn

    from traceview.service.routes import Config, create_service
    from traceview.service.store import SqliteStore, StoreBusy

    if not 0 <= args.port <= 65535:
        raise options.CliError(f"not a port: {args.port} (0-65535)")
    if not args.analysis_timeout > 0:
        raise options.CliError(f"--analysis-timeout must be positive: {args.analysis_timeout}")
    if not args.client_timeout > 0:
        raise options.CliError(f"--client-timeout must be positive: {args.client_timeout}")
    rate = options.size_bytes(args.min_rate)  # per second
    timeouts = Timeouts(head=args.client_timeout, idle=args.client_timeout, rate=rate)
    max_upload = options.size_bytes(args.max_upload)
    data = Path(args.data) if args.data else default_data_dir()
    try:
        store = SqliteStore(data)
    except StoreBusy as exc:
        raise options.CliError(str(exc)) from None
    except (OSError, sqlite3.Error) as exc:
        raise options.CliError(f"cannot use {data} for storage: {exc}") from None
    token = args.token or os.environ.get("TRACEVIEW_TOKEN") or None
    config = Config(
        max_upload=max_upload,
        token=token,
        memory_budget=options.size_bytes(args.memory) if args.memory else BUDGET,
        limits=Limits(
            seconds=args.analysis_timeout, memory=options.size_bytes(args.analysis_memory)
        ),
        timeouts=timeouts,
    )
    app = create_service(store, allowed_hosts(args.host, args.allow_host), config)
    try:
        sock = bind(args.host, args.port)
    except OSError as exc:
        where = f"{args.host}:{args.port}"
        raise options.CliError(f"cannot listen on {where}: {exc.strerror}") from None
    port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            http=head_deadline(timeouts.head),  # uvicorn keeps a half-sent head open forever
        )
    )
    bound = sock.getsockname()[0]
    if bound not in ("127.0.0.1", "::1"):
        print(f"traceview: listening on {bound}:{port} (not only this machine)", flush=True)
    print(f"traceview: storing traces in {data}", flush=True)
    print(f"traceview: serving at {url_for(args.host, port)}  (Ctrl-C to stop)", flush=True)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
        store.close()
    return 0
